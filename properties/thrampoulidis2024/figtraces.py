"""The traces of Thrampoulidis (2024)'s figures: what each figure needs, read off one instance's
evidence and outcome (:func:`~..framework.figure.trace_of`).

Everything here reuses what the checks computed (the GD run and the regularization path cached
on the evidence, the outcome's measured values and series) or re-evaluates one of the paper's
formulas from :mod:`.bounds` at a few dozen points; no trace trains or solves anew.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ntpcheck.linear.dynamics import one_minus_cos

from ..framework.checks import ROUNDING
from ..framework.figure import thin
from . import bounds
from ..framework.limits import trend

__all__ = ["measured", "measured_points", "series_points", "gd_limit", "path_limit", "eq7_trace", "prop1_trace",
           "genie_trace", "step_pairs", "rem2_shannon_trace", "appc_trace", "r11_trace", "eq20_trace"]


def measured(key: str | Callable) -> Callable:
    """A trace of one number: the outcome's ``measured[key]`` (or ``key(measured)``)."""

    def trace(ev, o) -> dict:
        m = o.measured
        try:
            v = key(m) if callable(key) else m.get(key)
        except (KeyError, TypeError, ZeroDivisionError):
            v = None
        return {"value": v}

    return trace


def measured_points(x: str, y: str) -> Callable:
    """A scatter trace of the outcome's ``measured[x]`` against ``measured[y]`` (numbers or lists)."""

    def trace(ev, o) -> dict:
        xs, ys = o.measured.get(x), o.measured.get(y)
        if xs is None or ys is None:
            return {}
        xs, ys = np.atleast_1d(np.asarray(xs, dtype=float)), np.atleast_1d(np.asarray(ys, dtype=float))
        keep = np.isfinite(xs) & np.isfinite(ys)
        return {"x": xs[keep].tolist(), "y": ys[keep].tolist()}

    return trace


def series_points(ev, o) -> dict:
    """A scatter trace of a one-point inequality: its bound (x) against its measured side (y)."""
    s = o.series
    if s is None:
        return {}
    return {"x": np.atleast_1d(np.asarray(s["rhs"], dtype=float)).tolist()[:200],
            "y": np.atleast_1d(np.asarray(s["lhs"], dtype=float)).tolist()[:200]}


