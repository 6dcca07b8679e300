"""T1-pf (e), R2 and Remark 1's Cover (issue "Limits judged as limits", item 5): the case analysis of Thm. 1's
proof, the norm identity of Lemma 4's proof and Cover's counting theorem, each checked, with the two
printed statements that are false found by the search with pins off and shrunk to their minimum."""

from __future__ import annotations

import numpy as np
import pytest

from ntpcheck.linear import LinearInstance, NTPData, loads
from ntpcheck.properties.framework import Verdict, evaluate, run_claim
from ntpcheck.properties.framework.evidence import evidence
from ntpcheck.properties.thrampoulidis2024 import PAPER
from ntpcheck.properties.thrampoulidis2024.bounds import cover_count
from ntpcheck.properties.thrampoulidis2024.proof_cases import case_i_counterexample, check_case_i


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name, size", [("T1-pf [(e)(i) as printed]", (1, 3)), ("R2 [as printed]", None)])
def test_search_finds_the_printed_statements_false_without_pins(name, size, seed):
    r = run_claim(PAPER.claim(name), "default", seed, pinned=False)
    assert r.verdict is Verdict.FALSIFIED and "pinned" not in r.detail, r.detail
    if size is not None:
        inst = loads(r.counterexample)
        assert (inst.data.m, inst.data.V) == size, r.counterexample


def test_case_i_fails_by_the_dropped_negative_term():
    """At R'delta = x on one context followed by A and B once each (W* = 0, C far below): the divergence is
    1/2 log((1 + e^x)/2) + 1/2 log((1 + e^-x)/2) ~ x/2 - log 2, the printed bound (x - log 2)/2."""
    o = check_case_i(evidence(case_i_counterexample()))
    assert o.verdict is Verdict.FALSIFIED
    x = o.measured["bound"] * 2 + np.log(2)                      # R' delta at the worst point
    kl_two_tokens = 0.5 * np.log((1 + np.exp(x)) / 2) + 0.5 * np.log((1 + np.exp(-x)) / 2)
    assert o.measured["excess"] == pytest.approx(kl_two_tokens, rel=1e-3)   # the third token's mass: e^-4 of it
    assert evaluate(PAPER.claim("T1-pf [(e)(i) corrected]"), case_i_counterexample()).verdict is Verdict.HOLDS


@pytest.mark.parametrize("m, d", [(1, 1), (3, 2), (4, 2), (5, 3), (6, 3), (6, 4), (2, 4)])
def test_cover_count_matches_the_paper_lp(m, d):
    H = np.random.default_rng(m * 10 + d).normal(size=(d, m))
    o = evaluate(PAPER.claim("Cover"), LinearInstance(NTPData(H, np.tile(np.array([[1, 0]]), (m, 1)))))
    assert o.verdict is Verdict.HOLDS and o.measured["separable"] == cover_count(m, d), o.detail
    assert (cover_count(m, d) > 2 ** (m - 1)) == (2 * d > m)
