"""Section 5.2: the theorems of stage 2 of Algorithm 1 (training W_kq).

Claims: Theorem 1 (norm and directional convergence), Theorem 2 (attention
and loss rates) and its footnote 3 (the minimum loss).  Every bound comes
from :mod:`.bounds`.
"""

from __future__ import annotations

import math

import numpy as np

from ntpcheck.model import safe_norm

from ..framework.checks import between, RTOL, falsified, fitted_loglog_slope, holds, inequality, not_reached, tighten, tighten_log, vacuous
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
    return inequality(s.one_minus_cos[m], bound, t, sense="<=", what="Thm. 1 alignment (main term)", trivial=lambda b: b >= 2.0, scale=np.maximum(bound, 1e-300))


def check_thm1_rate(ev: Evidence) -> Outcome:
    """Theorem 1's rate ``1 - cos = O(log^2 t / t)``: the fitted log-log slope of the
    tail must not exceed the local slope of ``log^2 t / t`` (``-1 + 2/log t``) by more
    than 0.05 (a fitted slope over half a decade; 0.05 covers its noise)."""
    s = q.stage2(ev)
    y = s.one_minus_cos
    t = s.steps
    tail = (t >= t.max() / 2) & np.isfinite(y)
    if tail.any() and np.all(y[tail] < 1e-12):
        # aligned to rounding level (1 - cos ~ 1e-16) over the whole tail: nothing left to fit
        return holds(1.0, f"1 - cos is at rounding level (< 1e-12) from t = {int(t.max() // 2)} on", rate="converged (< 1e-12)", t_max=int(t.max()))
    ok = (t >= 2) & np.isfinite(y) & (y > 1e-12)
    if ok.sum() < 8:
        return not_reached("too few steps with 1 - cos > 0 to fit a rate")
    slope = fitted_loglog_slope(t[ok], y[ok])
    tm = float(np.sqrt(t[ok].max() * max(2, t[ok].max() / 2)))
    claimed = tighten(bounds.thm1_local_exponent(tm), "<=")
    sl = claimed - slope
    meas = {"rate": f"t^{slope:.3f} (claimed local t^{claimed:.3f})", "fitted_exponent": slope, "claimed_local_exponent": claimed, "t_max": int(t.max())}
    if sl < -0.05:
        return falsified(sl, f"1 - cos decays like t^{slope:.3f}, slower than log^2 t/t (local t^{claimed:.3f})", **meas)
    return holds(sl, f"1 - cos decays like t^{slope:.3f}, at least as fast as log^2 t/t (local t^{claimed:.3f})", **meas)


def _first_holding_step(ok: np.ndarray, steps: np.ndarray) -> int | None:
    """Smallest t from which ``ok`` holds until the end of the run (None if not at the end)."""
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(steps[0]) if not len(bad) else int(steps[bad[-1] + 1])


@nonzero_w_kq
def check_thm2_attention(ev: Evidence) -> Outcome:
    """Theorem 2: for t beyond an (unspecified-c_0) threshold,
    ``min_n sum_{l* in I(n)} phi_l*^(t) >= (1 + L_max exp(-C_1 t))^-1``, ``C_1 = eta/(4 L_max ||W*_kq||^2)``.

    Reports the smallest t from which it holds to the end of the run and
    the ``c_0`` that threshold corresponds to; ``not-reached`` if it does
    not hold at the last step (a larger c_0 might still rescue it).
    """
    s = q.stage2(ev)
    st = ev.structure
    ds = ev.dataset
    ws = safe_norm(ev.w_kq_star)
    L = ds.l_max
    C1 = bounds.C1(ev.eta, L, ws)
    rows = [k for k, pos in enumerate(st.optimal) if pos]
    opt = np.stack([s.attention[:, k, list(st.optimal[k])].sum(axis=1) for k in rows], axis=1).min(axis=1)
    bound = bounds.thm2_attention(s.steps, C1, L)
    # compare the non-optimal mass 1 - phi, which is computed without cancellation
    non = np.stack([s.attention[:, k, [l for l in range(len(ds.samples[k].sentence)) if l not in st.optimal[k]]].sum(axis=1) for k in rows], axis=1).max(axis=1)
    allowed = tighten(bounds.thm2_non_optimal_mass(s.steps, C1, L), "<=")
    ok = non <= allowed * (1 + RTOL)
    t_from = _first_holding_step(ok, s.steps)
    if t_from is None:
        return not_reached(f"at the last step t = {s.steps[-1]} the optimal attention {opt[-1]:.6g} is below {bound[-1]:.6g}", t_max=int(s.steps[-1]))
    c0 = bounds.thm2_implied_c0(max(t_from, 2), ev.eta, ds.n_samples, L, ws)
    # Trivial while the bound is at most 1/L_max, which Lemma 5's floor gives for free.
    informative = bound > 1.0 / L
    if not informative[s.steps >= t_from].any():
        return vacuous(0.0, f"the bound stays below the trivial 1/L_max up to t = {s.steps[-1]}", t_max=int(s.steps[-1]))
    return holds(float(np.min((allowed - non)[s.steps >= t_from] / np.maximum(allowed[s.steps >= t_from], 1e-300))),
                 f"holds for t >= {t_from} (c_0 >= {c0:.3g}) through t = {s.steps[-1]}", holds_from_t=t_from, implied_c0=c0, t_max=int(s.steps[-1]))


