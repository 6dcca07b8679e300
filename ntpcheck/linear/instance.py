"""An instance of the linear next-token model: the data, token names, parameters (and, in App. C's
form, the sequences they came from), as plain data.

It implements the framework's instance protocol
(:class:`ntpcheck.properties.framework.instances.PaperInstance`): ``key``,
``identity()``, ``describe()``, ``evidence()`` and ``counterexample_text()``;
its evidence is :class:`.evidence.LinearEvidence`.

Parameters are named numbers (:data:`PARAMETERS`); the header line
``# parameters: probe = 3, scale = 0.5`` of the text format gives them
(:mod:`.textformat`).

Examples
--------
>>> import numpy as np
>>> from .data import NTPData
>>> inst = LinearInstance(NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]])))
>>> inst.vocab, inst.param("scale")
(('A', 'B', 'C'), 1.0)
>>> inst.describe()
{'V': 3, 'N': 3, 'm': 2, 'd': 2, 'n': 6}
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ntpcheck.common.errors import DatasetFormatError

from .data import NTPData

__all__ = ["PARAMETERS", "LinearInstance", "default_vocab"]

#: Parameter name -> (type, default, meaning).  Other claims add theirs here.
PARAMETERS: dict[str, tuple[type, Any, str]] = {
    "probe": (int, 0, "seed of the random matrices W, U at which pointwise statements are checked"),
    "scale": (float, 1.0, "entry scale of those matrices"),
    # the dynamics claims (properties/thrampoulidis2024/dynamics.py, regpath.py, lemma5.py)
    "steps": (int, 10_000, "GD steps of the dynamics claims"),
    "init": (int, 0, "GD's W_0: 0 is zero, k >= 1 is LeCun normal N(0, 1/d) with seed k - 1"),
    "eta": (float, 1.0, "GD's step size as a fraction of 1/(2 L), L = smoothness_bound (App. E.1 asks <= 1)"),
    "alpha": (float, 0.5, "Lemma 5's alpha in (0, 1); Thm. 2's proof takes alpha = eps/(1 - eps)"),
    "rho": (float, 0.5, "Lemma 5's test point: ||W_F - W*|| = rho ||W*||"),
    "tilt": (float, 0.1, "Lemma 5's test point: W_perp along W^mm/||W^mm|| + tilt N, N a unit direction of F^perp"),
    "stretch": (float, 1.0, "Lemma 5's test point: ||W_perp|| = stretch R(alpha)"),
}


def default_vocab(V: int) -> tuple[str, ...]:
    """``A, B, …, Z, A1, B1, …``: token names when none are given."""
    return tuple(chr(65 + k % 26) + (str(k // 26) if k >= 26 else "") for k in range(V))


def _checked_params(params) -> tuple[tuple[str, Any], ...]:
    out = {}
    for name, value in dict(params).items():
        if name not in PARAMETERS:
            raise DatasetFormatError(f"unknown parameter {name!r}; known: {', '.join(PARAMETERS)}")
        kind = PARAMETERS[name][0]
        if kind is int and (isinstance(value, bool) or float(value) != int(float(value))):
            raise DatasetFormatError(f"parameter {name} must be an integer, got {value!r}")
        out[name] = kind(value)
    return tuple(sorted(out.items()))


@dataclass(frozen=True, eq=False)
class LinearInstance:
    """Data of the linear model with token names and parameters.

    Attributes
    ----------
    data : NTPData
    vocab : tuple of str
        One name per token (``A``, ``B``, … when empty).
    params : tuple of (name, value)
        Sorted; see :data:`PARAMETERS` (defaults where absent).
    sequences : tuple of tuple of int, or None
        App. C's form: the sequences ``data`` was reduced from (:func:`.autoregressive.reduce`).
    embedding : (kind, d, seed) or None
        How the sequences' contexts are embedded (:func:`.autoregressive.embed`).
    """

    data: NTPData
    vocab: tuple[str, ...] = ()
    params: tuple[tuple[str, Any], ...] = field(default=())
    sequences: tuple[tuple[int, ...], ...] | None = None
    embedding: tuple[str, int, int] | None = None

    def __post_init__(self) -> None:
        vocab = tuple(self.vocab) or default_vocab(self.data.V)
        if len(vocab) != self.data.V or len(set(vocab)) != len(vocab):
            raise DatasetFormatError(f"the vocabulary must name each of the {self.data.V} tokens once, got {list(vocab)}")
        object.__setattr__(self, "vocab", vocab)
        object.__setattr__(self, "params", _checked_params(self.params))

    @classmethod
    def from_sequences(cls, sequences, V: int, embedding: str = "context", d: int = 3, seed: int = 0, *, vocab=(),
                       params=()) -> "LinearInstance":
        """App. C's instance: ``sequences`` reduced to (2) with the embedding ``(embedding, d, seed)``."""
        from .autoregressive import reduce

        seqs = tuple(tuple(int(z) for z in s) for s in sequences)
        return cls(reduce(seqs, V, embedding, d, seed), vocab, params, seqs, (embedding, int(d), int(seed)))

    def param(self, name: str):
        """The value of parameter ``name`` (its default where not given)."""
        return dict(self.params).get(name, PARAMETERS[name][1])

    def with_params(self, **params) -> "LinearInstance":
        return replace(self, params=tuple({**dict(self.params), **params}.items()))

    @cached_property
    def key(self) -> tuple:
        """The computation exactly: embeddings, counts, parameters, sequences."""
        D = self.data
        return ("linear", D.H.shape, D.H.tobytes(), D.counts.tobytes(), self.params, self.sequences, self.embedding)

    def identity(self) -> tuple:
        """The instance up to the order of its contexts (and of its sequences): what counts once."""
        seqs = None if self.sequences is None else (tuple(sorted(self.sequences)), self.embedding)
        return (self.data.key(), self.params, seqs)

    def dataset_key(self) -> tuple:
        """The data up to the order of contexts (and of sequences), without parameters."""
        return self.identity()[0::2]

    def describe(self) -> dict[str, Any]:
        """``V`` tokens, ``N`` (context, next token) pairs in support, ``m`` contexts, ``d``, ``n`` samples, parameters."""
        D = self.data
        return {"V": D.V, "N": int(D.mask.sum()), "m": D.m, "d": D.d, "n": D.n, **dict(self.params)}

    def evidence(self):
        from .evidence import LinearEvidence

        return LinearEvidence(self)

    def counterexample_text(self, claim: str, detail: str, replay: str) -> str:
        from .textwriter import dumps

        return dumps(self, claim=claim, comment=f"counterexample: {detail}") + f"# replay: save this text as FILE, then run: {replay}\n"

    def __repr__(self) -> str:
        from .textwriter import dumps

        return f"ntpcheck.linear.loads('''\n{dumps(self)}''')"

    def _repr_pretty_(self, p, cycle) -> None:  # Hypothesis (and IPython) print the text format, not the fields
        p.text(repr(self))
