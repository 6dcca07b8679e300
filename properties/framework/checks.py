"""Check helpers shared by every paper's checkers: outcomes, inequalities, fits, preconditions.

Tolerances
----------
``RTOL = 1e-9``: every measured quantity is computed in float64 from at most
a few thousand NGD steps with cancellation-free formulas (see
:mod:`ntpcheck.transformer.model`); relative rounding stays below ~1e-12, so a violation
larger than 1e-9 of the bound's scale is real, not rounding.

Sabotage by tightening
----------------------
Inside ``with tightened(f):`` (``0 < f <= 1``) every bound that a checker
compares through :func:`inequality` (or passes through :func:`tighten` /
:func:`tighten_log`) is made ``f`` times as permissive: an upper bound ``b``
becomes ``f b`` (``b / f`` if negative), a lower bound ``b / f`` (``f b`` if
negative).  This is the generic sabotage of an inequality claim: a checker
that cannot reject a tightened bound could not have failed at all.

Examples
--------
>>> import numpy as np
>>> t = np.arange(1, 4)
>>> inequality(t * 1.0, 2.0 * t, t, what="t <= 2t").verdict
<Verdict.HOLDS: 'holds'>
>>> with tightened(0.4):
...     inequality(t * 1.0, 2.0 * t, t, what="t <= 2t").verdict
<Verdict.FALSIFIED: 'falsified'>
"""

from __future__ import annotations

import dataclasses

import functools
from dataclasses import dataclass
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from .verdicts import Outcome, Verdict

__all__ = [
    "RTOL",
    "ROUNDING",
    "inequality",
    "outside",
    "inconclusive",
    "holds",
    "falsified",
    "vacuous",
    "worst",
    "between",
    "Fit",
    "fit_exponent",
    "closest_to_rejection",
    "requires",
    "tightened",
    "tighten",
    "tighten_log",
    "tightening",
]

RTOL = 1e-9

#: A quantity in [0, 2] (such as 1 - cos) below this is at rounding level: float64
#: cosines of unit matrices carry errors of ~1e-16, so 1e-12 leaves four digits of room.
ROUNDING = 1e-12

_TIGHTEN: ContextVar[float] = ContextVar("ntpcheck_tighten", default=1.0)


@contextmanager
def tightened(factor: float) -> Iterator[None]:
    """Make every bound checked inside the block ``factor`` times as permissive (see module docstring)."""
    if not (0 < factor <= 1):
        raise ValueError(f"a tightening factor must be in (0, 1], got {factor!r}")
    token = _TIGHTEN.set(factor)
    try:
        yield
    finally:
        _TIGHTEN.reset(token)


def tightening() -> float:
    """The factor in force (1 outside :func:`tightened`)."""
    return _TIGHTEN.get()


def tighten(bound, sense: str):
    """``bound`` made stricter by the factor in force, for ``measured <= bound`` or ``>= bound``."""
    f = _TIGHTEN.get()
    if f == 1.0:
        return bound
    b = np.asarray(bound, dtype=float)
    shrink = (b > 0) if sense == "<=" else (b < 0)
    out = np.where(shrink, b * f, b / f)
    return float(out) if np.ndim(out) == 0 else out


def tighten_log(log_bound, sense: str):
    """:func:`tighten` for a bound given by its logarithm (a positive bound)."""
    f = _TIGHTEN.get()
    if f == 1.0:
        return log_bound
    return log_bound + (np.log(f) if sense == "<=" else -np.log(f))


def requires(predicate: Callable, reason: str) -> Callable:
    """Declare a precondition of a checker: where ``predicate(ev)`` is false it returns
    ``outside-hypotheses`` with ``reason`` instead of running (cf. networkx's ``not_implemented_for``)."""

    def decorate(check: Callable) -> Callable:
        @functools.wraps(check)
        def wrapped(ev, *args, **kwargs):
            if not predicate(ev):
                return outside(reason)
            return check(ev, *args, **kwargs)

        wrapped.precondition = reason  # type: ignore[attr-defined]
        return wrapped

    return decorate


def holds(slack: float, detail: str, **measured) -> Outcome:
    return Outcome(Verdict.HOLDS, slack, measured, detail)


def falsified(slack: float, detail: str, **measured) -> Outcome:
    return Outcome(Verdict.FALSIFIED, slack, measured, detail)


def outside(detail: str, **measured) -> Outcome:
    """The instance does not meet the claim's hypotheses or thresholds."""
    return Outcome(Verdict.OUTSIDE, float("nan"), measured, detail)


