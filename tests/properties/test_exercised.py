"""Every ``holds`` says what it exercised (issue 30): distinct instances, parts of a
statement killed by some instance, targets that move."""

from __future__ import annotations

import dataclasses
import math
import random
from functools import partial

import ntpcheck
import pytest
from hypothesis import find, strategies as st
from hypothesis.errors import NoSuchExample

from ntpcheck.transformer.instance import Instance
from ntpcheck.properties import paper
from ntpcheck.properties.framework import Outcome, Verdict, aggregate, evidence, run_claim
from ntpcheck.properties.framework.claim import Claim
from ntpcheck.properties.framework.parts import Part, mutating, reached
from ntpcheck.properties.framework.runner import _quantised, evaluate, prepare, search_settings
from ntpcheck.properties.framework.verdicts import TESTED
from ntpcheck.properties.huang2024.stage1 import check_lemma2
from ntpcheck.properties.huang2024.stage2_theorems import check_thm2_loss

PAPER = paper("huang2024")
WITH_PARTS = [c for c in PAPER.claims if c.parts]


def _draw(claim: Claim, n: int, seed: int = 0) -> list[Instance]:
    """The first ``n`` instances Hypothesis draws from the claim's data (default profile)."""
    got: list[Instance] = []

    def keep(inst):
        got.append(inst)
        return False

    try:
        find(claim.data("default"), keep, settings=search_settings(n, database=None), random=random.Random(seed))
    except NoSuchExample:
        pass
    return got[:n]


# ---- distinct instances ---------------------------------------------------------------
def test_the_same_instance_drawn_again_counts_once():
    """50 draws of one dataset are one distinct instance: never ``holds`` with min_tested > 1."""
    lemma3 = PAPER.claim("Lemma 3")
    # Distinct draws for Hypothesis (integers) that all map to one instance.
    one = dataclasses.replace(lemma3, data=lambda profile: st.integers(0, 10**6).map(lambda _: Instance(ntpcheck.load("example1"))))
    r = run_claim(one, "quick", seed=0)
    assert r.counts["holds"] >= 5 and r.counts["distinct"]["holds"] == 1
    assert r.verdict is not Verdict.HOLDS
    assert "only 1 distinct instances" in r.detail


def test_sample_and_vocabulary_order_do_not_make_a_new_instance():
    claim = PAPER.claim("Lemma 3")
    a = evaluate(claim, Instance(ntpcheck.loads("A -> B\nB -> A\nA B -> A\n")))
    b = evaluate(claim, Instance(ntpcheck.loads("B -> A\nA B -> A\nA -> B\n")))
    assert a.key == b.key
    assert aggregate(claim, [a, b], 1).counts["distinct"]["holds"] == 1


# ---- parts and mutants ---------------------------------------------------------------
@pytest.mark.parametrize("claim", WITH_PARTS, ids=[c.key for c in WITH_PARTS])
def test_every_declared_part_is_wired_to_its_formula(claim):
    """Each part's mutation point is reached when its checker runs on some drawn instance
    (a misspelt part would silently never be killed)."""
    names = {p.name for p in claim.parts}
    seen: set = set()
    for inst in _draw(claim, 12):
        ev = evidence(prepare(claim, inst))
        for name in names - seen:
            with reached() as hit, mutating(name):
                claim.check(ev)
            seen |= hit
        if seen == names:
            break
    assert seen == names, f"never reached: {names - seen}"


def test_a_part_no_instance_killed_is_loose_not_a_reason_for_vacuous():
    """Issue 41: a loose constant is not missing evidence; the claim held where it could fail."""
    c = Claim("X", "", "", (), None, None, parts=(Part("a", "constant", "the a"), Part("b", "term")))
    o = [Outcome(Verdict.HOLDS, 0.5, key=k, kills=frozenset({"a"})) for k in range(3)]
    r = aggregate(c, o, 3)
    assert r.verdict is Verdict.HOLDS and "b never mattered" in r.detail
    assert r.exercised == {"exercised": {"a": 3, "b": 0}, "dominated": [], "mutation_score": 0.5}
    assert aggregate(c, o, 4).verdict is not Verdict.HOLDS  # too few distinct instances still is


def test_a_dominated_part_need_not_be_killed():
    c = Claim("X", "", "", (), None, None, parts=(Part("a", "constant"), Part("b", "term", dominated="b <= a/2 always")))
    r = aggregate(c, [Outcome(Verdict.HOLDS, 0.5, key=k, kills=frozenset({"a"})) for k in range(3)], 3)
    assert r.verdict is Verdict.HOLDS and r.exercised["dominated"] == ["b"] and r.exercised["mutation_score"] == 1.0


def test_a_bound_one_percent_too_strong_kills_its_part():
    """Lemma 1's upper bound t eta_0 is met with equality under Assumption 2: its constant made
    0.99 is falsified on every instance, so the part is exercised (checked on the same evidence)."""
    o = evaluate(PAPER.claim("Lemma 1"), Instance(ntpcheck.load("example1")))
    assert o.verdict is Verdict.HOLDS and "upper t eta_0" in o.kills
    assert "lower 2||W*_ov||" not in o.kills  # ||W_ov^(t)|| = t eta_0 is at least 1.41 times the lower bound


def test_thm2_loss_with_c1_times_a_million_reports_c1_loose():
    """The loss reaches its floor early, so C_1 (even times 10^6) never matters on what is drawn:
    the part is reported loose, never tight."""
    claim = PAPER.claim("Thm. 2 [loss, c_0 = 1]")
    strong = dataclasses.replace(claim, check=partial(check_thm2_loss, c1_factor=1e6))
    r = run_claim(strong, "quick", seed=0)
    assert r.exercised["exercised"]["C_1"] == 0
    assert r.exercised["parts"]["C_1"]["status"] == "loose"


def _lemma2_without_log_term(ev):
    with mutating("2 log(2|V|)"):
        return check_lemma2(ev)


def test_lemma2_without_its_log_term_holds_where_the_term_is_declared_dominated():
    """Under Assumption 2, W^(t) is parallel to W*_ov: the inequality holds with equality without
    its 2 log(2|V|) term, which is why the record declares the term dominated."""
    claim = dataclasses.replace(PAPER.claim("Lemma 2"), check=_lemma2_without_log_term)
    r = run_claim(claim, "quick", seed=0)
    assert r.verdict is Verdict.HOLDS
    assert r.exercised["parts"]["2 log(2|V|)"]["status"] == "dominated"


# ---- targets that move ---------------------------------------------------------------
LEMMA5 = [c for c in PAPER.claims if c.id == "Lemma 5"]


@pytest.mark.parametrize("claim", LEMMA5, ids=[c.key for c in LEMMA5])
def test_lemma5_search_score_moves(claim):
    """Lemma 5's slack is 0 on every instance; its target (the normalised increment over the
    informative steps) takes at least 10 distinct values over 50 draws."""
    values = set()
    for inst in _draw(claim, 50):
        if evaluate(claim, inst, mutants=False).verdict in TESTED:
            values.add(_quantised(claim.target(evidence(prepare(claim, inst)))))
    assert len(values) >= 10, sorted(values)
    assert all(math.isfinite(v) for v in values)
