"""A matrix's direction ``A/||A||`` when ``||A||`` itself is not a float.

Both papers' ``1 - cos`` curves divide an iterate by its Frobenius norm.  With a huge step size the
entries stay finite (below 1.8e308) while the norm, or the sum of squares it is computed from,
overflows: divided by ``inf`` the iterate read as 0 and ``1 - cos`` as 0.5, which falsified Prop. 1
of the first paper on an instance where it holds.  Scaled by its largest entry first, the matrix
has entries of at most 1 and a norm between 1 and the square root of its size.

Examples
--------
>>> import numpy as np
>>> scaled_unit(np.array([[1e308, 1e308]]), axis=1).tolist()
[[0.7071067811865475, 0.7071067811865475]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["scaled_unit"]


def scaled_unit(A: np.ndarray, axis) -> np.ndarray:
    """``A/||A||`` over ``axis`` (an int, a tuple of two, or None for all), each slice scaled by its
    largest ``|entry|`` before its norm is taken, so no square overflows or underflows; NaN for a
    slice that is 0 or has an entry that is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> scaled_unit(np.array([[3e-200, 4e-200], [0.0, 0.0]]), axis=1).tolist()
    [[0.6, 0.8], [nan, nan]]
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.max(np.abs(A), axis=axis, keepdims=True)
        U = A / np.where(np.isfinite(s) & (s > 0), s, np.nan)
        return U / np.linalg.norm(U, axis=axis, keepdims=True)
