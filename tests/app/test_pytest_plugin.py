"""The pytest plugin (issue 12), run as a user would: ``pytest`` in a fresh directory, in a
subprocess, with the plugin loaded from the installed entry point.

Hypothesis chooses a ``ci`` profile by itself when ``CI`` is set; every directory here
gets a conftest that loads an explicit profile, so these tests mean the same locally
and in CI.
"""

import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ntpcheck
from ntpcheck.properties import PAPERS, paper
from ntpcheck.properties.huang2024 import findings

ROOT = Path(__file__).resolve().parents[2]

#: A conjecture false on every dataset with two samples or more (so any run finds it); each
#: checked dataset is appended to $NTP_LOG, so a test can see which examples were tried, in order.
FALSE_CONJECTURE = '''
import os
import ntpcheck
from ntpcheck.strategies import realizable_datasets
from ntpcheck.properties.framework import conjecture, inequality

@conjecture("Conj. K", data=realizable_datasets(max_vocab=5, max_len=4, max_samples=6),
            assumptions=("1i", "1ii", "2", "3"))
def test_one_sample(ev):
    """N <= 1"""
    with open(os.environ["NTP_LOG"], "a") as f:
        f.write(ntpcheck.dumps(ev.dataset) + "----\\n")
    return inequality(float(ev.dataset.n_samples), 1.0, what="N <= 1")
'''


def _conftest(database: str | None) -> str:
    db = "None" if database is None else f"DirectoryBasedExampleDatabase({database!r})"
    return textwrap.dedent(f"""
        from hypothesis import settings
        from hypothesis.database import DirectoryBasedExampleDatabase
        settings.register_profile("plugin-test", database={db}, derandomize=False)
        settings.load_profile("plugin-test")
    """)


def _pytest(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=900)


@pytest.fixture
def empty(tmp_path):
    (tmp_path / "conftest.py").write_text(_conftest(None))
    return tmp_path


def test_claims_from_an_empty_directory(empty):
    """The issue's acceptance: Cor. 1 xfailed with its finding, Lemma 7 skipped as vacuous, Ex. 2 passed."""
    r = _pytest(empty, "--ntpcheck", "-q", "-rA", "--ntp-claims", "Cor. 1,Lemma 7,Ex. 2")
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    assert re.search(r"XFAIL \S+::claim\[cor1-k5\] - FINDING: the upper bound 3A is false", out), out
    for reading in ("ideal", "trained", "trained-gen"):
        assert re.search(rf"SKIPPED \[1\] \S+::claim\[lemma7-{reading}\]: vacuous: Lemma 7", out), out
    assert re.search(r"PASSED \S+::claim\[ex2\]", out), out
    assert "ntpcheck verdicts" in out  # the terminal section with every verdict and its counts
    assert re.search(r"Lemma 7 \[trained W_ov\]\s+vacuous\s+\d+/\d+", out), out


def test_every_claim_is_a_hypothesis_test(empty):
    r = _pytest(empty, "--ntpcheck", "--collect-only", "-q", "-m", "hypothesis")
    ids = re.findall(r"::claim\[([a-z0-9-]+)\]", r.stdout)
    assert sorted(ids) == sorted(c.key for name in PAPERS for c in paper(name).claims), r.stdout  # every registered paper's
    assert "sabotage[" not in r.stdout  # sabotage tests are plain tests, not searches


def test_k_selects_by_ascii_slug(empty):
    r = _pytest(empty, "--ntpcheck", "--collect-only", "-q", "-k", "cor1")
    ids = re.findall(r"::(\w+\[[a-z0-9-]+\])", r.stdout)
    assert ids == ["claim[cor1-k5]", "sabotage[cor1-k5]", "claim[cor1-corrected-k5]", "sabotage[cor1-corrected-k5]"], r.stdout
    assert all(c.key.isascii() and re.fullmatch(r"[a-z0-9-]+", c.key) for c in paper().claims)
    assert paper().claim("§7").key == "sec7" and paper().claim("Prop. 2 [Assumptions 1-2 only]").key == "prop2-a12"


