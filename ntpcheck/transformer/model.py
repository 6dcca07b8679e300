"""The one-layer transformer, its losses and gradients (Section 3, Appendix A).

Notation: ``E`` is the ``d x |V|`` embedding matrix (column ``i`` embeds
token ``i``), ``W_ov`` is ``|V| x d`` and ``W_kq`` is ``d x d``.  For a
sample ``n`` with tokens ``i_1..i_L`` and query ``q = i_L``:

* attention scores ``s_l = x_{i_l}^T W_kq x_q`` and weights
  ``phi = softmax(s)`` (Eq. 9);
* logits ``Tbar(X) = W_ov X phi = sum_l phi_l U[:, i_l]`` with ``U = W_ov E``;
* per-sample loss ``log sum_v exp(Tbar_v) - Tbar_y`` (Eq. 1 as fixed in the
  review thread), weighted by ``pi^(n)``;
* stage-1 loss ``L_0(W_ov) = -sum_x log softmax(W_ov x)_{n(x)}`` over the
  tokens with a collocation (Section 4.2);
* gradients Eq. (5) and Eq. (6).

Numerical faithfulness.  Training drives the model into saturation, where
``softmax - one_hot`` and ``diag(phi) - phi phi^T`` cancel catastrophically
if computed naively.  Here (i) probabilities of wrong tokens are computed as
``exp(z_v - z_y - loss)`` and the target's entry as minus their sum;
(ii) the loss is ``log1p(sum_{v != y} exp(z_v - z_y))`` when ``y`` is the
arg-max; (iii) the softmax Jacobian is applied in the pairwise form
``phi_l sum_l' phi_l' (h_l - h_l')``, so equal tokens cancel exactly; and
(iv) gradient norms are taken after rescaling by the largest entry, so that
gradients of order 1e-200 do not underflow when squared.  Everything is
float64 and vectorised over samples (padded arrays, no Python loop).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntpcheck.common.data import SampleArrays

__all__ = [
    "attention",
    "log_attention",
    "logits",
    "cross_entropy_parts",
    "loss",
    "per_sample_loss",
    "grad_kq",
    "softmax_backward_pairwise",
    "softmax_backward_centred",
    "grad_ov",
    "grad_both",
    "stage1_loss",
    "stage1_grad",
    "stage1_grad_scaled",
    "CollocationArrays",
    "safe_norm",
    "predict_proba",
]


@dataclass(frozen=True, eq=False)
class CollocationArrays:
    """The collocation as index arrays: ``source[k] -> target[k]``."""

    source: np.ndarray
    target: np.ndarray
    n_vocab: int


def safe_norm(G: np.ndarray) -> float:
    """Frobenius norm without underflow/overflow of the squares."""
    s = float(np.max(np.abs(G))) if G.size else 0.0
    if s == 0.0 or not np.isfinite(s):
        return s
    return s * float(np.linalg.norm(G / s))


def _token_scores(Wkq: np.ndarray, E: np.ndarray | None) -> np.ndarray:
    """``K[i, j] = x_i^T W_kq x_j`` (``|V| x |V|``); ``E is None`` means canonical."""
    return Wkq if E is None else E.T @ Wkq @ E


def _token_values(Wov: np.ndarray, E: np.ndarray | None) -> np.ndarray:
    """``U = W_ov E``: column ``i`` is ``W_ov x_i`` (``|V| x |V|``)."""
    return Wov if E is None else Wov @ E


def _masked_scores(Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> np.ndarray:
    """The attention scores ``x_l^T W_kq x_L`` of every sample, shape ``(N, L_max)``, ``-inf`` on padding."""
    s = _token_scores(Wkq, E)[arr.tokens, arr.query[:, None]]
    return np.where(arr.mask, s, -np.inf)


def attention(Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> np.ndarray:
    """Attention weights ``phi^(n)`` (Eq. 9), shape ``(N, L_max)``, 0 on padding.

    The scores are read with one flat ``take``, the padding set to ``-inf``
    and the softmax taken in place.
    """
    K = _token_scores(Wkq, E)
    s = np.take(np.ascontiguousarray(K).ravel(), arr.tokens * arr.n_vocab + arr.query[:, None])
    s[~arr.mask] = -np.inf
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=1, keepdims=True)
    return s


def log_attention(Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> np.ndarray:
    """``log phi^(n)`` (log-softmax of the scores), shape ``(N, L_max)``, ``-inf`` on padding.

    Accurate where ``phi`` itself underflows (a non-optimal weight of
    ``exp(-900)`` is ``-900`` here, 0 in :func:`attention`).

    Examples
    --------
    >>> import numpy as np, ntpcheck
    >>> arr = ntpcheck.loads("A B -> A").arrays      # one sentence, query B
    >>> K = np.array([[0.0, 0.0], [0.0, -1000.0]])    # K[token, query] = x^T W_kq q
    >>> np.round(log_attention(K, None, arr), 6).tolist()
    [[0.0, -1000.0]]
    """
    s = _masked_scores(Wkq, E, arr)
    m = s.max(axis=1, keepdims=True)
    return s - (m + np.log(np.exp(s - m).sum(axis=1, keepdims=True)))


def logits(Wov: np.ndarray, Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays, phi: np.ndarray | None = None) -> np.ndarray:
    """``Tbar(X^(n)) = W_ov X^(n) phi^(n)``, shape ``(N, |V|)``."""
    if phi is None:
        phi = attention(Wkq, E, arr)
    U = _token_values(Wov, E)
    # sum_l phi_l U[:, i_l]: gather the columns of U, weight and sum (batched matmul).
    return np.matmul(phi[:, None, :], U.T[arr.tokens])[:, 0, :]


def cross_entropy_parts(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row cross-entropy and the probabilities of the wrong classes.

    Returns ``(loss, p)`` where ``loss[n] = logsumexp(z[n]) - z[n, y[n]]``
    and ``p[n, v] = softmax(z[n])_v`` for ``v != y[n]``, ``p[n, y[n]] = 0``.
    Both are accurate to relative precision even when ``loss`` is 1e-300.
    """
    n = np.arange(z.shape[0])
    d = z - z[n, y][:, None]  # d[n, y] = 0
    m = d.max(axis=1)  # >= 0
    e = np.exp(d - m[:, None])
    e[n, y] = 0.0
    other = e.sum(axis=1)
    with np.errstate(divide="ignore"):
        loss = np.where(m == 0.0, np.log1p(other), m + np.log(np.exp(-m) + other))
    # p_v = exp(d_v - loss) = e_v exp(m - loss), and m - loss <= 0: one exp of the
    # whole array instead of two, with the same relative accuracy.
    p = e
    p *= np.exp(m - loss)[:, None]
    p[n, y] = 0.0
    return loss, p


