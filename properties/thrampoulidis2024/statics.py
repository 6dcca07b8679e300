"""Checkers of §2–3 of Thrampoulidis (2024): Eq. (2), Def. 1's constraint count, Fn. 6, Eq. (7), Prop. 1.

Each takes the evidence of one instance (:class:`ntpcheck.linear.evidence.LinearEvidence`)
and returns an :class:`~..framework.verdicts.Outcome`.

Tolerances: identities are computed in float64 from a handful of matrix
products of O(1) entries (probe scales up to 10, embeddings of norm ≤ ~3), so
rounding stays below ~1e-13 of the quantities' scale; ``IDENTITY_RTOL = 1e-9``
leaves four orders of margin and still rejects every sabotage (which changes
the quantity at O(1/n) or more).
"""

from __future__ import annotations

import numpy as np
from scipy.special import rel_entr

from ntpcheck.linear import ce, entropy, excess
from ntpcheck.linear.subspace import anchor_pairs, anchor_rows, pair_rows
from ntpcheck.linear.svm import margin_pairs, margins
from ntpcheck.common.special import log_softmax, logsumexp, softmax

from ..framework.checks import falsified, holds, inequality, vacuous, worst
from . import bounds

__all__ = ["IDENTITY_RTOL", "GAMMAS", "P1_GAMMAS", "feasible_directions", "check_e2", "check_d1_ind", "check_fn6",
           "check_eq7", "check_prop1_limit", "check_prop1_rate"]

IDENTITY_RTOL = 1e-9
#: Eq. (7)'s grid of γ: out to 200, where 𝕊_v e^γ of an active constraint with one in-support token is 1 − O(e^-200).
GAMMAS = np.array([0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0])
#: Prop. 1's grid: out to 50, where the bound (≥ e^-50 ≈ 2e-22) is still far above the second-order
#: rounding of the in-support excess (~(γ · 1e-16)² ≤ 1e-28, :mod:`ntpcheck.linear.excess`).
P1_GAMMAS = np.array([0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 35.0, 50.0])


def feasible_directions(ev) -> list[tuple[str, np.ndarray]]:
    """Matrices meeting (6): ``W^mm``, and ``W^mm + P_⊥(probe 1)`` rescaled to smallest margin 1
    (a random feasible point; left out when the perturbation leaves no positive margin)."""
    out = [("W^mm", ev.w_mm)]
    W = ev.w_mm + ev.F.perp(ev.probe(1)) / max(1.0, float(np.linalg.norm(ev.probe(1))))
    lo, _ = margins(ev.data, W)
    if np.isfinite(lo) and lo > 0:
        out.append(("a random point of (6)", W / lo))
    return out


def check_e2(ev, *, kl_in_support: bool = False) -> object:
    """Eq. (2) with ``CE(W) = ℋ + Σ_j π̂_j KL(p̂_j ‖ 𝕊(W h̄_j))`` and ``CE(W) > ℋ`` at the probe ``W``
    (``kl_in_support``: the sabotage, a KL against the softmax renormalised on the support)."""
    D, W = ev.data, ev.probe(0)
    logits = W @ D.H
    q = softmax(logits, axis=0).T
    if kl_in_support:
        q = np.where(D.mask, q, 0.0)
        q = q / q.sum(axis=1, keepdims=True)
    kl = float(np.sum(D.pi[:, None] * rel_entr(D.P, np.where(D.mask, q, 1.0))))
    literal = -float(np.sum(D.pi[:, None] * np.where(D.mask, D.P * log_softmax(logits, axis=0).T, 0.0)))
    value, H = ce(D, W), entropy(D)
    scale = 1.0 + abs(value)
    gap = excess(D, W).total
    m = dict(ce=value, entropy=H, kl=kl, gap=gap)
    for what, err in (("Eq. (2): CE as a sum over the support", abs(value - literal)), ("CE = H + KL", abs(value - H - kl))):
        if err > IDENTITY_RTOL * scale:
            return falsified(-err / scale, f"{what}: off by {err:.3g} (CE = {value:.12g})", **m)
    if not gap > 0:
        return falsified(0.0, f"CE(W) = H at a finite W (gap {gap:.3g})", **m)
    return holds(1.0, f"CE = H + KL to {abs(value - H - kl):.2g}; CE - H = {gap:.3g} > 0", **m)


