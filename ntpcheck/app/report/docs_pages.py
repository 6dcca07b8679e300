"""One documentation page per paper, generated from committed results: ``python -m ntpcheck.app.report.docs_pages RESULTS_DIR OUT_DIR``.

For every paper with ``RESULTS_DIR/<paper>.verify.json`` (``ntpcheck verify --paper <paper> --json``)
it writes ``OUT_DIR/<paper>.md``: the findings table (claim, verdict, counts tested/drawn/distinct,
parts and how tight, what was measured), the claim graph (the paper's ``proof_graph.PROOF_USES``,
drawn as ``OUT_DIR/<paper>-claim-graph.svg`` with networkx, coloured by verdict, and what each
result rests on), the assumption matrix (``<paper>.matrix.json``, ``ntpcheck matrix --json``) and
the algorithm matrix (``<paper>.algorithm.json``, ``ntpcheck matrix --axis algorithm --json``) where
present, each counterexample with its replay command, each claim's figure (``<paper>.figures/``,
``ntpcheck verify --figures``, linked from the page, not copied), and the claims' statements.  Nothing is
computed here and nothing is hand-copied: the pages are a function of the JSON and the claim
records, and ``tests/test_docs.py`` fails when the committed pages differ from what this writes.
Cells and counts are rendered by :mod:`.render` (the CLI's own texts).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import re
import sys
from types import SimpleNamespace

from ntpcheck.properties.framework import Verdict

from ntpcheck.app.rendering.render import counts_text, exercised_text, matrix_cell_text
from .reportmd import _md

__all__ = ["paper_page", "claim_graph", "graph_status", "status_text", "rests_on", "proof_uses", "write_pages", "main"]

GENERATOR = "python -m ntpcheck.app.report.docs_pages docs/results docs/papers"
#: Colours of the claim graph: the report's verdict colours, and yellow for a claim that holds with a loose part.
_STATUS = ("falsified", "error", "inconclusive", "loose", "holds", "vacuous", "outside", "not run")


def _slug(title: str) -> str:
    """The anchor MyST and GitHub give a heading (lower case, punctuation dropped, spaces to hyphens)."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def _name(row: dict) -> str:
    """A result's full name, ``id [variant]`` (a matrix row names its claim ``claim``)."""
    return row.get("id", row.get("claim")) + (f" [{row['variant']}]" if row.get("variant") else "")


def _load(path: str) -> dict | None:
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _command(doc: dict, base: str, out: str) -> str:
    """The command that wrote ``doc`` (its paper, profile, seed and pins are in it)."""
    pins = "" if doc.get("pinned", True) else " --no-pinned"
    return f"{base} --paper {doc['paper']} --profile {doc['profile']} --seed {doc['seed']}{pins} --json {out}"


def proof_uses(paper: str) -> dict[str, tuple[str, ...]]:
    """The paper's ``PROOF_USES`` (module ``proof_graph`` beside its ``PAPER``), or ``{}``."""
    from ntpcheck.properties import registered

    module = registered().get(paper, "").partition(":")[0]
    for candidate in (module + ".proof_graph", module.rpartition(".")[0] + ".proof_graph"):
        try:
            return dict(importlib.import_module(candidate).PROOF_USES)
        except ImportError:
            continue
    return {}


def _one_status(row: dict) -> str:
    v = row["verdict"]
    if v == "holds" and any(p.get("status") == "loose" for p in (row.get("parts") or {}).values()):
        return "loose"
    return v


def graph_status(rows: list[dict]) -> dict[str, str]:
    """Claim id -> the most telling status over its readings (falsified first, then error,
    inconclusive, holds with a loose part, holds, vacuous, outside).

    Examples
    --------
    >>> graph_status([{"id": "A", "verdict": "holds"}, {"id": "A", "verdict": "falsified"}, {"id": "B", "verdict": "vacuous"}])
    {'A': 'falsified', 'B': 'vacuous'}
    """
    out: dict[str, str] = {}
    for row in rows:
        s = _one_status(row)
        if row["id"] not in out or _STATUS.index(s) < _STATUS.index(out[row["id"]]):
            out[row["id"]] = s
    return out


def status_text(rows: list[dict], claim: str) -> str:
    """A claim's status for the graph's table, with the readings behind it where they differ.

    Examples
    --------
    >>> status_text([{"id": "A", "verdict": "holds"}, {"id": "A", "verdict": "falsified"}], "A")
    'falsified in 1 of 2 readings'
    """
    mine = [_one_status(r) for r in rows if r["id"] == claim]
    if not mine:
        return "not run"
    worst = min(mine, key=_STATUS.index)
    return worst if len(set(mine)) == 1 else f"{worst} in {mine.count(worst)} of {len(mine)} readings"


