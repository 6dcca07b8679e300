"""Collocation, query-dependent partial orders and token roles (Section 4.1).

Definitions implemented
-----------------------
* **Collocation** ``n``: from the one-token samples ``([x], y)``, ``n(x) = y``.
  It may be partial (a token with no one-token sample has no next token, as
  the review thread allows).  A one-token sentence with two next tokens, or
  two tokens with one next token, are *conflicts* (Assumption 1(i) fails);
  the first next token seen is kept so that the rest can still be analysed.
* **Definition 1** (x^q-partial order): ``x >_q x'`` if some sample with
  query ``q`` contains ``x`` and ``x'`` and ``n(x) = next != n(x')`` (an
  undefined ``n(x')`` counts as different).  Each order is a
  :class:`networkx.DiGraph` on the vocabulary with an edge ``x -> x'`` for
  every generating relation, annotated with the witnessing samples.
* **Roles** under ``q``: *optimal* (nothing above, something below),
  *non-optimal* (nothing below, something above), *confused* (both),
  *non-comparable* (neither).
* **Optimal positions** ``I(n)``: the positions ``l`` of sample ``n`` with
  ``n(x_l) = n(X^(n))``.  Eq. (3) uses them.

No assumption is required: everything here is defined on any dataset, and
:mod:`ntpcheck.transformer.assumptions` reports what fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Mapping

import numpy as np

from ntpcheck.common.data import Dataset

if TYPE_CHECKING:  # networkx (0.1 s to import) is imported where the orders are built
    import networkx as nx

__all__ = ["Role", "Collocation", "Structure", "collocation", "partial_orders", "roles", "analyse", "may_have_cycle", "as_structure", "theorem3_sentences"]


class Role(str, Enum):
    """The four disjoint token types under a query (Section 4.1)."""

    OPTIMAL = "optimal"
    NON_OPTIMAL = "non-optimal"
    NON_COMPARABLE = "non-comparable"
    CONFUSED = "confused"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Collocation:
    """The collocation ``n`` read off the one-token samples.

    Attributes
    ----------
    mapping : dict
        ``token -> next token`` (first seen, when a token has several).
    multiple_next : dict
        ``token -> all its next tokens`` where there are two or more
        (``n`` is not a function).
    shared_next : dict
        ``next token -> the tokens mapped to it`` where there are two or more
        (``n`` is not injective).
    """

    mapping: Mapping[str, str]
    multiple_next: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    shared_next: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __call__(self, token: str) -> str | None:
        return self.mapping.get(token)

    @property
    def is_valid(self) -> bool:
        """A function that is injective: Assumption 1(i) up to realizability."""
        return not self.multiple_next and not self.shared_next


def collocation(dataset: Dataset) -> Collocation:
    """Read the collocation from the one-token samples of ``dataset`` (found from
    :attr:`Dataset.sentence_lengths`)."""
    nexts: dict[str, list[str]] = {}
    samples = dataset.samples
    for k in np.flatnonzero(dataset.sentence_lengths == 1).tolist():
        s = samples[k]
        lst = nexts.setdefault(s.sentence[0], [])
        if s.next not in lst:
            lst.append(s.next)
    mapping = {x: ys[0] for x, ys in nexts.items()}
    multiple = {x: tuple(ys) for x, ys in nexts.items() if len(ys) > 1}
    preimages: dict[str, list[str]] = {}
    for x in dataset.vocab:
        if x in mapping:
            preimages.setdefault(mapping[x], []).append(x)
    shared = {y: tuple(xs) for y, xs in preimages.items() if len(xs) > 1}
    return Collocation(mapping, multiple, shared)


def partial_orders(dataset: Dataset, coll: Collocation) -> dict[str, nx.DiGraph]:
    """The x^q-partial orders of Definition 1, one DiGraph per query.

    Every query that ends some sample gets a graph whose nodes are the whole
    vocabulary; an edge ``x -> x'`` means ``x >_q x'`` and carries the
    attribute ``samples``: indices of the samples that witness it.
    """
    import networkx as nx

    queries = {s.query for s in dataset.samples}
    orders: dict[str, nx.DiGraph] = {}
    for q in dataset.vocab:
        if q in queries:
            g = nx.DiGraph(query=q)
            g.add_nodes_from(dataset.vocab)
            orders[q] = g
    for k, s in enumerate(dataset.samples):
        g = orders[s.query]
        tokens = list(dict.fromkeys(s.sentence))
        above = [x for x in tokens if coll(x) == s.next]
        below = [x for x in tokens if coll(x) != s.next]
        for x in above:
            for y in below:
                if g.has_edge(x, y):
                    g[x][y]["samples"].append(k)
                else:
                    g.add_edge(x, y, samples=[k])
    return orders


def roles(order: nx.DiGraph) -> dict[str, Role]:
    """Role of every token (node) under one query's order."""
    out = {}
    for x in order.nodes:
        up, down = order.in_degree(x) > 0, order.out_degree(x) > 0
        if up and down:
            out[x] = Role.CONFUSED
        elif down:
            out[x] = Role.OPTIMAL
        elif up:
            out[x] = Role.NON_OPTIMAL
        else:
            out[x] = Role.NON_COMPARABLE
    return out


