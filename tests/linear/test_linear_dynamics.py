"""The dynamics core of the second paper (Thrampoulidis 2024): the compiled GD/NGD/Adam loop
against plain numpy, the smoothness constant of App. E.1, ``CE − ℋ`` without cancellation against
100-digit arithmetic, the records, and the regularization path against cvxpy."""

from __future__ import annotations


import mpmath
import numpy as np
import pytest

from ntpcheck.linear.data import NTPData
from ntpcheck.linear.dynamics import References, checkpoints, gd_step, initial, one_minus_cos, step_reference, train
from ntpcheck.linear.excess import excess
from ntpcheck.linear.loss import ce, ce_grad, entropy, smoothness_bound
from ntpcheck.linear.regpath import hessian, reg_path, solve_ball
from ntpcheck.properties.thrampoulidis2024.regpath import cvx_ball



def toy() -> NTPData:
    """The shape of the paper's Fig. 1: d = 2, m = 3, V = 5, supports {1,2,5}, {1,4,5}, {2,3,4}."""
    ang = np.array([0.3, 2.2, 4.1])
    return NTPData(np.vstack([np.cos(ang), np.sin(ang)]), np.array([[3, 2, 0, 0, 4], [2, 0, 0, 3, 1], [0, 4, 1, 2, 0]]))


def gaussian(seed: int, d: int = 6, m: int = 4, V: int = 5) -> NTPData:
    rng = np.random.default_rng(seed)
    c = np.zeros((m, V), dtype=int)
    for j in range(m):
        S = rng.choice(V, rng.integers(1, V), replace=False)
        c[j, S] = rng.integers(1, 6, len(S))
    return NTPData(rng.normal(size=(d, m)) / np.sqrt(d), c)


@pytest.mark.parametrize("method", ["gd", "ngd", "adam"])
@pytest.mark.parametrize("init", ["zero", "lecun"])
def test_compiled_loop_matches_numpy(method, init):
    D = gaussian(1)
    eta = gd_step(D) if method == "gd" else 0.05
    tr = train(D, method, 60, eta, init=init, seed=3, steps=np.arange(61))
    W = initial(D, init, 3)
    state: dict = {}
    for k in range(61):
        i = int(np.searchsorted(tr.k, k))
        assert tr.k[i] == k
        np.testing.assert_allclose(tr.W[i], W, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(W).max()))
        assert tr.loss[i] == pytest.approx(ce(D, W), rel=1e-12)
        assert tr.gnorm[i] == pytest.approx(np.linalg.norm(ce_grad(D, W)), rel=1e-10)
        W = step_reference(D, method, W, state, eta)


def test_smoothness_bounds_the_hessian():
    """``λ_max(∇²CE(W)) ≤ L = ½λ_max(Σπ̂h̄h̄ᵀ)`` at random W of every scale, and the bound is the
    right order (the largest Hessian eigenvalue found is within a factor 4 of it)."""
    rng = np.random.default_rng(0)
    for seed in range(5):
        D = gaussian(seed)
        L = smoothness_bound(D)
        seen = 0.0
        for scale in (0.0, 0.3, 1.0, 3.0, 10.0):
            lam = np.linalg.eigvalsh(hessian(D, scale * rng.normal(size=(D.V, D.d))))[-1]
            assert lam <= L * (1 + 1e-12)
            seen = max(seen, lam)
        assert seen >= L / 4


def test_gd_at_the_papers_step_never_rises():
    """η = 1/(2L): the descent lemma makes CE non-increasing at every one of 10⁴ steps; a rise is
    allowed only at the rounding of CE (a few ulps of CE ≤ log V)."""
    for seed in range(3):
        D = gaussian(seed)
        tr = train(D, "gd", 10_000, init="lecun", seed=seed)
        assert tr.status == "done"
        assert tr.max_rise <= 8 * np.finfo(float).eps * np.log(D.V)
        assert np.all(np.diff(tr.norm[tr.k >= 100]) > 0)  # the norm grows (Lemma 2)


