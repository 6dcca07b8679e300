"""Next-token data of a single self-attention layer: sequences, their labels, token embeddings.

A sample is a sequence ``X = (x_1, ..., x_T)`` of tokens and its next token ``y``, which must
occur in ``X`` (the model predicts a token of its input: the probability of ``y`` is the
attention on ``y``'s positions, :mod:`.model`); its **query** is the last token ``x_T``, and
``z = E[:, x_T]`` its embedding.  ``E`` is ``d x V``, one column per token.  Samples carry
positive weights (the loss is their weighted mean).

Examples
--------
>>> import numpy as np
>>> D = SequenceData(("A", "B", "C"), np.eye(3), (((0, 1, 2), 0, 1.0), ((1, 0, 2), 1, 2.0)))
>>> D.V, D.d, D.queries, D.independent
(3, 3, (2,), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["Sample", "SequenceData", "default_vocab"]

#: ``(tokens, label, weight)``: token indices, the next token's index, a positive weight.
Sample = tuple[tuple[int, ...], int, float]


def default_vocab(V: int) -> tuple[str, ...]:
    """``A, B, ..., Z, A1, ...``: token names when none are given."""
    return tuple(chr(65 + k % 26) + (str(k // 26) if k >= 26 else "") for k in range(V))


@dataclass(frozen=True, eq=False)
class SequenceData:
    """The samples, the vocabulary and the embeddings ``E`` (``d x V``)."""

    vocab: tuple[str, ...]
    E: np.ndarray
    samples: tuple[Sample, ...]

    def __post_init__(self) -> None:
        E = np.array(self.E, dtype=float, ndmin=2)
        V = len(self.vocab)
        if V < 2 or len(set(self.vocab)) != V:
            raise ValueError(f"the vocabulary must name at least 2 distinct tokens, got {list(self.vocab)}")
        if E.ndim != 2 or E.shape[1] != V or not np.isfinite(E).all():
            raise ValueError(f"the embeddings must be a finite d x {V} matrix, got shape {E.shape}")
        if not self.samples:
            raise ValueError("no samples")
        clean = []
        for n, (tokens, label, weight) in enumerate(self.samples, 1):
            tokens, label, weight = tuple(int(t) for t in tokens), int(label), float(weight)
            if not tokens or not all(0 <= t < V for t in tokens) or not 0 <= label < V:
                raise ValueError(f"sample {n}: tokens and label must be indices of the {V} tokens")
            if label not in tokens:
                raise ValueError(f"sample {n}: its next token {self.vocab[label]} does not occur in its sequence "
                                 "(the model predicts a token of its input)")
            if not (np.isfinite(weight) and weight > 0):
                raise ValueError(f"sample {n}: the weight must be positive and finite, got {weight!r}")
            clean.append((tokens, label, weight))
        object.__setattr__(self, "E", E)
        object.__setattr__(self, "samples", tuple(clean))

    @property
    def V(self) -> int:
        return len(self.vocab)

    @property
    def d(self) -> int:
        return self.E.shape[0]

    @property
    def n(self) -> int:
        return len(self.samples)

    @cached_property
    def queries(self) -> tuple[int, ...]:
        """The distinct query tokens (last tokens), sorted."""
        return tuple(sorted({s[0][-1] for s in self.samples}))

    @cached_property
    def independent(self) -> bool:
        """Whether the token embeddings are linearly independent (``rank E = V``): then the
        matrices ``x_i z^T`` of distinct (token, query) pairs are too, and the Graph-SVM is feasible."""
        return bool(np.linalg.matrix_rank(self.E) == self.V)

    @cached_property
    def arrays(self) -> dict[str, np.ndarray]:
        """Per sample, over tokens: ``count`` (multiplicity in the sequence), ``label`` and ``query``
        (one-hot), ``pi`` (normalised weights): the token-level form of the loss (:mod:`.model`)."""
        n, V = self.n, self.V
        count, label, query = np.zeros((n, V)), np.zeros((n, V)), np.zeros((n, V))
        for i, (tokens, y, _) in enumerate(self.samples):
            np.add.at(count[i], list(tokens), 1.0)
            label[i, y] = query[i, tokens[-1]] = 1.0
        w = np.array([s[2] for s in self.samples])
        return {"count": count, "label": label, "query": query, "pi": w / w.sum()}

    def key(self) -> tuple:
        """The data up to the order of the samples."""
        return (self.vocab, self.E.shape, self.E.tobytes(), tuple(sorted(self.samples)))
