"""Variants of Algorithm 1: which of its choices do the paper's conclusions need?

The paper proves its claims for Algorithm 1 (Section 4.2): ``W_ov`` trained
first on ``L_0`` from 0, then ``W_kq`` on ``L`` with ``W_ov`` frozen, from 0,
by normalised gradient descent (NGD), full batch, with the single matrix
``W_kq``.  A :class:`Variant` changes some of these choices:

``schedule``
    ``"two-stage"`` (Algorithm 1: ``T`` steps on ``L_0``, then ``T'`` on ``L``)
    or ``"joint"`` (``W_ov`` and ``W_kq`` trained together on ``L`` for ``T'`` steps).
``optimizer``
    ``"ngd"``: ``W <- W - eta G/||G||`` per parameter block (a block whose
    gradient is exactly 0 does not move); ``"gd"``: ``W <- W - lr G``;
    ``"adam"``: Adam (beta = 0.9, 0.999, eps = 1e-8, bias-corrected) with
    per-coordinate step ``eta`` (``eta_0`` for ``W_ov``).
``init_scale``
    sigma: initial entries i.i.d. ``N(0, sigma^2)`` (0: zeros, Algorithm 1).
``factorised``
    ``W_kq = W_k W_q^T`` with both ``d x d`` factors trained; from zero their
    gradients vanish (``grad W_k = G W_q``, ``grad W_q = G^T W_k``), so this
    needs ``init_scale > 0``.
``batch_size``
    Stage 2 (or joint training) on minibatches of that many samples drawn
    without replacement each step, weights ``pi_n N/B`` (an unbiased estimate
    of the gradient); None, or at least N: full batch.  Stage 1 stays full
    batch (its loss is over the collocation, not the samples).

Step sizes: NGD and Adam use the instance's ``eta_0`` (stage 1, ``W_ov`` in
joint training) and ``eta``; GD uses ``lr``.  Numerics are Algorithm 1's:
the same cancellation-free softmax, cross-entropy and Jacobian
(:func:`ntpcheck.transformer.model.grad_both`, :func:`~ntpcheck.transformer.model.stage1_grad`); the
recorded curves are always of the full-data loss.  Algorithm 1 itself
(:data:`ALGORITHM_1`) runs :func:`ntpcheck.transformer.training.train`; the general loop
reduces to it (two-stage NGD from zero, full batch) to rounding, which is tested.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from . import model
from .curves import Recorder, stage1_margin_fn, stage2_margin_fn
from .embeddings import is_canonical
from .structure import Structure
from .training import Trajectory, TrainingConfig, collocation_arrays, ngd_step, recorded_mask, train

__all__ = ["Variant", "ALGORITHM_1", "VARIANTS", "variant", "train_variant", "gradients", "minibatch"]

SCHEDULES = ("two-stage", "joint")
OPTIMIZERS = ("ngd", "gd", "adam")


@dataclass(frozen=True)
class Variant:
    """One training algorithm: Algorithm 1 with some of its choices changed (see the module)."""

    name: str
    description: str
    schedule: str = "two-stage"
    optimizer: str = "ngd"
    init_scale: float = 0.0
    factorised: bool = False
    batch_size: int | None = None
    lr: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if not (math.isfinite(self.init_scale) and self.init_scale >= 0):
            raise ValueError(f"init_scale must be finite and >= 0, got {self.init_scale!r}")
        if self.factorised and self.init_scale == 0:
            raise ValueError("a factorised W_kq = W_k W_q^T needs init_scale > 0 (from zero both gradients vanish)")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size!r}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be finite and > 0, got {self.lr!r}")

    @property
    def is_algorithm_1(self) -> bool:
        """Whether this is Algorithm 1 exactly (then :func:`ntpcheck.transformer.training.train` runs)."""
        return (self.schedule, self.optimizer, self.init_scale, self.factorised, self.batch_size) == ("two-stage", "ngd", 0.0, False, None)

    @property
    def normalised(self) -> bool:
        """Whether every step moves ``W_kq`` by exactly ``eta`` (NGD on the single matrix): the
        premise of the paper's norm bounds ``t eta / (2 ||W*||) <= ||W^(t)|| <= t eta``."""
        return self.optimizer == "ngd" and not self.factorised


ALGORITHM_1 = Variant("algorithm-1", "Algorithm 1 as in the paper: two stages, NGD, zero init, W_kq, full batch")

