"""``ntpcheck new-paper NAME DIR`` (issue 44): the skeleton it writes is a paper plugin that builds with
pip, passes its own tests, and is found and run by ``ntpcheck papers`` and ``verify --paper``.

Nothing is installed into the running environment: the package runs from ``PYTHONPATH``, registered
by a ``*.dist-info`` beside it (as :mod:`tests.test_paper_registry` does), and one real
``pip install --target`` proves that its ``pyproject.toml`` builds, with pip's own dist-info."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ntpcheck.app.cli.cli import main
from ntpcheck.app.cli.new_paper import files

NAME = "demo"


def _run(argv: list[str], path: Path | str | None, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """``argv`` with ``path`` (None: nothing) in front of ``PYTHONPATH``."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("new_paper") / "pkg"
    done = _run([sys.executable, "-m", "ntpcheck", "new-paper", NAME, str(root)], None, root.parent)
    assert done.returncode == 0 and "wrote the paper package demo" in done.stdout, done.stderr
    return root


def test_the_skeleton_has_its_files(skeleton):
    written = sorted(str(p.relative_to(skeleton)).replace(os.sep, "/") for p in skeleton.rglob("*") if p.is_file())
    assert written == sorted(files(NAME))
    assert 'demo = "demo_paper.claims:PAPER"' in (skeleton / "pyproject.toml").read_text()
    for path in (skeleton / "demo_paper").glob("*.py"):  # written against ntpcheck.api only
        imports = [line for line in path.read_text().splitlines() if line.startswith(("import ntpcheck", "from ntpcheck"))]
        assert all(line.startswith("from ntpcheck.api import") for line in imports), (path, imports)


def test_it_runs_registered_from_a_path(skeleton, tmp_path):
    """Its tests pass, and ``ntpcheck papers`` / ``verify --paper demo`` find it through a dist-info."""
    info = tmp_path / "demo_paper-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-paper\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text('[ntpcheck.papers]\ndemo = demo_paper.claims:PAPER\n')
    path = os.pathsep.join([str(tmp_path), str(skeleton)])
    tests = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(skeleton)], path, skeleton)
    assert tests.returncode == 0 and " passed" in tests.stdout, tests.stdout[-3000:] + tests.stderr[-2000:]
    papers = _run([sys.executable, "-m", "ntpcheck", "papers"], path, tmp_path)
    assert papers.returncode == 0 and any(line.split()[:1] == [NAME] for line in papers.stdout.splitlines()), papers.stdout
    run = _run([sys.executable, "-m", "ntpcheck", "verify", "--paper", NAME, "--workers", "1", "--profile", "quick"], path, tmp_path)
    assert run.returncode == 0 and "Max-prob" in run.stdout and "holds" in run.stdout, run.stdout + run.stderr[-2000:]


def test_it_builds_and_installs_with_pip(skeleton, tmp_path):
    """``pip install --target``: pip builds the pyproject (with build isolation, as a user's ``pip install DIR``;
    without it where no index is reachable) and writes the entry point that registers the paper."""
    target = tmp_path / "site"
    base = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check", "--target", str(target)]
    built = _run([*base, str(skeleton)], None, tmp_path)
    if built.returncode != 0:
        built = _run([*base, "--no-build-isolation", str(skeleton)], None, tmp_path)
    if built.returncode != 0 and any(w in built.stderr for w in ("connection", "Connection", "No matching distribution", "bdist_wheel")):
        pytest.skip(f"pip cannot build here (no package index, no wheel): {built.stderr.strip().splitlines()[-1]}")
    assert built.returncode == 0, built.stderr[-3000:]
    [info] = target.glob("demo_paper-*.dist-info")
    assert "demo = demo_paper.claims:PAPER" in (info / "entry_points.txt").read_text()
    papers = _run([sys.executable, "-m", "ntpcheck", "papers"], target, tmp_path)
    assert papers.returncode == 0 and any(line.split()[:1] == [NAME] for line in papers.stdout.splitlines()), papers.stdout


@pytest.mark.parametrize("argv, words", [
    (["new-paper", "Demo", "{tmp}/x"], "use a lowercase letter"),
    (["new-paper", "2x", "{tmp}/x"], "use a lowercase letter"),
    (["new-paper", "import", "{tmp}/x"], "is a Python keyword"),
    (["new-paper", "huang2024", "{tmp}/x"], "already registered"),
    (["new-paper", "demo", "{tmp}/full"], "is not empty"),
    (["new-paper", "demo", "{tmp}/file"], "exists and is not a directory"),
], ids=["upper-case", "digit-first", "keyword", "registered", "non-empty-dir", "a-file"])
def test_bad_input_is_one_line(tmp_path, capsys, argv, words):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    (tmp_path / "file").write_text("mine")
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ntpcheck: error: ") and err.count("\n") == 1 and words in err, err
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine" and not (tmp_path / "x").exists()
