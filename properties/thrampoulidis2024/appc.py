"""Checkers of App. C (the autoregressive setting) and Remark 2 (R9).

* App. C's reduction: the loss averaged over every prefix sample equals CE (2) of the distinct
  ``(t, context)`` pairs merged by embedding, and App. C's displayed objective (π̂ per length) is
  ``T − 1`` times it for sequences of one length ``T``;
* App. C's "m_1 ≥ m_2 ≥ … ≥ m_{T−1}", and the corrected "m_1 ≤ m_2 ≤ …" (for sequences of one
  length every ``(t+1)``-long prefix extends exactly one ``t``-long prefix, a surjection);
* Remark 2's ``ℋ_t ≥ ℋ_{t+1}`` on empirical data; on shift-invariant (stationary) data, where
  Shannon's inequality gives it; and the inequality Shannon's inequality does give on any data,
  ``ℋ_{t+1} ≤ ℋ′_t``, the entropy of ``z_{t+2}`` given the ``t`` tokens before it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ntpcheck.linear import ce
from ntpcheck.linear.autoregressive import appc_ce, distinct_by_length, entropy_by_length, prefix_ce

from ..framework.checks import falsified, holds, outside, vacuous
from .statics import IDENTITY_RTOL

__all__ = ["check_appc_identity", "m_by_length", "check_m_monotone", "check_rem2", "stationary", "check_rem2_stationary",
           "shifted_entropy", "check_rem2_shannon"]


def _needs_sequences(ev, *, equal_lengths: bool = False):
    seqs = ev.instance.sequences
    if seqs is None:
        return outside("not App. C data (no sequences)")
    if equal_lengths and len({len(s) for s in seqs}) > 1:
        return outside("sequences of different lengths (App. C takes one length T)")
    return None


def check_appc_identity(ev, *, per_length: bool = False) -> object:
    """App. C: the average over every prefix of ``−log 𝕊_z(W h(x))`` equals CE (2) of the reduced data
    at the probe ``W``; App. C's display equals ``(T − 1)`` CE (``per_length``: the sabotage, the display
    compared without that factor)."""
    if (o := _needs_sequences(ev, equal_lengths=True)) is not None:
        return o
    inst, D, W = ev.instance, ev.data, ev.probe(0)
    kind, d, seed = inst.embedding
    seqs = inst.sequences
    reduced, literal = ce(D, W), prefix_ce(seqs, W, kind, d, seed)
    T = len(seqs[0])
    display = appc_ce(seqs, W, kind, d, seed)
    factor = 1 if per_length else T - 1
    scale = 1 + abs(literal)
    for what, a, b in (("prefix average = CE of the reduced data", literal, reduced), ("App. C's display = (T - 1) CE", display, factor * reduced)):
        if abs(a - b) > IDENTITY_RTOL * scale * max(1, factor):
            return falsified(-abs(a - b), f"{what}: {a:.12g} vs {b:.12g}")
    return holds(1.0, f"prefix average = CE(reduced, m = {D.m} of {sum(len(g) for g in distinct_by_length(seqs).values())} (t, context) pairs); "
                      f"display = {T - 1} CE", m=D.m, literal=literal, reduced=reduced, display=display, T=T)


def m_by_length(seqs) -> list[int]:
    """``[m_1, …, m_{T−1}]``: the distinct contexts of each length."""
    return [len(g) for g in distinct_by_length(seqs).values()]


def check_m_monotone(ev, *, direction: str, equal_lengths: bool = True) -> object:
    """``m_t`` along ``t``: ``"non-increasing"`` (App. C as printed) or ``"non-decreasing"`` (corrected), for
    sequences of one length (``equal_lengths=False``: the sabotage, any lengths)."""
    if (o := _needs_sequences(ev, equal_lengths=equal_lengths)) is not None:
        return o
    m = m_by_length(ev.instance.sequences)
    if len(m) < 2:
        return vacuous(1.0, f"one context length only (m_1 = {m[0]}): nothing to compare", m=m)
    steps = np.diff(m)
    bad = np.flatnonzero(steps > 0) if direction == "non-increasing" else np.flatnonzero(steps < 0)
    if bad.size:
        t = int(bad[0]) + 1
        return falsified(-1.0, f"m_{t} = {m[t - 1]}, m_{t + 1} = {m[t]}: not {direction}", m=m)
    return holds(1.0, f"m_t = {m}: {direction}", m=m)


def check_rem2(ev) -> object:
    """Remark 2: ``ℋ_t ≥ ℋ_{t+1}`` for every ``t`` (π̂ normalised per length, :func:`entropy_by_length`)."""
    if (o := _needs_sequences(ev)) is not None:
        return o
    H = entropy_by_length(ev.instance.sequences)
    if len(H) < 2 or max(H.values()) <= IDENTITY_RTOL:
        return vacuous(1.0, f"H_t = {[round(h, 6) for h in H.values()]}: nothing to compare (one length, or no uncertainty at all)")
    for t in H:
        if t + 1 in H and H[t + 1] > H[t] + IDENTITY_RTOL:
            return falsified(H[t] - H[t + 1], f"H_{t} = {H[t]:.6g} < H_{t + 1} = {H[t + 1]:.6g}", entropies=list(H.values()))
    return holds(1.0, f"H_t = {[round(h, 6) for h in H.values()]}: non-increasing", entropies=list(H.values()))


def stationary(seqs) -> str | None:
    """None where the sequences' empirical law is shift-invariant, else why not: for sequences of one
    length ``T``, the windows ``z_{1:T−1}`` and ``z_{2:T}`` must occur equally often (then so do all
    shorter windows), which is what Remark 2's Shannon argument uses: ``z_{2:t+1}`` distributed as
    ``z_{1:t}``.

    Examples
    --------
    >>> stationary([("a", "a", "a"), ("a", "a", "c"), ("c", "c", "a"), ("c", "c", "c")])
    "the windows z_1:2 and z_2:3 occur differently often (('a', 'a') 2 against 1)"
    >>> stationary([("a", "b", "a"), ("b", "a", "b")]) is None
    True
    """
    if len({len(s) for s in seqs}) > 1:
        return "sequences of different lengths (shift-invariance is stated for one length)"
    T = len(seqs[0])
    head, tail = Counter(tuple(s[:T - 1]) for s in seqs), Counter(tuple(s[1:]) for s in seqs)
    if head != tail:
        w = next(w for w in sorted(set(head) | set(tail)) if head[w] != tail[w])
        return f"the windows z_1:{T - 1} and z_2:{T} occur differently often ({w} {head[w]} against {tail[w]})"
    return None


def check_rem2_stationary(ev) -> object:
    """Remark 2 on shift-invariant data (:func:`stationary`, the reading's hypothesis): outside the
    hypotheses where the given sequences are not shift-invariant, else :func:`check_rem2`."""
    if (o := _needs_sequences(ev)) is not None:
        return o
    if (why := stationary(ev.instance.sequences)) is not None:
        return outside(f"not stationary data: {why}")
    return check_rem2(ev)


def shifted_entropy(seqs, t: int) -> float:
    """``ℋ′_t``: the empirical entropy of ``z_{t+2}`` given the ``t`` tokens before it (``z_{2:t+1}``)."""
    groups: dict = {}
    for s in seqs:
        if len(s) >= t + 2:
            groups.setdefault(tuple(s[1:t + 1]), Counter())[s[t + 1]] += 1
    n = sum(sum(c.values()) for c in groups.values())
    return float(-sum(k / n * np.log(k / sum(c.values())) for c in groups.values() for k in c.values())) + 0.0


def check_rem2_shannon(ev, *, shifted: bool = True) -> object:
    """Shannon's inequality on the same data: ``ℋ_{t+1} ≤ ℋ′_t`` (conditioning ``z_{t+2}`` on one more
    token, ``z_1``, cannot raise its empirical entropy) (``shifted=False``: the sabotage, ``ℋ_t`` for ``ℋ′_t``)."""
    if (o := _needs_sequences(ev)) is not None:
        return o
    H = entropy_by_length(ev.instance.sequences)
    if len(H) < 2 or max(H.values()) <= IDENTITY_RTOL:
        return vacuous(1.0, "nothing to compare (one length, or no uncertainty at all)")
    for t in H:
        if t + 1 in H:
            Hs = shifted_entropy(ev.instance.sequences, t) if shifted else H[t]
            if H[t + 1] > Hs + IDENTITY_RTOL:
                return falsified(Hs - H[t + 1], f"H_{t + 1} = {H[t + 1]:.6g} > H'_{t} = {Hs:.6g}")
    return holds(1.0, "H_{t+1} <= H'_t for every t")