# -- limits (the ``limit`` kind) ------------------------------------------------------------------
def _curve(label: str, t, y, toward: str, floor=None, decades: float = 2.0) -> dict:
    """One quantity of a limit: thinned, with its trend (:func:`~ntpcheck.properties.framework.limits.trend`, as the check fits it)."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    fl = None if floor is None else np.broadcast_to(np.asarray(floor, dtype=float), y.shape)
    tr = trend(t, y, decades=decades, floor=fl, log_y=toward == "zero")
    fit = None if tr is None else {"slope": tr.slope, "lo": tr.lo, "hi": tr.hi, "t_from": tr.t_from, "t_to": tr.t_to}
    keep = t > 0
    if fl is None:
        tt, yy = thin(t[keep], y[keep])
        return {"label": label, "t": tt, "y": yy, "toward": toward, "fit": fit}
    tt, yy, ff = thin(t[keep], y[keep], fl[keep])
    return {"label": label, "t": tt, "y": yy, "toward": toward, "floor": ff, "fit": fit}


def _limit(curves: list[dict]) -> dict:
    return {"t": curves[0]["t"], "curves": curves}


EXCESS = r"$CE(W_k)-\mathcal{H}$"
NORM = r"$\Vert W_k\Vert$"
OMC = r"$1-\langle \bar W_k, \bar W^{mm}\rangle$"
DIST = r"$\Vert P_{\mathcal{F}}W_k-W^\star\Vert$"
PERP = r"$\Vert P_\perp W_k\Vert$"


def _decided_factor(ev, o, path: bool = False) -> int:
    """How many times longer than the base run the run that decided ``o`` was (its ``horizons``)."""
    hs = (o.measured or {}).get("horizons") or []
    if len(hs) < 2:
        return 1
    return int(round(hs[-1] / hs[0])) if path else int(round(hs[-1] / float(ev.gd.k[-1])))


def gd_limit(*which: str) -> Callable:
    """A ``limit`` trace of GD's records (``ev.gd``): ``which`` among ``excess``, ``norm``, ``omc``
    (1 − correlation with W^mm), ``dist`` (‖P_ℱW_k − W⋆‖), ``perp`` (‖P_⊥W_k‖); floors and decades
    as in :mod:`.dynamics`."""

    def trace(ev, o) -> dict:
        from ntpcheck.linear.dynamics import dist_floor

        from .dynamics import DECADES

        g = ev.gd_at(_decided_factor(ev, o))  # the run that decided (framework.limits' confirming runs)
        table = {"excess": lambda: _curve(EXCESS, g.k, g.excess, "zero", decades=DECADES),
                 "norm": lambda: _curve(NORM, g.k, g.norm, "infinity", decades=DECADES),
                 "omc": lambda: _curve(OMC, g.k, g.one_minus_corr, "zero", ROUNDING, DECADES),
                 "dist": lambda: _curve(DIST, g.k, g.dist_F, "zero", dist_floor(g.norm, np.linalg.norm(ev.w_star)), DECADES),
                 "perp": lambda: _curve(PERP, g.k, g.norm_perp, "infinity", decades=DECADES)}
        return _limit([table[w]() for w in which])

    return trace


def path_limit(which: str) -> Callable:
    """A ``limit`` trace of the regularization path (``ev.path``) against B: ``omc``, ``dist`` or ``perp``."""

    def trace(ev, o) -> dict:
        from .regpath import DECADES

        f = _decided_factor(ev, o, path=True)
        p = ev.path if f == 1 else (ev.path_at(f) or ev.path)  # the run that decided
        if len(p.points) < 2:
            return {}
        proj = ev.references.project(p.W)
        if which == "omc":
            c = _curve(r"$1-\langle \hat W_B/\Vert\hat W_B\Vert, \bar W^{mm}\rangle$", p.B, one_minus_cos(p.W, ev.w_mm), "zero",
                       ROUNDING, DECADES)
        elif which == "dist":
            dist = np.sqrt(np.sum((proj - ev.w_star) ** 2, axis=(1, 2)))
            c = _curve(r"$\Vert P_{\mathcal{F}}\hat W_B-W^\star\Vert$", p.B, dist, "zero",
                       np.maximum(p.dist, 1e-13 * np.maximum(p.B, 1.0)), DECADES)
        else:
            perp = p.W - proj
            c = _curve(r"$\Vert P_\perp\hat W_B\Vert$", p.B, np.sqrt(np.sum(perp * perp, axis=(1, 2))), "infinity", decades=DECADES)
        return _limit([c])

    return trace


# -- bounds against a parameter (the ``bound`` kind) ------------------------------------------------
def eq7_trace(ev, o) -> dict:
    """Eq. (7): over γ, the largest out-of-support probability ``max_{j, v∉S_j} S_v(γ W^d h_j)`` over
    the directions tried (from the check's series: ratios to ``e^{−γ}``, one block of γ per direction
    and context), and the bound ``e^{−γ}``."""
    from .statics import GAMMAS

    s = o.series
    if s is None:
        return {}
    ratios = np.asarray(s["lhs"], dtype=float).reshape(-1, len(GAMMAS))
    bound = np.exp(bounds.eq7_log_bound(GAMMAS))
    return {"t": GAMMAS.tolist(), "y": (ratios.max(axis=0) * bound).tolist(), "bound": bound.tolist()}


def prop1_trace(ev, o) -> dict:
    """Prop. 1: ``CE(W^p + γW^d) − ℋ`` along the path of the check (:func:`.statics._path`) whose
    gap is closest to its bound ``V e^{M‖W^p‖} e^{−γ}``, against ``γ − M‖W^p‖``."""
    from .statics import P1_GAMMAS, _path

    D = ev.data
    M = bounds.M_const(D.H)
    best = None
    for Wp, _, gammas, inside, outside in _path(ev):
        gap = np.maximum(inside + outside, 1e-300)
        log_b = bounds.prop1_log_bound(gammas, float(np.linalg.norm(Wp)), D.V, M)
        worst = float(np.max(np.log(gap) - log_b))
        if best is None or worst > best[0]:
            best = (worst, gap, np.exp(log_b))
    if best is None:
        return {}
    return {"t": P1_GAMMAS.tolist(), "y": best[1].tolist(), "bound": best[2].tolist()}


def genie_trace(ev, o) -> dict:
    """T1-pf (d): ``log(CE(W⋆ + R W^mm) − ℋ)`` and ``log(C e^{−R})`` against R (:data:`.regpath.GENIE_R`)."""
    from .lemma5 import log_out
    from .regpath import GENIE_R, genie_log_bound

    ws, wm = ev.w_star, ev.w_mm
    genie = [log_out(ev.data, ws, r * wm) for r in GENIE_R]
    return {"t": GENIE_R.tolist(), "y": genie, "bound": genie_log_bound(ev.data, float(np.linalg.norm(ws)), GENIE_R).tolist(),
            "log_units": True}


def step_pairs(values: Callable, sense: str) -> Callable:
    """A ``bound`` trace of a sequence ``a_1, a_2, …`` claimed monotone: ``a_t`` (y) against ``a_{t−1}``
    (its bound, ``sense`` ``"<="``: non-increasing, ``">="``: non-decreasing) over t; at t = 1 the bound
    is ``a_1`` itself (nothing to compare)."""

    def trace(ev, o) -> dict:
        a = values(ev)
        if a is None or len(a) < 2:
            return {}
        a = np.asarray(a, dtype=float)
        return {"t": list(range(1, len(a) + 1)), "y": a.tolist(), "bound": [a[0], *a[:-1]], "sense": sense,
                "absolute": True}

    return trace


def m_values(ev):
    """App. C's ``m_t`` (distinct contexts per length), or None off App. C data."""
    from .appc import m_by_length

    seqs = ev.instance.sequences
    return None if seqs is None else m_by_length(seqs)


