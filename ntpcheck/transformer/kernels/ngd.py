"""Normalised GD loops of Algorithm 1's two stages, compiled (see :mod:`ntpcheck.transformer.kernels`)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .gradients import _stage1_full, _stage2_full
from .loops import copy2

__all__ = ["stage1_ngd_block", "stage2_ngd_block", "RUNNING", "DONE", "ZERO_GRADIENT", "NOT_FINITE"]

#: Status codes of the blocks: the buffer is full (call again from the returned step), the
#: last step was reached, or the gradient was zero / not finite at the returned step.
RUNNING, DONE, ZERO_GRADIENT, NOT_FINITE = 0, 1, 2, 3


@njit(cache=True)
def _max_abs(G):  # pragma: no cover - compiled
    """``max |G|`` as ``np.max(np.abs(G))`` gives it: NaN if an entry is NaN, else possibly inf."""
    scale = 0.0
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            a = abs(G[i, j])
            if a != a:
                return a
            if a > scale:
                scale = a
    return scale


@njit(cache=True)
def _status(t, n_steps, scale):  # pragma: no cover - compiled
    """:data:`DONE` at the last step, :data:`NOT_FINITE` / :data:`ZERO_GRADIENT` where the
    update cannot be taken, else :data:`RUNNING`."""
    if t == n_steps:
        return DONE
    if not scale <= 1.7976931348623157e308:
        return NOT_FINITE
    if scale == 0.0:
        return ZERO_GRADIENT
    return RUNNING


@njit(cache=True)
def _ngd_update(W, G, scale, eta):  # pragma: no cover - compiled
    """``W -= eta Gs/||Gs||`` in place with ``Gs = G/scale`` (:func:`ntpcheck.transformer.training.ngd_step`)."""
    ss = 0.0
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            gs = G[i, j] / scale
            ss += gs * gs
    f = eta / math.sqrt(ss)
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            W[i, j] -= f * (G[i, j] / scale)


@njit(cache=True)
def _advance(W, G, lo, extra, t, n_steps, recorded, eta, written, out_t, out_W, out_loss, out_scale, out_extra):  # pragma: no cover
    """One step of normalised GD given the gradient ``G`` at ``W = W^(t)``: record step ``t`` if
    it is recorded or the last one run, then update ``W`` in place unless the run ends here.
    Returns ``(next t, slots written, status)``; ``t`` is not advanced when the run ends."""
    scale = _max_abs(G)
    status = _status(t, n_steps, scale)
    if recorded[t] or status != RUNNING:
        out_t[written] = t
        copy2(out_W[written], W)
        out_loss[written] = lo
        out_scale[written] = scale
        copy2(out_extra[written], extra)
        written += 1
    if status != RUNNING:
        return t, written, status
    _ngd_update(W, G, scale, eta)
    return t + 1, written, RUNNING


@njit(cache=True)
def stage2_ngd_block(W, t, stop, n_steps, recorded, eta, E, canonical, UT, tokens, mask, query, target, pi,
                     out_t, out_W, out_loss, out_scale, out_phi):  # pragma: no cover - compiled
    """Normalised GD on ``W_kq`` from step ``t`` with ``W = W_kq^(t)`` (updated in place).

    Recorded steps (``recorded[t]``) are written to the ``out_*`` buffers until
    all but one slot are used, or until step ``stop`` is reached (so that a caller
    can run a long loop in chunks and let Ctrl-C in between; the steps are the same
    whatever the chunks).  Returns ``(t, written, status)``: the next step
    to run, the number of slots written, and :data:`RUNNING` (buffer full or ``stop`` reached),
    :data:`DONE`, :data:`ZERO_GRADIENT` or :data:`NOT_FINITE` (``t`` is then the
    step where the gradient was found so; it was recorded, and not taken).
    ``E`` (d x |V|) is used unless ``canonical``.
    """
    N, L = tokens.shape
    V = UT.shape[0]
    Gtok, phi = np.empty((V, V)), np.empty((N, L))
    z, p, h = np.empty(V), np.empty(V), np.empty(L)
    written = 0
    while True:
        G, lo = _stage2_full(W, E, canonical, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
        t, written, status = _advance(W, G, lo, phi, t, n_steps, recorded, eta, written, out_t, out_W, out_loss, out_scale, out_phi)
        if status != RUNNING or written >= out_W.shape[0] - 1 or t >= stop:
            return t, written, status


@njit(cache=True)
def stage1_ngd_block(W, t, stop, n_steps, recorded, eta, E, canonical, source, target,
                     out_t, out_W, out_loss, out_scale, out_none):  # pragma: no cover - compiled
    """Stage 1's normalised GD on ``W_ov`` from ``W = W_ov^(t)``, on the log-scaled gradient of
    :func:`_stage1_full`; buffers, return value and status as :func:`stage2_ngd_block`
    (``out_none`` has shape ``(cap, 0, 0)``: stage 1 records nothing besides ``W``)."""
    V = W.shape[0]
    Gtok, g, z, e = np.empty((V, V)), np.empty(source.shape[0]), np.empty(V), np.empty(V)
    none = np.empty(out_none.shape[1:])
    written = 0
    while True:
        G, lo = _stage1_full(W, E, canonical, source, target, Gtok, g, z, e)
        t, written, status = _advance(W, G, lo, none, t, n_steps, recorded, eta, written, out_t, out_W, out_loss, out_scale, out_none)
        if status != RUNNING or written >= out_W.shape[0] - 1 or t >= stop:
            return t, written, status
