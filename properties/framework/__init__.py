"""The claim framework, independent of any paper.

* :mod:`.verdicts`: :class:`Verdict` and the per-instance :class:`Outcome`;
* :mod:`.claim`: the declarative :class:`Claim` record, its sabotage
  (:class:`Tighten`, :class:`Structural`), :class:`Finding`, :class:`Informative` and :class:`Paper`;
* :mod:`.figure`: :class:`FigureSpec`, what a claim's figure shows, and each instance's trace;
* :mod:`.conjecture`: :func:`conjecture`, a user's own claim from a checker;
* :mod:`.evidence`: what a checker looks at (structure, max-margin
  solutions, trajectories), computed lazily and cached per instance;
* :mod:`.checks`: inequalities, rate fits, declared preconditions, tightening;
* :mod:`.limits`: the one judge of every paper's limits (``x_t → L``, ``→ ∞``), with its confirming
  runs; :mod:`.series`, the trend and levels of a series it reads;
* :mod:`.runner`: evaluate, search, aggregate, select; results as data;
* :mod:`.selection`: the names a claim answers to (``--claims``), normalised to ASCII;
* :mod:`.on_instance`: a claim on one given dataset (``--dataset``);
* :mod:`.sabotage`: the checker rejects a bound 1% past the tightest value measured;
* :mod:`.matrix`: the assumption-necessity matrix.

This layer imports the math core (``ntpcheck.*``), Hypothesis, and nothing
of any paper or of the application.
"""

from .checks import RTOL, falsified, holds, inconclusive, inequality, outside, requires, tightened, vacuous, worst
from .claim import Claim, Finding, Informative, Paper, Structural, Tighten, slugify
from .conjecture import conjecture
from .figure import KINDS, FigureSpec
from .evidence import Evidence, evidence
from .matrix import MatrixCell, matrix_cells
from .algorithm_axis import AlgorithmCell, algorithm_cells
from .runner import (COUNT_NAMES, PROFILES, ClaimResult, Profile, RunInterrupted, Search, aggregate, evaluate, prepare, run_claim, run_claims,
                     search_claim, search_settings, versions)
from .selection import select_claims
from .on_instance import checks_as_given, run_on_instance
from .sabotage import run_sabotage, tightest_factor
from .verdicts import Outcome, Verdict

__all__ = [
    "RunInterrupted",
    "Verdict",
    "Outcome",
    "Claim",
    "Tighten",
    "Structural",
    "Finding",
    "Informative",
    "Paper",
    "slugify",
    "conjecture",
    "FigureSpec",
    "KINDS",
    "Evidence",
    "evidence",
    "RTOL",
    "inequality",
    "holds",
    "falsified",
    "outside",
    "inconclusive",
    "vacuous",
    "worst",
    "requires",
    "tightened",
    "PROFILES",
    "Profile",
    "COUNT_NAMES",
    "tightest_factor",
    "ClaimResult",
    "prepare",
    "evaluate",
    "aggregate",
    "run_claim",
    "run_claims",
    "run_on_instance",
    "checks_as_given",
    "search_claim",
    "Search",
    "search_settings",
    "run_sabotage",
    "select_claims",
    "versions",
    "MatrixCell",
    "AlgorithmCell",
    "algorithm_cells",
    "matrix_cells",
]
