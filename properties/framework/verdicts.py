"""Verdicts and per-instance outcomes: the one vocabulary every report uses.

Verdicts (per instance, and aggregated per claim)
-------------------------------------------------
``holds``
    Tested under the claim's hypotheses and held, where it could have failed.
    Aggregated: no instance falsified the claim and at least ``min_tested``
    instances held non-vacuously.
``falsified``
    An instance meeting the claim's hypotheses violates its conclusion
    (a minimal counterexample is attached).  Always, whatever else was seen.
``vacuous``
    Passed, but could not have failed on what was tested: the bound is no
    better than the quantity's trivial range, or the quantity sits at
    rounding level by a symmetry (the detail says which).
``outside-hypotheses``
    The instance does not meet the claim's hypotheses or thresholds (for
    example ``T`` below Corollary 1's threshold, or no query with a
    non-comparable token).  Aggregated: too few instances met them.
``inconclusive``
    The hypotheses are met but the finite horizon cannot decide (a fitted
    rate whose confidence interval straddles the claimed one; a right
    prediction whose probability has not yet reached ``1 - eps``).
``error``
    The check itself failed (solver failure, numerical problem).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Hashable, Mapping

__all__ = ["Verdict", "Outcome", "TESTED"]


class Verdict(str, Enum):
    HOLDS = "holds"
    FALSIFIED = "falsified"
    VACUOUS = "vacuous"
    OUTSIDE = "outside-hypotheses"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


#: The per-instance verdicts of an instance that met the claim's hypotheses.
TESTED = frozenset({Verdict.HOLDS, Verdict.FALSIFIED, Verdict.VACUOUS, Verdict.INCONCLUSIVE})


@dataclass(frozen=True)
class Outcome:
    """The result of checking one claim on one instance.

    Attributes
    ----------
    verdict : Verdict
    slack : float
        ``min (bound - measured)`` over the inequalities checked, normalised as
        the checker documents; negative means violated.  NaN when not defined.
    measured : dict
        The numbers behind the verdict (measured value, bound, up to which t).
    detail : str
        One sentence for people.
    series : dict or None
        ``{"t", "lhs", "rhs", "what", "sense"}``: the measured quantity and its
        bound over t, for plots (not part of the JSON).
    instance : dict or None
        The checked instance's sizes and parameters (``V``, ``N``, ``L_max``,
        ``T``, ``T2``, ``eta0``, ``eta``), for captions; set by the runner.
    group : str or None
        For a claim with :class:`~.claim.Informative` groups: the group of the
        instance, or None where the claim's conclusion is automatic; set by the runner.
    dataset_key : hashable or None
        The instance's dataset up to sample order, renaming of its tokens and the scale of
        its weights (:func:`~.runner.data_key`), for ``counts.datasets`` and the distinct
        datasets per informative group; set by the runner.
    key : hashable or None
        The instance up to sample order: dataset, embeddings and training
        parameters (:func:`~.runner.instance_key`), for counting distinct instances;
        set by the runner.
    kills : frozenset of str
        The parts of the claim whose mutant this instance falsified
        (:mod:`.parts`); set by the runner.
    mutant_slack : dict
        Each checked mutant's slack on this instance (finite ones only), for the search.
    trace : dict or None
        What the claim's figure needs from this instance (:func:`~.figure.trace_of`: lists
        and numbers, JSON-serialisable); set by the runner.
    sides : tuple of float
        For a claim of several inequalities (:func:`~.checks.worst`), each one's slack: a part
        of one side gets that side's slack as its search target, not the minimum over both.
    source : object or None
        The instance as drawn (before the claim's setup), for the tightness of the claim's
        parts (:mod:`.tightness`) and ``verify --instances``; set by the runner.
    """

    verdict: Verdict
    slack: float = float("nan")
    measured: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""
    series: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    instance: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    group: str | None = field(default=None, compare=False)
    dataset_key: Hashable | None = field(default=None, compare=False, repr=False)
    key: Hashable | None = field(default=None, compare=False, repr=False)
    kills: frozenset = field(default=frozenset(), compare=False, repr=False)
    mutant_slack: Mapping[str, float] = field(default_factory=dict, compare=False, repr=False)
    trace: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    source: Any = field(default=None, compare=False, repr=False)
    sides: tuple = field(default=(), compare=False, repr=False)
