"""The text format of the linear model's data (Thrampoulidis 2024), read and written.

One line per distinct context: its embedding ``h̄_j``, then the tokens that
followed it with their counts (``x1`` may be left out)::

    # parameters: probe = 0, scale = 1.0
    vocab: A B C
    h = 1.0, 0.0 : A x2, B
    h = 0.0, 1.0 : C x3

Or App. C's form: one sequence per line (every prefix is a sample), with the
embedding of contexts named on an ``embedding:`` line (:mod:`.autoregressive`)::

    embedding: last, d = 2, seed = 0
    A B C
    A A B

Comments start with ``#``; the header lines ``# claim: NAME`` and
``# parameters: name = value, ...`` are read back, so a printed
counterexample replays on its own.  ``vocab:`` fixes the tokens and their
order (tokens that never follow a context must be named there).  Numbers are
written exactly (``repr``), so :func:`loads` ∘ :func:`dumps` is the identity.

Bad input is a :class:`~ntpcheck.common.errors.DatasetFormatError` naming the line:
a count that is not a positive integer (the data are counts, §2: ``n π̂_j p̂_{j,z}``
is the number of times ``z`` followed context ``j``, so a probability that is
not a count ratio cannot be written), a token listed twice after one context,
embeddings of different lengths or not finite, a token not in ``vocab:``,
sequences without an ``embedding:`` line, or both forms in one file.

Examples
--------
>>> inst = loads("vocab: A B C\\nh = 1, 0 : A x2, B\\nh = 0, 1 : C x3\\n")
>>> inst.data.counts.tolist(), inst.data.H.tolist()
([[2, 1, 0], [0, 0, 3]], [[1.0, 0.0], [0.0, 1.0]])
>>> print(dumps(inst), end="")
vocab: A B C
h = 1.0, 0.0 : A x2, B
h = 0.0, 1.0 : C x3
>>> loads(dumps(inst)).key == inst.key
True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ntpcheck.common.errors import DatasetFormatError

from .autoregressive import EMBEDDINGS
from .data import NTPData
from .instance import LinearInstance, _checked_params
from .textwriter import dumps  # re-exported: the format's reader and writer are one API

__all__ = ["Header", "loads", "load", "load_with_header", "dumps", "MAX_TOKENS", "MAX_DIM", "MAX_LINES"]

MAX_TOKENS = 2000
MAX_DIM = 5000
MAX_LINES = 20000

_TOKEN = re.compile(r"^[^\s#:,=]+$")


@dataclass(frozen=True)
class Header:
    """What a file's header gives: ``params`` (None if it has no ``parameters:`` line) and ``claim``."""

    params: dict[str, Any] | None = None
    claim: str | None = None


def _token(tok: str, line: int, source) -> str:
    if not _TOKEN.match(tok):
        raise DatasetFormatError(f"{tok!r} is not a token name (no spaces, '#', ':', ',' or '=')", line, source)
    return tok


def _number(text: str, what: str, line: int, source) -> float:
    try:
        x = float(text)
    except ValueError:
        raise DatasetFormatError(f"{what}: {text.strip()!r} is not a number", line, source) from None
    if not math.isfinite(x):
        raise DatasetFormatError(f"{what}: {text.strip()!r} is not finite", line, source)
    return x


def _assignments(text: str, line: int, source) -> dict[str, str]:
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise DatasetFormatError(f"expected 'name = value', got {part!r}", line, source)
        if name.strip() in out:
            raise DatasetFormatError(f"{name.strip()} is given twice", line, source)
        out[name.strip()] = value.strip()
    return out


def _count(entry: str, line: int, source) -> tuple[str, int]:
    words = entry.split()
    if len(words) == 1:
        return _token(words[0], line, source), 1
    m = re.fullmatch(r"x(.+)", words[-1]) if len(words) == 2 else None
    if m is None:
        raise DatasetFormatError(f"expected 'TOKEN' or 'TOKEN xCOUNT', got {entry!r}", line, source)
    try:
        k = int(m.group(1))
    except ValueError:
        raise DatasetFormatError(f"count {m.group(1)!r} of {words[0]} is not a positive integer (the data are counts: "
                                 "n·π̂_j·p̂_j,z occurrences; a probability must be a ratio of counts)", line, source) from None
    if k < 1:
        raise DatasetFormatError(f"count {k} of {words[0]}: a token listed after a context followed it at least once "
                                 "(leave it out to keep it out of the support)", line, source)
    return _token(words[0], line, source), k


