"""Where the CLI's outputs go, checked before any work: JSON that strict parsers
accept, output paths validated up front, ``-`` meaning standard output.

Every JSON document carries ``schema_version`` (:data:`SCHEMA_VERSION`) and
``versions`` (:func:`ntpcheck.common.versions.package_versions`).  Non-finite
numbers (a diverged training run) become ``null``, and ``non_finite`` lists
where and what they were, so the document stays strict JSON.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping

import numpy as np
import orjson

from ntpcheck.common.atomic import STREAM, atomic_write_chunks, not_empty, output_kind
from ntpcheck.common.errors import OutputPathError
from ntpcheck.common.versions import package_versions

__all__ = ["SCHEMA_VERSION", "INTERRUPTED", "ColumnTable", "strict", "json_chunks", "json_text", "check_output_file", "check_output_dir", "write_json"]

#: Version of the JSON documents' layout (bumped when a field changes meaning or goes away).
SCHEMA_VERSION = 1
from ntpcheck.common.interrupt import INTERRUPTED  # noqa: E402  (re-exported: the status every command gives after Ctrl-C)


class ColumnTable(Mapping):
    """``{column: {row: M[row, position of column]}}`` over a matrix, one column built at a time.

    ``solve --json`` at |V| = 2000 writes three |V| x |V| tables; held as
    dicts of Python floats they took 0.8 GB.  :func:`json_chunks` streams a
    table column by column instead.
    """

    def __init__(self, M: np.ndarray, rows, cols, positions=None) -> None:
        self.M, self.rows, self.cols = M, list(rows), list(cols)
        self.positions = np.arange(len(self.cols)) if positions is None else np.asarray(positions, dtype=np.int64)
        self._at = dict(zip(self.cols, self.positions.tolist()))

    def __getitem__(self, col) -> dict:
        return dict(zip(self.rows, self.M[:, self._at[col]].tolist()))

    def __iter__(self):
        return iter(self.cols)

    def __len__(self) -> int:
        return len(self.cols)

    def finite(self) -> bool:
        return bool(np.isfinite(self.M[:, self.positions]).all())


_ATOMS = frozenset({str, int, bool, type(None)})


def _plain_atoms(values) -> bool:
    """Whether every value is already a plain JSON value: all finite Python floats, or all of
    ``str``, ``int``, ``bool``, ``None`` (checked at C speed: a |V| x |V| table of ``solve
    --json`` has millions of floats, ``check --json`` on a long line millions of token names).

    Examples
    --------
    >>> _plain_atoms([1.0, 2.5]), _plain_atoms(["a", 1, None]), _plain_atoms([1.0, "a"]), _plain_atoms([float("nan")])
    (True, True, False, False)
    """
    kinds = set(map(type, values))
    if kinds <= {float}:
        return all(map(math.isfinite, values))
    return kinds <= _ATOMS


def _plain(x, path: str, bad: list[str]):
    if isinstance(x, ColumnTable):
        x = {c: x[c] for c in x}
    if isinstance(x, dict):
        if set(map(type, x)) <= {str} and _plain_atoms(x.values()):
            return x  # a table of numbers (or names), already plain
        return {str(k): _plain(v, f"{path}.{k}" if path else str(k), bad) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        if _plain_atoms(x):
            return list(x)
        return [_plain(v, f"{path}[{i}]", bad) for i, v in enumerate(x)]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist(), path, bad)
    if isinstance(x, (np.floating, float)):
        v = float(x)
        if not math.isfinite(v):
            bad.append(f"{path}: {v}")
            return None
        return v
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if x is None or isinstance(x, (str, int, bool)):
        return x
    return str(x)


def strict(obj: dict) -> dict:
    """``obj`` as plain JSON values, with ``schema_version``, ``versions`` and, if any number
    was NaN or infinite, ``non_finite`` (``"path: value"``; the value itself becomes null).

    Examples
    --------
    >>> d = strict({"loss": float("inf"), "curve": [1.0, float("nan")]})
    >>> d["loss"], d["curve"], d["non_finite"]
    (None, [1.0, None], ['loss: inf', 'curve[1]: nan'])
    """
    bad: list[str] = []
    out = {"schema_version": SCHEMA_VERSION, **_plain(obj, "", bad)}
    out.setdefault("versions", package_versions())
    if bad:
        out["non_finite"] = bad
    return out


def json_chunks(obj: dict, compact: bool = False) -> Iterator[bytes]:
    """Strict JSON of :func:`strict` ``(obj)`` in pieces (``compact``: no indentation).

    Encoded by orjson (ten times the standard library's speed on the millions
    of numbers of ``solve --json`` at |V| = 2000; the standard library takes
    over for what orjson refuses, integers beyond 64 bits).  Under ``compact``
    the top-level :class:`ColumnTable` values with only finite entries are
    written last, one column a piece, without building them whole.
    """
    streamed = {k: v for k, v in obj.items() if compact and isinstance(v, ColumnTable) and v.finite()}
    plain = strict({k: v for k, v in obj.items() if k not in streamed})
    try:
        head = orjson.dumps(plain, option=0 if compact else orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        head = json.dumps(plain, indent=None if compact else 2, allow_nan=False).encode()
    if not streamed:
        yield head
        return
    yield head[:-1]  # without its closing brace (never empty: it has schema_version)
    for key, table in streamed.items():
        yield b"," + orjson.dumps(key) + b":{"
        for i, col in enumerate(table):
            yield (b"," if i else b"") + orjson.dumps(col) + b":" + orjson.dumps(table[col])
        yield b"}"
    yield b"}"


def json_text(obj: dict, compact: bool = False) -> str:
    """:func:`json_chunks` as one string."""
    return b"".join(json_chunks(obj, compact)).decode()


def _where(path: str, real: str) -> str:
    """``path`` as the user gave it, and where a symbolic link leads if it does."""
    return path if os.path.abspath(path) == real else f"{path} (-> {real})"


def _probe(directory: str, path: str, option: str) -> None:
    """Raise :class:`OutputPathError` unless a file can be created in ``directory``: tried for
    real, with a temporary file removed at once (``os.access`` says yes to root everywhere,
    also on read-only file systems and under ``/proc``)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".ntpcheck-probe-")
    except OSError as e:
        raise OutputPathError(f"{option} {path}: cannot write in {directory} ({e.strerror})") from None
    os.close(fd)
    os.unlink(tmp)


