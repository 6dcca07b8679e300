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
A part that no instance killed never mattered: the claim is not ``holds``
on it (:func:`~.results.aggregate`), unless the record declares it
``dominated`` with a proof that no admissible input can make it matter.

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
           "mutable", "mutating", "reached"]

#: Relative change of a constant or threshold in its mutant.
STEP = 0.01
#: Change of an exponent in its mutant.
EXPONENT_STEP = 0.01

#: How a value is made stronger where it enters a formula (:func:`mutable`'s ``how``).
UP, DOWN, DROP, STEEPER_UP, STEEPER_DOWN = "up", "down", "drop", "+exponent", "-exponent"
_HOW = {UP: lambda v: v * (1 + STEP), DOWN: lambda v: v * (1 - STEP), DROP: lambda v: v * 0.0,
        STEEPER_UP: lambda v: v + EXPONENT_STEP, STEEPER_DOWN: lambda v: v - EXPONENT_STEP}

#: The kinds of parts, and their mutants in words.
KINDS = {"constant": "1% tighter", "term": "dropped", "exponent": "0.01 steeper", "threshold": "1% earlier",
         "limit": "1% off"}

_ACTIVE: ContextVar[str | None] = ContextVar("ntpcheck_mutant", default=None)
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

    Examples
    --------
    >>> Part("C_1", "constant", "the rate constant").mutant
    'C_1 1% tighter'
    """

    name: str
    kind: str
    what: str = ""
    dominated: str | None = None

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
    a shift, a rotation).  Works on numbers and arrays.

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
    return _HOW[how](np.asarray(value, dtype=float) if not np.isscalar(value) else float(value))


@contextmanager
def mutating(name: str | None) -> Iterator[None]:
    """Evaluate the block with part ``name`` mutated (None: no mutation)."""
    token = _ACTIVE.set(name)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


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
