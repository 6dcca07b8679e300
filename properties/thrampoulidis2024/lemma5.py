"""Lemma 5 (App. E.1.2), the key lemma of Theorem 2, as a property at arbitrary ``W``, in exact-enough arithmetic.

Statement: for ``α ∈ (0, 1)`` and ``W = W_ℱ + W_⊥`` with ``‖W_⊥‖ ≥ R(α)`` (and, in the
proof, ``‖W_ℱ − W⋆‖ ≤ ‖W⋆‖``, Eq. 22),

    (14)  CE(W_ℱ + (1+α)‖W_⊥‖ W̄^mm) ≤ CE(W).

The proof's threshold (23) is ``R(α) = ‖W^mm‖/α · log(2nV e^{4‖W⋆‖})`` as printed;
the derivation's bounds ``V e^{−M‖W_ℱ‖} ≤ A_min ≤ A_max ≤ V e^{M‖W_ℱ‖}`` with
``‖W_ℱ‖ ≤ 2‖W⋆‖`` give ``e^{4M‖W⋆‖}`` (reading R5).  Both are run
(:func:`threshold`).

Numerics
--------
Both sides of (14) have the same ``P_ℱ`` component, so their in-support
parts are equal: for ``U ∈ ℱ^⊥`` the logits ``(U h̄_j)_z`` are equal over
``z ∈ 𝒮_j`` (``⟨U, (e_z − e_z′)h̄_jᵀ⟩ = 0``), and
``CE(W_ℱ + U) = [in-support part of W_ℱ] + Σ_j π̂_j log1p(r_j(U))`` with
``r_j(U) = Σ_{v∉𝒮_j} exp(ζ_{v} − LSE_{z∈𝒮_j} ζ_z − μ_{j,v}(U))``, ``ζ = W_ℱ h̄_j``
and the margin ``μ_{j,v}(U) = (e_z − e_v)ᵀ U h̄_j`` (any ``z ∈ 𝒮_j``; computed as
the p̂-weighted mean over ``z``, the values differing only by rounding).
(14) is therefore ``out(W_ℱ, (1+α)‖W_⊥‖W̄^mm) ≤ out(W_ℱ, W_⊥)`` with
``out = Σ_j π̂_j log1p(r_j)``, two numbers of size ``~e^{−R}`` that
:func:`log_out` computes as logarithms, to relative rounding, however small
(the difference of the CE values themselves would be lost below ``1e-16``).

Readings of (15)/(16) (R4)
--------------------------
The proof writes the out-of-support terms as a **sum** of two sums,
``Σ_{v∉𝒮} e^{−(e_z−e_v)ᵀW_ℱh̄} + Σ_{v∉𝒮} e^{−R′(e_z−e_v)ᵀW̃_⊥h̄}`` ("as printed"), where
``CE`` has their **product** ``Σ_{v∉𝒮} e^{−(e_z−e_v)ᵀW_ℱh̄} e^{−R′(e_z−e_v)ᵀW̃_⊥h̄}``
(the exponential of the sum of the exponents).  :func:`log_out` takes the
reading: ``"product"`` is ``CE`` itself (the statement (14)), ``"sum"`` is the
printed functional (the proof's intermediate objects (15)/(16), which then
differ from ``CE``).  The intermediate bounds (20)/(21) are checked against
each reading by :func:`proof_bounds`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntpcheck.common.special import logsumexp
from ntpcheck.linear.data import NTPData

from .bounds import M_const

__all__ = ["READINGS_23", "READINGS_15", "threshold", "margins_perp", "log_out", "Lemma5Point",
           "lemma5_sides", "proof_bounds"]

#: Readings of (23): the constant in the exponent of the log.
READINGS_23 = ("e^{4||W*||} (printed)", "e^{4M||W*||}")
#: Readings of (15)/(16): how the out-of-support terms of W_ℱ and W_⊥ combine.
READINGS_15 = ("product", "sum")


def threshold(D: NTPData, alpha: float, norm_w_star: float, norm_w_mm: float, reading: str) -> float:
    """``R(α)`` of (23): ``‖W^mm‖/α · log(2nV e^{c‖W⋆‖})`` with ``c = 4`` (printed) or ``4M`` (R5).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[1, 1, 0], [0, 0, 2]]))
    >>> bool(np.isclose(threshold(D, 0.5, 0.0, 1.0, READINGS_23[0]), 2 * np.log(2 * 4 * 3)))
    True
    """
    c = 4.0 if reading == READINGS_23[0] else 4.0 * M_const(D.H)
    if reading not in READINGS_23:
        raise ValueError(f"unknown reading of (23): {reading!r}")
    return norm_w_mm / alpha * (np.log(2.0 * D.n * D.V) + c * norm_w_star)


def margins_perp(D: NTPData, U: np.ndarray) -> np.ndarray:
    """``μ_{j,v} = c_j − (U h̄_j)_v`` (m × V) for ``U ∈ ℱ^⊥``, with ``c_j`` the p̂-weighted mean of the
    in-support logits of ``U`` (equal over ``𝒮_j`` up to rounding); NaN in-support."""
    L = (np.asarray(U, dtype=float) @ D.H).T  # (m, V)
    c = np.sum(np.where(D.mask, D.P * L, 0.0), axis=1, keepdims=True)
    return np.where(D.mask, np.nan, c - L)


def _log_log1p(log_r: np.ndarray) -> np.ndarray:
    """``log(log1p(r))`` from ``log r``, accurate for every ``r`` (tiny, moderate or huge)."""
    r = np.exp(np.minimum(log_r, 700.0))
    small = log_r < -30.0  # log1p(r) = r(1 - r/2 + ...): log log1p(r) = log r - r/2 to double precision
    with np.errstate(divide="ignore"):
        return np.where(small, log_r - 0.5 * np.exp(np.minimum(log_r, 0.0)), np.log(np.log1p(r)))


def log_out(D: NTPData, W_F: np.ndarray, U: np.ndarray, reading: str = "product") -> float:
    """``log Σ_j π̂_j log1p(r_j)``: the log of ``CE(W_ℱ + U) − [in-support part of W_ℱ]`` for
    ``U ∈ ℱ^⊥`` (reading ``"product"``), or of the printed (15)/(16) functional's excess over
    ``Σ_j π̂_j Σ_z p̂_{j,z} log A_{j,z}`` (reading ``"sum"``: ``log1p(Σ_{v∉𝒮} e^{−μ_{j,v}}/A_{j,z})``
    averaged over ``z`` with ``p̂``).  -inf if no context has an out-of-support token.
    """
    Z = (np.asarray(W_F, dtype=float) @ D.H).T  # (m, V)
    mu = margins_perp(D, U)
    lse_in = logsumexp(np.where(D.mask, Z, -np.inf), axis=1)
    out_mask = ~D.mask
    terms = []
    if reading == "product":
        lr = logsumexp(np.where(out_mask, Z - mu, -np.inf), axis=1) - lse_in  # log r_j
        for j in range(D.m):
            if out_mask[j].any():
                terms.append(np.log(D.pi[j]) + _log_log1p(lr[j]))
    elif reading == "sum":
        # (16) as printed: log(A_{j,z} + Σ_{v∉𝒮} e^{−μ_{j,v}}) with A_{j,z} = Σ_{v∈𝒱} e^{ζ_v − ζ_z}
        lse_all = logsumexp(Z, axis=1)
        lperp = logsumexp(np.where(out_mask, -mu, -np.inf), axis=1)
        for j in range(D.m):
            if not out_mask[j].any():
                continue
            for z in D.supports[j]:
                log_A = lse_all[j] - Z[j, z]
                terms.append(np.log(D.pi[j] * D.P[j, z]) + _log_log1p(lperp[j] - log_A))
    else:
        raise ValueError(f"unknown reading of (15)/(16): {reading!r}")
    return float(logsumexp(terms)) if terms else -np.inf


@dataclass(frozen=True)
class Lemma5Point:
    """Both sides of (14) at one ``W``, as logs of their out-of-support excess (module docstring)."""

    log_lhs: float  # the genie point W_ℱ + (1+α)‖W_⊥‖W̄^mm
    log_rhs: float  # W itself
    R: float  # ‖W_⊥‖
    threshold: float  # R(α)
    dist_F: float  # ‖W_ℱ − W⋆‖ (Eq. 22 asks ≤ ‖W⋆‖)

    @property
    def slack(self) -> float:
        """``log rhs − log lhs``: ≥ 0 iff (14) holds (a ratio of the two excesses, in logs)."""
        return self.log_rhs - self.log_lhs


def lemma5_sides(D: NTPData, W_F: np.ndarray, W_perp: np.ndarray, alpha: float, W_star: np.ndarray, W_mm: np.ndarray,
                 reading_23: str, factor: float | None = None, reading_15: str = "product") -> Lemma5Point:
    """The two sides of (14) at ``W = W_ℱ + W_⊥`` (``W_ℱ ∈ ℱ``, ``W_⊥ ∈ ℱ^⊥``), with the threshold of
    ``reading_23``; ``factor`` replaces ``1 + α`` (for the mutants)."""
    R = float(np.linalg.norm(W_perp))
    f = 1.0 + alpha if factor is None else factor
    genie = f * R * np.asarray(W_mm, dtype=float) / np.linalg.norm(W_mm)
    return Lemma5Point(log_out(D, W_F, genie, reading_15), log_out(D, W_F, W_perp, reading_15), R,
                       threshold(D, alpha, float(np.linalg.norm(W_star)), float(np.linalg.norm(W_mm)), reading_23),
                       float(np.linalg.norm(np.asarray(W_F) - W_star)))


def proof_bounds(D: NTPData, W_F: np.ndarray, W_perp: np.ndarray, alpha: float, W_mm: np.ndarray, reading_15: str, *,
                 n: float | None = None, V: float | None = None) -> dict:
    """The proof's bounds (20) and (21) at ``W``, in logs, against the quantities they bound under ``reading_15``.

    (20): ``CE(W) − base ≥ e^{−R′(1−δ)}/(n(A_max+1))`` where ``δ = min(1 − min_{j,v} μ̃_{j,v}, 1)``
    (``μ̃`` the margins of ``W̃_⊥ = W_⊥‖W^mm‖/‖W_⊥‖``; the proof's δ lies in (0, 1)), Case 2.
    (21): ``CE(W_ℱ + (1+α)R′W^mm) − base ≤ V e^{−R′(1+α)}/A_min``.
    ``base = Σ π̂ Σ p̂ log A_{j,z}`` with ``A_{j,z} = Σ_{v∈𝒱} e^{−(e_z−e_v)ᵀW_ℱh̄_j}``.
    Returns ``{"lhs20", "bound20", "lhs21", "bound21"}`` as logs (``lhs20`` may be NaN where
    the quantity ``CE(W) − base`` is not positive: then (20) fails outright).
    """
    Z = (np.asarray(W_F, dtype=float) @ D.H).T
    lse_all = logsumexp(Z, axis=1)
    logA = np.array([[lse_all[j] - Z[j, z] for z in range(D.V)] for j in range(D.m)])
    logA_in = np.where(D.mask, logA, np.nan)
    nWmm = float(np.linalg.norm(W_mm))
    Rp = float(np.linalg.norm(W_perp)) / nWmm
    mu_t = margins_perp(D, np.asarray(W_perp) / Rp)
    # (19) holds for every δ up to 1 − min μ̃; the proof takes δ ∈ (0, 1) (its last step, x/(1+x) ≥
    # x/(A_max+1) with x = e^{−R′(1−δ)}/A_max, needs e^{−R′(1−δ)} ≤ 1): the largest admissible δ
    delta = min(1.0 - float(np.nanmin(mu_t)), 1.0)
    log_Amax, log_Amin = float(np.nanmax(logA_in)), float(np.nanmin(logA_in))
    bound20 = -Rp * (1 - delta) - np.log(D.n if n is None else n) - np.logaddexp(log_Amax, 0.0)
    bound21 = np.log(D.V if V is None else V) - Rp * (1 + alpha) - log_Amin
    # the quantities: CE(W) − base under the reading
    q20 = _excess_over_base(D, Z, logA, np.asarray(W_perp), reading_15)
    q21 = _excess_over_base(D, Z, logA, (1 + alpha) * Rp * np.asarray(W_mm), reading_15)
    return {"lhs20": q20, "bound20": float(bound20), "lhs21": q21, "bound21": float(bound21), "delta": delta}


def _excess_over_base(D, Z, logA, U, reading):
    """``log(CE(W_ℱ + U) − base)`` (NaN if not positive) under the reading of (15)/(16)."""
    mu = margins_perp(D, U)
    out_mask = ~D.mask
    if reading == "sum":
        terms = []
        for j in range(D.m):
            if not out_mask[j].any():
                continue
            lperp = logsumexp(np.where(out_mask[j], -mu[j], -np.inf))
            for z in D.supports[j]:
                terms.append(np.log(D.pi[j] * D.P[j, z]) + _log_log1p(lperp - logA[j, z]))
        return float(logsumexp(terms)) if terms else -np.inf
    # product (CE itself): Σ π p log((Σ_{z'∈S} e^{ζ_z'} + Σ_{v∉S} e^{ζ_v − μ_v}) / Σ_{v∈V} e^{ζ_v}); may be negative
    val = 0.0
    for j in range(D.m):
        lin = logsumexp(np.where(D.mask[j], Z[j], -np.inf))
        lout = logsumexp(np.where(out_mask[j], Z[j] - mu[j], -np.inf)) if out_mask[j].any() else -np.inf
        val += D.pi[j] * (np.logaddexp(lin, lout) - logsumexp(Z[j]))
    return float(np.log(val)) if val > 0 else float("nan")
