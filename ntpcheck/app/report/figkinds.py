"""The report's figure kinds that are not a quantity against its bound over t (:mod:`.claimfigure`):
fitted rates, linear growth, a formula against the values computed, one number per instance."""

from __future__ import annotations

import math
import warnings
from typing import Any, Mapping

import numpy as np

from ntpcheck.properties.framework import Verdict
from ntpcheck.properties.framework.figure import FigureSpec

from .figstyle import (BAND, BOUND, CEX, MEASURED, OKABE_ITO, VERDICT_COLOURS, arr, cex_rows, forest, log_worthy, new_figure, no_data,
                       shade_floor, tested_rows, who, worst_trace)

__all__ = ["rate", "gap", "scatter", "instances"]


def rate(r, spec: FigureSpec, lines):
    """A fitted rate: the quantity on log-log axes (a power law) or semi-log axes (an exponential),
    the fit over its window and the claimed rate through the same point; on the right every
    tested instance's fitted exponent with its interval, or its fitted rate over the claimed one."""
    fig, axes = new_figure(2, footer=len(lines))
    ax, rax = axes[0]
    tr = worst_trace(r)
    t, y = arr(tr, "t"), arr(tr, "y")
    ok = np.isfinite(y) & (y > 0) & (t > 0)
    ax.set_yscale("log")
    if spec.law == "power":
        ax.set_xscale("log")
    ax.plot(t[ok], y[ok], color=CEX if r.verdict is Verdict.FALSIFIED else MEASURED, lw=2, label=f"measured {spec.y}")
    rows = tested_rows(r)
    if spec.law == "power":
        _power_fit(ax, tr, t[ok], y[ok], spec)
        shade_floor(ax, tr.get("floor"))
        end = tr.get("faithful_until")
        if end and ok.any() and end < t[ok].max():
            ax.axvspan(end, t[ok].max(), color=OKABE_ITO["grey"], alpha=0.2, label="gradient subnormal: not NGD any more")
        if not forest(rax, rows, xlabel=r"fitted exponent $p$ of $t^p$ (95% interval)"):
            no_data(rax, "no tested instance had a window to fit")
        rax.set_title("Every tested instance's fitted exponent", fontsize=11)
    else:
        _exp_fit(ax, tr, t[ok], y[ok], spec)
        _rate_ratios(rax, r, rows)
    ax.set_xlabel(f"{spec.x} (training step)")
    ax.set_ylabel(spec.y)
    ax.set_title(who(r), fontsize=11)
    ax.legend(loc="best")
    return fig


def _power_fit(ax, tr, t, y, spec: FigureSpec) -> None:
    p, window = tr.get("fitted_exponent"), tr.get("fit_window")
    if p is None or not window or not len(t):
        return
    w = (t >= window[0]) & (t <= window[1])
    if not w.any():
        return
    t0 = float(np.exp(np.mean(np.log(t[w]))))
    y0 = float(np.exp(np.mean(np.log(y[w]))))
    tt = np.geomspace(window[0], window[1], 50)
    ci = tr.get("exponent_ci") or [p, p]
    ax.axvspan(window[0], window[1], color=BAND, alpha=0.15, label="fitting window")
    ax.plot(tt, y0 * (tt / t0) ** p, color=OKABE_ITO["orange"], lw=2.5, ls="-.",
            label=f"fit $t^{{{p:.3f}}}$, 95% interval [{ci[0]:.3f}, {ci[1]:.3f}]")
    claimed = np.log(tt) ** 2 / tt
    c0 = float(np.log(t0) ** 2 / t0)
    line = tr.get("rejection_line")
    ax.plot(tt, y0 * claimed / c0, color=BOUND, gid="bound", lw=2.5, ls="--",
            label=f"claimed rate {spec.bound}" + (f" (local exponent {line:.3f})" if line is not None else ""))


def _exp_fit(ax, tr, t, y, spec: FigureSpec) -> None:
    rate_, claimed, window = tr.get("fitted_rate"), tr.get("claimed_rate"), tr.get("fit_window")
    if rate_ is None or claimed is None or not window or not len(t):
        return
    w = (t >= window[0]) & (t <= window[1])
    if not w.any():
        return
    t0 = float(np.mean(t[w]))
    y0 = float(np.exp(np.mean(np.log(y[w]))))
    tt = np.linspace(window[0], window[1], 50)
    ax.axvspan(window[0], window[1], color=BAND, alpha=0.15, label="fitting window (second half)")
    ax.plot(tt, y0 * np.exp(-rate_ * (tt - t0)), color=OKABE_ITO["orange"], lw=2.5, ls="-.", label=f"fitted rate {rate_:.3g}")
    ax.plot(tt, y0 * np.exp(-claimed * (tt - t0)), color=BOUND, gid="bound", lw=2.5, ls="--", label=f"claimed {spec.bound}: rate {claimed:.3g}")


