"""The report of ``ntpcheck verify --report DIR``: Markdown and a self-contained HTML page.

``DIR/report.md`` holds the verdict table, then per claim its statement,
verdict and numbers, its figure (``DIR/plots/*.png``, :mod:`.claimfigure`: the
claim against its bound over every tested instance, in the kind its record
names) with a caption, and any counterexample in the text format with the
command that replays it.  ``DIR/report.html`` (:mod:`.reporthtml`) is the same
report as one file, the figures embedded, with a table of contents by paper and
section.  ``DIR`` must be new or empty (:func:`ntpcheck.common.atomic.fresh_directory`):
nothing already there is ever overwritten or deleted.  Each file is written
atomically, ``report.md`` last.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ntpcheck.common.atomic import atomic_write_bytes, atomic_write_text, published_directory
from ntpcheck.properties.framework import ClaimResult

from .claimfigure import claim_figure, instances_caption
from .figstyle import instance_caption, png
from ntpcheck.app.rendering.render import INCOMPLETE, c0_text, counts_text, exercised_text, result_summary

__all__ = ["write_report", "ReportItem", "report_items", "markdown"]


@dataclass
class ReportItem:
    """One claim of the report: its result, its anchor, its figure (PNG bytes and file name) and caption."""

    result: ClaimResult
    anchor: str
    png: bytes | None
    plot: str | None
    caption: str
    #: The registered paper the claim belongs to (set by :func:`.reporthtml.html_report`).
    paper: str | None = None
    #: The :class:`matplotlib.figure.Figure` behind ``png`` (None without one).
    figure: object = None
    #: The heading, where it is not the claim's name (a matrix cell: "Lemma 5 without 3").
    title: str | None = None


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "claim"


def _unique(stem: str, used: set[str]) -> str:
    """``stem``, or ``stem-2``, ``stem-3``... if taken (two names can share a slug); recorded in ``used``."""
    name, k = stem, 1
    while name in used:
        k += 1
        name = f"{stem}-{k}"
    used.add(name)
    return name


def _caption(r: ClaimResult, kind: str) -> str:
    """What the figure shows, with the sizes and step sizes of the instances behind it."""
    over = f"Checked: {instances_caption(r.per_instance)}."
    if r.verdict.value == "falsified" and r.instance:
        return f"Counterexample (in vermillion): {instance_caption(r.instance)}. {over}"
    if kind in ("bound", "between", "attention", "rate", "gap") and r.instance:
        return f"Left: the worst tested instance ({instance_caption(r.instance)}); right: every tested instance. {over}"
    return over


def _no_figure(r: ClaimResult) -> str:
    c = r.counts
    if not c.get("drawn"):
        return "No instance was drawn, so there is no figure."
    return (f"No figure: none of the {c['drawn']} instances drawn met the claim's hypotheses "
            f"({r.verdict.value}), so nothing about its conclusion can be drawn.")


def report_items(results: list[ClaimResult]) -> list[ReportItem]:
    """Each result's figure and caption, with unique anchors and plot names."""
    items, used, anchors = [], set(), set()
    for r in results:
        anchor = _unique(_slug(r.claim.name), anchors)
        fig = claim_figure(r)
        if fig is None:
            items.append(ReportItem(r, anchor, None, None, _no_figure(r)))
            continue
        name = _unique(f"plots/{_slug(r.claim.name)}", used) + ".png"
        items.append(ReportItem(r, anchor, png(fig), name, _caption(r, fig.ntpcheck_kind), figure=fig))
    return items


def _md(text: str) -> str:
    """``text`` safe inside a Markdown table cell (``|`` would split the row)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(items: list[ReportItem], profile: str, seed: int, complete: bool = True, paper: str | None = None) -> str:
    """The Markdown report of ``items`` (``paper``: named in the command that reproduces it)."""
    lines = [
        "# ntpcheck verification report",
        "",
        f"Profile `{profile}`, seed {seed}. Reproduce: "
        f"`ntpcheck verify{f' --paper {paper}' if paper else ''} --profile {profile} --seed {seed} --report DIR`. "
        "The same report with a table of contents: `report.html`.",
    ]
    if not complete:
        lines += ["", f"**Incomplete: interrupted after {len(items)} claims.** {INCOMPLETE}"]
    lines += [
        "",
        "| claim | variant | verdict | tested/drawn | needed | parts (how tight) | worst slack / rate |",
        "|---|---|---|---|---|---|---|",
    ]
    for it in items:
        r = it.result
        lines.append(f"| [{_md(r.claim.id)}](#{it.anchor}) | {_md(r.claim.reading or '')} | **{r.verdict.value}** | {_md(counts_text(r.counts))} | "
                     f"{r.min_tested} | {_md(exercised_text(r.exercised))} | {_md(result_summary(r))} |")
    for it in items:
        r = it.result
        lines += ["", f'<a id="{it.anchor}"></a>', "", f"## {r.claim.name}: {r.verdict.value}", "", f"*{r.claim.statement}*", "",
                  f"Assumptions: {', '.join(r.claim.assumptions)}. {r.detail}"]
        if r.measured.get("implied_c0") is not None:
            lines[-1] += f" Theorem 2's constant: {c0_text(r.measured)}."
        if it.plot:
            lines += ["", f"![{_md(r.claim.name)}]({it.plot})", "", f"*{it.caption}*"]
        else:
            lines += ["", it.caption]
        if r.counterexample:
            lines += ["", "Counterexample (save it as FILE; the command in its last line replays it):", "", "```", r.counterexample.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def write_report(out_dir: str, results: list[ClaimResult], profile: str, seed: int, complete: bool = True,
                 paper: str | None = None) -> str:
    """Write ``out_dir/report.md``, ``out_dir/report.html`` and the figures into ``out_dir``, which must
    be new or empty (checked again here; :class:`ntpcheck.common.errors.OutputPathError` otherwise), so no old
    report's plots ever sit beside a new ``report.md`` and nothing of the user's is touched."""
    from .reporthtml import html_report

    items = report_items(results)
    with published_directory(out_dir) as staging:  # all at once: two runs on one DIR never mix their files
        for it in items:
            if it.png:
                atomic_write_bytes(os.path.join(staging, it.plot), it.png)  # creates plots/ on the first one
        atomic_write_text(os.path.join(staging, "report.html"), html_report(items, profile, seed, complete, paper))
        atomic_write_text(os.path.join(staging, "report.md"), markdown(items, profile, seed, complete, paper))
    return os.path.join(out_dir, "report.md")
