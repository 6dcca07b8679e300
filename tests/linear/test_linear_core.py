"""The second paper's core beyond ℱ and the SVM: CE − ℋ without cancellation, CE_ℱ, Eq. (24),
gradients against finite differences, App. C's reduction, and the text format."""

from __future__ import annotations

import numpy as np
import pytest

from ntpcheck.common.errors import DatasetFormatError
from ntpcheck.linear import LinearInstance, NTPData, ce, ce_f, ce_grad, dumps, entropy, excess, loads
from ntpcheck.linear.autoregressive import appc_ce, entropy_by_length, prefix_ce, reduce
from ntpcheck.linear.excess import directional_derivative, eq24


def _data(seed: int) -> NTPData:
    rng = np.random.default_rng(seed)
    V, m = int(rng.integers(2, 7)), int(rng.integers(1, 5))
    C = np.zeros((m, V), dtype=int)
    for j in range(m):
        S = rng.choice(V, size=rng.integers(1, V + 1), replace=False)
        C[j, S] = rng.integers(1, 6, size=len(S))
    return NTPData(rng.normal(size=(int(rng.integers(1, 5)), m)), C)


@pytest.mark.parametrize("seed", range(20))
def test_excess_ce_f_and_gradient(seed):
    D = _data(seed)
    rng = np.random.default_rng(100 + seed)
    W, U = rng.normal(size=(D.V, D.d)), rng.normal(size=(D.V, D.d))
    gap = excess(D, W)
    assert np.isclose(gap.total, ce(D, W) - entropy(D), rtol=1e-9, atol=1e-12)
    assert np.isclose(ce(D, W) - gap.out_of_support, ce_f(D, W), rtol=1e-9, atol=1e-12)  # CE - CE_F = sum pi out_j
    assert gap.in_support >= 0 and gap.out_of_support >= 0
    h = 1e-6  # central differences: error ~ h^2 * third derivative
    fd = (ce(D, W + h * U) - ce(D, W - h * U)) / (2 * h)
    assert np.isclose(-fd, directional_derivative(D, W, U), rtol=1e-6, atol=1e-8)
    assert np.isclose(eq24(D, W, U), directional_derivative(D, W, U), rtol=1e-10, atol=1e-13)
    assert np.isclose(np.sum(ce_grad(D, W) * U), fd, rtol=1e-6, atol=1e-8)


def test_excess_keeps_its_digits_far_out():
    """At margins of 60 the gap is e^-60-ish; the literal CE - H is rounding."""
    D = NTPData(np.eye(2), np.array([[1, 2, 0], [0, 0, 1]]))
    W = 30 * np.array([[1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    W[0, 0] += np.log(0.5)  # in-support log-odds log(1/2): W meets (4)
    got = excess(D, W)
    # context 0: out = log1p(e^{-60} / (e^{log 1/2} + 1)) = log1p(2/3 e^{-60}); context 1: log1p(2 e^{-60})
    want = 0.75 * np.log1p(2 / 3 * np.exp(-60)) + 0.25 * np.log1p(2 * np.exp(-60))
    assert np.isclose(got.total, want, rtol=1e-12)
    assert got.in_support < 1e-28


def test_appc_reduction_is_an_identity():
    seqs = [(0, 1, 2, 1), (0, 1, 1, 2), (2, 1, 0, 0), (0, 1, 2, 1)]
    W = np.random.default_rng(0).normal(size=(3, 4))
    for emb in ("context", "last", "mean"):
        D = reduce(seqs, 3, emb, 4, seed=1)
        assert np.isclose(ce(D, W), prefix_ce(seqs, W, emb, 4, 1), rtol=1e-12)
        assert np.isclose(appc_ce(seqs, W, emb, 4, 1), 3 * ce(D, W), rtol=1e-12)  # one loss per length, T - 1 = 3
    assert reduce(seqs, 3, "last", 4).m == 3  # a bigram model: one context per last token
    assert entropy_by_length([(0, 0, 0), (0, 0, 1)]) == {1: 0.0, 2: pytest.approx(np.log(2))}


def test_text_format_round_trip_and_header():
    D = NTPData(np.random.default_rng(0).normal(size=(3, 2)), np.array([[2, 1, 0], [0, 0, 3]]))
    inst = LinearInstance(D, ("a", "b", "c"), (("probe", 3), ("scale", 0.5)))
    text = dumps(inst, claim="Eq. 7", comment="counterexample: x")
    assert text.startswith("# claim: Eq. 7\n# counterexample: x\n# parameters: probe = 3, scale = 0.5\n")
    assert loads(text).key == inst.key and loads(text).vocab == inst.vocab
    seq = LinearInstance.from_sequences([(0, 1, 2), (0, 0, 1)], 3, "mean", 2, 5)
    assert loads(dumps(seq)).key == seq.key
    assert eval(repr(seq), {"ntpcheck": __import__("ntpcheck.linear")}).key == seq.key


@pytest.mark.parametrize("text, says", [
    ("h = 1 : A x0\n", "line 1: count 0 of A"),
    ("h = 1 : A x0.5\n", "not a positive integer"),
    ("h = 1 : A, A x2\n", "listed twice"),
    ("h = inf : A\n", "not finite"),
    ("h = 1 : A\nh = 1, 2 : B\n", "line 2: this embedding has 2 numbers"),
    ("A B\n", "need an 'embedding:"),
    ("vocab: A\nh = 1 : B\n", "line 2: token B is not in 'vocab:'"),
    ("# parameters: foo = 1\nh = 1 : A\n", "line 1: unknown parameter 'foo'"),
    ("", "no context"),
])
def test_bad_input_is_one_line_naming_it(text, says):
    with pytest.raises(DatasetFormatError, match=None) as e:
        loads(text)
    assert says in str(e.value) and "\n" not in str(e.value)
