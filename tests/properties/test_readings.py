"""Issue 31: every matrix row tests what its name says, at full strength, over the drawn parameters.

* each row's breakers keep the row's data reading (prefix-closed / general data, embeddings);
* Assumption 3 is broken at every multiplicity on general data, interacting with the rest;
* the training parameters a claim quantifies over are drawn (the stage-1 margin ``A`` over
  about [0.1, 30], stage 2's ``eta``, orthonormal ``d >= |V|``), resolved by the claim's setup,
  printed in the counterexample's header and replayed exactly from it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from ntpcheck.transformer.assumptions import check_all, check_prefix, failed
from ntpcheck.transformer.embeddings import is_orthonormal
from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.model import safe_norm
from ntpcheck.properties import paper
from ntpcheck.properties.framework.evidence import evidence
from ntpcheck.properties.framework.runner import counterexample_text, instance_key, prepare
from ntpcheck.properties.framework.verdicts import Outcome, Verdict
from ntpcheck.properties.huang2024 import setups
from ntpcheck.strategies import searched_params, violating
from ntpcheck.strategies.embeddings import non_orthonormal_matrices
from ntpcheck.transformer.structure import analyse
from ntpcheck.transformer.textformat import loads_with_header

from tests.helpers import find_any, minimal

AT_LEAST_200 = settings(max_examples=max(200, settings.default.max_examples), deadline=None,
                        suppress_health_check=list(HealthCheck))
PAPER = paper()
#: The distinct data readings of the matrix's rows (every claim with a setup).
READINGS = sorted({(c.data.prefix_closed, c.data.embeddings) for c in PAPER.claims
                   if c.setup is not None and isinstance(c.data, setups.Reading)})


def _reading(prefix_closed: bool, embeddings: str) -> setups.Reading:
    return setups.Reading(prefix_closed=prefix_closed, embeddings=embeddings)


def test_every_row_has_a_declared_reading():
    """Each matrix row's data is a :class:`setups.Reading` (so its breakers can keep it),
    except Prop. 2 (exact)'s gadget data, which is general data by construction, and the
    Prop. 2 bridge's, which draws the same gadget data (queries with several optimal tokens)."""
    loose = [c.name for c in PAPER.claims if c.setup is not None and not isinstance(c.data, setups.Reading)]
    assert loose == ["Prop. 2 (exact)", "Bridge [Prop. 2 = NTP-SVM]"]
    assert {(True, "canonical"), (False, "canonical"), (True, "drawn"), (False, "drawn")} <= set(READINGS)


@pytest.mark.parametrize("condition", PAPER.conditions)
@pytest.mark.parametrize("prefix_closed, embeddings", READINGS)
def test_row_breakers_keep_the_rows_data_reading(prefix_closed, embeddings, condition):
    """200 draws of each row's cell: the row's data property, and exactly the condition broken
    (on general data prefix closure is no condition; it fails on most draws)."""
    seen = {"not prefix-closed": 0, "orthonormal d > |V| or rotated": 0, "n": 0}

    @AT_LEAST_200
    @given(setups.breaking(condition, "default", _reading(prefix_closed, embeddings)))
    def inner(inst):
        bad = set(failed(check_all(inst.dataset, inst.E)))
        if prefix_closed or condition == "prefix":
            assert bad == {condition}, (bad, str(inst.dataset))
        else:
            assert bad - {"prefix"} == {condition}, (bad, str(inst.dataset))
        seen["n"] += 1
        seen["not prefix-closed"] += not check_prefix(inst.dataset).holds
        if condition != "2":
            assert is_orthonormal(inst.E)
            seen["orthonormal d > |V| or rotated"] += inst.embeddings is not None
            if embeddings == "canonical":
                assert inst.embeddings is None

    inner()
    if not prefix_closed:
        assert seen["not prefix-closed"] >= seen["n"] / 2, seen
    if embeddings == "drawn" and condition != "2":
        assert seen["orthonormal d > |V| or rotated"] >= seen["n"] / 5, seen


# --- Assumption 3 at full strength -----------------------------------------------------