def _rate_ratios(ax, r, rows) -> None:
    vals = [(row, row[4]["fitted_rate"] / row[4]["claimed_rate"]) for row in rows
            if row[4].get("fitted_rate") is not None and row[4].get("claimed_rate")]
    if not vals:
        no_data(ax, "no tested instance had a rate to fit")
        return
    vals.sort(key=lambda v: v[1])
    for k, (row, v) in enumerate(vals):
        ax.plot([v], [k], "o", color=VERDICT_COLOURS[row[0]], ms=6)
    for v in {row[0] for row, _ in vals}:
        ax.plot([], [], "o", color=VERDICT_COLOURS[v], label=v.value)
    ax.axvline(1.0, color=BOUND, gid="bound", lw=2, ls="--", label="claimed rate (\u2265 1 holds)")
    lo = min(0.9, min(v for _, v in vals) * 0.9)
    ax.axvspan(min(lo, 0.5), 1.0, color=CEX, alpha=0.08, label="slower than claimed: fails")
    if log_worthy([v for _, v in vals], 20):
        ax.set_xscale("log")
    ax.set_xlabel("fitted decay rate / claimed rate")
    ax.set_ylabel("tested instance (sorted)")
    ax.set_title("Every tested instance's rate", fontsize=11)
    ax.legend(loc="best")


def gap(r, spec: FigureSpec, lines):
    """A quantity that must grow like ``C_2 t``: the worst instance's curve with a straight line
    fitted on the tail and ``C_2 t``, and every instance's fitted exponent of the increments."""
    fig, axes = new_figure(2, footer=len(lines))
    ax, rax = axes[0]
    tr = worst_trace(r)
    t, y = arr(tr, "t"), arr(tr, "y")
    falsified = r.verdict is Verdict.FALSIFIED
    ax.plot(t, y, color=CEX if falsified else MEASURED, lw=2, label="measured smallest gap")
    ax.axhline(0.0, color=OKABE_ITO["grey"], lw=1.2)
    if len(t) >= 4:
        tail = t >= t.max() / 4
        if tail.sum() >= 2:
            a, b = np.polyfit(t[tail], y[tail], 1)
            ax.plot(t[tail], a * t[tail] + b, color=OKABE_ITO["orange"], lw=2.5, ls="-.", label=f"linear fit on the tail: slope {a:.3g}")
        c2 = tr.get("C2")
        if c2 is not None and math.isfinite(c2):
            ax.plot(t, c2 * t, color=BOUND, gid="bound", lw=2.5, ls="--", label=f"{spec.bound} with $C_2$ = min gap/t = {c2:.3g}")
    ax.axhspan(min(0.0, float(np.nanmin(y)) if len(y) else 0.0) - 1e-9, 0.0, color=CEX, alpha=0.08, label="gap \u2264 0: fails")
    ax.set_xlabel(f"{spec.x} (stage-2 step)")
    ax.set_ylabel(spec.y)
    ax.set_title(who(r), fontsize=11)
    ax.legend(loc="best")
    rows = tested_rows(r)
    if not forest(rax, rows, xlabel="fitted exponent of the gap's increments (95% interval)",
                  marks=((0.0, "0: linear growth"), (-1.0, "\u22121: log t growth"))):
        no_data(rax, "no tested instance had a tail to fit")
    rax.set_title("Every tested instance: does the gap grow linearly?", fontsize=11)
    return fig


