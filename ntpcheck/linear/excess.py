"""CE − ℋ without cancellation, CE_ℱ (Eq. 12) and the directional derivative (Eq. 24).

Per context ``j`` with logits ``ℓ = W h̄_j``, support ``𝒮 = 𝒮_j`` and ``p = p̂_j``,
write ``LSE_𝒮 = log Σ_{z∈𝒮} e^{ℓ_z}`` and ``LSE = log Σ_v e^{ℓ_v}``.  Then

* ``CE_j = LSE − Σ_z p_z ℓ_z`` (Eq. 2) and ``CE_ℱ,j = LSE_𝒮 − Σ_z p_z ℓ_z`` (Eq. 12:
  ``log(1 + Σ_{z′∈𝒮, z′≠z} e^{−(ℓ_z − ℓ_z′)}) = LSE_𝒮 − ℓ_z``; the printed
  subscript "z ≠ z" is read as ``z′ ≠ z``);
* ``CE_j − ℋ_j = in_j + out_j`` with ``in_j = KL(p ‖ 𝕊_𝒮(ℓ)) = CE_ℱ,j − ℋ_j ≥ 0``
  and ``out_j = LSE − LSE_𝒮 = log1p(Σ_{v∉𝒮} e^{ℓ_v − LSE_𝒮}) ≥ 0``, so
  ``CE ≥ CE_ℱ`` (App. D) with the difference ``Σ_j π̂_j out_j``.

``out_j`` is computed by ``log1p`` of a log-sum-exp, so values like e^-700 keep
their digits.  ``in_j`` is computed as ``log1p(Σ_z p_z (expm1(ε_z) − ε_z))``
with ``ε = δ − Σ p δ`` and ``δ_z = ℓ_z − log p_z``: every term is ≥ 0 and of
second order in ε, so ``in_j`` keeps relative precision where ``Σ p δ``
rounding would otherwise leave ~1e-16 (the size of CE − ℋ at ``‖W‖ ≈ 37``).

Examples
--------
>>> from .data import NTPData
>>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 2]]))
>>> W = 40 * np.array([[1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])   # in-support logits equal, out-of-support 80 below
>>> gap = excess(D, W)
>>> float(gap.total) > 0, bool(np.isclose(gap.total, 0.5 * np.log1p(np.exp(-80) / 2) + 0.5 * np.log1p(2 * np.exp(-80))))
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntpcheck.common.special import logsumexp, softmax
from .data import NTPData

__all__ = ["Excess", "excess", "ce_f", "eq24", "directional_derivative"]


@dataclass(frozen=True)
class Excess:
    """``CE(W) − ℋ`` split per context: ``inside`` (``in_j``), ``outside`` (``out_j``), both ≥ 0."""

    pi: np.ndarray
    inside: np.ndarray
    outside: np.ndarray

    @property
    def total(self) -> float:
        """``CE(W) − ℋ = Σ_j π̂_j (in_j + out_j)``."""
        return float(np.sum(self.pi * (self.inside + self.outside)))

    @property
    def in_support(self) -> float:
        """``CE_ℱ(W) − ℋ = Σ_j π̂_j in_j``."""
        return float(np.sum(self.pi * self.inside))

    @property
    def out_of_support(self) -> float:
        """``CE(W) − CE_ℱ(W) = Σ_j π̂_j out_j``."""
        return float(np.sum(self.pi * self.outside))


def _lse(L: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise ``log Σ_{mask} e^L`` (−inf for an empty row)."""
    M = np.where(mask, L, -np.inf)
    top = M.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.where(mask, np.exp(M - safe[:, None]), 0.0), axis=1))


def excess(D: NTPData, W: np.ndarray) -> Excess:
    """``CE(W) − ℋ`` without cancellation (module docstring), all contexts at once."""
    L = (np.asarray(W, dtype=float) @ D.H).T  # (m, V)
    mask = D.mask
    logp = np.log(np.where(mask, D.P, 1.0))
    delta = np.where(mask, L - logp, 0.0)
    eps = np.where(mask, delta - np.sum(D.P * delta, axis=1, keepdims=True), 0.0)
    inside = np.log1p(np.sum(np.where(mask, D.P * (np.expm1(eps) - eps), 0.0), axis=1))
    has_out = ~mask.all(axis=1)
    with np.errstate(invalid="ignore"):
        diff = np.where(has_out, _lse(L, ~mask) - _lse(L, mask), -np.inf)
    outside = np.where(has_out, np.logaddexp(0.0, diff), 0.0)  # log1p(e^x), no overflow
    return Excess(D.pi, np.maximum(inside, 0.0), outside)


def ce_f(D: NTPData, W: np.ndarray) -> float:
    """``CE_ℱ(W)`` of Eq. (12), summed literally: ``Σ_j π̂_j Σ_{z∈𝒮_j} p̂_{j,z} (LSE_𝒮(ℓ) − ℓ_z)``."""
    L = (np.asarray(W, dtype=float) @ D.H).T
    total = 0.0
    for j in range(D.m):
        mask = D.mask[j]
        total += D.pi[j] * float(np.sum(D.P[j, mask] * (logsumexp(L[j, mask]) - L[j, mask])))
    return total


def eq24(D: NTPData, W: np.ndarray, U: np.ndarray, *, in_support: bool = True, out_of_support: bool = True) -> float:
    """The right side of Eq. (24), term by term as printed:
    ``Σ_j π̂_j Σ_{z∈𝒮_j} p̂_{j,z} (Σ_{z′∈𝒮_j, z′≠z} s_{j,z′}(e_z − e_z′)ᵀU h̄_j + Σ_{v∉𝒮_j} s_{j,v}(e_z − e_v)ᵀU h̄_j)``
    with ``s_j = 𝕊(W h̄_j)``; ``in_support``/``out_of_support`` keep either sum (for the proof's
    two terms, and for a sabotage that drops one)."""
    S = softmax(np.asarray(W, dtype=float) @ D.H, axis=0).T  # (m, V)
    UH = (np.asarray(U, dtype=float) @ D.H).T
    total = 0.0
    for j in range(D.m):
        for z in D.supports[j]:
            for v in range(D.V):
                if v == z or (D.mask[j, v] and not in_support) or (not D.mask[j, v] and not out_of_support):
                    continue
                total += D.pi[j] * D.P[j, z] * S[j, v] * (UH[j, z] - UH[j, v])
    return total


def directional_derivative(D: NTPData, W: np.ndarray, U: np.ndarray) -> float:
    """``⟨−∇CE(W), U⟩`` from the gradient ``Σ_j π̂_j (𝕊(W h̄_j) − p̂_j) h̄_jᵀ`` (:func:`.loss.ce_grad`)."""
    from .loss import ce_grad

    return -float(np.sum(ce_grad(D, W) * np.asarray(U, dtype=float)))