@nonzero_w_kq
def check_thm2_loss(ev: Evidence) -> Outcome:
    """Theorem 2: beyond the thresholds, ``L(theta^(t)) <= |V| exp(-A + 2 A L_max / (L_max + exp(C_1 t)))``,
    ``A = C_0 T = T eta_0 / (4 ||W*_ov||^2)`` (the claimed ``L - L* <= ... - L*``, with ``L*`` cancelled)."""
    s = q.stage2(ev)
    ws = safe_norm(ev.w_kq_star)
    L = ev.dataset.l_max
    logb = tighten_log(bounds.thm2_log_loss(s.steps, q.A(ev), bounds.C1(ev.eta, L, ws), L, ev.dataset.n_vocab), "<=")
    with np.errstate(divide="ignore"):
        logl = np.log(s.loss)
    ok = logl <= logb + RTOL * np.maximum(1, np.abs(logb))
    t_from = _first_holding_step(ok, s.steps)
    if t_from is None:
        return not_reached(f"at t = {s.steps[-1]} the loss {s.loss[-1]:.4g} exceeds the bound {math.exp(logb[-1]):.4g}", t_max=int(s.steps[-1]))
    c0 = bounds.thm2_implied_c0(max(t_from, 2), ev.eta, ev.dataset.n_samples, L, ws)
    m = s.steps >= t_from
    # Trivial while the bound is above the loss at the start of stage 2.
    if not (logb[m] < math.log(max(s.loss[0], 1e-300))).any():
        return vacuous(float(np.min(logb[m] - logl[m])), f"the bound stays above the starting loss up to t = {s.steps[-1]}", t_max=int(s.steps[-1]))
    return holds(float(np.min(logb[m] - logl[m])), f"holds for t >= {t_from} (c_0 >= {c0:.3g}) through t = {s.steps[-1]}",
                 holds_from_t=t_from, implied_c0=c0, t_max=int(s.steps[-1]))


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
        return not_reached("a sample has no optimal token")
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


def log_limit_loss(ev: Evidence) -> float:
    """``log`` of :func:`limit_loss`, accurate when the loss underflows (NaN if a
    sample has no optimal token)."""
    ds = ev.dataset
    U = ev.trajectory.W_ov @ ev.E
    idx = ds.index
    terms = []
    for s, pos, pi in zip(ds.samples, ev.structure.optimal, ds.pi):
        if not pos:
            return float("nan")
        z = U[:, idx[s.sentence[pos[0]]]]
        y = idx[s.next]
        d = np.delete(z - z[y], y)
        m = d.max()
        # loss = log1p(sum exp d) ~ sum exp d when tiny; log of it = m + log(sum exp(d - m)) (+ log1p correction)
        lse = m + math.log(np.exp(d - m).sum())
        lo = math.log(math.log1p(math.exp(lse))) if lse > -30 else lse
        terms.append(math.log(pi) + lo)
    terms = np.array(terms)
    M = terms.max()
    return float(M + math.log(np.exp(terms - M).sum()))
