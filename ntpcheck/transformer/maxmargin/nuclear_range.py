"""How far the *set* of nuclear-norm max-margin solutions spreads around a direction.

``min ||W||_* s.t. R vec(W) >= 1`` (:mod:`~.nuclear`) can have many minimisers
(e.g. ``W_11 >= 1, W_22 >= 1``: every PSD ``[[1, a], [a, 1]]``, ``|a| <= 1``,
has nuclear norm 2), so ``1 - cos`` between a trained direction ``D`` and
"the" solution depends on which minimiser the solver returned.
:func:`cosine_range` bounds ``1 - cos(D, W)`` over the whole optimal face,
relaxed by a relative tolerance so that it surely contains every minimiser:

    ``F = {W : R vec(W) >= 1, ||W||_* <= P}``,  ``P = p_up (1 + tol)``,

where ``p_up = ||W_0||_* / min(R w_0)`` is the nuclear norm of the certified
solution ``W_0`` scaled to exact feasibility, an upper bound on the optimum
``p*``.  Four numbers are reported, ``lo <= lo_attained <= hi_attained <= hi``:

* ``lo`` (certified): ``1 - cos(D, W) >= lo`` for every ``W`` in ``F``;
* ``lo_attained``, ``hi_attained``: ``1 - cos`` at points of ``F`` actually
  found (scaled to exact feasibility; ``cos`` does not change under scaling;
  their nuclear norm within ``P (1 + tol)``, the solver's accuracy),
  so the minimisers (to ``tol``) really spread at least that far;
* ``hi`` (certified): ``1 - cos(D, W) <= hi`` for every ``W`` in ``F``.

Proofs (``D`` of unit Frobenius norm, ``G(lam) = mat(R^T lam)``):

*Lower bound.* ``max_F cos`` is, by the Charnes-Cooper substitution
``V = W / ||W||_F``, ``s = 1 / ||W||_F``, at most the value of the convex
program ``max <D, V> s.t. ||V||_F <= 1, R v >= s 1, ||V||_* <= s P, s >= 0``
(its feasible set contains every ``(W/||W||_F, 1/||W||_F)``).  For any
``lam >= 0`` its Lagrangian dual gives, with ``mu = sum(lam) / P``,
``<D, V> <= <D + G, V> - mu ||V||_* <= sqrt(sum_i (sigma_i(D + G) - mu)_+^2)``
on that set (``<G, V> >= s sum lam = mu s P >= mu ||V||_*`` there, and
``max {<A, V> - mu ||V||_* : ||V||_F <= 1}`` is the Frobenius norm of ``A``'s
singular values shrunk by ``mu``).  So ``lo = 1 - sqrt(sum_i (sigma_i(D+G) -
mu)_+^2)`` is valid for *any* ``lam >= 0``; the solver's multipliers make it
tight, and the witness ``W = V / s`` shows how tight (``lo_attained - lo``).

*Upper bound.* ``m = min_F <D, W>`` is a convex program; for any ``lam >= 0``,
``<D, W> >= <D - G, W> + sum lam >= sum lam - P ||D - G||_2 =: m_lo``
on ``F`` (Hölder with ``||W||_* <= P``).  Then ``cos = <D, W>/||W||_F``
with ``||W_F*||_F <= ||W||_F <= ||W||_* <= P`` (``W_F*`` the Frobenius max-margin
solution minimises ``||W||_F`` under the same constraints) gives
``cos >= m_lo / P`` if ``m_lo >= 0`` and ``cos >= m_lo / ||W_F*||_F`` otherwise;
``hi = 1 - max(-1, that)``.  The minimum of ``cos`` over a convex set is not
a convex problem (the sublevel sets of ``cos`` are complements of cones), so
``hi`` can be loose; ``hi_attained`` is found by the monotone linearisation
``W_{k+1} = argmin_F <D - c_k W_k / ||W_k||_F, W>`` with ``c_k = cos(W_k)``
(``cos(W_{k+1}) <= c_k``: the objective is 0 at ``W_k`` and ``||W|| >=
<W_k, W>/||W_k||``), started from ``W_0`` and from the face's ``argmin <D, W>``,
each step over the exact face ``{U1 M V1^T : M PSD} ∩ F`` (``U1``, ``V1`` the singular
vectors of the certificate's ``G`` at singular value 1 (to 1e-6): where ``G``
is exactly dual optimal every minimiser lies there), a k x k program instead
of the full one; each iterate is checked to be a point of ``F`` all the same.

Every program is solved with cvxpy parameters (compiled once per face).  The
default ``tol = 1e-6`` is a choice: with ``1e-8`` (the certificate's own
accuracy) ``F`` is so thin that CLARABEL answers only "inaccurate"; a unique
minimiser with quadratic growth of ``||W||_*`` then shows a spread of order
``sqrt(tol)`` (about 1e-3; ``tests/transformer/test_nuclear_range.py``).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from ntpcheck.common.errors import SolverFailedError
from .nuclear import NuclearSolution

__all__ = ["CosineRange", "NuclearFace", "cosine_range", "closer_to"]

@dataclass(frozen=True)
class CosineRange:
    """``1 - cos`` between one direction and the nuclear-norm minimisers (to ``tol``):
    certified ``[lo, hi]``, attained ``[lo_attained, hi_attained]``, and the reported minimiser's value."""

    lo: float
    lo_attained: float
    hi_attained: float
    hi: float
    reported: float
    tol: float
    seconds: float

    def to_json(self) -> dict:
        return {"lo": self.lo, "lo_attained": self.lo_attained, "hi_attained": self.hi_attained, "hi": self.hi,
                "reported_minimiser": self.reported, "tol": self.tol, "seconds": self.seconds}


