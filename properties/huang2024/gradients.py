"""Appendix A: the gradient formulas Eq. (5) and Eq. (6), against finite differences.

The checker evaluates the formula (as implemented in :mod:`ntpcheck.transformer.model`)
at a random point and compares it with central differences of the loss.
Tolerance: central differences with step 1e-6 on losses of order 1 have
error about 1e-10 (truncation h^2 and rounding eps/h), so a relative
disagreement above 1e-6 of the gradient's largest entry is a wrong formula.
"""

from __future__ import annotations

import zlib

import numpy as np

from ntpcheck.transformer import model
from ntpcheck.transformer.training import collocation_arrays

from ..framework.checks import falsified, holds, tighten
from ..framework.evidence import Evidence
from ..framework.verdicts import Outcome

__all__ = ["check_eq5", "check_eq6", "central_difference", "eq6_literal", "softmax_jacobian", "FD_RTOL"]

FD_RTOL = 1e-6


def _rng(ev: Evidence) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(ev.key[0].encode()))


def central_difference(f, W, h=1e-6):
    """Central differences of a scalar function ``f`` at every entry of ``W``."""
    G = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        Wp, Wm = W.copy(), W.copy()
        Wp[idx] += h
        Wm[idx] -= h
        G[idx] = (f(Wp) - f(Wm)) / (2 * h)
    return G


def _compare(G: np.ndarray, num: np.ndarray, what: str) -> Outcome:
    scale = max(1.0, float(np.abs(num).max()))
    err = float(np.abs(G - num).max()) / scale
    tol = tighten(FD_RTOL, "<=")
    slack = (tol - err) / FD_RTOL
    if err > tol:
        return falsified(slack, f"{what} differs from finite differences by {err:.3g} (relative)", rel_error=err)
    return holds(slack, f"{what} matches finite differences to {err:.3g} (relative)", rel_error=err)


def check_eq5(ev: Evidence, *, formula=model.stage1_grad) -> Outcome:
    """Eq. (5): ``grad L_0 = sum_x (T_0(x) - e_{n(x)}) x^T``, as ``formula(W, E, coll)[0]``
    (replaced by a wrong one in the structural sabotage)."""
    E = ev.E
    coll = collocation_arrays(ev.structure)
    rng = _rng(ev)
    W = rng.standard_normal((ev.dataset.n_vocab, E.shape[0]))
    G = formula(W, E, coll)[0]
    num = central_difference(lambda X: model.stage1_loss(X, E, coll), W)
    return _compare(G, num, "Eq. (5)")


def _grad_kq(Wov, Wkq, E, ds) -> np.ndarray:
    return model.grad_kq(Wov, Wkq, E, ds.arrays)[0]


def check_eq6(ev: Evidence, *, formula=_grad_kq) -> Outcome:
    """Eq. (6) at a random point, as ``formula(W_ov, W_kq, E, dataset)`` (the model's
    gradient; :func:`eq6_literal` with ``jacobian=np.diag`` is the sabotage)."""
    E = ev.E
    rng = _rng(ev)
    d = E.shape[0]
    Wov, Wkq = rng.standard_normal((ev.dataset.n_vocab, d)), rng.standard_normal((d, d))
    arr = ev.dataset.arrays
    G = formula(Wov, Wkq, E, ev.dataset)
    num = central_difference(lambda X: model.loss(Wov, X, E, arr), Wkq)
    return _compare(G, num, "Eq. (6)")


def softmax_jacobian(phi: np.ndarray) -> np.ndarray:
    """``diag(phi) - phi phi^T``, the Jacobian in Eq. (6)."""
    return np.diag(phi) - np.outer(phi, phi)


def eq6_literal(Wov, Wkq, E, ds, jacobian=softmax_jacobian) -> np.ndarray:
    """Eq. (6) written out sample by sample, with the Jacobian as a parameter:
    ``sum_n pi X J(phi) X^T W_ov^T (T - e_y) x_L^T``.  With ``jacobian=np.diag``
    it is the sabotaged formula that forgets ``- phi phi^T`` (must be rejected)."""
    idx = ds.index
    G = np.zeros_like(Wkq)
    for s, pi in zip(ds.samples, ds.pi):
        X = E[:, [idx[t] for t in s.sentence]]
        xq = X[:, -1]
        sc = X.T @ Wkq @ xq
        phi = np.exp(sc - sc.max())
        phi /= phi.sum()
        z = Wov @ X @ phi
        T = np.exp(z - z.max())
        T /= T.sum()
        p = np.zeros(ds.n_vocab)
        p[idx[s.next]] = 1
        G += pi * X @ jacobian(phi) @ X.T @ Wov.T @ (T - p)[:, None] @ xq[None, :]
    return G
