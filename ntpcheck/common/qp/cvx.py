"""Solving the max-margin problems with any installed cvxpy solver, chosen by name.

Tight tolerances per solver (:data:`SOLVER_DEFAULTS`), and an active-set
polish (:func:`ntpcheck.common.qp.kkt.polish`) that refines degenerate
interior-point answers from about ``sqrt(tol)`` to rounding level.  Every
solution carries its KKT residuals.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from ntpcheck.common.errors import InfeasibleProblemError, SolverFailedError
from .kkt import kkt_residuals, polish as _polish
from .problem import MaxMarginProblem, MaxMarginSolution

__all__ = ["solve", "installed_solvers", "DEFAULT_SOLVER", "SOLVER_DEFAULTS"]

DEFAULT_SOLVER = "CLARABEL"

#: Tight tolerances per solver (cvxpy option names), used unless overridden.
SOLVER_DEFAULTS: dict[str, dict] = {
    "CLARABEL": {"tol_feas": 1e-10, "tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10},
    "OSQP": {"eps_abs": 1e-10, "eps_rel": 1e-10, "polishing": True, "max_iter": 200000},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200000},
    "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10},
}


@lru_cache(maxsize=1)
def _installed() -> tuple[str, ...]:
    import cvxpy as cp

    return tuple(cp.installed_solvers())


def installed_solvers() -> list[str]:
    """The cvxpy solvers installed here (looked up once per process)."""
    return list(_installed())


def solve(problem: MaxMarginProblem, solver: str = DEFAULT_SOLVER, polish: bool = True, **options) -> MaxMarginSolution:
    """Solve a max-margin problem with a cvxpy solver chosen by name.

    ``options`` override the tight defaults of :data:`SOLVER_DEFAULTS`.
    With ``polish`` (default) an active-set step refines the solver's answer
    and is kept when it lowers the KKT residuals (see :func:`_polish`).
    ``seconds`` times the cvxpy compile-and-solve call and the polish alone;
    ``stages`` splits it, and ``polish_move`` says how far the polish moved
    the answer (None: not polished, because it did not lower the residuals).

    Raises
    ------
    SolverFailedError
        Unknown or uninstalled solver, or the solver gave no solution.
    InfeasibleProblemError
        The solver proved the problem infeasible (possible only without
        Assumption 2, since the builders reject the other causes).
    """
    import cvxpy as cp

    name = solver.upper()
    if name not in installed_solvers():
        raise SolverFailedError(f"solver {solver!r} is not installed; installed: {', '.join(installed_solvers())}")
    m = problem.shape[0] * problem.shape[1]
    if problem.n_constraints == 0:
        W = np.zeros(problem.shape)
        return MaxMarginSolution(problem, W, np.zeros(0), kkt_residuals(problem.R, W, np.zeros(0)), name, 0.0)
    w = cp.Variable(m)
    cons = problem.R @ w >= 1
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [cons])
    opts = {**SOLVER_DEFAULTS.get(name, {}), **options}
    t0 = time.perf_counter()
    try:
        prob.solve(solver=name, **opts)
    except cp.error.SolverError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SolverFailedError(f"{name} failed on {problem.name}: {first}") from None
    except (TypeError, ValueError) as e:
        raise SolverFailedError(f"{name} rejected the options {sorted(opts)} for {problem.name}: {e}") from None
    seconds = time.perf_counter() - t0
    if prob.status in ("infeasible", "infeasible_inaccurate"):
        raise InfeasibleProblemError(
            f"{problem.name} is infeasible according to {name}; with these embeddings the margin "
            "constraints contradict each other (check Assumption 2: orthonormal embeddings)"
        )
    if w.value is None or prob.status not in ("optimal", "optimal_inaccurate"):
        raise SolverFailedError(f"{name} returned status {prob.status!r} on {problem.name}")
    lam = np.asarray(cons.dual_value, dtype=float).ravel()
    wv = np.asarray(w.value, dtype=float)
    res = kkt_residuals(problem.R, wv, lam)
    method = name + ("" if prob.status == "optimal" else " (inaccurate)")
    compile_s = float(getattr(prob, "compilation_time", None) or 0.0)
    stages = {"compile": compile_s, "solve": seconds - compile_s}
    move = None
    if polish:
        t1 = time.perf_counter()
        polished = _polish(problem, wv)
        stages["polish"] = time.perf_counter() - t1
        seconds += stages["polish"]
        if polished is not None and polished[2].worst < res.worst:
            move = float(np.max(np.abs(polished[0] - wv), initial=0.0))
            wv, lam, res = polished
            method += "+polish"
    return MaxMarginSolution(problem, wv.reshape(problem.shape), lam, res, method, seconds, stages, move)
