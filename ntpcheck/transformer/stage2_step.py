"""The stage-2 gradient as a training loop needs it: Eq. (6) with the constants hoisted.

:func:`ntpcheck.transformer.model.grad_kq` is the reference; :func:`stage2_grad_fn`
returns a closure ``W_kq -> (grad, L, phi)`` that computes the same numbers
(tested to 1e-12 relative) faster, with two paths:

* after stage 1 from zero with canonical embeddings, every value column has
  Lemma 3's exact shape ``a_i e_{t_i} + b_i 1`` (:func:`lemma3_structure`),
  and the step is O(N L) with no |V|-sized array per sample, compiled with
  the samples in parallel (:func:`ntpcheck.transformer.kernels.stage2_structured`);
* otherwise the dense path, O(N L |V|), compiled with the samples in
  parallel (:func:`ntpcheck.transformer.kernels.stage2_dense`).

Both apply the softmax Jacobian in the centred form
(:func:`ntpcheck.transformer.model.softmax_backward_centred`), which keeps equal tokens'
exact cancellation where it matters (see there).
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.data import SampleArrays
from .model import _token_scores, _token_values

__all__ = ["stage2_grad_fn", "compiled_args", "gradients_at", "lemma3_structure"]


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
    embeddings), compiled with the samples in parallel (:func:`ntpcheck.transformer.kernels.stage2_structured`;
    bit for bit the same numbers whatever the thread count)."""
    from .kernels import sample_args, stage2_structured

    args = (t_of.astype(np.int64), a_of.astype(float), *sample_args(arr))
    V, shape = arr.n_vocab, arr.tokens.shape
    H, losses = np.empty(shape), np.empty(shape[0])  # per-sample terms, overwritten every step

    def grad(Wkq: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        G, phi = np.empty((V, V)), np.empty(shape)  # fresh: a caller may keep them
        lo = stage2_structured(np.ascontiguousarray(Wkq, dtype=float), *args, G, phi, H, losses)
        return G, lo, phi

    return grad


def _dense_stage2(U: np.ndarray, E: np.ndarray | None, arr: SampleArrays):
    """``W_kq -> (grad, L, phi)`` for any value columns ``U = W_ov E``, O(N L |V|), compiled with the
    samples in parallel (:func:`ntpcheck.transformer.kernels.stage2_dense`; bit for bit the serial loop's
    numbers whatever the thread count); scores ``E^T W_kq E`` and the gradient ``E G E^T`` by BLAS."""
    from .kernels import sample_args, stage2_dense

    UT = np.ascontiguousarray(U.T)  # row i is the value column U[:, i]
    args = sample_args(arr)
    V, shape = arr.n_vocab, arr.tokens.shape
    H, losses = np.empty(shape), np.empty(shape[0])  # per-sample terms, overwritten every step

    def grad(Wkq: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        K = np.ascontiguousarray(_token_scores(np.asarray(Wkq, dtype=float), E))
        G, phi = np.empty((V, V)), np.empty(shape)  # fresh: a caller may keep them
        lo = stage2_dense(K, UT, *args, G, phi, H, losses)
        return (G if E is None else E @ G @ E.T), lo, phi

    return grad


def stage2_grad_fn(Wov: np.ndarray, E: np.ndarray | None, arr: SampleArrays):
    """``W_kq -> (grad_{W_kq} L, L, phi)`` for a frozen ``W_ov``, with the constants hoisted.

    Same mathematics as :func:`grad_kq` (which stays the reference), sample by
    sample as in :mod:`ntpcheck.transformer.kernels`: the value columns ``U = W_ov E`` do not
    change during stage 2, so they are computed once.  With canonical embeddings
    and value columns of Lemma 3's exact shape (:func:`lemma3_structure`, the
    case after stage 1) the O(N L) :func:`_structured_stage2` is used, otherwise
    the O(N L |V|) :func:`_dense_stage2`.  The softmax Jacobian is applied in the
    centred form (:func:`ntpcheck.transformer.model.softmax_backward_centred`).
    """
    U = _token_values(Wov, E)
    # The structured path pays off when |V| exceeds a few L_max (dense: N L |V|, structured: N L;
    # below that the structured path's per-step overhead is not repaid).
    structure = lemma3_structure(U) if (E is None and arr.n_vocab > 4 * arr.l_max) else None
    if structure is not None:
        return _structured_stage2(structure[0], structure[1], arr)
    return _dense_stage2(U, E, arr)


def compiled_args(Wov: np.ndarray, E: np.ndarray, arr: SampleArrays) -> tuple:
    """The stage-2 arguments of the compiled loops (:mod:`ntpcheck.transformer.kernels`): ``E``, whether it is
    canonical, the value columns ``U^T`` (``U = W_ov E``), and the sample arrays."""
    from .kernels import embedding_args, sample_args

    E, canonical = embedding_args(E)
    UT = np.ascontiguousarray(_token_values(Wov, None if canonical else E).T)
    return (E, canonical, UT, *sample_args(arr))


def gradients_at(Wov: np.ndarray, Ws: np.ndarray, E: np.ndarray, arr: SampleArrays) -> np.ndarray:
    """``grad_{W_kq} L`` (Eq. 6) at every ``W_kq = Ws[k]``, shape ``(k, d, d)``, in one compiled
    call (:func:`ntpcheck.transformer.kernels.stage2_gradients`; equal to :func:`ntpcheck.transformer.model.grad_kq` to rounding).

    Examples
    --------
    >>> import numpy as np, ntpcheck
    >>> from ntpcheck.transformer.model import grad_kq
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
