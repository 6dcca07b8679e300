"""The NTP-SVM ``W^mm`` (Def. 3) exactly: least-distance programming, then a linear solve on the support.

In ``w = vec W ∈ R^{Vd}`` (row-major) Def. 3 reads ``min ½‖w‖²`` s.t. ``A w = 0``
(6a, anchor rows of :func:`.subspace.anchor_rows`) and ``G w ≥ 1`` (6b, anchor
margin rows of :func:`.svm.margin_rows`).  A column-pivoted Householder QR
``Aᵀ Π = Q R`` gives ``rank A`` (the ``|R_kk|`` above :data:`.subspace.RANK_RTOL`
``· |R_00|``, as the SVD of :func:`.subspace.subspace` decides it) and, as the last
``Vd − rank`` columns of ``Q``, an orthonormal basis ``N_⊥ᵀ`` of ``ker A = vec ℱ^⊥``
(Eq. 5), applied by LAPACK's ``ormqr`` and never formed (a third to a half of
the SVD's cost).  In the coordinates ``w = N_⊥ᵀ c``, (6a) holds by construction
and Def. 3 is the least-distance problem (LDP) ``min ½‖c‖² s.t. M c ≥ 1`` with
``M = G N_⊥ᵀ`` (``‖W‖ = ‖c‖``), as in :mod:`.svm`'s module docstring.

**Lemma (Lawson & Hanson, *Solving Least Squares Problems*, Ch. 23).**  Let
``u`` solve the NNLS ``min_{u ≥ 0} ‖E u − f‖`` with ``E = [Mᵀ; 1ᵀ]`` and
``f = (0, …, 0, 1)``, ``r = E u − f`` and ``s = 1 − 1ᵀu``.  If ``r = 0`` then
``Mᵀu = 0``, ``1ᵀu = 1``, ``u ≥ 0``: a Farkas certificate, no ``c`` has
``M c ≥ 1``.  Otherwise ``c = Mᵀu / s`` solves the LDP with multipliers
``λ = u / s``.  *Proof.*  The NNLS optimality conditions are ``Eᵀr ≥ 0`` and
``u ⊙ Eᵀr = 0``; here ``Eᵀr = M Mᵀu − s 1`` and ``‖r‖² = uᵀEᵀr − fᵀr = s``, so
``s > 0`` when ``r ≠ 0``, and dividing by ``s``: ``M c ≥ 1``, ``λ ≥ 0``,
``λ ⊙ (M c − 1) = 0`` and ``c = Mᵀλ``, the KKT conditions of the (convex) LDP. ∎

Since ``‖c‖² = λᵀM c = 1ᵀλ``, ``s = 1/(1 + ‖W^mm‖²)``: the NNLS answer loses
``log10(1 + ‖W^mm‖²)`` digits.  So the support ``𝒜 = {k : u_k > 0}`` (linearly
independent rows: Lawson–Hanson's passive set) is solved once more by a linear
solve: ``λ_𝒜 = (M_𝒜 M_𝒜ᵀ)^{-1} 1`` (by the triangular factor of a QR of
``M_𝒜ᵀ``, refined once: Björck's corrected semi-normal equations) and
``c = M_𝒜ᵀ λ_𝒜``, the minimum-norm solution of ``M_𝒜 c = 1`` with its
multipliers, which is the optimum when ``𝒜`` is the right support.

**Certificate.**  The answer kept (the better of the two) is accepted only when
the KKT residuals of :func:`ntpcheck.common.qp.kkt.kkt_residuals` in these
coordinates (primal ``max(0, 1 − M c)``, dual ``max(0, −λ)``, stationarity
``|c − Mᵀλ|``, complementarity ``|λ_k (M c − 1)_k|``: the certificate of the
CLARABEL path, in another orthonormal basis of ℱ^⊥) and the (6a) residual
``max |A w|`` of the point itself are at most :data:`KKT_RTOL` relative to the
size of their terms (``|M||c|``, ``|A||w|``, ``max λ``, ``|Mᵀ||λ|``: a backward
error).  Otherwise :class:`ActiveSetFailed` says why and the caller falls back
to an interior-point solver.  Infeasible data (``r = 0``, or ``s`` so small
that ``‖W^mm‖ > 10⁶``) are left to the caller's Farkas certificate too.

*Coordinates.*  When ``d > m``, with the thin QR ``H̄ = U R_H`` every row
``(e_z − e_v) ⊗ h̄_j = (I ⊗ U)((e_z − e_v) ⊗ R_H e_j)``, and ``I ⊗ U`` is an
isometry; by stationarity (``w = Gᵀλ + Aᵀμ``) ``W^mm = X Uᵀ`` where ``X``
(``V × m``) solves the same problem for the data ``(R_H, counts)``.  So
everything above runs in ``Vm`` instead of ``Vd`` coordinates.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.blas import single_threaded_blas
from ntpcheck.common.errors import SolverFailedError

from .data import NTPData
from .subspace import RANK_RTOL, anchor_index, index_rows

__all__ = ["KKT_RTOL", "ActiveSetFailed", "margin_index", "ntp_svm_active_set"]

#: Accept the active-set answer when every KKT residual, relative to the size of its terms, is below
#: this (well-conditioned answers show ~1e-16; a wrong support shows O(1)).
KKT_RTOL = 1e-10
#: ``s = 1/(1 + ‖W^mm‖²)`` below this (``‖W^mm‖ > 10⁶``): left to the separability LP and CLARABEL.
MIN_SCALE = 1e-12


class ActiveSetFailed(SolverFailedError):
    """The active-set method gave no certified answer (the reason is the message)."""


def margin_index(D: NTPData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.svm.margin_pairs` (anchored) as three index arrays ``(j, z_j, v)``, in the same order.

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> [a.tolist() for a in margin_index(D)]    # (j, z_j, v): (0, 0, 2), (1, 2, 0), (1, 2, 1)
    [[0, 1, 1], [0, 2, 2], [2, 0, 1]]
    """
    j, v = np.nonzero(~D.mask)
    return j, np.argmax(D.mask, axis=1)[j], v


