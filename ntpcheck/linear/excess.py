"""``CE(W) − ℋ`` without cancellation, split into its in-support and out-of-support parts.

``CE(W) − ℋ = Σ_j π̂_j KL(p̂_j ‖ 𝕊(W h̄_j))`` (§2).  Near the entropy the two
sides of ``CE − ℋ`` agree to many digits: at ``‖W_⊥‖`` of a few tens (Lemma 5's
``R(α)``) the difference is ``~e^{−40}``, far below the rounding of ``CE`` itself
(``~1e-16``).  Per context ``j`` with logits ``ζ = W h̄_j`` the KL splits
exactly into

* the **in-support** part ``KL(p̂_j ‖ 𝕊(ζ_{𝒮_j}))`` (the softmax restricted to
  ``𝒮_j``).  With ``u_z = ζ_z − log p̂_{j,z}`` and ``w = u − Σ_z p̂_{j,z} u_z`` it
  equals ``log Σ_z p̂_{j,z} e^{w_z} = log1p(Σ_z p̂_{j,z} φ(w_z))`` with
  ``φ(w) = e^w − 1 − w`` (since ``Σ p̂ w = 0``); ``φ`` is evaluated without
  cancellation (its series below ``|w| < 1e-3``), so the part keeps its relative
  precision down to ``|w| ~ 1e-16 |u|``;
* the **out-of-support** part ``log1p(r_j)``, ``r_j = Σ_{v∉𝒮_j} e^{ζ_v − LSE(ζ_{𝒮_j})}``
  (the odds of leaving the support), computed as ``exp`` of a difference of
  log-sum-exps, exact to relative rounding however small.

``log 𝕊_z(ζ) = log 𝕊_z(ζ_{𝒮_j}) − log1p(r_j)`` for ``z ∈ 𝒮_j`` gives the split.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .data import NTPData

__all__ = ["excess", "excess_parts", "phi"]


def phi(w: np.ndarray) -> np.ndarray:
    """``e^w − 1 − w`` without cancellation (a 5-term series for ``|w| < 1e-3``).

    Examples
    --------
    >>> float(phi(np.array(1e-9)))  # w²/2
    5e-19
    >>> bool(np.isclose(phi(np.array(2.0)), np.exp(2) - 3))
    True
    """
    w = np.asarray(w, dtype=float)
    small = np.abs(w) < 1e-3
    ws = np.where(small, w, 0.0)
    series = ws * ws * (0.5 + ws * (1 / 6 + ws * (1 / 24 + ws * (1 / 120 + ws / 720))))
    return np.where(small, series, np.expm1(np.where(small, 0.0, w)) - np.where(small, 0.0, w))


def excess_parts(D: NTPData, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per context, the in-support KL and ``log1p(r_j)`` of logits ``Z`` (shape ``(..., V, m)``).

    Returns two arrays of shape ``(..., m)``; ``CE − ℋ = Σ_j π̂_j (in_j + out_j)``.
    """
    Z = np.asarray(Z, dtype=float)
    mask = D.mask.T  # (V, m)
    logp = np.log(np.where(mask, D.P.T, 1.0))
    Pt = np.where(mask, D.P.T, 0.0)
    u = np.where(mask, Z - logp, 0.0)
    ubar = np.sum(Pt * u, axis=-2, keepdims=True)
    w = np.where(mask, u - ubar, 0.0)
    kl_in = np.log1p(np.sum(Pt * phi(w), axis=-2))
    lse_in = logsumexp(np.where(mask, Z, -np.inf), axis=-2)
    has_out = ~mask.all(axis=0)
    lse_out = logsumexp(np.where(mask, -np.inf, Z), axis=-2) if has_out.any() else np.full(lse_in.shape, -np.inf)
    out = np.where(has_out, np.log1p(np.exp(np.where(has_out, lse_out - lse_in, -np.inf))), 0.0)
    return kl_in, out


def excess(D: NTPData, W: np.ndarray) -> np.ndarray | float:
    """``CE(W) − ℋ`` for one ``W`` (V × d) or a stack (n × V × d), without cancellation.

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 2]]))
    >>> W = np.array([[30.0, 0.0], [30.0, 0.0], [0.0, 0.0]])   # context 1: logits 30, 30, 0
    >>> bool(np.isclose(excess(D, W), 0.5 * np.log1p(0.5 * np.exp(-30)) + 0.5 * np.log(3), rtol=1e-15))
    True
    >>> float(excess(NTPData(np.eye(1), np.array([[1, 0]])), np.array([[40.0], [0.0]])))  # log1p(e^-40)
    4.248354255291589e-18
    >>> from ntpcheck.linear.loss import ce, entropy
    >>> bool(np.isclose(excess(D, W), ce(D, W) - entropy(D), rtol=0, atol=1e-15))
    True
    """
    W = np.asarray(W, dtype=float)
    kl_in, out = excess_parts(D, W @ D.H)
    total = np.sum(D.pi * (kl_in + out), axis=-1)
    return float(total) if total.ndim == 0 else total
