"""Building datasets that satisfy the paper's assumptions by construction.

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

The choices are made by callables, so one construction serves both the
Hypothesis strategies (:mod:`strategies.datasets`, where examples shrink)
and the seeded generator (:mod:`ntpcheck.transformer.synthetic`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from ntpcheck.common.data import Dataset, Sample

__all__ = ["token_names", "DatasetBuilder", "padded_dataset"]


def token_names(n: int) -> list[str]:
    """``A, B, ..., Z`` then ``T27, T28, ...``: short, readable token names."""
    letters = [chr(ord("A") + i) for i in range(26)]
    return letters[:n] + [f"T{i + 1}" for i in range(26, n)]


@dataclass
class DatasetBuilder:
    """Mutable state while a dataset is built (see the module docstring).

    ``pick(choices)`` returns one of a non-empty sequence and ``go_on()``
    says whether to extend the current sentence; the Hypothesis strategies
    pass draws (so examples shrink), :func:`ntpcheck.transformer.synthetic.random_realizable_dataset`
    a seeded RNG.
    """

    pool: list[str]
    pick: Callable[[Sequence[str]], str]
    go_on: Callable[[], bool]
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

    def next_of(self, x: str, budget: int, weight: float = 1.0) -> str | None:
        """``n(x)``, choosing it (and adding ``([x], n(x))``) if needed and allowed."""
        if x in self.n:
            return self.n[x]
        taken = set(self.n.values())
        free = [y for y in self.pool if y not in taken]
        if not free or budget < 1:
            return None
        y = self.pick(free)
        self.n[x] = y
        self._add((x,), y, weight)
        return y

    def winner(self, sentence: tuple[str, ...]) -> str | None:
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
            w = self.pick(cands)
        return w

    def commit(self, sentence: tuple[str, ...], w: str) -> None:
        q = sentence[-1]
        self.winners[q].add(w)
        self.losers[q].update(x for x in sentence if x != w)

    def grow(self, first: tuple[str, ...], *, max_len: int, max_samples: int, prefix_closed: bool, weight: float) -> None:
        """Add the samples of one sentence starting with ``first``."""
        sentence = tuple(first)
        while True:
            budget = max_samples - self.n_samples
            if len(sentence) == 1:
                y = self.next_of(sentence[0], budget, weight)
                if y is None:
                    return
            else:
                w = self.winner(sentence)
                if w is None:
                    return
                need = 1 + (0 if w in self.n else 1)  # this sample, and maybe ([w], n(w))
                if budget < need:
                    return
                y = self.next_of(w, budget - 1)
                if y is None:
                    return
                self.commit(sentence, w)
                if (sentence, y) not in self.keys:
                    self._add(sentence, y, weight)
            if not prefix_closed or len(sentence) + 1 > max_len or not self.go_on():
                return
            sentence = sentence + (y,)

    def dataset(self, min_vocab: int) -> Dataset:
        return padded_dataset(self.samples, min_vocab, self.pool)


def padded_dataset(samples: Sequence[Sample], min_vocab: int, pool: Sequence[str]) -> Dataset:
    """The dataset of ``samples`` whose vocabulary (tokens in order of first use) is
    padded with unused tokens of ``pool`` up to ``min_vocab`` tokens."""
    used = dict.fromkeys(Dataset.from_samples(samples).vocab)
    for t in pool:
        if len(used) >= min_vocab:
            break
        used.setdefault(t, None)
    return Dataset.from_samples(samples, vocab=tuple(used))
