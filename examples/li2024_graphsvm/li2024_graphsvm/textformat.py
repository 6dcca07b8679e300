"""The text format of an instance, which replays: parameters, embeddings, vocabulary, samples.

::

    # claim: GD direction
    # parameters: steps = 1000, eta = 1.0, init = 0
    # embeddings: 2 x 3
    #   1.0 0.0 0.5
    #   0.0 1.0 0.5
    vocab: A B C
    A B C -> A
    B A C -> B @ 2.0

A sample line is a sequence, ``->``, its next token (which must occur in the sequence) and
optionally ``@ weight``; the last token of the sequence is the query.  Without an
``# embeddings:`` block the embeddings are the identity (``d = V``); without ``vocab:`` the
tokens are named in order of first appearance.  Numbers are written by ``repr`` and read back
exactly.

Examples
--------
>>> from .instance import GraphInstance
>>> inst, header = loads("# parameters: steps = 100\\nA B C -> A\\nB A C -> B @ 2\\n")
>>> inst.data.vocab, inst.param("steps"), header.claim
(('A', 'B', 'C'), 100, None)
>>> loads(dumps(inst))[0].key == inst.key
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .data import SequenceData

if TYPE_CHECKING:
    from .instance import GraphInstance

__all__ = ["Header", "dumps", "loads", "load"]


@dataclass(frozen=True)
class Header:
    """What a file says besides its data: the claim it names, and the parameters it gives (None: none)."""

    claim: str | None = None
    params: dict[str, Any] | None = None


def dumps(inst: "GraphInstance", *, claim: str | None = None, comment: str | None = None) -> str:
    """The text of ``inst`` (module docstring), with ``# claim:`` and a comment first."""
    D = inst.data
    lines = [f"# claim: {claim}"] if claim else []
    lines += [f"# {' '.join(comment.split())}"] if comment else []
    if inst.params:
        lines.append("# parameters: " + ", ".join(f"{k} = {v!r}" for k, v in inst.params))
    if not (D.d == D.V and np.array_equal(D.E, np.eye(D.V))):
        lines.append(f"# embeddings: {D.d} x {D.V}")
        lines += ["#   " + " ".join(repr(float(v)) for v in row) for row in D.E]
    lines.append("vocab: " + " ".join(D.vocab))
    for tokens, y, w in D.samples:
        lines.append(" ".join(D.vocab[t] for t in tokens) + f" -> {D.vocab[y]}" + ("" if w == 1.0 else f" @ {w!r}"))
    return "\n".join(lines) + "\n"


def _params(text: str, n: int) -> dict[str, Any]:
    from .instance import PARAMETERS

    out: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = (s.strip() for s in item.partition("="))
        if not eq or name not in PARAMETERS:
            raise ValueError(f"line {n}: unknown parameter {item!r}; known: {', '.join(PARAMETERS)}")
        number = float(value)
        if PARAMETERS[name][0] is int and number != int(number):
            raise ValueError(f"line {n}: parameter {name} must be an integer, got {value}")
        out[name] = int(number) if PARAMETERS[name][0] is int else number
    return out


def loads(text: str) -> "tuple[GraphInstance, Header]":
    """An instance and its header from the text of :func:`dumps`; :class:`ValueError` names the line."""
    from .instance import GraphInstance

    claim, params, rows, shape, vocab, samples = None, None, [], None, None, []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if shape is not None and len(rows) < shape[0]:
            if not line.startswith("#"):
                raise ValueError(f"line {n}: expected row {len(rows) + 1} of the {shape[0]} x {shape[1]} embeddings")
            rows.append([float(v) for v in line[1:].split()])
            if len(rows[-1]) != shape[1]:
                raise ValueError(f"line {n}: an embeddings row needs {shape[1]} numbers, got {len(rows[-1])}")
            continue
        if line.startswith("# claim:"):
            claim = line.partition(":")[2].strip() or None
        elif line.startswith("# parameters:"):
            params = _params(line.partition(":")[2], n)
        elif line.startswith("# embeddings:"):
            size = line.partition(":")[2].split()
            if len(size) != 3 or size[1] != "x" or not (size[0].isdigit() and size[2].isdigit()):
                raise ValueError(f"line {n}: expected '# embeddings: d x V', got {line!r}")
            shape = (int(size[0]), int(size[2]))
        elif line.startswith("#") or not line:
            continue
        elif line.startswith("vocab:"):
            vocab = tuple(line.partition(":")[2].split())
        else:
            left, arrow, right = line.partition("->")
            label, _, weight = right.partition("@")
            if not arrow or not left.split() or len(label.split()) != 1:
                raise ValueError(f"line {n}: expected 'SEQUENCE -> NEXT' or 'SEQUENCE -> NEXT @ WEIGHT', got {line!r}")
            samples.append((left.split(), label.strip(), float(weight) if weight.strip() else 1.0, n))
    if shape is not None and len(rows) < shape[0]:
        raise ValueError(f"the embeddings block ends after {len(rows)} of its {shape[0]} rows")
    if vocab is None:
        vocab = tuple(dict.fromkeys(t for s in samples for t in [*s[0], s[1]]))
    index = {t: i for i, t in enumerate(vocab)}
    for seq, y, _, n in samples:
        for t in [*seq, y]:
            if t not in index:
                raise ValueError(f"line {n}: token {t!r} is not in the vocabulary")
    E = np.array(rows) if shape is not None else np.eye(len(vocab))
    data = SequenceData(vocab, E, tuple((tuple(index[t] for t in seq), index[y], w) for seq, y, w, _ in samples))
    return GraphInstance(data, tuple((params or {}).items())), Header(claim, params)


def load(path: str) -> "tuple[GraphInstance, Header]":
    """:func:`loads` of a file (``ntpcheck verify --paper li2024 --dataset FILE``)."""
    with open(path, encoding="utf-8") as f:
        return loads(f.read())
