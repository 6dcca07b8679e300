"""Each task of one ``verify`` run on a local cluster: worker, start, stop, claim, shard, lane.

    python tests/benchmarks/manycores/timeline.py huang2024 thorough 16 timeline.json

Runs the executor the CLI uses (:func:`ntpcheck.app.scaleout.executor.open_executor`) under Dask's
``get_task_stream`` and writes ``{"phases": {...}, "tasks": [...]}`` (seconds from the cluster's
start; ``lane`` is the worker the placement chose, ``priority`` its Dask priority), then prints
each worker's busy seconds.  Issue 43's fifth round ran it on the lent 16-core machine
(docs/guides/cluster.md).
"""

from __future__ import annotations

import json
import sys
import time


def main(name: str, profile: str, workers: int, out: str) -> dict:
    t00 = time.time()
    from distributed import Client, get_task_stream

    from ntpcheck.app.scaleout import local_cluster
    from ntpcheck.app.scaleout.executor import open_executor
    from ntpcheck.app.scaleout.units import Plan
    from ntpcheck.properties import paper

    local_cluster.prestart(workers, None)
    plan = Plan(name, "verify", tuple(c.name for c in paper(name).claims), pinned=True)
    tags: dict = {}
    submit = Client.submit

    def tagged(self, fn, *args, **kw):  # the task's unit and shard, by its key
        fut = submit(self, fn, *args, **kw)
        tags[fut.key] = (args[1], args[4] if len(args) > 4 else None, kw.get("workers"), kw.get("priority"))
        return fut

    Client.submit = tagged
    t0 = time.time()
    with open_executor(workers, None) as ex:
        t1 = time.time()
        with get_task_stream(ex.client) as stream:
            ex.run(plan, profile, 0)
        t2 = time.time()
    t3 = time.time()
    Client.submit = submit
    units = plan.units()
    tasks = []
    for d in stream.data:
        for ss in d["startstops"]:
            if ss["action"] == "compute":
                k, s, lane, priority = tags.get(d["key"], (None, None, None, None))
                tasks.append({"worker": d["worker"], "start": ss["start"] - t1, "stop": ss["stop"] - t1,
                              "claim": None if k is None else units[k][0], "unit": k, "shard": s,
                              "lane": lane, "priority": priority})
    doc = {"phases": {"imports": t0 - t00, "cluster_start": t1 - t0, "run": t2 - t1, "close": t3 - t2}, "tasks": tasks}
    with open(out, "w") as f:
        json.dump(doc, f)
    return doc


if __name__ == "__main__":
    doc = main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
    print("phases", {k: round(v, 2) for k, v in doc["phases"].items()})
    by: dict = {}
    for r in doc["tasks"]:
        by.setdefault(r["worker"], []).append(r)
    for w, xs in sorted(by.items()):
        busy = sum(r["stop"] - r["start"] for r in xs)
        off = sum(1 for r in xs if r["lane"] and r["lane"][0] != w)
        print(f"{w}: first start {min(r['start'] for r in xs):.2f} s, last stop {max(r['stop'] for r in xs):.2f} s, "
              f"busy {busy:.2f} s, {len(xs)} tasks, {off} off the chosen worker")
