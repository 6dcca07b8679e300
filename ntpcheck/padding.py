"""Sentences as padded index arrays: the rows of :attr:`ntpcheck.data.Dataset.arrays`.

Token names are mapped to indices in one pass over the tokens (``map`` over
the chained sentences, about 40 ns a token), not one call per sentence.  A
sentence that extends the previous one by a single token (the prefixes of a
sequence line, Section 3's convention) is a row of the masked broadcast of
its chain's last sentence, so a line of L tokens costs one O(L^2) vectorised
write but O(L) mapping.
"""

from __future__ import annotations

from itertools import chain
from typing import Mapping, Sequence

import numpy as np

__all__ = ["pad_sentences", "extends_previous", "extension_flags"]


def extends_previous(prev: tuple[str, ...], sent: tuple[str, ...]) -> bool:
    """Whether ``sent`` is ``prev`` plus one token (consecutive prefixes of a sequence line).

    Examples
    --------
    >>> extends_previous(("a", "b"), ("a", "b", "c")), extends_previous(("a",), ("b", "c"))
    (True, False)
    """
    return len(sent) == len(prev) + 1 and len(prev) > 0 and sent[-2] == prev[-1] and sent[:-1] == prev


def extension_flags(sents: Sequence[tuple[str, ...]]) -> np.ndarray:
    """``(N,)`` bool: sentence ``k`` is sentence ``k - 1`` plus one token (:func:`extends_previous`);
    only pairs whose lengths differ by one are compared.

    Examples
    --------
    >>> extension_flags([("a",), ("a", "b"), ("b",), ("a", "b", "c")]).tolist()
    [False, True, False, False]
    """
    n = len(sents)
    lengths = np.fromiter(map(len, sents), dtype=np.int64, count=n)
    ext = np.zeros(n, dtype=bool)
    for k in (np.flatnonzero(lengths[1:] == lengths[:-1] + 1) + 1).tolist():  # only these can extend
        ext[k] = extends_previous(sents[k - 1], sents[k])
    ext.setflags(write=False)
    return ext


def pad_sentences(sents: Sequence[tuple[str, ...]], index: Mapping[str, int],
                  ext: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tokens, mask, lengths)``: ``tokens[k, :L_k]`` are the indices of sentence ``k``, zero after.

    ``ext`` are the sentences' :func:`extension_flags` (computed if not given).
    A sentence that does not extend its predecessor is mapped token by token;
    a chain of sentences each extending the one before (a sequence line's
    prefixes) is the masked broadcast of its last sentence, mapped once.

    Examples
    --------
    >>> tokens, mask, lengths = pad_sentences([("a",), ("a", "b"), ("b", "b", "a")], {"a": 0, "b": 1})
    >>> tokens.tolist(), lengths.tolist()
    ([[0, 0, 0], [0, 1, 0], [1, 1, 0]], [1, 2, 3])
    """
    n = len(sents)
    ext = extension_flags(sents) if ext is None else ext
    lengths = np.fromiter(map(len, sents), dtype=np.int64, count=n)
    lmax = int(lengths.max())
    get = index.__getitem__
    mask = np.arange(lmax)[None, :] < lengths[:, None]
    tokens = np.zeros((n, lmax), dtype=np.int64)
    if not ext.any():
        tokens[mask] = np.fromiter(map(get, chain.from_iterable(sents)), dtype=np.int64, count=int(lengths.sum()))
        return tokens, mask, lengths
    heads = np.flatnonzero(~ext)
    ends = np.append(heads[1:], n)  # chain c is rows heads[c] .. ends[c] - 1
    alone = ends - heads == 1
    single = heads[alone]
    rows = np.zeros(n, dtype=bool)
    rows[single] = True
    tokens[mask & rows[:, None]] = np.fromiter(map(get, chain.from_iterable(sents[k] for k in single.tolist())),
                                               dtype=np.int64, count=int(lengths[single].sum()))
    for h, e in zip(heads[~alone].tolist(), ends[~alone].tolist()):  # a chain: its last sentence, broadcast
        last = np.fromiter(map(get, sents[e - 1]), dtype=np.int64, count=int(lengths[e - 1]))
        np.multiply(last[None, :], mask[h:e, : len(last)], out=tokens[h:e, : len(last)])
    return tokens, mask, lengths
