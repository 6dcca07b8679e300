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

__all__ = ["pad_sentences", "extends_previous"]


def extends_previous(prev: tuple[str, ...], sent: tuple[str, ...]) -> bool:
    """Whether ``sent`` is ``prev`` plus one token (consecutive prefixes of a sequence line).

    Examples
    --------
    >>> extends_previous(("a", "b"), ("a", "b", "c")), extends_previous(("a",), ("b", "c"))
    (True, False)
    """
    return len(sent) == len(prev) + 1 and len(prev) > 0 and sent[-2] == prev[-1] and sent[:-1] == prev


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
    ext = np.zeros(n, dtype=bool)
    for k in (np.flatnonzero(lengths[1:] == lengths[:-1] + 1) + 1).tolist():  # only these can extend
        ext[k] = extends_previous(sents[k - 1], sents[k])
    get = index.__getitem__
    mask = np.arange(lmax)[None, :] < lengths[:, None]
    tokens = np.zeros((n, lmax), dtype=np.int64)
    whole = [s for s, e in zip(sents, ext.tolist()) if not e] if ext.any() else sents
    tokens[mask & ~ext[:, None]] = np.fromiter(map(get, chain.from_iterable(whole)), dtype=np.int64,
                                                count=int(lengths[~ext].sum()))
    for k in np.flatnonzero(ext).tolist():  # copy the previous row, then map the new token
        L = int(lengths[k])
        tokens[k, : L - 1] = tokens[k - 1, : L - 1]
        tokens[k, L - 1] = get(sents[k][-1])
    return tokens, mask, lengths