def rests_on(uses: dict[str, tuple[str, ...]], claim: str) -> list[str]:
    """Every claim ``claim``'s proof uses, directly or through another proof, in first-seen order.

    Examples
    --------
    >>> rests_on({"T": ("L2",), "L2": ("L1",), "L1": ("T",)}, "T")
    ['L2', 'L1']
    """
    seen, todo = [], list(uses.get(claim, ()))
    while todo:
        c = todo.pop(0)
        if c != claim and c not in seen:
            seen.append(c)
            todo.extend(uses.get(c, ()))
    return seen


def _positions(G) -> dict[str, tuple[float, float]]:
    """A layered layout: each node one row below the lowest result its proof uses (cycles share a
    row), the nodes of a row in the order of the mean position of what they use."""
    import networkx as nx

    C = nx.condensation(G)
    depth: dict[int, int] = {}
    for c in nx.topological_sort(C):
        depth[c] = max((depth[p] + 1 for p in C.predecessors(c)), default=0)
    rows: dict[int, list[str]] = {}
    for n in G:
        rows.setdefault(depth[C.graph["mapping"][n]], []).append(n)
    pos: dict[str, tuple[float, float]] = {}
    for y in sorted(rows):
        row = sorted(rows[y], key=lambda n: sum(pos[p][0] for p in G.predecessors(n) if p in pos) /
                     max(1, sum(p in pos for p in G.predecessors(n))) if any(p in pos for p in G.predecessors(n)) else 0.5)
        for i, n in enumerate(row):
            pos[n] = ((i + 1) / (len(row) + 1), -float(y))
    return pos


def claim_graph(uses: dict[str, tuple[str, ...]], status: dict[str, str], fmt: str = "svg") -> bytes:
    """The claim graph as SVG (or ``fmt``) bytes: an arrow from each result to every proof that uses
    it, the nodes coloured by status (no date in the file, so the same input gives the same bytes)."""
    import matplotlib
    import networkx as nx
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    from .figstyle import OKABE_ITO, VERDICT_COLOURS

    colours = {v.value: VERDICT_COLOURS[v] for v in Verdict}
    colours.update({"loose": OKABE_ITO["yellow"], "not run": "#ffffff"})
    G = nx.DiGraph()
    for claim, used in uses.items():
        G.add_node(claim)
        G.add_edges_from((u, claim) for u in used)
    pos = _positions(G)
    n_rows = 1 - int(min(y for _, y in pos.values()))
    with matplotlib.rc_context({"svg.hashsalt": "ntpcheck", "font.size": 11}):
        fig = Figure(figsize=(11.0, 0.75 * n_rows + 1.0))
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0 - 0.6 / (0.75 * n_rows + 1.0)))
        ax.set_axis_off()
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(-(n_rows - 1) - 0.5, 0.5)
        for u, v in G.edges:  # an edge over several rows bends, to the side it leans to, so it clears the rows between
            span = pos[u][1] - pos[v][1]
            rad = 0.0 if abs(span) <= 1 else (0.12 + 0.04 * min(abs(span), 6)) * (1 if pos[v][0] <= pos[u][0] else -1)
            ax.annotate("", xy=pos[v], xytext=pos[u], arrowprops={"arrowstyle": "-|>", "color": "#666666", "shrinkA": 11,
                                                                  "shrinkB": 11, "connectionstyle": f"arc3,rad={rad:.2f}"})
        for n, (x, y) in pos.items():
            s = status.get(n, "not run")
            ax.text(x, y, n, ha="center", va="center", fontsize=10, color="white" if s in ("falsified", "error") else "black",
                    bbox={"boxstyle": "round,pad=0.35", "facecolor": colours[s], "edgecolor": "black"})
        seen = [s for s in _STATUS if s in {status.get(n, "not run") for n in G}]
        fig.legend(handles=[Patch(facecolor=colours[s], edgecolor="black", label=s) for s in seen], loc="upper center",
                   ncol=len(seen), frameon=False, fontsize=10)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


def _findings(rows: list[dict], cex_anchor: dict[str, str]) -> list[str]:
    out = ["| claim | verdict | tested/drawn (distinct) | needed | parts (how tight) | what was measured |", "|---|---|---|---|---|---|"]
    for r in rows:
        name = _md(_name(r))
        if r["verdict"] == "falsified":
            name, verdict = f"**{name}**", f"**[falsified](#{cex_anchor[_name(r)]})**" if _name(r) in cex_anchor else "**falsified**"
        else:
            verdict = r["verdict"]
        ex = {k: r[k] for k in ("parts", "exercised", "dominated") if r.get(k)}
        out.append(f"| {name} | {verdict} | {_md(counts_text(r['counts']))} | {r['min_tested']} | {_md(exercised_text(ex))} | {_md(r['detail'])} |")
    return out


