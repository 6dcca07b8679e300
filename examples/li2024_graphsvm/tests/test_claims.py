"""The claims run as ntpcheck runs them (``ntpcheck.api.run_claim``), their sabotages are caught, and an
instance's text replays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from ntpcheck import api

from li2024_graphsvm.claims import CLAIMS, CONDITIONS, PAPER, breaking, violated
from li2024_graphsvm.strategies import instances
from li2024_graphsvm.textformat import dumps, loads
from li2024_graphsvm.worked import CYCLIC, SETTLED, instance


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_claim_holds(claim):
    r = api.run_claim(claim, "quick")
    assert r.verdict is api.Verdict.HOLDS, r.detail
    assert r.counts["falsified"] == r.counts["error"] == 0
    for name, part in r.exercised.get("parts", {}).items():   # say how tight each limit was resolved
        print(f"{claim.name}: {part['text']}")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.key)
def test_sabotage_is_caught(claim):
    o = claim.sabotage.run()
    assert o.verdict is api.Verdict.FALSIFIED, (claim.sabotage.what, o.detail)


def test_the_limit_parts_are_wired():
    """Each limit's mutant changes the checked reference: the 1.01 W_fin mutant is killed where the run
    resolves W_fin that finely (on SETTLED the within part sits at W_fin from the first step), and is
    not called "holds" on the worked cycle, where runs of 10^4 steps do not resolve it."""
    finite = PAPER.claim("GD [finite part]")
    for text, mutant in ((SETTLED, api.Verdict.FALSIFIED), (CYCLIC, api.Verdict.INCONCLUSIVE)):
        ev = instance(text).evidence()
        assert finite.check(ev).verdict in (api.Verdict.HOLDS, api.Verdict.VACUOUS)
        with api.mutating("lim W_fin"):
            assert finite.check(ev).verdict is mutant, text


@settings(max_examples=40, deadline=None, derandomize=True)
@given(instances("any", gd=True)("default"))
def test_the_text_replays(inst):
    back, header = loads(inst.counterexample_text("GD [direction]", "a detail", "ntpcheck verify ..."))
    assert back.key == inst.key and header.claim == "GD [direction]" and header.params == dict(inst.params)
    assert dumps(back) == dumps(inst)


@pytest.mark.parametrize("text, words", [
    ("A B -> C\n", "does not occur in its sequence"),
    ("A B -> A @ -1\n", "weight must be positive"),
    ("# parameters: steps = 10, speed = 2\nA B -> A\n", "unknown parameter"),
    ("# embeddings: 2 x 2\n#   1.0 0.0\nA B -> A\n", "expected row 2"),
    ("vocab: A B\nA C -> A\n", "not in the vocabulary"),
    ("A B A\n", "expected 'SEQUENCE -> NEXT'"),
    ("# parameters: init = 1.5\nA B -> A\n", "must be an integer"),
    ("# embeddings: 2 by 2\nA B -> A\n", "expected '# embeddings: d x V'"),
])
def test_bad_text_is_refused(text, words):
    with pytest.raises(ValueError, match=words):
        loads(text)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_breaking_breaks_exactly_one_condition(condition):
    @settings(max_examples=20, deadline=None, derandomize=True)
    @given(breaking(condition, "quick"))
    def check(inst):
        assert violated(inst) == [condition]

    check()


def test_gd_lowers_the_loss_towards_the_reduced_minimum():
    """The loss decreases along the run, to the loss of W_fin on the reduced samples (the leak to the
    lower components vanishes)."""
    from li2024_graphsvm.model import loss

    inst = instance(CYCLIC)
    ev = inst.evidence()
    tr = ev.gd_at(10)
    values = np.array([loss(inst.data, W) for W in tr.W])
    assert np.all(np.diff(values) <= 1e-12)
    reduced = loss(inst.data, ev.finite.W + 1e3 * ev.w_svm / np.linalg.norm(ev.w_svm))
    assert values[-1] - reduced < 1e-2 and reduced <= values[-1] + 1e-12


def test_written_against_the_public_api():
    """The package imports ntpcheck only through ntpcheck.api, but for the bridge to the first paper's solver."""
    package = Path(__file__).resolve().parent.parent / "li2024_graphsvm"
    for path in sorted(package.glob("*.py")):
        lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip().startswith(("import ntpcheck", "from ntpcheck"))]
        allowed = ("from ntpcheck.api import",) + (("import ntpcheck", "from ntpcheck.transformer.maxmargin import") if path.name == "bridge.py" else ())
        assert all(ln.startswith(allowed) for ln in lines), (path.name, lines)
