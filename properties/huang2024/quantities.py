"""The paper's quantities read off an instance's evidence (the stage trajectories, ``A``)."""

from __future__ import annotations

import numpy as np

from ntpcheck.transformer.model import safe_norm
from ntpcheck.transformer.training import StageTrajectory

from ..framework.evidence import Evidence
from . import bounds

__all__ = ["stage1", "stage2", "A", "faithful_stage2", "NORMAL_FLOOR"]


def stage1(ev: Evidence) -> StageTrajectory:
    """Stage 1 of Algorithm 1 (``W_ov``) as recorded."""
    return ev.trajectory.stage1


def stage2(ev: Evidence) -> StageTrajectory:
    """Stage 2 of Algorithm 1 (``W_kq``) as recorded."""
    return ev.trajectory.stage2


def A(ev: Evidence) -> float:
    """:func:`.bounds.A` for the instance: ``T eta_0 / (4 ||W*_ov||^2)``."""
    return bounds.A(ev.T, ev.eta0, safe_norm(ev.w_ov_star))


#: Stage 2's gradient is computed faithfully while its largest entry is at least this:
#: entries down to 1e-10 of the largest are then still normal floats (> 2.2e-308), so
#: the normalised direction keeps ~10 significant digits.  Below it, subnormal
#: entries lose precision and the direction becomes rounding.
NORMAL_FLOOR = 1e-290


def faithful_stage2(ev: Evidence) -> np.ndarray:
    """Per recorded stage-2 step: whether the float64 run is faithful to NGD there (the
    gradient's largest entry at least :data:`NORMAL_FLOOR`, and every earlier step too).
    Steps from the first unfaithful one on are not evidence about the algorithm."""
    s = stage2(ev)
    g = s.grad_scale
    ok = np.ones(len(s.steps), dtype=bool)
    if g is None:
        return ok
    bad = np.flatnonzero(~(g >= NORMAL_FLOOR))
    if len(bad):
        ok[bad[0]:] = False
    return ok