def _tally(rows: list[dict]) -> str:
    n = {v.value: 0 for v in Verdict}
    for r in rows:
        n[r["verdict"]] += 1
    return ", ".join(f"{k} {c}" for k, c in n.items() if c)


def _graph_section(paper: str, rows: list[dict], uses: dict, svg_name: str) -> list[str]:
    status = graph_status(rows)
    out = ["## The claim graph", "",
           f"Which results each proof uses (`{paper}`'s `proof_graph.PROOF_USES`, read from the paper's proofs): an arrow goes "
           "from a result to each proof that uses it. Colours are the verdicts above over all readings of a claim "
           "(falsified if any reading is; `loose`: holds, with a part of the statement that never mattered).", "",
           f"![The claim graph of {paper}]({svg_name})", "",
           "| result | its proof uses | rests on, through any chain of proofs, a step that is falsified or loose |", "|---|---|---|"]
    for claim in uses:
        weak = [f"{c} ({status_text(rows, c)})" for c in rests_on(uses, claim) if status.get(c) in ("falsified", "loose", "inconclusive", "error")]
        out.append(f"| {_md(claim)} ({status_text(rows, claim)}) | {_md(', '.join(uses[claim]))} | {_md('; '.join(weak) or '-')} |")
    return out


def _pivot(rows: list[dict], column: str, cell) -> list[str]:
    cols = list(dict.fromkeys(r[column] for r in rows))
    names = list(dict.fromkeys(_name(r) for r in rows))
    by = {(_name(r), r[column]): r for r in rows}
    head = ["claim"] + [f"without {c}" if column == "dropped" else c for c in cols]
    out = ["| " + " | ".join(_md(h) for h in head) + " |", "|" + "---|" * len(head)]
    for n in names:
        out.append("| " + " | ".join([_md(n)] + [_md(cell(by[(n, c)])) if (n, c) in by else "" for c in cols]) + " |")
    return out


def _assumption_cell(r: dict) -> str:
    return matrix_cell_text(SimpleNamespace(result=SimpleNamespace(verdict=Verdict(r["verdict"]), counts=r["counts"]), listed=r["listed"]))


def _algorithm_cell(r: dict) -> str:
    return "n/a" if not r["applicable"] else f"{r['verdict']} {r['counts']['tested']}/{r['counts']['drawn']}"


def _cex_block(title: str, text: str) -> list[str]:
    return ["", f"### {title}", "", "Save it as FILE; the command in its last line replays it:", "", "```text", text.rstrip(), "```"]


def _figures_section(paper: str, figures: dict) -> list[str]:
    """Each claim's figure (``verify --figures``: :mod:`.figures_out`) with its verdict and caption."""
    lines = ["", "## Figures", "",
             "Each claim's figure from the same run (`verify --figures`): as a rule the worst tested instance (or the "
             "counterexample) against the claimed bound on the left, every tested instance as a band on the right."]
    for f in figures["figures"]:
        lines += ["", f"### {f['claim']}", "", f"*{f['verdict']}.* {_md(f['caption'])}"]
        if f.get("file"):
            lines += ["", f"![{f['claim']}](../results/{paper}.figures/{f['file']})"]
    return lines


