"""The range of 1 - cos over the nuclear-norm minimisers (issue 30, item 7): hand-made faces."""

import numpy as np
import pytest
import scipy.sparse as sp

from ntpcheck.transformer.maxmargin.nuclear import solve_nuclear
from ntpcheck.transformer.maxmargin.nuclear_range import CosineRange, NuclearFace, closer_to, cosine_range
from ntpcheck.transformer.maxmargin.problems import MaxMarginProblem


def _problem(rows: list[list[float]], shape=(2, 2)) -> MaxMarginProblem:
    return MaxMarginProblem("hand-made", sp.csr_matrix(np.array(rows, dtype=float)), shape, [("c",)] * len(rows))


def test_non_unique_minimisers_give_a_wide_range_containing_the_reported_one():
    """W_11 >= 1, W_22 >= 1: the minimisers are the PSD [[1, a], [a, 1]], |a| <= 1 (nuclear norm = trace = 2).
    Against D = [[1, 2], [2, 1]]: cos = (1 + 2a) / sqrt(5 (1 + a^2)), from -1/sqrt(10) (a = -1) to 3/sqrt(10) (a = 1),
    whatever minimiser the solver reports."""
    sol = solve_nuclear(_problem([[1, 0, 0, 0], [0, 0, 0, 1]]))
    r = cosine_range(NuclearFace(sol, frobenius_norm=2 ** 0.5), np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert r.lo <= r.lo_attained <= r.reported <= r.hi_attained <= r.hi
    assert r.lo == pytest.approx(1 - 3 / 10 ** 0.5, abs=1e-5) and r.lo_attained - r.lo < 1e-6
    assert r.hi_attained == pytest.approx(1 + 1 / 10 ** 0.5, abs=1e-3)
    assert r.hi_attained - r.lo > 0.9


def test_unique_minimiser_collapses_the_range():
    """W_11 >= 1 alone: ||W||_* >= W_11 >= 1 with equality only at e1 e1^T, so the range is one value (to sqrt(tol))."""
    sol = solve_nuclear(_problem([[1, 0, 0, 0]]))
    D = np.array([[1.0, 0.5], [-0.3, 0.2]])
    exact = 1 - D[0, 0] / np.linalg.norm(D)
    r = cosine_range(NuclearFace(sol, frobenius_norm=1.0), D)
    assert r.lo <= exact <= r.hi
    assert r.hi - r.lo < 5e-3 and r.reported == pytest.approx(exact, abs=1e-6)


@pytest.mark.parametrize("frob, expected", [(0.1, "frobenius"), (0.2, "undecided"), (0.35, "undecided"),
                                            (0.45, "undecided"), (0.5, "undecided"), (0.51, "nuclear")])
def test_conclusion_needs_the_whole_range(frob, expected):
    r = CosineRange(lo=0.2, lo_attained=0.21, hi_attained=0.4, hi=0.5, reported=0.3, tol=1e-6, seconds=0.0)
    assert closer_to(frob, r) == expected


def test_algorithms_table_json_and_csv_carry_the_range_and_the_conclusion():
    from ntpcheck.transformer.algorithms import VARIANTS
    from ntpcheck.app.report.algorithms_figure import TABLE_HEADER, Direction, directions_csv, directions_table

    r = CosineRange(lo=0.229, lo_attained=0.229, hi_attained=0.704, hi=0.839, reported=0.311, tol=1e-6, seconds=0.0)
    t = np.array([0.0, 900.0])
    d = Direction(VARIANTS[0], t, np.array([0.5, 0.234]), np.array([0.6, 0.311]), None, None, None, 0.0, r)
    row = dict(zip(TABLE_HEADER, directions_table([d])[0]))
    assert row["all W_nuc: found"] == "0.229-0.704" and row["certified"] == "0.229-0.839" and row["closer to"] == "undecided"
    doc = d.to_json()
    assert doc["closer_to"] == "undecided" and doc["final_one_minus_cos_nuclear_set"]["hi_attained"] == 0.704
    assert f"{VARIANTS[0].name},nuclear_set_hi,900,0.839" in directions_csv([d]).splitlines()
