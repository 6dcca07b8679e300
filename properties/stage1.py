"""Section 5.1, Appendix B and C.1: stage 1 of Algorithm 1 (training W_ov).

Claims: Lemma 1 (norm), Lemma 2 (one-step inequality), Proposition 1
(alignment, three readings of the exponent k; loss rate, two readings k'),
Lemma 3 (equal off-target logits), Corollary 1 (margins in (A, 3A)) and its
corrected form.  All are stated under Assumptions 1 and 2; stage 1 only
depends on the collocation.
"""

from __future__ import annotations

import math

import numpy as np

from ntpcheck import model
from ntpcheck.claims import Instance, Outcome, Verdict
from ntpcheck.model import safe_norm
from ntpcheck.training import collocation_arrays

from .common import RTOL, falsified, holds, inequality, not_reached

__all__ = [
    "check_lemma1",
    "check_lemma2",
    "check_prop1_alignment",
    "check_prop1_loss",
    "check_lemma3",
    "check_cor1",
    "check_cor1_corrected",
    "cor1_instance",
    "worst",
]


def worst(*outcomes: Outcome) -> Outcome:
    """Combine outcomes of several inequalities of one claim: the worst one speaks."""
    order = {Verdict.ERROR: 0, Verdict.FALSIFIED: 1, Verdict.NOT_REACHED: 2, Verdict.HOLDS: 3, Verdict.VACUOUS: 4}
    fals = [o for o in outcomes if o.verdict in (Verdict.ERROR, Verdict.FALSIFIED, Verdict.NOT_REACHED)]
    if fals:
        return min(fals, key=lambda o: order[o.verdict])
    if all(o.verdict is Verdict.VACUOUS for o in outcomes):
        return min(outcomes, key=lambda o: o.slack)
    informative = [o for o in outcomes if o.verdict is Verdict.HOLDS]
    o = min(informative, key=lambda o: o.slack)
    return o


def _stage1(inst: Instance):
    return inst.trajectory.stage1


def check_lemma1(inst: Instance, *, upper_factor: float = 1.0, lower_factor: float = 1.0) -> Outcome:
    """Lemma 1: ``t eta_0 / (2 ||W*_ov||) <= ||W_ov^(t)|| <= t eta_0`` for every t."""
    s = _stage1(inst)
    eta0 = inst.trajectory.eta0
    ws = safe_norm(inst.w_ov_star)
    t = s.steps
    up = inequality(s.norm, upper_factor * t * eta0, t, sense="<=", what="upper bound t eta0", scale=np.maximum(t * eta0, 1e-300))
    lo = inequality(s.norm, lower_factor * t * eta0 / (2 * ws), t, sense=">=", what="lower bound t eta0/(2||W*||)", scale=np.maximum(t * eta0, 1e-300))
    return worst(up, lo)


def check_lemma2(inst: Instance, *, factor: float = 1.0) -> Outcome:
    """Lemma 2: ``<W, grad L0(W)> >= (||W||/||W*|| + 2 log(2|V|)) <W*, grad L0(W)>`` at every t >= 1.

    (Read from the proof of Lemma 2: ``W' = (||W^(t)||/||W*|| + 2 log 2|V|) W*``
    has smaller loss, and convexity gives the inequality.)  ``factor``
    scales the bracket (``factor < 1`` sabotages it).
    """
    s = _stage1(inst)
    Ws = inst.w_ov_star
    E = inst.E
    coll = collocation_arrays(inst.structure)
    V = inst.dataset.n_vocab
    lhs, rhs, steps = [], [], []
    for t, W in zip(s.steps, s.weights):
        if t < 1:
            continue
        G = model.stage1_grad(W, E, coll)[0]
        nw = safe_norm(W)
        lhs.append(float(np.sum(W * G)))
        rhs.append(factor * (nw / safe_norm(Ws) + 2 * math.log(2 * V)) * float(np.sum(Ws * G)))
        steps.append(t)
    return inequality(np.array(lhs), np.array(rhs), np.array(steps), sense=">=", what="Lemma 2")


def prop1_bound(inst: Instance, k: int, t: np.ndarray, C: float = 12.0) -> np.ndarray:
    eta0 = inst.trajectory.eta0
    ws = safe_norm(inst.w_ov_star)
    V = inst.dataset.n_vocab
    with np.errstate(divide="ignore", invalid="ignore"):
        return C * ws**k * math.log(2 * V) * np.log(t) / (t * eta0)


