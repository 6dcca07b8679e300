"""The shape of a series over a window of its clock: its trend and its levels (for :mod:`.limits`).

:func:`trend` fits the slope of ``log y`` (or ``y``) against ``log t`` with its 95% interval;
:func:`levels` reads the series at the start, middle and end of the window and bounds its
limit where it settles geometrically; :func:`slowest_ratio` is the largest fall a distance may
show over part of the window and still approach 0 no slower than ``(log t)^(−p)``.  The rule
that turns these into verdicts is :mod:`.limits`'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["MIN_POINTS", "RATIO", "AGREE", "ROUNDING_CHANGE", "Trend", "trend", "window_mask", "Extrapolation", "levels",
           "slowest_ratio", "pct"]

#: Fewest points a window is fitted on (20 points per decade give ~40 on two decades).
MIN_POINTS = 8
#: The step of a series over the second half of the window, over its step in the first half, at or
#: below which (per decade: ``RATIO^(D/2)`` for halves of ``D`` decades) the series is taken to be
#: settling geometrically, so that the rest of its way is bounded (:func:`levels`).  An approach to
#: 0 like ``(log t)^(-p)`` has ratios of 0.35 (p = 2) to 0.5 (p = 1) per decade at ``t = 10^4`` and
#: closer to 1 later; a power approach ``t^(-q)`` has ``10^(-q)`` but then leaves no bounded rest.
RATIO = 0.25
#: A change of the series over the window below this fraction of its size is rounding, not a trend.
ROUNDING_CHANGE = 1e-9
#: Two horizons' limit estimates agree when their intervals, each widened by this fraction of
#: its centre, intersect.
AGREE = 0.1


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


def window_mask(t, y, *, decades: float, log_y: bool, floor=None) -> np.ndarray | None:
    """The mask of the usable points in the last ``decades`` decades (None if fewer than MIN_POINTS)."""
    ok = (t > 0) & np.isfinite(y)
    if log_y:
        ok &= y > 0
    if floor is not None:
        ok &= y > np.broadcast_to(np.asarray(floor, dtype=float), y.shape)
    if not ok.any():
        return None
    t_max = float(t[ok].max())
    ok &= t >= t_max / 10.0**decades * (1 - 1e-12)
    return ok if ok.sum() >= MIN_POINTS else None


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
    ok = window_mask(t, y, decades=decades, log_y=log_y, floor=floor)
    if ok is None:
        return None
    x, v = np.log(t[ok]), (np.log(y[ok]) if log_y else y[ok])
    if np.ptp(v) == 0:
        return Trend(0.0, 0.0, 0.0, float(t[ok].min()), float(t[ok].max()), int(ok.sum()), log_y)
    r = stats.linregress(x, v)
    half = float(stats.t.ppf(0.975, ok.sum() - 2) * r.stderr)
    return Trend(float(r.slope), float(r.slope - half), float(r.slope + half), float(t[ok].min()), float(t[ok].max()),
                 int(ok.sum()), log_y)


@dataclass(frozen=True)
class Extrapolation:
    """Where the series is headed, from its levels at the start, middle and end of the window
    (``y0``, ``y1``, ``y2`` at ``t_end/10^D``, ``t_end/10^(D/2)``, ``t_end``): ``lo ≤ y∞ ≤ hi`` under
    the hypothesis that its steps keep shrinking at least as fast as :data:`RATIO` per half-window
    (``±∞`` where the steps do not shrink that fast: no bound), and ``ratio`` = the last step over
    the one before (``Δb/Δa``)."""

    y0: float
    y1: float
    y2: float
    lo: float
    hi: float
    ratio: float
    t1: float = math.nan
    t2: float = math.nan

    def agrees(self, other: "Extrapolation") -> bool:
        """Whether two horizons' bounds on the limit agree (intervals widened by :data:`AGREE` of
        their centres intersect).

        Examples
        --------
        >>> a = Extrapolation(0.05, 0.045, 0.044, 0.0438, 0.044, 0.1)
        >>> a.agrees(Extrapolation(0.044, 0.0437, 0.0437, 0.0437, 0.0437, 0.0))
        True
        >>> a.agrees(Extrapolation(0.03, 0.025, 0.02, 0.018, 0.02, 0.2))
        False
        """
        if not all(math.isfinite(v) for v in (self.lo, self.hi, other.lo, other.hi)):
            return False                 # an unbounded estimate confirms nothing

        def widened(e):
            pad = AGREE * abs(0.5 * (e.lo + e.hi))
            return e.lo - pad, e.hi + pad

        a_lo, a_hi = widened(self)
        b_lo, b_hi = widened(other)
        return a_lo <= b_hi and b_lo <= a_hi

    def as_measured(self) -> dict:
        return {"levels": [self.y0, self.y1, self.y2], "limit_ci": [self.lo, self.hi], "step_ratio": self.ratio}


def levels(t, y, decades: float) -> Extrapolation | None:
    """The levels of ``y`` at the start, middle and end of the window (log-linear interpolation in
    ``t`` between recorded points) and the bound on its limit (:class:`Extrapolation`).

    The bound: if the steps ``Δ = y1 − y0``, then ``y2 − y1`` shrink by at least :data:`RATIO` (for a
    window of ``D`` decades, ``RATIO^(D/2)``) per half-window from here on, the rest of the way is
    at most ``|Δb|·ρ/(1 − ρ)`` (a geometric series): ``y∞`` lies between ``y2`` and that far beyond
    it.  Where the last step is not that much smaller than the one before (``|Δb| > ρ|Δa|`` with
    both in the same direction) no bound follows: ``(−∞, ∞)``.

    Examples
    --------
    >>> t = np.geomspace(1, 1e4, 81)
    >>> e = levels(t, 0.01 + 1 / t, 2.0)       # steps shrink 10x per decade: y∞ in [0.0098, 0.0101]
    >>> round(e.lo, 4), round(e.hi, 4), round(e.ratio, 3)
    (0.0098, 0.0101, 0.1)
    >>> math.isinf(levels(t, 1 / np.log(t + 1), 2.0).lo)   # a slow approach: no bound
    True
    """
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(t) < MIN_POINTS:
        return None
    t2 = float(t[-1])
    lt = np.log(t)
    at = [np.log(t2) - decades * np.log(10.0), np.log(t2) - 0.5 * decades * np.log(10.0), np.log(t2)]
    if at[0] < lt[0] - 0.25 * decades * np.log(10.0):   # the window's first point is a quarter of it late
        return None
    at[0] = max(at[0], float(lt[0]))
    y0, y1, y2 = (float(np.interp(x, lt, y)) for x in at)
    da, db = y1 - y0, y2 - y1
    rho = RATIO ** (decades / 2.0)
    ratio = db / da if da != 0 else (0.0 if db == 0 else math.copysign(math.inf, db))
    # each half must move one way (its range no wider than its end-to-end step, up to 10% and rounding):
    # three levels of a series that wanders inside a half say nothing about where it is headed
    tol = ROUNDING_CHANGE * max(float(np.max(np.abs(y))), 1e-300)
    first, second = (lt >= at[0] - 1e-12) & (lt <= at[1] + 1e-12), lt >= at[1] - 1e-12
    steady = all(np.ptp(y[h]) <= 1.1 * abs(step) + tol for h, step in ((first, da), (second, db)) if h.any())
    if steady and (abs(db) <= tol or (da != 0 and 0 <= ratio <= rho)):
        rest = db * rho / (1.0 - rho)
        lo, hi = sorted((y2, y2 + rest))
    elif steady and da != 0 and ratio < 0:   # turned round: heading back
        lo, hi = (y2, math.inf) if db > 0 else (-math.inf, y2)
    else:
        lo, hi = -math.inf, math.inf
    return Extrapolation(y0, y1, y2, lo, hi, ratio, float(np.exp(at[1])), t2)


def pct(a: float, b: float) -> str:
    """The fall from ``a`` to ``b`` in per cent (negative for a rise)."""
    return f"{(a - b) / a:.1%}" if a else "0%"


def slowest_ratio(t_end: float, decades: float, origin: float, slowest: float) -> float:
    """The largest ``d(t_end)/d(t_end/10^decades)`` that an approach to 0 no slower than
    ``(log(t/origin))^(−slowest)`` allows (1 where ``t_end/10^decades ≤ e·origin``: no requirement
    but a decrease).

    Examples
    --------
    >>> round(slowest_ratio(1e4, 1.0, 1.0, 0.5), 3)   # (log 1e3 / log 1e4)^0.5: a fall of at least 13.4%
    0.866
    """
    l1, l2 = math.log(t_end / 10.0 ** decades / origin), math.log(t_end / origin)
    return 1.0 if l1 <= 1.0 else (l1 / l2) ** slowest
