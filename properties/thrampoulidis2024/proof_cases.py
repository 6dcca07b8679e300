"""T1-pf (e): the case analysis in the proof of Theorem 1 (§4 and App. E.2.1), as pointwise lower bounds.

The proof writes a path point as ``Ŵ_B = W⋆ + R′Ŵ`` with ``‖Ŵ‖ = ‖W^mm‖``; if ``Ŵ ≠ W^mm``, then for
some ``δ ∈ (0, 1)`` and context ``j`` either (i) two tokens ``z, z′ ∈ 𝒮_j`` have
``|(e_z − e_{z′})ᵀŴh̄_j| ≥ δ``, or (ii) ``Ŵ ∈ ℱ^⊥`` and some ``z ∈ 𝒮_j``, ``v ∉ 𝒮_j`` have
``(e_z − e_v)ᵀŴh̄_j ≤ 1 − δ``; and it bounds ``CE − ℋ`` from below in each case
(:mod:`.bounds`: :func:`~.bounds.case_i_bound`, :func:`~.bounds.case_ii_log_bound`).  Those
bounds are statements about any ``W = W⋆ + R′Ŵ`` meeting the case's condition, so they are
checked at such points: ``Ŵ = ‖W^mm‖(cos θ W̄^mm + sin θ U)`` for ``θ ∈ {π/8, π/4, 3π/8}``, ``U``
a unit direction orthogonal to ``W^mm`` drawn (by the instance's ``probe`` seed) in ℱ for
case (i) and in ℱ^⊥ for case (ii) (the ``W^mm`` part keeps the out-of-support logits low,
where case (i)'s bound is at its tightest), and ``R′`` on :data:`R_GRID`.  At each point
the strongest bound the case offers (the largest over the pairs that meet its condition) is
compared with ``CE − ℋ`` computed without cancellation (:mod:`ntpcheck.linear.excess`).

Case (i) as printed is false: it keeps one term of (10) and drops the others, some of
which are negative.  One context followed by ``A`` and ``B`` once each (``n = 2``), ``V = 3``:
at ``R′δ = x`` the divergence is ``½ log(1 + e^x) + ½ log(1 + e^{−x}) − log 2 ≈ x/2 − log 2``,
the printed bound ``(x − log 2)/2``.  The divergence does give a bound of the same growth
(:func:`~.bounds.case_i_corrected`), so the proof's contradiction stands.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ntpcheck.linear import LinearInstance, NTPData
from ntpcheck.linear.excess import excess

from ..framework.checks import RTOL, falsified, holds, outside, tighten
from ..framework.claim import Claim, Finding, Tighten
from ..framework.parts import Part
from ..framework.verdicts import Verdict
from .bounds import M_const, c_prime, case_i_bound, case_i_corrected, case_ii_log_bound
from .examples import toy
from .logcheck import log_inequality
from .setups import HYP

__all__ = ["R_GRID", "ANGLES", "directions", "check_case_i", "check_case_ii", "case_i_counterexample", "case_instances",
           "PROOF_CASE_CLAIMS"]

#: ``R′`` at which the cases' bounds are checked (from inside the path's range to far beyond it).
R_GRID = np.geomspace(0.5, 60.0, 12)
#: Angles between ``Ŵ`` and ``W^mm``.
ANGLES = (np.pi / 8, np.pi / 4, 3 * np.pi / 8)


def case_instances(profile: str):
    """Data meeting the hypotheses (as Thm. 1's) with a drawn ``probe`` seed for the direction ``U``; half of
    the draws are small (a third one context followed by two tokens, :func:`_two_tokens`, the third the
    examples shrink to; a third one or two contexts and at most three tokens), where a count-1 token
    makes ``π̂_j p̂_{j,z} = 1/n`` and case (i)'s printed bound is at its tightest."""
    from ntpcheck.strategies import linear_instances

    from .setups import SIZES

    data = st.one_of(_two_tokens(), linear_instances(max_contexts=2, max_vocab=3, max_extra_dims=1),
                     linear_instances(**SIZES[profile]))
    return st.builds(lambda inst, p: inst.with_params(probe=p), data, st.integers(0, 5))


def _two_tokens() -> st.SearchStrategy[LinearInstance]:
    """One context (a unit vector in ``R^d``, ``d`` 1-3) followed by ``A`` once and ``B`` once or twice, ``V`` 3-4
    (the other tokens never follow): the smallest data with a count-1 token in a two-token support,
    shrinking to ``h̄ = 1``, ``A, B``, ``V = 3``."""
    def make(d: int, seed: int, b: int, V: int) -> LinearInstance:
        h = np.ones((1, 1)) if d == 1 and seed == 0 else np.random.default_rng(seed).normal(size=(d, 1))
        counts = np.zeros((1, V), dtype=int)
        counts[0, :2] = (1, b)
        return LinearInstance(NTPData(h / np.linalg.norm(h), counts))

    return st.builds(make, st.integers(1, 3), st.integers(0, 100), st.integers(1, 2), st.integers(3, 4))


def case_score(ev) -> float:
    """How close case (i)'s printed bound came to failing (larger is closer): minus its slack; -2 where
    the case is empty.  Steers the search."""
    o = check_case_i(ev)
    return -2.0 if o.verdict.value == "outside-hypotheses" else -float(o.slack)


def directions(ev, within: str) -> list[np.ndarray]:
    """``Ŵ = ‖W^mm‖(cos θ W̄^mm + sin θ U)`` for ``θ`` in :data:`ANGLES`, ``U`` a unit direction orthogonal to
    ``W^mm`` in ℱ (``within="F"``) or ℱ^⊥ (``"perp"``), seeded by the instance's ``probe``; [] where there
    is none (ℱ = {0}, or ℱ^⊥ spanned by ``W^mm`` and the logit-free directions)."""
    refs, D = ev.references, ev.data
    rng = np.random.default_rng([int(ev.instance.param("probe")), 7])
    G = rng.normal(size=(D.V, D.d))
    PF = refs.project(G)
    U = PF if within == "F" else G - PF
    U = U - U.mean(axis=0, keepdims=True)             # no part along W + 1u^T, which moves no logit
    w = ev.w_mm / np.linalg.norm(ev.w_mm)
    U = U - np.sum(U * w) * w
    if np.linalg.norm(U @ D.H) < 1e-9 * max(1.0, np.linalg.norm(U)):
        return []
    U = U / np.linalg.norm(U)
    return [float(np.linalg.norm(ev.w_mm)) * (np.cos(a) * w + np.sin(a) * U) for a in ANGLES]


def _needs(ev):
    if not (ev.compat.compatible and ev.sep.separable and (~ev.data.mask).any()):
        return outside("the data are not compatible and separable with some S_j < V")
    return None


def check_case_i(ev, *, corrected: bool = False):
    """Case (i) at ``W = W⋆ + R′Ŵ``, ``Ŵ`` with a part in ℱ (module docstring): ``CE − ℋ`` against the
    largest bound over the ordered pairs ``z, z′ ∈ 𝒮_j`` with ``δ = (e_{z′} − e_z)ᵀŴh̄_j > 0``
    (as printed, or ``corrected``)."""
    if (o := _needs(ev)) is not None:
        return o
    D = ev.data
    Ws = directions(ev, "F")
    if not Ws:
        return outside("no context has two next tokens (F = {0}): case (i) is empty")
    n, worst = int(D.counts.sum()), None
    for a, What in zip(ANGLES, Ws):
        L = What @ D.H                                  # (V, m): the logits of W-hat
        for R in R_GRID:
            lhs = float(excess(D, ev.w_star + R * What).total)
            best = -np.inf
            for j in range(D.m):
                S = np.flatnonzero(D.mask[j])
                for z in S:
                    for zp in S:
                        delta = L[zp, j] - L[z, j]
                        if zp == z or delta <= 0:
                            continue
                        b = (case_i_corrected(R, delta, D.pi[j], D.P[j, z], D.P[j, zp]) if corrected
                             else case_i_bound(R, delta, n))
                        best = max(best, float(tighten(float(b), ">=")))
            if best == -np.inf:
                continue
            slack = (lhs - best) / max(1.0, abs(best))
            if worst is None or slack < worst[0]:
                worst = (slack, R, a, lhs, best)
    if worst is None:
        return outside("no pair of next tokens is separated by W-hat: case (i) is empty")
    slack, R, a, lhs, best = worst
    what = "case (i) " + ("(corrected)" if corrected else "as printed")
    m = {"R": R, "theta": a, "excess": lhs, "bound": best}
    if slack < -RTOL:
        return falsified(slack, f"{what}: at R' = {R:.4g}, theta = {a:.3g}: CE - H = {lhs:.6g} < bound {best:.6g}", **m)
    return holds(slack, f"{what}: CE - H >= its bound at {len(R_GRID) * len(Ws)} points, closest at R' = {R:.4g} "
                        f"({lhs:.6g} >= {best:.6g})", **m)


def check_case_ii(ev):
    """Case (ii) at ``W = W⋆ + R′Ŵ``, ``Ŵ ∈ ℱ^⊥`` (so ``P_ℱW = W⋆``, as the proof assumes there): ``CE − ℋ``
    against the largest ``c′e^{−R′(1−δ)}/(2n²)`` over ``z ∈ 𝒮_j``, ``v ∉ 𝒮_j`` with
    ``δ = 1 − (e_z − e_v)ᵀŴh̄_j ∈ (0, 1)``, compared in logs."""
    if (o := _needs(ev)) is not None:
        return o
    D = ev.data
    Ws = directions(ev, "perp")
    if not Ws:
        return outside("F-perp holds no direction off W^mm that moves a logit: case (ii) is empty")
    n = int(D.counts.sum())
    cp = c_prime(M_const(D.H), float(np.linalg.norm(ev.w_star)))
    log_lhs, log_rhs, where = [], [], []
    for What in Ws:
        L = What @ D.H
        deltas = [1.0 - (L[z, j] - L[v, j]) for j in range(D.m) for z in np.flatnonzero(D.mask[j])
                  for v in np.flatnonzero(~D.mask[j])]
        deltas = [x for x in deltas if 0.0 < x < 1.0]
        if not deltas:
            continue
        for R in R_GRID:
            log_lhs.append(float(np.max(case_ii_log_bound(R, np.array(deltas), cp, n))))
            log_rhs.append(float(np.log(excess(D, ev.w_star + R * What).total)))
            where.append(R)
    if not where:
        return outside("no out-of-support pair has (e_z - e_v)^T W-hat h_j in (0, 1): case (ii) is empty")
    return log_inequality(np.array(log_lhs), np.array(log_rhs), np.array(where),
                          "case (ii): c' e^{-R'(1-delta)}/(2n^2) <= CE - H at W* + R' W-hat (R' shown)")


def case_i_counterexample() -> LinearInstance:
    """One context ``h̄ = 1`` followed by ``A`` and ``B`` once each, ``V = 3`` (``C`` never follows):
    ``W⋆ = 0``, and at ``R′δ`` large the divergence ``≈ R′δ/2 − log 2`` falls ``½ log 2`` short of the
    printed ``(R′δ − log 2)/2``."""
    return LinearInstance(NTPData(np.array([[1.0]]), np.array([[1, 1, 0]])))


CASE_I_FINDING = Finding(
    "Case (i) of Thm. 1's proof (§4, App. E.2.1) as printed, CE(W) >= H + (1/n) log(e^{R'delta}/n), keeps one term "
    "of (10) and drops the others, some of which are negative (tokens whose probability exceeds p-hat): one context "
    "followed by A and B once each, V = 3: at R'delta = 3.0 the divergence is 0.86 < 1.16. The KL divergence gives "
    "CE - H >= pi_j [p_z (R'delta + log p_z') + (1 - p_z) log(1 - p_z)], of the same growth in R': the contradiction, "
    "and Thm. 1, stand", case_i_counterexample)

PARTS_II = (Part("c'", "constant", "c' = e^{-||W*|| M} of case (ii)"), Part("2n^2", "constant", "the 2n^2 of case (ii)"))

PROOF_CASE_CLAIMS = (
    Claim("T1-pf", "App. E.2.1", "(e)(i) as printed: CE(W* + R'W) >= H + (1/n) log(e^{R'delta}/n) where |(e_z - e_z')^T W h_j| "
          ">= delta, z, z' in S_j, ||W|| = ||W^mm||", HYP, case_instances, check_case_i, setup=lambda i: i,
          reading="(e)(i) as printed", expect=Verdict.FALSIFIED, finding=CASE_I_FINDING, examples=(case_i_counterexample,),
          score=case_score),
    Claim("T1-pf", "App. E.2.1 (corrected)", "(e)(i) as the KL divergence gives it: CE - H >= pi_j [p_z (R'delta + log p_z') "
          "+ (1 - p_z) log(1 - p_z)]", HYP, case_instances, lambda ev: check_case_i(ev, corrected=True),
          setup=lambda i: i, reading="(e)(i) corrected", sabotage=Tighten(on=case_i_counterexample)),
    Claim("T1-pf", "App. E.2.1", "(e)(ii): CE(W* + R'W) - H >= c' e^{-R'(1-delta)}/(2n^2) for W in F-perp, ||W|| = ||W^mm||, "
          "(e_z - e_v)^T W h_j <= 1 - delta, z in S_j, v not in S_j; c' = e^{-||W*|| M}", HYP, case_instances, check_case_ii,
          setup=lambda i: i, reading="(e)(ii)", sabotage=Tighten(on=toy), parts=PARTS_II),
)
