"""The figure of every claim of the paper (:class:`~..framework.figure.FigureSpec`), and the
traces that read what a figure needs off one instance's evidence.

Axis labels are in the paper's notation (matplotlib mathtext).  A trace is a few
dozen numbers per curve (:func:`~..framework.figure.thin`): the figures are drawn
from the same data as the tables, never from a second training run.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.transformer.model import safe_norm
from ntpcheck.transformer.structure import Role

from ..framework.checks import ROUNDING
from ..framework.evidence import Evidence
from ..framework.figure import FigureSpec, thin, thin_indices
from . import bounds
from . import quantities as q
from .section6 import PROP2_TOL

__all__ = ["FIGURES"]

NORM_OV = r"$\Vert W_{ov}^{(t)}\Vert$"
NORM_KQ = r"$\Vert W_{kq}^{(t)}\Vert$"
COS_OV = r"$1-\cos(W_{ov}^{(t)}, W^*_{ov})$"
COS_KQ = r"$1-\cos(W_{kq}^{(t)}, W^*_{kq})$"


def measured_value(key: str):
    """A trace of one measured number of the outcome (``instances`` and ``scatter`` kinds)."""

    def trace(ev: Evidence, o) -> dict:
        return {"value": o.measured.get(key)}

    return trace


def prop1_loss_trace(ev: Evidence, o) -> dict:
    """``L_0(W_ov^(t))`` over t, with the fitted and the claimed exponential rates."""
    s = q.stage1(ev)
    ok = s.loss > 0
    t, y = thin(s.steps[ok], s.loss[ok])
    m = o.measured
    return {"t": t, "y": y, "fitted_rate": m.get("fitted_rate"), "claimed_rate": m.get("claimed_rate"),
            "fit_window": [int(s.steps.max()) / 2, int(s.steps.max())]}


def thm1_rate_trace(ev: Evidence, o) -> dict:
    """``1 - cos(W_kq^(t), W*_kq)`` over t >= 1 (log-spaced), and where the run stops being faithful."""
    s = q.stage2(ev)
    keep = (s.steps >= 1) & np.isfinite(s.one_minus_cos)
    t, y = thin(s.steps[keep], s.one_minus_cos[keep])
    faithful = q.faithful_stage2(ev)
    end = int(s.steps[faithful].max()) if faithful.any() else 0
    return {"t": t, "y": y, "faithful_until": end, "floor": 100 * ROUNDING}


def thm3_gap_trace(ev: Evidence, o) -> dict:
    """Theorem 3's smallest gap over t (:func:`.section6.thm3_gaps` at a few dozen steps)."""
    from .section6 import thm3_gaps

    got = thm3_gaps(ev, points=96)
    if got is None:
        return {}
    t, g = got
    return {"t": t.tolist(), "y": g.tolist(), "C2": o.measured.get("C2")}


def attention_trace(ev: Evidence, o) -> dict:
    """Lemma 5: over t, the smallest optimal-position attention ``min phi_l*`` and the largest
    non-optimal one ``max phi_l`` (samples with an optimal and another token), and ``1/L_max``."""
    s = q.stage2(ev)
    att = s.attention
    if att is None or len(att) < 2:
        return {}
    k = thin_indices(len(att))
    a = att[k]
    opt = np.full(len(k), np.inf)
    non = np.full(len(k), -np.inf)
    for n, pos in enumerate(ev.structure.optimal):
        L = len(ev.dataset.samples[n].sentence)
        others = [l for l in range(L) if l not in pos]
        if pos and L > 1:
            opt = np.minimum(opt, a[:, n, list(pos)].min(axis=1))
        if pos and others:
            non = np.maximum(non, a[:, n, others].max(axis=1))
    if not np.isfinite(opt).any():
        return {}
    return {"t": s.steps[k].tolist(), "y": opt.tolist(), "y2": np.where(np.isfinite(non), non, np.nan).tolist(),
            "bound": [1.0 / ev.dataset.l_max] * len(k), "sense": ">="}


def prop2_trace(ev: Evidence, o) -> dict:
    """Every (query, token) entry: Prop. 2's value (x) against the solver's ``x^T W*_kq q`` (y),
    flagged where the query fails Hall's condition."""
    st = ev.structure
    ds = ev.dataset
    K = ev.E.T @ ev.w_kq_star @ ev.E
    hall = bounds.prop2_hall_deficiencies(st)
    xs, ys, flag = [], [], []
    for qq, row in bounds.prop2_values(st).items():
        for x, v in row.items():
            if st.roles.get(qq, {}).get(x) is None:
                continue
            xs.append(float(v))
            ys.append(float(K[ds.index[x], ds.index[qq]]))
            flag.append(hall.get(qq, -1.0) > 1e-12)
    return {"x": xs[:200], "y": ys[:200], "flag": flag[:200]}


