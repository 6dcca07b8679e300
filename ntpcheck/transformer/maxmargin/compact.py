"""Exact Eq. (2) and Eq. (3) for the canonical embeddings, kept by columns, with certificates.

:func:`~.exact.solve_eq2_exact` and :func:`~.exact.solve_eq3_exact` return
dense ``|V| x |V|`` matrices and certify them against every constraint row;
at |V| = 10,000 that is 800 MB per matrix and 10^8 rows for Eq. (2).  Here
the same solutions are :class:`~ntpcheck.common.sparsecols.SparseColumns`
(``W*_kq``: its nonzero entries; ``W*_ov``: per column the fill ``-1/|V|``
and the entry ``1 - 1/|V|`` at ``n(x)``), bit for bit the dense ones'
entries, and the KKT residuals of :class:`~.kkt.KKTResiduals` are computed
without materialising ``W`` or the rows:

* Eq. (3)'s rows are ``e_a e_q^T - e_b e_q^T`` (two entries each), so
  ``R w`` and ``R^T lambda`` are gathers and scatters on the listed entries
  (:func:`two_entry_residuals`);
* Eq. (2)'s rows of column ``x`` are all ``(e_{n(x)} - e_v) x^T``, ``v !=
  n(x)``, with multipliers ``1/|V|``, so each residual is an extreme over
  the column's values other than ``w_{n(x)}``: its fill and its listed
  entries (:func:`eq2_residuals`).

Examples
--------
>>> import ntpcheck
>>> s3 = solve_eq3_compact(ntpcheck.analyse(ntpcheck.load("example1")))
>>> s3.n_constraints, s3.W.nnz, s3.residuals.worst < 1e-12
(5, 9, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ntpcheck.common.sparsecols import SparseColumns
from ..structure import Structure
from .exact import eq3_entries, require_bipartite
from ntpcheck.common.qp.kkt import KKTResiduals
from .problems import build_eq2

__all__ = ["CompactSolution", "solve_eq2_compact", "solve_eq3_compact", "two_entry_residuals", "eq2_residuals"]


@dataclass(frozen=True, eq=False)
class CompactSolution:
    """An exact solution by columns (token coordinates), with its KKT residuals and timing.

    The fields a report needs of :class:`~.problems.MaxMarginSolution`:
    ``seconds`` is the solve alone, ``stages`` splits ``solve`` and ``certificate``.
    """

    W: SparseColumns
    n_constraints: int
    residuals: KKTResiduals
    seconds: float
    stages: dict = field(default_factory=dict)
    method: str = "exact"
    polish_move: float | None = None

    @property
    def norm(self) -> float:
        return self.W.norm()


def solve_eq3_compact(st: Structure) -> CompactSolution:
    """Exact ``W*_kq`` (canonical embeddings) by query column: its nonzero ``x^T W q``.

    The columns are :attr:`Structure.queries` (a token that is no sample's
    query has a zero column).  Raises as :func:`~.exact.solve_eq3_exact` does
    on cyclic orders and confused tokens.
    """
    require_bipartite(st, "the exact Eq. (3) solver")
    V = st.dataset.n_vocab
    a, b, q = st.eq3_index  # problem data, like the constraint rows cvxpy gets prebuilt
    t0 = time.perf_counter()
    token, query, val, lam = eq3_entries(st)
    seconds = time.perf_counter() - t0
    columns = np.flatnonzero(st.query_row >= 0)
    W = SparseColumns.from_entries((V, V), columns, 0.0, st.query_row[query], token, val)
    t1 = time.perf_counter()
    # eq3_entries gives the multipliers in the order of st.eq3_index, as build_eq3 lists its rows
    res = two_entry_residuals(W, st.query_row[q], a, b, lam)
    return CompactSolution(W, len(a), res, seconds, {"solve": seconds, "certificate": time.perf_counter() - t1})


def solve_eq2_compact(st: Structure) -> CompactSolution:
    """Exact ``W*_ov = sum_x (e_{n(x)} - 1/|V|) x^T`` (canonical embeddings) by column ``x``.

    The columns are the tokens with a collocation, in vocabulary order; the
    values are those of :func:`~.closed_form.eq2_matrix` (``-1/|V| + 1`` at
    ``n(x)``).  Raises :class:`~ntpcheck.common.errors.InfeasibleProblemError` if a
    one-token sentence has two next tokens.
    """
    if st.collocation.multiple_next:
        build_eq2(st)  # raises, naming the token
    V = st.dataset.n_vocab
    src, tgt = st.collocation_index
    t0 = time.perf_counter()
    order = np.argsort(src, kind="stable")
    fill = -1.0 / V
    W = SparseColumns.from_entries((V, V), src[order], fill, np.arange(len(src)), tgt[order], np.full(len(src), fill) + 1.0)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    res = eq2_residuals(W, tgt[order], 1.0 / V)
    stages = {"solve": seconds, "certificate": time.perf_counter() - t1}
    return CompactSolution(W, len(src) * (V - 1), res, seconds, stages)


def two_entry_residuals(W: SparseColumns, position, plus, minus, lam) -> KKTResiduals:
    """KKT residuals for rows ``w[plus_k, c_k] - w[minus_k, c_k] >= 1``, ``c_k = W.columns[position_k]``.

    ``W`` must have zero fills (every nonzero entry listed): then ``w`` and
    ``R^T lambda`` are zero off the listed entries and the rows' two ends.

    Examples
    --------
    >>> W = SparseColumns.from_entries((2, 1), [0], 0.0, [0, 0], [0, 1], [0.5, -0.5])
    >>> two_entry_residuals(W, np.array([0]), np.array([0]), np.array([1]), np.array([0.5])).worst
    0.0
    """
    if np.any(W.fill != 0.0):
        raise ValueError("two_entry_residuals needs zero fills")
    position, lam = np.asarray(position, dtype=np.int64), np.asarray(lam, dtype=float)
    if not len(lam):
        return KKTResiduals(0.0, 0.0, float(np.max(np.abs(W.values), initial=0.0)), 0.0)
    slack = W.at(position, plus) - W.at(position, minus) - 1.0
    n = W.shape[0]
    keys = np.concatenate([position * n + plus, position * n + minus, W.keys()])
    where, inverse = np.unique(keys, return_inverse=True)
    k = len(lam)
    gap = np.bincount(inverse[:2 * k], weights=np.concatenate([lam, -lam]), minlength=len(where))  # R^T lambda
    pos, rows = np.divmod(where, n)
    return KKTResiduals(
        primal=float(max(0.0, -slack.min())),
        dual=float(max(0.0, -lam.min())),
        stationarity=float(np.max(np.abs(W.at(pos, rows) - gap), initial=0.0)),
        complementarity=float(np.max(np.abs(lam * slack))),
    )


def eq2_residuals(W: SparseColumns, targets: np.ndarray, lam: float) -> KKTResiduals:
    """KKT residuals of Eq. (2) at ``W`` (canonical embeddings) with every multiplier ``lam``.

    Column ``k`` (token ``x = W.columns[k]``, ``y = targets[k] = n(x)``) has the rows
    ``w_y - w_v >= 1`` for every ``v != y``; ``R^T lambda`` there is ``(|V| - 1) lam`` at
    ``y`` and ``-lam`` elsewhere.  Slack and stationarity are monotone in ``w_v``, so
    their extremes are at the largest and smallest ``w_v`` (the fill, if some ``v != y``
    is not listed, and the listed entries).  Columns not listed are zero and have no rows.

    Examples
    --------
    >>> W = SparseColumns.from_entries((2, 2), [0], -0.5, [0], [1], [0.5])
    >>> eq2_residuals(W, np.array([1]), 0.5).worst
    0.0
    """
    n, C = W.shape[0], len(W.columns)
    if not C:
        return KKTResiduals(0.0, 0.0, 0.0, 0.0)
    pos = W.entry_positions()
    at_target = W.rows == targets[pos]
    w_y = W.at(np.arange(C), targets)
    others_listed = np.bincount(pos[~at_target], minlength=C)
    has_fill = others_listed < n - 1  # some v != y takes the fill
    hi = np.where(has_fill, W.fill, -np.inf)
    lo = np.where(has_fill, W.fill, np.inf)
    np.maximum.at(hi, pos[~at_target], W.values[~at_target])
    np.minimum.at(lo, pos[~at_target], W.values[~at_target])
    rows = n > 1  # |V| = 1: a column has no row (no v != y)
    slack_min, slack_max = w_y - hi - 1.0, w_y - lo - 1.0
    stationarity = np.abs(w_y - (n - 1) * lam)
    if rows:
        stationarity = np.maximum(stationarity, np.maximum(np.abs(hi + lam), np.abs(lo + lam)))
    return KKTResiduals(
        primal=float(max(0.0, -slack_min.min())) if rows else 0.0,
        dual=float(max(0.0, -lam)) if rows else 0.0,
        stationarity=float(stationarity.max()),
        complementarity=float(lam * np.maximum(np.abs(slack_min), np.abs(slack_max)).max()) if rows else 0.0,
    )
