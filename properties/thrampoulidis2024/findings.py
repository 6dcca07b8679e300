"""Claims of Thrampoulidis (2024) found false, each with its minimal counterexample (pinned), and the
fixed instances the sabotages use.

Each :class:`~..framework.claim.Finding` states what is wrong and returns the
minimal counterexample (the one the search shrinks to with pins off, tested).
The claim records in :mod:`.claims` refer to these; the tests pin them and
expect ``falsified`` (strict xfail).  The README's section on this paper
explains each one.
"""

from __future__ import annotations

from ntpcheck.linear import LinearInstance, loads

from ..framework.claim import Finding

__all__ = ["MINIMAL", "TWO_CONTEXTS", "SHARED", "INCOMPATIBLE", "FULL_SUPPORT", "SEQUENCES", "UNEQUAL", "M_DECREASING", "REM2",
           "DCEF_6A", "R1_STRICT", "APPC_M", "REM2_FINDING"]

#: The smallest data: one context, two tokens, A always next.
MINIMAL = "vocab: A B\nh = 1.0 : A\n"
#: Two orthonormal contexts, the first with two next tokens (W* != 0, dim F = 1).
TWO_CONTEXTS = "vocab: A B C\nh = 1.0, 0.0 : A x2, B\nh = 0.0, 1.0 : C x3\n"
#: Tokens A and B follow the same contexts, with other probabilities (Fig. 2's w_1 = w_5 in W^mm, not in W*).
SHARED = "vocab: A B C\nh = 1.0, 0.0 : A x2, B\nh = 0.0, 1.0 : C\n"
#: One embedding, one support, two different in-support ratios: not NTP_H-compatible.
INCOMPATIBLE = "vocab: A B C\nh = 1.0 : A, B\nh = 1.0 : A x2, B\n"
#: Every token after the one context, and ||W*|| < 1: CE attains H inside the unit ball.
FULL_SUPPORT = "vocab: A B\nh = 1.0 : A, B x2\n"
SEQUENCES = "embedding: context, d = 3, seed = 0\nvocab: A B C\nA B C A\nA A B C\nB C A A\n"
UNEQUAL = "embedding: context, d = 3, seed = 0\nvocab: A B C\nA B C\nB A\nC A\n"
#: Minimal counterexamples of App. C's "m_1 >= m_2" and of Remark 2 (two sequences of length 3, two tokens).
M_DECREASING = "embedding: context, d = 3, seed = 0\nvocab: A B\nA A A\nA B A\n"
REM2 = "embedding: context, d = 3, seed = 0\nvocab: A B\nA A A\nA A B\n"


def instance(text: str) -> LinearInstance:
    return loads(text)


DCEF_6A = Finding(
    "FINDING: App. D's CE_F(W) = lim_R CE(W + R W^d) is false for W^d meeting only (6a), as printed: W^d = 0 meets (6a) "
    "(it is in F-perp), and lim CE(W + R 0) = CE(W) > CE_F(W) whenever some S_j < V; it needs (6b) too (reading B, which "
    "holds). Minimal: one context, two tokens.",
    lambda: instance(MINIMAL),
)

R1_STRICT = Finding(
    "FINDING: CE is not strictly convex (§4): it is constant along W + t 1u^T (the softmax ignores a shift of every "
    "logit) and along W + tU with U H = 0; any data. Ŵ_B is unique nonetheless, by a KKT argument (R1 [W_B unique]).",
    lambda: instance(MINIMAL),
)

APPC_M = Finding(
    "FINDING: App. C's 'm_1 >= m_2 >= ... >= m_{T-1}' is reversed: for sequences of one length every (t+1)-long prefix "
    "extends one t-long prefix, so m_t is non-decreasing; minimal: A A A, A B A (m_1 = 1 < m_2 = 2).",
    lambda: instance(M_DECREASING),
)

REM2_FINDING = Finding(
    "FINDING: Remark 2's H_t >= H_{t+1} fails on empirical data: the tokens predicted differ (z_{t+1} vs z_{t+2}), so "
    "Shannon's inequality does not apply; minimal: A A A, A A B (H_1 = 0 < H_2 = log 2). It holds on shift-invariant "
    "(stationary) data, and H_{t+1} <= H'_t (z_{t+2} given z_{2:t+1}) holds always.",
    lambda: instance(REM2),
)
