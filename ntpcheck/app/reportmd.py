"""The Markdown report of ``ntpcheck verify --report DIR``.

``DIR/report.md`` holds the verdict table, then per claim its statement,
verdict and numbers, one plot (``DIR/plots/*.png``, :mod:`.reportplots`: the
worst instance's or the counterexample's measured quantity against its bound,
or every instance's slack) captioned with the instance's sizes and step sizes,
and any counterexample in the text format.  ``DIR`` must be new or empty
(:func:`ntpcheck.atomic.fresh_directory`): nothing already there is ever
overwritten or deleted.  Each file is written atomically, ``report.md`` last.
"""

from __future__ import annotations

import os
import re

from ntpcheck.atomic import atomic_write_bytes, atomic_write_text, fresh_directory
from ntpcheck.properties.framework import ClaimResult, Verdict

from .render import c0_text, counts_text, result_summary, exercised_text
from .reportplots import instance_caption, instances_caption, instances_png, not_plotted, trajectory_png

__all__ = ["write_report"]


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


def _figure(r: ClaimResult) -> tuple[bytes | None, str]:
    """The claim's plot and its caption, or (None, why in words): the worst instance's (or the
    counterexample's) series when there is one worth drawing, else every instance's slack."""
    who = "Counterexample" if r.verdict is Verdict.FALSIFIED else "Worst instance"
    s = r.series
    if s is not None:
        words = not_plotted(s)
        if words:
            return None, words
        png = trajectory_png(s, _title(r.claim.name, s["what"]))
        if png:
            return png, f"{who}: {instance_caption(r.instance)}." if r.instance else ""
    png = instances_png(r.per_instance, f"{r.claim.name}: slack per instance")
    return png, (f"{instances_caption(r.per_instance)}." if png else "")


def _md(text: str) -> str:
    """``text`` safe inside a Markdown table cell (``|`` would split the row)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _title(name: str, what: str) -> str:
    """``name: what``, without repeating the claim's name when ``what`` starts with it."""
    base = name.split(" [")[0]
    return what if what.startswith(base) else f"{name}: {what}"


def write_report(out_dir: str, results: list[ClaimResult], profile: str, seed: int, complete: bool = True) -> str:
    """Write ``out_dir/report.md`` and its plots into ``out_dir``, which must be new or empty
    (checked again here; :class:`ntpcheck.errors.OutputPathError` otherwise), so no old report's
    plots ever sit beside a new ``report.md`` and nothing of the user's is touched."""
    lines = [
        "# ntpcheck verification report",
        "",
        f"Profile `{profile}`, seed {seed}. Reproduce: `ntpcheck verify --profile {profile} --seed {seed} --report DIR`.",
    ]
    if not complete:
        lines += ["", f"**Incomplete: interrupted after {len(results)} claims.** The verdicts below are the finished ones."]
    lines += [
        "",
        "| claim | variant | verdict | tested/drawn | needed | parts exercised | worst slack / rate |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(f"| {_md(r.claim.id)} | {_md(r.claim.reading or '')} | **{r.verdict.value}** | {_md(counts_text(r.counts))} | "
                     f"{r.min_tested} | {_md(exercised_text(r.exercised))} | {_md(result_summary(r))} |")
    fresh_directory(out_dir)
    used: set[str] = set()
    for r in results:
        lines += ["", f"## {r.claim.name}: {r.verdict.value}", "", f"*{r.claim.statement}*", "",
                  f"Assumptions: {', '.join(r.claim.assumptions)}. {r.detail}"]
        if r.measured.get("implied_c0") is not None:
            lines[-1] += f" Theorem 2's constant: {c0_text(r.measured)}."
        png, caption = _figure(r)
        if png:
            name = _unique(f"plots/{_slug(r.claim.name)}", used) + ".png"
            atomic_write_bytes(os.path.join(out_dir, name), png)  # creates plots/ on the first one
            lines += ["", f"![{_md(r.claim.name)}]({name})"]
        if caption:
            lines += ["", f"*{caption}*" if png else caption]
        if r.counterexample:
            lines += ["", "Counterexample (save it as FILE; the command in its last line replays it):", "", "```", r.counterexample.rstrip(), "```"]
    path = os.path.join(out_dir, "report.md")
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
