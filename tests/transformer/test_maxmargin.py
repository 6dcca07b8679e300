"""Max-margin problems: solvers agree, closed form, certificates, clear infeasibility errors."""

import numpy as np
import pytest

import ntpcheck
from ntpcheck import EmbeddingError, InfeasibleProblemError, SolverFailedError, analyse, loads
from ntpcheck.transformer import maxmargin as mm
from ntpcheck.properties.huang2024.bounds import prop2_matrix
from ntpcheck.transformer.embeddings import random_orthonormal

EX1 = analyse(ntpcheck.load("example1"))
# A richer instance: three queries, ties (two optimal tokens), non-comparable tokens.
RICH = analyse(loads("""\
a -> A
b -> B
c -> C
q -> Q
r -> R
a c q -> A
b q -> B
a b c r -> A
a b c c r -> A @ 2
"""))

# Agreement tolerance between solvers: both are polished to KKT residuals at
# rounding level (checked below), so W agrees to well below 1e-8.
AGREE = 1e-8


@pytest.mark.parametrize("st", [EX1, RICH], ids=["example1", "rich"])
@pytest.mark.parametrize("build", [mm.build_eq2, mm.build_eq3], ids=["eq2", "eq3"])
def test_two_solvers_agree(st, build):
    p = build(st)
    a, b = mm.solve(p, "CLARABEL"), mm.solve(p, "OSQP")
    assert a.residuals.worst < 1e-9 and b.residuals.worst < 1e-9
    np.testing.assert_allclose(a.W, b.W, atol=AGREE)


@pytest.mark.parametrize("st", [EX1, RICH], ids=["example1", "rich"])
def test_eq2_closed_form_matches_solver_and_certifies(st):
    cf = mm.eq2_closed_form(st)
    p = mm.build_eq2(st)
    np.testing.assert_allclose(mm.solve(p).W, cf, atol=AGREE)
    lam, res = mm.certify(p, cf)
    assert res.worst < 1e-12
    np.testing.assert_allclose(lam[lam > 0], 1 / st.dataset.n_vocab)


def test_eq2_closed_form_with_random_orthonormal_embeddings():
    E = random_orthonormal(4, 7, seed=3)
    cf = mm.eq2_closed_form(EX1, E)
    np.testing.assert_allclose(mm.solve(mm.build_eq2(EX1, E)).W, cf, atol=1e-7)


def test_certificate_rejects_wrong_solution():
    p = mm.build_eq3(EX1)
    W = mm.solve(p).W
    assert mm.certify(p, W)[1].worst < 1e-9
    for bad in (1.1 * W, W + 0.01 * np.eye(4), 0.9 * W):
        assert mm.certify(p, bad)[1].worst > 1e-3


def test_prop2_formula_on_example1():
    np.testing.assert_allclose(prop2_matrix(EX1, np.eye(4)), mm.solve(mm.build_eq3(EX1)).W, atol=AGREE)


def test_cyclic_order_gives_clear_error():
    st = analyse(loads("a -> A\nb -> B\nq -> Q\na b q -> A\nb a q -> B\n"))
    with pytest.raises(InfeasibleProblemError, match=r"under query q the order has a cycle .*Assumption 1\(ii\)"):
        mm.build_eq3(st)


def test_two_next_tokens_gives_clear_error():
    st = analyse(loads("a -> b\na -> c\n"))
    with pytest.raises(InfeasibleProblemError, match=r"'a' has next tokens b and c.*Assumption 1\(i\)"):
        mm.build_eq2(st)
    with pytest.raises(InfeasibleProblemError):
        mm.eq2_closed_form(st)


def test_closed_forms_require_assumption2():
    E = np.random.default_rng(0).standard_normal((4, 4))
    with pytest.raises(EmbeddingError, match="Assumption 2"):
        mm.eq2_closed_form(EX1, E)
    with pytest.raises(EmbeddingError, match="Assumption 2"):
        prop2_matrix(EX1, E)


def test_infeasible_with_dependent_embeddings_is_reported():
    # Embeddings with x_a = x_b make a > b under q impossible: 0 >= 1.
    st = analyse(loads("a -> A\nb -> B\nq -> Q\na b q -> A\n"))
    E = np.eye(6)
    E[:, 2] = E[:, 0]  # b embedded like a
    with pytest.raises(InfeasibleProblemError, match="Assumption 2"):
        mm.solve(mm.build_eq3(st, E))


def test_unknown_solver():
    with pytest.raises(SolverFailedError, match="not installed"):
        mm.solve(mm.build_eq3(EX1), "NOPE")


def test_no_constraints_gives_zero():
    st = analyse(loads("a -> b\n"))
    assert not mm.solve(mm.build_eq3(st)).W.any()
