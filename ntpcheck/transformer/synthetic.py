"""Large synthetic realizable datasets, for benchmarks.

The first three use the collocation ``n(i) = i+1 mod |V|`` (one-token
samples ``[t_i] -> t_{i+1}``); all keep every order bipartite
(Assumption 1(ii), no confused token).  :func:`solver_dataset` names the four
kinds the solver benchmark scores (:data:`SOLVER_KINDS`):

* ``complete-star`` (:func:`bench_dataset`): per query one winner above a few
  losers, so each order is a complete bipartite star (the closed form).
* ``sparse``: per query 4 winners and 6 losers, sentences ``[a, b, q]``
  pairing them sparsely (not complete bipartite: the max-flow path).
* ``many-optimal``: per query up to 8 winners and 12 losers, sentences
  ``[a, b_1, ..., b_k, q]`` with ``k <= 3``.
* ``prefix-closed``: :func:`random_realizable_dataset` (Assumptions 1-3 and
  the Section 3 prefix convention, sentences up to 8 tokens), aiming at
  ``8 |V|`` samples.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.data import Dataset, Sample

__all__ = ["bench_dataset", "solver_dataset", "SOLVER_KINDS", "random_realizable_dataset", "scale_arrays"]


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


SOLVER_KINDS = ("complete-star", "sparse", "many-optimal", "prefix-closed")


def _names_and_collocation(n_vocab: int) -> tuple[list[str], list[Sample]]:
    names = [f"t{i}" for i in range(n_vocab)]
    return names, [Sample((names[i],), names[(i + 1) % n_vocab]) for i in range(n_vocab)]


def _winners_losers(n_vocab: int, seed: int, many: bool) -> list[Sample]:
    rng = np.random.default_rng(seed)
    names, samples = _names_and_collocation(n_vocab)
    for q in range(n_vocab):
        others = rng.permutation(np.delete(np.arange(n_vocab), q))
        n_o, n_n = (int(rng.integers(1, 9)), int(rng.integers(1, 13))) if many else (4, 6)
        n_o, n_n = min(n_o, len(others)), min(n_n, max(1, len(others) - n_o + 1))
        win, lose = others[:n_o], others[n_o:n_o + n_n - 1]
        for k in range(2 * max(n_o, n_n)):
            a = int(win[k % n_o] if k < n_o else win[rng.integers(n_o)])
            nb = int(rng.integers(1, 4)) if many else 1
            bs = rng.choice(lose, size=min(nb, len(lose)), replace=False).tolist() if len(lose) else []
            samples.append(Sample(tuple(names[i] for i in [a, *bs, q]), names[(a + 1) % n_vocab]))
    return samples


def solver_dataset(kind: str, n_vocab: int, seed: int = 0) -> Dataset:
    """A realizable dataset of one of the :data:`SOLVER_KINDS` (see the module docstring).

    Examples
    --------
    >>> from ntpcheck import analyse, check_all
    >>> ds = solver_dataset("prefix-closed", 12)
    >>> {k: r.holds for k, r in check_all(analyse(ds)).items()}
    {'1i': True, '1ii': True, '2': True, '3': True, 'prefix': True, 'realizable': True}
    """
    if kind not in SOLVER_KINDS:
        raise ValueError(f"unknown data kind {kind!r}; choose from {', '.join(SOLVER_KINDS)}")
    if n_vocab < 8:
        raise ValueError(f"n_vocab must be at least 8, got {n_vocab}")
    if kind == "complete-star":
        return bench_dataset(n_vocab, seed=seed)
    if kind == "prefix-closed":
        return random_realizable_dataset(n_vocab, 8 * n_vocab, max_len=8, seed=seed, approximate=True)
    samples = _winners_losers(n_vocab, seed, kind == "many-optimal")
    return Dataset.from_samples(samples, vocab=[f"t{i}" for i in range(n_vocab)], name=f"{kind}-{n_vocab}")


def random_realizable_dataset(n_vocab: int = 20, n_samples: int = 90, max_len: int = 8, seed: int = 0, *,
                              approximate: bool = False) -> Dataset:
    """A random prefix-closed dataset satisfying Assumptions 1-3, of about ``n_samples`` samples.

    The same construction as :func:`strategies.realizable_datasets`
    (:class:`ntpcheck.transformer.construct.DatasetBuilder`), driven by a seeded RNG
    rather than Hypothesis, so that the paper's Section 7 scale (|V| = 20,
    ~90 samples) is reached at once.  Vocabulary ``A ... T`` (padded to ``n_vocab``).

    Assumptions 1-3 cap how many samples a vocabulary can carry; when 400
    attempts in a row add none, the dataset reached so far is returned, with a
    :class:`UserWarning` naming its size if that is below 90% of ``n_samples``,
    unless ``approximate`` says that any size near it will do (the Section 7
    setups ask for "about 90" and reach 70-85).
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
    if not approximate and b.n_samples < 0.9 * n_samples:
        import warnings

        warnings.warn(f"random_realizable_dataset: reached {b.n_samples} of the {n_samples} samples asked for "
                      f"(|V| = {n_vocab}, max_len = {max_len}: Assumptions 1-3 admit no more from this start)", UserWarning, stacklevel=2)
    return b.dataset(n_vocab)


def scale_arrays(n_vocab: int = 1000, n_samples: int = 10_000, l_max: int = 16, seed: int = 0):
    """Padded sample arrays at scale, for timing one training step (not a checked dataset).

    Sentences of lengths 2..l_max over ``n_vocab`` tokens; the next token is
    ``n(x_1) = x_1 + 1 mod |V|``, so ``I(n)`` is non-empty; uniform frequencies.
    """
    from ntpcheck.common.data import SampleArrays

    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, l_max + 1, size=n_samples)
    tokens = rng.integers(0, n_vocab, size=(n_samples, l_max))
    mask = np.arange(l_max)[None, :] < lengths[:, None]
    tokens = np.where(mask, tokens, 0)
    query = tokens[np.arange(n_samples), lengths - 1]
    target = (tokens[:, 0] + 1) % n_vocab
    pi = np.full(n_samples, 1.0 / n_samples)
    return SampleArrays(tokens, mask, lengths, query, target, pi, n_vocab)
