"""KKT certificates and the active-set polish for ``min 1/2 ||w||^2 s.t. R w >= 1``.

The max-margin problems Eq. (2) and Eq. (3) of the paper are both of this
form (:mod:`ntpcheck.transformer.maxmargin.problems`).  A candidate ``w`` with
multipliers ``lambda`` is optimal iff the four residuals of
:class:`KKTResiduals` vanish: primal feasibility ``R w >= 1``, dual
feasibility ``lambda >= 0``, stationarity ``w = R^T lambda`` and
complementary slackness ``lambda_k (R w - 1)_k = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["KKTResiduals", "kkt_residuals", "certify", "polish", "MAX_BLOCK_ENTRIES"]


@dataclass(frozen=True)
class KKTResiduals:
    """KKT residuals of ``min 1/2 ||w||^2 s.t. R w >= 1`` at ``(w, lambda)``.

    All are maxima of absolute values (infinity norms), 0 at an exact optimum.
    """

    primal: float  # max(0, 1 - R w)
    dual: float  # max(0, -lambda)
    stationarity: float  # |w - R^T lambda|
    complementarity: float  # |lambda_k (R w - 1)_k|

    @property
    def worst(self) -> float:
        return max(self.primal, self.dual, self.stationarity, self.complementarity)

    def to_json(self) -> dict:
        return {
            "primal": self.primal,
            "dual": self.dual,
            "stationarity": self.stationarity,
            "complementarity": self.complementarity,
        }


def kkt_residuals(R: sp.spmatrix, w: np.ndarray, lam: np.ndarray) -> KKTResiduals:
    """KKT residuals of ``min 1/2 ||w||^2 s.t. R w >= 1`` (see :class:`KKTResiduals`)."""
    w = np.asarray(w, dtype=float).ravel()
    lam = np.asarray(lam, dtype=float).ravel()
    if R.shape[0] == 0:
        return KKTResiduals(0.0, 0.0, float(np.max(np.abs(w), initial=0.0)), 0.0)
    slack = R @ w - 1.0
    # |w - R^T lam| in place: two fresh |V|^2 temporaries cost ten times the arithmetic (page faults)
    gap = R.T @ lam
    np.subtract(w, gap, out=gap)
    np.abs(gap, out=gap)
    return KKTResiduals(
        primal=float(max(0.0, -slack.min())),
        dual=float(max(0.0, -lam.min())),
        stationarity=float(np.max(gap, initial=0.0)),
        complementarity=float(np.max(np.abs(lam * slack))),
    )


def _separate(RA: sp.csr_matrix, extra_cols: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Independent blocks ``(rows, cols)`` of ``RA``: connected components of its row-column graph.

    Columns in ``extra_cols`` that no row touches form singleton blocks
    without rows.  The problem ``min ||w||, R_A w = 1`` and the NNLS for the
    multipliers both separate over these blocks, so each is solved densely
    and small (one block per query component for Eq. (3)).
    """
    from scipy.sparse.csgraph import connected_components

    K, m = RA.shape
    coo = RA.tocoo()
    g = sp.coo_matrix((np.ones(coo.nnz), (coo.row, K + coo.col)), shape=(K + m, K + m))
    _, label = connected_components(g, directed=False)
    used = np.zeros(K + m, dtype=bool)
    used[:K] = True
    used[K + coo.col] = True
    used[K + extra_cols] = True
    nodes = np.flatnonzero(used)
    order = nodes[np.argsort(label[nodes], kind="stable")]
    cuts = np.flatnonzero(np.diff(label[order])) + 1
    out = []
    for part in np.split(order, cuts):
        out.append((part[part < K], part[part >= K] - K))
    return out


#: Largest dense block (entries) the polish and the certificate factor; 400 MB of float64.
MAX_BLOCK_ENTRIES = 50_000_000


def _block_solve(RA: sp.csr_matrix, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Per block: ``w`` the min-norm solution of ``R_A w = 1`` (when ``w`` is None), then
    multipliers ``min ||R_A^T lambda - w||, lambda >= 0`` by NNLS.  None if a block
    is larger than :data:`MAX_BLOCK_ENTRIES` (dense embeddings couple everything)."""
    from scipy.optimize import nnls

    K, m = RA.shape
    fresh = w is None
    w = np.zeros(m) if fresh else w.copy()
    lam = np.zeros(K)
    RA = RA.tocsr()
    blocks = _separate(RA, np.zeros(0, dtype=np.int64) if fresh else np.flatnonzero(w))
    if any(len(r) * len(c) > MAX_BLOCK_ENTRIES for r, c in blocks):
        return None
    for rows, cols in blocks:
        if len(rows) == 0:
            continue
        B = RA[rows][:, cols].toarray()
        if fresh:
            w[cols], *_ = np.linalg.lstsq(B, np.ones(len(rows)), rcond=None)
        lam[rows], _ = nnls(B.T, w[cols])
    return w, lam


def certify(problem, W: np.ndarray) -> tuple[np.ndarray, KKTResiduals]:
    """Multipliers for a candidate ``W`` and its KKT residuals.

    The multipliers solve ``min ||R_A^T lambda - w||, lambda >= 0`` over the
    constraints active at ``W`` (slack below 1e-7), by NNLS on each
    independent block.  A wrong ``W`` shows large residuals; the exact
    optimum shows residuals at rounding level.
    """
    w = np.asarray(W, dtype=float).ravel()
    K = problem.n_constraints
    lam = np.zeros(K)
    if K:
        slack = problem.R @ w - 1.0
        active = np.flatnonzero(np.abs(slack) <= 1e-7)
        solved = _block_solve(problem.R[active], w) if len(active) else None
        if solved is None and len(active):
            nan = float("nan")
            return lam, KKTResiduals(nan, nan, nan, nan)  # too large to certify densely
        if solved is not None:
            lam[active] = solved[1]
    return lam, kkt_residuals(problem.R, w, lam)


def polish(problem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, KKTResiduals] | None:
    """Active-set polish of an approximate solution, sparse and at any size.

    Interior-point solvers stop with KKT residuals near their tolerance
    ``tau``; because the objective is quadratic, ``W`` itself is then only
    accurate to about ``sqrt(tau)`` when the problem is degenerate (an active
    constraint with a zero multiplier).  Guess the active set ``A`` from the
    slacks, take the exact minimum-norm solution of ``R_A w = 1`` (which is
    the optimum if ``A`` is right) and the multipliers by NNLS, both block
    by block (:func:`_separate`).  The caller keeps it only if its KKT
    residuals are smaller.
    """
    slack = problem.R @ w - 1.0
    best = None
    for thr in (1e-7, 1e-6, 1e-5, 1e-4):
        active = np.flatnonzero(slack <= thr)
        if len(active) == 0:
            continue
        solved = _block_solve(problem.R[active], None)
        if solved is None:
            return None
        wp, lam_a = solved
        lam = np.zeros(problem.n_constraints)
        lam[active] = lam_a
        res = kkt_residuals(problem.R, wp, lam)
        if best is None or res.worst < best[2].worst:
            best = (wp, lam, res)
    return best
