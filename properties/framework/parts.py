"""Parts of a statement and their mutants: what a tested instance exercised.

A claim's statement is made of parts: each constant, term, exponent and
threshold.  The 1%-past-tightest sabotage (:mod:`.sabotage`) shows that a
checker *can* fail on one reference instance; it does not show that the
drawn instances exercised each part.  So each part has a **mutant**: the
statement made slightly stronger in that part alone,

==============  =====================================================
kind            mutant
==============  =====================================================
``constant``    the constant 1% tighter (:data:`STEP` = 0.01, relative)
``term``        the term dropped
``exponent``    the exponent 0.01 steeper (:data:`EXPONENT_STEP`)
``threshold``   the threshold 1% earlier (the claim applies sooner)
``limit``       the limit 1% off (a value shifted by 1% of its scale,
                a matrix scaled by 1.01, a direction turned by 0.01 rad:
                the formula's code says how, with a function)
==============  =====================================================

The formula's code marks where a part enters with :func:`mutable`; inside
``with mutating(name):`` that one value is replaced by its mutant.  On every
tested instance the runner re-runs the checker once per part on the *same*
evidence (no extra training: the trajectory is cached), and a mutant is
**killed** by an instance on which the mutated statement is ``falsified``.
A part that no instance killed is reported ``loose``, with the largest
strength it held at on every tested instance (:mod:`.tightness`), or
``dominated`` where the record proves that no admissible input can make it
matter; a killed part is ``tight``.

Examples
--------
>>> with mutating("C_1"):
...     mutable("C_1", 2.0, UP), mutable("L_max", 3.0, DOWN)
(2.02, 3.0)
>>> mutable("C_1", 2.0, UP)          # outside a mutation: the value itself
2.0
>>> with mutating("2 log(2|V|)"):
...     mutable("2 log(2|V|)", 4.1, DROP)
0.0
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

import numpy as np

__all__ = ["Part", "KINDS", "UP", "DOWN", "DROP", "STEEPER_UP", "STEEPER_DOWN", "STEP", "EXPONENT_STEP",
           "mutable", "mutating", "reached", "scalable"]

#: Relative change of a constant or threshold in its mutant.
STEP = 0.01
#: Change of an exponent in its mutant.
EXPONENT_STEP = 0.01

#: How a value is made stronger where it enters a formula (:func:`mutable`'s ``how``).
UP, DOWN, DROP, STEEPER_UP, STEEPER_DOWN = "up", "down", "drop", "+exponent", "-exponent"
_HOW = {UP: lambda v: v * (1 + STEP), DOWN: lambda v: v * (1 - STEP), DROP: lambda v: v * 0.0,
        STEEPER_UP: lambda v: v + EXPONENT_STEP, STEEPER_DOWN: lambda v: v - EXPONENT_STEP}
#: The mutant at a given strength ``s`` (:func:`mutating`'s ``strength``, for the tightness of a
#: part, :mod:`.tightness`): a constant or threshold ``s`` times stronger (``s >= 1``), an exponent
#: ``s`` steeper (``s >= 0``), a fraction ``s`` of a term dropped (``0 <= s <= 1``).
_SCALED = {UP: lambda v, s: v * s, DOWN: lambda v, s: v / s, DROP: lambda v, s: v * (1.0 - s),
           STEEPER_UP: lambda v, s: v + s, STEEPER_DOWN: lambda v, s: v - s}

#: The kinds of parts, and their mutants in words.
KINDS = {"constant": "1% tighter", "term": "dropped", "exponent": "0.01 steeper", "threshold": "1% earlier",
         "limit": "1% off"}

_ACTIVE: ContextVar[str | None] = ContextVar("ntpcheck_mutant", default=None)
_STRENGTH: ContextVar[float | None] = ContextVar("ntpcheck_mutant_strength", default=None)
_REACHED: ContextVar[set | None] = ContextVar("ntpcheck_mutant_reached", default=None)


@dataclass(frozen=True)
class Part:
    """One part of a claim's statement.

    Attributes
    ----------
    name : str
        As written where the formula's code calls :func:`mutable` (``"C_1"``, ``"2 log(2|V|)"``).
    kind : str
        One of :data:`KINDS`.
    what : str
        The part in words, for reports (``"C_1 = eta/(4 L_max ||W*_kq||^2) in the exponent"``).
    dominated : str or None
        Set when the part provably cannot matter under the claim's hypotheses: the
        proof in one paragraph (a test checks the domination).  A dominated part is
        not required to be killed; it is reported as such.
    proof_factor : float or None
        For a dominated part, the strength the proof guarantees the part can take on every
        admissible instance (a constant's factor, an exponent's shift; :mod:`.tightness`).

    Examples
    --------
    >>> Part("C_1", "constant", "the rate constant").mutant
    'C_1 1% tighter'
    """

    name: str
    kind: str
    what: str = ""
    dominated: str | None = None
    proof_factor: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Part.kind must be one of {', '.join(KINDS)}, got {self.kind!r}")

    @property
    def mutant(self) -> str:
        """The mutant in words."""
        return f"{self.name} {KINDS[self.kind]}"


def mutable(name: str, value, how: str):
    """``value`` where part ``name`` enters a formula; its mutant inside ``mutating(name)``.

    ``how`` says which change makes the statement stronger: :data:`UP` or
    :data:`DOWN` (1%), :data:`DROP` (the term is 0), :data:`STEEPER_UP` or
    :data:`STEEPER_DOWN` (an exponent, by 0.01), or a function of the value (a limit's mutant:
    a shift, a rotation).  Works on numbers and arrays.  Inside ``mutating(name, strength=s)``
    the change is ``s`` instead (:data:`_SCALED`: ``x s``, ``/ s``, ``(1 - s) x``, ``+- s``);
    a function's mutant has no strength.

    Examples
    --------
    >>> with mutating("lim"):
    ...     mutable("lim", 0.5, lambda v: v + 0.01)
    0.51
    """
    if callable(how):
        if _ACTIVE.get() != name:
            return value
        seen = _REACHED.get()
        if seen is not None:
            seen.add(name)
        return how(value)
    if how not in _HOW:
        raise ValueError(f"unknown mutation {how!r}")
    if _ACTIVE.get() != name:
        return value
    seen = _REACHED.get()
    if seen is not None:
        seen.add(name)
    v = np.asarray(value, dtype=float) if not np.isscalar(value) else float(value)
    strength = _STRENGTH.get()
    return _HOW[how](v) if strength is None else _SCALED[how](v, strength)


def scalable(part: "Part") -> bool:
    """Whether a part's mutant has a strength (every kind but ``limit``, whose mutant is a function)."""
    return part.kind != "limit"


@contextmanager
def mutating(name: str | None, strength: float | None = None) -> Iterator[None]:
    """Evaluate the block with part ``name`` mutated (None: no mutation), by its 1% mutant or,
    with ``strength``, by that much (:func:`mutable`).

    Examples
    --------
    >>> with mutating("C", strength=3.0):
    ...     mutable("C", 2.0, UP), mutable("C", 2.0, DOWN), mutable("C", 2.0, STEEPER_UP)
    (6.0, 0.6666666666666666, 5.0)
    """
    token, power = _ACTIVE.set(name), _STRENGTH.set(strength)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
        _STRENGTH.reset(power)


@contextmanager
def reached() -> Iterator[set]:
    """Collect the names of the parts whose :func:`mutable` was reached while mutated
    (a test that every declared part is wired to its formula).

    Examples
    --------
    >>> with reached() as seen, mutating("k"):
    ...     _ = mutable("k", 1.0, STEEPER_UP)
    >>> seen
    {'k'}
    """
    seen: set = set()
    token = _REACHED.set(seen)
    try:
        yield seen
    finally:
        _REACHED.reset(token)
