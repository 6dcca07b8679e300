"""The exact Eq. (2)/(3) solver against cvxpy, with certificates, on many random instances."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ntpcheck
from ntpcheck import AssumptionViolatedError, EmbeddingError, loads
from ntpcheck.transformer import maxmargin as mm
from ntpcheck.transformer.maxmargin import column_solution, solve_eq2_exact, solve_eq3_exact
from ntpcheck.transformer.training import TrainingConfig
from ntpcheck.strategies import instances, realizable_datasets

AT_LEAST_200 = settings(max_examples=max(200, settings.default.max_examples), deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])
# Datasets without prefix closure have several optimal tokens per query, unequal
# neighbourhoods and ties: the degenerate cases of the isotonic decomposition.
ANY = st.one_of(realizable_datasets(prefix_closed=False, max_vocab=7, max_samples=14),
                realizable_datasets(max_vocab=7, max_samples=14))


@AT_LEAST_200
@given(ANY)
def test_exact_eq3_agrees_with_cvxpy_and_certifies(ds):
    e = solve_eq3_exact(ds)
    assert e.residuals.worst < 1e-9
    c = mm.solve(mm.build_eq3(ds), "CLARABEL")
    np.testing.assert_allclose(e.W, c.W, atol=1e-7)


@given(instances(realizable_datasets(prefix_closed=False, max_vocab=5), TrainingConfig(), embeddings="orthonormal"))
def test_exact_with_rotated_embeddings(inst):
    e = solve_eq3_exact(inst.dataset, inst.E)
    assert e.residuals.worst < 1e-9
    np.testing.assert_allclose(e.W, mm.solve(mm.build_eq3(inst.dataset, inst.E)).W, atol=1e-7)
    e2 = solve_eq2_exact(inst.dataset, inst.E)
    assert e2.residuals.worst < 1e-9


@given(ANY, st.integers(0, 10**6))
def test_certificate_rejects_sabotaged_solution(ds, seed):
    e = solve_eq3_exact(ds)
    if not e.problem.n_constraints:
        return
    rng = np.random.default_rng(seed)
    bad = e.W + 1e-3 * rng.standard_normal(e.W.shape)
    assert mm.certify(e.problem, bad)[1].worst > 1e-6


def test_counterexample_to_prop2_is_solved_exactly():
    e = solve_eq3_exact(loads("A -> A\nA A B -> A\nC -> B\nC D E B -> B\n"))
    assert e.residuals.worst < 1e-12
    u, lam = column_solution({"A", "C"}, {"B", "D", "E"}, [("A", "B"), ("C", "D"), ("C", "E"), ("C", "B")])
    assert u == {"A": 0.5, "B": -0.5, "C": pytest.approx(2 / 3), "D": pytest.approx(-1 / 3), "E": pytest.approx(-1 / 3)}
    assert lam[("C", "B")] == 0.0  # slack pair between blocks


def test_exact_requires_its_assumptions():
    with pytest.raises(EmbeddingError, match="Assumption 2"):
        solve_eq3_exact(ntpcheck.load("example1"), np.random.default_rng(0).standard_normal((4, 4)))
    with pytest.raises(AssumptionViolatedError, match="confused"):
        solve_eq3_exact(loads("a -> A\nb -> B\nq -> Q\na b q -> A\nb c q -> B\n"))
