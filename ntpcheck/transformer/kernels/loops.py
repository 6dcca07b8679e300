"""Array copies and row writes as explicit loops, for the compiled kernels.

numba compiles an assignment from an array or a tuple into an array slice
(``dst[:k] = src[:k]``, ``stack[i] = a, b, c, d``) with a broadcasting check
whose error message formats the shapes as text (a scalar fill has none);
compiling that formatting (integer and string conversion, concatenation)
costs about 2.5 s the first time a process compiles any kernel that needs it
(measured with ``numba.core.event.install_recorder("numba:compile")`` on an
empty ``NUMBA_CACHE_DIR``).  These loops do the same writes without it.

Examples
--------
>>> import numpy as np
>>> dst = np.zeros((2, 3)); copy2(dst, np.ones((2, 2))); dst.tolist()
[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
>>> dst = np.zeros(3, dtype=np.int64); copy1(dst, np.array([7, 8, 9]), 2); dst.tolist()
[7, 8, 0]
>>> dst = np.zeros((2, 4), dtype=np.int64); put4(dst, 1, 1, 2, 3, 4); dst.tolist()
[[0, 0, 0, 0], [1, 2, 3, 4]]
"""

from __future__ import annotations

from numba import njit

__all__ = ["copy1", "copy2", "put4"]


@njit(cache=True)
def copy1(dst, src, n):  # pragma: no cover - compiled
    """``dst[:n] = src[:n]``."""
    for i in range(n):
        dst[i] = src[i]


@njit(cache=True)
def copy2(dst, src):  # pragma: no cover - compiled
    """``dst[:a, :b] = src`` for a 2-D ``src`` of shape ``(a, b)``."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(cache=True)
def put4(dst, i, a, b, c, d):  # pragma: no cover - compiled
    """``dst[i] = a, b, c, d`` for a 2-D ``dst`` of 4 columns."""
    dst[i, 0], dst[i, 1], dst[i, 2], dst[i, 3] = a, b, c, d
