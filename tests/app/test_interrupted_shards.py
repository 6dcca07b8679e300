"""A sharded run stopped early keeps a claim that a finished shard falsified (issue 43, fifth round).

Any falsifying shard decides the merge (``properties/framework/shards.py``), so the verdict of
such a claim cannot change; it is kept, marked (``interrupted_after``, the JSON's
``"interrupted"``, the table's verdict, its detail), with its counterexample, which replays.
A claim whose finished shards falsified nothing has no verdict yet and is left out, as before.
"""

from __future__ import annotations

import json

import pytest

from ntpcheck.app.cli.cli import main
from ntpcheck.app.scaleout import claim_seconds, executor
from ntpcheck.app.scaleout.units import PARTIAL, Plan, run_shard
from ntpcheck.properties.framework import RunInterrupted, Verdict
from ntpcheck.properties.framework.shards import merge

# Without pins, each of Cor. 1's four thorough shards finds its counterexample (0.2-0.7 s each);
# Lemma 3 holds, and its strategy's group runs first in one process.
PLAN = Plan("huang2024", "verify", ("Lemma 3", "Cor. 1 [k=5]"), pinned=False)


def _stop_at(monkeypatch, unit: int, shard: int) -> None:
    """Ctrl-C when ``unit``'s shard ``shard`` is about to run (the in-process loop's own order)."""
    run = executor.run_shard

    def stopping(plan, k, profile, seed, s):
        if (k, s) == (unit, shard):
            raise KeyboardInterrupt
        return run(plan, k, profile, seed, s)

    monkeypatch.setattr(executor, "run_shard", stopping)


def test_a_claim_falsified_by_finished_shards_is_kept(monkeypatch):
    _stop_at(monkeypatch, 1, 2)
    with pytest.raises(RunInterrupted) as e:
        executor.InProcess().run(PLAN, "thorough", 0)
    lemma3, cor1 = e.value.results
    assert lemma3.claim.name == "Lemma 3" and lemma3.verdict is Verdict.HOLDS and lemma3.interrupted_after is None
    assert cor1.verdict is Verdict.FALSIFIED and cor1.counterexample and cor1.interrupted_after == (2, 4)
    assert cor1.detail.startswith(f"{PARTIAL}2 of 4 shards (2 of them falsified the claim") and cor1.counts["drawn"] <= 150
    assert cor1.to_json()["interrupted"] == {"shards": 2, "of": 4}


def test_a_claim_whose_finished_shards_falsified_nothing_is_left_out(monkeypatch):
    _stop_at(monkeypatch, 0, 2)  # Lemma 3 holds: two of its shards done, no verdict yet; Cor. 1 not begun
    with pytest.raises(RunInterrupted) as e:
        executor.InProcess().run(PLAN, "thorough", 0)
    assert e.value.results == []


def test_finished_shards_in_any_order_merge_in_shard_order():
    """On workers shards finish in any order (a dict by shard); all of them: the usual merge."""
    shards = {s: run_shard(PLAN, 1, "thorough", 0, s)[0] for s in (3, 1, 0, 2)}
    (r,) = PLAN.interrupted([None, None], {1: {s: shards[s] for s in (3, 1)}}, "thorough")
    (same,) = PLAN.interrupted([None, None], {1: [shards[1], shards[3]]}, "thorough")
    assert r == same and r.interrupted_after == (2, 4) and r.verdict is Verdict.FALSIFIED
    assert r.counterexample == merge(PLAN.units()[1][1], "thorough", [shards[1], shards[3]]).counterexample
    (whole,) = PLAN.interrupted([None, None], {1: shards}, "thorough")  # every shard finished
    assert whole == PLAN.merged(1, "thorough", [shards[s] for s in range(4)]) and whole.interrupted_after is None


def test_verify_writes_it_and_it_replays(monkeypatch, tmp_path, capsys):
    """The command line: exit 130, the stderr line, the JSON, the table, no estimate kept for the
    partial claim, and its printed counterexample replays as falsified."""
    monkeypatch.setenv("NTPCHECK_CACHE_DIR", str(tmp_path))
    _stop_at(monkeypatch, 1, 2)
    out = tmp_path / "v.json"
    argv = ["verify", "--claims", "Lemma 3,Cor. 1", "--profile", "thorough", "--no-pinned", "--workers", "1"]
    assert main([*argv, "--json", str(out)]) == 130
    got = capsys.readouterr()
    assert "1 of 2 claims finished, 1 more falsified by the shards that finished; writing those" in got.err
    assert "falsified (2/4 shards)" in got.out
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and [c.get("interrupted") for c in doc["claims"]] == [None, {"shards": 2, "of": 4}]
    kept = json.loads((tmp_path / claim_seconds.FILE).read_text())["huang2024"]["thorough"]  # the user's own seconds
    assert list(kept) == ["Lemma 3"]
    text = next(c["counterexample"] for c in doc["claims"] if c["id"] == "Cor. 1")
    (tmp_path / "cex.txt").write_text(text)
    monkeypatch.undo()
    main(["verify", "--dataset", str(tmp_path / "cex.txt"), "--claims", "Cor. 1 [k=5]", "--json", str(tmp_path / "r.json")])
    assert json.loads((tmp_path / "r.json").read_text())["claims"][0]["verdict"] == "falsified"