def check_output_file(path: str | None, option: str) -> None:
    """Raise :class:`OutputPathError` unless ``path`` (a file to be written; ``-`` is standard
    output) can be written, before any work is done.

    A symbolic link is followed (its target is checked, and later replaced; the link is kept).
    A character device or FIFO is accepted as a stream (written through, never replaced).
    A directory, a block device or a socket is refused, and so is a path whose directory is
    missing or cannot be written in (tried with a real file: :func:`_probe`).  Every message
    names ``path`` as given.
    """
    if path is None or path == "-":
        return
    if path == "":
        raise OutputPathError(f"{option}: empty path")
    real = os.path.realpath(path)
    try:
        kind = output_kind(real)
    except OutputPathError as e:
        raise OutputPathError(f"{option} {_where(path, real)}: {str(e).split(': ', 1)[-1]}") from None
    if kind == STREAM:
        return
    parent = os.path.dirname(real)
    if not os.path.isdir(parent):
        what = "is not a directory" if os.path.exists(parent) else "does not exist"
        raise OutputPathError(f"{option} {path}: {parent} {what}")
    _probe(parent, path, option)


def check_output_dir(path: str | None, option: str, empty: bool = True) -> None:
    """Raise :class:`OutputPathError` unless ``path`` is, or can be created as, a directory that
    can be written in, before any work is done; with ``empty`` (``--report``) an existing
    directory must also be empty (:func:`ntpcheck.common.atomic.fresh_directory`: nothing the user had
    is ever overwritten or deleted)."""
    if path is None:
        return
    if path == "":
        raise OutputPathError(f"{option}: empty path")
    real = os.path.realpath(path)
    if os.path.exists(real):
        if not os.path.isdir(real):
            raise OutputPathError(f"{option} {path}: exists and is not a directory")
        reason = not_empty(real) if empty else None
        if reason:
            raise OutputPathError(f"{option} {_where(path, real)} {reason}")
        _probe(real, path, option)
        return
    parent = os.path.dirname(real)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise OutputPathError(f"{option} {path}: {parent} is not a directory")
    _probe(parent, path, option)


def write_json(path: str | None, obj: dict, compact: bool = False) -> None:
    """Write the strict JSON of ``obj`` (:func:`json_chunks`: large tables streamed under
    ``compact``) to ``path`` (``-``: standard output; None: nowhere), a file atomically."""
    if not path:
        return
    chunks = itertools.chain(json_chunks(obj, compact), [b"\n"])
    if path == "-":
        raw = getattr(sys.stdout, "buffer", None)  # the bytes as they are: no decoded copy of a large document
        sys.stdout.flush()
        if raw is None:  # a text-only stream (io.StringIO)
            sys.stdout.writelines(chunk.decode() for chunk in chunks)
        else:
            raw.writelines(chunks)
            raw.flush()
    else:
        atomic_write_chunks(path, chunks, create_dirs=False)  # its directory was checked before the run