def load_with_header(path: str | Path) -> tuple[LinearInstance, Header]:
    """Parse the file at ``path``: the instance and its header."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise DatasetFormatError(f"cannot read {path}: {e.strerror if isinstance(e, OSError) else e}") from None
    return _parse(text, str(path))


def _parse(text: str, source) -> tuple[LinearInstance, Header]:
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise DatasetFormatError(f"{len(lines)} lines, more than the limit {MAX_LINES}", None, source)
    params = claim = vocab = embedding = None
    contexts: list[tuple[int, list[float], list[tuple[str, int]]]] = []
    sequences: list[tuple[int, list[str]]] = []
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if line.startswith("#"):
            body = line[1:].strip()
            for key in ("claim:", "parameters:"):
                if body.startswith(key):
                    value = body[len(key):].strip()
                    if (params if key == "parameters:" else claim) is not None:
                        raise DatasetFormatError(f"'{key}' is given twice", no, source)
                    if key == "claim:":
                        claim = value
                    else:
                        params = {k: _number(v, f"parameter {k}", no, source) for k, v in _assignments(value, no, source).items()}
                        try:
                            params = dict(_checked_params(params.items()))
                        except DatasetFormatError as e:
                            raise DatasetFormatError(str(e), no, source) from None
            continue
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("vocab:"):
            if vocab is not None:
                raise DatasetFormatError("'vocab:' is given twice", no, source)
            vocab = [_token(t, no, source) for t in line[len("vocab:"):].split()]
            if len(set(vocab)) != len(vocab):
                raise DatasetFormatError("a token is named twice in 'vocab:'", no, source)
        elif line.startswith("embedding:"):
            if embedding is not None:
                raise DatasetFormatError("'embedding:' is given twice", no, source)
            kind, _, rest = line[len("embedding:"):].partition(",")
            if kind.strip() not in EMBEDDINGS:
                raise DatasetFormatError(f"embedding {kind.strip()!r}: one of {', '.join(EMBEDDINGS)}", no, source)
            opts = _assignments(rest, no, source)
            unknown = set(opts) - {"d", "seed"}
            if unknown:
                raise DatasetFormatError(f"embedding: unknown option {sorted(unknown)[0]!r} (d, seed)", no, source)
            d = _number(opts.get("d", "3"), "embedding d", no, source)
            seed = _number(opts.get("seed", "0"), "embedding seed", no, source)
            if d != int(d) or not 1 <= d <= MAX_DIM or seed != int(seed):
                raise DatasetFormatError(f"embedding: d must be an integer in 1..{MAX_DIM} and seed an integer", no, source)
            embedding = (kind.strip(), int(d), int(seed), no)
        elif line.startswith("h") and re.match(r"^h\s*=", line):
            emb, colon, nxt = line.partition(":")
            if not colon or not nxt.strip():
                raise DatasetFormatError("a context line is 'h = numbers : TOKEN xCOUNT, ...' with at least one token", no, source)
            h = [_number(x, "embedding", no, source) for x in emb.split("=", 1)[1].replace("[", " ").replace("]", " ").split(",")]
            entries = [_count(e.strip(), no, source) for e in nxt.split(",")]
            toks = [t for t, _ in entries]
            if len(set(toks)) != len(toks):
                dup = next(t for t in toks if toks.count(t) > 1)
                raise DatasetFormatError(f"token {dup} is listed twice after one context (give its count once)", no, source)
            if contexts and len(h) != len(contexts[0][1]):
                raise DatasetFormatError(f"this embedding has {len(h)} numbers, line {contexts[0][0]}'s has {len(contexts[0][1])}", no, source)
            if len(h) > MAX_DIM:
                raise DatasetFormatError(f"an embedding of {len(h)} numbers, more than the limit {MAX_DIM}", no, source)
            contexts.append((no, h, entries))
        else:
            sequences.append((no, [_token(t, no, source) for t in line.split()]))
    return _build(contexts, sequences, vocab, embedding, params, claim, source)


def _build(contexts, sequences, vocab, embedding, params, claim, source) -> tuple[LinearInstance, Header]:
    if contexts and sequences:
        raise DatasetFormatError("a file holds context lines ('h = ...') or sequences, not both", sequences[0][0], source)
    if not contexts and not sequences:
        raise DatasetFormatError("no context ('h = ... : TOKEN xCOUNT') and no sequence", None, source)
    named = [t for _, _, es in contexts for t, _ in es] + [t for _, s in sequences for t in s]
    if vocab is None:
        vocab = list(dict.fromkeys(named))
    for no, toks in [(no, [t for t, _ in es]) for no, _, es in contexts] + sequences:
        missing = [t for t in toks if t not in vocab]
        if missing:
            raise DatasetFormatError(f"token {missing[0]} is not in 'vocab:'", no, source)
    if len(vocab) > MAX_TOKENS:
        raise DatasetFormatError(f"{len(vocab)} tokens, more than the limit {MAX_TOKENS}", None, source)
    index = {t: k for k, t in enumerate(vocab)}
    header = Header(params, claim)
    try:
        if sequences:
            if embedding is None:
                raise DatasetFormatError("sequences need an 'embedding: KIND, d = D, seed = S' line (context, last or mean)",
                                         sequences[0][0], source)
            short = next((no for no, s in sequences if len(s) < 2), None)
            if short is not None:
                raise DatasetFormatError("a sequence needs at least two tokens (a context and its next token)", short, source)
            seqs = [[index[t] for t in s] for _, s in sequences]
            kind, d, seed, _ = embedding
            return LinearInstance.from_sequences(seqs, len(vocab), kind, d, seed, vocab=tuple(vocab), params=params or {}), header
        if embedding is not None:
            raise DatasetFormatError("'embedding:' applies to sequences; context lines give their embeddings", embedding[3], source)
        H = np.array([h for _, h, _ in contexts], dtype=float).T
        C = np.zeros((len(contexts), len(vocab)), dtype=np.int64)
        for j, (_, _, entries) in enumerate(contexts):
            for t, k in entries:
                C[j, index[t]] = k
        return LinearInstance(NTPData(H, C), tuple(vocab), tuple((params or {}).items())), header
    except DatasetFormatError as e:
        if e.source is None and source is not None:
            raise DatasetFormatError(str(e), None, source) from None
        raise


def loads(text: str) -> LinearInstance:
    """The instance a text describes (:func:`load_with_header` without the header)."""
    return _parse(text, None)[0]


def load(path: str | Path) -> LinearInstance:
    return load_with_header(Path(path))[0]
