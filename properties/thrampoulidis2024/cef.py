"""Checkers of §4 and App. D–E.2 that need no training: Eq. (24) and T1-pf(c), App. D's CE_ℱ
(a), (b) under both readings of R3, (c) = Eq. (13), Lemma 4 (1)–(2), R1's two statements, R11.

Tolerances: identities to ``IDENTITY_RTOL`` (:mod:`.statics`).  Limits in R
are computed exactly from the direction's logits (:func:`limit_ce`): along
``W + R Wᵈ`` an out-of-support token's share of context ``j`` tends to 0, to a
constant, or to ∞ as its logit gap to the (equal, by (6a)) in-support ones
is negative, zero or positive; a gap within ``TIE = 1e-9`` of the logits'
scale is a tie (``Wᵈ = 0`` gives exact zeros; a generic direction's gaps are O(1)).
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.special import logsumexp
from ntpcheck.linear import ce, ce_f, excess
from ntpcheck.linear.loss import ce_grad
from ntpcheck.linear.excess import directional_derivative, eq24
from ntpcheck.linear.minimize import ce_f_hessian_on_f, min_ce_f, w_b

from ..framework.checks import falsified, holds, inconclusive, inequality, vacuous
from . import bounds
from .statics import IDENTITY_RTOL, feasible_directions

__all__ = ["TIE", "check_eq24", "check_t1pf_c", "check_dcef_a", "limit_ce", "check_dcef_b", "check_eq13", "check_lemma4_1",
           "check_lemma4_2", "check_r1_strict", "check_r1_unique", "check_r11", "merged_lower_bound", "r11_group"]

TIE = 1e-9


def _scale(D, U) -> float:
    return 1.0 + float(np.sum(D.pi * 2 * np.max(np.abs(U @ D.H), axis=0)))


def check_eq24(ev, *, in_support: bool = True) -> object:
    """Eq. (24) at the probe ``W`` and ``U``: its right side, term by term, equals ``⟨−∇CE(W), U⟩``
    (``in_support=False``: the sabotage, the first sum dropped)."""
    D, W, U = ev.data, ev.probe(0), ev.probe(1)
    lhs, rhs = directional_derivative(D, W, U), eq24(D, W, U, in_support=in_support)
    err = abs(lhs - rhs) / _scale(D, U)
    if err > IDENTITY_RTOL:
        return falsified(-err, f"Eq. (24) = {rhs:.12g}, <-grad CE, U> = {lhs:.12g}")
    return holds(1.0, f"Eq. (24) = <-grad CE(W), U> to {err:.2g} (relative)", value=lhs, eq24=rhs)


def check_t1pf_c(ev, *, sign: float = 1.0) -> object:
    """T1-pf(c): ``⟨−∇CE(W), W^mm⟩ > 0`` at the finite probe ``W``: (24)'s first sum vanishes by (6a)
    and its second is positive by (6b); the gradient's value must be positive where it is above its
    rounding (``sign=-1``: the sabotage, ``−W^mm``)."""
    D, W, U = ev.data, ev.probe(0), sign * ev.w_mm
    first, second = eq24(D, W, U, out_of_support=False), eq24(D, W, U, in_support=False)
    value = directional_derivative(D, W, U)
    scale = _scale(D, U)
    noise = 1e-14 * scale
    m = dict(first=first, second=second, value=value)
    if abs(first) > IDENTITY_RTOL * scale:
        return falsified(-abs(first), f"(24)'s first sum is {first:.3g}, not 0", **m)
    if value <= 0 and second > 100 * noise or second < 0:
        return falsified(min(value, second), f"<-grad CE(W), W^mm> = {value:.3g} (second sum {second:.3g})", **m)
    if second <= 100 * noise:
        return vacuous(value, f"the second sum ({second:.3g}) is at the gradient's rounding level", **m)
    return holds(value / scale, f"<-grad CE(W), W^mm> = {value:.3g} > 0; first sum {first:.2g}", **m)


def check_dcef_a(ev) -> object:
    """App. D (a): ``CE(W) ≥ CE_ℱ(W)`` at the probe ``W`` (literal sums)."""
    D, W = ev.data, ev.probe(0)
    return inequality(ce_f(D, W), ce(D, W), what="CE_F(W) <= CE(W)")


def limit_ce(D, W: np.ndarray, Wd: np.ndarray) -> float:
    """``lim_{R→∞} CE(W + R Wᵈ)`` for ``Wᵈ`` meeting (6a) (module docstring): ``CE_ℱ(W)`` plus, per
    context, ``π̂_j log(1 + Σ_{ties} e^{ℓ_v − LSE_𝒮(ℓ)})``, or ``+inf`` if some out-of-support logit
    of ``Wᵈ`` exceeds the in-support one."""
    L, G = (W @ D.H).T, (Wd @ D.H).T
    tie = TIE * (1.0 + float(np.max(np.abs(G), initial=0.0)))
    total = ce_f(D, W)
    for j in range(D.m):
        if D.mask[j].all():
            continue
        gaps = G[j, ~D.mask[j]] - np.mean(G[j, D.mask[j]])
        if np.any(gaps > tie):
            return float("inf")
        ties = np.abs(gaps) <= tie
        if ties.any():
            total += D.pi[j] * float(np.log1p(np.exp(logsumexp(L[j, ~D.mask[j]][ties]) - logsumexp(L[j, D.mask[j]]))))
    return total


def check_dcef_b(ev, *, reading: str, flip: bool = False) -> object:
    """App. D (b): for ``W ∈ ℱ`` (``P_ℱ`` of the probe) and ``Wᵈ``, ``CE_ℱ(W) = lim_R CE(W + R Wᵈ)``.
    Reading ``"A"`` (as printed, ``Wᵈ`` meets (6a) only): ``Wᵈ`` = 0 and ``P_⊥`` of a probe; reading
    ``"B"`` (``Wᵈ`` meets (6)): :func:`.statics.feasible_directions`, where also the numerical CE along
    the path approaches the limit (below 1e-20 at ``R = M‖W‖ + 50``) (``flip``: the sabotage, ``−Wᵈ``)."""
    D = ev.data
    W = ev.F.project(ev.probe(0))
    target = ce_f(D, W)
    limits, targets = [], []
    dirs = [("W^d = 0", np.zeros_like(W)), ("W^d = P_perp(probe)", ev.F.perp(ev.probe(1)))] if reading == "A" else feasible_directions(ev)
    for name, Wd in dirs:
        Wd = -Wd if flip else Wd
        lim = limit_ce(D, W, Wd)
        limits.append(lim)
        targets.append(target)
        if not abs(lim - target) <= IDENTITY_RTOL * (1 + abs(target)):
            return falsified(-1.0, f"{name}: lim CE(W + R W^d) = {lim:.6g}, CE_F(W) = {target:.6g}", limit=lim, ce_f=target,
                             limits=limits, targets=targets)
        if reading == "B":
            R = bounds.M_const(D.H) * float(np.linalg.norm(W)) + 50.0
            gap = excess(D, W + R * Wd).out_of_support
            if gap > 1e-20:
                return falsified(-gap, f"{name}: CE(W + R W^d) - CE_F(W) = {gap:.3g} at R = {R:.4g}")
    return holds(1.0, f"lim CE(W + R W^d) = CE_F(W) = {target:.6g} for every W^d tried", limits=limits, targets=targets)


def check_eq13(ev, *, offset: float = 0.0) -> object:
    """Eq. (13): ``inf_{W∈ℱ} CE_ℱ = inf_W CE = ℋ``: CE_ℱ(W⋆) = ℋ, CE and CE_ℱ are ≥ ℋ at the probe, and
    ``CE(W⋆ + R W^mm) − ℋ`` is below 1e-20 at ``R = M‖W⋆‖ + 50`` (so inf CE = ℋ) (``offset``: the
    sabotage, W⋆ moved within ℱ)."""
    D = ev.data
    at_star = excess(D, ev.w_star + offset * ev.F.project(ev.probe(1))).in_support
    probe = excess(D, ev.probe(0))
    R = bounds.M_const(D.H) * float(np.linalg.norm(ev.w_star)) + 50.0
    far = excess(D, ev.w_star + R * ev.w_mm).total
    m = dict(at_w_star=at_star, far=far)
    if at_star > 1e-20 or probe.in_support < 0 or probe.total < 0 or far > 1e-20:
        return falsified(-1.0, f"CE_F(W*) - H = {at_star:.3g}, CE(W* + R W^mm) - H = {far:.3g}", **m)
    return holds(1.0, f"CE_F(W*) - H = {at_star:.2g}; CE(W* + {R:.3g} W^mm) - H = {far:.2g}", **m)


def check_lemma4_1(ev, *, offset: float = 0.0) -> object:
    """Lemma 4 (1): ``CE_ℱ(W⋆) = inf_{W∈ℱ} CE_ℱ = ℋ``: the value at W⋆ and a lower bound ℋ at ``P_ℱ(probe)``
    (``offset``: the sabotage, W⋆ moved within ℱ)."""
    D = ev.data
    at_star = excess(D, ev.w_star + offset * ev.F.project(ev.probe(1))).in_support
    other = excess(D, ev.F.project(ev.probe(0))).in_support
    if at_star > 1e-20 or other < 0:
        return falsified(-1.0, f"CE_F(W*) - H = {at_star:.3g}; at another point of F {other:.3g}")
    return holds(1.0, f"CE_F(W*) - H = {at_star:.2g} <= CE_F(W) - H = {other:.3g} at a point of F", at_w_star=at_star, other=other)


def check_lemma4_2(ev, *, offset: float = 0.0) -> object:
    """Lemma 4 (2): W⋆ is the unique minimiser of CE_ℱ on ℱ: BFGS over ℱ from ``P_ℱ(probe)`` ends at W⋆
    within ``10 ‖∇‖/μ + 1e-9`` (``μ``: the smallest Hessian eigenvalue on ℱ there), and ``μ > 0`` at W⋆
    (a strict minimiser of a convex function is the unique one) (``offset``: the sabotage, W⋆ moved)."""
    D, F = ev.data, ev.F
    if F.dim == 0:
        return vacuous(1.0, "F = {0}: W* = 0 is the only point of F")
    target = ev.w_star + offset * F.project(ev.probe(1))
    mu_star = float(np.linalg.eigvalsh(ce_f_hessian_on_f(D, ev.w_star, F))[0])
    got = min_ce_f(D, F, ev.probe(0))
    dist = float(np.linalg.norm(got.W - target))
    tol = 10 * got.grad_norm / max(got.mu, 1e-300) + 1e-9 * (1 + float(np.linalg.norm(target)))
    m = dict(distance=dist, tolerance=tol, mu=mu_star, grad_norm=got.grad_norm)
    if not mu_star > 0:
        return falsified(-1.0, f"the Hessian of CE_F on F at W* is singular (mu = {mu_star:.3g})", **m)
    if dist > tol:
        return falsified(-dist, f"the minimiser of CE_F over F is {dist:.3g} from W* (tolerance {tol:.2g})", **m)
    return holds(1.0, f"BFGS over F ends {dist:.2g} from W*; Hessian on F at W* has mu = {mu_star:.3g} > 0", **m)


def check_r1_strict(ev) -> object:
    """R1 (§4): "CE is strictly convex": the midpoint inequality along ``U = 1uᵀ`` (every logit of every
    context shifted by ``uᵀh̄_j``, which the softmax ignores) must be strict."""
    D, W = ev.data, ev.probe(0)
    U = np.outer(np.ones(D.V), ev.probe(1)[0] + (0 if np.any(ev.probe(1)[0]) else 1.0))
    a, b, mid = ce(D, W), ce(D, W + U), ce(D, W + U / 2)
    gap = (a + b) / 2 - mid
    if gap <= IDENTITY_RTOL * (1 + abs(a)):
        return falsified(-1.0, f"CE is constant along W + t 1u^T: CE = {a:.12g}, {mid:.12g}, {b:.12g} at t = 0, 1/2, 1", gap=gap)
    return holds(gap, f"strict midpoint gap {gap:.3g}")


def check_r1_unique(ev) -> object:
    """R1 (§4): "Ŵ_B is unique", by the KKT argument of :mod:`ntpcheck.linear.minimize` (not strict
    convexity): at Ŵ_B (B = 2) the constraint is active (``‖Ŵ_B‖ = B``, T1-pf(a)) and
    ``−∇CE(Ŵ_B) = λŴ_B`` with ``λ > 0``."""
    D = ev.data
    for B in (2.0,):
        sol = w_b(D, B, ev.probe(0) * (B / max(1e-300, float(np.linalg.norm(ev.probe(0))))) / 2)
        norm = float(np.linalg.norm(sol.W))
        grad = float(np.linalg.norm(ce_grad(D, sol.W)))
        if grad <= 1e-8:
            return falsified(-1.0, f"at B = {B}: grad CE(W_B) = {grad:.2g}, an interior minimiser: every W_B + U with U in "
                                   "F-perp inside the ball minimises too")
        if sol.kkt > 1e-5:
            return inconclusive(f"SLSQP stopped with KKT residual {sol.kkt:.2g} at B = {B}")
        if not sol.lam > 0 or abs(norm - B) > 1e-6 * B:
            return falsified(-1.0, f"at B = {B}: ||W_B|| = {norm:.6g}, lambda = {sol.lam:.3g}: the minimiser need not be unique")
    return holds(1.0, "at B = 2: ||W_B|| = B and -grad CE = lambda W_B with lambda > 0 (unique)", lam=float(sol.lam), norm=norm)


def merged_lower_bound(D) -> float:
    """A lower bound on ``inf CE_ℱ``: contexts with one embedding and one support share their in-support
    softmax, so their part of CE_ℱ is at least ``π̂_G`` times the entropy of their pooled ``p̂``."""
    groups: dict = {}
    for j in range(D.m):
        groups.setdefault((D.H[:, j].tobytes(), D.mask[j].tobytes()), []).append(j)
    lb = 0.0
    for js in groups.values():
        c = D.counts[js].sum(axis=0)
        p = c[c > 0] / c.sum()
        lb -= float(D.pi[js].sum() * np.sum(p * np.log(p)))
    return lb


def r11_group(ev) -> str:
    return "compatible" if ev.compat.compatible else "not_compatible"


def check_r11(ev, *, trust: bool = False) -> object:
    """R11 (§3, §1.1): reaching ℋ requires NTP_ℋ-compatibility: on compatible data ``CE_ℱ(W⋆) = ℋ``
    ((3a) holds at W⋆); on incompatible data ``inf CE_ℱ ≥ LB > ℋ`` (:func:`merged_lower_bound`), so
    CE ≥ CE_ℱ stays away from ℋ and (3a) holds nowhere (inconclusive where LB cannot show it)
    (``trust``: the sabotage, every instance taken as compatible)."""
    D = ev.data
    H = ev.entropy
    if ev.compat.compatible or trust:
        at_star = excess(D, ev.compat.w_star).in_support
        if at_star > 1e-20:
            return falsified(-at_star, f"compatible, yet CE_F(W*) - H = {at_star:.3g}")
        return holds(1.0, f"compatible: (3a) holds at W* (CE_F(W*) - H = {at_star:.2g})", at_w_star=at_star)
    lb = merged_lower_bound(D) - H
    found = min_ce_f(D, ev.F, ev.probe(0)).value - H
    if found < lb - 1e-9:
        return falsified(-1.0, f"incompatible: CE_F reaches H + {found:.3g}, below the bound H + {lb:.3g}")
    if lb <= 1e-12:
        return inconclusive(f"incompatible, but the pooled-entropy bound cannot separate inf CE_F from H (BFGS: H + {found:.3g})")
    return holds(1.0, f"incompatible: inf CE_F >= H + {lb:.3g} (BFGS reaches H + {found:.3g})", lower_bound=lb, found=found)
