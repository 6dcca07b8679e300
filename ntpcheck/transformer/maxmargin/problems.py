"""The max-margin problems Eq. (2) and Eq. (3) as data.

Eq. (2)::

    W*_ov = argmin ||W||  s.t.  (e_{n(x)} - e_v)^T W x >= 1   for all x with n(x), v != n(x)

Eq. (3)::

    W*_kq = argmin ||W||  s.t.  (x_l - x_l')^T W x_L^(n) >= 1  for all n, l in I(n), l' not in I(n)

Both are ``min 1/2 ||w||^2 s.t. R w >= 1`` over ``w = vec(W)`` (row-major):
:func:`build_eq2` and :func:`build_eq3` build the sparse ``R`` with one row
per distinct constraint.  Infeasible problems (a token with two next tokens
for Eq. (2); a cyclic order for Eq. (3)) raise
:class:`~ntpcheck.common.errors.InfeasibleProblemError` naming the cause before any
solver runs.

Examples
--------
>>> import ntpcheck
>>> from ntpcheck.transformer.maxmargin import build_eq3
>>> build_eq3(ntpcheck.load("example1")).n_constraints
5
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ..embeddings import as_embeddings, is_canonical
from ntpcheck.common.errors import InfeasibleProblemError
from ..structure import Structure, as_structure
from ntpcheck.common.qp.problem import IndexLabels, MaxMarginProblem, MaxMarginSolution

__all__ = ["MaxMarginProblem", "MaxMarginSolution", "build_eq2", "build_eq3", "raise_if_cyclic", "as_structure"]


def _rows(a_list: list[np.ndarray], b_list: list[np.ndarray], shape: tuple[int, int]) -> sp.csr_matrix:
    """Rows ``vec(a_k b_k^T)`` for constraints ``a_k^T W b_k``, built sparsely."""
    data, ri, ci = [], [], []
    d2 = shape[1]
    for k, (a, b) in enumerate(zip(a_list, b_list)):
        ia, ib = np.flatnonzero(a), np.flatnonzero(b)
        if len(ia) == 0 or len(ib) == 0:
            continue
        vals = np.outer(a[ia], b[ib]).ravel()
        cols = (ia[:, None] * d2 + ib[None, :]).ravel()
        data.append(vals)
        ci.append(cols)
        ri.append(np.full(len(cols), k))
    K = len(a_list)
    if not data:
        return sp.csr_matrix((K, shape[0] * shape[1]))
    return sp.csr_matrix(
        (np.concatenate(data), (np.concatenate(ri), np.concatenate(ci))), shape=(K, shape[0] * shape[1])
    )


def _two_entry_rows(plus: np.ndarray, minus: np.ndarray, m: int) -> sp.csr_matrix:
    """Rows ``e_plus[k] - e_minus[k]`` (``plus != minus``) of width ``m``, written as CSR directly
    (canonical embeddings: each constraint touches two entries of ``vec(W)``)."""
    K = len(plus)
    cols = np.empty(2 * K, dtype=np.int64)
    cols[0::2], cols[1::2] = plus, minus
    return sp.csr_matrix((np.tile([1.0, -1.0], K), cols, np.arange(0, 2 * K + 1, 2)), shape=(K, m))


def build_eq2(dataset, embeddings: np.ndarray | None = None) -> MaxMarginProblem:
    """Build Eq. (2) for the collocation of ``dataset``.

    Raises
    ------
    InfeasibleProblemError
        If a one-token sentence has two next tokens (Assumption 1(i)): its
        constraints ``w_y - w_y' >= 1`` and ``w_y' - w_y >= 1`` contradict.
    """
    st = as_structure(dataset)
    vocab = st.dataset.vocab
    E = as_embeddings(embeddings, len(vocab))
    for x, ys in st.collocation.multiple_next.items():
        raise InfeasibleProblemError(
            f"Eq. (2) is infeasible: one-token sentence '{x}' has next tokens {' and '.join(ys[:2])}, "
            f"so (e_{ys[0]} - e_{ys[1]})^T W {x} >= 1 and its negation cannot both hold "
            "(Assumption 1(i) fails: no collocation)"
        )
    V = len(vocab)
    idx = st.dataset.index
    d = E.shape[0]
    if is_canonical(E) and st.collocation.mapping:
        # canonical embeddings: row (x, v) is (e_{n(x)} - e_v) e_x^T, two entries
        xs = np.array([idx[x] for x in st.collocation.mapping])
        ys = np.array([idx[y] for y in st.collocation.mapping.values()])
        X = np.repeat(xs, V)
        Y = np.repeat(ys, V)
        Vv = np.tile(np.arange(V), len(xs))
        keep = Vv != Y
        X, Y, Vv = X[keep], Y[keep], Vv[keep]
        R = _two_entry_rows(Y * d + X, Vv * d + X, V * d)
        return MaxMarginProblem("Eq. (2)", R, (V, d), IndexLabels(vocab, X, Y, Vv))
    a_list, b_list, labels = [], [], []
    eye = np.eye(V)
    for x, y in st.collocation.mapping.items():
        for v in vocab:
            if v == y:
                continue
            a_list.append(eye[idx[y]] - eye[idx[v]])
            b_list.append(E[:, idx[x]])
            labels.append((x, y, v))
    shape = (V, E.shape[0])
    return MaxMarginProblem("Eq. (2)", _rows(a_list, b_list, shape), shape, tuple(labels))


def build_eq3(dataset, embeddings: np.ndarray | None = None) -> MaxMarginProblem:
    """Build Eq. (3) from the optimal positions of ``dataset``.

    Raises
    ------
    InfeasibleProblemError
        If some x^q-order has a cycle ``a > b > ... > a`` (Assumption 1(ii)):
        the constraints along it sum to ``0 >= k``.
    """
    st = as_structure(dataset)
    raise_if_cyclic(st)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    idx = st.dataset.index
    d = E.shape[0]
    if is_canonical(E) and len(st.eq3_index[0]):
        # canonical embeddings: row k is e_a e_q^T - e_b e_q^T, two entries
        a, b, q = st.eq3_index
        R = _two_entry_rows(a * d + q, b * d + q, d * d)
        return MaxMarginProblem("Eq. (3)", R, (d, d), IndexLabels(st.dataset.vocab, a, b, q))
    a_list, b_list = [], []
    for a, b, q in st.eq3_pairs:
        a_list.append(E[:, idx[a]] - E[:, idx[b]])
        b_list.append(E[:, idx[q]])
    d = E.shape[0]
    return MaxMarginProblem("Eq. (3)", _rows(a_list, b_list, (d, d)), (d, d), st.eq3_pairs)


def raise_if_cyclic(st: Structure) -> None:
    """Raise :class:`InfeasibleProblemError` naming the cycle if some x^q-order has one.

    Eq. (3) is then infeasible: summing the constraints along the cycle
    ``a > b > ... > a`` gives ``0 >= k`` (Assumption 1(ii) fails).
    """
    if not st.has_confused:
        return
    for q, conf in st.confused.items():
        if not conf:  # no token both above and below: no cycle is possible
            continue
        g = st.orders[q]
        try:
            cyc = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            continue
        names = " > ".join([a for a, _ in cyc] + [cyc[0][0]])
        raise InfeasibleProblemError(
            f"Eq. (3) is infeasible: under query {q} the order has a cycle {names} "
            "(Assumption 1(ii) fails); summing its constraints gives 0 >= "
            f"{len(cyc)}"
        )


