"""Types of the claim registry: instances, outcomes, verdicts, claims.

A :class:`Claim` is one row of ``CLAIMS.md`` (or one reading of it, a
*variant*): its statement, the assumptions it is stated under, a strategy of
:class:`Instance` objects and a checker that turns one instance into an
:class:`Outcome`.  The runner (:mod:`ntpcheck.verify`) aggregates outcomes
into one :class:`Verdict` per claim, and shrinks falsifying instances with
Hypothesis.

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
from functools import cached_property
from typing import Any, Callable, Mapping

import numpy as np

from .data import Dataset
from .embeddings import as_embeddings
from .structure import Structure, analyse

__all__ = ["Verdict", "Outcome", "Instance", "Claim", "ClaimResult"]

#: Process-wide cache of trajectories, keyed by :attr:`Instance.key`.
_TRAJECTORIES: dict = {}


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


@dataclass(frozen=True, eq=False, repr=False)
class Instance:
    """A dataset with embeddings and Algorithm 1 parameters; derived objects are cached.

    Attributes
    ----------
    dataset : Dataset
    embeddings : ndarray or None
        ``d x |V|``; canonical when None.
    T, T2 : int
        Steps of stage 1 and stage 2.
    eta0, eta : float or None
        Step sizes; the paper's Section 7 defaults when None.
    """

    dataset: Dataset
    embeddings: np.ndarray | None = None
    T: int = 900
    T2: int = 900
    eta0: float | None = None
    eta: float | None = None
    idealised: bool = False
    setup_error: str | None = None

    @cached_property
    def E(self) -> np.ndarray:
        return as_embeddings(self.embeddings, self.dataset.n_vocab)

    @property
    def d(self) -> int:
        return self.E.shape[0]

    @cached_property
    def structure(self) -> Structure:
        return analyse(self.dataset)

    @property
    def config(self):
        """The :class:`~ntpcheck.training.TrainingConfig` of this instance."""
        from .training import TrainingConfig

        return TrainingConfig(T=self.T, T2=self.T2, eta0=self.eta0, eta=self.eta, idealised_stage1=self.idealised)

    @cached_property
    def steps(self) -> tuple[float, float]:
        """``(eta_0, eta)``, the paper's Section 7 defaults where unset."""
        return self.config.step_sizes(self.d)

    @cached_property
    def key(self) -> tuple:
        """Identifies the computation: dataset text, embeddings and parameters."""
        from .textformat import dumps

        emb = None if self.embeddings is None else self.E.tobytes()
        return (dumps(self.dataset), emb, self.T, self.T2, self.eta0, self.eta, self.idealised)

    @cached_property
    def w_ov_star(self) -> np.ndarray:
        """``W*_ov`` of Eq. (2) (closed form under Assumption 2, else the solver)."""
        from .maxmargin import w_ov_star

        return w_ov_star(self.structure, self.E)

    @cached_property
    def eq3(self):
        """The polished solver solution of Eq. (3)."""
        from .maxmargin import build_eq3, solve

        return solve(build_eq3(self.structure, self.E))

    @property
    def w_kq_star(self) -> np.ndarray:
        return self.eq3.W

    @cached_property
    def trajectory(self):
        """Algorithm 1 with the instance's parameters, all weights kept.

        References for the alignment curves are ``W*_ov`` and ``W*_kq`` when
        they can be computed (else the curves are NaN).  Results are cached
        per :attr:`key` for the duration of the process, so claims that draw
        the same instance do not train twice.
        """
        hit = _TRAJECTORIES.get(self.key)
        if hit is not None:
            return hit
        from .errors import NTPCheckError
        from .training import train

        refs = []
        for name in ("w_ov_star", "w_kq_star"):
            if name == "w_kq_star" and self.T2 == 0:
                refs.append(None)  # stage 2 does not run: no need to solve Eq. (3)
                continue
            try:
                refs.append(getattr(self, name))
            except NTPCheckError:
                refs.append(None)
        traj = train(self.structure, self.config, self.E, tuple(refs), keep_weights=True)
        if len(_TRAJECTORIES) > 256:
            _TRAJECTORIES.clear()
        _TRAJECTORIES[self.key] = traj
        return traj

    def __repr__(self) -> str:
        extra = []
        if self.embeddings is not None:
            extra.append(f"embeddings=<{self.E.shape[0]}x{self.E.shape[1]}>")
        extra += [f"T={self.T}", f"T2={self.T2}"]
        if self.idealised:
            extra.append("idealised=True")
        if self.eta0 is not None:
            extra.append(f"eta0={self.eta0!r}")
        if self.eta is not None:
            extra.append(f"eta={self.eta!r}")
        return f"Instance({self.dataset!r}, {', '.join(extra)})"


@dataclass(frozen=True)
class Claim:
    """One registered claim (or one reading of it).

    Attributes
    ----------
    id : str
        As in CLAIMS.md: ``"Lemma 5"``, ``"Prop. 2"``.
    statement : str
        The claim in words, with the paper's equation or section.
    assumptions : tuple of str
        Conditions it is stated under (names of :data:`ntpcheck.CONDITIONS`).
    instances : callable
        ``instances(profile) -> SearchStrategy[Instance]``.
    check : callable
        ``check(instance) -> Outcome``.
    variant : str or None
        The reading, for constants the OCR leaves unclear (``"k=3"``).
    sabotage : callable or None
        ``sabotage() -> Outcome`` runs the checker on a deliberately wrong
        input; it must come back ``falsified`` (every check can fail).
    make : callable or None
        ``make(instance) -> Instance`` sets the training parameters the claim
        needs on a drawn instance; the assumption-necessity matrix applies it
        to instances that break one condition.  None for fixed instances.
    section : str
        Where the claim is in the paper.
    examples : tuple of callables
        Pinned regression instances (earlier counterexamples), checked
        before any drawn instance.
    """

    id: str
    statement: str
    assumptions: tuple[str, ...]
    instances: Callable[[str], Any]
    check: Callable[[Instance], Outcome]
    variant: str | None = None
    sabotage: Callable[[], Outcome] | None = None
    notes: str = ""
    make: Callable[["Instance"], "Instance"] | None = None
    section: str = ""
    examples: tuple[Callable[[], "Instance"], ...] = ()

    @property
    def name(self) -> str:
        return self.id if self.variant is None else f"{self.id} [{self.variant}]"


@dataclass(frozen=True)
class ClaimResult:
    """The aggregated verdict of one claim over a run."""

    claim: Claim
    verdict: Verdict
    instances: int
    measured: Mapping[str, Any]
    counterexample: str | None = None
    detail: str = ""
    series: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict:
        return {
            "id": self.claim.id,
            "variant": self.claim.variant,
            "verdict": self.verdict.value,
            "instances": self.instances,
            "measured": dict(self.measured),
            "counterexample": self.counterexample,
            "detail": self.detail,
        }
