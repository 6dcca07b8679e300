"""The plain text format of datasets: parse and write back.

Grammar (one statement per line; ``#`` starts a comment)::

    # Example 1 of the paper
    vocab: S V O P        # optional: fixes the vocabulary and its order
    S V O P               # a sequence: every prefix is a sample (S->V, S V->O, S V O->P)
    A C D E -> B          # exactly one sample: sentence "A C D E", next token B
    B E -> C @ 2.5        # optional relative weight (default 1)

Lines end with LF, CRLF or CR alike; one byte-order mark at the start of
the text is dropped.  Tokens are checked by :func:`ntpcheck.common.data.validate_token`
(no ``->``, ``@``, ``#``, invisible or control characters inside a token, and
no look-alike of the arrow such as ``=>``, ``-->``, a lone ``>`` or Unicode's
arrows; errors give the line and column).  Text that would otherwise be read
silently in another sense is refused with its line number: a ``vocab:`` line
in another case or spacing (``VOCAB:``, ``Vocab :``), and two tokens that differ
only by Unicode normalisation (``caf\u00e9`` composed and decomposed print
alike); tokens are not normalised.

A header of comment lines may give the training setting of the data (a
printed counterexample carries one, so that it replays on its own;
:mod:`ntpcheck.transformer.textheader`)::

    # claim: Cor. 1 [k=5]
    # parameters: T = 3000, T' = 0, eta0 = 1.420695323147099, eta = 0.035355339059327376
    # algorithm: random-init
    # embeddings: 2 x 2
    #   0.385 -0.981
    #   1.96 0.193

:func:`loads_with_header` and :func:`load_with_header` return it with the
dataset; :func:`loads` checks it and returns the dataset alone.  Other
comments stay comments.

Limits, checked before anything is built (:class:`ntpcheck.common.errors.ResourceLimitError`):
a file of at most :data:`MAX_FILE_BYTES`, a line of at most
:data:`MAX_LINE_TOKENS` tokens, at most :data:`MAX_VOCAB` distinct tokens, and
at most :data:`MAX_POSITIONS` token positions over all samples (a sequence
line of L tokens has L(L-1)/2 of them, one sample per prefix).

Identical samples add their weights; the frequencies ``pi`` are the
normalised weights.  Without a ``vocab:`` line the vocabulary is the tokens
in order of first appearance.  :func:`dumps` writes a text that
:func:`loads` reads back to an equal dataset (same vocabulary order, samples
and weights): sequences whose prefix samples all carry the same weight are
written back as sequence lines, other samples as ``->`` lines.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from pathlib import Path

from .builtin import BUILTIN_TEXTS, names
from ntpcheck.common.data import Dataset, Sample, validate_token
from ntpcheck.common.errors import DatasetFormatError, ResourceLimitError
from ntpcheck.common.sample import lookalike_character, skeleton
from .textheader import Header, HeaderReader
from ntpcheck.common.textwriter import dumps  # re-exported: the format's reader and writer are one API

__all__ = ["loads", "loads_with_header", "dumps", "load", "load_with_header", "load_file", "MAX_FILE_BYTES", "MAX_LINE_TOKENS", "MAX_VOCAB", "MAX_POSITIONS"]

#: Largest dataset file read (bytes).
MAX_FILE_BYTES = 256 * 2**20
#: Most tokens on one line (a sample's sentence, or a sequence).
MAX_LINE_TOKENS = 100_000
#: Most distinct tokens (the max-margin problems have ``|V|^2`` unknowns).
MAX_VOCAB = 20_000
#: Most token positions over all samples (the padded arrays and the orders scale with it).
MAX_POSITIONS = 50_000_000
_LINE_END = re.compile(r"\r\n|\r|\n")


def _parse_weight(text: str, lineno: int, source: str | None) -> float:
    try:
        w = float(text)
    except ValueError:
        raise DatasetFormatError(f"weight {text!r} is not a number", lineno, source) from None
    if not math.isfinite(w) or w <= 0:
        raise DatasetFormatError(f"weight {text!r} must be finite and > 0", lineno, source)
    return w


def _split_weight(words: list[str], lineno: int, source: str | None) -> tuple[list[str], float]:
    """Strip a trailing ``@ w`` or ``@w`` from the words of a line."""
    at = [k for k, w in enumerate(words) if w.startswith("@")]
    if not at:
        return words, 1.0
    k = at[0]
    if len(at) > 1:
        raise DatasetFormatError("more than one '@' weight on the line", lineno, source)
    head, tail = words[:k], words[k:]
    if tail[0] == "@":
        if len(tail) != 2:
            raise DatasetFormatError("'@' must be followed by exactly one number at the end of the line", lineno, source)
        return head, _parse_weight(tail[1], lineno, source)
    if len(tail) != 1:
        raise DatasetFormatError("the '@' weight must end the line", lineno, source)
    return head, _parse_weight(tail[0][1:], lineno, source)


def _check_tokens(words: list[str], lineno: int, source: str | None, line: str = "", valid: set[str] | None = None) -> None:
    """Validate the tokens of one line; an error names the line and the token's column.
    ``valid``: the tokens already found legal in this text (each distinct token is
    checked once, not at every occurrence), to which the legal ones are added."""
    for w in words:
        if valid is not None and w in valid:
            continue
        try:
            validate_token(w)
        except DatasetFormatError as e:
            col = line.find(w) + 1 if line else 0
            raise DatasetFormatError(str(e), lineno, source, col or None) from None
        if valid is not None:
            valid.add(w)


def loads(text: str, name: str | None = None, source: str | None = None) -> Dataset:
    """Parse a dataset from its text (a header, :mod:`ntpcheck.transformer.textheader`, is checked
    but not returned: see :func:`loads_with_header`).

    Parameters
    ----------
    text : str
        The dataset in the format above.
    name : str, optional
        Label stored on the dataset.
    source : str, optional
        File name used in error messages.

    Raises
    ------
    DatasetFormatError
        On any malformed line; the message carries the line number.

    Examples
    --------
    >>> ds = loads("A B C      # a sequence: A -> B and A B -> C\\nB -> A @ 2\\n")
    >>> [(" ".join(s.sentence), s.next) for s in ds.samples]
    [('A', 'B'), ('A B', 'C'), ('B', 'A')]
    >>> [round(float(p), 3) for p in ds.pi]
    [0.25, 0.25, 0.5]
    """
    return loads_with_header(text, name, source)[0]


def loads_with_header(text: str, name: str | None = None, source: str | None = None) -> tuple[Dataset, Header]:
    """:func:`loads`, with the setting its header gives (:class:`~ntpcheck.transformer.textheader.Header`).

    Examples
    --------
    >>> ds, header = loads_with_header("# parameters: T = 5, T' = 0\\nA B\\n")
    >>> header.params, header.embeddings
    ({'T': 5, 'T2': 0}, None)
    """
    if not isinstance(text, str):
        raise DatasetFormatError("dataset text must be a string", None, source)
    samples: list[Sample] = []
    appearance: dict[str, None] = {}
    vocab: list[str] | None = None
    vocab_set: set[str] | None = None
    vocab_line = 0
    if text.startswith("\ufeff"):  # one byte-order mark at the start (Windows editors write it)
        text = text[1:]
    positions = 0
    header = HeaderReader(source)
    twins = _Twins(source)
    valid: set[str] = set()  # distinct tokens found legal
    # Lines end with LF, CRLF or CR (an editor's line numbers); other Unicode
    # separators count as whitespace inside a line.
    for lineno, raw in enumerate(_LINE_END.split(text), start=1):
        line, hash_, comment = raw.partition("#")
        words = line.split()
        if not words:
            if hash_:
                header.feed(lineno, comment)
            continue
        if len(words) > MAX_LINE_TOKENS:
            raise ResourceLimitError(f"{len(words)} tokens on one line; the limit is {MAX_LINE_TOKENS}", lineno, source)
        _check_keyword(words, lineno, source)
        if words[0] == "vocab:":
            if vocab is not None:
                raise DatasetFormatError(f"second 'vocab:' line (the first is line {vocab_line})", lineno, source)
            vocab = words[1:]
            vocab_line = lineno
            if not vocab:
                raise DatasetFormatError("'vocab:' lists no tokens", lineno, source)
            _check_tokens(vocab, lineno, source, line)
            dup = sorted({t for t in vocab if vocab.count(t) > 1})
            if dup:
                raise DatasetFormatError(f"'vocab:' lists {', '.join(dup)} more than once", lineno, source)
            for tok in vocab:
                twins.add(tok, lineno)
            vocab_set = set(vocab)
            continue
        words, weight = _split_weight(words, lineno, source)
        arrows = words.count("->")
        if arrows > 1:
            raise DatasetFormatError("more than one '->' on the line", lineno, source)
        if arrows == 1:
            k = words.index("->")
            sentence, after = words[:k], words[k + 1 :]
            if not sentence:
                raise DatasetFormatError("no sentence before '->'", lineno, source)
            if len(after) != 1:
                what = "no next token" if not after else f"{len(after)} next tokens ({' '.join(after)})"
                raise DatasetFormatError(f"'->' must be followed by exactly one next token, found {what}", lineno, source)
            _check_tokens(sentence + after, lineno, source, line, valid)
            positions += len(sentence)
            new = [Sample._unchecked(tuple(sentence), after[0], weight)]
            line_tokens = (*sentence, after[0])
        else:
            if len(words) < 2:
                raise DatasetFormatError(
                    f"a sequence needs at least two tokens (found {' '.join(words)!r}); "
                    "write 'X -> Y' for a single sample",
                    lineno,
                    source,
                )
            _check_tokens(words, lineno, source, line, valid)
            positions += len(words) * (len(words) - 1) // 2
            if positions > MAX_POSITIONS:
                raise ResourceLimitError(f"the samples reach {positions} token positions (a sequence of L tokens "
                                         f"has L(L-1)/2); the limit is {MAX_POSITIONS}", lineno, source)
            # Tokens were checked above and the weight by _split_weight: the prefix samples need no re-check.
            seq = tuple(words)
            new = [Sample._unchecked(seq[:l], seq[l], weight) for l in range(1, len(seq))]
            line_tokens = seq
        for tok in line_tokens:  # in order of appearance
            if vocab_set is not None and tok not in vocab_set:
                raise DatasetFormatError(
                    f"token {tok!r} is not in the 'vocab:' line (line {vocab_line})", lineno, source
                )
            if tok not in appearance:
                twins.add(tok, lineno)
                appearance[tok] = None
        if len(appearance) > MAX_VOCAB:
            raise ResourceLimitError(f"more than {MAX_VOCAB} distinct tokens (the limit)", lineno, source)
        samples.extend(new)
    if not samples:
        raise DatasetFormatError("the dataset has no samples", None, source)
    ds = Dataset.from_samples(samples, vocab=vocab if vocab is not None else tuple(appearance), name=name)
    return ds, header.result(ds.n_vocab)


def _check_keyword(words: list[str], lineno: int, source: str | None) -> None:
    """Refuse a ``vocab:`` line written in another case or spacing (``VOCAB:``, ``Vocab :``),
    which would otherwise be read as a sample with a token ``VOCAB:``."""
    if words[0][:1] not in ("v", "V") or words[0] == "vocab:":
        return
    first = words[0].casefold()
    if first == "vocab:" or (first == "vocab" and len(words) > 1 and words[1].startswith(":")):
        raise DatasetFormatError(f"{' '.join(words[:2]) if first == 'vocab' else words[0]!r} looks like a vocabulary "
                                 "line; write it 'vocab:' (lower case, colon attached)", lineno, source)


class _Twins:
    """Tokens that print alike but would be two tokens: the second one seen is refused, naming both
    lines.  Those that differ only by Unicode normalisation (``caf\u00e9`` composed and decomposed),
    and look-alikes (:func:`~ntpcheck.common.sample.skeleton`: Latin ``a`` and Cyrillic ``\u0430``,
    ``A`` and full-width ``\uff21``; the error names the character, :func:`~ntpcheck.common.sample.lookalike_character`)."""

    def __init__(self, source: str | None) -> None:
        self.source = source
        self.seen: dict[str, tuple[str, int]] = {}

    def add(self, tok: str, lineno: int) -> None:
        first = self.seen.setdefault(skeleton(tok), (tok, lineno))
        if first[0] == tok:
            return
        if unicodedata.normalize("NFC", tok) == unicodedata.normalize("NFC", first[0]):
            raise DatasetFormatError(
                f"token {tok!r} and token {first[0]!r} (line {first[1]}) differ only by Unicode normalisation "
                "(composed and decomposed accents); write both the same way", lineno, self.source)
        odd = lookalike_character(tok, first[0])
        raise DatasetFormatError(
            f"token {tok!r} and token {first[0]!r} (line {first[1]}) look alike but are different tokens "
            f"(U+{ord(odd):04X} {unicodedata.name(odd, 'unnamed')}); rename one", lineno, self.source)


def load_file(path: str | os.PathLike) -> Dataset:
    """Read a dataset file; errors name the file and the line."""
    return _load_file(path)[0]


def _load_file(path: str | os.PathLike) -> tuple[Dataset, Header]:
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise DatasetFormatError(f"cannot read {p}: {e.strerror or e}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ResourceLimitError(f"larger than {MAX_FILE_BYTES // 2**20} MiB, the limit for a dataset file", None, str(p))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise DatasetFormatError("file is not valid UTF-8 text", line, str(p)) from None
    return loads_with_header(text, name=p.name, source=str(p))


def load(path_or_name: str | os.PathLike) -> Dataset:
    """Load a dataset from a file, or a built-in dataset by name.

    A path that exists is read as a file; otherwise the name is looked up
    among the built-in datasets (:func:`ntpcheck.transformer.builtin.names`).

    Examples
    --------
    >>> ds = load("example1")
    >>> ds.vocab, ds.n_samples, ds.l_max
    (('S', 'V', 'O', 'P'), 9, 3)
    """
    return load_with_header(path_or_name)[0]


def load_with_header(path_or_name: str | os.PathLike) -> tuple[Dataset, Header]:
    """:func:`load`, with the setting the file's header gives (empty for a built-in dataset)."""
    p = Path(path_or_name)
    if p.exists():
        return _load_file(p)
    name = str(path_or_name)
    if name in names():
        return loads_with_header(BUILTIN_TEXTS[name], name=name)
    raise DatasetFormatError(
        f"{name!r} is neither a file nor a built-in dataset (built-ins: {', '.join(names())})"
    )
