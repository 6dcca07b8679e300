"""The plots of ``ntpcheck verify --report``: one PNG per claim, as bytes.

Three kinds, chosen from what the check recorded:

* :func:`trajectory_png`: a measured quantity and its bound over the training
  step t (top) and measured/bound (bottom; for quantities already in log units,
  bound - measured), so that a bound the curve touches stays visible;
* the same over a check's entries (margins, constraints) when they were
  checked at one t, sorted by the measured value;
* :func:`instances_png`: when the check has no series (fits, exact identities,
  predictions), the slack of every instance the run checked, by verdict.

Quantities at rounding level and numerical tolerances are not plotted
(:func:`not_plotted` says why, in words).
"""

from __future__ import annotations

import io
import re
from typing import Any, Mapping, Sequence

import numpy as np

from ntpcheck.properties.framework import Verdict

__all__ = ["trajectory_png", "instances_png", "not_plotted", "instance_caption", "instances_caption"]

_COLOURS = {Verdict.HOLDS: "C0", Verdict.VACUOUS: "0.6", Verdict.FALSIFIED: "C3",
            Verdict.INCONCLUSIVE: "C1", Verdict.OUTSIDE: "C7", Verdict.ERROR: "k"}


def _png(fig) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def _short(text: str, n: int = 44) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _quantity(what: str) -> str:
    """The measured side of a check's name: ``||W^(t)||`` of ``||W^(t)|| <= t eta``."""
    return re.split(r" (?:<=|>=|<|>) ", what, maxsplit=1)[0]


def _bound_label(s: Mapping[str, Any]) -> str:
    return f"{'upper' if s['sense'] == '<=' else 'lower'} bound"


def not_plotted(series: Mapping[str, Any]) -> str | None:
    """Why ``series`` is said in words instead of plotted (None: plot it).

    A numerical tolerance (``rhs_kind == "tolerance"``) is not a bound of the
    paper, and a quantity that stays below its rounding ``floor`` would be specks
    over dozens of decades.
    """
    lhs, rhs = np.asarray(series["lhs"], dtype=float), np.asarray(series["rhs"], dtype=float)
    steps = f"{len(lhs)} recorded {'steps' if len(np.unique(series['t'])) > 1 else 'entries'}"
    if series.get("rhs_kind") == "tolerance":
        return (f"{series['what']}: at most {np.nanmax(lhs):.3g} over {steps}, against a numerical "
                f"tolerance of {np.nanmin(rhs):.3g} (rounding level, so not plotted).")
    floor = series.get("floor")
    if floor is not None and np.all(np.abs(lhs) < floor):
        return (f"{series['what']}: the measured quantity stays at rounding level (at most {np.nanmax(np.abs(lhs)):.3g}, "
                f"below {floor:g}) over {steps}, so the bound (at least {np.nanmin(rhs):.3g}) was never tested; not plotted.")
    return None


