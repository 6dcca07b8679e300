"""Section 5.2 and Appendix C: stage 2 of Algorithm 1 (training W_kq).

Claims: Lemma 4 (projection formula, under the idealised stage 1 of C.1),
Lemma 5 (monotone optimal-token attention), Lemma 6 (linear norm growth),
Lemma 7 (gradient alignment), Theorem 1 (norm and directional convergence),
Theorem 2 (attention and loss rates) and its footnote 3 (the minimum loss).
Lemmas 4-7 are proved under the idealised stage-1 output (every margin = A);
they are registered for it and, separately, for the trained ``W_ov^(T)``.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from ntpcheck import model
from ntpcheck.claims import Instance, Outcome, Verdict
from ntpcheck.model import safe_norm

from .common import RTOL, falsified, holds, inequality, not_reached
from .stage1 import worst

__all__ = [
    "check_lemma4",
    "check_lemma5",
    "check_lemma6",
    "check_lemma7",
    "check_thm1_norm",
    "check_thm1_alignment",
    "check_thm1_rate",
    "check_thm2_attention",
    "check_thm2_loss",
    "check_fn3",
    "limit_loss",
    "log_limit_loss",
    "lemma7_instance",
    "thm2_instance",
]


def _stage2(inst: Instance):
    return inst.trajectory.stage2


def _A(inst: Instance) -> float:
    """``A = T eta_0 / (4 ||W*_ov||^2)`` (Corollary 1, Appendix C.1)."""
    return inst.T * inst.trajectory.eta0 / (4 * safe_norm(inst.w_ov_star) ** 2)


def lemma4_rhs(inst: Instance, Wkq: np.ndarray, Wp: np.ndarray, A: float, second_term: float = 1.0) -> float:
    """Lemma 4's right-hand side: the projection ``<grad L, W'>`` written with ``A``.

    ``A sum_n pi ([T]_y - 1) sum_{l in I(n)} phi_l (x_l - X phi)^T W' x_L
      + A sum_n pi sum_{l not in I(n)} [T]_{n(x_l)} phi_l (x_l - X phi)^T W' x_L``
    (the second term is 0 for a token without collocation).
    """
    ds = inst.dataset
    st = inst.structure
    E = inst.E
    arr = ds.arrays
    phi = model.attention(Wkq, E, arr)
    z = model.logits(inst.trajectory.W_ov, Wkq, E, arr, phi)
    idx = ds.index
    total = 0.0
    for k, (s, pos) in enumerate(zip(ds.samples, st.optimal)):
        toks = [idx[t] for t in s.sentence]
        X = E[:, toks]
        xq = X[:, -1]
        ph = phi[k, : len(toks)]
        xbar = X @ ph
        y = idx[s.next]
        # wrong-class probabilities without cancellation; [T]_y - 1 = -sum of them
        _, p = model.cross_entropy_parts(z[k][None, :], np.array([y]))
        p = p[0]
        for l, i in enumerate(toks):
            proj = float((X[:, l] - xbar) @ Wp @ xq)
            if l in pos:
                total += ds.pi[k] * (-p.sum()) * ph[l] * proj
            else:
                nx = st.collocation(s.sentence[l])
                if nx is not None:
                    total += second_term * ds.pi[k] * p[idx[nx]] * ph[l] * proj
    return A * total


def check_lemma4(inst: Instance, *, second_term: float = 1.0) -> Outcome:
    """Lemma 4: under idealised margins, ``<grad_{W_kq} L, W'>`` equals the formula above.

    Checked at ``W_kq^(t)`` for several t along stage 2, with ``W'`` the
    max-margin ``W*_kq`` and a random matrix.  An identity: relative error
    above 1e-8 is a failure (both sides are float64 sums of ~100 terms).
    ``second_term=0`` sabotages the formula.
    """
    if not inst.idealised:
        return not_reached("Lemma 4 is stated for the idealised stage-1 output (all margins = A)")
    s = _stage2(inst)
    A = _A(inst)
    rng = np.random.default_rng(zlib.crc32(inst.key[0].encode()))
    d = inst.d
    Wps = [inst.w_kq_star, rng.standard_normal((d, d))]
    picks = sorted(set(np.linspace(0, len(s.steps) - 1, 6).astype(int)))
    errs, steps = [], []
    for j in picks:
        W = s.weights[j]
        G = model.grad_kq(inst.trajectory.W_ov, W, inst.E, inst.dataset.arrays)[0]
        for Wp in Wps:
            lhs = float(np.sum(G * Wp))
            rhs = lemma4_rhs(inst, W, Wp, A, second_term)
            scale = max(abs(lhs), abs(rhs), 1e-300) if max(abs(lhs), abs(rhs)) > 0 else 1.0
            errs.append(abs(lhs - rhs) / scale)
            steps.append(int(s.steps[j]))
    errs = np.array(errs)
    return inequality(errs, np.full(len(errs), 1e-8), np.array(steps), sense="<=", what="Lemma 4 relative error", scale=np.ones(len(errs)), rtol=0.0)


def check_lemma5(inst: Instance, *, attention: np.ndarray | None = None) -> Outcome:
    """Lemma 5: for every t, n and optimal position l*: ``phi_l*^(t+1) >= phi_l*^(t) >= 1/L_max``,
    and (the proof's induction) ``phi_l* >= phi_l`` for every non-optimal l.

    Attention weights are in [0, 1] and computed to ~1e-16 absolute; a
    decrease or a gap beyond 1e-12 is real.  ``attention`` replaces the
    trajectory's (to feed a sabotaged one).
    """
    s = _stage2(inst)
    att = s.attention if attention is None else attention
    ds = inst.dataset
    st = inst.structure
    L = ds.l_max
    rows = [(k, l) for k, pos in enumerate(st.optimal) for l in pos if len(ds.samples[k].sentence) > 1]
    if not rows or len(att) < 2:
        return not_reached("no sample with an optimal position and another token")
    ks = np.array([r[0] for r in rows])
    ls = np.array([r[1] for r in rows])
    opt = att[:, ks, ls]  # (steps, rows)
    steps = np.arange(len(att))
    mono = inequality(opt[:-1].min(axis=1) * 0 + np.min(opt[1:] - opt[:-1], axis=1), np.zeros(len(att) - 1), steps[:-1],
                      sense=">=", what="phi_l*^(t+1) - phi_l*^(t)", scale=np.ones(len(att) - 1), rtol=1e-12)
    floor = inequality(opt.min(axis=1), np.full(len(att), 1.0 / L), steps, sense=">=", what="phi_l* >= 1/L_max", scale=np.ones(len(att)), rtol=1e-12)
    gaps = []
    for k, pos in enumerate(st.optimal):
        n_len = len(ds.samples[k].sentence)
        non = [l for l in range(n_len) if l not in pos]
        if pos and non:
            gaps.append(att[:, k, list(pos)].min(axis=1) - att[:, k, non].max(axis=1))
    dom = inequality(np.min(gaps, axis=0), np.zeros(len(att)), steps, sense=">=", what="phi_l* >= phi_l (non-optimal l)", scale=np.ones(len(att)), rtol=1e-12) if gaps else mono
    return worst(mono, floor, dom)


def sabotaged_attention(inst: Instance, steps: int = 30) -> np.ndarray:
    """Stage 2 with the update's sign flipped (gradient ascent): attention must be rejected."""
    W = np.zeros((inst.d, inst.d))
    arr = inst.dataset.arrays
    out = [model.attention(W, inst.E, arr)]
    for _ in range(steps):
        G = model.grad_kq(inst.trajectory.W_ov, W, inst.E, arr)[0]
        if not G.any():
            break
        W = W + inst.trajectory.eta * G / np.linalg.norm(G)
        out.append(model.attention(W, inst.E, arr))
    return np.array(out)


def check_lemma6(inst: Instance, *, lower_factor: float = 1.0) -> Outcome:
    """Lemma 6 (zero init): ``t eta / (2 L_max ||W*_kq||) <= ||W_kq^(t)|| <= t eta``."""
    s = _stage2(inst)
    eta = inst.trajectory.eta
    ws = safe_norm(inst.w_kq_star)
    if ws == 0:
        return not_reached("W*_kq = 0: no optimal/non-optimal pair to separate")
    t = s.steps
    L = inst.dataset.l_max
    sc = np.maximum(t * eta, 1e-300)
    up = inequality(s.norm, t * eta, t, sense="<=", what="||W^(t)|| <= t eta", scale=sc)
    lo = inequality(s.norm, lower_factor * t * eta / (2 * L * ws), t, sense=">=", what="||W^(t)|| >= t eta/(2 L_max ||W*||)", scale=sc)
    return worst(up, lo)


def lemma7_t0(inst: Instance) -> int:
    return math.ceil(8 * inst.dataset.l_max * safe_norm(inst.w_kq_star) ** 2 / inst.trajectory.eta)


def lemma7_instance(ds, *, idealised: bool, steps_after: int = 300, t0_budget: int = 600) -> Instance:
    """An instance that reaches Lemma 7's ``t_0 = ceil(8 L_max ||W*||^2 / eta)``.

    ``eta`` is raised (never lowered below the paper's) so that ``t_0`` is at
    most ``t0_budget``; the run lasts ``t_0 + steps_after`` steps.
    """
    base = Instance(ds, None, T=900, T2=0, idealised=idealised)
    ws2 = safe_norm(base.w_kq_star) ** 2
    eta = max(0.05 / math.sqrt(base.d), 8 * ds.l_max * ws2 / t0_budget)
    t0 = math.ceil(8 * ds.l_max * ws2 / eta)
    return Instance(ds, None, T=900, T2=t0 + steps_after, eta=eta, idealised=idealised)


def check_lemma7(inst: Instance, *, alpha_factor: float = 1.0) -> Outcome:
    """Lemma 7: for ``t >= t_0``, ``<grad L, W/||W||> >= (1 + alpha_t) <grad L, W*/||W*||>``,
    ``alpha_t = 4 N L_max^2 ||W*||^2 (1 + log(2 L_max ||W^(t)||)) / ||W^(t)||``.

    Both sides are negative.  Vacuous at t if ``(1 + alpha_t) |<grad, W*/||W*||>| >= ||grad||``
    (then Cauchy-Schwarz alone implies it).
    """
    s = _stage2(inst)
    ws = inst.w_kq_star
    nws = safe_norm(ws)
    if nws == 0:
        return not_reached("W*_kq = 0")
    t0 = lemma7_t0(inst)
    if s.steps.max() < t0:
        return not_reached(f"the run stops at t = {s.steps.max()} < t_0 = {t0}", t0=t0)
    N, L = inst.dataset.n_samples, inst.dataset.l_max
    lhs, rhs, triv, steps = [], [], [], []
    for t, W in zip(s.steps, s.weights):
        if t < t0:
            continue
        G = model.grad_kq(inst.trajectory.W_ov, W, inst.E, inst.dataset.arrays)[0]
        sc = float(np.max(np.abs(G)))
        if sc == 0:
            break
        G = G / sc
        nw = safe_norm(W)
        alpha = alpha_factor * 4 * N * L**2 * nws**2 * (1 + math.log(2 * L * nw)) / nw
        a = float(np.sum(G * W)) / nw
        b = float(np.sum(G * ws)) / nws
        lhs.append(a)
        rhs.append((1 + alpha) * b)
        triv.append((1 + alpha) * abs(b) >= np.linalg.norm(G))
        steps.append(t)
    if not steps:
        return not_reached("the gradient underflowed before t_0")
    out = inequality(np.array(lhs), np.array(rhs), np.array(steps), sense=">=", what="Lemma 7", scale=np.abs(np.array(rhs)) + 1e-300)
    if out.verdict is Verdict.HOLDS and all(triv):
        return Outcome(Verdict.VACUOUS, out.slack, {**out.measured, "t0": t0}, f"Lemma 7: implied by Cauchy-Schwarz at every t in [{t0}, {max(steps)}]")
    return Outcome(out.verdict, out.slack, {**out.measured, "t0": t0}, out.detail)


def check_thm1_norm(inst: Instance, *, with_lmax: bool = False, lower_factor: float = 1.0) -> Outcome:
    """Theorem 1: ``t eta / (2 ||W*_kq||) <= ||W_kq^(t)|| <= t eta`` for t >= 2
    (reading ``with_lmax``: ``2 L_max ||W*||`` in the denominator, as in Lemma 6)."""
    s = _stage2(inst)
    eta = inst.trajectory.eta
    ws = safe_norm(inst.w_kq_star)
    if ws == 0:
        return not_reached("W*_kq = 0")
    m = s.steps >= 2
    t = s.steps[m]
    den = 2 * ws * (inst.dataset.l_max if with_lmax else 1)
    sc = t * eta
    up = inequality(s.norm[m], t * eta, t, sense="<=", what="||W^(t)|| <= t eta", scale=sc)
    lo = inequality(s.norm[m], lower_factor * t * eta / den, t, sense=">=", what=f"||W^(t)|| >= t eta/({'2 L_max' if with_lmax else '2'} ||W*||)", scale=sc)
    return worst(up, lo)


def check_thm1_alignment(inst: Instance, *, C: float = 54.0) -> Outcome:
    """Theorem 1: ``1 - cos(W_kq^(t), W*_kq) <= 54 N L_max^4 ||W*||^4 log^2 t / (t eta)`` (main term).

    The lower-order terms are unreadable in the OCR; dropping them makes
    the bound smaller, so ``holds``/``vacuous`` are conclusive and a
    ``falsified`` would only mean the main term alone is not enough.
    """
    s = _stage2(inst)
    ws = safe_norm(inst.w_kq_star)
    if ws == 0:
        return not_reached("W*_kq = 0")
    m = s.steps >= 2
    t = s.steps[m]
    N, L, eta = inst.dataset.n_samples, inst.dataset.l_max, inst.trajectory.eta
    bound = C * N * L**4 * ws**4 * np.log(t) ** 2 / (t * eta)
    return inequality(s.one_minus_cos[m], bound, t, sense="<=", what="Thm. 1 alignment (main term)", trivial=lambda b: b >= 2.0, scale=np.maximum(bound, 1e-300))


def check_thm1_rate(inst: Instance, *, slack_exponent: float = 0.0) -> Outcome:
    """Theorem 1's rate ``1 - cos = O(log^2 t / t)``: the fitted log-log slope of the
    tail must not exceed the local slope of ``log^2 t / t`` (``-1 + 2/log t``) by more
    than 0.05 (a fitted slope over half a decade; 0.05 covers its noise)."""
    from .common import fitted_loglog_slope

    s = _stage2(inst)
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
    claimed = -1 + 2 / math.log(tm) + slack_exponent
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


def _c0_from(t: int, inst: Instance) -> float:
    """The ``c_0`` for which Theorem 2's stage-2 threshold equals ``t``."""
    N, L, eta = inst.dataset.n_samples, inst.dataset.l_max, inst.trajectory.eta
    ws = safe_norm(inst.w_kq_star)
    lt = math.log(max(t, 2)) ** 2
    return t * eta / (N * L * ws**6 * lt)


def thm2_instance(inst: Instance, *, T2: int = 2500, decay: float = 8.0) -> Instance:
    """Parameters under which Theorem 2's rate can show: ``C_1 T' >= decay``.

    ``C_1 = eta/(4 L_max ||W*_kq||^2)``, so ``eta = decay 4 L_max ||W*||^2 / T'``,
    never below the paper's ``0.05/sqrt(d)`` and never above 1 (the theorem
    asks ``eta <= O(1)``).
    """
    base = Instance(inst.dataset, inst.embeddings, T=900, T2=0)
    ws2 = safe_norm(base.w_kq_star) ** 2
    eta = min(1.0, max(0.05 / math.sqrt(base.d), decay * 4 * inst.dataset.l_max * ws2 / T2))
    return Instance(inst.dataset, inst.embeddings, T=900, T2=T2, eta=eta)


def check_thm2_attention(inst: Instance, *, rate_factor: float = 1.0) -> Outcome:
    """Theorem 2: for t beyond an (unspecified-c_0) threshold,
    ``min_n sum_{l* in I(n)} phi_l*^(t) >= (1 + L_max exp(-C_1 t))^-1``, ``C_1 = eta/(4 L_max ||W*_kq||^2)``.

    Reports the smallest t from which it holds to the end of the run and
    the ``c_0`` that threshold corresponds to; ``not-reached`` if it does
    not hold at the last step (a larger c_0 might still rescue it).
    """
    s = _stage2(inst)
    st = inst.structure
    ds = inst.dataset
    ws = safe_norm(inst.w_kq_star)
    if ws == 0:
        return not_reached("W*_kq = 0")
    L = ds.l_max
    C1 = rate_factor * inst.trajectory.eta / (4 * L * ws**2)
    rows = [k for k, pos in enumerate(st.optimal) if pos]
    opt = np.stack([s.attention[:, k, list(st.optimal[k])].sum(axis=1) for k in rows], axis=1).min(axis=1)
    bound = 1.0 / (1.0 + L * np.exp(-C1 * s.steps))
    # compare the non-optimal mass 1 - phi, which is computed without cancellation
    non = np.stack([s.attention[:, k, [l for l in range(len(ds.samples[k].sentence)) if l not in st.optimal[k]]].sum(axis=1) for k in rows], axis=1).max(axis=1)
    allowed = L * np.exp(-C1 * s.steps) / (1.0 + L * np.exp(-C1 * s.steps))
    ok = non <= allowed * (1 + RTOL)
    t_from = _first_holding_step(ok, s.steps)
    if t_from is None:
        return not_reached(f"at the last step t = {s.steps[-1]} the optimal attention {opt[-1]:.6g} is below {bound[-1]:.6g}", t_max=int(s.steps[-1]))
    c0 = _c0_from(max(t_from, 2), inst)
    # Trivial while the bound is at most 1/L_max, which Lemma 5's floor gives for free.
    informative = bound > 1.0 / L
    if not informative[s.steps >= t_from].any():
        return Outcome(Verdict.VACUOUS, 0.0, {"t_max": int(s.steps[-1])}, f"the bound stays below the trivial 1/L_max up to t = {s.steps[-1]}")
    return holds(float(np.min((allowed - non)[s.steps >= t_from] / np.maximum(allowed[s.steps >= t_from], 1e-300))),
                 f"holds for t >= {t_from} (c_0 >= {c0:.3g}) through t = {s.steps[-1]}", holds_from_t=t_from, implied_c0=c0, t_max=int(s.steps[-1]))


def check_thm2_loss(inst: Instance, *, A_factor: float = 1.0) -> Outcome:
    """Theorem 2: beyond the thresholds, ``L(theta^(t)) <= |V| exp(-A + 2 A L_max / (L_max + exp(C_1 t)))``,
    ``A = C_0 T = T eta_0 / (4 ||W*_ov||^2)`` (the claimed ``L - L* <= ... - L*``, with ``L*`` cancelled)."""
    s = _stage2(inst)
    ws = safe_norm(inst.w_kq_star)
    if ws == 0:
        return not_reached("W*_kq = 0")
    L = inst.dataset.l_max
    V = inst.dataset.n_vocab
    A = A_factor * _A(inst)
    C1 = inst.trajectory.eta / (4 * L * ws**2)
    with np.errstate(over="ignore"):
        logb = math.log(V) - A + 2 * A * L / (L + np.exp(C1 * s.steps))
    with np.errstate(divide="ignore"):
        logl = np.log(s.loss)
    ok = logl <= logb + RTOL * np.maximum(1, np.abs(logb))
    t_from = _first_holding_step(ok, s.steps)
    if t_from is None:
        return not_reached(f"at t = {s.steps[-1]} the loss {s.loss[-1]:.4g} exceeds the bound {math.exp(logb[-1]):.4g}", t_max=int(s.steps[-1]))
    c0 = _c0_from(max(t_from, 2), inst)
    m = s.steps >= t_from
    # Trivial while the bound is above the loss at the start of stage 2.
    if not (logb[m] < math.log(max(s.loss[0], 1e-300))).any():
        return Outcome(Verdict.VACUOUS, float(np.min(logb[m] - logl[m])), {"t_max": int(s.steps[-1])},
                       f"the bound stays above the starting loss up to t = {s.steps[-1]}")
    return holds(float(np.min(logb[m] - logl[m])), f"holds for t >= {t_from} (c_0 >= {c0:.3g}) through t = {s.steps[-1]}",
                 holds_from_t=t_from, implied_c0=c0, t_max=int(s.steps[-1]))


def limit_loss(inst: Instance) -> float:
    """``lim L(W_ov, W_kq)`` as the attention concentrates on the optimal tokens
    (the value along ``s W*_kq``, ``s -> inf``): per sample, the loss of the
    optimal token's logits ``W_ov x_opt``.  This is the infimum fn. 3 speaks of.
    NaN if a sample has no optimal token.  See :func:`log_limit_loss`."""
    return math.exp(log_limit_loss(inst))


def check_fn3(inst: Instance, *, reading: str = "equal", factor: float = 1.0) -> Outcome:
    """Footnote 3 of Theorem 2: for fixed ``W_ov = W_ov^(T)`` the minimum loss is
    ``L* = |V| exp(-T C_0)``, ``C_0 = eta_0/(4 ||W*_ov||^2)``.

    Readings: ``"equal"`` (as written; relative difference above 1e-6 is a
    failure) and ``"upper"`` (``L*`` bounds the minimum from above).  Both
    are compared in logs, so losses far below 1e-308 still compare.
    """
    log_lim = log_limit_loss(inst)
    if not np.isfinite(log_lim):
        return not_reached("a sample has no optimal token")
    ds = inst.dataset
    log_star = math.log(ds.n_vocab) - _A(inst) + math.log(factor)
    meas = {"log_min_loss": log_lim, "log_L_star": log_star, "ratio_min_over_L*": math.exp(log_lim - log_star) if log_lim - log_star < 700 else float("inf")}
    if reading == "equal":
        gap = abs(log_lim - log_star)
        if gap > 1e-6:
            return falsified(-gap, f"the minimum loss is exp({log_lim:.6g}), not L* = exp({log_star:.6g})", **meas)
        return holds(1e-6 - gap, "the minimum loss equals L*", **meas)
    sl = log_star - log_lim
    if sl < -1e-9:
        return falsified(sl, f"the minimum loss exp({log_lim:.6g}) exceeds L* = exp({log_star:.6g})", **meas)
    return holds(sl, f"the minimum loss exp({log_lim:.6g}) <= L* = exp({log_star:.6g})", **meas)


def log_limit_loss(inst: Instance) -> float:
    """``log`` of :func:`limit_loss`, accurate when the loss underflows (NaN if a
    sample has no optimal token)."""
    ds = inst.dataset
    U = inst.trajectory.W_ov @ inst.E
    idx = ds.index
    terms = []
    for s, pos, pi in zip(ds.samples, inst.structure.optimal, ds.pi):
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
