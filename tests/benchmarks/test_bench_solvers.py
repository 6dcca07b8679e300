"""Solver benchmark: Eq. (2) and Eq. (3), exact vs cvxpy solvers, |V| = 10 ... 400.

    pytest tests/benchmarks/test_bench_solvers.py --benchmark-enable --benchmark-only

Groups ``eq2 |V|=n`` and ``eq3 |V|=n``; each records its max difference from
the exact solution in ``extra_info``.  ``ntpcheck bench`` prints the scored
table (success at 1e-7, shifted geometric means).
"""

import numpy as np
import pytest

from ntpcheck import analyse
from ntpcheck import maxmargin as mm
from ntpcheck.maxmargin import solve_eq3_exact
from ntpcheck.maxmargin import eq2_matrix
from ntpcheck.synthetic import bench_dataset

SIZES = [10, 50, 100, 400]
CVXPY = [s for s in ("CLARABEL", "OSQP", "SCS") if s in mm.installed_solvers()]


@pytest.fixture(scope="module")
def structures():
    out = {}
    for n in SIZES:
        st = analyse(bench_dataset(n))
        st.eq3_index, st.collocation_index
        out[n] = (st, mm.build_eq2(st), mm.build_eq3(st), solve_eq3_exact(st, certify=False).W)
    return out


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("method", ["exact"] + CVXPY)
def test_eq3(benchmark, structures, n, method):
    st, _, p3, ref = structures[n]
    benchmark.group = f"eq3 |V|={n}"
    if method == "exact":
        W = benchmark.pedantic(lambda: solve_eq3_exact(st, certify=False, validate=False).W, rounds=20 if benchmark.enabled else 1)
    else:
        W = benchmark.pedantic(lambda: mm.solve(p3, method, polish=False).W, rounds=3 if benchmark.enabled else 1)
    benchmark.extra_info["max_abs_error"] = float(np.abs(W - ref).max())
    assert np.abs(W - ref).max() < 1e-6


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("method", ["closed form", "CLARABEL"])
def test_eq2(benchmark, structures, n, method):
    st, p2, _, _ = structures[n]
    E = np.eye(n)
    benchmark.group = f"eq2 |V|={n}"
    ref = eq2_matrix(st, E, True)
    if method == "closed form":
        W = benchmark.pedantic(lambda: eq2_matrix(st, E, True), rounds=50 if benchmark.enabled else 1)
    else:
        W = benchmark.pedantic(lambda: mm.solve(p2, method, polish=False).W, rounds=2 if benchmark.enabled else 1)
    benchmark.extra_info["max_abs_error"] = float(np.abs(W - ref).max())
    assert np.abs(W - ref).max() < 1e-6
