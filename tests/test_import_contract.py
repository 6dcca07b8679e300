"""The layers as a contract, checked by import-linter (issue 44): ``[tool.importlinter]`` in
pyproject.toml (application > public API > papers > framework > strategies > core; papers
independent; no Hypothesis in the core).

import-linter finds a package's modules under the folder of its ``__init__``; ``strategies/`` and
``properties/`` are installed as ``ntpcheck.strategies`` and ``ntpcheck.properties`` from folders of
their own (pyproject's ``package-dir``), so the check runs on a tree of symbolic links that puts them
where the installed names say (:func:`_tree`): the same files, read in place."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
pytestmark = pytest.mark.skipif(LINT is None, reason="import-linter is not installed (pip install -e '.[test]')")


def _tree(tmp: Path, replace: dict[str, str] | None = None) -> Path:
    """``tmp/ntpcheck`` linking every entry of ``ntpcheck/`` and the two mapped folders; ``replace``:
    module file name -> text of a copy put in its place (to show the contract failing)."""
    pkg = tmp / "ntpcheck"
    pkg.mkdir()
    for entry in (ROOT / "ntpcheck").iterdir():
        if entry.name == "__pycache__":
            continue
        if replace and entry.name in replace:
            (pkg / entry.name).write_text(replace[entry.name])
        else:
            (pkg / entry.name).symlink_to(entry)
    for name in ("strategies", "properties"):
        (pkg / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def _lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([LINT, "--no-cache"], cwd=tree, capture_output=True, text=True, env=env, timeout=300)


def test_the_contract_is_kept(tmp_path):
    r = _lint(_tree(tmp_path))
    assert r.returncode == 0 and "0 broken" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


@pytest.mark.parametrize("module, line, words", [
    ("data.py", "import ntpcheck.app.render\n", "ntpcheck.data"),          # the core importing the application
    ("structure.py", "import hypothesis\n", "imports no Hypothesis"),       # the core importing Hypothesis
], ids=["core-imports-app", "core-imports-hypothesis"])
def test_an_upward_import_breaks_it(tmp_path, module, line, words):
    """The contract is not vacuous: one import added against it is reported."""
    text = (ROOT / "ntpcheck" / module).read_text()
    r = _lint(_tree(tmp_path, {module: text + line}))
    assert r.returncode != 0 and words in r.stdout, r.stdout[-3000:]


def test_every_core_module_is_placed_in_the_contract():
    """A new core module (or subpackage) must be listed in the core layer: the contract covers what it names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    listed = set(re.findall(r"ntpcheck\.(\w+)", config["contracts"][0]["layers"][-1]))
    upper = {"app", "api", "strategies", "properties", "__init__", "__main__"}
    present = {p.stem for p in (ROOT / "ntpcheck").iterdir() if (p.suffix == ".py" or (p / "__init__.py").exists())} - upper
    assert present == listed, f"missing from the contract: {sorted(present - listed)}; listed but absent: {sorted(listed - present)}"
    assert set(config["contracts"][1]["source_modules"]) == {f"ntpcheck.{m}" for m in listed}
