"""What a stage of Algorithm 1 records, streamed while it trains.

:class:`Recorder` receives the parameter at every recorded step and reduces
blocks of them to the curves (loss, ``||W||``, ``1 - cos`` to a reference,
the margins), so memory does not grow with the number of steps unless the
weights are kept on purpose; :class:`StageTrajectory` is the result.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .embeddings import is_canonical
from .model import CollocationArrays, safe_norm
from ntpcheck.common.directions import scaled_unit
from .structure import Structure

__all__ = ["StageTrajectory", "Recorder", "one_minus_cos_rows", "row_norms", "stage1_margin_fn", "stage2_margin_fn"]


@dataclass
class StageTrajectory:
    """What one stage recorded.

    Attributes
    ----------
    steps : ndarray of int
        The recorded iterations ``t`` (0 = initialisation).
    loss, norm, one_minus_cos : ndarray
        ``L_0`` or ``L``; ``||W^(t)||``; ``1 - <W^(t)/||W^(t)||, W_ref/||W_ref||>``
        (NaN where either norm is 0 or no reference was given).
    margins : ndarray, shape (k, m)
        Stage 1: ``(e_{n(x)} - e_i)^T W_ov x`` for each collocation pair and
        ``i != n(x)`` (``m = |C| (|V| - 1)``).  Stage 2: ``(x_l - x_l')^T W_kq x_q``
        for each distinct Eq. (3) constraint.
    attention : ndarray, shape (k, N, L_max) or None
        Stage 2 only: the attention weights of every sample and position.
    W : ndarray
        The final parameter.
    stopped : str or None
        Why the stage ended early (gradient underflow), else None.
    """

    steps: np.ndarray
    loss: np.ndarray
    norm: np.ndarray
    one_minus_cos: np.ndarray
    margins: np.ndarray
    attention: np.ndarray | None
    W: np.ndarray
    stopped: str | None = None
    seconds: float = 0.0
    weights: np.ndarray | None = None  # (k, ...) the parameter at every recorded step, if kept
    grad_scale: np.ndarray | None = None  # max |gradient| at every recorded step (stage 1: of the log-scaled gradient)


def stage1_margin_fn(E: np.ndarray, coll: CollocationArrays) -> Callable[[np.ndarray], np.ndarray]:
    """``Ws -> (e_{n(x)} - e_i)^T W x`` for every W of a block (shape (k, |C| (|V| - 1)))."""
    return lambda Ws: _stage1_margins(Ws, E, coll)


def _stage1_margins(Ws: np.ndarray, E: np.ndarray, coll: CollocationArrays) -> np.ndarray:
    """``(e_{n(x)} - e_i)^T W x`` for every recorded W (shape (k, |C| (|V| - 1)))."""
    k = len(Ws)
    if len(coll.source) == 0:
        return np.zeros((k, 0))
    U = Ws if is_canonical(E) else Ws @ E  # (k, V, V): column x is W x
    cols = U[:, :, coll.source]  # (k, V, |C|)
    c = np.arange(len(coll.source))
    top = cols[:, coll.target, c]  # (k, |C|)
    m = top[:, None, :] - cols  # (k, V, |C|)
    keep = np.ones(m.shape[1:], dtype=bool)
    keep[coll.target, c] = False
    return m.transpose(0, 2, 1)[:, keep.T]


def stage2_margin_fn(st: Structure, E: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``Ws -> (x_l - x_l')^T W x_q`` for every W of a block and every distinct Eq. (3) constraint."""
    idx = st.dataset.index
    pairs = st.eq3_pairs
    a = np.array([idx[p[0]] for p in pairs], dtype=np.int64)
    b = np.array([idx[p[1]] for p in pairs], dtype=np.int64)
    q = np.array([idx[p[2]] for p in pairs], dtype=np.int64)

    canonical = is_canonical(E)

    def margins(Ws: np.ndarray) -> np.ndarray:
        K = Ws if canonical else np.matmul(np.matmul(E.T, Ws), E)
        return K[:, a, q] - K[:, b, q]

    return margins


def row_norms(flat: np.ndarray) -> np.ndarray:
    """Frobenius norm of each row, rescaled by its largest entry first (no underflow when squared)."""
    scale = np.max(np.abs(flat), axis=1)
    safe = np.where(scale > 0, scale, 1.0)
    with np.errstate(invalid="ignore"):  # a row with an infinite entry: NaN
        return scale * np.linalg.norm(flat / safe[:, None], axis=1)


def _one_minus_cos(flat: np.ndarray, norms: np.ndarray, ref_unit: np.ndarray) -> np.ndarray:
    """``||w/|w| - r||^2 / 2`` per row ``w`` (``r`` a unit vector): ``1 - cos``, accurate near 0; NaN
    at w = 0 and where w has an entry that is not finite.

    A row whose norm exceeds the largest float (finite entries near 1e308, as ``t eta_0`` passes
    it with a huge step size) is normalised after scaling by its largest entry: divided by its
    overflowed norm it read as 0, ``1 - cos`` as 0.5, which falsified Prop. 1 where it holds."""
    with np.errstate(invalid="ignore", divide="ignore"):
        D = flat / np.where(norms > 0, norms, np.nan)[:, None] - ref_unit[None, :]
        over = np.isinf(norms) & np.isfinite(flat).all(axis=1)
        if over.any():
            D[over] = scaled_unit(flat[over], axis=1) - ref_unit[None, :]
    return 0.5 * np.sum(D * D, axis=1)


def one_minus_cos_rows(Ws: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``1 - cos(W_k, R)`` for each ``W_k = Ws[k]``, as :class:`Recorder` computes its curves
    (NaN where ``W_k = 0``).

    Examples
    --------
    >>> import numpy as np
    >>> one_minus_cos_rows(np.array([[[1.0, 0.0]], [[0.0, 2.0]]]), np.array([[3.0, 0.0]])).tolist()
    [0.0, 1.0]
    >>> one_minus_cos_rows(np.array([[[1e308, 1e308]], [[np.inf, 0.0]]]), np.array([[1.0, 1.0]])).tolist()
    [0.0, nan]
    """
    flat = Ws.reshape(len(Ws), -1)
    return _one_minus_cos(flat, row_norms(flat), (R / safe_norm(R)).ravel())


class Recorder:
    """Streams the curves of one stage: the parameters of recorded steps are
    buffered in blocks of :attr:`BLOCK` and reduced to norms, alignments and
    margins one block at a time (vectorised), so memory does not grow with
    the number of steps unless the weights are kept on purpose."""

    BLOCK = 256

    def __init__(self, margin_fn, ref, record_attention: bool = False, keep_weights: bool = False):
        self.steps, self.loss, self.att, self.gscale = [], [], [], []
        self.norms, self.cos, self.margins, self.kept, self.buffer = [], [], [], [], []
        self.margin_fn, self.keep, self.record_attention = margin_fn, keep_weights, record_attention
        nr = safe_norm(ref) if ref is not None else 0.0
        self.ref = (ref / nr).ravel() if nr > 0 else None

    def __call__(self, t: int, W: np.ndarray, lo: float, gscale: float = float("nan"), phi: np.ndarray | None = None) -> None:
        self.steps.append(t)
        self.loss.append(lo)
        self.gscale.append(gscale)
        self.buffer.append(W.copy())
        if self.record_attention:
            self.att.append(phi)
        if len(self.buffer) >= self.BLOCK:
            self._flush()

    def extend(self, ts: np.ndarray, Ws: np.ndarray, losses: np.ndarray, gscales: np.ndarray,
               phis: np.ndarray | None = None) -> None:
        """Record a block of steps at once (``Ws[k]`` the parameter at step ``ts[k]``); the
        arrays are copied."""
        self._flush()
        self.steps.extend(ts.tolist())
        self.loss.extend(losses.tolist())
        self.gscale.extend(gscales.tolist())
        if self.record_attention:
            self.att.extend(np.array(phis))
        self._reduce(np.array(Ws))

    def _flush(self) -> None:
        if not self.buffer:
            return
        Ws = np.array(self.buffer)
        self.buffer = []
        self._reduce(Ws)

    def _reduce(self, Ws: np.ndarray) -> None:
        """Norms, alignments and margins of a block of recorded parameters."""
        if not len(Ws):
            return
        flat = Ws.reshape(len(Ws), -1)
        norms = row_norms(flat)
        cos = np.full(len(Ws), np.nan) if self.ref is None else _one_minus_cos(flat, norms, self.ref)
        self.norms.append(norms)
        self.cos.append(cos)
        self.margins.append(self.margin_fn(Ws))
        if self.keep:
            self.kept.append(Ws)

    def result(self, W: np.ndarray, stopped: str | None, started: float) -> StageTrajectory:
        """The stage's record; ``seconds`` runs from ``started`` to the end of the post-processing."""
        self._flush()
        out = StageTrajectory(
            np.array(self.steps, dtype=np.int64),
            np.array(self.loss),
            np.concatenate(self.norms),
            np.concatenate(self.cos),
            np.concatenate(self.margins),
            np.array(self.att) if self.record_attention else None,
            W,
            stopped,
            0.0,
            np.concatenate(self.kept) if self.keep else None,
            np.array(self.gscale),
        )
        out.seconds = time.perf_counter() - started
        return out
