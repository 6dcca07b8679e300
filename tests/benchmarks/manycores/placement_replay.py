"""A recorded run's task seconds replayed through the placement: where its last worker would finish.

    python tests/benchmarks/manycores/placement_replay.py [TIMELINE [ESTIMATES]]

``TIMELINE`` (``timeline.py``'s output; default: the fifth round's 16-worker run of the first paper,
thorough, in ``fifth-round/``) gives each task's seconds; ``ESTIMATES`` (a ``claim-seconds.json``;
default: the one that run placed its tasks with) gives each claim's last-run seconds.  Printed,
each in seconds of tasks until the last worker is done (start and close not included):

- ``static``: every task runs on the worker the placement chose (no work stealing), with every
  shard weighed alike (a first run without estimates), with each shard weighed as a quarter of its
  claim's estimate (the fourth round's placement), by its own entry in ``ESTIMATES`` where that
  holds each shard's seconds (the fifth round's placement; the sixth round's shipped estimates,
  ``properties/huang2024/claim-seconds.json`` wrapped as ``{"huang2024": ...}``, measured on the
  2-core machine), and by its own seconds in the same run (perfect estimates: a best case);
- ``dynamic``: tasks taken in the placement's priority order by whichever worker is free first
  (no worker preferences), for each weighing but the count.

These are computations, not runs: the measured run (the fourth round's placement, with Dask's work
stealing) took 42.8 s of tasks.
"""

from __future__ import annotations

import heapq
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent / "fifth-round"


def main(timeline: str, estimates: str) -> dict[str, float]:
    from ntpcheck.app.scaleout.placement import placement
    from ntpcheck.properties import paper
    from ntpcheck.properties.framework.shards import shards_for, strategy_key

    tasks = json.load(open(timeline))["tasks"]
    seconds = {(r["claim"], r["shard"]): r["stop"] - r["start"] for r in tasks}
    workers = sorted({r["worker"] for r in tasks})
    name = "huang2024"
    known = json.load(open(estimates))[name]["thorough"]
    n = shards_for("thorough")
    keys, quarter, estimated, own, real = [], [], [], [], []
    for c in paper(name).claims:
        entry = known.get(c.name, 1.0)
        total = sum(entry) if isinstance(entry, list) else entry
        for s in range(n):
            keys.append((strategy_key(c, "thorough"), s))
            quarter.append(total / n)
            estimated.append(entry[s] if isinstance(entry, list) and len(entry) == n else total / n)
            own.append(seconds[(c.name, s)])
            real.append(seconds[(c.name, s)])

    def static(costs: list[float]) -> float:
        load: Counter = Counter()
        for lane, t in zip(placement(workers, keys, costs).lanes, real):
            load[lane[0]] += t
        return max(load.values())

    def dynamic(costs: list[float]) -> float:
        priorities = placement(workers, keys, costs).priorities
        free = [(0.0, w) for w in workers]
        for k in sorted(range(len(keys)), key=lambda k: -priorities[k]):
            t, w = heapq.heappop(free)
            heapq.heappush(free, (t + real[k], w))
        return max(t for t, _ in free)

    return {"ideal (busy seconds / workers)": sum(real) / len(workers), "longest task": max(real),
            "static, by count (no estimates)": static([1.0] * len(keys)),
            "static, quarters": static(quarter), "static, each shard's estimate": static(estimated),
            "static, each shard's own": static(own),
            "dynamic, quarters": dynamic(quarter), "dynamic, each shard's estimate": dynamic(estimated),
            "dynamic, each shard's own": dynamic(own)}


if __name__ == "__main__":
    args = sys.argv[1:] + [str(HERE / "timeline-huang2024-thorough-16.json"), str(HERE / "estimates-used.json")][len(sys.argv) - 1:]
    for label, value in main(*args[:2]).items():
        print(f"{label}: {value:.1f} s")
