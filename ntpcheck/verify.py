"""The claim runner behind ``ntpcheck verify``.

For each claim: draw instances from its strategy with Hypothesis (seeded, no
example database, so runs are reproducible), check each, steer the search
toward small slack with :func:`hypothesis.target`, and if some instance
falsifies the claim, let Hypothesis shrink it to a minimal one.  The
verdicts are aggregated as documented in :mod:`ntpcheck.claims`.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from typing import Iterable, Sequence

import numpy as np

from .atomic import atomic_write_text
from .claims import Claim, ClaimResult, Instance, Outcome, Verdict
from .errors import NTPCheckError
from .textformat import dumps

__all__ = ["PROFILES", "evaluate", "run_claim", "run_claims", "select_claims", "run_verify", "versions"]

#: Measured constants aggregated as "smallest constant consistent with every instance".
CONSTANT_KEYS = ("implied_c0", "smallest_constant")

#: Instances drawn per claim (Hypothesis ``max_examples``) for each profile.
PROFILES = {"quick": 4, "default": 12, "thorough": 150}


def evaluate(claim: Claim, inst: Instance) -> Outcome:
    """Run a checker; a failure of the check itself becomes an ``error`` outcome."""
    if inst.setup_error:
        return Outcome(Verdict.ERROR, detail=inst.setup_error)
    try:
        with np.errstate(over="ignore", under="ignore"):
            return claim.check(inst)
    except NTPCheckError as e:
        return Outcome(Verdict.ERROR, detail=f"{type(e).__name__}: {e}")
    except Exception as e:  # a bug or numerical failure in the check: report it, never crash the run
        import traceback

        where = traceback.extract_tb(e.__traceback__)[-1]
        return Outcome(Verdict.ERROR, detail=f"{type(e).__name__}: {e} (at {where.filename.split('/')[-1]}:{where.lineno})")


def _counterexample_text(inst: Instance, o: Outcome) -> str:
    params = f"T = {inst.T}, T' = {inst.T2}, eta0 = {inst.steps[0]:.6g}, eta = {inst.steps[1]:.6g}"
    emb = "canonical embeddings" if inst.embeddings is None else f"embeddings {inst.E.shape[0]}x{inst.E.shape[1]}"
    header = f"counterexample ({emb}; {params})\n{o.detail}"
    return dumps(inst.dataset, header=header)


def _aggregate(claim: Claim, outcomes: list[Outcome]) -> ClaimResult:
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
            return ClaimResult(claim, Verdict.FALSIFIED, len(outcomes), {"slack": o.slack, **dict(o.measured)},
                               _counterexample_text(inst, o), o.detail + " (pinned regression example)", o.series)

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
        cex = find(claim.instances(profile), falsifies, settings=cfg, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return _aggregate(claim, outcomes)
    o = evaluate(claim, cex)
    return ClaimResult(
        claim,
        Verdict.FALSIFIED,
        len(outcomes),
        {"slack": o.slack, **dict(o.measured)},
        _counterexample_text(cex, o),
        o.detail,
        o.series,
    )


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


def versions() -> dict:
    import cvxpy
    import hypothesis
    import networkx

    from . import __version__

    return {
        "ntpcheck": __version__,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "cvxpy": cvxpy.__version__,
        "hypothesis": hypothesis.__version__,
        "networkx": networkx.__version__,
    }


def _summary(r: ClaimResult) -> str:
    m = r.measured
    if r.verdict is Verdict.FALSIFIED:
        return f"slack {m.get('slack', float('nan')):.3g}"
    if "implied_c0" in m:
        return f"c_0 >= {m['implied_c0']:.3g}"
    if "fitted_exponent" in m:
        return f"slowest fitted t^{m['fitted_exponent']:.3f}"
    if "rate" in m:
        return f"rate {m['rate']}"
    ws = m.get("worst_slack")
    return "-" if ws is None else f"worst slack {ws:.3g}"


def results_table(results: list[ClaimResult]) -> str:
    from .report import table

    rows = []
    for r in results:
        cex = "-"
        if r.counterexample:
            body = [ln for ln in r.counterexample.splitlines() if ln and not ln.startswith("#")]
            cex = " | ".join(body[:4]) + (" | ..." if len(body) > 4 else "")
        rows.append([r.claim.id, r.claim.variant or "", r.verdict.value, str(r.instances), _summary(r), cex])
    return table(rows, ["claim", "variant", "verdict", "instances", "worst slack / rate", "counterexample"])


def run_verify(args) -> int:
    """Entry point of ``ntpcheck verify``."""
    from properties import REGISTRY

    claims = select_claims(REGISTRY, args.claims)
    t0 = time.perf_counter()
    results = run_claims(claims, args.profile, args.seed, progress=lambda s: print(s, file=sys.stderr, flush=True))
    print(results_table(results))
    falsified = [r for r in results if r.verdict is Verdict.FALSIFIED]
    for r in falsified:
        print(f"\n{r.claim.name} is falsified: {r.detail}\n{r.counterexample}")
    print(f"\n{len(results)} claims checked in {time.perf_counter() - t0:.1f} s (profile {args.profile}, seed {args.seed})", file=sys.stderr)
    if getattr(args, "report", None):
        from .reportmd import write_report

        path = write_report(args.report, results, args.profile, args.seed)
        print(f"report written to {path}", file=sys.stderr)
    if args.json_path:
        obj = {"claims": [r.to_json() for r in results], "profile": args.profile, "seed": args.seed, "versions": versions()}
        text = json.dumps(obj, indent=2, default=_json_default)
        if args.json_path == "-":
            print(text)
        else:
            atomic_write_text(args.json_path, text)
    return 1 if (args.strict and falsified) else 0


def _json_default(x):
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)
