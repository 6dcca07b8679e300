"""Strategies for datasets that satisfy the paper's assumptions by construction.

The construction itself is :class:`ntpcheck.construct.DatasetBuilder`; here
Hypothesis makes its choices, so that examples shrink.

How realizability is built in is documented in :mod:`ntpcheck.construct`
(per query, every token is once and for all a winner or a loser; each
sentence gets exactly one distinct winner; the collocation is drawn lazily
and injectively).

Sizes follow what is drawn: a list of sentences, each grown until a drawn
"stop"; the vocabulary is the tokens used (padded up to ``min_vocab``).
Examples shrink towards one short sentence over the first tokens ``A, B``.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ntpcheck.construct import DatasetBuilder, token_names
from ntpcheck.data import Dataset

from ._validation import check_bounds, check_int

__all__ = ["realizable_datasets", "token_names", "DatasetBuilder"]


#: Drawn to decide whether to go on (another sentence, another token).  It
#: shrinks to the first entry, "stop", so minimal examples are short.
_GO_ON = st.sampled_from([False, True, True, True])
#: Weights of a sentence: shrink to 1 (uniform); otherwise skewed.
_WEIGHTS = st.one_of(st.just(1.0), st.sampled_from([2.0, 0.5, 5.0, 0.1, 20.0]), st.floats(0.05, 50.0))


def draw_realizable(draw, pool: list[str], *, max_len: int, max_samples: int, prefix_closed: bool, min_sentences: int) -> DatasetBuilder:
    """Draw the samples of a realizable dataset into a builder (possibly empty if ``min_sentences=0``)."""
    b = DatasetBuilder(list(pool), pick=lambda xs: draw(st.sampled_from(xs)), go_on=lambda: draw(_GO_ON))
    k = 0
    while b.n_samples < max_samples and (k < min_sentences or draw(_GO_ON)):
        k += 1
        weight = draw(_WEIGHTS)
        if prefix_closed:
            first: tuple[str, ...] = (draw(st.sampled_from(pool)),)
        else:
            first = tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_len)))
        before = b.n_samples
        b.grow(first, max_len=max_len, max_samples=max_samples, prefix_closed=prefix_closed, weight=weight)
        if b.n_samples == before and k >= min_sentences + 20:
            break  # nothing more fits; stop rather than loop
    return b


def _validate(min_vocab, max_vocab, max_len, max_samples, prefix_closed):
    check_int("min_vocab", min_vocab, 1)
    check_int("max_vocab", max_vocab, 1)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_int("max_len", max_len, 1)
    check_int("max_samples", max_samples, 1)
    if not isinstance(prefix_closed, bool):
        from hypothesis.errors import InvalidArgument

        raise InvalidArgument(f"prefix_closed={prefix_closed!r} must be a bool")


def realizable_datasets(
    *,
    min_vocab: int = 2,
    max_vocab: int = 8,
    max_len: int = 6,
    max_samples: int = 12,
    prefix_closed: bool = True,
) -> st.SearchStrategy[Dataset]:
    """Datasets satisfying Assumptions 1(i), 1(ii), 2 and 3 (and Section 3's prefix closure).

    Parameters
    ----------
    min_vocab, max_vocab : int
        Bounds on ``|V|`` (tokens are named ``A, B, C, ...``).
    max_len : int
        Longest sentence ``L_max``.
    max_samples : int
        At most this many distinct samples (one-token samples included).
    prefix_closed : bool
        If True, every prefix of a sentence is a sample (generated
        autoregressively); otherwise sentences are drawn freely and kept when
        they admit a consistent optimal token.

    Returns
    -------
    SearchStrategy[ntpcheck.Dataset]
        Always datasets; :func:`ntpcheck.strategies.instances` adds
        embeddings (for instance random orthonormal ones) and parameters.

    Shrinks towards a single one-token sample over ``A``, ``B`` (padded to
    ``min_vocab`` tokens), with uniform frequencies.
    """
    _validate(min_vocab, max_vocab, max_len, max_samples, prefix_closed)
    pool = token_names(max_vocab)

    @st.composite
    def _datasets(draw):
        b = draw_realizable(draw, pool, max_len=max_len, max_samples=max_samples, prefix_closed=prefix_closed, min_sentences=1)
        return b.dataset(min_vocab)

    return _datasets()
