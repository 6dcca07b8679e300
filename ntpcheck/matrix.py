"""The assumption-necessity matrix behind ``ntpcheck matrix``.

For each claim with a parameter map (``Claim.make``) and each condition of
:data:`ntpcheck.CONDITIONS`, the claim's checker runs on instances that break
exactly that condition (``strategies.violating``), with the claim's own
training parameters.  A ``holds`` where the claim lists the condition means
the claim did not need it (on the instances tried); a ``falsified`` where the
claim does *not* list it means it relies on a condition it does not state.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time

from .assumptions import CONDITIONS
from .claims import Claim, ClaimResult
from .atomic import atomic_write_text
from .verify import _json_default, run_claim, versions

__all__ = ["matrix_rows", "run_matrix"]


def _broken(claim: Claim, condition: str) -> Claim:
    from properties.common import SIZES

    from strategies import violating

    def instances(profile: str):
        return violating(condition, **SIZES[profile]).map(claim.make)

    return dataclasses.replace(claim, instances=instances, examples=())


def matrix_rows(claims, profile: str, seed: int, progress=None) -> list[tuple[Claim, str, ClaimResult]]:
    rows = []
    todo = [(c, cond) for c in claims if c.make is not None for cond in CONDITIONS]
    for k, (c, cond) in enumerate(todo, 1):
        t0 = time.perf_counter()
        r = run_claim(_broken(c, cond), profile, seed)
        if progress:
            progress(f"[{k}/{len(todo)}] {c.name} without {cond}: {r.verdict} ({time.perf_counter() - t0:.1f} s)")
        rows.append((c, cond, r))
    return rows


def run_matrix(args) -> int:
    from properties import REGISTRY

    from .report import table
    from .verify import select_claims

    claims = select_claims(REGISTRY, args.claims)
    t0 = time.perf_counter()
    rows = matrix_rows(claims, args.profile, args.seed, progress=lambda s: print(s, file=sys.stderr, flush=True))
    names = list(dict.fromkeys(c.name for c, _, _ in rows))
    cell = {(c.name, cond): r for c, cond, r in rows}
    listed = {c.name: c.assumptions for c, _, _ in rows}
    trows = []
    for n in names:
        out = [n]
        for cond in CONDITIONS:
            r = cell[(n, cond)]
            mark = "" if cond in listed[n] else "*"
            out.append(r.verdict.value + mark)
        trows.append(out)
    print(table(trows, ["claim"] + [f"without {c}" for c in CONDITIONS]))
    print("\n* = a condition the claim does not list among its assumptions")
    for c, cond, r in rows:
        if r.counterexample and cond not in c.assumptions:
            print(f"\n{c.name} fails without {cond}, which it does not list:\n{r.counterexample}")
    print(f"\n{len(rows)} cells in {time.perf_counter() - t0:.1f} s (profile {args.profile}, seed {args.seed})", file=sys.stderr)
    if args.json_path:
        obj = {
            "rows": [
                {"claim": c.id, "variant": c.variant, "dropped": cond, "listed": cond in c.assumptions,
                 "verdict": r.verdict.value, "instances": r.instances, "counterexample": r.counterexample, "detail": r.detail}
                for c, cond, r in rows
            ],
            "profile": args.profile,
            "seed": args.seed,
            "versions": versions(),
        }
        text = json.dumps(obj, indent=2, default=_json_default)
        if args.json_path == "-":
            print(text)
        else:
            atomic_write_text(args.json_path, text)
    return 0
