"""A sharded run stopped early keeps a claim that a finished shard falsified (issue 43, fifth round).

Any falsifying shard decides the merge (``properties/framework/shards.py``), so the verdict of
such a claim cannot change; its counterexample, which replays, is kept with a detail saying the
whole search may report a smaller one.  A claim whose finished shards falsified nothing has no
verdict yet and is left out, as before.
"""

from __future__ import annotations

import pytest

from ntpcheck.app.scaleout import executor
from ntpcheck.app.scaleout.units import PARTIAL, Plan
from ntpcheck.properties.framework import RunInterrupted, Verdict

# Without pins, each of Cor. 1's four thorough shards finds its counterexample (0.2-0.7 s each).
PLAN = Plan("huang2024", "verify", ("Lemma 3", "Cor. 1 [k=5]"), pinned=False)


def _stop_at(monkeypatch, unit: int, shard: int) -> None:
    """Ctrl-C when ``unit``'s shard ``shard`` is about to run (the in-process loop's own order)."""
    run_shard = executor.run_shard

    def stopping(plan, k, profile, seed, s):
        if (k, s) == (unit, shard):
            raise KeyboardInterrupt
        return run_shard(plan, k, profile, seed, s)

    monkeypatch.setattr(executor, "run_shard", stopping)


def test_a_claim_falsified_by_finished_shards_is_kept(monkeypatch):
    _stop_at(monkeypatch, 1, 2)
    with pytest.raises(RunInterrupted) as e:
        executor.InProcess().run(PLAN, "thorough", 0)
    kept = {r.claim.name: r for r in e.value.results}
    cor1 = kept["Cor. 1 [k=5]"]
    assert cor1.verdict is Verdict.FALSIFIED and cor1.counterexample
    assert cor1.detail.startswith(f"{PARTIAL}2 of 4 shards") and cor1.counts["drawn"] <= 150
    assert "Lemma 3" not in kept or kept["Lemma 3"].verdict is Verdict.HOLDS  # finished before, or not begun


def test_a_claim_whose_finished_shards_falsified_nothing_is_left_out(monkeypatch):
    _stop_at(monkeypatch, 0, 2)  # Lemma 3 holds: two of its shards done, no verdict yet
    with pytest.raises(RunInterrupted) as e:
        executor.InProcess().run(PLAN, "thorough", 0)
    assert "Lemma 3" not in [r.claim.name for r in e.value.results]
    assert all(r.detail.startswith(PARTIAL) for r in e.value.results)


def test_finished_shards_in_any_order():
    """On workers shards finish in any order (a dict by shard); the merge takes them in shard order."""
    from ntpcheck.app.scaleout.units import run_shard

    shards = {s: run_shard(PLAN, 1, "thorough", 0, s)[0] for s in (3, 1)}
    (r,) = PLAN.interrupted([None, None], {0: {}, 1: shards}, "thorough")
    assert r.verdict is Verdict.FALSIFIED and r.detail.startswith(f"{PARTIAL}2 of 4 shards")
    assert PLAN.interrupted([None, None], {0: {}, 1: shards}, "thorough") == [r]
