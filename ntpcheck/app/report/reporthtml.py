"""The report as one self-contained HTML page (``DIR/report.html``).

A table of contents by paper and section, the verdict table, then per claim its
statement, assumptions, verdict, counts, exercised parts, figure (embedded as a
``data:`` URI, so the file can be mailed or attached as a CI artefact alone)
and counterexample with the command that replays it.  Nothing is specific to a
paper: claims are grouped by the paper that registers them
(:data:`ntpcheck.properties.PAPERS`) and by their ``section``.  Optional extra
figures (the matrix heatmaps, :mod:`.matrixreport`) go before the summary; their
cells link to the claims' sections by anchor.
"""

from __future__ import annotations

import base64
import html
from typing import Iterable, Sequence

from ntpcheck.properties.framework import Verdict

from .figstyle import VERDICT_COLOURS
from ntpcheck.app.rendering.render import INCOMPLETE, c0_text, counts_text, exercised_text, result_summary

__all__ = ["html_report", "paper_of", "Extra"]

#: An extra figure of the page: ``(anchor, title, png bytes, caption, links)``; ``links``:
#: ``(x0, y0, x1, y1, href, title)`` rectangles in the PNG's pixels (an image map).
Extra = tuple

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#111;line-height:1.45}
nav{position:fixed;top:0;left:0;bottom:0;width:19rem;overflow-y:auto;padding:1rem;background:#f6f6f6;border-right:1px solid #ddd;font-size:.9rem}
nav ul{list-style:none;padding-left:.8rem;margin:.2rem 0}
main{margin-left:21rem;padding:1rem 2rem;max-width:1200px}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
.badge{display:inline-block;padding:0 .45rem;border-radius:.6rem;color:#fff;font-size:.8rem;font-weight:600;white-space:nowrap}
article{border-top:2px solid #ddd;margin-top:2rem;padding-top:.5rem}
figure{margin:1rem 0}img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9rem;color:#444}blockquote{margin:.5rem 0;padding:.3rem 1rem;border-left:4px solid #0072B2;background:#f3f8fc}
pre{background:#fbf3ee;border-left:4px solid #D55E00;padding:.6rem;overflow-x:auto}code{background:#f0f0f0;padding:0 .2rem}
.muted{color:#555}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _badge(v: Verdict) -> str:
    colour = VERDICT_COLOURS[v]
    fg = "#000" if v in (Verdict.VACUOUS, Verdict.INCONCLUSIVE, Verdict.OUTSIDE) else "#fff"
    return f'<span class="badge" style="background:{colour};color:{fg}">{_e(v.value)}</span>'


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def paper_of(claim, default: str | None = None) -> str:
    """The name of the registered paper that has ``claim`` (``default``, else the first registered paper)."""
    from ntpcheck.properties import DEFAULT_PAPER, PAPERS, paper

    if default:
        return default
    for name in PAPERS:
        try:
            if any(c.name == claim.name and c.id == claim.id for c in paper(name).claims):
                return name
        except Exception:  # a paper that does not load is not this claim's
            continue
    return DEFAULT_PAPER


def _title_of(name: str) -> str:
    from ntpcheck.properties import paper

    try:
        return paper(name).title
    except Exception:
        return name


def _groups(items) -> dict[str, dict[str, list]]:
    """``{paper: {section: [items]}}`` in the order of the items."""
    out: dict[str, dict[str, list]] = {}
    for it in items:
        out.setdefault(it.paper, {}).setdefault(it.result.claim.section, []).append(it)
    return out


def _article(it) -> str:
    r = it.result
    parts = [f'<article id="{_e(it.anchor)}">', f"<h4>{_e(it.title or r.claim.name)} {_badge(r.verdict)}</h4>",
             f"<blockquote>{_e(r.claim.statement)}</blockquote>",
             "<table>",
             f"<tr><th>assumptions</th><td>{_e(', '.join(r.claim.assumptions))}</td></tr>",
             f"<tr><th>tested/drawn</th><td>{_e(counts_text(r.counts))} (needed: {r.min_tested} distinct)</td></tr>",
             f"<tr><th>parts (how tight)</th><td>{_e(exercised_text(r.exercised))}</td></tr>",
             f"<tr><th>measured</th><td>{_e(result_summary(r))}"
             + (f"; Theorem 2's constant: {_e(c0_text(r.measured))}" if r.measured.get("implied_c0") is not None else "") + "</td></tr>",
             f"<tr><th>detail</th><td>{_e(r.detail)}</td></tr>", "</table>"]
    if it.png:
        parts.append(f'<figure><img src="{_data_uri(it.png)}" alt="{_e(r.claim.name)}: figure" width="1100">'
                     f"<figcaption>{_e(it.caption)}</figcaption></figure>")
    else:
        parts.append(f'<p class="muted">{_e(it.caption)}</p>')
    if r.counterexample:
        lines = r.counterexample.rstrip().splitlines()
        replay = next((ln.split("run:", 1)[1].strip() for ln in reversed(lines) if "replay" in ln and "run:" in ln), None)
        parts.append("<p>Counterexample (save it as FILE"
                     + (f", then run <code>{_e(replay)}</code>" if replay else "") + "):</p>")
        parts.append(f"<pre>{_e(r.counterexample.rstrip())}</pre>")
    parts.append("</article>")
    return "\n".join(parts)


def _extra(ex: Extra) -> str:
    anchor, title, png, caption, links = ex
    name = f"map-{anchor}"
    areas = "".join(f'<area shape="rect" coords="{int(x0)},{int(y0)},{int(x1)},{int(y1)}" href="{_e(href)}" title="{_e(t)}" alt="{_e(t)}">'
                    for x0, y0, x1, y1, href, t in links)
    return (f'<section id="{_e(anchor)}"><h2>{_e(title)}</h2><figure><img src="{_data_uri(png)}" alt="{_e(title)}" usemap="#{name}" style="max-width:none">'
            f'<map name="{name}">{areas}</map><figcaption>{_e(caption)}</figcaption></figure></section>')


def html_report(items: Sequence, profile: str, seed: int, complete: bool = True, paper: str | None = None,
                extras: Iterable[Extra] = (), title: str = "ntpcheck verification report", command: str | None = None) -> str:
    """The page: table of contents (papers, sections, claims with their verdicts), summary table,
    ``extras`` (heatmaps), and one article per item (:class:`.reportmd.ReportItem`)."""
    for it in items:
        it.paper = paper_of(it.result.claim, paper)
    groups = _groups(items)
    extras = list(extras)
    command = command or f"ntpcheck verify{f' --paper {paper}' if paper else ''} --profile {profile} --seed {seed} --report DIR"
    toc = ['<nav><strong>Contents</strong><ul>'] + [f'<li><a href="#{_e(a)}">{_e(t)}</a></li>' for a, t, *_ in extras]
    toc += ['<li><a href="#summary">Summary</a></li>']
    for name, sections in groups.items():
        toc.append(f'<li><a href="#paper-{_e(name)}">{_e(name)}</a><ul>')
        for section, its in sections.items():
            toc.append(f"<li>{_e(section)}<ul>")
            toc += [f'<li><a href="#{_e(it.anchor)}">{_e(it.title or it.result.claim.name)}</a> {_badge(it.result.verdict)}</li>' for it in its]
            toc.append("</ul></li>")
        toc.append("</ul></li>")
    toc.append("</ul></nav>")
    counts: dict[Verdict, int] = {}
    for it in items:
        counts[it.result.verdict] = counts.get(it.result.verdict, 0) + 1
    body = [f"<h1>{_e(title)}</h1>",
            f"<p>Profile <code>{_e(profile)}</code>, seed {seed}. Reproduce: <code>{_e(command)}</code>.</p>"]
    if not complete:
        body.append(f"<p><strong>Incomplete: interrupted after {len(items)} claims.</strong> {INCOMPLETE}</p>")
    body.append("<p>" + " ".join(f"{_badge(v)}&nbsp;{n}" for v, n in counts.items()) + "</p>")
    body += [_extra(ex) for ex in extras]
    body.append('<section id="summary"><h2>Summary</h2><table><tr><th>claim</th><th>verdict</th><th>tested/drawn</th>'
                "<th>parts (how tight)</th><th>worst slack / rate</th></tr>")
    for it in items:
        r = it.result
        body.append(f'<tr><td><a href="#{_e(it.anchor)}">{_e(it.title or r.claim.name)}</a></td><td>{_badge(r.verdict)}</td>'
                    f"<td>{_e(counts_text(r.counts))}</td><td>{_e(exercised_text(r.exercised))}</td><td>{_e(result_summary(r))}</td></tr>")
    body.append("</table></section>")
    for name, sections in groups.items():
        body.append(f'<section id="paper-{_e(name)}"><h2>{_e(name)}: {_e(_title_of(name))}</h2>')
        for section, its in sections.items():
            body.append(f"<h3>{_e(section)}</h3>")
            body += [_article(it) for it in its]
        body.append("</section>")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style></head>\n<body>\n" + "\n".join(toc) + "\n<main>\n" + "\n".join(body) + "\n</main>\n</body></html>\n")
