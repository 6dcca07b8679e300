"""Training algorithms at the Section 7 size, each against Algorithm 1 in the same run.

    pytest tests/benchmarks/test_bench_algorithms.py --benchmark-enable --benchmark-only

Target (issue 15): every variant of :data:`ntpcheck.transformer.algorithms.VARIANTS` within 3x of
Algorithm 1's time (|V| = 20, seed 5: 84 samples, T = T' = 900, the curves recorded).
Compare the ``min`` column of each row with ``algorithm-1``'s: the ratio is the figure,
measured in one process on a shared machine.  Since issue 13, Algorithm 1 runs compiled
(:mod:`ntpcheck.transformer.kernels`) while the variants' general loop is numpy, so the ratio is 6-10x
(README, "Speed").
"""

import numpy as np
import pytest

from ntpcheck import TrainingConfig, analyse
from ntpcheck.transformer.algorithms import VARIANTS, train_variant
from ntpcheck.transformer.embeddings import as_embeddings
from ntpcheck.transformer.maxmargin import reference_solutions
from ntpcheck.transformer.synthetic import random_realizable_dataset


@pytest.mark.parametrize("alg", VARIANTS, ids=lambda v: v.name)
def test_variant_section7(benchmark, alg):
    benchmark.group = "training algorithms, Section 7 size"
    st = analyse(random_realizable_dataset(20, 90, seed=5, approximate=True))
    E = as_embeddings(None, st.dataset.n_vocab)
    refs = reference_solutions(st, E)
    cfg = TrainingConfig(T=900, T2=900, record_attention=False) if benchmark.enabled else TrainingConfig(T=30, T2=30)
    traj = benchmark.pedantic(train_variant, args=(st, alg, cfg, E, refs), rounds=7 if benchmark.enabled else 1)
    assert np.isfinite(traj.stage2.loss[-1])
