"""A matrix kept by columns, each as one *fill* value and the entries that differ from it.

``ntpcheck solve`` reports ``W*_ov`` and ``W*_kq`` (and Proposition 2's
values) by column.  At |V| = 10,000 a dense matrix is 800 MB and its text
or JSON is gigabytes, yet the solutions carry little: a column of ``W*_kq``
is zero except at the tokens comparable under its query, and a column of
``W*_ov`` is ``-1/|V|`` except at one token.  :class:`SparseColumns` holds
exactly that, so the output grows with what is there, and
:meth:`SparseColumns.dense` rebuilds the matrix bit for bit.

Examples
--------
>>> import numpy as np
>>> M = np.array([[0.0, -0.5, 7.0], [2.0, -0.5, 7.0], [0.0, 1.5, 7.0]])
>>> S = SparseColumns.from_dense(M, [0, 1], fill_mode="common")
>>> S.fill.tolist(), S.rows.tolist(), S.values.tolist(), S.n_omitted
([0.0, -0.5], [1, 2], [2.0, 1.5], 4)
>>> S.dense().tolist()   # column 2 is not listed: zero
[[0.0, -0.5, 0.0], [2.0, -0.5, 0.0], [0.0, 1.5, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SparseColumns", "flat_nonzero", "common_value"]

#: Columns a dense matrix is read in at a time by :meth:`SparseColumns.from_dense`
#: (bounds its temporaries to this many columns).
_BLOCK = 256


@dataclass(frozen=True, eq=False)
class SparseColumns:
    """Listed columns of an ``n_rows x n_cols`` matrix; the other columns are zero.

    Column ``columns[k]`` equals ``fill[k]`` everywhere except at rows
    ``rows[indptr[k]:indptr[k + 1]]`` (increasing), which hold ``values[...]``.
    No listed entry equals its column's fill.
    """

    shape: tuple[int, int]
    columns: np.ndarray  # (C,) column indices, in listing order
    fill: np.ndarray  # (C,)
    indptr: np.ndarray  # (C + 1,)
    rows: np.ndarray  # (nnz,)
    values: np.ndarray  # (nnz,)

    @classmethod
    def from_entries(cls, shape, columns, fill, position, rows, values) -> "SparseColumns":
        """From unordered entries ``(position[i], rows[i]) -> values[i]`` (``position``: index
        into ``columns``); entries equal to their column's fill are dropped."""
        columns = np.asarray(columns, dtype=np.int64)
        fill = np.broadcast_to(np.asarray(fill, dtype=float), columns.shape).copy()
        position, rows = np.asarray(position, dtype=np.int64), np.asarray(rows, dtype=np.int64)
        values = np.asarray(values, dtype=float)
        keep = values != fill[position]  # NaN is kept: it differs from everything
        position, rows, values = position[keep], rows[keep], values[keep]
        order = np.lexsort((rows, position))
        indptr = np.zeros(len(columns) + 1, dtype=np.int64)
        np.cumsum(np.bincount(position, minlength=len(columns)), out=indptr[1:])
        return cls((int(shape[0]), int(shape[1])), columns, fill, indptr, rows[order], values[order])

    @classmethod
    def from_dense(cls, M: np.ndarray, columns, fill_mode: str = "zero") -> "SparseColumns":
        """Columns ``columns`` of ``M``; ``fill_mode`` ``"zero"`` lists every nonzero entry,
        ``"common"`` takes as fill each column's most frequent value (:func:`common_value`)."""
        columns = np.asarray(columns, dtype=np.int64)
        fill = np.zeros(len(columns))
        parts = []
        for start in range(0, len(columns), _BLOCK):
            block = M[:, columns[start:start + _BLOCK]]
            if fill_mode == "common":
                fill[start:start + _BLOCK] = [common_value(c) for c in block.T]
            r, k = np.nonzero(block != fill[start:start + block.shape[1]])
            parts.append((k + start, r, block[r, k]))
        pos, rows, vals = (np.concatenate(p) for p in zip(*parts)) if parts else (np.zeros(0, np.int64),) * 3
        return cls.from_entries(M.shape, columns, fill, pos, rows, vals)

    @property
    def nnz(self) -> int:
        """Number of listed entries."""
        return len(self.values)

    @property
    def n_omitted(self) -> int:
        """Entries of the listed columns left out because they equal their column's fill."""
        return self.shape[0] * len(self.columns) - self.nnz

    def entry_positions(self) -> np.ndarray:
        """For each listed entry, the index into :attr:`columns` of its column."""
        return np.repeat(np.arange(len(self.columns)), np.diff(self.indptr))

    def column(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, values)`` of the ``k``-th listed column."""
        s = slice(self.indptr[k], self.indptr[k + 1])
        return self.rows[s], self.values[s]

    def keys(self) -> np.ndarray:
        """Each listed entry as ``position * n_rows + row`` (increasing)."""
        return self.entry_positions() * self.shape[0] + self.rows

    def at(self, position: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The values at ``(columns[position], rows)``: the listed entry, else the column's fill."""
        position, rows = np.asarray(position, dtype=np.int64), np.asarray(rows, dtype=np.int64)
        keys, want = self.keys(), position * self.shape[0] + rows
        i = np.minimum(np.searchsorted(keys, want), max(len(keys) - 1, 0))
        found = keys[i] == want if len(keys) else np.zeros(len(want), dtype=bool)
        return np.where(found, self.values[i] if len(keys) else 0.0, self.fill[position])

    def dense(self) -> np.ndarray:
        """The whole ``n_rows x n_cols`` matrix."""
        row = np.zeros(self.shape[1])
        row[self.columns] = self.fill
        M = np.empty(self.shape)
        M[:] = row  # row by row, in memory order (a column assignment strides through all of M)
        M[self.rows, self.columns[self.entry_positions()]] = self.values
        return M

    def norm(self) -> float:
        """Frobenius norm, without building the matrix."""
        n_fill = self.shape[0] - np.diff(self.indptr)
        return float(np.sqrt(np.dot(self.fill**2, n_fill) + np.dot(self.values, self.values)))

    def max_abs_diff(self, other: "SparseColumns") -> float:
        """``max |self - other|`` over the listed columns (both list the same columns)."""
        if not np.array_equal(self.columns, other.columns) or self.shape[0] != other.shape[0]:
            raise ValueError("max_abs_diff needs the same listed columns and rows")
        keys = np.union1d(self.keys(), other.keys())
        pos, rows = np.divmod(keys, self.shape[0])
        worst = float(np.max(np.abs(self.at(pos, rows) - other.at(pos, rows)), initial=0.0))
        only_fill = np.bincount(pos, minlength=len(self.columns)) < self.shape[0]  # columns with unlisted rows
        return max(worst, float(np.max(np.abs(self.fill - other.fill)[only_fill], initial=0.0)))


