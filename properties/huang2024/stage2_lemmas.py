"""Appendix C: the lemmas of stage 2 of Algorithm 1 (training W_kq).

Claims: Lemma 4 (projection formula, under the idealised stage 1 of C.1),
Lemma 5 (monotone optimal-token attention), Lemma 6 (linear norm growth),
Lemma 7 (gradient alignment).  They are proved under the idealised stage-1
output (every margin = A); they are registered for it and, separately, for
the trained ``W_ov^(T)``.  Every bound comes from :mod:`.bounds`.
"""

from __future__ import annotations

import zlib

import numpy as np

from ntpcheck.transformer import model
from ntpcheck.transformer.model import safe_norm
from ntpcheck.transformer.stage2_step import gradients_at

from ..framework.checks import between, inconclusive, inequality, outside, requires, vacuous, worst
from ..framework.evidence import Evidence
from ..framework.parts import DROP, UP, mutable
from ..framework.verdicts import Outcome, Verdict
from . import bounds
from . import quantities as q

#: The precondition of every claim about W_kq's direction: Eq. (3) has a constraint.
nonzero_w_kq = requires(lambda ev: safe_norm(ev.w_kq_star) > 0, "W*_kq = 0: no optimal/non-optimal pair to separate")

__all__ = [
    "nonzero_w_kq",
    "lemma4_rhs",
    "check_lemma4",
    "check_lemma5",
    "lemma5_target",
    "sabotaged_attention",
    "check_lemma6",
    "lemma6_target",
    "check_lemma7",
]


def lemma4_rhs(ev: Evidence, Wkq: np.ndarray, Wp: np.ndarray, A: float, second_term: float = 1.0) -> float:
    """Lemma 4's right-hand side: the projection ``<grad L, W'>`` written with ``A``.

    ``A sum_n pi ([T]_y - 1) sum_{l in I(n)} phi_l (x_l - X phi)^T W' x_L
      + A sum_n pi sum_{l not in I(n)} [T]_{n(x_l)} phi_l (x_l - X phi)^T W' x_L``
    (the second term is 0 for a token without collocation; ``second_term=0``
    drops it, the formula of the structural sabotage).  Parts: the terms ``"first sum"`` and
    ``"second sum"``, each exercised by an instance on which dropping it breaks the identity.
    """
    ds = ev.dataset
    st = ev.structure
    E = ev.E
    arr = ds.arrays
    phi = model.attention(Wkq, E, arr)
    z = model.logits(ev.trajectory.W_ov, Wkq, E, arr, phi)
    idx = ds.index
    first = second = 0.0
    for k, (s, pos) in enumerate(zip(ds.samples, st.optimal)):
        toks = [idx[t] for t in s.sentence]
        X = E[:, toks]
        xq = X[:, -1]
        ph = phi[k, : len(toks)]
        y = idx[s.next]
        # wrong-class probabilities without cancellation; [T]_y - 1 = -sum of them
        _, p = model.cross_entropy_parts(z[k][None, :], np.array([y]))
        p = p[0]
        scores = X.T @ Wp @ xq  # x_m^T W' x_L for every position m
        for l, i in enumerate(toks):
            # (x_l - X phi)^T W' x_L in the pairwise form sum_m phi_m (x_l - x_m)^T W' x_L, as the model's
            # gradient takes it: once phi_l rounds to 1, x_l - X phi loses the phi_m x_l terms (half the
            # value where two tokens remain), while the pairwise differences keep them.
            proj = float(ph @ (scores[l] - scores))
            if l in pos:
                first += ds.pi[k] * (-p.sum()) * ph[l] * proj
            else:
                nx = st.collocation(s.sentence[l])
                if nx is not None:
                    second += ds.pi[k] * p[idx[nx]] * ph[l] * proj
    return A * (mutable("first sum", 1.0, DROP) * first + mutable("second sum", second_term, DROP) * second)


def check_lemma4(ev: Evidence, *, rhs=lemma4_rhs) -> Outcome:
    """Lemma 4: under idealised margins, ``<grad_{W_kq} L, W'>`` equals the formula above.

    Checked at ``W_kq^(t)`` for several t along stage 2, with ``W'`` the
    max-margin ``W*_kq`` and a random matrix.  An identity: relative error
    above 1e-8 is a failure (both sides are float64 sums of ~100 terms).
    ``rhs`` is the formula checked (replaced by a wrong one in the sabotage).
    """
    if not ev.idealised:
        return outside("Lemma 4 is stated for the idealised stage-1 output (all margins = A)")
    s = q.stage2(ev)
    A = q.A(ev)
    rng = np.random.default_rng(zlib.crc32(ev.key[0].encode()))
    d = ev.d
    Wps = [ev.w_kq_star, rng.standard_normal((d, d))]
    picks = sorted(set(np.linspace(0, len(s.steps) - 1, 6).astype(int)))
    errs, steps = [], []
    for j in picks:
        W = s.weights[j]
        G = model.grad_kq(ev.trajectory.W_ov, W, ev.E, ev.dataset.arrays)[0]
        for Wp in Wps:
            lhs = float(np.sum(G * Wp))
            right = rhs(ev, W, Wp, A)
            scale = max(abs(lhs), abs(right), 1e-300) if max(abs(lhs), abs(right)) > 0 else 1.0
            errs.append(abs(lhs - right) / scale)
            steps.append(int(s.steps[j]))
    errs = np.array(errs)
    return inequality(errs, np.full(len(errs), 1e-8), np.array(steps), sense="<=", what="Lemma 4 relative error", scale=np.ones(len(errs)), rtol=0.0,
                      rhs_kind="tolerance")


