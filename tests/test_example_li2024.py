"""The example paper plugin ``examples/li2024_graphsvm`` (issue 44), run from the source tree: on
``PYTHONPATH`` with a ``*.dist-info`` that registers it (as :mod:`tests.test_paper_registry` does), so the
suite needs no install.  ``.ci/run`` also installs it and runs its own tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "li2024_graphsvm"


@pytest.fixture(scope="module")
def registered(tmp_path_factory) -> str:
    """A ``PYTHONPATH`` on which ``li2024`` is a registered paper, from the example's source."""
    root = tmp_path_factory.mktemp("li2024")
    info = root / "li2024_graphsvm-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: li2024-graphsvm\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[ntpcheck.papers]\nli2024 = li2024_graphsvm.claims:PAPER\n")
    return os.pathsep.join([str(root), str(EXAMPLE)])


def _ntpcheck(path: str, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "ntpcheck", *argv], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)


def test_every_claim_holds(registered, tmp_path):
    papers = _ntpcheck(registered, tmp_path, "papers")
    assert papers.returncode == 0 and any(line.startswith("li2024 ") for line in papers.stdout.splitlines()), papers.stdout
    run = _ntpcheck(registered, tmp_path, "verify", "--paper", "li2024", "--profile", "quick", "--workers", "1", "--json", "-")
    assert run.returncode == 0, run.stderr[-3000:]
    verdicts = {f"{c['id']} [{c['variant']}]": c["verdict"] for c in json.loads(run.stdout)["claims"]}
    assert verdicts == {"Graph-SVM [KKT]": "holds", "GD [direction]": "holds", "GD [finite part]": "holds",
                        "Bridge [acyclic]": "holds"}, run.stderr[-3000:]


def test_a_file_replays(registered, tmp_path):
    """A file in the example's text format, naming its claim, is checked with ``verify --dataset``."""
    good = tmp_path / "acyclic.txt"
    good.write_text("# claim: Bridge [acyclic]\n# embeddings: 3 x 3\n#   1.0 0.0 0.5\n#   0.0 1.0 0.5\n#   0.0 0.0 1.0\n"
                    "A B C -> A\nB C -> B\nC A -> C\n")
    run = _ntpcheck(registered, tmp_path, "verify", "--paper", "li2024", "--dataset", str(good))
    assert run.returncode == 0 and "Bridge" in run.stdout and "holds" in run.stdout, run.stdout + run.stderr[-2000:]


def test_a_bad_file_is_one_line(registered, tmp_path):
    """A plugin's reader raising ValueError on a damaged file: one line naming the file, exit 2, no traceback."""
    bad = tmp_path / "bad.txt"
    bad.write_text("# embeddings: 2 x 3\n#   1.0 zero\nA B -> A\n")
    run = _ntpcheck(registered, tmp_path, "verify", "--paper", "li2024", "--dataset", str(bad))
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.stderr.startswith(f"ntpcheck: error: {bad}") and run.stderr.count("\n") == 1, run.stderr