#: The algorithm axis of ``ntpcheck matrix --axis algorithm``: issue 15's (a)-(g).
VARIANTS: tuple[Variant, ...] = (
    ALGORITHM_1,
    Variant("gd", "plain GD with fixed step lr on the two-stage schedule", optimizer="gd"),
    Variant("joint-ngd", "W_ov and W_kq trained jointly from zero by NGD", schedule="joint"),
    Variant("joint-gd", "W_ov and W_kq trained jointly from zero by GD", schedule="joint", optimizer="gd"),
    Variant("random-init", "Algorithm 1 from N(0, 0.01^2) initial weights", init_scale=0.01),
    Variant("factorised", "W_kq = W_k W_q^T, both factors trained by GD from N(0, 0.1^2)", optimizer="gd", factorised=True,
            init_scale=0.1),
    Variant("adam", "Adam on the two-stage schedule", optimizer="adam"),
    Variant("minibatch", "Algorithm 1 with stage 2 on minibatches of 8 samples (normalised SGD)", batch_size=8),
    Variant("minibatch-sgd", "stage 2 by SGD with fixed step lr on minibatches of 8 samples", optimizer="gd", batch_size=8),
)


def variant(name: str) -> Variant:
    """The registered variant called ``name``."""
    for v in VARIANTS:
        if v.name == name:
            return v
    raise KeyError(f"unknown algorithm {name!r}; known: {', '.join(v.name for v in VARIANTS)}")


def minibatch(arr, idx: np.ndarray):
    """The samples ``idx`` of ``arr`` with weights ``pi_n N/B`` (an unbiased gradient estimate)."""
    return replace(arr, tokens=arr.tokens[idx], mask=arr.mask[idx], lengths=arr.lengths[idx], query=arr.query[idx],
                   target=arr.target[idx], pi=arr.pi[idx] * (arr.n_samples / len(idx)))


