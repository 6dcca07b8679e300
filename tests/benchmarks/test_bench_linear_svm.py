"""The second paper's NTP-SVM ``W^mm`` (Def. 3): ``w_mm`` (active set) against one vectorised cvxpy solve.

    pytest tests/benchmarks/test_bench_linear_svm.py --benchmark-enable --benchmark-only

Groups ``W^mm d/m/V`` at the sizes of :data:`ntpcheck.app.scaleout.bench_linear.SIZES`
(the last App. A's), on one BLAS thread; each records its relative difference
from ``w_mm``'s answer in ``extra_info``.  ``ntpcheck bench --linear`` prints the
ratios.  The normal suite runs each once (cvxpy at App. A's size only when
benchmarking), as a smoke test.
"""

import numpy as np
import pytest

from ntpcheck.app.scaleout.bench_linear import SIZES, cvxpy_w_mm, linear_instance
from ntpcheck.common.blas import single_threaded_blas
from ntpcheck.linear import NTPData
from ntpcheck.linear.svm import w_mm
from ntpcheck.transformer.maxmargin import installed_solvers

CVXPY = [s for s in ("CLARABEL", "PIQP") if s in installed_solvers()]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: "/".join(map(str, s)))
@pytest.mark.parametrize("method", ["w_mm", *CVXPY])
def test_w_mm(benchmark, size, method):
    if size == SIZES[-1] and method != "w_mm" and not benchmark.enabled:
        pytest.skip("cvxpy at App. A's size only when benchmarking")
    D = linear_instance(*size)
    ref = w_mm(D).W
    benchmark.group = "W^mm " + "/".join(map(str, size))

    def run():
        Df = NTPData(D.H, D.counts)  # its masks derived inside the timing, as a user's data are
        return w_mm(Df).W if method == "w_mm" else cvxpy_w_mm(Df, method)

    with single_threaded_blas():
        W = benchmark.pedantic(run, rounds=(20 if method == "w_mm" else 3) if benchmark.enabled else 1)
    diff = float(np.linalg.norm(W - ref) / np.linalg.norm(ref))
    benchmark.extra_info["relative_difference"] = diff
    assert diff < (1e-12 if method == "w_mm" else 1e-3)  # cvxpy at its default tolerances: ~1e-5
