"""Sentences as padded index arrays: the rows of :attr:`ntpcheck.data.Dataset.arrays`.

Token names are mapped to indices in one pass over the tokens (``map`` over
the chained sentences, about 40 ns a token), not one call per sentence.  A
sentence that extends the previous one by a single token (the prefixes of a
sequence line, Section 3's convention) copies the previous row and maps only
its new token, so a line of L tokens costs O(L^2) copying but O(L) mapping.
"""

from __future__ import annotations

from itertools import chain
from typing import Mapping, Sequence

import numpy as np

__all__ = ["pad_sentences"]


def pad_sentences(sents: Sequence[tuple[str, ...]], index: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tokens, mask, lengths)``: ``tokens[k, :L_k]`` are the indices of sentence ``k``, zero after.

    Examples
    --------
    >>> tokens, mask, lengths = pad_sentences([("a",), ("a", "b"), ("b", "b", "a")], {"a": 0, "b": 1})
    >>> tokens.tolist(), lengths.tolist()
    ([[0, 0, 0], [0, 1, 0], [1, 1, 0]], [1, 2, 3])
    """
    n = len(sents)
    lengths = np.fromiter(map(len, sents), dtype=np.int64, count=n)
    lmax = int(lengths.max())
    extends = [k for k in (np.flatnonzero(lengths[1:] == lengths[:-1] + 1) + 1).tolist()
               if sents[k][-2] == sents[k - 1][-1] and sents[k][:-1] == sents[k - 1]]
    get = index.__getitem__
    mask = np.arange(lmax)[None, :] < lengths[:, None]
    tokens = np.zeros((n, lmax), dtype=np.int64)
    if not extends:
        tokens[mask] = np.fromiter(map(get, chain.from_iterable(sents)), dtype=np.int64, count=int(lengths.sum()))
    else:
        ext = np.zeros(n, dtype=bool)
        ext[extends] = True
        whole = np.flatnonzero(~ext)
        new_tokens = chain.from_iterable(s[-1:] if e else s for s, e in zip(sents, ext.tolist()))
        flat = np.fromiter(map(get, new_tokens), dtype=np.int64, count=int(lengths[whole].sum()) + len(extends))
        start = np.concatenate([[0], np.cumsum(np.where(ext, 1, lengths))[:-1]])  # row k's new tokens in flat
        cols = np.arange(lmax)[None, :]
        tokens[whole[:, None], cols] = np.where(mask[whole], flat[np.minimum(start[whole, None] + cols, len(flat) - 1)], 0)
        for k in extends:  # copy the previous row, then the new token
            L = int(lengths[k])
            tokens[k, : L - 1] = tokens[k - 1, : L - 1]
            tokens[k, L - 1] = flat[start[k]]
    return tokens, mask, lengths
