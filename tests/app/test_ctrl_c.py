"""Ctrl-C anywhere (issue 29): a real SIGINT to a real ``ntpcheck`` process in the middle of its work.

Each command must end with exit status 130, without a traceback, soon after the
signal, and verify/matrix must have written the finished part (JSON with
``"complete": false``).  The goal is one second; the bound asserted is
:data:`BOUND` seconds, so that a loaded machine (2 cores shared by several
runs) does not make the tests flaky.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

#: Seconds from the signal to the end of the process that the tests allow (the goal is 1 s).
BOUND = 5.0
#: Seconds a test waits for the process to reach its work before giving up.
START_LIMIT = 120.0


def _numba_loaded(pid: int) -> bool:
    """Whether the process has loaded numba's compiler library (so it is past the imports
    and in, or about to be in, the compiled training)."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "llvmlite" in f.read()
    except OSError:
        return False


def _interrupt(argv: list[str], cwd, ready: str | None = None, settle: float = 1.0, sig: int = signal.SIGINT,
               again: float | None = None):
    """Start ``python -m <argv>`` in ``cwd``, wait until a stderr line contains ``ready`` (None:
    until numba is loaded), then ``settle`` seconds more, send SIGINT; ``again``: send it again every
    ``again`` seconds while the command runs (as a user presses Ctrl-C again); return (exit status,
    seconds from the first signal to the end, stdout, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err: list[str] = []
    out: list[str] = []
    seen = threading.Event()

    def read_err() -> None:
        for line in proc.stderr:
            err.append(line)
            if ready is not None and ready in line:
                seen.set()

    readers = [threading.Thread(target=read_err), threading.Thread(target=lambda: out.extend(proc.stdout))]
    for t in readers:
        t.start()
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < START_LIMIT and proc.poll() is None:
            if seen.is_set() if ready is not None else _numba_loaded(proc.pid):
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"finished before the signal: {''.join(err)[-2000:]}"
        time.sleep(settle)
        sent = time.monotonic()
        proc.send_signal(sig)
        while again is not None and time.monotonic() - sent < 60:
            try:
                proc.wait(timeout=again)
                break
            except subprocess.TimeoutExpired:
                proc.send_signal(sig)
        rc = proc.wait(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for t in readers:
            t.join()
    return rc, took, "".join(out), "".join(err)


def _assert_clean(rc: int, took: float, err: str, status: int = 130) -> None:
    assert rc == status, err[-2000:]
    assert "Traceback" not in err and "Exception ignored" not in err, err[-3000:]
    assert took < BOUND, f"{took:.2f} s from the signal to the end (goal 1 s)"


def test_ctrl_c_in_compiled_training(tmp_path):
    """``train`` with a stage of 50 million compiled steps (about a minute) stops at once."""
    rc, took, out, err = _interrupt(["ntpcheck", "train", "example1", "--T", "50000000", "--T2", "10"], tmp_path)
    _assert_clean(rc, took, err)
    assert "ntpcheck: interrupted" in err


@pytest.mark.parametrize("extra", [[], ["--axis", "algorithm"]], ids=["assumption", "algorithm"])
def test_ctrl_c_in_matrix_writes_the_finished_cells(tmp_path, extra):
    """The matrix (both axes) interrupted after its first cell: the finished cells are printed
    (a partial row is drawn, not a KeyError) and written with ``complete: false``."""
    claims = "Lemma 5 [trained W_ov]" if extra else "Lemma 5"
    rc, took, out, err = _interrupt(["ntpcheck", "matrix", "--claims", claims, "--profile", "quick", "--json", "out.json", *extra],
                                    tmp_path, ready="[1/", settle=0.3)
    _assert_clean(rc, took, err)
    d = json.loads((tmp_path / "out.json").read_text())
    assert d["complete"] is False and len(d["rows"]) >= 1
    assert "cells finished; writing those" in err


def test_ctrl_c_in_verify_writes_the_finished_claims(tmp_path):
    rc, took, out, err = _interrupt(["ntpcheck", "verify", "--profile", "quick", "--json", "out.json", "--report", "rep"],
                                    tmp_path, ready="[1/", settle=0.3)
    _assert_clean(rc, took, err)
    d = json.loads((tmp_path / "out.json").read_text())
    assert d["complete"] is False and 1 <= len(d["claims"])
    assert "Incomplete" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.parametrize("command, sig", [("verify", signal.SIGTERM), ("matrix", signal.SIGTERM), ("verify", signal.SIGHUP)],
                         ids=["verify-TERM", "matrix-TERM", "verify-HUP"])
def test_sigterm_is_a_polite_stop(tmp_path, command, sig):
    """SIGTERM (how Slurm or Kubernetes stop a job) or SIGHUP (a dropped ssh session) after the first
    claim: the finished part is written as for Ctrl-C, with no traceback, and the status is 128 + the
    signal (143, 129), not -15 (issue 42)."""
    argv = (["verify", "--profile", "quick"] if command == "verify" else ["matrix", "--claims", "Lemma 5", "--profile", "quick"])
    rc, took, out, err = _interrupt(["ntpcheck", *argv, "--json", "out.json"], tmp_path, ready="[1/", settle=0.3, sig=sig)
    _assert_clean(rc, took, err, status=128 + int(sig))
    d = json.loads((tmp_path / "out.json").read_text())
    assert d["complete"] is False and len(d["claims" if command == "verify" else "rows"]) >= 1


@pytest.mark.parametrize("argv, ready, written", [
    (["train", "example1", "--T", "50000000", "--T2", "10"], None, None),
    (["campaign", "--claims", "Lemma 1", "--profile", "quick", "--minutes", "5", "--file", "c.jsonl"], "drawing for", "c.jsonl"),
], ids=["train", "campaign"])
def test_sigterm_in_train_and_campaign(tmp_path, argv, ready, written):
    """Issue 42's acceptance: SIGTERM to ``train`` and ``campaign`` ends them as Ctrl-C does, with 143;
    the campaign keeps the batches it finished."""
    rc, took, out, err = _interrupt(["ntpcheck", *argv], tmp_path, ready=ready, settle=3.0 if written else 1.0,
                                    sig=signal.SIGTERM)
    _assert_clean(rc, took, err, status=143)
    if written:
        for line in (tmp_path / written).read_text().splitlines():
            json.loads(line)  # every line whole


@pytest.mark.parametrize("argv, ready", [
    # Just after the first polished CLARABEL line.  OSQP and SCS (which come with cvxpy) and ECOS
    # install their own SIGINT handler while they solve: a Ctrl-C landing inside one of their solves
    # is taken by it (OSQP and SCS even finish the solve as if nothing happened), so it never reaches
    # Python.  On a loaded machine the signal can land there; a user then presses Ctrl-C again, and
    # so does the test, every second until it stops (each of bench's solves here lasts at most about 2 s).
    (["ntpcheck", "bench", "--sizes", "10,100,400", "--repeat", "3", "--json", "b.json"], "|V|=10 CLARABEL+polish"),
    (["ntpcheck", "reproduce", "figure2", "--trials", "40"], None),
    (["pytest", "--ntpcheck", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--ntp-profile", "quick"], None),
], ids=["bench", "reproduce", "pytest-plugin"])
def test_ctrl_c_in_other_commands(tmp_path, argv, ready):
    """bench, reproduce and ``pytest --ntpcheck``: 130, promptly, no traceback (nothing half-written)."""
    bench = "bench" in argv
    rc, took, out, err = _interrupt(argv, tmp_path, ready=ready, settle=0.0 if bench else 0.5, again=1.0 if bench else None)
    _assert_clean(rc, took, err)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".ntpcheck-")]


@pytest.mark.parametrize("delay", [0.4, 0.8])
def test_ctrl_c_while_the_command_starts(tmp_path, delay):
    """The installed ``ntpcheck`` script, interrupted while its modules load (before any work):
    one line, 130.  (Python's own start, the first tens of milliseconds, is out of reach: a
    Ctrl-C then is Python's.  A stale script from before ``ntpcheck.app.cli.command`` needs
    ``pip install -e .``.)"""
    script = os.path.join(os.path.dirname(sys.executable), "ntpcheck")
    if not os.path.exists(script):
        pytest.skip("no ntpcheck script beside this Python")
    proc = subprocess.Popen([script, "verify", "--profile", "quick"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