def inconclusive(detail: str, **measured) -> Outcome:
    """Hypotheses met, but the finite horizon cannot decide."""
    return Outcome(Verdict.INCONCLUSIVE, float("nan"), measured, detail)


def vacuous(slack: float, detail: str, **measured) -> Outcome:
    return Outcome(Verdict.VACUOUS, slack, measured, detail)


def worst(*outcomes: Outcome) -> Outcome:
    """Combine outcomes of several inequalities of one claim on one instance: the worst one
    speaks (error, falsified, outside-hypotheses, inconclusive); the result is ``vacuous``
    only if every part is, else ``holds`` with the smallest slack of the informative parts."""
    order = {Verdict.ERROR: 0, Verdict.FALSIFIED: 1, Verdict.OUTSIDE: 2, Verdict.INCONCLUSIVE: 3}
    sides = tuple(float(o.slack) for o in outcomes)  # each inequality's own slack: a part's search target (runner)
    bad = [o for o in outcomes if o.verdict in order]
    if bad:
        out = min(bad, key=lambda o: order[o.verdict])
    elif all(o.verdict is Verdict.VACUOUS for o in outcomes):
        out = min(outcomes, key=lambda o: o.slack)
    else:
        out = min((o for o in outcomes if o.verdict is Verdict.HOLDS), key=lambda o: o.slack)
    return dataclasses.replace(out, sides=sides)


def inequality(
    lhs: np.ndarray,
    rhs: np.ndarray,
    steps: np.ndarray | None = None,
    *,
    sense: str = "<=",
    what: str = "",
    trivial: Callable[[np.ndarray], np.ndarray] | None = None,
    scale: np.ndarray | None = None,
    rtol: float = RTOL,
    floor: float | None = None,
    rhs_kind: str = "bound",
) -> Outcome:
    """Check ``lhs <= rhs`` (or ``>=``) at every recorded step (``steps``; for
    quantities that are not trajectories, such as max-margin norms, leave it out).

    The slack at step t is ``(rhs - lhs)/scale`` (sign flipped for ``>=``);
    ``scale`` defaults to ``max(|rhs|, |lhs|, 1e-300)``.  A step violates the
    claim if its slack is below ``-rtol``.  ``trivial(rhs)`` says, per step,
    whether the bound is no better than the quantity's trivial range (for
    instance ``1 - cos <= B`` with ``B >= 2``); if it is at every step the
    claim held only vacuously.  ``floor``: if ``lhs`` stays below it at every
    step (a quantity at rounding level, such as ``1 - cos`` of matrices
    aligned by a symmetry) the claim held only vacuously too.  The bound is
    tightened inside :func:`tightened`.
    """
    lhs = np.asarray(lhs, dtype=float)
    rhs = np.asarray(tighten(np.asarray(rhs, dtype=float), sense), dtype=float)
    if steps is None:
        lhs, rhs = (np.atleast_1d(a) for a in np.broadcast_arrays(lhs, rhs))
        steps = np.zeros(lhs.shape, dtype=int)
    steps = np.asarray(steps)
    ok = np.isfinite(lhs) & np.isfinite(rhs)
    if not ok.any():
        return inconclusive(f"{what}: no step where both sides are finite")
    lhs, rhs, steps = lhs[ok], rhs[ok], steps[ok]
    if scale is None:
        scale = np.maximum(np.maximum(np.abs(rhs), np.abs(lhs)), 1e-300)
    else:
        scale = np.asarray(scale, dtype=float)[ok]
    slack = (rhs - lhs) / scale if sense == "<=" else (lhs - rhs) / scale
    k = int(np.argmin(slack))
    # rhs_kind "tolerance": the right side is a numerical tolerance (an identity checked to
    # rounding), not the paper's bound; reports say so in words instead of plotting it as a bound.
    series = {"t": steps, "lhs": lhs, "rhs": rhs, "what": what, "sense": sense, "rhs_kind": rhs_kind, "floor": floor}
    measured = {
        "worst_t": int(steps[k]),
        "lhs": float(lhs[k]),
        "rhs": float(rhs[k]),
        "t_max": int(steps.max()),
        "steps_checked": int(len(steps)),
    }
    if slack[k] < -rtol:
        o = falsified(float(slack[k]), f"{what}: at t = {steps[k]}, {lhs[k]:.6g} {'>' if sense == '<=' else '<'} bound {rhs[k]:.6g}", **measured)
        return Outcome(o.verdict, o.slack, o.measured, o.detail, series)
    if floor is not None and np.all(lhs < floor):
        return Outcome(Verdict.VACUOUS, float(slack[k]), measured, f"{what}: the measured quantity stays below {floor:g} (rounding level) at every t <= {steps.max()}", series)
    if trivial is not None:
        triv = np.asarray(trivial(rhs), dtype=bool)
        if triv.all():
            return Outcome(Verdict.VACUOUS, float(slack[k]), measured, f"{what}: the bound exceeds the trivial range at every t <= {steps.max()}", series)
        measured["informative_from_t"] = int(steps[np.argmax(~triv)])
    o = holds(float(slack[k]), f"{what}: holds at all {len(steps)} steps up to t = {steps.max()}", **measured)
    return Outcome(o.verdict, o.slack, o.measured, o.detail, series)


