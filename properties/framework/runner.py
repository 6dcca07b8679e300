"""The claim runner: evaluate, search, select; results as data (:mod:`.results`).

For each claim: draw instances from its ``data`` strategy with Hypothesis
(seeded, no example database, so runs are reproducible), apply its
``setup``, check each, steer the search toward small slack with
:func:`hypothesis.target`, and if some instance falsifies the claim, let
Hypothesis shrink it to a minimal one.  Outcomes are aggregated into one
:class:`ClaimResult` per claim; the application renders these as text,
JSON or Markdown.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from typing import Iterable, Sequence

import numpy as np

from ntpcheck.common import interrupt
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.transformer.instance import Instance

from .claim import Claim
from .evidence import evidence
from .figure import trace_of
from .parts import mutating
from .keys import data_key, describe, instance_key, keys_of, prepare
from .replay import counterexample_text, instance_text, replay_command
from .reproducible import reproducible_draws
from .results import (COUNT_NAMES, PROFILES, ClaimResult, Profile, aggregate, count, distinct_held, exercised, min_tested_for, per_instance_rows,
                      short_groups)
from .verdicts import TESTED, Outcome, Verdict

__all__ = [
    "PROFILES",
    "Profile",
    "COUNT_NAMES",
    "ClaimResult",
    "count",
    "min_tested_for",
    "prepare",
    "instance_key",
    "data_key",
    "evaluate",
    "aggregate",
    "Search",
    "search_settings",
    "run_claim",
    "search_claim",
    "run_claims",
    "RunInterrupted",
    "counterexample_text",
    "instance_text",
    "replay_command",
    "describe",
    "per_instance_rows",
    "versions",
]

#: Per-instance verdicts on which the claim's mutants are evaluated (every one but a failure:
#: a threshold's mutant can bring an instance that was outside its hypotheses inside).
MUTATED = frozenset({Verdict.HOLDS, Verdict.VACUOUS, Verdict.INCONCLUSIVE, Verdict.OUTSIDE})


def evaluate(claim: Claim, inst: Instance, *, mutants: bool = True) -> Outcome:
    """Apply the claim's setup and run its checker on the evidence of ``inst``.

    The outcome gets the instance's ``key`` (:func:`instance_key`).  With
    ``mutants``, the checker is run again once per part of the claim
    (:mod:`.parts`) on the same evidence, and the outcome's ``kills`` names the
    parts whose mutant this instance falsified.
    The outcome's ``trace`` is what the claim's figure needs (:func:`.figure.trace_of`).
    For a claim with :class:`~.claim.Informative` groups, an instance that met
    the hypotheses gets its ``group`` and ``dataset_key``.
    A failure of the setup (for example an infeasible Eq. (2) on data that
    breaks an assumption) or of the check itself becomes an ``error`` outcome.
    A Ctrl-C is never one: it propagates, also when an earlier one was lost
    (:func:`ntpcheck.common.interrupt.check`).
    """
    interrupt.check()
    try:
        ready = prepare(claim, inst)
        ev = evidence(ready)
        with np.errstate(over="ignore", under="ignore"):
            o = claim.check(ev)
            if mutants and claim.live_parts and o.verdict in MUTATED:
                o = _with_mutants(claim, ev, o)
        if claim.informative is not None and o.verdict in TESTED:
            o = dataclasses.replace(o, group=claim.informative.classify(ev))
        trace = trace_of(claim.figure, ev, o) if o.verdict is not Verdict.ERROR else None
        key, data = keys_of(ready)
        return dataclasses.replace(o, instance=describe(ready), key=key, dataset_key=data, trace=trace, source=inst)
    except NTPCheckError as e:
        return Outcome(Verdict.ERROR, detail=f"{type(e).__name__}: {e}")
    except Exception as e:  # a bug or numerical failure in the check: report it, never crash the run
        import traceback

        where = traceback.extract_tb(e.__traceback__)[-1]
        return Outcome(Verdict.ERROR, detail=f"{type(e).__name__}: {e} (at {where.filename.split('/')[-1]}:{where.lineno})")


def _with_mutants(claim: Claim, ev, o: Outcome) -> Outcome:
    """``o`` with the parts whose mutant falsifies the claim on ``ev`` (``kills``) and each
    mutant's finite slack (``mutant_slack``): the checker once per live part, on the same evidence."""
    kills, slack = set(), {}
    for part in claim.live_parts:
        with mutating(part.name):
            m = claim.check(ev)
        if m.verdict is Verdict.FALSIFIED:
            kills.add(part.name)
        if math.isfinite(m.slack) and m.verdict in TESTED:
            slack[part.name] = _side_slack(o, m)
    return dataclasses.replace(o, kills=frozenset(kills), mutant_slack=slack)


