"""The local cluster of ``--workers N``: its worker processes forked from a warm fork server started
early, its Dask settings, and its close.

A ``LocalCluster``'s worker processes are started by multiprocessing.  Dask's default ``spawn``
starts each as a fresh interpreter that imports numpy, Dask, Hypothesis, cvxpy and the papers'
claims again (about 1.1 s of CPU each, measured on this project's 2-core machine), and ends with
Python's full finalization (0.4 s at the end of every run).  With ``forkserver`` multiprocessing
starts one server process whose preload (:mod:`.worker_warmup`) does those imports once; each
worker is forked from it, ready, and ends with ``os._exit``.  :func:`prestart` starts that server
at the beginning of a command, so that its imports run while this process loads the claims.

Where the platform has no fork server (Windows), workers are spawned as before.  Results never
depend on how a worker was started.

Examples
--------
>>> start_method() in ("forkserver", "spawn")
True
>>> prestart(1, None)  # one worker runs in this process: nothing to start
False
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

from ntpcheck.common import interrupt

__all__ = ["PRELOAD", "close", "prestart", "sigint_ignored", "start", "start_forkserver", "start_method", "worker_config"]

#: The module every worker process has imported before it starts (the fork server's preload).
PRELOAD = "ntpcheck.app.scaleout.worker_warmup"


def start_method() -> str:
    """``forkserver`` where multiprocessing has it (POSIX), else ``spawn``; ``NTPCHECK_START_METHOD=spawn``
    chooses ``spawn`` (to compare, or where a preload misbehaves)."""
    import multiprocessing
    import os

    if os.environ.get("NTPCHECK_START_METHOD") == "spawn":
        return "spawn"
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """SIGINT ignored meanwhile (in the main thread; elsewhere signals cannot be changed).

    The processes started meanwhile inherit that: a Ctrl-C in a terminal reaches the whole
    process group, and only the client must answer it (cancel the tasks, close the cluster, write
    what finished).  The fork server keeps the disposition it started with and gives it back to
    each worker it forks."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    if main:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def start_forkserver() -> None:
    """Start multiprocessing's fork server (if it is not running) with :data:`PRELOAD` as its preload.

    Dask sets its own preload list when it first asks for the ``forkserver`` context; a server
    already running keeps the list it started with (the preload imports Dask too), so Dask is not
    imported here first: the server starts at once.  The server started here serves every local
    cluster of this process."""
    import multiprocessing
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload([PRELOAD])
    with sigint_ignored():
        forkserver.ensure_running()


def prestart(workers: int, scheduler: str | None) -> bool:
    """Start the fork server now if this run will start a local cluster (``workers`` > 1, no
    ``scheduler``) and the platform has one; True if it was started (or already running).

    Called first thing by the commands that may run on workers: the server's imports then run
    on the second core while this process loads the paper's claims.  Without Dask it does nothing
    (:func:`.executor.open_executor` names the extra, later, in one line)."""
    import importlib.util

    if scheduler is not None or workers <= 1 or start_method() != "forkserver":
        return False
    if importlib.util.find_spec("distributed") is None:
        return False
    start_forkserver()
    return True


def start(distributed, workers: int):
    """A LocalCluster of ``workers`` processes, one thread each, on loopback, without a dashboard.

    Its processes are started with SIGINT ignored (they inherit that): a Ctrl-C in a terminal
    reaches the whole process group, and only this process must answer it (by cancelling the
    tasks and closing the cluster).  Dask's own logs are silenced up to CRITICAL: closing the
    cluster makes a worker's heartbeat fail with a logged traceback, which is no error of the run
    (a task's error reaches this process with its result)."""
    import logging

    import dask

    try:
        with sigint_ignored():
            if start_method() == "forkserver":  # started already by the command (prestart), or now
                start_forkserver()
            # One thread of everything per worker process: Dask already pins BLAS (its nanny's
            # pre-spawn-environ); numba's parallel kernels (ntpcheck.transformer.kernels.gradients) would otherwise
            # start one thread per core in every worker and oversubscribe the machine.  Set in the
            # worker process only (`env`, and the fork server's preload): the nanny's pre-spawn-environ is
            # written into this process's own environment too, and numba refuses a NUMBA_NUM_THREADS
            # changed after its threads started.
            with dask.config.set(worker_config()):
                return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                                dashboard_address=None, silence_logs=logging.CRITICAL,
                                                env={"NUMBA_NUM_THREADS": "1"})
    finally:
        interrupt.check()


def worker_config() -> dict[str, Any]:
    """Dask settings for the worker processes this process starts (a user's own cluster keeps its own).

    Measured on ``verify`` (first paper, default profile, 2 workers on 2 cores; issue 43), claims'
    seconds summed over the workers against 45.5 s in one process: 57.5 s with Dask's defaults,
    55.7 s without the trim threshold, 52.3 s with the profiler off too.

    - ``MALLOC_TRIM_THRESHOLD_`` is not set (Dask sets 65536 before spawning a worker, to return
      memory to the system).  Setting it turns off glibc's dynamic mmap threshold, so every array
      above 128 KiB is a fresh ``mmap`` whose pages are faulted in and zeroed, and freed with
      ``munmap``: the workers spent 3.4-3.9 s each in the kernel against 1.5 s for the whole
      in-process run.  A run's workers live for one run; their memory is returned when they end.
    - The statistical profiler is off: it samples the task's stack every 10 ms from another
      thread, taking the GIL from the task each time.
    - The system monitor (CPU, memory, network of each worker, for the dashboard, which local
      runs do not start) samples every 5 s instead of every 0.5 s.
    - Each server's event-loop health check (a tick that feeds the warning "event loop was
      unresponsive", silenced here, a heartbeat metric and the dashboard, never a decision) runs
      every 1 s instead of every 20 ms, and the memory monitor (pause, spill, and the nanny's
      terminate at 95 % of a worker's limit) every 0.5 s instead of every 0.1 s: a worker whose
      memory grows faster than its limit in half a second is stopped later.  Measured on the
      second paper's verify (default profile, 2 workers on 2 cores; per-thread CPU from
      ``/proc``, two runs each; issue 43, seventh round): the client's event loop (scheduler and
      nannies) went from 1.27 to 0.60-0.63 s of CPU, each worker's from 0.56-0.87 to 0.15-0.30 s,
      against 56-62 s of claims.  The tick was most of it (alone: 0.76 s and 0.36-0.41 s).
    - Workers are forked from a warm fork server where the platform has one
      (:func:`start_forkserver`), else spawned.

    Examples
    --------
    >>> cfg = worker_config()
    >>> "MALLOC_TRIM_THRESHOLD_" in cfg["distributed.nanny.pre-spawn-environ"], cfg["distributed.worker.profile.enabled"]
    (False, False)
    >>> cfg["distributed.admin.tick.interval"], cfg["distributed.worker.memory.monitor-interval"]
    ('1s', '500ms')
    """
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return {"distributed.nanny.pre-spawn-environ": environ, "distributed.worker.profile.enabled": False,
            "distributed.admin.system-monitor.interval": "5s", "distributed.admin.tick.interval": "1s",
            "distributed.worker.memory.monitor-interval": "500ms",
            "distributed.worker.multiprocessing-method": start_method()}


def close(client, cluster) -> None:
    """Close the client and the cluster this process started (its worker processes end with it);
    a Ctrl-C meanwhile is ignored (they must not be left behind)."""
    with sigint_ignored():
        try:
            client.close(timeout=5)
            if cluster is not None:
                cluster.close(timeout=10)
        except Exception:  # noqa: BLE001 - closing is best effort; the worker processes die with their nannies
            pass
