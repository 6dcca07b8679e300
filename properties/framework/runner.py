"""The claim runner: evaluate, search, aggregate, select; results as data.

For each claim: draw instances from its ``data`` strategy with Hypothesis
(seeded, no example database, so runs are reproducible), apply its
``setup``, check each, steer the search toward small slack with
:func:`hypothesis.target`, and if some instance falsifies the claim, let
Hypothesis shrink it to a minimal one.  Outcomes are aggregated into one
:class:`ClaimResult` per claim; the application renders these as text,
JSON or Markdown.
"""

from __future__ import annotations

import math
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ntpcheck.errors import NTPCheckError
from ntpcheck.instance import Instance
from ntpcheck.textformat import dumps

from .checks import tightened
from .claim import Claim, Structural, Tighten
from .evidence import evidence
from .verdicts import Outcome, Verdict

__all__ = [
    "PROFILES",
    "ClaimResult",
    "prepare",
    "evaluate",
    "aggregate",
    "run_claim",
    "run_claims",
    "run_sabotage",
    "select_claims",
    "counterexample_text",
    "versions",
]

#: Measured constants aggregated as "smallest constant consistent with every instance".
CONSTANT_KEYS = ("implied_c0", "smallest_constant")

#: Instances drawn per claim (Hypothesis ``max_examples``) for each profile.
PROFILES = {"quick": 4, "default": 12, "thorough": 150}


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
            "variant": self.claim.reading,
            "verdict": self.verdict.value,
            "instances": self.instances,
            "measured": dict(self.measured),
            "counterexample": self.counterexample,
            "detail": self.detail,
        }


def prepare(claim: Claim, inst: Instance) -> Instance:
    """The instance with the claim's parameters applied (its ``setup``)."""
    return inst if claim.setup is None else claim.setup(inst)


def evaluate(claim: Claim, inst: Instance) -> Outcome:
    """Apply the claim's setup and run its checker on the evidence of ``inst``.

    A failure of the setup (for example an infeasible Eq. (2) on data that
    breaks an assumption) or of the check itself becomes an ``error`` outcome.
    """
    try:
        with np.errstate(over="ignore", under="ignore"):
            return claim.check(evidence(prepare(claim, inst)))
    except NTPCheckError as e:
        return Outcome(Verdict.ERROR, detail=f"{type(e).__name__}: {e}")
    except Exception as e:  # a bug or numerical failure in the check: report it, never crash the run
        import traceback

        where = traceback.extract_tb(e.__traceback__)[-1]
        return Outcome(Verdict.ERROR, detail=f"{type(e).__name__}: {e} (at {where.filename.split('/')[-1]}:{where.lineno})")


def counterexample_text(claim: Claim, inst: Instance, o: Outcome) -> str:
    """The counterexample in the text format, its parameters and the failure in the header."""
    inst = prepare(claim, inst)
    params = f"T = {inst.T}, T' = {inst.T2}, eta0 = {inst.steps[0]:.6g}, eta = {inst.steps[1]:.6g}"
    emb = "canonical embeddings" if inst.embeddings is None else f"embeddings {inst.E.shape[0]}x{inst.E.shape[1]}"
    header = f"counterexample ({emb}; {params})\n{o.detail}"
    return dumps(inst.dataset, header=header)


def aggregate(claim: Claim, outcomes: list[Outcome]) -> ClaimResult:
    n = len(outcomes)
    errors = [o for o in outcomes if o.verdict is Verdict.ERROR]
    reached = [o for o in outcomes if o.verdict in (Verdict.HOLDS, Verdict.VACUOUS)]
    if errors:
        return ClaimResult(claim, Verdict.ERROR, n, dict(errors[0].measured), None, errors[0].detail)
    if not reached:
        o = outcomes[0] if outcomes else Outcome(Verdict.NOT_REACHED, detail="no instance drawn")
        return ClaimResult(claim, Verdict.NOT_REACHED, n, dict(o.measured), None, o.detail)
    finite = [o for o in reached if math.isfinite(o.slack)]
    worst = min(finite, key=lambda o: o.slack) if finite else reached[0]
    verdict = Verdict.HOLDS if any(o.verdict is Verdict.HOLDS for o in reached) else Verdict.VACUOUS
    measured = {"worst_slack": worst.slack if finite else None, **dict(worst.measured)}
    # Constants of order claims: the smallest value consistent with every instance is the largest one seen.
    for key in CONSTANT_KEYS:
        vals = [float(o.measured[key]) for o in reached if key in o.measured and o.measured[key] is not None]
        if vals:
            measured[key] = max(vals)
    # Fitted exponents: report the slowest (largest) one seen.
    vals = [float(o.measured["fitted_exponent"]) for o in reached if "fitted_exponent" in o.measured]
    if vals:
        measured["fitted_exponent"] = max(vals)
    skipped = n - len(reached)
    detail = worst.detail + (f" ({skipped} instance(s) could not reach the thresholds)" if skipped else "")
    return ClaimResult(claim, verdict, n, measured, None, detail, worst.series)


