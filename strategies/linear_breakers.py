"""Breakers for the hypotheses of Thrampoulidis (2024): data that fail exactly one of them.

The conditions (:data:`LINEAR_CONDITIONS`): ``compatible`` (Def. 1),
``separable`` (Def. 2), ``overparameterised`` (``H̄`` of full column rank
``m ≤ d``, Lemma 1's hypothesis with ``d ≥ m``) and ``S<V`` (§2's standing
assumption: some context has ``S_j < V``).  They are not independent: full
column rank implies compatibility and separability (Lemma 1), so a breaker of
``compatible`` or ``separable`` also breaks ``overparameterised``; each breaker
keeps every other condition (tested on 200 draws each).

* ``compatible``: a new context with the embedding of context ``j`` and the
  same support but other in-support ratios (one count raised by 1): Eq. (4)
  asks for two values of one log-ratio.  Separability is untouched (same
  support, same embedding).
* ``separable``: a new context with the embedding of context ``j`` whose
  support is one token of ``𝒮_j``: (6a) on ``j`` and (6b) on the new context
  contradict each other; compatibility is untouched (one token: no ratio).
* ``overparameterised``: a context repeated exactly (rank deficient, every
  constraint repeated), or ``m ≥ 3`` unit contexts at distinct angles in
  ``d = 2`` each followed by its own token (``d < m``; ℱ = {0}, and
  ``w_v = c h̄_{j(v)}`` separates for large ``c``).
* ``S<V``: every context followed by every token.

A base context with ``S_j = 1`` gets a second token first (the breakers of
``compatible`` and ``separable`` need two).  Examples shrink towards the
smallest base and the first context.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ntpcheck.linear import LinearInstance, NTPData

from ._validation import check_choice
from .linear import COUNTS, linear_instances

__all__ = ["LINEAR_CONDITIONS", "linear_breaking"]

LINEAR_CONDITIONS = ("compatible", "separable", "overparameterised", "S<V")


def _with_context(inst: LinearInstance, h: np.ndarray, counts: np.ndarray, C: np.ndarray) -> LinearInstance:
    D = inst.data
    return LinearInstance(NTPData(np.column_stack([D.H, h]), np.vstack([C, counts])), (), inst.params)


@st.composite
def _duplicated(draw, condition: str, base: st.SearchStrategy) -> LinearInstance:
    inst = draw(base)
    D = inst.data
    j = draw(st.integers(0, D.m - 1))
    C = D.counts.copy()
    support = [int(z) for z in np.flatnonzero(C[j])]
    if len(support) == 1 and condition in ("compatible", "separable"):
        z = (support[0] + 1) % D.V
        C[j, z] = draw(COUNTS)
        if (C[0] > 0).all():  # context 0 now has every token: add a token no context is followed by (S_0 < V)
            C = np.hstack([C, np.zeros((D.m, 1), dtype=C.dtype)])
        support = sorted([support[0], z])
    new = C[j].copy()
    if condition == "compatible":
        new[support[0]] += 1
    elif condition == "separable":
        keep = draw(st.sampled_from(support))
        new = np.zeros_like(new)
        new[keep] = draw(COUNTS)
    return _with_context(inst, D.H[:, j], new, C)


@st.composite
def _circle(draw) -> LinearInstance:
    """``m ≥ 3`` unit contexts at angles ``2πk/m`` in ``d = 2``, context ``k`` followed by token ``k``."""
    m = draw(st.integers(3, 5))
    V = m + draw(st.integers(0, 2))
    angles = 2 * np.pi * np.arange(m) / m
    H = np.vstack([np.cos(angles), np.sin(angles)])
    C = np.zeros((m, V), dtype=np.int64)
    for k in range(m):
        C[k, k] = draw(COUNTS)
    return LinearInstance(NTPData(H, C))


def linear_breaking(condition: str, *, max_contexts: int = 4, max_vocab: int = 5) -> st.SearchStrategy[LinearInstance]:
    """Instances that break ``condition`` (one of :data:`LINEAR_CONDITIONS`) and keep the others
    (module docstring: breaking ``compatible`` or ``separable`` also breaks ``overparameterised``)."""
    check_choice("condition", condition, LINEAR_CONDITIONS)
    base = linear_instances(max_contexts=max_contexts, max_vocab=max_vocab)
    if condition == "S<V":
        return linear_instances(max_contexts=max_contexts, max_vocab=max_vocab, full_support=True)
    if condition == "overparameterised":
        return st.one_of(_duplicated(condition, base), _circle())
    return _duplicated(condition, base)
