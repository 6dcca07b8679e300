"""Stage 2 of Algorithm 1 as one compiled loop (numba), for the sizes where numpy's per-call
overhead, not arithmetic, is the cost.

At the sizes property search draws (|V| <= 10, N <= 20, L_max <= 8) a numpy
stage-2 step is about 50 calls of 1-2 us each on arrays of a few dozen
entries; Theorem 1's rate alone runs 20,000 such steps per instance.  Here
the whole normalised-GD loop

    W_kq <- W_kq - eta G/||G||,   G = grad_{W_kq} L (Eq. 6)

runs in one compiled function that writes the recorded steps (``W``, loss,
``max |G|``, attention) into buffers, which :class:`ntpcheck.curves.Recorder`
reduces block by block as before.

The arithmetic is that of the numpy dense path
(:func:`ntpcheck.stage2_step.stage2_grad_fn`), sample by sample:
attention ``phi = softmax(s)`` over the real positions; logits
``z = sum_l phi_l U[:, i_l]``; the wrong-class probabilities
``p_v = exp(z_v - z_y - loss)`` with the loss as ``log1p`` when ``y`` is the
arg-max (:func:`ntpcheck.model.cross_entropy_parts`);
``h_l = pi (sum_v p_v U[v, i_l] - (sum_v p_v) U[y, i_l])``; the softmax
Jacobian in the centred form (:func:`ntpcheck.model.softmax_backward_centred`),
so equal tokens cancel exactly; the scatter ``G[i_l, q] += r_l``; and the
step rescaled by ``max |G|`` before the norm (:func:`ntpcheck.training.ngd_step`).
It is tested equal to the numpy path to 1e-12 (relative), on saturated runs
too, in ``tests/test_kernels.py``.  Summation order differs, so the two
agree to rounding, not bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["stage1_ngd_block", "stage2_ngd_block", "stage2_gradients", "RUNNING", "DONE", "ZERO_GRADIENT", "NOT_FINITE"]

#: Status codes of :func:`stage2_ngd_block`: the buffer is full (call again from the returned
#: step), the last step was reached, or the gradient was zero / not finite at the returned step.
RUNNING, DONE, ZERO_GRADIENT, NOT_FINITE = 0, 1, 2, 3


@njit(cache=True)
def _stage2_grad(K, UT, tokens, mask, query, target, pi, G, phi, z, p, h):  # pragma: no cover - compiled
    """``G = grad_{W_kq} L`` over (token, query) pairs (canonical coordinates), the loss, and
    ``phi`` filled in place; ``z``, ``p`` (|V|) and ``h`` (L_max) are scratch."""
    N, L = tokens.shape
    V = UT.shape[0]
    G[:, :] = 0.0
    total_loss = 0.0
    for n in range(N):
        q = query[n]
        # attention: softmax of the scores over the real positions (Eq. 9)
        mx = -np.inf
        for l in range(L):
            if mask[n, l]:
                s = K[tokens[n, l], q]
                phi[n, l] = s
                if s > mx:
                    mx = s
        ssum = 0.0
        for l in range(L):
            if mask[n, l]:
                e = math.exp(phi[n, l] - mx)
                phi[n, l] = e
                ssum += e
            else:
                phi[n, l] = 0.0
        for l in range(L):
            phi[n, l] /= ssum
        # logits z = sum_l phi_l U[:, i_l]
        z[:] = 0.0
        for l in range(L):
            if mask[n, l]:
                w = phi[n, l]
                row = UT[tokens[n, l]]
                for v in range(V):
                    z[v] += w * row[v]
        # cross_entropy_parts: d = z - z_y, m = max d >= 0, p_v = exp(d_v - loss) for v != y
        y = target[n]
        zy = z[y]
        m = 0.0
        for v in range(V):
            d = z[v] - zy
            if d > m:
                m = d
        other = 0.0
        for v in range(V):
            if v == y:
                p[v] = 0.0
            else:
                e = math.exp(z[v] - zy - m)
                p[v] = e
                other += e
        if m == 0.0:
            lo = math.log1p(other)
        else:
            lo = m + math.log(math.exp(-m) + other)
        f = math.exp(m - lo)
        ptot = 0.0
        for v in range(V):
            p[v] *= f
            ptot += p[v]
        total_loss += pi[n] * lo
        # h_l = pi (sum_v p_v U[v, i_l] - (sum p) U[y, i_l])
        for l in range(L):
            if mask[n, l]:
                row = UT[tokens[n, l]]
                acc = 0.0
                for v in range(V):
                    acc += p[v] * row[v]
                h[l] = pi[n] * (acc - ptot * row[y])
            else:
                h[l] = 0.0
        # centred softmax backward: c = h at the first arg-max of phi
        k = 0
        for l in range(L):
            if phi[n, l] > phi[n, k]:
                k = l
        c = h[k]
        S = 0.0
        A = 0.0
        for l in range(L):
            S += phi[n, l]
            A += phi[n, l] * (h[l] - c)
        for l in range(L):
            if mask[n, l]:
                G[tokens[n, l], q] += phi[n, l] * ((h[l] - c) * S - A)
    return total_loss


@njit(cache=True)
def _stage2_full(W, E, canonical, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h):  # pragma: no cover - compiled
    """``(grad_{W_kq} L, L)`` in the embedding coordinates: ``E G E^T`` with scores ``E^T W E``."""
    if canonical:
        return Gtok, _stage2_grad(W, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
    ET = np.ascontiguousarray(E.T)
    lo = _stage2_grad(ET @ W @ E, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
    return E @ Gtok @ ET, lo


@njit(cache=True)
def _stage1_full(W, E, canonical, source, target, Gtok, g):  # pragma: no cover - compiled
    """Eq. (5) up to a positive factor and ``L_0``, as :func:`ntpcheck.model.stage1_grad_scaled`:
    ``g_v = exp(log p_v - M)`` for the wrong classes (``M`` the largest ``log p``), ``g_y = -sum g_v``,
    scattered to column ``x`` of the token-coordinate gradient; zero if every ``log p`` is ``-inf``."""
    V = Gtok.shape[0]
    U = W if canonical else W @ E
    C = source.shape[0]
    M = -np.inf
    total = 0.0
    for k in range(C):  # first pass: the losses and the largest log p
        x, y = source[k], target[k]
        zy = U[y, x]
        m = 0.0
        for v in range(V):
            if U[v, x] - zy > m:
                m = U[v, x] - zy
        other = 0.0
        for v in range(V):
            if v != y:
                other += math.exp(U[v, x] - zy - m)
        lo = math.log1p(other) if m == 0.0 else m + math.log(math.exp(-m) + other)
        g[k] = lo
        total += lo
        for v in range(V):
            if v != y and U[v, x] - zy - lo > M:
                M = U[v, x] - zy - lo
    Gtok[:, :] = 0.0
    if M > -np.inf and M < np.inf:
        for k in range(C):
            x, y = source[k], target[k]
            zy = U[y, x]
            s = 0.0
            for v in range(V):
                if v != y:
                    e = math.exp(U[v, x] - zy - g[k] - M)
                    Gtok[v, x] += e
                    s += e
            Gtok[y, x] -= s
    if canonical:
        return Gtok, total
    return Gtok @ np.ascontiguousarray(E.T), total


@njit(cache=True)
def _max_abs(G):  # pragma: no cover - compiled
    """``max |G|`` as ``np.max(np.abs(G))`` gives it: NaN if an entry is NaN, else possibly inf."""
    scale = 0.0
    for a in G.ravel():
        a = abs(a)
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
    """``W -= eta Gs/||Gs||`` in place with ``Gs = G/scale`` (:func:`ntpcheck.training.ngd_step`)."""
    Gs = G / scale
    W -= (eta / math.sqrt(np.sum(Gs * Gs))) * Gs


@njit(cache=True)
def _advance(W, G, lo, extra, t, n_steps, recorded, eta, written, out_t, out_W, out_loss, out_scale, out_extra):  # pragma: no cover
    """One step of normalised GD given the gradient ``G`` at ``W = W^(t)``: record step ``t`` if
    it is recorded or the last one run, then update ``W`` in place unless the run ends here.
    Returns ``(next t, slots written, status)``; ``t`` is not advanced when the run ends."""
    scale = _max_abs(G)
    status = _status(t, n_steps, scale)
    if recorded[t] or status != RUNNING:
        out_t[written] = t
        out_W[written] = W
        out_loss[written] = lo
        out_scale[written] = scale
        out_extra[written] = extra
        written += 1
    if status != RUNNING:
        return t, written, status
    _ngd_update(W, G, scale, eta)
    return t + 1, written, RUNNING


@njit(cache=True)
def stage2_ngd_block(W, t, n_steps, recorded, eta, E, canonical, UT, tokens, mask, query, target, pi,
                     out_t, out_W, out_loss, out_scale, out_phi):  # pragma: no cover - compiled
    """Normalised GD on ``W_kq`` from step ``t`` with ``W = W_kq^(t)`` (updated in place).

    Recorded steps (``recorded[t]``) are written to the ``out_*`` buffers until
    all but one slot are used.  Returns ``(t, written, status)``: the next step
    to run, the number of slots written, and :data:`RUNNING` (buffer full),
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
        if status != RUNNING or written >= out_W.shape[0] - 1:
            return t, written, status


