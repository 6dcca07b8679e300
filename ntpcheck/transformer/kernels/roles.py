"""Optimal positions, token roles per query (Definition 1) and Assumption 3's counts, compiled:
one pass over the real positions of the samples in their *ragged* form, so a sequence line of
L tokens (L^2/2 positions) costs no Python per position and no padded array.

The ragged form (:attr:`ntpcheck.common.data.Dataset.chain_indices`,
:attr:`~ntpcheck.common.data.Dataset.sample_starts`) gives sample ``n``'s sentence as
``flat[start[n] : start[n] + lengths[n]]``; the padded ``(N, L_max)`` array is the special case
``flat = tokens.ravel()``, ``start = n L_max``.  Position ``l`` of sample ``n`` is optimal,
``l in I(n)``, when the collocation of its token is the next token:
``nxt[flat[start[n] + l]] == target[n]`` (``nxt`` is -1 where ``n(x)`` is undefined).

The mathematics is in :mod:`ntpcheck.transformer.structure` (:attr:`~ntpcheck.transformer.structure.Structure.role_codes`)
and :func:`ntpcheck.transformer.assumptions.check_3`; a sample ``n`` with ``p = |I(n)|`` optimal
positions (:func:`optimal_counts`) and query row ``r = row[query[n]]`` contributes

* the role bits: ``1`` for the token at each ``l in I(n)`` and ``2`` for the
  token at each ``l' not in I(n)``, when both sets are non-empty (the two ends of
  the relations ``x_l >_q x_l'``); 3 = both = confused;
* Assumption 3: the tokens ``x`` with role exactly 2 under the query that occur
  more than ``|I(n)|`` times in the sentence.

Examples
--------
>>> import numpy as np
>>> flat, start, lengths = np.array([0, 1, 1, 2]), np.array([0]), np.array([4])
>>> target, nxt, query = np.array([5]), np.array([5, -1, -1]), np.array([2])
>>> p = optimal_counts(flat, start, lengths, target, nxt)
>>> p.tolist()
[1]
>>> codes = role_codes(flat, start, lengths, target, nxt, p, query, np.array([-1, -1, 0]), 1, 3)
>>> codes.tolist()
[[1, 2, 2]]
>>> found = non_optimal_majority(flat, start, lengths, target, nxt, p, query, np.array([-1, -1, 0]), codes)
>>> [x.tolist() for x in found]
[[0], [1], [2], [1]]
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .loops import copy2

__all__ = ["optimal_counts", "role_codes", "non_optimal_majority"]


@njit(cache=True)
def optimal_counts(flat, start, lengths, target, nxt):  # pragma: no cover - compiled
    """``(N,)``: ``|I(n)|``, the number of optimal positions of each sample."""
    out = np.zeros(len(lengths), dtype=np.int64)
    for n in range(len(lengths)):
        s, y = start[n], target[n]
        p = 0
        for l in range(lengths[n]):
            p += nxt[flat[s + l]] == y
        out[n] = p
    return out


@njit(cache=True)
def role_codes(flat, start, lengths, target, nxt, n_opt, query, row, n_rows, V):  # pragma: no cover - compiled
    """``(n_rows, V)`` int8 role codes (0 non-comparable, 1 optimal, 2 non-optimal, 3 confused)."""
    codes = np.zeros((n_rows, V), dtype=np.int8)
    for n in range(len(lengths)):
        L, p = lengths[n], n_opt[n]
        if p == 0 or p == L:  # no relation x_l >_q x_l' in this sample
            continue
        r, s, y = row[query[n]], start[n], target[n]
        for l in range(L):
            x = flat[s + l]
            codes[r, x] |= 1 if nxt[x] == y else 2
    return codes


@njit(cache=True)
def non_optimal_majority(flat, start, lengths, target, nxt, n_opt, query, row, codes):  # pragma: no cover - compiled
    """``(sample, token, count, |I(n)|)`` for every token of role 2 under the sample's query that
    occurs ``count > |I(n)| >= 1`` times, samples in order, tokens by first occurrence."""
    counts = np.zeros(codes.shape[1], dtype=np.int64)
    n_out = 0
    out = np.empty((4, 16), dtype=np.int64)
    for n in range(len(lengths)):
        L, p = lengths[n], n_opt[n]
        if p == 0:
            continue
        r, s = row[query[n]], start[n]
        for l in range(L):
            counts[flat[s + l]] += 1
        for l in range(L):  # first occurrences in order; each count read once, then cleared
            x = flat[s + l]
            c = counts[x]
            counts[x] = 0
            if c > p and codes[r, x] == 2:
                if n_out == out.shape[1]:
                    grown = np.empty((4, 2 * n_out), dtype=np.int64)
                    copy2(grown, out)
                    out = grown
                out[0, n_out], out[1, n_out], out[2, n_out], out[3, n_out] = n, x, c, p
                n_out += 1
    return out[0, :n_out], out[1, :n_out], out[2, :n_out], out[3, :n_out]
