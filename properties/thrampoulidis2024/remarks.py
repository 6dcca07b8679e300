"""Two side statements of Thrampoulidis (2024): R2 (a norm identity in the proof of Lemma 4) and Remark 1's
citation of Cover (1965).

* **R2.** The proof of Lemma 4's fourth claim (App. E.1.1) uses ``‖W_k‖ = ‖P_ℱ(W_k)‖ + ‖P_⊥(W_k)‖``.
  ℱ and ℱ^⊥ are orthogonal, so the true identity is Pythagoras', ``‖W‖² = ‖P_ℱW‖² + ‖P_⊥W‖²``, and
  the printed sum holds only where one part is 0.  What the proof needs, ``‖P_⊥W_k‖ ≥ ‖W_k‖ −
  ‖P_ℱW_k‖ → ∞`` while ``P_ℱW_k`` stays bounded, follows from Pythagoras (or the triangle
  inequality): the conclusion stands.  Checked at GD's recorded iterates.
* **Cover** (Remark 1's citation).  Remark 1 (one-hot data, ``S_j = 1``: NTP-separability is multiclass
  separability) says "Cover: for binary labels, d/m > 1/2 is necessary and sufficient for data
  in general position" and gives no statement to check beyond that.  Read as Cover's function
  counting theorem, the exact fact behind it: of the ``2^m`` labelings of ``m`` contexts in
  general position in ``R^d`` with ``V = 2`` tokens, exactly ``C(m, d) = 2 Σ_{k<d} binom(m−1, k)``
  are NTP-separable (homogeneous linear separability: ``W`` has no bias), so more than half
  are iff ``m < 2d``, i.e. ``d/m > 1/2``.  Every labeling is decided by the paper's own
  separability LP (:func:`ntpcheck.linear.svm.separability`, with its certificate).
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from ntpcheck.linear import LinearInstance, NTPData
from ntpcheck.linear.svm import separability

from ..framework.checks import RTOL, falsified, holds, outside
from ..framework.claim import Claim, Finding, Structural
from ..framework.verdicts import Verdict
from .bounds import cover_count
from .setups import HYP

__all__ = ["check_r2", "r2_counterexample", "cover_instances", "check_cover", "general_position", "REMARK_CLAIMS"]


def _parts(ev):
    W = ev.gd.W
    PF = ev.references.project(W)
    norm = lambda A: np.sqrt(np.sum(A * A, axis=(1, 2)))  # noqa: E731
    return ev.gd.k, norm(W), norm(PF), norm(W - PF)


def check_r2(ev, *, printed: bool = False):
    """R2 at GD's recorded iterates: ``‖W‖ = ‖P_ℱW‖ + ‖P_⊥W‖`` (``printed``) or ``‖W‖² = ‖P_ℱW‖² + ‖P_⊥W‖²``
    (Pythagoras, with ``‖P_⊥W‖ ≥ ‖W‖ − ‖P_ℱW‖``), each to ``RTOL`` of ``‖W‖`` (``‖W‖²``)."""
    if not (ev.compat.compatible and ev.sep.separable):
        return outside("the data are not compatible and separable")
    k, n, f, p = _parts(ev)
    ok = n > 0
    if not ok.any():
        return outside("W_k = 0 at every recorded step")
    if printed:
        err, what = np.abs(n - (f + p)) / np.where(ok, n, 1.0), "||W|| = ||P_F W|| + ||P_perp W|| (as printed)"
    else:
        err, what = np.abs(n * n - (f * f + p * p)) / np.where(ok, n * n, 1.0), "||W||^2 = ||P_F W||^2 + ||P_perp W||^2"
    i = int(np.argmax(np.where(ok, err, -1.0)))
    m = {"k": int(k[i]), "norm": float(n[i]), "norm_F": float(f[i]), "norm_perp": float(p[i])}
    if err[i] > RTOL:
        return falsified(-float(err[i]), f"{what}: at k = {int(k[i])}, ||W|| = {n[i]:.6g}, ||P_F W|| = {f[i]:.6g}, "
                                         f"||P_perp W|| = {p[i]:.6g}", **m)
    return holds(RTOL - float(err[i]), f"{what} at all {int(ok.sum())} recorded iterates (largest relative error "
                                       f"{err[i]:.2g})", **m)


def r2_counterexample() -> LinearInstance:
    """Two orthonormal contexts, the first followed by ``A`` twice and ``B`` once (``W⋆ ≠ 0``), the second by
    ``C``: GD's iterates have both parts nonzero, and ``‖W_k‖ < ‖P_ℱW_k‖ + ‖P_⊥W_k‖``."""
    return LinearInstance(NTPData(np.eye(2), np.array([[2, 1, 0], [0, 0, 1]])))