def scatter(r, spec: FigureSpec, lines):
    """Values computed against the claimed formula (or against a scale), one point per entry of
    every tested instance, with the claim's lines; flagged entries as crosses; residuals on the right
    when the claim is ``y = x``."""
    identity = any(a == 1.0 and b == 0.0 for _, a, b in spec.lines)
    fig, axes = new_figure(2 if identity or spec.sense != "=" else 1, footer=len(lines))
    ax = axes[0][0]
    rows = tested_rows(r)
    xs_all, ys_all = [], []
    for verdict in (Verdict.HOLDS, Verdict.VACUOUS, Verdict.INCONCLUSIVE):
        pts = [(x, y, f) for row in rows if row[0] is verdict for x, y, f in _points(row[4])]
        _scatter(ax, pts, VERDICT_COLOURS[verdict], f"{verdict.value} ({sum(row[0] is verdict for row in rows)} instances)")
        xs_all += [p[0] for p in pts]
        ys_all += [p[1] for p in pts]
    for k, row in enumerate(cex_rows(r)):
        pts = list(_points(row[4]))
        _scatter(ax, pts, CEX, ("counterexample (shrunk)" if row[3] else "falsified") if k < 2 else None, size=90 if row[3] else 40)
        xs_all += [p[0] for p in pts]
        ys_all += [p[1] for p in pts]
    if spec.bound2:  # the claim's other bound, one value per instance
        for row in rows:
            if row[4].get("y2"):
                ax.plot(row[4]["x2"], row[4]["y2"], "_", color=OKABE_ITO["purple"], ms=18, mew=3)
                xs_all += list(row[4]["x2"])
        ax.plot([], [], "_", color=OKABE_ITO["purple"], ms=18, mew=3, label=spec.bound2)
    if any(f for row in rows for _, _, f in _points(row[4])):
        ax.plot([], [], "x", color="0.3", ls="none", label=spec.flag)
    if xs_all:
        lo, hi = min(xs_all), max(xs_all)
        if identity and ys_all:  # y = x through every point drawn, also those far off it
            lo, hi = min(lo, min(ys_all)), max(hi, max(ys_all))
        pad = 0.05 * (hi - lo) if hi > lo else 0.5
        xx = np.linspace(lo - pad, hi + pad, 50)
        styles = ("--", ":", "-.")
        for k, (label, a, b) in enumerate(spec.lines):
            ax.plot(xx, a * xx + b, color=BOUND if k < 2 else OKABE_ITO["orange"], gid="bound", lw=2, ls=styles[k % 3], label=label)
    ax.set_xlabel(spec.x)
    ax.set_ylabel(spec.y)
    ax.set_title(f"Every entry of the {len(rows)} tested instances", fontsize=11)
    ax.legend(loc="best")
    if spec.sense != "=":
        _slacks(axes[0][1], r, rows, spec)
    elif identity:
        _residuals(axes[0][1], r, rows, spec)
    return fig


def _slacks(ax, r, rows, spec: FigureSpec) -> None:
    """An inequality ``y <= x`` (or ``>=``) per entry: the signed slack ``x - y`` (or ``y - x``) of
    every entry, each instance at its rank, the failing side (< 0) shaded."""
    sign = 1.0 if spec.sense == "<=" else -1.0
    groups = [(row, [sign * (x - y) for x, y, _ in _points(row[4])]) for row in rows + [row for row in cex_rows(r) if row not in rows]]
    groups = sorted(((row, g) for row, g in groups if g), key=lambda g: min(g[1]))
    if not groups:
        no_data(ax, "no entries")
        return
    for k, (row, g) in enumerate(groups):
        ax.plot([k] * len(g), g, "o", color=CEX if row[0] is Verdict.FALSIFIED else VERDICT_COLOURS[row[0]], ms=5, alpha=0.8)
    vals = [v for _, g in groups for v in g]
    if log_worthy([abs(v) for v in vals if v != 0], 1e3):
        ax.set_yscale("symlog", linthresh=max(min(abs(v) for v in vals if v != 0), 1e-12))
    ax.axhline(0.0, color=BOUND, gid="bound", lw=2, ls="--", label="0: the bound met with equality")
    lo = min(min(vals), -0.05 * max(abs(v) for v in vals) - 1e-12)
    ax.axhspan(lo * 1.1, 0.0, color=CEX, alpha=0.08, label="< 0 fails the claim")
    ax.set_ylim(lo * 1.1, max(max(vals), -lo) * 1.15)
    ax.set_xlabel("tested instance (sorted by its smallest slack)")
    ax.set_ylabel(f"slack {'x - y' if sign > 0 else 'y - x'} per entry (\u2265 0 holds)")
    ax.set_title("Slack to the claimed inequality", fontsize=11)
    ax.legend(loc="best")


def _points(tr: Mapping[str, Any]):
    xs, ys = tr.get("x") or [], tr.get("y") or []
    flags = tr.get("flag") or [False] * len(xs)
    for x, y, f in zip(xs, ys, flags):
        if x is not None and y is not None:
            yield float(x), float(y), bool(f)


def _scatter(ax, pts, colour: str, label: str | None, size: float = 36) -> None:
    if not pts:
        return
    plain = [(x, y) for x, y, f in pts if not f]
    flagged = [(x, y) for x, y, f in pts if f]
    if plain:
        ax.scatter(*zip(*plain), s=size, color=colour, alpha=0.7, label=label, edgecolors="none")
    if flagged:
        ax.scatter(*zip(*flagged), s=size * 1.6, color=colour, marker="x", linewidths=2, label=None if plain else label)


