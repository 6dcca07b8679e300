"""``ntpcheck new-paper NAME DIR``: write the skeleton of a paper package to start from.

A paper is a plugin (issue 44): a package that defines an :class:`ntpcheck.api.Paper` and
registers it in the entry-point group ``ntpcheck.papers``.  The skeleton
(:mod:`.new_paper_templates`) is such a package, written only against :mod:`ntpcheck.api`
(and numpy, Hypothesis), that installs, passes its own tests and runs under
``ntpcheck verify --paper NAME`` as written::

    DIR/pyproject.toml              setuptools; [project.entry-points."ntpcheck.papers"] NAME = "NAME_paper.claims:PAPER"
    DIR/README.md
    DIR/NAME_paper/__init__.py
    DIR/NAME_paper/model.py         a tiny model in numpy: p = softmax(W h)
    DIR/NAME_paper/instance.py      an instance (the PaperInstance protocol) and its text format, which replays
    DIR/NAME_paper/strategies.py    one Hypothesis strategy, by construction, keyword-only bounds
    DIR/NAME_paper/claims.py        one claim with one part (its mutant via ntpcheck.api.mutable), and PAPER
    DIR/tests/test_NAME.py          run_claim(claim, "quick") holds, the part is tight

``NAME`` is the paper's name on the command line: a lowercase letter, then lowercase letters,
digits and ``_`` (at most :data:`MAX_NAME` characters, not a Python keyword, not a paper already
registered).  ``DIR`` must be new or empty: nothing there is overwritten.  A bad ``NAME`` or
``DIR`` is one line, exit status 2, before anything is written.

Examples
--------
>>> sorted(files("demo"))[:3]
['README.md', 'demo_paper/__init__.py', 'demo_paper/claims.py']
>>> 'demo = "demo_paper.claims:PAPER"' in files("demo")["pyproject.toml"]
True
>>> check_name("Demo")
Traceback (most recent call last):
...
ntpcheck.common.errors.NTPCheckError: paper name 'Demo': use a lowercase letter, then lowercase letters, digits or _ (e.g. smith2025)
"""

from __future__ import annotations

import keyword
import os
import re

from ntpcheck.common.errors import NTPCheckError

from .new_paper_templates import TEMPLATES

__all__ = ["MAX_NAME", "check_name", "files", "write_skeleton", "run_new_paper"]

#: Longest paper name accepted (it becomes the distribution's and the package's name).
MAX_NAME = 40
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def check_name(name: str) -> str:
    """``name`` if it can name a paper (module docstring), else :class:`NTPCheckError` in one line."""
    shown = repr(name[:60] + ("..." if len(name) > 60 else ""))
    if not _NAME.fullmatch(name) or not name.isascii():
        raise NTPCheckError(f"paper name {shown}: use a lowercase letter, then lowercase letters, digits or _ (e.g. smith2025)")
    if len(name) > MAX_NAME:
        raise NTPCheckError(f"paper name {shown}: at most {MAX_NAME} characters")
    if keyword.iskeyword(name):
        raise NTPCheckError(f"paper name {shown}: is a Python keyword")
    from ntpcheck.properties import registered

    if name in registered():
        raise NTPCheckError(f"paper name {shown}: a paper of that name is already registered ({registered()[name]}); "
                            "choose another")
    return name


def files(name: str) -> dict[str, str]:
    """The skeleton's files, path (relative, ``/``-separated) -> text, for the paper ``name``."""
    package = f"{name}_paper"

    def fill(text: str) -> str:
        return text.replace("__PKG__", package).replace("__NAME__", name)

    return {fill(path): fill(text) for path, text in TEMPLATES.items()}


def _check_dir(path: str) -> None:
    """Refuse a ``DIR`` that exists and is not an empty directory (nothing is overwritten)."""
    if path == "":
        raise NTPCheckError("new-paper DIR: empty path")
    if os.path.lexists(path):
        if not os.path.isdir(path):
            raise NTPCheckError(f"new-paper {path}: exists and is not a directory")
        if os.listdir(path):
            raise NTPCheckError(f"new-paper {path}: is not empty; give a new or empty directory (nothing is overwritten)")


def write_skeleton(name: str, directory: str) -> list[str]:
    """Write the skeleton of paper ``name`` to ``directory`` (new or empty); the paths written."""
    check_name(name)
    _check_dir(directory)
    written = []
    for rel, text in files(name).items():
        path = os.path.join(directory, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="\n") as f:
            f.write(text)
        written.append(path)
    return written


def run_new_paper(args) -> int:
    """Entry point of ``ntpcheck new-paper NAME DIR``."""
    written = write_skeleton(args.name, args.dir)
    print(f"wrote the paper package {args.name} ({len(written)} files) to {args.dir}; next: "
          f"pip install {args.dir} (registers it), pytest {args.dir} (its tests), ntpcheck verify --paper {args.name}")
    return 0
