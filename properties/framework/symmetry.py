"""Instances up to the symmetries of the first paper's claims: what makes two tested instances different.

Every claim of Huang, Liang and Yang is stated in terms that do not change when

* the tokens are **renamed** (the vocabulary is a set of names);
* the sample **weights are scaled** together (the loss uses the frequencies ``pi^(n)``,
  the weights normalised to sum to one);
* the embeddings are **rotated**, ``E -> Q E`` with ``Q`` orthogonal: gradient descent from
  zero stays in the span of the embeddings and every quantity the claims read (norms,
  cosines, margins, attention, losses) is a function of the Gram matrix ``E^T E``.  Under
  Assumption 2 that matrix is the identity, so every orthonormal embedding is the
  canonical one, and the evidence is computed in token coordinates
  (:func:`~.evidence.in_token_coordinates`).  ``tests/properties/test_symmetry.py`` checks the
  symmetry on every claim: computed with the rotated embeddings themselves, and through
  the token coordinates (the same outcome to 1e-12).

So an instance's key (:func:`symmetric_key`) is its dataset in a canonical naming with
normalised weights, the Gram matrix only where it is not the identity (a reading that
breaks Assumption 2), and the training parameters.  The canonical naming refines token
colours (Weisfeiler-Leman: a token's roles in the samples, then the colours of the
samples it is in) and tries every order of the tokens that stay tied, up to
:data:`MAX_TIES` orders; past that, tied tokens share one name, which can only merge
two datasets, never split one (counts err low, never high).

Examples
--------
>>> import ntpcheck
>>> a = canonical_dataset(ntpcheck.loads("A -> B @ 2\\nB -> A @ 2\\nC -> C\\n"))
>>> b = canonical_dataset(ntpcheck.loads("X -> Y\\nY -> X\\nZ -> Z @ 0.5\\n"))
>>> a == b
True
>>> a == canonical_dataset(ntpcheck.loads("A -> B\\nB -> A\\nC -> C\\n"))
False
"""

from __future__ import annotations

import itertools
import math
from typing import Hashable, Sequence

import numpy as np

__all__ = ["canonical_dataset", "gram_key", "symmetric_key", "MAX_TIES", "DIGITS"]

#: The most orders of tied tokens tried for a canonical naming.
MAX_TIES = 720
#: Significant digits kept of normalised weights and Gram entries: two instances closer than
#: that are the same test (the checks' tolerances are 1e-9 and coarser).
DIGITS = 12


def _round(x: float) -> float:
    return float(f"{x:.{DIGITS}g}") + 0.0


def canonical_dataset(ds, gram: np.ndarray | None = None) -> tuple:
    """The dataset ``ds`` up to renaming its tokens and scaling its weights (with the Gram
    matrix ``gram`` of its embeddings in vocabulary order, where that is not the identity):
    equal for two datasets exactly when one is a renaming of the other (module docstring)."""
    vocab = list(ds.vocab)
    index = {tok: i for i, tok in enumerate(vocab)}
    total = sum(s.weight for s in ds.samples)
    samples = [(tuple(index[x] for x in s.sentence), index[s.next], _round(s.weight / total)) for s in ds.samples]
    G = None if gram is None else np.vectorize(_round)(np.asarray(gram, dtype=float))
    colour = _refine(len(vocab), samples, G)
    classes: dict[int, list[int]] = {}
    for tok, c in enumerate(colour):
        classes.setdefault(c, []).append(tok)
    tied = [members for _, members in sorted(classes.items())]
    used = {x for sent, nxt, _ in samples for x in (*sent, nxt)}
    # Tokens in no sample (with no Gram matrix) appear nowhere in the encoding: their order does not matter.
    ordered = [G is not None or bool(used & set(m)) for m in tied]
    orders = math.prod(math.factorial(len(m)) for m, o in zip(tied, ordered) if o)
    if orders > MAX_TIES:  # tied tokens share their class's name: an invariant, never finer than the truth
        return _encode(samples, G, {tok: colour[tok] for tok in range(len(vocab))}, len(vocab), merged=True)
    best = None
    for perm in itertools.product(*(itertools.permutations(m) if o else (tuple(m),) for m, o in zip(tied, ordered))):
        label = {tok: k for k, tok in enumerate(itertools.chain.from_iterable(perm))}
        code = _encode(samples, G, label, len(vocab))
        if best is None or code < best:
            best = code
    return best


def _refine(n: int, samples: Sequence[tuple], G: np.ndarray | None) -> list[int]:
    """Colour refinement of the tokens until the partition is stable; colours are ranks of sorted signatures."""
    colour = [0] * n
    for _ in range(n + 1):
        sig = []
        for tok in range(n):
            roles = []
            for sent, nxt, w in samples:
                scolours = (tuple(colour[x] for x in sent), colour[nxt], w)
                roles += [(len(sent) - p, "x", scolours) for p, x in enumerate(sent) if x == tok]
                if nxt == tok:
                    roles.append((0, "y", scolours))
            geo = () if G is None else (G[tok, tok], tuple(sorted((colour[o], G[tok, o]) for o in range(n) if o != tok)))
            sig.append((colour[tok], tuple(sorted(roles)), geo))
        ranks = {s: k for k, s in enumerate(sorted(set(sig)))}
        new = [ranks[s] for s in sig]
        stable = len(set(new)) == len(set(colour))  # each round refines the last (a signature holds the old colour)
        colour = new
        if stable:
            break
    return colour


def _encode(samples, G, label: dict, n: int, merged: bool = False) -> tuple:
    """The samples (and Gram matrix) with tokens named by ``label``, sorted: the canonical form."""
    body = tuple(sorted((tuple(label[x] for x in sent), label[nxt], w) for sent, nxt, w in samples))
    geo = None
    if G is not None:
        order = sorted(range(n), key=lambda t: label[t])
        geo = tuple(tuple(G[i, j] for j in order) for i in order)
    return (n, body, geo, merged)


def gram_key(E: np.ndarray) -> np.ndarray | None:
    """The Gram matrix ``E^T E`` of the embeddings, or None where it is the identity to 1e-12
    (Assumption 2: every orthonormal embedding is the canonical one up to a rotation)."""
    G = E.T @ E
    return None if np.allclose(G, np.eye(G.shape[0]), rtol=0, atol=1e-12) else G


def symmetric_key(inst) -> tuple[Hashable, Hashable]:
    """``(dataset key, instance key)`` of a first-paper instance up to its claims' symmetries:
    the canonical dataset (renaming, weight scale), and with it the Gram matrix where it is
    not the identity and the training parameters with the step sizes resolved."""
    data = canonical_dataset(inst.dataset)
    G = gram_key(inst.E)
    full = data if G is None else canonical_dataset(inst.dataset, G)
    eta0, eta = inst.steps
    margin = None if inst.stage1_margin is None else _round(inst.stage1_margin)
    # Step sizes to DIGITS: a setup that solves Eq. (2) for them may differ in the last bits between rotations.
    return data, (full, inst.T, inst.T2, _round(eta0), _round(eta), margin, None if inst.algorithm is None else inst.algorithm.name)
