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

from ntpcheck.atomic import atomic_directory, atomic_write_bytes
from ntpcheck.properties.framework import ClaimResult

from .render import counts_text, result_summary

__all__ = ["write_report"]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "claim"


def _plot(series, title: str) -> bytes | None:
    from matplotlib.figure import Figure

    t = np.asarray(series["t"], dtype=float)
    lhs, rhs = np.asarray(series["lhs"], dtype=float), np.asarray(series["rhs"], dtype=float)
    if len(t) < 2 or len(np.unique(t)) < 2:
        return None
    fig = Figure(figsize=(5, 3.2))
    ax = fig.subplots()
    allv = np.concatenate([lhs, rhs])
    allv = allv[np.isfinite(allv)]
    pos = allv[allv > 0]
    log = len(pos) > 0 and (allv >= 0).all() and pos.max() / pos.min() > 100
    if log:  # exact zeros cannot be drawn on a log axis: leave them out and say so
        zeros = int(np.sum(lhs == 0))
        lhs = np.where(lhs > 0, lhs, np.nan)
        rhs = np.where(rhs > 0, rhs, np.nan)
    ax.plot(t, lhs, "-", color="C0", label="measured" + (f" ({zeros} zeros not drawn)" if log and zeros else ""), lw=1.4)
    ax.plot(t, rhs, "--", color="C3", label=f"bound ({'upper' if series['sense'] == '<=' else 'lower'})", lw=1.4)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("training step t")
    ax.set_ylabel(series.get("ylabel") or series["what"], fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


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
            if r.series is not None:
                png = _plot(r.series, _title(r.claim.name, r.series["what"]))
                if png:
                    name = f"plots/{_slug(r.claim.name)}.png"
                    atomic_write_bytes(os.path.join(tmp, name), png)
                    lines += ["", f"![{r.claim.name}]({name})"]
            if r.counterexample:
                lines += ["", "Counterexample (paste into `ntpcheck check`):", "", "```", r.counterexample.rstrip(), "```"]
        atomic_write_bytes(os.path.join(tmp, "report.md"), ("\n".join(lines) + "\n").encode())
    return os.path.join(out_dir, "report.md")
