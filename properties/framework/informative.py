"""Informative instances, counted apart: the rule behind :class:`~.claim.Informative`.

A claim whose conclusion is automatic on part of the data (``Prop. 2
(exact)``: one optimal token per query) declares groups of the instances where
it is not (Hall's condition holds / fails with two optimal tokens under some
query).  :func:`~.results.aggregate` calls ``holds`` only when every group
has ``min_tested`` held instances with distinct datasets
(:func:`short_groups`); the counts go into the result's measured values
(:func:`informative_measured`) and its text (:func:`informative_text`).
"""

from __future__ import annotations

from typing import Any, Sequence

from .claim import Claim
from .verdicts import Outcome, Verdict

__all__ = ["group_counts", "short_groups", "informative_measured", "informative_text"]


def group_counts(claim: Claim, outcomes: Sequence[Outcome]) -> tuple[dict[str, int], dict[str, int], int]:
    """``(held, distinct, automatic)``: per group of ``claim.informative``, the held
    instances and their distinct datasets; and the held instances where the
    conclusion is automatic (no group).

    Examples
    --------
    >>> from .claim import Informative
    >>> c = Claim("X", "", "", (), None, None, informative=Informative(lambda ev: None, ("a", "b"), "never"))
    >>> o = [Outcome(Verdict.HOLDS, group="a", dataset_key=k) for k in (1, 1, 2)] + [Outcome(Verdict.HOLDS)]
    >>> group_counts(c, o)
    ({'a': 3, 'b': 0}, {'a': 2, 'b': 0}, 1)
    """
    groups = claim.informative.groups if claim.informative is not None else ()
    held = [o for o in outcomes if o.verdict is Verdict.HOLDS]
    counts = {g: sum(o.group == g for o in held) for g in groups}
    distinct = {g: len({o.dataset_key for o in held if o.group == g}) for g in groups}
    return counts, distinct, sum(o.group is None for o in held)


def short_groups(claim: Claim, outcomes: Sequence[Outcome], need: int) -> list[str]:
    """The groups of ``claim.informative`` with fewer than ``need`` distinct held datasets
    (none for a claim without groups)."""
    if claim.informative is None:
        return []
    _, distinct, _ = group_counts(claim, outcomes)
    return [g for g, n in distinct.items() if n < need]


def informative_measured(claim: Claim, outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The result's measured values for the groups: ``informative`` (held instances per
    group), ``informative_distinct`` (their distinct datasets) and ``automatic``
    (held instances where the conclusion is automatic); empty without groups."""
    if claim.informative is None:
        return {}
    counts, distinct, automatic = group_counts(claim, outcomes)
    return {"informative": counts, "informative_distinct": distinct, "automatic": automatic}


def informative_text(measured: dict, need: int | None = None) -> str:
    """The groups' counts in words: ``"informative: 10 hall holds (7 distinct), 4 hall fails
    (4 distinct); 86 automatic"``, with ``need`` as what each group required.

    Examples
    --------
    >>> informative_text({"informative": {"hall_holds": 10, "hall_fails": 4},
    ...                   "informative_distinct": {"hall_holds": 7, "hall_fails": 4}, "automatic": 86}, 20)
    'informative: 10 hall holds (7 distinct), 4 hall fails (4 distinct), 20 distinct needed each; 86 automatic'
    """
    distinct = measured.get("informative_distinct", {})
    parts = [f"{n} {g.replace('_', ' ')} ({distinct.get(g, n)} distinct)" for g, n in measured["informative"].items()]
    needed = f", {need} distinct needed each" if need is not None else ""
    return f"informative: {', '.join(parts)}{needed}; {measured.get('automatic', 0)} automatic"
