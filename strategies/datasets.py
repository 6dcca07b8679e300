"""Strategies for datasets that satisfy the paper's assumptions by construction.

How realizability is built in
-----------------------------
Sentences are generated token by token.  The collocation ``n`` is drawn
lazily and injectively: the first time a token needs a next token, one is
drawn among the tokens nobody maps to yet, and the one-token sample
``([x], n(x))`` is added (so the collocation is always in the data).  Per
query ``q``, every token is given once and for all one of two statuses,
*winner* or *loser*.  A sentence with query ``q`` (length >= 2) gets exactly
one distinct winner: the one already among its tokens, or, if none, a
non-loser drawn among them; its next token is ``n(winner)``, and every other
token of the sentence becomes a loser for ``q``.  Winners are never below a
token and losers never above one, so every x^q-order is acyclic without
confused tokens (Assumption 1(ii)); the winner also has to occur at least as
often as each loser (Assumption 3), or the sentence ends there.  With
``prefix_closed=True`` the next token of each prefix is appended to the
sentence (Section 3 convention), so every prefix is a sample.

Sizes follow what is drawn: a list of sentences, each grown until a drawn
"stop"; the vocabulary is the tokens used (padded up to ``min_vocab``).
Examples shrink towards one short sentence over the first tokens ``A, B``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from ntpcheck.data import Dataset, Sample

from ._validation import check_bounds, check_choice, check_int

__all__ = ["realizable_datasets", "token_names", "DatasetBuilder"]


def token_names(n: int) -> list[str]:
    """``A, B, ..., Z`` then ``T27, T28, ...``: short, readable token names."""
    letters = [chr(ord("A") + i) for i in range(26)]
    return letters[:n] + [f"T{i + 1}" for i in range(26, n)]


#: Drawn to decide whether to go on (another sentence, another token).  It
#: shrinks to the first entry, "stop", so minimal examples are short.
_GO_ON = st.sampled_from([False, True, True, True])
#: Weights of a sentence: shrink to 1 (uniform); otherwise skewed.
_WEIGHTS = st.one_of(st.just(1.0), st.sampled_from([2.0, 0.5, 5.0, 0.1, 20.0]), st.floats(0.05, 50.0))


@dataclass
class DatasetBuilder:
    """Mutable state while a dataset is drawn (see the module docstring)."""

    pool: list[str]
    n: dict[str, str] = field(default_factory=dict)
    winners: dict[str, set] = field(default_factory=dict)
    losers: dict[str, set] = field(default_factory=dict)
    samples: list[Sample] = field(default_factory=list)
    keys: dict = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return len(self.keys)

    def _add(self, sentence: tuple[str, ...], nxt: str, w: float) -> None:
        self.samples.append(Sample(sentence, nxt, w))
        self.keys[(sentence, nxt)] = None

    def next_of(self, draw, x: str, budget: int, weight: float = 1.0) -> str | None:
        """``n(x)``, drawing it (and adding ``([x], n(x))``) if needed and allowed."""
        if x in self.n:
            return self.n[x]
        free = [y for y in self.pool if y not in set(self.n.values())]
        if not free or budget < 1:
            return None
        y = draw(st.sampled_from(free))
        self.n[x] = y
        self._add((x,), y, weight)
        return y

    def winner(self, draw, sentence: tuple[str, ...]) -> str | None:
        """The unique winner of a sentence under its query, or None if there can be none."""
        q = sentence[-1]
        toks = list(dict.fromkeys(sentence))
        wins, loses = self.winners.setdefault(q, set()), self.losers.setdefault(q, set())
        known = [x for x in toks if x in wins]
        if len(known) > 1:
            return None
        counts = {x: sentence.count(x) for x in toks}
        ok = lambda w: all(counts[w] >= counts[o] for o in toks if o != w)  # Assumption 3
        if known:
            w = known[0]
            if not ok(w):
                return None
        else:
            cands = [x for x in toks if x not in loses and ok(x)]
            if not cands:
                return None
            w = draw(st.sampled_from(cands))
        return w

    def commit(self, sentence: tuple[str, ...], w: str) -> None:
        q = sentence[-1]
        self.winners[q].add(w)
        self.losers[q].update(x for x in sentence if x != w)

    def grow(self, draw, first: tuple[str, ...], *, max_len: int, max_samples: int, prefix_closed: bool, weight: float) -> None:
        """Add the samples of one sentence starting with ``first``."""
        sentence = tuple(first)
        while True:
            budget = max_samples - self.n_samples
            if len(sentence) == 1:
                y = self.next_of(draw, sentence[0], budget, weight)
                if y is None:
                    return
            else:
                w = self.winner(draw, sentence)
                if w is None:
                    return
                need = 1 + (0 if w in self.n else 1)  # this sample, and maybe ([w], n(w))
                if budget < need:
                    return
                y = self.next_of(draw, w, budget - 1)
                if y is None:
                    return
                self.commit(sentence, w)
                if (sentence, y) not in self.keys:
                    self._add(sentence, y, weight)
            if not prefix_closed or len(sentence) + 1 > max_len or not draw(_GO_ON):
                return
            sentence = sentence + (y,)

    def dataset(self, min_vocab: int) -> Dataset:
        used: dict[str, None] = {}
        for s in self.samples:
            for t in (*s.sentence, s.next):
                used.setdefault(t, None)
        for t in self.pool:
            if len(used) >= min_vocab:
                break
            used.setdefault(t, None)
        return Dataset.from_samples(self.samples, vocab=tuple(used))


def draw_realizable(draw, pool: list[str], *, max_len: int, max_samples: int, prefix_closed: bool, min_sentences: int) -> DatasetBuilder:
    """Draw the samples of a realizable dataset into a builder (possibly empty if ``min_sentences=0``)."""
    b = DatasetBuilder(pool=list(pool))
    k = 0
    while b.n_samples < max_samples and (k < min_sentences or draw(_GO_ON)):
        k += 1
        weight = draw(_WEIGHTS)
        if prefix_closed:
            first: tuple[str, ...] = (draw(st.sampled_from(pool)),)
        else:
            first = tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_len)))
        before = b.n_samples
        b.grow(draw, first, max_len=max_len, max_samples=max_samples, prefix_closed=prefix_closed, weight=weight)
        if b.n_samples == before and k >= min_sentences + 20:
            break  # nothing more fits; stop rather than loop
    return b


def _validate(min_vocab, max_vocab, max_len, max_samples, prefix_closed, embeddings):
    check_int("min_vocab", min_vocab, 1)
    check_int("max_vocab", max_vocab, 1)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_int("max_len", max_len, 1)
    check_int("max_samples", max_samples, 1)
    if not isinstance(prefix_closed, bool):
        from hypothesis.errors import InvalidArgument

        raise InvalidArgument(f"prefix_closed={prefix_closed!r} must be a bool")
    check_choice("embeddings", embeddings, ("canonical", "orthonormal"))


def realizable_datasets(
    *,
    min_vocab: int = 2,
    max_vocab: int = 8,
    max_len: int = 6,
    max_samples: int = 12,
    prefix_closed: bool = True,
    embeddings: str = "canonical",
):
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
    embeddings : {"canonical", "orthonormal"}
        ``"canonical"`` draws :class:`ntpcheck.Dataset` objects;
        ``"orthonormal"`` draws :class:`ntpcheck.claims.Instance` objects
        carrying random orthonormal embeddings (``d`` in ``[|V|, |V| + 2]``).

    Shrinks towards a single one-token sample over ``A``, ``B`` (padded to
    ``min_vocab`` tokens), with uniform frequencies.
    """
    _validate(min_vocab, max_vocab, max_len, max_samples, prefix_closed, embeddings)
    pool = token_names(max_vocab)

    @st.composite
    def _datasets(draw):
        b = draw_realizable(draw, pool, max_len=max_len, max_samples=max_samples, prefix_closed=prefix_closed, min_sentences=1)
        return b.dataset(min_vocab)

    if embeddings == "canonical":
        return _datasets()
    from ntpcheck.claims import Instance

    from .embeddings import orthonormal_matrices

    return _datasets().flatmap(lambda ds: orthonormal_matrices(ds.n_vocab).map(lambda E: Instance(ds, E)))
