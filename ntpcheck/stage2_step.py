"""The stage-2 gradient as a training loop needs it: Eq. (6) with the constants hoisted.

:func:`ntpcheck.model.grad_kq` is the reference; :func:`stage2_grad_fn`
returns a closure ``W_kq -> (grad, L, phi)`` that computes the same numbers
(tested to 1e-12 relative) faster, with two paths:

* after stage 1 from zero with canonical embeddings, every value column has
  Lemma 3's exact shape ``a_i e_{t_i} + b_i 1`` (:func:`lemma3_structure`),
  and the step is O(N L) with no |V|-sized array per sample, compiled
  (:func:`ntpcheck.kernels.stage2_structured`);
* otherwise the dense path, O(N L |V|), whose (N, L, |V|) gather of value
  columns is kept only while it is small (:data:`GATHER_BYTES`).

Both apply the softmax Jacobian in the centred form
(:func:`ntpcheck.model.softmax_backward_centred`), which keeps equal tokens'
exact cancellation where it matters (see there).
"""

from __future__ import annotations

import numpy as np

from .data import SampleArrays
from .model import _score_gradient, _token_values, attention_fn, cross_entropy_parts, scatter_index, softmax_backward_centred

__all__ = ["stage2_grad_fn", "compiled_args", "gradients_at", "lemma3_structure", "GATHER_BYTES", "GATHER_BLOCK_BYTES"]


