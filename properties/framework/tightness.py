"""How tight each part of a claim's statement was on what was tested.

A claim that held on enough distinct instances is ``holds``; what it says
beyond that is how much room each part of the statement (:mod:`.parts`) had:

``tight``
    Some tested instance killed the part's 1%-stronger mutant: the part
    cannot be strengthened by 1% on what was tested.
``loose``
    No instance killed it.  ``factor`` is the largest strength ``s`` at which
    the part's mutant (:func:`~.parts.mutating` with ``strength=s``: a constant
    or threshold ``s`` times stronger, an exponent ``s`` steeper, a fraction
    ``s`` of a term dropped) still holds on **every** tested instance, found by
    bisection on the stored evidence (the trajectories are cached: no new
    training), to :data:`RESOLUTION`.  ``closest`` is the instance that limits
    it, written so that it replays (:func:`~.replay.instance_text`).
``dominated``
    The record proves that the part cannot matter under the claim's
    hypotheses (:attr:`~.parts.Part.dominated`), with the factor the proof
    guarantees (:attr:`~.parts.Part.proof_factor`); the factor measured the
    same way as for a loose part is reported beside it, and a test checks
    that it is at least the proof's.

The bisection assumes what every mutant is built to be: a statement that only
gets stronger with ``s``.  Strengths past :data:`CAP` are not tried; a part
that held there is loose by more than the cap (``factor`` infinite).

Examples
--------
>>> Tightness("loose", "constant", 5.74).text("C_1")
'C_1 x5.7'
>>> Tightness("loose", "exponent", 0.52).text("rate exponent")
'rate exponent +0.52'
>>> Tightness("loose", "term", 1.0).text("2 log(2|V|)")
'2 log(2|V|) dropped'
>>> Tightness("loose", "constant", math.inf).text("c_0")
'c_0 x>1e+06'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .claim import Claim
from .parts import STEP, EXPONENT_STEP, Part, mutating, scalable
from .verdicts import Outcome, Verdict

__all__ = ["Tightness", "TIGHT", "LOOSE", "DOMINATED", "CAP", "RESOLUTION", "tightness", "merge_tightness"]

TIGHT, LOOSE, DOMINATED = "tight", "loose", "dominated"

#: The largest strength tried, per kind: a constant or threshold 10^6 times stronger, an
#: exponent 10 steeper, a whole term dropped.
CAP = {"constant": 1e6, "threshold": 1e6, "exponent": 10.0, "term": 1.0}
#: The bisection stops when the strength is known to within this: 1% of a factor, 0.005 of an exponent.
RESOLUTION = {"constant": 1.01, "threshold": 1.01, "exponent": 0.005}
#: The strength of the 1% mutant (held where a part was not killed): the bisection's start.
_START = {"constant": 1 + STEP, "threshold": 1 + STEP, "exponent": EXPONENT_STEP}

#: Verdicts on which a mutant is checked (as in :func:`~.runner.evaluate`).
_CHECKED = frozenset({Verdict.HOLDS, Verdict.VACUOUS, Verdict.INCONCLUSIVE, Verdict.OUTSIDE})


@dataclass(frozen=True)
class Tightness:
    """How tight one part was: ``status`` (``tight``, ``loose``, ``dominated``), the ``kind``
    of the part, the ``factor`` (strength held on every tested instance; None where not
    measured), the ``closest`` instance's replayable text, the distinct instances that
    ``killed`` the 1% mutant, and a dominated part's ``proof_factor``."""

    status: str
    kind: str
    factor: float | None = None
    closest: str | None = None
    killed: int = 0
    proof_factor: float | None = None

    def text(self, name: str) -> str:
        """The part and its room in a few characters (module examples)."""
        if self.status == TIGHT:
            return f"{name} tight"
        f = self.factor
        if f is None:
            return f"{name} ({KIND_WORDS.get(self.kind, 'never killed')})"
        if self.kind == "term":
            return f"{name} dropped" if f >= 1.0 else f"{name} {f:.0%} droppable"
        if self.kind == "exponent":
            return f"{name} +{f:.3g}" if math.isfinite(f) else f"{name} +>{CAP['exponent']:g}"
        return f"{name} x{f:.3g}" if math.isfinite(f) else f"{name} x>{CAP[self.kind]:.0e}"

    def to_json(self) -> dict:
        """The JSON of a part (``factor`` and ``proof_factor``: ``"inf"`` where unbounded)."""
        return {"status": self.status, "factor": _number(self.factor), "closest": self.closest, "killed": self.killed,
                **({"proof_factor": _number(self.proof_factor)} if self.proof_factor is not None else {})}


def _number(x: float | None):
    """``x`` for JSON: None, a finite number, or ``"inf"``."""
    return None if x is None else (x if math.isfinite(x) else "inf")


#: What a loose part without a factor says (a limit's mutant has no strength).
KIND_WORDS = {"limit": "its limit 1% off held on every instance"}


