"""Large synthetic realizable datasets, for benchmarks.

``bench_dataset(n_vocab, pairs_per_query, seed)``: collocation ``n(i) = i+1
mod |V|`` (one-token samples), and for every query ``q`` a few sentences
``[a, b, q]`` whose winner ``a`` is drawn from the query's winners and ``b``
from its losers, so every order is bipartite (Assumption 1(ii)) and
Assumption 3 holds.  Not prefix-closed (a solver benchmark does not need it).
"""

from __future__ import annotations

import numpy as np

from .data import Dataset, Sample

__all__ = ["bench_dataset", "random_realizable_dataset", "scale_arrays"]


def bench_dataset(n_vocab: int, pairs_per_query: int = 3, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    names = [f"t{i}" for i in range(n_vocab)]
    nxt = {names[i]: names[(i + 1) % n_vocab] for i in range(n_vocab)}
    samples = [Sample((x,), nxt[x]) for x in names]
    for q in range(n_vocab):
        others = [i for i in rng.permutation(n_vocab) if i != q][: 2 * pairs_per_query]
        winners = others[: max(1, pairs_per_query // 2)]
        losers = others[len(winners):] + [q]
        for k in range(pairs_per_query):
            a = names[winners[k % len(winners)]]
            b = names[losers[k % len(losers)]]
            sent = (a, b, names[q]) if b != names[q] else (a, names[q])
            samples.append(Sample(sent, nxt[a]))
    return Dataset.from_samples(samples, vocab=names, name=f"bench-{n_vocab}")


def random_realizable_dataset(n_vocab: int = 20, n_samples: int = 90, max_len: int = 8, seed: int = 0) -> Dataset:
    """A random prefix-closed dataset satisfying Assumptions 1-3, of about ``n_samples`` samples.

    The same construction as :func:`strategies.realizable_datasets`
    (:class:`ntpcheck.construct.DatasetBuilder`), driven by a seeded RNG
    rather than Hypothesis, so that the paper's Section 7 scale (|V| = 20,
    ~90 samples) is reached at once.  Vocabulary ``A ... T`` (padded to ``n_vocab``).
    """
    from .construct import DatasetBuilder, token_names

    rng = np.random.default_rng(seed)
    pool = token_names(n_vocab)
    go_on = (False, True, True, True)  # continue with probability 3/4, as the strategies do
    b = DatasetBuilder(list(pool), pick=lambda xs: xs[int(rng.integers(len(xs)))], go_on=lambda: go_on[int(rng.integers(4))])
    stall = 0
    while b.n_samples < n_samples and stall < 400:
        before = b.n_samples
        b.grow((pool[int(rng.integers(n_vocab))],), max_len=max_len, max_samples=n_samples, prefix_closed=True, weight=1.0)
        stall = stall + 1 if b.n_samples == before else 0
    return b.dataset(n_vocab)


def scale_arrays(n_vocab: int = 1000, n_samples: int = 10_000, l_max: int = 16, seed: int = 0):
    """Padded sample arrays at scale, for timing one training step (not a checked dataset).

    Sentences of lengths 2..l_max over ``n_vocab`` tokens; the next token is
    ``n(x_1) = x_1 + 1 mod |V|``, so ``I(n)`` is non-empty; uniform frequencies.
    """
    from .data import SampleArrays

    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, l_max + 1, size=n_samples)
    tokens = rng.integers(0, n_vocab, size=(n_samples, l_max))
    mask = np.arange(l_max)[None, :] < lengths[:, None]
    tokens = np.where(mask, tokens, 0)
    query = tokens[np.arange(n_samples), lengths - 1]
    target = (tokens[:, 0] + 1) % n_vocab
    pi = np.full(n_samples, 1.0 / n_samples)
    return SampleArrays(tokens, mask, lengths, query, target, pi, n_vocab)
