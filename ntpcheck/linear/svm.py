"""NTP-separability (Def. 2) with certificates, and the NTP-SVM ``W^mm`` (Def. 3).

Margin rows
-----------
With ``W ∈ ℱ^⊥`` (6a) every in-support logit of a context is the same, so (6b)
for all pairs ⇔ (6b) for the anchor ``z_j = min 𝒮_j``: one row
``g = vec((e_{z_j} − e_v) h̄_jᵀ)`` per ``v ∉ 𝒮_j`` (``mV − Σ_j S_j`` rows, as
§4 counts them), stacked into ``G``.  In coordinates ``W = reshape(Nᵀc)`` of
ℱ^⊥ (``N``: orthonormal rows spanning ``vec ℱ^⊥``, :class:`.Subspace`),
(6a) holds by construction and (6b) reads ``M c ≥ 1`` with ``M = G Nᵀ``.

Separability (Def. 2) is the LP ``M c ≥ 1``.  Certificates:

* separable: a ``Wᵈ = reshape(Nᵀc)`` whose smallest (6b) margin, checked on
  every pair ``(z, v)``, is ≥ 1 after rescaling;
* not separable (Farkas): ``λ ≥ 0`` with ``Σλ = 1`` and ``ρ = ‖Mᵀλ‖`` at
  rounding level.  For any ``W`` meeting (6), ``w = Nᵀc`` and
  ``1 ≤ λᵀ M c ≤ ρ ‖c‖ = ρ ‖W‖``, so every such ``W`` has ``‖W‖ ≥ 1/ρ``;
  ``ρ ≤ FARKAS_TOL = 1e-9`` is reported as not separable (no ``W`` of norm
  below 1e9), anything in between as undecided (:class:`SolverFailedError`).

The NTP-SVM is ``min ½‖c‖² s.t. M c ≥ 1`` (``‖W‖ = ‖c‖``).  It is solved exactly
by least-distance programming and a linear solve on the support
(:mod:`.svm_active`, KKT-certified), by cvxpy with the active-set polish of
:mod:`ntpcheck.common.qp` (certified by KKT residuals in these coordinates;
the fallback), or in closed form for orthogonal contexts:

**Proposition (exact NTP-SVM for orthogonal contexts).**  If the columns of
``H̄`` are nonzero and pairwise orthogonal, then
``W^mm = Σ_j u_j h̄_jᵀ / ‖h̄_j‖²`` with ``u_{j,z} = (V − S_j)/V`` for
``z ∈ 𝒮_j`` and ``u_{j,v} = −S_j/V`` for ``v ∉ 𝒮_j``, and
``‖W^mm‖² = Σ_j S_j (V − S_j) / (V ‖h̄_j‖²)``.

*Proof.*  Write ``W = Σ_j u_j h̄_jᵀ/‖h̄_j‖² + W₀`` with ``W₀ h̄_j = 0`` for all
``j`` (``u_j := W h̄_j``).  By orthogonality ``‖W‖² = Σ_j ‖u_j‖²/‖h̄_j‖² +
‖W₀‖²``, and the constraints involve only ``u_j``: (6a) says ``u_{j,z} = a_j``
for all ``z ∈ 𝒮_j``, (6b) says ``u_{j,v} ≤ a_j − 1`` for ``v ∉ 𝒮_j``.  So
``W₀ = 0`` and the problem splits into one problem per context:
``min S a² + Σ_{v∉𝒮} b_v²`` s.t. ``b_v ≤ a − 1``.  By the QM–AM inequality
``Σ_v b_v² ≥ (V − S) b̄²`` with ``b̄`` the mean, equality iff all ``b_v`` are
equal, and ``b̄ ≤ a − 1``; minimising ``S a² + (V − S) b̄²`` over the
half-plane ``a − b̄ ≥ 1`` (the unconstrained minimum 0 is infeasible, so the
constraint is active; Lagrange: ``S a = −(V − S) b̄``) gives ``a = (V − S)/V``,
``b̄ = −S/V`` and the value ``S(V − S)/V``; the objective is strongly convex,
so this point is the unique minimiser.  For ``S_j = V`` there is no (6b)
constraint and ``u_j = 0``, which the formula also gives. ∎

This is the two-level pattern of Huang et al.'s Prop. 2 with ``|O| = S_j``
optimal and ``|N| = V − S_j`` non-optimal tokens.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ntpcheck.common.errors import InfeasibleProblemError, SolverFailedError

from .data import NTPData
from .subspace import Subspace, pair_rows, subspace

__all__ = ["FARKAS_TOL", "margin_pairs", "margin_rows", "margins", "Separability", "separability", "SVMSolution", "w_mm",
           "w_mm_exact", "orthogonal_contexts", "svm_problem"]

FARKAS_TOL = 1e-9
#: Pairwise orthogonality of contexts for the exact NTP-SVM: |cos| below this (rounding of
#: orthonormalised Gaussian columns is ~1e-15).
ORTHOGONAL_TOL = 1e-10


def margin_pairs(D: NTPData, *, anchored: bool = True) -> list[tuple[int, int, int]]:
    """``(j, z, v)`` of the (6b) constraints: ``z`` the anchor ``min 𝒮_j`` (or, with
    ``anchored=False``, every ``z ∈ 𝒮_j``) and every ``v ∉ 𝒮_j``."""
    out = []
    for j, s in enumerate(D.supports):
        outside = [v for v in range(D.V) if not D.mask[j, v]]
        for z in (s[:1] if anchored else s):
            out.extend((j, z, v) for v in outside)
    return out


def margin_rows(D: NTPData, *, anchored: bool = True) -> np.ndarray:
    """``G``: rows ``vec((e_z − e_v) h̄_jᵀ)`` of :func:`margin_pairs`."""
    return pair_rows(D, margin_pairs(D, anchored=anchored))


def margins(D: NTPData, W: np.ndarray) -> tuple[float, float]:
    """``(smallest (6b) margin over every pair z ∈ 𝒮_j, v ∉ 𝒮_j, largest |(6a) residual| over
    every pair z, z′ ∈ 𝒮_j)`` of ``W`` (+inf margin when no context has an out-of-support token).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 1]]))
    >>> margins(D, w_mm_exact(D))
    (1.0, 0.0)
    """
    logits = (np.asarray(W, dtype=float) @ D.H).T  # (m, V)
    lo, eq = np.inf, 0.0
    for j in range(D.m):
        inside, outside = logits[j, D.mask[j]], logits[j, ~D.mask[j]]
        eq = max(eq, float(inside.max() - inside.min()))
        if outside.size:
            lo = min(lo, float(inside.min() - outside.max()))
    return lo, eq


@dataclass(frozen=True)
class Separability:
    """NTP-separability (Def. 2) with its certificate (module docstring).

    ``w_d``: a ``Wᵈ`` meeting (6) when separable; ``farkas``: ``λ`` over the anchor
    margin rows and ``rho = ‖P_⊥ Gᵀλ‖`` when not (every ``W`` meeting (6) has ``‖W‖ ≥ 1/rho``).
    """

    separable: bool
    w_d: np.ndarray | None
    farkas: np.ndarray | None
    rho: float | None


def separability(D: NTPData, F: Subspace | None = None) -> Separability:
    """Decide Def. 2 by an LP, with a certificate either way.

    Examples
    --------
    >>> separability(NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))).separable
    True
    >>> s = separability(NTPData(np.ones((1, 2)), np.array([[1, 0], [1, 1]])))   # one embedding, nested supports
    >>> s.separable, s.rho < 1e-12
    (False, True)
    """
    from scipy.optimize import linprog

    F = F or subspace(D)
    G = margin_rows(D)
    if G.shape[0] == 0:  # every context has full support: (6b) is empty, W^d = 0 meets (6)
        return Separability(True, np.zeros((D.V, D.d)), None, None)
    N = F.null_basis
    M = G @ N.T
    if M.shape[1]:
        lp = linprog(np.zeros(M.shape[1]), A_ub=-M, b_ub=-np.ones(M.shape[0]), bounds=(None, None), method="highs")
        if lp.status == 0:
            W = (N.T @ lp.x).reshape(D.V, D.d)
            lo, _ = margins(D, W)
            if lo > 0:
                return Separability(True, W / lo, None, None)
    K = M.shape[0]
    A_eq = np.vstack([M.T, np.ones((1, K))])
    b_eq = np.concatenate([np.zeros(M.shape[1]), [1.0]])
    dual = linprog(np.zeros(K), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if dual.status == 0:
        lam = np.maximum(dual.x, 0.0)
        lam /= lam.sum()
        rho = float(np.linalg.norm(M.T @ lam))
        if rho <= FARKAS_TOL:
            return Separability(False, None, lam, rho)
    raise SolverFailedError("NTP-separability undecided: neither the LP's point nor its Farkas certificate checks out")


@dataclass(frozen=True, eq=False)
class SVMSolution:
    """``W^mm`` with how it was found and its certificate.

    ``multipliers``: one per anchor margin row (:func:`margin_pairs`); ``kkt``: the largest
    KKT residual (primal, dual, stationarity, complementarity; 0 at the optimum) in ℱ^⊥
    coordinates, for ``method == "active set"`` in the basis of :mod:`.svm_active` and together
    with the (6a) residual of ``W``.  ``method``: ``"exact"``, ``"active set"``, or the cvxpy
    path's (``"CLARABEL+polish"``, with ``" (active set: REASON)"`` when the active set fell back).
    """

    W: np.ndarray
    multipliers: np.ndarray
    kkt: float
    method: str
    seconds: float

    @property
    def norm(self) -> float:
        return float(np.linalg.norm(self.W))


def orthogonal_contexts(D: NTPData) -> bool:
    """Whether the columns of ``H̄`` are nonzero and pairwise orthogonal (the exact NTP-SVM applies)."""
    norms = np.linalg.norm(D.H, axis=0)
    if np.any(norms == 0):
        return False
    C = (D.H.T @ D.H) / np.outer(norms, norms)
    return bool(np.max(np.abs(C - np.eye(D.m)), initial=0.0) <= ORTHOGONAL_TOL)


def w_mm_exact(D: NTPData) -> np.ndarray:
    """The closed form of the NTP-SVM for orthogonal contexts (module docstring, Proposition).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 1]]))
    >>> np.round(w_mm_exact(D) * 3, 12).tolist()   # columns (1, 1, -2)/3 and (-1, -1, 2)/3
    [[1.0, -1.0], [1.0, -1.0], [-2.0, 2.0]]
    """
    if not orthogonal_contexts(D):
        raise SolverFailedError("the exact NTP-SVM needs nonzero, pairwise orthogonal context embeddings")
    S = D.mask.sum(axis=1)
    U = np.where(D.mask, (D.V - S)[:, None], -S[:, None]) / D.V  # (m, V): u_j
    return (U.T / np.sum(D.H**2, axis=0)) @ D.H.T


def svm_problem(D: NTPData, F: Subspace):
    """The NTP-SVM in ℱ^⊥ coordinates as a :class:`ntpcheck.common.qp.problem.MaxMarginProblem`
    (``min ½‖c‖² s.t. M c ≥ 1``, shape ``(1, dim ℱ^⊥)``)."""
    from ntpcheck.common.qp.problem import MaxMarginProblem

    M = margin_rows(D) @ F.null_basis.T
    labels = [tuple(str(x) for x in p) for p in margin_pairs(D)]
    return MaxMarginProblem("NTP-SVM (Def. 3)", sp.csr_matrix(M), (1, M.shape[1]), labels)


def w_mm(D: NTPData, method: str = "auto", F: Subspace | None = None) -> SVMSolution:
    """``W^mm`` (Def. 3) by ``method``:

    * ``"exact"``: the closed form for orthogonal contexts (Proposition above);
    * ``"active set"``: least-distance programming and a linear solve on the support, exact to
      rounding and KKT-certified (:mod:`.svm_active`);
    * ``"cvxpy"``: CLARABEL with the active-set polish of :mod:`ntpcheck.common.qp`;
    * ``"auto"``: the closed form where it applies, else the active set.

    Where the active set gives no certified answer (infeasible data among the causes) it falls
    back to the ``"cvxpy"`` path, whose ``method`` then ends with ``(active set: REASON)``.
    ``kkt`` is the largest KKT residual in ℱ^⊥ coordinates (:class:`SVMSolution`).

    Raises
    ------
    InfeasibleProblemError
        If the data are not NTP-separable (Def. 3 is defined for separable data).

    Examples
    --------
    >>> D = NTPData(np.array([[1.0, 0.6], [0.0, 0.8]]), np.array([[1, 1, 0], [0, 0, 1]]))
    >>> s = w_mm(D)
    >>> s.method, round(margins(D, s.W)[0], 12), s.kkt < 1e-13
    ('active set', 1.0, True)
    >>> c = w_mm(D, "cvxpy")
    >>> c.method, bool(np.abs(c.W - s.W).max() < 1e-12)
    ('CLARABEL+polish', True)
    """
    from ntpcheck.common.qp.kkt import certify

    if method not in ("auto", "exact", "active set", "cvxpy"):
        raise ValueError(f"unknown NTP-SVM method {method!r}: exact, active set, cvxpy or auto")
    t0 = time.perf_counter()
    if method == "exact" or (method == "auto" and orthogonal_contexts(D)):
        F = F or subspace(D)
        W = w_mm_exact(D)
        lam, res = certify(svm_problem(D, F), F.null_basis @ W.ravel())
        return SVMSolution(W, lam, res.worst, "exact", time.perf_counter() - t0)
    why = ""
    if method != "cvxpy":
        from .svm_active import ActiveSetFailed, ntp_svm_active_set

        try:
            W, lam, kkt = ntp_svm_active_set(D)
            return SVMSolution(W, lam, kkt, "active set", time.perf_counter() - t0)
        except ActiveSetFailed as e:
            why = f" (active set: {e})"
    F = F or subspace(D)
    problem = svm_problem(D, F)
    if problem.n_constraints and problem.shape[1] == 0 or not separability(D, F).separable:
        raise InfeasibleProblemError("the data are not NTP-separable (Def. 2): the NTP-SVM (Def. 3) has no feasible point")
    from ntpcheck.common.qp.cvx import solve

    sol = solve(problem)
    W = (F.null_basis.T @ sol.W.ravel()).reshape(D.V, D.d)
    return SVMSolution(W, sol.multipliers, sol.residuals.worst, sol.method + why, time.perf_counter() - t0)
