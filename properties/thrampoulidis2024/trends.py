"""Rate-free limits judged by trends with intervals (Thrampoulidis 2024's Thm. 1, Thm. 2, Lemma 2, Lemma 4).

The paper's dynamics results are limits without rates: ``⟨W̄_k, W̄^mm⟩ → 1``,
``P_ℱ(W_k) → W⋆``, ``‖W_k‖ → ∞``, ``CE(W_k) → ℋ``, and the same along the
regularization path as ``B → ∞``.  A finite run cannot prove or refute a
limit, and one threshold at one step would only restate the horizon.  So a
limit is judged by the **trend over the last decades** of the run:

* ``q → 0`` (``q`` = 1 − corr, ``‖P_ℱW_k − W⋆‖``, ``CE − ℋ``): the least-squares
  slope ``b`` of ``log q`` against ``log t`` (``t`` = the step ``k`` or the radius
  ``B``) over ``t ∈ [t_max/10^decades, t_max]``, at the recorded points (which are
  geometric in ``t``, so every part of the window weighs alike), with the
  Student-t 95% interval of the slope (:func:`scipy.stats.linregress`).  The
  curves are deterministic, so the interval measures how far the window is
  from a straight line in log-log, not noise: it is a regression interval,
  not a confidence statement about a random quantity.
* ``y → ∞`` (``‖W_k‖``, ``‖P_⊥W_k‖``): the slope of ``y`` itself against ``log t``
  (GD's norm grows like ``‖W^mm‖ log k``, so a positive slope in ``log t`` is
  growth without bound if it persists).

Verdict (:func:`judge`): the interval entirely on the side the limit needs
(``b < 0`` for ``→ 0``, ``b > 0`` for ``→ ∞``) → ``holds``; entirely on the other
side (a sustained move away from the limit over the whole window) →
``falsified``; straddling 0, or fewer than :data:`MIN_POINTS` usable points →
``inconclusive``.  Points where ``q`` is at its rounding level (``q ≤ floor``)
are left out: below it the curve is rounding, not dynamics, and a rounding
floor that grows with ``‖W‖`` would read as a spurious increase.  The window
ends at the last point above the floor: if the quantity reached its floor
early (fast convergence, as ``P_ℱW_k → W⋆`` with orthogonal contexts), the
trend is that of its approach to the floor; if no
point is above the floor at all (``q`` is rounding from the start, e.g. ``W⋆ = 0``
from zero init) the claim is ``vacuous`` there: it could not have failed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntpcheck.properties.framework.checks import falsified, holds, inconclusive, vacuous
from ntpcheck.properties.framework.verdicts import Outcome

__all__ = ["MIN_POINTS", "Trend", "trend", "judge", "limit_zero", "limit_infinity"]

#: Fewest points a trend is fitted on (with 20 points per decade, 2 decades give ~40).
MIN_POINTS = 8


@dataclass(frozen=True)
class Trend:
    """A fitted slope with its 95% interval, over ``t ∈ [t_from, t_to]`` (``points`` points)."""

    slope: float
    lo: float
    hi: float
    t_from: float
    t_to: float
    points: int
    log_y: bool

    def as_measured(self) -> dict:
        return {"trend_slope": self.slope, "trend_ci": [self.lo, self.hi], "trend_window": [self.t_from, self.t_to],
                "trend_points": self.points, "trend_of": "log y against log t" if self.log_y else "y against log t"}


def trend(t, y, *, decades: float = 2.0, log_y: bool = True, floor=None) -> Trend | None:
    """The slope of ``log y`` (or ``y``) against ``log t`` over the last ``decades`` decades of ``t``.

    Only points with ``t > 0``, finite ``y``, ``y > 0`` (for ``log_y``) and ``y > floor``
    (a number or an array like ``y``) count.  None if fewer than :data:`MIN_POINTS`.

    Examples
    --------
    >>> t = np.geomspace(1, 1e4, 81)
    >>> tr = trend(t, 1 / np.log(t + 1) ** 2)
    >>> tr.hi < 0, (tr.t_from, tr.t_to)
    (True, (100.0, 10000.0))
    >>> trend(t, np.log(t + 1), log_y=False).lo > 0
    True
    """
    from scipy import stats

    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = (t > 0) & np.isfinite(y)
    if log_y:
        ok &= y > 0
    if floor is not None:
        ok &= y > np.broadcast_to(np.asarray(floor, dtype=float), y.shape)
    if not ok.any():
        return None
    t_max = float(t[ok].max())
    ok &= t >= t_max / 10.0**decades * (1 - 1e-12)
    if ok.sum() < MIN_POINTS:
        return None
    x, v = np.log(t[ok]), (np.log(y[ok]) if log_y else y[ok])
    r = stats.linregress(x, v)
    half = float(stats.t.ppf(0.975, ok.sum() - 2) * r.stderr)
    return Trend(float(r.slope), float(r.slope - half), float(r.slope + half), float(t[ok].min()), t_max, int(ok.sum()), log_y)


def judge(tr: Trend | None, toward: str, what: str, *, reached: bool = False, **measured) -> Outcome:
    """The verdict of a limit from its trend (module docstring).

    ``toward``: ``"zero"`` (the slope must be negative) or ``"infinity"`` (positive).
    ``reached``: no point was above the rounding floor (the limit is met to rounding: ``vacuous``).
    The slack is the interval's distance from 0 on the side the limit needs, in slope units
    (negative when the whole interval is on the wrong side).
    """
    if toward not in ("zero", "infinity"):
        raise ValueError(f"toward must be 'zero' or 'infinity', got {toward!r}")
    if tr is None:
        if reached:
            return vacuous(0.0, f"{what}: at rounding level over the whole window (the limit is reached to rounding)", **measured)
        return inconclusive(f"{what}: fewer than {MIN_POINTS} usable points in the window", **measured)
    m = {**measured, **tr.as_measured()}
    sign = -1.0 if toward == "zero" else 1.0
    good_lo, good_hi = sorted((sign * tr.lo, sign * tr.hi))  # the interval, oriented so that > 0 is good
    arrow = "decreases" if toward == "zero" else "grows"
    window = f"t in [{tr.t_from:.4g}, {tr.t_to:.4g}]"
    if good_lo > 0:
        return holds(good_lo, f"{what} {arrow} over {window}: slope {tr.slope:.3g} [{tr.lo:.3g}, {tr.hi:.3g}]", **m)
    if good_hi < 0:
        return falsified(good_hi, f"{what} moves away from its limit over {window}: slope {tr.slope:.3g} "
                                  f"[{tr.lo:.3g}, {tr.hi:.3g}]", **m)
    return inconclusive(f"{what}: no trend over {window}, slope {tr.slope:.3g} [{tr.lo:.3g}, {tr.hi:.3g}] straddles 0", **m)


def limit_zero(t, q, what: str, *, floor=0.0, decades: float = 2.0, **measured) -> Outcome:
    """``q(t) → 0``: :func:`judge` of the trend of ``log q`` against ``log t`` above ``floor``.

    Examples
    --------
    >>> k = np.geomspace(1, 1e4, 81)
    >>> limit_zero(k, 1 / np.log(k + 2) ** 2, "1 - corr").verdict.value
    'holds'
    >>> limit_zero(k, 1 - 1 / np.log(k + 2), "1 - corr").verdict.value   # rises towards 1
    'falsified'
    >>> limit_zero(k, np.full(k.shape, 1e-17), "1 - corr", floor=1e-12).verdict.value
    'vacuous'
    >>> limit_zero(k, np.maximum(np.exp(-k), 1e-17), "dist", floor=1e-12).detail  # converged before the window
    'dist (at rounding level from t = 28.18) decreases over t in [1, 25.12]: slope -6.55 [-7.62, -5.48]'
    """
    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float)
    fl = np.broadcast_to(np.asarray(floor, dtype=float), q.shape)
    above = np.isfinite(q) & (q > fl)
    tr = trend(t, q, decades=decades, floor=floor)  # the window ends at the last point above the floor
    if above.any() and not above[-1]:
        last = int(np.flatnonzero(above)[-1])
        measured = {**measured, "floor_reached_at": float(t[last + 1])}
        what = f"{what} (at rounding level from t = {t[last + 1]:.4g})"
    return judge(tr, "zero", what, reached=not above.any(), **measured)


def limit_infinity(t, y, what: str, *, decades: float = 2.0, **measured) -> Outcome:
    """``y(t) → ∞``: :func:`judge` of the trend of ``y`` against ``log t``.

    Examples
    --------
    >>> k = np.geomspace(1, 1e4, 81)
    >>> limit_infinity(k, 3 * np.log(k + 1), "||W_k||").verdict.value
    'holds'
    >>> limit_infinity(k, 5 + 1 / k, "||W_k||").verdict.value   # shrinks to a finite limit
    'falsified'
    """
    return judge(trend(t, y, decades=decades, log_y=False), "infinity", what, **measured)
