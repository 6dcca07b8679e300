"""Closed forms under Assumption 2 (orthonormal embeddings), and the reference solutions.

* :func:`eq2_closed_form`: ``W*_ov = sum_x (e_{n(x)} - 1/|V|) x^T``; each
  column problem ``min ||w||^2, w_y - w_v >= 1`` is solved by
  ``w = e_y - 1/|V|`` with multipliers ``1/|V|``.
* :func:`w_ov_star`: the closed form where Assumption 2 holds, the solver
  of Eq. (2) otherwise (:func:`~.reference.reference_solutions` gives ``(W*_ov, W*_kq)``).

Examples
--------
>>> import ntpcheck
>>> from ntpcheck.transformer.maxmargin import eq2_closed_form
>>> W = eq2_closed_form(ntpcheck.load("example1"))
>>> float(W[1, 0]), float(W[0, 0])   # column S: +3/4 on n(S) = V, -1/4 elsewhere
(0.75, -0.25)
"""

from __future__ import annotations

import numpy as np

from ..embeddings import as_embeddings, is_canonical, is_orthonormal, require_orthonormal
from ..structure import Structure
from ntpcheck.common.qp.cvx import DEFAULT_SOLVER, solve
from .problems import as_structure, build_eq2

__all__ = ["eq2_closed_form", "eq2_matrix", "check_eq2_closed_form", "w_ov_star"]


def check_eq2_closed_form(st: Structure, E: np.ndarray) -> None:
    """The closed form needs Assumption 2 and a collocation that is a function (else a clear error)."""
    require_orthonormal(E, "the closed form of Eq. (2)")
    if st.collocation.multiple_next:
        build_eq2(st, E)  # raises the InfeasibleProblemError that names the token


def eq2_matrix(st: Structure, E: np.ndarray, canonical: bool | None = None) -> np.ndarray:
    """``sum_x (e_{n(x)} - 1/|V|) x^T``, vectorised, without the checks of :func:`eq2_closed_form`."""
    V = st.dataset.n_vocab
    src, tgt = st.collocation_index
    Wtok = np.full((V, V), -1.0 / V)  # column x in token coordinates
    if len(src) < V:  # columns of tokens without a next token are zero
        has = np.zeros(V, dtype=bool)
        has[src] = True
        Wtok[:, ~has] = 0.0
    Wtok[tgt, src] += 1.0
    if canonical is None:
        canonical = is_canonical(E)
    return Wtok if canonical else Wtok @ E.T


def eq2_closed_form(dataset, embeddings: np.ndarray | None = None) -> np.ndarray:
    """``W*_ov = sum_x (e_{n(x)} - 1/|V|) x^T`` under Assumption 2.

    Columns of tokens without a next token are zero.  Raises
    :class:`EmbeddingError` if the embeddings are not orthonormal and
    :class:`InfeasibleProblemError` if the collocation is not a function.
    """
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    check_eq2_closed_form(st, E)
    return eq2_matrix(st, E)


def w_ov_star(dataset, embeddings: np.ndarray | None = None, solver: str = DEFAULT_SOLVER) -> np.ndarray:
    """``W*_ov``: the closed form under Assumption 2, the solver of Eq. (2) otherwise."""
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    if is_orthonormal(E):
        return eq2_closed_form(st, E)
    return solve(build_eq2(st, E), solver).W
