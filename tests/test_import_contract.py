"""The layers as a contract, checked by import-linter (issue 44): ``[tool.importlinter]`` in
pyproject.toml (application > public API > papers > framework > strategies > the papers' models
``ntpcheck.transformer`` | ``ntpcheck.linear`` > ``ntpcheck.common``; papers independent; the
application's jobs layered; no Hypothesis in the core).

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


def _link(src: Path, dst: Path, replace: dict[str, str], prefix: str = "") -> None:
    """``dst`` holding a link to every entry of ``src``, except the folders on the way to a file of
    ``replace`` (made real, their entries linked) and those files (written with the given text)."""
    dst.mkdir()
    for entry in src.iterdir():
        if entry.name == "__pycache__":
            continue
        rel = prefix + entry.name
        if rel in replace:
            (dst / entry.name).write_text(replace[rel])
        elif entry.is_dir() and any(k.startswith(rel + "/") for k in replace):
            _link(entry, dst / entry.name, replace, rel + "/")
        else:
            (dst / entry.name).symlink_to(entry)


def _tree(tmp: Path, replace: dict[str, str] | None = None) -> Path:
    """``tmp/ntpcheck`` linking every entry of ``ntpcheck/`` and the two mapped folders; ``replace``:
    a module's path under ``ntpcheck/`` (``common/data.py``) -> text of a copy put in its place (to
    show the contract failing)."""
    _link(ROOT / "ntpcheck", tmp / "ntpcheck", replace or {})
    for name in ("strategies", "properties"):
        (tmp / "ntpcheck" / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def _lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([LINT, "--no-cache"], cwd=tree, capture_output=True, text=True, env=env, timeout=300)


def test_the_contract_is_kept(tmp_path):
    r = _lint(_tree(tmp_path))
    assert r.returncode == 0 and "0 broken" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


@pytest.mark.parametrize("module, line, words", [
    ("common/data.py", "import ntpcheck.app.rendering.render\n", "ntpcheck.common.data"),  # the core importing the application
    ("transformer/structure.py", "import hypothesis\n", "imports no Hypothesis"),     # the core importing Hypothesis
    ("common/data.py", "import ntpcheck.transformer.model\n", "ntpcheck.common.data"),   # common importing a paper's model
    ("transformer/model.py", "import ntpcheck.linear.loss\n", "ntpcheck.transformer.model"),  # one paper's model the other's
    ("app/rendering/render.py", "import ntpcheck.app.cli.cli\n", "ntpcheck.app.rendering.render"),  # a job below the CLI
], ids=["core-imports-app", "core-imports-hypothesis", "common-imports-a-paper", "paper-imports-paper", "rendering-imports-cli"])
def test_an_upward_import_breaks_it(tmp_path, module, line, words):
    """The contract is not vacuous: one import added against it is reported."""
    text = (ROOT / "ntpcheck" / module).read_text()
    r = _lint(_tree(tmp_path, {module: text + line}))
    assert r.returncode != 0 and words in r.stdout, r.stdout[-3000:]


def _contract(name_start: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (found,) = [c for c in config["contracts"] if c["name"].startswith(name_start)]
    return found


def _packages(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}


def test_every_core_package_is_placed_in_the_contract():
    """The core is the packages of ``ntpcheck/`` below the application (the top level holds no module
    of its own but ``__init__``, ``__main__`` and ``api``: tests/test_layers.py): each is a layer of
    the contract and a source of "no Hypothesis", so a new one is placed on purpose."""
    layers = _contract("application > public API")["layers"]
    listed = {m for layer in layers[-2:] for m in re.findall(r"ntpcheck\.(\w+)", layer)}
    present = _packages(ROOT / "ntpcheck") - {"app"}
    assert present == listed, f"missing from the contract: {sorted(present - listed)}; listed but absent: {sorted(listed - present)}"
    assert set(_contract("the core imports no Hypothesis")["source_modules"]) == {f"ntpcheck.{m}" for m in listed}


def test_every_job_of_the_application_is_placed_in_the_contract():
    """Every subpackage of ``ntpcheck/app/`` is a layer of the application's contract, and the
    application's folder holds no module but its ``__init__``."""
    layers = _contract("the application's jobs")["layers"]
    listed = {m for layer in layers for m in re.findall(r"ntpcheck\.app\.(\w+)", layer)}
    assert _packages(ROOT / "ntpcheck" / "app") == listed
    assert {p.name for p in (ROOT / "ntpcheck" / "app").glob("*.py")} == {"__init__.py"}
