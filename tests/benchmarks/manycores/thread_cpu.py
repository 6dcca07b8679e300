"""Each thread's CPU seconds in a command and every process it starts (psutil, which Dask installs).

    python tests/benchmarks/manycores/thread_cpu.py ntpcheck verify --paper thrampoulidis2024 --workers 2

Runs the command (its output discarded), reads every descendant's threads every 0.2 s, and prints
the last CPU seconds (user + system) seen for each thread above 0.02 s, with the process's command
line: the client's main thread and event loop (the scheduler and nannies of a
local cluster), the fork server, each worker's event loop and its task thread.  A thread that
ends between two reads loses its last 0.2 s.  Issue 43, seventh round: Dask's housekeeping on
two workers (docs/guides/cluster.md).
"""

from __future__ import annotations

import subprocess
import sys
import time

import psutil


def main(argv: list[str]) -> None:
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0, cpu, names = time.monotonic(), {}, {}
    root = psutil.Process(p.pid)
    while p.poll() is None:
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:  # ended meanwhile
            break
        for proc in processes:
            try:
                names.setdefault(proc.pid, " ".join(proc.cmdline())[:70])
                for t in proc.threads():
                    cpu[proc.pid, t.id] = t.user_time + t.system_time
            except (psutil.NoSuchProcess, psutil.AccessDenied):  # ended meanwhile
                pass
        time.sleep(0.2)
    print(f"wall {time.monotonic() - t0:.1f} s, exit status {p.wait()}")
    for (pid, tid), seconds in sorted(cpu.items()):
        if seconds > 0.02:
            print(f"{pid:>7d} {tid:>7d} {seconds:7.2f} s  {'main thread' if pid == tid else 'thread':11s} {names[pid]}")


if __name__ == "__main__":
    main(sys.argv[1:])
