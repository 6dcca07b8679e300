"""The symmetries that instance keys drop are symmetries (issue 41): re-embedding every drawn
instance by a random orthogonal matrix gives the same outcome to 1e-12 for every claim stated
under Assumption 2, and renaming tokens or scaling weights gives the same key."""

from __future__ import annotations

import dataclasses
import math
import sys

import ntpcheck
import numpy as np
import pytest

from ntpcheck.transformer.instance import Instance
from ntpcheck.properties import paper
from ntpcheck.properties.framework.runner import data_key, evaluate, instance_key
from ntpcheck.properties.framework.results import count

from .test_exercised import _draw

PAPER = paper("huang2024")
UNDER_A2 = [c for c in PAPER.claims if c.setup is not None and "2" in c.assumptions]
#: Same outcome: the verdict, and the slack to this (relative to max(1, |slack|)): every
#: quantity is a function of the Gram matrix, so a rotation changes only the rounding of sums.
SAME = 1e-12


def _rotated(inst: Instance, rng: np.random.Generator) -> Instance:
    """``inst`` with its embeddings ``Q E``, ``Q`` a random rotation of the same ``R^d`` (the
    paper's default step sizes depend on ``d``, so ``d`` is kept)."""
    E = inst.E
    Q, _ = np.linalg.qr(rng.standard_normal((E.shape[0], E.shape[0])))
    return dataclasses.replace(inst, embeddings=Q @ E)


def test_every_claim_under_assumption_2_is_listed():
    assert len(UNDER_A2) >= 30


@pytest.mark.parametrize("claim", UNDER_A2, ids=[c.key for c in UNDER_A2])
def test_a_rotation_of_the_embeddings_changes_no_outcome(claim):
    """As run: the evidence of orthonormal embeddings is computed in token coordinates, so the
    outcome and the key are the same to 1e-12."""
    rng = np.random.default_rng(0)
    for inst in _draw(claim, 2):
        a = evaluate(claim, inst, mutants=False)
        b = evaluate(claim, _rotated(inst, rng), mutants=False)
        assert a.verdict is b.verdict, (a.detail, b.detail)
        if math.isfinite(a.slack):
            assert abs(a.slack - b.slack) <= SAME * max(1.0, abs(a.slack)), (a.slack, b.slack)
        assert a.key == b.key and a.dataset_key == b.dataset_key


#: Claims whose stage 1 runs at a step size past the threshold of Corollary 1 (eta_0 of 0.25 to 50):
#: there NGD amplifies the rounding of a rotated E by about eta_0 per step (the symmetric trajectory
#: of the exact dynamics is unstable), which is why the evidence is computed in token coordinates.
UNSTABLE = {"Cor. 1 [k=5]", "Cor. 1 (corrected) [k=5]"}
#: Without token coordinates, the rounding of a rotated E reaches the slack: 1e-9 of it (the checks'
#: RTOL), and an identity checked to rounding (a finite-difference error) is compared by its verdict.
RAW = 1e-9


@pytest.mark.parametrize("claim", [c for c in UNDER_A2 if c.name not in UNSTABLE],
                         ids=[c.key for c in UNDER_A2 if c.name not in UNSTABLE])
def test_the_symmetry_holds_with_the_rotated_embeddings_themselves(claim, monkeypatch):
    """The symmetry is checked, not assumed: computed with Q E itself, every claim's outcome is the same."""
    monkeypatch.setattr(sys.modules["ntpcheck.properties.framework.evidence"], "TOKEN_COORDINATES", False)
    rng = np.random.default_rng(0)
    for inst in _draw(claim, 2):
        a = evaluate(claim, inst, mutants=False)
        b = evaluate(claim, _rotated(inst, rng), mutants=False)
        assert a.verdict is b.verdict, (a.detail, b.detail)
        if math.isfinite(a.slack) and "rel_error" not in a.measured:
            assert abs(a.slack - b.slack) <= RAW * max(1.0, abs(a.slack)), (a.slack, b.slack)


def test_stage1_at_a_large_step_size_amplifies_the_rounding_of_a_rotation(monkeypatch):
    """Why UNSTABLE is left out above, and why token coordinates: on Example 1's Cor. 1 setup with
    a rotated E computed as given, the margins at T = 3000 move by more than 1%."""
    monkeypatch.setattr(sys.modules["ntpcheck.properties.framework.evidence"], "TOKEN_COORDINATES", False)
    claim = PAPER.claim("Cor. 1 (corrected) [k=5]")
    inst = Instance(ntpcheck.loads("vocab: B F D A C E\nB F F @ 31.6\nA -> C\nD A C C @ 31.6\nA C -> C @ 31.6\nE E E E @ 31.6\n"))
    a = evaluate(claim, inst, mutants=False)
    b = evaluate(claim, _rotated(inst, np.random.default_rng(0)), mutants=False)
    assert abs(a.measured["lhs"] - b.measured["lhs"]) > 0.01 * abs(a.measured["lhs"])


def test_renaming_tokens_and_scaling_weights_keep_the_key():
    a = Instance(ntpcheck.loads("A -> B\nA B -> C @ 2\nC -> A\n"))
    b = Instance(ntpcheck.loads("Q -> R @ 3\nQ R -> P @ 6\nP -> Q @ 3\n"))
    assert instance_key(a) == instance_key(b) and data_key(a) == data_key(b)
    c = Instance(ntpcheck.loads("A -> B\nA B -> C\nC -> A\n"))
    assert data_key(a) != data_key(c)


def test_rotations_count_once():
    claim = PAPER.claim("Lemma 1")
    rng = np.random.default_rng(1)
    inst = Instance(ntpcheck.load("example1"))
    outcomes = [evaluate(claim, x, mutants=False) for x in (inst, _rotated(inst, rng), _rotated(inst, rng))]
    c = count(outcomes)
    assert c["holds"] == 3 and c["distinct"]["holds"] == 1 and c["datasets"]["holds"] == 1