class _Optimizer:
    """One update rule over named parameter blocks (see the module for the rules)."""

    def __init__(self, kind: str, steps: dict[str, float], lr: float) -> None:
        self.kind, self.steps, self.lr = kind, steps, lr
        self.m: dict[str, np.ndarray] = {}
        self.v: dict[str, np.ndarray] = {}
        self.t = 0

    def update(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, G in grads.items():
            if self.kind == "gd":
                params[k] = params[k] - self.lr * G
            elif self.kind == "ngd":  # Algorithm 1's step; a block whose gradient is exactly 0 does not move
                scale = float(np.max(np.abs(G))) if G.size else 0.0
                if scale > 0 and np.isfinite(scale):
                    params[k] = ngd_step(params[k], G, scale, self.steps[k])
            else:
                m = self.m[k] = 0.9 * self.m.get(k, 0.0) + 0.1 * G
                v = self.v[k] = 0.999 * self.v.get(k, 0.0) + 0.001 * G * G
                mh, vh = m / (1 - 0.9**self.t), v / (1 - 0.999**self.t)
                params[k] = params[k] - self.steps[k] * mh / (np.sqrt(vh) + 1e-8)


def _loop(params: dict[str, np.ndarray], n_steps: int, grad: Callable, opt: _Optimizer, record: Callable) -> str | None:
    """``n_steps`` updates.  ``grad(params)`` returns ``(grads, info)``; ``record(t, params, info,
    max |G|)`` is called before each update and after the last (as :func:`ntpcheck.transformer.training._ngd`).
    Stops cleanly, returning why, when a gradient stops being finite."""
    for t in range(n_steps + 1):
        grads, info = grad(params)
        record(t, params, info, max((float(np.max(np.abs(G))) for G in grads.values() if G.size), default=0.0))
        if t == n_steps:
            return None
        if not all(np.all(np.isfinite(G)) for G in grads.values()):
            return f"gradient is not finite at step {t} (step size too large?); training stopped before that update"
        opt.update(params, grads)
    return None  # pragma: no cover


def _kq(params: dict[str, np.ndarray]) -> np.ndarray:
    return params["k"] @ params["q"].T if "k" in params else params["kq"]


def _kq_grads(params: dict[str, np.ndarray], G: np.ndarray) -> dict[str, np.ndarray]:
    """The gradients of the ``W_kq`` parameter blocks from ``G = grad_{W_kq} L``."""
    if "k" in params:
        return {"k": G @ params["q"], "q": G.T @ params["k"]}
    return {"kq": G}


def gradients(params: dict[str, np.ndarray], E: np.ndarray | None, arr, W_ov: np.ndarray | None = None) -> tuple[dict, float, np.ndarray]:
    """``(grads, L, phi)``: the gradient of ``L`` (Eq. 1 on the samples ``arr``) with respect to each
    parameter block of ``params`` (``"ov"`` when ``W_ov`` is trained, as in joint training, else the
    frozen ``W_ov``; ``"kq"``, or the factors ``"k"``, ``"q"``), the loss and the attention."""
    Wov = params["ov"] if "ov" in params else W_ov
    G_ov, G_kq, lo, phi = model.grad_both(Wov, _kq(params), E, arr)
    grads = _kq_grads(params, G_kq)
    if "ov" in params:
        grads["ov"] = G_ov
    return grads, lo, phi


def train_variant(st: Structure, alg: Variant, config: TrainingConfig, E: np.ndarray,
                  references: tuple[np.ndarray | None, np.ndarray | None], keep_weights: bool = False) -> Trajectory:
    """Train with ``alg`` and record as :func:`ntpcheck.transformer.training.train` does: ``stage1`` the
    ``W_ov`` curves (on ``L_0``), ``stage2`` the ``W_kq`` curves (on ``L``; for a factorised
    ``W_kq``, of the product).  In joint training both are recorded over the same ``T'`` steps."""
    if alg.is_algorithm_1:
        return train(st, config, E, references, keep_weights)
    with np.errstate(over="ignore", invalid="ignore"):
        return _train_variant(st, alg, config, E, references, keep_weights)


def _train_variant(st, alg: Variant, config: TrainingConfig, E, references, keep_weights) -> Trajectory:
    ref_ov, ref_kq = references
    eta0, eta = config.step_sizes(E.shape[0])
    V, d = st.dataset.n_vocab, E.shape[0]
    Ecan = None if is_canonical(E) else E
    arr, coll = st.dataset.arrays, collocation_arrays(st)
    rng = np.random.default_rng(alg.seed)
    steps = {"ov": eta0, "kq": eta, "k": eta, "q": eta}
    full = alg.batch_size is None or alg.batch_size >= arr.n_samples

    def init(shape) -> np.ndarray:
        return alg.init_scale * rng.standard_normal(shape) if alg.init_scale > 0 else np.zeros(shape)

    def grad(params: dict, W_ov: np.ndarray | None = None):
        """Gradients on this step's batch, and ``(L, phi)`` on all the data (None: computed when recording)."""
        if full:
            grads, lo, phi = gradients(params, Ecan, arr, W_ov)
            return grads, (lo, phi)
        return gradients(params, Ecan, minibatch(arr, rng.choice(arr.n_samples, alg.batch_size, replace=False)), W_ov)[0], None

    rec1 = Recorder(stage1_margin_fn(E, coll), ref_ov, keep_weights=keep_weights)
    rec2 = Recorder(stage2_margin_fn(st, E), ref_kq, config.record_attention, keep_weights)
    # Each stage records as Algorithm 1's does: every stride-th step and its own last one.
    recorded1, recorded2 = recorded_mask(config.T, config.stride), recorded_mask(config.T2, config.stride)
    W_ov0 = init((V, d))
    kq0 = {"k": init((d, d)), "q": init((d, d))} if alg.factorised else {"kq": init((d, d))}

    def record2(t: int, W_ov: np.ndarray, params: dict, info, gscale: float) -> None:
        if recorded2[t]:
            Wkq = _kq(params)
            lo, phi = info if info is not None else (model.loss(W_ov, Wkq, Ecan, arr), model.attention(Wkq, Ecan, arr))
            rec2(t, Wkq, lo, gscale, phi)

    if alg.schedule == "joint":
        t0 = time.perf_counter()
        params = {"ov": W_ov0, **kq0}

        def record(t, p, info, gscale):  # joint: both recorders over the T' steps
            if recorded2[t]:
                rec1(t, p["ov"], model.stage1_loss(p["ov"], Ecan, coll), gscale)
            record2(t, p["ov"], p, info, gscale)

        stopped = _loop(params, config.T2, grad, _Optimizer(alg.optimizer, steps, alg.lr), record)
        s1 = rec1.result(params["ov"], stopped, t0)
        s2 = rec2.result(_kq(params), stopped, t0)
        return Trajectory(s1, s2, eta0, eta, config, E, params["ov"])

    # Stage 1: NGD needs only the direction, which the log-scaled gradient keeps exact past underflow.
    grad0 = model.stage1_grad_scaled if alg.optimizer == "ngd" else model.stage1_grad

    def grad1(p):
        G, *_, lo = grad0(p["ov"], Ecan, coll)
        return {"ov": G}, lo

    t0 = time.perf_counter()
    p1 = {"ov": W_ov0}
    stopped1 = _loop(p1, config.T, grad1, _Optimizer(alg.optimizer, steps, alg.lr),
                     lambda t, p, lo, gscale: rec1(t, p["ov"], lo, gscale) if recorded1[t] else None)
    s1 = rec1.result(p1["ov"], stopped1, t0)
    W_ov = p1["ov"]
    t0 = time.perf_counter()
    params = dict(kq0)

    stopped2 = _loop(params, config.T2, lambda p: grad(p, W_ov), _Optimizer(alg.optimizer, steps, alg.lr), lambda t, p, info, gscale: record2(t, W_ov, p, info, gscale))
    return Trajectory(s1, rec2.result(_kq(params), stopped2, t0), eta0, eta, config, E, W_ov)
