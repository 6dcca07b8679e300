"""The documentation (issue 45): generated pages current, links resolving, command examples running.

* the paper pages ``docs/papers/<paper>.md`` are exactly what
  ``python -m ntpcheck.app.report.docs_pages docs/results docs/papers`` writes from the committed JSON
  (the claim graphs' SVGs are checked by name: their content is a function of the page's own
  "claim graph" table, which is compared);
* every name in a paper's ``proof_graph.PROOF_USES`` is a claim id of that paper;
* every relative link and image in README.md, CHANGELOG.md and docs/**/*.md resolves to a file
  (and a ``#fragment`` into a Markdown page, to one of its headings);
* every ``ntpcheck ...`` line of a fenced ```` ```bash ```` block in README.md and docs/**/*.md runs
  (from a fresh directory, one process: ``NTPCHECK_WORKERS=1``) and exits 0 or 1 without a
  traceback, except lines ending in ``# (long)`` (a long run) or ``# (your file)`` (needs a file of
  yours).  The Sphinx build itself, with warnings as errors, runs in ``.ci/run``.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ntpcheck.app.report import docs_pages
from ntpcheck.properties import paper

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md"] + sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
SKIP = ("# (long)", "# (your file)")


def _fenced(text: str, lang: str | None = None):
    """The lines of each fenced block (of language ``lang``), and the text outside any block."""
    blocks, outside, cur, fence = [], [], None, None
    for line in text.splitlines():
        m = re.match(r"^(`{3,}|~{3,})\s*(\{?[\w-]*\}?)", line)
        if cur is None and m:
            cur, fence = (m.group(2), []), m.group(1)
        elif cur is not None and line.startswith(fence) and line.strip() == fence:
            blocks.append(cur)
            cur = None
        elif cur is not None:
            cur[1].append(line)
        else:
            outside.append(line)
    return [b for lg, b in blocks if lang is None or lg == lang], "\n".join(outside)


def _examples() -> list[tuple[str, str]]:
    """``(where, line)`` of every command example to run, each command once."""
    out, seen = [], set()
    for page in PAGES:
        blocks, _ = _fenced(page.read_text(encoding="utf-8"), "bash")
        for block in blocks:
            for line in block:
                command = line.split(" #")[0].strip()
                if line.startswith("ntpcheck ") and not line.rstrip().endswith(SKIP) and command not in seen:
                    seen.add(command)
                    out.append((f"{page.relative_to(ROOT)}: {command}", command))
    return out


def test_committed_paper_pages_are_current(tmp_path):
    written = docs_pages.write_pages(str(DOCS / "results"), str(tmp_path))
    assert written, "no <paper>.verify.json in docs/results"
    for path in map(Path, written):
        committed = DOCS / "papers" / path.name
        assert committed.exists(), f"{committed} is missing: run {docs_pages.GENERATOR}"
        if path.suffix == ".md":
            assert committed.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), \
                f"{committed.relative_to(ROOT)} is stale: run {docs_pages.GENERATOR}"
    generated = {p.name for p in (DOCS / "papers").iterdir() if p.suffix == ".svg"}
    assert generated == {Path(p).name for p in written if p.endswith(".svg")}


@pytest.mark.parametrize("name", ["huang2024", "thrampoulidis2024"])
def test_proof_graph_names_are_claims_of_the_paper(name):
    uses = importlib.import_module(f"ntpcheck.properties.{name}.proof_graph").PROOF_USES
    ids = {c.id for c in paper(name).claims}
    named = set(uses) | {u for used in uses.values() for u in used}
    assert named <= ids, f"not claims of {name}: {sorted(named - ids)}"
    assert all(claim not in used for claim, used in uses.items()), "a proof that uses itself"
    assert docs_pages.proof_uses(name) == uses


def test_claim_graph_text_names_what_rests_on_cor1():
    rows = [{"id": "Cor. 1", "verdict": "falsified"}, {"id": "Lemma 4", "verdict": "holds"}, {"id": "Thm. 2", "verdict": "holds"}]
    uses = {"Lemma 4": ("Cor. 1",), "Thm. 2": ("Lemma 4",)}
    assert docs_pages.rests_on(uses, "Thm. 2") == ["Lemma 4", "Cor. 1"]
    assert docs_pages.graph_status(rows)["Cor. 1"] == "falsified"
    assert docs_pages.claim_graph(uses, docs_pages.graph_status(rows)).startswith(b"<?xml")


def _anchors(page: Path) -> set[str]:
    _, outside = _fenced(page.read_text(encoding="utf-8"))
    found = set()
    for line in outside.splitlines():
        m = re.match(r"^#{1,6} (.*)", line)
        if m:
            slug, k = docs_pages._slug(m.group(1)), 1
            while slug in found:
                slug, k = f"{docs_pages._slug(m.group(1))}-{k}", k + 1
            found.add(slug)
    return found | set(re.findall(r'<a id="([^"]+)">', outside))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    _, outside = _fenced(page.read_text(encoding="utf-8"))
    outside = re.sub(r"`[^`\n]*`", "", outside)  # code spans hold no links
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", outside):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
            bad.append(f"{target}: no heading #{fragment} in {dest.name}")
    assert not bad, bad


def test_command_examples_are_collected():
    lines = [line for _, line in _examples()]
    assert len(lines) >= 10
    assert any("--claims" in line for line in lines)


@pytest.mark.parametrize("where,line", _examples(), ids=[w for w, _ in _examples()])
def test_command_example_runs(where, line, tmp_path):
    """``line`` (a command without its comment) from a fresh directory, as ``python -m ntpcheck``."""
    env = dict(os.environ, NTPCHECK_WORKERS="1", COLUMNS="100")
    proc = subprocess.run(["bash", "-c", line.replace("ntpcheck ", f'"{sys.executable}" -m ntpcheck ', 1)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), f"{where}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