def fn3_trace(ev: Evidence, o) -> dict:
    """Footnote 3: ``log L*`` (x) against ``log`` of the minimum loss (y)."""
    m = o.measured
    return {"x": [m.get("log_L_star")], "y": [m.get("log_min_loss")], "flag": [False]}


def cor1_trace(ev: Evidence, o) -> dict:
    """Corollary 1: every margin at T over A (y) against ``||W*_ov||`` (x); ``y2``: the corrected upper bound over A."""
    s = q.stage1(ev)
    if not len(s.margins) or not len(s.margins[-1]):
        return {}
    A = q.A(ev)
    ws = safe_norm(ev.w_ov_star)
    m = np.asarray(s.margins[-1], dtype=float) / A
    delta = float(bounds.prop1_alignment(np.array([ev.T]), ev.eta0, ws, ev.dataset.n_vocab, 1)[0])
    up = bounds.cor1_corrected_upper(A, ws, delta) / A
    k = thin_indices(len(m), 24)
    return {"x": [ws] * len(k), "y": m[k].tolist(), "y2": [float(up)], "x2": [ws], "flag": [False] * len(k)}


def section7_trace(ev: Evidence, o) -> dict:
    """Figure 2's six curves (per stage: loss, ``1 - cos``, norm) with the norm's upper bound."""
    traj = ev.trajectory
    panels = []
    for stage, s, eta, sym in ((1, traj.stage1, ev.eta0, "ov"), (2, traj.stage2, ev.eta, "kq")):
        t = s.steps
        panels.append({"title": f"stage {stage}: loss", "y_label": "$L_0$" if stage == 1 else "$L$", "log": True,
                       **dict(zip(("t", "y"), thin(t, s.loss)))})
        panels.append({"title": f"stage {stage}: alignment", "y_label": rf"$1-\cos(W_{{{sym}}}^{{(t)}}, W^*_{{{sym}}})$", "log": True,
                       "floor": ROUNDING,
                       **dict(zip(("t", "y"), thin(t, s.one_minus_cos)))})
        tt, nn, bb = thin(t, s.norm, t * eta)
        panels.append({"title": f"stage {stage}: norm", "y_label": rf"$\Vert W_{{{sym}}}^{{(t)}}\Vert$", "log": False,
                       "t": tt, "y": nn, "bound": bb, "bound_label": r"$t\eta_0$" if stage == 1 else r"$t\eta$"})
    return {"panels": panels}


def _between(norm: str, upper: str, lower: str, note: str = "") -> FigureSpec:
    return FigureSpec("between", y=norm, bound=upper, bound2=lower, note=note)


_THM2 = "the thresholds on T and t (c_0 = 1) are met only past the shaded steps"

