"""The claim record, its sabotage and findings, and the paper that groups claims.

A :class:`Claim` is one statement of a paper (or one *reading* of it where the
text is ambiguous), declared as data: where it is in the paper, the
assumptions it is stated under, how instances are drawn (``data``), the
parameters it needs (``setup``), the checker, a sabotage that the checker
must reject, the verdict expected, and any finding with its pinned minimal
counterexample.  A :class:`Paper` lists its claims and says how to draw
instances that break one of its conditions (for the necessity matrix).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ntpcheck.transformer.instance import Instance

from .figure import FigureSpec
from .parts import Part
from .verdicts import Outcome, Verdict

__all__ = ["Claim", "Tighten", "Structural", "Informative", "Finding", "Paper", "slugify"]


#: Words left out of test ids, and short forms (``-k`` needs ASCII words, not "Cor. 1").
_SLUG_DROP = frozenset({"only", "data", "the", "of", "w", "ov", "kq", "setting", "bound"})
_SLUG_SHORT = {"assumptions": "a", "assumption": "a", "general": "gen", "idealised": "ideal", "attention": "att",
               "alignment": "align", "prediction": "pred", "section": "sec"}


def slugify(text: str) -> str:
    """An ASCII test id from a claim id or reading: lower-case words and numbers,
    a number joined to the word before it, filler words dropped, ``-`` between words.

    Examples
    --------
    >>> slugify("Cor. 1"), slugify("Prop. 2 [Assumptions 1-2 only]"), slugify("§7")
    ('cor1', 'prop2-a12', 'sec7')
    """
    words: list[str] = []
    for tok in re.findall(r"[a-z]+|\d+", text.replace("\u00a7", "sec ").lower()):
        if tok.isdigit() and words:
            words[-1] += tok
        elif tok not in _SLUG_DROP:
            words.append(_SLUG_SHORT.get(tok, tok))
    return "-".join(words)


@dataclass(frozen=True)
class Tighten:
    """Sabotage of an inequality claim by a bound just past the tightest value measured.

    :func:`~ntpcheck.properties.framework.runner.run_sabotage` measures on
    ``on()`` the tightest factor ``f*`` (every bound made ``f*`` times as
    permissive, :func:`~ntpcheck.properties.framework.checks.tightened`)
    under which the claim still holds, then checks the claim with the factor
    ``(1 - past) f*``: a bound ``past`` (1%) stronger than anything the
    instance can satisfy.  The checker must return ``falsified``.
    """

    on: Callable[[], Instance]
    past: float = 0.01

    def __post_init__(self) -> None:
        if not (0 < self.past < 1):
            raise ValueError(f"Tighten.past must be in (0, 1), got {self.past!r}")


@dataclass(frozen=True)
class Structural:
    """Sabotage that changes the formula or the input (drop a term, bump an entry).

    ``run()`` returns the checker's outcome on the sabotaged input; it must be
    ``falsified``.  ``what`` says in words what was broken.
    """

    run: Callable[[], Outcome]
    what: str


@dataclass(frozen=True)
class Informative:
    """Where a claim's conclusion is automatic, and the groups of instances where it is not.

    Some claims hold by a one-line argument on part of the data: ``Prop. 2
    (exact)`` says "formula exact iff Hall's condition", and where every query
    has at most one optimal token Hall's condition holds trivially and the
    formula is exact (Prop. 2 in Section 3's setting).  Such instances cannot
    tell the claim from a tautology, so they are counted apart: ``holds``
    needs ``min_tested`` held instances with distinct datasets in *each* of
    ``groups`` (for an "iff": both sides), besides the usual ``min_tested``
    (:func:`~.results.aggregate`).

    Attributes
    ----------
    classify : callable
        ``classify(evidence) -> str or None``: the instance's group (one of
        ``groups``), or None where the conclusion is automatic.
    groups : tuple of str
        The groups, as keys of the JSON (``"hall_holds"``, ``"hall_fails"``).
    automatic : str
        In words, on what part of the data the conclusion is automatic, and why.

    Examples
    --------
    >>> Informative(lambda ev: None, ("yes", "no"), "never").groups
    ('yes', 'no')
    """

    classify: Callable[[Any], str | None]
    groups: tuple[str, ...]
    automatic: str

    def __post_init__(self) -> None:
        if not self.groups or len(set(self.groups)) != len(self.groups):
            raise ValueError(f"Informative.groups must be distinct names, got {self.groups!r}")


@dataclass(frozen=True)
class Finding:
    """A claim found false: what is wrong, and its minimal counterexample.

    ``counterexample()`` returns the instance (before the claim's setup) that
    the tests pin with ``@example``; the claim must be ``falsified`` on it.
    """

    summary: str
    counterexample: Callable[[], Instance]


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, or one reading of it.

    Attributes
    ----------
    id : str
        As in CLAIMS.md: ``"Lemma 5"``, ``"Prop. 2"``.
    section : str
        Where it is in the paper (``"App. B"``, ``"§5.2"``).
    statement : str
        The claim in words, with its equation.
    assumptions : tuple of str
        Conditions it is stated under (the paper's condition names).
    data : callable
        ``data(profile) -> SearchStrategy[Instance]``: the instances to draw.
    check : callable
        ``check(evidence) -> Outcome``.
    setup : callable or None
        ``setup(instance) -> Instance``: the training parameters the claim
        needs, applied to every drawn instance before the check (and to the
        instances of the necessity matrix).  None for fixed instances, which
        then stay out of the matrix.
    reading : str or None
        The reading, for constants the text leaves unclear (``"k=3"``).
    sabotage : Tighten or Structural or None
    expect : Verdict
        ``holds`` or ``falsified`` (the latter needs a :class:`Finding`).
    finding : Finding or None
    examples : tuple of callables
        Regression instances, checked before any drawn one.
    notes : str
    min_tested : int or None
        At most this many instances need to meet the hypotheses for
        ``holds`` (the profile's ``min_tested`` otherwise): 1 for a claim
        about one fixed worked example, which has one instance.
    score : callable or None
        ``score(evidence) -> float``: the claim's own distance to failure
        (larger is closer; a cheap function of the structure), passed to
        :func:`hypothesis.target` with the slack, so the search climbs
        towards structures that can falsify it.
    slug : str or None
        The claim's ASCII test id (``pytest -k``); derived from ``name`` by
        :func:`slugify` when None.
    informative : Informative or None
        For a claim whose conclusion is automatic on part of the data: which
        part, and the groups of the other instances, each of which needs
        ``min_tested`` held instances for ``holds``.
    parts : tuple of Part
        The parts of the statement (each constant, term, exponent, threshold;
        :mod:`.parts`).  ``holds`` needs each part that is not ``dominated`` to be
        killed (its 1%-stronger mutant falsified) by some tested instance.
    target : callable or None
        ``target(evidence) -> float``: where the claim's slack is pinned by
        construction (equality at t = 0, saturation), a score that varies across
        instances and ignores those points, handed to :func:`hypothesis.target`
        instead of the slack (larger is closer to failure).
    figure : FigureSpec or None
        What the report's figure of the claim shows (:mod:`.figure`); None: the check's
        series (quantity and bound over t) or one number per instance.
    """

    id: str
    section: str
    statement: str
    assumptions: tuple[str, ...]
    data: Callable[[str], Any]
    check: Callable[[Any], Outcome]
    setup: Callable[[Instance], Instance] | None = None
    reading: str | None = None
    sabotage: Tighten | Structural | None = None
    expect: Verdict = Verdict.HOLDS
    finding: Finding | None = None
    examples: tuple[Callable[[], Instance], ...] = ()
    notes: str = ""
    min_tested: int | None = None
    score: Callable[[Any], float] | None = None
    slug: str | None = None
    informative: Informative | None = None
    parts: tuple[Part, ...] = ()
    target: Callable[[Any], float] | None = None
    figure: FigureSpec | None = None

    def __post_init__(self) -> None:
        if (self.expect is Verdict.FALSIFIED) != (self.finding is not None):
            raise ValueError(f"{self.name}: a claim is expected falsified exactly when it has a finding")
        names = [p.name for p in self.parts]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: part names must be distinct, got {names}")

    @property
    def live_parts(self) -> tuple[Part, ...]:
        """The parts that must be exercised (not declared ``dominated``)."""
        return tuple(p for p in self.parts if p.dominated is None)

    @property
    def name(self) -> str:
        return self.id if self.reading is None else f"{self.id} [{self.reading}]"

    @property
    def key(self) -> str:
        """The ASCII test id: ``slug``, or :func:`slugify` of the name (``"prop2-a12"``)."""
        return self.slug or slugify(self.name)


@dataclass(frozen=True)
class Paper:
    """A paper whose claims ntpcheck checks.

    Attributes
    ----------
    name : str
        Short name used on the command line (``huang2024``).
    title : str
    claims : tuple of Claim
    conditions : tuple of str
        The conditions the necessity matrix drops one at a time.
    breaking : callable
        ``breaking(condition, profile, data) -> SearchStrategy[Instance]``: instances
        that break exactly that condition, on the data reading ``data`` of the
        claim (its ``data``, which the paper may inspect: prefix closure,
        embeddings, drawn parameters).
    violated : callable
        ``violated(instance) -> list of str``: the conditions an instance breaks
        (used to file the claims' pinned examples under the matrix's columns).
    variants : tuple
        The training algorithms of the matrix's algorithm axis
        (:class:`ntpcheck.transformer.algorithms.Variant`; the first is the paper's own).
    algorithm_claims : tuple of (str, str)
        ``(claim name, needs)``: the claims whose conclusion is meaningful under
        another algorithm, and which variants: ``"any"``, or ``"normalised"``
        (bounds stated in the NGD step size, meaningful only when every step
        moves ``W_kq`` by exactly that much).
    load : callable or None
        ``load(path) -> (instance, header)``: a file in this paper's text format as
        one instance (``verify --dataset``, ``pytest --ntp-dataset``), and its header
        (``header.params``: the parameters it gives, or None; ``header.claim``: the
        claim it names, or None; :func:`~.on_instance.checks_as_given`).  None: the
        first paper's format (:func:`ntpcheck.transformer.textformat.load_with_header`).
    """

    name: str
    title: str
    claims: tuple[Claim, ...]
    conditions: tuple[str, ...]
    breaking: Callable[[str, str, Any], Any]
    violated: Callable[[Any], list[str]] = lambda inst: []
    variants: tuple = ()
    algorithm_claims: tuple[tuple[str, str], ...] = ()
    load: Callable[[str], tuple[Any, Any]] | None = None

    def pinned_breaking(self, condition: str) -> tuple[Callable[[], Any], ...]:
        """The pinned examples of any claim that break exactly ``condition``."""
        makers = dict.fromkeys(m for c in self.claims for m in c.examples)
        return tuple(m for m in makers if self.violated(m()) == [condition])

    def claim(self, name: str) -> Claim:
        """The claim with this full name (``"Lemma 5 [trained W_ov]"``)."""
        for c in self.claims:
            if c.name == name:
                return c
        raise KeyError(name)