def closer_to(frobenius: float, nuclear: CosineRange) -> str:
    """``"frobenius"`` if ``1 - cos`` to the Frobenius solution is below every nuclear minimiser's
    (certified ``lo``), ``"nuclear"`` if above every one (certified ``hi``), else ``"undecided"``.

    Examples
    --------
    >>> r = CosineRange(0.2, 0.2, 0.3, 0.5, 0.25, 1e-8, 0.0)
    >>> closer_to(0.1, r), closer_to(0.6, r), closer_to(0.4, r), closer_to(0.2, r)
    ('frobenius', 'nuclear', 'undecided', 'undecided')
    """
    if frobenius < nuclear.lo:
        return "frobenius"
    if frobenius > nuclear.hi:
        return "nuclear"
    return "undecided"


def _unit(W: np.ndarray) -> np.ndarray:
    return W / np.linalg.norm(W)


def _cos(D: np.ndarray, W: np.ndarray) -> float:
    return float(np.vdot(D, W) / np.linalg.norm(W))


class NuclearFace:
    """The relaxed optimal face ``F`` of a certified nuclear-norm solution, with its two
    parametrised convex programs (a linear objective over ``F``; the Charnes-Cooper cosine)."""

    def __init__(self, solution: NuclearSolution, tol: float = 1e-6, frobenius_norm: float | None = None,
                 solver: str = "CLARABEL") -> None:
        import cvxpy as cp

        p = solution.problem
        self.problem, self.tol, self.solver = p, tol, solver
        self.R = p.R
        margin = float((p.R @ solution.W.ravel()).min()) if p.n_constraints else 1.0
        self.P = solution.nuclear_norm / margin * (1 + tol)
        self.W0 = solution.W / margin
        self.min_frobenius = frobenius_norm  # ||W_F*||_F, for the upper bound when min <D, W> < 0
        self._C = cp.Parameter(p.shape)
        W = cp.Variable(p.shape)
        self._lin_cons = [p.R @ cp.vec(W, order="C") >= 1, cp.normNuc(W) <= self.P]
        self._lin = cp.Problem(cp.Minimize(cp.sum(cp.multiply(self._C, W))), self._lin_cons)
        self._lin_W = W
        self._D = cp.Parameter(p.shape)
        V, s = cp.Variable(p.shape), cp.Variable(nonneg=True)
        self._cc_cons = [p.R @ cp.vec(V, order="C") >= s, cp.normNuc(V) <= s * self.P, cp.norm(V, "fro") <= 1]
        self._cc = cp.Problem(cp.Maximize(cp.sum(cp.multiply(self._D, V))), self._cc_cons)
        self._cc_V, self._cc_s = V, s
        # The exact face: with G = mat(R^T lam) the certificate's subgradient, every minimiser is U1 M V1^T with M PSD
        # (<G, W> = ||W||_*), U1, V1 the singular vectors of G at singular value 1; small, so cheap to search.
        U, sv, Vt = np.linalg.svd((p.R.T @ solution.multipliers).reshape(p.shape))
        k = max(1, int(np.sum(sv >= 1 - 1e-6)))
        self.U1, self.V1 = U[:, :k], Vt[:k].T
        self._Ck = cp.Parameter((k, k))
        M = cp.Variable((k, k), PSD=True)
        A = p.R @ np.kron(self.U1, self.V1)
        self._face = cp.Problem(cp.Minimize(cp.sum(cp.multiply(self._Ck, M))), [A @ cp.vec(M, order="C") >= 1, cp.trace(M) <= self.P])
        self._face_M = M

    def _solve(self, prob, what: str, accuracy: float = 1e-10) -> None:
        import cvxpy as cp

        opts = {"tol_feas": accuracy, "tol_gap_abs": accuracy, "tol_gap_rel": accuracy, "max_iter": 500}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prob.solve(solver=self.solver, **(opts if self.solver == "CLARABEL" else {}))
        except cp.error.SolverError as e:
            raise SolverFailedError(f"{self.solver} failed on the nuclear face's {what}: {e}") from None
        if prob.status not in ("optimal", "optimal_inaccurate"):
            raise SolverFailedError(f"{self.solver} returned status {prob.status!r} on the nuclear face's {what}")

    def _feasible(self, W: np.ndarray) -> np.ndarray | None:
        """``W`` scaled to exact feasibility (``min R w = 1`` at most), or None if it is then outside ``F``
        by more than the solver's accuracy (its nuclear norm above ``P (1 + tol)``)."""
        margin = float((self.R @ W.ravel()).min()) if self.problem.n_constraints else 1.0
        if margin <= 0:
            return None
        W = W / min(margin, 1.0)
        return W if np.linalg.svd(W, compute_uv=False).sum() <= self.P * (1 + self.tol) else None

    def minimise(self, C: np.ndarray) -> tuple[np.ndarray | None, float]:
        """A point of ``F`` (None if the solver's one is not) minimising ``<C, W>``, and a certified
        lower bound on that minimum (``sum lam - P ||C - G(lam)||_2``, weak duality)."""
        self._C.value = C
        self._solve(self._lin, "linear program")
        lam = np.maximum(np.asarray(self._lin_cons[0].dual_value, dtype=float).ravel(), 0.0)
        G = (self.R.T @ lam).reshape(C.shape)
        bound = float(lam.sum() - self.P * np.linalg.norm(C - G, 2))
        return self._feasible(np.asarray(self._lin_W.value, dtype=float)), bound

    def minimise_on_face(self, C: np.ndarray) -> np.ndarray | None:
        """A point ``U1 M V1^T`` (``M`` PSD: nuclear norm ``tr M``) of ``F`` minimising ``<C, W>`` among those;
        None if the solver fails.  A witness only: it certifies nothing about the rest of ``F``."""
        import cvxpy as cp

        self._Ck.value = self.U1.T @ C @ self.V1
        try:
            self._solve(self._face, "face program", accuracy=1e-8)
        except (SolverFailedError, cp.error.SolverError):
            return None
        return self._feasible(self.U1 @ np.asarray(self._face_M.value, dtype=float) @ self.V1.T)

    def max_cos(self, D: np.ndarray) -> tuple[np.ndarray | None, float]:
        """A point of ``F`` of largest ``cos`` with unit ``D``, and a certified upper bound on that cos."""
        self._D.value = D
        self._solve(self._cc, "cosine program")
        lam = np.maximum(np.asarray(self._cc_cons[0].dual_value, dtype=float).ravel(), 0.0)
        sv = np.linalg.svd(D + (self.R.T @ lam).reshape(D.shape), compute_uv=False)
        bound = float(np.sqrt(np.sum(np.maximum(sv - lam.sum() / self.P, 0.0) ** 2)))
        s = float(self._cc_s.value)
        W = None if s <= 0 else self._feasible(np.asarray(self._cc_V.value, dtype=float) / s)
        return W, min(bound, 1.0)


