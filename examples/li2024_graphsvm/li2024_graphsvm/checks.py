"""The checkers of the claims (:mod:`.claims`): each takes an instance's evidence
(:class:`~.instance.GraphEvidence`) and returns an :class:`ntpcheck.api.Outcome`.

Limits are judged by ntpcheck's one judge of limits (:func:`ntpcheck.api.judge`): on the distance to
the claimed limit over the last two decades of GD's run (``t`` in ``[steps/100, steps]``, 1000 steps
by default), confirmed on a run 10 times as long; a candidate failure needs both horizons to settle
geometrically at limits that agree (``max_factor=10``: runs of at most ``10 * steps`` steps).  Each limit is
a part whose mutant is the limit 1% off (:func:`ntpcheck.api.mutable`): the direction turned by
0.01 rad, ``1.01 W_fin``.

Rounding floors: ``1 - cos`` of unit matrices computed as ``||U - V||^2 / 2`` carries errors of
~1e-16 (:data:`COS_FLOOR` = 1e-12 leaves four digits); ``||P W_t - W_fin||`` is a difference of
matrices of norm up to ``max(||W_t||, ||W_fin||)`` with ~1e-16 relative error per entry
(floor ``1e-13 max(1, ||W_t||, ||W_fin||)``).  Identities (the certificate, the bridge) are
checked to 1e-9 (:data:`TOL`): the solvers reach ~1e-14 on these sizes.

Examples
--------
>>> from .worked import instance, CYCLIC
>>> check_certificate(instance(CYCLIC).evidence()).verdict.value
'holds'
>>> check_certificate(instance(CYCLIC).evidence(), scale=1.01).verdict.value   # 1.01 W^svm offered
'falsified'
"""

from __future__ import annotations

import numpy as np
from ntpcheck.api import Outcome, at_horizons, inequality, judge, mutable, requires, vacuous

from .svm import CERTIFIED, certificate

__all__ = ["TOL", "COS_FLOOR", "check_certificate", "check_direction", "check_finite", "check_bridge", "one_minus_cos",
           "rotated", "direction_run", "finite_run"]

TOL = CERTIFIED
COS_FLOOR = 1e-12
#: Decades of the run the limits are read on, and the longest confirming run (times ``steps``).
DECADES, MAX_FACTOR = 2.0, 10

_independent = requires(lambda ev: ev.independent, "the token embeddings are linearly dependent: the Graph-SVM may "
                                                   "have no solution")


def _crosses(ev) -> bool:
    return ev.independent and len(ev.constraints.inequalities) > 0


def _cyclic(ev) -> bool:
    return ev.independent and len(ev.basis) > 0 and ev.finite.grad <= 1e-9 and ev.finite.min_curvature > 1e-10


@_independent
def check_certificate(ev, *, scale: float = 1.0) -> Outcome:
    """The Graph-SVM's KKT residuals (:func:`.svm.certificate`) are at most 1e-9
    (``scale``: the sabotage, ``scale W^svm`` offered with fitted multipliers)."""
    c = ev.constraints
    if not len(c.inequalities):
        return vacuous(1.0, "no edge crosses components: W^svm = 0")
    s = ev.svm if scale == 1.0 else certificate(c.A_eq, c.A_in, scale * ev.svm.w)
    r = s.residuals
    o = inequality(r["worst"], TOL, what="the Graph-SVM's largest KKT residual <= 1e-9", rhs_kind="tolerance")
    return Outcome(o.verdict, o.slack, {**o.measured, **r, "norm": float(np.linalg.norm(s.w)),
                                        "equalities": len(c.equalities), "inequalities": len(c.inequalities)},
                   o.detail + f" (eq {r['eq']:.2g}, margin {r['margin']:.2g}, stationarity {r['stationarity']:.2g}, "
                              f"dual {r['dual']:.2g}, complementarity {r['complementarity']:.2g})", o.series)


def one_minus_cos(Ws: np.ndarray, U: np.ndarray) -> np.ndarray:
    """``1 - <W, U>/(||W|| ||U||)`` per matrix of the stack ``Ws``, as ``||W/||W|| - U/||U|| ||^2 / 2``."""
    Ws = np.asarray(Ws, dtype=float)
    norms = np.linalg.norm(Ws.reshape(len(Ws), -1), axis=1)[:, None, None]
    return 0.5 * np.sum((Ws / norms - U / np.linalg.norm(U)) ** 2, axis=(1, 2))


