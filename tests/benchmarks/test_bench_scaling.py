"""How a stage-2 step's time grows with |V|, N and L_max (fitted exponents).

    pytest tests/benchmarks/test_bench_scaling.py --benchmark-enable --benchmark-only -s

Each factor is varied alone around (|V|, N, L_max) = (1000, 10^4, 16) on the
Algorithm 1 path (W_ov of Lemma 3's shape) and on the general dense path;
the exponent is the least-squares slope of log time against log size (best
of 3 runs per point).  Printed, and stored in ``extra_info``.
"""

import time

import numpy as np
import pytest

from ntpcheck.transformer import stage2_step
from ntpcheck.transformer.synthetic import scale_arrays

BASE = {"n_vocab": 1000, "n_samples": 10_000, "l_max": 16}
GRID = {"n_vocab": [250, 500, 1000], "n_samples": [2500, 5000, 10_000], "l_max": [4, 8, 16]}


def _step_time(n_vocab, n_samples, l_max, structured):
    arr = scale_arrays(n_vocab, n_samples, l_max)
    rng = np.random.default_rng(0)
    if structured:
        Wov = 30.0 * (np.eye(n_vocab)[:, (np.arange(n_vocab) - 1) % n_vocab] - 1.0 / n_vocab)
    else:
        Wov = rng.standard_normal((n_vocab, n_vocab))
    step = stage2_step.stage2_grad_fn(Wov, None, arr)
    W = 0.01 * rng.standard_normal((n_vocab, n_vocab))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        step(W)
        best = min(best, time.perf_counter() - t0)
    return best


def _exponents(structured, scale=1.0):
    out = {}
    for factor, values in GRID.items():
        xs, ts = [], []
        for v in values:
            cfg = dict(BASE)
            cfg[factor] = max(2, int(v * scale)) if factor != "l_max" else v
            if factor != "n_vocab":
                cfg["n_vocab"] = max(50, int(BASE["n_vocab"] * scale))
            if factor != "n_samples":
                cfg["n_samples"] = max(100, int(BASE["n_samples"] * scale))
            xs.append(cfg[factor])
            ts.append(_step_time(structured=structured, **cfg))
        out[factor] = float(np.polyfit(np.log(xs), np.log(ts), 1)[0])
    return out


@pytest.mark.parametrize("path", ["after stage 1", "general W_ov"])
def test_scaling_exponents(benchmark, path):
    benchmark.group = "training: scaling exponents"
    structured = path == "after stage 1"
    scale = 1.0 if benchmark.enabled else 0.05
    if not benchmark.enabled and not structured:
        scale = 0.02
    exps = benchmark.pedantic(_exponents, args=(structured, scale), rounds=1, iterations=1)
    benchmark.extra_info.update({f"exponent_{k}": v for k, v in exps.items()})
    print(f"\n{path}: time ~ " + " ".join(f"{k}^{v:.2f}" for k, v in exps.items()))
    assert all(np.isfinite(v) for v in exps.values())
