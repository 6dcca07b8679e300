"""The embeddings a command runs with: ``--embeddings``, or the dataset file's header, or canonical.

``--embeddings`` takes ``canonical``, ``orthonormal`` (random, ``--dim`` and
``--seed``) or a file (:func:`ntpcheck.transformer.embeddings.load_embeddings`).  A dataset
file whose header gives embeddings (:mod:`ntpcheck.transformer.textheader`, as every printed
counterexample does) is run with them when ``--embeddings`` is not given; given
both, they must be equal, or the command stops with exit 2 before any work,
naming the header's line: a replay never runs silently on other embeddings.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.data import Dataset
from ntpcheck.transformer.embeddings import canonical, load_embeddings, random_orthonormal
from ntpcheck.common.errors import EmbeddingError
from ntpcheck.transformer.textformat import load_with_header
from ntpcheck.transformer.textheader import Header

__all__ = ["chosen_embeddings", "load_with_embeddings"]


def _from_option(args, n_vocab: int) -> np.ndarray:
    kind = args.embeddings
    if kind == "canonical":
        return canonical(n_vocab)
    if kind == "orthonormal":
        return random_orthonormal(n_vocab, args.dim, args.seed)
    return load_embeddings(kind, n_vocab)


def chosen_embeddings(args, dataset: Dataset, header: Header | None = None, source: str | None = None) -> np.ndarray:
    """The ``d x |V|`` embeddings of a command on ``dataset`` (read from ``source``).

    Raises
    ------
    EmbeddingError
        On a bad ``--embeddings`` or ``--dim``, or ``--embeddings`` that differ from the header's.

    Examples
    --------
    >>> from argparse import Namespace
    >>> from ntpcheck.transformer.textformat import loads_with_header
    >>> ds, header = loads_with_header("# embeddings: 1 x 2\\n#   0.6 0.8\\nA B\\n")
    >>> chosen_embeddings(Namespace(embeddings=None), ds, header).tolist()
    [[0.6, 0.8]]
    >>> chosen_embeddings(Namespace(embeddings="canonical"), ds, header, "d.txt")
    Traceback (most recent call last):
    ntpcheck.common.errors.EmbeddingError: --embeddings canonical conflicts with the embeddings in the header of d.txt (line 1); give only one of them
    """
    n = dataset.n_vocab
    dim = getattr(args, "dim", None)
    if args.embeddings in (None, "canonical") and dim not in (None, n):
        raise EmbeddingError("--dim only applies to --embeddings orthonormal")
    given = header.embeddings if header is not None else None
    if args.embeddings is None:
        return canonical(n) if given is None else given
    E = _from_option(args, n)
    if given is not None and not (E.shape == given.shape and np.array_equal(E, given)):
        raise EmbeddingError(f"--embeddings {args.embeddings} conflicts with the embeddings in the header of "
                             f"{source or dataset.name} (line {header.at['embeddings']}); give only one of them")
    return E


def load_with_embeddings(args) -> tuple[Dataset, Header, np.ndarray]:
    """The dataset of ``args.dataset`` (a file or a built-in name), its header, and the
    embeddings :func:`chosen_embeddings` picks from the options and the header."""
    ds, header = load_with_header(args.dataset)
    return ds, header, chosen_embeddings(args, ds, header, args.dataset)
