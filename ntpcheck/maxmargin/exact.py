"""Exact solvers for Eq. (2) and Eq. (3) under Assumption 2, with KKT certificates.

With orthonormal embeddings both problems split by query column.

Eq. (2): each column ``w = W x`` solves ``min ||w||^2, w_y - w_v >= 1`` and the
solution is ``e_y - 1/|V|`` with multipliers ``1/|V|`` (closed form).

Eq. (3): for a query ``q`` write ``u_x = x^T W q``; the column problem is
``min sum u^2 s.t. u_a - u_b >= 1`` over the comparable pairs ``a >_q b``.
Under Assumption 1(ii) the pairs form a bipartite order (optimal tokens above
non-optimal ones).  With ``v_b = u_b + 1`` it becomes L2 isotonic regression
on that order with targets 0 (optimal) and 1 (non-optimal), solved exactly by
recursive partitioning: at the mean ``m`` of a set, the optimal upper set of
the closure problem ``max sum_{x in U} (y_x - m)`` (a min cut) splits it;
a set that does not split is a *block* whose optimal tokens take
``|N_B|/|B|`` and non-optimal tokens ``|N_B|/|B| - 1``.  Components that are
complete bipartite are one block immediately.  Multipliers: in each block a
max flow sends ``u_a`` out of every optimal token and ``-u_b`` into every
non-optimal one along the block's (tight) pairs; pairs between blocks get 0.

Assumptions: Assumption 2 (else :class:`~ntpcheck.errors.EmbeddingError`)
and Assumption 1(ii) without confused tokens (else
:class:`~ntpcheck.errors.AssumptionViolatedError`; use a cvxpy solver).
"""

from __future__ import annotations

import time

import networkx as nx
import numpy as np

import scipy.sparse as sp

from ..embeddings import as_embeddings, is_canonical, require_orthonormal
from ..errors import AssumptionViolatedError
from ..structure import Structure, as_structure
from .closed_form import check_eq2_closed_form, eq2_matrix
from .kkt import KKTResiduals, kkt_residuals
from .problems import MaxMarginProblem, MaxMarginSolution, build_eq2, build_eq3, raise_if_cyclic

__all__ = ["solve_eq2_exact", "solve_eq3_exact", "eq3_values", "isotonic_blocks", "column_solution"]

_INF = float("inf")


def _max_closure(nodes_o, nodes_n, edges, m):
    """Upper set maximising ``sum (y - m)`` (y = 0 on O, 1 on N) and its weight."""
    g = nx.DiGraph()
    g.add_node("s")
    g.add_node("t")
    for b in nodes_n:
        g.add_edge("s", ("n", b), capacity=1.0 - m)
    for a in nodes_o:
        g.add_edge(("o", a), "t", capacity=m)
    for a, b in edges:
        g.add_edge(("n", b), ("o", a), capacity=_INF)
    cut, (S, _) = nx.minimum_cut(g, "s", "t")
    weight = len(nodes_n) * (1.0 - m) - cut
    U_o = {x[1] for x in S if isinstance(x, tuple) and x[0] == "o"}
    U_n = {x[1] for x in S if isinstance(x, tuple) and x[0] == "n"}
    return U_o, U_n, weight


def isotonic_blocks(O: set, N: set, edges: list[tuple]) -> list[tuple[set, set]]:
    """Blocks ``(O_B, N_B)`` of the bipartite problem (see module docstring)."""
    if not O and not N:
        return []
    if not edges:
        return [({a}, set()) for a in O] + [(set(), {b}) for b in N]
    if len(edges) == len(O) * len(N):  # complete bipartite: one block
        return [(set(O), set(N))]
    m = len(N) / (len(O) + len(N))
    U_o, U_n, w = _max_closure(O, N, edges, m)
    # Exact weights are multiples of 1/(|O|+|N|); below half of that is zero.
    if w <= 0.5 / (len(O) + len(N)) or (U_o == O and U_n == N) or not (U_o or U_n):
        return [(set(O), set(N))]
    rest_o, rest_n = O - U_o, N - U_n
    eu = [(a, b) for a, b in edges if a in U_o and b in U_n]
    er = [(a, b) for a, b in edges if a in rest_o and b in rest_n]
    return isotonic_blocks(U_o, U_n, eu) + isotonic_blocks(rest_o, rest_n, er)


def column_solution(O: set, N: set, edges: list[tuple]) -> tuple[dict, dict]:
    """Values ``u_x`` and multipliers ``lambda_(a,b)`` of one query column."""
    u: dict = {}
    lam: dict = {e: 0.0 for e in edges}
    g = nx.Graph()
    g.add_nodes_from([("o", a) for a in O] + [("n", b) for b in N])
    g.add_edges_from((("o", a), ("n", b)) for a, b in edges)
    for comp in nx.connected_components(g):
        co = {x[1] for x in comp if x[0] == "o"}
        cn = {x[1] for x in comp if x[0] == "n"}
        ce = [(a, b) for a, b in edges if a in co]
        for bo, bn in isotonic_blocks(co, cn, ce):
            c = len(bn) / (len(bo) + len(bn)) if (bo or bn) else 0.0
            for a in bo:
                u[a] = c
            for b in bn:
                u[b] = c - 1.0
            be = [(a, b) for a, b in ce if a in bo and b in bn]
            if bo and bn:
                f = nx.DiGraph()
                for a in bo:
                    f.add_edge("s", ("o", a), capacity=c)
                for b in bn:
                    f.add_edge(("n", b), "t", capacity=1.0 - c)
                for a, b in be:
                    f.add_edge(("o", a), ("n", b), capacity=_INF)
                _, flow = nx.maximum_flow(f, "s", "t")
                for a, b in be:
                    lam[(a, b)] = float(flow[("o", a)].get(("n", b), 0.0))
    return u, lam


