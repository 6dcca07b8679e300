"""Token-priority graphs, their strongly connected components, and the Graph-SVM's constraints.

For each query token ``q`` the **token-priority graph** ``G^(q)`` has an edge ``y -> j`` for every
sample with query ``q``, next token ``y`` and a token ``j != y`` of its sequence (the label has
priority over every other token it was seen with).  This is the graph the authors' code builds
(``nxt_token_solver.Tarjan.initialize``: edges from the label ``C_alpha[i]`` to the other tokens of
sequence ``i``, for the samples whose last token is ``q``); its SCCs come from networkx here
(Tarjan's algorithm there).

The Graph-SVM's constraints are one per distinct edge ``(y, j, q)``, as in the authors' code
(``W_svm_solver_cvxpy``): ``(x_y - x_j)^T W z_q = 0`` when ``y`` and ``j`` are in one SCC of
``G^(q)``, ``(x_y - x_j)^T W z_q >= 1`` otherwise.  Along a path of edges across components
these add up, so every pair ``i => j`` (``j`` reachable from ``i`` in another component) gets
``(x_i - x_j)^T W z_q >= 1`` too: the edge form and the all-pairs form have the same feasible set.

The **within-component subspace** ``S_fin`` is spanned by ``(x_i - x_j) z_q^T`` for ``i, j`` in one
SCC of ``G^(q)``: it is the row space of the equality constraints (an SCC's internal edges connect
it), so ``W^svm`` is orthogonal to it.  The authors' ``utils.cal_Sfin`` spans it by
``(x_k - mean_C x) z_q^T``, ``k`` in the label's SCC ``C``: the same subspace.

Examples
--------
>>> import numpy as np
>>> from .data import SequenceData
>>> D = SequenceData(("A", "B", "C"), np.eye(3), (((0, 1, 2), 0, 1.0), ((1, 0, 2), 1, 1.0)))
>>> components(D)[2]
{0: 0, 1: 0, 2: 1}
>>> c = constraints(D)
>>> c.equalities, c.inequalities
(((0, 1, 2), (1, 0, 2)), ((0, 2, 2), (1, 2, 2)))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import networkx as nx
import numpy as np

from .data import SequenceData

__all__ = ["priority_graphs", "components", "Constraints", "constraints", "acyclic", "within_basis", "reduced_samples"]


def priority_graphs(D: SequenceData) -> dict[int, nx.DiGraph]:
    """``G^(q)`` for every query ``q`` (module docstring); nodes are the tokens of its sequences."""
    graphs: dict[int, nx.DiGraph] = {}
    for tokens, y, _ in D.samples:
        g = graphs.setdefault(tokens[-1], nx.DiGraph())
        g.add_nodes_from(tokens)
        g.add_edges_from((y, j) for j in tokens if j != y)
    return graphs


def components(D: SequenceData) -> dict[int, dict[int, int]]:
    """Per query, token -> index of its SCC in ``G^(q)``, numbered in a topological order of the
    condensation (0 holds the highest priority)."""
    out = {}
    for q, g in priority_graphs(D).items():
        cond = nx.condensation(g)
        order = {c: k for k, c in enumerate(nx.topological_sort(cond))}
        out[q] = {int(v): order[c] for v, c in sorted(cond.graph["mapping"].items())}
    return out


def acyclic(D: SequenceData) -> bool:
    """Whether every SCC of every ``G^(q)`` is a single token."""
    return all(len(set(c.values())) == len(c) for c in components(D).values())


@dataclass(frozen=True)
class Constraints:
    """The Graph-SVM's constraints as ``(y, j, q)`` triples and as rows acting on ``vec(W)`` (row-major):
    ``A_eq vec(W) = 0``, ``A_in vec(W) >= 1``, row ``vec((x_y - x_j) z_q^T)``."""

    E: np.ndarray
    equalities: tuple[tuple[int, int, int], ...]
    inequalities: tuple[tuple[int, int, int], ...]

    def rows(self, triples) -> np.ndarray:
        E, d = self.E, self.E.shape[0]
        return np.array([np.outer(E[:, a] - E[:, b], E[:, q]).ravel() for a, b, q in triples]).reshape(-1, d * d)

    @cached_property
    def A_eq(self) -> np.ndarray:
        return self.rows(self.equalities)

    @cached_property
    def A_in(self) -> np.ndarray:
        return self.rows(self.inequalities)


def constraints(D: SequenceData) -> Constraints:
    """The distinct edges of every ``G^(q)``, split by whether they stay inside an SCC."""
    comp = components(D)
    eq, ineq = set(), set()
    for q, g in priority_graphs(D).items():
        for a, b in g.edges:
            (eq if comp[q][a] == comp[q][b] else ineq).add((int(a), int(b), int(q)))
    return Constraints(D.E, tuple(sorted(eq)), tuple(sorted(ineq)))


def within_basis(c: Constraints, rtol: float = 1e-10) -> np.ndarray:
    """An orthonormal basis (rows, over ``vec(W)``) of ``S_fin``, the row space of ``A_eq``."""
    if not len(c.equalities):
        return np.zeros((0, c.E.shape[0] ** 2))
    _, s, vt = np.linalg.svd(c.A_eq, full_matrices=False)
    return vt[s > rtol * s[0] * max(c.A_eq.shape)]


def reduced_samples(D: SequenceData) -> list[tuple[tuple[int, ...], int, float, int]]:
    """Each sample restricted to the tokens of its label's SCC in ``G^(q)`` (the authors'
    ``data_utils.generate_reduced_ds``): the data the finite part ``W_fin`` fits; samples left with
    their label alone are dropped (their loss is 0 on ``S_fin``).  Each is ``(tokens, label, weight,
    query)``: the query stays the original sequence's last token."""
    comp = components(D)
    out = []
    for tokens, y, w in D.samples:
        c = comp[tokens[-1]]
        kept = tuple(t for t in tokens if c[t] == c[y])
        if any(t != y for t in kept):
            out.append((kept, y, w, tokens[-1]))
    return out
