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
from .series import (AGREE, MIN_POINTS, RATIO, ROUNDING_CHANGE, Extrapolation, Trend, levels, pct, slowest_ratio, trend,
                     window_mask)
from .verdicts import Outcome

__all__ = ["MIN_POINTS", "RATIO", "LEVEL", "GROW_RATIO", "SLOWEST", "ROUNDING_CHANGE", "CONFIRM_FACTOR", "AGREE", "Trend", "trend", "Extrapolation",
           "levels", "Assessment", "assess", "judge", "Series", "at_horizons"]

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
#: How much longer the confirming run is.
CONFIRM_FACTOR = 10


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
    ok = window_mask(t, y, decades=decades, log_y=toward == "zero", floor=floor if toward == "zero" else None)
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
                                       f"{tr.hi:.3g}]), {pct(e.y1, e.y2)} over the second half", horizon, tr, e,
                              slack=float(-tr.hi))
        return Assessment("undecided", f"{what} over {window} ({lv}; slope {tr.slope:.3g} [{tr.lo:.3g}, {tr.hi:.3g}]): "
                                       + ("no decrease over the second half, nor a settled limit" if db >= -ROUNDING_CHANGE else
                                          "no significant trend" if tr.hi >= 0 else
                                          f"it fell only {pct(e.y1, e.y2)} over the second half, slower than an approach "
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
