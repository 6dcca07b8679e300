"""Each thread's CPU seconds in a command and every process it starts (Linux: ``/proc``).

    python tests/benchmarks/manycores/thread_cpu.py ntpcheck verify --paper thrampoulidis2024 --workers 2

Runs the command (its output discarded), reads every descendant's threads from ``/proc`` every
0.2 s, and prints the last CPU seconds (user + system) seen for each thread above 0.02 s, with the
process's command line: the client's main thread and event loop (the scheduler and nannies of a
local cluster), the fork server, each worker's event loop and its task thread.  A thread that
ends between two reads loses its last 0.2 s.  Issue 43, seventh round: Dask's housekeeping on
two workers (docs/guides/cluster.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def _stat(path: str) -> list[str]:
    """The fields of a ``/proc/.../stat`` after the command name (field 3 onwards)."""
    text = open(path).read()
    return text[text.rindex(")") + 2:].split()


def descendants(root: int) -> set[int]:
    """``root`` and every process below it."""
    parent = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent[int(pid)] = int(_stat(f"/proc/{pid}/stat")[1])
        except OSError:
            pass
    found, grew = {root}, True
    while grew:
        new = {p for p, q in parent.items() if q in found} - found
        found |= new
        grew = bool(new)
    return found


def main(argv: list[str]) -> None:
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0, cpu, names = time.monotonic(), {}, {}
    while p.poll() is None:
        for pid in descendants(p.pid):
            try:
                names.setdefault(pid, open(f"/proc/{pid}/cmdline").read().replace("\0", " ")[:70])
                for tid in os.listdir(f"/proc/{pid}/task"):
                    fields = _stat(f"/proc/{pid}/task/{tid}/stat")
                    cpu[pid, int(tid)] = (int(fields[11]) + int(fields[12])) / TICK
            except OSError:  # ended meanwhile
                pass
        time.sleep(0.2)
    print(f"wall {time.monotonic() - t0:.1f} s, exit status {p.returncode}")
    for (pid, tid), seconds in sorted(cpu.items()):
        if seconds > 0.02:
            print(f"{pid:>7d} {tid:>7d} {seconds:7.2f} s  {'main thread' if pid == tid else 'thread':11s} {names[pid]}")


if __name__ == "__main__":
    main(sys.argv[1:])
