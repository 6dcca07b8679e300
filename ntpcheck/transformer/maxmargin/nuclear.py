"""The nuclear-norm max-margin problem: Eq. (3)'s constraints with ``||W||_*`` in place of ``||W||_F``.

``min ||W_kq||_*  s.t.  (x_l* - x_l)^T W_kq x_q >= 1`` for every optimal ``l*`` and
non-optimal ``l`` of every query (the rows ``R`` of :func:`~.problems.build_eq3`).
For factorised key/query weights ``W_kq = W_k W_q^T`` trained by gradient
descent, the implicit bias of attention has been reported to follow this
problem rather than Eq. (3); :mod:`ntpcheck.transformer.algorithms` compares training to both.

Solved with cvxpy and a conic solver (CLARABEL by default; the nuclear norm
needs a semidefinite cone).  Each answer is checked by its optimality
conditions (:func:`nuclear_optimality`): with ``G = mat(R^T lam)``,
``W`` is optimal iff ``R w >= 1``, ``lam >= 0``, ``||G||_2 <= 1`` and
``<G, W> = ||W||_*`` (``G`` is a subgradient of the nuclear norm at ``W``), and then
``||W||_* = sum lam`` (no duality gap).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from ntpcheck.common.errors import SolverFailedError
from .problems import MaxMarginProblem, build_eq3

__all__ = ["NuclearSolution", "nuclear_optimality", "solve_nuclear", "solve_eq3_nuclear"]


@dataclass(frozen=True, eq=False)
class NuclearSolution:
    """``W`` minimising ``||W||_*`` under ``R vec(W) >= 1``, its multipliers and optimality residuals."""

    problem: MaxMarginProblem
    W: np.ndarray
    multipliers: np.ndarray
    residuals: dict
    seconds: float

    @property
    def nuclear_norm(self) -> float:
        return float(np.linalg.svd(self.W, compute_uv=False).sum())

    @property
    def worst_residual(self) -> float:
        return max(self.residuals.values())


def nuclear_optimality(problem: MaxMarginProblem, W: np.ndarray, lam: np.ndarray) -> dict[str, float]:
    """The residuals of the optimality conditions of ``min ||W||_* s.t. R vec(W) >= 1``, each relative
    to the problem's scale ``||W||_*`` where it has units:

    ``primal``: ``max(0, 1 - min R w)``; ``dual_sign``: ``max(0, -min lam)``;
    ``dual_norm``: ``max(0, ||G||_2 - 1)`` with ``G = mat(R^T lam)``;
    ``subgradient``: ``|<G, W> - ||W||_*| / ||W||_*``; ``complementarity``:
    ``max_k |lam_k (R_k w - 1)| / ||W||_*``; ``gap``: ``|sum lam - ||W||_*| / ||W||_*``.
    All are 0 exactly at an optimum.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from ntpcheck.transformer.maxmargin.problems import MaxMarginProblem
    >>> P = MaxMarginProblem("one entry", sp.csr_matrix(np.array([[1.0, 0, 0, 0]])), (2, 2), [("a",)])
    >>> r = nuclear_optimality(P, np.array([[1.0, 0], [0, 0]]), np.array([1.0]))
    >>> max(r.values())
    0.0
    """
    w = W.ravel()
    Rw = problem.R @ w
    G = (problem.R.T @ lam).reshape(problem.shape)
    nuc = float(np.linalg.svd(W, compute_uv=False).sum())
    scale = max(nuc, 1e-300)
    return {
        "primal": float(max(0.0, 1.0 - Rw.min())) if len(Rw) else 0.0,
        "dual_sign": float(max(0.0, -lam.min())) if len(lam) else 0.0,
        "dual_norm": float(max(0.0, np.linalg.norm(G, 2) - 1.0)),
        "subgradient": abs(float(np.vdot(G, W)) - nuc) / scale,
        "complementarity": float(np.max(np.abs(lam * (Rw - 1.0)))) / scale if len(lam) else 0.0,
        "gap": abs(float(lam.sum()) - nuc) / scale,
    }


def solve_nuclear(problem: MaxMarginProblem, solver: str = "CLARABEL", tol: float = 1e-8, **options) -> NuclearSolution:
    """Solve ``min ||W||_* s.t. R vec(W) >= 1`` with cvxpy (tight tolerances for CLARABEL and SCS);
    the answer is returned only if every optimality residual (:func:`nuclear_optimality`) is at most ``tol``.

    Raises
    ------
    SolverFailedError
        The solver is not installed, gave no answer, or an answer that fails its optimality conditions.
    """
    import cvxpy as cp

    from ntpcheck.common.qp.cvx import installed_solvers

    if solver not in installed_solvers():
        raise SolverFailedError(f"solver {solver!r} is not installed (installed: {', '.join(installed_solvers())})")
    defaults = {"CLARABEL": {"tol_feas": 1e-12, "tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "max_iter": 500},
                "SCS": {"eps_abs": 1e-10, "eps_rel": 1e-10, "max_iters": 200000}}.get(solver, {})
    W = cp.Variable(problem.shape)
    cons = [problem.R @ cp.vec(W, order="C") >= 1]
    prob = cp.Problem(cp.Minimize(cp.normNuc(W)), cons)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():  # "may be inaccurate": judged below by the optimality conditions instead
            warnings.simplefilter("ignore")
            prob.solve(solver=solver, **{**defaults, **options})
    except cp.error.SolverError as e:
        raise SolverFailedError(f"{solver} failed on the nuclear-norm problem: {e}") from None
    seconds = time.perf_counter() - t0
    if prob.status not in ("optimal", "optimal_inaccurate") or W.value is None:
        raise SolverFailedError(f"{solver} returned status {prob.status!r} on the nuclear-norm problem")
    Wv = np.asarray(W.value, dtype=float)
    lam = np.asarray(cons[0].dual_value, dtype=float).ravel()
    res = nuclear_optimality(problem, Wv, lam)
    if max(res.values()) > tol:
        worst = max(res, key=res.get)
        raise SolverFailedError(f"{solver}'s nuclear-norm answer fails its optimality conditions: {worst} residual {res[worst]:.2g} > {tol:g}")
    return NuclearSolution(problem, Wv, lam, res, seconds)


def solve_eq3_nuclear(dataset, embeddings: np.ndarray | None = None, solver: str = "CLARABEL") -> NuclearSolution:
    """The nuclear-norm counterpart of Eq. (3) for ``dataset`` (same constraints, :func:`~.problems.build_eq3`)."""
    return solve_nuclear(build_eq3(dataset, embeddings), solver)
