"""Claim selection (``--claims``): the names a user may write for a claim, and the lookup.

A claim answers to its id (``"Cor. 1"``, which selects each of its readings),
its full name (``"Cor. 1 [k=5]"``), its test id (:attr:`Claim.key`,
``"cor1-k5"``) and the slug of its id (``"cor1"``).  Both sides are
normalised by :func:`normalise` before they are compared, so that case,
spaces, abbreviation dots, look-alike characters (an en dash for ``-``,
``‖`` for ``||``, full-width letters) and the section sign (``"§7"``,
``"Sec. 7"``, ``"sec7"``) make no difference: every claim can be named in
ASCII.  A name that matches nothing is an error naming the nearest names
(:mod:`difflib`) with their test ids, on one line.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Sequence

from ntpcheck.common.errors import NTPCheckError

from .claim import Claim, slugify

__all__ = ["select_claims", "normalise", "aliases", "split_names"]

#: Characters that NFKC leaves alone but a reader takes for ASCII ones.
_LOOKALIKES = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
    "\u2016": "||", "\u2223": "|", "\u2225": "||", "\u00a7": " sec ", "\u2217": "*", "\u2264": "<=", "\u2265": ">=",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ",
})
#: Long words of the paper's claim ids, and their short forms.
_WORDS = {"section": "sec", "sect": "sec", "example": "ex", "equation": "eq", "theorem": "thm",
          "proposition": "prop", "corollary": "cor", "footnote": "fn", "appendix": "app"}
_WORD = re.compile(r"[a-z]+")


def normalise(text: str) -> str:
    """The form in which claim names are compared: NFKC, case folded, look-alike
    characters made ASCII, long words shortened, spaces and dots removed.

    Examples
    --------
    >>> normalise("Prop. 2 [Assumptions 1\u20132 only]") == normalise("prop 2 [assumptions 1-2 ONLY]")
    True
    >>> normalise("\u00a77"), normalise("Sec. 7"), normalise("Section 7"), normalise("Theorem 1 [norm, 2\u2016W*\u2016]")
    ('sec7', 'sec7', 'sec7', 'thm1[norm,2||w*||]')
    """
    text = unicodedata.normalize("NFKC", text).translate(_LOOKALIKES).casefold()
    text = _WORD.sub(lambda m: _WORDS.get(m.group(), m.group()), text)
    return re.sub(r"[\s.]+", "", text)


def aliases(claim: Claim) -> frozenset[str]:
    """Every normalised name that selects ``claim``: id, full name, test id, slug of the id.

    Examples
    --------
    >>> from ntpcheck.properties import paper
    >>> sorted(aliases(paper("huang2024").claim("Cor. 1 [k=5]")))
    ['cor1', 'cor1-k5', 'cor1[k=5]']
    """
    return frozenset(map(normalise, (claim.id, claim.name, claim.key, slugify(claim.id), slugify(claim.name))))


def split_names(spec: str) -> list[str]:
    """``spec`` split at the commas outside brackets (a reading may hold a comma), each stripped.

    Examples
    --------
    >>> split_names("Ex. 1, Lemma 5 [trained W_ov, general data],,sec7")
    ['Ex. 1', 'Lemma 5 [trained W_ov, general data]', '', 'sec7']
    """
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth <= 0:
            parts.append(spec[start:i])
            start, depth = i + 1, 0
    return [p.strip() for p in [*parts, spec[start:]]]


def _nearest(registry: Sequence[Claim], wanted: str, n: int = 5) -> str:
    """The ``n`` claim names closest to ``wanted``, each with its test id, on one line."""
    by_alias: dict[str, Claim] = {}
    for c in registry:
        for a in aliases(c):
            by_alias.setdefault(a, c)
    close = difflib.get_close_matches(normalise(wanted), list(by_alias), n=3 * n, cutoff=0.5)
    named = list(dict.fromkeys(by_alias[a] for a in close))[:n]
    if not named:
        return "known ids: " + ", ".join(f"{i} ({slugify(i)})" for i in dict.fromkeys(c.id for c in registry))
    return "nearest: " + "; ".join(f"{c.name} ({c.key})" for c in named)


def select_claims(registry: Sequence[Claim], spec: str | Sequence[str] | None, option: str = "--claims") -> list[Claim]:
    """The claims named in ``spec`` (comma-separated, or a sequence of names), in registry
    order of first mention; every claim if ``spec`` is None.

    Raises :class:`NTPCheckError` (one line, naming ``option``) if ``spec`` is blank,
    names no claim, or holds a name that matches no claim.

    Examples
    --------
    >>> from ntpcheck.properties import paper
    >>> claims = paper("huang2024").claims
    >>> [c.key for c in select_claims(claims, "sec7, cor1,prop2-a12, Ex 1")]
    ['sec7', 'cor1-k5', 'prop2-a12', 'ex1']
    >>> [c.name for c in select_claims(claims, "Prop. 2 [Assumptions 1\u20132 only]")]
    ['Prop. 2 [Assumptions 1-2 only]']
    >>> select_claims(claims, "cor 2")
    Traceback (most recent call last):
    ...
    ntpcheck.common.errors.NTPCheckError: --claims: unknown claim 'cor 2'; nearest: Cor. 1 [k=5] (cor1-k5) (`ntpcheck claims` lists every name)
    """
    if spec is None:
        return list(registry)
    wanted = split_names(spec) if isinstance(spec, str) else [str(s).strip() for s in spec]
    wanted = [w for w in wanted if w]
    if not wanted:
        raise NTPCheckError(f"{option} {spec!r} names no claim (give comma-separated ids, names or test ids, e.g. 'Ex. 1,cor1,sec7')")
    table = [(c, aliases(c)) for c in registry]
    out: list[Claim] = []
    for w in wanted:
        key = normalise(w)
        hit = [c for c, names in table if key in names]
        if not hit:
            raise NTPCheckError(f"{option}: unknown claim {_shown(w)}; {_nearest(registry, w)} (`ntpcheck claims` lists every name)")
        out.extend(c for c in hit if c not in out)
    return out


def _shown(name: str, most: int = 60) -> str:
    """``repr(name)``, cut to ``most`` characters with the full length said (a 100,000-character
    ``# claim:`` header made a 100,000-character error line, issue 42).

    Examples
    --------
    >>> _shown("cor 2")
    "'cor 2'"
    >>> _shown("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (1000 characters)"
    """
    return repr(name) if len(name) <= most else f"{name[:most]!r}... ({len(name)} characters)"
