"""Every registered claim as a pytest property; `pytest -k "Lemma 5"` selects one.

* ``test_claim[<name>]``: the claim's checker must not return ``falsified``
  or ``error`` on instances from its strategy.  Claims found false are strict
  xfails whose reason states the finding, with the minimal counterexample
  pinned by ``@example`` (so they fail deterministically, and an xpass --
  the claim suddenly holding -- is reported as an error).
* ``test_sabotage[<name>]``: the checker rejects a deliberately wrong input.
* Reproducibility of ``ntpcheck verify`` and its exit codes.
"""

import json
import os

import pytest
from hypothesis import HealthCheck, example, given, settings

import ntpcheck
from ntpcheck.claims import Instance, Verdict
from ntpcheck.verify import evaluate
from properties import REGISTRY
from properties.registry import PROP2_COUNTEREXAMPLE, _cor1

#: Instances per claim: each draw trains Algorithm 1 (0.05-0.5 s).
CLAIM_EXAMPLES = {"dev": 4, "ci": 8, "thorough": 60}.get(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"), 4)

#: name -> (finding, pinned minimal counterexample)
FINDINGS = {
    "Cor. 1 [k=5]": (
        "FINDING: the upper bound 3A is false. Aligned margins approach ||W^(T)||/||W*_ov|| ~ T eta_0/||W*_ov|| "
        "= 4 ||W*_ov|| A, above 3A whenever ||W*_ov|| > 3/4; minimal: two tokens, each its own next token.",
        lambda: _cor1(Instance(ntpcheck.loads("A -> A\nB -> B\n"))),
    ),
    "Thm. 2 fn. 3 [L* = min L]": (
        "FINDING: L* = |V| exp(-T C_0) is not the minimum of L over W_kq: the trained margins are ~4||W*_ov|| A, "
        "not A, so the limit loss is far smaller (and even with margins exactly A it is "
        "sum pi log(1 + (|V|-1) e^-A) != |V| e^-A).",
        lambda: Instance(ntpcheck.loads("vocab: A B\nA -> A\n"), None, T=900, T2=0),
    ),
    "Prop. 2 [Assumptions 1-2 only]": (
        "FINDING: without the Section 3 prefix convention a query can have two optimal tokens whose "
        "non-optimal sets differ; then W*_kq is not the formula (here A: 1/2, C: 2/3 vs 3/5).",
        lambda: Instance(ntpcheck.loads(PROP2_COUNTEREXAMPLE), None, T=0, T2=0),
    ),
}


def _claim_test(claim):
    @settings(max_examples=CLAIM_EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(claim.instances("quick"))
    def inner(inst):
        o = evaluate(claim, inst)
        assert o.verdict not in (Verdict.FALSIFIED, Verdict.ERROR), f"{claim.name}: {o.verdict}: {o.detail}\n{inst!r}"

    if claim.name in FINDINGS:
        inner = example(FINDINGS[claim.name][1]())(inner)
    return inner


@pytest.mark.parametrize(
    "claim",
    [
        pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=FINDINGS[c.name][0])] if c.name in FINDINGS else [])
        for c in REGISTRY
    ],
)
def test_claim(claim):
    _claim_test(claim)()


@pytest.mark.parametrize("claim", REGISTRY, ids=[c.name for c in REGISTRY])
def test_sabotage(claim):
    """Every checker can fail: it rejects a deliberately wrong input."""
    o = claim.sabotage()
    assert o.verdict is Verdict.FALSIFIED, f"{claim.name} accepted a sabotaged input: {o}"


def test_registry_covers_claims_md():
    ids = {c.id for c in REGISTRY}
    for row in ["Eq. 5", "Eq. 6", "Lemma 1", "Lemma 2", "Prop. 1", "Lemma 3", "Cor. 1", "Lemma 4", "Lemma 5",
                "Lemma 6", "Lemma 7", "Thm. 1", "Thm. 2", "Thm. 2 fn. 3", "Prop. 2", "Thm. 3", "Ex. 1", "Ex. 2", "§7"]:
        assert row in ids, row
    assert len({c.name for c in REGISTRY}) == len(REGISTRY)


def test_corrected_claims_hold_on_the_counterexamples():
    from properties import by_name

    c = by_name("Cor. 1 (corrected) [k=5]")
    assert evaluate(c, FINDINGS["Cor. 1 [k=5]"][1]()).verdict is Verdict.HOLDS
    # Prop. 2 (corrected) does not apply to its counterexample (not complete bipartite) ...
    c = by_name("Prop. 2 (corrected)")
    assert evaluate(c, FINDINGS["Prop. 2 [Assumptions 1-2 only]"][1]()).verdict is Verdict.NOT_REACHED
    # ... and holds on Example 1 and on prefix-closed data.
    assert evaluate(c, Instance(ntpcheck.load("example1"), None, T=0, T2=0)).verdict is Verdict.HOLDS


def _verify_json(tmp_path, name, *extra):
    from ntpcheck.cli import main

    out = tmp_path / name
    code = main(["verify", "--profile", "quick", "--claims", "Lemma 1,Prop. 2,Cor. 1", "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def test_verify_is_reproducible(tmp_path):
    _, a = _verify_json(tmp_path, "a.json", "--seed", "3")
    _, b = _verify_json(tmp_path, "b.json", "--seed", "3")
    assert a == b
    assert {c["verdict"] for c in a["claims"]} <= {"holds", "falsified", "vacuous", "not-reached"}
    cor = [c for c in a["claims"] if c["id"] == "Cor. 1"][0]
    assert cor["verdict"] == "falsified" and cor["counterexample"]
    assert ntpcheck.loads(cor["counterexample"])  # the counterexample is valid text format


def test_verify_exit_codes(tmp_path, capsys):
    from ntpcheck.cli import main

    code, _ = _verify_json(tmp_path, "c.json", "--strict")
    assert code == 1  # Cor. 1 and Prop. 2 [Assumptions 1-2 only] are falsified
    assert main(["verify", "--claims", "Lemma 99"]) == 2
    assert "unknown claim 'Lemma 99'" in capsys.readouterr().err
