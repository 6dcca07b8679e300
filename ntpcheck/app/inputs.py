"""The embeddings of ``check``, ``solve`` and ``train`` from their ``--embeddings``
option: the canonical basis, random orthonormal ones (``--dim``, ``--seed``) or a
text file holding a d x |V| matrix."""

from __future__ import annotations

import warnings

import numpy as np

from ntpcheck.embeddings import as_embeddings, canonical, random_orthonormal
from ntpcheck.errors import EmbeddingError

__all__ = ["embeddings"]


def embeddings(args, n_vocab: int) -> np.ndarray:
    """The d x ``n_vocab`` embedding matrix that ``args`` ask for (:class:`EmbeddingError` on a
    file that cannot be read or has the wrong shape).  ``--dim`` and ``--seed`` with any kind
    but ``orthonormal`` are refused before this (:mod:`.options`).

    Examples
    --------
    >>> from argparse import Namespace
    >>> embeddings(Namespace(embeddings="canonical"), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> embeddings(Namespace(embeddings="orthonormal", dim=5, seed=0), 3).shape
    (5, 3)
    """
    kind = args.embeddings
    if kind == "canonical":
        return canonical(n_vocab)
    if kind == "orthonormal":
        return random_orthonormal(n_vocab, args.dim, args.seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # numpy's "input contained no data": said below instead
            E = np.loadtxt(kind, ndmin=2)
    except (OSError, ValueError) as e:
        raise EmbeddingError(f"cannot read embeddings from {kind!r}: {e}") from None
    if E.size == 0:
        raise EmbeddingError(f"embeddings file {kind!r} contains no numbers")
    return as_embeddings(E, n_vocab)