def check_prop1_alignment(inst: Instance, *, k: int = 1, C: float = 12.0) -> Outcome:
    """Proposition 1: ``1 - cos(W_ov^(t), W*_ov) <= C ||W*||^k log(2|V|) log t / (t eta_0)`` for t >= 2."""
    s = _stage1(inst)
    mask = s.steps >= 2
    t = s.steps[mask]
    if not len(t):
        return not_reached("Proposition 1 needs t >= 2")
    bound = prop1_bound(inst, k, t, C)
    return inequality(
        s.one_minus_cos[mask], bound, t, sense="<=", what=f"Prop. 1 alignment (k={k})",
        trivial=lambda b: b >= 2.0, scale=np.maximum(bound, 1e-300),
    )


def check_prop1_loss(inst: Instance, *, k: int = 1, rate_factor: float = 1.0) -> Outcome:
    """Proposition 1: ``L_0(W^(t)) = O(exp(-eta_0 t / (4 ||W*||^k)))``.

    An order claim: the tail rate ``-d log L_0 / dt`` (least squares over the
    second half of the run) must be at least the claimed rate.  The smallest
    constant in front, ``max_t L_0(t) exp(rate t)``, is reported.
    """
    s = _stage1(inst)
    eta0 = inst.trajectory.eta0
    ws = safe_norm(inst.w_ov_star)
    claimed = rate_factor * eta0 / (4 * ws**k)
    ok = (s.loss > 0) & np.isfinite(s.loss)
    t, L = s.steps[ok], s.loss[ok]
    if len(t) < 8:
        return not_reached("too few steps with a positive loss to fit a rate")
    half = t >= t.max() / 2
    rate = -float(np.polyfit(t[half], np.log(L[half]), 1)[0])
    log_const = float(np.max(np.log(L) + claimed * t))
    const = math.exp(log_const) if log_const < 700 else float("inf")
    slack = (rate - claimed) / claimed
    meas = {"rate": f"{rate:.4g} vs claimed {claimed:.4g}", "fitted_rate": rate, "claimed_rate": claimed, "smallest_constant": const, "t_max": int(t.max())}
    if slack < -1e-3:  # a fitted slope; 0.1% covers the curvature of log(1 + x) over the tail
        return falsified(slack, f"L_0 decays at rate {rate:.4g} < claimed {claimed:.4g}", **meas)
    return holds(slack, f"L_0 decays at rate {rate:.4g} >= claimed {claimed:.4g}", **meas)


def lemma3_spread(W: np.ndarray, E: np.ndarray, coll) -> float:
    """``max |(e_i - e_i')^T W x|`` over x with a collocation and ``i, i' != n(x)``."""
    U = W @ E
    worst_ = 0.0
    for x, y in zip(coll.source, coll.target):
        col = np.delete(U[:, x], y)
        if len(col) > 1:
            worst_ = max(worst_, float(col.max() - col.min()))
    return worst_


def check_lemma3(inst: Instance, *, weights: np.ndarray | None = None) -> Outcome:
    """Lemma 3: ``(e_i - e_i')^T W_ov^(t) x = 0`` for all t, x, and ``i, i' != n(x)``.

    Tolerance ``1e-9 (1 + ||W^(t)||)``: the entries are sums of identical
    float64 terms (exactly equal with canonical embeddings, equal to rounding
    ~1e-16 ||W|| with rotated ones).  ``weights`` replaces the trajectory
    (used to feed it a sabotaged one).
    """
    s = _stage1(inst)
    Ws = s.weights if weights is None else weights
    coll = collocation_arrays(inst.structure)
    spread = np.array([lemma3_spread(W, inst.E, coll) for W in Ws])
    norms = np.array([safe_norm(W) for W in Ws])
    steps = np.arange(len(Ws))
    return inequality(spread, RTOL * (1 + norms), steps, sense="<=", what="Lemma 3 off-target spread", scale=1 + norms, rtol=0.0)


def sabotaged_stage1_weights(inst: Instance, steps: int = 50) -> np.ndarray:
    """Stage 1 with a sabotaged update: the gradient gets an asymmetric perturbation."""
    coll = collocation_arrays(inst.structure)
    E = inst.E
    W = np.zeros((inst.dataset.n_vocab, E.shape[0]))
    out = [W.copy()]
    bump = np.zeros_like(W)
    bump[0, 0] = 0.1  # breaks the symmetry between off-target logits
    for _ in range(steps):
        G = model.stage1_grad(W, E, coll)[0]
        G = G + bump * np.abs(G).max()
        W = W - inst.trajectory.eta0 * G / np.linalg.norm(G)
        out.append(W.copy())
    return np.array(out)


