"""A claim on one given instance (a user's dataset) rather than a search.

Used by ``ntpcheck verify --dataset`` and ``pytest --ntp-dataset``: the
instance's verdict, and, where the instance breaks a condition the claim
lists, whether the conclusion held there anyway.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.textheader import Header

from .claim import Claim
from .results import exercised
from .runner import ClaimResult, per_instance_rows, count, counterexample_text, evaluate
from .verdicts import Outcome, Verdict

__all__ = ["run_on_instance", "checks_as_given"]


#: Whether a per-instance verdict says the conclusion held (None: undecided).
_CONCLUSION = {Verdict.HOLDS: True, Verdict.VACUOUS: True, Verdict.FALSIFIED: False}


def run_on_instance(claim: Claim, inst: Instance, breaks: Sequence[str], *, as_given: bool = False) -> ClaimResult:
    """Check ``claim`` on one given instance (a user's dataset), which breaks the
    conditions ``breaks`` (the paper's ``violated(inst)``).

    The claim's setup is applied and its conclusion checked in every case.  If the
    instance breaks a condition the claim lists, the verdict is
    ``outside-hypotheses`` and ``conclusion_holds`` says whether the conclusion held
    there anyway (``False`` with the counterexample when it failed); otherwise the
    verdict is the instance's own.  A claim about one of the paper's fixed worked
    examples (no ``setup``) is ``outside-hypotheses`` on any dataset, not run.

    ``as_given``: the instance's own training parameters are checked, the claim's
    setup is not applied (a replayed counterexample, whose header holds the
    parameters its claim's setup chose: the setups are idempotent, so the replay
    checks the very instance that failed; :func:`checks_as_given` says when).
    """
    if claim.setup is None and not as_given:
        return ClaimResult(claim, Verdict.OUTSIDE, count([]), {}, None,
                           "a claim about a fixed worked example of the paper; it is not checked on other data",
                           breaks=tuple(breaks), min_tested=1)
    if as_given:
        claim = dataclasses.replace(claim, setup=None)
    o = evaluate(claim, inst)
    counts = count([o])
    measured = {"slack": o.slack if math.isfinite(o.slack) else None, **dict(o.measured)}
    cex = counterexample_text(claim, inst, o) if o.verdict is Verdict.FALSIFIED else None
    listed = [b for b in breaks if b in claim.assumptions]
    if listed:
        held = _CONCLUSION.get(o.verdict)
        said = {True: "the conclusion holds there", False: "the conclusion fails there", None: "the conclusion was not decided"}[held]
        detail = f"the data break {', '.join(listed)}, which the claim assumes; {said} ({o.verdict}: {o.detail})"
        return ClaimResult(claim, Verdict.OUTSIDE, count([Outcome(Verdict.OUTSIDE)]), measured, cex, detail,
                           o.series, 1, tuple(breaks), held, instance=o.instance, per_instance=per_instance_rows([o]), trace=o.trace)
    # One given instance: its own verdict, with the parts it exercised said beside it (a single
    # instance is not a search, so the parts rule of aggregate() does not apply).
    return ClaimResult(claim, o.verdict, counts, measured, cex, o.detail, o.series, 1, tuple(breaks), _CONCLUSION.get(o.verdict),
                       instance=o.instance, per_instance=per_instance_rows([o]), exercised=exercised(claim, [o]), trace=o.trace)


def checks_as_given(claim: Claim, header: Header) -> bool:
    """Whether ``claim`` is checked on a file's instance with its header's parameters as given:
    when the header gives parameters, and, for a claim about a fixed worked example (no
    setup), only when the header names that claim (the file is its own counterexample).

    Examples
    --------
    >>> from ntpcheck.transformer.textheader import Header
    >>> fixed = Claim("Ex. 9", "", "", (), data=None, check=None)
    >>> [checks_as_given(fixed, Header({"T": 1, "T2": 0}, claim=c)) for c in ("Ex. 9", "Lemma 1")]
    [True, False]
    """
    return header.params is not None and (claim.setup is not None or header.claim == claim.name)