def h_values(ev):
    """Remark 2's ``ℋ_t`` per context length, or None off App. C data."""
    from ntpcheck.linear.autoregressive import entropy_by_length

    seqs = ev.instance.sequences
    return None if seqs is None else list(entropy_by_length(seqs).values())


def rem2_shannon_trace(ev, o) -> dict:
    """Remark 2 corrected: ``ℋ_{t+1}`` (y) against ``ℋ′_t`` (its bound) over t."""
    from ntpcheck.linear.autoregressive import entropy_by_length

    from .appc import shifted_entropy

    seqs = ev.instance.sequences
    if seqs is None:
        return {}
    H = entropy_by_length(seqs)
    ts = [t for t in H if t + 1 in H]
    if not ts:
        return {}
    return {"t": ts, "y": [H[t + 1] for t in ts], "bound": [shifted_entropy(seqs, t) for t in ts], "sense": "<=",
            "absolute": True}


# -- scatters -------------------------------------------------------------------------------------------
def appc_trace(ev, o) -> dict:
    """App. C: CE of the reduced data (x) against the prefix average (dot) and App. C's display / (T − 1) (cross)."""
    m = o.measured
    if m.get("reduced") is None:
        return {}
    return {"x": [m["reduced"], m["reduced"]], "y": [m["literal"], m["display"] / max(m["T"] - 1, 1)], "flag": [False, True]}


def r11_trace(ev, o) -> dict:
    """R11: on incompatible data the pooled-entropy bound on ``inf CE_ℱ − ℋ`` (x) against what BFGS
    reaches (y); on compatible data (a cross) ``CE_ℱ(W⋆) − ℋ`` at x = 0."""
    m = o.measured
    if m.get("lower_bound") is not None:
        return {"x": [m["lower_bound"]], "y": [m["found"]], "flag": [False]}
    if m.get("at_w_star") is not None:
        return {"x": [0.0], "y": [m["at_w_star"]], "flag": [True]}
    return {}


def eq20_trace(ev, o) -> dict:
    """Lemma 5 (20)-(21) in logs: the side claimed larger (x) against the side claimed smaller (y);
    (20) as a dot (``bound20 ≤ lhs20``), (21) as a cross (``lhs21 ≤ bound21``)."""
    m = o.measured
    xs, ys, flags = [], [], []
    for x, y, flag in ((m.get("lhs20"), m.get("bound20"), False), (m.get("bound21"), m.get("lhs21"), True)):
        if x is not None and y is not None and np.isfinite(x) and np.isfinite(y):
            xs.append(float(x))
            ys.append(float(y))
            flags.append(flag)
    return {"x": xs, "y": ys, "flag": flags}
