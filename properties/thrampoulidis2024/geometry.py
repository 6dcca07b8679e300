"""Checkers of §3.1 and §4's NTP-SVM: Lemma 1 (and its d = m reading), Remark 1, Def. 3's
properties and their derived consequences (supports only, equal patterns, W⋆ ⟂ W^mm).

Tolerances as in :mod:`.statics` (``IDENTITY_RTOL``); the NTP-SVM's KKT residual
is at rounding level for the exact solution and after cvxpy's active-set polish
(≤ 1e-12 on every instance of the tests), so ``SVM_TOL = 1e-8`` is four orders
above it, and every sabotage moves the checked quantity by O(1).
"""

from __future__ import annotations

import numpy as np

from ntpcheck.linear import LinearInstance, NTPData
from ntpcheck.linear.subspace import anchor_pairs, anchor_rows
from ntpcheck.linear.svm import margin_pairs, margins, w_mm

from ..framework.checks import falsified, holds, outside, vacuous
from .statics import IDENTITY_RTOL

__all__ = ["SVM_TOL", "check_lemma1", "lemma1_construction", "check_rem1", "multiclass_separable", "check_svm",
           "check_svm_supports_only", "check_svm_equal_rows", "shared_pattern", "check_svm_orthogonal"]

SVM_TOL = 1e-8