def paper_page(paper: str, verify: dict, matrix: dict | None = None, algorithm: dict | None = None,
               uses: dict | None = None, svg_name: str | None = None, figures: dict | None = None) -> str:
    """The Markdown page of ``paper`` from its documents (the JSON of ``verify``, ``matrix`` and
    ``matrix --axis algorithm``, the index of ``verify --figures``) and its claim graph."""
    from ntpcheck.properties import paper as load_paper

    P = load_paper(paper)
    rows = verify["claims"]
    res = f"docs/results/{paper}"
    cex = [(f"Counterexample: {_name(r)}", r) for r in rows if r.get("counterexample")]
    anchors = {_name(r): _slug(t) for t, r in cex}
    quick = " The quick profile draws 8 instances per claim (up to 24) and asks 5 distinct held ones for `holds`." \
        if verify["profile"] == "quick" else ""
    lines = [f"# {paper}: findings", "",
             f"*{P.title}.*", "",
             f"```{{note}}\nGenerated by `{GENERATOR}` from the committed results in `docs/results/`: do not edit by hand. "
             "Regenerate the results, then this page, with the commands below; `tests/test_docs.py` fails when this page "
             "differs from what the generator writes.\n```", "",
             "```bash", _command(verify, "ntpcheck verify", f"{res}.verify.json")
             + (f" --figures {res}.figures" if figures else "") + "  # (long)"]
    if matrix:
        lines.append(_command(matrix, "ntpcheck matrix", f"{res}.matrix.json") + "  # (long)")
    if algorithm:
        lines.append(_command(algorithm, "ntpcheck matrix --axis algorithm", f"{res}.algorithm.json") + "  # (long)")
    lines += ["```", "",
              f"Profile `{verify['profile']}`, seed {verify['seed']}, {'with' if verify.get('pinned', True) else 'without'} the pinned "
              f"examples; ntpcheck {verify.get('versions', {}).get('ntpcheck', '?')}, Hypothesis "
              f"{verify.get('versions', {}).get('hypothesis', '?')}.{quick} "
              f"{len(rows)} claims and readings: {_tally(rows)}.", "",
              "## Findings", "",
              "Counts are `tested/drawn`, then each verdict's count with its instances distinct up to the claim's symmetries; "
              "*needed* is `min_tested`; *parts* says how tight each part of the statement was "
              "([the verdict rules](../verdicts.md)).", ""]
    lines += _findings(rows, anchors)
    if uses and svg_name:
        lines += [""] + _graph_section(paper, rows, uses, svg_name)
    if matrix:
        lines += ["", "## The assumption-necessity matrix", "",
                  "Each claim on instances that break exactly one condition (column); a cell is `verdict tested/drawn`, "
                  "`*` marking a condition the claim does not list.", ""] + _pivot(matrix["rows"], "dropped", _assumption_cell)
    if algorithm:
        lines += ["", "## The algorithm axis", "",
                  "Each claim whose conclusion means something under another training algorithm, trained by each variant "
                  "on data meeting every assumption (`n/a`: a bound written in the paper algorithm's step size).", ""]
        lines += _pivot(algorithm["rows"], "algorithm", _algorithm_cell) + [""]
        lines += [f"- `{a['name']}`: {a['description']}" for a in algorithm.get("algorithms", [])]
    if cex:
        lines += ["", "## Counterexamples"]
        for title, r in cex:
            lines += _cex_block(title, r["counterexample"])
    cells = [(f"Matrix cell: {_name(r)} without {r['dropped']}", r) for r in (matrix or {}).get("rows", []) if r.get("counterexample")]
    cells += [(f"Algorithm {r['algorithm']}: {_name(r)}", r) for r in (algorithm or {}).get("rows", []) if r.get("counterexample")]
    if cells:
        lines += ["", "## Counterexamples of the matrices"]
        for title, r in cells:
            lines += _cex_block(title, r["counterexample"])
    if figures:
        lines += _figures_section(paper, figures)
    lines += ["", "## The claims", "", "| claim | section | statement |", "|---|---|---|"]
    lines += [f"| {_md(c.name)} | {_md(c.section)} | {_md(c.statement)} |" for c in P.claims]
    return "\n".join(lines) + "\n"


def write_pages(results_dir: str, out_dir: str) -> list[str]:
    """Write every paper's page (and claim graph) from ``results_dir`` into ``out_dir``; the paths written."""
    from ntpcheck.common.atomic import atomic_write_bytes, atomic_write_text

    os.makedirs(out_dir, exist_ok=True)
    written = []
    for fname in sorted(os.listdir(results_dir)):
        if not fname.endswith(".verify.json"):
            continue
        paper = fname[: -len(".verify.json")]
        verify = _load(os.path.join(results_dir, fname))
        matrix = _load(os.path.join(results_dir, f"{paper}.matrix.json"))
        algorithm = _load(os.path.join(results_dir, f"{paper}.algorithm.json"))
        uses = proof_uses(paper)
        svg = f"{paper}-claim-graph.svg" if uses else None
        if svg:
            path = os.path.join(out_dir, svg)
            atomic_write_bytes(path, claim_graph(uses, graph_status(verify["claims"])))
            written.append(path)
        path = os.path.join(out_dir, f"{paper}.md")
        figures = _load(os.path.join(results_dir, f"{paper}.figures", "index.json"))
        atomic_write_text(path, paper_page(paper, verify, matrix, algorithm, uses, svg, figures))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ntpcheck.app.report.docs_pages", description=__doc__.splitlines()[0])
    parser.add_argument("results_dir", help="the folder of <paper>.verify.json (and .matrix.json, .algorithm.json)")
    parser.add_argument("out_dir", help="where the pages go (docs/papers)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"error: {args.results_dir}: not a directory", file=sys.stderr)
        return 2
    for path in write_pages(args.results_dir, args.out_dir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
