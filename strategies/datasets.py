"""Strategies for datasets that satisfy the paper's assumptions by construction.

The construction itself is :class:`ntpcheck.transformer.construct.DatasetBuilder`; here
Hypothesis makes its choices, so that examples shrink.

How realizability is built in is documented in :mod:`ntpcheck.transformer.construct`
(per query, every token is once and for all a winner or a loser; each
sentence gets exactly one distinct winner; the collocation is drawn lazily
and injectively).

Sizes follow what is drawn: a list of sentences, each grown until a drawn
"stop"; the vocabulary is the tokens used (padded up to ``min_vocab``).
Examples shrink towards one short sentence over the first tokens ``A, B``.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ntpcheck.transformer.construct import DatasetBuilder, token_names
from ntpcheck.common.data import Dataset

from ._validation import check_bounds, check_int

__all__ = ["realizable_datasets", "token_names", "DatasetBuilder", "STEERS", "WEIGHTS", "MAX_WEIGHT_RATIO"]


#: Drawn to decide whether to go on (another sentence, another token).  It
#: shrinks to the first entry, "stop", so minimal examples are short.
_GO_ON = st.sampled_from([False, True, True, True])
#: Largest ratio between two samples' weights (three orders of magnitude).
MAX_WEIGHT_RATIO = 1000.0
#: Weights of a sentence: 1 (shrunk to, and drawn often so that ties occur), the
#: extremes 10^(+-3/2), or 10^(k/20) for k in [-30, 30]; any two differ by at most
#: MAX_WEIGHT_RATIO.
WEIGHTS = st.one_of(st.just(1.0), st.sampled_from([10.0 ** -1.5, 10.0 ** 1.5]),
                    st.integers(-30, 30).map(lambda k: 10.0 ** (k / 20)))

#: Structures a strategy can be steered towards (``steer=``); each is a drawn
#: per-sentence choice that shrinks to "off", so minimal examples stay plain.
STEERS = frozenset({"shared-queries", "repeats", "long", "dominant"})
_STEER_ON = st.booleans()


def _free_sentence(draw, b: DatasetBuilder, pool: list[str], max_len: int, steer: frozenset) -> tuple[str, ...]:
    """A freely drawn sentence, steered: long, over few tokens (repeats), or ending in a
    query already used and avoiding that query's winners (so the query gets a second
    optimal token, with its own non-optimal neighbourhood)."""
    queries = [q for q in dict.fromkeys(s.query for s in b.samples if len(s.sentence) > 1) if q not in b.winners.get(q, ())]
    q = draw(st.sampled_from(queries)) if queries and "shared-queries" in steer and draw(_STEER_ON) else None
    alphabet = [x for x in pool if q is None or x not in b.winners.get(q, ())]
    if "repeats" in steer and draw(_STEER_ON):
        alphabet = draw(st.lists(st.sampled_from(alphabet), min_size=1, max_size=2, unique=True))
    n_min = max(1, max_len - 1) if "long" in steer and draw(_STEER_ON) else 1
    body = list(draw(st.lists(st.sampled_from(alphabet), min_size=n_min, max_size=max_len)))
    if q is not None:
        body[-1] = q
    return tuple(body)


def draw_realizable(draw, pool: list[str], *, max_len: int, max_samples: int, prefix_closed: bool, min_sentences: int,
                    steer: frozenset = frozenset()) -> DatasetBuilder:
    """Draw the samples of a realizable dataset into a builder (possibly empty if ``min_sentences=0``).

    ``steer`` (a subset of :data:`STEERS`) biases the draws towards structures
    claims are sensitive to; the result is realizable either way.
    ``"dominant"`` gives a sentence the largest weight, sqrt(1000) (so it
    dominates its query against weight-1/sqrt(1000) ones).
    """
    b = DatasetBuilder(list(pool), pick=lambda xs: draw(st.sampled_from(xs)), go_on=lambda: draw(_GO_ON))
    k = 0
    while b.n_samples < max_samples and (k < min_sentences or draw(_GO_ON)):
        k += 1
        weight = draw(WEIGHTS)
        if "dominant" in steer and draw(_STEER_ON):
            weight = math.sqrt(MAX_WEIGHT_RATIO)
        if prefix_closed:
            first: tuple[str, ...] = (draw(st.sampled_from(pool)),)
        else:
            first = _free_sentence(draw, b, pool, max_len, steer)
        before = b.n_samples
        b.grow(first, max_len=max_len, max_samples=max_samples, prefix_closed=prefix_closed, weight=weight)
        if b.n_samples == before and k >= min_sentences + 20:
            break  # nothing more fits; stop rather than loop
    return b


def _validate(min_vocab, max_vocab, max_len, max_samples, prefix_closed, steer=frozenset()):
    check_int("min_vocab", min_vocab, 1)
    check_int("max_vocab", max_vocab, 1)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_int("max_len", max_len, 1)
    check_int("max_samples", max_samples, 1)
    if not isinstance(prefix_closed, bool):
        raise InvalidArgument(f"prefix_closed={prefix_closed!r} must be a bool")
    if isinstance(steer, str) or not set(steer) <= STEERS:
        raise InvalidArgument(f"steer={steer!r} must be a collection of {sorted(STEERS)}")


def realizable_datasets(
    *,
    min_vocab: int = 2,
    max_vocab: int = 8,
    max_len: int = 6,
    max_samples: int = 12,
    prefix_closed: bool = True,
    steer: frozenset[str] | tuple[str, ...] = frozenset(),
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
    steer : collection of str
        Structures to draw more often (a subset of :data:`STEERS`):
        ``"shared-queries"`` (a new sentence ends in a query already used, so
        a query gets several optimal tokens; free sentences only),
        ``"repeats"`` (a sentence over one or two tokens, up to Assumption
        3's limit), ``"long"`` (free sentences of length ``max_len - 1`` or
        more), ``"dominant"`` (a sentence weighted sqrt(1000)).  Each is a
        per-sentence choice that shrinks to off.

    Returns
    -------
    SearchStrategy[ntpcheck.Dataset]
        Always datasets; :func:`ntpcheck.strategies.instances` adds
        embeddings (for instance random orthonormal ones) and parameters.

    Weights are 1, or ``10^(k/20)`` for ``|k| <= 30`` (the extremes drawn often): two samples' weights
    differ by up to :data:`MAX_WEIGHT_RATIO` (1000).

    Shrinks towards a single one-token sample over ``A``, ``B`` (padded to
    ``min_vocab`` tokens), with uniform frequencies.
    """
    _validate(min_vocab, max_vocab, max_len, max_samples, prefix_closed, steer)
    pool = token_names(max_vocab)
    steer = frozenset(steer)

    @st.composite
    def _datasets(draw):
        b = draw_realizable(draw, pool, max_len=max_len, max_samples=max_samples, prefix_closed=prefix_closed,
                            min_sentences=1, steer=steer)
        return b.dataset(min_vocab)

    return _datasets()
