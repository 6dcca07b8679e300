"""Distances to failure that steer the search (``Claim.score``, passed to :func:`hypothesis.target`).

Each score is a cheap function of an instance's structure (no solve, no
training): larger means closer to the structure under which a claim can
fail.  Hypothesis climbs them, so the search reaches rare structures on its
own instead of relying on pinned examples.
"""

from __future__ import annotations

from ntpcheck.instance import Instance
from ntpcheck.structure import Role, analyse

from .bounds import prop2_hall_deficiency

__all__ = ["hall_excess", "majority_tightness"]


def hall_excess(inst: Instance) -> float:
    """Proposition 2's distance to failure: :func:`.bounds.prop2_hall_deficiency` (> 0 iff the formula is wrong).

    Examples
    --------
    >>> import ntpcheck
    >>> hall_excess(Instance(ntpcheck.load("example1")))
    -1.0
    """
    return prop2_hall_deficiency(analyse(inst.dataset))


def majority_tightness(inst: Instance) -> float:
    """How close Assumption 3 is to binding: ``max_n max_x #x / |I(n)|`` over
    non-optimal tokens ``x`` of realizable samples (``<= 1`` under Assumption 3; 0 if none).

    Examples
    --------
    >>> import ntpcheck
    >>> majority_tightness(Instance(ntpcheck.loads("A -> A\\nB A -> A\\nB B A A -> A\\n")))
    1.0
    """
    st = analyse(inst.dataset)
    worst = 0.0
    for s, pos in zip(st.dataset.samples, st.optimal):
        if not pos:
            continue
        r = st.roles[s.query]
        for x in set(s.sentence):
            if r[x] is Role.NON_OPTIMAL:
                worst = max(worst, s.sentence.count(x) / len(pos))
    return worst
