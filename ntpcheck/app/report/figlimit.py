"""The ``limit`` figure kind (:mod:`.claimfigure`): a rate-free limit judged by its trend.

A claim such as ``CE(W_k) − ℋ → 0``, ``‖W_k‖ → ∞`` or ``⟨W̄_B, W̄^mm⟩ → 1`` has no rate to
draw; its check fits the slope of ``log q`` (or of ``y``) against ``log t`` over the last
decades of the run, with a 95% interval, and asks on which side of 0 the interval lies.
One panel per quantity shows the worst instance's curve on log axes, the fitting window,
the fitted trend with the band its interval spans, the slope-0 line (no progress towards
the limit) and the rounding floor; the last panel shows every tested instance's slope,
oriented so that a positive slope approaches the claimed limit.

The trace (:mod:`ntpcheck.properties.thrampoulidis2024.figspecs`) carries ``curves``: each
``{"label", "t", "y", "toward": "zero" | "infinity", "floor", "fit"}`` with ``fit`` the
trend's ``slope``, ``lo``, ``hi``, ``t_from``, ``t_to`` (None where too few points).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ntpcheck.properties.framework import Verdict
from ntpcheck.properties.framework.figure import FigureSpec

from .figstyle import BAND, BOUND, CEX, MEASURED, OKABE_ITO, arr, new_figure, no_data, tested_rows, who, worst_trace

__all__ = ["limit"]

#: One colour per quantity in the slopes panel.
_CURVE_COLOURS = (OKABE_ITO["blue"], OKABE_ITO["purple"], OKABE_ITO["green"])


def limit(r, spec: FigureSpec, lines):
    """Each quantity of the worst instance against t with its trend, then every instance's slopes."""
    tr = worst_trace(r)
    curves = tr.get("curves") or []
    fig, axes = new_figure(len(curves) + 1, height=5.6, footer=len(lines))
    falsified = r.verdict is Verdict.FALSIFIED
    for k, c in enumerate(curves):
        _curve(axes[0][k], c, spec, CEX if falsified else MEASURED)
        axes[0][k].set_title(who(r) if k == 0 else f"the same instance: {c['label']}", fontsize=11)
    _slopes(axes[0][-1], r, [c["label"] for c in curves])
    return fig


def _curve(ax, c: Mapping[str, Any], spec: FigureSpec, colour: str) -> None:
    from matplotlib.ticker import NullFormatter

    t, y = arr(c, "t"), arr(c, "y")
    zero = c.get("toward") == "zero"
    ok = np.isfinite(y) & (t > 0) & ((y > 0) if zero else True)
    ax.set_xscale("log")
    if zero:
        ax.set_yscale("log")
    ax.plot(t[ok], y[ok], color=colour, lw=2, label="measured")
    fit = c.get("fit")
    if fit and ok.any():
        _trend(ax, fit, t[ok], y[ok], zero)
    floor = c.get("floor")
    if zero and ok.any():
        # at least two decades (major ticks only: minor labels crowd a narrow panel), head-room for the legend
        lo, hi = float(y[ok].min()) / 10, float(y[ok].max()) * 10 * (float(y[ok].max()) / float(y[ok].min())) ** 0.6
        ax.set_ylim(lo, hi)
        ax.yaxis.set_minor_formatter(NullFormatter())
        if floor is not None:
            f = np.broadcast_to(np.asarray(floor, dtype=float), t.shape)[ok]
            if f.max() > lo:
                ax.fill_between(t[ok], lo, np.minimum(f, hi), color=OKABE_ITO["yellow"], alpha=0.3, label="rounding level: not fitted")
    if not zero and ok.any():  # head-room for the legend
        lo, hi = float(y[ok].min()), float(y[ok].max())
        ax.set_ylim(lo - 0.05 * (hi - lo + 1e-12), hi + 0.8 * (hi - lo + 1e-12))
    ax.set_xlabel(spec.x)
    ax.set_ylabel(c["label"])
    ax.legend(loc="best")


def _trend(ax, fit: Mapping[str, Any], t: np.ndarray, y: np.ndarray, log_y: bool) -> None:
    """The fitted trend through the window's centre, the band of its 95% interval, and slope 0."""
    a, b = float(fit["t_from"]), float(fit["t_to"])
    w = (t >= a * (1 - 1e-9)) & (t <= b * (1 + 1e-9))
    if not w.any():
        return
    x0 = float(np.mean(np.log(t[w])))
    y0 = float(np.mean(np.log(y[w]))) if log_y else float(np.mean(y[w]))
    tt = np.geomspace(a, b, 50)
    x = np.log(tt) - x0

    def line(s: float) -> np.ndarray:
        return np.exp(y0 + s * x) if log_y else y0 + s * x

    ax.axvspan(a, b, color=BAND, alpha=0.12)
    lo, hi = line(fit["lo"]), line(fit["hi"])
    ax.fill_between(tt, np.minimum(lo, hi), np.maximum(lo, hi), color=OKABE_ITO["orange"], alpha=0.25)
    ax.plot(tt, line(fit["slope"]), color=OKABE_ITO["orange"], lw=2.5, ls="-.",
            label=f"trend (shaded window): slope {fit['slope']:.3g}\n95% interval [{fit['lo']:.3g}, {fit['hi']:.3g}]")
    ax.plot(tt, line(0.0), color=BOUND, gid="bound", lw=2.2, ls="--",
            label="slope 0: no approach to\nthe claimed limit " + ("0" if log_y else "\u221e"))


def _slopes(ax, r, labels: list[str]) -> None:
    """Every tested instance's slope per quantity with its interval, oriented so that > 0 approaches."""
    rows = tested_rows(r)
    pts = []
    for row in rows:
        for k, c in enumerate(row[4].get("curves") or []):
            fit = c.get("fit")
            if fit:
                sign = -1.0 if c.get("toward") == "zero" else 1.0
                lo, hi = sorted((sign * fit["lo"], sign * fit["hi"]))
                pts.append((k, sign * fit["slope"], lo, hi, row[0]))
    if not pts:
        no_data(ax, "no tested instance had a window to fit")
        ax.set_xlabel("slope")
        ax.set_ylabel("instance")
        return
    pts.sort(key=lambda p: (p[0], p[1]))
    for i, (k, s, lo, hi, v) in enumerate(pts):
        colour = CEX if v is Verdict.FALSIFIED else _CURVE_COLOURS[k % 3]
        ax.plot([lo, hi], [i, i], color=colour, lw=2)
        ax.plot([s], [i], "o", color=colour, ms=4)
    for k, label in enumerate(labels):
        if any(p[0] == k for p in pts):
            ax.plot([], [], "-o", color=_CURVE_COLOURS[k % 3], label=label)
    if any(p[4] is Verdict.INCONCLUSIVE for p in pts):
        ax.plot([], [], " ", label="an interval across 0: inconclusive")
    ax.axvline(0.0, color=BOUND, gid="bound", lw=2, ls="--", label="slope 0")
    left = min(min(p[2] for p in pts), -0.05 * max(abs(p[3]) for p in pts))
    ax.axvspan(min(left * 1.1, -1e-3), 0.0, color=CEX, alpha=0.08, label="< 0: moves away from the limit, fails")
    ax.set_ylim(-1, 1.5 * len(pts) + 2)  # the legend above the rows
    ax.set_xlabel("slope towards the limit, 95% interval")
    ax.set_ylabel("tested instance and quantity (sorted)")
    ax.set_yticks([])
    ax.set_title(f"All {len(rows)} tested instances", fontsize=11)
    ax.legend(loc="upper right")