def _require(st: Structure, E: np.ndarray, what: str) -> None:
    if not is_canonical(E):
        require_orthonormal(E, what)
    raise_if_cyclic(st)  # a cycle is infeasible; say so before calling it confusion
    for q, conf in st.confused.items():
        if conf:
            raise AssumptionViolatedError(
                f"{what} needs a bipartite order (Assumption 1(ii)), but under query {q} "
                f"{', '.join(conf)} are confused; use a cvxpy solver (--solver CLARABEL)"
            )


def eq3_values(st: Structure) -> tuple[np.ndarray, dict]:
    """``U[x, q] = x^T W*_kq q`` and the multipliers of :attr:`Structure.eq3_pairs`, exactly.

    Vectorised over all queries: the nodes are (token, query) pairs, the
    components of the comparability graph are found in one sparse pass, and
    complete bipartite components (the common case) get their values
    ``|N|/(|O|+|N|)`` and multipliers ``1/(|O|+|N|)`` in closed form; only
    the other components go through the min-cut decomposition.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    V = st.dataset.n_vocab
    idx = st.dataset.index
    U = np.zeros((V, V))
    pairs = st.eq3_pairs
    lam = np.zeros(len(pairs))
    if not pairs:
        return U, lam
    a, b, q = st.eq3_index
    keys, inv = np.unique(np.concatenate([q * V + a, q * V + b]), return_inverse=True)
    K = len(pairs)
    ia, ib = inv[:K], inv[K:]
    n = len(keys)
    g = coo_matrix((np.ones(K), (ia, ib)), shape=(n, n))
    ncomp, label = connected_components(g, directed=False)
    is_o = np.zeros(n, dtype=bool)
    is_o[ia] = True
    nO = np.bincount(label[is_o], minlength=ncomp)
    nN = np.bincount(label[~is_o], minlength=ncomp)
    nE = np.bincount(label[ia], minlength=ncomp)
    complete = nE == nO * nN
    c = nN / np.maximum(nO + nN, 1)
    val = np.where(is_o, c[label], c[label] - 1.0)
    tok, qq = keys % V, keys // V
    ok = complete[label]
    U[tok[ok], qq[ok]] = val[ok]
    lam[:] = 1.0 / (nO + nN)[label[ia]]
    # The rest: components that are not complete bipartite.
    for comp in np.flatnonzero(~complete):
        ks = np.flatnonzero(label[ia] == comp)
        qn = pairs[ks[0]][2]
        edges = [(pairs[k][0], pairs[k][1]) for k in ks]
        u, lm = column_solution({e[0] for e in edges}, {e[1] for e in edges}, edges)
        for x, v in u.items():
            U[idx[x], idx[qn]] = v
        for k, e in zip(ks, edges):
            lam[k] = lm[e]
    return U, lam


def solve_eq3_exact(dataset, embeddings: np.ndarray | None = None, certify: bool = True, validate: bool = True) -> MaxMarginSolution:
    """Exact ``W*_kq`` with its multipliers and KKT residuals (Assumptions 1(ii) and 2).

    ``seconds`` times the solve alone; the certificate (building the
    constraint rows and the residuals) is computed afterwards, unless
    ``certify=False`` (then the residuals are NaN).  ``validate=False`` skips
    the assumption checks (for benchmarks that validated once already).
    """
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    if validate:
        _require(st, E, "the exact Eq. (3) solver")
    st.eq3_index  # problem data, like the constraint rows cvxpy gets prebuilt
    t0 = time.perf_counter()
    U, lam = eq3_values(st)
    W = U if is_canonical(E) else E @ U @ E.T
    seconds = time.perf_counter() - t0
    # build_eq3 labels its rows by st.eq3_pairs, in the same order as lam
    return _certified(build_eq3, st, E, W, lambda labels: lam, seconds, certify)


def _certified(build, st, E, W, multipliers, seconds, certify):
    if not certify:
        nan = float("nan")
        prob = MaxMarginProblem("(not built)", sp.csr_matrix((0, W.size)), W.shape, ())
        return MaxMarginSolution(prob, W, np.zeros(0), KKTResiduals(nan, nan, nan, nan), "exact", seconds)
    problem = build(st, E)
    lam = multipliers(problem.labels)
    return MaxMarginSolution(problem, W, lam, kkt_residuals(problem.R, W.ravel(), lam), "exact", seconds)


def solve_eq2_exact(dataset, embeddings: np.ndarray | None = None, certify: bool = True) -> MaxMarginSolution:
    """``W*_ov`` in closed form with multipliers ``1/|V|`` (Assumption 2)."""
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    check_eq2_closed_form(st, E)
    st.collocation_index  # problem data
    canonical = is_canonical(E)
    t0 = time.perf_counter()
    W = eq2_matrix(st, E, canonical)
    seconds = time.perf_counter() - t0
    V = st.dataset.n_vocab
    return _certified(build_eq2, st, E, W, lambda labels: np.full(len(labels), 1.0 / V), seconds, certify)
