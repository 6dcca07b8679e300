"""The look shared by the report's figures: palette, sizes, title, footer, shaded regions, bands.

Colours are Okabe and Ito's colour-blind-safe palette; every figure is at least
1100 px wide at 100 dpi with no text below 10 pt, so it reads at 100% zoom.
Nothing here selects a matplotlib backend: figures are
:class:`matplotlib.figure.Figure` objects, written as PNG through Agg by :func:`png`.
"""

from __future__ import annotations

import io
import math
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ntpcheck.properties.framework import Verdict
from ntpcheck.properties.framework.verdicts import TESTED

__all__ = ["OKABE_ITO", "VERDICT_COLOURS", "MEASURED", "BOUND", "BOUND2", "BAND", "CEX", "WIDTH", "DPI", "MIN_FONT",
           "styled", "new_figure", "png", "decorate", "footer_lines", "parts_text", "shade_trivial", "shade_floor", "shade_before",
           "band", "tested_rows", "cex_rows", "arr", "log_worthy", "forest", "no_data", "worst_trace", "who",
           "instance_caption"]

#: Okabe and Ito's palette (with grey).
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73", "yellow": "#F0E442",
             "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7", "grey": "#999999"}
VERDICT_COLOURS = {Verdict.HOLDS: OKABE_ITO["green"], Verdict.FALSIFIED: OKABE_ITO["vermillion"], Verdict.VACUOUS: OKABE_ITO["grey"],
                   Verdict.INCONCLUSIVE: OKABE_ITO["orange"], Verdict.OUTSIDE: OKABE_ITO["sky"], Verdict.ERROR: OKABE_ITO["black"]}
MEASURED, BOUND, BOUND2 = OKABE_ITO["blue"], OKABE_ITO["black"], OKABE_ITO["purple"]
BAND, CEX = OKABE_ITO["sky"], OKABE_ITO["vermillion"]
#: Figure width in inches and resolution: 1100 px wide.
WIDTH, DPI = 11.0, 100
#: The smallest font size (points) of any text in a figure.
MIN_FONT = 10
_RC = {"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "legend.fontsize": 10, "xtick.labelsize": 10,
       "ytick.labelsize": 10, "figure.titlesize": 13, "legend.title_fontsize": 10, "axes.grid": True, "grid.alpha": 0.3}


@contextmanager
def styled():
    """The report's matplotlib settings (font sizes), for building and for saving a figure."""
    import matplotlib

    with matplotlib.rc_context(_RC):
        yield