def _perp_coordinates(D: NTPData):
    """``(M, back, A, U)``: the margin rows in ℱ^⊥ coordinates, ``M = G N_⊥ᵀ`` (one row per
    :func:`margin_index`), ``back(c) = N_⊥ᵀ c`` (the point ``vec X``), and the anchor rows ``A`` of
    (6a), in the coordinates ``vec X`` of ``W = X Uᵀ`` (module docstring, *Coordinates*; ``U`` None:
    ``X = W``).  ``N_⊥``: the last ``n − rank`` columns of the Householder ``Q`` of a
    column-pivoted QR of ``Aᵀ``, never formed."""
    from scipy.linalg import qr
    from scipy.linalg.lapack import dormqr

    D2, U = D, None
    if D.d > D.m:  # every row (e_z − e_v) ⊗ h̄_j lies in R^V ⊗ range H̄ = R^V ⊗ range U
        U, Rh = np.linalg.qr(D.H)
        D2 = NTPData(Rh, D.counts)
    A = index_rows(D2, *anchor_index(D2))
    G = index_rows(D2, *margin_index(D2))
    n = G.shape[1]
    if A.shape[0] == 0:  # ℱ = {0}
        return G, (lambda c: c), A, U
    (refl, tau), R, _ = qr(A.T, mode="raw", pivoting=True, check_finite=False)
    refl = refl[:, : len(tau)]
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > RANK_RTOL * diag[0])) if diag[0] > 0 else 0

    def apply(C: np.ndarray, trans: str) -> np.ndarray:  # Qᵀ C or Q C
        out, _, info = dormqr("L", trans, refl, tau, C, lwork=64 * max(1, C.shape[1]))
        if info:
            raise ActiveSetFailed(f"LAPACK dormqr: info {info}")
        return out

    def back(c: np.ndarray) -> np.ndarray:
        z = np.zeros((n, 1))
        z[rank:, 0] = c
        return apply(z, "N")[:, 0]

    return np.ascontiguousarray(apply(G.T, "T")[rank:].T), back, A, U


