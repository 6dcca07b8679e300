"""How tight each part of a statement was (issue 41): tight, loose by a factor found by
bisection on the stored evidence, or dominated with a proof that a test checks."""

from __future__ import annotations

import dataclasses
import math

import ntpcheck
import numpy as np
import pytest

from ntpcheck.transformer.instance import Instance
from ntpcheck.properties import paper
from ntpcheck.properties.framework import Verdict, run_claim
from ntpcheck.properties.framework.checks import inequality
from ntpcheck.properties.framework.claim import Claim
from ntpcheck.properties.framework.evidence import evidence
from ntpcheck.properties.framework.parts import DOWN, STEEPER_DOWN, Part, mutable, mutating
from ntpcheck.properties.framework.runner import evaluate, prepare
from ntpcheck.properties.framework.tightness import RESOLUTION, tightness
from ntpcheck.transformer.textformat import load_with_header

from .test_exercised import _draw

PAPER = paper("huang2024")


def _check_with_room(ev):
    """1 <= c/3 with c = 3 (room: c can be divided by 3) and 1 <= t^(1.5 - e) at t = 2 (room: e up to 1.5)."""
    c = mutable("c", 3.0, DOWN)
    e = mutable("e", 1.5, STEEPER_DOWN)
    return inequality(np.array([1.0]), np.array([min(c, 2.0**e)]), sense="<=", what="toy")


TOY = Claim("Toy", "", "", (), None, _check_with_room, parts=(Part("c", "constant"), Part("e", "exponent")))


def test_a_loose_factor_is_found_by_bisection_to_its_resolution():
    o = evaluate(TOY, Instance(ntpcheck.loads("A -> A\n")))
    assert o.verdict is Verdict.HOLDS and not o.kills
    t = tightness(TOY, [o])
    assert t["c"].status == "loose" and 3 / RESOLUTION["constant"] <= t["c"].factor <= 3.0
    assert t["e"].status == "loose" and 1.5 - RESOLUTION["exponent"] <= t["e"].factor <= 1.5
    assert t["c"].closest.startswith("# claim: Toy\n# closest for c: c x")


def test_the_closest_instance_replays_to_the_same_outcome(tmp_path):
    claim = PAPER.claim("Thm. 1 [norm, 2||W*||]")
    r = run_claim(claim, "quick", seed=0)
    closest = r.exercised["parts"]["lower 2||W*_kq||"]["closest"]
    path = tmp_path / "closest.txt"
    path.write_text(closest)
    ds, header = load_with_header(str(path))
    assert header.claim == claim.name
    o = evaluate(dataclasses.replace(claim, setup=None), Instance.from_header(ds, header))
    assert o.verdict is Verdict.HOLDS


# ---- the dominated parts: each proof checked on drawn instances -----------------------------
DOMINATED = [(c, p) for c in PAPER.claims for p in c.parts if p.dominated is not None]


def _proof_factor(claim: Claim, part: Part, ev) -> float:
    """The strength the record's proof guarantees on ``ev`` (fn. 3's |V|: a factor of the instance)."""
    if claim.id == "Thm. 2 fn. 3" and part.name == "|V|":
        from ntpcheck.properties.huang2024 import quantities

        V = ev.dataset.n_vocab
        return V / (V - 1) * math.exp((2 * math.sqrt(2) - 1) * quantities.A(ev)) * (1 - 1e-9)
    return min(part.proof_factor, 1e6)


@pytest.mark.parametrize("claim,part", DOMINATED, ids=[f"{c.key}-{p.name}" for c, p in DOMINATED])
def test_a_dominated_part_holds_at_its_proof_factor(claim, part):
    checked = 0
    for inst in _draw(claim, 12):
        ev = evidence(prepare(claim, inst))
        if claim.check(ev).verdict is not Verdict.HOLDS:
            continue
        with mutating(part.name, _proof_factor(claim, part, ev)):
            o = claim.check(ev)
        assert o.verdict is not Verdict.FALSIFIED, (inst, o.detail)
        checked += 1
    assert checked >= 3


def test_acceptance_factors_seed_0():
    """Issue 41's acceptance: Lemma 1's lower bound about sqrt 2, Thm. 2's C_1 at least 4, Thm. 1's rate exponent at least 0.5."""
    lemma1 = run_claim(PAPER.claim("Lemma 1"), "default", 0).exercised["parts"]["lower 2||W*_ov||"]
    assert lemma1["status"] == "dominated" and 1.3 <= lemma1["factor"] <= 1.6
    c1 = run_claim(PAPER.claim("Thm. 2 [attention, c_0 = 1]"), "default", 0).exercised["parts"]["C_1"]
    assert c1["status"] == "loose" and c1["factor"] >= 4
    rate = run_claim(PAPER.claim("Thm. 1 [rate]"), "default", 0)
    assert rate.verdict is Verdict.HOLDS and rate.exercised["parts"]["rate exponent"]["factor"] >= 0.5
