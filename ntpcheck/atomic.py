"""Atomic file output: every file ntpcheck writes appears whole or not at all.

Files get the permissions an ordinary ``open(path, "w")`` would give them
(``0o666`` minus the umask), not ``mkstemp``'s ``0o600``.  A directory of
outputs (a report) is written into a fresh sibling directory and swapped in
whole (:func:`atomic_directory`), so an interrupted run never leaves new
plots beside an old ``report.md``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

__all__ = ["atomic_write_bytes", "atomic_write_text", "atomic_directory"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and ``os.replace`` (no half-written files)."""
    d = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".ntpcheck-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str, text: str) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


@contextlib.contextmanager
def atomic_directory(path: str):
    """Yield a fresh temporary directory beside ``path``; on success it replaces ``path``
    as a whole (an old ``path`` is removed), on any error or interrupt it is removed
    and ``path`` is left as it was."""
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".ntpcheck-")
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        yield tmp
        old = None
        if os.path.exists(path):
            old = tempfile.mkdtemp(dir=parent, prefix=".ntpcheck-old-")
            os.replace(path, os.path.join(old, "d"))
        os.replace(tmp, path)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
