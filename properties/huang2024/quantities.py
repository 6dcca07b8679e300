"""The paper's quantities read off an instance's evidence (the stage trajectories, ``A``)."""

from __future__ import annotations

from ntpcheck.model import safe_norm
from ntpcheck.training import StageTrajectory

from ..framework.evidence import Evidence
from . import bounds

__all__ = ["stage1", "stage2", "A"]


def stage1(ev: Evidence) -> StageTrajectory:
    """Stage 1 of Algorithm 1 (``W_ov``) as recorded."""
    return ev.trajectory.stage1


def stage2(ev: Evidence) -> StageTrajectory:
    """Stage 2 of Algorithm 1 (``W_kq``) as recorded."""
    return ev.trajectory.stage2


def A(ev: Evidence) -> float:
    """:func:`.bounds.A` for the instance: ``T eta_0 / (4 ||W*_ov||^2)``."""
    return bounds.A(ev.T, ev.eta0, safe_norm(ev.w_ov_star))
