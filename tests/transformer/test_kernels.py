"""The compiled stage-2 loop (ntpcheck.transformer.kernels) computes what the numpy loop computes.

Both run the same arithmetic in a different summation order, so they agree to
rounding, not bit for bit.  Normalised GD is not expanding in the direction
(each step moves by eta whatever the gradient's size), so over a few hundred
steps the two stay within a few hundred roundings of each other: 1e-12
relative to the largest entry is the tolerance for parameters and curves.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ntpcheck
from ntpcheck import analyse, train, TrainingConfig
from ntpcheck.transformer.maxmargin import eq2_closed_form
from ntpcheck.strategies import realizable_datasets, violating
from ntpcheck.strategies.embeddings import orthonormal_matrices
from ntpcheck.transformer.training import COMPILED_MAX_WORK, run_stage1, run_stage2

RTOL = 1e-12


def _both(st_, E, W_ov, T2, eta, **kw):
    a = run_stage2(st_, E, W_ov, T2, eta, compiled=True, **kw)
    b = run_stage2(st_, E, W_ov, T2, eta, compiled=False, **kw)
    return a, b


def _assert_same(a, b, E=None):
    """Equal to :data:`RTOL` relative to the largest entry; losses and gradient scales relative
    entry by entry (losses of 1e-300 included), 100x looser.  With non-orthonormal ``E`` each step
    passes rounding through ``E`` and ``E^T``, so the tolerance grows by ``cond(E)^2``."""
    tol = RTOL * (1.0 if E is None else np.linalg.cond(E) ** 2)
    assert a.stopped == b.stopped
    assert a.steps.tolist() == b.steps.tolist()
    scale = max(np.max(np.abs(b.weights)), 1e-300)
    np.testing.assert_allclose(a.weights, b.weights, rtol=0, atol=tol * scale)
    np.testing.assert_allclose(a.W, b.W, rtol=0, atol=tol * scale)
    for name in ("loss", "grad_scale"):
        x, y = getattr(a, name), getattr(b, name)
        np.testing.assert_allclose(x, y, rtol=tol * 100, atol=0, err_msg=name)
    if a.attention is not None:
        np.testing.assert_allclose(a.attention, b.attention, rtol=0, atol=tol * 100)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), kind=st.sampled_from(["canonical", "orthonormal", "general"]))
def test_compiled_stage2_equals_numpy(data, kind):
    ds = data.draw(realizable_datasets(max_vocab=6, max_len=5, max_samples=10), label="dataset")
    V = ds.n_vocab
    E = _embeddings(data, kind, V)
    st_ = analyse(ds)
    scale = data.draw(st.sampled_from([0.5, 5.0, 50.0]), label="W_ov scale")
    W_ov = scale * eq2_closed_form(st_, np.eye(V)) @ np.linalg.pinv(E) if kind == "general" else scale * eq2_closed_form(st_, E)
    a, b = _both(st_, E, W_ov, 200, 0.1, keep_weights=True)
    _assert_same(a, b, E)


def _embeddings(data, kind, V):
    if kind == "orthonormal":
        return data.draw(orthonormal_matrices(V), label="E")
    if kind == "general":
        return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed")).standard_normal((V + 1, V))
    return np.eye(V)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), kind=st.sampled_from(["canonical", "orthonormal", "general"]),
       several_next=st.booleans())
def test_compiled_stage1_equals_numpy(data, kind, several_next):
    """Stage 1 (Eq. 5, log-scaled) on realizable data and on collocations with several next
    tokens (Assumption 1(i) broken), for 400 steps: far into saturation at eta_0 = 0.5."""
    drawn = violating("1i", max_vocab=6, max_len=5, max_samples=10) if several_next else \
        realizable_datasets(max_vocab=6, max_len=5, max_samples=10)
    drawn = data.draw(drawn, label="dataset")
    ds = drawn.dataset if several_next else drawn  # violating() draws instances
    st_ = analyse(ds)
    E = _embeddings(data, kind, ds.n_vocab)
    a = run_stage1(st_, E, 400, 0.5, keep_weights=True, compiled=True)
    b = run_stage1(st_, E, 400, 0.5, keep_weights=True, compiled=False)
    _assert_same(a, b, E)


def test_compiled_stage2_equals_numpy_in_saturation():
    """Example 1 with the paper's steps for 3000 steps: losses down to ~1e-10 and attention
    weights of non-optimal tokens far below rounding, where cancellation would show."""
    ds = ntpcheck.load("example1")
    traj = train(ds, TrainingConfig(T=900, T2=0))
    a, b = _both(analyse(ds), np.eye(4), traj.W_ov, 3000, traj.eta, stride=7, keep_weights=True)
    _assert_same(a, b)
    assert b.loss[-1] < 1e-3 * b.loss[1]


@pytest.mark.parametrize("W_ov_scale, W_kq0, why", [(0.0, 0.0, "exactly zero"), (1.0, np.inf, "not finite")])
def test_compiled_stage2_stops_as_numpy(W_ov_scale, W_kq0, why):
    st_ = analyse(ntpcheck.load("example1"))
    W_ov = W_ov_scale * eq2_closed_form(st_, np.eye(4))
    with np.errstate(over="ignore", invalid="ignore"):
        a, b = _both(st_, np.eye(4), W_ov, 50, 0.1, keep_weights=True, W_kq0=np.full((4, 4), W_kq0))
    assert a.stopped == b.stopped and why in a.stopped
    assert a.steps.tolist() == b.steps.tolist()


def test_compiled_buffer_refills(monkeypatch):
    """More recorded steps than one buffer holds: the blocks join without a gap or a repeat."""
    from ntpcheck.transformer import training

    monkeypatch.setattr(training, "_COMPILED_BUFFER_BYTES", 8 * 3 * (16 + 27 + 3))  # 3 slots
    ds = ntpcheck.load("example1")
    st_ = analyse(ds)
    W_ov = 5 * eq2_closed_form(st_, np.eye(4))
    a, b = _both(st_, np.eye(4), W_ov, 20, 0.1, stride=3, keep_weights=True)
    assert a.steps.tolist() == list(range(0, 20, 3)) + [20]
    _assert_same(a, b)


def test_search_sizes_run_compiled():
    """Every size a verify profile draws is below the compiled loop's threshold (N L_max |V|)."""
    from ntpcheck.properties.huang2024.setups import SIZES

    for size in SIZES.values():
        assert size["max_samples"] * (size["max_len"] + 1) * size["max_vocab"] <= COMPILED_MAX_WORK


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 25), st.lists(st.tuples(st.integers(0, 24), st.integers(0, 24), st.integers(0, 9)), max_size=70))
def test_max_flow_is_scipys_and_cuts_minimally(n, edges):
    """The compiled Dinic flow is feasible, as large as scipy's ``maximum_flow``, and ``reach``
    is the residual graph's reachable set from the source (the minimal min-cut source side)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    from ntpcheck.transformer.kernels.maxflow import max_flow

    e = np.array([(a % n, b % n, c) for a, b, c in edges if a % n != b % n], dtype=np.int64).reshape(-1, 3)
    tail, head, cap = e[:, 0], e[:, 1], e[:, 2]
    s, t = 0, n - 1
    flow, reach = max_flow(n, tail, head, cap, s, t)
    assert ((0 <= flow) & (flow <= cap)).all()
    net = np.zeros(n, dtype=np.int64)
    np.add.at(net, tail, -flow)
    np.add.at(net, head, flow)
    assert not net[1:-1].any()
    C = sp.csr_matrix((cap.astype(np.int32), (tail, head)), shape=(n, n))
    assert net[t] == maximum_flow(C, s, t).flow_value == cap[reach[tail] & ~reach[head]].sum()
    res = sp.csr_matrix((np.concatenate([cap - flow, flow]), (np.concatenate([tail, head]), np.concatenate([head, tail]))), shape=(n, n))
    res.data = (res.data > 0).astype(np.int8)
    res.eliminate_zeros()
    expect = np.zeros(n, dtype=bool)
    expect[breadth_first_order(res, s, directed=True, return_predecessors=False)] = True
    assert np.array_equal(reach, expect)
