"""The data subspace ℱ (Eq. 5), its projections, W⋆ and NTP_ℋ-compatibility (Def. 1, Fn. 6).

Matrices ``W ∈ R^{V×d}`` are vectorised row by row (``W.ravel()``), so the
inner product ``⟨W, (e_z − e_z′) h̄_jᵀ⟩ = (e_z − e_z′)ᵀ W h̄_j`` is a row of a
matrix times ``vec W``.

* **Anchor rows** ``A`` (§3, after Def. 1): for each context ``j`` with
  support ``𝒮_j`` and anchor ``z_j = min 𝒮_j``, one row
  ``vec((e_z − e_{z_j}) h̄_jᵀ)`` per ``z ∈ 𝒮_j \\ {z_j}``; ``b`` holds
  ``log(p̂_{j,z}/p̂_{j,z_j})``.  Every pair ``z ≠ z′ ∈ 𝒮_j`` is a difference of
  two anchor rows, so (4) for all pairs ⇔ ``A vec W = b`` (``D1-ind``), and
  ``ℱ = row space of A`` (Eq. 5).
* ``P_ℱ`` and ``P_⊥`` from an orthonormal basis of the row space (SVD).
* **W⋆** (Fn. 6): ``vec W⋆ = A† b``, the minimum-norm solution of (4), which
  lies in the row space ℱ; it is the unique solution in ℱ (two solutions in ℱ
  differ by an element of ℱ ∩ ker A = ℱ ∩ ℱ^⊥ = {0}), and every solution is
  ``W⋆ + W_null`` with ``W_null ∈ ker A = ℱ^⊥``.
* **Compatibility** (Def. 1) ⇔ ``b ∈ range A``.  Certificate either way: the
  residual ``r = b − A A† b``; if ``r ≠ 0``, then ``y = r/‖r‖²`` has
  ``Aᵀy = 0`` and ``bᵀy = 1`` (``Aᵀr = 0`` since ``r ⊥ range A``), so no ``W``
  solves (4): ``0 = (A vec W)ᵀy = bᵀy = 1`` would follow.

Tolerances
----------
Ranks are numerical: singular values below ``RANK_RTOL · σ_max`` (``1e-10``)
count as zero.  The data a search draws have well-conditioned embeddings
(Gaussian, unit-norm or orthonormal columns with integer counts) or exactly
repeated ones (the breakers), so their singular values are either O(1) or at
rounding level (~1e-16 σ_max); 1e-10 separates the two by six orders either
way.  Compatibility is decided on the relative residual ``‖r‖/(1 + ‖b‖)``
against ``COMPAT_RTOL = 1e-8`` for the same reason: exact systems leave
~1e-15, incompatible ones O(min |log-ratio difference|) ≥ O(1/n).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ntpcheck.common.blas import single_threaded_blas

from .data import NTPData

__all__ = ["RANK_RTOL", "COMPAT_RTOL", "index_rows", "pair_rows", "anchor_pairs", "anchor_index", "anchor_rows", "Subspace", "subspace", "Compatibility", "compatibility", "w_star"]

RANK_RTOL = 1e-10
COMPAT_RTOL = 1e-8


def index_rows(D: NTPData, j: np.ndarray, z: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rows ``vec((e_{z_k} − e_{v_k}) h̄_{j_k}ᵀ)`` for index arrays ``j, z, v`` (row-major vec of V × d)."""
    k = np.arange(len(j))
    R = np.zeros((len(j), D.V, D.d))
    Hj = D.H.T[j]
    R[k, z] = Hj
    R[k, v] -= Hj  # a pair z = v gives the zero row
    return R.reshape(len(j), D.V * D.d)


def pair_rows(D: NTPData, pairs: list[tuple[int, int, int]]) -> np.ndarray:
    """Rows ``vec((e_z − e_v) h̄_jᵀ)`` for ``(j, z, v)`` in ``pairs`` (row-major vec of V × d)."""
    j, z, v = np.array(pairs, dtype=np.int64).reshape(-1, 3).T
    return index_rows(D, j, z, v)


def anchor_pairs(D: NTPData) -> list[tuple[int, int, int]]:
    """``(j, z, z_j)`` for every context ``j`` and ``z ∈ 𝒮_j`` other than its anchor ``z_j = min 𝒮_j``."""
    return [(j, z, s[0]) for j, s in enumerate(D.supports) for z in s[1:]]


def anchor_rows(D: NTPData) -> tuple[np.ndarray, np.ndarray]:
    """``(A, b)``: the anchor form of (4), ``A vec W = b`` (module docstring).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> A, b = anchor_rows(D)
    >>> A.shape, np.round(b, 4).tolist()
    ((1, 6), [-0.6931])
    """
    j, z, a = anchor_index(D)
    b = np.log(D.counts[j, z] / D.counts[j, a])
    return index_rows(D, j, z, a), b


