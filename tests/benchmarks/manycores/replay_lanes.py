"""Work done twice on workers: each worker's tasks of a recorded run, replayed in a fresh process.

    python tests/benchmarks/manycores/replay_lanes.py timeline.json huang2024 thorough

``timeline.json`` comes from ``timeline.py`` (on any machine).  Each worker's tasks (claim, shard)
are run here in the order that worker ran them, one fresh process per worker, one worker after
another, beside one process that runs the whole plan as ``--workers 1`` does (the two on two cores:
the same contention for both).  The tasks' seconds summed over the replayed workers, against the
same sum in the one process, is the work the placement does twice (evidence a worker recomputes
because another worker computed it), without the machine's own slowdown under many busy cores.
Issue 43's fifth round: 338.8 s against 331.5 s (1.022) for the 16 workers of the first paper's
thorough run (docs/guides/cluster.md).
"""

from __future__ import annotations

import json
import subprocess
import sys


def lane(path: str, name: str, profile: str, index: int) -> list:
    """Worker ``index``'s tasks (claim, shard, seconds), run here in its order."""
    from ntpcheck.app.scaleout.units import Plan, run_shard
    from ntpcheck.properties import paper

    plan = Plan(name, "verify", tuple(c.name for c in paper(name).claims), pinned=True)
    tasks = json.load(open(path))["tasks"]
    worker = sorted({r["worker"] for r in tasks})[index]
    mine = sorted((r for r in tasks if r["worker"] == worker), key=lambda r: r["start"])
    return [(r["claim"], r["shard"], run_shard(plan, r["unit"], profile, 0, r["shard"])[0].seconds) for r in mine]


def whole(name: str, profile: str) -> dict:
    """Each claim's shard seconds in one process (:class:`~ntpcheck.app.scaleout.executor.InProcess`)."""
    from ntpcheck.app.scaleout.executor import InProcess
    from ntpcheck.app.scaleout.units import Plan
    from ntpcheck.properties import paper

    ex = InProcess()
    ex.run(Plan(name, "verify", tuple(c.name for c in paper(name).claims), pinned=True), profile, 0)
    return ex.shard_seconds


def main(path: str, name: str, profile: str) -> None:
    me = [sys.executable, __file__]
    n = len({r["worker"] for r in json.load(open(path))["tasks"]})
    one = subprocess.Popen([*me, "--whole", name, profile], stdout=subprocess.PIPE, text=True)
    replayed = [json.loads(subprocess.run([*me, "--lane", path, name, profile, str(i)], check=True,
                                          stdout=subprocess.PIPE, text=True).stdout) for i in range(n)]
    together = json.loads(one.communicate()[0])
    a = sum(sum(v) for v in together.values())
    b = sum(s for tasks in replayed for _, _, s in tasks)
    print(f"one process {a:.1f} s; {n} workers replayed {b:.1f} s; ratio {b / a:.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "--lane":
        print(json.dumps(lane(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))))
    elif sys.argv[1] == "--whole":
        print(json.dumps(whole(sys.argv[2], sys.argv[3])))
    else:
        main(*sys.argv[1:4])
