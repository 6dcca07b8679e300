"""Compiled gradients of Eq. (5) and Eq. (6) (see :mod:`ntpcheck.transformer.kernels`)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .loops import copy2

__all__ = ["stage2_gradients", "stage2_structured", "stage2_dense", "DENSE_CHUNK", "STRUCTURED_CHUNK"]


@njit(cache=True)
def _mm(A, B):  # pragma: no cover - compiled
    """``A @ B`` by loops (i, k, j order): as fast as BLAS at the sizes compiled here
    (:data:`ntpcheck.transformer.training.COMPILED_MAX_DIM`), and it keeps BLAS out of the compile
    (numba's ``@`` tripled the first-use compile time)."""
    n, m = A.shape
    out = np.zeros((n, B.shape[1]))
    for i in range(n):
        for k in range(m):
            a = A[i, k]
            for j in range(B.shape[1]):
                out[i, j] += a * B[k, j]
    return out


@njit(cache=True)
def _loss_from(m, other):  # pragma: no cover - compiled
    """The loss of :func:`ntpcheck.transformer.model.cross_entropy_parts` from ``m = max_v (z_v - z_y) >= 0``
    and ``other = sum_{v != y} exp(z_v - z_y - m)``: ``log1p(other)`` when ``y`` is the arg-max
    (``m = 0``), else ``m + log(exp(-m) + other)``; accurate to relative precision at 1e-300."""
    return math.log1p(other) if m == 0.0 else m + math.log(math.exp(-m) + other)


@njit(cache=True)
def _cross_entropy_row(z, y, e):  # pragma: no cover - compiled
    """``(m, loss)`` of one logit row ``z`` with target ``y`` (:func:`_loss_from`), and
    ``e_v = exp(z_v - z_y - m)`` for ``v != y``, ``e_y = 0``, written to ``e``."""
    zy = z[y]
    m = 0.0
    for v in range(z.shape[0]):
        if z[v] - zy > m:
            m = z[v] - zy
    other = 0.0
    for v in range(z.shape[0]):
        if v == y:
            e[v] = 0.0
        else:
            e[v] = math.exp(z[v] - zy - m)
            other += e[v]
    return m, _loss_from(m, other)


@njit(cache=True, inline="always")
def _attention(K, tokens, mask, n, q, phi):  # pragma: no cover - compiled
    """``phi[n] = softmax`` of the scores ``K[i_l, q]`` over the real positions (Eq. 9), 0 on padding."""
    L = tokens.shape[1]
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


@njit(cache=True, inline="always")
def _backward_scatter(phi, h, tokens, mask, n, q, G):  # pragma: no cover - compiled
    """``G[i_l, q] += r_l`` with ``r = (diag phi - phi phi^T) h`` for sample ``n``, in the centred
    form of :func:`ntpcheck.transformer.model.softmax_backward_centred` (``c = h`` at the first arg-max of
    ``phi``): positions whose ``h`` equals ``c`` contribute exactly nothing."""
    L = tokens.shape[1]
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


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot(p, row):  # pragma: no cover - compiled
    """``sum_v p_v row_v``, summed in whatever order vectorises (the same order for every call,
    so equal rows give equal sums: the centred backward's exact cancellation is kept)."""
    acc = 0.0
    for v in range(row.shape[0]):
        acc += p[v] * row[v]
    return acc


@njit(cache=True)
def _sample_terms(K, UT, tokens, mask, query, target, pi, n, phi, z, p, h):  # pragma: no cover - compiled
    """Sample ``n``'s attention ``phi[n]`` (Eq. 9), its loss (returned), and
    ``h_l = pi (sum_v p_v U[v, i_l] - (sum p) U[y, i_l])`` written to ``h`` (0 on padding);
    ``z``, ``p`` (|V|) are scratch."""
    L = tokens.shape[1]
    V = UT.shape[0]
    _attention(K, tokens, mask, n, query[n], phi)
    # logits z = sum_l phi_l U[:, i_l]
    z.fill(0.0)
    for l in range(L):
        if mask[n, l]:
            w = phi[n, l]
            row = UT[tokens[n, l]]
            for v in range(V):
                z[v] += w * row[v]
    # cross_entropy_parts: p_v = exp(z_v - z_y - loss) = e_v exp(m - loss) for v != y
    y = target[n]
    m, lo = _cross_entropy_row(z, y, p)
    f = math.exp(m - lo)
    ptot = 0.0
    for v in range(V):
        p[v] *= f
        ptot += p[v]
    for l in range(L):
        if mask[n, l]:
            row = UT[tokens[n, l]]
            h[l] = pi[n] * (_dot(p, row) - ptot * row[y])
        else:
            h[l] = 0.0
    return lo


@njit(cache=True)
def _stage2_grad(K, UT, tokens, mask, query, target, pi, G, phi, z, p, h):  # pragma: no cover - compiled
    """``G = grad_{W_kq} L`` over (token, query) pairs (canonical coordinates), the loss, and
    ``phi`` filled in place; ``z``, ``p`` (|V|) and ``h`` (L_max) are scratch."""
    G.fill(0.0)
    total_loss = 0.0
    for n in range(tokens.shape[0]):
        lo = _sample_terms(K, UT, tokens, mask, query, target, pi, n, phi, z, p, h)
        total_loss += pi[n] * lo
        _backward_scatter(phi, h, tokens, mask, n, query[n], G)
    return total_loss


@njit(cache=True)
def _scatter_in_order(phi, H, tokens, mask, query, pi, losses, G):  # pragma: no cover - compiled
    """The serial end of the parallel kernels: each sample's ``h`` (row of ``H``) scattered into
    ``G`` (already zero) and its loss summed, in sample order, so the numbers do not depend on
    how the samples' terms were shared between threads.  Returns the loss."""
    total_loss = 0.0
    for n in range(tokens.shape[0]):
        total_loss += pi[n] * losses[n]
        _backward_scatter(phi, H[n], tokens, mask, n, query[n], G)
    return total_loss


#: Samples per parallel chunk of :func:`stage2_dense` (each chunk allocates its |V|-sized scratch once).
DENSE_CHUNK = 64


@njit(cache=True, parallel=True)
def stage2_dense(K, UT, tokens, mask, query, target, pi, G, phi, H, losses):  # pragma: no cover - compiled
    """:func:`_stage2_grad` with the samples' terms computed in parallel: returns the loss, fills
    ``G`` (token coordinates), ``phi``, and ``H`` (N, L_max) and ``losses`` (N) with each sample's
    ``h`` and loss.  The scatter into ``G`` and the loss sum then run serially in sample order, so
    the result is bit for bit :func:`_stage2_grad`'s, whatever the number of threads."""
    N = tokens.shape[0]
    V = UT.shape[0]
    for b in prange((N + DENSE_CHUNK - 1) // DENSE_CHUNK):
        z, p = np.empty(V), np.empty(V)
        for n in range(b * DENSE_CHUNK, min(N, (b + 1) * DENSE_CHUNK)):
            losses[n] = _sample_terms(K, UT, tokens, mask, query, target, pi, n, phi, z, p, H[n])
    for i in prange(G.shape[0]):  # zeroed by rows, in parallel
        G[i].fill(0.0)
    return _scatter_in_order(phi, H, tokens, mask, query, pi, losses, G)


@njit(cache=True)
def _stage2_full(W, E, canonical, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h):  # pragma: no cover - compiled
    """``(grad_{W_kq} L, L)`` in the embedding coordinates: ``E G E^T`` with scores ``E^T W E``."""
    if canonical:
        return Gtok, _stage2_grad(W, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
    ET = np.ascontiguousarray(E.T)
    lo = _stage2_grad(_mm(_mm(ET, W), E), UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
    return _mm(_mm(E, Gtok), ET), lo


@njit(cache=True)
def _stage1_full(W, E, canonical, source, target, Gtok, g, z, e):  # pragma: no cover - compiled
    """Eq. (5) up to a positive factor and ``L_0``, as :func:`ntpcheck.transformer.model.stage1_grad_scaled`:
    ``g_v = exp(log p_v - M)`` for the wrong classes (``M`` the largest ``log p``), ``g_y = -sum g_v``,
    scattered to column ``x`` of the token-coordinate gradient; zero if every ``log p`` is ``-inf``.
    ``g`` (|C|) receives the losses; ``z``, ``e`` (|V|) are scratch."""
    V = Gtok.shape[0]
    U = W if canonical else _mm(W, E)
    C = source.shape[0]
    M = -np.inf
    total = 0.0
    for k in range(C):  # first pass: the losses and the largest log p
        x, y = source[k], target[k]
        for v in range(V):
            z[v] = U[v, x]
        lo = _cross_entropy_row(z, y, e)[1]
        zy = U[y, x]
        g[k] = lo
        total += lo
        for v in range(V):
            if v != y and U[v, x] - zy - lo > M:
                M = U[v, x] - zy - lo
    Gtok.fill(0.0)
    if M > -np.inf and M < np.inf:
        for k in range(C):
            x, y = source[k], target[k]
            zy = U[y, x]
            s = 0.0
            for v in range(V):
                if v != y:
                    w = math.exp(U[v, x] - zy - g[k] - M)
                    Gtok[v, x] += w
                    s += w
            Gtok[y, x] -= s
    if canonical:
        return Gtok, total
    return _mm(Gtok, np.ascontiguousarray(E.T)), total


@njit(cache=True)
def stage2_gradients(Ws, E, canonical, UT, tokens, mask, query, target, pi, out):  # pragma: no cover - compiled
    """``out[k] = grad_{W_kq} L`` at ``W_kq = Ws[k]`` (Eq. 6), for a stack of parameters."""
    N, L = tokens.shape
    V = UT.shape[0]
    Gtok, phi = np.empty((V, V)), np.empty((N, L))
    z, p, h = np.empty(V), np.empty(V), np.empty(L)
    for k in range(Ws.shape[0]):
        G, _ = _stage2_full(Ws[k], E, canonical, UT, tokens, mask, query, target, pi, Gtok, phi, z, p, h)
        copy2(out[k], G)


@njit(cache=True)
def _structured_terms(K, t_of, a_of, tokens, mask, query, target, pi, n, phi, first, tl, gsum, h):  # pragma: no cover - compiled
    """Sample ``n`` of :func:`stage2_structured`: fills ``phi[n]`` and ``h`` (its ``h_l``) and returns
    its loss.  ``first`` (|V|) must hold -1 everywhere and is left so; ``tl``, ``gsum`` (L) are scratch."""
    L = tokens.shape[1]
    V = K.shape[0]
    q = query[n]
    y = target[n]
    _attention(K, tokens, mask, n, q, phi)
    # group the positions by special coordinate; gsum[first position] = s_c
    s_y = 0.0
    n_other = 0
    for l in range(L):
        c = t_of[tokens[n, l]] if mask[n, l] else -1
        tl[l] = c
        gsum[l] = 0.0
        if c >= 0:
            w = phi[n, l] * a_of[tokens[n, l]]
            if first[c] < 0:
                first[c] = l
                if c != y:
                    n_other += 1
            gsum[first[c]] += w
            if c == y:
                s_y += w
    g = V - (n_other + 1)  # common coordinates (neither special nor the target)
    d_gen = -s_y
    m = 0.0
    if g > 0 and d_gen > m:
        m = d_gen
    for l in range(L):
        c = tl[l]
        if c >= 0 and c != y and first[c] == l and gsum[l] - s_y > m:
            m = gsum[l] - s_y
    # e = exp(d - m) per distinct coordinate, then p = e exp(m - loss) (cross_entropy_parts)
    e_gen = math.exp(d_gen - m)
    other = g * e_gen
    for l in range(L):
        c = tl[l]
        if c >= 0 and c != y and first[c] == l:
            gsum[l] = math.exp(gsum[l] - s_y - m)  # gsum now holds e of its coordinate
            other += gsum[l]
    lo = _loss_from(m, other)
    f = math.exp(m - lo)
    total = g * (e_gen * f)
    for l in range(L):
        c = tl[l]
        if c >= 0 and c != y and first[c] == l:
            gsum[l] *= f  # p of its coordinate
            total += gsum[l]
    for l in range(L):
        c = tl[l]
        if c < 0:
            h[l] = 0.0
        elif c == y:
            h[l] = pi[n] * a_of[tokens[n, l]] * (-total)
        else:
            h[l] = pi[n] * a_of[tokens[n, l]] * gsum[first[c]]
    for l in range(L):
        if tl[l] >= 0:
            first[tl[l]] = -1
    return lo


#: Samples per parallel chunk of :func:`stage2_structured` (each chunk allocates its scratch once).
STRUCTURED_CHUNK = 256


@njit(cache=True, parallel=True)
def stage2_structured(K, t_of, a_of, tokens, mask, query, target, pi, G, phi, H, losses):  # pragma: no cover - compiled
    """``grad_{W_kq} L`` (into ``G``, token coordinates) and ``L`` in O(N L) for value columns of
    Lemma 3's shape ``U[:, i] = a_i e_{t_i} + b_i 1`` (``t_i = -1``: a constant column), canonical
    embeddings; ``phi`` is filled with the attention, ``H`` (N, L_max) and ``losses`` (N) with each
    sample's ``h`` and loss.  The samples' terms run in parallel (:func:`_structured_terms`), the
    scatter into ``G`` and the loss sum serially in sample order, so the result is bit for bit the
    same whatever the number of threads.

    Per sample the logits are a common value plus ``s_c = sum_{l: t_l = c} phi_l a_l`` on each
    special coordinate ``c``; relative to the target ``y`` the |V| - k common coordinates sit at
    ``-s_y`` and each other special coordinate at ``s_c - s_y``, so the log-sum-exp and the
    wrong-class probabilities need no |V|-sized array (as :func:`ntpcheck.transformer.model.cross_entropy_parts`,
    ``log1p`` when ``y`` is the arg-max).  ``h_l = pi a_l (p_{t_l}`` or ``-(1 - p_y)`` if ``t_l = y)``
    (the ``b_i 1`` part cancels), and the softmax Jacobian is applied centred as in
    :func:`_stage2_grad`.
    """
    N, L = tokens.shape
    V = K.shape[0]
    for c in prange((N + STRUCTURED_CHUNK - 1) // STRUCTURED_CHUNK):
        first = np.full(V, -1)  # per sample: first position of each special coordinate (reset after)
        tl = np.empty(L, dtype=np.int64)
        gsum = np.empty(L)
        for n in range(c * STRUCTURED_CHUNK, min(N, (c + 1) * STRUCTURED_CHUNK)):
            losses[n] = _structured_terms(K, t_of, a_of, tokens, mask, query, target, pi, n, phi, first, tl, gsum, H[n])
    for i in prange(G.shape[0]):  # 8 MB at |V| = 1000: zeroed by rows, in parallel
        G[i].fill(0.0)
    return _scatter_in_order(phi, H, tokens, mask, query, pi, losses, G)
