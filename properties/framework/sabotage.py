"""Sabotage: show that a claim's checker can fail.

:class:`~.claim.Tighten` makes every bound of an inequality claim 1% stronger
than the tightest value measured on a reference instance
(:func:`tightest_factor`, by bisection); :class:`~.claim.Structural` changes
a formula or an input.  :func:`run_sabotage` returns the checker's outcome,
which must be ``falsified``.
"""

from __future__ import annotations

import math

from ntpcheck.transformer.instance import Instance

from .checks import tightened
from .claim import Claim, Structural, Tighten
from .runner import evaluate
from .verdicts import Outcome, Verdict

__all__ = ["tightest_factor", "run_sabotage"]


def tightest_factor(claim: Claim, inst: Instance, *, rel: float = 1e-4) -> float:
    """The smallest tightening factor ``f`` (:func:`~.checks.tightened`) under which
    ``claim`` still holds on ``inst``: bisection in ``log f`` over ``[1e-300, 1]``
    to relative precision ``rel`` (the checks are monotone in ``f``).  Raises
    ``ValueError`` if the claim does not hold (or hold vacuously) at ``f = 1``.
    A vacuous bound, tightened, becomes informative: this measures how far
    from failing it was."""

    def ok(f: float) -> bool:
        with tightened(f):
            return evaluate(claim, inst, mutants=False).verdict not in (Verdict.FALSIFIED, Verdict.ERROR)

    base = evaluate(claim, inst, mutants=False)
    if base.verdict not in (Verdict.HOLDS, Verdict.VACUOUS):
        raise ValueError(f"{claim.name}: the sabotage's reference instance gives {base.verdict}, not holds: {base.detail}")
    lo, hi = math.log(1e-300), 0.0
    if ok(math.exp(lo)):
        return 1e-300
    while hi - lo > rel:
        mid = 0.5 * (lo + hi)
        if ok(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def run_sabotage(claim: Claim) -> Outcome:
    """The checker's outcome on the claim's sabotage; ``falsified`` means it was rejected.

    For :class:`Tighten`, the bound is made ``past`` (1%) stronger than the
    tightest value measured on the reference instance (:func:`tightest_factor`);
    the outcome's ``measured`` gains ``tightest_factor`` and ``sabotage_factor``.
    """
    sab = claim.sabotage
    if sab is None:
        raise ValueError(f"{claim.name} declares no sabotage")
    if isinstance(sab, Structural):
        return sab.run()
    assert isinstance(sab, Tighten)
    inst = sab.on()
    f_star = tightest_factor(claim, inst)
    factor = f_star * (1 - sab.past)
    with tightened(factor):
        o = evaluate(claim, inst, mutants=False)
    return Outcome(o.verdict, o.slack, {**dict(o.measured), "tightest_factor": f_star, "sabotage_factor": factor}, o.detail, o.series)
