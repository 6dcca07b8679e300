"""The regularization-path claims of Thrampoulidis (2024): Theorem 1, the facts of its proof (a), (d),
and Lemma 4 (5)-(6), on ``Ŵ_B = argmin_{‖W‖≤B} CE(W)`` (Eq. 8).

The path is :attr:`ntpcheck.linear.evidence.LinearEvidence.path`
(:func:`ntpcheck.linear.regpath.reg_path`): Newton's method on the KKT
system at ``B = ‖W^mm‖ · geomspace(0.5, 40, 28)``, each point with a
certificate ``dist ≥ ‖W − Ŵ_{B′}‖`` (``|B′ − B| ≤ dist``), kept up to the first
``B`` where ``dist > 1e-6 B``: there the multiplier ``μ ~ e^{−B/‖W^mm‖}`` meets
the rounding of ``∇CE`` (typically at ``B/‖W^mm‖ ≈ 10–25``).

* **Thm. 1** ``⟨Ŵ_B/‖Ŵ_B‖, W̄^mm⟩ → 1``, **Lemma 4 (5)** ``P_ℱ(Ŵ_B) → W⋆`` and
  **(6)** ``‖P_⊥(Ŵ_B)‖ → ∞``: judged as limits over the last decade of
  certified ``B`` (:mod:`ntpcheck.properties.framework.limits`, the clock
  ``B/‖W^mm‖``), with the certificate as the floor of ``‖P_ℱŴ_B − W⋆‖``
  (a certified point is within ``dist`` of the path, so a smaller difference
  is not resolved).  A candidate failure is confirmed on the path continued
  10× further in ``B`` (:meth:`~ntpcheck.linear.evidence.LinearEvidence.path_at`),
  computed where it can be certified; elsewhere it stays ``inconclusive``.
* **T1-pf (a)** ``‖Ŵ_B‖ = B``: at ``B/‖W^mm‖ ∈ {0.5, 2, 8}``, a KKT point of (8)
  with multiplier ``μ > 0`` on the sphere, certified (:func:`t1pf_a_outcome`);
  for convex CE these conditions are sufficient, so they prove the
  minimiser is on the boundary.  (cvxpy's conic solve, which does not assume
  the constraint active, agrees in the tests at moderate ``B``; at large ``B``
  CE is flat along the radius to its tolerance and it returns interior
  points, 20% inside at ``R = 28``.)
* **T1-pf (d)** the genie point ``W⋆_B = W⋆ + R W^mm``, ``R = √(B² − ‖W⋆‖²)/‖W^mm‖``,
  has ``CE(W⋆_B) ≤ ℋ + C e^{−R}`` with ``C = V e^{‖W⋆‖M}`` (9)/(25), and so does
  ``Ŵ_B`` (``‖W⋆_B‖ = B`` and ``Ŵ_B`` minimises over the ball).  Both sides are
  compared in logs; the genie's at ``R ∈ geomspace(0.1, 1000, 41)`` (its loss
  is explicit: ``CE − ℋ`` is the out-of-support part ``Σ_j π̂_j log1p(r_j)``,
  since ``W⋆`` solves (4) and ``W^mm ∈ ℱ^⊥``), the path's at its certified points.
"""

from __future__ import annotations

import warnings

import numpy as np

from ntpcheck.linear import NTPData
from ntpcheck.linear.dynamics import one_minus_cos
from ntpcheck.linear.excess import excess

from ..framework.checks import ROUNDING, falsified, holds, inconclusive, outside, requires, worst
from ..framework.claim import Claim, Structural, Tighten
from ..framework.evidence import evidence
from ..framework.parts import DOWN, STEEPER_UP, Part, mutable
from ..framework.verdicts import Outcome
from .examples import toy
from .setups import HYP, SIZES
from .bounds import C_const, M_const
from .lemma5 import log_out
from .logcheck import log_inequality
from ..framework.limits import Series, at_horizons, judge

__all__ = ["REGPATH_CLAIMS", "check_thm1", "check_lemma4_5", "check_lemma4_6", "check_t1pf_a", "check_t1pf_d",
           "cvx_ball"]

#: Decades of B the trends are fitted on (the certified range spans 1.3-1.7 decades).
DECADES = 1.0
def path_instances(profile: str):
    from ntpcheck.strategies import linear_instances

    return linear_instances(**SIZES[profile])


