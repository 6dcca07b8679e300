"""Token embeddings: the columns of a ``d x |V|`` matrix ``E``.

Column ``i`` of ``E`` is the embedding of token ``i``; a sentence is
``X = E[:, tokens]``.  Assumption 2 of the paper asks for orthonormal
embeddings (``E^T E = I``, which needs ``d >= |V|``).  The canonical basis
(``E = I``, ``d = |V|``) is the default everywhere.
"""

from __future__ import annotations

import math
import os
import re
from functools import lru_cache
from typing import Callable, Iterable

import numpy as np

from ntpcheck.common.errors import EmbeddingError

__all__ = [
    "canonical",
    "random_orthonormal",
    "as_embeddings",
    "orthonormality_defect",
    "is_orthonormal",
    "require_orthonormal",
    "is_canonical",
    "ORTHONORMAL_TOL",
    "parse_rows",
    "load_embeddings",
]

#: Largest entry of ``|E^T E - I|`` accepted as orthonormal.  Orthonormal
#: matrices built in float64 (QR) have defects of a few 1e-16 per entry times
#: sqrt(d); 1e-9 leaves room for user-written matrices with 12+ digits.
ORTHONORMAL_TOL = 1e-9


@lru_cache(maxsize=4)
def canonical(n_vocab: int) -> np.ndarray:
    """The canonical basis ``e_1..e_|V|`` as an identity matrix (read-only, shared per size,
    so that :func:`is_canonical` recognises it without comparing entries)."""
    E = np.eye(n_vocab)
    E.setflags(write=False)
    return E


def random_orthonormal(n_vocab: int, d: int | None = None, seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Random orthonormal embeddings of ``n_vocab`` tokens in ``R^d`` (``d >= |V|``).

    The columns are the first ``|V|`` columns of the Q factor of a Gaussian
    matrix (sign-corrected, so the distribution is Haar).
    """
    d = n_vocab if d is None else int(d)
    if d < n_vocab:
        raise EmbeddingError(f"orthonormal embeddings of {n_vocab} tokens need d >= {n_vocab}, got d = {d}")
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.standard_normal((d, n_vocab)))
    return q * np.sign(np.diag(r))


def as_embeddings(E: np.ndarray | None, n_vocab: int) -> np.ndarray:
    """Validate an embedding matrix (``None`` means canonical); returns float64 ``d x |V|``."""
    if E is None:
        return canonical(n_vocab)
    E = np.asarray(E, dtype=float)
    if E.ndim != 2 or E.shape[1] != n_vocab:
        raise EmbeddingError(f"embeddings must be a d x |V| matrix with |V| = {n_vocab} columns, got shape {E.shape}")
    if not np.all(np.isfinite(E)):
        raise EmbeddingError("embeddings contain NaN or infinite entries")
    return E


def is_canonical(E: np.ndarray) -> bool:
    """Whether ``E`` is the canonical basis (identity), which allows index gathers for products."""
    if E.ndim != 2 or E.shape[0] != E.shape[1]:
        return False
    if E is canonical(E.shape[0]):
        return True
    return bool(np.all(E.diagonal() == 1.0)) and np.count_nonzero(E) == E.shape[0]


def orthonormality_defect(E: np.ndarray) -> float:
    """``max |E^T E - I|``: 0 for orthonormal embeddings (the canonical basis without a product)."""
    if is_canonical(E):
        return 0.0
    G = E.T @ E
    return float(np.max(np.abs(G - np.eye(G.shape[0]))))


def is_orthonormal(E: np.ndarray, tol: float = ORTHONORMAL_TOL) -> bool:
    """Whether Assumption 2 holds for ``E`` up to ``tol``."""
    return E.shape[0] >= E.shape[1] and orthonormality_defect(E) <= tol


def require_orthonormal(E: np.ndarray, what: str, tol: float = ORTHONORMAL_TOL) -> None:
    """Raise :class:`EmbeddingError` naming Assumption 2 unless ``E`` is orthonormal."""
    d, n = E.shape
    if d < n:
        raise EmbeddingError(f"{what} needs orthonormal embeddings (Assumption 2), but d = {d} < |V| = {n}")
    defect = orthonormality_defect(E)
    if defect > tol:
        raise EmbeddingError(
            f"{what} needs orthonormal embeddings (Assumption 2), but max |E^T E - I| = {defect:.3g} > {tol:g}"
        )


#: Largest embeddings file read (bytes), as for a dataset file.
MAX_EMBEDDINGS_BYTES = 256 * 2**20


def parse_rows(rows: Iterable[tuple[int, str]], fail: Callable[[str, int], Exception]) -> np.ndarray:
    """A matrix from numbered text rows of numbers separated by whitespace or commas.

    ``rows`` are ``(line number, text)``; ``fail(message, line)`` builds the error
    raised on a word that is not a finite number or on a ragged row (which names
    both row lengths).  Used for embeddings files and a dataset header's inline matrix.

    Examples
    --------
    >>> parse_rows([(1, "1 0"), (2, "0, 1")], ValueError).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> parse_rows([(1, "1 0 0"), (3, "0 1")], lambda m, line: ValueError(f"line {line}: {m}"))
    Traceback (most recent call last):
    ValueError: line 3: row 2 has 2 numbers, row 1 has 3
    """
    out: list[list[float]] = []
    for lineno, text in rows:
        row = []
        for word in text.replace(",", " ").split():
            try:
                v = float(word)
            except ValueError:
                raise fail(f"{word!r} is not a number", lineno) from None
            if not math.isfinite(v):
                raise fail(f"{word!r} is not a finite number", lineno)
            row.append(v)
        if out and len(row) != len(out[0]):
            raise fail(f"row {len(out) + 1} has {len(row)} numbers, row 1 has {len(out[0])}", lineno)
        out.append(row)
    if not out or not out[0]:
        raise fail("contains no numbers", None)
    return np.array(out, dtype=float)


def load_embeddings(path: str | os.PathLike, n_vocab: int | None = None) -> np.ndarray:
    """Read a ``d x |V|`` matrix from a text file: one row per line, numbers separated by
    whitespace or commas, ``#`` comments and blank lines skipped, a UTF-8 byte-order mark
    and LF, CRLF or CR line ends accepted (as in dataset files).  Errors name the file
    and line (:class:`EmbeddingError`); with ``n_vocab`` the shape is checked too."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_EMBEDDINGS_BYTES + 1)
    except OSError as e:
        raise EmbeddingError(f"cannot read embeddings from {str(path)!r}: {e.strerror or e}") from None
    if len(raw) > MAX_EMBEDDINGS_BYTES:
        raise EmbeddingError(f"embeddings file {str(path)!r} is larger than {MAX_EMBEDDINGS_BYTES // 2**20} MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise EmbeddingError(f"embeddings file {str(path)!r}, line {line}: not valid UTF-8 text") from None

    def fail(message: str, line: int | None) -> EmbeddingError:
        where = f", line {line}" if line else ""
        return EmbeddingError(f"embeddings file {str(path)!r}{where}: {message}")

    numbered = ((k, line.split("#", 1)[0]) for k, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1))
    E = parse_rows(((k, line) for k, line in numbered if line.strip()), fail)
    return E if n_vocab is None else as_embeddings(E, n_vocab)
