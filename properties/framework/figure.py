"""What a claim's figure shows, declared on its record, and the per-instance data it is drawn from.

A :class:`FigureSpec` on :attr:`~.claim.Claim.figure` names the figure's kind
(:data:`KINDS`), its axis labels in the paper's notation, the labels of the
claimed bound(s), the quantity's trivial range and rounding level (shaded on
the figure), and optionally a ``trace(evidence, outcome)`` that extracts what
the figure needs from one checked instance.  The runner stores every
instance's trace (:func:`trace_of`) with its outcome: a few dozen numbers per
curve, plain lists and floats (JSON-serialisable), never pixels.  Without a
``trace`` the outcome's series (the measured quantity and its bound over t,
:func:`~.checks.inequality`) is kept, thinned by :func:`thin`.
The application draws the figures (``ntpcheck.app.report.claimfigure``).

Examples
--------
>>> spec = FigureSpec("bound", y="||W||", bound="t eta")
>>> spec.kind, spec.x
('bound', '$t$')
>>> thin_indices(100, 8).tolist()  # evenly spaced and log-spaced
[0, 4, 21, 33, 66, 99]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

__all__ = ["FigureSpec", "KINDS", "DEFAULT_FIGURE", "with_figures", "trace_of", "thin", "thin_indices", "jsonable", "POINTS"]

#: The figure kinds the report draws:
#:
#: * ``bound``: the quantity against t with its claimed bound (worst instance), and
#:   measured / bound over every tested instance (band);
#: * ``between``: a quantity between a lower and an upper bound (norm growth), both drawn;
#: * ``rate``: a fitted rate: the quantity on log-log (``law="power"``) or semi-log
#:   (``law="exp"``) axes with the fit and the claimed rate, and every instance's fitted
#:   exponent with its interval against the rejection line;
#: * ``gap``: a quantity that must grow linearly, with a linear fit on the tail, and the
#:   fitted exponents of its increments;
#: * ``scatter``: computed values against the claimed formula, with y = x;
#: * ``attention``: optimal and non-optimal attention over t;
#: * ``panels``: several quantities over t, one panel each (a reproduced experiment);
#: * ``instances``: one number per instance against a threshold (identities, predictions);
#: * ``limit``: a rate-free limit judged by a trend (``q -> 0`` or ``y -> infinity``): each quantity
#:   against t on log axes with its fitted trend and interval, and every instance's slope.
KINDS = ("bound", "between", "rate", "gap", "scatter", "attention", "panels", "instances", "limit")

#: Points kept per curve by :func:`thin`.
POINTS = 96


@dataclass(frozen=True)
class FigureSpec:
    """A claim's figure, as data.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    y, x : str
        Axis labels in the paper's notation (matplotlib mathtext, ``$...$``).
    bound, bound2 : str
        Labels of the claimed bound and, for a two-sided claim, the other one.
    trace : callable or None
        ``trace(evidence, outcome) -> dict`` of lists and numbers: what the figure needs
        from one instance (None: the outcome's series, thinned).
    trivial : float or None
        The end of the quantity's trivial range (2 for ``1 - cos``): a bound at or past it
        says nothing; drawn as a line and the region past it shaded.
    floor : float or None
        The quantity's rounding level: the region below it is shaded.
    log : bool or None
        Logarithmic y axis (None: chosen from the data).
    threshold : str or None
        A key of the outcome's measured values: the claim's hypotheses hold only from
        ``t >= measured[threshold]``; the region before is shaded.
    law : str
        ``rate`` kind: ``"power"`` (log-log) or ``"exp"`` (semi-log).
    value : str
        ``instances`` kind: what the per-instance number is (axis label).
    reference : float or None
        ``instances`` kind: the line the number is compared with (tolerance, 1 - eps).
    lines : tuple of (label, slope, intercept)
        ``scatter`` kind: the lines ``y = slope x + intercept`` the claim draws (``y = x`` for
        a formula against the value computed; the claimed ends of an interval).
    note : str
        One sentence under the figure.
    xlog : bool
        Logarithmic x axis (runs recorded at geometric steps, a radius B, a scale gamma).
    sense : str
        ``scatter`` kind: ``"="`` (the points must lie on the lines: an identity), ``"<="`` or
        ``">="`` (below or above ``y = x``: an inequality, its slack drawn per instance).
    flag : str
        ``scatter`` kind: what a cross (a flagged point) is.
    """

    kind: str = "bound"
    y: str = ""
    x: str = "$t$"
    bound: str = ""
    bound2: str = ""
    trace: Callable[[Any, Any], Mapping[str, Any]] | None = None
    trivial: float | None = None
    floor: float | None = None
    log: bool | None = None
    threshold: str | None = None
    law: str = "power"
    value: str = ""
    reference: float | None = None
    lines: tuple[tuple[str, float, float], ...] = ()
    note: str = ""
    xlog: bool = False
    sense: str = "="
    flag: str = "query failing Hall's condition"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"FigureSpec.kind must be one of {KINDS}, got {self.kind!r}")
        if self.law not in ("power", "exp"):
            raise ValueError(f"FigureSpec.law must be 'power' or 'exp', got {self.law!r}")
        if self.sense not in ("=", "<=", ">="):
            raise ValueError(f"FigureSpec.sense must be '=', '<=' or '>=', got {self.sense!r}")


#: The figure of a claim that declares none: its check's series, or one number per instance.
DEFAULT_FIGURE = FigureSpec()


def with_figures(claims: tuple, figures: Mapping[str, FigureSpec]) -> tuple:
    """Each claim with its figure (``figures``, by the claim's full name; its own where none).
    A figure declared for no claim is an error (a renamed claim would silently lose it)."""
    import dataclasses

    unknown = sorted(set(figures) - {c.name for c in claims})
    if unknown:
        raise ValueError(f"figures declared for no claim: {unknown}")
    return tuple(dataclasses.replace(c, figure=figures.get(c.name, c.figure)) for c in claims)


def thin_indices(n: int, points: int = POINTS) -> np.ndarray:
    """At most about ``points`` indices of ``range(n)``: half evenly spaced, half log-spaced
    (so that both linear and logarithmic axes show the curve's shape), first and last included."""
    if n <= points:
        return np.arange(n)
    half = max(points // 2, 2)
    lin = np.linspace(0, n - 1, half)
    geo = np.geomspace(1, n, half) - 1
    return np.unique(np.concatenate([lin, geo, [0, n - 1]]).round().astype(int))


def thin(*arrays, points: int = POINTS) -> list[list]:
    """``arrays`` (of one length) at :func:`thin_indices`, as lists of floats."""
    n = len(arrays[0])
    k = thin_indices(n, points)
    return [jsonable(np.asarray(a, dtype=float)[k]) for a in arrays]


def jsonable(x: Any) -> Any:
    """``x`` as plain lists, floats, ints, strings and bools (NaN and infinities kept as floats)."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x.tolist() if x.dtype.kind in "fiub" else jsonable(x.tolist())  # numbers: Python scalars already
    if isinstance(x, (list, tuple)):
        if all(type(v) is float or type(v) is int for v in x):  # the common case, without a call per number
            return list(x)
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    return x if x is None or isinstance(x, str) else str(x)


def _series_trace(series: Mapping[str, Any]) -> dict[str, Any]:
    """The default trace: the outcome's series (measured and bound over t), thinned."""
    t, y, b = (np.asarray(series[k], dtype=float) for k in ("t", "lhs", "rhs"))
    tr: dict[str, Any] = {"sense": series.get("sense", "<="), "log_units": bool(series.get("log_units")),
                          "tolerance": series.get("rhs_kind") == "tolerance"}
    other = series.get("other")
    if other is not None and len(other["t"]) == len(t):
        tr["t"], tr["y"], tr["bound"], tr["bound2"] = thin(t, y, b, np.asarray(other["rhs"], dtype=float))
        tr["sense2"] = other.get("sense", ">=")
    else:
        tr["t"], tr["y"], tr["bound"] = thin(t, y, b)
    full = series.get("full")  # the whole run, where the check looked only past a threshold
    if full is not None:
        tr["t_all"], tr["y_all"], tr["bound_all"] = thin(*(np.asarray(full[k], dtype=float) for k in ("t", "lhs", "rhs")))
    return tr


def trace_of(spec: FigureSpec | None, ev: Any, outcome: Any) -> dict[str, Any] | None:
    """What the figure needs from one checked instance (JSON-serialisable), or None.

    ``spec.trace(ev, outcome)`` where declared, else the outcome's series thinned; every
    trace also carries the outcome's ``slack`` and, for fits, the fitted exponent with its
    interval and rejection line.  A trace that cannot be made (a checker without series, a
    trace function failing on an odd instance) is None: a figure never stops a run.
    """
    spec = spec or DEFAULT_FIGURE
    tr: dict[str, Any] = {}
    try:
        if spec.trace is not None:
            got = spec.trace(ev, outcome)
            tr = dict(got) if got else {}
        elif outcome.series is not None:
            tr = _series_trace(outcome.series)
    except Exception as e:  # the figure is a view: a failure here is said in the trace, never raised
        tr = {"trace_error": f"{type(e).__name__}: {e}"}
    m = outcome.measured
    for key in ("fitted_exponent", "exponent_ci", "fit_window", "rejection_line", "rejected_if"):
        if m.get(key) is not None:
            tr.setdefault(key, m[key])
    if spec.threshold and m.get(spec.threshold) is not None:
        tr.setdefault("threshold", m[spec.threshold])
    slack = float(outcome.slack)
    tr["slack"] = slack if math.isfinite(slack) else None
    return jsonable(tr)