def _residual(M, A, c, x, lam) -> tuple[float, float]:
    """``(relative, absolute)``: the worst KKT residual in ℱ^⊥ coordinates and of (6a) at ``x = N_⊥ᵀc``
    (module docstring), the relative one with each residual divided by the size of the terms it sums."""
    from ntpcheck.common.qp.kkt import kkt_residuals

    res = kkt_residuals(M, c, lam)
    eq = float(np.max(np.abs(A @ x), initial=0.0))
    ac = np.abs(c)
    rows = max(1.0, float(np.max(np.abs(M) @ ac)), float(np.max(np.abs(A) @ np.abs(x), initial=0.0)))
    top = max(1.0, float(np.max(lam)))
    grad = max(1.0, float(np.max(ac, initial=0.0)), float(np.max(np.abs(M).T @ np.abs(lam), initial=0.0)))
    rel = max((res.primal + eq) / rows, res.dual / top, res.stationarity / grad, res.complementarity / (top * rows))
    return rel, max(res.worst, eq)


def _support_solve(M: np.ndarray, act: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(w, λ)`` of ``min ‖w‖ s.t. M_𝒜 w = 1``: ``RᵀR λ_𝒜 = 1`` with ``R`` from a QR of ``M_𝒜ᵀ`` and
    one step of refinement (Björck's corrected semi-normal equations), ``w = M_𝒜ᵀ λ_𝒜``; None when
    the rows are dependent."""
    from scipy.linalg import qr, solve_triangular

    Ma = M[act]
    if not 0 < len(act) <= Ma.shape[1]:
        return None
    R = qr(Ma.T, mode="r", check_finite=False)[0][: len(act)]
    diag = np.abs(np.diag(R))
    if diag.min() <= 1e-12 * diag.max():
        return None

    def normal(rhs):
        return solve_triangular(R, solve_triangular(R, rhs, trans="T", check_finite=False), check_finite=False)

    lam_a = normal(np.ones(len(act)))
    lam_a += normal(1.0 - Ma @ (Ma.T @ lam_a))
    lam = np.zeros(M.shape[0])
    lam[act] = lam_a
    return Ma.T @ lam_a, lam


def ntp_svm_active_set(D: NTPData) -> tuple[np.ndarray, np.ndarray, float]:
    """``(W^mm, λ, kkt)``: Def. 3 by the Lemma and the support's linear solve (module docstring), with
    ``λ`` one multiplier per anchor margin row and ``kkt`` the largest absolute KKT residual (ℱ^⊥
    coordinates) or (6a) residual.

    Raises
    ------
    ActiveSetFailed
        No certified answer (infeasible or nearly infeasible data among the causes).

    Examples
    --------
    >>> D = NTPData(np.array([[1.0, 0.6], [0.0, 0.8]]), np.array([[1, 1, 0], [0, 0, 1]]))
    >>> W, lam, kkt = ntp_svm_active_set(D)
    >>> np.round(3 * W @ D.H, 10).tolist(), kkt < 1e-13     # logits × 3: both margins exactly 1
    ([[1.0, -1.0], [1.0, -1.0], [-2.0, 2.0]], True)
    """
    from scipy.optimize import nnls

    with single_threaded_blas():
        M, back, A, U = _perp_coordinates(D)
        K, n = M.shape
        if K == 0:  # every context has full support: W = 0 meets (6a), (6b) is empty
            return np.zeros((D.V, D.d)), np.zeros(0), 0.0
        E = np.vstack([M.T, np.ones((1, K))])
        f = np.zeros(n + 1)
        f[-1] = 1.0
        try:
            u, _ = nnls(E, f, maxiter=10 * K + 10)
        except RuntimeError as e:
            raise ActiveSetFailed(f"NNLS: {e}") from None
        s = 1.0 - float(u.sum())
        if not s > MIN_SCALE:
            raise ActiveSetFailed(f"infeasible or nearly so (1/(1 + |W|^2) = {s:.2g})")
        best = None
        for cand in (_support_solve(M, np.flatnonzero(u > 0)), (M.T @ u / s, u / s)):
            if cand is not None:
                x = back(cand[0])
                rel, worst = _residual(M, A, cand[0], x, cand[1])
                if best is None or rel < best[0]:
                    best = (rel, worst, x, cand[1])
                if rel <= KKT_RTOL:
                    break
        rel, worst, x, lam = best
        if not rel <= KKT_RTOL:
            raise ActiveSetFailed(f"KKT residual {rel:.1e} relative after the support solve")
        X = x.reshape(D.V, -1)
        return (X if U is None else X @ U.T), lam, worst
