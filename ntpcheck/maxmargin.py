"""The max-margin problems Eq. (2) and Eq. (3), and their claimed closed forms.

Eq. (2)::

    W*_ov = argmin ||W||  s.t.  (e_{n(x)} - e_v)^T W x >= 1   for all x with n(x), v != n(x)

Eq. (3)::

    W*_kq = argmin ||W||  s.t.  (x_l - x_l')^T W x_L^(n) >= 1  for all n, l in I(n), l' not in I(n)

Both are solved as ``min 1/2 ||w||^2 s.t. R w >= 1`` over ``w = vec(W)``
(row-major), one cvxpy builder per problem (:func:`build_eq2`,
:func:`build_eq3`), with any installed cvxpy solver chosen by name.  Every
solution carries its KKT residuals (primal feasibility, dual feasibility,
stationarity ``w = R^T lambda``, complementary slackness).

Closed forms under Assumption 2 (orthonormal embeddings):

* :func:`eq2_closed_form`: ``W*_ov = sum_x (e_{n(x)} - 1/|V|) x^T``; each
  column problem ``min ||w||^2, w_y - w_v >= 1`` is solved by
  ``w = e_y - 1/|V|`` with multipliers ``1/|V|``.
* :func:`proposition2_formula`: the values Proposition 2 *claims* for
  ``x^T W*_kq q``.  It is a claim to be checked against the solver, not a
  solver.

Infeasible problems (a token with two next tokens for Eq. (2); a cyclic
order for Eq. (3)) raise :class:`~ntpcheck.errors.InfeasibleProblemError`
naming the cause before any solver runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .embeddings import as_embeddings, is_canonical, is_orthonormal, require_orthonormal
from .errors import AssumptionViolatedError, InfeasibleProblemError, SolverFailedError
from .structure import Role, Structure, analyse

__all__ = [
    "MaxMarginProblem",
    "MaxMarginSolution",
    "KKTResiduals",
    "build_eq2",
    "build_eq3",
    "solve",
    "kkt_residuals",
    "certify",
    "eq2_closed_form",
    "eq2_matrix",
    "check_eq2_closed_form",
    "w_ov_star",
    "raise_if_cyclic",
    "proposition2_values",
    "proposition2_formula",
    "reference_solutions",
    "installed_solvers",
    "DEFAULT_SOLVER",
]

DEFAULT_SOLVER = "CLARABEL"

#: Tight tolerances per solver (cvxpy option names), used unless overridden.
SOLVER_DEFAULTS: dict[str, dict] = {
    "CLARABEL": {"tol_feas": 1e-10, "tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10},
    "OSQP": {"eps_abs": 1e-10, "eps_rel": 1e-10, "polishing": True, "max_iter": 200000},
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200000},
    "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10},
}


@dataclass(frozen=True)
class KKTResiduals:
    """KKT residuals of ``min 1/2 ||w||^2 s.t. R w >= 1`` at ``(w, lambda)``.

    All are maxima of absolute values (infinity norms), 0 at an exact optimum.
    """

    primal: float  # max(0, 1 - R w)
    dual: float  # max(0, -lambda)
    stationarity: float  # |w - R^T lambda|
    complementarity: float  # |lambda_k (R w - 1)_k|

    @property
    def worst(self) -> float:
        return max(self.primal, self.dual, self.stationarity, self.complementarity)

    def to_json(self) -> dict:
        return {
            "primal": self.primal,
            "dual": self.dual,
            "stationarity": self.stationarity,
            "complementarity": self.complementarity,
        }


@dataclass(frozen=True, eq=False)
class MaxMarginProblem:
    """One max-margin problem: ``min 1/2 ||w||^2 s.t. R w >= 1``, ``W = w.reshape(shape)``.

    Attributes
    ----------
    name : str
        ``"Eq. (2)"`` or ``"Eq. (3)"``.
    R : scipy.sparse.csr_matrix, shape (K, m)
        One row per distinct constraint, acting on ``vec(W)`` (row-major).
    shape : (int, int)
    labels : tuple of tuple of str
        Eq. (2): ``(x, n(x), v)``; Eq. (3): ``(optimal, non-optimal, query)``.
    """

    name: str
    R: sp.csr_matrix
    shape: tuple[int, int]
    labels: tuple[tuple[str, ...], ...]

    @property
    def n_constraints(self) -> int:
        return self.R.shape[0]


@dataclass(frozen=True, eq=False)
class MaxMarginSolution:
    """A solution with its multipliers, KKT residuals and timing."""

    problem: MaxMarginProblem
    W: np.ndarray
    multipliers: np.ndarray
    residuals: KKTResiduals
    method: str
    seconds: float

    @property
    def norm(self) -> float:
        return float(np.linalg.norm(self.W))


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


def _structure(ds) -> Structure:
    return ds if isinstance(ds, Structure) else analyse(ds)


def build_eq2(dataset, embeddings: np.ndarray | None = None) -> MaxMarginProblem:
    """Build Eq. (2) for the collocation of ``dataset``.

    Raises
    ------
    InfeasibleProblemError
        If a one-token sentence has two next tokens (Assumption 1(i)): its
        constraints ``w_y - w_y' >= 1`` and ``w_y' - w_y >= 1`` contradict.
    """
    st = _structure(dataset)
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
        K = len(X)
        R = sp.csr_matrix(
            (np.concatenate([np.ones(K), -np.ones(K)]), (np.tile(np.arange(K), 2), np.concatenate([Y * d + X, Vv * d + X]))),
            shape=(K, V * d),
        )
        labels = tuple((vocab[x], vocab[y], vocab[v]) for x, y, v in zip(X, Y, Vv))
        return MaxMarginProblem("Eq. (2)", R, (V, d), labels)
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
    st = _structure(dataset)
    raise_if_cyclic(st)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    idx = st.dataset.index
    d = E.shape[0]
    if is_canonical(E) and st.eq3_pairs:
        # canonical embeddings: row k is e_a e_q^T - e_b e_q^T, two entries
        a, b, q = st.eq3_index
        K = len(a)
        R = sp.csr_matrix(
            (np.concatenate([np.ones(K), -np.ones(K)]), (np.tile(np.arange(K), 2), np.concatenate([a * d + q, b * d + q]))),
            shape=(K, d * d),
        )
        return MaxMarginProblem("Eq. (3)", R, (d, d), st.eq3_pairs)
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
    from .structure import may_have_cycle

    for q, g in st.orders.items():
        if not may_have_cycle(g):
            continue
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


def kkt_residuals(R: sp.spmatrix, w: np.ndarray, lam: np.ndarray) -> KKTResiduals:
    """KKT residuals of ``min 1/2 ||w||^2 s.t. R w >= 1`` (see :class:`KKTResiduals`)."""
    w = np.asarray(w, dtype=float).ravel()
    lam = np.asarray(lam, dtype=float).ravel()
    if R.shape[0] == 0:
        return KKTResiduals(0.0, 0.0, float(np.max(np.abs(w), initial=0.0)), 0.0)
    slack = R @ w - 1.0
    return KKTResiduals(
        primal=float(max(0.0, -slack.min())),
        dual=float(max(0.0, -lam.min())),
        stationarity=float(np.max(np.abs(w - R.T @ lam), initial=0.0)),
        complementarity=float(np.max(np.abs(lam * slack))),
    )


def certify(problem: MaxMarginProblem, W: np.ndarray) -> tuple[np.ndarray, KKTResiduals]:
    """Multipliers for a candidate ``W`` and its KKT residuals.

    The multipliers solve ``min ||R_A^T lambda - w||, lambda >= 0`` over the
    constraints active at ``W`` (slack below 1e-7), by NNLS.  A wrong ``W``
    shows large residuals; the exact optimum shows residuals at rounding level.
    """
    from scipy.optimize import nnls

    w = np.asarray(W, dtype=float).ravel()
    K = problem.n_constraints
    lam = np.zeros(K)
    if K:
        slack = problem.R @ w - 1.0
        active = np.flatnonzero(np.abs(slack) <= 1e-7)
        if len(active):
            RA = problem.R[active].T.toarray()
            nz = np.flatnonzero(np.any(RA != 0, axis=1) | (w != 0))
            sol, _ = nnls(RA[nz], w[nz])
            lam[active] = sol
    return lam, kkt_residuals(problem.R, w, lam)


def installed_solvers() -> list[str]:
    import cvxpy as cp

    return list(cp.installed_solvers())


def solve(problem: MaxMarginProblem, solver: str = DEFAULT_SOLVER, polish: bool = True, **options) -> MaxMarginSolution:
    """Solve a max-margin problem with a cvxpy solver chosen by name.

    ``options`` override the tight defaults of :data:`SOLVER_DEFAULTS`.
    With ``polish`` (default) an active-set step refines the solver's answer
    and is kept when it lowers the KKT residuals (see :func:`_polish`).
    ``seconds`` times the cvxpy compile-and-solve call and the polish alone.

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
    if polish:
        t1 = time.perf_counter()
        polished = _polish(problem, wv)
        seconds += time.perf_counter() - t1
        if polished is not None and polished[2].worst < res.worst:
            wv, lam, res = polished
            method += "+polish"
    return MaxMarginSolution(problem, wv.reshape(problem.shape), lam, res, method, seconds)


