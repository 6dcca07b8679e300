"""A tiny local reference for ``W⋆``, ``W^mm`` and a basis of ℱ, for the dynamics tests only.

Temporary: replaced by ``ntpcheck.linear.subspace`` / ``ntpcheck.linear.svm`` (branch i33-core)
once merged.  Anchored constraints (Def. 1, Def. 2): rows ``vec((e_{z_j} − e_z) h̄_jᵀ)``.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.linear.data import NTPData
from ntpcheck.linear.dynamics import References


def _rows(D: NTPData):
    A, b, G = [], [], []
    for j, S in enumerate(D.supports):
        h = D.H[:, j]
        a = S[0]
        for z in S[1:]:
            e = np.zeros(D.V); e[a], e[z] = 1.0, -1.0
            A.append(np.kron(e, h)); b.append(np.log(D.P[j, a] / D.P[j, z]))
        for v in range(D.V):
            if v not in S:
                e = np.zeros(D.V); e[a], e[v] = 1.0, -1.0
                G.append(np.kron(e, h))
    Vd = D.V * D.d
    return (np.array(A).reshape(-1, Vd), np.array(b), np.array(G).reshape(-1, Vd))


def local_refs(D: NTPData) -> References:
    import cvxpy as cp

    A, b, G = _rows(D)
    if len(A):
        U, s, Vt = np.linalg.svd(A, full_matrices=False)
        basis = Vt[s > 1e-10 * s.max()]
        w_star = np.linalg.lstsq(A, b, rcond=None)[0]
    else:
        basis = np.zeros((0, D.V * D.d)); w_star = np.zeros(D.V * D.d)
    w = cp.Variable(D.V * D.d)
    cons = [G @ w >= 1] + ([A @ w == 0] if len(A) else [])
    cp.Problem(cp.Minimize(cp.sum_squares(w)), cons).solve(solver="CLARABEL")
    return References(w_star.reshape(D.V, D.d), np.asarray(w.value).reshape(D.V, D.d), basis)
