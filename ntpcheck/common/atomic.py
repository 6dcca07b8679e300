"""Safe file output: every file ntpcheck writes appears whole or not at all, and nothing
the user had is destroyed.

* A regular file is written to a temporary file beside it and renamed over it
  (:func:`atomic_write_bytes`), so it is never half-written.  A new file gets
  the permissions ``open(path, "w")`` would give it (``0o666`` minus the
  umask, not ``mkstemp``'s ``0o600``); a replaced one keeps its own.
* A symbolic link is followed: its target is replaced and the link kept.
* A character device or FIFO (``/dev/null``, a named pipe read by another
  program) is written through as a stream, never replaced by a regular file;
  other special files (block devices, sockets) are refused (:func:`output_kind`).
* A directory of outputs (a report) is written only into a new or empty
  directory (:func:`fresh_directory`): nothing already there is ever removed.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from contextlib import contextmanager, suppress
from collections.abc import Iterable, Iterator

from .errors import OutputPathError

__all__ = ["atomic_write_bytes", "atomic_write_chunks", "atomic_write_text", "output_kind", "not_empty", "fresh_directory",
           "remove_stale_temporaries", "published_directory", "STREAM", "FILE", "NEW"]

#: :func:`output_kind`'s answers: written through as a stream, replaced atomically, created.
STREAM, FILE, NEW = "stream", "file", "new"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def output_kind(path: str) -> str:
    """How ``path`` (symbolic links followed) is written: :data:`STREAM` (a character device
    or FIFO), :data:`FILE` (an existing regular file) or :data:`NEW` (nothing there yet).

    Raises :class:`OutputPathError` for a directory, a block device or a socket.

    Examples
    --------
    >>> output_kind("/dev/null"), output_kind("/nonexistent-ntpcheck-file")
    ('stream', 'new')
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # not there (a path through a file: its caller says why)
        return NEW
    if stat.S_ISREG(mode):
        return FILE
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return STREAM
    what = "a directory" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode) else "a socket or other special file"
    raise OutputPathError(f"{path}: is {what}, not a file ntpcheck can write")


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``: through a temporary file and ``os.replace`` (no half-written
    files) for a regular or new file, the target of a symbolic link (the link is kept); as a
    stream for a character device or FIFO.  An error names ``path``, never the temporary file."""
    atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: str, chunks: Iterable[bytes], *, create_dirs: bool = True) -> None:
    """:func:`atomic_write_bytes` of the pieces ``chunks`` yields, written as they come
    (a large document is never held whole).  Missing directories are created, unless
    ``create_dirs`` is false (a file whose directory was checked when the run began: if that
    directory was removed since, :class:`OSError` says so and nothing is recreated)."""
    real = os.path.realpath(path)
    try:
        if output_kind(real) == STREAM:
            with open(real, "wb") as f:
                f.writelines(chunks)
            return
        _replace(real, chunks, create_dirs)
    except OSError as e:
        raise OSError(e.errno, e.strerror, path) from None


def _replace(real: str, chunks: Iterable[bytes], create_dirs: bool) -> None:
    """Write ``chunks`` to the regular file ``real`` via a temporary file in its directory."""
    d = os.path.dirname(real)
    if not create_dirs and not os.path.isdir(d):  # checked when the run began: removed since, never recreated unasked
        raise OSError(errno.ENOENT, f"its directory {d} no longer exists (removed during the run?); nothing was written")
    os.makedirs(d, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    remove_stale_temporaries(d)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".ntpcheck-{os.getpid()}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(chunks)
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


_TEMPORARY = re.compile(r"^\.ntpcheck-(\d+)-[^/]*\.tmp$")


def remove_stale_temporaries(directory: str) -> list[str]:
    """Remove the temporary files that a killed ntpcheck left in ``directory`` (SIGKILL skips every
    clean-up): only names ntpcheck makes, ``.ntpcheck-<pid>-*.tmp``, and only where process
    ``<pid>`` no longer exists (a live one, another user's included, may be writing it).  Returns
    the names removed.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> for name in (".ntpcheck-999999999-x.tmp", f".ntpcheck-{os.getpid()}-y.tmp", "notes.tmp"):
    ...     open(os.path.join(d, name), "w").close()
    >>> remove_stale_temporaries(d), sorted(os.listdir(d))[1:]
    (['.ntpcheck-999999999-x.tmp'], ['notes.tmp'])
    """
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        m = _TEMPORARY.match(name)
        if not m or _alive(int(m.group(1))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
            removed.append(name)
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one we may not signal exists too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError) as e:
        return not isinstance(e, OverflowError)
    return True


def atomic_write_text(path: str, text: str) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


@contextmanager
def published_directory(path: str) -> Iterator[str]:
    """Fill a new or empty directory ``path`` all at once: the block writes into a staging
    directory beside it, which then replaces the empty ``path`` in one ``rename`` (so two runs
    given the same directory never mix their files, and a run killed midway leaves ``path``
    empty).  If another run filled ``path`` meanwhile, this run's files are kept under
    ``path.ntpcheck-<pid>`` and :class:`OutputPathError` says where: nothing is lost.

    Examples
    --------
    >>> import tempfile, os
    >>> d = os.path.join(tempfile.mkdtemp(), "report")
    >>> with published_directory(d) as staging:
    ...     open(os.path.join(staging, "a.txt"), "w").close()
    >>> os.listdir(d)
    ['a.txt']
    """
    created = not os.path.isdir(path)
    fresh_directory(path)
    real = os.path.realpath(path)
    staging = tempfile.mkdtemp(dir=os.path.dirname(real), prefix=f".ntpcheck-{os.getpid()}-", suffix=".staging")
    try:
        yield staging
    except BaseException as e:
        shutil.rmtree(staging, ignore_errors=True)
        if created:  # leave no empty directory of ours behind
            with suppress(OSError):
                os.rmdir(real)
        if isinstance(e, OSError) and not isinstance(e, OutputPathError):  # name the output, not the staging file
            inside = os.path.relpath(e.filename, staging) if isinstance(e.filename, str) and e.filename.startswith(staging) else None
            what = f"could not write {inside} ({e.strerror})" if inside else f"could not be written ({e.strerror or e})"
            raise OutputPathError(f"{path}: {what}; nothing was written there") from None
        raise
    try:
        os.chmod(staging, 0o777 & ~_umask())
        os.rename(staging, real)  # replaces an empty directory; refused if it is not empty any more
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            shutil.rmtree(staging, ignore_errors=True)
            raise OutputPathError(f"{path}: cannot move the written files into it ({e.strerror})") from None
        keep = f"{real}.ntpcheck-{os.getpid()}"
        os.rename(staging, keep)
        raise OutputPathError(f"{path} was filled by another run meanwhile; this run's files are in {keep}") from None


def not_empty(path: str) -> str | None:
    """Why the directory ``path`` cannot take a report (``is not empty (...); ...``), or None if empty."""
    entries = sorted(os.listdir(path))
    if not entries:
        return None
    shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
    return (f"is not empty ({len(entries)} entr{'y' if len(entries) == 1 else 'ies'}: {shown}); ntpcheck writes only "
            "into a new or empty directory and never deletes anything: choose another directory, or empty this one yourself")


def fresh_directory(path: str) -> str:
    """Create ``path`` (and its parents), or accept it if it is an empty directory, and return
    it; raise :class:`OutputPathError` if it holds anything: ntpcheck never writes into, let
    alone replaces, a directory with someone's files in it.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> fresh_directory(os.path.join(d, "report")) == os.path.join(d, "report")
    True
    >>> open(os.path.join(d, "report", "notes.tex"), "w").close()
    >>> fresh_directory(os.path.join(d, "report"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ntpcheck.common.errors.OutputPathError: ... is not empty (1 entry: notes.tex); ...
    """
    if os.path.isdir(path):
        reason = not_empty(path)
        if reason:
            raise OutputPathError(f"{path} {reason}")
        return path
    try:
        os.makedirs(path)
    except OSError as e:
        raise OutputPathError(f"{path}: cannot create it ({e.strerror})") from None
    return path
