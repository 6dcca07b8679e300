"""Optimal positions, role codes, Assumption 3's counts and Eq. (3)'s constraints: numpy for small
data, compiled for large.

The three functions of :mod:`ntpcheck.transformer.kernels.roles` and :func:`ntpcheck.transformer.kernels.eq3.eq3_triples`
(the mathematics is there), with the same arguments and the same results, integer for integer.  Up
to :data:`NUMPY_POSITIONS` real positions (``sum(lengths)``) they run as a few vectorised numpy
operations here, unless the compiled kernels are loaded already: importing numba and loading the
kernels takes about 0.7 s, which ``ntpcheck check`` on a small dataset would pay for a millisecond
of work (issue 43: a CLI that starts at once).  Past that, or in a process that trains anyway
(``verify``), the compiled loops run, which need no ``O(sum(lengths))`` temporaries.
``tests/transformer/test_structure_vectorised.py`` checks the two equal on drawn data.

Examples
--------
Two samples ``A B -> C`` and ``B -> C`` with the collocation ``n(A) = C``: ``A`` is optimal under
the query ``B``, and ``B`` non-optimal; the second sample has no optimal position.

>>> import numpy as np
>>> flat, start, lengths = np.array([0, 1]), np.array([0, 1]), np.array([2, 1])
>>> target, nxt, query, row = np.array([2, 2]), np.array([2, -1, -1]), np.array([1, 1]), np.array([-1, 0, -1])
>>> p = optimal_counts(flat, start, lengths, target, nxt)
>>> p.tolist()
[1, 0]
>>> role_codes(flat, start, lengths, target, nxt, p, query, row, 1, 3).tolist()
[[1, 2, 0]]
>>> [x.tolist() for x in eq3_triples(flat, start, lengths, target, nxt, p, query, 3)]
[[0], [1], [1]]
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["NUMPY", "NUMPY_POSITIONS", "optimal_counts", "role_codes", "non_optimal_majority", "eq3_triples"]

#: The most real positions handled with numpy (a few arrays of this length, 8 bytes an entry).
NUMPY_POSITIONS = 1 << 16


def _positions(flat, start, lengths) -> tuple[np.ndarray, np.ndarray]:
    """``(sample, token)`` of every real position, samples in order, positions in order."""
    lengths = np.asarray(lengths, dtype=np.int64)
    sample = np.repeat(np.arange(len(lengths)), lengths)
    first = np.cumsum(lengths) - lengths
    offset = np.arange(len(sample)) - first[sample]
    return sample, np.asarray(flat)[np.asarray(start, dtype=np.int64)[sample] + offset]


def _small(lengths) -> bool:
    """Whether numpy runs: few positions, and the compiled kernels not loaded already."""
    return "ntpcheck.transformer.kernels" not in sys.modules and int(np.sum(lengths)) <= NUMPY_POSITIONS


def _compiled(name: str):
    """The compiled kernel of that name (:mod:`ntpcheck.transformer.kernels.roles`, or :mod:`~ntpcheck.transformer.kernels.eq3`'s)."""
    if name == "eq3_triples":
        from .kernels.eq3 import eq3_triples

        return eq3_triples
    from .kernels import roles

    return getattr(roles, name)


def optimal_counts(flat, start, lengths, target, nxt) -> np.ndarray:
    """``(N,)`` int64: ``|I(n)|``, the number of optimal positions of each sample."""
    return (NUMPY["optimal_counts"] if _small(lengths) else _compiled("optimal_counts"))(flat, start, lengths, target, nxt)


def _optimal_counts(flat, start, lengths, target, nxt) -> np.ndarray:
    sample, token = _positions(flat, start, lengths)
    hit = np.asarray(nxt)[token] == np.asarray(target)[sample]
    return np.bincount(sample[hit], minlength=len(lengths)).astype(np.int64)


def role_codes(flat, start, lengths, target, nxt, n_opt, query, row, n_rows, V) -> np.ndarray:
    """``(n_rows, V)`` int8 role codes (0 non-comparable, 1 optimal, 2 non-optimal, 3 confused)."""
    return (NUMPY["role_codes"] if _small(lengths) else _compiled("role_codes"))(flat, start, lengths, target, nxt, n_opt, query, row, n_rows, V)


def _role_codes(flat, start, lengths, target, nxt, n_opt, query, row, n_rows, V) -> np.ndarray:
    sample, token = _positions(flat, start, lengths)
    n_opt, lengths = np.asarray(n_opt), np.asarray(lengths)
    related = (n_opt > 0) & (n_opt < lengths)  # samples with some relation x_l >_q x_l'
    keep = related[sample]
    sample, token = sample[keep], token[keep]
    hit = np.asarray(nxt)[token] == np.asarray(target)[sample]
    r = np.asarray(row)[np.asarray(query)[sample]]
    codes = np.zeros((n_rows, V), dtype=np.int8)
    codes[r[hit], token[hit]] = 1
    codes[r[~hit], token[~hit]] |= 2
    return codes


def non_optimal_majority(flat, start, lengths, target, nxt, n_opt, query, row, codes):
    """``(sample, token, count, |I(n)|)`` for every token of role 2 under the sample's query that
    occurs ``count > |I(n)| >= 1`` times, samples in order, tokens by first occurrence."""
    return (NUMPY["non_optimal_majority"] if _small(lengths) else _compiled("non_optimal_majority"))(flat, start, lengths, target, nxt, n_opt, query, row, codes)


def _non_optimal_majority(flat, start, lengths, target, nxt, n_opt, query, row, codes):
    sample, token = _positions(flat, start, lengths)
    n_opt = np.asarray(n_opt, dtype=np.int64)
    keep = n_opt[sample] > 0
    sample, token = sample[keep], token[keep]
    V = codes.shape[1]
    _, first, count = np.unique(sample * V + token, return_index=True, return_counts=True)
    by_first = np.argsort(first, kind="stable")  # np.unique sorts by key: back to order of first occurrence
    first, count = first[by_first], count[by_first]
    n, x = sample[first], token[first]
    p = n_opt[n]
    r = np.asarray(row)[np.asarray(query)[n]]
    found = (count > p) & (np.asarray(codes)[r, x] == 2)
    return (n[found].astype(np.int64), x[found].astype(np.int64), count[found].astype(np.int64),
            p[found].astype(np.int64))


def eq3_triples(flat, start, lengths, target, nxt, n_opt, query, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, q)``: every distinct ``(x_l, x_l', x_L)`` with ``l`` optimal and ``l'`` a non-optimal
    position of a sample with an optimal position, in order of first occurrence (sample, then ``l``,
    then ``l'``), as :func:`ntpcheck.transformer.kernels.eq3.eq3_triples`."""
    n_opt = np.asarray(n_opt, dtype=np.int64)
    small = _small(lengths) and int(np.sum(n_opt * (np.asarray(lengths) - n_opt))) <= 4 * NUMPY_POSITIONS  # pairs too
    return (NUMPY["eq3_triples"] if small else _compiled("eq3_triples"))(flat, start, lengths, target, nxt, n_opt, query, V)


def _eq3_triples(flat, start, lengths, target, nxt, n_opt, query, V):
    n_opt = np.asarray(n_opt, dtype=np.int64)
    sample, token = _positions(flat, start, lengths)
    keep = n_opt[sample] > 0
    sample, token = sample[keep], token[keep]
    _, first = np.unique(sample * V + token, return_index=True)
    first = np.sort(first)  # each token's first position in its sample, in order
    n, x = sample[first], token[first]
    is_opt = np.asarray(nxt)[x] == np.asarray(target)[n]
    on, ox, nn_, nx_ = n[is_opt], x[is_opt], n[~is_opt], x[~is_opt]
    N = len(lengths)
    n_o, n_n = np.bincount(on, minlength=N), np.bincount(nn_, minlength=N)
    o_start, n_start = np.cumsum(n_o) - n_o, np.cumsum(n_n) - n_n
    per = n_o * n_n
    pair_sample = np.repeat(np.arange(N), per)
    t = np.arange(len(pair_sample)) - (np.cumsum(per) - per)[pair_sample]
    width = n_n[pair_sample]
    a = ox[o_start[pair_sample] + t // np.maximum(width, 1)]
    b = nx_[n_start[pair_sample] + t % np.maximum(width, 1)]
    q = np.asarray(query, dtype=np.int64)[pair_sample]
    _, keep = np.unique((q * V + a) * V + b, return_index=True)
    keep = np.sort(keep)
    return a[keep].astype(np.int64), b[keep].astype(np.int64), q[keep]


#: The numpy forms by name (what the functions above run on small data; tests call them directly).
NUMPY = {"optimal_counts": _optimal_counts, "role_codes": _role_codes, "non_optimal_majority": _non_optimal_majority,
         "eq3_triples": _eq3_triples}
