"""ℱ, W⋆, NTP_ℋ-compatibility, NTP-separability and the NTP-SVM (Thrampoulidis 2024, §3–4):
certificates checked on random data, and the exact NTP-SVM against cvxpy."""

from __future__ import annotations

import numpy as np
import pytest

from ntpcheck.common.errors import InfeasibleProblemError
from ntpcheck.linear import NTPData
from ntpcheck.linear.subspace import anchor_rows, compatibility, pair_rows, subspace, w_star
from ntpcheck.linear.svm import margin_rows, margins, separability, w_mm, w_mm_exact


def _counts(rng, m: int, V: int, full: bool = False) -> np.ndarray:
    C = np.zeros((m, V), dtype=int)
    for j in range(m):
        S = rng.choice(V, size=rng.integers(1, V + 1 if full else V), replace=False)
        C[j, S] = rng.integers(1, 6, size=len(S))
    return C


def _random(seed: int, *, orthogonal: bool = False) -> NTPData:
    rng = np.random.default_rng(seed)
    V, m = int(rng.integers(2, 8)), int(rng.integers(1, 6))
    d = m + int(rng.integers(0, 4)) if orthogonal else int(rng.integers(1, m + 4))
    if orthogonal:
        Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        H = Q[:, :m] * rng.uniform(0.5, 2.0, size=m)
    else:
        H = rng.normal(size=(d, m))
    return NTPData(H, _counts(rng, m, V))


@pytest.mark.parametrize("seed", range(40))
def test_w_star_is_in_F_solves_eq4_and_is_unique_there(seed):
    D = _random(seed)
    F = subspace(D)
    c = compatibility(D)
    A, b = anchor_rows(D)
    if not c.compatible:
        assert c.dual is not None and abs(b @ c.dual - 1) < 1e-9 and np.abs(A.T @ c.dual).max() < 1e-8
        with pytest.raises(InfeasibleProblemError):
            w_star(D)
        return
    W = c.w_star
    assert np.allclose(F.project(W), W, atol=1e-10)                    # W* in F
    assert np.abs(A @ W.ravel() - b).max(initial=0.0) < 1e-9                        # solves (4)
    U = F.perp(np.random.default_rng(seed).normal(size=W.shape))        # + any element of F-perp
    assert np.abs(A @ (W + U).ravel() - b).max(initial=0.0) < 1e-9
    assert np.allclose(F.project(W + U), W, atol=1e-9)                   # projects back to W*
    # every pair z != z' in S_j (not only the anchors) spans no more than the anchor rows
    pairs = [(j, z, v) for j, s in enumerate(D.supports) for z in s for v in s if z != v]
    if pairs:
        R = pair_rows(D, pairs)
        assert np.allclose(F.project(R.reshape(-1, D.V, D.d)[0]), R[0].reshape(D.V, D.d))
        assert np.linalg.matrix_rank(np.vstack([A, R])) == F.dim


@pytest.mark.parametrize("seed", range(40))
def test_separability_certificates(seed):
    D = _random(seed)
    s = separability(D)
    if s.separable:
        lo, eq = margins(D, s.w_d)
        assert lo >= 1 - 1e-9 and eq < 1e-9
    else:
        G = margin_rows(D)
        assert np.all(s.farkas >= 0) and abs(s.farkas.sum() - 1) < 1e-12
        assert np.linalg.norm(subspace(D).perp((G.T @ s.farkas).reshape(D.V, D.d))) <= 1e-9


@pytest.mark.parametrize("seed", range(15))
def test_exact_ntp_svm_matches_cvxpy_on_orthogonal_contexts(seed):
    """The Proposition of :mod:`ntpcheck.linear.svm` against CLARABEL (with the polish)."""
    D = _random(seed, orthogonal=True)
    a, b = w_mm(D, "exact"), w_mm(D, "cvxpy")
    assert a.kkt < 1e-9 and b.kkt < 1e-8
    assert np.abs(a.W - b.W).max() < 1e-8
    S = D.mask.sum(axis=1)
    assert np.isclose(a.norm**2, np.sum(S * (D.V - S) / (D.V * np.sum(D.H**2, axis=0))))


def test_exact_svm_refuses_non_orthogonal_contexts():
    from ntpcheck.common.errors import SolverFailedError

    with pytest.raises(SolverFailedError):
        w_mm_exact(NTPData(np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[1, 0], [0, 1]])))


def test_svm_on_inseparable_data_is_an_infeasible_problem():
    D = NTPData(np.ones((1, 2)), np.array([[1, 0], [1, 1]]))   # the same embedding, nested supports
    with pytest.raises(InfeasibleProblemError):
        w_mm(D, "cvxpy")
