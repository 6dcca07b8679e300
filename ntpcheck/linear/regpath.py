"""The regularization path ``Ŵ_B := argmin_{‖W‖≤B} CE(W)`` (Thrampoulidis 2024, Eq. 8), with certificates.

Method
------
For ``μ > 0`` the penalised problem ``min_W f_μ(W) = CE(W) + (μ/2)‖W‖²`` is
``μ``-strongly convex; its minimiser ``W_μ`` satisfies ``∇CE(W_μ) = −μ W_μ``,
which with ``μ > 0`` is the KKT system of (8) at ``B = ‖W_μ‖`` with the norm
constraint active.  (8)'s minimiser is unique (see below), so ``W_μ = Ŵ_{‖W_μ‖}``:
the path of (8) is the path of ``W_μ`` reparametrised by ``B = ‖W_μ‖``, and
``‖W_μ‖`` decreases in ``μ``.  :func:`solve_ball` finds ``W_μ`` by damped
Newton's method (Hessian ``Σ_j π̂_j (diag(s_j) − s_j s_jᵀ) ⊗ h̄_j h̄_jᵀ + μI``)
and ``μ`` by a safeguarded Newton iteration on ``log μ`` for ``‖W_μ‖ = B``,
using ``d‖W_μ‖/dμ = −⟨W_μ, (∇²f_μ)⁻¹ W_μ⟩/‖W_μ‖``.  :func:`reg_path` walks a grid
of ``B`` upwards, warm-starting each point from the last.

Certificates (returned with every point)
----------------------------------------
* ``gap = ⟨∇CE(W), W⟩ + B‖∇CE(W)‖ ≥ CE(W) − CE(Ŵ_B)`` for any ``‖W‖ ≤ B``
  (the Frank–Wolfe gap: by convexity ``CE(Ŵ_B) ≥ CE(W) + ⟨∇CE(W), Ŵ_B − W⟩``
  and ``⟨∇CE(W), Ŵ_B⟩ ≥ −B‖∇CE(W)‖``);
* ``dist = ‖∇CE(W) + μW‖/μ ≥ ‖W − W_μ‖`` (strong convexity of ``f_μ``), a bound on
  the distance from the returned ``W`` to the exact path point ``Ŵ_{B′}``, with
  ``|B′ − B| ≤ dist + |‖W‖ − B|``.  It is as good as ``∇CE`` is accurate: at large
  ``B`` the multiplier ``μ ~ e^{−B/‖W^mm‖}`` approaches the rounding of the
  in-support residuals ``𝕊_z − p̂_z`` (``~1e-16``), and ``dist`` grows; callers
  keep the points whose ``dist`` is small against ``B``.

Uniqueness of ``Ŵ_B`` (§4 says "strictly convex"; CE is not)
------------------------------------------------------------
``CE`` is invariant under ``W ↦ W + 𝟙uᵀ`` (every logit of context ``j`` moves by
``uᵀh̄_j``), so it is not strictly convex.  ``Ŵ_B`` is unique nonetheless
under NTP-separability: a minimiser lies on the sphere ``‖W‖ = B`` (an interior
one would have ``∇CE = 0``, impossible since ``⟨−∇CE(W), W^mm⟩ > 0``, Eq. 24), and
if ``W₁ ≠ W₂`` both minimised, ``(W₁ + W₂)/2`` would too (convexity) with norm
``< B`` (strict convexity of the ball): an interior minimiser.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve, eigh

from ntpcheck.common.special import softmax
from .data import NTPData
from .excess import excess
from .loss import ce_grad

__all__ = ["PathPoint", "RegPath", "hessian", "solve_penalised", "solve_ball", "reg_path"]


@dataclass(frozen=True)
class PathPoint:
    """``Ŵ_B`` at one ``B``: the matrix, its multiplier ``μ`` and its certificates (module docstring)."""

    B: float
    W: np.ndarray
    mu: float
    gap: float
    dist: float
    newton_steps: int


@dataclass(frozen=True)
class RegPath:
    """Points of the regularization path, in increasing ``B``, as far as they are certified.

    ``stopped_at``: the first ``B`` of the grid whose point was not certified
    (``dist > cert_rtol · B``: the multiplier ``μ`` reached the rounding of ``∇CE``), None if
    every point was; the points from there on are left out.
    """

    points: tuple[PathPoint, ...]
    stopped_at: float | None = None

    @property
    def B(self) -> np.ndarray:
        return np.array([p.B for p in self.points])

    @property
    def W(self) -> np.ndarray:
        return np.stack([p.W for p in self.points])

    @property
    def dist(self) -> np.ndarray:
        return np.array([p.dist for p in self.points])

    @property
    def gap(self) -> np.ndarray:
        return np.array([p.gap for p in self.points])

    @property
    def mu(self) -> np.ndarray:
        return np.array([p.mu for p in self.points])


def hessian(D: NTPData, W: np.ndarray) -> np.ndarray:
    """``∇²CE(W)`` as a ``(Vd × Vd)`` matrix for ``vec(W)`` in row-major order."""
    S = softmax(W @ D.H, axis=0).T  # (m, V)
    A = np.einsum("jv,vw->jvw", S, np.eye(D.V)) - S[:, :, None] * S[:, None, :]
    Hs = np.einsum("j,jvw,aj,bj->vawb", D.pi, A, D.H, D.H)
    n = D.V * D.d
    return Hs.reshape(n, n)


def _f(D: NTPData, W: np.ndarray, mu: float) -> float:
    """``CE(W) − ℋ + (μ/2)‖W‖²`` (the objective up to the constant ℋ, without cancellation)."""
    return excess(D, W).total + 0.5 * mu * float(np.sum(W * W))


def _centred(W: np.ndarray) -> np.ndarray:
    """``W`` minus its mean row: the component along ``W ↦ W + 𝟙uᵀ``, on which CE is flat, removed
    (every ``W_μ`` has zero column sums: ``𝟙ᵀ∇CE = 0``, so ``𝟙ᵀW_μ = −𝟙ᵀ∇CE(W_μ)/μ = 0``)."""
    return W - W.mean(axis=0, keepdims=True)


def solve_penalised(D: NTPData, mu: float, W0: np.ndarray | None = None, *, max_steps: int = 30) -> tuple[np.ndarray, int]:
    """``W_μ = argmin CE(W) + (μ/2)‖W‖²`` by damped Newton's method, from ``W0`` (zero by default).

    Stops when the gradient of ``f_μ`` is below ``1e-13 μ max(1, ‖W‖)`` or stops decreasing (rounding).
    Returns ``(W_μ, Newton steps)``.
    """
    W = np.zeros((D.V, D.d)) if W0 is None else _centred(np.array(W0, dtype=float))
    best = np.inf
    for it in range(1, max_steps + 1):
        g = (ce_grad(D, W) + mu * W).ravel()
        gn = float(np.linalg.norm(g))
        if gn <= 1e-13 * mu * max(1.0, float(np.linalg.norm(W))):
            return W, it - 1
        if gn >= best and it > 3:
            return W, it - 1  # no further progress: the gradient is at its rounding level
        best = min(best, gn)
        step = _centred(-_solve(hessian(D, W), mu, g).reshape(W.shape))  # no drift along the flat 𝟙uᵀ
        dec = -float(g @ step.ravel())  # Newton decrement squared
        t = 1.0
        if dec > 1e-8:  # damped phase: backtrack on f_μ (computed without cancellation)
            f0 = _f(D, W, mu)
            while t > 1e-12 and _f(D, W + t * step, mu) > f0 - 0.25 * t * dec:
                t *= 0.5
        W = W + t * step
    return W, max_steps


def _solve(Hs: np.ndarray, mu: float, g: np.ndarray) -> np.ndarray:
    """``(Hs + μI)⁻¹ g`` for the PSD Hessian ``Hs``: by Cholesky (a third of an eigendecomposition's
    cost), or, where rounding leaves ``Hs + μI`` not numerically positive definite (``μ`` at the
    rounding level of ``Hs``), by eigendecomposition with the eigenvalues clipped at 0."""
    A = Hs + mu * np.eye(len(Hs))
    try:
        return cho_solve(cho_factor(A, check_finite=False), g, check_finite=False)
    except LinAlgError:
        lam, Q = eigh(Hs)  # scipy's: numpy's eigh took 30 ms at 35 x 35 on a loaded machine (threads), scipy's 0.5 ms
        return Q @ ((Q.T @ g) / (np.maximum(lam, 0.0) + mu))


def _dnorm_dmu(D: NTPData, W: np.ndarray, mu: float) -> float:
    w = W.ravel()
    return -float(w @ _solve(hessian(D, W), mu, w)) / float(np.linalg.norm(w))


def _point(D: NTPData, B: float, W: np.ndarray, mu: float, steps: int) -> PathPoint:
    nW = float(np.linalg.norm(W))
    if nW > B:
        W = W * (B / nW)
    G = ce_grad(D, W)
    gap = float(np.sum(G * W)) + B * float(np.linalg.norm(G))
    dist = float(np.linalg.norm(G + mu * W)) / mu
    return PathPoint(float(B), W, float(mu), max(gap, 0.0), dist, steps)


def solve_ball(D: NTPData, B: float, W0: np.ndarray | None = None, mu0: float | None = None, *,
               rtol: float = 1e-12, max_outer: int = 30) -> PathPoint:
    """``Ŵ_B`` of Eq. (8) with its certificates, assuming NTP-separability (so that the norm
    constraint is active and ``μ > 0``).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> p = solve_ball(D, 5.0)
    >>> round(float(np.linalg.norm(p.W)), 10), p.dist < 1e-8, p.gap < 1e-10
    (5.0, True, True)
    """
    B = float(B)
    mu = float(mu0) if mu0 is not None else 1.0
    W = None if W0 is None else np.array(W0, dtype=float)
    lo, hi = 0.0, np.inf  # bracket on μ: ‖W_lo‖ > B > ‖W_hi‖
    total = 0
    for _ in range(max_outer):
        W, s = solve_penalised(D, mu, W)
        total += s
        nW = float(np.linalg.norm(W))
        if abs(nW - B) <= rtol * B:
            break
        if nW > B:
            lo = max(lo, mu)
        else:
            hi = min(hi, mu)
        # Newton on log μ for ‖W_μ‖ = B, kept inside the bracket (else bisect in log μ)
        slope = mu * _dnorm_dmu(D, W, mu)  # d‖W‖/d log μ < 0
        cand = mu * np.exp(np.clip((B - nW) / slope, -3.0, 3.0)) if slope < 0 else np.nan
        if not (np.isfinite(cand) and lo < cand < hi):
            if lo > 0 and np.isfinite(hi):
                cand = np.sqrt(lo * hi)
            else:
                cand = mu * (np.exp(-3.0) if nW < B else np.exp(3.0))
        mu = float(cand)
    return _point(D, B, W, mu, total)


def reg_path(D: NTPData, Bs, *, cert_rtol: float = 1e-6) -> RegPath:
    """``Ŵ_B`` for every ``B`` of ``Bs`` (sorted upwards), each warm-started from the previous,
    up to the first point whose distance certificate exceeds ``cert_rtol · B``.

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> path = reg_path(D, np.geomspace(2, 40, 5))
    >>> bool(np.allclose(np.linalg.norm(path.W, axis=(1, 2)), path.B, rtol=1e-10)), bool(np.all(np.diff(path.mu) < 0))
    (True, True)
    """
    Bs = np.sort(np.asarray(Bs, dtype=float))
    pts: list[PathPoint] = []
    W, mu = None, None
    for B in Bs:
        if pts:
            prev = pts[-1]
            W, mu = prev.W * (B / prev.B), prev.mu
        p = solve_ball(D, B, W, mu)
        if not (p.dist <= cert_rtol * B):
            return RegPath(tuple(pts), float(B))
        pts.append(p)
        W, mu = p.W, p.mu
    return RegPath(tuple(pts))
