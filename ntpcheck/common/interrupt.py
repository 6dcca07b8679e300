"""Ctrl-C that is never lost: a SIGINT handler that remembers the request.

SIGTERM (how batch schedulers such as Slurm and Kubernetes stop a job) and SIGHUP (the terminal
closed, an ssh session dropped) are handled the same way: the finished part is written, and the
process ends with status 128 + the signal's number (143, 129) instead of 130.

Python raises :class:`KeyboardInterrupt` wherever the main thread happens to
be when the signal's handler runs.  Raised inside a finaliser (``__del__``, a
weakref callback) the exception is printed as "Exception ignored" and
dropped, and the run would go on.  :func:`install` puts a handler in place
that also records the request; long loops call :func:`check` at safe points
(between instances, cells, chunks of compiled training steps), which raises
again if an earlier :class:`KeyboardInterrupt` went missing.

Compiled (numba) code cannot be interrupted at all: the handler runs only
once control is back in Python, so compiled loops run in chunks of a fraction
of a second (:func:`ntpcheck.transformer.training._ngd_compiled`).

Examples
--------
>>> requested()
False
>>> check()  # nothing asked for: returns at once
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence

__all__ = ["run_command", "install", "handling", "requested", "check", "clear", "ignore_further", "exit_now", "exit_quietly", "INTERRUPTED"]

_requested = False
#: Exit status after Ctrl-C (128 + SIGINT); verify and matrix write the finished part first.
INTERRUPTED = 130
#: The signal that asked the run to stop (SIGINT, SIGTERM or SIGHUP), for the exit status.
_signum: int | None = None
#: The signals handled: Ctrl-C, and a scheduler's polite stop.
_SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
                 if s is not None)


#: Seconds after a first Ctrl-C during which another one is the same request, not a new one.
REPEAT_WINDOW = 1.0
#: When the last request that raised came (``time.monotonic()``).
_first: float = 0.0


def _handler(signum, frame) -> None:
    """Record the request and raise :class:`KeyboardInterrupt`, except for a repeat within
    :data:`REPEAT_WINDOW` seconds of the last one raised: a terminal, ``timeout`` or a scheduler often
    delivers the signal twice (to the process and to its group), and people press Ctrl-C twice.
    Raised again while the run is stopping (cancelling its tasks, before it ignores further
    signals to write what finished), the second :class:`KeyboardInterrupt` would break that
    off and lose the finished results: with ``--workers 2``, one of 12 runs stopped by
    ``timeout -s INT`` wrote nothing.  A later Ctrl-C raises again, for a first one that a
    library swallowed."""
    global _requested, _signum, _first
    now = time.monotonic()
    if _requested and now - _first < REPEAT_WINDOW:
        if _signum == signal.SIGINT:  # a scheduler's SIGTERM (or SIGHUP) right after: its exit status
            _signum = signum
        return
    _requested, _signum, _first = True, signum, now
    raise KeyboardInterrupt


def _unraisable(hook):
    """``sys.unraisablehook`` that, once Ctrl-C was pressed, drops what a finaliser raises (Python
    would print it as "Exception ignored ... Traceback"): the :class:`KeyboardInterrupt` itself,
    which :func:`check` raises again, and the errors of objects it left half-built.  A Ctrl-C
    landing while numba compiled left an llvmlite ``ValueRef`` without its handle, whose
    ``__del__`` then raised ``AttributeError`` as the process ended (``reproduce figure2``, clean-clone
    CI).  Before any Ctrl-C every finaliser error is printed as usual."""
    def unraisable(info) -> None:
        if not _requested:
            hook(info)

    return unraisable


def install() -> None:
    """Handle SIGINT with :func:`_handler` (from the main thread only; elsewhere a no-op), and keep
    a Ctrl-C that lands in a finaliser from printing a traceback."""
    if threading.current_thread() is threading.main_thread():
        for sig in _SIGNALS:
            signal.signal(sig, _handler)
        if getattr(sys.unraisablehook, "__name__", "") != "unraisable":
            sys.unraisablehook = _unraisable(sys.unraisablehook)


@contextlib.contextmanager
def handling() -> Iterator[None]:
    """:func:`install` for the duration of the block, then the previous SIGINT handler and
    ``sys.unraisablehook`` again, and the request forgotten (for callers in a longer-lived
    process, such as the tests calling :func:`ntpcheck.app.cli.cli.main`).

    Examples
    --------
    >>> import signal
    >>> before = signal.getsignal(signal.SIGINT)
    >>> with handling():
    ...     signal.getsignal(signal.SIGINT) is _handler
    True
    >>> signal.getsignal(signal.SIGINT) is before
    True
    """
    main = threading.current_thread() is threading.main_thread()
    previous = ({sig: signal.getsignal(sig) for sig in _SIGNALS}, sys.unraisablehook) if main else None
    install()
    try:
        yield
    finally:
        if previous is not None:
            for sig, handler in previous[0].items():
                signal.signal(sig, handler)
            sys.unraisablehook = previous[1]
        clear()


def exit_quietly() -> None:
    """End the process at once on SIGINT, SIGTERM or SIGHUP, with 128 + the signal's number and no
    traceback (for a worker process whose parent reports the interruption)."""
    if threading.current_thread() is threading.main_thread():
        for sig in _SIGNALS:
            signal.signal(sig, lambda signum, frame: exit_now(128 + signum))


def ignore_further() -> None:
    """Ignore Ctrl-C from now on: called once an interrupted run writes what it finished, so that
    a second Ctrl-C (people press it twice) cannot lose those results half-way.  Only where this
    module's handler is in place (a command, :func:`handling`): a library caller's own handlers,
    and the Ctrl-C of a test session or a notebook, are left as they are."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _handler:
        for sig in _SIGNALS:
            signal.signal(sig, signal.SIG_IGN)