#: Largest number of variables for which :func:`solve` polishes densely.
POLISH_MAX_VARIABLES = 40_000


def _polish(problem: MaxMarginProblem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, KKTResiduals] | None:
    """Active-set polish of an approximate solution.

    Interior-point solvers stop with KKT residuals near their tolerance
    ``tau``; because the objective is quadratic, ``W`` itself is then only
    accurate to about ``sqrt(tau)`` when the problem is degenerate (an active
    constraint with a zero multiplier).  Guess the active set ``A`` from the
    slacks, take the exact minimum-norm solution of ``R_A w = 1`` (which is
    the optimum if ``A`` is right), and recover multipliers by NNLS.  The
    caller keeps it only if its KKT residuals are smaller.
    """
    if problem.shape[0] * problem.shape[1] > POLISH_MAX_VARIABLES:
        return None
    slack = problem.R @ w - 1.0
    best = None
    for thr in (1e-7, 1e-6, 1e-5, 1e-4):
        active = np.flatnonzero(slack <= thr)
        if len(active) == 0:
            continue
        RA = problem.R[active].toarray()
        wp, *_ = np.linalg.lstsq(RA, np.ones(len(active)), rcond=None)
        lam, res = certify(problem, wp)
        if best is None or res.worst < best[2].worst:
            best = (wp, lam, res)
    return best


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
    st = _structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    check_eq2_closed_form(st, E)
    return eq2_matrix(st, E)