def lemma3_structure(U: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(t, a, b)`` with ``U[:, i] = a_i e_{t_i} + b_i 1`` exactly (``t_i = -1``, ``a_i = 0``
    for a constant column), or None if some column has another shape.

    After stage 1 from zero with canonical embeddings this holds exactly in
    float64 (Lemma 3: off-target entries are updated by identical amounts).
    """
    V = U.shape[0]
    if V < 3:
        return None
    med = np.median(U, axis=0)  # the common value b_i (at least V-1 >= 2 entries share it)
    off = U != med[None, :]
    cnt = off.sum(axis=0)
    if np.any(cnt > 1):
        return None
    t = np.where(cnt == 1, np.argmax(off, axis=0), -1)
    cols = np.arange(U.shape[1])
    a = np.where(t >= 0, U[np.maximum(t, 0), cols] - med, 0.0)
    return t.astype(np.int64), a, med


def _structured_stage2(t_of: np.ndarray, a_of: np.ndarray, arr: SampleArrays):
    """``W_kq -> (grad, L, phi)`` in O(N L) for value columns ``a_i e_{t_i} + b_i 1`` (canonical
    embeddings), compiled (:func:`ntpcheck.kernels.stage2_structured`)."""
    from .kernels import sample_args, stage2_structured

    args = (t_of.astype(np.int64), a_of.astype(float), *sample_args(arr))
    V, shape = arr.n_vocab, arr.tokens.shape

    def grad(Wkq: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        G, phi = np.empty((V, V)), np.empty(shape)  # fresh: a caller may keep them
        lo = stage2_structured(np.ascontiguousarray(Wkq, dtype=float), *args, G, phi)
        return G, lo, phi

    return grad


#: Largest (N, L, V) gather of value columns the dense stage-2 path keeps between steps (bytes);
#: above it the gather is rebuilt every step in blocks of GATHER_BLOCK_BYTES, small enough to
#: stay in cache (measured at |V| = 1000, N = 10^4, L = 16: 1-2 MiB blocks were 3x faster than 32 MiB).
GATHER_BYTES = 64 * 2**20
GATHER_BLOCK_BYTES = 2**20


def stage2_grad_fn(Wov: np.ndarray, E: np.ndarray | None, arr: SampleArrays):
    """``W_kq -> (grad_{W_kq} L, L, phi)`` for a frozen ``W_ov``, with the constants hoisted.

    Same mathematics and numerics as :func:`grad_kq` (which stays the
    reference); the value columns gathered per position, ``U[:, i_l]``, and the
    target rows ``U[y_n, i_l]`` do not change during stage 2, so they are
    computed once: per step only the attention, logits and softmax remain.
    With canonical embeddings and value columns of Lemma 3's exact shape
    (:func:`lemma3_structure`, the case after stage 1), the O(N L)
    :func:`_structured_stage2` is used instead.  The softmax Jacobian is applied
    in the centred form (:func:`softmax_backward_centred`).
    """
    U = _token_values(Wov, E)
    # The structured path pays off when |V| exceeds a few L_max (dense: N L |V|, structured: N L;
    # below that the structured path's per-step overhead is not repaid).
    structure = lemma3_structure(U) if (E is None and arr.n_vocab > 4 * arr.l_max) else None
    if structure is not None:
        return _structured_stage2(structure[0], structure[1], arr)
    UT = np.ascontiguousarray(U.T)  # row i is the value column U[:, i]
    Uy = U[arr.target[:, None], arr.tokens]  # (N, L): U[y_n, i_l]
    V, N, L = arr.n_vocab, arr.n_samples, arr.l_max
    # The (N, L, V) gather of value columns per position is kept only while it is small;
    # otherwise it is rebuilt per step in blocks of samples (memory O(block L V), not O(N L V)).
    Ug = UT[arr.tokens] if 8 * N * L * V <= GATHER_BYTES else None
    block = max(1, GATHER_BLOCK_BYTES // (8 * L * V))
    # Large vocabularies: the logits sum_l phi_l U[:, i_l] as a sparse (N x V) @ (V x V)
    # product, which beats the batched (1 x L) @ (L x V) products.
    sparse = V >= 200 or Ug is None
    if sparse:
        import scipy.sparse as sp

        rows = np.broadcast_to(np.arange(N)[:, None], arr.tokens.shape)[arr.mask]
        cols = arr.tokens[arr.mask]
    flat = scatter_index(arr)
    mask = arr.mask
    pi = arr.pi

    def value_dots(p: np.ndarray) -> np.ndarray:
        """``sum_v p[n, v] U[v, i_l]`` per position, shape (N, L)."""
        if Ug is not None:
            return np.matmul(Ug, p[:, :, None])[:, :, 0]
        out = np.empty((N, L))
        buf = np.empty((min(block, N), L, V))
        for a in range(0, N, block):
            b = min(N, a + block)
            g = np.take(UT, arr.tokens[a:b], axis=0, out=buf[: b - a])
            out[a:b] = np.matmul(g, p[a:b, :, None])[:, :, 0]
        return out

    att = attention_fn(E, arr)

    def grad(Wkq: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        phi = att(Wkq)
        if sparse:
            Phi = sp.csr_matrix((phi[mask], (rows, cols)), shape=(N, V))
            z = np.asarray(Phi @ UT)
        else:
            z = np.matmul(phi[:, None, :], Ug)[:, 0, :]
        lo, p = cross_entropy_parts(z, arr.target)
        # h_l = pi (T - e_y)^T U[:, i_l] = pi (sum_v p_v U[v, i_l] - (sum p) U[y, i_l])
        h = pi[:, None] * (value_dots(p) - p.sum(axis=1)[:, None] * Uy)
        return _score_gradient(softmax_backward_centred(phi, h), arr, E, flat), float(pi @ lo), phi

    return grad


def compiled_args(Wov: np.ndarray, E: np.ndarray, arr: SampleArrays) -> tuple:
    """The stage-2 arguments of the compiled loops (:mod:`ntpcheck.kernels`): ``E``, whether it is
    canonical, the value columns ``U^T`` (``U = W_ov E``), and the sample arrays."""
    from .kernels import embedding_args, sample_args

    E, canonical = embedding_args(E)
    UT = np.ascontiguousarray(_token_values(Wov, None if canonical else E).T)
    return (E, canonical, UT, *sample_args(arr))


def gradients_at(Wov: np.ndarray, Ws: np.ndarray, E: np.ndarray, arr: SampleArrays) -> np.ndarray:
    """``grad_{W_kq} L`` (Eq. 6) at every ``W_kq = Ws[k]``, shape ``(k, d, d)``, in one compiled
    call (:func:`ntpcheck.kernels.stage2_gradients`; equal to :func:`ntpcheck.model.grad_kq` to rounding).

    Examples
    --------
    >>> import numpy as np, ntpcheck
    >>> from ntpcheck.model import grad_kq
    >>> arr = ntpcheck.load("example1").arrays
    >>> Wov, Ws = np.eye(4), np.random.default_rng(0).standard_normal((3, 4, 4))
    >>> G = gradients_at(Wov, Ws, np.eye(4), arr)
    >>> bool(np.allclose(G[2], grad_kq(Wov, Ws[2], None, arr)[0], rtol=0, atol=1e-15))
    True
    """
    from .kernels import stage2_gradients

    Ws = np.ascontiguousarray(Ws, dtype=float)
    out = np.empty_like(Ws)
    if len(Ws):
        stage2_gradients(Ws, *compiled_args(Wov, E, arr), out)
    return out