def optimal_attention(ev: Evidence, att: np.ndarray) -> np.ndarray | None:
    """``att[:, n, l*]`` for every optimal position ``l*`` of a sample with another token
    (shape (steps, positions)): what Lemma 5 is about; None if there is none or fewer than two steps."""
    rows = [(k, l) for k, pos in enumerate(ev.structure.optimal) for l in pos if len(ev.dataset.samples[k].sentence) > 1]
    if not rows or len(att) < 2:
        return None
    return att[:, [r[0] for r in rows], [r[1] for r in rows]]


def check_lemma5(ev: Evidence, *, attention: np.ndarray | None = None) -> Outcome:
    """Lemma 5: for every t, n and optimal position l*: ``phi_l*^(t+1) >= phi_l*^(t) >= 1/L_max``,
    and (the proof's induction) ``phi_l* >= phi_l`` for every non-optimal l.

    Attention weights are in [0, 1] and computed to ~1e-16 absolute; a
    decrease or a gap beyond 1e-12 is real.  ``attention`` replaces the
    trajectory's (the input of the structural sabotage).
    """
    att = q.stage2(ev).attention if attention is None else attention
    ds = ev.dataset
    st = ev.structure
    L = ds.l_max
    opt = optimal_attention(ev, att)
    if opt is None:
        return outside("no sample with an optimal position and another token")
    steps = np.arange(len(att))
    mono = inequality(opt[:-1].min(axis=1) * 0 + np.min(opt[1:] - opt[:-1], axis=1), np.zeros(len(att) - 1), steps[:-1],
                      sense=">=", what="phi_l*^(t+1) - phi_l*^(t)", scale=np.ones(len(att) - 1), rtol=1e-12)
    floor = inequality(opt.min(axis=1), np.full(len(att), mutable("1/L_max", 1.0 / L, UP)), steps, sense=">=", what="phi_l* >= 1/L_max",
                       scale=np.ones(len(att)), rtol=1e-12)
    gaps = []
    for k, pos in enumerate(st.optimal):
        n_len = len(ds.samples[k].sentence)
        non = [l for l in range(n_len) if l not in pos]
        if pos and non:
            gaps.append(att[:, k, list(pos)].min(axis=1) - att[:, k, non].max(axis=1))
    dom = inequality(np.min(gaps, axis=0), np.zeros(len(att)), steps, sense=">=", what="phi_l* >= phi_l (non-optimal l)", scale=np.ones(len(att)), rtol=1e-12) if gaps else mono
    return worst(mono, floor, dom)


#: Steps where an optimal position's remaining attention ``1 - phi`` is below this are saturated:
#: its increments are at rounding level there (float64 attention carries ~1e-16 absolute error).
SATURATED = 1e-9


def lemma5_target(ev: Evidence) -> float:
    """Lemma 5's distance to failure for the search (``Claim.target``): minus the smallest
    normalised increment ``(phi_l*^(t+1) - phi_l*^(t)) / (1 - phi_l*^(t))`` of an optimal position
    over the informative steps (``1 - phi_l*^(t) >= SATURATED``).

    Lemma 5's slack is 0 on every instance (equality at the uniform start and increments
    that vanish in saturation), so it cannot steer a search; the normalised increment is the
    fraction of the remaining gap closed in one step, which varies across instances and is
    negative exactly where the monotonicity fails.  Positions whose attention never moves
    (constant by construction: their sample has nothing to learn) are left out; 0 where no
    step is informative.

    Examples
    --------
    >>> import ntpcheck
    >>> from ntpcheck.transformer.instance import Instance
    >>> from ..framework.evidence import evidence
    >>> from .setups import smallest_stage2
    >>> -1 < lemma5_target(evidence(smallest_stage2().with_params(T=30, T2=30))) < 0
    True
    """
    opt = optimal_attention(ev, q.stage2(ev).attention)
    if opt is None:
        return 0.0
    opt = opt[:, np.ptp(opt, axis=0) > SATURATED]  # a position whose attention never moves (nothing to learn there)
    gap = 1.0 - opt[:-1]
    live = gap >= SATURATED
    if not live.any():
        return 0.0
    return float(-np.min((opt[1:] - opt[:-1])[live] / gap[live]))


