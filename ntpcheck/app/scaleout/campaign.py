"""``ntpcheck campaign``: draw for every claim and matrix cell until the time is up, resumably.

``campaign --minutes M`` runs batches round-robin over every unit of the
verify run and of both matrix axes (:class:`.units.Plan`): batch ``b`` of a
unit is a profile-sized search with the seed of ``(seed, strategy, b)``, the strategy
the unit's claim draws from (:func:`~ntpcheck.properties.framework.shards.strategy_key`)
(:func:`.units.run_batch`; the pinned examples in batch 0), through the
example database (Redis with ``NTPCHECK_REDIS_URL``, else the directory
``.hypothesis/examples`` here, shared by the workers only on a shared
filesystem).  Each finished batch is appended to the JSON-lines file
(``--file``, default ``campaign.jsonl``) at once; started again with the same
file, a campaign goes on from the next batch of each unit.  The batches run
on the executor of ``--workers``/``--scheduler``; Ctrl-C keeps every batch
already written (exit 130).

``campaign --summary FILE`` merges each unit's batches in batch order
(:func:`~ntpcheck.properties.framework.shards.merge`: counts add, any
falsified batch falsifies, the smallest counterexample is reported) and
prints the verify and matrix tables; ``--json`` writes
``{"verify": ..., "matrix": ..., "algorithm": ...}``, each the document
that command writes.

A line holds the batch's result in words (verdict, counts, counterexample)
and, for the summary, its outcomes as a pickle (``"shard"``, base64): read
only campaign files you wrote yourself.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import pickle
import sys
import time
from collections.abc import Iterator

from ntpcheck.common import interrupt
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.properties import paper
from ntpcheck.properties.framework import select_claims, versions

from ntpcheck.app.rendering import render
from .executor import open_executor
from ntpcheck.app.rendering.output import INTERRUPTED, write_json
from .units import Plan, run_batch

__all__ = ["run_campaign", "read_batches", "SETTINGS"]

#: The fields of a batch that make a campaign one campaign: a file holds one set of them.
SETTINGS = ("paper", "profile", "seed", "pinned")


def _plans(p, claims, pinned: bool) -> list[Plan]:
    names = tuple(c.name for c in claims)
    return [Plan(p.name, kind, names, pinned) for kind in ("verify", "assumption", "algorithm")]


def read_batches(path: str) -> list[dict]:
    """The batches written to ``path`` (none if it does not exist); a last line cut short (a campaign
    killed while writing it) is left out, any other bad line is one-line :class:`NTPCheckError`."""
    if not os.path.exists(path):
        return []
    if not os.path.isfile(path):  # a FIFO, /dev/zero or /dev/full would be read without end
        raise NTPCheckError(f"{path}: not a regular file (a campaign file is JSON lines written by ntpcheck campaign)")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            batch = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):  # the last line, without its newline: a write cut short
                break
            raise NTPCheckError(f"{path}, line {n}: not a campaign batch (JSON lines written by ntpcheck campaign)") from None
        missing = [k for k in BATCH_KEYS if not isinstance(batch, dict) or k not in batch]
        if missing:
            raise NTPCheckError(f"{path}, line {n}: not a campaign batch (no {', '.join(missing)})")
        out.append(batch)
    return out


#: What every batch line holds (:func:`run_campaign` writes them).
BATCH_KEYS = (*SETTINGS, "kind", "unit", "claim", "batch", "shard")


def _shard(path: str, batch: dict):
    """The pickled shard of one batch, or one line naming the batch that is damaged."""
    try:
        return pickle.loads(base64.b64decode(batch["shard"], validate=True))
    except Exception as e:  # binascii.Error, UnpicklingError, EOFError, AttributeError, ...
        raise NTPCheckError(f"{path}: the batch {batch.get('unit')!r} {batch.get('batch')!r} is damaged "
                            f"({type(e).__module__}.{type(e).__name__}); remove its line and run the campaign again to redraw it") from None


def _end_line(path: str) -> None:
    """Before appending: where a killed campaign left its last line cut short (not JSON), drop
    that partial line (it holds no finished batch); a last line that is whole JSON without
    its newline gets the newline.  So every batch the next run writes starts a line of its own."""
    if not (os.path.isfile(path) and os.path.getsize(path)):
        return
    with open(path, "rb") as f:  # only the last line is read (a long campaign's file holds many shards)
        end = start = f.seek(0, os.SEEK_END)
        tail = b""
        while start > 0 and b"\n" not in tail:
            start = max(0, start - 65536)
            f.seek(start)
            tail = f.read(end - start)
    if tail.endswith(b"\n"):
        return
    cut = tail.rfind(b"\n") + 1
    try:
        json.loads(tail[cut:])
    except ValueError:
        with open(path, "r+b") as f:
            f.truncate(start + cut)
        return
    with open(path, "ab") as f:
        f.write(b"\n")


def _settings(args) -> dict:
    return {"paper": args.paper, "profile": args.profile, "seed": args.seed, "pinned": args.pinned}


def _database() -> tuple[str, str]:
    url = os.environ.get("NTPCHECK_REDIS_URL")
    return ("redis", url) if url else ("directory", os.path.abspath(os.path.join(".hypothesis", "examples")))


def _tasks(plans: list[Plan], profile: str, seed: int, done: dict, database) -> Iterator[tuple]:
    """Round-robin over every unit of ``plans``: batch ``b`` of each unit, for b = 0, 1, ...,
    skipping the batches ``done`` (``(kind, label) -> set of batches``) already holds."""
    units = [(plan, k, label) for plan in plans for k, (label, claim, _) in enumerate(plan.units()) if claim is not None]
    if not units:
        return
    for b in itertools.count():
        for plan, k, label in units:
            if b not in done.get((plan.kind, label), ()):
                yield (plan, k, label, b), run_batch, (plan, k, profile, seed, b, database)


def run_campaign(args) -> int:
    """``ntpcheck campaign``: ``--summary FILE``, or batches for ``--minutes`` appended to ``--file``."""
    if args.summary:
        return _summary(args)
    p = paper(args.paper)
    claims = select_claims(p.claims, args.claims)
    old = read_batches(args.file)
    mine = _settings(args)
    if old and any(old[0].get(k) != v for k, v in mine.items()):
        theirs = ", ".join(f"{k} {old[0].get(k)}" for k in SETTINGS)
        raise NTPCheckError(f"--file {args.file}: holds a campaign with {theirs}; continue it with those options, or use another --file")
    done: dict = {}
    for b in old:
        done.setdefault((b["kind"], b["unit"]), set()).add(b["batch"])
    plans = _plans(p, claims, args.pinned)
    _end_line(args.file)
    t0 = time.monotonic()
    deadline = t0 + 60 * args.minutes
    written = 0
    complete = True
    print(f"campaign: {len(old)} batches in {args.file} already; drawing for {args.minutes:g} min", file=sys.stderr)
    try:
        with open_executor(args.workers, args.scheduler) as ex, open(args.file, "a", encoding="utf-8") as f:
            executor = ex.describe()
            for (plan, k, label, b), (shard, worker) in ex.stream(_tasks(plans, args.profile, args.seed, done, _database()), deadline):
                r = plan.merged(k, args.profile, [shard])
                r = getattr(r, "result", r)
                f.write(json.dumps({**mine, "kind": plan.kind, "unit": label, "claim": plan.units()[k][1].name, "batch": b,
                                    "verdict": r.verdict.value, "counts": dict(r.counts), "counterexample": r.counterexample,
                                    "instance": r.instance if r.counterexample else None, "worker": worker,
                                    "seconds": shard.seconds, "executor": executor,
                                    "shard": base64.b64encode(pickle.dumps(shard)).decode()}) + "\n")
                f.flush()
                written += 1
                print(f"[{written}] {label} batch {b}: {r.verdict} ({r.counts['tested']}/{r.counts['drawn']} tested/drawn, "
                      f"{shard.seconds:.1f} s, worker {worker})", file=sys.stderr)
    except KeyboardInterrupt:
        interrupt.ignore_further()
        complete = False
    print(f"\ncampaign: {written} batches written to {args.file} in {time.monotonic() - t0:.1f} s"
          f"{'' if complete else ' (interrupted)'}; `ntpcheck campaign --summary {args.file}` aggregates them", file=sys.stderr)
    return 0 if complete else INTERRUPTED


def _summary(args) -> int:
    """``campaign --summary FILE``: each unit's batches merged; the verify and matrix tables and JSON."""
    if not os.path.exists(args.summary):
        raise NTPCheckError(f"--summary {args.summary}: no such file (ntpcheck campaign --minutes M --file FILE writes one)")
    batches = read_batches(args.summary)
    if not batches:
        raise NTPCheckError(f"--summary {args.summary}: no campaign batches there")
    first = batches[0]
    p = paper(first["paper"])
    by_unit: dict = {}
    for b in batches:
        by_unit.setdefault((b["kind"], b["unit"]), {})[b["batch"]] = b  # a batch written twice counts once
    ran = {(b["kind"], b["claim"]) for b in batches}
    out = sys.stderr if args.json_path == "-" else sys.stdout
    docs = {}
    for plan in _plans(p, [c for c in p.claims if any(name == c.name for _, name in ran)], first["pinned"]):
        cells = []
        for k, (label, claim, _) in enumerate(plan.units()):
            got = by_unit.get((plan.kind, label))
            if claim is None and (plan.kind, label) in ran:  # n/a (algorithm axis) beside the claim's cells run
                cells.append(plan.cell(k, None))
            elif got:
                shards = [_shard(args.summary, got[b]) for b in sorted(got)]
                cells.append(plan.merged(k, first["profile"], shards))
        docs[plan.kind] = _render(plan.kind, cells, p, first, out)
    total = {kind: sum(1 for (kd, _) in by_unit if kd == kind) for kind in ("verify", "assumption", "algorithm")}
    print(f"\n{len(batches)} batches of {args.summary}: {total['verify']} claims, {total['assumption']} assumption cells, "
          f"{total['algorithm']} algorithm cells (profile {first['profile']}, seed {first['seed']})", file=sys.stderr)
    write_json(args.json_path, {"verify": docs["verify"], "matrix": docs["assumption"], "algorithm": docs["algorithm"],
                                "batches": len(batches)})
    return 0


def _render(kind: str, cells: list, p, first: dict, out) -> dict | None:
    """Print the table of ``kind``'s cells and return its JSON document (None without cells)."""
    if not cells:
        return None
    args = (p.name, first["profile"], first["seed"], versions(), first["pinned"])
    if kind == "verify":
        print(render.results_table(cells), file=out)
        doc = render.results_json(cells, *args)
    elif kind == "assumption":
        print("\n" + render.matrix_table(cells, p.conditions), file=out)
        doc = render.matrix_json(cells, *args)
    else:
        print("\n" + render.algorithm_table(cells, p.variants), file=out)
        doc = render.algorithm_json(cells, *args)
    doc["complete"] = True
    return doc