def _descend(face: NuclearFace, D: np.ndarray, W: np.ndarray, steps: int) -> np.ndarray:
    """The monotone linearisation from ``W`` (on the exact face) over the exact face: ``cos(D, .)`` only decreases;
    it stops after ``steps``, when a step gains less than 1e-5, or when the solver fails (a witness search only)."""
    for _ in range(steps):
        c = _cos(D, W)
        nxt = face.minimise_on_face(D - c * _unit(W))
        if nxt is None or _cos(D, nxt) > c - 1e-5:
            break
        W = nxt
    return W


def cosine_range(face: NuclearFace, direction: np.ndarray, steps: int = 20, gap: float = 1e-6) -> CosineRange:
    """The range of ``1 - cos(direction, W)`` over the nuclear face (see the module docstring for the proofs).

    Raises
    ------
    SolverFailedError
        A program failed, or its certified bound is more than ``gap`` from its witness.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from ntpcheck.transformer.maxmargin.problems import MaxMarginProblem
    >>> from ntpcheck.transformer.maxmargin.nuclear import solve_nuclear
    >>> P = MaxMarginProblem("W11, W22 >= 1", sp.csr_matrix(np.array([[1.0, 0, 0, 0], [0, 0, 0, 1]])), (2, 2), [("a",), ("b",)])
    >>> r = cosine_range(NuclearFace(solve_nuclear(P), frobenius_norm=2 ** 0.5), np.ones((2, 2)))
    >>> round(r.lo, 6), round(r.hi_attained, 3), round(r.reported, 3)  # [[1, a], [a, 1]], |a| <= 1: from a = 1 to a = -1
    (0.0, 1.0, 0.293)
    """
    t0 = time.perf_counter()
    D = _unit(np.asarray(direction, dtype=float))
    W_lo, c_up = face.max_cos(D)
    if W_lo is None or c_up - _cos(D, W_lo) > gap:
        raise SolverFailedError(f"the nuclear face's cosine program is not certified (bound {c_up:.6g}, witness "
                                f"{'none' if W_lo is None else format(_cos(D, W_lo), '.6g')})")
    W_m, m_lo = face.minimise(D)
    if W_m is None or float(np.vdot(D, W_m)) - m_lo > gap * face.P:
        raise SolverFailedError("the nuclear face's linear program is not certified")
    if m_lo >= 0:
        c_lo = m_lo / face.P
    else:
        c_lo = m_lo / face.min_frobenius if face.min_frobenius else -1.0
    reported = 1.0 - _cos(D, face.W0)
    starts = [W for W in (face.W0, face.minimise_on_face(D)) if W is not None]
    hi_attained = max([reported, 1.0 - _cos(D, W_m)] + [1.0 - _cos(D, _descend(face, D, W, steps)) for W in starts])
    lo_attained = 1.0 - _cos(D, W_lo)  # may undercut the bound by the solver's accuracy (its W is in F to P (1 + tol))
    return CosineRange(lo=min(1.0 - c_up, lo_attained), lo_attained=lo_attained, hi_attained=hi_attained,
                       hi=min(2.0, 1.0 - max(-1.0, c_lo)), reported=reported, tol=face.tol, seconds=time.perf_counter() - t0)