def tightness(claim: Claim, outcomes: Sequence[Outcome]) -> dict[str, Tightness]:
    """Each part of ``claim`` on the tested ``outcomes`` (those the runner gave a ``source``):
    tight, loose with its factor, or dominated (module docstring); the closest instance is
    written by :func:`~.replay.instance_text`."""
    from .evidence import evidence
    from .keys import prepare
    from .replay import instance_text

    if not claim.parts:
        return {}
    seen: dict = {}
    for o in outcomes:
        if o.verdict in _CHECKED and o.source is not None and o.key not in seen:
            seen[o.key] = o
    pool = list(seen.values())
    out: dict[str, Tightness] = {}
    for part in claim.parts:
        killed = len({o.key for o in outcomes if part.name in o.kills})
        if killed and part.dominated is None:
            out[part.name] = Tightness(TIGHT, part.kind, None, None, killed)
            continue
        ordered = sorted(pool, key=lambda o: o.mutant_slack.get(part.name, math.inf))
        factor, limiting = _largest_strength(claim, part, ordered, lambda o: evidence(prepare(claim, o.source)))
        closest = None
        if limiting is not None:
            closest = instance_text(claim, limiting.source, f"closest for {part.name}: {Tightness(LOOSE, part.kind, factor).text(part.name)} "
                                                            f"(a stronger {part.name} fails here)")
        status = DOMINATED if part.dominated is not None else LOOSE
        out[part.name] = Tightness(status, part.kind, factor, closest, killed, part.proof_factor)
    return out


def _largest_strength(claim: Claim, part: Part, pool: Sequence[Outcome], load: Callable[[Outcome], Any]) -> tuple[float | None, Outcome | None]:
    """The largest strength of ``part`` under which no instance of ``pool`` falsifies ``claim``,
    and the instance that limits it (None where nothing does: the cap held everywhere);
    ``load(outcome)`` is an instance's (cached) evidence.

    Instances are tried in the order given (closest first): each is checked at the best
    strength so far, and only one that fails there is bisected.
    """
    if not pool:
        return None, None
    if not scalable(part):
        return None, pool[0]
    if part.kind == "term":  # the 1% mutant is the whole term dropped, and it held
        return 1.0, pool[0]
    best, limiting = CAP[part.kind], None
    for o in pool:
        ev = load(o)
        if _fails(claim, part, ev, best):
            best, limiting = _bisect(claim, part, ev, _START[part.kind], best), o
    return (math.inf if limiting is None else best), limiting


def _bisect(claim: Claim, part: Part, ev, lo: float, hi: float) -> float:
    """The largest strength in ``[lo, hi)`` that holds on ``ev`` (``lo`` holds, ``hi`` fails), to :data:`RESOLUTION`."""
    if _fails(claim, part, ev, lo):  # a dominated part's 1% mutant is never run by the search: no room, as seen
        return 1.0 if part.kind != "exponent" else 0.0
    additive = part.kind == "exponent"
    while (hi - lo > RESOLUTION["exponent"]) if additive else (hi / lo > RESOLUTION["constant"]):
        mid = (lo + hi) / 2 if additive else math.sqrt(lo * hi)
        if _fails(claim, part, ev, mid):
            hi = mid
        else:
            lo = mid
    return lo


def _fails(claim: Claim, part: Part, ev, strength: float) -> bool:
    """Whether ``claim`` with ``part`` at ``strength`` is falsified on ``ev`` (a failure of the
    check itself counts as falsified: the room reported is never more than was seen)."""
    try:
        with np.errstate(all="ignore"), mutating(part.name, strength):
            return claim.check(ev).verdict in (Verdict.FALSIFIED, Verdict.ERROR)
    except Exception:
        return True


def merge_tightness(claim: Claim, shards: Sequence[Mapping[str, Tightness]]) -> dict[str, Tightness]:
    """One tightness per part from several shards' (each over its own instances): tight if any
    shard's is, else the smallest factor and its closest instance; kills add up.

    Examples
    --------
    >>> c = Claim("X", "", "", (), None, None, parts=(Part("a", "constant"),))
    >>> merge_tightness(c, [{"a": Tightness("loose", "constant", 3.0, "s1")}, {"a": Tightness("loose", "constant", 2.0, "s2")}])["a"].closest
    's2'
    """
    out: dict[str, Tightness] = {}
    for part in claim.parts:
        got = [s[part.name] for s in shards if part.name in s]
        if not got:
            continue
        killed = sum(t.killed for t in got)
        tight = [t for t in got if t.status == TIGHT]
        if tight:
            out[part.name] = Tightness(TIGHT, part.kind, None, None, killed)
            continue
        measured = [t for t in got if t.factor is not None]
        pick = min(measured, key=lambda t: t.factor) if measured else got[0]
        out[part.name] = Tightness(pick.status, part.kind, pick.factor, pick.closest, killed, pick.proof_factor)
    return out