def run_claim(claim: Claim, profile: str = "default", seed: int = 0) -> ClaimResult:
    """Check one claim on instances from its strategy; shrink any counterexample."""
    from hypothesis import HealthCheck, find, settings, target
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    outcomes: list[Outcome] = []
    for make_example in claim.examples:  # pinned regression cases first
        inst = make_example()
        o = evaluate(claim, inst)
        outcomes.append(o)
        if o.verdict is Verdict.FALSIFIED:
            return _falsified(claim, inst, o, len(outcomes), " (pinned regression example)")

    def falsifies(inst: Instance) -> bool:
        o = evaluate(claim, inst)
        outcomes.append(o)
        if math.isfinite(o.slack):
            target(-float(o.slack), label="negative slack")
        return o.verdict is Verdict.FALSIFIED

    cfg = settings(
        max_examples=PROFILES[profile],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    try:
        cex = find(claim.data(profile), falsifies, settings=cfg, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return aggregate(claim, outcomes)
    return _falsified(claim, cex, evaluate(claim, cex), len(outcomes))


def _falsified(claim: Claim, inst: Instance, o: Outcome, n: int, note: str = "") -> ClaimResult:
    """The result of a claim falsified by ``inst`` (outcome ``o``) after ``n`` instances."""
    return ClaimResult(claim, Verdict.FALSIFIED, n, {"slack": o.slack, **dict(o.measured)},
                       counterexample_text(claim, inst, o), o.detail + note, o.series)


def select_claims(registry: Sequence[Claim], spec: str | None) -> list[Claim]:
    """Claims whose id or full name is in the comma-separated ``spec`` (all if None)."""
    if not spec:
        return list(registry)
    wanted = [w.strip() for w in spec.split(",") if w.strip()]
    out = []
    for w in wanted:
        hit = [c for c in registry if w in (c.id, c.name)]
        if not hit:
            ids = ", ".join(dict.fromkeys(c.id for c in registry))
            raise NTPCheckError(f"unknown claim {w!r}; known claims: {ids}")
        out.extend(c for c in hit if c not in out)
    return out


def run_claims(claims: Iterable[Claim], profile: str, seed: int, progress=None) -> list[ClaimResult]:
    claims = list(claims)
    results = []
    for k, c in enumerate(claims, 1):
        t0 = time.perf_counter()
        r = run_claim(c, profile, seed)
        if progress:
            progress(f"[{k}/{len(claims)}] {c.name}: {r.verdict} ({r.instances} instances, {time.perf_counter() - t0:.1f} s)")
        results.append(r)
    return results


def run_sabotage(claim: Claim) -> Outcome:
    """The checker's outcome on the claim's sabotage; ``falsified`` means it was rejected."""
    sab = claim.sabotage
    if sab is None:
        raise ValueError(f"{claim.name} declares no sabotage")
    if isinstance(sab, Structural):
        return sab.run()
    assert isinstance(sab, Tighten)
    with tightened(sab.factor):
        o = evaluate(claim, sab.on())
    if sab.counts_not_reached and o.verdict is Verdict.NOT_REACHED:
        return Outcome(Verdict.FALSIFIED, -1.0, o.measured, "tightened bound not reached by the last step: " + o.detail)
    return o


def versions() -> dict:
    """Versions of ntpcheck and of everything its numbers depend on."""
    import cvxpy
    import hypothesis
    import networkx

    from ntpcheck import __version__

    return {
        "ntpcheck": __version__,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "cvxpy": cvxpy.__version__,
        "hypothesis": hypothesis.__version__,
        "networkx": networkx.__version__,
    }