def _worst_non_optimal(ds):
    """The largest (multiplicity - |I(n)|) over samples and non-optimal tokens, and whether
    the offending sample shares its query with another sample."""
    st = analyse(ds)
    n = {s.sentence[0]: s.next for s in ds.samples if len(s.sentence) == 1}
    best = (0, 0, False)
    for s in ds.samples:
        k_opt = sum(n.get(x) == s.next for x in s.sentence)
        for t in set(s.sentence):
            if k_opt and n.get(t) != s.next and s.sentence.count(t) > k_opt:
                shared = any(o.query == s.query and o is not s for o in ds.samples)
                best = max(best, (s.sentence.count(t), k_opt, shared))
    return best


def test_assumption3_breaks_at_every_multiplicity_on_general_data():
    """On general data a non-optimal token (not only the next token) is repeated up to what
    L_max allows, in a sample sharing its query with others."""
    strat = violating("3", prefix_closed=False, max_vocab=6, max_len=5, max_samples=10)
    for mult in (2, 3, 4):
        inst = find_any(strat, lambda i, m=mult: _worst_non_optimal(i.dataset)[0] >= m and _worst_non_optimal(i.dataset)[2])
        assert failed(check_all(inst.dataset)) in (["3"], ["3", "prefix"])


def test_assumption3_general_breaker_shrinks_to_one_repeated_non_optimal_token():
    """The smallest violation on general data: one sentence with a non-optimal token twice
    and its optimal token once, beside the collocations it needs (documented in the breakers' table)."""
    inst = minimal(violating("3", prefix_closed=False, kinds=("embedded",)),
                   lambda i: _worst_non_optimal(i.dataset)[2] and not check_prefix(i.dataset).holds)
    count, k_opt, _ = _worst_non_optimal(inst.dataset)
    assert (count, k_opt) == (2, 1), str(inst.dataset)
    assert inst.dataset.n_samples <= 4 and inst.dataset.l_max <= 4, str(inst.dataset)


@pytest.mark.parametrize("kind", ["correlated", "unnormalised"])
def test_assumption2_degree_shrinks_to_the_smallest_defect(kind):
    E = minimal(non_orthonormal_matrices(3, kind))
    defect = np.max(np.abs(E.T @ E - np.eye(3)))
    assert 0 < defect <= 0.05, defect
    find_any(non_orthonormal_matrices(3, kind), lambda M: np.max(np.abs(M.T @ M - np.eye(3))) > 0.5)


# --- the training parameters are drawn --------------------------------------------------

def test_searched_params_shrink_to_the_papers_defaults_and_span_the_margin_range():
    assert minimal(searched_params()) == {"target_A": None, "eta": None}
    lo = find_any(searched_params(), lambda p: p["target_A"] is not None and p["target_A"] < 0.15)
    hi = find_any(searched_params(), lambda p: p["target_A"] is not None and p["target_A"] > 25)
    assert 0.1 <= lo["target_A"] and hi["target_A"] <= 30


def test_setup_resolves_the_drawn_margin_into_eta0():
    """``A = T eta_0/(4 ||W*_ov||^2)`` (Cor. 1) is met exactly by the resolved step size."""
    claim = PAPER.claim("Lemma 5 [trained W_ov]")
    drawn = Instance(setups.example1().dataset, target_A=12.5, eta=0.3)
    ready = prepare(claim, drawn)
    w = safe_norm(evidence(Instance(drawn.dataset, T=0, T2=0)).w_ov_star)
    assert ready.target_A is None and ready.eta == 0.3
    assert math.isclose(ready.T * ready.eta0 / (4 * w**2), 12.5, rel_tol=1e-12)


@pytest.mark.parametrize("name", ["Lemma 5 [trained W_ov, general data]", "Lemma 5 [idealised W_ov]", "Thm. 2 [loss, c_0 = 1]"])
def test_drawn_parameters_are_printed_and_replay_exactly(name):
    """The counterexample header carries the resolved parameters and embeddings; reading it
    back gives the instance the claim was checked on (same key), as ``verify --dataset`` does."""
    claim = PAPER.claim(name)
    inst = find_any(claim.data("quick"), lambda i: i.target_A is not None and i.embeddings is not None
                    and (i.eta is not None or "Thm. 2" in name), max_examples=500)
    ready = prepare(claim, inst)
    text = counterexample_text(claim, inst, Outcome(Verdict.FALSIFIED, detail="(test)"))
    ds, header = loads_with_header(text)
    replayed = Instance.from_header(ds, header)
    assert instance_key(replayed) == instance_key(ready)
