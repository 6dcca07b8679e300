"""Token roles per query (Definition 1) and Assumption 3's counts, compiled: one pass over
the real positions of the padded samples, so a sequence line of L tokens (L^2/2
positions) costs no Python per position.

The mathematics is in :mod:`ntpcheck.structure` (:attr:`~ntpcheck.structure.Structure.role_codes`)
and :func:`ntpcheck.assumptions.check_3`; a sample ``n`` with optimal positions
``I(n)`` (``optimal[n]``) and query row ``r = row[query[n]]`` contributes

* the role bits: ``1`` for the token at each ``l in I(n)`` and ``2`` for the
  token at each ``l' not in I(n)``, when both sets are non-empty (the two ends of
  the relations ``x_l >_q x_l'``); 3 = both = confused;
* Assumption 3: the tokens ``x`` with role exactly 2 under the query that occur
  more than ``|I(n)|`` times in the sentence.

Examples
--------
>>> import numpy as np
>>> tokens, lengths = np.array([[0, 1, 1, 2]]), np.array([4])
>>> optimal = np.array([[True, False, False, False]])
>>> codes = role_codes(tokens, lengths, optimal, np.array([2]), np.array([-1, -1, 0]), 1, 3)
>>> codes.tolist()
[[1, 2, 2]]
>>> [x.tolist() for x in non_optimal_majority(tokens, lengths, optimal, np.array([2]), np.array([-1, -1, 0]), codes)]
[[0], [1], [2], [1]]
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["role_codes", "non_optimal_majority"]


@njit(cache=True)
def role_codes(tokens, lengths, optimal, query, row, n_rows, V):
    """``(n_rows, V)`` int8 role codes (0 non-comparable, 1 optimal, 2 non-optimal, 3 confused)."""
    codes = np.zeros((n_rows, V), dtype=np.int8)
    for n in range(len(lengths)):
        L = lengths[n]
        p = 0
        for l in range(L):
            p += optimal[n, l]
        if p == 0 or p == L:  # no relation x_l >_q x_l' in this sample
            continue
        r = row[query[n]]
        for l in range(L):
            codes[r, tokens[n, l]] |= 1 if optimal[n, l] else 2
    return codes


@njit(cache=True)
def non_optimal_majority(tokens, lengths, optimal, query, row, codes):
    """``(sample, token, count, |I(n)|)`` for every token of role 2 under the sample's query that
    occurs ``count > |I(n)| >= 1`` times, samples in order, tokens by first occurrence."""
    counts = np.zeros(codes.shape[1], dtype=np.int64)
    n_out = 0
    out = np.empty((4, 16), dtype=np.int64)
    for n in range(len(lengths)):
        L = lengths[n]
        p = 0
        for l in range(L):
            p += optimal[n, l]
        if p == 0:
            continue
        r = row[query[n]]
        for l in range(L):
            counts[tokens[n, l]] += 1
        for l in range(L):  # first occurrences in order; each count read once, then cleared
            x = tokens[n, l]
            c = counts[x]
            counts[x] = 0
            if c > p and codes[r, x] == 2:
                if n_out == out.shape[1]:
                    grown = np.empty((4, 2 * n_out), dtype=np.int64)
                    grown[:, :n_out] = out
                    out = grown
                out[0, n_out], out[1, n_out], out[2, n_out], out[3, n_out] = n, x, c, p
                n_out += 1
    return out[0, :n_out], out[1, :n_out], out[2, :n_out], out[3, :n_out]