def _side_slack(o: Outcome, m: Outcome) -> float:
    """The slack of a mutant ``m`` as a search target: of a two-sided (or many-sided) claim, the
    smallest slack among the inequalities the mutation changed (a part of the lower bound gets the
    lower side's, not the upper side's that sits at equality); else the mutant's own slack.

    Examples
    --------
    >>> _side_slack(Outcome(Verdict.HOLDS, 0.0, sides=(0.0, 0.5)), Outcome(Verdict.HOLDS, 0.0, sides=(0.0, 0.3)))
    0.3
    """
    if len(o.sides) == len(m.sides) > 1:
        changed = [b for a, b in zip(o.sides, m.sides) if a != b and math.isfinite(b)]
        if changed:
            return float(min(changed))
    return float(m.slack)


#: Significant digits of the values handed to :func:`hypothesis.target` (:func:`_quantised`).
TARGET_DIGITS = 10


class Search:
    """The state of one claim's search over drawn instances (shared by :func:`run_claim`
    and the pytest plugin, which hands :meth:`step` to Hypothesis as a test body).

    Every instance is checked until ``draws`` were drawn, ``min_tested`` instances
    distinct up to the claim's symmetries held non-vacuously (up to ``reach`` draws, where at
    least one held by ``budget``) and
    every live part of the claim was killed by some instance (up to ``budget`` draws;
    :meth:`done`; a claim with a ``score`` searches the whole ``budget``); the outcomes up to the first falsification are kept for the
    counts, later ones (Hypothesis shrinking) are not.  Each check passes to
    :func:`hypothesis.target` the claim's own ``target`` (else ``-slack``), its
    ``score``, and ``-slack`` of every mutant not yet killed, so that the search
    climbs towards instances where a part that never mattered would.
    """

    def __init__(self, claim: Claim, profile: str) -> None:
        prof = PROFILES[profile]
        self.claim = claim
        self.need = min_tested_for(claim, profile)
        # A claim with its own distance to failure searches its whole budget: Hypothesis
        # starts climbing targets only after half of it.
        self.draws = prof.budget if claim.score is not None else prof.draws
        self.budget = prof.budget
        self.reach = prof.reach
        self.outcomes: list[Outcome] = []
        self.first_failure: list[Outcome] | None = None  # the outcomes up to the first falsification

    @property
    def killed(self) -> set[str]:
        """The parts whose mutant some counted outcome falsified."""
        return set().union(*(o.kills for o in self.outcomes))

    def done(self) -> bool:
        """Enough instances drawn, enough distinct ones held (in each informative group if
        the claim has any), every live part killed (never once a falsification is being shrunk)."""
        n = len(self.outcomes)
        if self.first_failure is not None or n < self.draws:
            return False
        held = distinct_held(self.outcomes)
        enough = held >= self.need and not short_groups(self.claim, self.outcomes, self.need)
        killed = self.killed
        all_killed = all(p.name in killed for p in self.claim.live_parts)
        # Past the budget, draw on (up to reach) only for more distinct instances of a kind already seen to hold.
        return (enough and (all_killed or n >= self.budget)) or (n >= self.budget and held == 0)

    def find(self, strategy, falsifies, seed: int, **options):
        """Run :meth:`phases` with :func:`hypothesis.find` (``options``: its ``database_key``, and
        ``database`` for :func:`search_settings`): the falsifying instance found, or None."""
        from hypothesis import find
        from hypothesis.errors import NoSuchExample, Unsatisfiable

        database = options.pop("database", None)
        for max_examples, rng in self.phases(seed):
            try:
                with reproducible_draws():
                    return find(strategy, falsifies, settings=search_settings(max_examples, database=database), random=rng, **options)
            except (NoSuchExample, Unsatisfiable):
                continue
        return None

    def phases(self, seed: int):
        """The Hypothesis searches to run, as ``(max_examples, random)``: the ``budget`` with the
        run's seed (Hypothesis starts climbing targets after half of ``max_examples``, so this first
        search is the one that steers), then, only while short of ``min_tested`` distinct held
        instances with some held, a second one up to ``reach`` from a seed derived from the run's."""
        yield self.budget, random.Random(seed)
        held = distinct_held(self.outcomes)
        if self.first_failure is None and 0 < held < self.need and self.reach > len(self.outcomes):
            yield self.reach - len(self.outcomes), random.Random(f"{seed}\0reach\0{self.claim.name}")

    def step(self, inst: Instance) -> Outcome | None:
        """Check ``inst`` (None if the search is :meth:`done`), recording and targeting the outcome."""
        from hypothesis import target

        if self.done():
            return None
        o = evaluate(self.claim, inst)
        if self.first_failure is None:
            self.outcomes.append(o)
        ev = None
        if self.claim.target is not None and o.verdict in TESTED:
            ev = evidence(prepare(self.claim, inst))  # evaluate()'s evidence, from the cache
            target(_quantised(float(self.claim.target(ev))), label="claim's own target")
        elif math.isfinite(o.slack) and o.verdict in TESTED:
            target(_quantised(-float(o.slack)), label="negative slack")
        if self.claim.score is not None and o.verdict is not Verdict.ERROR:
            ev = ev or evidence(prepare(self.claim, inst))
            target(_quantised(float(self.claim.score(ev))), label="distance to failure")
        killed = self.killed
        for name, sl in sorted(o.mutant_slack.items()):  # parts not yet exercised: climb towards where they matter
            if name not in killed:
                target(_quantised(-sl), label=f"mutant {name}")
        if o.verdict is Verdict.FALSIFIED and self.first_failure is None:
            self.first_failure = list(self.outcomes)
        return o

    def result(self) -> ClaimResult:
        """The aggregated verdict when nothing was falsified, with each part's tightness."""
        return aggregate(self.claim, self.outcomes, self.need, self.tightness())

    def tightness(self) -> dict:
        """Each part's tightness on the counted outcomes (:func:`.tightness.tightness`)."""
        from .tightness import tightness

        return tightness(self.claim, self.outcomes)

    def falsified(self, inst: Instance, o: Outcome, note: str = "") -> ClaimResult:
        """The result of the claim falsified by ``inst`` (its outcome ``o``)."""
        return _falsified(self.claim, inst, o, self.first_failure or self.outcomes, self.need, note)


