"""A claim's results as data: the search profiles, the per-verdict counts, and the
aggregation of per-instance outcomes into one :class:`ClaimResult` (the rule that
too few tested instances is never ``holds``).  The runner (:mod:`.runner`) produces
them; the application renders them as text, JSON, Markdown or pytest outcomes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, Sequence

from .checks import closest_to_rejection
from .claim import Claim
from .informative import informative_measured, informative_text, short_groups
from .verdicts import TESTED, Outcome, Verdict

__all__ = ["PROFILES", "Profile", "COUNT_NAMES", "CONSTANT_KEYS", "ClaimResult", "count", "distinct_held", "exercised",
           "never_exercised_text", "room_text", "min_tested_for", "aggregate", "per_instance_rows", "InstanceRow", "short_groups"]

#: The measured values of a fit (:meth:`~.checks.Fit.as_measured`) reported for the one closest to rejection.
FIT_KEYS = ("fitted_exponent", "exponent_ci", "fit_window", "rejection_line", "rejected_if")

#: Measured constants aggregated as "smallest constant consistent with every instance".
CONSTANT_KEYS = ("implied_c0", "smallest_constant")


@dataclass(frozen=True)
class Profile:
    """How hard a run searches.

    ``draws``: instances always drawn per claim (Hypothesis examples);
    ``min_tested``: instances distinct up to the claim's symmetries that must
    hold non-vacuously for ``holds``; ``budget``: the most instances drawn
    per claim while some part of the statement was not yet killed (the
    search climbs towards it); ``reach``: the most drawn while fewer than
    ``min_tested`` distinct instances held (small strategies draw datasets
    that are renamings of each other).
    """

    draws: int
    min_tested: int
    budget: int
    reach: int = 0

    def __post_init__(self) -> None:
        if self.reach < self.budget:
            object.__setattr__(self, "reach", math.ceil(2.5 * self.budget))


PROFILES = {"quick": Profile(8, 5, 24), "default": Profile(50, 20, 100), "thorough": Profile(300, 100, 600)}

#: The per-verdict keys of :func:`count`, in report order.
COUNT_NAMES = {Verdict.HOLDS: "holds", Verdict.FALSIFIED: "falsified", Verdict.VACUOUS: "vacuous",
               Verdict.INCONCLUSIVE: "inconclusive", Verdict.OUTSIDE: "outside", Verdict.ERROR: "error"}


@dataclass(frozen=True)
class ClaimResult:
    """The aggregated verdict of one claim over a run, with how much was tested.

    ``counts``: ``drawn`` (instances checked), ``tested`` (met the claim's
    hypotheses: holds + falsified + vacuous + inconclusive), one count per
    per-instance verdict, ``distinct``: the same over instances distinct up to the claim's
    symmetries (:mod:`.symmetry`), and ``datasets``: over distinct datasets up to renaming.
    ``min_tested``: the distinct instances that had to hold for ``holds``.
    """

    claim: Claim
    verdict: Verdict
    counts: Mapping[str, int]
    measured: Mapping[str, Any]
    counterexample: str | None = None
    detail: str = ""
    series: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    min_tested: int = 1
    #: Set for a run on one given instance (:func:`run_on_instance`): the listed conditions it
    #: breaks, and whether the claim's conclusion held there anyway (None: not decided).
    breaks: tuple[str, ...] | None = None
    conclusion_holds: bool | None = None
    #: Wall time of the run (search, shrinking and pinned examples), when measured.
    seconds: float | None = field(default=None, compare=False)
    #: The sizes and parameters of the instance behind ``series`` (the worst one, or the counterexample).
    instance: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    #: An :class:`InstanceRow` ``(verdict, slack, instance, shrunk, trace)`` of every instance counted, in
    #: draw order, then any shrunk counterexample (``shrunk`` True), for the report's figures.
    per_instance: tuple = field(default=(), compare=False, repr=False)
    #: The figure's data of the instance behind ``series`` (:func:`.figure.trace_of`).
    trace: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    #: ``(finished, of)`` shards, for a claim kept from a search stopped early because a finished
    #: shard falsified it (its verdict cannot change; the whole search may report a smaller
    #: counterexample); None for a finished search.
    interrupted_after: tuple[int, int] | None = None
    #: What the tested instances exercised (:func:`exercised`): ``exercised`` (kills per live
    #: part), ``dominated`` and ``mutation_score``; empty for a claim without parts.
    exercised: Mapping[str, Any] = field(default_factory=dict)

    @property
    def instances(self) -> int:
        return self.counts["drawn"]

    def to_json(self) -> dict:
        return {
            "id": self.claim.id,
            "variant": self.claim.reading,
            "verdict": self.verdict.value,
            "counts": dict(self.counts),
            "min_tested": self.min_tested,
            "measured": dict(self.measured),
            "counterexample": self.counterexample,
            "detail": self.detail,
            **dict(self.exercised),
            **({"breaks": list(self.breaks), "conclusion_holds": self.conclusion_holds} if self.breaks is not None else {}),
            **({"seconds": self.seconds, "instances_per_second": self.instances_per_second} if self.seconds is not None else {}),
            **({"interrupted": {"shards": self.interrupted_after[0], "of": self.interrupted_after[1]}}
               if self.interrupted_after is not None else {}),
        }

    @property
    def instances_per_second(self) -> float | None:
        """Instances checked per second of the run (drawn / seconds), when timed."""
        if self.seconds is None or self.seconds <= 0:
            return None
        return self.counts["drawn"] / self.seconds


class InstanceRow(NamedTuple):
    """One checked instance, as the report's figures see it."""

    verdict: Verdict
    slack: float
    instance: Mapping[str, Any] | None
    shrunk: bool
    #: What the claim's figure needs from the instance (:func:`.figure.trace_of`), or None.
    trace: Mapping[str, Any] | None = None
    #: The instance as drawn and its key up to the claim's symmetries (``verify --instances``).
    source: Any = None
    key: Any = None
    detail: str = ""


