"""The regularization path continued past float64's reach, in extended precision (mpmath).

:func:`~.regpath.reg_path` certifies ``Ŵ_B`` up to ``B/‖W^mm‖ ≈ 10–25``: there
the multiplier ``μ ~ e^{−B/‖W^mm‖}`` of the KKT system ``∇CE(W) + μW = 0``,
``‖W‖ = B``, meets the rounding of the in-support residuals ``𝕊_z − p̂_z``
(``~1e-16``).  A limit along the path is confirmed on a range of ``B`` ten
times further (:func:`ntpcheck.properties.framework.limits.judge`), which
needs ``μ`` down to ``e^{−250}``: this module solves the same KKT system with
every number carried to ``B/(‖W^mm‖ ln 10) + 30`` digits, so that the residuals
are resolved with 30 digits to spare.

Method: Newton's method on ``F(W, ν) = (∇CE(W) + e^ν W, (‖W‖² − B²)/2) = 0``
(``ν = log μ``) jointly, the Jacobian ``[[∇²CE + μI, μW], [Wᵀ, 0]]`` solved by
mpmath's LU, the residual halved by backtracking, each point warm-started from
the last (``W`` scaled to the new ``B``, ``log μ`` extrapolated linearly in ``B``);
``W`` is kept centred (zero column sums: CE is flat along ``𝟙uᵀ``,
:func:`~.regpath.solve_penalised`).  Each point carries the certificate of
:mod:`.regpath`, ``dist = ‖∇CE(W) + μW‖/μ ≥ ‖W − Ŵ_{B′}‖``, computed in that
precision.  Cost grows like ``(Vd)³`` per Newton step in software
arithmetic, so it is offered up to :data:`MAX_ENTRIES` entries of ``W``.

Examples
--------
>>> from .data import NTPData
>>> from .regpath import reg_path
>>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
>>> near = reg_path(D, np.geomspace(2, 40, 8))
>>> far = reg_path_far(D, np.geomspace(40, 400, 6), near.points[-1])
>>> len(far.points), bool(np.allclose(np.linalg.norm(far.W, axis=(1, 2)), far.B)), bool(max(far.dist / far.B) < 1e-20)
(6, True, True)
"""

from __future__ import annotations

import math

import numpy as np

from .data import NTPData
from .regpath import PathPoint, RegPath

__all__ = ["MAX_ENTRIES", "reg_path_far"]

#: Largest ``V·d`` the extended-precision path is computed for (a Newton step costs ``(Vd)³``
#: software operations: about 0.1 s at 24 entries and 130 digits).
MAX_ENTRIES = 24


def _digits(B_max: float, w_mm_norm: float) -> int:
    """Digits that resolve ``μ ~ e^{−B/‖W^mm‖}`` with 30 to spare."""
    return int(B_max / max(w_mm_norm, 1e-300) / math.log(10.0)) + 30


class _Problem:
    """CE's gradient and Hessian in mpmath, for one dataset (exact ``π̂``, ``p̂`` from the counts)."""

    def __init__(self, D: NTPData, mp) -> None:
        self.mp = mp
        self.V, self.d, self.m = D.V, D.d, D.m
        c = np.asarray(D.counts)
        n = int(c.sum())
        self.pi = [mp.mpf(int(c[j].sum())) / n for j in range(self.m)]
        self.p = [[mp.mpf(int(c[j, v])) / int(c[j].sum()) for v in range(self.V)] for j in range(self.m)]
        self.h = [[mp.mpf(float(x)) for x in D.H[:, j]] for j in range(self.m)]

    def softmax(self, W, j):
        mp = self.mp
        z = [mp.fsum(W[v, a] * self.h[j][a] for a in range(self.d)) for v in range(self.V)]
        top = max(z)
        e = [mp.exp(x - top) for x in z]
        s = mp.fsum(e)
        return [x / s for x in e]

    def grad(self, W):
        mp = self.mp
        G = mp.matrix(self.V, self.d)
        S = []
        for j in range(self.m):
            s = self.softmax(W, j)
            S.append(s)
            for v in range(self.V):
                r = self.pi[j] * (s[v] - self.p[j][v])
                for a in range(self.d):
                    G[v, a] += r * self.h[j][a]
        return G, S

    def hessian(self, S):
        mp = self.mp
        n = self.V * self.d
        Hs = mp.matrix(n, n)
        for j in range(self.m):
            s, h, pj = S[j], self.h[j], self.pi[j]
            for v in range(self.V):
                for w in range(self.V):
                    a_vw = pj * ((s[v] if v == w else 0) - s[v] * s[w])
                    if a_vw == 0:
                        continue
                    for a in range(self.d):
                        for b in range(self.d):
                            Hs[v * self.d + a, w * self.d + b] += a_vw * h[a] * h[b]
        return Hs