#: Claim name -> its figure (claims not listed get the generic one).
FIGURES: dict[str, FigureSpec] = {
    "Eq. 5": FigureSpec("instances", trace=measured_value("rel_error"), value="relative error against central differences",
                        reference=1e-6, log=True),
    "Eq. 6": FigureSpec("instances", trace=measured_value("rel_error"), value="relative error against central differences",
                        reference=1e-6, log=True),
    "Lemma 1": _between(NORM_OV, r"$t\eta_0$", r"$t\eta_0/(2\Vert W^*_{ov}\Vert)$"),
    **{name: FigureSpec("bound", y=r"$\langle\nabla L, W^{(t)}/\Vert W^{(t)}\Vert\rangle$",
                        bound=r"$(1+\alpha_t)\langle\nabla L, W^*/\Vert W^*\Vert\rangle$",
                        note="from t_0 on; vacuous where Cauchy-Schwarz alone implies the inequality")
       for name in ("Lemma 7 [idealised W_ov]", "Lemma 7 [trained W_ov]", "Lemma 7 [trained W_ov, general data]")},
    "Lemma 3": FigureSpec("instances", value="", note="an identity checked to rounding: the largest spread over t against 1e-9 (1 + ||W||)"),
    "Lemma 4": FigureSpec("instances", note="an identity checked to rounding: the largest relative error over t against 1e-8"),
    "Lemma 2": FigureSpec("bound", y=r"$\langle W^{(t)}, \nabla L_0\rangle$",
                          bound=r"$(\Vert W\Vert/\Vert W^*\Vert + 2\log 2|V|)\langle W^*, \nabla L_0\rangle$"),
    **{f"Prop. 1 [k={k}]": FigureSpec("bound", y=COS_OV, bound=rf"$12\Vert W^*_{{ov}}\Vert^{k}\log(2|V|)\log t/(t\eta_0)$",
                                      trivial=2.0, floor=ROUNDING, log=True) for k in (1, 2, 3)},
    **{f"Prop. 1 [loss k'={k}]": FigureSpec("rate", y=r"$L_0(W_{ov}^{(t)})$", law="exp", trace=prop1_loss_trace,
                                            bound=rf"$\exp(-\eta_0 t/(4\Vert W^*_{{ov}}\Vert^{k}))$") for k in (1, 2)},
    "Cor. 1 [k=5]": FigureSpec("scatter", x=r"$\Vert W^*_{ov}\Vert$", y=r"margin $(e_{n(x)}-e_i)^\top W_{ov}^{(T)}x\;/\;A$",
                               trace=cor1_trace, lines=(("$A$ (claimed lower)", 0.0, 1.0), ("$3A$ (claimed upper)", 0.0, 3.0),
                                                        (r"$4\Vert W^*_{ov}\Vert A$ (what training gives)", 4.0, 0.0))),
    "Cor. 1 (corrected) [k=5]": FigureSpec("scatter", x=r"$\Vert W^*_{ov}\Vert$",
                                           y=r"margin $(e_{n(x)}-e_i)^\top W_{ov}^{(T)}x\;/\;A$", trace=cor1_trace,
                                           bound2=r"upper $4\Vert W^*\Vert A(1+2\Vert W^*\Vert\sqrt{\delta_T})$",
                                           lines=(("$A$ (lower)", 0.0, 1.0), (r"$4\Vert W^*_{ov}\Vert A$ (what training gives)", 4.0, 0.0))),
    **{name: FigureSpec("attention", y=r"attention $\varphi^{(n,t)}_\ell$", bound=r"$1/L_{\max}$", trace=attention_trace)
       for name in ("Lemma 5 [idealised W_ov]", "Lemma 5 [trained W_ov]", "Lemma 5 [trained W_ov, general data]")},
    **{f"Lemma 6 [{v}]": _between(NORM_KQ, r"$t\eta$", r"$t\eta/(2L_{\max}\Vert W^*_{kq}\Vert)$")
       for v in ("idealised W_ov", "trained W_ov")},
    "Thm. 1 [norm, 2||W*||]": _between(NORM_KQ, r"$t\eta$", r"$t\eta/(2\Vert W^*_{kq}\Vert)$"),
    "Thm. 1 [norm, 2 L_max ||W*||]": _between(NORM_KQ, r"$t\eta$", r"$t\eta/(2L_{\max}\Vert W^*_{kq}\Vert)$"),
    **{f"Thm. 1 [alignment bound{dv}]": FigureSpec("bound", y=COS_KQ, bound=r"$54NL_{\max}^4\Vert W^*_{kq}\Vert^4\log^2 t/(t\eta)$",
                                                   trivial=2.0, floor=ROUNDING, log=True) for dv in ("", ", general data")},
    **{f"Thm. 1 [rate{dv}]": FigureSpec("rate", y=COS_KQ, bound=r"$\log^2 t/t$", trace=thm1_rate_trace) for dv in ("", ", general data")},
    **{f"Thm. 2 [attention, c_0 = 1{dv}]": FigureSpec(
        "bound", y=r"$\log\,\max_n(1-\Sigma_{\ell^*\in I(n)}\varphi_{\ell^*}^{(n,t)})$", bound=r"$\log(1-(1+L_{\max}e^{-C_1t})^{-1})$",
        threshold="t_threshold", note=_THM2) for dv in ("", ", general data")},
    "Thm. 2 [loss, c_0 = 1]": FigureSpec("bound", y=r"$\log L(\theta^{(t)})$", bound=r"$\log(|V|e^{-A+2AL_{\max}/(L_{\max}+e^{C_1t})})$",
                                         threshold="t_threshold", note=_THM2),
    **{f"Thm. 2 fn. 3 [{r}]": FigureSpec("scatter", x=r"$\log L^* = \log|V| - A$", y=r"$\log \min_{W_{kq}} L$", trace=fn3_trace,
                                         lines=(("$y = x$", 1.0, 0.0),)) for r in ("L* = min L", "min L <= L*")},
    **{name: FigureSpec("scatter", x="Prop. 2's value", y=r"$x^\top W^*_{kq}\,q$ (solver)", trace=prop2_trace, lines=(("$y = x$", 1.0, 0.0),),
                        reference=PROP2_TOL,
                        note="one point per (query q, token x); crosses: a query failing Hall's condition")
       for name in ("Prop. 2 [Section 3 setting]", "Prop. 2 [Assumptions 1-2 only]", "Prop. 2 (corrected)", "Prop. 2 (exact)")},
    **{f"Thm. 3 [gaps{dv}]": FigureSpec("gap", y=r"$\min\,(x^*-x_0)^\top W_{kq}^{(t)}q,\ (x_0-x)^\top W_{kq}^{(t)}q$",
                                        bound="$C_2 t$", trace=thm3_gap_trace) for dv in ("", ", general data")},
    **{f"Thm. 3 [prediction{dv}]": FigureSpec("instances", trace=measured_value("min_probability"),
                                              value=r"smallest probability of $n(x_0)$", reference=0.99)
       for dv in ("", ", general data")},
    "Ex. 2": FigureSpec("instances", trace=measured_value("min_probability"), value="smallest probability of the expected token",
                        reference=0.5),
    "§7": FigureSpec("panels", trace=section7_trace, note="Figure 2 of the paper, re-run on every tested instance"),
}
