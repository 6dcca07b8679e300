"""``logsumexp``, ``softmax`` and ``log_softmax`` in plain numpy, for the small arrays of the search.

:mod:`scipy.special`'s versions go through its array-API layer: about 100 us a call whatever
the size, and the second paper's regularisation path calls them some 10^5 times per claim
(``verify --paper thrampoulidis2024`` spent 6 of T1-pf (d)'s 28 s there, issue 43).  The same
formulas here cost a few microseconds:

* ``logsumexp(a) = m + log1p(Σ_{i≠i*} exp(a_i − m))`` with ``m = a_{i*} = max a`` (the largest
  term is left out of the sum and added exactly as the 1 of ``log1p``: accurate when every other
  term is tiny, as scipy's is); ``−inf`` for an empty or all-``−inf`` slice, ``+inf`` if some
  ``a_i = +inf``, NaN if some ``a_i`` is NaN;
* ``softmax(a) = exp(a − m)/Σ exp(a − m)`` (scipy's formula, bit for bit);
* ``log_softmax(a) = a − logsumexp(a)``.

Examples
--------
>>> import numpy as np
>>> float(logsumexp(np.array([0.0, 0.0])))
0.6931471805599453
>>> float(logsumexp(np.array([1000.0, -1000.0])))
1000.0
>>> softmax(np.array([[0.0, 0.0], [np.log(3.0), 0.0]]), axis=1).round(6).tolist()
[[0.5, 0.5], [0.75, 0.25]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["logsumexp", "softmax", "log_softmax"]


def logsumexp(a, axis: int | None = None):
    """``log Σ exp(a)`` over ``axis`` (None: every entry), a float or an array without ``axis``."""
    a = np.asarray(a, dtype=float)
    if axis is None:
        a, axis = a.ravel(), 0
    if a.shape[axis] == 0:
        return np.full(np.delete(a.shape, axis), -np.inf)[()]
    top = np.expand_dims(np.argmax(a, axis=axis), axis)
    m = np.take_along_axis(a, top, axis)
    shift = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(a - shift)
        np.put_along_axis(e, top, 0.0, axis)  # the largest term: the 1 of log1p below
        rest = np.sum(e, axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(np.isfinite(m), m + np.log1p(rest), m + rest)  # m = ±inf (or NaN): m itself, NaN kept
    return np.squeeze(out, axis)[()]


def softmax(a, axis: int | None = None) -> np.ndarray:
    """``exp(a)/Σ exp(a)`` over ``axis`` (None: every entry)."""
    a = np.asarray(a, dtype=float)
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(a, axis: int | None = None) -> np.ndarray:
    """``a − logsumexp(a)`` over ``axis``."""
    a = np.asarray(a, dtype=float)
    lse = logsumexp(a, axis=axis)
    return a - (lse if axis is None else np.expand_dims(lse, axis))
