"""Sentences as padded index arrays (:class:`SampleArrays`, :attr:`ntpcheck.common.data.Dataset.arrays`).

Token names are mapped to indices in one pass (``map`` over the chained
sentences, about 40 ns a token), not one call per sentence, and only the last
sentence of each *chain* is mapped: a sentence that extends the previous one
by a single token (the prefixes of a sequence line, Section 3's convention) is
a row of the masked broadcast of its chain's last sentence.  So a line of L
tokens costs one O(L^2) vectorised write but O(L) mapping.  The dataset maps
its chains once, when it is built (validating every token on the way), and
pads on demand (:func:`pad_encoded`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Mapping, Sequence

import numpy as np

__all__ = ["SampleArrays", "pad_encoded", "encode_chains", "chain_lasts", "chain_starts", "extends_previous",
           "extension_flags"]


@dataclass(frozen=True, eq=False)
class SampleArrays:
    """Padded integer arrays of a dataset, for vectorised computation.

    Attributes
    ----------
    tokens : ndarray of int, shape (N, L_max)
        Token indices; padding positions hold 0 and are masked out.
    mask : ndarray of bool, shape (N, L_max)
        True at real positions.
    lengths : ndarray of int, shape (N,)
    query : ndarray of int, shape (N,)
        Index of the last token ``x_L^(n)``.
    target : ndarray of int, shape (N,)
        Index of the next token, ``In(X^(n))``.
    pi : ndarray of float, shape (N,)
        The frequencies ``pi^(n)`` (sum to 1).
    n_vocab : int
    """

    tokens: np.ndarray
    mask: np.ndarray
    lengths: np.ndarray
    query: np.ndarray
    target: np.ndarray
    pi: np.ndarray
    n_vocab: int

    @property
    def n_samples(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def l_max(self) -> int:
        return int(self.tokens.shape[1])


def extends_previous(prev: tuple[str, ...], sent: tuple[str, ...]) -> bool:
    """Whether ``sent`` is ``prev`` plus one token (consecutive prefixes of a sequence line).

    Examples
    --------
    >>> extends_previous(("a", "b"), ("a", "b", "c")), extends_previous(("a",), ("b", "c"))
    (True, False)
    """
    return len(sent) == len(prev) + 1 and len(prev) > 0 and sent[-2] == prev[-1] and sent[:-1] == prev


def extension_flags(sents: Sequence[tuple[str, ...]], lengths: np.ndarray | None = None) -> np.ndarray:
    """``(N,)`` bool: sentence ``k`` is sentence ``k - 1`` plus one token (:func:`extends_previous`);
    only pairs whose ``lengths`` (computed if not given) differ by one are compared.

    Examples
    --------
    >>> extension_flags([("a",), ("a", "b"), ("b",), ("a", "b", "c")]).tolist()
    [False, True, False, False]
    """
    n = len(sents)
    lengths = np.fromiter(map(len, sents), dtype=np.int64, count=n) if lengths is None else lengths
    ext = np.zeros(n, dtype=bool)
    for k in (np.flatnonzero(lengths[1:] == lengths[:-1] + 1) + 1).tolist():  # only these can extend
        ext[k] = extends_previous(sents[k - 1], sents[k])
    ext.setflags(write=False)
    return ext


def chain_lasts(ext: np.ndarray) -> np.ndarray:
    """The last sentence of each chain: a sentence that does not extend its predecessor and the
    sentences after it that each extend the one before (``ext``: :func:`extension_flags`).

    Examples
    --------
    >>> chain_lasts(np.array([False, True, True, False, False, True])).tolist()
    [2, 3, 5]
    """
    heads = np.flatnonzero(~ext)
    return np.append(heads[1:], len(ext)) - 1


def _chains(lengths: np.ndarray, ext: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(heads, lasts, offsets)``: the first and last sentence of each chain, and where each
    chain's last sentence begins in :func:`encode_chains`'s output (one more entry: its length)."""
    lasts = chain_lasts(ext)
    return np.append(0, lasts[:-1] + 1), lasts, np.append(0, np.cumsum(lengths[lasts]))


def chain_starts(lengths: np.ndarray, ext: np.ndarray) -> np.ndarray:
    """``(N,)``: where sentence ``k`` begins in :func:`encode_chains`'s output, so that it is
    ``encoded[start[k] : start[k] + lengths[k]]``; the sentences of a chain all begin where its
    last one does.  With :func:`encode_chains` this is the *ragged* form of the samples, O(total
    chain length) in memory where the padded one is O(N L_max).

    Examples
    --------
    >>> chain_starts(np.array([1, 2, 2, 1]), np.array([False, True, False, False])).tolist()
    [0, 0, 2, 4]
    """
    heads, lasts, offsets = _chains(lengths, ext)
    return np.repeat(offsets[:-1], lasts - heads + 1)


def encode_chains(sents: Sequence[tuple[str, ...]], index: Mapping[str, int], ext: np.ndarray) -> np.ndarray:
    """The token indices of each chain's last sentence (:func:`chain_lasts`), concatenated: every
    sentence is a prefix of its chain's last, so this is all :func:`pad_encoded` needs, and a
    sequence line of L tokens is mapped once (L indices), not as its L(L-1)/2 prefix tokens.
    An unknown token raises ``KeyError``.

    Examples
    --------
    >>> encode_chains([("a",), ("a", "b"), ("b",)], {"a": 0, "b": 1}, np.array([False, True, False])).tolist()
    [0, 1, 1]
    """
    lasts = [sents[k] for k in chain_lasts(ext).tolist()]
    return np.fromiter(map(index.__getitem__, chain.from_iterable(lasts)), dtype=np.int64, count=sum(map(len, lasts)))


def pad_encoded(lengths: np.ndarray, ext: np.ndarray, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(tokens, mask)``: ``tokens[k, :L_k]`` are the indices of sentence ``k``, zero after, from
    the sentences' lengths, :func:`extension_flags` and :func:`encode_chains`.

    A chain of one sentence is its segment of ``encoded``; a longer chain (a
    sequence line's prefixes) is the masked broadcast of its last sentence.

    Examples
    --------
    >>> sents, index = [("a",), ("a", "b"), ("b", "b", "a")], {"a": 0, "b": 1}
    >>> lengths, ext = np.array([1, 2, 3]), extension_flags(sents)
    >>> tokens, mask = pad_encoded(lengths, ext, encode_chains(sents, index, ext))
    >>> tokens.tolist(), ext.tolist()
    ([[0, 0, 0], [0, 1, 0], [1, 1, 0]], [False, True, False])
    """
    n = len(lengths)
    lmax = int(lengths.max())
    mask = np.arange(lmax)[None, :] < lengths[:, None]
    tokens = np.zeros((n, lmax), dtype=np.int64)
    heads, lasts, offsets = _chains(lengths, ext)
    if len(lasts) == n:  # no chains: every row is its own segment
        tokens[mask] = encoded
        return tokens, mask
    alone = lasts == heads
    rows = np.zeros(n, dtype=bool)
    rows[lasts[alone]] = True
    tokens[mask & rows[:, None]] = encoded[np.repeat(alone, lengths[lasts])]
    for c in np.flatnonzero(~alone).tolist():  # a chain: its last sentence, broadcast
        h, e, last = heads[c], lasts[c] + 1, encoded[offsets[c]:offsets[c + 1]]
        np.multiply(last[None, :], mask[h:e, : len(last)], out=tokens[h:e, : len(last)])
    return tokens, mask
