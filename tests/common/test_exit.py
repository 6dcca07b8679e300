"""How a command's process ends (:func:`ntpcheck.common.interrupt.run_command` with ``argv`` None):
at once, without the interpreter's teardown (issue 43, seventh round), yet with its ``atexit``
functions run, its output flushed, its exit status kept, and a running thread waited for."""

from __future__ import annotations

import subprocess
import sys

import pytest

PRELUDE = "import atexit, sys, threading, time\nfrom ntpcheck.common import interrupt\n"


def _run(body: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("status", [0, 1, 2])
def test_a_command_ends_with_its_status_its_output_and_its_atexit_functions(status):
    p = _run("atexit.register(lambda: print('atexit ran', flush=False))\n"
             "def run(argv):\n"
             "    sys.stdout.write('written, not flushed'); sys.stderr.write('to stderr')\n"
             f"    return {status}\n"
             "interrupt.run_command(run, None, 130)\n"
             "print('not reached: the process ended in run_command')\n")
    assert p.returncode == status
    assert p.stdout == "written, not flushedatexit ran\n" and p.stderr == "to stderr"


def test_a_thread_still_running_is_waited_for():
    p = _run("def run(argv):\n"
             "    threading.Thread(target=lambda: (time.sleep(0.3), print('thread done'))).start()\n"
             "    return 3\n"
             "sys.exit(interrupt.run_command(run, None, 130))\n")
    assert (p.returncode, p.stdout) == (3, "thread done\n")


def test_a_closed_standard_output_ends_quietly():
    """``ntpcheck ... >&-``: Python sets ``sys.stdout`` to None."""
    p = _run("sys.stdout = None\n"
             "interrupt.run_command(lambda argv: 0, None, 130)\n")
    assert (p.returncode, p.stderr) == (0, "")
