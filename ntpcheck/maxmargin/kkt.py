"""KKT certificates and the active-set polish for ``min 1/2 ||w||^2 s.t. R w >= 1``.

The max-margin problems Eq. (2) and Eq. (3) of the paper are both of this
form (:mod:`ntpcheck.maxmargin.problems`).  A candidate ``w`` with
multipliers ``lambda`` is optimal iff the four residuals of
:class:`KKTResiduals` vanish: primal feasibility ``R w >= 1``, dual
feasibility ``lambda >= 0``, stationarity ``w = R^T lambda`` and
complementary slackness ``lambda_k (R w - 1)_k = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["KKTResiduals", "kkt_residuals", "certify", "polish", "POLISH_MAX_VARIABLES"]


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
    return KKTResiduals(
        primal=float(max(0.0, -slack.min())),
        dual=float(max(0.0, -lam.min())),
        stationarity=float(np.max(np.abs(w - R.T @ lam), initial=0.0)),
        complementarity=float(np.max(np.abs(lam * slack))),
    )


def certify(problem, W: np.ndarray) -> tuple[np.ndarray, KKTResiduals]:
    """Multipliers for a candidate ``W`` and its KKT residuals.

    The multipliers solve ``min ||R_A^T lambda - w||, lambda >= 0`` over the
    constraints active at ``W`` (slack below 1e-7), by NNLS.  A wrong ``W``
    shows large residuals; the exact optimum shows residuals at rounding level.
    """
    from scipy.optimize import nnls

    w = np.asarray(W, dtype=float).ravel()
    K = problem.n_constraints
    lam = np.zeros(K)
    if K:
        slack = problem.R @ w - 1.0
        active = np.flatnonzero(np.abs(slack) <= 1e-7)
        if len(active):
            RA = problem.R[active].T.toarray()
            nz = np.flatnonzero(np.any(RA != 0, axis=1) | (w != 0))
            sol, _ = nnls(RA[nz], w[nz])
            lam[active] = sol
    return lam, kkt_residuals(problem.R, w, lam)


#: Largest number of variables for which :func:`solve` polishes densely.
POLISH_MAX_VARIABLES = 40_000


def polish(problem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, KKTResiduals] | None:
    """Active-set polish of an approximate solution.

    Interior-point solvers stop with KKT residuals near their tolerance
    ``tau``; because the objective is quadratic, ``W`` itself is then only
    accurate to about ``sqrt(tau)`` when the problem is degenerate (an active
    constraint with a zero multiplier).  Guess the active set ``A`` from the
    slacks, take the exact minimum-norm solution of ``R_A w = 1`` (which is
    the optimum if ``A`` is right), and recover multipliers by NNLS.  The
    caller keeps it only if its KKT residuals are smaller.
    """
    if problem.shape[0] * problem.shape[1] > POLISH_MAX_VARIABLES:
        return None
    slack = problem.R @ w - 1.0
    best = None
    for thr in (1e-7, 1e-6, 1e-5, 1e-4):
        active = np.flatnonzero(slack <= thr)
        if len(active) == 0:
            continue
        RA = problem.R[active].toarray()
        wp, *_ = np.linalg.lstsq(RA, np.ones(len(active)), rcond=None)
        lam, res = certify(problem, wp)
        if best is None or res.worst < best[2].worst:
            best = (wp, lam, res)
    return best