def check_d1_ind(ev, *, count_offset: int = 0) -> object:
    """Def. 1 / Def. 2's constraint counts: per context, the constraints (4) for all pairs span the
    same space as the anchor ones, of dimension ``S_j − 1``; (6a) and (6b) together span ``V − 1``
    dimensions (``h̄_j ≠ 0``); and (4)'s anchor form has the solutions of the all-pairs form
    (``count_offset``: the sabotage, a count off by that much)."""
    D = ev.data
    claimed, ranks = [], []  # per context: (S_j - 1, rank of its anchor rows) and (V - 1, rank with (6b)); the figure's points
    for j, s in enumerate(D.supports):
        if not np.any(D.H[:, j]):
            continue
        anchors = [p for p in anchor_pairs(D) if p[0] == j]
        pairs = [(j, z, v) for z in s for v in s if z != v]
        outs = [p for p in margin_pairs(D) if p[0] == j]
        r_anchor = np.linalg.matrix_rank(pair_rows(D, anchors)) if anchors else 0
        r_pairs = np.linalg.matrix_rank(pair_rows(D, pairs)) if pairs else 0
        r_all = np.linalg.matrix_rank(pair_rows(D, anchors + outs)) if anchors + outs else 0
        want = len(s) - 1 + count_offset
        claimed += [want, D.V - 1 + count_offset]
        ranks += [int(r_anchor), int(r_all)]
        if not r_anchor == r_pairs == want or r_all != D.V - 1 + count_offset:
            return falsified(-1.0, f"context {j + 1}: ranks {r_anchor} (anchors), {r_pairs} (all pairs), {r_all} with (6b); "
                                   f"claimed {want} and {D.V - 1 + count_offset}", context=j)
    if ev.compat.compatible:
        A, b = anchor_rows(D)
        pairs = [(j, z, v) for j, s in enumerate(D.supports) for z in s for v in s if z != v]
        if pairs:
            W = ev.compat.w_star
            rhs = np.array([np.log(D.counts[j, z] / D.counts[j, v]) for j, z, v in pairs])
            err = float(np.max(np.abs(pair_rows(D, pairs) @ W.ravel() - rhs)))
            if err > IDENTITY_RTOL * (1 + np.max(np.abs(rhs))):
                return falsified(-err, f"the anchor solution misses an all-pairs constraint of (4) by {err:.3g}")
    return holds(1.0, "per context: S_j - 1 independent constraints for (4), V - 1 with (6b); anchors give every pair",
                 claimed=claimed, ranks=ranks)


def check_fn6(ev, *, perturb: float = 0.0) -> object:
    """Fn. 6: W⋆ lies in ℱ and solves (4); every ``W⋆ + U`` with ``U ∈ ℱ^⊥`` solves (4) and projects
    to W⋆ (so W⋆ is the only solution in ℱ), and its in-support softmax ratios are p̂'s
    (``perturb``: the sabotage, W⋆ moved within ℱ)."""
    D, F = ev.data, ev.F
    W = ev.w_star + perturb * F.project(ev.probe(0))
    A, b = anchor_rows(D)
    U = F.perp(ev.probe(1))
    scale = 1.0 + float(np.max(np.abs(b), initial=0.0)) + float(np.linalg.norm(W)) * float(np.max(np.linalg.norm(D.H, axis=0)))
    errs = {"W* in F": float(np.linalg.norm(F.perp(W))) / (1 + float(np.linalg.norm(W))),
            "W* solves (4)": float(np.max(np.abs(A @ W.ravel() - b), initial=0.0)) / scale,
            "W* + U solves (4)": float(np.max(np.abs(A @ (W + U).ravel() - b), initial=0.0)) / scale,
            "P_F(W* + U) = W*": float(np.linalg.norm(F.project(W + U) - W)) / (1 + float(np.linalg.norm(W)))}
    q = np.where(D.mask, softmax((W + U) @ D.H, axis=0).T, 0.0)
    errs["in-support softmax = p"] = float(np.max(np.abs(q / q.sum(axis=1, keepdims=True) - D.P)))
    bad = {k: v for k, v in errs.items() if v > IDENTITY_RTOL}
    if bad:
        k = max(bad, key=bad.get)
        return falsified(-bad[k], f"{k}: off by {bad[k]:.3g} (relative)", **errs)
    return holds(1.0, f"W* in F solves (4); so does W* + U for U in F-perp, which projects back to W* (worst {max(errs.values()):.2g})", **errs)