def anchor_index(D: NTPData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`anchor_pairs` as three index arrays ``(j, z, z_j)``, in the same order."""
    anchor = np.argmax(D.mask, axis=1)  # the first in-support token: min 𝒮_j
    j, z = np.nonzero(D.mask & (np.arange(D.V) != anchor[:, None]))
    return j, z, anchor[j]


@dataclass(frozen=True, eq=False)
class Subspace:
    """ℱ (Eq. 5) of a training set: an orthonormal basis of ``vec ℱ`` and the projections.

    ``basis`` is ``dim ℱ × Vd`` with orthonormal rows spanning ``row space(A)``.
    """

    V: int
    d: int
    basis: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.basis.shape[0])

    def project(self, W: np.ndarray) -> np.ndarray:
        """``P_ℱ(W)`` (Eq. 5's orthogonal projection; App. D's ``W_ℱ``)."""
        w = np.asarray(W, dtype=float).ravel()
        return (self.basis.T @ (self.basis @ w)).reshape(self.V, self.d)

    def perp(self, W: np.ndarray) -> np.ndarray:
        """``P_⊥(W) = W − P_ℱ(W)`` (App. D's ``W_⊥``)."""
        W = np.asarray(W, dtype=float)
        return W - self.project(W)

    @cached_property
    def null_basis(self) -> np.ndarray:
        """Orthonormal rows spanning ``vec ℱ^⊥`` (``Vd − dim ℱ`` of them)."""
        if self.dim == 0:
            return np.eye(self.V * self.d)
        with single_threaded_blas():
            _, s, Vt = np.linalg.svd(self.basis, full_matrices=True)
        return Vt[self.dim:]


def _row_space(A: np.ndarray, width: int) -> np.ndarray:
    if A.shape[0] == 0:
        return np.zeros((0, width))
    with single_threaded_blas():
        _, s, Vt = np.linalg.svd(A, full_matrices=False)
    rank = int(np.sum(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
    return Vt[:rank]


def subspace(D: NTPData) -> Subspace:
    """ℱ of ``D`` (Eq. 5).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> F = subspace(D)
    >>> F.dim                       # one in-support pair: (e_1 - e_0) h_0^T
    1
    >>> np.round(F.project(np.ones((3, 2))), 3).tolist()   # 1 - 1 = 0 along that direction
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    """
    A, _ = anchor_rows(D)
    return Subspace(D.V, D.d, _row_space(A, D.V * D.d))


@dataclass(frozen=True)
class Compatibility:
    """NTP_ℋ-compatibility (Def. 1) with its certificate.

    Attributes
    ----------
    compatible : bool
        Whether (4) has a solution (relative residual ≤ :data:`COMPAT_RTOL`).
    w_star : ndarray (V × d)
        ``A† b`` reshaped: W⋆ when compatible (the least-squares point otherwise).
    residual : float
        ``‖A vec W⋆ − b‖``.
    dual : ndarray or None
        When not compatible: ``y`` with ``Aᵀy = 0`` (to rounding) and ``bᵀy = 1``,
        one coefficient per anchor row (:func:`anchor_pairs`); no ``W`` solves (4).
    """

    compatible: bool
    w_star: np.ndarray
    residual: float
    dual: np.ndarray | None


def compatibility(D: NTPData) -> Compatibility:
    """Decide Def. 1 by the linear system (4) in anchor form, with a certificate (module docstring).

    Examples
    --------
    >>> D = NTPData(np.ones((1, 2)), np.array([[1, 1], [2, 1]]))   # one embedding, two different p̂
    >>> c = compatibility(D)
    >>> c.compatible, float(np.round(anchor_rows(D)[1] @ c.dual, 12))
    (False, 1.0)
    """
    A, b = anchor_rows(D)
    if A.shape[0] == 0:
        return Compatibility(True, np.zeros((D.V, D.d)), 0.0, None)
    w = np.linalg.lstsq(A, b, rcond=RANK_RTOL)[0]
    r = b - A @ w
    res = float(np.linalg.norm(r))
    ok = res <= COMPAT_RTOL * (1.0 + float(np.linalg.norm(b)))
    return Compatibility(ok, w.reshape(D.V, D.d), res, None if ok else r / (res * res))


def w_star(D: NTPData) -> np.ndarray:
    """W⋆ (Fn. 6): the unique solution of (4) in ℱ.

    Raises
    ------
    InfeasibleProblemError
        If ``D`` is not NTP_ℋ-compatible (the residual is named).

    Examples
    --------
    >>> D = NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 3]]))
    >>> W = w_star(D)
    >>> float(np.round((W[0] - W[1]) @ D.H[:, 0], 12)) == float(np.round(np.log(2), 12))
    True
    """
    from ntpcheck.common.errors import InfeasibleProblemError

    c = compatibility(D)
    if not c.compatible:
        raise InfeasibleProblemError(f"the data are not NTP_H-compatible (Def. 1): Eq. (4) has residual {c.residual:.3g}")
    return c.w_star