@njit(cache=True)
def stage1_ngd_block(W, t, n_steps, recorded, eta, E, canonical, source, target,
                     out_t, out_W, out_loss, out_scale, out_none):  # pragma: no cover - compiled
    """Stage 1's normalised GD on ``W_ov`` from ``W = W_ov^(t)``, on the log-scaled gradient of
    :func:`_stage1_full`; buffers, return value and status as :func:`stage2_ngd_block`
    (``out_none`` has a 0-sized trailing shape)."""
    V = W.shape[0]
    Gtok, g = np.empty((V, V)), np.empty(source.shape[0])
    none = np.empty(out_none.shape[1:])
    written = 0
    while True:
        G, lo = _stage1_full(W, E, canonical, source, target, Gtok, g)
        t, written, status = _advance(W, G, lo, none, t, n_steps, recorded, eta, written, out_t, out_W, out_loss, out_scale, out_none)
        if status != RUNNING or written >= out_W.shape[0] - 1:
            return t, written, status


@njit(cache=True)
def stage2_gradients(Ws, E, canonical, UT, tokens, mask, query, target, pi, out):  # pragma: no cover - compiled
    """``out[k] = grad_{W_kq} L`` at ``W_kq = Ws[k]`` (Eq. 6), for a stack of parameters."""
    N, L = tokens.shape
    V = UT.shape[0]
    Gtok, phi = np.empty((V, V)), np.empty((N, L))
    z, p, h = np.empty(V), np.empty(V), np.empty(L)
    for k in range(Ws.shape[0]):
        G, _ = _stage2_full(np.ascontiguousarray(Ws[k]), E, canonical, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
        out[k] = G
