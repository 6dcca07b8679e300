"""The report's plots (:mod:`ntpcheck.app.reportplots`): which kind is drawn, and what is said in words."""

import numpy as np
import pytest

from ntpcheck.app.reportmd import _unique
from ntpcheck.app.reportplots import instance_caption, instances_caption, instances_png, not_plotted, trajectory_png
from ntpcheck.properties.framework import Verdict

pytest.importorskip("matplotlib")

INST = {"V": 3, "N": 4, "L_max": 5, "T": 900, "T2": 300, "eta0": 1.4142, "eta": 0.035355}


def _series(lhs, rhs, t=None, **extra):
    lhs = np.asarray(lhs, dtype=float)
    t = np.arange(1, len(lhs) + 1) if t is None else np.asarray(t)
    return {"t": t, "lhs": lhs, "rhs": np.asarray(rhs, dtype=float), "what": "q <= b", "sense": "<=", "rhs_kind": "bound", **extra}


def test_tolerance_and_rounding_level_are_said_in_words():
    tol = _series([0.0, 1e-15], [1e-9, 1e-9], rhs_kind="tolerance")
    assert "numerical tolerance" in not_plotted(tol)
    tiny = _series([1e-32, 3e-31], [0.6, 0.5], floor=1e-12)
    assert "rounding level" in not_plotted(tiny) and "never tested" in not_plotted(tiny)
    assert not_plotted(_series([1e-3, 0.1], [0.6, 0.5], floor=1e-12)) is None  # above the floor somewhere: plotted


@pytest.mark.parametrize("series", [
    _series([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),                               # a tight bound over t
    _series([1e-8, 1e-3, 1.0], [1e5, 1e4, 1e3]),                              # decades apart: log axes
    _series([-10.0, -50.0, -90.0], [-1.0, -20.0, -40.0], log_units=True),     # both sides logs
    _series([1.0, 3.0, 2.0], [4.0, 4.0, 4.0], t=[7, 7, 7]),                   # entries at one t
    _series([1e-2, 1e-4, 1e-6], [0.0, 0.0, 0.0], sense=">="),                 # a bound of 0 (monotonicity)
], ids=["tight", "decades", "log-units", "entries", "zero-bound"])
def test_trajectory_png(series):
    png = trajectory_png(series, "title")
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"


def test_single_point_series_falls_back():
    assert trajectory_png(_series([1.0], [2.0]), "t") is None


def test_instances_png_every_verdict():
    rows = [(Verdict.HOLDS, 0.5, INST, False), (Verdict.OUTSIDE, float("nan"), INST, False),
            (Verdict.VACUOUS, 0.0, INST, False), (Verdict.FALSIFIED, -2.0, INST, False), (Verdict.FALSIFIED, -1.0, INST, True)]
    assert instances_png(rows, "t")[:4] == b"\x89PNG"
    assert instances_png([(Verdict.HOLDS, 1e-12, INST, False), (Verdict.HOLDS, 1.0, None, False)], "t")[:4] == b"\x89PNG"
    assert instances_png([], "t") is None


def test_captions():
    assert instance_caption(INST) == "|V| = 3, N = 4, L_max = 5, T = 900, T' = 300, eta_0 = 1.41, eta = 0.0354"
    rows = [(Verdict.HOLDS, 1.0, INST, False), (Verdict.HOLDS, 1.0, {**INST, "V": 7}, False), (Verdict.OUTSIDE, 1.0, None, False)]
    assert instances_caption(rows).startswith("3 instances: |V| 3-7, N 4, ")


def test_plot_names_are_unique():
    used: set[str] = set()
    assert [_unique("plots/a", used) for _ in range(3)] == ["plots/a", "plots/a-2", "plots/a-3"]
