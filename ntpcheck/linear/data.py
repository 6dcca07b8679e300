"""The training set of a linear next-token model in distinct-context form (§2).

Thrampoulidis (2024), §2: ``n`` sequences, ``m`` distinct contexts with fixed
embeddings ``h̄_j`` (the columns of ``H̄ ∈ R^{d×m}``), empirical frequencies
``π̂_j`` and next-token distributions ``p̂_j ∈ Δ^{V-1}``.  Here the data are
held as integer counts ``c_{j,z}`` (how often token ``z`` followed context
``j``), so that ``n = Σ c``, ``π̂_j = Σ_z c_{j,z} / n`` and
``p̂_{j,z} = c_{j,z} / Σ_z c_{j,z}`` hold exactly and ``π̂_j p̂_{j,z} ≥ 1/n``
on the support ``𝒮_j = {z : c_{j,z} > 0}``.

Assumptions
-----------
Only the syntax is enforced: ``H̄`` is finite with one column per context,
counts are non-negative integers with at least one positive entry per
context.  The paper's standing assumption (some ``S_j < V``), full rank of
``H̄``, compatibility and separability are properties to test, not enforced.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ntpcheck.common.data import _read_only
from ntpcheck.common.errors import DatasetFormatError

__all__ = ["NTPData"]


@dataclass(frozen=True, eq=False)
class NTPData:
    """Distinct contexts with embeddings and next-token counts.

    Parameters
    ----------
    H : ndarray, shape (d, m)
        Context embeddings ``H̄ = [h̄_1, ..., h̄_m]``.
    counts : ndarray of int, shape (m, V)
        ``counts[j, z]``: how often token ``z`` (0-based) followed context ``j``.

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> D.n, D.m, D.V, D.d
    (6, 2, 3, 2)
    >>> D.pi.tolist(), D.P[0].tolist()
    ([0.5, 0.5], [0.6666666666666666, 0.3333333333333333, 0.0])
    >>> D.supports
    ((0, 1), (2,))
    """

    H: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        H = np.array(self.H, dtype=float)
        c = np.array(self.counts)
        if H.ndim != 2:
            raise DatasetFormatError(f"embeddings must be a d x m matrix, got shape {H.shape}")
        if c.ndim != 2 or c.shape[0] != H.shape[1]:
            raise DatasetFormatError(f"counts must be an m x V matrix with m = {H.shape[1]} contexts, got shape {c.shape}")
        if not np.all(np.isfinite(H)):
            raise DatasetFormatError("embeddings must be finite")
        if c.size and (not np.all(np.equal(np.mod(c, 1), 0)) or np.any(c < 0)):
            raise DatasetFormatError("counts must be non-negative integers")
        c = c.astype(np.int64)
        if np.any(c.sum(axis=1) == 0):
            raise DatasetFormatError(f"context {int(np.flatnonzero(c.sum(axis=1) == 0)[0]) + 1} has no next token")
        object.__setattr__(self, "H", _read_only(H))
        object.__setattr__(self, "counts", _read_only(c))

    @property
    def d(self) -> int:
        return int(self.H.shape[0])

    @property
    def m(self) -> int:
        return int(self.H.shape[1])

    @property
    def V(self) -> int:
        return int(self.counts.shape[1])

    @property
    def n(self) -> int:
        """The number of sequences, ``n = Σ_{j,z} c_{j,z}``."""
        return int(self.counts.sum())

    @cached_property
    def pi(self) -> np.ndarray:
        """``π̂_j = Σ_z c_{j,z} / n``."""
        return _read_only(self.counts.sum(axis=1) / self.n)

    @cached_property
    def P(self) -> np.ndarray:
        """``p̂_{j,z} = c_{j,z} / Σ_z c_{j,z}`` (rows on the simplex)."""
        return _read_only(self.counts / self.counts.sum(axis=1, keepdims=True))

    @cached_property
    def mask(self) -> np.ndarray:
        """Boolean (m, V): ``z ∈ 𝒮_j``."""
        return _read_only(self.counts > 0)

    @cached_property
    def supports(self) -> tuple[tuple[int, ...], ...]:
        """``𝒮_j`` as sorted 0-based token tuples."""
        return tuple(tuple(int(z) for z in np.flatnonzero(row)) for row in self.mask)

    def key(self) -> tuple:
        """A hashable identity: embeddings and counts up to the order of contexts."""
        cols = sorted((self.H[:, j].tobytes(), self.counts[j].tobytes()) for j in range(self.m))
        return (self.d, self.V, tuple(cols))
