"""Claims of papers as checkable properties (installed as ``ntpcheck.properties``).

* :mod:`.framework`: the paper-independent claim framework (records,
  evidence, checks, runner, necessity matrix);
* one subpackage per paper, each exposing ``PAPER`` (a
  :class:`~ntpcheck.properties.framework.Paper`): :mod:`.huang2024`, :mod:`.thrampoulidis2024`.

:data:`PAPERS` maps paper names to their packages; :func:`paper` loads one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ntpcheck.errors import NTPCheckError

if TYPE_CHECKING:  # the framework (numpy, Hypothesis) is loaded with the first paper, not with this registry
    from .framework import Paper

__all__ = ["PAPERS", "DEFAULT_PAPER", "paper"]

#: Paper name -> the module that defines its ``PAPER``.
PAPERS: dict[str, str] = {
    "huang2024": "ntpcheck.properties.huang2024",
    "thrampoulidis2024": "ntpcheck.properties.thrampoulidis2024",
}

DEFAULT_PAPER = "huang2024"


def paper(name: str = DEFAULT_PAPER) -> Paper:
    """The registered paper called ``name``.

    Raises
    ------
    NTPCheckError
        If no paper of that name is registered.
    """
    if name not in PAPERS:
        raise NTPCheckError(f"unknown paper {name!r}; known papers: {', '.join(sorted(PAPERS))}")
    return importlib.import_module(PAPERS[name]).PAPER
