"""A Ctrl-C delivered twice at once is one request (:func:`ntpcheck.common.interrupt._handler`).

``timeout -s INT``, a terminal and batch schedulers often deliver the signal to the process and
again to its group, and people press Ctrl-C twice; a second :class:`KeyboardInterrupt` raised
while a run stops (cancelling its tasks) lost everything it had finished (one run in 12 of
``timeout -s INT 3.5 ntpcheck verify --profile quick`` on two workers)."""

from __future__ import annotations

import os
import signal

import pytest

from ntpcheck.common import interrupt


def _signal_self() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def test_a_repeat_within_the_window_is_the_same_request(monkeypatch):
    with interrupt.handling():
        with pytest.raises(KeyboardInterrupt):
            _signal_self()
        _signal_self()  # at once again: absorbed, the stop under way goes on
        assert interrupt.requested()
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()  # and the request stays for the run's safe points


def test_a_later_ctrl_c_raises_again(monkeypatch):
    """A first Ctrl-C that a library swallowed must not leave the process deaf to the next one."""
    with interrupt.handling():
        with pytest.raises(KeyboardInterrupt):
            _signal_self()
        monkeypatch.setattr(interrupt, "_first", interrupt._first - interrupt.REPEAT_WINDOW - 0.1)
        with pytest.raises(KeyboardInterrupt):
            _signal_self()


def test_the_window_starts_again_after_clear():
    with interrupt.handling():
        with pytest.raises(KeyboardInterrupt):
            _signal_self()
        interrupt.clear()
        assert not interrupt.requested()
        with pytest.raises(KeyboardInterrupt):
            _signal_self()  # a new request, raised


def test_a_schedulers_stop_right_after_ctrl_c_gives_its_status():
    """SIGTERM within the window after SIGINT is absorbed too, but the exit status becomes 143."""
    with interrupt.handling():
        with pytest.raises(KeyboardInterrupt):
            _signal_self()
        os.kill(os.getpid(), signal.SIGTERM)
        assert interrupt._signum == signal.SIGTERM


def test_ignoring_further_signals_is_for_commands_only():
    """A library caller (a test session, a notebook) keeps its own Ctrl-C: only under this module's
    handler (a command) are further signals ignored while the finished results are written."""
    before = signal.getsignal(signal.SIGINT)
    interrupt.ignore_further()
    assert signal.getsignal(signal.SIGINT) is before
    with interrupt.handling():
        interrupt.ignore_further()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is before


def test_after_ctrl_c_a_finalisers_error_is_not_printed(monkeypatch):
    """An object that the interrupted code left half-built may fail in its ``__del__`` (an llvmlite
    ``ValueRef`` interrupted while numba compiled): after a Ctrl-C that is not printed; before one it is."""
    import gc
    import sys

    seen: list = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: seen.append(str(info.exc_value)))

    class HalfBuilt:
        def __del__(self):
            raise AttributeError("no handle")

    with interrupt.handling():
        HalfBuilt()
        gc.collect()
        assert seen == ["no handle"]
        with pytest.raises(KeyboardInterrupt):
            _signal_self()
        HalfBuilt()
        gc.collect()
        assert seen == ["no handle"]
