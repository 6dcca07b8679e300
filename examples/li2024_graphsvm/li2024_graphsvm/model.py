"""The single self-attention layer, its loss, gradient descent on ``W``, and the finite part ``W_fin``.

Model (the authors' ``train_utils.get_loss`` with ``cls_choice='iden'``, ``loss_type='nll'``):
attention of the query ``z = x_T`` on the positions of ``X``, ``s_t = x_t^T W z``,
``a = softmax(s)``, and the probability of the next token ``k`` is the attention on its positions,
``P(k | X) = sum_{t: x_t = k} a_t``.  The loss is the weighted mean of ``-log P(y_i | X_i)``.  All
positions of a token share its score, so with ``m_ik`` the multiplicity of token ``k`` in ``X_i``::

    ell_i(W) = logsumexp_k (s_ik + log m_ik) - s_iy - log m_iy,      s_ik = x_k^T W z_i,

a convex function of ``W`` (a log-sum-exp of linear functions minus a linear one).  Its gradient
is ``E [sum_i pi_i (p_i - e_{y_i}) e_{q_i}^T] E^T``: GD moves ``W`` only in ``span{x_k z^T}``, so it
runs in token coordinates ``W_t = W_0 + E A_t E^T``.  Smoothness: the Hessian of ``ell_i`` is a
variance of ``x^T U z_i`` under ``p_i``, at most ``||z_i||^2 max_k ||x_k||^2 ||U||^2``; the step is
``eta / L``, ``L = max_i ||z_i||^2 max_k ||x_k||^2`` (:func:`smoothness`), ``eta <= 1``.

``W_fin`` minimises the loss of the reduced samples (:func:`.graph.reduced_samples`) over ``S_fin``
(:func:`.graph.within_basis`): by damped Newton steps to a gradient of at most ``1e-12``
(:func:`finite_part`); the reduced loss is convex and coercive on ``S_fin`` (every direction of
``S_fin`` raises some label's score difference along a cycle), so it has a minimiser.

Examples
--------
>>> import numpy as np
>>> from .data import SequenceData
>>> D = SequenceData(("A", "B", "C"), np.eye(3), (((0, 1, 2), 0, 1.0), ((0, 2), 0, 1.0)))
>>> round(loss(D, np.zeros((3, 3))), 6) == round(float((np.log(3) + np.log(2)) / 2), 6)
True
>>> r = gd(D, np.zeros((3, 3)), 1.0, 1000)
>>> bool(loss(D, r.W[-1]) < 0.01), int(r.t[-1])
(True, 1000)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import SequenceData
from .graph import reduced_samples

__all__ = ["loss", "smoothness", "record_steps", "Trajectory", "gd", "finite_part", "FinitePart"]


def _log_count(count: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(count)


def _probabilities(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def loss(D: SequenceData, W: np.ndarray) -> float:
    """The weighted mean of ``-log P(y_i | X_i)`` at ``W`` (module docstring)."""
    a, E = D.arrays, D.E
    S = E.T @ W @ E   # S[k, q] = x_k^T W x_q
    logits = (S @ a["query"].T).T + _log_count(a["count"])
    m = logits.max(axis=1)
    lse = m + np.log(np.exp(logits - m[:, None]).sum(axis=1))
    return float(a["pi"] @ (lse - np.where(a["label"] > 0, logits, 0.0).sum(axis=1)))


def smoothness(D: SequenceData) -> float:
    """``L = max_i ||z_i||^2 max_k ||x_k||^2`` over the queries and the tokens of the sequences."""
    norms = np.sum(D.E**2, axis=0)
    used = D.arrays["count"].sum(axis=0) > 0
    return float(norms[list(D.queries)].max() * norms[used].max())


def record_steps(horizon: int, per_decade: int = 20) -> np.ndarray:
    """Steps ``1 .. horizon`` at ``per_decade`` log-spaced points a decade (the same grid for every horizon)."""
    k = np.unique(np.round(10 ** (np.arange(0, per_decade * np.log10(horizon) + 1) / per_decade)).astype(np.int64))
    return np.unique(np.append(k[k <= horizon], horizon))


@dataclass(frozen=True)
class Trajectory:
    """``W`` at the recorded steps ``t`` (``W[k]`` after ``t[k]`` steps)."""

    t: np.ndarray
    W: np.ndarray


def gd(D: SequenceData, W0: np.ndarray, eta: float, horizon: int) -> Trajectory:
    """``horizon`` GD steps ``W <- W - (eta/L) grad`` from ``W0``, recorded at :func:`record_steps`.

    Runs on the logits: with ``Z_t[i, k] = s_ik + log m_ik`` and ``W_t = W0 + E A_t E^T``, a step
    ``A <- A - (eta/L) (P - Y)^T diag(pi) Q`` moves ``Z`` by ``-(eta/L) R (P - Y) K``, ``K = E^T E``,
    ``R = (diag(pi) Q K Q^T)^T`` (``n x n``); ``A_t`` is the running sum, formed at the records only."""
    a, E, K = D.arrays, D.E, D.E.T @ D.E
    step = eta / smoothness(D)
    Q, Y = a["query"], a["label"]
    weighted_Q = a["pi"][:, None] * Q
    M = np.kron(step * (weighted_Q @ K @ Q.T).T, K.T)     # vec(R G K) = M vec(G), row-major
    Z = ((E.T @ W0 @ E) @ Q.T).T + _log_count(a["count"])   # n x V
    flat, G, move = Z.reshape(-1), np.empty_like(Z), np.empty(Z.size)
    total = np.zeros_like(Z)                                   # sum of (P - Y) so far
    rec = record_steps(horizon)
    out = np.empty((len(rec), D.d, D.d))
    r = 0
    for t in range(1, horizon + 1):
        np.subtract(Z, Z.max(axis=1, keepdims=True), out=G)    # G = softmax(Z) - Y, in place
        np.exp(G, out=G)
        G /= G.sum(axis=1, keepdims=True)
        G -= Y
        total += G
        flat -= np.dot(M, G.reshape(-1), out=move)
        if t == rec[r]:
            out[r] = W0 - step * (E @ (total.T @ weighted_Q) @ E.T)
            r += 1
    return Trajectory(rec, out)


@dataclass(frozen=True)
class FinitePart:
    """``W_fin`` (``d x d``), the gradient norm reached, and the smallest Hessian eigenvalue on ``S_fin``
    (its uniqueness: 0 would leave a flat direction)."""

    W: np.ndarray
    grad: float
    min_curvature: float


def _reduced_terms(D: SequenceData, basis: np.ndarray, c: np.ndarray):
    """The reduced loss, gradient and Hessian in the coordinates ``c`` of ``W = sum_k c_k basis_k``."""
    E = D.E
    value, grad, hess = 0.0, np.zeros(len(c)), np.zeros((len(c), len(c)))
    samples = reduced_samples(D)
    total = sum(s[2] for s in D.samples)
    for tokens, y, w, q in samples:
        toks = sorted(set(tokens))
        logm = np.log([tokens.count(k) for k in toks])
        J = np.array([basis @ np.outer(E[:, k], E[:, q]).ravel() for k in toks])   # d s_k / d c
        z = J @ c + logm   # the scores s_k = x_k^T W z_q of the reduced sequence (up to a shift), plus log m_k
        m = z.max()
        p = np.exp(z - m)
        p /= p.sum()
        iy = toks.index(y)
        value += w / total * (m + np.log(np.exp(z - m).sum()) - z[iy])
        g = p.copy()
        g[iy] -= 1.0
        grad += w / total * (J.T @ g)
        hess += w / total * (J.T @ (np.diag(p) - np.outer(p, p)) @ J)
    return value, grad, hess


def finite_part(D: SequenceData, basis: np.ndarray, tol: float = 1e-12, max_steps: int = 200) -> FinitePart:
    """``W_fin = argmin`` of the reduced loss over ``S_fin`` (rows of ``basis``), by damped Newton."""
    c = np.zeros(len(basis))
    value, g, H = _reduced_terms(D, basis, c)
    for _ in range(max_steps):
        if np.linalg.norm(g) <= tol:
            break
        dc = -np.linalg.lstsq(H, g, rcond=None)[0]
        slope, step = float(g @ dc), 1.0
        while step > 1e-12:   # backtracking (Armijo)
            trial = _reduced_terms(D, basis, c + step * dc)
            if trial[0] <= value + 1e-4 * step * slope or step * np.linalg.norm(dc) < 1e-15:
                break
            step /= 2
        c = c + step * dc
        value, g, H = trial
    curvature = float(np.linalg.eigvalsh(H).min()) if len(c) else np.inf
    return FinitePart((basis.T @ c).reshape(D.d, D.d), float(np.linalg.norm(g)), curvature)
