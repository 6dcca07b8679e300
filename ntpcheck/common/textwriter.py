"""The text format's writer (:func:`dumps`); the reader and the format's description are in
:mod:`ntpcheck.transformer.textformat`, which re-exports :func:`dumps`.

Apart from the reader so that :class:`ntpcheck.common.data.Dataset` can print itself in the format
(``str``, ``repr``: what Hypothesis shows for a failing example) without an import circle: this
module reads a dataset's fields and imports no dataset class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .data import Dataset

__all__ = ["dumps"]


def _weight_suffix(w: float) -> str:
    return "" if w == 1.0 else f" @ {w!r}"


def dumps(dataset: Dataset, header: str | None = None, *, vocab: bool = False) -> str:
    """Write a dataset in the text format; :func:`loads` reads it back equal.

    ``header``: comment lines written first (``# `` added to each line).  The
    ``vocab:`` line is written when first appearance would not reproduce the
    vocabulary's order, or always with ``vocab=True`` (where the order matters
    to a reader, as for the columns of an embedding matrix in the header).

    Maximal chains ``x_1 -> x_2 -> ... -> x_L`` whose prefix samples are all
    present with the same weight, and not yet written, become one sequence
    line; every other sample becomes a ``->`` line.

    Examples
    --------
    >>> from ntpcheck.transformer.textformat import load, loads
    >>> print(dumps(loads("A -> B\\nA B -> C\\n")), end="")
    A B C
    >>> loads(dumps(load("example1"))) == load("example1")
    True
    """
    by_key = {s.key: s for s in dataset.samples}
    covered: set = set()
    lines: list[str] = []
    if header:
        lines.extend(f"# {h}" for h in header.splitlines())
    # Longest sentences first, so that sequence lines are maximal.
    order = sorted(range(len(dataset.samples)), key=lambda k: -len(dataset.samples[k].sentence))
    body: list[tuple[int, tuple[str, ...], str]] = []  # (sample index, tokens in order, line)
    for k in order:
        s = dataset.samples[k]
        if s.key in covered:
            continue
        seq = (*s.sentence, s.next)
        chain = [(seq[:l], seq[l]) for l in range(1, len(seq))]
        if len(chain) > 1 and all(
            key in by_key and key not in covered and by_key[key].weight == s.weight for key in chain
        ):
            covered.update(chain)
            body.append((k, seq, " ".join(seq) + _weight_suffix(s.weight)))
    for k, s in enumerate(dataset.samples):
        if s.key not in covered:
            covered.add(s.key)
            body.append((k, (*s.sentence, s.next), str(s)))
    # Keep the lines in the order of the samples they start from.
    body.sort(key=lambda item: item[0])
    appearance: dict[str, None] = {}
    for _, toks, _ in body:
        for t in toks:
            appearance.setdefault(t, None)
    # Write the vocabulary only when first appearance would not reproduce it.
    if vocab or tuple(appearance) != dataset.vocab:
        lines.append("vocab: " + " ".join(dataset.vocab))
    lines.extend(line for _, _, line in body)
    return "\n".join(lines) + "\n"
