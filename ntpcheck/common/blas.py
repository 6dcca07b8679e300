"""One BLAS thread around small dense linear algebra.

OpenBLAS starts one thread per core for every matrix product above a small
size.  The factorisations of the second paper's problems are small (a few
hundred rows): there the threads cost more than they save, and on a loaded
machine (other processes, or ``--workers`` processes of our own) they
oversubscribe the cores: on two busy cores ``W^mm`` at App. A's size took
340 ms instead of 20 ms, and :func:`ntpcheck.linear.subspace.subspace` 0.6 s
instead of 30 ms.  :func:`single_threaded_blas` limits BLAS to one thread
for the duration of a ``with`` block: through threadpoolctl when it is
installed, else (Linux) by OpenBLAS's own ``openblas_set_num_threads`` in
every OpenBLAS that the process has loaded (numpy's and scipy's), found in
``/proc/self/maps``; elsewhere the block runs as it is (setting
``OPENBLAS_NUM_THREADS=1`` before numpy is imported does the same for a
whole process).

Examples
--------
>>> import numpy as np
>>> with single_threaded_blas():
...     float(np.linalg.norm(np.eye(3)) ** 2)
3.0
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
from functools import lru_cache

__all__ = ["single_threaded_blas", "blas_limiter"]


def _load_blas() -> None:
    """Load numpy's and scipy's BLAS libraries before they are listed."""
    import importlib

    for name in ("numpy.linalg", "scipy.linalg"):
        importlib.import_module(name)


@lru_cache(maxsize=1)
def _controller():
    """threadpoolctl's view of the loaded BLAS libraries, built once per process (about 1 ms), or None."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    _load_blas()
    return ThreadpoolController()


@lru_cache(maxsize=1)
def _openblas() -> tuple:
    """``(get, set)`` of ``openblas_{get,set}_num_threads`` (with the prefixes and suffixes that numpy's
    and scipy's builds give them) in every OpenBLAS mapped into this process; () where none is found."""
    _load_blas()
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "openblas" in ln.rsplit("/", 1)[-1].lower() and ".so" in ln})
    except OSError:
        return ()
    out = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 0))  # only a library already loaded
        except OSError:
            continue
        for pre, suf in itertools.product(("", "scipy_"), ("", "64_", "_64")):
            get = getattr(lib, f"{pre}openblas_get_num_threads{suf}", None)
            put = getattr(lib, f"{pre}openblas_set_num_threads{suf}", None)
            if get is not None and put is not None:
                get.restype, put.argtypes = ctypes.c_int, [ctypes.c_int]
                out.append((get, put))
                break
    return tuple(out)


@contextlib.contextmanager
def _openblas_one(funcs):
    before = [get() for get, _ in funcs]
    for _, put in funcs:
        put(1)
    try:
        yield
    finally:
        for (_, put), n in zip(funcs, before):
            put(n)


def blas_limiter() -> str:
    """How :func:`single_threaded_blas` limits the threads: ``"threadpoolctl"``, ``"openblas"`` or ``""`` (not at all)."""
    return "threadpoolctl" if _controller() is not None else "openblas" if _openblas() else ""


def single_threaded_blas():
    """A context manager running BLAS on one thread (module docstring); a few µs."""
    c = _controller()
    if c is not None:
        return c.limit(limits=1, user_api="blas")
    funcs = _openblas()
    return _openblas_one(funcs) if funcs else contextlib.nullcontext()