def cover_instances(profile: str):
    """``m`` (1-6) contexts in ``R^d`` (``d`` 1-4), i.i.d. normal from a drawn seed (in general position
    almost surely), ``V = 2``, every context followed by ``A`` (the check relabels them all ways);
    shrinking towards one context in one dimension."""
    def make(m: int, d: int, seed: int) -> LinearInstance:
        H = np.random.default_rng(seed).normal(size=(d, m))
        return LinearInstance(NTPData(H, np.tile(np.array([[1, 0]]), (m, 1))))

    return st.builds(make, st.integers(1, 6), st.integers(1, 4), st.integers(0, 10_000))


def general_position(H: np.ndarray) -> bool:
    """Every ``min(d, m)`` of the ``m`` columns of ``H`` (``d × m``) are linearly independent (smallest
    singular value above ``1e-8`` of the largest)."""
    d, m = H.shape
    for cols in itertools.combinations(range(m), min(d, m)):
        s = np.linalg.svd(H[:, cols], compute_uv=False)
        if s[-1] <= 1e-8 * max(s[0], 1e-300):
            return False
    return True


def check_cover(ev, *, dim_offset: int = 0):
    """The number of NTP-separable labelings of the instance's contexts (``V = 2``, every one of the
    ``2^m``) equals ``C(m, d)`` (``dim_offset``: the sabotage, ``C(m, d + 1)``), and more than half
    of them are separable iff ``d/m > 1/2``."""
    D = ev.data
    if D.V != 2 or not general_position(D.H):
        return outside("not V = 2 with contexts in general position")
    m, d = D.m, D.d
    count = 0
    for labels in itertools.product((0, 1), repeat=m):
        counts = np.zeros((m, 2), dtype=int)
        counts[np.arange(m), labels] = 1
        count += bool(separability(NTPData(D.H, counts)).separable)
    expected = cover_count(m, d + dim_offset)
    meas = {"m": m, "d": d, "separable": count, "labelings": 2**m, "cover": expected}
    if count != expected:
        return falsified(-abs(count - expected) / 2**m, f"{count} of {2**m} labelings separable, Cover's C({m}, "
                                                       f"{d + dim_offset}) = {expected}", **meas)
    half = count > 2 ** (m - 1)
    if half != (d / m > 0.5):
        return falsified(-1.0, f"{count} of {2**m} separable, yet d/m = {d}/{m}", **meas)
    return holds(1.0, f"{count} of {2**m} labelings separable = C({m}, {d}); more than half iff d/m > 1/2 "
                      f"(d/m = {d}/{m})", **meas)


def _sabotage_r2():
    from ..framework.evidence import evidence

    return check_r2(evidence(r2_counterexample()), printed=True)   # the printed sum in place of Pythagoras


def _sabotage_cover():
    from ..framework.evidence import evidence

    H = np.random.default_rng(1).normal(size=(2, 4))   # four contexts in the plane: C(4, 2) = 8 of 16
    return check_cover(evidence(LinearInstance(NTPData(H, np.tile(np.array([[1, 0]]), (4, 1))))), dim_offset=1)


R2_FINDING = Finding(
    "R2: the proof of Lemma 4 (App. E.1.1, fourth claim) uses ||W_k|| = ||P_F(W_k)|| + ||P_perp(W_k)||; F and F-perp are "
    "orthogonal, so ||W||^2 = ||P_F W||^2 + ||P_perp W||^2 and the printed sum fails wherever both parts are nonzero "
    "(two orthonormal contexts, A x2, B after the first, C after the second: ||W_1|| = 0.544 < 0.236 + 0.491). The "
    "step needs only ||P_perp W_k|| >= ||W_k|| - ||P_F W_k||, which Pythagoras gives: the conclusion stands", r2_counterexample)


def _gd(profile: str):
    from .dynamics import gd_instances

    return gd_instances(profile)


REMARK_CLAIMS = (
    Claim("R2", "App. E.1.1 (proof of Lemma 4)", "||W_k|| = ||P_F(W_k)|| + ||P_perp(W_k)|| at GD's iterates (as printed)", HYP,
          _gd, lambda ev: check_r2(ev, printed=True), setup=lambda i: i, reading="as printed", expect=Verdict.FALSIFIED,
          finding=R2_FINDING, examples=(r2_counterexample,)),
    Claim("R2", "App. E.1.1 (corrected)", "||W_k||^2 = ||P_F(W_k)||^2 + ||P_perp(W_k)||^2 at GD's iterates, so "
          "||P_perp W_k|| >= ||W_k|| - ||P_F W_k||", HYP, _gd, check_r2, setup=lambda i: i, reading="Pythagoras",
          sabotage=Structural(_sabotage_r2, "the printed sum in place of Pythagoras")),
    Claim("Cover", "§3.1, Remark 1 (Cover 1965)", "(the paper cites Cover: 'for binary labels, d/m > 1/2 is necessary and "
          "sufficient'; read as Cover's counting theorem) of the 2^m labelings of m contexts in general position in R^d, "
          "V = 2, exactly C(m, d) = 2 sum_{k<d} binom(m-1, k) are NTP-separable, more than half iff d/m > 1/2", (),
          cover_instances, check_cover, setup=lambda i: i,
          sabotage=Structural(_sabotage_cover, "Cover's count in dimension d + 1")),
)
