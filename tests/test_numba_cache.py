"""A shared, read-only install (issue 42): numba needs a writable cache folder for its ``cache=True``
kernels; where neither the package's ``__pycache__`` nor ``~/.cache`` is writable (a service account,
``HOME=/nonexistent``) ``ntpcheck.numba_cache`` points ``NUMBA_CACHE_DIR`` at a private temporary
folder, before numba is imported.  (As root every folder is writable, so the unwritable case is
simulated by the probe's answer, in a fresh interpreter.)"""

from __future__ import annotations

import os
import subprocess
import sys


def _python(code: str, **env) -> str:
    full = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | env
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, check=True,
                          timeout=300).stdout.strip()


def test_nowhere_writable_gets_a_private_temporary_folder():
    out = _python("import os, ntpcheck.numba_cache as m\n"
                  "m._writable = lambda folder: False\n"
                  "print(m.ensure_cache_dir() == os.environ['NUMBA_CACHE_DIR'], os.environ['NUMBA_CACHE_DIR'])\n"
                  "from ntpcheck.kernels.loops import copy1\n"           # the kernel the traceback named
                  "import numpy as np; a = np.zeros(3); copy1(a, np.ones(3), 3); print(a.sum())", HOME="/nonexistent")
    first, second = out.splitlines()
    assert first.startswith("True ") and "ntpcheck-numba-" in first and second == "3.0"


def test_an_explicit_cache_dir_wins(tmp_path):
    out = _python("import os, ntpcheck.numba_cache as m\nm._writable = lambda folder: False\n"
                  "print(m.ensure_cache_dir(), os.environ['NUMBA_CACHE_DIR'])", NUMBA_CACHE_DIR=str(tmp_path))
    assert out == f"None {tmp_path}"


def test_a_writable_install_is_left_alone():
    assert _python("import ntpcheck.numba_cache as m\nm._writable = lambda folder: True\nprint(m.ensure_cache_dir())") == "None"
