"""Issue 43: verify's claims are placed by data strategy, so that claims drawing the same instances
share one process's evidence cache; the placement is balanced and never changes a result
(``tests/app/test_dask.py`` checks the JSON against the in-process run)."""

from __future__ import annotations

from collections import Counter

import pytest

from ntpcheck.app.scaleout.placement import strategy_groups, strategy_lanes
from ntpcheck.properties import paper


@pytest.mark.parametrize("name", ["huang2024", "thrampoulidis2024"])
def test_strategy_lanes_keep_groups_together_and_balance(name):
    claims = list(paper(name).claims)
    groups = strategy_groups(claims, "default")
    assert sorted(k for g in groups for k in g) == list(range(len(claims)))
    for g in groups:  # one strategy per group
        assert len({repr(claims[k].data("default")) for k in g}) == 1
    workers = ["tcp://a:1", "tcp://b:2"]
    lanes = strategy_lanes(workers, claims, "default")
    load = Counter(lane[0] for lane in lanes)
    share = -(-len(claims) // 2)
    # Greedy placement's guarantee: the last chunk put on the fullest worker went to the least
    # loaded one, which then held at most half the claims; chunks are at most a worker's share.
    largest = max(min(len(g), share) for g in groups)
    assert set(load) == set(workers) and max(load.values()) <= len(claims) / 2 + largest
    for g in groups:  # a group no larger than a worker's share stays on one worker
        if len(g) <= share:
            assert len({lanes[k][0] for k in g}) == 1
    assert strategy_lanes(workers[:1], claims, "default") == [None] * len(claims)
