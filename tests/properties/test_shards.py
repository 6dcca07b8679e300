"""Issue 32: a claim's search split into shards (``thorough``) and their merge (``framework.shards``).

The rule: no falsification, the shards' outcomes in shard order go through ``aggregate``; a
falsification anywhere falsifies, the smallest counterexample by (tokens, samples, text)
is reported, and the counts add up.  The shard count depends on the profile only.
"""

from __future__ import annotations

import dataclasses

import pytest

from ntpcheck.properties import paper
from ntpcheck.properties.framework import ClaimResult, Outcome, Verdict, aggregate
from ntpcheck.properties.framework.shards import Shard, merge, search_shard, shards_for

CLAIM = next(c for c in paper().claims if c.name == "Lemma 1")


def _o(verdict: Verdict, slack: float) -> Outcome:
    return Outcome(verdict, slack, {"m": slack}, f"slack {slack}", series={"t": [slack]})


def _falsified(V: int, N: int, text: str, n_counted: int) -> Shard:
    outcomes = tuple(_o(Verdict.HOLDS, 1.0) for _ in range(n_counted - 1)) + (_o(Verdict.FALSIFIED, -1.0),)
    r = ClaimResult(None, Verdict.FALSIFIED, {}, {}, text, f"cex {text}", instance={"V": V, "N": N},
                    per_instance=((Verdict.FALSIFIED, -1.0, {"V": V, "N": N}, True),))
    return Shard(outcomes, r)


def test_merge_without_falsification_is_aggregate_of_the_concatenation():
    a = (_o(Verdict.HOLDS, 0.5), _o(Verdict.VACUOUS, 0.1))
    b = (_o(Verdict.HOLDS, 0.2), _o(Verdict.OUTSIDE, float("nan")))
    merged = merge(CLAIM, "thorough", [Shard(a), Shard(b)])
    direct = aggregate(CLAIM, [*a, *b], 100)
    assert (merged.verdict, dict(merged.counts), dict(merged.measured), merged.detail) == \
           (direct.verdict, dict(direct.counts), dict(direct.measured), direct.detail)
    assert merged.counts["drawn"] == 4 and merged.min_tested == 100


def test_merge_with_falsification_reports_the_smallest_counterexample_and_adds_counts():
    shards = [Shard((_o(Verdict.HOLDS, 1.0),) * 3), _falsified(4, 3, "b", 2), _falsified(3, 5, "z", 1), _falsified(3, 5, "a", 4)]
    r = merge(CLAIM, "thorough", shards)
    assert r.verdict is Verdict.FALSIFIED and r.counterexample == "a" and r.claim is CLAIM
    assert r.counts["drawn"] == 3 + 2 + 1 + 4 and r.counts["falsified"] == 3 and r.counts["holds"] == 7
    assert merge(CLAIM, "thorough", shards[::-1]).counterexample == "a"  # whatever order shards finish in


def test_the_shard_count_depends_on_the_profile_only():
    assert shards_for("quick") == shards_for("default") == 1 and shards_for("thorough") > 1


@pytest.mark.slow
def test_shards_share_the_budget_and_a_falsified_shard_is_shrunk():
    """A real shard: a quarter of thorough's draws; Cor. 1 (no pins) is falsified by the search of a shard."""
    s = search_shard(CLAIM, "thorough", 0, 1, 4)
    # A quarter of the draws (300/4), and up to a quarter of the budget (600/4) while some part of
    # the claim is not yet exercised (Lemma 1's lower bound never is, under Assumption 2).
    assert 75 <= len(s.outcomes) <= 150 and s.falsified is None
    cor1 = dataclasses.replace(next(c for c in paper().claims if c.name == "Cor. 1 [k=5]"), examples=())
    shards = [search_shard(cor1, "thorough", 0, k, 4) for k in range(4)]
    assert any(s.falsified is not None for s in shards)
    r = merge(cor1, "thorough", shards)
    assert r.verdict is Verdict.FALSIFIED and r.counts["drawn"] == sum(len(s.outcomes) for s in shards)
