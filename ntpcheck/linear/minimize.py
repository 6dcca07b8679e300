"""Minimising the losses of the linear model where a claim needs a minimiser: CE_ℱ over ℱ
(Lemma 4 (2), R11) and CE over the ball ``‖W‖ ≤ B`` (Eq. 8, R1), with their certificates.

* :func:`min_ce_f`: BFGS in an orthonormal basis of ℱ, from a given start;
  returns the point, the gradient norm and the smallest eigenvalue ``μ`` of the
  Hessian of CE_ℱ restricted to ℱ there (``μ > 0`` at a stationary point
  certifies a strict, hence, by convexity, unique minimiser).
* :func:`w_b`: Eq. (8) by SLSQP with the constraint ``‖w‖² ≤ B²`` and the
  exact gradient; returns the point and its KKT multiplier
  ``λ = −⟨∇CE(Ŵ), Ŵ⟩/‖Ŵ‖²`` with the residual ``‖∇CE(Ŵ) + λŴ‖``.

Uniqueness of Ŵ_B (proved here, used by R1): if ``Ŵ`` minimises CE over the
ball with ``−∇CE(Ŵ) = λŴ``, ``λ > 0``, and ``W′`` is another minimiser, then by
convexity ``CE(W′) ≥ CE(Ŵ) + λ(‖Ŵ‖² − ⟨Ŵ, W′⟩) ≥ CE(Ŵ) + λ‖Ŵ‖(‖Ŵ‖ − ‖W′‖)
≥ CE(Ŵ)`` (``‖Ŵ‖ = B ≥ ‖W′‖``), with equality only if ``⟨Ŵ, W′⟩ = ‖Ŵ‖‖W′‖``
and ``‖W′‖ = B``, i.e. ``W′ = Ŵ``.  So ``∇CE(Ŵ) ≠ 0`` suffices; strict
convexity of CE is not needed (and does not hold: CE is constant along
``W + t 1uᵀ``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ntpcheck.common.special import softmax
from .data import NTPData
from .excess import ce_f
from .loss import ce, ce_grad
from .subspace import Subspace

__all__ = ["CEFMinimum", "min_ce_f", "ce_f_grad", "ce_f_hessian_on_f", "BallMinimum", "w_b"]


def _in_support_softmax(D: NTPData, W: np.ndarray) -> np.ndarray:
    L = (W @ D.H).T
    L = np.where(D.mask, L, -np.inf)
    return softmax(L, axis=1)  # (m, V), zero off the support


def ce_f_grad(D: NTPData, W: np.ndarray) -> np.ndarray:
    """``∇CE_ℱ(W) = Σ_j π̂_j (𝕊_𝒮(W h̄_j) − p̂_j) h̄_jᵀ`` (softmax over the support)."""
    S = _in_support_softmax(D, W)
    return ((S - D.P) * D.pi[:, None]).T @ D.H.T


def ce_f_hessian_on_f(D: NTPData, W: np.ndarray, F: Subspace) -> np.ndarray:
    """The Hessian of CE_ℱ at ``W`` restricted to ℱ, in ``F.basis`` coordinates (dim ℱ × dim ℱ)."""
    S = _in_support_softmax(D, W)
    Hf = np.zeros((D.V * D.d, D.V * D.d))
    for j in range(D.m):
        J = np.diag(S[j]) - np.outer(S[j], S[j])
        Hf += D.pi[j] * np.kron(J, np.outer(D.H[:, j], D.H[:, j]))
    return F.basis @ Hf @ F.basis.T


@dataclass(frozen=True)
class CEFMinimum:
    W: np.ndarray
    value: float
    grad_norm: float
    mu: float


def min_ce_f(D: NTPData, F: Subspace, start: np.ndarray) -> CEFMinimum:
    """Minimise CE_ℱ over ℱ from ``P_ℱ(start)`` (BFGS, gradient tolerance 1e-12)."""
    if F.dim == 0:
        W = np.zeros((D.V, D.d))
        return CEFMinimum(W, ce_f(D, W), 0.0, np.inf)
    B = F.basis

    def f(c):
        W = (B.T @ c).reshape(D.V, D.d)
        return ce_f(D, W), B @ ce_f_grad(D, W).ravel()

    res = minimize(f, B @ np.asarray(start, dtype=float).ravel(), jac=True, method="BFGS", options={"gtol": 1e-12, "maxiter": 5000})
    W = (B.T @ res.x).reshape(D.V, D.d)
    g = float(np.linalg.norm(B @ ce_f_grad(D, W).ravel()))
    mu = float(np.linalg.eigvalsh(ce_f_hessian_on_f(D, W, F))[0])
    return CEFMinimum(W, ce_f(D, W), g, mu)


@dataclass(frozen=True)
class BallMinimum:
    W: np.ndarray
    value: float
    lam: float
    kkt: float


def w_b(D: NTPData, B: float, start: np.ndarray | None = None) -> BallMinimum:
    """Ŵ_B of Eq. (8) by SLSQP (module docstring); ``kkt`` is ``‖∇CE + λŴ‖ / ‖∇CE‖``.

    The rows of every gradient lie in ``range H̄`` and CE depends on ``W`` only through ``W H̄``, so
    the search runs over ``W = U Qᵀ`` (``Q`` an orthonormal basis of ``range H̄``, ``‖W‖ = ‖U‖``): a
    minimiser with ``∇CE ≠ 0`` is ``−∇CE/λ``, in that set.  The KKT residual is computed on the full ``W``.
    """
    u, sv, _ = np.linalg.svd(D.H, full_matrices=False)
    Q = u[:, sv > 1e-10 * (sv[0] if sv.size else 1.0)]
    r = Q.shape[1]
    x0 = np.zeros(D.V * r) if start is None else (np.asarray(start, dtype=float) @ Q).ravel()

    def f(x):
        W = x.reshape(D.V, r) @ Q.T
        return ce(D, W), (ce_grad(D, W) @ Q).ravel()

    cons = {"type": "ineq", "fun": lambda x: B * B - x @ x, "jac": lambda x: -2 * x}
    res = minimize(f, x0, jac=True, method="SLSQP", constraints=[cons], options={"ftol": 1e-12, "maxiter": 1000})
    W = res.x.reshape(D.V, r) @ Q.T
    g = ce_grad(D, W)
    lam = -float(np.sum(g * W)) / max(1e-300, float(np.sum(W * W)))
    kkt = float(np.linalg.norm(g + lam * W)) / max(1e-300, float(np.linalg.norm(g)))
    return BallMinimum(W, ce(D, W), lam, kkt)