def _quantised(x: float) -> float:
    """``x`` rounded to :data:`TARGET_DIGITS` significant digits, for :func:`hypothesis.target`.

    Hypothesis mutates the best-scoring example so far; a difference in the last
    bit of a slack (a solver's summation order, another BLAS) would otherwise
    pick a different example and change every later draw and so a verdict's
    counts.  Ten digits keep every difference a bound's check can resolve.

    Examples
    --------
    >>> _quantised(0.9872217373320463) == _quantised(0.9872217373320462)
    True
    >>> _quantised(-0.0)
    0.0
    """
    return float(f"{x:.{TARGET_DIGITS}g}") + 0.0 if math.isfinite(x) else x


def run_claim(claim: Claim, profile: str = "default", seed: int = 0, *, pinned: bool = True) -> ClaimResult:
    """:func:`search_claim`, timed: the result's ``seconds`` and ``instances_per_second``."""
    t0 = time.perf_counter()
    r = search_claim(claim, profile, seed, pinned=pinned)
    return dataclasses.replace(r, seconds=time.perf_counter() - t0)


def search_claim(claim: Claim, profile: str = "default", seed: int = 0, *, pinned: bool = True) -> ClaimResult:
    """Check one claim on instances from its strategy; shrink any counterexample.

    Replays the claim's pinned regression examples first (unless ``pinned`` is
    False: then only what the search finds on its own is reported), then draws
    ``PROFILES[profile].draws`` instances, and more (up to ``budget``) while
    fewer than ``min_tested`` met the claim's hypotheses (:class:`Search`).
    A claim with a ``score`` (its distance to failure) always searches the
    whole budget, steered by :func:`hypothesis.target`.
    """
    search = Search(claim, profile)
    for make_example in claim.examples if pinned else ():  # pinned regression cases first
        inst = make_example()
        o = evaluate(claim, inst)
        search.outcomes.append(o)
        if o.verdict is Verdict.FALSIFIED:
            return search.falsified(inst, o, " (pinned regression example)")

    def falsifies(inst: Instance) -> bool:
        o = search.step(inst)
        return o is not None and o.verdict is Verdict.FALSIFIED

    cex = search.find(claim.data(profile), falsifies, seed)
    if cex is None:
        return search.result()
    return search.falsified(cex, evaluate(claim, cex))


