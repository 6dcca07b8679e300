"""Algorithm 1: two-stage normalized gradient descent (Section 4.2).

Stage 1 trains ``W_ov`` on the collocation loss ``L_0`` from ``W_ov = 0``::

    W_ov <- W_ov - eta_0 grad L_0 / ||grad L_0||          (t < T)

Stage 2 freezes ``W_ov = W_ov^(T)`` and trains ``W_kq`` on Eq. (1) from 0::

    W_kq <- W_kq - eta grad_{W_kq} L / ||grad_{W_kq} L||  (t < T')

Defaults are the paper's Section 7 choices: ``eta_0 = 0.2/sqrt(d)``,
``eta = 0.05/sqrt(d)``, ``T = T' = 900``.  The *idealised* stage 1 of
Appendix C.1 (used from Lemma 4 on) replaces the stage-1 output by the
matrix whose stage-1 margins all equal a given value (the paper's ``A`` of
Corollary 1, computed by :func:`ntpcheck.properties.huang2024.bounds.A`),
i.e. ``margin * W*_ov`` under Assumption 2.

Stage 1 uses a log-scaled gradient (:func:`ntpcheck.model.stage1_grad_scaled`),
so its direction stays exact after the loss underflows.  If a stage-2
gradient underflows to zero (or stops being finite) training stops cleanly;
:attr:`StageTrajectory.stopped` says at which step and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import model
from .data import Dataset
from .embeddings import as_embeddings, is_canonical
from .model import CollocationArrays, safe_norm
from .stage1_forms import idealised_stage1, stage1_closed_form, stage1_closed_form_applies
from .structure import Structure, as_structure

__all__ = [
    "TrainingConfig",
    "StageTrajectory",
    "Trajectory",
    "collocation_arrays",
    "one_minus_cos",
    "run_stage1",
    "run_stage2",
    "idealised_stage1",
    "stage1_closed_form",
    "stage1_closed_form_applies",
    "train",
]


@dataclass(frozen=True)
class TrainingConfig:
    """Parameters of Algorithm 1.

    ``eta0``/``eta`` default to ``0.2/sqrt(d)`` and ``0.05/sqrt(d)``; ``stride``
    records every ``stride``-th step (the first and last are always kept);
    ``record_attention`` keeps the attention weights of every recorded step;
    ``stage1_margin``, if set, replaces the stage-1 output by the idealised
    ``stage1_margin * W*_ov`` of Appendix C.1 (:func:`idealised_stage1`).
    """

    T: int = 900
    T2: int = 900
    eta0: float | None = None
    eta: float | None = None
    stride: int = 1
    stage1_margin: float | None = None
    record_attention: bool = True

    def __post_init__(self) -> None:
        for name in ("T", "T2", "stride"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (1 if name == "stride" else 0):
                raise ValueError(f"{name} must be an integer >= {1 if name == 'stride' else 0}, got {v!r}")
        for name in ("eta0", "eta", "stage1_margin"):
            v = getattr(self, name)
            if v is not None and not (math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be finite and > 0, got {v!r}")

    def step_sizes(self, d: int) -> tuple[float, float]:
        eta0 = 0.2 / math.sqrt(d) if self.eta0 is None else float(self.eta0)
        eta = 0.05 / math.sqrt(d) if self.eta is None else float(self.eta)
        return eta0, eta


@dataclass
class StageTrajectory:
    """What one stage recorded.

    Attributes
    ----------
    steps : ndarray of int
        The recorded iterations ``t`` (0 = initialisation).
    loss, norm, one_minus_cos : ndarray
        ``L_0`` or ``L``; ``||W^(t)||``; ``1 - <W^(t)/||W^(t)||, W_ref/||W_ref||>``
        (NaN where either norm is 0 or no reference was given).
    margins : ndarray, shape (k, m)
        Stage 1: ``(e_{n(x)} - e_i)^T W_ov x`` for each collocation pair and
        ``i != n(x)`` (m = |C| (|V| - 1)).  Stage 2: ``(x_l - x_l')^T W_kq x_q``
        for each distinct Eq. (3) constraint.
    attention : ndarray, shape (k, N, L_max) or None
        Stage 2 only: the attention weights of every sample and position.
    W : ndarray
        The final parameter.
    stopped : str or None
        Why the stage ended early (gradient underflow), else None.
    """

    steps: np.ndarray
    loss: np.ndarray
    norm: np.ndarray
    one_minus_cos: np.ndarray
    margins: np.ndarray
    attention: np.ndarray | None
    W: np.ndarray
    stopped: str | None = None
    seconds: float = 0.0
    weights: np.ndarray | None = None  # (k, ...) the parameter at every recorded step, if kept
    grad_scale: np.ndarray | None = None  # max |gradient| at every recorded step (stage 1: of the log-scaled gradient)


class Trajectory:
    """Both stages of Algorithm 1.

    ``W_ov`` is the value matrix stage 2 ran with.  ``stage1`` is the
    recorded NGD run of stage 1; when stage 2 could start from the closed
    form :func:`stage1_closed_form` it is run only when first asked for
    (the claims about the stage-1 trajectory ask; the others do not).
    """

    def __init__(self, stage1, stage2: StageTrajectory, eta0: float, eta: float, config: TrainingConfig,
                 embeddings: np.ndarray, W_ov: np.ndarray | None = None) -> None:
        self._stage1 = stage1  # a StageTrajectory, or a callable that runs it
        self.stage2, self.eta0, self.eta, self.config, self.embeddings = stage2, eta0, eta, config, embeddings
        self.W_ov = stage1.W if W_ov is None else W_ov

    @property
    def stage1(self) -> StageTrajectory:
        if callable(self._stage1):
            s1 = self._stage1()
            if self.config.stage1_margin is not None:
                s1.W = self.W_ov  # the idealised stage 1 replaced its output
            self._stage1 = s1
        return self._stage1

    @property
    def W_kq(self) -> np.ndarray:
        return self.stage2.W


def collocation_arrays(st: Structure) -> CollocationArrays:
    """The collocation pairs of a structure as index arrays."""
    return CollocationArrays(*st.collocation_index, st.dataset.n_vocab)


def one_minus_cos(W: np.ndarray, R: np.ndarray | None) -> float:
    """``1 - cos(W, R)`` computed as ``||W/|W| - R/|R| ||^2 / 2`` (accurate near 0)."""
    if R is None:
        return float("nan")
    nw, nr = safe_norm(W), safe_norm(R)
    if nw == 0 or nr == 0:
        return float("nan")
    D = W / nw - R / nr
    return 0.5 * float(np.sum(D * D))


def _stage1_margins(Ws: np.ndarray, E: np.ndarray, coll: CollocationArrays) -> np.ndarray:
    """``(e_{n(x)} - e_i)^T W x`` for every recorded W (shape (k, |C| (|V| - 1)))."""
    k = len(Ws)
    if len(coll.source) == 0:
        return np.zeros((k, 0))
    U = Ws if is_canonical(E) else Ws @ E  # (k, V, V): column x is W x
    cols = U[:, :, coll.source]  # (k, V, |C|)
    c = np.arange(len(coll.source))
    top = cols[:, coll.target, c]  # (k, |C|)
    m = top[:, None, :] - cols  # (k, V, |C|)
    keep = np.ones(m.shape[1:], dtype=bool)
    keep[coll.target, c] = False
    return m.transpose(0, 2, 1)[:, keep.T]


def _stage2_margin_fn(st: Structure, E: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    idx = st.dataset.index
    pairs = st.eq3_pairs
    a = np.array([idx[p[0]] for p in pairs], dtype=np.int64)
    b = np.array([idx[p[1]] for p in pairs], dtype=np.int64)
    q = np.array([idx[p[2]] for p in pairs], dtype=np.int64)

    canonical = is_canonical(E)

    def margins(Ws: np.ndarray) -> np.ndarray:
        K = Ws if canonical else np.matmul(np.matmul(E.T, Ws), E)
        return K[:, a, q] - K[:, b, q]

    return margins


def _record_steps(n_steps: int, stride: int) -> np.ndarray:
    steps = np.arange(0, n_steps + 1, stride)
    if steps[-1] != n_steps:
        steps = np.append(steps, n_steps)
    return steps


def _ngd(
    W0: np.ndarray,
    n_steps: int,
    eta: float,
    grad: Callable[[np.ndarray], tuple[np.ndarray, float]],
    record: Callable[[int, np.ndarray, float, float], None],
    stride: int,
) -> tuple[np.ndarray, str | None]:
    """Normalized GD ``W <- W - eta G/||G||``; calls ``record(t, W, loss, max|G|)`` on recorded steps."""
    W = W0.copy()
    rec = set(_record_steps(n_steps, stride).tolist())
    for t in range(n_steps + 1):
        G, lo = grad(W)
        scale = float(np.max(np.abs(G))) if G.size else 0.0
        if t in rec:
            record(t, W, lo, scale)
        if t == n_steps:
            return W, None
        if scale == 0.0 or not np.isfinite(scale):
            if t not in rec:
                record(t, W, lo, scale)
            if scale == 0.0:
                why = "is exactly zero (underflow, or a flat loss such as W_ov = 0)"
            else:
                why = "is not finite (the parameters overflowed: step size too large?)"
            return W, f"gradient {why} at step {t}; training stopped before that update"
        # Rescale before the norm so that tiny gradients do not underflow when squared.
        Gs = G / scale
        W = W - eta * Gs / float(np.linalg.norm(Gs))
    return W, None  # pragma: no cover


class _Recorder:
    """Collects the parameter and loss at recorded steps; derived curves are
    computed in one vectorised pass at the end (:meth:`result`)."""

    def __init__(self, margin_fn, ref, attention_fn=None, keep_weights=False):
        self.steps, self.loss, self.att, self.W, self.gscale = [], [], [], [], []
        self.margin_fn, self.ref, self.attention_fn, self.keep = margin_fn, ref, attention_fn, keep_weights

    def __call__(self, t: int, W: np.ndarray, lo: float, gscale: float = float("nan")) -> None:
        self.steps.append(t)
        self.loss.append(lo)
        self.gscale.append(gscale)
        self.W.append(W.copy())
        if self.attention_fn is not None:
            self.att.append(self.attention_fn(W))

    def result(self, W: np.ndarray, stopped: str | None, seconds: float) -> StageTrajectory:
        Ws = np.array(self.W)
        k = len(Ws)
        flat = Ws.reshape(k, -1)
        scale = np.max(np.abs(flat), axis=1)
        safe = np.where(scale > 0, scale, 1.0)
        norms = scale * np.linalg.norm(flat / safe[:, None], axis=1)
        if self.ref is None or safe_norm(self.ref) == 0:
            cos = np.full(k, np.nan)
        else:
            r = (self.ref / safe_norm(self.ref)).ravel()
            with np.errstate(invalid="ignore", divide="ignore"):
                D = flat / np.where(norms > 0, norms, np.nan)[:, None] - r[None, :]
            cos = 0.5 * np.sum(D * D, axis=1)
        m = self.margin_fn(Ws)
        return StageTrajectory(
            np.array(self.steps, dtype=np.int64),
            np.array(self.loss),
            norms,
            cos,
            m,
            np.array(self.att) if self.attention_fn is not None else None,
            W,
            stopped,
            seconds,
            Ws if self.keep else None,
            np.array(self.gscale),
        )


def run_stage1(
    st: Structure,
    E: np.ndarray,
    T: int,
    eta0: float,
    reference: np.ndarray | None = None,
    stride: int = 1,
    keep_weights: bool = False,
) -> StageTrajectory:
    """Stage 1 of Algorithm 1 from ``W_ov = 0``; ``reference`` is usually ``W*_ov``."""
    import time

    coll = collocation_arrays(st)
    rec = _Recorder(lambda W: _stage1_margins(W, E, coll), reference, keep_weights=keep_weights)
    t0 = time.perf_counter()
    Ecan = None if is_canonical(E) else E
    # The log-scaled gradient keeps the exact NGD direction when the loss underflows.
    W, stopped = _ngd(
        np.zeros((st.dataset.n_vocab, E.shape[0])), T, eta0, lambda W: model.stage1_grad_scaled(W, Ecan, coll)[::2], rec, stride
    )
    return rec.result(W, stopped, time.perf_counter() - t0)


def run_stage2(
    st: Structure,
    E: np.ndarray,
    W_ov: np.ndarray,
    T2: int,
    eta: float,
    reference: np.ndarray | None = None,
    stride: int = 1,
    record_attention: bool = True,
    W_kq0: np.ndarray | None = None,
    keep_weights: bool = False,
) -> StageTrajectory:
    """Stage 2 of Algorithm 1 with ``W_ov`` frozen, from ``W_kq0`` (default 0)."""
    import time

    arr = st.dataset.arrays
    Ecan = None if is_canonical(E) else E
    att = (lambda W: model.attention(W, Ecan, arr)) if record_attention else None
    rec = _Recorder(_stage2_margin_fn(st, E), reference, att, keep_weights)
    d = E.shape[0]
    W0 = np.zeros((d, d)) if W_kq0 is None else np.array(W_kq0, dtype=float)
    t0 = time.perf_counter()
    W, stopped = _ngd(W0, T2, eta, model.stage2_grad_fn(W_ov, Ecan, arr), rec, stride)
    return rec.result(W, stopped, time.perf_counter() - t0)


def train(
    dataset: Dataset | Structure,
    config: TrainingConfig = TrainingConfig(),
    embeddings: np.ndarray | None = None,
    references: tuple[np.ndarray | None, np.ndarray | None] | None = None,
    keep_weights: bool = False,
) -> Trajectory:
    """Run Algorithm 1 and record both stages.

    Parameters
    ----------
    dataset : Dataset or Structure
    config : TrainingConfig
    embeddings : ndarray, optional
        ``d x |V|``; canonical when omitted.
    references : (W_ov_ref, W_kq_ref), optional
        Directions for the alignment curves; by default the max-margin
        solutions ``W*_ov`` (Eq. 2) and ``W*_kq`` (Eq. 3), computed by
        :func:`ntpcheck.maxmargin.reference_solutions`.

    Examples
    --------
    >>> import ntpcheck
    >>> traj = train(ntpcheck.load("example1"), TrainingConfig(T=300, T2=300))
    >>> bool(traj.stage1.loss[-1] < traj.stage1.loss[0]), bool(traj.stage2.loss[-1] < traj.stage2.loss[0])
    (True, True)
    >>> float(traj.stage1.norm[-1]) <= 300 * traj.eta0    # Lemma 1's upper bound
    True
    """
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    eta0, eta = config.step_sizes(E.shape[0])
    if references is None:
        from .maxmargin import reference_solutions

        references = reference_solutions(st, E)
    ref_ov, ref_kq = references
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported as a clean stop instead
        return _train(st, E, config, eta0, eta, ref_ov, ref_kq, keep_weights)


def _train(st, E, config, eta0, eta, ref_ov, ref_kq, keep_weights) -> Trajectory:
    run1 = lambda: run_stage1(st, E, config.T, eta0, ref_ov, config.stride, keep_weights)
    if config.stage1_margin is not None:
        W_ov = idealised_stage1(st, E, config.stage1_margin)
    elif stage1_closed_form_applies(st, E):
        W_ov = stage1_closed_form(st, E, config.T, eta0)
    else:
        run1 = run1()
        W_ov = run1.W
    s2 = run_stage2(st, E, W_ov, config.T2, eta, ref_kq, config.stride, config.record_attention, keep_weights=keep_weights)
    return Trajectory(run1, s2, eta0, eta, config, E, W_ov)
