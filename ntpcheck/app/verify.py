"""Bodies of ``ntpcheck verify``, ``ntpcheck matrix`` and ``ntpcheck papers``.

The claim runner (:mod:`ntpcheck.properties.framework.runner`) returns
results as data; these functions pick the paper and claims, run, and render
the same results as a text table, JSON and (``--report``) Markdown.
"""

from __future__ import annotations

import json
import sys
import time

from ntpcheck.atomic import atomic_write_text
from ntpcheck.properties import PAPERS, paper
from ntpcheck.properties.framework import Verdict, matrix_cells, run_claims, select_claims, versions

from . import render

__all__ = ["run_verify", "run_matrix", "run_papers"]


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _write_json(path: str | None, obj: dict) -> None:
    if not path:
        return
    text = json.dumps(obj, indent=2, default=render.json_default)
    if path == "-":
        print(text)
    else:
        atomic_write_text(path, text)


def _pins(args) -> str:
    return "" if args.pinned else ", pinned examples skipped"


def run_verify(args) -> int:
    """Entry point of ``ntpcheck verify``."""
    p = paper(args.paper)
    claims = select_claims(p.claims, args.claims)
    t0 = time.perf_counter()
    if getattr(args, "dataset", None):
        results = _on_dataset(p, claims, args.dataset)
    else:
        results = run_claims(claims, args.profile, args.seed, progress=_progress, pinned=args.pinned)
    print(render.results_table(results))
    falsified = [r for r in results if r.verdict is Verdict.FALSIFIED]
    for r in falsified:
        print(f"\n{r.claim.name} is falsified: {r.detail}\n{r.counterexample}")
    how = f"on {args.dataset}" if getattr(args, "dataset", None) else f"(profile {args.profile}, seed {args.seed}{_pins(args)})"
    print(f"\n{len(results)} claims of {p.name} checked in {time.perf_counter() - t0:.1f} s {how}", file=sys.stderr)
    if getattr(args, "report", None):
        from .reportmd import write_report

        path = write_report(args.report, results, args.profile, args.seed)
        print(f"report written to {path}", file=sys.stderr)
    obj = render.results_json(results, p.name, args.profile, args.seed, versions(), args.pinned)
    if getattr(args, "dataset", None):
        obj["dataset"] = args.dataset
    _write_json(args.json_path, obj)
    return 1 if (args.strict and falsified) else 0


def _on_dataset(p, claims, path: str):
    """Every claim on the one dataset at ``path`` (:func:`run_on_instance`)."""
    from ntpcheck.instance import Instance
    from ntpcheck.properties.framework import run_on_instance
    from ntpcheck.textformat import load

    inst = Instance(load(path))
    breaks = p.violated(inst)
    _progress(f"{path}: " + (f"breaks {', '.join(breaks)}" if breaks else "meets every condition") + f" ({inst.dataset.n_samples} samples, |V| = {inst.dataset.n_vocab})")
    return [run_on_instance(c, inst, breaks) for c in claims]


def run_matrix(args) -> int:
    """Entry point of ``ntpcheck matrix``."""
    p = paper(args.paper)
    claims = select_claims(p.claims, args.claims)
    t0 = time.perf_counter()
    cells = matrix_cells(p, claims, args.profile, args.seed, progress=_progress, pinned=args.pinned)
    print(render.matrix_table(cells, p.conditions))
    print("\n* = a condition the claim does not list among its assumptions; n/m = instances tested / drawn")
    for c in cells:
        if c.result.counterexample:
            why = "which it does not list" if not c.listed else "which it lists"
            print(f"\n{c.claim.name} fails without {c.condition}, {why}:\n{c.result.counterexample}")
    print(f"\n{len(cells)} cells in {time.perf_counter() - t0:.1f} s (profile {args.profile}, seed {args.seed}{_pins(args)})", file=sys.stderr)
    _write_json(args.json_path, render.matrix_json(cells, p.name, args.profile, args.seed, versions(), args.pinned))
    return 0


def run_papers(args) -> int:
    """Entry point of ``ntpcheck papers``: the registered papers and their claim counts."""
    rows = []
    for name in PAPERS:
        p = paper(name)
        ids = len(dict.fromkeys(c.id for c in p.claims))
        rows.append([name, str(ids), str(len(p.claims)), p.title])
    print(render.table(rows, ["paper", "claims", "with readings", "title"]))
    return 0
