"""The Markdown report of ``ntpcheck verify --report DIR``.

``DIR/report.md`` holds the verdict table, then per claim its statement,
verdict and numbers, a small plot of the measured quantity against its bound
over t (``DIR/plots/*.png``; for the worst instance, or the counterexample),
and any counterexample in the text format.  Files are written atomically.
"""

from __future__ import annotations

import io
import os
import re

import numpy as np

from ntpcheck.atomic import atomic_directory
from ntpcheck.properties.framework import ClaimResult

from .render import counts_text, result_summary

__all__ = ["write_report"]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "claim"


def _plot(series, title: str) -> bytes | None:
    """Measured quantity and its bound over t (top), and their ratio (bottom), so
    that a bound the curve touches stays visible: the ratio sits at 1 there."""
    from matplotlib.figure import Figure

    t = np.asarray(series["t"], dtype=float)
    lhs, rhs = np.asarray(series["lhs"], dtype=float), np.asarray(series["rhs"], dtype=float)
    if len(t) < 2 or len(np.unique(t)) < 2:
        return None
    fig = Figure(figsize=(5.4, 4.4))
    ax, rax = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    allv = np.concatenate([lhs, rhs])
    allv = allv[np.isfinite(allv)]
    pos = allv[allv > 0]
    log = len(pos) > 0 and (allv >= 0).all() and pos.max() / pos.min() > 100
    zeros = int(np.sum(lhs == 0))

    def drawn(y: np.ndarray) -> np.ndarray:  # exact zeros cannot be drawn on a log axis: left out, and said
        return np.where(y > 0, y, np.nan) if log else y

    def bound(s) -> str:
        return f"{'upper' if s['sense'] == '<=' else 'lower'} bound"

    ax.plot(t, drawn(rhs), "-", color="C3", label=bound(series), lw=3.0, alpha=0.45)
    other = series.get("other")
    if other is not None and len(other["t"]) == len(t):  # a two-sided claim: the other bound too
        ax.plot(t, drawn(np.asarray(other["rhs"], dtype=float)), "-", color="C2", lw=3.0, alpha=0.45, label=bound(other))
    ax.plot(t, drawn(lhs), "-", color="C0", label="measured" + (f" ({zeros} zeros not drawn)" if log and zeros else ""), lw=1.2)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(_short(series["what"]), fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(rhs != 0, lhs / rhs, np.nan)
    rax.plot(t, ratio, "-", color="C0", lw=1.2)
    rax.axhline(1.0, color="C3", lw=1.0, ls="--")
    finite = ratio[np.isfinite(ratio)]
    if len(finite):  # at least 1 +- 5% in view, so rounding-level wiggles do not fill the panel
        rax.set_ylim(min(0.95, float(finite.min())) - 0.02, max(1.05, float(finite.max())) + 0.02)
    rax.ticklabel_format(axis="y", useOffset=False)
    rax.set_ylabel(f"measured / {bound(series)}", fontsize=8)
    rax.set_xlabel("training step t")
    rax.grid(alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def _short(text: str, n: int = 38) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _in_words(series) -> str:
    """A tolerance check said in words (a rounding-level quantity is not worth a plot)."""
    lhs, rhs = np.asarray(series["lhs"], dtype=float), np.asarray(series["rhs"], dtype=float)
    return (f"{series['what']}: at most {np.nanmax(lhs):.3g} over {len(lhs)} recorded steps, against a numerical "
            f"tolerance of {np.nanmin(rhs):.3g} (rounding level, so not plotted).")


def _md(text: str) -> str:
    """``text`` safe inside a Markdown table cell (``|`` would split the row)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _title(name: str, what: str) -> str:
    """``name: what``, without repeating the claim's name when ``what`` starts with it."""
    base = name.split(" [")[0]
    return what if what.startswith(base) else f"{name}: {what}"


def write_report(out_dir: str, results: list[ClaimResult], profile: str, seed: int, complete: bool = True) -> str:
    """Write ``out_dir/report.md`` and its plots as a whole: into a fresh directory
    that replaces ``out_dir`` only once everything is written (an old report's
    plots never survive beside a new ``report.md``)."""
    lines = [
        "# ntpcheck verification report",
        "",
        f"Profile `{profile}`, seed {seed}. Reproduce: `ntpcheck verify --profile {profile} --seed {seed} --report DIR`.",
    ]
    if not complete:
        lines += ["", f"**Incomplete: interrupted after {len(results)} claims.** The verdicts below are the finished ones."]
    lines += [
        "",
        "| claim | variant | verdict | tested/drawn | needed | worst slack / rate |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(f"| {_md(r.claim.id)} | {_md(r.claim.reading or '')} | **{r.verdict.value}** | {_md(counts_text(r.counts))} | "
                     f"{r.min_tested} | {_md(result_summary(r))} |")
    with atomic_directory(out_dir) as tmp:
        os.makedirs(os.path.join(tmp, "plots"))
        for r in results:
            lines += ["", f"## {r.claim.name}: {r.verdict.value}", "", f"*{r.claim.statement}*", "",
                      f"Assumptions: {', '.join(r.claim.assumptions)}. {r.detail}"]
            if r.series is not None and r.series.get("rhs_kind") == "tolerance":
                lines += ["", _in_words(r.series)]
            elif r.series is not None:
                png = _plot(r.series, _title(r.claim.name, r.series["what"]))
                if png:
                    name = f"plots/{_slug(r.claim.name)}.png"
                    with open(os.path.join(tmp, name), "wb") as f:  # the directory is swapped in whole
                        f.write(png)
                    lines += ["", f"![{r.claim.name}]({name})"]
            if r.counterexample:
                lines += ["", "Counterexample (paste into `ntpcheck check`):", "", "```", r.counterexample.rstrip(), "```"]
        with open(os.path.join(tmp, "report.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return os.path.join(out_dir, "report.md")
