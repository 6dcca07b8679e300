"""The second paper's text format, writer side (:func:`dumps`); the reader and the format are in
:mod:`ntpcheck.linear.textformat`, which re-exports :func:`dumps`.

Apart from the reader so that :class:`~ntpcheck.linear.instance.LinearInstance` prints itself
(``repr``, a counterexample's text) without an import circle: this module reads an instance's
fields and imports no instance class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .instance import LinearInstance

__all__ = ["dumps"]


def _num(x: float) -> str:
    return repr(float(x))


def dumps(inst: LinearInstance, *, claim: str | None = None, comment: str | None = None) -> str:
    """The text of ``inst``: header (``claim``, a ``comment``, the parameters), then the data."""
    lines = []
    if claim is not None:
        lines.append(f"# claim: {claim}")
    if comment is not None:
        lines.append("# " + " ".join(comment.split()))
    if inst.params:
        lines.append("# parameters: " + ", ".join(f"{k} = {v!r}" for k, v in inst.params))
    if inst.sequences is not None:
        kind, d, seed = inst.embedding
        lines.append(f"embedding: {kind}, d = {d}, seed = {seed}")
    lines.append("vocab: " + " ".join(inst.vocab))
    if inst.sequences is not None:
        lines += [" ".join(inst.vocab[z] for z in s) for s in inst.sequences]
    else:
        D = inst.data
        for j in range(D.m):
            nxt = ", ".join(inst.vocab[z] + (f" x{D.counts[j, z]}" if D.counts[j, z] != 1 else "") for z in D.supports[j])
            lines.append("h = " + ", ".join(_num(x) for x in D.H[:, j]) + " : " + nxt)
    return "\n".join(lines) + "\n"