def rotated(U: np.ndarray, angle: float) -> np.ndarray:
    """``U`` (unit-normalised) turned by ``angle`` radians towards a fixed direction orthogonal to it.

    Examples
    --------
    >>> U = rotated(np.eye(2), 0.3)
    >>> round(float(np.sum(U * np.eye(2)) / np.sqrt(2)), 12) == round(float(np.cos(0.3)), 12)
    True
    """
    u = U / np.linalg.norm(U)
    G = np.random.default_rng(2024).normal(size=U.shape)
    G -= np.sum(G * u) * u
    return np.cos(angle) * u + np.sin(angle) * G / np.linalg.norm(G)


def direction_run(ev, ref: np.ndarray):
    """``factor -> (t, 1 - cos(W_t, ref), floor)`` over GD's run of ``factor * steps`` steps."""

    def run(factor: int):
        tr = ev.gd_at(factor)
        return tr.t, one_minus_cos(tr.W, ref), COS_FLOOR

    return run


def finite_run(ev, ref: np.ndarray):
    """``factor -> (t, ||P_S W_t - ref||, floor)`` over GD's run of ``factor * steps`` steps."""
    scale = max(1.0, float(np.linalg.norm(ref)))

    def run(factor: int):
        tr = ev.gd_at(factor)
        dist = np.linalg.norm((ev.project(tr.W) - ref).reshape(len(tr.t), -1), axis=1)
        return tr.t, dist, 1e-13 * np.maximum(scale, np.linalg.norm(tr.W.reshape(len(tr.t), -1), axis=1))

    return run


@requires(_crosses, "linearly dependent embeddings, or no edge across components (W^svm = 0: no direction)")
def check_direction(ev, *, turn: float = 0.0) -> Outcome:
    """``W_t/||W_t|| -> W^svm/||W^svm||``: ``1 - cos(W_t, W^svm)`` judged as a limit (module docstring);
    ``turn``: the sabotage, the reference turned by that many radians."""
    ref = mutable("lim direction", ev.w_svm if turn == 0.0 else rotated(ev.w_svm, turn), lambda U: rotated(U, 0.01))
    return judge(at_horizons(direction_run(ev, ref)), "1 - cos(W_t, W^svm)", decades=DECADES, max_factor=MAX_FACTOR,
                 norm_svm=float(np.linalg.norm(ev.w_svm)))


@requires(_cyclic, "linearly dependent embeddings, no SCC of two tokens or more (S_fin = 0), or a reduced loss "
                   "without a unique minimiser on S_fin")
def check_finite(ev, *, offset: float = 0.0) -> Outcome:
    """``P_{S_fin} W_t -> W_fin``: so ``W_t = R_t W^svm/||W^svm|| + W_fin + (a part orthogonal to both)``, its
    within-component part finite and fixed, as ``W^svm`` is orthogonal to ``S_fin`` (:mod:`.graph`);
    ``||P W_t - W_fin||`` judged as a limit; ``offset``: the sabotage, ``(1 + offset) W_fin`` as the limit."""
    W_fin = mutable("lim W_fin", (1.0 + offset) * ev.finite.W, "up")
    return judge(at_horizons(finite_run(ev, W_fin)), "||P_S W_t - W_fin||", decades=DECADES, max_factor=MAX_FACTOR,
                 norm_fin=float(np.linalg.norm(ev.finite.W)), dim_S=len(ev.basis))


@requires(lambda ev: _crosses(ev) and ev.acyclic, "linearly dependent embeddings, a cycle in some G^(q), or no edge")
def check_bridge(ev, *, scale: float = 1.0) -> Outcome:
    """``W^svm = W*_kq`` (Huang et al.'s Eq. (3), :mod:`.bridge`) to 1e-9 of ``max(1, max |W*_kq|)``
    (``scale``: the sabotage, ``scale W*_kq`` compared)."""
    from .bridge import w_kq

    W_kq = scale * w_kq(ev.data)
    diff = float(np.abs(ev.w_svm - W_kq).max()) / max(1.0, float(np.abs(W_kq).max()))
    return inequality(diff, TOL, what="max |W^svm - W*_kq| / max(1, max |W*_kq|) <= 1e-9", rhs_kind="tolerance")
