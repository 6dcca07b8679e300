"""Lemma 5 of the second paper (Thrampoulidis 2024, App. E.1.2) as a property at arbitrary W: its
statement (14) under both readings of (23), the identity (16) and the bounds (20)-(21) under both
readings of (15)/(16): findings reached by the search without pins (claims, sabotages and pinned
findings also run through the plugin, ``tests/properties/test_thrampoulidis_claims.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from ntpcheck.linear import NTPData
from ntpcheck.linear.dynamics import References
from ntpcheck.properties.framework import Verdict, run_claim
from ntpcheck.properties.thrampoulidis2024.lemma5 import READINGS_23, lemma5_sides, log_out, threshold
from ntpcheck.properties.thrampoulidis2024.lemma5_claims import LEMMA5_CLAIMS

FINDINGS = [c for c in LEMMA5_CLAIMS if c.finding is not None]


@pytest.mark.parametrize("claim", FINDINGS, ids=lambda c: c.key)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_search_reaches_finding_without_pins(claim, seed):
    r = run_claim(claim, "quick", seed=seed, pinned=False)
    assert r.verdict is Verdict.FALSIFIED
    lines = [ln for ln in r.counterexample.splitlines() if ln.startswith("h = ")]
    assert lines == ["h = 1.0 : A"]  # one context, d = 1, followed by A only (V = 2 or 3 where the shrinker stops)


def test_out_of_support_excess_matches_ce_where_representable():
    """``log_out`` (the product reading) equals ``log(CE(W) − CE_F-part)`` from the plain loss where
    the difference is far above rounding, and keeps its digits where CE − ℋ ~ e^{-300}."""
    from ntpcheck.linear.excess import excess

    ang = np.array([0.3, 2.2, 4.1])
    D = NTPData(np.vstack([np.cos(ang), np.sin(ang)]), np.array([[3, 2, 0, 0, 4], [2, 0, 0, 3, 1], [0, 4, 1, 2, 0]]))
    refs = References.of(D)
    for R in (0.5, 2.0, 5.0):
        e = excess(D, refs.W_star + R * refs.W_mm)
        assert log_out(D, refs.W_star, R * refs.W_mm) == pytest.approx(np.log(e.out_of_support), rel=1e-10)
    deep = log_out(D, refs.W_star, 300.0 * refs.W_mm)
    assert np.isfinite(deep) and deep < -250


def test_statement_14_holds_with_room_at_the_threshold():
    """At the threshold of either reading of (23), the genie's out-of-support loss is below W's by a
    factor e^{alpha R'} >= 2nV (Case 1, W_perp along W^mm): the threshold is far from tight."""
    ang = np.array([0.3, 2.2, 4.1])
    D = NTPData(np.vstack([np.cos(ang), np.sin(ang)]), np.array([[3, 2, 0, 0, 4], [2, 0, 0, 3, 1], [0, 4, 1, 2, 0]]))
    refs = References.of(D)
    u = refs.W_mm / np.linalg.norm(refs.W_mm)
    for reading in READINGS_23:
        R = threshold(D, 0.5, np.linalg.norm(refs.W_star), np.linalg.norm(refs.W_mm), reading)
        p = lemma5_sides(D, refs.W_star, R * u, 0.5, refs.W_star, refs.W_mm, reading)
        assert p.slack >= np.log(2 * D.n * D.V) * (1 - 1e-9)
