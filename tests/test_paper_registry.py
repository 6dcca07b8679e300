"""Papers are plugins (issue 44): an installed distribution that registers a Paper in the entry-point
group ``ntpcheck.papers`` is found by ``ntpcheck papers``, ``verify --paper`` and ``claims``, with no
change to ntpcheck.  The distribution here is real metadata (a ``*.dist-info`` folder on ``sys.path``,
which ``importlib.metadata`` reads as it reads an installed package's)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from ntpcheck.properties import BUILTIN, GROUP


def _install(root, name: str, target: str, code: str) -> None:
    """A distribution ``name`` registering ``target`` under the paper name ``name``, its module from ``code``."""
    module = target.partition(":")[0]
    (root / f"{module}.py").write_text(textwrap.dedent(code))
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{name} = {target}\n")


def _ntpcheck(root, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "ntpcheck", *argv], capture_output=True, text=True, env=env, timeout=600,
                          cwd=root)


ONE_CLAIM = """
    import dataclasses
    from ntpcheck.properties.huang2024 import PAPER as _HUANG

    # A paper of one claim (the first paper's Ex. 1 under another name): what matters is the registration.
    PAPER = dataclasses.replace(_HUANG, name="plugin2025", title="A plugin paper", claims=tuple(c for c in _HUANG.claims if c.name == "Ex. 1"))
"""


def test_an_installed_paper_is_found_and_run(tmp_path):
    _install(tmp_path, "plugin2025", "plugin2025_claims:PAPER", ONE_CLAIM)
    papers = _ntpcheck(tmp_path, "papers")
    assert papers.returncode == 0, papers.stderr
    names = [line.split()[0] for line in papers.stdout.splitlines()[2:]]
    # the built-in papers first, then the installed ones by name (a user's other plugins may sit among them)
    assert names[: len(BUILTIN)] == [*BUILTIN] and "plugin2025" in names[len(BUILTIN):], papers.stdout
    run = _ntpcheck(tmp_path, "verify", "--paper", "plugin2025", "--workers", "1")
    assert run.returncode == 0 and "Ex. 1" in run.stdout and "holds" in run.stdout, run.stderr[-2000:]


@pytest.mark.parametrize("target, words", [
    ("plugin2025_claims:NOTHING", "does not load: AttributeError"),
    ("plugin2025_claims:TEXT", "is a str, not an ntpcheck Paper"),
], ids=["missing-attribute", "not-a-paper"])
def test_a_broken_plugin_is_one_line(tmp_path, target, words):
    _install(tmp_path, "plugin2025", target, "TEXT = 'not a paper'\n")
    run = _ntpcheck(tmp_path, "verify", "--paper", "plugin2025", "--workers", "1")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and words in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_a_name_registered_twice_is_refused(tmp_path):
    """A second distribution claiming ``huang2024`` for another target: which would run depends on install order."""
    _install(tmp_path, "huang2024", "impostor:PAPER", ONE_CLAIM)
    run = _ntpcheck(tmp_path, "papers")
    assert run.returncode == 2 and "registered twice" in run.stderr and "Traceback" not in run.stderr, run.stderr