def test_own_dataset_fails_the_formula_and_names_the_query(empty):
    """``--ntp-dataset``: Prop. 2's formula is not the max-margin solution on the finding's
    dataset: the formula's test fails (no xfail on a given dataset), naming the query."""
    data = empty / "p2.txt"
    data.write_text(ntpcheck.dumps(findings.prop2_counterexample().dataset))
    r = _pytest(empty, "--ntpcheck", "-rA", "--ntp-claims", "Prop. 2", f"--ntp-dataset={data}")
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"FAILED \S+::claim\[prop2-a12\]", r.stdout), r.stdout
    assert "Prop. 2 [Assumptions 1-2 only] is falsified on p2.txt: query B, token A" in r.stdout, r.stdout
    # the Section 3 reading lists the prefix convention this dataset breaks: outside, and the conclusion fails there
    assert re.search(r"SKIPPED \[1\] \S+::claim\[prop2-sec3\]: outside-hypotheses: .*the conclusion fails there", r.stdout), r.stdout


def test_own_dataset_header_embeddings_and_parameters_are_used(empty):
    """``--ntp-dataset`` reads a printed counterexample's header: its embeddings (here not
    orthonormal, so the data break Assumption 2) and its parameters; the failure prints the text."""
    data = empty / "cex.txt"
    data.write_text("# parameters: T = 0, T' = 0\n# embeddings: 1 x 2\n#   1.0 -1.0\nvocab: A B\nA B B\n")
    r = _pytest(empty, "--ntpcheck", "-rA", "--ntp-claims", "Prop. 2 [Assumptions 1-2 only]", f"--ntp-dataset={data}")
    assert re.search(r"SKIPPED \[1\] \S+::claim\[prop2-a12\]: outside-hypotheses: .*the data break 2, .*the conclusion fails there",
                     r.stdout), r.stdout + r.stderr


def test_found_counterexample_is_replayed_first(tmp_path):
    """With an example database, the counterexample found by a first run is the first
    example tried by the second (each claim under its own key in the database)."""
    (tmp_path / "conftest.py").write_text(_conftest(str(tmp_path / "db")))
    (tmp_path / "test_conjecture.py").write_text(FALSE_CONJECTURE)
    logs = []
    for run in (1, 2):
        log = tmp_path / f"log{run}.txt"
        r = _pytest(tmp_path, "-q", env={"NTP_LOG": str(log)})
        assert r.returncode == 1 and "Conj. K is falsified" in r.stdout, r.stdout + r.stderr
        logs.append([e for e in log.read_text().split("----\n") if e])
    shrunk = logs[0][-1]  # Hypothesis reruns the minimal example last, to report it
    assert logs[1][0] == shrunk, (logs[0][-3:], logs[1][:3])
    assert len(logs[1]) < len(logs[0])


def test_falsified_output_has_text_format_and_reproduction(empty):
    (empty / "test_conjecture.py").write_text(FALSE_CONJECTURE)
    r = _pytest(empty, "-q", env={"NTP_LOG": str(empty / "log.txt")})
    out = r.stdout
    assert "Conj. K is falsified: N <= 1" in out, out
    start = out.index("# claim: Conj. K")
    cex = out[start:out.index("\n", out.index("# replay:", start))]
    assert ntpcheck.loads(cex).n_samples >= 1  # valid text format, its header included
    assert "# replay: save this text as FILE, then run: pytest --ntp-dataset FILE -k 'conj-k'" in cex
    assert ".hypothesis/patches" not in out  # no @example patch for the plugin's shared body


def test_junitxml_carries_the_verdict(empty):
    r = _pytest(empty, "--ntpcheck", "--ntp-claims", "Ex. 2", "-k", "claim", "--junitxml=out.xml")
    assert r.returncode == 0, r.stdout
    xml = (empty / "out.xml").read_text()
    assert 'name="ntpcheck_verdict" value="holds"' in xml
    counts = json.loads(re.search(r'name="ntpcheck_counts" value="([^"]+)"', xml).group(1).replace("&quot;", '"'))
    assert counts["holds"] == counts["tested"] == 1