def w_ov_star(dataset, embeddings: np.ndarray | None = None, solver: str = DEFAULT_SOLVER) -> np.ndarray:
    """``W*_ov``: the closed form under Assumption 2, the solver of Eq. (2) otherwise."""
    st = _structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    if is_orthonormal(E):
        return eq2_closed_form(st, E)
    return solve(build_eq2(st, E), solver).W


def proposition2_values(dataset) -> dict[str, dict[str, float]]:
    """Proposition 2's claimed ``x^T W*_kq q``, by query and token.

    For each query ``q`` with optimal set ``O``, non-optimal ``N`` and
    non-comparable ``M``: ``|N|/(|O|+|N|)`` on ``O``, ``-|O|/(|O|+|N|)`` on
    ``N``, 0 on ``M`` (and 0 everywhere for a query with no relation).

    Raises
    ------
    AssumptionViolatedError
        If some order has a confused token (Assumption 1(ii)): the
        proposition says nothing about it.
    """
    st = _structure(dataset)
    out: dict[str, dict[str, float]] = {}
    for q in st.orders:
        r = st.roles[q]
        conf = [x for x, role in r.items() if role is Role.CONFUSED]
        if conf:
            raise AssumptionViolatedError(
                f"Proposition 2 needs Assumption 1(ii), but under query {q} token(s) {', '.join(conf)} are confused"
            )
        O = sum(1 for role in r.values() if role is Role.OPTIMAL)
        N = sum(1 for role in r.values() if role is Role.NON_OPTIMAL)
        vals = {}
        for x in st.dataset.vocab:
            if r[x] is Role.OPTIMAL:
                vals[x] = N / (O + N)
            elif r[x] is Role.NON_OPTIMAL:
                vals[x] = -O / (O + N)
            else:
                vals[x] = 0.0
        out[q] = vals
    return out


def proposition2_formula(dataset, embeddings: np.ndarray | None = None) -> np.ndarray:
    """The matrix ``W = E P E^T`` with ``P[x, q]`` from :func:`proposition2_values` (Assumption 2)."""
    st = _structure(dataset)
    V = st.dataset.n_vocab
    E = as_embeddings(embeddings, V)
    require_orthonormal(E, "Proposition 2's formula")
    P = np.zeros((V, V))
    idx = st.dataset.index
    for q, vals in proposition2_values(st).items():
        for x, v in vals.items():
            P[idx[x], idx[q]] = v
    return E @ P @ E.T


def reference_solutions(
    dataset, embeddings: np.ndarray | None = None, solver: str = DEFAULT_SOLVER, strict: bool = False
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(W*_ov, W*_kq)``: the closed form of Eq. (2) when Assumption 2 holds, the solver otherwise.

    With ``strict=False`` a problem that cannot be solved gives ``None``
    (training still runs; its alignment curve is then NaN).
    """
    from .errors import NTPCheckError

    st = _structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    out: list[np.ndarray | None] = []
    for kind in ("eq2", "eq3"):
        try:
            if kind == "eq2":
                out.append(w_ov_star(st, E, solver))
            else:
                out.append(solve(build_eq3(st, E), solver).W)
        except NTPCheckError:
            if strict:
                raise
            out.append(None)
    return out[0], out[1]
