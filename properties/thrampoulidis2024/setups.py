"""What the claims of Thrampoulidis (2024) are checked on: instance strategies per profile,
the necessity matrix's breakers, the conditions an instance breaks, and reading a file.

Data (``profile -> SearchStrategy[LinearInstance]``):

* :func:`hypotheses`: data meeting every hypothesis by construction
  (:func:`ntpcheck.strategies.linear_instances`), sized per profile;
  ``probed=True`` also draws the ``probe`` seed and ``scale`` of the matrices
  at which pointwise statements are checked (shrinking to seed 0, scale 1);
* :func:`one_hot` (Remark 1), :func:`with_incompatible` (both sides of
  compatibility), :func:`shared_patterns` (tokens with one support pattern);
* :func:`sequences` (App. C);
* :func:`breaking` and :func:`violated` for the matrix (:data:`CONDITIONS`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from hypothesis import strategies as st

from ntpcheck.linear import LinearInstance, NTPData
from ntpcheck.linear.textformat import load_with_header
from ntpcheck.strategies import LINEAR_CONDITIONS, linear_breaking, linear_instances, sequence_sets

from ..framework.evidence import evidence

__all__ = ["SIZES", "CONDITIONS", "HYP", "hypotheses", "one_hot", "with_incompatible", "shared_patterns", "sequences",
           "breaking", "violated", "load", "fixed", "same", "probed"]

#: Sizes per profile: contexts, tokens, extra dimensions.
SIZES = {
    "quick": dict(max_contexts=3, max_vocab=4, max_extra_dims=2),
    "default": dict(max_contexts=4, max_vocab=6, max_extra_dims=3),
    "thorough": dict(max_contexts=6, max_vocab=8, max_extra_dims=4),
}
#: The conditions of the necessity matrix (:mod:`ntpcheck.strategies.linear_breakers`).
CONDITIONS = LINEAR_CONDITIONS
#: "Hyp" of the sheet: NTP_H-compatible and NTP-separable (with §2's standing assumption).
HYP = ("compatible", "separable", "S<V")

Data = Callable[[str], st.SearchStrategy]

#: Probe seeds and scales: 0 and 1 to shrink to, then a spread of scales (0.1-10, the sheet's range).
_PROBE = st.integers(0, 2**16)
_SCALE = st.one_of(st.just(1.0), st.sampled_from([0.1, 0.3, 3.0, 10.0]))


def probed(strategy: st.SearchStrategy) -> st.SearchStrategy[LinearInstance]:
    """``strategy``'s instances with a drawn ``probe`` seed and ``scale``."""
    return st.builds(lambda inst, p, s: inst.with_params(probe=p, scale=s), strategy, _PROBE, _SCALE)


def hypotheses(*, probe: bool = False, min_extra_dims: int = 0, embeddings=None) -> Data:
    """Data meeting every hypothesis (module docstring), optionally probed; ``min_extra_dims=1``: ``d > m``."""

    def data(profile: str) -> st.SearchStrategy[LinearInstance]:
        kw = dict(SIZES[profile], min_extra_dims=min_extra_dims)
        kw["max_extra_dims"] = max(kw["max_extra_dims"], min_extra_dims)
        if embeddings is not None:
            kw["embeddings"] = embeddings
        s = linear_instances(**kw)
        return probed(s) if probe else s

    return data


@st.composite
def _one_hot(draw, max_contexts: int, max_vocab: int) -> LinearInstance:
    """``S_j = 1`` for every context, ``d ∈ {1, 2}``, two labels at least: both separable and
    inseparable data (Remark 1)."""
    m = draw(st.integers(2, max_contexts))
    V = draw(st.integers(2, max_vocab))
    d = draw(st.sampled_from([1, 2, 1]))
    H = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).normal(size=(d, m))
    C = np.zeros((m, V), dtype=np.int64)
    labels = [draw(st.integers(0, V - 1)) for _ in range(m)]
    if m > 1 and len(set(labels)) == 1:  # two labels at least: one label is always separable
        labels[1] = (labels[0] + 1) % V
    for j, z in enumerate(labels):
        C[j, z] = draw(st.integers(1, 5))
    return LinearInstance(NTPData(H, C))


