"""Solutions kept by columns (``maxmargin.compact``, ``SparseColumns``): the dense solvers'
entries bit for bit, and KKT residuals that say what the dense certificate says."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ntpcheck
from ntpcheck import InfeasibleProblemError, loads
from ntpcheck.transformer import maxmargin as mm
from ntpcheck.transformer.maxmargin.compact import eq2_residuals, solve_eq2_compact, solve_eq3_compact, two_entry_residuals
from ntpcheck.common.sparsecols import SparseColumns, flat_nonzero
from ntpcheck.strategies import realizable_datasets
from ntpcheck.transformer.synthetic import SOLVER_KINDS, solver_dataset

ANY = st.one_of(realizable_datasets(prefix_closed=False, max_vocab=7, max_samples=14),
                realizable_datasets(max_vocab=7, max_samples=14))


def _same_certificate(compact, dense) -> None:
    """Both certify (worst residual at rounding level) and agree residual by residual."""
    c, d = compact.residuals.to_json(), dense.residuals.to_json()
    assert max(c.values()) < 1e-12 and max(d.values()) < 1e-12
    assert c == pytest.approx(d, abs=1e-13)
    assert compact.n_constraints == dense.problem.n_constraints
    assert compact.norm == pytest.approx(dense.norm, rel=1e-14)


@settings(max_examples=100, deadline=None)
@given(ANY)
def test_compact_solutions_are_the_dense_ones(ds):
    s = ntpcheck.analyse(ds)
    d2, d3 = mm.solve_eq2_exact(s), mm.solve_eq3_exact(s)
    c2, c3 = solve_eq2_compact(s), solve_eq3_compact(s)
    assert np.array_equal(c2.W.dense(), d2.W) and np.array_equal(c3.W.dense(), d3.W)
    _same_certificate(c2, d2)
    _same_certificate(c3, d3)


@pytest.mark.parametrize("kind", SOLVER_KINDS)
def test_compact_on_the_benchmark_kinds(kind):
    s = ntpcheck.analyse(solver_dataset(kind, 60))
    for compact, dense in ((solve_eq2_compact(s), mm.solve_eq2_exact(s)), (solve_eq3_compact(s), mm.solve_eq3_exact(s))):
        assert np.array_equal(compact.W.dense(), dense.W)
        _same_certificate(compact, dense)
    assert solve_eq2_compact(s).W.nnz == 60  # one entry per column: 1 - 1/|V| at n(x), the fill -1/|V| elsewhere


def test_residuals_see_a_wrong_solution():
    """The compact certificates are not vacuous: perturbed solutions give the dense residuals."""
    s = ntpcheck.analyse(ntpcheck.load("example1"))
    c3, d3 = solve_eq3_compact(s), mm.solve_eq3_exact(s)
    W = c3.W
    bad = SparseColumns(W.shape, W.columns, W.fill, W.indptr, W.rows, W.values * 0.9)
    a, b, q = s.eq3_index
    res = two_entry_residuals(bad, s.query_row[q], a, b, d3.multipliers)
    assert res.to_json() == pytest.approx(mm.kkt_residuals(d3.problem.R, bad.dense().ravel(), d3.multipliers).to_json())
    assert res.primal == pytest.approx(0.1)
    c2, d2 = solve_eq2_compact(s), mm.solve_eq2_exact(s)
    W = c2.W
    bad = SparseColumns(W.shape, W.columns, W.fill * 2, W.indptr, W.rows, W.values)
    res = eq2_residuals(bad, s.collocation_index[1][np.argsort(s.collocation_index[0])], 0.25)
    assert res.to_json() == pytest.approx(mm.kkt_residuals(d2.problem.R, bad.dense().ravel(), d2.multipliers).to_json())
    assert res.stationarity == pytest.approx(0.25) and res.complementarity == pytest.approx(0.25 * 0.25)


def test_compact_raises_like_the_dense_solvers():
    with pytest.raises(InfeasibleProblemError, match="next tokens"):
        solve_eq2_compact(ntpcheck.analyse(loads("a -> A\na -> B\n")))
    with pytest.raises(InfeasibleProblemError, match="cycle"):
        solve_eq3_compact(ntpcheck.analyse(loads("a -> A\nb -> B\nq -> Q\na b q -> A\nb a q -> B\n")))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1), st.sampled_from(["zero", "common"]))
def test_sparse_columns_rebuild_the_matrix(n, m, seed, mode):
    rng = np.random.default_rng(seed)
    M = rng.choice([0.0, -0.25, 0.75, rng.standard_normal(), np.nan], size=(n, m), p=[0.4, 0.3, 0.1, 0.1, 0.1])
    cols = rng.permutation(m)[: rng.integers(0, m + 1)]
    S = SparseColumns.from_dense(M, cols, mode)
    want = np.zeros_like(M)
    want[:, cols] = M[:, cols]
    np.testing.assert_array_equal(S.dense(), want)  # NaN where NaN
    assert S.nnz + S.n_omitted == n * len(cols)
    finite = np.nan_to_num(want, nan=0.0)
    S2 = SparseColumns.from_dense(finite, cols, mode)
    assert S2.norm() == pytest.approx(np.linalg.norm(finite))
    assert S2.max_abs_diff(SparseColumns.from_dense(finite * 0, cols)) == pytest.approx(np.max(np.abs(finite[:, cols]), initial=0.0))


def test_flat_nonzero_matches_numpy():
    rng = np.random.default_rng(1)
    for n in (0, 1, 7, 8, 9, 64, 1001):
        a = (rng.random((3, n)) < 0.05).astype(np.int8) * rng.integers(1, 4, (3, n)).astype(np.int8)
        np.testing.assert_array_equal(flat_nonzero(a), np.flatnonzero(a))
