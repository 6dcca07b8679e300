"""Another paper's instances run through the framework (issue 33): a toy :class:`PaperInstance`
(an integer and a parameter) searched, counted by distinct identity, its parts exercised,
its sabotage rejected, and its counterexample printed by the instance itself."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from ntpcheck.properties.framework import Claim, Structural, Verdict, evaluate, inequality, run_claim, run_sabotage
from ntpcheck.properties.framework.instances import is_paper_instance
from ntpcheck.properties.framework.parts import DOWN, Part, mutable
from ntpcheck.properties.framework.runner import counterexample_text, describe, instance_key


@dataclass(frozen=True)
class Toy:
    """An instance of a toy paper: ``x`` and a parameter ``scale`` that changes nothing."""

    x: int
    scale: float = 1.0

    @property
    def key(self):
        return ("toy", self.x, self.scale)

    def identity(self):
        return abs(self.x)  # x and -x are the same test

    def describe(self):
        return {"V": abs(self.x), "N": 1, "scale": self.scale}

    def evidence(self):
        return {"x": self.x, "square": self.x * self.x}

    def counterexample_text(self, claim, detail, replay):
        return f"# claim: {claim}\n# counterexample: {detail}\nx = {self.x}\n# replay: {replay}\n"


def _square_claim(bound: float) -> Claim:
    """``x^2 <= bound``, with the constant as a part."""

    def check(ev):
        return inequality(ev["square"], mutable("bound", bound, DOWN), what="x^2 <= bound")

    return Claim("Toy 1", "§0", "x^2 <= bound", (), lambda profile: st.integers(-4, 4).map(Toy), check, setup=lambda i: i,
                 sabotage=Structural(lambda: check({"x": 9, "square": 81}), "x = 9"), parts=(Part("bound", "constant"),))


def test_a_paper_instance_is_recognised_and_describes_itself():
    t = Toy(3)
    assert is_paper_instance(t)
    assert instance_key(t) == instance_key(Toy(-3)) == 3
    assert describe(t) == {"V": 3, "N": 1, "scale": 1.0}


def test_search_counts_distinct_identities_and_exercised_parts():
    r = run_claim(_square_claim(16.0), "quick", seed=0)
    # at most 5 distinct identities (|x| = 0..4): short of min_tested 5 unless all are drawn
    assert r.counts["distinct"]["drawn"] <= 5
    assert r.verdict in (Verdict.HOLDS, Verdict.VACUOUS, Verdict.OUTSIDE)
    assert r.verdict is not Verdict.HOLDS or r.exercised["exercised"]["bound"] >= 1  # x = ±4 meets the bound: its mutant fails


def test_a_falsified_paper_instance_prints_its_own_counterexample():
    claim = _square_claim(3.0)
    r = run_claim(claim, "quick", seed=0)
    assert r.verdict is Verdict.FALSIFIED
    assert r.counterexample.startswith("# claim: Toy 1\n# counterexample: x^2 <= bound")
    assert "x = 2" in r.counterexample or "x = -2" in r.counterexample  # shrunk to the smallest |x| that fails
    o = evaluate(claim, Toy(5))
    assert counterexample_text(claim, Toy(5), o, replay="run me").endswith("# replay: run me\n")
    assert run_sabotage(claim).verdict is Verdict.FALSIFIED
