"""Claims of Huang et al. found false, each with its minimal counterexample (pinned).

Each :class:`~ntpcheck.properties.framework.Finding` states what is wrong and
returns the minimal counterexample found by Hypothesis, as an instance before
the claim's setup.  The claim records in :mod:`.claims` refer to these; the
tests pin them with ``@example`` and expect ``falsified`` (strict xfail).
The README's Findings section explains each one.
"""

from __future__ import annotations

import ntpcheck
from ntpcheck.transformer.instance import Instance

from ..framework.claim import Finding

__all__ = ["PROP2_COUNTEREXAMPLE", "COR1_UPPER", "FN3_EQUALITY", "PROP2_WITHOUT_PREFIX", "prop2_counterexample"]

#: Minimal counterexample to Proposition 2 without prefix closure (found by
#: Hypothesis, see README "Findings"): under query B, A > B and C > D, E, B.
PROP2_COUNTEREXAMPLE = """\
A -> A
A A B -> A
C -> B
C D E B -> B
"""


def prop2_counterexample() -> Instance:
    return Instance(ntpcheck.loads(PROP2_COUNTEREXAMPLE))


COR1_UPPER = Finding(
    "FINDING: the upper bound 3A is false. Aligned margins approach ||W^(T)||/||W*_ov|| ~ T eta_0/||W*_ov|| "
    "= 4 ||W*_ov|| A, above 3A whenever ||W*_ov|| > 3/4; minimal: two tokens, each its own next token.",
    lambda: Instance(ntpcheck.loads("A -> A\nB -> B\n")),
)

FN3_EQUALITY = Finding(
    "FINDING: L* = |V| exp(-T C_0) is not the minimum of L over W_kq: the trained margins are ~4||W*_ov|| A, "
    "not A, so the limit loss is far smaller (and even with margins exactly A it is "
    "sum pi log(1 + (|V|-1) e^-A) != |V| e^-A).",
    lambda: Instance(ntpcheck.loads("vocab: A B\nA -> A\n")),
)

PROP2_WITHOUT_PREFIX = Finding(
    "FINDING: without the Section 3 prefix convention a query can have two optimal tokens whose "
    "non-optimal sets differ; then W*_kq is not the formula (here A: 1/2, C: 2/3 vs 3/5).",
    prop2_counterexample,
)
