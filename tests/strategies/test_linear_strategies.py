"""The second paper's strategies keep their promises: 200 draws meet every hypothesis (or break
exactly the one named, with what follows from Lemma 1), arguments are validated at build time,
and examples shrink to the minimal readable ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis.errors import InvalidArgument

from ntpcheck.linear.autoregressive import distinct_by_length, entropy_by_length
from ntpcheck.linear.loss import covariance_lambda_max, smoothness_bound
from ntpcheck.linear.subspace import compatibility
from ntpcheck.linear.svm import separability
from ntpcheck.strategies.linear import linear_instances, sequence_sets, step_sizes
from ntpcheck.strategies.linear_breakers import LINEAR_CONDITIONS, linear_breaking

DRAWS = settings(max_examples=200, deadline=None, database=None)


def broken(inst) -> set[str]:
    D = inst.data
    ok = {"compatible": compatibility(D).compatible, "separable": separability(D).separable,
          "overparameterised": D.d >= D.m and np.linalg.matrix_rank(D.H) == D.m, "S<V": bool((D.mask.sum(axis=1) < D.V).any())}
    return {k for k, v in ok.items() if not v}


@DRAWS
@given(linear_instances())
def test_drawn_data_meet_every_hypothesis(inst):
    assert broken(inst) == set()
    assert inst.data.n == inst.data.counts.sum() and np.all(inst.data.pi[:, None] * inst.data.P >= np.where(inst.data.mask, 1 / inst.data.n, 0) - 1e-15)


#: What each breaker breaks: its condition, and overparameterisation where Lemma 1 makes that follow.
BREAKS = {"compatible": {"compatible", "overparameterised"}, "separable": {"separable", "overparameterised"},
          "overparameterised": {"overparameterised"}, "S<V": {"S<V"}}


@pytest.mark.parametrize("condition", LINEAR_CONDITIONS)
def test_breakers_break_exactly_their_condition(condition):
    @DRAWS
    @given(linear_breaking(condition))
    def check(inst):
        assert broken(inst) == BREAKS[condition]

    check()


def test_minimal_examples_are_readable():
    assert repr(find(linear_instances(), lambda i: True)) == "ntpcheck.linear.loads('''\nvocab: A B\nh = 1.0 : A\n''')"
    assert "h = 1.0 : A, B\nh = 1.0 : A\n" in repr(find(linear_breaking("separable"), lambda i: True))


@DRAWS
@given(sequence_sets(stationary=True))
def test_stationary_sequence_sets_have_non_increasing_entropy(inst):
    """Cyclic windows of one circular word: the empirical law is shift-invariant, so Shannon's inequality
    gives ℋ_{t+1} ≤ ℋ_t exactly (the reading of Remark 2 under which it is a theorem)."""
    H = entropy_by_length(inst.sequences)
    assert all(H[t + 1] <= H[t] + 1e-12 for t in H if t + 1 in H)
    assert len({len(s) for s in inst.sequences}) == 1 and len(distinct_by_length(inst.sequences)) == len(inst.sequences[0]) - 1


@DRAWS
@given(linear_instances().flatmap(lambda i: step_sizes(i.data, above=True).map(lambda eta: (i, eta))))
def test_steps_above_are_above_one_over_2L(args):
    """Above: η exceeds 1/(2 λ_max(∇²CE(0))) ≥ 1/(2L); the Hessian at 0 is (Σπ̂h̄h̄ᵀ) ⊗ (I/V − 11ᵀ/V²)."""
    inst, eta = args
    D = inst.data
    hess0 = np.kron(np.eye(D.V) / D.V - 1 / D.V**2, (D.H * D.pi) @ D.H.T)
    assert eta > 1 / (2 * np.linalg.eigvalsh(hess0)[-1])
    assert np.isclose(np.linalg.eigvalsh(hess0)[-1], covariance_lambda_max(D) / D.V)


@settings(max_examples=50, deadline=None, database=None)
@given(linear_instances().flatmap(lambda i: step_sizes(i.data).map(lambda eta: (i, eta))))
def test_steps_below_respect_the_bound(args):
    inst, eta = args
    assert 0 < eta <= 1 / (2 * smoothness_bound(inst.data)) * (1 + 1e-12)


@pytest.mark.parametrize("kwargs", [dict(min_contexts=0), dict(max_vocab=1), dict(min_vocab=4, max_vocab=3), dict(embeddings="sphere"),
                                    dict(embeddings=()), dict(max_extra_dims=-1)])
def test_bad_arguments_are_refused_when_built(kwargs):
    with pytest.raises(InvalidArgument):
        linear_instances(**kwargs)


def test_bad_breaker_and_sequence_arguments():
    with pytest.raises(InvalidArgument):
        linear_breaking("full-rank")
    with pytest.raises(InvalidArgument):
        sequence_sets(min_len=1)
    with pytest.raises(InvalidArgument):
        sequence_sets(embedding="sum")
