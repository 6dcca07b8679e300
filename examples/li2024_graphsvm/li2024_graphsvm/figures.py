"""What each claim's figure in ntpcheck's report shows (:class:`ntpcheck.api.FigureSpec`).

The two limits are drawn as ntpcheck draws every limit (kind ``limit``): the distance to the limit
against GD's steps on log axes, for the run that decided (the base run or the one 10x as long),
with the trend the judge fitted (its slope, 95% interval and window, from the outcome's measured
values) and every instance's slope.  The certificate and the bridge show one number per instance
against their tolerance 1e-9 (kind ``instances``).  The traces reuse the runs the checks cached.

Examples
--------
>>> from .worked import instance, CYCLIC
>>> from .checks import check_finite
>>> ev = instance(CYCLIC).evidence()
>>> tr = FIGURES["GD [finite part]"].trace(ev, check_finite(ev))
>>> tr["curves"][0]["toward"], len(tr["t"]) > 40, tr["curves"][0]["fit"]["slope"] < 0
('zero', True, True)
"""

from __future__ import annotations

import numpy as np
from ntpcheck.api import FigureSpec

from .checks import TOL, direction_run, finite_run

__all__ = ["FIGURES"]


def _limit_trace(label: str, run_of):
    """A ``limit`` trace: ``run_of(ev)(factor)`` on the run that decided the outcome, with its fitted trend."""

    def trace(ev, o) -> dict:
        m = o.measured or {}
        hs = m.get("horizons") or []
        factor = int(round(hs[-1] / hs[0])) if len(hs) >= 2 else 1
        t, y, floor = run_of(ev)(factor)
        fit = None
        if "trend_slope" in m:
            (lo, hi), (a, b) = m["trend_ci"], m["trend_window"]
            fit = {"slope": m["trend_slope"], "lo": lo, "hi": hi, "t_from": a, "t_to": b}
        floor = np.broadcast_to(np.asarray(floor, dtype=float), np.shape(y))
        curve = {"label": label, "t": np.asarray(t, dtype=float).tolist(), "y": np.asarray(y, dtype=float).tolist(),
                 "toward": "zero", "floor": floor.tolist(), "fit": fit}
        return {"t": curve["t"], "curves": [curve]}

    return trace


def _value(key: str):
    return lambda ev, o: {"value": (o.measured or {}).get(key)}


FIGURES = {
    "Graph-SVM [KKT]": FigureSpec("instances", value="largest KKT residual of W^svm", reference=TOL, log=True, trace=_value("worst"),
                                  note="the certificate of the exact solver (NNLS, active-set polish); 1e-9 the tolerance"),
    "GD [direction]": FigureSpec("limit", x="$t$ (GD steps)", xlog=True,
                                 trace=_limit_trace(r"$1-\cos(W_t, W^{svm})$", lambda ev: direction_run(ev, ev.w_svm)),
                                 note="judged on t in [steps/100, steps], confirmed on a run 10x as long"),
    "GD [finite part]": FigureSpec("limit", x="$t$ (GD steps)", xlog=True,
                                   trace=_limit_trace(r"$\Vert P_S W_t - W_{fin}\Vert$", lambda ev: finite_run(ev, ev.finite.W)),
                                   note="S: the within-component subspace; judged on t in [steps/100, steps], confirmed on a run "
                                        "10x as long"),
    "Bridge [acyclic]": FigureSpec("instances", value="max |W^svm - W*_kq| / max(1, max |W*_kq|)", reference=TOL, log=True,
                                   trace=_value("lhs"), note="W*_kq by ntpcheck's solver of Huang et al.'s Eq. (3)"),
}