def cor1_threshold_constant(inst: Instance, k: int) -> float:
    """``384 ||W*_ov||^k log(2|V|)``: Corollary 1 asks ``T >= c log T / eta_0``."""
    return 384 * safe_norm(inst.w_ov_star) ** k * math.log(2 * inst.dataset.n_vocab)


def cor1_instance(ds, *, k: int = 5, T: int = 3000) -> Instance:
    """An instance meeting Corollary 1's threshold: ``T`` steps and ``eta_0 = c log T / T``.

    Stage 1 is scale-free in ``eta_0`` apart from the threshold, so choosing
    ``eta_0`` this way reaches the corollary's hypotheses in ``T`` steps.
    """
    base = Instance(ds, None, T=T, T2=0)
    c = cor1_threshold_constant(base, k)
    eta0 = max(0.2 / math.sqrt(base.d), c * math.log(T) / T)
    return Instance(ds, None, T=T, T2=0, eta0=eta0)


def _cor1_margins(inst: Instance, k: int) -> tuple[np.ndarray, float] | Outcome:
    """The margins at T and ``A``, or ``not-reached`` below Corollary 1's threshold."""
    T, eta0 = inst.T, inst.trajectory.eta0
    need = cor1_threshold_constant(inst, k) * math.log(max(T, 2)) / eta0
    if T < need:
        return not_reached(f"T = {T} < 384 ||W*||^{k} log(2|V|) log T / eta0 = {need:.4g}", T=T, threshold=need)
    m = _stage1(inst).margins[-1]
    if not len(m):
        return not_reached("no collocation pair, so no margin")
    return m, T * eta0 / (4 * safe_norm(inst.w_ov_star) ** 2)


def check_cor1(inst: Instance, *, k: int = 5, upper: float = 3.0, lower: float = 1.0) -> Outcome:
    """Corollary 1: if ``T >= 384 ||W*||^k log(2|V|) log T / eta_0``, every margin
    ``(e_{n(x)} - e_i)^T W^(T) x`` lies in ``(A, 3A)``, ``A = T eta_0/(4 ||W*||^2)``, and Lemma 3 holds."""
    got = _cor1_margins(inst, k)
    if isinstance(got, Outcome):
        return got
    m, A = got
    T, eta0 = inst.T, inst.trajectory.eta0
    t = np.full(len(m), T)
    lo = inequality(m, lower * A * np.ones_like(m), t, sense=">=", what="margin > A", scale=A * np.ones_like(m))
    hi = inequality(m, upper * A * np.ones_like(m), t, sense="<=", what="margin < 3A", scale=A * np.ones_like(m))
    out = worst(lo, hi, check_lemma3(inst))
    return Outcome(out.verdict, out.slack, {**out.measured, "A": A, "max_margin_over_A": float(m.max() / A), "4||W*||": 4 * safe_norm(inst.w_ov_star), "eta0": eta0, "T": T}, out.detail)


def check_cor1_corrected(inst: Instance, *, k: int = 5, shrink: float = 1.0) -> Outcome:
    """Corollary 1 (corrected): under the same threshold, the margins lie in
    ``(A, 4 ||W*|| A (1 + 2 ||W*|| sqrt(delta_T)))`` with ``delta_T`` Proposition 1's
    bound for k = 1.  Derivation: margin = ``||W|| (e - e_i)^T (W*/||W*|| + D) x``
    with ``||D|| = sqrt(2 (1 - cos))`` and ``||e - e_i|| = sqrt 2``, and
    ``||W^(T)|| <= T eta_0 = 4 ||W*||^2 A`` (Lemma 1).  ``shrink < 1``
    sabotages the upper constant."""
    got = _cor1_margins(inst, k)
    if isinstance(got, Outcome):
        return got
    m, A = got
    T = inst.T
    ws = safe_norm(inst.w_ov_star)
    delta = float(prop1_bound(inst, 1, np.array([T]))[0])
    upper = shrink * 4 * ws * A * (1 + 2 * ws * math.sqrt(delta))
    t = np.full(len(m), T)
    lo = inequality(m, A * np.ones_like(m), t, sense=">=", what="margin > A", scale=A * np.ones_like(m))
    hi = inequality(m, upper * np.ones_like(m), t, sense="<=", what="margin < 4||W*||A(1+2||W*||sqrt(delta))", scale=A * np.ones_like(m))
    return worst(lo, hi)