@dataclass(frozen=True, eq=False)
class Structure:
    """Everything Section 4.1 derives from a dataset, computed once and lazily.

    The index arrays (:attr:`next_index`, :attr:`n_optimal`,
    :attr:`eq3_index`, :attr:`role_codes`) are computed in compiled passes over
    the samples' ragged form (:attr:`ragged`: a sequence line is stored once, not
    as its L^2/2 prefix tokens); :attr:`optimal_mask` is over the padded arrays
    (for training); the networkx orders (:attr:`orders`, with the witnessing
    samples on each edge) and the name-keyed views are built only when asked
    for.  Use :func:`analyse` to build it.
    """

    dataset: Dataset
    collocation: Collocation

    @cached_property
    def next_index(self) -> np.ndarray:
        """``n(x)`` as an index array over the vocabulary (-1 where undefined)."""
        src, tgt = self.collocation_index
        out = np.full(self.dataset.n_vocab, -1, dtype=np.int64)
        out[src] = tgt
        return out

    @cached_property
    def ragged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(flat, start, lengths, target, nxt)``: the samples in the ragged form of
        :mod:`ntpcheck.transformer.kernels.roles` (sentence ``n`` is ``flat[start[n] : start[n] + lengths[n]]``,
        its next token ``target[n]``) and ``nxt`` = :attr:`next_index`."""
        ds = self.dataset
        return ds.chain_indices, ds.sample_starts, ds.sentence_lengths, ds.target_indices, self.next_index

    @cached_property
    def n_optimal(self) -> np.ndarray:
        """``(N,)``: ``|I(n)|``, the number of optimal positions of each sample
        (:func:`ntpcheck.transformer.roles.optimal_counts`: numpy for small data, compiled for large)."""
        from .roles import optimal_counts

        return optimal_counts(*self.ragged)

    @cached_property
    def optimal_mask(self) -> np.ndarray:
        """``(N, L_max)`` bool: position ``l`` of sample ``n`` is in ``I(n)``."""
        arr = self.dataset.arrays
        out = np.empty(arr.tokens.shape, dtype=bool)
        step = max(1, 2**16 // max(1, arr.tokens.shape[1]))  # row blocks: no N x L_max int64 temporary
        for i in range(0, len(out), step):
            sl = slice(i, i + step)
            np.logical_and(arr.mask[sl], self.next_index[arr.tokens[sl]] == arr.target[sl, None], out=out[sl])
        return out

    @cached_property
    def non_optimal_mask(self) -> np.ndarray:
        """``(N, L_max)`` bool: the positions ``l' not in I(n)`` of samples with ``I(n)`` non-empty
        (the non-optimal side of Eq. (3))."""
        opt = self.optimal_mask
        return self.dataset.arrays.mask & ~opt & opt.any(axis=1)[:, None]

    @cached_property
    def optimal(self) -> tuple[tuple[int, ...], ...]:
        """``I(n)`` for every sample: the 0-based positions ``l`` with ``n(x_l) = next``."""
        n, l = np.nonzero(self.optimal_mask)
        cuts = np.searchsorted(n, np.arange(1, self.dataset.n_samples))
        return tuple(tuple(int(x) for x in part) for part in np.split(l, cuts))

    @cached_property
    def orders(self) -> Mapping[str, nx.DiGraph]:
        """The x^q-partial orders of Definition 1 (networkx, with witnesses; built on first use)."""
        return partial_orders(self.dataset, self.collocation)

    @cached_property
    def query_row(self) -> np.ndarray:
        """``(V,)``: the row of each query in :attr:`queries` (and :attr:`role_codes`), -1 for other tokens."""
        row = np.full(self.dataset.n_vocab, -1, dtype=np.int64)
        row[self.dataset.query_indices] = 0
        used = np.flatnonzero(row == 0)
        row[used] = np.arange(len(used))
        return row

    @cached_property
    def queries(self) -> tuple[str, ...]:
        """The tokens that end some sample, in vocabulary order (the keys of :attr:`orders`)."""
        return tuple(self.dataset.vocab[i] for i in np.flatnonzero(self.query_row >= 0))

    @cached_property
    def eq3_index(self) -> tuple:
        """Distinct constraints of Eq. (3) as index arrays ``(optimal, non-optimal, query)``.

        One triple per ``n``, ``l in I(n)``, ``l' not in I(n)``, duplicates
        removed (the constraint depends only on the tokens), in order of first
        occurrence (sample, then ``l``, then ``l'``)
        (:func:`ntpcheck.transformer.roles.eq3_triples`: numpy for small data, compiled for large).  These are also the
        edges ``x_l >_q x_l'`` of the orders of Definition 1.
        """
        from .roles import eq3_triples

        return eq3_triples(*self.ragged, self.n_optimal, self.dataset.query_indices, self.dataset.n_vocab)

    @cached_property
    def eq3_pairs(self) -> tuple[tuple[str, str, str], ...]:
        """:attr:`eq3_index` as names ``(optimal x_l, non-optimal x_l', query)``."""
        v = self.dataset.vocab
        a, b, q = self.eq3_index
        return tuple(zip([v[i] for i in a], [v[i] for i in b], [v[i] for i in q]))

    @cached_property
    def order_edges(self) -> dict[str, list[tuple[str, str]]]:
        """``query -> [(a, b), ...]``: the relations ``a >_q b`` of every query's order
        (Definition 1), from :attr:`eq3_index` without building graphs, listed as
        ``orders[q].edges`` lists them (by ``a`` in vocabulary order, then first witness)."""
        v = self.dataset.vocab
        a, b, q = self.eq3_index
        order = np.lexsort((a, q))  # stable: ties keep the order of first occurrence
        a, b, q = a[order], b[order], q[order]
        out: dict[str, list[tuple[str, str]]] = {x: [] for x in self.queries}
        cuts = np.flatnonzero(np.diff(q)) + 1
        for qa, qb, qq in zip(np.split(a, cuts), np.split(b, cuts), np.split(q, cuts)):
            if len(qq):
                out[v[qq[0]]] = [(v[i], v[j]) for i, j in zip(qa.tolist(), qb.tolist())]
        return out

    @cached_property
    def role_codes(self) -> np.ndarray:
        """``(Q, V)`` role codes (0 non-comparable, 1 optimal, 2 non-optimal, 3 confused), rows :attr:`queries`.

        The two ends of the pairs of :attr:`eq3_index`, without listing the pairs: a token is
        optimal (1) at an optimal position of a sample with a non-optimal one, and non-optimal
        (2) at a non-optimal position of a sample with an optimal one
        (:func:`ntpcheck.transformer.roles.role_codes`: numpy for small data, compiled for large).
        """
        from .roles import role_codes

        return role_codes(*self.ragged, self.n_optimal, self.dataset.query_indices, self.query_row, len(self.queries),
                          self.dataset.n_vocab)

    @cached_property
    def roles(self) -> dict[str, dict[str, Role]]:
        """``query -> token -> Role``."""
        table = (Role.NON_COMPARABLE, Role.OPTIMAL, Role.NON_OPTIMAL, Role.CONFUSED)
        vocab = self.dataset.vocab
        return {q: dict(zip(vocab, (table[c] for c in row))) for q, row in zip(self.queries, self.role_codes)}

    @cached_property
    def has_confused(self) -> bool:
        """Whether some token is confused under some query (then Assumption 1(ii) fails)."""
        return bool(self.role_codes.max(initial=0) == 3)  # codes are 0-3: no |V|^2 temporary

    @cached_property
    def confused(self) -> dict[str, list[str]]:
        """``query -> confused tokens`` (both above and below some token), in vocabulary order."""
        vocab = self.dataset.vocab
        return {q: [vocab[i] for i in np.flatnonzero(row == 3)] for q, row in zip(self.queries, self.role_codes)}

    @cached_property
    def collocation_index(self) -> tuple:
        """The collocation as index arrays ``(source, target)``."""
        idx = self.dataset.index
        m = self.collocation.mapping
        return (np.fromiter((idx[x] for x in m), dtype=np.int64, count=len(m)),
                np.fromiter((idx[y] for y in m.values()), dtype=np.int64, count=len(m)))


def theorem3_sentences(st: "Structure") -> list[tuple[str, list[str], str]]:
    """Theorem 3's unseen sentences: ``(query, sentence, expected next token)``.

    For each query ``q`` that is non-optimal under its own order and each
    non-comparable ``x_0`` with a collocation: ``[x_0, q]`` and
    ``[x_0, (other non-optimal tokens), q]``; expected ``n(x_0)``.
    """
    out = []
    for q, rr in st.roles.items():
        if rr.get(q) is not Role.NON_OPTIMAL:
            continue
        non = [x for x, r in rr.items() if r is Role.NON_OPTIMAL and x != q]
        for x0, r in rr.items():
            if r is Role.NON_COMPARABLE and st.collocation(x0) is not None:
                out.append((q, [x0, q], st.collocation(x0)))
                if non:
                    out.append((q, [x0, *non, q], st.collocation(x0)))
    return out


def may_have_cycle(order: nx.DiGraph) -> bool:
    """False when no token is both above and below another (then no cycle is possible)."""
    heads = {a for a, _ in order.edges}
    tails = {b for _, b in order.edges}
    return bool(heads & tails)


def analyse(dataset: Dataset) -> Structure:
    """Compute collocation, orders and optimal positions of ``dataset``.

    Examples
    --------
    >>> import ntpcheck
    >>> st = analyse(ntpcheck.load("example1"))
    >>> dict(st.collocation.mapping)
    {'S': 'V', 'V': 'O', 'O': 'P', 'P': 'S'}
    >>> sorted(st.orders["O"].edges)            # under query O: O > S and O > V
    [('O', 'S'), ('O', 'V')]
    """
    return Structure(dataset, collocation(dataset))


def as_structure(dataset: Dataset | Structure) -> Structure:
    """A :class:`Structure` from a dataset or a structure (normalise once, at the door)."""
    return dataset if isinstance(dataset, Structure) else analyse(dataset)