def test_excess_against_100_digits():
    """``CE − ℋ`` from :func:`excess` against mpmath at 100 digits, from moderate to saturated W
    (where CE − ℋ is far below the rounding of CE), to 1e-12 relative."""
    mpmath.mp.dps = 100
    D = toy()
    refs = References.of(D)
    rng = np.random.default_rng(5)
    for R in (0.0, 1.0, 10.0, 40.0, 200.0):
        W = refs.W_star + 1e-3 * refs.project(rng.normal(size=(D.V, D.d))) + R * refs.W_mm
        Z = W @ D.H
        exact = mpmath.mpf(0)
        for j in range(D.m):
            col = [mpmath.mpf(float(x)) for x in Z[:, j]]
            lse = mpmath.log(sum(mpmath.exp(x) for x in col))
            for z in D.supports[j]:
                p = mpmath.mpf(int(D.counts[j, z])) / int(D.counts[j].sum())
                pi = mpmath.mpf(int(D.counts[j].sum())) / D.n
                exact += pi * p * (mpmath.log(p) - (col[z] - lse))
        assert excess(D, W).total == pytest.approx(float(exact), rel=1e-12)
    assert excess(D, np.zeros((D.V, D.d))).total == pytest.approx(ce(D, np.zeros((D.V, D.d))) - entropy(D), rel=1e-14)


def test_records_are_what_they_say():
    D = toy()
    refs = References.of(D)
    tr = train(D, "gd", 300, init="lecun", seed=1, refs=refs)
    i = len(tr.k) - 1
    W = tr.W[i]
    PF = refs.project(W)
    cos = np.sum(W * refs.W_mm) / np.linalg.norm(W) / np.linalg.norm(refs.W_mm)
    U = W - refs.W_star
    cosc = np.sum(U * refs.W_mm) / np.linalg.norm(U) / np.linalg.norm(refs.W_mm)
    assert tr.one_minus_corr[i] == pytest.approx(1 - cos, rel=1e-9)
    assert tr.one_minus_corr_corrected[i] == pytest.approx(1 - cosc, rel=1e-9)
    assert tr.dist_F[i] == pytest.approx(np.linalg.norm(PF - refs.W_star), rel=1e-12)
    assert tr.norm_perp[i] == pytest.approx(np.linalg.norm(W - PF), rel=1e-12)
    assert tr.norm[i] == pytest.approx(np.linalg.norm(W), rel=1e-14)
    assert list(tr.k) == list(checkpoints(300))


def test_checkpoints_are_geometric():
    k = checkpoints(100_000, per_decade=10)
    assert k[0] == 0 and k[-1] == 100_000
    ratios = k[k >= 100][1:] / k[k >= 100][:-1]
    assert np.allclose(ratios, 10 ** 0.1, rtol=0.02)


def test_one_minus_cos_without_cancellation():
    a = np.array([[1.0, 1e-10], [0.0, 0.0]])
    b = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert float(one_minus_cos(a, b)) == pytest.approx(5e-21, rel=1e-9)


@pytest.mark.parametrize("B", [0.5, 3.0, 8.0])
def test_regularization_path_against_cvxpy(B):
    """Newton's Ŵ_B equals cvxpy's to the conic solver's accuracy, and its own certificates are
    far tighter: ‖W − Ŵ_B′‖ ≤ dist with |B′ − B| ≤ dist, CE(W) − CE(Ŵ_B) ≤ gap."""
    D = toy()
    p = solve_ball(D, B)
    Wc = cvx_ball(D, B)
    assert np.linalg.norm(p.W) == pytest.approx(B, rel=1e-12)
    assert p.dist < 1e-9 and p.gap < 1e-12
    np.testing.assert_allclose(p.W, Wc, atol=1e-5 * B)
    assert ce(D, p.W) <= ce(D, Wc) + 1e-9  # cvxpy's point is no better
    # the path has no component along W ↦ W + 1uᵀ (rows sum to zero), as the KKT system forces
    assert np.abs(p.W.sum(axis=0)).max() < 1e-10 * B


def test_regularization_path_walks_upwards_until_uncertified():
    D = toy()
    path = reg_path(D, np.geomspace(1, 400, 25))
    assert len(path.points) >= 15
    assert path.stopped_at is not None  # e^{-B/‖W^mm‖} meets the rounding of ∇CE before B = 400
    assert np.all(np.diff(path.mu) < 0)
    assert np.all(path.dist <= 1e-6 * path.B)
    refs = References.of(D)
    omc = one_minus_cos(path.W, refs.W_mm)
    assert omc[-1] < omc[0] / 50  # the direction approaches W̄^mm (Thm. 1's trend, checked properly in the claims)


def test_loop_codes_match_the_compiled_module():
    from ntpcheck.linear import _loops, dynamics

    assert dynamics._CODE == {"gd": _loops.GD, "ngd": _loops.NGD, "adam": _loops.ADAM}
    assert dynamics._STATUS == {_loops.DONE: "done", _loops.ZERO_GRADIENT: "zero gradient", _loops.NOT_FINITE: "not finite"}