def common_value(column: np.ndarray) -> float:
    """The column's most frequent value if it occurs at least twice and more often than 0, else 0.

    Examples
    --------
    >>> common_value(np.array([-0.25, 0.75, -0.25, -0.25])), common_value(np.array([1e-17, 2e-17, 0.5]))
    (-0.25, 0.0)
    """
    values, counts = np.unique(column[~np.isnan(column)], return_counts=True)
    if not len(values):
        return 0.0
    k = int(np.argmax(counts))
    zeros = int(counts[values == 0.0].sum())
    return float(values[k]) if counts[k] >= 2 and counts[k] > zeros else 0.0


def flat_nonzero(a: np.ndarray) -> np.ndarray:
    """``np.flatnonzero(a)`` for a mostly-zero array of one-byte codes, eight bytes at a time.

    A |V| = 10,000 role-code table has 10^8 bytes and 10^4-10^5 nonzero ones;
    scanning it as 64-bit words and looking inside the few nonzero words
    takes a tenth of ``np.flatnonzero``'s time.

    Examples
    --------
    >>> flat_nonzero(np.array([[0, 0, 3, 0, 0, 0, 0, 0, 0, 1]], dtype=np.int8)).tolist()
    [2, 9]
    """
    flat = np.ascontiguousarray(a).ravel()
    if flat.itemsize != 1:
        return np.flatnonzero(flat)
    n8 = len(flat) // 8 * 8
    words = np.flatnonzero(flat[:n8].view(np.uint64))
    candidates = np.concatenate([(words[:, None] * 8 + np.arange(8)).ravel(), np.arange(n8, len(flat))])
    return candidates[flat[candidates] != 0]
