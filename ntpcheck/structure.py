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
:mod:`ntpcheck.assumptions` reports what fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Mapping

import networkx as nx

from .data import Dataset

__all__ = ["Role", "Collocation", "Structure", "collocation", "partial_orders", "roles", "analyse", "may_have_cycle", "theorem3_sentences"]


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
    """Read the collocation from the one-token samples of ``dataset``."""
    nexts: dict[str, list[str]] = {}
    for s in dataset.samples:
        if len(s.sentence) == 1:
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


def optimal_positions(dataset: Dataset, coll: Collocation) -> tuple[tuple[int, ...], ...]:
    """``I(n)`` for every sample: the 0-based positions ``l`` with ``n(x_l) = next``."""
    return tuple(
        tuple(l for l, x in enumerate(s.sentence) if coll(x) == s.next) for s in dataset.samples
    )


def partial_orders(dataset: Dataset, coll: Collocation) -> dict[str, nx.DiGraph]:
    """The x^q-partial orders of Definition 1, one DiGraph per query.

    Every query that ends some sample gets a graph whose nodes are the whole
    vocabulary; an edge ``x -> x'`` means ``x >_q x'`` and carries the
    attribute ``samples``: indices of the samples that witness it.
    """
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
    """Everything Section 4.1 derives from a dataset, computed once.

    Use :func:`analyse` to build it.
    """

    dataset: Dataset
    collocation: Collocation
    orders: Mapping[str, nx.DiGraph]
    optimal: tuple[tuple[int, ...], ...]

    @cached_property
    def roles(self) -> dict[str, dict[str, Role]]:
        """``query -> token -> Role``."""
        return {q: roles(g) for q, g in self.orders.items()}

    @cached_property
    def confused(self) -> dict[str, list[str]]:
        """``query -> confused tokens`` (only a token both above and below can be one)."""
        out = {}
        for q, g in self.orders.items():
            heads = {a for a, _ in g.edges}
            out[q] = sorted(heads & {b for _, b in g.edges}, key=self.dataset.index.get)
        return out

    @cached_property
    def eq3_pairs(self) -> tuple[tuple[str, str, str], ...]:
        """Distinct constraints of Eq. (3) as ``(optimal x_l, non-optimal x_l', query)``.

        One triple per ``n``, ``l in I(n)``, ``l' not in I(n)``, with
        duplicates removed (the constraint depends only on the tokens).
        Samples with empty ``I(n)`` contribute nothing.
        """
        seen: dict[tuple[str, str, str], None] = {}
        for s, pos in zip(self.dataset.samples, self.optimal):
            if not pos:
                continue
            opt = [s.sentence[l] for l in pos]
            non = [x for l, x in enumerate(s.sentence) if l not in pos]
            for a in dict.fromkeys(opt):
                for b in dict.fromkeys(non):
                    seen.setdefault((a, b, s.query), None)
        return tuple(seen)

    @cached_property
    def collocation_index(self) -> tuple:
        """The collocation as index arrays ``(source, target)``."""
        import numpy as np

        idx = self.dataset.index
        m = self.collocation.mapping
        return (np.fromiter((idx[x] for x in m), dtype=np.int64, count=len(m)),
                np.fromiter((idx[y] for y in m.values()), dtype=np.int64, count=len(m)))

    @cached_property
    def eq3_index(self) -> tuple:
        """:attr:`eq3_pairs` as three index arrays ``(optimal, non-optimal, query)``."""
        import numpy as np

        idx = self.dataset.index
        p = self.eq3_pairs
        return tuple(np.fromiter((idx[t[k]] for t in p), dtype=np.int64, count=len(p)) for k in range(3))


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
    coll = collocation(dataset)
    return Structure(dataset, coll, partial_orders(dataset, coll), optimal_positions(dataset, coll))


def as_structure(dataset: Dataset | Structure) -> Structure:
    """A :class:`Structure` from a dataset or a structure (normalise once, at the door)."""
    return dataset if isinstance(dataset, Structure) else analyse(dataset)
