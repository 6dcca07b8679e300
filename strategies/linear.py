"""Strategies for the linear next-token model of Thrampoulidis (2024): data that satisfy its
hypotheses by construction, and App. C's sequence sets.

:func:`linear_instances` draws :class:`ntpcheck.linear.LinearInstance` values
whose data meet every hypothesis of §3–4 by construction:

* ``m`` contexts with embeddings of full column rank and ``d ≥ m``
  (overparameterised; ``min_extra_dims=1`` for Lemma 1's ``d > m``), so that
  the data are NTP_ℋ-compatible and NTP-separable (Lemma 1: ``W H̄`` can be any
  ``V × m`` matrix);
* supports ``𝒮_j`` with ``S_j < V`` for context 0 (the standing assumption
  of §2), and integer counts, so that ``π̂_j p̂_{j,z} ≥ 1/n`` exactly;
* embeddings ``canonical`` (``h̄_j = e_j``), ``orthonormal`` (Haar-random
  orthonormal columns), ``unit`` (normalised Gaussian columns) or
  ``gaussian`` (``N(0, I/d)``); Gaussian columns have full rank almost surely,
  and the strategy redraws the seed in the measure-zero case (never observed).

Examples shrink towards one context, two tokens, canonical embeddings,
``d = m``, support ``{A}`` and count 1: ``vocab: A B`` / ``h = 1.0 : A``.

:func:`sequence_sets` draws App. C's form: ``n`` sequences of one length ``T``
over a small vocabulary (``stationary=True``: every cyclic window of one
circular word, whose empirical distribution is shift-invariant), embedded by
a named map (:mod:`ntpcheck.linear.autoregressive`).  They shrink towards two
sequences ``A A``.

:func:`step_sizes` draws GD step sizes below ``1/(2L̄)`` (``L̄`` the smoothness
bound of :func:`ntpcheck.linear.loss.smoothness_bound`) or, with
``above=True``, above ``V/(2 λ_max(Σ π̂ h̄ h̄ᵀ)) ≥ 1/(2L)`` (the Hessian at
``W = 0`` already has that curvature), so that they exceed the true
``1/(2L)`` for sure.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ntpcheck.linear import LinearInstance, NTPData
from ntpcheck.linear.loss import covariance_lambda_max, smoothness_bound

from ._validation import check_bounds, check_choice, check_int

__all__ = ["EMBEDDING_KINDS", "embedding_matrices", "linear_instances", "sequence_sets", "step_sizes", "supports_and_counts"]

EMBEDDING_KINDS = ("canonical", "orthonormal", "unit", "gaussian")
#: Counts: small numbers, shrinking to 1, sometimes a large one (skewed p̂, down to 1/1000).
COUNTS = st.one_of(st.integers(1, 5), st.sampled_from([50, 1000]))


def _gaussian(seed: int, d: int, m: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(d, m)) / np.sqrt(d)


def embedding_matrices(kind: str, d: int, m: int) -> st.SearchStrategy[np.ndarray]:
    """``d × m`` context embeddings of full column rank (``d ≥ m``) of one ``kind``; seeds shrink to 0."""
    if kind == "canonical":
        return st.just(np.eye(d, m))

    def make(seed: int) -> np.ndarray:
        for s in range(seed, seed + 100):  # a rank-deficient Gaussian draw has probability 0
            H = _gaussian(s, d, m)
            if kind == "orthonormal":
                H = np.linalg.qr(H)[0][:, :m]
            elif kind == "unit":
                H = H / np.linalg.norm(H, axis=0)
            sv = np.linalg.svd(H, compute_uv=False)
            if sv[-1] > 1e-6 * sv[0]:
                return H
        raise AssertionError("no full-rank draw in 100 seeds")

    return st.integers(0, 2**32 - 1).map(make)


@st.composite
def supports_and_counts(draw, m: int, V: int, *, full: bool = False) -> np.ndarray:
    """``m × V`` counts: context ``j``'s support is a set of tokens (context 0's misses at least one
    token unless ``full``; ``full`` gives every context the whole vocabulary), each count from :data:`COUNTS`."""
    C = np.zeros((m, V), dtype=np.int64)
    for j in range(m):
        if full:
            support = list(range(V))
        else:
            size = draw(st.integers(1, V - 1 if j == 0 else V))
            support = draw(st.lists(st.integers(0, V - 1), min_size=size, max_size=size, unique=True))
        for z in support:
            C[j, z] = draw(COUNTS)
    return C


@st.composite
def _linear_instances(draw, min_contexts, max_contexts, min_vocab, max_vocab, min_extra_dims, max_extra_dims, kinds,
                      full_support) -> LinearInstance:
    m = draw(st.integers(min_contexts, max_contexts))
    V = draw(st.integers(min_vocab, max_vocab))
    d = m + draw(st.integers(min_extra_dims, max_extra_dims))
    H = draw(embedding_matrices(draw(st.sampled_from(kinds)), d, m))
    return LinearInstance(NTPData(H, draw(supports_and_counts(m, V, full=full_support))))


@st.composite
def _sequences(draw, min_vocab, max_vocab, min_len, max_len, max_sequences, stationary):
    V = draw(st.integers(min_vocab, max_vocab))
    T = draw(st.integers(min_len, max_len))
    if stationary:  # every cyclic window of one circular word: an exactly shift-invariant empirical law
        word = draw(st.lists(st.integers(0, V - 1), min_size=3, max_size=max(3, max_sequences)))
        seqs = [tuple(word[(i + k) % len(word)] for k in range(T)) for i in range(len(word))]
    else:
        seqs = draw(st.lists(st.lists(st.integers(0, V - 1), min_size=T, max_size=T).map(tuple), min_size=2,
                             max_size=max_sequences))
    return V, seqs


def sequence_sets(*, min_vocab: int = 2, max_vocab: int = 3, min_len: int = 2, max_len: int = 4, max_sequences: int = 6,
                  embedding: str | None = None, d: int = 3, stationary: bool = False) -> st.SearchStrategy[LinearInstance]:
    """App. C's data: sequences of one length ``T`` (``min_len ≤ T ≤ max_len``), reduced to (2) by the
    embedding ``embedding`` (``"context"``, ``"last"``, ``"mean"``, or None: drawn, shrinking to
    ``"context"``) of dimension ``d`` with a drawn seed."""
    for name, value, lo in (("min_vocab", min_vocab, 2), ("max_vocab", max_vocab, 2), ("min_len", min_len, 2),
                            ("max_len", max_len, 2), ("max_sequences", max_sequences, 2), ("d", d, 1)):
        check_int(name, value, lo)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_bounds("min_len", min_len, "max_len", max_len)
    if embedding is not None:
        check_choice("embedding", embedding, ("context", "last", "mean"))
    kinds = st.sampled_from(("context", "last", "mean")) if embedding is None else st.just(embedding)
    return st.builds(lambda vs, kind, seed: LinearInstance.from_sequences(vs[1], vs[0], kind, d, seed),
                     _sequences(min_vocab, max_vocab, min_len, max_len, max_sequences, stationary), kinds, st.integers(0, 1000))


def step_sizes(D: NTPData, *, above: bool = False) -> st.SearchStrategy[float]:
    """GD step sizes for the data ``D``: at most ``1/(2 L̄)`` with ``L̄ = smoothness_bound(D)`` (shrinking to
    it), or with ``above`` strictly above ``V/(2 λ_max(Σ π̂ h̄h̄ᵀ))``, which exceeds ``1/(2L)`` (module docstring)."""
    if above:
        lo = D.V / (2 * covariance_lambda_max(D))
        return st.floats(1.01, 100.0).map(lambda f: f * lo)
    return st.floats(0.01, 1.0).map(lambda f: f / (2 * smoothness_bound(D)))


def linear_instances(*, min_contexts: int = 1, max_contexts: int = 4, min_vocab: int = 2, max_vocab: int = 5,
                     min_extra_dims: int = 0, max_extra_dims: int = 3, embeddings: str | tuple = EMBEDDING_KINDS,
                     full_support: bool = False) -> st.SearchStrategy[LinearInstance]:
    """Data meeting every hypothesis of §3–4 by construction (module docstring); arguments are
    validated when the strategy is built (:class:`hypothesis.errors.InvalidArgument`).

    ``embeddings``: one of :data:`EMBEDDING_KINDS` or a tuple of them (drawn, shrinking to the first).
    ``full_support``: every context's support is the whole vocabulary (breaks only the standing assumption).
    """
    for name, value, lo in (("min_contexts", min_contexts, 1), ("max_contexts", max_contexts, 1), ("min_vocab", min_vocab, 2),
                            ("max_vocab", max_vocab, 2), ("min_extra_dims", min_extra_dims, 0), ("max_extra_dims", max_extra_dims, 0)):
        check_int(name, value, lo)
    check_bounds("min_contexts", min_contexts, "max_contexts", max_contexts)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_bounds("min_extra_dims", min_extra_dims, "max_extra_dims", max_extra_dims)
    kinds = (embeddings,) if isinstance(embeddings, str) else tuple(embeddings)
    if not kinds:
        raise InvalidArgument("embeddings must name at least one kind")
    for k in kinds:
        check_choice("embeddings", k, EMBEDDING_KINDS)
    return _linear_instances(min_contexts, max_contexts, min_vocab, max_vocab, min_extra_dims, max_extra_dims, kinds, full_support)
