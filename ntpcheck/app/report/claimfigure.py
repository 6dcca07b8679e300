"""One figure per claim, drawn from its result's data: the report a theorist would rather look at.

:func:`claim_figure` draws the kind the claim's record names
(:class:`~ntpcheck.properties.framework.FigureSpec`) from the traces the runner kept
for every instance (:func:`~ntpcheck.properties.framework.figure.trace_of`): as a
rule, on the left the worst tested instance (or the counterexample) against the
claimed bound over t, on the right every tested instance as a band; the regions
where the claim cannot fail (rounding level, the trivial range, steps before a
threshold) shaded and labelled; under it, which parts of the statement the tested
instances exercised.  This module draws the kinds over t (``bound``, ``between``,
``attention``, ``panels``); :mod:`.figkinds` the others.  Every paper's claims go
through the same code: only the record's spec is the paper's.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ntpcheck.properties.framework import Verdict
from ntpcheck.properties.framework.figure import DEFAULT_FIGURE, FigureSpec

from . import figkinds, figlimit
from .figstyle import (BAND, BOUND, BOUND2, CEX, MEASURED, OKABE_ITO, arr, band, cex_rows, decorate, footer_lines, log_worthy,
                       new_figure, no_data, shade_before, shade_floor, shade_trivial, styled, tested_rows, who, worst_trace)

__all__ = ["claim_figure", "figure_kind", "instances_caption", "xaxis"]

#: What a kind needs in an instance's trace.
_NEEDS = {"bound": "t", "between": "bound2", "attention": "y2", "rate": "t", "gap": "t", "scatter": "x", "panels": "panels", "instances": None,
          "limit": "curves"}


def figure_kind(r) -> str | None:
    """The kind drawn for result ``r``: the record's, or ``instances`` (one number per instance) where
    the traces do not carry what it needs (a tolerance instead of a bound, a check without series);
    None if no tested instance left a trace (the report then says so in words)."""
    rows = tested_rows(r)
    if not rows:
        return None
    spec = r.claim.figure or DEFAULT_FIGURE
    kind = spec.kind
    if kind == "bound" and all("bound2" in row[4] for row in rows):
        kind = "between"
    need = _NEEDS[kind]
    usable = [row[4] for row in rows if need is None or (need in row[4] and len(row[4][need] or ()) >= (2 if need == "t" else 1))]
    if not usable or (kind in ("bound", "between") and all(tr.get("tolerance") for tr in usable)):
        return "instances"
    return kind


def claim_figure(r):
    """The figure of ``r`` (a :class:`~ntpcheck.properties.framework.ClaimResult`) as a
    :class:`matplotlib.figure.Figure`, or None if no tested instance left data to draw."""
    kind = figure_kind(r)
    if kind is None:
        return None
    spec = r.claim.figure or DEFAULT_FIGURE
    lines = footer_lines(r, spec.note)
    draw = {"bound": _bound, "between": _between, "attention": _attention, "panels": _panels, "rate": figkinds.rate,
            "gap": figkinds.gap, "scatter": figkinds.scatter, "instances": figkinds.instances,
            "limit": figlimit.limit}[kind]
    with styled():
        fig = draw(r, spec, lines)
        decorate(fig, r, lines)
    fig.ntpcheck_kind = kind  # for tests and captions
    return fig


def xaxis(ax, spec: FigureSpec, what: str = "training step") -> None:
    """The x axis: ``spec.x`` (with ``what`` it is where the label is the bare ``$t$``), log if ``spec.xlog``."""
    ax.set_xlabel(f"{spec.x} ({what})" if spec.x == "$t$" else spec.x)
    if spec.xlog:
        ax.set_xscale("log")


def _sense(tr: Mapping[str, Any], key: str = "sense") -> str:
    return tr.get(key) or "<="


def _label(spec: FigureSpec, which: str = "bound") -> str:
    text = getattr(spec, which)
    return f"claimed bound {text}" if text else "claimed bound"


def _bound(r, spec: FigureSpec, lines):
    fig, axes = new_figure(2, footer=len(lines))
    ax, rax = axes[0]
    tr = worst_trace(r)
    _left(ax, r, spec, tr, (("bound", _label(spec), BOUND),))
    rows = tested_rows(r)
    log_units = bool(tr.get("log_units"))
    if log_units or tr.get("absolute"):  # logs, or small counts and entropies: the difference itself
        def rel(t):
            d = arr(t, "bound") - arr(t, "y")
            return arr(t, "t"), d if _sense(t) == "<=" else -d
        diff = "bound \u2212 measured" if _sense(tr) == "<=" else "measured \u2212 bound"
        ylab, ref, above = f"{diff}{' (log units)' if log_units else ''}, \u2265 0 holds", 0.0, False
    elif all(_positive(row[4]) for row in rows):
        def rel(t):
            with np.errstate(all="ignore"):
                return arr(t, "t"), arr(t, "y") / arr(t, "bound")
        ylab, ref, above = "measured / bound", 1.0, _sense(tr) == "<="
    else:
        def rel(t):
            b, y = arr(t, "bound"), arr(t, "y")
            d = (b - y) if _sense(t) == "<=" else (y - b)
            return arr(t, "t"), d / np.maximum(np.abs(b), 1e-300)
        ylab, ref, above = "relative slack to the bound (\u2265 0 holds)", 0.0, False
    _right(rax, r, rows, rel, ylab, ref, spec, above)
    return fig


def _positive(tr: Mapping[str, Any]) -> bool:
    y, b = arr(tr, "y"), arr(tr, "bound")
    ok = np.isfinite(y) & np.isfinite(b)
    return bool(ok.any() and (b[ok] > 0).all() and (y[ok] >= 0).all())


def _between(r, spec: FigureSpec, lines):
    fig, axes = new_figure(2, footer=len(lines))
    ax, rax = axes[0]
    tr = worst_trace(r)
    upper, lower = ("bound", "bound2") if _sense(tr) == "<=" else ("bound2", "bound")
    _left(ax, r, spec, tr, ((upper, f"upper bound {spec.bound}", BOUND), (lower, f"lower bound {spec.bound2}", BOUND2)))
    rows = tested_rows(r)

    def up(key):
        def ratio(t):
            with np.errstate(all="ignore"):
                return arr(t, "t"), arr(t, key) / arr(t, "bound" if _sense(t) == "<=" else "bound2")
        return ratio

    band(rax, [row[4] for row in rows], up("bound2" if _sense(tr) == "<=" else "bound"), colour=OKABE_ITO["purple"],
         label="lower bound / upper bound", median=False)
    _right(rax, r, rows, up("y"), f"measured / upper bound {spec.bound}", 1.0, spec, True)
    return fig


def _left(ax, r, spec: FigureSpec, tr: Mapping[str, Any], bounds) -> None:
    """The worst instance (or the counterexample): the quantity and its bounds over t, the
    threshold, trivial range and rounding level shaded."""
    full = "t_all" in tr
    t = arr(tr, "t_all" if full else "t")
    y = arr(tr, "y_all" if full else "y")
    curves = {key: arr(tr, key + "_all" if full and key == "bound" else key) for key, _, _ in bounds}
    log = spec.log if spec.log is not None else (not tr.get("log_units") and log_worthy(np.concatenate([y, *curves.values()])))
    zeros = ""
    if log:
        ax.set_yscale("log")
        n0 = int(np.sum(y[np.isfinite(y)] <= 0))
        zeros = f" (measured exactly 0 at {n0} of {len(y)} steps drawn: not on a log axis)" if n0 else ""
        y = np.where(y > 0, y, np.nan)
    for key, label, colour in bounds:
        ax.plot(t, np.where(curves[key] > 0, curves[key], np.nan) if log else curves[key], color=colour, lw=2.5, ls="--", label=label,
                gid="bound")
    falsified = r.verdict is Verdict.FALSIFIED
    ax.plot(t, y, color=CEX if falsified else MEASURED, lw=2, label=f"measured {spec.y}".strip())
    if falsified:
        b = curves[bounds[0][0]]
        bad = (y > b) if _sense(tr) == "<=" else (y < b)
        if bad.any():
            ax.plot(t[bad], y[bad], "x", color=CEX, ms=8, mew=2, label="violates the bound")
    if log:
        finite = np.concatenate([v[np.isfinite(v) & (v > 0)] for v in (y, *curves.values())])
        if len(finite):
            ax.set_ylim(max(finite.min() / 10, 1e-300) if spec.floor is None else min(finite.min(), spec.floor) / 10,
                        max(finite.max(), spec.trivial or 0) * 10)
        shade_trivial(ax, spec.trivial, "1 \u2212 cos \u2264 2 always" if spec.trivial == 2 else "trivial range")
        shade_floor(ax, spec.floor)
    if full:
        shade_before(ax, tr.get("threshold"), "before the threshold (outside the hypotheses)")
    xaxis(ax, spec)
    ax.set_ylabel(spec.y or "measured quantity")
    ax.set_title(who(r) + zeros, fontsize=11)
    ax.legend(loc="best")


def _right(ax, r, rows, rel, ylabel: str, ref: float, spec: FigureSpec, fails_above: bool) -> None:
    """Every tested instance: ``rel(trace) -> (t, value)`` as a band, the counterexamples over it,
    and the line the claim puts at ``ref``, its failing side (above if ``fails_above``) shaded."""
    drawn = band(ax, [row[4] for row in rows], rel)
    if not drawn:
        no_data(ax, "no tested instance has two steps to draw")
        return
    for row in cex_rows(r)[:3]:
        t, v = rel(row[4])
        ax.plot(t, v, color=CEX, lw=2, label="counterexample" + (" (shrunk)" if row[3] else ""))
    holds = ("\u2264" if fails_above else "\u2265") + f" {ref:g} holds"
    ax.axhline(ref, color=BOUND, gid="bound", lw=2, ls="--", label=f"the claimed bound ({holds})")
    vals = np.concatenate([rel(row[4])[1] for row in rows])
    pos = vals[np.isfinite(vals) & (vals > 0)]
    if ref == 1.0 and len(pos) and (vals[np.isfinite(vals)] >= 0).all() and pos.max() / pos.min() > 100:
        ax.set_yscale("log")  # exact zeros (rounding level) are then left out: the left panel says so
    lo, hi = ax.get_ylim()
    if ax.get_yscale() == "log":
        lo, hi = min(lo, ref / 2), max(hi, ref * 2)
    else:
        pad = 0.05 * max(hi - lo, 1e-12)
        lo, hi = min(lo, ref - pad), max(hi, ref + pad)
    ax.axhspan(ref, hi, color=CEX, alpha=0.08, label="fails the claim") if fails_above else \
        ax.axhspan(lo, ref, color=CEX, alpha=0.08, label="fails the claim")
    ax.set_ylim(lo, hi)
    xaxis(ax, spec)
    ax.set_ylabel(ylabel)
    ax.set_title(f"All {len(rows)} tested instances", fontsize=11)
    ax.legend(loc="best")


def _attention(r, spec: FigureSpec, lines):
    fig, axes = new_figure(2, footer=len(lines))
    ax, rax = axes[0]
    tr = worst_trace(r)
    t = arr(tr, "t")
    ax.plot(t, arr(tr, "y"), color=MEASURED, lw=2.2, label=r"optimal positions: smallest $\varphi_{\ell^*}^{(n,t)}$")
    ax.plot(t, arr(tr, "y2"), color=OKABE_ITO["orange"], lw=2.2, label=r"non-optimal positions: largest $\varphi_{\ell}^{(n,t)}$")
    ax.plot(t, arr(tr, "bound"), color=BOUND, gid="bound", lw=2.5, ls="--", label=f"floor {spec.bound} (Lemma's lower bound)")
    ax.set_title(who(r), fontsize=11)
    rows = tested_rows(r)
    traces = [row[4] for row in rows]
    band(rax, traces, lambda x: (arr(x, "t"), arr(x, "y")), colour=MEASURED, label="optimal (min)")
    band(rax, traces, lambda x: (arr(x, "t"), arr(x, "y2")), colour=OKABE_ITO["orange"], label="non-optimal (max)")
    floors = sorted({float(arr(x, "bound")[0]) for x in traces if len(arr(x, "bound"))})
    for k, f in enumerate(floors):
        rax.axhline(f, color=BOUND, gid="bound", lw=1, ls=":", label=f"floors {spec.bound}" if k == 0 else None)
    for row in cex_rows(r)[:1]:
        rax.plot(arr(row[4], "t"), arr(row[4], "y"), color=CEX, lw=2, label="counterexample")
    rax.set_title(f"All {len(rows)} tested instances", fontsize=11)
    for a in (ax, rax):
        a.set_xlabel(f"{spec.x} (stage-2 step)")
        a.set_ylabel(spec.y)
        a.set_ylim(-0.02, 1.02)
        a.legend(loc="best")
    return fig


def _panels(r, spec: FigureSpec, lines):
    rows = tested_rows(r)
    worst = worst_trace(r)
    panels = worst.get("panels") or rows[0][4]["panels"]
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = new_figure(ncols, height=3.4 * nrows + 0.6, nrows=nrows, footer=len(lines))
    for k, p in enumerate(panels):
        ax = axes[k // ncols][k % ncols]
        if p.get("log"):
            ax.set_yscale("log")
        for j, row in enumerate(rows):
            q = row[4]["panels"][k] if k < len(row[4].get("panels", ())) else None
            if q is not None:
                y = arr(q, "y")
                ax.plot(arr(q, "t"), np.where(y > 0, y, np.nan) if p.get("log") else y, color=BAND, lw=1,
                        label=f"tested instances ({len(rows)})" if j == 0 else None)
        y = arr(p, "y")
        ax.plot(arr(p, "t"), np.where(y > 0, y, np.nan) if p.get("log") else y, color=MEASURED, lw=2, label="worst tested instance")
        if p.get("bound"):
            ax.plot(arr(p, "t"), arr(p, "bound"), color=BOUND, gid="bound", lw=2, ls="--", label=f"upper bound {p.get('bound_label', '')}")
        if p.get("log"):
            shade_floor(ax, p.get("floor"))
        ax.set_title(p.get("title", ""), fontsize=11)
        xaxis(ax, spec)
        ax.set_ylabel(p.get("y_label", ""))
        if k == 0 or p.get("bound"):
            ax.legend(loc="best")
    for k in range(len(panels), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    return fig


def instances_caption(per_instance) -> str:
    """The ranges of the instances' sizes and parameters, e.g. ``12 instances: |V| 2-5, N 1-9, ...``
    (every key all the descriptions give)."""
    from .figstyle import _NAMES, _fmt

    insts = [row[2] for row in per_instance if row[2]]
    if not insts:
        return f"{len(per_instance)} instances"
    keys = [k for k in insts[0] if all(i.get(k) is not None for i in insts)]

    def span(key: str) -> str:
        vals = [i[key] for i in insts]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            lo, hi = min(vals), max(vals)
            return _fmt(lo) if lo == hi else f"{_fmt(lo)}-{_fmt(hi)}"
        return "/".join(sorted({str(v) for v in vals}))

    return f"{len(per_instance)} instances: " + ", ".join(f"{_NAMES.get(k, (k, k))[0]} {span(k)}" for k in keys)
