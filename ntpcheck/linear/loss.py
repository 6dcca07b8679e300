"""Cross-entropy of the linear model, its gradient and the empirical entropy (§2, Eq. 2).

``CE(W) = −Σ_j π̂_j Σ_{z∈𝒮_j} p̂_{j,z} log 𝕊_z(W h̄_j)`` (Eq. 2), with
``W ∈ R^{V×d}``; its gradient is ``∇CE(W) = Σ_j π̂_j (𝕊(W h̄_j) − p̂_j) h̄_jᵀ``;
``ℋ = −Σ_j π̂_j Σ_{z∈𝒮_j} p̂_{j,z} log p̂_{j,z}``.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.special import log_softmax, softmax
from .data import NTPData

__all__ = ["ce", "ce_grad", "entropy", "covariance_lambda_max", "smoothness_bound"]


def ce(D: NTPData, W: np.ndarray) -> float:
    """``CE(W)`` of Eq. (2).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 2]]))
    >>> bool(np.isclose(ce(D, np.zeros((3, 2))), np.log(3)))
    True
    """
    logq = log_softmax(W @ D.H, axis=0).T  # (m, V)
    return float(-np.sum(D.pi[:, None] * np.where(D.mask, D.P * logq, 0.0)))


def ce_grad(D: NTPData, W: np.ndarray) -> np.ndarray:
    """``∇CE(W) = Σ_j π̂_j (𝕊(W h̄_j) − p̂_j) h̄_jᵀ`` (V × d)."""
    S = softmax(W @ D.H, axis=0)  # (V, m)
    return (S - D.P.T) * D.pi[None, :] @ D.H.T


def entropy(D: NTPData) -> float:
    """The empirical entropy ``ℋ``; ``CE(W) > ℋ`` for every finite W (§3).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 2]]))
    >>> bool(np.isclose(entropy(D), 0.5 * np.log(2)))
    True
    """
    P = D.P
    return float(-np.sum(D.pi[:, None] * np.where(D.mask, P * np.log(np.where(D.mask, P, 1.0)), 0.0)))


def covariance_lambda_max(D: NTPData) -> float:
    """``λ_max(Σ_j π̂_j h̄_j h̄_jᵀ)``."""
    return float(np.linalg.eigvalsh((D.H * D.pi) @ D.H.T)[-1])


def smoothness_bound(D: NTPData) -> float:
    """``L̄ = ½ λ_max(Σ_j π̂_j h̄_j h̄_jᵀ)``, a bound on the smoothness ``L`` of CE (App. E.1's step
    size is ``η ≤ 1/(2L)``; the bound is derived here, not stated in the paper).

    The Hessian is ``∇²CE(W)[U, U] = Σ_j π̂_j u_jᵀ(diag(s_j) − s_j s_jᵀ)u_j`` with ``u_j = U h̄_j`` and
    ``s_j = 𝕊(W h̄_j)``; ``λ_max(diag(s) − s sᵀ) ≤ ½`` (its quadratic form at unit ``x`` is the
    variance of ``x`` under ``s``, at most ``(max x − min x)²/4 ≤ ½``), so
    ``∇²CE(W)[U, U] ≤ ½ Σ_j π̂_j ‖U h̄_j‖² ≤ L̄ ‖U‖²``.  It is attained at ``W = 0`` by one context
    and two tokens: ``s = (½, ½)``, ``u = (1, −1)/√2 · ‖h̄‖``.

    Examples
    --------
    >>> smoothness_bound(NTPData(np.array([[2.0]]), np.array([[1, 0]])))
    2.0
    """
    return 0.5 * covariance_lambda_max(D)
