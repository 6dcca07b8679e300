"""The max-margin problems Eq. (2) and Eq. (3): builders, solvers, certificates.

Modules, one job each:

* :mod:`~ntpcheck.transformer.maxmargin.problems`: the problems as data (``R w >= 1``);
* :mod:`~ntpcheck.common.qp.kkt`: KKT residuals, certificates, the active-set polish;
* :mod:`~ntpcheck.common.qp.cvx`: solving with any installed cvxpy solver;
* :mod:`~ntpcheck.transformer.maxmargin.closed_form`: Eq. (2) in closed form (Assumption 2);
* :mod:`~ntpcheck.transformer.maxmargin.exact`: exact Eq. (2) and Eq. (3) under Assumption 2;
* :mod:`~ntpcheck.transformer.maxmargin.reference`: the exact solution where it applies, cvxpy otherwise.

Every solution is a :class:`MaxMarginSolution` carrying its KKT residuals.

Examples
--------
>>> import ntpcheck
>>> from ntpcheck.transformer.maxmargin import build_eq3, solve, solve_eq3_exact
>>> ds = ntpcheck.load("example1")
>>> exact = solve_eq3_exact(ds)
>>> exact.residuals.worst < 1e-12
True
>>> bool(abs(solve(build_eq3(ds)).W - exact.W).max() < 1e-8)
True
"""

from .closed_form import check_eq2_closed_form, eq2_closed_form, eq2_matrix, w_ov_star
from ntpcheck.common.qp.cvx import DEFAULT_SOLVER, SOLVER_DEFAULTS, installed_solvers, solve
from .exact import column_solution, eq3_values, solve_eq2_exact, solve_eq3_exact
from .reference import exact_eq3_applies, reference_solutions, solve_eq3_best
from ntpcheck.common.qp.kkt import KKTResiduals, certify, kkt_residuals, polish
from .problems import MaxMarginProblem, MaxMarginSolution, as_structure, build_eq2, build_eq3, raise_if_cyclic

__all__ = [
    "MaxMarginProblem",
    "MaxMarginSolution",
    "KKTResiduals",
    "build_eq2",
    "build_eq3",
    "as_structure",
    "raise_if_cyclic",
    "solve",
    "installed_solvers",
    "DEFAULT_SOLVER",
    "SOLVER_DEFAULTS",
    "kkt_residuals",
    "certify",
    "polish",
    "eq2_closed_form",
    "eq2_matrix",
    "check_eq2_closed_form",
    "w_ov_star",
    "reference_solutions",
    "solve_eq2_exact",
    "solve_eq3_exact",
    "solve_eq3_best",
    "exact_eq3_applies",
    "eq3_values",
    "column_solution",
]
