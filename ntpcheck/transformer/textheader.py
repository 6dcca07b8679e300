"""A dataset file's header: the training setting that makes a counterexample replay on its own.

Four kinds of comment line carry it (each at most once, anywhere in the
file, written exactly so: lower-case key, a colon)::

    # claim: Lemma 5 [trained W_ov]
    # parameters: T = 900, T' = 300, eta0 = 0.1, eta = 0.025, stage1_margin = 12.5
    # algorithm: joint-gd
    # embeddings: 2 x 3
    #   0.6 0.8 0.0
    #   0.8 -0.6 1.0

``claim:`` names the claim the data are a counterexample to (a claim about
a fixed worked example is checked on other data only when named so).
``parameters:`` gives Algorithm 1's steps ``T`` and ``T'`` (required) and
optionally its step sizes ``eta0``, ``eta`` (the paper's defaults when left
out) and ``stage1_margin`` (stage 1 idealised, Appendix C.1).
``algorithm:`` names a training variant of :data:`ntpcheck.transformer.algorithms.VARIANTS`
(it needs a ``parameters:`` line).  ``embeddings:`` is ``canonical`` or
``d x |V|`` followed by exactly ``d`` comment lines of ``|V|`` numbers: column
``k`` embeds the ``k``-th token of the vocabulary (the ``vocab:`` line, else
the order of first appearance).  Every other comment stays a comment; a
malformed header line is refused with its line number, never skipped.

Examples
--------
>>> header = Header({"T": 30, "T2": 10, "eta0": 0.5, "eta": 0.25}, "gd")
>>> print("\\n".join(header.text_lines()))
parameters: T = 30, T' = 10, eta0 = 0.5, eta = 0.25
algorithm: gd
embeddings: canonical
>>> reader = HeaderReader()
>>> all(reader.feed(k, " " + line) for k, line in enumerate(header.text_lines(), 1))
True
>>> reader.result(3).params
{'T': 30, 'T2': 10, 'eta0': 0.5, 'eta': 0.25}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .embeddings import canonical, is_canonical, parse_rows
from ntpcheck.common.errors import DatasetFormatError

__all__ = ["Header", "HeaderReader", "KEYS"]

#: The header's keys, each opening a comment line (``# parameters: ...``).
KEYS = ("claim", "parameters", "algorithm", "embeddings")
#: The keys of a ``parameters:`` line and the Instance field each sets.
_PARAMS = {"T": "T", "T'": "T2", "eta0": "eta0", "eta": "eta", "stage1_margin": "stage1_margin"}
_ITEM = re.compile(r"^\s*(T'|T|eta0|eta|stage1_margin)\s*=\s*(\S+)\s*$")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_SHAPE = re.compile(r"^(\d+)\s*[x\u00d7]\s*(\d+)$")
#: Most rows of an inline embedding matrix (its d).
MAX_DIM = 100_000


@dataclass(frozen=True)
class Header:
    """A header's values, each None when its line is absent: ``params`` (the
    :class:`~ntpcheck.transformer.instance.Instance` fields ``T``, ``T2``, ``eta0``, ``eta``,
    ``stage1_margin``), the ``algorithm``'s name and the ``embeddings``; ``at``: the
    line of each key read, and ``source`` the file, for errors found later."""

    params: dict[str, Any] | None = None
    algorithm: str | None = None
    embeddings: np.ndarray | None = None
    at: dict[str, int] = field(default_factory=dict)
    source: str | None = None
    claim: str | None = None

    @property
    def empty(self) -> bool:
        return not self.at

    def text_lines(self) -> list[str]:
        """The header's lines (without the ``# ``), every number exact (``repr``);
        embeddings None or the identity are written ``canonical``."""
        p = self.params or {}
        claim = [f"claim: {self.claim}"] if self.claim else []
        items = [f"{key} = {p[name]!r}" for key, name in _PARAMS.items() if p.get(name) is not None]
        lines = claim + (["parameters: " + ", ".join(items)] if items else [])
        lines += [f"algorithm: {self.algorithm}"] if self.algorithm is not None else []
        E = self.embeddings
        if E is None or is_canonical(E):
            return lines + ["embeddings: canonical"]
        return lines + [f"embeddings: {E.shape[0]} x {E.shape[1]}"] + ["  " + " ".join(repr(float(v)) for v in row) for row in E]


class HeaderReader:
    """Reads the header from a file's comment-only lines, fed in order (:meth:`feed`)."""

    def __init__(self, source: str | None = None) -> None:
        self.source = source
        self.found: dict[str, Any] = {}
        self.lines: dict[str, int] = {}
        self._rows: list[tuple[int, str]] = []
        self._shape: tuple[int, int] | None = None

    def _error(self, message: str, line: int | None) -> DatasetFormatError:
        return DatasetFormatError(message, line, self.source)

    def feed(self, lineno: int, comment: str) -> bool:
        """Take one comment (the text after ``#``) of a comment-only line; True if it is the header's."""
        if self._shape is not None and len(self._rows) < self._shape[0]:
            last = self._rows[-1][0] if self._rows else self.lines["embeddings"]
            if lineno != last + 1:
                raise self._missing_rows(last)
            self._rows.append((lineno, comment))
            return True
        key, colon, value = comment.strip().partition(":")
        if not colon or key not in KEYS:
            return False
        if key in self.lines:
            raise self._error(f"second '{key}:' line (the first is line {self.lines[key]})", lineno)
        self.lines[key] = lineno
        self.found[key] = getattr(self, f"_{key}")(value.strip(), lineno)
        return True

    def _missing_rows(self, last: int) -> DatasetFormatError:
        """The error for an embedding matrix whose rows stop after line ``last``."""
        return self._error(f"the 'embeddings:' line (line {self.lines['embeddings']}) announces {self._shape[0]} rows, "
                           f"found {len(self._rows)} (each row is a comment line right below it)", last + 1)

    def _parameters(self, text: str, lineno: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for item in text.split(","):
            m = _ITEM.match(item)
            if not m:
                raise self._error(f"'parameters:' item {item.strip()!r} is not one of "
                                  f"{', '.join(k + ' = ...' for k in _PARAMS)}", lineno)
            key, value = m.groups()
            if _PARAMS[key] in out:
                raise self._error(f"'parameters:' gives {key} twice", lineno)
            out[_PARAMS[key]] = self._number(key, value, lineno)
        missing = [k for k in ("T", "T'") if _PARAMS[k] not in out]
        if missing:
            raise self._error(f"'parameters:' needs {' and '.join(missing)}", lineno)
        return out

    def _number(self, key: str, text: str, lineno: int) -> int | float:
        try:
            v = int(text) if key in ("T", "T'") else float(text)
        except ValueError:
            v = -1
        if not (v >= 0 if key in ("T", "T'") else 0 < v < float("inf")):
            kind = "an integer >= 0" if key in ("T", "T'") else "a finite number > 0"
            raise self._error(f"'parameters:' {key} = {text!r} must be {kind}", lineno)
        return v

    def _claim(self, text: str, lineno: int) -> str:
        if not text:
            raise self._error("'claim:' names no claim", lineno)
        return text

    def _algorithm(self, text: str, lineno: int) -> str:
        if not _NAME.match(text):
            raise self._error(f"'algorithm:' {text!r} is not an algorithm's name (one word)", lineno)
        return text

    def _embeddings(self, text: str, lineno: int) -> str | None:
        if text == "canonical":
            return text
        m = _SHAPE.match(text)
        if not m or not 1 <= int(m.group(1)) <= MAX_DIM:
            raise self._error(f"'embeddings:' {text!r} must be 'canonical' or 'D x V' (rows x tokens, "
                              f"D between 1 and {MAX_DIM}) followed by D comment lines of numbers", lineno)
        self._shape = (int(m.group(1)), int(m.group(2)))
        return None

    def result(self, n_vocab: int) -> Header:
        """The header read, checked against the dataset's vocabulary size ``n_vocab``."""
        if "algorithm" in self.lines and "parameters" not in self.lines:
            raise self._error("an 'algorithm:' line needs a 'parameters:' line", self.lines["algorithm"])
        E = None
        if "embeddings" in self.lines:
            at = self.lines["embeddings"]
            if self._shape is None:
                E = canonical(n_vocab)
            else:
                d, v = self._shape
                if len(self._rows) < d:
                    raise self._missing_rows(self._rows[-1][0] if self._rows else at)
                E = parse_rows(self._rows, self._error)
                if v != n_vocab or E.shape[1] != v:
                    raise self._error(f"'embeddings:' has {E.shape[1]} columns and announces {v}; "
                                      f"the dataset has |V| = {n_vocab} tokens", at)
        return Header(self.found.get("parameters"), self.found.get("algorithm"), E, dict(self.lines), self.source,
                      self.found.get("claim"))