def hypotheses_met(ev) -> bool:
    D = ev.data
    return bool(ev.compat.compatible and ev.sep.separable and (~D.mask).any())


_needs = requires(hypotheses_met, "the data are not compatible and separable with some S_j < V")


def _certified(ev) -> Outcome | None:
    p = ev.path
    if len(p.points) < 8:
        return outside(f"only {len(p.points)} path points certified (dist <= 1e-6 B) below B = {p.stopped_at}")
    return None


def path_series(ev, quantity, floor=lambda ev, p: 0.0) -> Series:
    """The path's ``quantity(p)`` at ``f`` times the certified range (``f`` = 1: :attr:`ev.path
    <ntpcheck.linear.evidence.LinearEvidence.path>`; 10, 100: :meth:`~ntpcheck.linear.evidence.LinearEvidence.path_at`),
    with its rounding ``floor(ev, p)``; None where that range cannot be computed."""
    def run(f: int):
        p = ev.path if f == 1 else ev.path_at(f)
        return None if p is None or len(p.points) < 8 else (p.B, quantity(p), floor(ev, p))

    return at_horizons(run)


def _judge(ev, series: Series, what: str, toward: str = "zero") -> Outcome:
    # the clock is B in units of ||W^mm||: R = sqrt(B^2 - ||W*||^2)/||W^mm|| ~ B/||W^mm|| drives the path
    # holds is read off the certified float64 path (continuing every instance's path in extended precision
    # costs 0.5-6 s each); a candidate failure is confirmed on the continued path
    return judge(series, what, toward=toward, decades=DECADES, origin=float(np.linalg.norm(ev.w_mm)), confirm_holds=False)


def thm1_outcome(ev, ref) -> Outcome:
    return _judge(ev, path_series(ev, lambda p: one_minus_cos(p.W, ref), lambda ev, p: ROUNDING),
                  "1 - <W_B/||W_B||, W^mm/||W^mm||>")


@_needs
def check_thm1(ev) -> Outcome:
    return _certified(ev) or thm1_outcome(ev, ev.w_mm)


def _path_floor(ev, p) -> np.ndarray:
    return np.maximum(p.dist, 1e-13 * np.maximum(p.B, 1.0))


def lemma4_5_outcome(ev, W_star) -> Outcome:
    dist = lambda p: np.sqrt(np.sum((ev.references.project(p.W) - W_star) ** 2, axis=(1, 2)))  # noqa: E731
    return _judge(ev, path_series(ev, dist, _path_floor), "||P_F W_B - W*||")


@_needs
def check_lemma4_5(ev) -> Outcome:
    return _certified(ev) or lemma4_5_outcome(ev, ev.w_star)


def _norm_perp(ev):
    return lambda p: np.sqrt(np.sum((p.W - ev.references.project(p.W)) ** 2, axis=(1, 2)))


@_needs
def check_lemma4_6(ev) -> Outcome:
    return _certified(ev) or _judge(ev, path_series(ev, _norm_perp(ev)), "||P_perp W_B||", toward="infinity")


