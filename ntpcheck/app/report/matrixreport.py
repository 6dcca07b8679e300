"""The report of ``ntpcheck matrix --report DIR`` (either axis): a heatmap of the cells, and each
falsified cell's counterexample.

The heatmap has a row per claim and a column per dropped condition (``--axis assumption``) or per
training algorithm (``--axis algorithm``); each cell is coloured by its verdict (the report's
colour-blind-safe verdict colours) with ``tested/drawn`` written in, ``*`` where the claim does not
list the dropped condition.  ``DIR/matrix.png`` is the heatmap; ``DIR/report.html`` embeds it with an
image map whose falsified cells link to their counterexample, with the command that replays it, and
the figure of that cell (:mod:`.claimfigure`); ``DIR/report.md`` says the same in Markdown.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from ntpcheck.common.atomic import atomic_write_bytes, atomic_write_text, published_directory
from ntpcheck.properties.framework import Verdict

from .claimfigure import claim_figure
from .figstyle import DPI, MIN_FONT, VERDICT_COLOURS, WIDTH, png, styled
from .reportmd import ReportItem, _unique

__all__ = ["Grid", "assumption_grid", "algorithm_grid", "heatmap", "write_matrix_report"]

_ORDER = (Verdict.HOLDS, Verdict.VACUOUS, Verdict.INCONCLUSIVE, Verdict.OUTSIDE, Verdict.FALSIFIED, Verdict.ERROR)
NOT_RUN = "#eeeeee"


@dataclass
class Grid:
    """A matrix as a grid: ``cells[(row, col)] = (verdict or None, text, result or None, label)``."""

    title: str
    xlabel: str
    rows: list[str]
    cols: list[str]
    cells: dict = field(default_factory=dict)
    note: str = ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def assumption_grid(cells, conditions, paper: str) -> Grid:
    """The assumption axis: a column per dropped condition."""
    g = Grid(f"{paper}: each claim on data that breaks exactly one condition", "condition dropped",
             list(dict.fromkeys(c.claim.name for c in cells)), [f"without {c}" for c in conditions],
             note="* the claim does not list the condition it is run without; n/m = tested/drawn")
    for c in cells:
        r = c.result
        g.cells[(c.claim.name, f"without {c.condition}")] = (
            r.verdict, f"{r.counts['tested']}/{r.counts['drawn']}{'' if c.listed else '*'}", r, f"{c.claim.name} without {c.condition}")
    return g


def algorithm_grid(cells, variants, paper: str) -> Grid:
    """The algorithm axis: a column per training algorithm (``n/a``: not meaningful there)."""
    g = Grid(f"{paper}: each claim under each training algorithm", "training algorithm",
             list(dict.fromkeys(c.claim.name for c in cells)), [v.name for v in variants],
             note="n/a = the claim's bounds are in NGD's step size, which this algorithm does not take; n/m = tested/drawn")
    for c in cells:
        r = c.result
        if r is None:
            g.cells[(c.claim.name, c.algorithm.name)] = (None, "n/a", None, f"{c.claim.name} with {c.algorithm.name}")
        else:
            g.cells[(c.claim.name, c.algorithm.name)] = (r.verdict, f"{r.counts['tested']}/{r.counts['drawn']}", r,
                                                         f"{c.claim.name} with {c.algorithm.name}")
    return g


def heatmap(grid: Grid, hrefs: dict | None = None):
    """The grid as a :class:`matplotlib.figure.Figure`, and the image-map rectangles (pixels of the
    PNG at the report's resolution) ``(x0, y0, x1, y1, href, title)`` of the cells in ``hrefs``."""
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    hrefs = hrefs or {}
    nr, nc = len(grid.rows), len(grid.cols)
    tilt = nc > 6 or max(map(len, grid.cols), default=0) > 14  # long or many column names: slanted
    height = 2.3 + 0.34 * nr + (0.6 if tilt else 0.0)
    with styled():
        fig = Figure(figsize=(WIDTH, height), dpi=DPI)
        left, right, top, bottom = 3.6 / WIDTH, 1 - 0.6 / WIDTH, 1 - (1.7 if tilt else 1.1) / height, 0.9 / height
        fig.subplots_adjust(left=left, right=right, top=top, bottom=bottom)
        ax = fig.subplots()
        colours = [VERDICT_COLOURS[v] for v in _ORDER] + [NOT_RUN]
        code = np.full((nr, nc), len(_ORDER))
        for (row, col), (verdict, text, _, _) in grid.cells.items():
            i, j = grid.rows.index(row), grid.cols.index(col)
            code[i, j] = _ORDER.index(verdict) if verdict is not None else len(_ORDER)
            dark = verdict in (Verdict.HOLDS, Verdict.FALSIFIED, Verdict.ERROR)
            ax.text(j, i, (verdict.value if verdict is not None else "") + "\n" + text if nc <= 6 else text,
                    ha="center", va="center", fontsize=MIN_FONT, color="white" if dark else "black", linespacing=1.0)
        ax.imshow(code, cmap=ListedColormap(colours), vmin=-0.5, vmax=len(colours) - 0.5, aspect="auto", interpolation="nearest")
        ax.set_xticks(range(nc), grid.cols, fontsize=MIN_FONT + 1, rotation=30 if tilt else 0, ha="left" if tilt else "center")
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.set_yticks(range(nr), grid.rows, fontsize=MIN_FONT + 1)
        ax.set_xticks(np.arange(-0.5, nc), minor=True)
        ax.set_yticks(np.arange(-0.5, nr), minor=True)
        ax.grid(which="minor", color="white", lw=2)
        ax.grid(which="major", visible=False)
        ax.tick_params(which="minor", length=0)
        ax.set_xlabel(grid.xlabel)
        ax.set_ylabel("claim")
        fig.suptitle(grid.title, fontsize=12, fontweight="bold")
        seen = {grid.cells[k][0] for k in grid.cells}
        handles = [Patch(color=VERDICT_COLOURS[v], label=v.value) for v in _ORDER if v in seen]
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=len(handles) or 1, frameon=False)
        fig.text(0.01, 0.06 / height, grid.note, fontsize=MIN_FONT)
    links = []
    H = height * DPI
    for (row, col), href in hrefs.items():
        i, j = grid.rows.index(row), grid.cols.index(col)
        (x0, y0), (x1, y1) = ax.transData.transform([(j - 0.5, i + 0.5), (j + 0.5, i - 0.5)])
        links.append((min(x0, x1), H - max(y0, y1), max(x0, x1), H - min(y0, y1), href, grid.cells[(row, col)][3]))
    return fig, links