def _log_out_probs(L: np.ndarray, mask: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """``max_{v∉𝒮} log 𝕊_v(γ ℓ)`` for each γ (logits ``ℓ`` of one context)."""
    G = gamma[:, None] * L[None, :]
    return np.max(G[:, ~mask], axis=1) - logsumexp(G, axis=1)


def check_eq7(ev) -> object:
    """Eq. (7): ``𝕊_v(γ Wᵈ h̄_j) ≤ e^{−γ}`` for ``v ∉ 𝒮_j``, every ``γ`` of :data:`GAMMAS`, for
    ``Wᵈ`` = ``W^mm`` and a random point of (6); compared as ``𝕊_v / e^{−γ} ≤ 1``."""
    D = ev.data
    ratios, what = [], []
    for name, Wd in feasible_directions(ev):
        L = (Wd @ D.H).T
        for j in range(D.m):
            if D.mask[j].all():
                continue
            ratios.append(np.exp(_log_out_probs(L[j], D.mask[j], GAMMAS) - bounds.eq7_log_bound(GAMMAS)))
            what.append(name)
    if not ratios:
        return vacuous(1.0, "every context has full support: Eq. (7) has no out-of-support token")
    return inequality(np.concatenate(ratios), 1.0, what="S_v(gamma W^d h_j) / e^-gamma <= 1 (Eq. 7)")


def _path(ev):
    """Per pair (``Wᵖ``, ``Wᵈ``): ``Wᵖ`` = W⋆ or ``W⋆ + P_⊥(probe 2)`` (solutions of (4)), ``Wᵈ`` from
    :func:`feasible_directions`, and along ``γ = M‖Wᵖ‖ + P1_GAMMAS`` the gap ``CE − ℋ`` as the
    in-support part at ``Wᵖ`` plus the out-of-support part at ``Wᵖ + γ Wᵈ``: (6a) leaves the in-support
    differences unchanged, so the first is exact, where recomputing it at ``Wᵖ + γ Wᵈ`` would add
    rounding of order ``(γ ‖Wᵈ h̄‖ 1e-16)²``."""
    D = ev.data
    M = bounds.M_const(D.H)
    out = []
    for Wp in (ev.w_star, ev.w_star + ev.F.perp(ev.probe(2))):
        gammas = M * float(np.linalg.norm(Wp)) + P1_GAMMAS
        inside = excess(D, Wp).in_support
        for name, Wd in feasible_directions(ev):
            outside = np.array([excess(D, Wp + g * Wd).out_of_support for g in gammas])
            out.append((Wp, name, gammas, inside, outside))
    return out


def check_prop1_limit(ev) -> object:
    """Prop. 1: ``CE(W) > ℋ`` at finite ``W`` (the probe, and every point of the path), and
    ``CE(Wᵖ + γ Wᵈ) → ℋ``: the out-of-support gap falls strictly along γ (its derivative is
    ``⟨∇CE, Wᵈ⟩ < 0``, (24)) until it underflows, and the gap at the end of the path is below
    1e-20, far below what float64 resolves of CE itself."""
    D = ev.data
    start = excess(D, ev.probe(0)).total
    if not start > 0:
        return falsified(-1.0, f"CE(W) = H at the finite probe W (gap {start:.3g})")
    outcomes = []
    for Wp, name, gammas, inside, outside in _path(ev):
        k = int(np.argmax(outside <= 0)) if np.any(outside <= 0) else len(outside)  # underflowed from k on
        if np.any(outside[k:] > 0) or np.any(np.diff(outside[:k]) >= 0):
            return falsified(-1.0, f"along W^p + gamma {name} the out-of-support gap does not fall", gaps=outside.tolist())
        if not D.mask.all() and outside[0] <= 0:
            return falsified(-1.0, f"CE = H at a finite point of W^p + gamma {name}")
        outcomes.append(inequality(inside + outside[-1], 1e-20, what=f"CE - H at gamma = {gammas[-1]:.4g} along {name} <= 1e-20"))
    return worst(*outcomes)


def check_prop1_rate(ev) -> object:
    """Prop. 1's quantitative form: ``CE(Wᵖ + γ Wᵈ) − ℋ ≤ V e^{M‖Wᵖ‖} e^{−γ}`` along each path of
    :func:`_path`, compared as gap / bound ≤ 1 (:func:`.bounds.prop1_log_bound`)."""
    D = ev.data
    M = bounds.M_const(D.H)
    ratios = []
    for Wp, _, gammas, inside, outside in _path(ev):
        log_bound = bounds.prop1_log_bound(gammas, float(np.linalg.norm(Wp)), D.V, M)
        ratios.append(np.exp(np.log(np.maximum(inside + outside, 1e-300)) - log_bound))
    return inequality(np.concatenate(ratios), 1.0, what="(CE(W^p + gamma W^d) - H) / (V e^{M ||W^p||} e^-gamma) <= 1")