def search_settings(max_examples: int, **overrides):
    """Hypothesis settings of a claim search: the ``default`` profile (independent of the
    ambient one, so a seed gives the same verdicts everywhere) unless ``overrides``
    say otherwise, no deadline (an instance trains a model), no health checks (a
    slow, filtered strategy is expected), and no explain phase (it reruns a
    falsified claim's training many times to annotate a counterexample that the
    text format already states)."""
    from hypothesis import HealthCheck, Phase, settings

    base = overrides.pop("parent", None) or settings.get_profile("default")
    return settings(base, max_examples=max_examples, deadline=None, suppress_health_check=list(HealthCheck),
                    phases=[p for p in base.phases if p is not Phase.explain], **overrides)


def _falsified(claim: Claim, inst: Instance, o: Outcome, outcomes: Sequence[Outcome], need: int, note: str = "") -> ClaimResult:
    """The result of a claim falsified by ``inst`` (outcome ``o``) after ``outcomes``."""
    return ClaimResult(claim, Verdict.FALSIFIED, count(outcomes), {"slack": o.slack, **dict(o.measured)},
                       counterexample_text(claim, inst, o), o.detail + note, o.series, need,
                       instance=o.instance, trace=o.trace, per_instance=per_instance_rows(outcomes, o), exercised=exercised(claim, outcomes))


def run_claims(claims: Iterable[Claim], profile: str, seed: int, progress=None, *, pinned: bool = True) -> list[ClaimResult]:
    """:func:`run_claim` on each claim, in order; ``progress`` gets one line per claim."""
    claims = list(claims)
    results = []
    for k, c in enumerate(claims, 1):
        try:
            interrupt.check()
            r = run_claim(c, profile, seed, pinned=pinned)
        except KeyboardInterrupt:
            raise RunInterrupted(results, len(claims)) from None
        if progress:
            progress(f"[{k}/{len(claims)}] {c.name}: {r.verdict} ({r.instances} instances, {r.seconds:.1f} s, "
                     f"{r.instances_per_second:.3g} per s)")
        results.append(r)
    return results


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_claims` or :func:`.matrix.matrix_cells`: ``results`` are
    the ones finished before it (``of`` were asked for)."""

    def __init__(self, results: list, of: int) -> None:
        super().__init__(f"interrupted after {len(results)} of {of}")
        self.results, self.of = results, of


def versions() -> dict:
    """Versions of ntpcheck and of everything its numbers depend on (:func:`ntpcheck.common.versions.package_versions`)."""
    from ntpcheck.common.versions import package_versions

    return package_versions()