def exit_now(code: int) -> None:
    """End the process with ``code`` at once: flush the standard streams, run the ``atexit``
    functions (``weakref.finalize`` callbacks such as temporary directories' among them), flush
    again, and skip the interpreter's teardown (the compiled kernels' libraries take up to a
    second to unload, and an interrupted run must end within one).  Files the process left open
    would lose what is still buffered: the commands close every file they write."""
    _flush()
    atexit._run_exitfuncs()
    _flush()
    os._exit(code)


def _flush() -> None:
    """Flush the standard streams, where they can be (a closed pipe: ``ntpcheck ... | head``; none
    at all: ``ntpcheck ... >&-``, where Python sets ``sys.stdout`` to None)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def requested() -> bool:
    """Whether Ctrl-C was pressed since :func:`install` (or the last :func:`clear`)."""
    return _requested


def check() -> None:
    """Raise :class:`KeyboardInterrupt` if Ctrl-C was pressed (one global read otherwise)."""
    if _requested:
        raise KeyboardInterrupt


def clear() -> None:
    """Forget an earlier Ctrl-C (for a caller that handled it and goes on)."""
    global _requested, _signum
    _requested, _signum = False, None


def run_command(run: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None, interrupted: int) -> int:
    """``run(argv)`` with Ctrl-C handled here, returning its exit status.

    As a process's command (``argv`` None) the process ends as soon as ``run`` returns
    (:func:`exit_now`: the command has written its output and closed its files by then), with
    128 + the signal's number after SIGTERM or SIGHUP; where a thread other than the main one
    and the daemons still runs, an exit status that is not ``interrupted`` is returned instead,
    for Python's own exit, which waits for that thread.  Skipping the interpreter's teardown
    saves 0.4 s at the end of every command, 0.8 s after a local cluster (issue 43, seventh
    round: measured after the ``atexit`` functions, which still run).  Called with ``argv``
    (tests, scripts) it returns, with the caller's SIGINT handler back in place (:func:`handling`).
    """
    if argv is not None:
        with handling():
            return run(argv)
    install()
    rc = run(argv)
    if rc == interrupted:
        exit_now(128 + int(_signum) if _signum is not None and _signum != signal.SIGINT else rc)
    if not any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        exit_now(rc)
    return rc