def write_matrix_report(out_dir: str, grid: Grid, profile: str, seed: int, complete: bool = True, paper: str | None = None,
                        command: str = "ntpcheck matrix") -> str:
    """Write ``out_dir/matrix.png``, the falsified cells' figures, ``report.html`` and ``report.md``
    (last) into ``out_dir``, which must be new or empty."""
    from .reporthtml import html_report

    items, hrefs, used = [], {}, set()
    for (row, col), (verdict, _, r, label) in grid.cells.items():
        if verdict is not Verdict.FALSIFIED or r is None:
            continue
        anchor = _unique("cex-" + _slug(label), used)
        hrefs[(row, col)] = f"#{anchor}"
        fig = claim_figure(r)
        plot = f"plots/{anchor}.png" if fig is not None else None
        items.append(ReportItem(r, anchor, png(fig) if fig is not None else None, plot,
                                f"The counterexample of the cell {label}." if fig is not None else "No figure.", title=label))
    fig, links = heatmap(grid, hrefs)
    heat = png(fig)
    with published_directory(out_dir) as staging:  # all at once: two runs on one DIR never mix their files
        atomic_write_bytes(os.path.join(staging, "matrix.png"), heat)
        for it in items:
            if it.png:
                atomic_write_bytes(os.path.join(staging, it.plot), it.png)
        cmd = f"{command} --profile {profile} --seed {seed} --report DIR"
        extras = [("matrix", grid.title, heat, f"{grid.note}. Click a falsified cell for its counterexample.", links)]
        atomic_write_text(os.path.join(staging, "report.html"),
                          html_report(items, profile, seed, complete, paper, extras=extras, title="ntpcheck matrix report", command=cmd))
        md = ["# ntpcheck matrix report", "", f"Profile `{profile}`, seed {seed}. Reproduce: `{cmd}`. The same with links: `report.html`.", ""]
        if not complete:
            md += ["**Incomplete: interrupted.** The cells below are the finished ones.", ""]
        md += ["![the matrix](matrix.png)", "", f"*{grid.note}.*"]
        for it in items:
            r = it.result
            md += ["", f'<a id="{it.anchor}"></a>', "", f"## {it.title}: falsified", "", r.detail]
            if it.plot:
                md += ["", f"![{it.title}]({it.plot})"]
            md += ["", "Counterexample (save it as FILE; the command in its last line replays it):", "", "```", (r.counterexample or "").rstrip(), "```"]
        atomic_write_text(os.path.join(staging, "report.md"), "\n".join(md) + "\n")
    return os.path.join(out_dir, "report.md")
