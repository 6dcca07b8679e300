"""How much slower one process runs when K copies of it run at once, each on a core of its own.

    python tests/benchmarks/manycores/contention.py OUT.json 8 16 -- verify --claims CLAIMS --profile default

Runs the ``ntpcheck`` command after ``--`` alone on the first core (once: run a quick profile
before, so that numba's kernels are compiled and cached), then, for each count ``K``
given, ``K`` copies side by side, copy ``i`` pinned to core ``i`` (``os.sched_setaffinity``), each
with one BLAS, OpenMP and numba thread, as a local cluster's workers run.  The copies share
nothing: no Dask, no evidence, no files (each has a cache folder of its own), so whatever slows them
is the machine (shared caches and memory, hyperthreads sharing a core, a clock that drops when
every core is busy).  Prints, for each ``K``, each copy's seconds, the mean and largest slowdown
against the run alone, and the machine's ceiling for ``K`` processes (``K`` / mean slowdown): the
most a run on ``K`` workers could gain over one process even with no start, no tail and no work
done twice.  Writes the same as JSON to ``OUT.json``.

Issue 43: on the lent 16-core machine of the fifth round, tasks of the first paper's thorough run
took 1.31x their seconds on the 2-core machine while fewer than 12 workers were busy and 1.65x
while all 16 were (``slowdown_by_load.py``), and 16 copies of a default-profile run took 1.11x on
average: this measures that machine effect alone, on the workload that suffered most.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

#: One thread of everything per process, as a local cluster's worker has (local_cluster.worker_config).
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}


def copies(argv: list[str], k: int, cores: list[int]) -> list[float]:
    """Seconds of each of ``k`` copies of ``ntpcheck argv`` started together, copy ``i`` on ``cores[i]``."""
    procs = []
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(k):
            env = {**os.environ, **ONE_THREAD, "NTPCHECK_CACHE_DIR": os.path.join(scratch, f"c{i}")}
            core = cores[i]
            t0 = time.perf_counter()
            p = subprocess.Popen([sys.executable, "-m", "ntpcheck", *argv], env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, preexec_fn=lambda c=core: os.sched_setaffinity(0, {c}))
            procs.append((p, t0))
        seconds: list[float | None] = [None] * k
        while None in seconds:  # each copy's end as it comes (waiting in order would give later ends to earlier copies)
            for i, (p, t0) in enumerate(procs):
                if seconds[i] is None and p.poll() is not None:
                    if p.returncode != 0:
                        raise SystemExit(f"a copy exited with status {p.returncode}: ntpcheck {' '.join(argv)}")
                    seconds[i] = time.perf_counter() - t0
            time.sleep(0.01)
    return seconds


def main(out: str, counts: list[int], argv: list[str]) -> dict:
    cores = sorted(os.sched_getaffinity(0))
    if max(counts) > len(cores):
        raise SystemExit(f"{max(counts)} copies need as many cores; this process may use {len(cores)}")
    alone = copies(argv, 1, cores)[0]  # numba's kernels compiled already (scaleout.sh's warm-up)
    result = {"command": ["ntpcheck", *argv], "cores": len(cores), "alone": alone, "copies": {}}
    print(f"alone: {alone:.2f} s  (ntpcheck {' '.join(argv)})")
    for k in counts:
        seconds = copies(argv, k, cores)
        slow = [s / alone for s in seconds]
        mean = sum(slow) / k
        result["copies"][k] = {"seconds": seconds, "mean_slowdown": mean, "max_slowdown": max(slow), "ceiling": k / mean}
        print(f"{k} copies: mean slowdown {mean:.2f}x, largest {max(slow):.2f}x, ceiling {k / mean:.1f}x; "
              f"each: {' '.join(f'{s:.1f}' for s in seconds)}")
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    if "--" not in sys.argv[2:]:
        raise SystemExit(__doc__.split("\n\n")[1])
    cut = sys.argv.index("--")
    main(sys.argv[1], [int(k) for k in sys.argv[2:cut]], sys.argv[cut + 1:])