def sabotaged_attention(ev: Evidence, steps: int = 30) -> np.ndarray:
    """Stage 2 with the update's sign flipped (gradient ascent): attention must be rejected."""
    W = np.zeros((ev.d, ev.d))
    arr = ev.dataset.arrays
    out = [model.attention(W, ev.E, arr)]
    for _ in range(steps):
        G = model.grad_kq(ev.trajectory.W_ov, W, ev.E, arr)[0]
        if not G.any():
            break
        W = W + ev.eta * G / np.linalg.norm(G)
        out.append(model.attention(W, ev.E, arr))
    return np.array(out)


@nonzero_w_kq
def check_lemma6(ev: Evidence) -> Outcome:
    """Lemma 6 (zero init): ``t eta / (2 L_max ||W*_kq||) <= ||W_kq^(t)|| <= t eta``."""
    s = q.stage2(ev)
    eta = ev.eta
    ws = safe_norm(ev.w_kq_star)
    t = s.steps
    return between(s.norm, bounds.lemma6_lower(t, eta, ev.dataset.l_max, ws), bounds.lemma6_upper(t, eta), t,
                   scale=np.maximum(t * eta, 1e-300), what_lower="||W^(t)|| >= t eta/(2 L_max ||W*||)", what_upper="||W^(t)|| <= t eta")


def lemma6_target(ev: Evidence) -> float:
    """Lemma 6's distance to failure for the search (``Claim.target``): the largest of
    ``||W_kq^(t)||/(t eta)`` and ``lower(t)/||W_kq^(t)||`` over ``t >= 2``.

    Under zero init ``||W_kq^(1)|| = eta`` exactly (one normalised step), so the slack of
    the upper bound is 0 at t = 1 on every instance, by construction; from t = 2 on the
    ratios vary with the data and reach 1 exactly where a bound fails.
    """
    s = q.stage2(ev)
    m = s.steps >= 2
    ws = safe_norm(ev.w_kq_star)
    if not m.any() or ws == 0:
        return 0.0
    t, n = s.steps[m], np.maximum(s.norm[m], 1e-300)
    return float(max(np.max(n / bounds.lemma6_upper(t, ev.eta)), np.max(bounds.lemma6_lower(t, ev.eta, ev.dataset.l_max, ws) / n)))


@nonzero_w_kq
def check_lemma7(ev: Evidence) -> Outcome:
    """Lemma 7: for ``t >= t_0``, ``<grad L, W/||W||> >= (1 + alpha_t) <grad L, W*/||W*||>``,
    ``alpha_t = 4 N L_max^2 ||W*||^2 (1 + log(2 L_max ||W^(t)||)) / ||W^(t)||``.

    Both sides are negative.  Vacuous at t if ``(1 + alpha_t) |<grad, W*/||W*||>| >= ||grad||``
    (then Cauchy-Schwarz alone implies it).
    """
    s = q.stage2(ev)
    ws = ev.w_kq_star
    nws = safe_norm(ws)
    N, L = ev.dataset.n_samples, ev.dataset.l_max
    t0 = bounds.lemma7_t0(ev.eta, L, nws)
    if s.steps.max() < t0:
        return outside(f"the run stops at t = {s.steps.max()} < t_0 = {t0}", t0=t0)
    sel = s.steps >= t0
    Ws, steps = s.weights[sel], s.steps[sel]
    G = gradients_at(ev.trajectory.W_ov, Ws, ev.E, ev.dataset.arrays)
    sc = np.max(np.abs(G), axis=(1, 2))
    zero = np.flatnonzero(sc == 0)
    keep = slice(0, zero[0] if len(zero) else len(sc))  # from an underflowed gradient on, nothing to compare
    G, Ws, steps = G[keep] / sc[keep, None, None], Ws[keep], steps[keep]
    nw = s.norm[sel][keep]  # ||W^(t)||, as recorded
    alpha = bounds.lemma7_alpha(N, L, nws, nw)
    a = np.sum(G * Ws, axis=(1, 2)) / nw
    b = np.sum(G * ws, axis=(1, 2)) / nws
    lhs, rhs = a, (1 + alpha) * b
    triv = (1 + alpha) * np.abs(b) >= np.linalg.norm(G.reshape(len(G), -1), axis=1)
    if not len(steps):
        return inconclusive("the gradient underflowed before t_0")
    out = inequality(lhs, rhs, steps, sense=">=", what="Lemma 7", scale=np.abs(rhs) + 1e-300)
    if out.verdict is Verdict.HOLDS and triv.all():
        o = vacuous(out.slack, f"Lemma 7: implied by Cauchy-Schwarz at every t in [{t0}, {max(steps)}]", **out.measured, t0=t0)
        return Outcome(o.verdict, o.slack, o.measured, o.detail, out.series)
    return Outcome(out.verdict, out.slack, {**out.measured, "t0": t0}, out.detail, out.series)
