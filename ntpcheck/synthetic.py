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

__all__ = ["bench_dataset"]


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
