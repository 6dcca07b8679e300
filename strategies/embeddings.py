"""Strategies for token embeddings (``d x |V|`` matrices, columns are tokens).

Orthonormal embeddings satisfy Assumption 2; the non-orthonormal ones break
it in one of three ways: *correlated* (unit columns, one pair with non-zero
inner product), *unnormalised* (orthogonal columns, one with norm != 1) and
*low-dimensional* (``d < |V|``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ntpcheck.transformer.embeddings import random_orthonormal

from ._validation import check_int

__all__ = ["embeddings", "orthonormal_matrices", "non_orthonormal_matrices"]


def orthonormal_matrices(n_tokens: int, d: int | None = None) -> st.SearchStrategy[np.ndarray]:
    """Orthonormal ``d x n`` matrices: signed permutations or Haar-random rotations.

    Shrinks towards the canonical basis (identity, ``d = n``).
    """
    def signed_perm(args):
        perm, signs, extra = args
        dd = n_tokens + extra if d is None else d
        E = np.zeros((dd, n_tokens))
        for j, (i, s) in enumerate(zip(perm, signs)):
            E[i, j] = -1.0 if s else 1.0
        return E

    dims = st.just(0) if d is not None else st.integers(0, 2)
    perms = st.permutations(range(d if d is not None else n_tokens))
    sp = st.tuples(
        perms.map(lambda p: list(p)[:n_tokens]),
        st.lists(st.booleans(), min_size=n_tokens, max_size=n_tokens),
        dims,
    ).map(signed_perm)
    rot = st.tuples(st.integers(0, 2**32 - 1), dims).map(
        lambda a: random_orthonormal(n_tokens, (n_tokens + a[1]) if d is None else d, seed=a[0])
    )
    return st.one_of(sp, rot)


#: The degree of a violation of Assumption 2, +-0.01 to +-0.99 (log-spaced, 100 values a sign),
#: shrinking to +0.01: the mixing coefficient of a correlated pair (times 3, so that inner
#: products run from about 0.03 to 0.95) and the scale defect of an unnormalised column.
_DEGREE = st.tuples(st.integers(0, 99), st.booleans()).map(lambda a: (-1 if a[1] else 1) * 0.01 * 99 ** (a[0] / 99))


def non_orthonormal_matrices(n_tokens: int, kind: str | None = None) -> st.SearchStrategy[np.ndarray]:
    """Embeddings that break Assumption 2 (``kind``: correlated, unnormalised, low-dim, or any),
    at every degree (:data:`_DEGREE`): shrinks towards the smallest defect, an inner product
    of about 0.03 between two columns or a column of norm 1.01."""

    def correlated(args):
        seed, c, i, j = args
        E = random_orthonormal(n_tokens, n_tokens, seed=seed)
        i, j = i % n_tokens, j % n_tokens
        if i == j:
            j = (i + 1) % n_tokens
        v = E[:, j] + c * E[:, i]
        E[:, j] = v / np.linalg.norm(v)
        return E

    def unnormalised(args):
        seed, s, i = args
        E = random_orthonormal(n_tokens, n_tokens, seed=seed)
        E[:, i % n_tokens] *= s
        return E

    def low_dim(seed):
        E = np.random.default_rng(seed).standard_normal((n_tokens - 1, n_tokens))
        return E / np.linalg.norm(E, axis=0)

    seeds = st.integers(0, 2**32 - 1)
    kinds = {
        "correlated": st.tuples(seeds, _DEGREE.map(lambda c: c * 3), st.integers(0, 99), st.integers(0, 99)).map(correlated),
        "unnormalised": st.tuples(seeds, _DEGREE.map(lambda c: 1 + c), st.integers(0, 99)).map(unnormalised),
        "low-dim": seeds.map(low_dim),
    }
    if n_tokens < 2:
        kinds.pop("correlated")
        kinds.pop("low-dim")
    if kind is not None:
        return kinds[kind]
    return st.one_of(*kinds.values())


def embeddings(n_tokens: int, *, d: int | None = None, orthonormal: bool = True) -> st.SearchStrategy[np.ndarray]:
    """Embedding matrices for ``n_tokens`` tokens.

    Parameters
    ----------
    n_tokens : int
        ``|V| >= 1``.
    d : int, optional
        Embedding dimension (orthonormal only; ``d >= n_tokens``); drawn in
        ``[n_tokens, n_tokens + 2]`` when omitted.
    orthonormal : bool
        True for Assumption 2; False for matrices that break it.

    Shrinks towards the identity (orthonormal) or a small defect (not).
    """
    check_int("n_tokens", n_tokens, 1)
    if d is not None:
        check_int("d", d, 1)
        if orthonormal and d < n_tokens:
            from hypothesis.errors import InvalidArgument

            raise InvalidArgument(f"orthonormal embeddings of {n_tokens} tokens need d >= {n_tokens}, got d={d}")
    if orthonormal:
        return orthonormal_matrices(n_tokens, d)
    return non_orthonormal_matrices(n_tokens)
