"""Algorithm 1's two stages as compiled loops (numba), for the sizes where numpy's per-call
overhead, not arithmetic, is the cost.

At the sizes property search draws (|V| <= 10, N <= 20, L_max <= 8) a numpy
step is about 50 calls of 1-2 us each on arrays of a few dozen entries;
Theorem 1's rate alone runs 20,000 stage-2 steps per instance.  Here each
stage's normalised-GD loop

    W <- W - eta G/||G||,   G = grad L_0 (Eq. 5, log-scaled) or grad_{W_kq} L (Eq. 6)

runs in one compiled function (:mod:`.ngd`) that writes the recorded steps
(``W``, loss, ``max |G|``, and in stage 2 the attention) into buffers, which
:class:`ntpcheck.transformer.curves.Recorder` reduces block by block as before.
:mod:`.gradients` also has the stage-2 gradient at a stack of parameters
(:func:`stage2_gradients`), the same gradient with the samples in parallel
(:func:`stage2_dense`, for large data) and the O(N L) gradient for value
columns of Lemma 3's shape (:func:`stage2_structured`).  :mod:`.maxflow` is the integer
max-flow (Dinic) of the exact Eq. (3) solver.

The stage-2 arithmetic is that of the numpy reference
(:func:`ntpcheck.transformer.model.grad_kq`), sample by sample:
attention ``phi = softmax(s)`` over the real positions; logits
``z = sum_l phi_l U[:, i_l]``; the wrong-class probabilities
``p_v = exp(z_v - z_y - loss)`` with the loss as ``log1p`` when ``y`` is the
arg-max (:func:`ntpcheck.transformer.model.cross_entropy_parts`);
``h_l = pi (sum_v p_v U[v, i_l] - (sum_v p_v) U[y, i_l])``; the softmax
Jacobian in the centred form (:func:`ntpcheck.transformer.model.softmax_backward_centred`),
so equal tokens cancel exactly; the scatter ``G[i_l, q] += r_l``; and the
step rescaled by ``max |G|`` before the norm (:func:`ntpcheck.transformer.training.ngd_step`).
Stage 1 is :func:`ntpcheck.transformer.model.stage1_grad_scaled`'s.  Both are tested
equal to the numpy forms to 1e-12 (relative), on saturated runs too, in
``tests/transformer/test_kernels.py`` and ``tests/transformer/test_model.py``.  Summation order differs, so the two
agree to rounding, not bit for bit.
"""

import numpy as np

from ntpcheck.common.numba_cache import ensure_cache_dir

ensure_cache_dir()  # before numba is imported: a read-only install with no home has nowhere to cache

from ..embeddings import is_canonical  # noqa: E402
from .gradients import stage2_dense, stage2_gradients, stage2_structured  # noqa: E402
from .ngd import DONE, NOT_FINITE, RUNNING, ZERO_GRADIENT, stage1_ngd_block, stage2_ngd_block  # noqa: E402

__all__ = ["stage1_ngd_block", "stage2_ngd_block", "stage2_gradients", "stage2_structured", "stage2_dense",
           "embedding_args", "sample_args", "RUNNING", "DONE", "ZERO_GRADIENT", "NOT_FINITE"]


def embedding_args(E: np.ndarray) -> tuple:
    """``(E, canonical)`` as the compiled functions take the embeddings."""
    return np.ascontiguousarray(E, dtype=float), is_canonical(E)


def sample_args(arr) -> tuple:
    """``(tokens, mask, query, target, pi)`` of :class:`ntpcheck.common.data.SampleArrays` as the
    compiled functions take them."""
    return (arr.tokens.astype(np.int64), np.ascontiguousarray(arr.mask), arr.query.astype(np.int64),
            arr.target.astype(np.int64), arr.pi.astype(float))