def new_figure(ncols: int = 2, height: float = 4.8, nrows: int = 1, footer: int = 1):
    """A figure of ``nrows`` x ``ncols`` axes, :data:`WIDTH` wide, with room for ``footer`` lines of text."""
    from matplotlib.figure import Figure

    total = height + 0.22 * footer
    fig = Figure(figsize=(WIDTH, total), dpi=DPI)
    # Fixed margins in inches (a layout engine would double the drawing time): room for tick labels
    # and an axis label on the left of each panel, two lines of panel title and the figure's title on
    # top, the x label and the footer lines below.
    fig.subplots_adjust(left=0.85 / WIDTH, right=1 - 0.15 / WIDTH, top=1 - 0.95 / total, bottom=(0.62 + 0.22 * footer) / total,
                        wspace=1.0 / (WIDTH / ncols), hspace=1.0 / (height / nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def png(fig) -> bytes:
    """``fig`` as PNG bytes (Agg)."""
    buf = io.BytesIO()
    with styled():
        fig.savefig(buf, format="png", dpi=DPI, pil_kwargs={"compress_level": 3})  # 6 (the default) is slower, hardly smaller
    return buf.getvalue()


def parts_text(ex: Mapping[str, Any]) -> str:
    """The exercised parts in one line: ``parts: + upper t eta_0 (15 instances) | - lower 2||W*|| (never)``."""
    if ex.get("parts"):
        from ntpcheck.app.rendering.render import tightness_text

        return "Parts of the statement (tight: its 1%-stronger mutant falsified by a tested instance; loose: the largest " \
               "strengthening that held on every instance): " + tightness_text(ex["parts"])
    kills = ex.get("exercised") or {}
    if not kills:
        return ""
    items = [f"\u2713 {name} (by {n} instance{'s' if n != 1 else ''})" if n else f"\u2717 {name} (never mattered)" for name, n in kills.items()]
    dom = ex.get("dominated") or []
    items += [f"{name} (dominated)" for name in dom]
    return "Parts of the statement, each made 1% stronger (\u2713 falsified by a tested instance): " + ";  ".join(items)


def footer_lines(r, note: str = "", width: int = 150) -> list[str]:
    """The lines under a claim's figure: its exercised parts, and the figure's note, wrapped at ``width`` characters."""
    import textwrap

    return [line for text in (parts_text(r.exercised), note) if text for line in textwrap.wrap(text, width, subsequent_indent="    ")]


def decorate(fig, r, lines: Sequence[str] = ()) -> None:
    """The title (claim name and reading, section, verdict, counts) and the footer ``lines``
    (:func:`footer_lines`; the figure was made with room for them by :func:`new_figure`)."""
    c = r.counts
    fig.suptitle(f"{r.claim.name} ({r.claim.section}): {r.verdict.value}, {c.get('tested', 0)}/{c.get('drawn', 0)} tested/drawn",
                 fontweight="bold", color=VERDICT_COLOURS[r.verdict] if r.verdict is Verdict.FALSIFIED else "black")
    for k, line in enumerate(lines):
        fig.text(0.01, (0.06 + 0.22 * (len(lines) - 1 - k)) / fig.get_figheight(), line, fontsize=MIN_FONT, ha="left", va="bottom")


def shade_trivial(ax, trivial: float | None, what: str = "trivial range") -> None:
    """The line ``y = trivial`` and the region past it: a bound there says nothing.
    Call it last: the axis limits are kept (the line is in view, as the region's edge)."""
    if trivial is None:
        return
    lo, hi = ax.get_ylim()
    hi = max(hi, trivial * (3 if ax.get_yscale() == "log" else 1.1))
    ax.axhline(trivial, color=OKABE_ITO["grey"], lw=1.8, ls=":", label=f"y = {trivial:g}: {what}")
    ax.axhspan(trivial, hi, color=OKABE_ITO["grey"], alpha=0.15, label="trivial range: a bound here says nothing")
    ax.set_ylim(lo, hi)


def shade_floor(ax, floor: float | None) -> None:
    """The region below the quantity's rounding level, within the axis limits (call it last)."""
    if floor is None:
        return
    lo, hi = ax.get_ylim()
    if lo >= floor:
        return
    ax.axhspan(lo, floor, color=OKABE_ITO["yellow"], alpha=0.3, label=f"rounding level (< {floor:g}): the claim cannot fail here")
    ax.set_ylim(lo, hi)


def shade_before(ax, t: float | None, label: str) -> None:
    """The steps before ``t`` (outside the claim's hypotheses), shaded and labelled (call it last)."""
    if t is None or not math.isfinite(float(t)):
        return
    lo, hi = ax.get_xlim()
    if float(t) <= lo:
        return
    ax.axvspan(lo, min(float(t), hi), color=OKABE_ITO["sky"], alpha=0.18, label=label)
    ax.set_xlim(lo, hi)


def arr(tr: Mapping[str, Any], key: str) -> np.ndarray:
    """``tr[key]`` as a float array (None entries become NaN)."""
    v = tr.get(key)
    return np.array([np.nan if x is None else x for x in (v or [])], dtype=float)


def log_worthy(values: Iterable[float], span: float = 1e3) -> bool:
    """Whether positive values spanning more than ``span`` want a logarithmic axis."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    return len(v) > 0 and bool((v > 0).all()) and v.max() / v.min() > span


def tested_rows(r) -> list:
    """The rows of the instances that met the claim's hypotheses and have a trace."""
    return [row for row in r.per_instance if row[0] in TESTED and _trace(row)]


def cex_rows(r) -> list:
    """The rows of falsifying instances (the shrunk counterexample first)."""
    rows = [row for row in r.per_instance if row[0] is Verdict.FALSIFIED and _trace(row)]
    return sorted(rows, key=lambda row: not row[3])


def _trace(row) -> Mapping[str, Any] | None:
    tr = row[4] if len(row) > 4 else None
    return tr if tr and "trace_error" not in tr else None


def band(ax, traces: Sequence[Mapping[str, Any]], xy: Callable[[Mapping[str, Any]], tuple[np.ndarray, np.ndarray]], *,
         logx: bool = False, colour: str = BAND, label: str = "tested instances", median: bool = True) -> bool:
    """The min-max band (and median) over ``traces`` of the curves ``xy(trace) -> (x, y)``, each
    interpolated onto one grid of x (logarithmic if ``logx``); False if nothing to draw."""
    curves = []
    for tr in traces:
        x, y = xy(tr)
        ok = np.isfinite(x) & np.isfinite(y) & ((x > 0) if logx else True)
        if ok.sum() >= 2:
            curves.append((x[ok], y[ok]))
    if not curves:
        return False
    lo_x = min(c[0].min() for c in curves)
    hi_x = max(c[0].max() for c in curves)
    grid = np.geomspace(lo_x, hi_x, 200) if logx and lo_x > 0 else np.linspace(lo_x, hi_x, 200)
    Y = np.full((len(curves), len(grid)), np.nan)
    for k, (x, y) in enumerate(curves):
        order = np.argsort(x, kind="stable")
        inside = (grid >= x.min()) & (grid <= x.max())
        Y[k, inside] = np.interp(grid[inside], x[order], y[order])
    with np.errstate(all="ignore"), _quiet():
        lo, mid, hi = np.nanmin(Y, axis=0), np.nanmedian(Y, axis=0), np.nanmax(Y, axis=0)
    ax.fill_between(grid, lo, hi, color=colour, alpha=0.35, lw=0, zorder=2, label=f"{label}: min\u2013max ({len(curves)})")
    if median and len(curves) > 2:
        ax.plot(grid, mid, color=colour, lw=2, zorder=4, label=f"{label}: median")
    return True


@contextmanager
def _quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def forest(ax, rows: Sequence, *, value: str = "fitted_exponent", line_key: str = "rejection_line", xlabel: str,
           marks: Sequence[tuple[float, str]] = ()) -> bool:
    """Each tested instance's fitted exponent with its 95% interval (one row each, sorted), its
    rejection line, and reference ``marks`` ``(x, label)``; False if no instance has a fit."""
    fits = [(row, row[4]) for row in rows if row[4].get(value) is not None]
    if not fits:
        return False
    fits.sort(key=lambda f: f[1][value])
    for k, (row, tr) in enumerate(fits):
        ci = tr.get("exponent_ci") or [tr[value], tr[value]]
        colour = CEX if row[0] is Verdict.FALSIFIED else VERDICT_COLOURS[row[0]]
        ax.plot(ci, [k, k], color=colour, lw=2)
        ax.plot([tr[value]], [k], "o", color=colour, ms=5)
        if tr.get(line_key) is not None:
            ax.plot([tr[line_key]], [k], "|", color=BOUND, gid="bound", ms=12, mew=2)
    lines = [tr[line_key] for _, tr in fits if tr.get(line_key) is not None]
    if lines:
        side = fits[0][1].get("rejected_if", "above")
        ax.plot([], [], "|", color=BOUND, gid="bound", ms=12, mew=2, label=f"rejection line (an exponent {side} it falsifies)")
    for x, label in marks:
        ax.axvline(x, color=OKABE_ITO["grey"], ls="--", lw=1.2, label=label)
    for v in (Verdict.HOLDS, Verdict.INCONCLUSIVE, Verdict.FALSIFIED):
        if any(row[0] is v for row, _ in fits):
            ax.plot([], [], "-o", color=VERDICT_COLOURS[v], label=f"{v.value}: fit and 95% interval")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("tested instance (sorted by exponent)")
    ax.set_ylim(-1, len(fits))
    ax.legend(loc="best")
    return True


def no_data(ax, why: str) -> None:
    """An empty panel that says why."""
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes, fontsize=MIN_FONT + 1, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)


def worst_trace(r) -> Mapping[str, Any]:
    """The trace of the instance the tables report (the worst one, or the counterexample)."""
    if r.verdict is Verdict.FALSIFIED:
        rows = cex_rows(r)
        if rows:
            return rows[0][4]
    rows = tested_rows(r)
    tr = r.trace if r.trace and "trace_error" not in r.trace else None
    return tr if tr and "t" in tr else (rows[0][4] if rows else {})


def who(r) -> str:
    """A panel title: whose curve it is, and that instance's sizes and step sizes, compactly."""
    c = instance_caption(r.instance, sep="  ", eq="=", math=True)
    return ("Counterexample" if r.verdict is Verdict.FALSIFIED else "Worst tested instance") + (f"\n{c}" if c else "")


def _g(x: float) -> str:
    return f"{x:.3g}"


#: How the sizes and parameters of an instance (:func:`ntpcheck.properties.framework.runner.describe`)
#: are named in captions, as text and as mathtext; another paper's other keys are named as they are.
_NAMES = {"V": ("|V|", "|V|"), "N": ("N", "N"), "L_max": ("L_max", "$L_{\\max}$"), "T": ("T", "T"), "T2": ("T'", "T'"),
          "eta0": ("eta_0", "$\\eta_0$"), "eta": ("eta", "$\\eta$")}


def _fmt(v) -> str:
    return _g(v) if isinstance(v, float) else str(v)


def instance_caption(inst: Mapping[str, Any] | None, sep: str = ", ", eq: str = " = ", math: bool = False) -> str:
    """``|V| = 3, N = 4, L_max = 5, T = 900, T' = 300, eta_0 = 1.41, eta = 0.0354``: every size and
    parameter the instance's description gives (None values left out)."""
    if not inst:
        return ""
    return sep.join(f"{_NAMES.get(k, (k, k))[1 if math else 0]}{eq}{_fmt(v)}" for k, v in inst.items() if v is not None)
