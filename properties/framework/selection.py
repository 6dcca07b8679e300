"""Claim selection by id or name (``--claims``)."""

from __future__ import annotations

import re

from typing import Sequence

from ntpcheck.errors import NTPCheckError

from .claim import Claim

__all__ = ["select_claims", "split_names"]


def split_names(spec: str) -> list[str]:
    """``spec`` split at the commas outside square brackets (a reading's name may hold one).

    Examples
    --------
    >>> split_names("Lemma 1,Thm. 1 [alignment bound, general data]")
    ['Lemma 1', 'Thm. 1 [alignment bound, general data]']
    """
    return re.findall(r"(?:\[[^\]]*\]?|[^,\[])+", spec)


def select_claims(registry: Sequence[Claim], spec: str | None) -> list[Claim]:
    """Claims whose id or full name is in the comma-separated ``spec`` (all if None)."""
    if not spec:
        return list(registry)
    wanted = [w.strip() for w in split_names(spec) if w.strip()]
    if not wanted:
        raise NTPCheckError(f"--claims {spec!r} names no claim (give comma-separated ids or names, e.g. 'lemma1,Ex. 1')")
    out = []
    for w in wanted:
        hit = [c for c in registry if w in (c.id, c.name)]
        if not hit:
            ids = ", ".join(dict.fromkeys(c.id for c in registry))
            raise NTPCheckError(f"unknown claim {w!r}; known claims: {ids}")
        out.extend(c for c in hit if c not in out)
    return out
