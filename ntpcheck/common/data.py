"""The data model: tokens, samples and datasets (Section 3 of the paper).

A *token* is a non-empty string without whitespace.  A *sample* is a pair
``(X, x_{L+1})`` of a sentence ``X = [x_1, ..., x_L]`` and its next token,
with a positive relative weight (both in :mod:`ntpcheck.common.sample`, re-exported
here).  A *dataset* is a multiset of samples over a
fixed, ordered vocabulary; identical samples are merged by adding their
weights, and the frequencies ``pi^(n)`` of the paper are the normalised
weights of the N distinct samples.

Assumptions
-----------
None of the paper's assumptions is enforced here: a dataset may break every
one of them (that is how the breakers of :mod:`strategies` work).  Only the
syntax is enforced: tokens are well formed and belong to the vocabulary, every
sentence is non-empty, every weight is finite and positive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import DatasetFormatError
from .padding import SampleArrays, chain_starts, encode_chains, extension_flags, pad_encoded
from .sample import RESERVED_TOKENS, Sample, first_of_key, merge_samples, validate_token

__all__ = ["Sample", "Dataset", "SampleArrays", "validate_token", "RESERVED_TOKENS"]


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, repr=False, eq=False)
class Dataset:
    """A training set ``D_0``: a vocabulary and distinct weighted samples.

    Use :meth:`from_samples` to build one from samples that may repeat.

    Parameters
    ----------
    vocab : tuple of str
        The vocabulary ``V`` in index order (``I(x)`` is the position + 1).
    samples : tuple of Sample
        Distinct samples (no two with the same sentence and next token).
    name : str, optional
        A label (the built-in name or the file it came from).
    """

    vocab: tuple[str, ...]
    samples: tuple[Sample, ...]
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vocab", tuple(self.vocab))
        object.__setattr__(self, "samples", tuple(self.samples))
        seen: set[str] = set()
        for tok in self.vocab:
            validate_token(tok)
            if tok in seen:
                raise DatasetFormatError(f"token {tok!r} appears twice in the vocabulary")
            seen.add(tok)
        if not self.vocab:
            raise DatasetFormatError("the vocabulary is empty")
        for s in self.samples:
            if not isinstance(s, Sample):
                raise DatasetFormatError(f"{s!r} is not a Sample")
        if not self.samples:
            raise DatasetFormatError("the dataset has no samples")
        # Every token mapped to its index, chain by chain (padding.encode_chains): this is the
        # vocabulary check, and arrays need not map names again.
        try:
            self.chain_indices, self.target_indices
        except KeyError:
            s = next(s for s in self.samples if not seen.issuperset((*s.sentence, s.next)))
            tok = next(t for t in (*s.sentence, s.next) if t not in seen)
            raise DatasetFormatError(f"token {tok!r} of sample '{s}' is not in the vocabulary") from None
        repeat = next((i for i, f in enumerate(first_of_key(self.samples)) if f != i), None)
        if repeat is not None:
            raise DatasetFormatError(
                f"sample '{self.samples[repeat]}' appears twice; use Dataset.from_samples to merge repeats"
            )
        ws = [s.weight for s in self.samples]
        hi = max(ws)
        lo_s = min(self.samples, key=lambda s: s.weight)
        if lo_s.weight / hi == 0.0 or (lo_s.weight / hi) * (1.0 / len(ws)) == 0.0:
            raise DatasetFormatError(
                f"weights span too many orders of magnitude: sample '{lo_s}' would get frequency 0 "
                f"(its weight is {lo_s.weight:.3g}, the largest is {hi:.3g})"
            )

    def _canonical(self) -> tuple:
        return (self.vocab, frozenset((s.key, s.weight) for s in self.samples))

    def __eq__(self, other: object) -> bool:
        """Equal vocabularies (with order) and equal multisets of weighted samples."""
        if not isinstance(other, Dataset):
            return NotImplemented
        return self._canonical() == other._canonical()

    def __hash__(self) -> int:
        return hash(self._canonical())

    # -- construction -----------------------------------------------------
    @classmethod
    def from_samples(
        cls,
        samples: Iterable[Sample],
        vocab: Sequence[str] | None = None,
        name: str | None = None,
    ) -> "Dataset":
        """Build a dataset, merging identical samples by adding weights.

        The vocabulary defaults to the tokens in order of first appearance
        (sentence tokens, then the next token, sample by sample).
        """
        samples = list(samples)
        if vocab is None:
            order: dict[str, None] = {}
            for s in samples:
                for tok in (*s.sentence, s.next):
                    order.setdefault(tok, None)
            vocab = tuple(order)
        return cls(tuple(vocab), merge_samples(samples), name=name)

    @classmethod
    def from_sequences(
        cls,
        sequences: Iterable[Sequence[str]],
        weights: Iterable[float] | None = None,
        vocab: Sequence[str] | None = None,
        name: str | None = None,
    ) -> "Dataset":
        """Build a dataset from sequences, each contributing all its prefixes.

        A sequence ``[x_1, ..., x_L]`` gives the samples ``([x_1..x_l], x_{l+1})``
        for ``l = 1..L-1`` (the convention of Section 3 of the paper).
        """
        seqs = [tuple(s) for s in sequences]
        ws = [1.0] * len(seqs) if weights is None else [float(w) for w in weights]
        out = []
        for seq, w in zip(seqs, ws):
            if len(seq) < 2:
                raise DatasetFormatError(f"sequence {' '.join(seq)!r} needs at least two tokens")
            out.extend(Sample(seq[:l], seq[l], w) for l in range(1, len(seq)))
        return cls.from_samples(out, vocab=vocab, name=name)

    # -- views ------------------------------------------------------------
    @cached_property
    def index(self) -> Mapping[str, int]:
        """Token name -> 0-based index (the paper's ``I(x) - 1``)."""
        return {tok: i for i, tok in enumerate(self.vocab)}

    @property
    def n_vocab(self) -> int:
        return len(self.vocab)

    @property
    def n_samples(self) -> int:
        return len(self.samples)

    @property
    def l_max(self) -> int:
        """Longest sentence length ``L_max``."""
        return int(self.sentence_lengths.max())

    @cached_property
    def pi(self) -> np.ndarray:
        """Frequencies ``pi^(n)``: the weights normalised to sum to one."""
        w = np.fromiter(map(attrgetter("weight"), self.samples), dtype=float, count=len(self.samples))
        # Normalise in two steps so that huge weights do not overflow the sum.
        w = w / w.max()
        return w / w.sum()

    @cached_property
    def sentences(self) -> tuple[tuple[str, ...], ...]:
        """The samples' sentences, in order."""
        return tuple(map(attrgetter("sentence"), self.samples))

    # Read-only; all but sample_starts and query_indices are computed when the dataset is built (the vocabulary
    # check maps every token).
    @cached_property
    def sentence_lengths(self) -> np.ndarray:
        """``(N,)``: each sample's sentence length."""
        return _read_only(np.fromiter(map(len, self.sentences), dtype=np.int64, count=len(self.samples)))

    @cached_property
    def extends(self) -> np.ndarray:
        """``(N,)`` bool: sample ``k``'s sentence is sample ``k - 1``'s plus one token (a sequence
        line's prefixes; :func:`.padding.extension_flags`)."""
        return extension_flags(self.sentences, self.sentence_lengths)

    @cached_property
    def chain_indices(self) -> np.ndarray:
        """The token indices of the last sentence of each chain of sentences extending one another,
        concatenated (:func:`.padding.encode_chains`); ``KeyError`` on a token not in the vocabulary."""
        return _read_only(encode_chains(self.sentences, self.index, self.extends))

    @cached_property
    def sample_starts(self) -> np.ndarray:
        """``(N,)``: sentence ``k`` is ``chain_indices[start[k] : start[k] + L_k]`` (:func:`.padding.chain_starts`)."""
        return _read_only(chain_starts(self.sentence_lengths, self.extends))

    @cached_property
    def target_indices(self) -> np.ndarray:
        """``(N,)``: the index of each sample's next token; ``KeyError`` on a token not in the vocabulary."""
        return _read_only(np.fromiter(map(self.index.__getitem__, map(attrgetter("next"), self.samples)),
                                      dtype=np.int64, count=len(self.samples)))

    @cached_property
    def query_indices(self) -> np.ndarray:
        """``(N,)``: the index of each sample's query ``x_L``, the last of its sentence."""
        return _read_only(self.chain_indices[self.sample_starts + self.sentence_lengths - 1])

    @cached_property
    def arrays(self) -> SampleArrays:
        """The samples as padded index arrays (see :class:`SampleArrays`, :func:`.padding.pad_encoded`)."""
        lengths = self.sentence_lengths  # read-only, shared
        tokens, mask = pad_encoded(lengths, self.extends, self.chain_indices)
        query, target = self.query_indices, self.target_indices  # read-only, shared
        for a in (tokens, mask):
            a.setflags(write=False)
        pi = self.pi.copy()
        pi.setflags(write=False)
        return SampleArrays(tokens, mask, lengths, query, target, pi, self.n_vocab)

    def encode(self, sentence: Sequence[str]) -> np.ndarray:
        """Token names -> index array; unknown tokens raise a clear error."""
        out = []
        for tok in sentence:
            if tok not in self.index:
                raise DatasetFormatError(
                    f"token {tok!r} is not in the vocabulary {' '.join(self.vocab)}"
                )
            out.append(self.index[tok])
        if not out:
            raise DatasetFormatError("empty sentence")
        return np.array(out, dtype=np.int64)

    def __str__(self) -> str:  # the text format, so that failures print readably
        from .textwriter import dumps

        return dumps(self)

    def __repr__(self) -> str:
        # Hypothesis prints failing examples with repr(): make it the text
        # format, which a person can read and paste into `ntpcheck check`.
        body = str(self)
        if "\\" in body or '"""' in body or body.endswith('"'):
            return f"ntpcheck.loads({body!r})"
        return 'ntpcheck.loads("""\\\n' + body + '""")'
