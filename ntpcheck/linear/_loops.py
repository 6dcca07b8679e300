"""The training loops of :mod:`ntpcheck.linear.dynamics`, compiled (numba).

One function runs GD, normalised GD or Adam on ``CE(W)`` (Eq. 2) for
``n_steps`` steps and writes ``W_k`` and ``CE(W_k)`` at the recorded steps
into buffers; the records that need references (``W⋆``, ``W^mm``, ``P_ℱ``)
are computed afterwards from those snapshots, in numpy
(:func:`ntpcheck.linear.dynamics.train`).  The arithmetic of one step is that
of :func:`ntpcheck.linear.dynamics.step_reference` (tested equal to 1e-12):

* logits ``Z = W H̄`` (V × m), column softmax ``s_j = 𝕊(Z[:, j])`` with the
  column maximum subtracted; ``CE = Σ_j π̂_j Σ_{z∈𝒮_j} p̂_{j,z} (LSE_j − Z_{z,j})``;
* gradient ``G = (S − P̂ᵀ) diag(π̂) H̄ᵀ`` (V × d);
* GD ``W ← W − η G``; NGD ``W ← W − η G/‖G‖``; Adam (Kingma & Ba 2015, with
  bias correction) ``m ← β₁m + (1−β₁)G``, ``v ← β₂v + (1−β₂)G⊙G``,
  ``W ← W − η m̂/(√v̂ + ε)``, ``m̂ = m/(1−β₁ᵏ)``, ``v̂ = v/(1−β₂ᵏ)``.

Slice assignments are written as loops (see :mod:`ntpcheck.transformer.kernels.loops`:
they compile a formatting path that costs seconds on a cold cache).
"""

from __future__ import annotations

import math

import numpy as np

from ntpcheck.common.numba_cache import ensure_cache_dir

ensure_cache_dir()  # before numba is imported: a read-only install with no home has nowhere to cache

from numba import njit  # noqa: E402

__all__ = ["GD", "NGD", "ADAM", "run", "RUNNING", "DONE", "ZERO_GRADIENT", "NOT_FINITE"]

#: Methods, as the compiled loop takes them.
GD, NGD, ADAM = 0, 1, 2
#: Status codes (as :mod:`ntpcheck.transformer.kernels.ngd`'s).
RUNNING, DONE, ZERO_GRADIENT, NOT_FINITE = 0, 1, 2, 3


@njit(cache=True)
def _loss_grad(W, H, P, pi, mask, Z, S, G):  # pragma: no cover - compiled
    """``CE(W)`` returned, its gradient written into ``G``; ``Z`` and ``S`` are work buffers (V × m)."""
    V, d = W.shape
    m = H.shape[1]
    loss = 0.0
    for j in range(m):
        zmax = -math.inf
        for v in range(V):
            acc = 0.0
            for a in range(d):
                acc += W[v, a] * H[a, j]
            Z[v, j] = acc
            if acc > zmax:
                zmax = acc
        tot = 0.0
        for v in range(V):
            e = math.exp(Z[v, j] - zmax)
            S[v, j] = e
            tot += e
        lse = zmax + math.log(tot)
        cj = 0.0
        for v in range(V):
            S[v, j] /= tot
            if mask[j, v]:
                cj += P[j, v] * (lse - Z[v, j])
        loss += pi[j] * cj
        for v in range(V):  # S becomes the residual pi_j (s_j - p_j)
            S[v, j] = pi[j] * (S[v, j] - P[j, v])
    for v in range(V):
        for a in range(d):
            acc = 0.0
            for j in range(m):
                acc += S[v, j] * H[a, j]
            G[v, a] = acc
    return loss


@njit(cache=True)
def run(method, W, H, P, pi, mask, eta, beta1, beta2, eps, n_steps, recorded,
        out_k, out_W, out_loss, out_gnorm):  # pragma: no cover - compiled
    """Steps ``0, 1, ..., n_steps`` of ``method`` from ``W = W_0`` (updated in place), recording
    step ``k`` into the next free slot of the buffers where ``recorded[k]`` (and always the last
    step reached); the buffers need ``recorded.sum() + 1`` slots.

    Returns ``(k, written, status, max_rise)``: the step reached, the slots written, a status
    code, and ``max_k (CE(W_{k+1}) − CE(W_k))`` over the steps taken (for the descent check;
    ``-inf`` if none was taken).
    """
    V, d = W.shape
    m = H.shape[1]
    Z = np.zeros((V, m))
    S = np.zeros((V, m))
    G = np.zeros((V, d))
    Mom = np.zeros((V, d))
    Vel = np.zeros((V, d))
    written = 0
    k = 0
    prev = math.inf
    max_rise = -math.inf
    while True:
        loss = _loss_grad(W, H, P, pi, mask, Z, S, G)
        if prev < math.inf and loss - prev > max_rise:
            max_rise = loss - prev
        prev = loss
        gn = 0.0
        for v in range(V):
            for a in range(d):
                gn += G[v, a] * G[v, a]
        gn = math.sqrt(gn)
        status = RUNNING
        if k == n_steps:
            status = DONE
        elif not (gn <= 1.7976931348623157e308) or not (abs(loss) <= 1.7976931348623157e308):
            status = NOT_FINITE
        elif gn == 0.0:
            status = ZERO_GRADIENT
        if recorded[k] or status != RUNNING:
            out_k[written] = k
            for v in range(V):
                for a in range(d):
                    out_W[written, v, a] = W[v, a]
            out_loss[written] = loss
            out_gnorm[written] = gn
            written += 1
        if status != RUNNING:
            return k, written, status, max_rise
        if method == 0:
            for v in range(V):
                for a in range(d):
                    W[v, a] -= eta * G[v, a]
        elif method == 1:
            f = eta / gn
            for v in range(V):
                for a in range(d):
                    W[v, a] -= f * G[v, a]
        else:
            t = k + 1  # Adam's bias correction counts steps from W_0
            c1 = 1.0 - beta1 ** t
            c2 = 1.0 - beta2 ** t
            for v in range(V):
                for a in range(d):
                    g = G[v, a]
                    Mom[v, a] = beta1 * Mom[v, a] + (1.0 - beta1) * g
                    Vel[v, a] = beta2 * Vel[v, a] + (1.0 - beta2) * g * g
                    W[v, a] -= eta * (Mom[v, a] / c1) / (math.sqrt(Vel[v, a] / c2) + eps)
        k += 1
