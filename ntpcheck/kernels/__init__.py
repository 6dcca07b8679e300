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

from .gradients import stage2_gradients, stage2_structured
from .ngd import DONE, NOT_FINITE, RUNNING, ZERO_GRADIENT, stage1_ngd_block, stage2_ngd_block

__all__ = ["stage1_ngd_block", "stage2_ngd_block", "stage2_gradients", "stage2_structured",
           "RUNNING", "DONE", "ZERO_GRADIENT", "NOT_FINITE"]
