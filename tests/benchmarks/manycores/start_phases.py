"""When a ``verify`` on a local cluster reaches each phase of its start, in seconds from this
script's start (after Python's own start, about 0.02 s).

    python tests/benchmarks/manycores/start_phases.py [--cold] -- verify --claims ex1 --profile quick --workers 2

Runs the command line after ``--`` (``ntpcheck``'s arguments) in this process, with markers around
the fork server's prestart, the cluster's start, the run and the close, printed to stderr.
``--cold`` runs it with ``PYTHONPYCACHEPREFIX`` a new empty folder and bytecode writes allowed, so
this process and the fork server compile every module they import, the standard library's too: an
upper bound for an install without bytecode (``pip install --no-compile``, a fresh ``--target``;
issue 43, sixth round: the fifth round's 16-core start of 7.7 s had been measured so).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time


def main(argv: list[str]) -> int:
    t0 = time.monotonic()

    def mark(what: str) -> None:
        print(f"{time.monotonic() - t0:7.3f} s  {what}", file=sys.stderr, flush=True)

    import ntpcheck.app.scaleout.executor as executor
    import ntpcheck.app.scaleout.local_cluster as local_cluster

    def wrapped(fn, before: str, after: str):
        def inner(*args, **kw):
            mark(before)
            try:
                return fn(*args, **kw)
            finally:
                mark(after)
        return inner

    local_cluster.prestart = wrapped(local_cluster.prestart, "fork server: prestart", "fork server: started (its imports go on)")
    local_cluster.start = wrapped(local_cluster.start, "cluster: asked for", "cluster: up")
    local_cluster.close = wrapped(local_cluster.close, "close: begun", "close: done")
    executor.OnDask.run = wrapped(executor.OnDask.run, "run: begun", "run: done")
    mark("markers set")
    from ntpcheck.app.cli.cli import main as ntpcheck

    try:
        return ntpcheck(argv)
    finally:
        mark("command: done")


if __name__ == "__main__":
    args = sys.argv[1:]
    cold = "--cold" in args[: args.index("--")] if "--" in args else False
    rest = args[args.index("--") + 1:] if "--" in args else args
    if cold and not os.environ.get("NTPCHECK_COLD_STARTED"):  # again, in a process that compiles everything
        env = {**os.environ, "NTPCHECK_COLD_STARTED": "1", "PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="pyc-")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        os.execve(sys.executable, [sys.executable, __file__, "--", *rest], env)
    sys.exit(main(rest))
