"""Claims of papers as checkable properties (installed as ``ntpcheck.properties``).

* :mod:`.framework`: the paper-independent claim framework (records,
  evidence, checks, runner, necessity matrix);
* one subpackage per paper, each exposing ``PAPER`` (a
  :class:`~ntpcheck.properties.framework.Paper`): :mod:`.huang2024`, :mod:`.thrampoulidis2024`.

Papers are plugins: each registers in the entry-point group ``ntpcheck.papers`` (name ->
``module:attribute`` of its :class:`~ntpcheck.properties.framework.Paper`), the built-in two in
ntpcheck's own ``pyproject.toml`` and any other in its package's, so that an installed paper
package is found by ``ntpcheck papers``, ``verify --paper``, ``matrix``, reports, campaigns and
the pytest plugin without a change to ntpcheck.  :data:`PAPERS` maps the registered names to
their entry points (read once, when first used); :func:`paper` loads one.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

from ntpcheck.common.errors import NTPCheckError

if TYPE_CHECKING:  # the framework (numpy, Hypothesis) is loaded with the first paper, not with this registry
    from .framework import Paper

__all__ = ["PAPERS", "DEFAULT_PAPER", "GROUP", "paper", "registered"]

#: The entry-point group papers register in.
GROUP = "ntpcheck.papers"

#: The built-in papers, which need no installed metadata (a source checkout on ``sys.path``).
BUILTIN: dict[str, str] = {
    "huang2024": "ntpcheck.properties.huang2024:PAPER",
    "thrampoulidis2024": "ntpcheck.properties.thrampoulidis2024:PAPER",
}

DEFAULT_PAPER = "huang2024"


@functools.cache
def registered() -> dict[str, str]:
    """Paper name -> ``module:attribute``: the built-in papers, then every installed distribution's
    entry point in :data:`GROUP`, in name order after the built-ins.  A name registered twice
    with different targets is refused (which one runs would depend on install order)."""
    from importlib.metadata import entry_points

    found = dict(BUILTIN)
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if found.get(ep.name, ep.value) != ep.value:
            raise NTPCheckError(f"paper {ep.name!r} is registered twice ({found[ep.name]} and {ep.value}, "
                                f"entry-point group {GROUP}); uninstall one of the packages")
        found[ep.name] = ep.value
    return found


def __getattr__(name: str):
    if name == "PAPERS":  # read the entry points when first used, not on import (`ntpcheck --help`)
        return registered()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def paper(name: str = DEFAULT_PAPER) -> Paper:
    """The registered paper called ``name`` (its entry point loaded).

    Raises
    ------
    NTPCheckError
        If no paper of that name is registered, or its entry point does not load a ``Paper``.
    """
    papers = registered()
    if name not in papers:
        raise NTPCheckError(f"unknown paper {name!r}; known papers: {', '.join(sorted(papers))}")
    return _load(name, papers[name])


@functools.cache
def _load(name: str, target: str) -> Paper:
    from .framework import Paper

    module, _, attribute = target.partition(":")
    try:
        obj = importlib.import_module(module)
        for part in attribute.split(".") if attribute else ():
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise NTPCheckError(f"paper {name!r} ({target}, entry-point group {GROUP}) does not load: "
                            f"{type(e).__name__}: {e}") from None
    if not isinstance(obj, Paper):
        raise NTPCheckError(f"paper {name!r} ({target}) is a {type(obj).__name__}, not an ntpcheck Paper")
    return obj