# -- T1-pf (a): ‖Ŵ_B‖ = B, certified ------------------------------------------------------------------
def cvx_ball(D: NTPData, B: float) -> np.ndarray:
    """Eq. (8) by cvxpy: ``Σ_j π̂_j (LSE(W h̄_j) − p̂_jᵀ W h̄_j)`` over ``‖W‖_F ≤ B`` (CLARABEL, tight
    tolerances); an independent cross-check of :func:`ntpcheck.linear.regpath.solve_ball` (tests)."""
    import cvxpy as cp

    W = cp.Variable((D.V, D.d))
    Z = W @ D.H
    obj = sum(D.pi[j] * (cp.log_sum_exp(Z[:, j]) - D.P[j] @ Z[:, j]) for j in range(D.m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cp.Problem(cp.Minimize(obj), [cp.norm(W, "fro") <= B]).solve(solver="CLARABEL", tol_gap_abs=1e-14,
                                                                     tol_gap_rel=1e-14, tol_feas=1e-14, max_iter=500)
    return np.asarray(W.value)


#: ``|‖W‖ − B| ≤ 1e-10 B``: Newton's norm condition is met to 1e-12 (``solve_ball``'s ``rtol``).
ON_SPHERE = 1e-10
#: A stationary point of CE itself (``‖∇CE‖ ≤ 1e-9``: the gradient's rounding is ~1e-16 per entry)
#: strictly inside the ball is an interior minimiser (CE is convex).
STATIONARY = 1e-9


def t1pf_a_outcome(D: NTPData, Bs) -> Outcome:
    """(a) at each ``B`` of ``Bs``: ``holds`` where Newton's point is a certified KKT point with the
    constraint active (``μ > 0``, on the sphere, ``dist ≤ 1e-6 B``): by convexity the KKT conditions
    with ``μ > 0`` prove that the minimiser is that point, on the boundary; ``falsified`` where the
    search for ``μ`` ends inside the ball at a stationary point of CE (an interior minimiser);
    ``inconclusive`` otherwise."""
    from ntpcheck.linear.loss import ce_grad
    from ntpcheck.linear.regpath import solve_ball

    rows = []
    for B in np.asarray(Bs, dtype=float):
        p = solve_ball(D, B)
        nW = float(np.linalg.norm(p.W))
        g = float(np.linalg.norm(ce_grad(D, p.W)))
        rows.append((B, nW, p.mu, p.dist, g))
        m = {"B": float(B), "norm": nW, "mu": p.mu, "dist": p.dist, "grad_norm": g}
        if (B - nW) > ON_SPHERE * B and g <= STATIONARY:
            return falsified(-(B - nW) / B, f"the minimiser of (8) at B = {B:.6g} is interior: ||W|| = {nW:.6g}, "
                                           f"||grad CE|| = {g:.2e}", **m)
        if not (p.mu > 0 and abs(nW - B) <= ON_SPHERE * B and p.dist <= 1e-6 * B):
            return inconclusive(f"(8) at B = {B:.6g} not certified (||W|| = {nW:.6g}, mu = {p.mu:.3g}, dist = {p.dist:.3g})", **m)
    mu_min = min(r[2] for r in rows)
    return holds(mu_min, f"certified KKT points with mu > 0 on the sphere at B = {', '.join(f'{r[0]:.4g}' for r in rows)} "
                         f"(smallest mu {mu_min:.3g})", mus=[r[2] for r in rows], Bs=[r[0] for r in rows], norms=[r[1] for r in rows])


@_needs
def check_t1pf_a(ev) -> Outcome:
    return t1pf_a_outcome(ev.data, float(np.linalg.norm(ev.w_mm)) * np.array([0.5, 2.0, 8.0]))


def _sabotage_t1pf_a() -> Outcome:
    """Inseparable data (d = 1, h = 1 and −2 followed by A): CE has a finite minimiser of norm < 1, so
    the ball's minimiser for B = 5 is interior."""
    D = NTPData(np.array([[1.0, -2.0]]), np.array([[1, 0], [1, 0]]))
    return t1pf_a_outcome(D, np.array([5.0]))


# -- T1-pf (d): the genie bound (9)/(25) ------------------------------------------------------------
#: The genie's R grid: from the start of the path to far beyond float64's resolution of CE (logs).
GENIE_R = np.geomspace(0.1, 1000.0, 41)


def genie_log_bound(D: NTPData, w_star_norm: float, R) -> np.ndarray:
    """``log(C e^{−R}) = log V + ‖W⋆‖M − R`` with both parts mutable: ``C`` (1% smaller) and the
    exponent's coefficient of ``R`` (0.01 steeper)."""
    C = mutable("C = V e^{||W*||M}", C_const(M_const(D.H), w_star_norm, D.V), DOWN)
    return np.log(C) - mutable("e^{-R}", 1.0, STEEPER_UP) * np.asarray(R, dtype=float)


@_needs
def check_t1pf_d(ev) -> Outcome:
    D = ev.data
    ws, wm = ev.w_star, ev.w_mm
    nws, nwm = float(np.linalg.norm(ws)), float(np.linalg.norm(wm))
    in_star = excess(D, ws).in_support  # 0 for the exact W⋆ (it solves (4)); rounding here
    if in_star > 1e-14:
        return outside(f"W* does not solve (4) to rounding: CE_F(W*) - H = {in_star:.3g}")
    genie = np.array([log_out(D, ws, r * wm) for r in GENIE_R])
    o_genie = log_inequality(genie, genie_log_bound(D, nws, GENIE_R), GENIE_R, "CE(W* + R W^mm) - H <= C e^{-R}")
    p = ev.path
    if len(p.points) == 0:
        return o_genie
    R_path = np.sqrt(np.maximum(p.B**2 - nws**2, 0.0)) / nwm
    keep = p.B > nws
    lhs = np.array([np.log(max(excess(D, W).total, 1e-300)) for W in p.W[keep]])
    o_path = log_inequality(lhs, genie_log_bound(D, nws, R_path[keep]), p.B[keep], "CE(W_B) - H <= C e^{-R(B)}")
    return worst(o_genie, o_path)


T1PF_D_PARTS = (Part("C = V e^{||W*||M}", "constant", "the constant C of (9)/(25)"),
                Part("e^{-R}", "exponent", "the rate e^{-R} of (9)/(25), R = sqrt(B^2 - ||W*||^2)/||W^mm||"))


# -- sabotages ---------------------------------------------------------------------------------------
def _sabotage_thm1() -> Outcome:
    ev = evidence(toy())
    return thm1_outcome(ev, ev.w_star)  # the direction of W⋆ (ℱ) for that of W^mm


def _sabotage_lemma4_5() -> Outcome:
    ev = evidence(toy())
    return lemma4_5_outcome(ev, 0.0 * ev.w_star)  # the limit 0 for W⋆


def _sabotage_lemma4_6() -> Outcome:
    ev = evidence(toy())  # the claim made about ‖P_ℱŴ_B‖^{-1}: it shrinks towards 1/‖W⋆‖
    inv = lambda p: 1.0 / np.sqrt(np.sum(ev.references.project(p.W) ** 2, axis=(1, 2)))  # noqa: E731
    return _judge(ev, path_series(ev, inv), "1/||P_F W_B||", toward="infinity")


REGPATH_CLAIMS: tuple[Claim, ...] = (
    Claim("Thm. 1", "§4", "lim_B <W_B/||W_B||, W^mm/||W^mm||> = 1 along the regularization path (Theorem 1): 1 - corr "
          "judged as a limit over the last certified decade of B (framework.limits), confirmed on the path 10x further", HYP, path_instances, check_thm1,
          setup=lambda i: i, sabotage=Structural(_sabotage_thm1, "the correlation taken with W*/||W*|| instead of W^mm/||W^mm||")),
    Claim("Lemma 4", "App. E.1.1", "(5) lim_B P_F(W_B) = W*: ||P_F W_B - W*|| above the path's certificate judged as a limit "
          "(framework.limits)", HYP, path_instances, check_lemma4_5, setup=lambda i: i, reading="(5)",
          sabotage=Structural(_sabotage_lemma4_5, "the limit taken as 0 instead of W*")),
    Claim("Lemma 4", "App. E.1.1", "(6) lim_B ||P_perp(W_B)|| = infinity: ||P_perp W_B|| judged as a limit (framework.limits)", HYP,
          path_instances, check_lemma4_6, setup=lambda i: i, reading="(6)",
          sabotage=Structural(_sabotage_lemma4_6, "the claim made about 1/||P_F W_B||, which shrinks to 1/||W*||")),
    Claim("T1-pf", "App. E.2.1", "(a) the minimiser of (8) lies on the boundary, ||W_B|| = B: certified KKT points with "
          "mu > 0 at B/||W^mm|| = 0.5, 2, 8", HYP, path_instances, check_t1pf_a, setup=lambda i: i, reading="(a)",
          sabotage=Structural(_sabotage_t1pf_a, "inseparable data with B = 5 beyond the finite minimiser")),
    Claim("T1-pf", "App. E.2.1", "(d) CE(W* + R W^mm) <= H + C e^{-R}, C = V e^{||W*|| M} (9)/(25), at R in [0.1, 1000], "
          "and CE(W_B) <= H + C e^{-R(B)} along the certified path", HYP, path_instances, check_t1pf_d, setup=lambda i: i,
          reading="(d)", sabotage=Tighten(toy), parts=T1PF_D_PARTS),
)
