"""Every constant and bound of Thrampoulidis (2024) that a checker compares against, once.

Each part of a statement enters through :func:`~..framework.parts.mutable`, so that
its 1%-stronger mutant can be checked on every tested instance.

* ``M = √2 max_j ‖h̄_j‖`` (App. D; the "j/∈[m]" of one copy is a typo, R7);
* ``C = V e^{‖W⋆‖ M}`` and ``c′ = e^{−‖W⋆‖ M}`` (proof of Thm. 1, (25) and case (ii));
* Eq. (7): ``𝕊_v(γ Wᵈ h̄_j) ≤ e^{−γ}`` for ``v ∉ 𝒮_j``;
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

from ..framework.parts import DOWN, STEEPER_UP, mutable

__all__ = ["M_const", "C_const", "c_prime", "eq7_log_bound", "prop1_log_bound"]


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
