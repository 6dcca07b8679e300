"""Every constant and bound of Thrampoulidis (2024) that a checker compares against, once.

Each part of a statement enters through :func:`~..framework.parts.mutable`, so that
its 1%-stronger mutant can be checked on every tested instance.

* ``M = √2 max_j ‖h̄_j‖`` (App. D; the "j/∈[m]" of one copy is a typo, R7);
* ``C = V e^{‖W⋆‖ M}`` and ``c′ = e^{−‖W⋆‖ M}`` (proof of Thm. 1, (25) and case (ii));
* Eq. (7): ``𝕊_v(γ Wᵈ h̄_j) ≤ e^{−γ}`` for ``v ∉ 𝒮_j``;
* the case analysis of Thm. 1's proof (§4, App. E.2.1; T1-pf (e)): case (i)'s
  ``CE − ℋ ≥ (1/n) log(e^{R′δ}/n)`` as printed, and as the KL divergence gives it;
  case (ii)'s ``CE − ℋ ≥ c′e^{−R′(1−δ)}/(2n²)``;
* Cover's function counting theorem (Remark 1's remark): ``C(m, d) = 2 Σ_{k<d} binom(m−1, k)``;
* Prop. 1's quantitative form (derived by the argument of (9)/(25), not stated
  in the paper): ``CE(Wᵖ + γ Wᵈ) − ℋ ≤ V e^{M ‖Wᵖ‖} e^{−γ}`` for any ``Wᵖ``
  meeting (4) and ``Wᵈ`` meeting (6).

Examples
--------
>>> import numpy as np
>>> M_const(np.array([[3.0, 0.0], [4.0, 1.0]]))   # sqrt(2) * 5
7.0710678118654755
>>> round(C_const(2.0, 0.0, 5), 6), round(float(prop1_log_bound(1.0, 0.0, 5, 2.0)), 6)
(5.0, 0.609438)
"""

from __future__ import annotations

import math

import numpy as np

from ..framework.parts import DOWN, STEEPER_UP, UP, mutable

__all__ = ["M_const", "C_const", "c_prime", "eq7_log_bound", "prop1_log_bound", "case_i_bound", "case_i_corrected",
           "case_ii_log_bound", "cover_count"]


def M_const(H: np.ndarray) -> float:
    """``M = √2 · max_j ‖h̄_j‖`` (App. D)."""
    return math.sqrt(2.0) * float(np.max(np.linalg.norm(H, axis=0), initial=0.0))


def C_const(M: float, w_star_norm: float, V: int) -> float:
    """``C = V e^{‖W⋆‖ M}`` (proof of Thm. 1, (25))."""
    return V * math.exp(w_star_norm * M)


def c_prime(M: float, w_star_norm: float) -> float:
    """``c′ = e^{−‖W⋆‖ M}`` (proof of Thm. 1, case (ii))."""
    return math.exp(-w_star_norm * M)


def eq7_log_bound(gamma: np.ndarray) -> np.ndarray:
    """``log e^{−γ}``, Eq. (7)'s bound on ``log 𝕊_v(γ Wᵈ h̄_j)``; parts: the constant 1 in front
    (``"1"``) and the exponent's coefficient (``"exponent of e^-gamma"``)."""
    a = mutable("exponent of e^-gamma", 1.0, STEEPER_UP)
    return math.log(mutable("1", 1.0, DOWN)) - a * np.asarray(gamma, dtype=float)


def prop1_log_bound(gamma, w_p_norm: float, V: int, M: float) -> np.ndarray:
    """``log(V e^{M ‖Wᵖ‖} e^{−γ})``, Prop. 1's quantitative form (module docstring); parts: ``V``,
    the ``M`` in the exponent, and the exponent of ``e^{−γ}``."""
    a = mutable("exponent of e^-gamma", 1.0, STEEPER_UP)
    return (math.log(mutable("V", float(V), DOWN)) + mutable("M", M, DOWN) * w_p_norm
            - a * np.asarray(gamma, dtype=float))


def case_i_bound(R, delta, n: int):
    """Case (i) of Thm. 1's proof as printed: ``CE(W) − ℋ ≥ (1/n) log(e^{R′δ}/n)``, at ``W = W⋆ + R′Ŵ`` with
    ``|(e_z − e_{z′})ᵀŴh̄_j| ≥ δ`` for some ``z, z′ ∈ 𝒮_j``.  It drops every other term of (10), some of
    which are negative (the tokens whose probability exceeds ``p̂``): false by up to about
    ``π̂_j log 2`` (a finding; :func:`case_i_corrected` is what the divergence gives)."""
    R, delta = np.asarray(R, dtype=float), np.asarray(delta, dtype=float)
    return (R * delta - math.log(n)) / n


def case_i_corrected(R, delta, pi_j, p_z, p_zp):
    """Case (i) as the KL divergence gives it: with ``z`` the token whose logit is ``R′δ`` below ``z′``'s
    (relative to ``W⋆``), ``CE − ℋ ≥ π̂_j KL(p̂_j ‖ 𝕊_j) ≥ π̂_j [p̂_z log(p̂_z/𝕊_z) + (1 − p̂_z) log(1 − p̂_z)]``
    (coarse-graining to ``{z}`` and the rest, and ``1 − 𝕊_z ≤ 1``) ``≥ π̂_j [p̂_z (R′δ + log p̂_{z′}) +
    (1 − p̂_z) log(1 − p̂_z)]`` (``𝕊_z ≤ e^{ℓ_z − ℓ_{z′}} ≤ (p̂_z/p̂_{z′}) e^{−R′δ}``).  It grows like ``R′δ/n``
    as the printed bound does, so the proof's contradiction stands."""
    R, delta = np.asarray(R, dtype=float), np.asarray(delta, dtype=float)
    rest = np.where(p_z < 1, (1 - p_z) * np.log(np.where(p_z < 1, 1 - p_z, 1.0)), 0.0)
    return pi_j * (p_z * (R * delta + np.log(p_zp)) + rest)


def case_ii_log_bound(R, delta, c_prime_value: float, n: int):
    """``log(c′ e^{−R′(1−δ)}/(2n²))``, case (ii) of Thm. 1's proof (App. E.2.1), at ``W = W⋆ + R′Ŵ``
    with ``Ŵ ∈ ℱ^⊥`` and ``(e_z − e_v)ᵀŴh̄_j ≤ 1 − δ`` for some ``z ∈ 𝒮_j``, ``v ∉ 𝒮_j``; parts: ``c′``
    and ``2n²``."""
    R, delta = np.asarray(R, dtype=float), np.asarray(delta, dtype=float)
    return (math.log(mutable("c'", c_prime_value, UP)) - R * (1 - delta)
            - math.log(mutable("2n^2", 2.0 * n * n, DOWN)))


def cover_count(m: int, d: int) -> int:
    """Cover (1965): the number of dichotomies of ``m`` points in general position in ``R^d`` separable
    by a hyperplane through the origin, ``C(m, d) = 2 Σ_{k=0}^{d−1} binom(m − 1, k)``.

    Examples
    --------
    >>> cover_count(3, 2), cover_count(4, 2), cover_count(2, 3)   # 2m for d = 2; all 2^m for m <= d
    (6, 8, 4)
    """
    return 2 * sum(math.comb(m - 1, k) for k in range(d))
