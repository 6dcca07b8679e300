"""Limits judged as limits: the distance to the claimed limit, where it is headed, and a confirming run.

A claim ``x_t → L`` (a value, a matrix, a direction, or ``∞``) over a finite run
``t ≤ T`` (GD steps, or a radius ``B``) can neither be proved nor refuted by
one horizon.  "The quantity decreased over the window" is not "it converges
to this value": a series that levels off at ``0.01`` decreases too.  So every
limit of every paper is judged here, by one rule, on the **distance** to the
claimed limit, ``d(t) ≥ 0`` (``|x − L|``, ``‖X − L‖``, ``1 − cos``), or, for
``→ ∞``, on the quantity ``y(t)`` itself.

The rule on one run (:func:`assess`)
------------------------------------
Points at or below the rounding ``floor`` are not dynamics.  If no point is
above it, the limit is met to rounding from the start (``vacuous``: nothing
could fail).  If the last point is at the floor after earlier ones were above
it, the distance reached rounding level (``holds``).  Otherwise the **window**
is the last ``D`` decades of ``t`` (``D = 2`` for GD's steps), and the run is
read from the series' **levels** ``y0, y1, y2`` at the start, middle and end
of the window and its two **steps** ``Δa = y1 − y0``, ``Δb = y2 − y1``
(:func:`levels`), with the least-squares **trend** of ``log d`` (``y`` for
``→ ∞``) against ``log t`` and its 95% interval beside them.  A step smaller
than :data:`ROUNDING_CHANGE` of the series is rounding, not a step, whatever
its sign: a constant series is never decided by the sign of a slope of
``±1e-15``.

* **Settling.** If the last step ``Δb`` is at most :data:`RATIO` (0.25 a
  decade) of the one before, in the same direction, the series is settling
  geometrically, and the rest of its way is at most ``|Δb|·ρ/(1 − ρ)``: its
  limit lies in ``[lo, hi]`` between ``y2`` and that far beyond.  A series
  constant to rounding is settled at its value.
* ``d → 0`` is **away** (a candidate failure, never a verdict by itself)
  when the distance, above rounding, is settled with ``lo ≥ 0.8·y2``
  (:data:`LEVEL`): its limit is above 0.  A distance that drifts (steps in a
  ratio near 1, up or down) is never away, however slowly it moves: GD's
  direction can drift for many decades (on two contexts with weights 1 and
  50, ``1 − corr`` rises from 0.0143 at ``k = 10³`` to 0.0159 at ``10⁸``,
  the velocity's direction still turning towards ``W^mm``).  It **holds** on
  the run when it decreases over the window (trend interval below 0) and
  over the second half at least as fast as the slowest approach to 0
  admitted, ``(log t)^(−1/2)`` (:data:`SLOWEST`: 13% a decade at
  ``t = 10⁴``, 11% at ``10⁵``; GD's direction approaches like ``1/log² k``,
  30–44% a decade there): a decrease slower than that (a distance creeping
  towards a wrong limit's offset) is no evidence that the limit is 0.
  Otherwise it is **undecided**.
* ``y → ∞`` is **away** when it settles (its limit is then finite), shrinks
  or stays.  It **holds** on the run when ``y`` grows (trend
  interval above 0) and its last step is at least :data:`GROW_RATIO` (0.5 a
  decade) of the one before (``log t`` growth has 1, ``log log t`` about
  0.75); otherwise undecided.

Confirmation (:func:`judge`)
----------------------------
Every run is re-run on a horizon :data:`CONFIRM_FACTOR` (10) times longer,
by the instance's own clock (the run's last ``t`` times 10), and the longer
run decides.  ``holds`` needs the longer run to hold too (or to reach
rounding): the distance kept falling at the admitted rate over three
decades, so that a wrong limit still far from its offset at the first
horizon (the run does not resolve it) is not called ``holds`` on the
strength of that run alone.  (A caller may waive this where a longer run
is costly, ``confirm_holds=False``; the regularization path does, and
says so.)  ``falsified`` needs two consecutive horizons ``h`` and ``10h`` that are
both **away** with limits that agree (their intervals, each widened by
:data:`AGREE` of its centre, intersect; an unbounded estimate confirms
nothing).  So a finding needs the series to settle at one level over three
consecutive decades ``[h/100, 10h]``: a true limit's transient would have to
settle geometrically on a plateau that long and leave it later.  An away run that the shorter one did not confirm
gets one run 10× longer again (at most ``100h``); any other second run
decides as it reads.  Where a longer run cannot
be computed (a method certified only up to ``T``), an away run stays
``inconclusive`` and says so.  The detail names every horizon run, and the
verdict, its numbers and the figure come from the run that decided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .checks import falsified, holds, inconclusive, vacuous
from .verdicts import Outcome

__all__ = ["MIN_POINTS", "RATIO", "LEVEL", "GROW_RATIO", "SLOWEST", "ROUNDING_CHANGE", "CONFIRM_FACTOR", "AGREE", "Trend", "trend", "Extrapolation",
           "levels", "Assessment", "assess", "judge", "Series", "at_horizons"]

#: Fewest points a window is fitted on (20 points per decade give ~40 on two decades).
MIN_POINTS = 8
#: The step of a series over the second half of the window, over its step in the first half, at or
#: below which (per decade: ``RATIO^(D/2)`` for halves of ``D`` decades) the series is taken to be
#: settling geometrically, so that the rest of its way is bounded (:func:`levels`).  An approach to
#: 0 like ``(log t)^(-p)`` has ratios of 0.35 (p = 2) to 0.5 (p = 1) per decade at ``t = 10^4`` and
#: closer to 1 later; a power approach ``t^(-q)`` has ``10^(-q)`` but then leaves no bounded rest.
RATIO = 0.25
#: The slowest approach to 0 admitted: ``d ~ (log t)^(-SLOWEST)``.  GD's direction on separable
#: data approaches like ``1/log² k``, its loss like ``1/k``; a distance falling slower than this
#: over the second half of the window does not hold on that run (it is undecided).
SLOWEST = 0.5
#: A distance is settled away from 0 when the bound on its limit is at least this fraction of its last value.
LEVEL = 0.8
#: ``→ ∞`` holds on a run when the series' step over the second half of the window is at least this
#: fraction (per decade) of its step over the first half: growth like ``log t`` has 1, ``log log t``
#: about 0.75 at ``t = 10^4``; a quantity converging like ``t^(-q)`` has ``10^(-q)``.  Between this
#: and :data:`RATIO` the run is undecided.
GROW_RATIO = 0.5
#: A change of the series over the window below this fraction of its size is rounding, not a trend.
ROUNDING_CHANGE = 1e-9
#: How much longer the confirming run is.
CONFIRM_FACTOR = 10
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


def _window(t, y, *, decades: float, log_y: bool, floor=None) -> np.ndarray | None:
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
    ok = _window(t, y, decades=decades, log_y=log_y, floor=floor)
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


@dataclass(frozen=True)
class Assessment:
    """One run's reading of a limit: ``state`` is ``"holds"``, ``"away"`` (a candidate failure),
    ``"undecided"``, ``"reached"`` (the distance reached rounding), ``"vacuous"`` (at rounding
    throughout) or ``"short"`` (too few points); ``detail`` says why in words."""

    state: str
    detail: str
    horizon: float
    trend: Trend | None = None
    limit: Extrapolation | None = None
    slack: float = math.nan

    def measured(self) -> dict:
        m: dict = {"horizon": self.horizon, "limit_state": self.state}
        if self.trend is not None:
            m.update(self.trend.as_measured())
        if self.limit is not None:
            m.update(self.limit.as_measured())
        return m


def _pct(a: float, b: float) -> str:
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


def assess(t, y, what: str, *, toward: str = "zero", floor=0.0, decades: float = 2.0, origin: float = 1.0,
           slowest: float = SLOWEST) -> Assessment:
    """One run's reading of ``d → 0`` (``toward="zero"``: ``y`` is the distance ``d ≥ 0``) or
    ``y → ∞`` (``toward="infinity"``), by the rule of the module docstring.  ``origin`` is the
    clock's origin (``t = 1`` for steps) and ``slowest`` the slowest admitted approach to 0,
    ``(log(t/origin))^(−slowest)``.

    Examples
    --------
    >>> k = np.geomspace(1, 1e4, 81)
    >>> assess(k, 1 / np.log(k + 2) ** 2, "1 - corr").state
    'holds'
    >>> assess(k, 0.01 + 1 / k, "CE - (H - 0.01)").state   # settling at 0.01: steps 10x smaller a decade
    'away'
    >>> assess(k, 0.05 * (1 + 0.5 / np.log(k + 2)), "1 - cos").state   # creeping towards 0.05: 5% a decade
    'undecided'
    >>> assess(k, np.full(k.shape, 3e-3), "1 - cos").state  # constant: no trend, a limit of 3e-3
    'away'
    >>> assess(k, 3e-3 * (1 + 1e-15 * np.sin(k)), "1 - cos").detail.startswith("1 - cos stays")
    True
    >>> assess(k, 2 * np.log(k + 1), "||W_k||", toward="infinity").state
    'holds'
    >>> assess(k, 5 - 1 / k, "||P_F W_k||", toward="infinity").state   # still rising, to 5
    'away'
    >>> assess(k, 5 - 1 / np.sqrt(k), "||P_F W_k||", toward="infinity").state   # steps shrink 3.2x a decade
    'undecided'
    """
    if toward not in ("zero", "infinity"):
        raise ValueError(f"toward must be 'zero' or 'infinity', got {toward!r}")
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    horizon = float(t[np.isfinite(t)].max()) if t.size else math.nan
    fl = np.broadcast_to(np.asarray(floor if toward == "zero" else -np.inf, dtype=float), y.shape)
    if toward == "zero":
        above = np.isfinite(y) & (y > fl)
        if not above.any():
            return Assessment("vacuous", f"{what}: at rounding level at every t <= {horizon:.4g} (the limit is met to "
                                         "rounding)", horizon, slack=0.0)
        if not above[-1] and np.isfinite(y[-1]):
            last = int(np.flatnonzero(above)[-1])
            return Assessment("reached", f"{what} reaches rounding level ({fl[last + 1]:.2g}) from t = {t[last + 1]:.4g} "
                                         f"on, up to t = {horizon:.4g}", horizon, slack=1.0)
    ok = _window(t, y, decades=decades, log_y=toward == "zero", floor=floor if toward == "zero" else None)
    if ok is None or not np.isfinite(y[-1]) or t[ok][-1] != horizon:
        return Assessment("short", f"{what}: fewer than {MIN_POINTS} usable points in the last {decades:g} decades "
                                   f"of t <= {horizon:.4g}", horizon)
    tw, yw = t[ok], y[ok]
    e = levels(tw, yw, decades)
    tr = trend(t, y, decades=decades, log_y=toward == "zero", floor=floor if toward == "zero" else None)
    if e is None or tr is None:
        return Assessment("short", f"{what}: the usable points do not span the last {decades:g} decades of "
                                   f"t <= {horizon:.4g}", horizon, tr)
    window = f"t in [{tw[0]:.4g}, {tw[-1]:.4g}]"
    lv = f"{e.y0:.4g}, {e.y1:.4g}, {e.y2:.4g} at its start, middle and end"
    scale = max(abs(e.y0), abs(e.y1), abs(e.y2), 1e-300)
    da, db = (e.y1 - e.y0) / scale, (e.y2 - e.y1) / scale
    if toward == "zero":
        resolution = max(2.0 * float(fl[ok][-1]), ROUNDING_CHANGE * scale)
        r2 = slowest_ratio(e.t2, decades / 2.0, origin, slowest)
        settled = math.isfinite(e.lo) and e.lo >= LEVEL * e.y2 and e.y2 > resolution
        if settled:
            how = ("rises, settling" if db > ROUNDING_CHANGE else "falls, settling" if db < -ROUNDING_CHANGE
                   else "stays constant to rounding")
            return Assessment("away", f"{what} {how} over {window} ({lv}; steps in the ratio {e.ratio:.3g}): its limit is "
                                      f"in [{e.lo:.4g}, {e.hi:.4g}], above 0", horizon, tr, e, slack=float(-e.lo))
        if db < -ROUNDING_CHANGE and tr.hi < 0 and e.y2 <= e.y1 * r2:
            return Assessment("holds", f"{what} decreases over {window} ({lv}; slope {tr.slope:.3g} [{tr.lo:.3g}, "
                                       f"{tr.hi:.3g}]), {_pct(e.y1, e.y2)} over the second half", horizon, tr, e,
                              slack=float(-tr.hi))
        return Assessment("undecided", f"{what} over {window} ({lv}; slope {tr.slope:.3g} [{tr.lo:.3g}, {tr.hi:.3g}]): "
                                       + ("no decrease over the second half, nor a settled limit" if db >= -ROUNDING_CHANGE else
                                          "no significant trend" if tr.hi >= 0 else
                                          f"it fell only {_pct(e.y1, e.y2)} over the second half, slower than an approach "
                                          f"to 0 like (log t)^-{slowest:g} (at least {1 - r2:.0%}), and settles nowhere"),
                          horizon, tr, e)
    if db > ROUNDING_CHANGE and tr.lo > 0 and e.ratio >= GROW_RATIO ** (decades / 2.0):
        return Assessment("holds", f"{what} grows over {window} ({lv}; slope {tr.slope:.3g} [{tr.lo:.3g}, {tr.hi:.3g}]), "
                                   "its steps not shrinking towards a finite limit", horizon, tr, e, slack=float(tr.lo))
    if math.isfinite(e.hi):
        how = "shrinks" if db < -ROUNDING_CHANGE else "levels off" if db > ROUNDING_CHANGE else "stays constant"
        return Assessment("away", f"{what} {how} over {window} ({lv}): its limit is in [{e.lo:.4g}, {e.hi:.4g}], finite",
                          horizon, tr, e, slack=float(-1.0 / max(abs(e.hi), 1e-300)))
    return Assessment("undecided", f"{what} over {window} ({lv}; slope {tr.slope:.3g} [{tr.lo:.3g}, {tr.hi:.3g}]): "
                                   + ("no significant growth" if db <= ROUNDING_CHANGE or tr.lo <= 0 else
                                      f"its steps shrink (ratio {e.ratio:.3g}), too slowly to bound it"), horizon, tr, e)


#: A run of the claim's quantity at ``factor`` times the base horizon: ``(t, y, floor)``, or None where
#: no such run can be computed (the detail of :func:`judge` says so).
Series = Callable[[int], "tuple[np.ndarray, np.ndarray, object] | None"]


def _outcome(a: Assessment, detail: str, measured: dict) -> Outcome:
    m = {**measured, **a.measured()}
    if a.state in ("holds", "reached"):
        return holds(a.slack, detail, **m)
    if a.state == "vacuous":
        return vacuous(a.slack, detail, **m)
    return inconclusive(detail, **m)


def judge(series_at: Series, what: str, *, toward: str = "zero", decades: float = 2.0, max_factor: int = 100,
          origin: float = 1.0, slowest: float = SLOWEST, confirm_holds: bool = True, **measured) -> Outcome:
    """The verdict of a limit: :func:`assess` on the base run, confirmed on runs :data:`CONFIRM_FACTOR`
    times longer (module docstring).  ``series_at(f)`` gives the run at ``f`` times the base horizon.
    ``confirm_holds``: a base run that holds is run 10x longer too, and the longer run decides
    (False where a longer run is costly: the verdict is the base run's, and the detail says so).

    Examples
    --------
    >>> def levels_off(f):                       # CE - (H - 0.01): decreasing to 0.01
    ...     k = np.geomspace(1, 1e4 * f, int(20 * np.log10(1e4 * f)) + 1)
    ...     return k, 0.01 + 1 / k, 0.0
    >>> o = judge(levels_off, "CE - L")
    >>> o.verdict.value, o.measured["horizons"]
    ('falsified', [10000.0, 100000.0])
    >>> judge(lambda f: (lambda k: (k, 1 / k, 0.0))(np.geomspace(1, 1e4 * f, 81)), "d").measured["horizons"]
    [10000.0, 100000.0]
    >>> def transient(f):                        # rises to a peak at 1e3, then decays like 1/log^2
    ...     k = np.geomspace(1, 1e4 * f, int(20 * np.log10(1e4 * f)) + 1)
    ...     return k, 0.05 * np.exp(-np.log(k / 1e3) ** 2 / 8) + 1 / np.log(k + 2) ** 2, 0.0
    >>> judge(transient, "1 - corr").verdict.value != 'falsified'
    True
    """
    runs: list[Assessment] = []
    factor = 1
    while True:
        got = series_at(factor)
        if got is None:
            if not runs:
                return inconclusive(f"{what}: no run", **measured)
            last = runs[-1]
            m = {**measured, "horizons": [r.horizon for r in runs]}
            if last.state == "away":
                return _outcome(replace(last, state="undecided"), _joined(runs, f"; no run {factor}x as long can be "
                                                                            "computed to confirm it"), {**m, "unconfirmed": True})
            tail = f"; no run {factor}x as long can be computed" if last.state in ("holds", "reached") else ""
            return _outcome(last, _joined(runs, tail), m)
        t, y, floor = got
        a = assess(t, y, what, toward=toward, floor=floor, decades=decades, origin=origin, slowest=slowest)
        runs.append(a)
        m = {**measured, "horizons": [r.horizon for r in runs]}
        if a.state == "vacuous" and len(runs) == 1:
            return _outcome(a, _joined(runs), m)
        if a.state in ("holds", "reached") and (len(runs) >= 2 or not confirm_holds):
            return _outcome(a, _joined(runs), m)
        if a.state == "away" and len(runs) >= 2 and runs[-2].state == "away" and a.limit.agrees(runs[-2].limit):
            return falsified(a.slack, _joined(runs) + " (confirmed: the two horizons agree on the limit)",
                             **{**m, **a.measured()})
        if factor >= max_factor or (len(runs) >= 2 and a.state != "away"):
            return _outcome(a, _joined(runs), m)
        factor *= CONFIRM_FACTOR


def _joined(runs: list[Assessment], tail: str = "") -> str:
    """The decisive (last) run's detail, with the shorter runs' in brackets."""
    last = runs[-1]
    if len(runs) == 1:
        return last.detail + tail
    before = "; ".join(f"at t <= {r.horizon:.4g}: {r.state}" for r in runs[:-1])
    return f"on a run to t = {last.horizon:.4g} ({before}): {last.detail}{tail}"


def at_horizons(run: Callable[[int], tuple]) -> Series:
    """``series_at`` memoised per factor (a checker and its part mutants share the runs).

    Examples
    --------
    >>> calls = []
    >>> s = at_horizons(lambda f: calls.append(f) or (np.arange(1, 3), np.ones(2), 0.0))
    >>> _ = s(1), s(1), s(10)
    >>> calls
    [1, 10]
    """
    cache: dict = {}

    def series_at(factor: int):
        if factor not in cache:
            cache[factor] = run(factor)
        return cache[factor]

    return series_at
