"""Fixed instances the dynamics claims' sabotages use (Thrampoulidis 2024)."""

from __future__ import annotations

import numpy as np

from ntpcheck.linear import LinearInstance, NTPData

__all__ = ["toy"]


def toy() -> LinearInstance:
    """The shape of the paper's Fig. 1 (d = 2, m = 3, V = 5, supports {1,2,5}, {1,4,5}, {2,3,4}),
    with unit contexts at angles 0.3, 2.2, 4.1 rad and fixed counts: ``W⋆ ≠ 0``."""
    ang = np.array([0.3, 2.2, 4.1])
    return LinearInstance(NTPData(np.vstack([np.cos(ang), np.sin(ang)]),
                                  np.array([[3, 2, 0, 0, 4], [2, 0, 0, 3, 1], [0, 4, 1, 2, 0]])))
