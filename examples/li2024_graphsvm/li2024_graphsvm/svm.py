"""The Graph-SVM, solved exactly, with its KKT certificate.

The program (reconstructed from the abstract and the authors' ``W_svm_solver_cvxpy``, whose
objective is ``cp.norm(W, 'fro')``; constraints from :mod:`.graph`)::

    W^svm = argmin ||W||_F   s.t.   (x_y - x_j)^T W z_q  = 0   for each edge y -> j of G^(q) inside an SCC,
                                    (x_y - x_j)^T W z_q >= 1   for each edge y -> j of G^(q) across SCCs.

With ``w = vec(W)`` it is ``min 1/2 ||w||^2 s.t. A_eq w = 0, A_in w >= 1``.  Here it is solved in
the null space ``N`` of ``A_eq`` (``w = N u``), where it is a least-distance program
``min ||u|| s.t. G u >= 1`` (``G = A_in N``), by Lawson and Hanson's reduction to non-negative least
squares (*Solving Least Squares Problems*, 1974, ch. 23: ``min ||M v - e|| over v >= 0`` with
``M = [G^T; 1^T]``; ``u = -r_{1:k}/r_{k+1}`` for the residual ``r``), then polished on the active
set the NNLS finds (the min-norm solution of ``G_S u = 1``, rows added or dropped until the KKT
conditions hold).  The certificate is the KKT system of the original problem::

    w = A_eq^T mu + A_in^T lam,   lam >= 0,   A_eq w = 0,   A_in w >= 1,   lam_k (a_k^T w - 1) = 0,

sufficient for the unique optimum of this strictly convex QP; each residual is relative
(:meth:`GraphSVM.residuals`), and ``worst <= 1e-9`` certifies the solution.

Examples
--------
>>> import numpy as np
>>> A_in = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])       # w_1 - w_2 >= 1, w_2 - w_3 >= 1
>>> s = solve(np.zeros((0, 3)), A_in)
>>> (s.w.round(12) + 0.0).tolist(), s.residuals["worst"] < 1e-12
([1.0, 0.0, -1.0], True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

__all__ = ["GraphSVM", "Infeasible", "solve", "certificate", "CERTIFIED"]

#: The largest KKT residual of a certified solution.
CERTIFIED = 1e-9


class Infeasible(ValueError):
    """The constraints have no solution (a cycle through components; dependent embeddings)."""


@dataclass(frozen=True)
class GraphSVM:
    """The solution ``w = vec(W^svm)``, its multipliers (``mu`` of the equalities, ``lam`` of the
    inequalities) and the relative KKT residuals (:func:`certificate`)."""

    w: np.ndarray
    mu: np.ndarray
    lam: np.ndarray
    residuals: dict[str, float]

    def W(self, d: int) -> np.ndarray:
        return self.w.reshape(d, d)


def _null_space(A: np.ndarray, n: int) -> np.ndarray:
    if not len(A):
        return np.eye(n)
    _, s, vt = np.linalg.svd(A, full_matrices=True)
    rank = int((s > 1e-12 * s[0] * max(A.shape)).sum()) if s.size else 0
    return vt[rank:].T


def _min_norm(G: np.ndarray, active: list[int]) -> np.ndarray:
    """The min-norm ``u`` with ``G_S u = 1`` on the active rows ``S``."""
    return np.linalg.lstsq(G[active], np.ones(len(active)), rcond=None)[0]


def solve(A_eq: np.ndarray, A_in: np.ndarray) -> GraphSVM:
    """The Graph-SVM ``min 1/2 ||w||^2 s.t. A_eq w = 0, A_in w >= 1`` (module docstring).

    Raises
    ------
    Infeasible
        If no ``w`` meets the constraints (the NNLS residual vanishes).
    """
    n = A_in.shape[1] if len(A_in) else A_eq.shape[1]
    if not len(A_in):
        return certificate(A_eq, A_in, np.zeros(n))
    N = _null_space(A_eq, n)
    G = A_in @ N
    if N.shape[1] == 0:
        raise Infeasible("the equalities leave only W = 0, which meets no margin")
    M = np.vstack([G.T, np.ones(len(G))])
    e = np.zeros(len(M))
    e[-1] = 1.0
    v, _ = nnls(M, e, maxiter=50 * M.shape[1])
    r = M @ v - e
    if abs(r[-1]) < 1e-12:
        raise Infeasible("the margins cannot all reach 1 (the least-distance program is infeasible)")
    active = sorted(int(k) for k in np.flatnonzero(v > 1e-14 * max(1.0, v.max())))
    for _ in range(4 * len(G) + 4):   # polish: the min-norm point of the active rows, until KKT holds
        u = _min_norm(G, active) if active else np.zeros(N.shape[1])
        short = 1.0 - G @ u
        worst = int(np.argmax(short))
        if short[worst] > 1e-12:
            active = sorted({*active, worst})
            continue
        res = nnls(G[active].T, u)[1] if active else 0.0
        if res <= 1e-12 * max(1.0, float(np.linalg.norm(u))):
            break
        nu = np.linalg.lstsq(G[active].T, u, rcond=None)[0]
        active.pop(int(np.argmin(nu)))   # a negative multiplier: that row is not binding
    # (the loop ends in a few rounds; were it cut short, the certificate below would say so)
    full = np.zeros(len(G))
    full[active] = nnls(G[active].T, u)[0] if active else 0.0
    return certificate(A_eq, A_in, N @ u, full)


def certificate(A_eq: np.ndarray, A_in: np.ndarray, w: np.ndarray, lam: np.ndarray | None = None) -> GraphSVM:
    """``w`` with its KKT residuals: ``eq`` (``max |A_eq w|``), ``margin`` (``max(0, 1 - min A_in w)``),
    ``stationarity`` (``||w - A_eq^T mu - A_in^T lam|| / max(1, ||w||)``, ``mu`` by least squares),
    ``dual`` (``max(0, -min lam)``) and ``complementarity`` (``max |lam_k (a_k^T w - 1)|``), the last
    two over ``max(1, max lam)``; ``worst`` is the largest.  ``lam`` None: the multipliers are fitted
    (non-negative least squares on the rows ``w`` touches), as for a solution offered from elsewhere."""
    w = np.asarray(w, dtype=float)
    scale = max(1.0, float(np.linalg.norm(w)))
    margins = A_in @ w if len(A_in) else np.zeros(0)
    if lam is None:
        N = _null_space(A_eq, w.size)
        lam = nnls((A_in @ N).T, N.T @ w)[0] if len(A_in) else np.zeros(0)
    rest = w - (A_in.T @ lam if len(A_in) else 0.0)
    mu = np.linalg.lstsq(A_eq.T, rest, rcond=None)[0] if len(A_eq) else np.zeros(0)
    stat = rest - (A_eq.T @ mu if len(A_eq) else 0.0)
    lam_scale = max(1.0, float(lam.max(initial=0.0)))
    res = {
        "eq": float(np.abs(A_eq @ w).max(initial=0.0)) / scale if len(A_eq) else 0.0,
        "margin": max(0.0, float(1.0 - margins.min(initial=1.0))),
        "stationarity": float(np.linalg.norm(stat)) / scale,
        "dual": max(0.0, -float(lam.min(initial=0.0))) / lam_scale,
        "complementarity": float(np.abs(lam * (margins - 1.0)).max(initial=0.0)) / lam_scale,
    }
    res["worst"] = max(res.values())
    return GraphSVM(w, mu, lam, res)