def _centred(W, mp, V: int, d: int):
    for a in range(d):
        mean = mp.fsum(W[v, a] for v in range(V)) / V
        for v in range(V):
            W[v, a] -= mean
    return W


def _entries(W) -> list:
    return [W[i, k] for i in range(W.rows) for k in range(W.cols)]


def _norm(W, mp) -> "mp.mpf":
    return mp.sqrt(mp.fsum(x * x for x in _entries(W)))


def reg_path_far(D: NTPData, Bs, start: PathPoint, *, cert_rtol: float = 1e-6, max_newton: int = 40) -> RegPath | None:
    """``Ŵ_B`` for every ``B`` of ``Bs`` (sorted upwards) in extended precision, warm-started from ``start``
    (the last certified point of :func:`~.regpath.reg_path`), up to the first point whose certificate
    exceeds ``cert_rtol · B``; None where ``V·d`` exceeds :data:`MAX_ENTRIES`.  The matrices are returned
    in float64 (their entries to 16 digits; the certificate is the extended one)."""
    import mpmath

    if D.V * D.d > MAX_ENTRIES:
        return None
    Bs = np.sort(np.asarray(Bs, dtype=float))
    from .svm import w_mm

    w_norm = float(np.linalg.norm(w_mm(D).W))
    dps = _digits(float(Bs[-1]), w_norm)
    pts: list[PathPoint] = []
    with mpmath.workdps(dps):
        mp = mpmath.mp
        prob = _Problem(D, mp)
        V, d, n = D.V, D.d, D.V * D.d
        W = _centred(mp.matrix(start.W.tolist()), mp, V, d)
        hist = [(float(start.B), math.log(start.mu))]
        for B in Bs:
            Bm = mp.mpf(float(B))
            W = W * (Bm / _norm(W, mp))
            # log μ falls about linearly in B (μ ~ e^{-B/||W^mm||} with unit margins): extrapolate it
            slope = -1.0 / w_norm if len(hist) < 2 else (hist[-1][1] - hist[-2][1]) / (hist[-1][0] - hist[-2][0])
            nu = hist[-1][1] + slope * (B - hist[-1][0])
            nu = mp.mpf(nu)
            steps = 0

            def residual(W, nu):
                G, S = prob.grad(W)
                mu = mp.exp(nu)
                R = G + mu * W
                c = (mp.fsum(x * x for x in _entries(W)) - Bm * Bm) / 2
                return R, c, S, mu

            R, c, S, mu = residual(W, nu)
            size = lambda R, c, mu: mp.sqrt(mp.fsum(x * x for x in _entries(R)) / (mu * mu) + (c / (Bm * Bm)) ** 2)  # noqa: E731
            r0 = size(R, c, mu)
            for steps in range(1, max_newton + 1):
                J = mp.matrix(n + 1, n + 1)
                Hs = prob.hessian(S)
                for i in range(n):
                    for k in range(n):
                        J[i, k] = Hs[i, k]
                    J[i, i] += mu
                    J[i, n] = mu * W[i // d, i % d]
                    J[n, i] = W[i // d, i % d]
                rhs = mp.matrix(n + 1, 1)
                for i in range(n):
                    rhs[i] = -R[i // d, i % d]
                rhs[n] = -c
                try:
                    step = mp.lu_solve(J, rhs)
                except ZeroDivisionError:
                    break
                dW = mp.matrix(V, d)
                for i in range(n):
                    dW[i // d, i % d] = step[i]
                dW = _centred(dW, mp, V, d)
                t = mp.mpf(1)
                while t > mp.mpf(2) ** -30:
                    W2, nu2 = W + t * dW, nu + t * step[n]
                    R2, c2, S2, mu2 = residual(W2, nu2)
                    r2 = size(R2, c2, mu2)
                    if r2 < r0:
                        break
                    t /= 2
                else:
                    break
                W, nu, R, c, S, mu, r0 = W2, nu2, R2, c2, S2, mu2, r2
                if r0 < mp.mpf(10) ** -40:
                    break
            G, _ = prob.grad(W)     # the certificate at the Newton point itself (renormalising it would move
            #                         the in-support logits by far more than mu)
            dist = _norm(G + mu * W, mp) / mu
            gap = mp.fsum(g * w for g, w in zip(_entries(G), _entries(W))) + Bm * _norm(G, mp)
            if not (dist <= cert_rtol * B):
                return RegPath(tuple(pts), float(B))
            Wf = np.array([[float(W[v, a]) for a in range(d)] for v in range(V)])
            pts.append(PathPoint(float(B), Wf, float(mu), max(float(gap), 0.0), float(dist), steps))
            hist.append((float(B), float(nu)))
    return RegPath(tuple(pts))
