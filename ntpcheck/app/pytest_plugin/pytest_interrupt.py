"""Ctrl-C in ``pytest --ntpcheck``: the same contract as the ``ntpcheck`` command.

pytest stops at a :class:`KeyboardInterrupt` on its own and prints its
summary (the verdicts finished so far, :mod:`.pytest_plugin`).  What this
plugin adds, registered only under ``--ntpcheck``:

* the handler of :mod:`ntpcheck.common.interrupt`, so a Ctrl-C that lands in a
  finaliser (numba's compiler calls back into Python) is raised again at the
  next instance instead of being swallowed or reported as an internal error;
* exit status 130 (pytest's own is 2), as ``ntpcheck verify`` gives;
* no seconds spent rendering the interrupted traceback, of which pytest
  shows one line (``--full-trace`` aside);
* in a ``hypothesis fuzz`` worker, a quiet exit (130) instead of a traceback:
  HypoFuzz's own process says "Aborted!";
* an immediate end once pytest has written everything (its summary, any
  ``--junitxml``): the interpreter's teardown with the compiled kernels'
  libraries loaded takes seconds.
"""

from __future__ import annotations

import multiprocessing

import pytest

from ntpcheck.common import interrupt

from .hypothesis_profiles import in_hypofuzz
from ntpcheck.app.rendering.output import INTERRUPTED

__all__ = ["CtrlC"]


class CtrlC:
    """The pytest hooks above (an instance is registered by :func:`.pytest_plugin.pytest_configure`)."""

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # After every plugin's pytest_configure: pytest's own sys.unraisablehook is installed then,
        # and ours must be in front of it.
        if in_hypofuzz() and multiprocessing.parent_process() is not None:
            # A `hypothesis fuzz` worker: its parent prints "Aborted!" on Ctrl-C; the worker's
            # KeyboardInterrupt would end in a multiprocessing traceback (73 lines, issue 42).
            interrupt.exit_quietly()
            return
        interrupt.install()

    def __init__(self, config: pytest.Config) -> None:
        self.full_trace = bool(config.getoption("fulltrace", False))

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo) -> None:
        # pytest renders the whole traceback (with every frame's source) before it prints one line
        # of it: seconds through Hypothesis, cvxpy and numba.  The last frame is all it shows.
        if not self.full_trace and len(excinfo.traceback) > 1:
            excinfo.traceback = excinfo.traceback[-1:]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if interrupt.requested():
            session.exitstatus = INTERRUPTED

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if interrupt.requested():
            interrupt.exit_now(INTERRUPTED)
