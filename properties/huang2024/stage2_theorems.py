"""Section 5.2: the theorems of stage 2 of Algorithm 1 (training W_kq).

Claims: Theorem 1 (norm and directional convergence), Theorem 2 (attention
and loss rates) and its footnote 3 (the minimum loss).  Every bound comes
from :mod:`.bounds`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ntpcheck.transformer import model
from ntpcheck.transformer.model import safe_norm

from ..framework.checks import between, ROUNDING, RTOL, falsified, fit_exponent, holds, inconclusive, inequality, outside, tighten, tighten_log, tightening, vacuous
from ..framework.evidence import Evidence
from ..framework.verdicts import Outcome
from . import bounds
from . import quantities as q
from .stage2_lemmas import nonzero_w_kq

__all__ = [
    "check_thm1_norm",
    "check_thm1_alignment",
    "check_thm1_rate",
    "check_thm2_attention",
    "check_thm2_loss",
    "check_fn3",
    "log_non_optimal_mass",
    "THM2_C0",
    "limit_loss",
    "log_limit_loss",
]


@nonzero_w_kq
def check_thm1_norm(ev: Evidence, *, with_lmax: bool = False) -> Outcome:
    """Theorem 1: ``t eta / (2 ||W*_kq||) <= ||W_kq^(t)|| <= t eta`` for t >= 2
    (reading ``with_lmax``: ``2 L_max ||W*||`` in the denominator, as in Lemma 6)."""
    s = q.stage2(ev)
    eta = ev.eta
    ws = safe_norm(ev.w_kq_star)
    m = s.steps >= 2
    t = s.steps[m]
    return between(s.norm[m], bounds.thm1_norm_lower(t, eta, ws, ev.dataset.l_max if with_lmax else 1), bounds.lemma6_upper(t, eta), t,
                   scale=t * eta, what_lower=f"||W^(t)|| >= t eta/({'2 L_max' if with_lmax else '2'} ||W*||)", what_upper="||W^(t)|| <= t eta")


@nonzero_w_kq
def check_thm1_alignment(ev: Evidence) -> Outcome:
    """Theorem 1: ``1 - cos(W_kq^(t), W*_kq) <= 54 N L_max^4 ||W*||^4 log^2 t / (t eta)`` (main term).

    The lower-order terms are unreadable in the OCR; dropping them makes
    the bound smaller, so ``holds``/``vacuous`` are conclusive and a
    ``falsified`` would only mean the main term alone is not enough.
    """
    s = q.stage2(ev)
    m = s.steps >= 2
    t = s.steps[m]
    bound = bounds.thm1_alignment(t, ev.eta, ev.dataset.n_samples, ev.dataset.l_max, safe_norm(ev.w_kq_star))
    return inequality(s.one_minus_cos[m], bound, t, sense="<=", what="Thm. 1 alignment (main term)", trivial=lambda b: b >= 2.0, scale=np.maximum(bound, 1e-300),
                      floor=ROUNDING)


#: Theorem 1's rate is fitted over t in [RATE_FROM T', T'] (or up to where 1 - cos reaches rounding level).
RATE_FROM = 0.2


#: 1 - cos is fitted only where it is at least 100 times rounding level, so rounding
#: noise (~1e-16 relative, amplified near the floor) cannot bend the fitted exponent.
FIT_FLOOR = 100 * ROUNDING


@nonzero_w_kq
def check_thm1_rate(ev: Evidence) -> Outcome:
    """Theorem 1's rate ``1 - cos = O(log^2 t / t)``, from a fitted exponent with its interval.

    Fits ``1 - cos ~ t^p`` over ``t in [T'/5, t_end]``, where ``t_end`` is the
    last step with ``1 - cos >= 1e-10`` (100 times rounding level), and compares
    the 95% interval of ``p`` with the local exponent of ``log^2 t / t`` at the
    window's geometric middle, ``-1 + 2/log t``.  Steps where the float64 run is
    no longer faithful to NGD (the gradient's entries subnormal,
    :func:`.quantities.faithful_stage2`) are never fitted.  Verdicts: ``holds`` if the whole
    interval is at or below it, ``falsified`` if the whole interval is above it
    (a slower decay), ``inconclusive`` if it straddles it.  ``vacuous`` if
    ``1 - cos`` is below 1e-10 (or the run unfaithful) before ``2 T'/5`` (aligned to rounding level,
    by a symmetry or a faster-than-power decay: no asymptotic window to fit).
    ``outside-hypotheses`` where ``W*_kq = 0`` (no pair to separate; 1 - cos is then
    undefined), as for Theorem 1's other readings.
    """
    s = q.stage2(ev)
    y = s.one_minus_cos
    t = s.steps
    start = RATE_FROM * max(int(t.max()), ev.T2)
    use = np.isfinite(y) & (y >= FIT_FLOOR) & (t >= start) & q.faithful_stage2(ev)
    if not use.any() or t[use].max() < 2 * start:
        return vacuous(float("nan"), f"1 - cos falls below {FIT_FLOOR:g} (rounding level x 100) before t = {int(2 * start)}: no asymptotic window to fit",
                       t_max=int(t.max()))
    fit = fit_exponent(t[use], y[use])
    if fit is None:
        return inconclusive("too few steps above rounding level in the fitting window")
    claimed = tighten(bounds.thm1_local_exponent(math.sqrt(fit.t_from * fit.t_to)), "<=")
    meas = {**fit.as_measured(claimed, "above"), "claimed_local_exponent": claimed, "t_max": int(t.max())}
    what = f"1 - cos ~ t^{fit.exponent:.3f} [{fit.lo:.3f}, {fit.hi:.3f}] over t in [{fit.t_from}, {fit.t_to}], log^2 t/t has local exponent {claimed:.3f}"
    if fit.lo > claimed:
        return falsified(claimed - fit.lo, what + ": slower", **meas)
    if fit.hi > claimed:
        return inconclusive(what + ": the interval straddles it", **meas)
    return holds(claimed - fit.hi, what, **meas)


# ---- Theorem 2 -----------------------------------------------------------------------
#: The absolute constant c_0 of Theorem 2's thresholds in the fixed-constant reading.
THM2_C0 = 1.0


def _thm2_window(ev: Evidence, c0: float) -> tuple[np.ndarray, dict] | Outcome:
    """The recorded steps at which Theorem 2's thresholds (constant ``c0``) hold, and what they are;
    ``outside-hypotheses`` if T is below the stage-1 threshold or the run ends before the stage-2 one."""
    s = q.stage2(ev)
    ds = ev.dataset
    w_ov, w_kq = safe_norm(ev.w_ov_star), safe_norm(ev.w_kq_star)
    T_need = bounds.thm2_stage1_threshold(ev.T, ev.eta0, w_ov, ds.n_vocab, c0)
    t_need = bounds.thm2_first_t(ev.eta, ds.n_samples, ds.l_max, w_kq, c0)
    info = {"c0": c0, "T": ev.T, "T_threshold": T_need, "t_threshold": t_need, "t_max": int(s.steps.max())}
    if ev.T < T_need:
        return outside(f"T = {ev.T} < c_0 ||W*_ov||^{bounds.THM2_K} log|V| log T/eta_0 = {T_need:.4g} (c_0 = {c0:g})", **info)
    faithful = q.faithful_stage2(ev)
    if not faithful.any():
        return inconclusive("stage 2 did not move: the loss at W_kq = 0 underflows in float64 (stage-1 margins past ~745)", **info)
    m = (s.steps >= t_need) & faithful
    if not m.any():
        end = int(s.steps[faithful].max())
        why = f" (past t = {end} the gradient is subnormal: the float64 run is no longer NGD)" if end < s.steps.max() or s.stopped else ""
        return outside(f"the run ends at t = {end} < c_0 N L_max ||W*_kq||^6 log^2 t/eta = {t_need} (c_0 = {c0:g}){why}", **info)
    return m, info


def log_non_optimal_mass(ev: Evidence) -> np.ndarray:
    """``max_n log(1 - sum_{l* in I(n)} phi_l*^(n,t))`` at every recorded step of stage 2
    (samples with an optimal and another token), computed from ``log phi``
    (:func:`ntpcheck.transformer.model.log_attention`), so it is exact where phi underflows."""
    s = q.stage2(ev)
    arr = ev.dataset.arrays
    non = ev.structure.non_optimal_mask
    rows = non.any(axis=1)
    out = np.empty(len(s.steps))
    for j, W in enumerate(s.weights):
        la = model.log_attention(W, ev.E, arr)[rows]
        la = np.where(non[rows], la, -np.inf)
        m = la.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            lse = m[:, 0] + np.log(np.exp(la - np.where(np.isfinite(m), m, 0.0)).sum(axis=1))
        out[j] = lse.max()
    return out


@nonzero_w_kq
def check_thm2_attention(ev: Evidence, *, c0: float = THM2_C0, c1_factor: float = 1.0) -> Outcome:
    """Theorem 2 with its thresholds evaluated at the absolute constant ``c0``
    (``T >= c0 ||W*_ov||^5 log|V| log T/eta_0``, ``t >= c0 N L_max ||W*_kq||^6 log^2 t/eta``):
    ``min_n sum_{l* in I(n)} phi_l*^(t) >= (1 + L_max exp(-C_1 t))^-1``, ``C_1 = eta/(4 L_max ||W*_kq||^2)``,
    at every recorded t past the threshold.

    Compared as the log of the non-optimal mass (exact where it underflows).
    ``c1_factor`` multiplies ``C_1`` (a stronger bound, for tests); inside
    :func:`~..framework.checks.tightened` (factor f) ``C_1`` becomes ``C_1/f``.
    Also reports ``implied_c0``: the smallest ``c_0`` whose threshold the
    inequality holds from to the end of the run.
    """
    got = _thm2_window(ev, c0)
    if isinstance(got, Outcome):
        return got
    m, info = got
    s = q.stage2(ev)
    L = ev.dataset.l_max
    C1 = bounds.C1(ev.eta, L, safe_norm(ev.w_kq_star)) * c1_factor / tightening()
    info["C1"] = C1
    # Trivial while the bound is at most 1/L_max, which Lemma 5's floor gives for free.
    return _thm2_compare(ev, m, info, log_non_optimal_mass(ev), bounds.thm2_log_non_optimal_mass(s.steps, C1, L),
                         what="log of the non-optimal attention mass",
                         failure="the non-optimal attention is exp({lhs:.6g}) > allowed exp({rhs:.6g}): "
                                 "the optimal attention is below (1 + L_max e^(-C_1 t))^-1",
                         trivial=bounds.thm2_attention(s.steps, C1, L) <= 1.0 / L, trivial_what="at or below the trivial 1/L_max")


@nonzero_w_kq
def check_thm2_loss(ev: Evidence, *, c0: float = THM2_C0, c1_factor: float = 1.0) -> Outcome:
    """Theorem 2 with thresholds at ``c0`` (as :func:`check_thm2_attention`):
    ``L(theta^(t)) <= |V| exp(-A + 2 A L_max / (L_max + exp(C_1 t)))``, ``A = C_0 T = T eta_0/(4 ||W*_ov||^2)``
    (the claimed ``L - L* <= ... - L*`` with ``L*`` cancelled), compared in logs.  ``c1_factor``
    multiplies ``C_1`` (a stronger bound, for tests)."""
    got = _thm2_window(ev, c0)
    if isinstance(got, Outcome):
        return got
    m, info = got
    s = q.stage2(ev)
    L = ev.dataset.l_max
    C1 = bounds.C1(ev.eta, L, safe_norm(ev.w_kq_star)) * c1_factor
    logb = tighten_log(bounds.thm2_log_loss(s.steps, q.A(ev), C1, L, ev.dataset.n_vocab), "<=")
    with np.errstate(divide="ignore"):
        logl = np.log(s.loss)
    # Where the loss underflowed to 0 it is only known to be below the smallest float: undecided there
    # unless the bound is above that.  Trivial where the bound is at or above the largest loss any
    # W_kq gives (log_sup_loss): there no trajectory could exceed it.
    return _thm2_compare(ev, m, info, logl, logb, what="log L(theta^(t))", failure="the loss exp({lhs:.6g}) exceeds the bound exp({rhs:.6g})",
                         trivial=logb >= log_sup_loss(ev), trivial_what="above the largest loss any W_kq gives",
                         known=(s.loss > 0) | (logb >= math.log(np.finfo(float).tiny)))


def _thm2_compare(ev: Evidence, m: np.ndarray, info: dict, lhs: np.ndarray, rhs: np.ndarray, *, what: str, failure: str,
                  trivial: np.ndarray, trivial_what: str, known: np.ndarray | None = None) -> Outcome:
    """Theorem 2's verdict from ``lhs <= rhs`` (both logs, per recorded step) at the steps ``m``
    past the thresholds: ``falsified`` at the worst violation (``failure`` formatted with its
    ``lhs``, ``rhs``); ``vacuous`` if the bound is ``trivial`` at every such step; else
    ``holds``.  ``info`` gains ``implied_c0`` (:func:`_implied_c0`).  ``known``: steps where
    ``lhs`` is known (else undecided); ``inconclusive`` if none past the thresholds is."""
    s = q.stage2(ev)
    ok = lhs <= rhs + RTOL * np.maximum(1.0, np.abs(rhs))
    info["implied_c0"] = _implied_c0(_first_holding_step(ok, s.steps), s.steps, ev.eta, ev.dataset.n_samples, ev.dataset.l_max,
                                     safe_norm(ev.w_kq_star))
    if known is not None:
        m = m & known
        if not m.any():
            return inconclusive("the measured quantity underflows (< 1e-308) past the threshold, where the bound is smaller still", **info)
    slack = rhs[m] - lhs[m]  # in log units
    k = int(np.argmin(slack))
    tk = int(s.steps[m][k])
    window = f"t in [{info['t_threshold']}, {info['t_max']}]"
    # Both sides are logs: plots show them on a linear axis and their difference, not a ratio.
    series = {"t": s.steps[m], "lhs": lhs[m], "rhs": rhs[m], "what": what, "sense": "<=", "rhs_kind": "bound", "log_units": True,
              "full": {"t": s.steps, "lhs": lhs, "rhs": rhs}}  # the whole run, for figures that shade the steps before the threshold
    if slack[k] < -RTOL * max(1.0, abs(rhs[m][k])):
        o = falsified(float(slack[k]), f"at t = {tk} (past the threshold {info['t_threshold']}), "
                      + failure.format(lhs=lhs[m][k], rhs=rhs[m][k]), worst_t=tk, **info)
    elif np.all(trivial[m]):
        o = vacuous(float(slack[k]), f"the bound stays {trivial_what} for {window}", **info)
    else:
        o = holds(float(slack[k]), f"holds at every {window} (c_0 = {info['c0']:g}); tightest at t = {tk}", worst_t=tk, **info)
    return dataclasses.replace(o, series=series)


def _implied_c0(t_from: int | None, steps: np.ndarray, eta: float, n: int, l_max: int, w_kq: float) -> float | None:
    """The smallest ``c_0`` whose stage-2 threshold the run's inequality holds from to its end:
    0 if it holds at every recorded step, None if it fails at the last one."""
    if t_from is None:
        return None
    if t_from <= steps[0]:
        return 0.0
    return bounds.thm2_implied_c0(max(t_from, 2), eta, n, l_max, w_kq)


def _first_holding_step(ok: np.ndarray, steps: np.ndarray) -> int | None:
    """Smallest t from which ``ok`` holds until the end of the run (None if not at the end)."""
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(steps[0]) if not len(bad) else int(steps[bad[-1] + 1])


def limit_loss(ev: Evidence) -> float:
    """``lim L(W_ov, W_kq)`` as the attention concentrates on the optimal tokens
    (the value along ``s W*_kq``, ``s -> inf``): per sample, the loss of the
    optimal token's logits ``W_ov x_opt``.  This is the infimum fn. 3 speaks of.
    NaN if a sample has no optimal token.  See :func:`log_limit_loss`."""
    return math.exp(log_limit_loss(ev))


def check_fn3(ev: Evidence, *, reading: str = "equal") -> Outcome:
    """Footnote 3 of Theorem 2: for fixed ``W_ov = W_ov^(T)`` the minimum loss is
    ``L* = |V| exp(-T C_0)``, ``C_0 = eta_0/(4 ||W*_ov||^2)``.

    Readings: ``"equal"`` (as written; relative difference above 1e-6 is a
    failure) and ``"upper"`` (``L*`` bounds the minimum from above).  Both
    are compared in logs, so losses far below 1e-308 still compare.
    """
    log_lim = log_limit_loss(ev)
    if not np.isfinite(log_lim):
        return outside("a sample has no optimal token")
    log_star = bounds.fn3_log_L_star(q.A(ev), ev.dataset.n_vocab)
    meas = {"log_min_loss": log_lim, "log_L_star": log_star, "ratio_min_over_L*": math.exp(log_lim - log_star) if log_lim - log_star < 700 else float("inf")}
    if reading == "equal":
        gap = abs(log_lim - log_star)
        tol = tighten(1e-6, "<=")
        if gap > tol:
            return falsified(-gap, f"the minimum loss is exp({log_lim:.6g}), not L* = exp({log_star:.6g})", **meas)
        return holds(tol - gap, "the minimum loss equals L*", **meas)
    sl = tighten_log(log_star, "<=") - log_lim
    if sl < -1e-9:
        return falsified(sl, f"the minimum loss exp({log_lim:.6g}) exceeds L* = exp({log_star:.6g})", **meas)
    return holds(sl, f"the minimum loss exp({log_lim:.6g}) <= L* = exp({log_star:.6g})", **meas)


def _log_ce(z: np.ndarray, y: int) -> float:
    """``log CE(z, y) = log log(1 + sum_{i != y} e^{z_i - z_y})``, accurate when CE underflows."""
    d = np.delete(z - z[y], y)
    m = d.max()
    # loss = log1p(sum exp d) ~ sum exp d when tiny; log of it = m + log(sum exp(d - m)) (+ log1p correction)
    lse = m + math.log(np.exp(d - m).sum())
    return math.log(math.log1p(math.exp(lse))) if lse > -30 else lse


def _log_mean(log_terms: list[float], pis) -> float:
    """``log sum_n pi_n exp(log_terms[n])`` without underflow."""
    terms = np.log(np.asarray(pis, dtype=float)) + np.asarray(log_terms)
    M = terms.max()
    return float(M + math.log(np.exp(terms - M).sum()))


def log_limit_loss(ev: Evidence) -> float:
    """``log`` of :func:`limit_loss`, accurate when the loss underflows (NaN if a
    sample has no optimal token)."""
    ds = ev.dataset
    U = ev.trajectory.W_ov @ ev.E
    idx = ds.index
    terms = []
    for s, pos in zip(ds.samples, ev.structure.optimal):
        if not pos:
            return float("nan")
        terms.append(_log_ce(U[:, idx[s.sentence[pos[0]]]], idx[s.next]))
    return _log_mean(terms, ds.pi)


def log_sup_loss(ev: Evidence) -> float:
    """``log sup_{W_kq} L``: the largest loss any attention gives with ``W_ov = W_ov^(T)`` fixed,
    the top of the loss's trivial range.  The logits ``W_ov X phi`` are a convex combination of
    the context's ``W_ov x_l`` and cross-entropy is convex in the logits, so the supremum puts
    each sample's attention on its worst token: ``sum_n pi_n max_l CE(W_ov x_l, y_n)``."""
    ds = ev.dataset
    U = ev.trajectory.W_ov @ ev.E
    idx = ds.index
    terms = [max(_log_ce(U[:, idx[x]], idx[s.next]) for x in s.sentence) for s in ds.samples]
    return _log_mean(terms, ds.pi)
