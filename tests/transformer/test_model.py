"""Gradients (Eq. 5, Eq. 6) against finite differences, and saturation accuracy."""

import numpy as np
import pytest

from hypothesis import given, settings, strategies as st

import ntpcheck
from ntpcheck import analyse, loads
from ntpcheck.transformer import model, stage2_step
from ntpcheck.transformer.training import collocation_arrays
from ntpcheck.properties.huang2024.gradients import central_difference, eq6_literal

DATASETS = {
    "example1": ntpcheck.load("example1"),
    # repeated tokens, unequal weights, a token without collocation (z)
    "mixed": loads("a -> b\nb -> c\nc -> a\na a b c -> b @ 3\nc b z -> a\nz c -> a @ 0.5\n"),
}


def embeddings(kind, n, rng):
    if kind == "canonical":
        return None
    if kind == "orthonormal":
        return ntpcheck.transformer.embeddings.random_orthonormal(n, n + 2, rng)
    return rng.standard_normal((n + 1, n))  # correlated, unnormalised: gradients must not care


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("kind", ["canonical", "orthonormal", "random"])
def test_grad_kq_and_grad_ov_match_finite_differences(name, kind):
    rng = np.random.default_rng(1)
    ds = DATASETS[name]
    arr = ds.arrays
    E = embeddings(kind, ds.n_vocab, rng)
    d = ds.n_vocab if E is None else E.shape[0]
    Wov = rng.standard_normal((ds.n_vocab, d))
    Wkq = rng.standard_normal((d, d))
    G, lo = model.grad_kq(Wov, Wkq, E, arr)
    assert lo == pytest.approx(model.loss(Wov, Wkq, E, arr), rel=1e-14)
    num = central_difference(lambda W: model.loss(Wov, W, E, arr), Wkq)
    np.testing.assert_allclose(G, num, atol=1e-7 * max(1, np.abs(num).max()))
    Gov = model.grad_ov(Wov, Wkq, E, arr)
    num = central_difference(lambda W: model.loss(W, Wkq, E, arr), Wov)
    np.testing.assert_allclose(Gov, num, atol=1e-7 * max(1, np.abs(num).max()))


@pytest.mark.parametrize("kind", ["canonical", "orthonormal", "random"])
def test_stage1_grad_matches_finite_differences(kind):
    rng = np.random.default_rng(2)
    ds = DATASETS["mixed"]
    coll = collocation_arrays(analyse(ds))
    E = embeddings(kind, ds.n_vocab, rng)
    d = ds.n_vocab if E is None else E.shape[0]
    Wov = rng.standard_normal((ds.n_vocab, d))
    G, lo = model.stage1_grad(Wov, E, coll)
    assert lo == pytest.approx(model.stage1_loss(Wov, E, coll), rel=1e-14)
    num = central_difference(lambda W: model.stage1_loss(W, E, coll), Wov)
    np.testing.assert_allclose(G, num, atol=1e-7 * max(1, np.abs(num).max()))


def test_eq6_literal_formula_agrees():
    """The vectorised gradient equals Eq. (6) written out sample by sample."""
    rng = np.random.default_rng(3)
    ds = DATASETS["mixed"]
    E = rng.standard_normal((ds.n_vocab + 1, ds.n_vocab))
    d = E.shape[0]
    Wov, Wkq = rng.standard_normal((ds.n_vocab, d)), rng.standard_normal((d, d))
    G = eq6_literal(Wov, Wkq, E, ds)
    np.testing.assert_allclose(model.grad_kq(Wov, Wkq, E, ds.arrays)[0], G, atol=1e-12)


def test_cross_entropy_is_accurate_in_saturation():
    z = np.array([[700.0, 0.0, 0.0], [0.0, 30.0, -5.0]])
    loss, p = model.cross_entropy_parts(z, np.array([0, 0]))
    assert loss[0] == pytest.approx(2 * np.exp(-700.0), rel=1e-12)  # naive logsumexp - z_y gives 0
    assert p[0, 1] == pytest.approx(np.exp(-700.0), rel=1e-12) and p[0, 0] == 0
    assert loss[1] == pytest.approx(30 + np.log1p(np.exp(-30) + np.exp(-35)), rel=1e-14)


