"""Shared pieces of the claim checkers: instance strategies and verdict helpers.

Tolerances
----------
``RTOL = 1e-9``: every measured quantity is computed in float64 from at most
a few thousand NGD steps with cancellation-free formulas (see
:mod:`ntpcheck.model`); relative rounding stays below ~1e-12, so a violation
larger than 1e-9 of the bound's scale is real, not rounding.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from hypothesis import strategies as st

from ntpcheck.claims import Instance, Outcome, Verdict

from strategies import realizable_datasets, violating

__all__ = [
    "RTOL",
    "datasets_for",
    "instances_for",
    "inequality",
    "not_reached",
    "holds",
    "falsified",
    "with_params",
]

RTOL = 1e-9

#: Dataset sizes per profile: small enough that a default `ntpcheck verify`
#: finishes in about a minute on two cores, large enough to hit ties, repeats
#: and non-comparable tokens.
SIZES = {
    "quick": dict(max_vocab=4, max_len=4, max_samples=8),
    "default": dict(max_vocab=6, max_len=5, max_samples=10),
    "thorough": dict(max_vocab=8, max_len=6, max_samples=16),
}


def datasets_for(profile: str, *, prefix_closed: bool = True, min_vocab: int = 2, **over) -> st.SearchStrategy:
    """Realizable datasets sized for a verify profile."""
    sizes = {**SIZES[profile], **over}
    sizes["max_vocab"] = max(sizes["max_vocab"], min_vocab)
    return realizable_datasets(min_vocab=min_vocab, prefix_closed=prefix_closed, **sizes)


def with_params(ds_or_inst, **params) -> Instance:
    """An :class:`Instance` from a dataset (or instance) with training parameters."""
    if isinstance(ds_or_inst, Instance):
        return Instance(ds_or_inst.dataset, ds_or_inst.embeddings, **params)
    return Instance(ds_or_inst, None, **params)


def instances_for(profile: str, *, prefix_closed: bool = True, **params) -> st.SearchStrategy[Instance]:
    """Realizable instances with fixed training parameters ``params`` (T, T2, eta0, eta)."""
    return datasets_for(profile, prefix_closed=prefix_closed).map(lambda ds: with_params(ds, **params))


def breaking(condition: str, profile: str, **params) -> st.SearchStrategy[Instance]:
    """Instances that break exactly ``condition`` (for the assumption-necessity matrix)."""
    sizes = SIZES[profile]
    return violating(condition, **sizes).map(lambda inst: with_params(inst, **params))


def holds(slack: float, detail: str, **measured) -> Outcome:
    return Outcome(Verdict.HOLDS, slack, measured, detail)


def falsified(slack: float, detail: str, **measured) -> Outcome:
    return Outcome(Verdict.FALSIFIED, slack, measured, detail)


def not_reached(detail: str, **measured) -> Outcome:
    return Outcome(Verdict.NOT_REACHED, float("nan"), measured, detail)


def inequality(
    lhs: np.ndarray,
    rhs: np.ndarray,
    steps: np.ndarray,
    *,
    sense: str = "<=",
    what: str = "",
    trivial: Callable[[np.ndarray], np.ndarray] | None = None,
    scale: np.ndarray | None = None,
    rtol: float = RTOL,
) -> Outcome:
    """Check ``lhs <= rhs`` (or ``>=``) at every recorded step.

    The slack at step t is ``(rhs - lhs)/scale`` (sign flipped for ``>=``);
    ``scale`` defaults to ``max(|rhs|, |lhs|, 1e-300)``.  A step violates the
    claim if its slack is below ``-rtol``.  ``trivial(rhs)`` says, per step,
    whether the bound is no better than the quantity's trivial range (for
    instance ``1 - cos <= B`` with ``B >= 2``); if it is at every step the
    claim held only vacuously.
    """
    lhs = np.asarray(lhs, dtype=float)
    rhs = np.asarray(rhs, dtype=float)
    steps = np.asarray(steps)
    ok = np.isfinite(lhs) & np.isfinite(rhs)
    if not ok.any():
        return not_reached(f"{what}: no step where both sides are finite")
    lhs, rhs, steps = lhs[ok], rhs[ok], steps[ok]
    if scale is None:
        scale = np.maximum(np.maximum(np.abs(rhs), np.abs(lhs)), 1e-300)
    else:
        scale = np.asarray(scale, dtype=float)[ok]
    slack = (rhs - lhs) / scale if sense == "<=" else (lhs - rhs) / scale
    k = int(np.argmin(slack))
    series = {"t": steps, "lhs": lhs, "rhs": rhs, "what": what, "sense": sense}
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
    if trivial is not None:
        triv = np.asarray(trivial(rhs), dtype=bool)
        if triv.all():
            return Outcome(Verdict.VACUOUS, float(slack[k]), measured, f"{what}: the bound exceeds the trivial range at every t <= {steps.max()}", series)
        measured["informative_from_t"] = int(steps[np.argmax(~triv)])
    o = holds(float(slack[k]), f"{what}: holds at all {len(steps)} steps up to t = {steps.max()}", **measured)
    return Outcome(o.verdict, o.slack, o.measured, o.detail, series)


def fitted_loglog_slope(t: np.ndarray, y: np.ndarray, tail: float = 0.5) -> float:
    """Least-squares slope of ``log y`` against ``log t`` over the last ``tail`` of the points."""
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = (t > 0) & (y > 0) & np.isfinite(y)
    t, y = t[ok], y[ok]
    if len(t) < 4:
        return float("nan")
    k = int(len(t) * (1 - tail))
    lt, ly = np.log(t[k:]), np.log(y[k:])
    return float(np.polyfit(lt, ly, 1)[0])
