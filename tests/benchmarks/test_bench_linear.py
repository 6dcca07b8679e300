"""The second paper's GD loop (compiled) and regularization path, at the sizes the claims and the
reproductions use.

    pytest tests/benchmarks/test_bench_linear.py --benchmark-enable --benchmark-only

* ``gd-toy``: 10⁵ GD steps on the Fig. 1-shaped toy (V = 5, d = 2, m = 3), records at 100 steps;
* ``gd-fig4``: 10⁴ GD steps at App. A.2's size (V = 10, d = 60, m = 50);
* ``regpath-toy``: the regularization path on 28 radii (as the claims' evidence).
"""

import numpy as np
import pytest

from ntpcheck.linear import NTPData
from ntpcheck.linear.dynamics import gd_step, train
from ntpcheck.linear.regpath import reg_path


def _toy():
    ang = np.array([0.3, 2.2, 4.1])
    return NTPData(np.vstack([np.cos(ang), np.sin(ang)]), np.array([[3, 2, 0, 0, 4], [2, 0, 0, 3, 1], [0, 4, 1, 2, 0]]))


def _fig4():
    rng = np.random.default_rng(0)
    C = np.zeros((50, 10), dtype=np.int64)
    for j in range(50):
        C[j, rng.choice(10, 6, replace=False)] = rng.integers(1, 30, 6)
    return NTPData(rng.normal(size=(60, 50)) / np.sqrt(60), C)


@pytest.mark.parametrize("case", ["gd-toy", "gd-fig4"])
def test_gd(benchmark, case):
    benchmark.group = "linear model: GD loop"
    D, steps, eta = (_toy(), 100_000, None) if case == "gd-toy" else (_fig4(), 10_000, 0.5)
    if not benchmark.enabled:
        steps = 100
    train(D, "gd", 10, eta)  # compile outside the timing
    tr = benchmark.pedantic(train, args=(D, "gd", steps, eta), kwargs={"init": "lecun"}, rounds=5 if benchmark.enabled else 1)
    assert tr.status == "done"


def test_regpath(benchmark):
    benchmark.group = "linear model: regularization path"
    D = _toy()
    Bs = np.geomspace(0.5, 40, 28 if benchmark.enabled else 3) * 2.7
    path = benchmark.pedantic(reg_path, args=(D, Bs), rounds=3 if benchmark.enabled else 1)
    assert len(path.points) >= 1