def per_instance_rows(outcomes: Sequence[Outcome], shrunk: Outcome | None = None) -> tuple:
    """An :class:`InstanceRow` per outcome counted, then the shrunk counterexample if it is
    not the last of them (Hypothesis's shrinking checks more instances than are counted)."""
    rows = [InstanceRow(o.verdict, o.slack, o.instance, False, o.trace, o.source, o.key, o.detail) for o in outcomes]
    if shrunk is not None and not (outcomes and outcomes[-1] is shrunk):
        rows.append(InstanceRow(shrunk.verdict, shrunk.slack, shrunk.instance, True, shrunk.trace, shrunk.source, shrunk.key, shrunk.detail))
    return tuple(rows)


def count(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The counts of a run: drawn, tested (met the hypotheses), one per verdict, and
    ``distinct``: the same counts over distinct instances (:func:`~.runner.instance_key`;
    an instance drawn twice counts once, under each verdict it got).

    Examples
    --------
    >>> o = [Outcome(Verdict.HOLDS, key=1), Outcome(Verdict.HOLDS, key=1), Outcome(Verdict.OUTSIDE, key=2)]
    >>> c = count(o)
    >>> c["holds"], c["distinct"]["holds"], c["distinct"]["drawn"]
    (2, 1, 2)
    """
    by = {v: sum(o.verdict is v for o in outcomes) for v in Verdict}
    return {"drawn": len(outcomes), "tested": sum(by[v] for v in TESTED), **{name: by[v] for v, name in COUNT_NAMES.items()},
            "distinct": _distinct(outcomes, _key), "datasets": _distinct(outcomes, _data)}


def _distinct(outcomes: Sequence[Outcome], key) -> dict[str, int]:
    """The per-verdict counts over distinct values of ``key(outcome)``."""
    keys = {v: {key(o) for o in outcomes if o.verdict is v} for v in Verdict}
    return {"drawn": len({key(o) for o in outcomes}), "tested": len(set().union(*(keys[v] for v in TESTED))),
            **{name: len(keys[v]) for v, name in COUNT_NAMES.items()}}


def _data(o: Outcome):
    """An outcome's dataset up to renaming (its instance key, or identity, when the runner set none)."""
    return o.dataset_key if o.dataset_key is not None else _key(o)


def _key(o: Outcome):
    """An outcome's instance key (its identity when the runner set none)."""
    return o.key if o.key is not None else id(o)


def distinct_held(outcomes: Sequence[Outcome]) -> int:
    """Distinct instances (:func:`~.runner.instance_key`) that held non-vacuously: what ``min_tested`` counts."""
    return len({_key(o) for o in outcomes if o.verdict is Verdict.HOLDS})


def exercised(claim: Claim, outcomes: Sequence[Outcome], parts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Which parts of ``claim`` the tested instances exercised (:mod:`.parts`): ``exercised``,
    per live part the distinct instances whose outcome killed its mutant; ``dominated``, the
    parts declared unable to matter; ``mutation_score``, the fraction of live parts killed
    (None without live parts: a diagnostic of the search's power); with ``parts``
    (:func:`.tightness.tightness`), ``parts``: each part's status, factor, closest instance and
    text.  Empty for a claim with no parts.

    Examples
    --------
    >>> from .parts import Part
    >>> c = Claim("X", "", "", (), None, None, parts=(Part("a", "constant"), Part("b", "term"), Part("c", "term", dominated="proof")))
    >>> exercised(c, [Outcome(Verdict.HOLDS, key=1, kills=frozenset({"a"})), Outcome(Verdict.HOLDS, key=2, kills=frozenset({"a"}))])
    {'exercised': {'a': 2, 'b': 0}, 'dominated': ['c'], 'mutation_score': 0.5}
    """
    if not claim.parts:
        return {}
    live = claim.live_parts
    kills = {p.name: len({_key(o) for o in outcomes if p.name in o.kills}) for p in live}
    score = sum(n > 0 for n in kills.values()) / len(live) if live else None
    out = {"exercised": kills, "dominated": [p.name for p in claim.parts if p.dominated is not None], "mutation_score": score}
    if parts:
        out["parts"] = {name: {**t.to_json(), "text": t.text(name)} for name, t in parts.items()}
    return out


def never_exercised_text(claim: Claim, ex: Mapping[str, Any]) -> str:
    """How tight the parts were, in words: the loose and dominated ones with their factors
    (``"loose: C_1 x5.7; dominated: lower A x2.8"``), else the live parts no instance killed
    (a result without tightness); empty if every part is tight."""
    if ex.get("parts"):
        return room_text(ex["parts"])
    parts = {p.name: p for p in claim.live_parts}
    never = [n for n, k in ex.get("exercised", {}).items() if k == 0]
    return "; ".join(f"{n} never mattered (its mutant, {parts[n].mutant}, held on every instance"
                     + (f": {parts[n].what}" if parts[n].what else "") + ")" for n in never)


def room_text(parts: Mapping[str, Mapping[str, Any]]) -> str:
    """The parts (``exercised(...)["parts"]``) that are not tight, with their factors.

    Examples
    --------
    >>> room_text({"a": {"status": "tight", "text": "a tight"}, "C_1": {"status": "loose", "text": "C_1 x5.63"},
    ...            "b": {"status": "dominated", "text": "b x1.41"}})
    'loose: C_1 x5.63; dominated: b x1.41'
    """
    groups = [(status, [p["text"] for p in parts.values() if p["status"] == status]) for status in ("loose", "dominated")]
    return "; ".join(f"{status}: {', '.join(texts)}" for status, texts in groups if texts)


def min_tested_for(claim: Claim, profile: str) -> int:
    """Instances that must hold non-vacuously for ``holds`` (the claim's own cap, if any)."""
    need = PROFILES[profile].min_tested
    return need if claim.min_tested is None else min(need, claim.min_tested)


def aggregate(claim: Claim, outcomes: list[Outcome], min_tested: int = 1, parts: Mapping[str, Any] | None = None) -> ClaimResult:
    """One verdict from the per-instance outcomes (none of them falsified).

    ``error`` if any check failed; ``holds`` if at least ``min_tested``
    distinct instances held non-vacuously, with how tight each part of the
    statement was (``parts``, :mod:`.tightness`: a part no instance killed is
    ``loose`` with its factor, never a reason for ``vacuous``); otherwise the
    strongest honest verdict: ``inconclusive`` if some instance could not be
    decided, else ``vacuous`` if some instance held only vacuously, else
    ``outside-hypotheses``.
    A claim with :class:`~.claim.Informative` groups also needs ``min_tested``
    held instances with distinct datasets in each group (:func:`short_groups`);
    short of that it is ``vacuous`` where some instance's conclusion was
    automatic.  The counts always say how many instances fell where.
    """
    counts = count(outcomes)
    ex = exercised(claim, outcomes, parts)
    errors = [o for o in outcomes if o.verdict is Verdict.ERROR]
    if errors:
        return ClaimResult(claim, Verdict.ERROR, counts, dict(errors[0].measured), None, errors[0].detail, None, min_tested,
                           per_instance=per_instance_rows(outcomes), exercised=ex)
    held = [o for o in outcomes if o.verdict is Verdict.HOLDS]
    n_held = distinct_held(outcomes)
    informative = informative_measured(claim, outcomes)
    short = short_groups(claim, outcomes, min_tested)
    never = never_exercised_text(claim, ex)
    enough = n_held >= min_tested and not short
    if enough:
        verdict = Verdict.HOLDS
    elif counts["inconclusive"]:
        verdict = Verdict.INCONCLUSIVE
    elif counts["vacuous"] or (short and informative["automatic"]):
        # An instance where the conclusion is automatic (Informative) held only vacuously: with too
        # few informative ones the claim could not have failed on most of what was tested, which is
        # the rule for too few non-vacuous holds.  With none automatic: too few met a group's condition.
        verdict = Verdict.VACUOUS
    else:
        verdict = Verdict.OUTSIDE
    pool = held or [o for o in outcomes if o.verdict is verdict] or list(outcomes)
    if not pool:
        return ClaimResult(claim, Verdict.OUTSIDE, counts, {}, None, "no instance drawn", None, min_tested)
    finite = [o for o in pool if math.isfinite(o.slack)]
    worst = min(finite, key=lambda o: o.slack) if finite else pool[0]
    measured = {"worst_slack": worst.slack if finite else None, **dict(worst.measured), **informative}
    # Constants of order claims: the smallest value consistent with every instance is the largest one seen.
    tested = [o for o in outcomes if o.verdict in TESTED]
    for key in CONSTANT_KEYS:
        vals = [float(o.measured[key]) for o in tested if o.measured.get(key) is not None]
        if vals:
            measured[key] = max(vals)
    # Fitted exponents: report the one closest to its rejection line, with its interval.
    near = closest_to_rejection([o.measured for o in tested if "fitted_exponent" in o.measured])
    if near is not None:
        measured.update({k: near[k] for k in FIT_KEYS if k in near})
        measured["fitted_exponent"] = float(near["fitted_exponent"])
    detail = worst.detail
    if short:
        detail = (f"too few informative instances ({', '.join(g.replace('_', ' ') for g in short)}): "
                  f"{informative_text(informative, min_tested)} (automatic where {claim.informative.automatic}); " + detail)
    elif informative:
        detail = f"{informative_text(informative, min_tested)}; " + detail
    if enough and never:
        detail = f"{never}; " + detail  # how tight the statement was: its loose and dominated parts
    if verdict is not Verdict.HOLDS and n_held < min_tested:
        detail = (f"only {n_held} distinct instances of the {min_tested} required held non-vacuously"
                  + (f" ({len(held)} with repeats)" if len(held) != n_held else "") + "; " + detail)
    return ClaimResult(claim, verdict, counts, measured, None, detail, worst.series, min_tested,
                       instance=worst.instance, per_instance=per_instance_rows(outcomes), exercised=ex, trace=worst.trace)
