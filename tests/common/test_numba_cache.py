"""A shared, read-only install (issue 42): numba needs a writable cache folder for its ``cache=True``
kernels; where neither the package's ``__pycache__`` nor ``~/.cache`` is writable (a service account,
``HOME=/nonexistent``) ``ntpcheck.common.numba_cache`` points ``NUMBA_CACHE_DIR`` at a private temporary
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
    out = _python("import os, ntpcheck.common.numba_cache as m\n"
                  "m._writable = lambda folder: False\n"
                  "print(m.ensure_cache_dir() == os.environ['NUMBA_CACHE_DIR'], os.environ['NUMBA_CACHE_DIR'])\n"
                  "from ntpcheck.transformer.kernels.loops import copy1\n"           # the kernel the traceback named
                  "import numpy as np; a = np.zeros(3); copy1(a, np.ones(3), 3); print(a.sum())", HOME="/nonexistent")
    first, second = out.splitlines()
    assert first.startswith("True ") and "ntpcheck-numba-" in first and second == "3.0"


def test_an_explicit_cache_dir_wins(tmp_path):
    out = _python("import os, ntpcheck.common.numba_cache as m\nm._writable = lambda folder: False\n"
                  "print(m.ensure_cache_dir(), os.environ['NUMBA_CACHE_DIR'])", NUMBA_CACHE_DIR=str(tmp_path))
    assert out == f"None {tmp_path}"


def test_a_writable_install_is_left_alone():
    assert _python("import ntpcheck.common.numba_cache as m\nm._writable = lambda folder: True\nprint(m.ensure_cache_dir())") == "None"


def _read_only_install_runs(argv: list[str], cwd) -> subprocess.CompletedProcess:
    """``python -m ntpcheck.app.cli.cli argv`` in a private mount namespace where the source tree and the
    Python installation are mounted read-only (root cannot write there either: EROFS) and ``HOME``
    names a folder that does not exist and cannot be created: a service account on a shared install."""
    import shutil

    import ntpcheck

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        import pytest

        pytest.skip("needs root and unshare(1) to mount the install read-only")
    tree = os.path.dirname(os.path.dirname(os.path.abspath(ntpcheck.__file__)))
    places = sorted({tree, os.path.realpath(sys.prefix)})
    mounts = " && ".join(f"mount --bind {p} {p} && mount -o remount,ro,bind {p}" for p in places)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"HOME": os.path.join(tree, "no-such-home")}
    script = f"{mounts} || exit 97; exec {sys.executable} -m ntpcheck.app.cli.cli {' '.join(argv)}"
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    if p.returncode == 97 or "unshare failed" in p.stderr:
        import pytest

        pytest.skip(f"cannot mount read-only here: {p.stderr.strip()[-200:]}")
    return p


def test_check_and_verify_from_a_read_only_install_without_home(tmp_path):
    """Issue 42's acceptance: ``check`` and ``verify --profile quick`` (a claim that trains with the
    compiled kernels) as a user with no home on a read-only install: no 'cannot cache function'."""
    check = _read_only_install_runs(["check", "example1"], tmp_path)
    assert check.returncode == 0 and "Traceback" not in check.stderr and "[holds]" in check.stdout, check.stderr[-3000:]
    verify = _read_only_install_runs(["verify", "--profile", "quick", "--workers", "1", "--claims", "'Lemma 1,Thm. 1'"], tmp_path)
    assert verify.returncode == 0 and "Traceback" not in verify.stderr, verify.stderr[-3000:]
    assert "checked in" in verify.stderr
