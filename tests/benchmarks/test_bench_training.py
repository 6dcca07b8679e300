"""Training speed: the paper's Section 7 run, and one stage-2 step at scale.

    pytest tests/benchmarks/test_bench_training.py --benchmark-enable --benchmark-only

Targets (issue 5): the Section 7 experiment (|V| = 20, ~90 samples, 900 + 900
steps, the six Figure-2 curves) in at most 0.15 s median; a stage-2 step at
|V| = 1000, N = 10^4, L_max = 16 in at most 0.1 s, under 2 GiB.  In the normal
suite (benchmarks disabled) the scale case runs at a tenth of the size.
"""

import resource

import numpy as np
import pytest

from ntpcheck import TrainingConfig, analyse, stage2_step, train
from ntpcheck.maxmargin import reference_solutions
from ntpcheck.synthetic import random_realizable_dataset, scale_arrays


def test_section7_experiment(benchmark):
    benchmark.group = "training"
    ds = random_realizable_dataset(20, 90, seed=5, approximate=True)
    st = analyse(ds)
    refs = reference_solutions(st)
    cfg = TrainingConfig(T=900, T2=900, record_attention=False)
    traj = benchmark.pedantic(train, args=(st, cfg, None, refs), rounds=7 if benchmark.enabled else 1)
    benchmark.extra_info["n_samples"] = ds.n_samples
    assert traj.stage2.steps[-1] == 900 and np.isfinite(traj.stage2.one_minus_cos[-1])


@pytest.mark.parametrize("kind", ["after stage 1", "general W_ov"])
def test_stage2_step_at_scale(benchmark, kind):
    """One stage-2 gradient at |V| = 1000, N = 10^4, L_max = 16.

    "after stage 1": W_ov of Algorithm 1's shape (Lemma 3: columns
    A (e_{n(x)} - 1/|V|)), which takes the O(N L) path; "general W_ov": a
    random W_ov, which takes the dense path."""
    benchmark.group = "training: stage-2 step at scale"
    big = benchmark.enabled
    V, N, L = (1000, 10_000, 16) if big else (100, 1000, 16)
    arr = scale_arrays(V, N, L)
    rng = np.random.default_rng(0)
    if kind == "after stage 1":
        Wov = 30.0 * (np.eye(V)[:, (np.arange(V) - 1) % V] - 1.0 / V)  # column x: 30 (e_{x+1} - 1/|V|)
        assert stage2_step.lemma3_structure(Wov) is not None
    else:
        Wov = rng.standard_normal((V, V))
    step = stage2_step.stage2_grad_fn(Wov, None, arr)
    W = 0.01 * rng.standard_normal((V, V))
    G, lo, _ = benchmark.pedantic(step, args=(W,), rounds=5 if big else 1)
    benchmark.extra_info.update({"n_vocab": V, "n_samples": N, "l_max": L,
                                 "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
    assert G.shape == (V, V) and np.isfinite(lo)
