"""Inequalities between positive quantities compared in logs (both sides ``~e^{-40}`` or smaller).

Examples
--------
>>> import numpy as np
>>> log_inequality(np.array([-50.0, -60.0]), np.array([-49.0, -59.5]), np.array([1, 2]), "tiny").verdict.value
'holds'
"""

from __future__ import annotations

import numpy as np

from ..framework.checks import falsified, holds, inconclusive, tighten_log
from ..framework.verdicts import Outcome

__all__ = ["LOG_TOL", "log_inequality"]

#: Two logs of positive numbers each computed to ~1e-15 relative differ by more than 1e-9 (in
#: units of max(1, |log|)) only if the numbers do.
LOG_TOL = 1e-9


def log_inequality(log_lhs, log_rhs, steps, what: str) -> Outcome:
    """``lhs ≤ rhs`` at every step, compared in logs (both positive); the bound is tightened in logs
    (:func:`~..framework.checks.tighten_log`); slack ``min(log rhs − log lhs)``."""
    log_lhs = np.asarray(log_lhs, dtype=float)
    log_rhs = tighten_log(np.asarray(log_rhs, dtype=float), "<=")
    ok = np.isfinite(log_lhs) & np.isfinite(log_rhs)
    if not ok.any():
        return inconclusive(f"{what}: no finite point")
    slack = np.where(ok, log_rhs - log_lhs, np.inf)
    k = int(np.argmin(slack))
    m = {"worst_t": float(steps[k]), "log_lhs": float(log_lhs[k]), "log_rhs": float(log_rhs[k]), "points": int(ok.sum())}
    if slack[k] < -LOG_TOL * max(1.0, abs(log_rhs[k])):
        return falsified(float(slack[k]), f"{what}: at {steps[k]:.4g}, log lhs {log_lhs[k]:.6g} > log bound {log_rhs[k]:.6g}", **m)
    return holds(float(slack[k]), f"{what}: holds at {int(ok.sum())} points, closest at {steps[k]:.4g} "
                                  f"(bound/lhs = e^{slack[k]:.3g})", **m)


