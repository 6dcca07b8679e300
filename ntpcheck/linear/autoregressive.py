"""The autoregressive setting of App. C: sequences, their prefixes, and the reduction to (2).

A training set of ``n`` sequences (tuples of 0-based tokens) gives one sample
per prefix: the context ``z_{1:t}`` and the next token ``z_{t+1}``, for
``t = 1 … len − 1``.  App. C groups the samples by length ``t`` and distinct
context: ``m_t`` distinct contexts of length ``t``, ``π̂_{t,j}`` the frequency of
context ``j`` among the ``t``-long contexts (normalised per ``t``, as the
entropies ``ℋ_t`` of Remark 2 need), ``p̂_{t,j}`` its next-token distribution.

The reduction (App. C, "enumerate the multi-set ℐ of pairs (j, t)") is the
:class:`~.data.NTPData` of the distinct ``(t, context)`` pairs, each with its
embedding ``h(x)``; contexts whose embeddings are equal (bit for bit) are then
one distinct context of (2), with the counts added (the union of supports):
the loss depends on a context only through ``h(x)``.  With ``n_t`` samples of
length ``t`` and ``N = Σ_t n_t``, the merged data's ``π̂_i`` is ``count/N``.

Embeddings ``h`` (``embedding``): ``"context"`` draws an independent
``N(0, I/d)`` vector per distinct context; ``"last"`` is the last token's
``N(0, I/d)`` embedding (a bigram model: contexts ending in the same token
merge); ``"mean"`` is the mean of the tokens' embeddings (permuted contexts
merge).  All are seeded.

Examples
--------
>>> seqs = ((0, 0, 1), (0, 1, 1))
>>> contexts(seqs)
((1, (0,)), (2, (0, 0)), (2, (0, 1)))
>>> [len(c) for c in distinct_by_length(seqs).values()]   # m_1 = 1 < m_2 = 2
[1, 2]
"""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np

from .data import NTPData

__all__ = ["EMBEDDINGS", "prefix_samples", "contexts", "distinct_by_length", "embed", "reduce", "prefix_ce", "appc_ce",
           "entropy_by_length"]

EMBEDDINGS = ("context", "last", "mean")


def prefix_samples(sequences) -> list[tuple[tuple[int, ...], int]]:
    """Every ``(z_{1:t}, z_{t+1})`` of every sequence, in order (one per prefix)."""
    return [(tuple(s[:t]), int(s[t])) for s in sequences for t in range(1, len(s))]


def contexts(sequences) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The distinct ``(t, context)`` pairs, sorted by length then context."""
    return tuple(sorted({(len(x), x) for x, _ in prefix_samples(sequences)}))


def distinct_by_length(sequences) -> dict[int, Counter]:
    """``t -> Counter(context -> Counter(next token))``: App. C's grouping (``m_t`` = its size)."""
    out: dict[int, dict] = {}
    for x, z in prefix_samples(sequences):
        out.setdefault(len(x), {}).setdefault(x, Counter())[z] += 1
    return {t: Counter(v) for t, v in sorted(out.items())}


def _gaussian(key: tuple, d: int, seed: int) -> np.ndarray:
    digest = hashlib.sha256(repr((seed, key)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little")).normal(size=d) / np.sqrt(d)


def embed(context: tuple[int, ...], embedding: str, d: int, seed: int) -> np.ndarray:
    """``h(x)`` of one context (module docstring); the same ``(embedding, d, seed)`` gives the same map."""
    if embedding == "context":
        return _gaussian(("context", context), d, seed)
    if embedding == "last":
        return _gaussian(("token", context[-1]), d, seed)
    if embedding == "mean":
        return np.mean([_gaussian(("token", z), d, seed) for z in context], axis=0)
    raise ValueError(f"unknown embedding {embedding!r}: one of {', '.join(EMBEDDINGS)}")


def reduce(sequences, V: int, embedding: str, d: int, seed: int = 0) -> NTPData:
    """App. C's reduction: the distinct ``(t, context)`` pairs as (2), merged where their
    embeddings are equal (module docstring).  Contexts are ordered by length, then context,
    and merged ones take the place of the first."""
    rows: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    for x, z in prefix_samples(sequences):
        h = embed(x, embedding, d, seed)
        h_row, c_row = rows.setdefault(h.tobytes(), (h, np.zeros(V, dtype=np.int64)))
        c_row[z] += 1
    keys: dict[bytes, int] = {}
    for x in contexts(sequences):  # first appearance of each embedding in (t, context) order
        keys.setdefault(embed(x[1], embedding, d, seed).tobytes(), len(keys))
    order = sorted(rows.items(), key=lambda kv: keys[kv[0]])
    return NTPData(np.column_stack([h for _, (h, _) in order]), np.array([c for _, (_, c) in order]))


def prefix_ce(sequences, W: np.ndarray, embedding: str, d: int, seed: int = 0) -> float:
    """The autoregressive loss as a plain average over every prefix sample of ``−log 𝕊_z(W h(x))``."""
    from ntpcheck.common.special import log_softmax

    samples = prefix_samples(sequences)
    return -float(np.mean([log_softmax(W @ embed(x, embedding, d, seed))[z] for x, z in samples]))


def appc_ce(sequences, W: np.ndarray, embedding: str, d: int, seed: int = 0) -> float:
    """App. C's displayed objective ``−Σ_t Σ_{j∈[m_t]} π̂_{t,j} Σ_{z∈𝒮_{j,t}} p̂_{t,j,z} log 𝕊_z(W h̄_{t,j})``
    with ``π̂_{t,j}`` normalised per length ``t`` (a sum of one loss per length)."""
    from ntpcheck.common.special import log_softmax

    total = 0.0
    for t, group in distinct_by_length(sequences).items():
        n_t = sum(sum(c.values()) for c in group.values())
        for x, c in group.items():
            logq = log_softmax(W @ embed(x, embedding, d, seed))
            total -= sum(k / n_t * logq[z] for z, k in c.items())
    return total


def entropy_by_length(sequences) -> dict[int, float]:
    """``ℋ_t = −Σ_{j∈[m_t]} Σ_z π̂_{t,j} p̂_{t,j,z} log p̂_{t,j,z}`` (Remark 2), ``π̂`` normalised per ``t``:
    the empirical conditional entropy of the token after a ``t``-long prefix.

    Examples
    --------
    >>> {t: round(h, 4) for t, h in entropy_by_length([(0, 0, 0), (0, 0, 1)]).items()}
    {1: 0.0, 2: 0.6931}
    """
    out = {}
    for t, group in distinct_by_length(sequences).items():
        n_t = sum(sum(c.values()) for c in group.values())
        h = 0.0
        for c in group.values():
            tot = sum(c.values())
            h -= sum(k / n_t * np.log(k / tot) for k in c.values())
        out[t] = float(h) + 0.0
    return out
