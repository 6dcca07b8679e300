"""Issue 43: verify's claims are placed by data strategy, so that claims drawing the same instances
share one process's evidence cache; the placement is balanced and never changes a result
(``tests/app/test_dask.py`` checks the JSON against the in-process run)."""

from __future__ import annotations

from collections import Counter

import pytest

from ntpcheck.app.scaleout.placement import strategy_groups, strategy_placement
from ntpcheck.properties import paper


@pytest.mark.parametrize("name", ["huang2024", "thrampoulidis2024"])
def test_strategy_placement_keeps_groups_together_and_balance(name):
    claims = list(paper(name).claims)
    groups = strategy_groups(claims, "default")
    assert sorted(k for g in groups for k in g) == list(range(len(claims)))
    for g in groups:  # one strategy per group
        assert len({repr(claims[k].data("default")) for k in g}) == 1
    workers = ["tcp://a:1", "tcp://b:2"]
    lanes = strategy_placement(workers, claims, "default").lanes
    load = Counter(lane[0] for lane in lanes)
    share = -(-len(claims) // 2)
    # Greedy placement's guarantee: the last chunk put on the fullest worker went to the least
    # loaded one, which then held at most half the claims; chunks are at most a worker's share.
    largest = max(min(len(g), share) for g in groups)
    assert set(load) == set(workers) and max(load.values()) <= len(claims) / 2 + largest
    for g in groups:  # a group no larger than a worker's share stays on one worker
        if len(g) <= share:
            assert len({lanes[k][0] for k in g}) == 1
    assert strategy_placement(workers[:1], claims, "default").lanes == [None] * len(claims)


@pytest.mark.parametrize("name", ["huang2024", "thrampoulidis2024"])
def test_strategy_placement_runs_chunks_heaviest_first_and_each_in_plan_order(name):
    """A claim's seconds depend on the claims run before it in its group (they leave it their
    evidence), so the order sorts chunks by weight and keeps plan order inside each (issue 43)."""
    claims = list(paper(name).claims)
    costs = [float(1 + (7 * k) % 5) for k in range(len(claims))]  # uneven, plan order unrelated
    placed = strategy_placement(["tcp://a:1", "tcp://b:2"], claims, "default", costs)
    assert sorted(placed.priorities) == list(range(1, len(claims) + 1))
    for group in strategy_groups(claims, "default"):
        for lane in {placed.lanes[k][0] for k in group}:
            mine = [k for k in group if placed.lanes[k][0] == lane]
            assert [placed.priorities[k] for k in mine] == sorted((placed.priorities[k] for k in mine), reverse=True)


def test_unit_costs_are_the_last_run_seconds_in_plan_order(tmp_path, monkeypatch):
    """Issue 43: the next run on workers starts the longest claims first, from the seconds the last
    run of the same paper and profile recorded; a claim never timed gets the median of the others,
    and nothing known (or a damaged file) keeps plan order."""
    from types import SimpleNamespace as R

    from ntpcheck.app.scaleout import claim_seconds
    from ntpcheck.app.scaleout.executor import unit_costs
    from ntpcheck.app.scaleout.units import Plan

    monkeypatch.setenv("NTPCHECK_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(claim_seconds, "shipped", lambda paper: {})  # a paper that ships no estimates
    plan = Plan("huang2024", "verify", ("Lemma 1", "Lemma 3", "Ex. 1"), pinned=True)
    assert unit_costs(plan, "default") is None
    claim_seconds.record("huang2024", "default", [R(claim=R(name="Lemma 1"), seconds=4.0), R(claim=R(name="Ex. 1"), seconds=0.5)])
    claim_seconds.record("huang2024", "quick", [R(claim=R(name="Lemma 3"), seconds=9.0)])
    assert unit_costs(plan, "default") == [(4.0,), (4.0,), (0.5,)]  # Lemma 3: median of (0.5, 4.0) taken upwards
    assert unit_costs(plan, "quick") == [(9.0,)] * 3
    assert unit_costs(Plan("huang2024", "assumption", ("Lemma 1",), pinned=True), "default") is None
    (tmp_path / claim_seconds.FILE).write_text("{not json")
    assert unit_costs(plan, "default") is None
    claim_seconds.record("huang2024", "default", [R(claim=R(name="Lemma 3"), seconds=1.0)])  # replaces the damaged file
    assert unit_costs(plan, "default") == [(1.0,)] * 3


def test_sharded_claims_keep_each_shards_seconds(tmp_path, monkeypatch):
    """Issue 43, fifth round: a sharded claim's estimates are its shards' own seconds (one shard
    of Prop. 2 [Assumptions 1-2 only] took 16.0 of its 20.6 s on 16 workers); a claim whose last run
    kept no shards (or another number of them) is split evenly, and its total is still its estimate."""
    from types import SimpleNamespace as R

    from ntpcheck.app.scaleout import claim_seconds
    from ntpcheck.app.scaleout.executor import unit_costs
    from ntpcheck.app.scaleout.units import Plan

    monkeypatch.setenv("NTPCHECK_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(claim_seconds, "shipped", lambda paper: {})
    plan = Plan("huang2024", "verify", ("Lemma 1", "Lemma 3", "Ex. 1"), pinned=True)
    claim_seconds.record("huang2024", "thorough", [R(claim=R(name=n), seconds=s) for n, s in (("Lemma 1", 8.0), ("Lemma 3", 2.0), ("Ex. 1", 1.0))],
                         {"Lemma 1": [0.5, 6.0, 1.0, 0.5], "Ex. 1": [0.5, 0.5], "Not run": [1.0] * 4})
    assert claim_seconds.load("huang2024", "thorough") == {"Lemma 1": 8.0, "Lemma 3": 2.0, "Ex. 1": 1.0}
    assert unit_costs(plan, "thorough", 4) == [(0.5, 6.0, 1.0, 0.5), (0.5,) * 4, (0.25,) * 4]
    assert unit_costs(plan, "thorough") == [(8.0,), (2.0,), (1.0,)]  # one shard asked for: the totals
    claim_seconds.record("huang2024", "thorough", [R(claim=R(name="Lemma 3"), seconds=2.0)], {"Lemma 3": []})
    assert claim_seconds.load_shards("huang2024", "thorough")["Lemma 1"] == (0.5, 6.0, 1.0, 0.5)  # no shards given: the total
    assert "Lemma 3" not in claim_seconds.load_shards("huang2024", "thorough")
    (tmp_path / claim_seconds.FILE).write_text('{"huang2024": {"thorough": {"Lemma 1": [true, 1, 1, 1], "Lemma 3": [-1, 1, 1, 1],'
                                               ' "Ex. 1": [], "Eq. 5": [1, "x"], "Eq. 6": Infinity, "Lemma 2": [1, 2, 3, 4]}}}')
    assert claim_seconds.load("huang2024", "thorough") == {"Lemma 2": 10.0}  # nothing else reads as seconds
    assert claim_seconds.load_shards("huang2024", "thorough") == {"Lemma 2": (1.0, 2.0, 3.0, 4.0)}


@pytest.mark.parametrize("name", ["huang2024", "thrampoulidis2024"])
def test_a_first_run_is_placed_by_the_estimates_the_paper_ships(name, tmp_path, monkeypatch):
    """Issue 43, sixth round: a claim with no seconds of the user's own is weighed by the estimates
    the paper's package ships (a first thorough run weighed every shard alike: 58.7 s of tasks on the
    fifth round's 16 workers, replayed, against 45.9 s with the shipped estimates), scaled by the
    median ratio of the user's seconds to the shipped ones; the user's own seconds stand as they
    are, and a damaged user file leaves the shipped ones.  The shipped files cover the papers'
    claims (a claim added since is weighed as the median claim; regenerate with
    ``tests/benchmarks/manycores/ship_estimates.py``)."""
    from types import SimpleNamespace as R

    from ntpcheck.app.scaleout import claim_seconds
    from ntpcheck.app.scaleout.executor import unit_costs
    from ntpcheck.app.scaleout.units import Plan
    from ntpcheck.properties.framework.shards import shards_for

    monkeypatch.setenv("NTPCHECK_CACHE_DIR", str(tmp_path))
    names = tuple(c.name for c in paper(name).claims)
    plan = Plan(name, "verify", names, pinned=True)
    shipped = claim_seconds.shipped(name)
    for profile in ("default", "thorough"):
        known = set(shipped[profile]) & set(names)
        assert len(known) >= 0.9 * len(names), f"{name} {profile}: {sorted(set(names) - known)} have no shipped estimate"
        assert claim_seconds.load(name, profile) == shipped[profile]
    n = shards_for("thorough")
    costs = unit_costs(plan, "thorough", n)
    assert costs is not None and all(cost == (shipped["thorough"][c] / n,) * n  # each shard a quarter of its claim's
                                     for c, cost in zip(names, costs) if c in shipped["thorough"])
    first, second = [c for c in names if shipped["thorough"][c] > 0][:2]
    # a run of one claim (--claims, or interrupted) that took 3x the shipped seconds: the others scaled alike
    claim_seconds.record(name, "thorough", [R(claim=R(name=first), seconds=3 * shipped["thorough"][first])])
    again = claim_seconds.load(name, "thorough")
    assert again[first] == round(3 * shipped["thorough"][first], 3)
    assert again[second] == pytest.approx(again[first] / shipped["thorough"][first] * shipped["thorough"][second])
    assert claim_seconds.load(name, "default") == shipped["default"]  # another profile: unscaled
    (tmp_path / claim_seconds.FILE).write_text("{not json")
    assert claim_seconds.load(name, "thorough") == shipped["thorough"]


def test_a_paper_without_shipped_estimates_has_none(tmp_path, monkeypatch):
    """A plugin paper that ships no ``claim-seconds.json`` (or an unknown name) has no estimates; a
    plugin's file is read from its entry point's package, never from beside a top-level module
    (a folder such as site-packages, which other distributions share)."""
    import json

    import ntpcheck.properties as registry
    from ntpcheck.app.scaleout import claim_seconds

    monkeypatch.setenv("NTPCHECK_CACHE_DIR", str(tmp_path / "cache"))
    assert claim_seconds.shipped("no-such-paper") == {}
    assert claim_seconds.load("no-such-paper", "default") == {}
    doc = {"default": {"Lemma 1": 2.0}}
    (tmp_path / "pkgpaper").mkdir()
    for where in (tmp_path / "pkgpaper", tmp_path):
        (where / claim_seconds.FILE).write_text(json.dumps(doc))
    (tmp_path / "pkgpaper" / "__init__.py").write_text("")
    (tmp_path / "pkgpaper" / "claims.py").write_text("PAPER = None\n")
    (tmp_path / "toppaper.py").write_text("PAPER = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "registered", lambda: {"pkg": "pkgpaper.claims:PAPER", "top": "toppaper:PAPER"})
    assert claim_seconds.shipped("pkg") == doc
    assert claim_seconds.shipped("top") == {}


def test_a_sharded_run_reports_each_shards_seconds():
    """Both executors keep each sharded claim's shard seconds, in shard order, for the estimates."""
    from ntpcheck.app.scaleout.executor import InProcess
    from ntpcheck.app.scaleout.units import Plan

    ex = InProcess()
    (result,) = ex.run(Plan("huang2024", "verify", ("Ex. 1",), pinned=True), "thorough", 0)
    assert list(ex.shard_seconds) == ["Ex. 1"] and len(ex.shard_seconds["Ex. 1"]) == 4
    assert abs(sum(ex.shard_seconds["Ex. 1"]) - result.seconds) < 1e-9