def trajectory_png(series: Mapping[str, Any], title: str) -> bytes | None:
    """Measured quantity and bound over t (or over a check's entries at one t), and their
    ratio; None if there is only one point (then :func:`instances_png` is drawn instead)."""
    from matplotlib.figure import Figure

    t = np.asarray(series["t"], dtype=float)
    lhs, rhs = np.asarray(series["lhs"], dtype=float), np.asarray(series["rhs"], dtype=float)
    if len(t) < 2:
        return None
    over_t = len(np.unique(t)) > 1
    if over_t:
        x, xlabel = t, "training step t"
    else:  # entries checked at one t (for instance every margin): sorted by the measured value
        order = np.argsort(lhs, kind="stable")
        lhs, rhs = lhs[order], rhs[order]
        x, xlabel = np.arange(len(lhs)), f"entry, sorted by the measured value (all at t = {int(t[0])})"
    log_units = bool(series.get("log_units"))
    fig = Figure(figsize=(5.6, 4.5))
    ax, rax = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    allv = np.concatenate([lhs, rhs])
    allv = allv[np.isfinite(allv)]
    pos = allv[allv > 0]
    log = not log_units and len(pos) > 0 and (allv >= 0).all() and pos.max() / pos.min() > 100
    zeros = int(np.sum(lhs == 0))

    def drawn(y: np.ndarray) -> np.ndarray:  # exact zeros cannot be drawn on a log axis: left out, and said
        return np.where(y > 0, y, np.nan) if log else y

    style = "-" if over_t else "."
    ax.plot(x, drawn(rhs), style, color="C3", lw=3.0, alpha=0.45,
            label=_bound_label(series) + (" 0 (not drawn on the log axis)" if log and not np.any(rhs) else ""))
    other = series.get("other")
    if other is not None and len(other["t"]) == len(t) and over_t:  # a two-sided claim: the other bound too
        ax.plot(x, drawn(np.asarray(other["rhs"], dtype=float)), "-", color="C2", lw=3.0, alpha=0.45, label=_bound_label(other))
    ax.plot(x, drawn(lhs), style, color="C0", lw=1.2,
            label="measured" + (f" ({zeros} zeros not drawn)" if log and zeros else ""))
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(_short(_quantity(series["what"])), fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    zero_bound = not np.any(rhs)
    if log_units or zero_bound:  # logs, or a bound of 0 (monotonicity): the difference, as a ratio means nothing
        gap = rhs - lhs if series["sense"] == "<=" else lhs - rhs
        rax.plot(x, gap, style, color="C0", lw=1.2)
        rax.axhline(0.0, color="C3", lw=1.0, ls="--")
        nz = np.abs(gap[np.isfinite(gap) & (gap != 0)])
        if zero_bound and len(nz) and nz.max() / nz.min() > 100:
            if np.all(gap[np.isfinite(gap)] > 0):
                rax.set_yscale("log")
            else:
                rax.set_yscale("symlog", linthresh=float(nz.min()))
        rax.set_ylabel("slack (log units)" if log_units else "slack (bound 0)", fontsize=8)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(rhs != 0, lhs / rhs, np.nan)
            rax.plot(x, ratio, style, color="C3", lw=1.4, label=f"to the {_bound_label(series)}")
            if other is not None and len(other["t"]) == len(t) and over_t:  # both ratios: each reading is about one bound
                orhs = np.asarray(other["rhs"], dtype=float)
                oratio = np.where(orhs != 0, lhs / orhs, np.nan)
                rax.plot(x, oratio, style, color="C2", lw=1.4, label=f"to the {_bound_label(other)}")
                ratio = np.concatenate([ratio, oratio])
                rax.legend(fontsize=7)
        rax.axhline(1.0, color="k", lw=0.8, ls="--")
        finite = ratio[np.isfinite(ratio)]
        if len(finite) and finite.min() > 0 and (finite.min() < 0.1 or finite.max() > 10):  # far from 1: decades
            rax.set_yscale("log")
        elif len(finite):  # at least 1 +- 5% in view, so rounding-level wiggles do not fill the panel
            rax.set_ylim(min(0.95, float(finite.min())) - 0.02, max(1.05, float(finite.max())) + 0.02)
            rax.ticklabel_format(axis="y", useOffset=False)
        rax.set_ylabel("measured / bound", fontsize=8)
    rax.set_xlabel(xlabel, fontsize=8)
    rax.grid(alpha=0.3)
    return _png(fig)


def instances_png(per_instance: Sequence[tuple], title: str) -> bytes | None:
    """The slack of every instance checked (positive: the claim held by that margin, in the
    check's own units), in draw order and coloured by verdict, then any shrunk counterexample
    (a star); instances without a slack (outside the hypotheses, inconclusive) are ticks at
    the bottom.  None if no instance.  ``per_instance``: ``(verdict, slack, instance, shrunk)``."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if not per_instance:
        return None
    fig = Figure(figsize=(5.6, 3.2))
    ax = fig.subplots()
    slack = np.array([float(row[1]) for row in per_instance])
    x = np.arange(1, len(slack) + 1)
    has = np.isfinite(slack)
    finite = slack[has]
    nonzero = np.abs(finite[finite != 0])
    log = len(nonzero) > 0 and nonzero.max() / nonzero.min() > 100
    if log and (finite >= 0).all():
        ax.set_yscale("log")  # exact zeros cannot be drawn there: counted in the title
        zeros = int(np.sum(finite == 0))
        title += f" ({zeros} exactly 0, not drawn)" if zeros else ""
    elif log:
        ax.set_yscale("symlog", linthresh=float(nonzero.min()))
    for v in Verdict:
        for shrunk in (False, True):
            sel = np.array([row[0] is v and bool(row[3]) == shrunk for row in per_instance])
            if not sel.any():
                continue
            label = "shrunk counterexample" if shrunk else f"{v.value} ({int(sel.sum())})"
            style = dict(color=_COLOURS[v], ls="none", label=label)
            if (sel & has).any():
                marker = "*" if shrunk else ("x" if v is Verdict.FALSIFIED else "o")
                ax.plot(x[sel & has], slack[sel & has], marker, ms=9 if shrunk else 6, mew=2 if v is Verdict.FALSIFIED else 1, **style)
                style.pop("label")
            if (sel & ~has).any():  # no slack: a tick at the bottom
                ax.plot(x[sel & ~has], np.full(int((sel & ~has).sum()), 0.03), "|", ms=12, transform=ax.get_xaxis_transform(), **style)
    if len(finite) and finite.min() < 0 or not log:
        ax.axhline(0.0, color="C3", lw=1.0, ls="--")
    ax.set_xlim(0.5, len(slack) + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("instance, in the order checked", fontsize=8)
    ax.set_ylabel("slack (bound - measured;\n< 0 falsifies)", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    return _png(fig)


def _g(x: float) -> str:
    return f"{x:.3g}"


def instance_caption(inst: Mapping[str, Any] | None) -> str:
    """``|V| = 3, N = 4, L_max = 5, T = 900, T' = 300, eta_0 = 1.41, eta = 0.0354``."""
    if not inst:
        return ""
    if "L_max" not in inst:  # another paper's instance: its own sizes and parameters, as it describes them
        return ", ".join(f"{k} = {_g(v) if isinstance(v, float) else v}" for k, v in inst.items())
    return (f"|V| = {inst['V']}, N = {inst['N']}, L_max = {inst['L_max']}, T = {inst['T']}, T' = {inst['T2']}, "
            f"eta_0 = {_g(inst['eta0'])}, eta = {_g(inst['eta'])}")


def instances_caption(per_instance: Sequence[tuple]) -> str:
    """The ranges of the instances' sizes and parameters, e.g. ``12 instances: |V| 2-5, N 1-9, ...``."""
    insts = [row[2] for row in per_instance if row[2]]
    if not insts:
        return f"{len(per_instance)} instances"

    def span(key: str, fmt=str) -> str:
        lo, hi = min(i[key] for i in insts), max(i[key] for i in insts)
        return fmt(lo) if lo == hi else f"{fmt(lo)}-{fmt(hi)}"

    if any("L_max" not in i for i in insts):  # another paper's instances: the ranges of the sizes they all give
        keys = [k for k in insts[0] if all(isinstance(i.get(k), (int, float)) and not isinstance(i.get(k), bool) for i in insts)]
        return f"{len(per_instance)} instances: " + ", ".join(f"{k} {span(k, _g if isinstance(insts[0][k], float) else str)}" for k in keys)

    return (f"{len(per_instance)} instances: |V| {span('V')}, N {span('N')}, L_max {span('L_max')}, T {span('T')}, "
            f"T' {span('T2')}, eta_0 {span('eta0', _g)}, eta {span('eta', _g)}")