def lemma1_construction(D: NTPData) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 1's ``(Wᵖ, Wᵈ)``: ``W [h̄_1..h̄_m] = [E†_j a_j]_j`` solved with ``H̄†`` (§3.1), where
    ``E_j`` has rows ``e_{z_j} − e_{z′}`` (in-support ``z′``) and ``a_j`` the log-ratios; ``Wᵈ`` from the
    equality version of (6): rows ``e_{z_j} − e_u`` for every ``u ≠ z_j``, right side 0 in support, 1 outside."""
    Up, Ud = np.zeros((D.V, D.m)), np.zeros((D.V, D.m))
    for j, s in enumerate(D.supports):
        a = s[0]
        E = np.array([np.eye(D.V)[a] - np.eye(D.V)[z] for z in s[1:]]).reshape(-1, D.V)
        Up[:, j] = np.linalg.pinv(E) @ np.array([np.log(D.counts[j, a] / D.counts[j, z]) for z in s[1:]]) if len(s) > 1 else 0
        others = [u for u in range(D.V) if u != a]
        E2 = np.array([np.eye(D.V)[a] - np.eye(D.V)[u] for u in others]).reshape(-1, D.V)
        Ud[:, j] = np.linalg.pinv(E2) @ np.array([0.0 if D.mask[j, u] else 1.0 for u in others])
    Hp = np.linalg.pinv(D.H)
    return Up @ Hp, Ud @ Hp


def check_lemma1(ev, *, strict: bool = True, hypotheses: bool = True) -> object:
    """Lemma 1: with ``d > m`` (``strict``; ``d ≥ m`` for the reading R6) and ``H̄`` of rank ``m``,
    (4) and (6) have infinitely many solutions: the LP and linear system are feasible (certificates),
    §3.1's construction meets (4) and (6), and ``W⋆ + U`` solves (4) for every ``U ∈ ℱ^⊥ ≠ {0}``
    (``hypotheses=False``: the sabotage, the conclusion checked on any data)."""
    D = ev.data
    if hypotheses and not ((D.d > D.m if strict else D.d >= D.m) and ev.rank == D.m):
        return outside(f"d = {D.d}, m = {D.m}, rank {ev.rank}: not {'d > m' if strict else 'd >= m'} with full rank")
    if not ev.compat.compatible:
        return falsified(-ev.compat.residual, f"(4) has no solution (residual {ev.compat.residual:.3g})")
    if not ev.sep.separable:
        return falsified(-1.0, f"(6) has no solution (Farkas certificate, rho = {ev.sep.rho:.3g})")
    Wp, Wd = lemma1_construction(D)
    A, b = anchor_rows(D)
    err4 = float(np.max(np.abs(A @ Wp.ravel() - b), initial=0.0))
    lo, eq = margins(D, Wd)
    null = D.V * D.d - ev.F.dim
    if err4 > IDENTITY_RTOL * (1 + np.max(np.abs(b), initial=0.0)) or lo < 1 - IDENTITY_RTOL or eq > IDENTITY_RTOL:
        return falsified(-1.0, f"§3.1's construction fails: (4) off by {err4:.3g}, smallest (6b) margin {lo:.6g}, (6a) off by {eq:.3g}")
    if null == 0:
        return falsified(-1.0, "F is the whole space: (4) has one solution only")
    return holds(1.0, f"(4) and (6) solved by §3.1's construction; the solutions of (4) are W* + F-perp, of dimension {null}",
                 null_dim=null)


def multiclass_separable(D: NTPData) -> bool:
    """Multiclass linear separability of one-hot data, as an LP on ``W`` itself (no ℱ): some ``W`` with
    ``(e_{z_j} − e_v)ᵀ W h̄_j ≥ 1`` for every ``v ≠ z_j`` (an independent formulation for Remark 1)."""
    from scipy.optimize import linprog

    rows = []
    for j, s in enumerate(D.supports):
        for v in range(D.V):
            if v != s[0]:
                r = np.zeros((D.V, D.d))
                r[s[0]] += D.H[:, j]
                r[v] -= D.H[:, j]
                rows.append(r.ravel())
    if not rows:
        return True
    lp = linprog(np.zeros(D.V * D.d), A_ub=-np.array(rows), b_ub=-np.ones(len(rows)), bounds=(None, None), method="highs")
    return lp.status == 0


def check_rem1(ev, *, negate: bool = False) -> object:
    """Remark 1: with ``S_j = 1`` for every context, ``ℋ = 0``, ℱ = {0}, and NTP-separability is
    multiclass separability (:func:`multiclass_separable`) (``negate``: the sabotage, its negation)."""
    D = ev.data
    if not (D.mask.sum(axis=1) == 1).all():
        return outside("some context has S_j > 1")
    multi = multiclass_separable(D) != negate
    m = dict(separable=ev.sep.separable, multiclass=multi)
    if ev.entropy != 0 or ev.F.dim != 0:
        return falsified(-1.0, f"one-hot data with H = {ev.entropy:.3g} and dim F = {ev.F.dim}", **m)
    if ev.sep.separable != multi:
        return falsified(-1.0, f"NTP-separable: {ev.sep.separable}, multiclass separable: {multi}", **m)
    return holds(1.0, f"H = 0, F = {{0}}, NTP-separable = multiclass separable = {multi}", **m)


def rem1_group(ev) -> str:
    return "separable" if ev.sep.separable else "not_separable"


def check_svm(ev, *, scale: float = 1.0) -> object:
    """Def. 3: ``W^mm`` meets (6a) and (6b) with an active constraint (smallest margin 1), lies in ℱ^⊥,
    is optimal (KKT residual), the problem has ``mV − Σ S_j`` inequalities and ``Σ S_j − m``
    equalities (anchors), the exact solution agrees with cvxpy where both apply, and no unit
    ``W ∈ ℱ^⊥`` near it has a larger smallest margin than ``1/‖W^mm‖`` (``scale``: the sabotage,
    a scaled ``W^mm`` offered as the solution)."""
    D, F = ev.data, ev.F
    W = scale * ev.w_mm
    lo, eq = margins(D, W)
    n_in, n_eq = len(margin_pairs(D)), len(anchor_pairs(D))
    S = int(D.mask.sum())
    kkt = ev.svm.kkt if scale == 1.0 else _kkt(ev, W)
    m = dict(norm=float(np.linalg.norm(W)), min_margin=lo, kkt=kkt, method=ev.svm.method)
    checks = {"(6a)": eq <= SVM_TOL, "smallest (6b) margin = 1": abs(lo - 1) <= SVM_TOL, "in F-perp": np.linalg.norm(F.project(W)) <= SVM_TOL,
              "KKT": kkt <= SVM_TOL, "constraint counts": (n_in, n_eq) == (D.m * D.V - S, S - D.m)}
    if ev.svm.method == "exact":
        checks["exact = cvxpy"] = float(np.max(np.abs(w_mm(D, "cvxpy", F).W - W))) <= 1e-7 * (1 + m["norm"])
    rng = np.random.default_rng(int(ev.instance.param("probe")))
    best = 1 / m["norm"]
    for t in (1e-3, 1e-2, 1e-1):
        for _ in range(5):
            P = W + t * m["norm"] * F.perp(rng.normal(size=W.shape)) / max(1e-300, np.sqrt(D.V * D.d))
            checks["max margin"] = checks.get("max margin", True) and margins(D, P / np.linalg.norm(P))[0] <= best * (1 + SVM_TOL)
    bad = [k for k, ok in checks.items() if not ok]
    if bad:
        return falsified(-1.0, f"W^mm fails: {', '.join(bad)}", **m)
    return holds(1.0, f"W^mm ({ev.svm.method}) feasible with margin 1, in F-perp, KKT {kkt:.2g}, no nearby unit W in F-perp does better", **m)


def _kkt(ev, W: np.ndarray) -> float:
    from ntpcheck.linear.svm import svm_problem
    from ntpcheck.common.qp.kkt import certify

    return certify(svm_problem(ev.data, ev.F), ev.F.null_basis @ W.ravel())[1].worst


def check_svm_supports_only(ev, *, use_w_star: bool = False) -> object:
    """[derived] ``W^mm`` depends on the supports only: redrawn counts with the same supports
    (seeded by the probe) give the same ``W^mm`` (``use_w_star``: the sabotage, W⋆ instead, which
    depends on p̂)."""
    D = ev.data
    rng = np.random.default_rng(int(ev.instance.param("probe")) + 1)
    other = NTPData(D.H, np.where(D.mask, rng.integers(1, 50, size=D.counts.shape), 0))
    from ntpcheck.linear.evidence import LinearEvidence

    ev2 = LinearEvidence(LinearInstance(other))
    a, b = (ev.compat.w_star, ev2.compat.w_star) if use_w_star else (ev.w_mm, ev2.w_mm)
    diff = float(np.max(np.abs(a - b), initial=0.0)) / (1 + float(np.max(np.abs(a), initial=0.0)))
    if diff > SVM_TOL:
        return falsified(-diff, f"redrawn counts with the same supports move the matrix by {diff:.3g} (relative)")
    return holds(1.0, f"same W^mm for redrawn counts (to {diff:.2g})", difference=diff)


def shared_pattern(ev) -> str | None:
    """``"shared"`` if two tokens have one support pattern (follow exactly the same contexts), else None."""
    cols = [tuple(ev.data.mask[:, v]) for v in range(ev.data.V)]
    return "shared" if len(set(cols)) < len(cols) else None


def check_svm_equal_rows(ev, *, matrix: str = "w_mm") -> object:
    """Fig. 2, general form [derived]: tokens with one support pattern have equal rows of ``W^mm``
    (the permutation swapping them maps (6) to itself and keeps the norm; the minimiser is unique)
    (``matrix="w_star"``: the sabotage, the rows of W⋆, which depend on p̂)."""
    D = ev.data
    W = ev.w_mm if matrix == "w_mm" else ev.compat.w_star
    worst_diff, pairs = 0.0, 0
    for u in range(D.V):
        for v in range(u + 1, D.V):
            if (D.mask[:, u] == D.mask[:, v]).all():
                pairs += 1
                worst_diff = max(worst_diff, float(np.linalg.norm(W[u] - W[v])) / (1 + float(np.linalg.norm(W))))
    if worst_diff > SVM_TOL:
        return falsified(-worst_diff, f"two tokens with one support pattern have rows {worst_diff:.3g} apart (relative)")
    if pairs == 0:
        return holds(1.0, "no two tokens share a support pattern (automatic)", pairs=0)
    return holds(1.0, f"{pairs} pairs of tokens with one pattern, equal rows to {worst_diff:.2g}", pairs=pairs, difference=worst_diff)


def check_svm_orthogonal(ev, *, shift: float = 0.0) -> object:
    """``⟨W⋆, W^mm⟩ = 0`` (W⋆ ∈ ℱ, W^mm ∈ ℱ^⊥; Fig. 2's "orthogonal subspaces")
    (``shift``: the sabotage, ``W⋆ + shift · W^mm``)."""
    if np.linalg.norm(ev.w_star) == 0 and shift == 0:
        return vacuous(1.0, "W* = 0 (every context has one next token): the inner product is 0 trivially")
    a, b = ev.w_star + shift * ev.w_mm, ev.w_mm
    inner = abs(float(np.sum(a * b))) / max(1e-300, float(np.linalg.norm(a) * np.linalg.norm(b)))
    if inner > SVM_TOL:
        return falsified(-inner, f"cos(W*, W^mm) = {inner:.3g}")
    return holds(1.0, f"cos(W*, W^mm) = {inner:.2g}", cosine=inner)
