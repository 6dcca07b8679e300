"""GD, normalised GD and Adam on the NTP loss (Thrampoulidis 2024, §5 and App. A), with records.

§5: "``W_k = W_{k−1} − η∇CE(W_{k−1})`` for arbitrary initial point ``W_0`` and
constant step-size ``η > 0`` small enough to guarantee descent"; App. E.1:
"Throughout we assume GD is ran with step-size ``η ≤ 1/(2L)`` where ``L`` is the
smoothness of CE loss".  App. A runs GD (η = 0.5), normalised GD and Adam
(η = 0.01, β = (0.9, 0.99)) from "random LeCun initialization" for 10⁴
iterations and plots, against the iteration: CE against ℋ, ‖W_k‖, the
correlation of ``W_k`` and of the "corrected" ``W_k − W⋆`` with ``W^mm``, and
``‖P_ℱ(W_k) − W⋆‖``.  :func:`train` runs one optimiser (the loop compiled,
:mod:`._loops`) and records, at geometrically spaced steps
(:func:`checkpoints`), every one of those quantities:

===========================  ====================================================
record                       quantity
===========================  ====================================================
``excess``                   ``CE(W_k) − ℋ``, without cancellation (:mod:`.excess`)
``norm``                     ``‖W_k‖`` (Frobenius)
``one_minus_corr``           ``1 − ⟨W̄_k, W̄^mm⟩ = ½‖W̄_k − W̄^mm‖²`` (no cancellation near 1)
``one_minus_corr_corrected`` the same for ``W_k − W⋆`` (the paper's "corrected" iterate)
``dist_F``                   ``‖P_ℱ(W_k) − W⋆‖``
``norm_perp``                ``‖P_⊥(W_k)‖``
===========================  ====================================================

The last four need the references ``W⋆``, ``W^mm`` and a basis of ℱ
(:class:`References`); without them only ``excess`` and ``norm`` are recorded.

Step size (App. E.1)
--------------------
:func:`gd_step` is ``1/(2L̄)`` with ``L̄ = ½ λ_max(Σ_j π̂_j h̄_j h̄_jᵀ)``
(:func:`ntpcheck.linear.loss.smoothness_bound`, where the bound ``L ≤ L̄`` is
proved: the softmax Jacobian has ``λ_max ≤ ½``).  With ``η ≤ 1/L`` the descent
lemma gives ``CE(W_{k+1}) ≤ CE(W_k) − η(1 − Lη/2)‖∇CE(W_k)‖²``: the loss never
rises (the records' ``max_rise``, up to rounding).

Initialisations
---------------
``"zero"``: ``W_0 = 0``.  ``"lecun"``: LeCun normal, i.i.d. ``N(0, 1/d)``
entries (fan-in ``d``, the decoder's input dimension), from
``numpy.random.default_rng(seed)``.  An array is used as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ntpcheck.common.directions import scaled_unit

from .data import NTPData
from .excess import excess
from .loss import entropy, smoothness_bound

__all__ = ["METHODS", "References", "Trajectory", "gd_step", "lecun_init", "initial",
           "checkpoints", "train", "step_reference", "one_minus_cos", "dist_floor"]

#: The optimisers, with their default step sizes (App. A) where the paper gives them.
METHODS = ("gd", "ngd", "adam")
#: The compiled loop (:mod:`._loops`) is imported on first use: importing numba loads its compiler,
#: which collecting the claims (``pytest --ntpcheck``) should not do.
_CODE = {"gd": 0, "ngd": 1, "adam": 2}  # _loops.GD, NGD, ADAM
_STATUS = {1: "done", 2: "zero gradient", 3: "not finite"}  # _loops.DONE, ZERO_GRADIENT, NOT_FINITE


def gd_step(D: NTPData) -> float:
    """App. E.1's largest step ``η = 1/(2L̄)`` with ``L̄`` of :func:`~ntpcheck.linear.loss.smoothness_bound`.

    Examples
    --------
    >>> gd_step(NTPData(np.eye(2), np.array([[1, 0], [0, 3]])))   # 1/λ_max(diag(π̂)) = 4/3
    1.3333333333333333
    """
    return 1.0 / (2.0 * smoothness_bound(D))


def lecun_init(V: int, d: int, seed: int) -> np.ndarray:
    """LeCun normal ``W_0``: i.i.d. ``N(0, 1/d)`` entries, seeded.

    Examples
    --------
    >>> W = lecun_init(10, 400, seed=0)
    >>> W.shape, bool(abs(W.var() * 400 - 1) < 0.05), bool((lecun_init(10, 400, 0) == W).all())
    ((10, 400), True, True)
    """
    return np.random.default_rng(seed).normal(0.0, 1.0 / np.sqrt(d), size=(V, d))


def initial(D: NTPData, init, seed: int = 0) -> np.ndarray:
    """``W_0`` for ``init`` = ``"zero"``, ``"lecun"`` (seeded) or an array (V × d)."""
    if isinstance(init, str):
        if init == "zero":
            return np.zeros((D.V, D.d))
        if init == "lecun":
            return lecun_init(D.V, D.d, seed)
        raise ValueError(f"init must be 'zero', 'lecun' or an array, got {init!r}")
    W0 = np.array(init, dtype=float)
    if W0.shape != (D.V, D.d):
        raise ValueError(f"W_0 must be V x d = {D.V} x {D.d}, got {W0.shape}")
    return W0


def checkpoints(n_steps: int, per_decade: int = 20) -> np.ndarray:
    """Steps ``0, 1, …, n_steps`` thinned geometrically: about ``per_decade`` per factor 10
    (rounded to integers, duplicates merged), always ``0`` and ``n_steps``.

    Examples
    --------
    >>> checkpoints(100, per_decade=4).tolist()
    [0, 1, 2, 3, 6, 10, 18, 32, 56, 100]
    """
    if n_steps < 0:
        raise ValueError("n_steps must be >= 0")
    if n_steps == 0:
        return np.zeros(1, dtype=np.int64)
    n_pts = int(np.ceil(per_decade * np.log10(max(n_steps, 1)))) + 1
    grid = np.unique(np.round(np.geomspace(1, n_steps, max(n_pts, 2))).astype(np.int64))
    return np.unique(np.concatenate([[0], grid, [n_steps]]))


def one_minus_cos(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 − ⟨A/‖A‖, b/‖b‖⟩ = ½‖A/‖A‖ − b/‖b‖‖²`` over the last two axes of ``A`` (a stack or one
    matrix), without cancellation near 1; NaN where ``‖A‖ = 0`` or ``A`` has an entry that is not
    finite.  A matrix whose sum of squares overflows (entries past about 1e154), or underflows to
    0 altogether (every entry below about 1e-162), is scaled by its largest entry first, so its
    direction is kept: divided by an overflowed norm it read as 0, and ``1 − cos`` as 0.5.

    Examples
    --------
    >>> a = np.array([[1.0, 1e-9]]); b = np.array([[1.0, 0.0]])
    >>> float(one_minus_cos(a, b))  # 1 - cos(1e-9) = 5e-19, lost by 1 - <a, b>/|a|
    5e-19
    >>> one_minus_cos(np.array([[[1e200, 0.0]], [[1e-200, 0.0]], [[np.inf, 0.0]]]), b).tolist()
    [0.0, 0.0, nan]
    """
    A = np.asarray(A, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        nA = np.sqrt(np.sum(A * A, axis=(-2, -1), keepdims=True))
        unit = A / nA
        redo = ~np.isfinite(nA) | (nA == 0)
        if redo.any():  # the squares overflowed or underflowed: the same direction, scaled first
            unit = np.where(redo, scaled_unit(A, axis=(-2, -1)), unit)
        diff = unit - b / np.linalg.norm(b)
    return 0.5 * np.sum(diff * diff, axis=(-2, -1))


def dist_floor(norms: np.ndarray, w_star_norm: float) -> np.ndarray:
    """The rounding floor of ``‖P_ℱW − W⋆‖``: ``1e-13 · max(1, ‖W‖, ‖W⋆‖)`` for each of ``norms``.

    The distance is a difference of matrices of size ``~‖W‖`` and ``‖W⋆‖`` whose entries carry
    ``~1e-16`` relative error each; below the floor a record is rounding, not dynamics (three digits
    of room at ``Vd ≤ 60`` entries).

    Examples
    --------
    >>> dist_floor(np.array([0.5, 10.0]), 2.0).tolist()
    [2e-13, 1e-12]
    """
    return 1e-13 * np.maximum(np.maximum(1.0, norms), w_star_norm)


@dataclass(frozen=True, eq=False)
class References:
    """The fixed points the records compare ``W_k`` with.

    Parameters
    ----------
    W_star : ndarray (V, d)
        ``W⋆``, the solution of (4) in ℱ.
    W_mm : ndarray (V, d)
        ``W^mm``, the NTP-SVM solution (Def. 3).
    basis : ndarray (r, V·d)
        Orthonormal rows spanning ℱ (Eq. 5), for ``vec(W)`` in row-major (C) order.
    """

    W_star: np.ndarray
    W_mm: np.ndarray
    basis: np.ndarray

    @classmethod
    def of(cls, D: NTPData) -> "References":
        """``W⋆`` (:func:`~.subspace.w_star`), ``W^mm`` (:func:`~.svm.w_mm`) and ℱ's basis for ``D``
        (raises :class:`~ntpcheck.common.errors.InfeasibleProblemError` if ``D`` is not compatible or not separable)."""
        from .subspace import subspace, w_star
        from .svm import w_mm

        F = subspace(D)
        return cls(w_star(D), w_mm(D, "auto", F).W, F.basis)

    def project(self, W: np.ndarray) -> np.ndarray:
        """``P_ℱ(W)`` for one ``W`` or a stack (``(..., V, d)``)."""
        W = np.asarray(W, dtype=float)
        flat = W.reshape(W.shape[:-2] + (-1,))
        return ((flat @ self.basis.T) @ self.basis).reshape(W.shape)


@dataclass(frozen=True, eq=False)
class Trajectory:
    """One optimiser's run, recorded at the steps ``k``.

    Attributes
    ----------
    method, eta, n_steps, init, seed :
        How it was run (``init`` is ``"zero"``, ``"lecun"`` or ``"given"``).
    k : ndarray of int
        The recorded steps (:func:`checkpoints`), and the last step reached.
    W : ndarray (len(k), V, d)
        ``W_k`` at those steps.
    loss : ndarray
        ``CE(W_k)`` as the loop computed it (for the descent check; use ``excess`` for ``CE − ℋ``).
    gnorm : ndarray
        ``‖∇CE(W_k)‖``.
    max_rise : float
        ``max_k CE(W_{k+1}) − CE(W_k)`` over every step taken (not only the recorded ones).
    status : str
        ``"done"``, or why the run stopped early (``"zero gradient"``, ``"not finite"``).
    entropy : float
        ``ℋ``.
    records : dict of ndarray
        ``excess``, ``norm``, and with references ``one_minus_corr``,
        ``one_minus_corr_corrected``, ``dist_F``, ``norm_perp`` (module docstring).
    """

    method: str
    eta: float
    n_steps: int
    init: str
    seed: int
    k: np.ndarray
    W: np.ndarray
    loss: np.ndarray
    gnorm: np.ndarray
    max_rise: float
    status: str
    entropy: float
    records: dict = field(default_factory=dict)

    def __getattr__(self, name: str):
        records = self.__dict__.get("records", {})
        if name in records:
            return records[name]
        raise AttributeError(name)


def records(D: NTPData, W: np.ndarray, refs: References | None = None) -> dict:
    """The records of the stack ``W`` (module docstring)."""
    out = {"excess": np.array([excess(D, Wk).total for Wk in W]), "norm": np.sqrt(np.sum(W * W, axis=(-2, -1)))}
    if refs is not None:
        PF = refs.project(W)
        perp = W - PF
        out.update(
            one_minus_corr=one_minus_cos(W, refs.W_mm),
            one_minus_corr_corrected=one_minus_cos(W - refs.W_star, refs.W_mm),
            dist_F=np.sqrt(np.sum((PF - refs.W_star) ** 2, axis=(-2, -1))),
            norm_perp=np.sqrt(np.sum(perp * perp, axis=(-2, -1))),
        )
    return out


def train(D: NTPData, method: str = "gd", n_steps: int = 10_000, eta: float | None = None, *, init="zero", seed: int = 0,
          refs: References | None = None, per_decade: int = 20, steps=None, betas: tuple[float, float] = (0.9, 0.99),
          eps: float = 1e-8) -> Trajectory:
    """Run ``method`` (``"gd"``, ``"ngd"``, ``"adam"``) on ``CE`` for ``n_steps`` steps from ``init``.

    ``eta`` defaults to :func:`gd_step` (``1/(2L)``) for GD and to App. A's ``0.01`` for NGD and
    Adam; ``betas`` and ``eps`` are Adam's (App. A: β = (0.9, 0.99); ε = 1e-8 is Adam's usual
    default, the paper gives none).  Recorded at :func:`checkpoints` (``per_decade``), or at the
    given ``steps`` (and always at the last step reached).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 2]]))
    >>> tr = train(D, "gd", 1000)
    >>> tr.status, int(tr.k[-1]), bool(np.all(np.diff(tr.excess) < 0)), bool(tr.max_rise <= 0)
    ('done', 1000, True, True)
    >>> bool(tr.norm[-1] > tr.norm[100 // 10])   # ‖W_k‖ grows (Lemma 2)
    True
    """
    if method not in _CODE:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if eta is None:
        eta = gd_step(D) if method == "gd" else 0.01
    if not (eta > 0 and np.isfinite(eta)):
        raise ValueError(f"the step size must be positive and finite, got {eta!r}")
    W = np.ascontiguousarray(initial(D, init, seed), dtype=float)
    steps = checkpoints(int(n_steps), per_decade) if steps is None else np.unique(np.asarray(steps, dtype=np.int64))
    if steps.size and (steps[0] < 0 or steps[-1] > n_steps):
        raise ValueError(f"recorded steps must lie in [0, {n_steps}]")
    recorded = np.zeros(int(n_steps) + 1, dtype=np.bool_)
    recorded[steps] = True
    cap = len(steps) + 1
    out_k = np.zeros(cap, dtype=np.int64)
    out_W = np.zeros((cap, D.V, D.d))
    out_loss = np.zeros(cap)
    out_gnorm = np.zeros(cap)
    H = np.ascontiguousarray(D.H, dtype=float)
    P = np.ascontiguousarray(D.P, dtype=float)
    from . import _loops

    k, written, status, max_rise = _loops.run(_CODE[method], W, H, P, np.ascontiguousarray(D.pi, dtype=float),
                                              np.ascontiguousarray(D.mask), float(eta), float(betas[0]), float(betas[1]),
                                              float(eps), int(n_steps), recorded, out_k, out_W, out_loss, out_gnorm)
    Ws = out_W[:written].copy()
    return Trajectory(method, float(eta), int(n_steps), init if isinstance(init, str) else "given", int(seed),
                      out_k[:written].copy(), Ws, out_loss[:written].copy(), out_gnorm[:written].copy(),
                      float(max_rise), _STATUS.get(int(status), "running"), entropy(D), records(D, Ws, refs))


def step_reference(D: NTPData, method: str, W: np.ndarray, state: dict, eta: float,
                   betas: tuple[float, float] = (0.9, 0.99), eps: float = 1e-8) -> np.ndarray:
    """One step of ``method`` in plain numpy (the compiled loop's reference, for tests).

    ``state`` carries Adam's moments and step count between calls (start with ``{}``).
    """
    from .loss import ce_grad

    G = ce_grad(D, W)
    if method == "gd":
        return W - eta * G
    if method == "ngd":
        return W - eta * G / np.linalg.norm(G)
    if method == "adam":
        b1, b2 = betas
        t = state.get("t", 0) + 1
        m = b1 * state.get("m", 0.0) + (1 - b1) * G
        v = b2 * state.get("v", 0.0) + (1 - b2) * G * G
        state.update(t=t, m=m, v=v)
        return W - eta * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
    raise ValueError(method)