def between(measured, lower, upper, steps, *, scale, what_lower: str, what_upper: str) -> Outcome:
    """``lower <= measured <= upper`` at every recorded step: the worst of the two :func:`inequality` checks."""
    up = inequality(measured, upper, steps, sense="<=", what=what_upper, scale=scale)
    lo = inequality(measured, lower, steps, sense=">=", what=what_lower, scale=scale)
    out = worst(up, lo)
    if up.series is not None and lo.series is not None:  # plots draw both bounds
        other = lo if out is up else up
        out = dataclasses.replace(out, series={**out.series, "other": other.series})
    return out


@dataclass(frozen=True)
class Fit:
    """A least-squares exponent ``log y = exponent log t + c`` with its 95% confidence interval."""

    exponent: float
    lo: float
    hi: float
    t_from: int
    t_to: int
    points: int

    def as_measured(self, rejection_line: float | None = None, rejected_if: str = "above") -> dict:
        """The fit as measured values; with the ``rejection_line`` of the check (an exponent
        ``rejected_if`` ``"above"`` or ``"below"`` it would falsify the claim), so that
        :func:`closest_to_rejection` can say which instance came nearest to failing."""
        m = {"fitted_exponent": self.exponent, "exponent_ci": [self.lo, self.hi], "fit_window": [self.t_from, self.t_to]}
        if rejection_line is not None:
            if rejected_if not in ("above", "below"):
                raise ValueError(f"rejected_if must be 'above' or 'below', got {rejected_if!r}")
            m.update(rejection_line=float(rejection_line), rejected_if=rejected_if)
        return m


def closest_to_rejection(measured: Sequence[Mapping]) -> Mapping | None:
    """Of the measured values of several fits (:meth:`Fit.as_measured`), the one whose
    exponent is nearest to its rejection line on the side that holds (the smallest
    ``line - exponent`` for ``rejected_if="above"``, ``exponent - line`` for
    ``"below"``); fits without a line count by their exponent alone (the largest:
    the slowest decay).  None for no fit.

    Examples
    --------
    >>> fits = [Fit(0.95, 0.86, 1.04, 10, 99, 60).as_measured(-0.5, "below"),
    ...         Fit(-0.33, -0.47, -0.2, 10, 99, 60).as_measured(-0.5, "below")]
    >>> closest_to_rejection(fits)["fitted_exponent"]
    -0.33
    """

    def margin(m: Mapping) -> float:
        e = float(m["fitted_exponent"])
        if m.get("rejection_line") is None:
            return -e
        line = float(m["rejection_line"])
        return line - e if m.get("rejected_if", "above") == "above" else e - line

    return min(measured, key=margin, default=None)


def fit_exponent(t: np.ndarray, y: np.ndarray, *, points: int = 64) -> Fit | None:
    """Fit ``y ~ t^p`` on log-spaced points of ``(t, y)`` (positive, finite entries only).

    The interval is the Student-t 95% interval of the slope
    (:func:`scipy.stats.linregress`).  Log-spaced points weigh every part of
    the window equally in ``log t``.  None if fewer than 8 usable points.

    Examples
    --------
    >>> t = np.arange(1, 10001)
    >>> f = fit_exponent(t, 3.0 / t**2)
    >>> round(f.exponent, 6), f.lo <= -2 <= f.hi
    (-2.0, True)
    """
    from scipy import stats

    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = (t > 0) & (y > 0) & np.isfinite(y)
    t, y = t[ok], y[ok]
    if len(t) < 8:
        return None
    pick = np.unique(np.searchsorted(t, np.geomspace(t[0], t[-1], points)).clip(0, len(t) - 1))
    if len(pick) < 8:
        return None
    lt, ly = np.log(t[pick]), np.log(y[pick])
    r = stats.linregress(lt, ly)
    half = float(stats.t.ppf(0.975, len(pick) - 2) * r.stderr)
    return Fit(float(r.slope), float(r.slope - half), float(r.slope + half), int(t[0]), int(t[-1]), len(pick))