def _residuals(ax, r, rows, spec: FigureSpec) -> None:
    """|value - formula| per entry (log), each instance's entries at its rank (crosses: flagged
    entries), with the check's tolerance ``spec.reference``."""
    groups = [(row, list(_points(row[4]))) for row in rows + [row for row in cex_rows(r) if row not in rows]]
    groups = [(row, g) for row, g in groups if g]
    if not groups:
        no_data(ax, "no entries")
        return
    groups.sort(key=lambda g: max(abs(y - x) for x, y, _ in g[1]))
    floor = 1e-18
    for k, (row, g) in enumerate(groups):
        colour = CEX if row[0] is Verdict.FALSIFIED else VERDICT_COLOURS[row[0]]
        for flagged in (False, True):
            err = [max(abs(y - x), floor) for x, y, f in g if f == flagged]
            if err:
                ax.plot([k] * len(err), err, "x" if flagged else "o", color=colour, ms=7 if flagged else 4, mew=2, alpha=0.8)
    ax.set_yscale("log")
    if spec.reference is not None:
        ax.axhline(spec.reference, color=BOUND, gid="bound", lw=2, ls="--", label=f"tolerance {spec.reference:g}: above it, formula \u2260 value")
        ax.axhspan(spec.reference, 10, color=OKABE_ITO["grey"], alpha=0.12)
    ax.set_ylim(floor / 10, 10)
    ax.set_xlabel("tested instance (sorted by its largest error)")
    ax.set_ylabel("|value \u2212 formula| per entry")
    ax.set_title(f"Errors ({floor:g} and below drawn at {floor:g})", fontsize=11)
    if spec.reference is not None:
        ax.legend(loc="best")


def instances(r, spec: FigureSpec, lines):
    """One number per tested instance, sorted, coloured by verdict, against the claim's reference
    line: a numerical identity's error against its tolerance, a probability against 1 - eps, or
    (by default) the check's slack."""
    fig, axes = new_figure(1, height=4.2, footer=len(lines))
    ax = axes[0][0]
    rows = [row for row in tested_rows(r)]
    vals, ylabel, ref = [], spec.value, spec.reference
    for row in rows:
        v = _value(row[4], spec)
        if v is not None and math.isfinite(v):
            vals.append((row, v))
    if not ylabel:
        tol = rows and all(row[4].get("tolerance") for row in rows)
        ylabel, ref = ("measured / numerical tolerance (max over steps)", 1.0) if tol else ("slack of the check (\u2265 0 holds)", 0.0)
    if not vals:
        no_data(ax, "no tested instance gave a number")
        return fig
    vals.sort(key=lambda v: v[1])
    x = np.arange(1, len(vals) + 1)
    y = np.array([v for _, v in vals])
    log = spec.log if spec.log is not None else log_worthy([abs(v) for v in y if v != 0], 100) and (y >= 0).all()
    floor = None
    if log:
        pos = y[y > 0]
        floor = (pos.min() if len(pos) else (ref or 1.0)) / 100
        ax.set_yscale("log")
    for v in {row[0] for row, _ in vals}:
        sel = np.array([row[0] is v for row, _ in vals])
        yy = np.maximum(y[sel], floor) if floor else y[sel]
        ax.plot(x[sel], yy, "o", color=VERDICT_COLOURS[v], ms=7, label=f"{v.value} ({int(sel.sum())})")
    if floor and (y <= 0).any():
        ax.plot([], [], " ", label=f"exactly 0: drawn at {floor:.2g}")
    shrunk = [k for k, (row, _) in enumerate(vals) if row[3]]
    if shrunk:
        ax.plot(x[shrunk], y[shrunk], "*", color=CEX, ms=16, label="shrunk counterexample")
    drawn = np.maximum(y, floor) if floor else y
    if drawn.min() == drawn.max():  # one value on every instance: limits of our own (matplotlib's would be singular)
        v = [float(drawn[0])] + ([ref] if ref is not None and (ref > 0 or not log) else [])
        with warnings.catch_warnings():  # the pending autoscale of one value warns before our limits replace it
            warnings.simplefilter("ignore", UserWarning)
            ax.set_ylim(*((min(v) / 5, max(v) * 5) if log else (min(v) - 0.5 - 0.1 * abs(min(v)), max(v) + 0.5 + 0.1 * abs(max(v)))))
    if ref is not None:
        ax.axhline(ref, color=BOUND, gid="bound", lw=2, ls="--", label=f"reference {ref:g}")
    ax.set_xlim(0.5, len(vals) + 0.5)
    ax.set_xlabel("tested instance, sorted by the value")
    ax.set_ylabel(ylabel)
    ax.set_title(f"All {len(vals)} tested instances", fontsize=11)
    ax.legend(loc="best")
    return fig


def _value(tr: Mapping[str, Any], spec: FigureSpec) -> float | None:
    if spec.value:
        v = tr.get("value")
        return None if v is None else float(v)
    if tr.get("tolerance") and tr.get("y"):
        y, b = arr(tr, "y"), arr(tr, "bound")
        with np.errstate(all="ignore"):
            q = y / b
        q = q[np.isfinite(q)]
        return float(q.max()) if len(q) else None
    return tr.get("slack")
