"""Verdicts and per-instance outcomes: what a check says about one claim.

Verdicts
--------
``holds``        checked inside the hypotheses, the bound informative
``vacuous``      held only because the bound exceeds the trivial range
``falsified``    some instance violates it (minimal counterexample attached)
``not-reached``  the claim's own thresholds could not be met within budget
``error``        the check itself failed (solver failure, numerical problem)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

__all__ = ["Verdict", "Outcome"]


class Verdict(str, Enum):
    HOLDS = "holds"
    VACUOUS = "vacuous"
    FALSIFIED = "falsified"
    NOT_REACHED = "not-reached"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


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
    """

    verdict: Verdict
    slack: float = float("nan")
    measured: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""
    series: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
