"""The best available solution of each max-margin problem: exact where it applies, cvxpy otherwise.

* :func:`solve_eq3_best`: Eq. (3) by :func:`~.exact.solve_eq3_exact` (certified)
  under Assumption 2 without confused tokens, else by a cvxpy solver with the
  active-set polish;
* :func:`reference_solutions`: ``(W*_ov, W*_kq)``, the alignment references of training.
"""

from __future__ import annotations

import numpy as np

from ..embeddings import as_embeddings, is_orthonormal
from ..structure import Structure
from .closed_form import w_ov_star
from ntpcheck.common.qp.cvx import DEFAULT_SOLVER, solve
from .exact import solve_eq3_exact
from .problems import MaxMarginSolution, as_structure, build_eq3

__all__ = ["exact_eq3_applies", "solve_eq3_best", "reference_solutions"]


def exact_eq3_applies(st: Structure, E: np.ndarray) -> bool:
    """Whether :func:`solve_eq3_exact` solves Eq. (3) here: orthonormal embeddings (Assumption 2)
    and no confused tokens (Assumption 1(ii)); a cyclic order is infeasible for every solver."""
    return is_orthonormal(E) and not st.has_confused


def solve_eq3_best(dataset, embeddings: np.ndarray | None = None, solver: str | None = None) -> MaxMarginSolution:
    """Eq. (3) solved exactly (:func:`solve_eq3_exact`, certified) where that applies
    (:func:`exact_eq3_applies`), otherwise by the cvxpy ``solver`` with the active-set polish."""
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    if exact_eq3_applies(st, E):
        return solve_eq3_exact(st, E)
    return solve(build_eq3(st, E), solver or DEFAULT_SOLVER)


def reference_solutions(
    dataset, embeddings: np.ndarray | None = None, solver: str = DEFAULT_SOLVER, strict: bool = False
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(W*_ov, W*_kq)``: the closed form of Eq. (2) and the exact Eq. (3) where they apply
    (:func:`solve_eq3_best`), the cvxpy ``solver`` otherwise.

    With ``strict=False`` a problem that cannot be solved gives ``None``
    (training still runs; its alignment curve is then NaN).
    """
    from ntpcheck.common.errors import NTPCheckError

    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    out: list[np.ndarray | None] = []
    for kind in ("eq2", "eq3"):
        try:
            if kind == "eq2":
                out.append(w_ov_star(st, E, solver))
            else:
                out.append(solve_eq3_best(st, E, solver).W)
        except NTPCheckError:
            if strict:
                raise
            out.append(None)
    return out[0], out[1]
