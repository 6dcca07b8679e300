"""The outvoting construction of the Assumption-3 breaker on general data (issue 31):
it still breaks exactly Assumption 3, and the structure it builds breaks Lemma 5."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

import ntpcheck
from ntpcheck.transformer.instance import Instance
from ntpcheck.strategies.breakers import _outvoting, breaks_exactly, violating


def _outvoted(ds) -> bool:
    """Whether ``ds`` holds a sentence ``o t .. t q`` of :func:`_outvoting` (``t`` repeated, ``o, t`` collocated)."""
    n = {s.sentence[0]: s.next for s in ds.samples if len(s.sentence) == 1}
    return any(len(S) >= 4 and S[0] in n and S[1] in n and S[1:-1] == (S[1],) * (len(S) - 2) and S[-1] not in S[:-1]
               for S in (s.sentence for s in ds.samples))


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(violating("3", prefix_closed=False, kinds=("embedded",), max_vocab=6, max_len=5, max_samples=10))
def test_outvoting_breaks_exactly_3(inst: Instance) -> None:
    """200 draws on general data (the outvoting sentence among them, half of the time) break exactly 3."""
    assert breaks_exactly(inst.dataset, "3", prefix_closed=False)


def test_outvoting_is_drawn() -> None:
    """The construction is reached: some of 100 draws hold an outvoting sentence, each breaking exactly 3."""
    seen = []

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(violating("3", prefix_closed=False, kinds=("embedded",), max_vocab=6, max_len=5, max_samples=10))
    def run(inst):
        seen.append(_outvoted(inst.dataset))
        assert breaks_exactly(inst.dataset, "3", prefix_closed=False)

    run()
    assert sum(seen) >= 10


def test_outvoting_candidates() -> None:
    """``C D -> C`` with query ``D`` (not optimal) gets ``o t t D -> n(o)`` from the other collocated tokens;
    a sample whose query is optimal (``A A -> A``) gets none."""
    ds = ntpcheck.loads("A -> A\nB -> B\nC -> C\nC D -> C\n")
    base = [(s.sentence, s.next) for s in ds.samples]
    n = {s.sentence[0]: s.next for s in ds.samples if len(s.sentence) == 1}
    cands = _outvoting(base, n, 5, list("ABCD"))
    assert ((("A", "B", "B", "D"), "A"),) in cands
    assert all(add[0][0][-1] == "D" and "C" not in add[0][0] for add in cands)
    assert _outvoting([(("A", "A"), "A")], {"A": "A"}, 5, list("AB")) == []


def test_outvoting_breaks_lemma5() -> None:
    """The minimal outvoting dataset breaks Lemma 5's monotonicity at t = 0 on the trained W_ov
    (a drop of ~3e-3 at eta = 0.1, nine orders above the check's 1e-12 rounding allowance)."""
    from properties.framework.evidence import evidence
    from properties.huang2024 import setups
    from properties.huang2024.stage2_lemmas import check_lemma5

    ds = ntpcheck.loads("A -> A\nB -> B\nC -> C\nA B B D -> A\nC D -> C\n")
    assert breaks_exactly(ds, "3", prefix_closed=False)
    out = check_lemma5(evidence(setups.params(T=900, T2=300)(Instance(ds, target_A=3.0, eta=0.1))))
    assert out.verdict.value == "falsified" and out.slack < -1e-4
