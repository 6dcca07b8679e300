"""Each task of a recorded many-worker run against its seconds replayed elsewhere, by how many workers were busy.

    python tests/benchmarks/manycores/slowdown_by_load.py [TIMELINE [REPLAY]]

``TIMELINE`` (``timeline.py``'s output; default: the fifth round's 16-worker run of the first paper,
thorough, in ``fifth-round/``) gives each task's worker, start and stop; ``REPLAY``
(``replay_lanes.py``'s per-worker output; default: ``fifth-round/replay-workers.json``, the 2-core
machine) gives each (claim, shard)'s seconds run in a fresh process of its own, the same evidence
recomputed.  For each task of over a second in both: its seconds over the replayed ones, and the mean
number of workers busy while it ran (sampled at 20 points).  Printed: the mean ratio of the tasks run
while fewer than ``LOW`` (12) workers were busy, and of those run while all but at most one were.

The two machines differ in speed, so a ratio alone says little; the difference between the two
groups is what the load costs on the many-core machine, up to which claims happen to run late.
Issue 43's fifth round: 1.31x (8 tasks, the run's tail) against 1.65x (73 tasks): tasks ran about
1.26x slower while all 16 cores were busy than near the end of the run, though the late tasks were
of other claims (§7, Prop. 2, Thm. 3); ``contention.py`` measures the machine alone
(docs/guides/cluster.md).

Examples
--------
>>> busy([{"start": 0, "stop": 2}, {"start": 1, "stop": 3}], 1.5)
2
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent / "fifth-round"
LOW = 12


def busy(tasks: list[dict], t: float) -> int:
    """How many of ``tasks`` were running at time ``t``."""
    return sum(1 for u in tasks if u["start"] <= t < u["stop"])


def main(timeline: str, replay: str) -> dict[str, tuple[float, int]]:
    tasks = json.load(open(timeline))["tasks"]
    workers = len({u["worker"] for u in tasks})
    again = {(name, shard): s for lane in json.load(open(replay)).values() for name, shard, s in lane}
    low, high = [], []
    for u in tasks:
        took, before = u["stop"] - u["start"], again.get((u["claim"], u["shard"]))
        if before is None or before < 1.0 or took < 1.0:
            continue
        load = sum(busy(tasks, u["start"] + took * i / 20) for i in range(20)) / 20
        (low if load < LOW else high if load >= workers - 1 else []).append(took / before)
    return {f"fewer than {LOW} of {workers} workers busy": (sum(low) / max(len(low), 1), len(low)),
            f"at least {workers - 1} busy": (sum(high) / max(len(high), 1), len(high))}


if __name__ == "__main__":
    args = sys.argv[1:] + [str(HERE / "timeline-huang2024-thorough-16.json"), str(HERE / "replay-workers.json")][len(sys.argv) - 1:]
    for label, (ratio, n) in main(*args[:2]).items():
        print(f"{label}: {ratio:.2f}x the replayed seconds ({n} tasks)")
