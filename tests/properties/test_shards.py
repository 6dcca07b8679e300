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
from ntpcheck.properties.framework.shards import Shard, merge, search_shard, shards_for, strategy_key

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


def test_claims_of_one_strategy_draw_the_same_instances_in_a_shard():
    """Issue 43: a shard's seed names the data strategy, not the claim, so two claims drawing from
    one strategy with one budget start each shard on the same instances (and share their evidence
    in a process that runs them one after the other), as every claim does unsplit.  Hypothesis then
    adapts each search to what its claim's check returned (targets, outcomes), so the draws part
    later (here after 21 of 75)."""
    by_name = {c.name: c for c in paper().claims}
    a, b = by_name["Eq. 5"], by_name["Eq. 6"]
    assert strategy_key(a, "thorough") == strategy_key(b, "thorough") != strategy_key(CLAIM, "thorough")
    first, second = (search_shard(c, "thorough", 0, 2, 4, pinned=False) for c in (a, b))
    keys = [[o.dataset_key for o in s.outcomes] for s in (first, second)]
    assert len(keys[0]) >= 20 and keys[0][:20] == keys[1][:20]
    other = search_shard(a, "thorough", 0, 3, 4, pinned=False)
    assert [o.dataset_key for o in other.outcomes][:20] != keys[0][:20]  # another shard, other instances


def test_strategy_keys_are_the_same_in_every_process():
    """A shard's seed must not depend on the process: every registered paper's claims, under every
    profile, name their strategy alike in a process with another hash seed (sets of strings are
    ordered by it); an object named by its memory address falls back to the claim's name."""
    import json
    import os
    import subprocess
    import sys

    from ntpcheck.properties import registered

    code = ("import json; from ntpcheck.properties import paper, registered; "
            "from ntpcheck.properties.framework.shards import strategy_key; "
            "print(json.dumps({n: {p: [strategy_key(c, p) for c in paper(n).claims] for p in ('quick', 'default', 'thorough')} "
            "for n in registered()}))")
    here = {n: {p: [strategy_key(c, p) for c in paper(n).claims] for p in ("quick", "default", "thorough")} for n in registered()}
    for hash_seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": hash_seed}).stdout
        assert json.loads(out) == here
