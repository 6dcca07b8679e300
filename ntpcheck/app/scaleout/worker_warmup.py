"""What every local worker process needs, loaded once in the process they are forked from.

This module is the forkserver's preload (:mod:`.local_cluster`): importing it is the whole job.  It
runs in multiprocessing's fork server, a process started by the client for its local cluster, and
every worker process is then forked from it with the imports done and the papers' claims built, so
no worker imports them again (each did, for about 1 s of CPU), and a worker ends without Python's
interpreter finalization (multiprocessing ends a forked child with ``os._exit``; a spawned one
finalized for about 0.4 s, on the path of every run's end).

The worker processes run one thread of everything (:func:`.local_cluster.worker_config`): the
thread counts are set here before numpy or numba is imported, as they are read on import.  Nothing
here may stop the server: a failure leaves the worker to import what it needs itself.
"""

from __future__ import annotations

import os

#: One thread of BLAS, OpenMP and numba per worker process (read when numpy and numba are imported).
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")

for _name in ONE_THREAD:
    os.environ[_name] = "1"


def _warm() -> None:
    """Import what a task imports: Dask's worker, numpy, scipy, cvxpy, Hypothesis, and every
    registered paper with its claims built (:func:`ntpcheck.properties.paper`)."""
    import importlib

    for module in ("numpy", "distributed", "ntpcheck.app.scaleout.units"):
        importlib.import_module(module)
    from ntpcheck.properties import paper, registered

    for name in registered():
        try:
            paper(name).claims
        except Exception:  # noqa: BLE001 - a paper that does not load is reported by the task that needs it
            pass
    for optional in ("scipy.optimize", "cvxpy"):
        try:
            importlib.import_module(optional)
        except Exception:  # noqa: BLE001 - imported by the claims that use them, where they are installed
            pass


try:
    _warm()
except Exception:  # noqa: BLE001 - a preload failure must not stop the fork server (see the module docstring)
    pass
