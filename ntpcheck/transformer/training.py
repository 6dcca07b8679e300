"""Algorithm 1: two-stage normalized gradient descent (Section 4.2).

Stage 1 trains ``W_ov`` on the collocation loss ``L_0`` from ``W_ov = 0``::

    W_ov <- W_ov - eta_0 grad L_0 / ||grad L_0||          (t < T)

Stage 2 freezes ``W_ov = W_ov^(T)`` and trains ``W_kq`` on Eq. (1) from 0::

    W_kq <- W_kq - eta grad_{W_kq} L / ||grad_{W_kq} L||  (t < T')

Defaults are the paper's Section 7 choices: ``eta_0 = 0.2/sqrt(d)``,
``eta = 0.05/sqrt(d)``, ``T = T' = 900``.  The *idealised* stage 1 of
Appendix C.1 (used from Lemma 4 on) replaces the stage-1 output by the
matrix whose stage-1 margins all equal a given value (the paper's ``A`` of
Corollary 1, computed by :func:`ntpcheck.properties.huang2024.bounds.A`),
i.e. ``margin * W*_ov`` under Assumption 2.

Stage 1 uses a log-scaled gradient (:func:`ntpcheck.transformer.model.stage1_grad_scaled`),
so its direction stays exact after the loss underflows.  If a stage-2
gradient underflows to zero (or stops being finite) training stops cleanly;
:attr:`StageTrajectory.stopped` says at which step and why.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ntpcheck.common import interrupt
from ntpcheck.transformer import model, stage2_step
from ntpcheck.common.data import Dataset
from ntpcheck.common.directions import scaled_unit
from .embeddings import as_embeddings, is_canonical
from .model import CollocationArrays, safe_norm
from .stage1_forms import idealised_stage1, stage1_closed_form, stage1_closed_form_applies
from .curves import Recorder, StageTrajectory, stage1_margin_fn, stage2_margin_fn
from .structure import Structure, as_structure

__all__ = [
    "TrainingConfig",
    "StageTrajectory",
    "Trajectory",
    "collocation_arrays",
    "one_minus_cos",
    "ngd_step",
    "recorded_mask",
    "run_stage1",
    "run_stage2",
    "idealised_stage1",
    "stage1_closed_form",
    "stage1_closed_form_applies",
    "train",
]


@dataclass(frozen=True)
class TrainingConfig:
    """Parameters of Algorithm 1.

    ``eta0``/``eta`` default to ``0.2/sqrt(d)`` and ``0.05/sqrt(d)``; ``stride``
    records every ``stride``-th step (the first and last are always kept);
    ``record_attention`` keeps the attention weights of every recorded step;
    ``stage1_margin``, if set, replaces the stage-1 output by the idealised
    ``stage1_margin * W*_ov`` of Appendix C.1 (:func:`idealised_stage1`).
    """

    T: int = 900
    T2: int = 900
    eta0: float | None = None
    eta: float | None = None
    stride: int = 1
    stage1_margin: float | None = None
    record_attention: bool = True

    def __post_init__(self) -> None:
        for name in ("T", "T2", "stride"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (1 if name == "stride" else 0):
                raise ValueError(f"{name} must be an integer >= {1 if name == 'stride' else 0}, got {v!r}")
        for name in ("eta0", "eta", "stage1_margin"):
            v = getattr(self, name)
            if v is not None and not (math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be finite and > 0, got {v!r}")

    def step_sizes(self, d: int) -> tuple[float, float]:
        eta0 = 0.2 / math.sqrt(d) if self.eta0 is None else float(self.eta0)
        eta = 0.05 / math.sqrt(d) if self.eta is None else float(self.eta)
        return eta0, eta


class Trajectory:
    """Both stages of Algorithm 1.

    ``W_ov`` is the value matrix stage 2 ran with.  ``stage1`` is the
    recorded NGD run of stage 1; when stage 2 could start from the closed
    form :func:`stage1_closed_form` it is run only when first asked for
    (the claims about the stage-1 trajectory ask; the others do not).
    """

    def __init__(self, stage1, stage2: StageTrajectory, eta0: float, eta: float, config: TrainingConfig,
                 embeddings: np.ndarray, W_ov: np.ndarray | None = None) -> None:
        self._stage1 = stage1  # a StageTrajectory, or a callable that runs it
        self.stage2, self.eta0, self.eta, self.config, self.embeddings = stage2, eta0, eta, config, embeddings
        self.W_ov = stage1.W if W_ov is None else W_ov

    @property
    def stage1(self) -> StageTrajectory:
        if callable(self._stage1):
            s1 = self._stage1()
            if self.config.stage1_margin is not None:
                s1.W = self.W_ov  # the idealised stage 1 replaced its output
            self._stage1 = s1
        return self._stage1

    @property
    def W_kq(self) -> np.ndarray:
        return self.stage2.W


def collocation_arrays(st: Structure) -> CollocationArrays:
    """The collocation pairs of a structure as index arrays."""
    return CollocationArrays(*st.collocation_index, st.dataset.n_vocab)


def one_minus_cos(W: np.ndarray, R: np.ndarray | None) -> float:
    """``1 - cos(W, R) = ||W/|W| - R/|R| ||^2 / 2`` (accurate near 0; nan where ``R`` is None or either is
    0); a ``W`` whose norm overflows is scaled by its largest entry first (:func:`.curves.one_minus_cos_rows`).

    Examples
    --------
    >>> W = np.array([[1.0, 1.0], [0.0, 0.0]])
    >>> one_minus_cos(1e308 * W, W), round(one_minus_cos(W, np.eye(2)), 12)
    (0.0, 0.5)
    """
    if R is None:
        return float("nan")
    nw, nr = safe_norm(W), safe_norm(R)
    if nw == 0 or nr == 0:
        return float("nan")
    D = (scaled_unit(W, axis=None) if math.isinf(nw) and np.isfinite(W).all() else W / nw) - R / nr
    return 0.5 * float(np.sum(D * D))


def recorded_mask(n_steps: int, stride: int) -> np.ndarray:
    """Which of the steps ``0..n_steps`` are recorded: every ``stride``-th, and the last."""
    mask = np.zeros(n_steps + 1, dtype=bool)
    mask[::stride] = True
    mask[n_steps] = True
    return mask


def ngd_step(W: np.ndarray, G: np.ndarray, scale: float, eta: float) -> np.ndarray:
    """``W - eta G/||G||`` with ``scale = max |G| > 0``; ``G`` is rescaled before the norm so
    that gradients of order 1e-200 do not underflow when squared."""
    Gs = G / scale
    return W - (eta / math.sqrt(float(np.vdot(Gs, Gs)))) * Gs


_ZERO = "is exactly zero (underflow, or a flat loss such as W_ov = 0)"
_NOT_FINITE = "is not finite (the parameters overflowed: step size too large?)"


def _stopped(why: str, t: int) -> str:
    """:attr:`StageTrajectory.stopped` for a gradient that ``why`` at step ``t``."""
    return f"gradient {why} at step {t}; training stopped before that update"


def _ngd(
    W0: np.ndarray,
    n_steps: int,
    eta: float,
    grad: Callable[[np.ndarray], tuple],
    record: Callable[..., None],
    stride: int,
) -> tuple[np.ndarray, str | None]:
    """Normalized GD ``W <- W - eta G/||G||``.

    ``grad(W)`` returns ``(G, loss, *extra)``; on recorded steps
    ``record(t, W, loss, max|G|, *extra)`` is called (stage 2 passes the
    attention weights its gradient computed, so they are not recomputed).
    """
    W = W0.copy()
    recorded = recorded_mask(n_steps, stride)
    for t in range(n_steps + 1):
        interrupt.check()
        G, lo, *extra = grad(W)
        scale = float(np.max(np.abs(G))) if G.size else 0.0
        if recorded[t]:
            record(t, W, lo, scale, *extra)
        if t == n_steps:
            return W, None
        if scale == 0.0 or not np.isfinite(scale):
            if not recorded[t]:
                record(t, W, lo, scale, *extra)
            return W, _stopped(_ZERO if scale == 0.0 else _NOT_FINITE, t)
        W = ngd_step(W, G, scale, eta)
    return W, None  # pragma: no cover


def run_stage1(
    st: Structure,
    E: np.ndarray,
    T: int,
    eta0: float,
    reference: np.ndarray | None = None,
    stride: int = 1,
    keep_weights: bool = False,
    compiled: bool | None = None,
) -> StageTrajectory:
    """Stage 1 of Algorithm 1 from ``W_ov = 0``; ``reference`` is usually ``W*_ov``.

    ``compiled``: as in :func:`run_stage2` (by default compiled while ``|V|^2`` is at most
    :data:`COMPILED_MAX_WORK`, :func:`_use_compiled`).
    """
    coll = collocation_arrays(st)
    rec = Recorder(stage1_margin_fn(E, coll), reference, keep_weights=keep_weights)
    t0 = time.perf_counter()
    Ecan = None if is_canonical(E) else E
    W0 = np.zeros((st.dataset.n_vocab, E.shape[0]))
    # The log-scaled gradient keeps the exact NGD direction when the loss underflows.
    if _use_compiled(compiled, st.dataset.n_vocab**2, E):
        from .kernels import embedding_args, stage1_ngd_block

        args = (*embedding_args(E), coll.source.astype(np.int64), coll.target.astype(np.int64))
        W, stopped = _ngd_compiled(stage1_ngd_block, W0, T, eta0, rec, stride, (0, 0), *args)
    else:
        W, stopped = _ngd(W0, T, eta0, lambda W: model.stage1_grad_scaled(W, Ecan, coll)[::2], rec, stride)
    return rec.result(W, stopped, t0)


def run_stage2(
    st: Structure,
    E: np.ndarray,
    W_ov: np.ndarray,
    T2: int,
    eta: float,
    reference: np.ndarray | None = None,
    stride: int = 1,
    record_attention: bool = True,
    W_kq0: np.ndarray | None = None,
    keep_weights: bool = False,
    compiled: bool | None = None,
) -> StageTrajectory:
    """Stage 2 of Algorithm 1 with ``W_ov`` frozen, from ``W_kq0`` (default 0).

    ``compiled``: run the loop compiled (:mod:`ntpcheck.transformer.kernels`) or in numpy
    (:func:`ntpcheck.transformer.stage2_step.stage2_grad_fn`); by default compiled while a
    step's dense work ``N L_max |V|`` is at most :data:`COMPILED_MAX_WORK` and the
    embeddings are canonical or small (:func:`_use_compiled`).  Both compute the same
    numbers to rounding.
    """
    arr = st.dataset.arrays
    Ecan = None if is_canonical(E) else E
    rec = Recorder(stage2_margin_fn(st, E), reference, record_attention, keep_weights)
    d = E.shape[0]
    W0 = np.zeros((d, d)) if W_kq0 is None else np.array(W_kq0, dtype=float)
    t0 = time.perf_counter()
    if _use_compiled(compiled, arr.n_samples * arr.l_max * arr.n_vocab, E):
        from .kernels import stage2_ngd_block

        args = stage2_step.compiled_args(W_ov, E, arr)
        W, stopped = _ngd_compiled(stage2_ngd_block, W0, T2, eta, rec, stride, arr.tokens.shape, *args)
    else:
        W, stopped = _ngd(W0, T2, eta, stage2_step.stage2_grad_fn(W_ov, Ecan, arr), rec, stride)
    return rec.result(W, stopped, t0)


#: Stage 2 runs as one compiled loop (:mod:`ntpcheck.transformer.kernels`) while a step's dense work
#: ``N L_max |V|`` is at most this; above it numpy's vectorised paths
#: (:func:`ntpcheck.transformer.stage2_step.stage2_grad_fn`) are as fast or faster.
COMPILED_MAX_WORK = 2**18
#: Bytes of recorded steps the compiled loop buffers before the recorder reduces them.
_COMPILED_BUFFER_BYTES = 8 * 2**20


#: Largest embedding dimension of non-canonical embeddings the compiled loops take (they
#: multiply by ``E`` with plain loops; BLAS is faster above this).
COMPILED_MAX_DIM = 64


def _use_compiled(compiled: bool | None, work: int, E: np.ndarray) -> bool:
    """``compiled`` if given; else whether a step's ``work`` is at most :data:`COMPILED_MAX_WORK`
    and the embeddings canonical or of dimension at most :data:`COMPILED_MAX_DIM`."""
    if compiled is not None:
        return compiled
    return work <= COMPILED_MAX_WORK and (is_canonical(E) or max(E.shape) <= COMPILED_MAX_DIM)


#: Steps of the first compiled chunk; later chunks are sized to take about :data:`_CHUNK_SECONDS`.
_FIRST_CHUNK = 1024
#: Seconds of one compiled chunk: the compiled loop returns to Python this often, so that
#: Ctrl-C (whose handler runs only in Python) takes effect within a fraction of a second.
_CHUNK_SECONDS = 0.05


def _next_chunk(chunk: int, steps: int, seconds: float) -> int:
    """The next chunk's steps: ``chunk`` rescaled so that it takes about :data:`_CHUNK_SECONDS`
    (growing at most tenfold a time, within [1, 2^20]; a chunk cut short by a full buffer or the
    end of the run says nothing).

    Examples
    --------
    >>> _next_chunk(1024, 1024, 0.5), _next_chunk(1024, 1024, 0.0), _next_chunk(1024, 3, 0.5)
    (102, 10240, 1024)
    """
    if steps < chunk:  # the buffer filled or the run ended first
        return chunk
    per_step = max(seconds, 1e-9) / steps
    return int(min(max(_CHUNK_SECONDS / per_step, 1), 10 * chunk, 2**20))


def _ngd_compiled(block, W0: np.ndarray, n_steps: int, eta: float, rec: Recorder, stride: int,
                  extra_shape: tuple, *args) -> tuple[np.ndarray, str | None]:
    """:func:`_ngd` run by a compiled ``block`` of :mod:`ntpcheck.transformer.kernels` (``block(W, t, stop, n_steps,
    recorded, eta, *args, *buffers)``), whose recorded steps are handed to ``rec`` a buffer at a time;
    ``extra_shape`` is the shape of what a step records besides ``W`` (stage 2: the attention).
    The loop runs in chunks of about :data:`_CHUNK_SECONDS` (:func:`_next_chunk`), with
    :func:`ntpcheck.common.interrupt.check` between them; the steps are the same whatever the chunks."""
    from . import kernels

    W = np.array(W0, dtype=float, order="C")
    per_step = W.size + int(np.prod(extra_shape)) + 3
    cap = max(2, min(n_steps + 2, _COMPILED_BUFFER_BYTES // (8 * per_step)))
    out = (np.empty(cap, dtype=np.int64), np.empty((cap, *W.shape)), np.empty(cap), np.empty(cap),
           np.empty((cap, *extra_shape)))
    recorded = recorded_mask(n_steps, stride)
    t, status, chunk = 0, kernels.RUNNING, _FIRST_CHUNK
    while status == kernels.RUNNING:
        interrupt.check()
        t0, start = time.perf_counter(), t
        t, k, status = block(W, t, t + chunk, n_steps, recorded, eta, *args, *out)
        rec.extend(*(a[:k] for a in out))
        chunk = _next_chunk(chunk, t - start, time.perf_counter() - t0)
    if status == kernels.ZERO_GRADIENT:
        return W, _stopped(_ZERO, t)
    if status == kernels.NOT_FINITE:
        return W, _stopped(_NOT_FINITE, t)
    return W, None


def train(
    dataset: Dataset | Structure,
    config: TrainingConfig = TrainingConfig(),
    embeddings: np.ndarray | None = None,
    references: tuple[np.ndarray | None, np.ndarray | None] | None = None,
    keep_weights: bool = False,
) -> Trajectory:
    """Run Algorithm 1 and record both stages.

    Parameters
    ----------
    dataset : Dataset or Structure
    config : TrainingConfig
    embeddings : ndarray, optional
        ``d x |V|``; canonical when omitted.
    references : (W_ov_ref, W_kq_ref), optional
        Directions for the alignment curves; by default the max-margin
        solutions ``W*_ov`` (Eq. 2) and ``W*_kq`` (Eq. 3), computed by
        :func:`ntpcheck.transformer.maxmargin.reference_solutions`.

    Examples
    --------
    >>> import ntpcheck
    >>> traj = train(ntpcheck.load("example1"), TrainingConfig(T=300, T2=300))
    >>> bool(traj.stage1.loss[-1] < traj.stage1.loss[0]), bool(traj.stage2.loss[-1] < traj.stage2.loss[0])
    (True, True)
    >>> float(traj.stage1.norm[-1]) <= 300 * traj.eta0    # Lemma 1's upper bound
    True
    """
    st = as_structure(dataset)
    E = as_embeddings(embeddings, st.dataset.n_vocab)
    eta0, eta = config.step_sizes(E.shape[0])
    if references is None:
        from .maxmargin import reference_solutions

        references = reference_solutions(st, E)
    ref_ov, ref_kq = references
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported as a clean stop instead
        return _train(st, E, config, eta0, eta, ref_ov, ref_kq, keep_weights)


def _train(st, E, config, eta0, eta, ref_ov, ref_kq, keep_weights) -> Trajectory:
    run1 = lambda: run_stage1(st, E, config.T, eta0, ref_ov, config.stride, keep_weights)
    if config.stage1_margin is not None:
        W_ov = idealised_stage1(st, E, config.stage1_margin)
    elif stage1_closed_form_applies(st, E):
        W_ov = stage1_closed_form(st, E, config.T, eta0)
    else:
        run1 = run1()
        W_ov = run1.W
    s2 = run_stage2(st, E, W_ov, config.T2, eta, ref_kq, config.stride, config.record_attention, keep_weights=keep_weights)
    return Trajectory(run1, s2, eta0, eta, config, E, W_ov)