def _grad_kq_decimal(Wov, Wkq, ds, digits=200):
    """Eq. (6) written out literally in ``digits``-digit decimal arithmetic (canonical embeddings)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = digits
        V = ds.n_vocab
        Wo = [[Decimal(float(x)) for x in row] for row in Wov]
        Wk = [[Decimal(float(x)) for x in row] for row in Wkq]
        G = [[Decimal(0)] * V for _ in range(V)]
        total = sum(Decimal(s.weight) for s in ds.samples)
        for s in ds.samples:
            pi = Decimal(s.weight) / total
            toks = [ds.index[t] for t in s.sentence]
            q, y = toks[-1], ds.index[s.next]
            sc = [Wk[i][q] for i in toks]
            e = [x.exp() for x in sc]
            phi = [x / sum(e) for x in e]
            z = [sum(phi[l] * Wo[v][toks[l]] for l in range(len(toks))) for v in range(V)]
            ez = [x.exp() for x in z]
            T = [x / sum(ez) for x in ez]
            g = [T[v] - (1 if v == y else 0) for v in range(V)]
            h = [sum(Wo[v][i] * g[v] for v in range(V)) for i in toks]  # X^T W_ov^T (T - e_y)
            hbar = sum(p * x for p, x in zip(phi, h))
            for l, i in enumerate(toks):
                G[i][q] += pi * phi[l] * (h[l] - hbar)
        return G


def test_gradient_is_faithful_when_saturated():
    """In deep saturation (attention on non-optimal tokens ~1e-30) every entry of
    the float64 gradient matches Eq. (6) evaluated with 200 significant digits (the literal formula cancels ~1e-60 terms, so it needs them)."""
    ds = ntpcheck.load("example1")
    st = analyse(ds)
    from ntpcheck.transformer.maxmargin import build_eq3, eq2_closed_form, solve

    Wov = 60 * eq2_closed_form(st)
    Wkq = 140 * solve(build_eq3(st)).W
    G, lo = model.grad_kq(Wov, Wkq, None, ds.arrays)
    assert 0 < lo < 1e-20
    ref = _grad_kq_decimal(Wov, Wkq, ds)
    for i in range(4):
        for j in range(4):
            r = float(ref[i][j])
            if r == 0:
                assert G[i, j] == 0
            else:
                # float64 with no catastrophic cancellation: a few ulps per operation
                assert G[i, j] == pytest.approx(r, rel=1e-9), (i, j, G[i, j], r)
    assert np.abs(G).max() < 1e-30  # truly saturated: a naive softmax - one_hot gives exact zeros here


def test_safe_norm_does_not_underflow():
    G = np.full((3, 3), 1e-200)
    assert model.safe_norm(G) == pytest.approx(3e-200, rel=1e-12)
    assert np.linalg.norm(G) == 0.0  # what a naive norm would do


def test_predict_proba_sums_to_one():
    ds = ntpcheck.load("example1")
    rng = np.random.default_rng(0)
    p = model.predict_proba(rng.standard_normal((4, 4)), rng.standard_normal((4, 4)), None, ds.encode(["S", "P"]), 4)
    assert p.sum() == pytest.approx(1.0) and (p > 0).all()


def test_scaled_stage1_gradient_is_parallel_and_survives_underflow():
    ds = DATASETS["mixed"]
    coll = collocation_arrays(analyse(ds))
    W = np.random.default_rng(5).standard_normal((ds.n_vocab, ds.n_vocab))
    G, _ = model.stage1_grad(W, None, coll)
    Gs, M, _ = model.stage1_grad_scaled(W, None, coll)
    np.testing.assert_allclose(Gs * np.exp(M), G, rtol=1e-12, atol=1e-15)
    # Far beyond float range: the plain gradient is exactly 0, the scaled one keeps its direction.
    from ntpcheck.transformer.maxmargin import eq2_closed_form

    Ws = eq2_closed_form(analyse(ds))
    assert not model.stage1_grad(5000 * Ws, None, coll)[0].any()
    small = model.stage1_grad(20 * Ws, None, coll)[0]
    big = model.stage1_grad_scaled(5000 * Ws, None, coll)[0]
    np.testing.assert_allclose(big / np.linalg.norm(big), small / np.linalg.norm(small), atol=1e-12)


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("kind", ["canonical", "random"])
def test_hoisted_stage2_gradient_equals_reference(name, kind):
    rng = np.random.default_rng(7)
    ds = DATASETS[name]
    E = embeddings(kind, ds.n_vocab, rng)
    d = ds.n_vocab if E is None else E.shape[0]
    Wov, Wkq = rng.standard_normal((ds.n_vocab, d)), rng.standard_normal((d, d))
    G, lo, _ = stage2_step.stage2_grad_fn(Wov, E, ds.arrays)(Wkq)
    Gr, lor = model.grad_kq(Wov, Wkq, E, ds.arrays)
    np.testing.assert_allclose(G, Gr, rtol=1e-12, atol=1e-15)
    assert lo == pytest.approx(lor, rel=1e-14)


@pytest.mark.parametrize("V, N, seed, scale", [(250, 300, 1, 0.1), (40, 131, 2, 3.0)])
def test_dense_stage2_gradient_is_the_serial_loops_for_any_thread_count(V, N, seed, scale):
    """The parallel dense path (samples in chunks of DENSE_CHUNK, the last one partial here) gives
    the reference numbers, and bit for bit those of the serial compiled loop, with 1 or 2 threads."""
    import numba

    from ntpcheck.transformer.synthetic import scale_arrays

    arr = scale_arrays(V, N, 6, seed=seed)
    rng = np.random.default_rng(7 + seed)
    Wov, Wkq = rng.standard_normal((V, V)), scale * rng.standard_normal((V, V))
    Gr, lor = model.grad_kq(Wov, Wkq, None, arr)
    serial = stage2_step.gradients_at(Wov, Wkq[None], np.eye(V), arr)[0]
    step = stage2_step.stage2_grad_fn(Wov, None, arr)
    before = numba.get_num_threads()
    try:
        for threads in sorted({1, before}):
            numba.set_num_threads(threads)
            G, lo, _ = step(Wkq)
            np.testing.assert_array_equal(G, serial)
            np.testing.assert_allclose(G, Gr, rtol=1e-10, atol=1e-15)
            assert lo == pytest.approx(lor, rel=1e-13)
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("scale", [0.3, 30.0])
def test_structured_stage2_gradient_is_the_same_for_any_thread_count(scale):
    """The parallel structured path (samples in chunks of STRUCTURED_CHUNK, the last one partial
    here) gives the reference numbers, and bit for bit the same with 1 or 2 threads."""
    import numba

    from ntpcheck.transformer.kernels.gradients import STRUCTURED_CHUNK
    from ntpcheck.transformer.synthetic import scale_arrays

    V, N = 40, STRUCTURED_CHUNK + 57
    arr = scale_arrays(V, N, 6, seed=3)
    Wov = 30.0 * (np.eye(V)[:, (np.arange(V) - 1) % V] - 1.0 / V)  # Lemma 3's shape: the O(N L) path
    assert stage2_step.lemma3_structure(Wov) is not None and V > 4 * arr.l_max
    Wkq = scale * np.random.default_rng(11).standard_normal((V, V))
    Gr, lor = model.grad_kq(Wov, Wkq, None, arr)
    step = stage2_step.stage2_grad_fn(Wov, None, arr)
    before = numba.get_num_threads()
    try:
        out = []
        for threads in sorted({1, before}):
            numba.set_num_threads(threads)
            G, lo, _ = step(Wkq)
            np.testing.assert_allclose(G, Gr, rtol=1e-10, atol=1e-15)
            assert lo == pytest.approx(lor, rel=1e-13)
            out.append((G, lo))
        for G, lo in out[1:]:
            np.testing.assert_array_equal(G, out[0][0])
            assert lo == out[0][1]
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_structured_stage2_gradient_equals_reference_after_stage1(name):
    """After stage 1 (Lemma 3 shape, exactly), the O(N L) path gives the reference gradient."""
    from ntpcheck.transformer.training import run_stage1

    ds = DATASETS[name]
    # pad the vocabulary so that |V| > 4 L_max and the structured path is taken
    ds = ntpcheck.Dataset(ds.vocab + tuple(f"pad{i}" for i in range(4 * ds.l_max)), ds.samples)
    st = analyse(ds)
    Wov = run_stage1(st, np.eye(ds.n_vocab), 300, 0.2).W
    assert stage2_step.lemma3_structure(Wov) is not None
    rng = np.random.default_rng(9)
    for scale in (0.0, 0.3, 30.0):  # uniform, moderate and saturated attention
        Wkq = scale * rng.standard_normal((ds.n_vocab, ds.n_vocab))
        G, lo, _ = stage2_step.stage2_grad_fn(Wov, None, ds.arrays)(Wkq)
        Gr, lor = model.grad_kq(Wov, Wkq, None, ds.arrays)
        np.testing.assert_allclose(G, Gr, rtol=1e-9, atol=1e-14 * max(1.0, np.abs(Gr).max()))
        assert lo == pytest.approx(lor, rel=1e-12, abs=1e-300)


def test_lemma3_structure_rejects_other_shapes():
    assert stage2_step.lemma3_structure(np.random.default_rng(0).standard_normal((5, 5))) is None


@st.composite
def _attention_and_values(draw):
    """Attention rows (some saturated, as after training) and per-position values drawn
    from a few distinct numbers, so equal tokens (equal values) are common."""
    n, L = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    logits = np.array(draw(st.lists(st.lists(st.floats(-800, 50), min_size=L, max_size=L), min_size=n, max_size=n)))
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    phi = e / e.sum(axis=1, keepdims=True)
    palette = draw(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=3))
    h = np.array(draw(st.lists(st.lists(st.sampled_from(palette), min_size=L, max_size=L), min_size=n, max_size=n)))
    return phi, h


@given(_attention_and_values())
@settings(max_examples=300, deadline=None)
def test_centred_softmax_backward_equals_pairwise(case):
    """The O(N L) centred form agrees with the pairwise form entrywise, relative to the scale
    ``phi_l max|h_l - h_l'|`` of each entry (so tiny saturated entries are compared at their
    own size), and is exactly 0 wherever the pairwise form is (all values of a sample equal)."""
    phi, h = case
    r = model.softmax_backward_centred(phi, h)
    ref = model.softmax_backward_pairwise(phi, h)
    spread = h.max(axis=1, keepdims=True) - h.min(axis=1, keepdims=True)
    # Each entry is a sum of <= L terms of size <= phi_l * spread: 1e-13 of that is ~100 roundings
    # (plus a few subnormal steps, the resolution of products that underflow).
    assert np.all(np.abs(r - ref) <= 1e-13 * phi * spread + 64 * np.finfo(float).smallest_subnormal)
    assert np.all(r[spread[:, 0] == 0] == 0.0)
