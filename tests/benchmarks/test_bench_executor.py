"""Issue 32: ``--workers 2`` against ``--workers 1`` on this machine, measured in the same run.

    pytest tests/benchmarks/test_bench_executor.py --benchmark-enable --benchmark-only -s

Each round runs the command with ``--workers 1`` and then ``--workers 2`` (fresh processes,
from the command line to the JSON written: what a user waits for, cluster start included),
and checks that both wrote the same JSON (without timings and the executor).  The figure is
the ratio of the minima over the rounds (``extra_info``: ``seconds_1``, ``seconds_2``,
``speedup``); issue 43's goal is >= 1.85 on 2 cores.  For ``verify`` the overhead ratio is
reported too (``overhead``): the claims' seconds summed over the workers against the same sum in
one process (work done twice on two workers, and contention, show there; goal <= 1.15).
Each round also runs two ``--workers 1`` processes of the same command side by side: the
machine's own ceiling (``ceiling``: twice one run's seconds over the pair's, what two cores
give to two independent processes that share nothing, before Dask, shared caches or any
duplicated work), and ``efficiency`` = ``speedup`` / ``ceiling``.
Nothing here asserts a time.  In the normal suite (benchmarks disabled) each case is one quick
claim, once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from tests.app.test_dask import identity  # noqa: E402

CASES = {
    "verify-default": ["verify"],
    "verify-default-thrampoulidis2024": ["verify", "--paper", "thrampoulidis2024"],
    "matrix-default": ["matrix", "--profile", "default"],
    "verify-thorough": ["verify", "--profile", "thorough"],
    "verify-thorough-thrampoulidis2024": ["verify", "--paper", "thrampoulidis2024", "--profile", "thorough"],
}
SMOKE = ["verify", "--claims", "Lemma 3", "--profile", "quick"]
ROUNDS = int(os.environ.get("NTPCHECK_BENCH_ROUNDS", "2"))  # the thorough cases take minutes a round
NTPCHECK = str(Path(sys.executable).parent / "ntpcheck")


@pytest.mark.parametrize("case", list(CASES))
def test_two_workers_against_one(benchmark, case, tmp_path):
    if not benchmark.enabled and case != next(iter(CASES)):
        pytest.skip("benchmarks disabled: the one smoke run (a quick claim) is the first case's")
    argv = CASES[case] if benchmark.enabled else SMOKE
    seconds: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    side_by_side: list[float] = []

    def both() -> None:
        docs = {}
        for w in (1, 2):
            path = tmp_path / f"w{w}.json"
            t0 = time.perf_counter()
            subprocess.run([NTPCHECK, *argv, "--workers", str(w), "--json", str(path)], check=True, cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds[w].append(time.perf_counter() - t0)
            doc = json.loads(path.read_text())
            if "claims" in doc:  # verify: each claim's own seconds, wherever it ran
                cpu[w].append(sum(c["seconds"] for c in doc["claims"]))
            docs[w] = identity(doc)
        assert docs[1] == docs[2]
        if benchmark.enabled:  # the ceiling: two independent in-process runs at once
            t0 = time.perf_counter()
            pair = [subprocess.Popen([NTPCHECK, *argv, "--workers", "1"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL) for _ in range(2)]
            assert [p.wait() for p in pair] == [0, 0]
            side_by_side.append(time.perf_counter() - t0)

    benchmark.pedantic(both, rounds=ROUNDS if benchmark.enabled else 1, iterations=1)
    best = {w: min(s) for w, s in seconds.items()}
    overhead = min(cpu[2]) / min(cpu[1]) if cpu[1] else None
    speedup = best[1] / best[2]
    ceiling = 2 * best[1] / min(side_by_side) if side_by_side else None
    benchmark.extra_info.update({"seconds_1": best[1], "seconds_2": best[2], "speedup": speedup,
                                 "all_seconds_1": seconds[1], "all_seconds_2": seconds[2], "overhead": overhead,
                                 "ceiling": ceiling, "efficiency": ceiling and speedup / ceiling, "side_by_side": side_by_side})
    print(f"\n{case}: --workers 1 {best[1]:.1f} s, --workers 2 {best[2]:.1f} s (min of {len(seconds[1])}): "
          f"speedup {speedup:.2f}x" + (f", overhead {overhead:.2f}" if overhead else "")
          + (f", ceiling {ceiling:.2f}x (two in-process runs side by side: {min(side_by_side):.1f} s), "
             f"efficiency {speedup / ceiling:.2f}" if ceiling else "") + f"; every run: {seconds}")
