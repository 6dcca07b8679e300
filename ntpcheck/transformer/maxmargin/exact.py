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
All queries are solved together, by integer max-flows (:mod:`.isotonic`),
so the split test is exact.

Assumptions: Assumption 2 (else :class:`~ntpcheck.common.errors.EmbeddingError`)
and Assumption 1(ii) without confused tokens (else
:class:`~ntpcheck.common.errors.AssumptionViolatedError`; use a cvxpy solver).
"""

from __future__ import annotations

import time

import numpy as np

import scipy.sparse as sp

from ..embeddings import as_embeddings, is_canonical, require_orthonormal
from ntpcheck.common.errors import AssumptionViolatedError
from ..structure import Structure, as_structure
from .closed_form import check_eq2_closed_form, eq2_matrix
from ..kernels.eq3 import node_index
from .isotonic import isotonic_bipartite
from ntpcheck.common.qp.kkt import KKTResiduals, kkt_residuals
from .problems import MaxMarginProblem, MaxMarginSolution, build_eq2, build_eq3, raise_if_cyclic

__all__ = ["solve_eq2_exact", "solve_eq3_exact", "eq3_values", "eq3_entries", "column_solution", "require_bipartite"]

def column_solution(O: set, N: set, edges: list[tuple]) -> tuple[dict, dict]:
    """Values ``u_x`` and multipliers ``lambda_(a,b)`` of one query column (by name).

    Examples
    --------
    >>> u, lam = column_solution({"A"}, {"B", "C"}, [("A", "B"), ("A", "C")])
    >>> u["A"], u["B"], lam[("A", "B")]
    (0.6666666666666666, -0.33333333333333337, 0.3333333333333333)
    """
    nodes = list(dict.fromkeys([*O, *N]))
    ix = {x: i for i, x in enumerate(nodes)}
    is_o = np.array([x in O for x in nodes], dtype=bool)
    ia = np.array([ix[a] for a, _ in edges], dtype=np.int64)
    ib = np.array([ix[b] for _, b in edges], dtype=np.int64)
    val, lam = isotonic_bipartite(is_o, ia, ib)
    return {x: float(val[i]) for x, i in ix.items()}, {e: float(v) for e, v in zip(edges, lam)}


def _require(st: Structure, E: np.ndarray, what: str) -> None:
    if not is_canonical(E):
        require_orthonormal(E, what)
    require_bipartite(st, what)


def require_bipartite(st: Structure, what: str) -> None:
    """Raise unless every order is acyclic (:func:`raise_if_cyclic`) and has no confused token."""
    raise_if_cyclic(st)  # a cycle is infeasible; say so before calling it confusion
    if not st.has_confused:
        return
    for q, conf in st.confused.items():
        if conf:
            raise AssumptionViolatedError(
                f"{what} needs a bipartite order (Assumption 1(ii)), but under query {q} "
                f"{', '.join(conf)} are confused; use a cvxpy solver (--solver CLARABEL)"
            )


def eq3_values(st: Structure) -> tuple[np.ndarray, dict]:
    """``U[x, q] = x^T W*_kq q`` and the multipliers of :attr:`Structure.eq3_pairs`, exactly.

    All queries at once: the nodes are (token, query) pairs
    (:func:`ntpcheck.transformer.kernels.eq3.node_index`) and
    :func:`~.isotonic.isotonic_bipartite` solves every column (closed form
    on complete bipartite sets, integer min cuts on the rest).
    """
    V = st.dataset.n_vocab
    U = np.zeros((V, V))
    token, query, val, lam = eq3_entries(st)
    U[token, query] = val
    return U, lam


def eq3_entries(st: Structure) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`eq3_values` without the ``|V| x |V|`` matrix: ``(token, query, value, multipliers)``,
    one value per (token, query) node of the constraints (every other entry of ``U`` is 0)."""
    a, b, q = st.eq3_index
    if not len(a):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), np.zeros(0)
    ia, ib, token, query, is_o = node_index(a, b, q, st.dataset.n_vocab)
    val, lam = isotonic_bipartite(is_o, ia, ib)
    return token, query, val, lam


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
        return MaxMarginSolution(prob, W, np.zeros(0), KKTResiduals(nan, nan, nan, nan), "exact", seconds, {"solve": seconds})
    t0 = time.perf_counter()
    problem = build(st, E)
    lam = multipliers(problem.labels)
    res = kkt_residuals(problem.R, W.ravel(), lam)
    stages = {"solve": seconds, "certificate": time.perf_counter() - t0}
    return MaxMarginSolution(problem, W, lam, res, "exact", seconds, stages)


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
