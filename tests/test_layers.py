"""The package's shape: layers import only downward, no import cycles, small modules, one import name,
and no module of ``ntpcheck/``'s top level that belongs to one paper (issue 44).

Layers, lowest first (docs/reference/layout.md):

0. the core: ``ntpcheck.common`` (what every paper uses: the sequence data, the text writer,
   errors, atomic writes, interruption, BLAS threads, numba's cache folder, special functions),
   below the two papers' models, ``ntpcheck.transformer`` (Huang, Liang & Yang 2024: structure,
   model, training, max-margin problems and solvers, kernels, text format, built-in Examples) and
   ``ntpcheck.linear`` (Thrampoulidis 2024);
1. ``ntpcheck.strategies`` (Hypothesis strategies);
2. ``ntpcheck.properties.framework``, the paper registry ``ntpcheck.properties`` and the public
   API ``ntpcheck.api`` (what a paper package imports);
3. one package per paper, ``ntpcheck.properties.<paper>``;
4. the application ``ntpcheck.app`` (``cli``, ``report``, ``scaleout``, ``pytest_plugin``,
   ``rendering``) and ``ntpcheck.__main__``.

A module may import its own layer and the layers below.  The core imports
neither Hypothesis nor anything above it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
#: folder -> the import name it is installed under (pyproject's package-dir)
FOLDERS = {"ntpcheck": "ntpcheck", "strategies": "ntpcheck.strategies", "properties": "ntpcheck.properties"}
MAX_LINES = 400

#: The cycles allowed: none (issue 44).  The text formats' writers (``ntpcheck.common.textwriter``,
#: ``ntpcheck.linear.textwriter``) import no dataset class, so datasets and instances print
#: themselves in the format without the circle they once had with the readers.
ALLOWED_CYCLES: list[set[str]] = []


def _modules() -> dict[str, Path]:
    out = {}
    for folder, name in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([name, *parts])] = path
    return out


MODULES = _modules()


def _is_package(mod: str) -> bool:
    return MODULES[mod].name == "__init__.py"


def _imports(mod: str) -> set[str]:
    """Every module ``mod`` imports (at top level or inside functions), resolved to our names."""
    tree = ast.parse(MODULES[mod].read_text())
    package = mod if _is_package(mod) else mod.rpartition(".")[0]
    found = set()
    typing_only = {id(n) for block in ast.walk(tree) if _is_type_checking(block) for n in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in typing_only:  # `if TYPE_CHECKING:` imports are for annotations: never run
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.add(sub if sub in MODULES else target)
    return found


def _is_type_checking(node: ast.AST) -> bool:
    """An ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) block."""
    if not isinstance(node, ast.If):
        return False
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def layer(mod: str) -> int:
    if mod == "ntpcheck.__main__" or mod.startswith("ntpcheck.app"):
        return 4
    if mod.startswith("ntpcheck.properties."):
        return 2 if mod.startswith("ntpcheck.properties.framework") else 3
    if mod in ("ntpcheck.properties", "ntpcheck.api"):  # the registry, and the public API over the framework
        return 2
    if mod.startswith("ntpcheck.strategies"):
        return 1
    return 0


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for mod in MODULES:
        g.add_node(mod)
        for imp in _imports(mod):
            if imp in MODULES and imp != mod:
                g.add_edge(mod, imp)
    return g


#: What ``ntpcheck/``'s top level holds (issue 44): the package, ``python -m ntpcheck``, the public
#: API, and four packages; every other module lives in one of them.
TOP_LEVEL = {"__init__.py", "__main__.py", "api.py", "common", "transformer", "linear", "app"}


def test_the_top_level_holds_only_init_main_api_and_the_four_packages():
    entries = {p.name for p in (ROOT / "ntpcheck").iterdir() if p.name != "__pycache__"}
    assert entries == TOP_LEVEL, f"unexpected: {sorted(entries - TOP_LEVEL)}; missing: {sorted(TOP_LEVEL - entries)}"
    packages = {name for name in TOP_LEVEL if "." not in name}
    assert all((ROOT / "ntpcheck" / name / "__init__.py").is_file() for name in packages)


def test_the_layers_are_recognised():
    layers = {layer(m) for m in MODULES}
    assert layers == {0, 1, 2, 3, 4}
    assert "ntpcheck.properties.huang2024.bounds" in MODULES and "ntpcheck.strategies.datasets" in MODULES


# Imports go downward, the framework is paper-independent and the core imports no Hypothesis:
# import-linter's contract in pyproject.toml checks these (tests/test_import_contract.py).


def test_no_import_cycles():
    cycles = [set(c) for c in nx.simple_cycles(_graph())]
    # A package's __init__ re-exporting its own submodules is not a dependency cycle between jobs.
    cycles = [c for c in cycles if not any(_is_package(m) and all(x == m or x.startswith(m + ".") for x in c) for m in c)]
    unexpected = [sorted(c) for c in cycles if c not in ALLOWED_CYCLES]
    assert not unexpected, f"import cycles: {unexpected}"


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_no_module_over_400_lines(mod):
    n = len(MODULES[mod].read_text().splitlines())
    assert n <= MAX_LINES, f"{mod} has {n} lines (split it by job)"


def test_only_ntpcheck_is_installed_as_a_top_level_name(tmp_path):
    """From an empty directory: the namespaced packages import, the generic names do not."""
    code = (
        "import importlib.util, ntpcheck.strategies, ntpcheck.properties\n"
        "assert importlib.util.find_spec('strategies') is None, 'strategies importable'\n"
        "assert importlib.util.find_spec('properties') is None, 'properties importable'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env={"PATH": ""})
    assert r.returncode == 0, r.stderr
