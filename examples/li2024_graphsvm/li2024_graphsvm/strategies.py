"""Data drawn by construction (no filtering): acyclic, cyclic, any labels; independent or dependent embeddings.

Every sample's sequence ends with its query and contains its label.  By construction:

* ``labels="acyclic"``: a priority order of the tokens per query; each label is the
  highest-priority token of its sequence, so every edge goes down the order (every SCC a token);
* ``labels="cyclic"``: two samples ``a b s q -> a`` and ``b a s q -> b`` make ``a, b`` one SCC of
  ``G^(q)`` (so ``S_fin != 0``); the other labels are drawn freely;
* ``labels="any"``: every label drawn freely from its sequence.

Except with ``acyclic``, a **sink** token ``s`` is never a label and occurs in the first sample, so
some edge crosses components (``W^svm != 0``).  Embeddings (``d x V``): the identity, orthonormal
columns (``d = V + extra``) or unit Gaussian columns; ``dependent=True`` gives ``d = V - 1`` unit
Gaussian columns (rank ``V - 1``: the condition "independent" broken).

Examples
--------
>>> from hypothesis import find
>>> D = find(sequence_data(labels="cyclic"), lambda D: D.V >= 4)
>>> from .graph import acyclic
>>> acyclic(D), D.independent
(False, True)
"""

from __future__ import annotations

import numpy as np
from ntpcheck.api import hypothesis_strategies

from .data import SequenceData, default_vocab
from .instance import GraphInstance

st = hypothesis_strategies()

__all__ = ["SIZES", "sequence_data", "instances", "with_gd"]

#: Sizes per profile.
SIZES = {
    "quick": dict(max_vocab=4, max_len=4, max_samples=4, max_extra_dims=1),
    "default": dict(max_vocab=5, max_len=5, max_samples=5, max_extra_dims=2),
    "thorough": dict(max_vocab=6, max_len=6, max_samples=8, max_extra_dims=2),
}


def _embeddings(draw, V: int, max_extra_dims: int, dependent: bool) -> np.ndarray:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dependent:
        E = rng.normal(size=(V - 1, V))
        return E / np.linalg.norm(E, axis=0)
    kind = draw(st.sampled_from(["identity", "orthonormal", "gaussian"]))
    if kind == "identity":
        return np.eye(V)
    d = V + draw(st.integers(0, max_extra_dims))
    if kind == "orthonormal":
        return np.linalg.qr(rng.normal(size=(d, d)))[0][:, :V]
    E = rng.normal(size=(d, V))
    return E / np.linalg.norm(E, axis=0)


@st.composite
def sequence_data(draw, *, max_vocab: int = 5, max_len: int = 5, max_samples: int = 5, max_extra_dims: int = 2,
                  labels: str = "any", dependent: bool = False) -> SequenceData:
    """Data as the module docstring says; ``max_len`` bounds a sequence's length (query included)."""
    if labels not in ("any", "acyclic", "cyclic"):
        raise ValueError(f"labels must be 'any', 'acyclic' or 'cyclic', got {labels!r}")
    V = draw(st.integers(3, max(3, max_vocab)))
    queries = draw(st.lists(st.integers(0, V - 1), min_size=1, max_size=2, unique=True))
    sink = None if labels == "acyclic" else draw(st.integers(0, V - 1))
    others = [t for t in range(V) if t != sink]
    order = {q: draw(st.permutations(range(V))) for q in queries}   # acyclic: priority, first is highest
    weight = st.sampled_from([1.0, 2.0, 3.0])
    samples = []
    if labels == "cyclic":   # a b s q -> a and b a s q -> b: a and b in one SCC of G^(q), s below
        q, (a, b) = queries[0], draw(st.lists(st.sampled_from(others), min_size=2, max_size=2, unique=True))
        tail = (sink,) if q == sink else (sink, q)
        samples += [((a, b) + tail, a, draw(weight)), ((b, a) + tail, b, draw(weight))]
    for i in range(draw(st.integers(0 if samples else 1, max_samples - len(samples)))):
        q = draw(st.sampled_from(queries))
        body = draw(st.lists(st.integers(0, V - 1), min_size=1, max_size=max_len - 1))
        if i == 0 and sink is not None:
            body.append(sink)   # an edge into the sink: across components
        if i == 0 and labels == "acyclic":
            body.append(order[q][-1] if order[q][-1] != q else order[q][0])   # two distinct tokens: an edge
        tokens = tuple(body) + (q,)
        if labels == "acyclic":
            y = min(set(tokens), key=order[q].index)
        else:
            allowed = sorted(set(tokens) - {sink})
            if not allowed:   # only the sink: a free token to predict
                tokens, allowed = (others[0],) + tokens, [others[0]]
            y = draw(st.sampled_from(allowed))
        samples.append((tokens, y, draw(weight)))
    E = _embeddings(draw, V, max_extra_dims, dependent)
    return SequenceData(default_vocab(V), E, tuple(samples))


def with_gd(data: st.SearchStrategy) -> st.SearchStrategy[GraphInstance]:
    """Instances of ``data`` with GD's ``init`` (zero, or seeded N(0, 1/d); shrinking to zero) and
    ``eta`` (1 or 1/2 of ``1/L``)."""
    return st.builds(lambda D, init, eta: GraphInstance(D, (("init", init), ("eta", eta))), data,
                     st.sampled_from([0, 1, 2]), st.sampled_from([1.0, 0.5]))


def instances(labels: str = "any", *, gd: bool = False, dependent: bool = False):
    """``profile -> SearchStrategy[GraphInstance]``: :func:`sequence_data` sized per profile, with GD's
    parameters drawn (:func:`with_gd`) where ``gd``."""

    def data(profile: str) -> st.SearchStrategy[GraphInstance]:
        base = sequence_data(**SIZES[profile], labels=labels, dependent=dependent)
        return with_gd(base) if gd else base.map(GraphInstance)

    return data
