"""Tokens and samples (Section 3 of the paper): the legal token names, one training sample
``(X, x_{L+1})`` with its weight, and the merging of repeated samples.

A *token* is a non-empty string without whitespace (:func:`validate_token`).
A *sample* is a pair of a sentence ``X = [x_1, ..., x_L]`` and its next token,
with a positive relative weight; two samples are the same when sentence and
next token are (:attr:`Sample.key`).  Datasets are in :mod:`ntpcheck.common.data`.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from .errors import DatasetFormatError

__all__ = ["Sample", "validate_token", "arrow_lookalike", "invisible_character", "skeleton", "lookalike_character", "merge_samples", "first_of_key", "RESERVED_TOKENS"]

#: Words that the text format gives a meaning to and that cannot be tokens.
RESERVED_TOKENS = frozenset({"->", "vocab:"})

#: Characters of arrow look-alikes built from ASCII-like pieces: dashes, minus signs,
#: ``=``, ``~`` and arrow heads (``>``, ``<`` and their full-width, guillemet and angle forms).
_ARROW_SHAFTS = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d=\uff1d~")
_ARROW_HEADS = frozenset("><\uff1e\uff1c\u203a\u2039\u00bb\u00ab\u276f\u276e\u3009\u3008\u27e9\u27e8")
#: Unicode blocks of arrows: Arrows, Supplemental Arrows-A and -B, dingbat arrows, Miscellaneous Symbols and Arrows.
_ARROW_BLOCKS = ((0x2190, 0x21FF), (0x27F0, 0x27FF), (0x2900, 0x297F), (0x2794, 0x27BF), (0x2B00, 0x2BFF))


def arrow_lookalike(token: str) -> bool:
    """Whether ``token`` looks like an arrow but is not the format's ``->``: a word of
    dashes, ``=`` or ``~`` with an arrow head (``=>``, ``-->``, ``->>``, ``\u2014>``, ``>``),
    or one holding a character of Unicode's arrow blocks (``\u2192``, ``\u21d2``, ``\u27f6``).

    Examples
    --------
    >>> [arrow_lookalike(t) for t in ("=>", "-->", "\u2192", ">", "a-b", "x>y", "->")]
    [True, True, True, True, False, False, False]
    """
    if token.isascii() and ">" not in token and "<" not in token:
        return False
    if token != "->" and any(ch in _ARROW_HEADS for ch in token) and all(ch in _ARROW_HEADS or ch in _ARROW_SHAFTS for ch in token):
        return True
    return any(lo <= ord(ch) <= hi for ch in token for lo, hi in _ARROW_BLOCKS)


#: Cyrillic and Greek letters drawn like a Latin letter in common fonts, with that letter, and the
#: full-width forms of ASCII (U+FF01-FF5E) with their ASCII character.
_HOMOGLYPHS = {
    **str.maketrans(
        "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u04bb\u0501\u051b\u051d"
        "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0405\u0406\u0408"
        "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u03bf",
        "aeopcyxsijhdqw"
        "ABEKMHOPCTXSIJ"
        "ABEZHIKMNOPTYXo"),
    **{c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)},
}


def skeleton(token: str) -> str:
    """What ``token`` looks like: its NFC form (composed and decomposed accents agree) with the
    full-width forms of ASCII replaced by ASCII (``\uff21`` is ``A``) and the Cyrillic and Greek
    letters drawn like a Latin one replaced by it (Cyrillic ``\u0430`` is ``a``, Greek ``\u039f`` is
    ``O``).  Two tokens with one skeleton print alike but are different tokens.  Characters that
    only compatibility forms relate but that look different stay apart (``x\u00b2`` and ``x2``, the
    symbol ``\u03d5`` and the letter ``\u03c6``).  ASCII is its own skeleton.

    Examples
    --------
    >>> [skeleton(t) for t in ("a", "\u0430", "\uff21", "cafe\u0301", "\u0421\u043e\u0440", "x\u00b2")]
    ['a', 'a', 'A', 'café', 'Cop', 'x²']
    """
    if token.isascii():
        return token
    return unicodedata.normalize("NFC", token).translate(_HOMOGLYPHS)


def lookalike_character(a: str, b: str) -> str:
    """The character that makes ``a`` and ``b`` (tokens with one :func:`skeleton`) differ: at the first
    place where their NFC forms differ, the one that is not ASCII.

    Examples
    --------
    >>> lookalike_character("na\u00efve", "na\u00efv\u0435")
    'е'
    """
    x, y = unicodedata.normalize("NFC", a), unicodedata.normalize("NFC", b)
    for p, q in zip(x, y):
        if p != q:
            return q if p.isascii() else p
    return next((ch for ch in x + y if not ch.isascii()), x[:1] or y[:1])


def invisible_character(text: str) -> str | None:
    """The first invisible or control character of ``text`` (Unicode categories
    Cc, Cf, Co, Cs, Cn), or None.  Plain ASCII text is answered without a scan."""
    if text.isascii() and text.isprintable():
        return None
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn"):
            return ch
    return None


def validate_token(token: object) -> str:
    """Return ``token`` if it is a legal token name, else raise.

    A token is a non-empty ``str`` with no whitespace, no ``#`` (the comment
    sign), no ``@`` (the weight sign), no ``->`` (the arrow), no invisible or
    control character (Unicode categories Cc, Cf, Co, Cs, Cn: zero-width
    spaces, byte-order marks, NUL...), not one of :data:`RESERVED_TOKENS`, and no
    look-alike of the arrow (:func:`arrow_lookalike`: ``=>``, ``\u2192``, a lone ``>``),
    which would otherwise be read as a token and turn a sample into a sequence.

    Raises
    ------
    DatasetFormatError
        If the name is not legal; the message says why.
    """
    if not isinstance(token, str):
        raise DatasetFormatError(f"token {token!r} is not a string")
    if token == "":
        raise DatasetFormatError("empty token name")
    if any(ch.isspace() for ch in token):
        raise DatasetFormatError(f"token {token!r} contains whitespace")
    if "#" in token:
        raise DatasetFormatError(f"token {token!r} contains '#', which starts a comment")
    if "@" in token:
        raise DatasetFormatError(f"token {token!r} contains '@', which marks a weight")
    if token in RESERVED_TOKENS:
        raise DatasetFormatError(f"{token!r} is reserved by the text format and cannot be a token")
    if "->" in token:
        raise DatasetFormatError(f"token {token!r} contains '->' (write spaces around the arrow: 'A B -> C')")
    if arrow_lookalike(token):
        raise DatasetFormatError(f"{token!r} looks like an arrow; the only arrow is '->' (ASCII '-' and '>')")
    bad = invisible_character(token)
    if bad is not None:
        raise DatasetFormatError(f"token {token!r} contains the invisible or control character U+{ord(bad):04X} "
                                 f"({unicodedata.name(bad, 'unnamed')})")
    return token


@dataclass(frozen=True)
class Sample:
    """One training sample ``(X, x_{L+1})`` with a relative weight.

    Parameters
    ----------
    sentence : tuple of str
        The sentence ``X = [x_1, ..., x_L]``, ``L >= 1``; its last token is the query.
    next : str
        The next token ``x_{L+1}``.
    weight : float
        Positive, finite relative weight (the frequency before normalisation).
    """

    sentence: tuple[str, ...]
    next: str
    weight: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "sentence", tuple(self.sentence))
        if len(self.sentence) == 0:
            raise DatasetFormatError("a sample needs a non-empty sentence")
        for tok in (*self.sentence, self.next):
            validate_token(tok)
        w = self.weight
        if isinstance(w, bool) or not isinstance(w, (int, float)):
            raise DatasetFormatError(f"weight {w!r} is not a number")
        if not math.isfinite(w) or w <= 0:
            raise DatasetFormatError(f"weight {w!r} must be finite and > 0")
        object.__setattr__(self, "weight", float(w))

    @classmethod
    def _unchecked(cls, sentence: tuple[str, ...], next: str, weight: float) -> "Sample":
        """A sample from parts already validated (the parser's tokens, merged samples):
        skips the per-token checks, which would make a sequence of L tokens O(L^2) twice."""
        s = object.__new__(cls)
        object.__setattr__(s, "sentence", sentence)
        object.__setattr__(s, "next", next)
        object.__setattr__(s, "weight", float(weight))
        return s

    @property
    def query(self) -> str:
        """The last token ``x_L`` of the sentence."""
        return self.sentence[-1]

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        """What makes two samples identical: sentence and next token."""
        return (self.sentence, self.next)

    def __str__(self) -> str:
        return self.text(" ".join(self.sentence))

    def text(self, sentence_text: str) -> str:
        """The text format of the sample given its sentence already joined (``str(self)``
        joins it; a caller walking a sequence line's prefixes extends it a token at a time)."""
        w = "" if self.weight == 1.0 else f" @ {self.weight!r}"
        return f"{sentence_text} -> {self.next}{w}"

    def brief(self, max_tokens: int = 12) -> str:
        """The sample in the text format, with the middle of a sentence longer than
        ``max_tokens`` elided (for messages; ``str`` gives it in full).

        Examples
        --------
        >>> Sample(tuple("abcdefghijklmnop"), "q").brief(6)
        'a b c ... (10 more) ... n o p -> q'
        >>> Sample(("a", "b"), "c").brief()
        'a b -> c'
        """
        sent = self.sentence
        if len(sent) <= max_tokens:
            return str(self)
        h = max(1, max_tokens // 2)
        w = "" if self.weight == 1.0 else f" @ {self.weight!r}"
        mid = f"... ({len(sent) - 2 * h} more) ..."
        return f"{' '.join(sent[:h])} {mid} {' '.join(sent[-h:])} -> {self.next}{w}"


def first_of_key(samples: Sequence[Sample]) -> list[int]:
    """For each sample, the index of the first sample with the same key.  A tuple does not cache
    its hash, so hashing a sentence costs O(L): the samples are bucketed by (length, first token,
    query, next token) and only a bucket of several is hashed in full (a sequence line's
    prefixes differ in length, so a line of L tokens is never hashed).

    Examples
    --------
    >>> first_of_key([Sample(("a",), "b"), Sample(("a", "b"), "c"), Sample(("a",), "b", 2.0)])
    [0, 1, 0]
    """
    buckets: dict[tuple, list[int]] = {}
    for i, s in enumerate(samples):
        sent = s.sentence
        buckets.setdefault((len(sent), sent[0], sent[-1], s.next), []).append(i)
    first = list(range(len(samples)))
    for idx in buckets.values():
        if len(idx) > 1:
            seen: dict[tuple, int] = {}
            for i in idx:
                first[i] = seen.setdefault(samples[i].key, i)
    return first


def merge_samples(samples: Sequence[Sample]) -> tuple[Sample, ...]:
    """The distinct samples in order of first appearance, repeats' weights added; the samples
    themselves when none repeats.

    Examples
    --------
    >>> merge_samples([Sample(("a",), "b"), Sample(("c",), "b"), Sample(("a",), "b", 2.0)])
    (Sample(sentence=('a',), next='b', weight=3.0), Sample(sentence=('c',), next='b', weight=1.0))
    """
    first = first_of_key(samples)
    if all(f == i for i, f in enumerate(first)):
        return tuple(samples)
    merged: dict[int, float] = {}
    for s, f in zip(samples, first):
        merged[f] = merged.get(f, 0.0) + s.weight
    return tuple(Sample._unchecked(samples[f].sentence, samples[f].next, w) for f, w in merged.items())