def one_hot(profile: str) -> st.SearchStrategy[LinearInstance]:
    return _one_hot(SIZES[profile]["max_contexts"] + 1, SIZES[profile]["max_vocab"])


def with_incompatible(profile: str) -> st.SearchStrategy[LinearInstance]:
    """Data meeting every hypothesis, or breaking compatibility (R11's two sides)."""
    return st.one_of(hypotheses()(profile), linear_breaking("compatible", max_contexts=SIZES[profile]["max_contexts"],
                                                            max_vocab=SIZES[profile]["max_vocab"]))


@st.composite
def _shared(draw, base: st.SearchStrategy) -> LinearInstance:
    inst = draw(base)
    D = inst.data
    if D.V < 2:
        return inst
    a = draw(st.integers(0, D.V - 1))
    b = (a + 1 + draw(st.integers(0, D.V - 2))) % D.V
    C = D.counts.copy()
    C[:, b] = np.where(C[:, a] > 0, np.maximum(C[:, b], 1), 0)
    empty = C.sum(axis=1) == 0  # b was the only token of these contexts: a and b both follow them now
    C[empty, a] = C[empty, b] = 1
    if (C[0] > 0).all():  # keep S_0 < V: a token no context is followed by
        C = np.hstack([C, np.zeros((D.m, 1), dtype=C.dtype)])
    return LinearInstance(NTPData(D.H, C), (), inst.params)


def shared_patterns(profile: str) -> st.SearchStrategy[LinearInstance]:
    """Data meeting every hypothesis where two tokens have one support pattern: a drawn token's
    column copies another's support (the contexts it alone followed get both)."""
    return _shared(hypotheses()(profile))


def sequences(*, stationary: bool = False, embedding: str | None = None, probe: bool = False, min_len: int = 3) -> Data:
    """App. C's sequence sets (:func:`ntpcheck.strategies.sequence_sets`), sized per profile, of length at
    least ``min_len`` (3: two context lengths to compare)."""

    def data(profile: str) -> st.SearchStrategy[LinearInstance]:
        size = {"quick": (3, 4, 5), "default": (3, 5, 7), "thorough": (4, 6, 10)}[profile]
        s = sequence_sets(max_vocab=size[0], min_len=min_len, max_len=size[1], max_sequences=size[2], stationary=stationary,
                          embedding=embedding)
        return probed(s) if probe else s

    return data


def fixed(make: Callable[[], LinearInstance]) -> Data:
    """One fixed instance (a worked example)."""
    return lambda profile: st.just(make())


def same(inst: LinearInstance) -> LinearInstance:
    """The identity parameter map: the claim is checked on the instance as drawn."""
    return inst


def breaking(condition: str, profile: str, data=None) -> st.SearchStrategy[LinearInstance]:
    """Instances breaking ``condition`` (:func:`ntpcheck.strategies.linear_breaking`), sized per profile;
    the claim's data reading ``data`` is not used (every reading of this paper draws the same kind of data)."""
    return linear_breaking(condition, max_contexts=SIZES[profile]["max_contexts"], max_vocab=SIZES[profile]["max_vocab"])


def violated(inst: LinearInstance) -> list[str]:
    """The conditions of :data:`CONDITIONS` that ``inst`` breaks, in that order."""
    ev = evidence(inst)
    D = inst.data
    ok = {"compatible": ev.compat.compatible, "separable": ev.sep.separable,
          "overparameterised": D.d >= D.m and ev.rank == D.m, "S<V": bool((D.mask.sum(axis=1) < D.V).any())}
    return [c for c in CONDITIONS if not ok[c]]


def load(path: str):
    """A file in the linear model's text format (:mod:`ntpcheck.linear.textformat`) and its header."""
    return load_with_header(path)