def test_unrelated_project_collects_nothing_from_ntpcheck(empty):
    (empty / "test_mine.py").write_text("def test_one():\n    assert True\n")
    r = _pytest(empty, "--collect-only", "-q")
    assert r.stdout.splitlines()[0] == "test_mine.py::test_one", r.stdout
    assert "1 test collected" in r.stdout and "claim[" not in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--ntp-paper", "nope"], "unknown paper 'nope'"),
    (["--ntp-claims", "Lemma 99"], "unknown claim 'Lemma 99'"),
    (["--ntp-dataset", "missing.txt"], "missing.txt"),
])
def test_bad_options_are_one_line_usage_errors(empty, args, message):
    r = _pytest(empty, "--ntpcheck", "--collect-only", *args)
    assert r.returncode == 4 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_python_m_ntpcheck_is_the_cli():
    r = subprocess.run([sys.executable, "-m", "ntpcheck", "papers"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "huang2024" in r.stdout


def test_verify_on_a_dataset_reports_the_conclusion(tmp_path):
    """``ntpcheck verify --dataset``: outside-hypotheses where the data break a listed
    assumption, with ``conclusion_holds`` saying whether the conclusion held there."""
    from ntpcheck.app.cli.cli import main

    data = tmp_path / "p2.txt"
    data.write_text(ntpcheck.dumps(findings.prop2_counterexample().dataset))
    out = tmp_path / "v.json"
    assert main(["verify", "--dataset", str(data), "--claims", "Prop. 2,Lemma 1", "--json", str(out)]) == 0
    rows = {(c["id"], c["variant"]): c for c in json.loads(out.read_text())["claims"]}
    sec3 = rows[("Prop. 2", "Section 3 setting")]
    assert sec3["verdict"] == "outside-hypotheses" and sec3["breaks"] == ["prefix"] and sec3["conclusion_holds"] is False
    a12 = rows[("Prop. 2", "Assumptions 1-2 only")]
    assert a12["verdict"] == "falsified" and a12["conclusion_holds"] is False and ntpcheck.loads(a12["counterexample"])
    assert rows[("Lemma 1", None)]["verdict"] == "holds" and rows[("Lemma 1", None)]["conclusion_holds"] is True


def _documents() -> str:
    """The README and every page of the docs (where the README's long sections moved, issue 45)."""
    return "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])


def _readme_k_commands() -> list[str]:
    text = _documents()
    return sorted({m.group(1).strip() for m in re.finditer(r"(?:^|`)(pytest [^\n#`]* -k [^\n#`]*)", text, re.M)})


@pytest.mark.parametrize("command", _readme_k_commands())
def test_readme_k_commands_select_tests(command):
    """Every ``pytest ... -k ...`` command in the README and the docs selects at least one test."""
    args = shlex.split(command)[1:]
    r = _pytest(ROOT, *args, "--collect-only", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^(\d+)/\d+ tests? collected", r.stdout, re.M) or re.search(r"^\d+ tests? collected", r.stdout, re.M), r.stdout


def test_readme_has_k_commands():
    assert len(_readme_k_commands()) >= 3


def _readme_block(first_line: str) -> str:
    text = _documents()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return next(b for b in blocks if b.startswith(first_line))


def test_readme_conjecture_example(empty):
    """The docs' own-claim example (docs/guides/your-paper.md) runs as shown: alone, and beside the paper's claims."""
    (empty / "test_w_kq.py").write_text(_readme_block("# test_w_kq.py"))
    r = _pytest(empty, "-rA", "test_w_kq.py")
    assert r.returncode == 0 and re.search(r"PASSED test_w_kq.py::test_w_kq_within_prop2_norm::claim\[conj1\]", r.stdout), r.stdout
    assert re.search(r"Conj. 1\s+holds\s+8/8", r.stdout), r.stdout  # the README's "holds, 8/8 (quick profile)"
    r = _pytest(empty, "--ntpcheck", "--ntp-claims", "Conj. 1,Prop. 2", "test_w_kq.py", "--collect-only", "-q")
    ids = re.findall(r"::claim\[([a-z0-9-]+)\]", r.stdout)
    assert sorted(ids) == ["conj1", "prop2-a12", "prop2-sec3"], r.stdout
