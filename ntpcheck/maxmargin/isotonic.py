"""Exact bipartite L2 isotonic regression, batched over every query by integer max-flow.

The column problem of Eq. (3) for one query (see :mod:`.exact`) is: minimise
``sum_x u_x^2`` subject to ``u_a - u_b >= 1`` for the pairs ``a > b`` of a
bipartite order (optimal tokens ``a`` above non-optimal tokens ``b``).  All
queries are solved together: a *node* is a (token, query) pair, and the nodes
of different queries never share a pair.

**Values** (recursive partitioning, Hochbaum's scheme).  For a set ``S`` of
nodes with ``|O_S|`` optimal and ``|N_S|`` non-optimal ones, the mean of the
targets (0 on ``O``, 1 on ``N``) is ``m = |N_S|/|S|``.  The upper set ``U``
of ``S`` maximising ``w(U) = sum_{x in U} (y_x - m)`` is a minimum cut with
capacities ``s -> b`` of ``1 - m`` and ``a -> t`` of ``m``, and ``b -> a``
unbounded.  Scaled by ``|S|`` the capacities are the integers ``|O_S|`` and
``|N_S|``, and ``|S| w(U) = |O_S| |U_N| - |N_S| |U_O|`` is an integer, so
"``S`` does not split" (``w = 0``) is decided exactly, with no floating
threshold.  An edge ``b -> a`` needs only capacity ``|O_S| + 1``: no flow
through it can exceed the ``|O_S|`` entering ``b``, so it is never saturated
and the source side of the cut stays an upper set.  A set that does not
split is a *block* whose optimal nodes take ``|N_B|/|B|`` and non-optimal
nodes ``|N_B|/|B| - 1``.  Sets whose pairs are complete bipartite are blocks
at once.  All sets of one recursion level go into **one** max-flow call.

**Multipliers.**  In each block, ``lambda`` is a flow that sends ``u_a`` out
of every optimal node and ``-u_b`` into every non-optimal node along the
block's pairs (the stationarity condition of the KKT system).  Scaled by
``|B|`` these are the integers ``|N_B|`` and ``|O_B|``, so one integer
max-flow over all non-complete blocks gives them exactly; complete blocks get
``1/|B|`` on every pair.  Pairs between blocks get 0.

Examples
--------
A path ``a1 > b1 < a2 > b2`` (one query): one block, values ``1/2, -1/2``.

>>> import numpy as np
>>> val, lam = isotonic_bipartite(np.array([True, False, True, False]),
...                               np.array([0, 2, 2]), np.array([1, 1, 3]))
>>> val.tolist(), lam.tolist()
([0.5, -0.5, 0.5, -0.5], [0.5, 0.0, 0.5])
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..errors import NTPCheckError
from ..kernels.maxflow import max_flow

__all__ = ["isotonic_bipartite", "isotonic_blocks_batched"]

def _components(n: int, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    g = sp.coo_matrix((np.ones(len(ia)), (ia, ib)), shape=(n, n))
    return connected_components(g, directed=False)[1]


def _flow(n: int, rows: list, cols: list, caps: list) -> tuple[np.ndarray, np.ndarray]:
    """One integer max-flow from ``n`` (source) to ``n + 1`` (sink) over the edges
    ``rows[i][k] -> cols[i][k]``, concatenated in order; returns the flow on every edge and
    the nodes reachable from the source in the residual graph (compiled Dinic)."""
    r, c, k = np.concatenate(rows), np.concatenate(cols), np.concatenate(caps)
    return max_flow(n + 2, r.astype(np.int64), c.astype(np.int64), k.astype(np.int64), n, n + 1)


def isotonic_blocks_batched(is_o: np.ndarray, ia: np.ndarray, ib: np.ndarray, label: np.ndarray | None = None) -> np.ndarray:
    """Block label of every node (see the module docstring).

    Parameters
    ----------
    is_o : bool array, shape (n,)
        Which nodes are optimal.
    ia, ib : int arrays, shape (K,)
        The pairs: optimal node ``ia[k]`` above non-optimal node ``ib[k]``.
    label : int array, shape (n,), optional
        A starting partition that no block crosses (for example the
        connected components); computed when omitted.
    """
    n = len(is_o)
    label = _components(n, ia, ib) if label is None else np.asarray(label).copy()
    final = np.zeros(label.max() + 1 if n else 0, dtype=bool)
    while True:
        nsets = len(final)
        nO = np.bincount(label[is_o], minlength=nsets)
        nN = np.bincount(label[~is_o], minlength=nsets)
        inside = (label[ia] == label[ib]) & ~final[label[ia]]
        nE = np.bincount(label[ia[inside]], minlength=nsets)
        final |= nE == nO * nN  # complete bipartite (or one-sided) sets are blocks
        inside &= ~final[label[ia]]
        if not inside.any():
            return label
        live = ~final[label]
        non, opt = np.flatnonzero(live & ~is_o), np.flatnonzero(live & is_o)
        ea, eb = ia[inside], ib[inside]
        # s -> b: |O_S|, a -> t: |N_S|, b -> a: |O_S| + 1 (never saturated)
        _, reach = _flow(n, [np.full(len(non), n), opt, eb], [non, np.full(len(opt), n + 1), ea],
                         [nO[label[non]], nN[label[opt]], nO[label[eb]] + 1])
        up = reach[:n] & live
        weight = nO * np.bincount(label[up & ~is_o], minlength=nsets) - nN * np.bincount(label[up & is_o], minlength=nsets)
        split = weight > 0
        final |= ~split & (nO + nN > 0)
        move = up & split[label]  # the upper part of a split set gets a new label
        new_ids = np.cumsum(split) - 1 + nsets
        label = np.where(move, new_ids[label], label)
        final = np.concatenate([final, np.zeros(int(split.sum()), dtype=bool)])


def isotonic_bipartite(is_o: np.ndarray, ia: np.ndarray, ib: np.ndarray, label: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Values ``u`` of every node and multipliers ``lambda`` of every pair, exactly.

    Nodes without a pair take 0.  See the module docstring for the method.
    """
    n = len(is_o)
    block = isotonic_blocks_batched(is_o, ia, ib, label)
    nb = block.max() + 1 if n else 0
    nO = np.bincount(block[is_o], minlength=nb)
    nN = np.bincount(block[~is_o], minlength=nb)
    size = np.maximum(nO + nN, 1)
    c = nN / size
    val = np.where(is_o, c[block], c[block] - 1.0)
    lam = np.zeros(len(ia))
    same = block[ia] == block[ib]
    nE = np.bincount(block[ia[same]], minlength=nb)
    complete = same & (nE == nO * nN)[block[ia]]
    lam[complete] = 1.0 / size[block[ia[complete]]]
    rest = same & ~complete
    if rest.any():
        ea, eb = ia[rest], ib[rest]
        live = np.zeros(n, dtype=bool)
        live[ea] = live[eb] = True
        ao, bn = np.flatnonzero(live & is_o), np.flatnonzero(live & ~is_o)
        flow, _ = _flow(n, [np.full(len(ao), n), bn, ea], [ao, np.full(len(bn), n + 1), eb],
                        [nN[block[ao]], nO[block[bn]], nN[block[ea]] + 1])
        out, flows = flow[: len(ao)], flow[len(ao) + len(bn):]
        if not np.array_equal(out, nN[block[ao]]):  # theory: a block's flow saturates the source
            raise NTPCheckError("internal error: the multiplier flow of an Eq. (3) block is not saturated")
        lam[rest] = flows / size[block[ea]]
    return val, lam
