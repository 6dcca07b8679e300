"""ntpcheck's public API for writing a paper's claims: what a paper package imports.

A paper is a plugin (issue 44): a package that defines a :class:`Paper` and registers it in the
entry-point group ``ntpcheck.papers`` of its ``pyproject.toml``::

    [project.entry-points."ntpcheck.papers"]
    mypaper2025 = "mypaper.claims:PAPER"

after which ``ntpcheck papers``, ``ntpcheck verify --paper mypaper2025``, ``matrix``, reports,
campaigns and ``pytest --ntpcheck`` find it.  ``ntpcheck new-paper NAME DIR`` writes a package
skeleton to start from.  Everything a paper needs is here, under names that stay:

* the records: :class:`Paper`, :class:`Claim` (one declarative record per statement and reading),
  :class:`Part` (each constant, term, exponent, threshold or limit of a statement, with its
  mutant: :func:`mutating`, :func:`mutable`), :class:`Finding` (a claim found false, its
  counterexample pinned), :class:`Tighten` and :class:`Structural` (sabotage), :class:`Informative`,
  :class:`FigureSpec`; :func:`conjecture` declares a claim from a checker;
* the instance protocol a paper's data implements: :class:`PaperInstance` (``key``,
  ``identity()``, ``describe()``, ``evidence()``, ``counterexample_text(...)``);
* the verdict vocabulary: :class:`Verdict`, :class:`Outcome`;
* the checks a checker returns: :func:`inequality`, :func:`holds`, :func:`falsified`,
  :func:`vacuous`, :func:`inconclusive`, :func:`outside`, :func:`requires` (declared
  preconditions), :func:`worst`, :func:`tightened`, :data:`RTOL`;
* the one judge of limits (``x_t -> L``, growth, rates), with its confirming runs: :func:`judge`,
  :func:`assess`, :class:`Series`, :func:`at_horizons`;
* running: :func:`run_claim`, :func:`run_claims`, :data:`PROFILES`, :class:`ClaimResult`;
* errors: :class:`DatasetFormatError` (a paper's ``load`` raises it for a bad file; the command line
  prints one line, as it does for any ``ValueError`` there), :class:`NTPCheckError`;
* the strategies' building blocks: :func:`hypothesis_strategies` (Hypothesis's own
  ``strategies`` module, the base of every paper's data) and the first paper's dataset strategies
  in :mod:`ntpcheck.strategies` (``realizable_datasets``, ``violating``, ``embeddings``, ...).

Examples
--------
>>> from ntpcheck import api
>>> sorted(v.value for v in api.Verdict)[:3]
['error', 'falsified', 'holds']
>>> api.inequality(1.0, 2.0, what="1 <= 2").verdict
<Verdict.HOLDS: 'holds'>
"""

from __future__ import annotations

from ntpcheck.common.errors import DatasetFormatError, NTPCheckError
from ntpcheck.properties.framework import (
    PROFILES,
    RTOL,
    Claim,
    ClaimResult,
    FigureSpec,
    Finding,
    Informative,
    Outcome,
    Paper,
    Structural,
    Tighten,
    Verdict,
    conjecture,
    falsified,
    holds,
    inconclusive,
    inequality,
    outside,
    requires,
    run_claim,
    run_claims,
    tightened,
    vacuous,
    worst,
)
from ntpcheck.properties.framework.instances import PaperInstance
from ntpcheck.properties.framework.limits import Series, assess, at_horizons, judge
from ntpcheck.properties.framework.parts import Part, mutable, mutating

__all__ = [
    "Paper", "Claim", "Part", "Finding", "Tighten", "Structural", "Informative", "FigureSpec", "conjecture",
    "mutating", "mutable", "PaperInstance",
    "Verdict", "Outcome",
    "inequality", "holds", "falsified", "vacuous", "inconclusive", "outside", "requires", "worst", "tightened", "RTOL",
    "judge", "assess", "Series", "at_horizons",
    "run_claim", "run_claims", "PROFILES", "ClaimResult",
    "hypothesis_strategies", "DatasetFormatError", "NTPCheckError",
]


def hypothesis_strategies():
    """Hypothesis's ``strategies`` module (``st.floats``, ``st.composite``, ...): a paper's data is
    built from these, by construction rather than filtering (see :mod:`ntpcheck.strategies` for
    the first paper's, which follow that rule)."""
    from hypothesis import strategies

    return strategies
