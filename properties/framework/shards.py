"""A claim's search split into shards that run anywhere, and their deterministic merge.

A profile with a large budget (``thorough``) splits each claim's search into
:data:`SHARDS` ``[profile]`` shards: shard ``s`` draws its share of the
profile's instances (``ceil(draws/n)``, up to ``ceil(budget/n)``, until
``ceil(min_tested/n)`` held) with its own seed, :func:`shard_seed` of
``(seed, strategy, s)``; shard 0 also replays the pinned examples.  The
number of shards depends on the profile only, never on how many workers run
them, so a seed gives the same answer on one worker or on a cluster.  With
one shard (``quick``, ``default``) nothing is split: the search is
:func:`~.runner.search_claim`'s own, with the run's seed.

The seed names the claim's data strategy (:func:`strategy_key`), not the
claim: claims that draw from one strategy with one budget start shard ``s``
on the same instances, as every claim does with the run's seed when nothing
is split, and share their evidence (trainings, solutions) in a process that
runs them one after the other (issue 43: seeded by the claim's name, no two
claims of the thorough profile shared an instance).  Hypothesis adapts each
search to what its claim's check returns (targets, outcomes), so the draws
of two claims part after the first few dozen.

**The merge rule** (:func:`merge`): if no shard falsified the claim, its
shards' counted outcomes, concatenated in shard order, are aggregated by
:func:`~.results.aggregate` with the profile's ``min_tested`` (so every
aggregation rule applies to merged shards as to one search).  If some shard
falsified it, the claim is falsified; the counterexample reported is the
smallest by ``(tokens, samples, text)`` (``|V|``, ``N`` of the instance,
then the counterexample's text), and the counts are those of every shard's
counted outcomes added up (a falsified shard counts up to its first
falsification, as one search does).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from typing import Sequence

from .claim import Claim
from .results import ClaimResult, aggregate, count, exercised, min_tested_for, per_instance_rows
from .runner import Search, evaluate
from .tightness import merge_tightness
from .verdicts import Outcome, Verdict

__all__ = ["SHARDS", "Shard", "shards_for", "shard_seed", "strategy_key", "search_shard", "merge"]

#: Shards per claim search, by profile (one: not split).
SHARDS = {"quick": 1, "default": 1, "thorough": 4}


def shards_for(profile: str) -> int:
    """How many shards a claim's search has under ``profile``.

    Examples
    --------
    >>> shards_for("default"), shards_for("thorough")
    (1, 4)
    """
    return SHARDS.get(profile, 1)


def shard_seed(seed: int, strategy: str, shard: int) -> int:
    """The seed of shard ``shard`` of the searches that draw from ``strategy`` (:func:`strategy_key`):
    a 32-bit hash of the three, the same everywhere.

    Examples
    --------
    >>> shard_seed(0, "integers()", 0) == shard_seed(0, "integers()", 0) != shard_seed(0, "integers()", 1)
    True
    """
    return int.from_bytes(hashlib.sha256(f"{seed}\0{strategy}\0{shard}".encode()).digest()[:4], "big")


#: An object named by its memory address in a ``repr``: different in every process.
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")


def strategy_key(claim: Claim, profile: str) -> str:
    """What ``claim``'s search draws from under ``profile``: its data strategy's ``repr`` (Hypothesis
    names the strategy and its arguments, the source of a lambda included), the same in every
    process with the same Hypothesis.  A composite strategy's ``repr`` leaves out what its function
    takes from the enclosing scope, so two strategies may share a key: they then share the seed and
    a group, which changes neither's draws being the same everywhere, only what is run together.
    Where the strategy cannot be built, or its ``repr`` names an object by its memory address (which
    differs between processes), the claim's own name: its search then shares no instance with
    another claim's, and a seed still gives the same answer everywhere.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> from hypothesis import strategies as st
    >>> strategy_key(C(name="a", data=lambda p: st.integers(min_value=0)), "default")
    'integers(min_value=0)'
    >>> strategy_key(C(name="Lemma 1", data=lambda p: st.sampled_from([object()])), "default")
    'claim:Lemma 1'
    """
    try:
        return _key_of(claim.name, claim.data(profile))
    except Exception:  # noqa: BLE001 - the search reports a strategy that cannot be built
        return f"claim:{claim.name}"


def _key_of(name: str, strategy) -> str:
    """:func:`strategy_key` of the claim called ``name`` whose strategy, built, is ``strategy``."""
    key = repr(strategy)
    return f"claim:{name}" if _ADDRESS.search(key) else key


@dataclasses.dataclass(frozen=True)
class Shard:
    """What one shard found: its counted ``outcomes`` (``series`` kept only where a merge may report
    it, :func:`_light`) and, if it falsified the claim, the ``falsified`` result (without its claim)."""

    outcomes: tuple[Outcome, ...]
    falsified: ClaimResult | None = None
    seconds: float = 0.0
    #: Each part's tightness on this shard's instances (:mod:`.tightness`), when nothing was falsified.
    parts: dict = dataclasses.field(default_factory=dict)


def search_shard(claim: Claim, profile: str, seed: int, shard: int, shards: int, *, pinned: bool = True,
                 database=None, database_key: bytes | None = None) -> Shard:
    """Run shard ``shard`` of ``shards`` of ``claim``'s search (:class:`~.runner.Search` with the
    shard's share of the budget and :func:`shard_seed`); pinned examples in shard 0 only.
    ``database`` (a Hypothesis example database, under ``database_key``): replay what it holds
    first and save what fails (a campaign's batches; a run's shards use none)."""
    import time

    t0 = time.perf_counter()
    search = Search(claim, profile)
    search.draws, search.budget, search.reach, search.need = (math.ceil(x / shards) for x in (search.draws, search.budget, search.reach, search.need))

    def done(falsified: ClaimResult | None = None) -> Shard:
        kept = search.first_failure or search.outcomes
        r = None if falsified is None else dataclasses.replace(falsified, claim=None)
        parts = search.tightness() if falsified is None else {}
        return Shard(_light(kept), r, time.perf_counter() - t0, parts)

    for make_example in claim.examples if pinned and shard == 0 else ():
        inst = make_example()
        o = evaluate(claim, inst)
        search.outcomes.append(o)
        if o.verdict is Verdict.FALSIFIED:
            return done(search.falsified(inst, o, " (pinned regression example)"))

    def falsifies(inst) -> bool:
        o = search.step(inst)
        return o is not None and o.verdict is Verdict.FALSIFIED

    data = claim.data(profile)  # built once: the search draws from it, and its repr seeds the shard
    cex = search.find(data, falsifies, shard_seed(seed, _key_of(claim.name, data), shard), database=database,
                      database_key=database_key)
    if cex is None:
        return done()
    return done(search.falsified(cex, evaluate(claim, cex)))


def _light(outcomes: Sequence[Outcome]) -> tuple[Outcome, ...]:
    """``outcomes`` without their ``series``, except the first and the least-slack outcome of each
    verdict: the only ones :func:`~.results.aggregate` can report over any union of shards."""
    keep: set[int] = set()
    for v in Verdict:
        idx = [i for i, o in enumerate(outcomes) if o.verdict is v]
        finite = [i for i in idx if math.isfinite(outcomes[i].slack)]
        keep.update(idx[:1] + ([min(finite, key=lambda i: outcomes[i].slack)] if finite else []))
    return tuple(o if i in keep else dataclasses.replace(o, series=None) for i, o in enumerate(outcomes))


def merge(claim: Claim, profile: str, shards: Sequence[Shard]) -> ClaimResult:
    """One result from the shards of ``claim``'s search, in shard order (the rule: module docstring)."""
    need = min_tested_for(claim, profile)
    outcomes = [o for s in shards for o in s.outcomes]
    seconds = sum(s.seconds for s in shards)
    falsified = [s.falsified for s in shards if s.falsified is not None]
    if not falsified:
        parts = merge_tightness(claim, [s.parts for s in shards])
        return dataclasses.replace(aggregate(claim, outcomes, need, parts), seconds=seconds)
    best = min(falsified, key=_smallness)
    shrunk = tuple(row for row in best.per_instance if row[3])
    return dataclasses.replace(best, claim=claim, counts=count(outcomes), min_tested=need, seconds=seconds,
                               per_instance=per_instance_rows(outcomes) + shrunk, exercised=exercised(claim, outcomes))


def _smallness(r: ClaimResult) -> tuple:
    """The fixed order of counterexamples: fewer tokens, then fewer samples, then the text."""
    inst = r.instance or {}
    return (inst.get("V", math.inf), inst.get("N", math.inf), r.counterexample or "")
