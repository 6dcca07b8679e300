"""How often each kind of evidence is computed: in one process, and on each worker's claims alone.

    python tests/benchmarks/manycores/evidence_counts.py PAPER [PROGRESS]

Runs every claim of ``PAPER`` (default profile, seed 0) in this process and counts each evidence
computation that was not a cache hit (the cached properties of the first paper's ``Evidence`` and
``MaxMarginSolutions``, of the second paper's ``LinearEvidence``, and its ``gd_at``/``path_at`` runs
by factor), with their CPU seconds.  With ``PROGRESS``, the standard error of a ``verify --paper
PAPER --workers N`` run, it then runs each worker's claims (as that run placed them) in a fresh
process of its own and prints the same counts: the work the placement did twice, as counts,
which unlike seconds do not depend on the machine's load.  Issue 43, seventh round: for the second
paper on two workers, 298 gradient-descent runs against 279, 1294 separability LPs against 1287,
the same 199 regularization paths; in a second run, only 2 LPs more (docs/guides/cluster.md).
"""

from __future__ import annotations

import collections
import functools
import re
import subprocess
import sys
import time

COUNTS: collections.Counter = collections.Counter()
SECONDS: collections.Counter = collections.Counter()


def _count(name: str, fn):
    """``fn`` counted (and timed, in CPU seconds) as ``name``."""
    def counted(*args, **kw):
        t = time.process_time()
        try:
            return fn(*args, **kw)
        finally:
            COUNTS[name] += 1
            SECONDS[name] += time.process_time() - t
    return counted


def instrument() -> None:
    """Count every computed (not cached) property of the evidence classes, and each run by factor."""
    from ntpcheck.linear.evidence import LinearEvidence
    from ntpcheck.properties.framework.evidence import Evidence, MaxMarginSolutions

    for cls in (Evidence, MaxMarginSolutions, LinearEvidence):
        for attr, value in list(vars(cls).items()):
            if isinstance(value, functools.cached_property):
                wrapped = functools.cached_property(_count(f"{cls.__name__}.{attr}", value.func))
                wrapped.__set_name__(cls, attr)
                setattr(cls, attr, wrapped)
    for attr, store in (("gd_at", "_gd_runs"), ("path_at", "_path_runs")):
        run = getattr(LinearEvidence, attr)

        def at(self, factor: int = 1, run=run, attr=attr, store=store):
            if factor in self.__dict__.get(store, {}):
                return run(self, factor)
            return _count(f"LinearEvidence.{attr}({factor})", run)(self, factor)
        setattr(LinearEvidence, attr, at)


def counts(name: str, labels: list[str] | None) -> str:
    """The counts for ``name``'s claims (those labelled ``labels``, in plan order; all if None)."""
    from ntpcheck.properties import paper
    from ntpcheck.properties.framework import run_claims

    instrument()
    claims = [c for c in paper(name).claims if labels is None or c.name in labels]
    t = time.process_time()
    run_claims(claims, "default", 0, None)
    rows = [f"{len(claims)} claims, {time.process_time() - t:.1f} s of CPU"]
    rows += [f"  {k:40s} {COUNTS[k]:6d} {SECONDS[k]:8.2f} s" for k in sorted(COUNTS)]
    return "\n".join(rows)


def lanes(progress: str) -> dict[str, list[str]]:
    """Each worker's claims, from a ``verify --workers N`` run's progress lines (an unsharded
    profile's: a claim whose shards ran on several workers cannot be replayed by claim)."""
    by: dict[str, list[str]] = {}
    for line in open(progress):
        m = re.match(r"\[\d+/\d+\] (.*): \S+ \(.*, workers? (.+)\)$", line.strip())
        if m and "," in m.group(2):
            sys.exit(f"{progress}: {m.group(1)} ran on several workers ({m.group(2)}): replay an unsharded profile's run")
        if m:
            by.setdefault(m.group(2), []).append(m.group(1))
    return by


if __name__ == "__main__":
    if sys.argv[1:2] == ["--labels"]:  # one worker's claims, in a process of its own
        print(counts(sys.argv[2], sys.argv[3].split("\x1f")))
        sys.exit()
    name = sys.argv[1]
    print(f"{name}, one process:\n{counts(name, None)}", flush=True)
    for worker, labels in (lanes(sys.argv[2]) if len(sys.argv) > 2 else {}).items():
        out = subprocess.run([sys.executable, __file__, "--labels", name, "\x1f".join(labels)], capture_output=True,
                             text=True, check=True).stdout
        print(f"\nworker {worker}'s claims alone:\n{out}", end="", flush=True)
