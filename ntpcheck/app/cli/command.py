"""The ``ntpcheck`` command's entry point (and ``python -m ntpcheck``'s).

It installs the Ctrl-C handler of :mod:`ntpcheck.common.interrupt` before the command
line's modules load (numpy, the claims, Hypothesis: about a second), so that a
Ctrl-C even then ends with one line and exit status 130, never a traceback.
"""

from __future__ import annotations

import sys

from ntpcheck.common import interrupt

__all__ = ["main"]


def main() -> int:
    """Run ``ntpcheck`` with ``sys.argv`` (:func:`ntpcheck.app.cli.cli.main`) and return its exit status."""
    interrupt.install()
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        print("ntpcheck: interrupted", file=sys.stderr)
        return 130
    return run()