def per_sample_loss(Wov, Wkq, E, arr: SampleArrays) -> np.ndarray:
    """Unweighted per-sample losses of Eq. (1)."""
    z = logits(Wov, Wkq, E, arr)
    return cross_entropy_parts(z, arr.target)[0]


def loss(Wov: np.ndarray, Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> float:
    """``L(theta) = sum_n pi^(n) [log sum_v exp(e_v^T Tbar) - e_y^T Tbar]`` (Eq. 1, fixed)."""
    return float(arr.pi @ per_sample_loss(Wov, Wkq, E, arr))


def _g_dot_columns(p: np.ndarray, y: np.ndarray, U: np.ndarray) -> np.ndarray:
    """``(T - e_y)^T U`` per sample without forming ``p_y - 1``: shape ``(N, |V|)``.

    ``(T - e_y)^T u = sum_{v != y} p_v (u_v - u_y)``.
    """
    total = p.sum(axis=1)
    return p @ U - total[:, None] * U[y, :]


def softmax_backward_pairwise(phi: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``(diag phi - phi phi^T) h`` per sample in the pairwise form, O(N L^2).

    ``r_l = phi_l sum_l' phi_l' (h_l - h_l')``: every pair of equal values
    cancels exactly.  The reference for :func:`softmax_backward_centred`.
    """
    diff = h[:, :, None] - h[:, None, :]
    return phi * np.matmul(diff, phi[:, :, None])[:, :, 0]


def softmax_backward_centred(phi: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``(diag phi - phi phi^T) h`` per sample in O(N L), centred on the heaviest position.

    With ``c = h_k`` for ``k = argmax_l phi_l`` and ``a = h - c``,
    ``r_l = phi_l (a_l sum phi - sum_l' phi_l' a_l')`` (the same quantity:
    the shift by ``c`` cancels).  Positions whose value equals ``h_k`` have
    ``a_l = 0`` exactly, so they contribute nothing and, in saturation, the
    optimal positions' entries are formed from the small terms only, as in
    :func:`softmax_backward_pairwise`; a sample whose positions all share one
    value gives exact zeros.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([[1 - 1e-20, 1e-20, 0.0]]); h = np.array([[2.0, 5.0, 7.0]])
    >>> softmax_backward_centred(phi, h).tolist() == softmax_backward_pairwise(phi, h).tolist()
    True
    >>> softmax_backward_centred(np.array([[0.3, 0.7]]), np.array([[1.5, 1.5]])).tolist()
    [[0.0, 0.0]]
    """
    n = np.arange(phi.shape[0])
    a = h - h[n, np.argmax(phi, axis=1)][:, None]
    S = phi.sum(axis=1)
    A = np.einsum("nl,nl->n", phi, a)
    return phi * (a * S[:, None] - A[:, None])


def _score_gradient(r: np.ndarray, arr: SampleArrays, E: np.ndarray | None) -> np.ndarray:
    """``grad = sum_{n,l} r_l x_{i_l} x_q^T = E G E^T`` for the score derivatives
    ``r_l = dL/ds_l``, with ``G`` scattered by (token, query)."""
    V = arr.n_vocab
    flat = (arr.tokens * V + arr.query[:, None])[arr.mask]
    G = np.bincount(flat, weights=r[arr.mask], minlength=V * V).reshape(V, V)
    return G if E is None else E @ G @ E.T


def grad_kq(Wov: np.ndarray, Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> tuple[np.ndarray, float]:
    """``grad_{W_kq} L`` (Eq. 6) and the loss, at once.

    ``sum_n pi X (diag phi - phi phi^T) X^T W_ov^T (T - e_y) x_L^T``.
    """
    phi = attention(Wkq, E, arr)
    z = logits(Wov, Wkq, E, arr, phi)
    lo, p = cross_entropy_parts(z, arr.target)
    U = _token_values(Wov, E)
    GU = _g_dot_columns(p, arr.target, U)  # (N, V): (T - e_y)^T W_ov x_i
    h = arr.pi[:, None] * GU[np.arange(arr.n_samples)[:, None], arr.tokens]  # (N, L)
    # (diag phi - phi phi^T) h, in the pairwise form: exact zeros for equal tokens.
    return _score_gradient(softmax_backward_pairwise(phi, h), arr, E), float(arr.pi @ lo)


def grad_ov(Wov: np.ndarray, Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> np.ndarray:
    """``grad_{W_ov} L = sum_n pi^(n) (T(X^(n)) - e_y) (X^(n) phi^(n))^T``."""
    phi = attention(Wkq, E, arr)
    z = logits(Wov, Wkq, E, arr, phi)
    _, p = cross_entropy_parts(z, arr.target)
    g = p.copy()
    n = np.arange(arr.n_samples)
    g[n, arr.target] = -p.sum(axis=1)
    V = arr.n_vocab
    Phi = np.zeros((arr.n_samples, V))
    np.add.at(Phi, (np.repeat(n, arr.l_max)[arr.mask.ravel()], arr.tokens[arr.mask]), phi[arr.mask])
    M = (arr.pi[:, None] * g).T @ Phi  # (V_out, V_tok)
    return M if E is None else M @ E.T


def grad_both(Wov: np.ndarray, Wkq: np.ndarray, E: np.ndarray | None, arr: SampleArrays) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """``(grad_{W_ov} L, grad_{W_kq} L, L, phi)`` from one forward pass (joint training).

    The two gradients of :func:`grad_ov` and :func:`grad_kq` (Eq. 6, with the
    softmax Jacobian in the centred form :func:`softmax_backward_centred`),
    sharing the attention, logits and softmax.
    """
    phi = attention(Wkq, E, arr)
    z = logits(Wov, Wkq, E, arr, phi)
    lo, p = cross_entropy_parts(z, arr.target)
    n = np.arange(arr.n_samples)
    U = _token_values(Wov, E)
    h = arr.pi[:, None] * _g_dot_columns(p, arr.target, U)[n[:, None], arr.tokens]
    G_kq = _score_gradient(softmax_backward_centred(phi, h), arr, E)
    g = p * arr.pi[:, None]
    g[n, arr.target] = -g.sum(axis=1)
    Phi = np.zeros((arr.n_samples, arr.n_vocab))
    np.add.at(Phi, (np.broadcast_to(n[:, None], arr.tokens.shape)[arr.mask], arr.tokens[arr.mask]), phi[arr.mask])
    G_ov = g.T @ Phi
    return (G_ov if E is None else G_ov @ E.T), G_kq, float(arr.pi @ lo), phi


def stage1_loss(Wov: np.ndarray, E: np.ndarray | None, coll: CollocationArrays) -> float:
    """``L_0(W_ov) = -sum_x log softmax(W_ov x)_{n(x)}`` (Section 4.2; unweighted sum)."""
    U = _token_values(Wov, E)
    z = U[:, coll.source].T
    return float(cross_entropy_parts(z, coll.target)[0].sum())


def stage1_grad(Wov: np.ndarray, E: np.ndarray | None, coll: CollocationArrays) -> tuple[np.ndarray, float]:
    """``grad L_0 = sum_x (T_0(x) - e_{n(x)}) x^T`` (Eq. 5) and ``L_0``."""
    U = _token_values(Wov, E)
    z = U[:, coll.source].T
    lo, p = cross_entropy_parts(z, coll.target)
    g = p
    g[np.arange(len(coll.source)), coll.target] = -p.sum(axis=1)
    V = coll.n_vocab
    Gtok = np.zeros((V, V))
    np.add.at(Gtok.T, coll.source, g)  # column x gets g_x
    G = Gtok if E is None else Gtok @ E.T
    return G, float(lo.sum())


def stage1_grad_scaled(Wov: np.ndarray, E: np.ndarray | None, coll: CollocationArrays) -> tuple[np.ndarray, float, float]:
    """Eq. (5) up to a positive factor: ``(G_s, log_scale, L_0)`` with ``grad L_0 = G_s exp(log_scale)``.

    The wrong-class probabilities are formed as ``exp(log p - M)`` with ``M``
    their largest log, so the *direction* of the gradient, which is all
    normalized GD needs, stays exact when every ``p_v`` underflows (margins
    beyond ~745).  ``G_s`` has largest entry about 1.
    """
    U = _token_values(Wov, E)
    z = U[:, coll.source].T
    n = np.arange(len(coll.source))
    d = z - z[n, coll.target][:, None]
    lo, _ = cross_entropy_parts(z, coll.target)
    logp = d - lo[:, None]
    logp[n, coll.target] = -np.inf
    M = float(np.max(logp)) if logp.size else 0.0
    if not np.isfinite(M):
        return np.zeros_like(Wov), 0.0, float(lo.sum())
    g = np.exp(logp - M)
    g[n, coll.target] = -g.sum(axis=1)
    V = coll.n_vocab
    Gtok = np.zeros((V, V))
    np.add.at(Gtok.T, coll.source, g)
    G = Gtok if E is None else Gtok @ E.T
    return G, M, float(lo.sum())


def predict_proba(Wov: np.ndarray, Wkq: np.ndarray, E: np.ndarray | None, tokens: np.ndarray, n_vocab: int) -> np.ndarray:
    """Next-token distribution ``T_theta(X)`` for one sentence given as token indices."""
    tokens = np.asarray(tokens, dtype=np.int64)
    arr = SampleArrays(
        tokens[None, :],
        np.ones((1, len(tokens)), dtype=bool),
        np.array([len(tokens)]),
        tokens[-1:],
        np.zeros(1, dtype=np.int64),
        np.ones(1),
        n_vocab,
    )
    z = logits(Wov, Wkq, E, arr)[0]
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()
