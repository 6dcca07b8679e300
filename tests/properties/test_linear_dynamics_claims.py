"""The dynamics claims of the second paper (Thrampoulidis 2024): trends are judged as documented, the
limits hold in the quick search, and the genie bound's constant is never exercised.  Every claim and
its sabotage also run through the plugin (``tests/properties/test_thrampoulidis_claims.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from ntpcheck.properties.framework import Verdict, run_claim
from ntpcheck.properties.thrampoulidis2024.dynamics import DYNAMICS_CLAIMS
from ntpcheck.properties.thrampoulidis2024.regpath import REGPATH_CLAIMS
from ntpcheck.properties.framework.limits import judge


@pytest.mark.parametrize("claim", [c for c in DYNAMICS_CLAIMS if c.id != "T2-pf"], ids=lambda c: c.key)
def test_limits_hold_on_distinct_instances(claim):
    """The limits hold (not only pass): at least 5 distinct instances hold in the quick profile, and every
    limit part (the limit 1% off) is killed by some instance."""
    r = run_claim(claim, "quick", seed=0)
    assert r.verdict is Verdict.HOLDS and r.counts["distinct"]["holds"] >= 5, r.detail


def _runs(y):
    """A series on geometric steps to 10^4 x f (20 a decade), as a confirming run gives it."""
    return lambda f: (lambda k: (k, y(k), 0.0))(np.geomspace(1, 1e4 * f, int(20 * np.log10(1e4 * f)) + 1))


def test_limit_rules():
    assert judge(_runs(lambda k: 1 / np.log(k + 2)), "q").verdict is Verdict.HOLDS
    # even about the window: no trend, nothing settles
    assert judge(_runs(lambda k: 0.5 + 0.1 * np.cos(2 * np.pi * np.log10(k))), "q").verdict is Verdict.INCONCLUSIVE
    assert judge(_runs(lambda k: 1 - 1 / (k + 2)), "q").verdict is Verdict.FALSIFIED   # rises, settling at 1
    assert judge(_runs(lambda k: np.log(k + 1)), "y", toward="infinity").verdict is Verdict.HOLDS
    assert judge(_runs(lambda k: 1 / (k + 1)), "y", toward="infinity").verdict is Verdict.FALSIFIED
    # a quantity at rounding level from the start could not have failed
    assert judge(lambda f: (np.geomspace(1, 1e4, 81), np.full(81, 1e-20), 1e-13), "q").verdict is Verdict.VACUOUS


def test_genie_bound_constant_is_never_tight():
    """(9)/(25)'s constant C = V e^{||W*||M} is loose by at least V/(V - 1) (the sum over v has at most
    V - 1 terms, log(1 + x) <= x): its 1%-tighter mutant never fails, so C is reported loose by at
    least that factor, while the rate e^{-R} is tight (the margin-1 support vectors make CE - H ~ c e^{-R})."""
    claim = next(c for c in REGPATH_CLAIMS if c.reading == "(d)")
    r = run_claim(claim, "quick", seed=0)
    assert r.verdict is Verdict.HOLDS
    parts = r.exercised["parts"]
    assert parts["e^{-R}"]["status"] == "tight"
    assert parts["C = V e^{||W*||M}"]["status"] == "loose" and parts["C = V e^{||W*||M}"]["factor"] >= 1.01


@pytest.mark.parametrize("claim", [c for c in DYNAMICS_CLAIMS if c.finding is not None], ids=lambda c: c.key)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_search_reaches_t2pf_finding_without_pins(claim, seed):
    """App. E.1.3's printed inequality fails at k = k0 from a LeCun start; the search finds it with pins
    off (steered by the claim's score) and shrinks it to one context h = (1, 0) followed by A."""
    from ntpcheck.linear import loads

    r = run_claim(claim, "default", seed, pinned=False)
    assert r.verdict is Verdict.FALSIFIED and "pinned" not in r.detail
    inst = loads(r.counterexample)
    assert (inst.data.m, inst.data.V, inst.data.d) == (1, 2, 2), r.counterexample


def test_t2pf_derived_reading_holds_on_the_printed_counterexample():
    from ntpcheck.properties.framework import evaluate
    from ntpcheck.properties.thrampoulidis2024.dynamics import t2pf_counterexample

    derived = [c for c in DYNAMICS_CLAIMS if c.id == "T2-pf" and c.finding is None]
    assert derived and all(evaluate(c, t2pf_counterexample()).verdict is Verdict.HOLDS for c in derived)
