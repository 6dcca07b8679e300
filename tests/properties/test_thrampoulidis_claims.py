"""The second paper's static claims (Thrampoulidis, NeurIPS 2024), through ntpcheck's own plugin.

* ``test_thrampoulidis2024``: every claim, collected by the plugin as ``claim[<slug>]`` and
  ``sabotage[<slug>]`` (quick profile): findings are strict xfails with their counterexample pinned;
* each finding's pinned counterexample falsifies its claim, the search reaches it with pins off
  (seeds 0-2) and shrinks it to the minimum, and ``verify --dataset`` replays it;
* the CLI answers this paper's bad input with one line and exit 2.
"""

from __future__ import annotations

import json

import pytest

from ntpcheck.linear import loads
from ntpcheck.properties import paper
from ntpcheck.properties.framework import Verdict, evaluate, run_claim
from ntpcheck.properties.thrampoulidis2024 import findings

PAPER = paper("thrampoulidis2024")
FINDINGS = [c for c in PAPER.claims if c.finding]

#: Collected by the ntpcheck pytest plugin: every claim and its sabotage.
test_thrampoulidis2024 = PAPER


def test_registry_covers_the_sheet():
    ids = {c.id for c in PAPER.claims}
    assert ids >= {"E2", "D1-ind", "Fn6", "Eq7", "P1", "L1", "Rem1", "SVM", "Eq24", "T1-pf", "D-CEF", "L4", "AppC", "Rem2", "Fig2",
                   "R1", "R11", "R2"}
    assert len({c.name for c in PAPER.claims}) == len(PAPER.claims) and len({c.key for c in PAPER.claims}) == len(PAPER.claims)
    assert all(c.sabotage is not None or c.finding is not None for c in PAPER.claims)
    assert {c.name for c in FINDINGS} == {"D-CEF [b, (6a) as printed]", "R1 [strictly convex]", "AppC [m_t non-increasing]", "Rem2 [empirical data]",
                                          "Lemma 5 [(16) as printed]", "Lemma 5 [(20)-(21), CE]",  # tests/properties/test_linear_lemma5.py
                                          "T2-pf [as printed, (23) printed]", "T2-pf [as printed, (23) M]",  # test_linear_dynamics_claims.py
                                          "T1-pf [(e)(i) as printed]", "R2 [as printed]"}  # test_proof_cases.py


@pytest.mark.parametrize("claim", FINDINGS, ids=lambda c: c.key)
def test_finding_counterexample_falsifies(claim):
    assert evaluate(claim, claim.finding.counterexample()).verdict is Verdict.FALSIFIED


#: The minimum of each finding: one context over two tokens; two sequences of length 3 over two tokens.
MINIMUM = {"D-CEF [b, (6a) as printed]": (2, 1), "R1 [strictly convex]": (2, 1), "AppC [m_t non-increasing]": (2, 2), "Rem2 [empirical data]": (2, 2)}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("claim", [c for c in FINDINGS if c.name in MINIMUM], ids=lambda c: c.key)
def test_search_finds_each_finding_without_pins(claim, seed):
    r = run_claim(claim, "default", seed, pinned=False)
    assert r.verdict is Verdict.FALSIFIED and "pinned" not in r.detail
    inst = loads(r.counterexample)
    V, size = MINIMUM[claim.name]
    assert inst.data.V == V and (len(inst.sequences) if inst.sequences else inst.data.m) == size, r.counterexample
    if inst.sequences:
        assert {len(s) for s in inst.sequences} == {3}


@pytest.mark.parametrize("claim", FINDINGS, ids=lambda c: c.key)
def test_verify_dataset_replays_each_finding(claim, tmp_path, capsys):
    from ntpcheck.app.cli.cli import main

    o = evaluate(claim, claim.finding.counterexample())
    from ntpcheck.properties.framework.runner import counterexample_text

    path = tmp_path / "cex.txt"
    path.write_text(counterexample_text(claim, claim.finding.counterexample(), o))
    out = tmp_path / "out.json"
    assert main(["verify", "--paper", PAPER.name, "--dataset", str(path), "--claims", claim.name, "--json", str(out)]) == 0
    (r,) = [c for c in json.loads(out.read_text())["claims"] if c["variant"] == claim.reading]
    assert r["verdict"] == "falsified" and r["counterexample"]


@pytest.mark.parametrize("text, says", [
    ("h = 1 : A x0.5\n", "is not a positive integer"),
    ("h = 1 : A, A\n", "listed twice"),
    ("h = nan : A\n", "not finite"),
    ("A B\n", "embedding:"),
])
def test_bad_input_exits_2_with_one_line(text, says, tmp_path, capsys):
    from ntpcheck.app.cli.cli import main

    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert main(["verify", "--paper", PAPER.name, "--dataset", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert main(["verify", "--paper", PAPER.name, "--dataset", str(path.with_name("missing.txt"))]) == 2
    assert main(["verify", "--paper", PAPER.name, "--dataset", str(path), "--embeddings", "orthonormal"]) == 2


def test_corrected_readings_hold_where_the_findings_fail():
    """The minimal counterexamples meet the corrected statements."""
    for name, cex in (("D-CEF [b, with (6)]", findings.MINIMAL), ("R1 [W_B unique]", findings.MINIMAL),
                      ("AppC [m_t non-decreasing]", findings.M_DECREASING), ("Rem2 [Shannon]", findings.REM2)):
        assert evaluate(PAPER.claim(name), findings.instance(cex)).verdict is Verdict.HOLDS, name


@pytest.mark.parametrize("claim", [c for c in PAPER.claims if c.parts], ids=lambda c: c.key)
def test_every_declared_part_is_wired_to_its_formula(claim):
    """Each part's mutation point is reached when the checker runs (a misspelt part would never be killed)."""
    from ntpcheck.properties.framework import evidence
    from ntpcheck.properties.framework.parts import mutating, reached

    from ntpcheck.properties.framework import Tighten

    # the claim's own reference instance where it has one (the sabotage's), else the smallest data
    on = claim.sabotage.on() if isinstance(claim.sabotage, Tighten) else findings.instance(findings.MINIMAL)
    ev = evidence(claim.setup(on))
    for part in claim.parts:
        with reached() as hit, mutating(part.name):
            claim.check(ev)
        assert hit == {part.name}


def test_p1_rate_constant_v_cannot_matter_below_100_tokens():
    """Why P1 [rate] is vacuous: its ratio to the bound is at most (V - 1)/V (the argument of (9) gives
    (V - S_j) p_jz for V), so V 1% smaller never fails for V < 100; the exponent can, where the ratio
    is close to (V - 1)/V at large gamma (one-token contexts, W* = 0, every margin 1)."""
    from ntpcheck.properties.framework import evidence
    from ntpcheck.properties.framework.parts import mutating

    claim = PAPER.claim("P1 [rate]")
    inst = loads("vocab: A B C D\nh = 1.0 : A\n")
    o = claim.check(evidence(inst))
    assert o.verdict is Verdict.HOLDS and abs(o.measured["lhs"] - 3 / 4) < 1e-9
    with mutating("exponent of e^-gamma"):
        assert claim.check(evidence(inst)).verdict is Verdict.FALSIFIED
    with mutating("V"):
        assert claim.check(evidence(inst)).verdict is Verdict.HOLDS
