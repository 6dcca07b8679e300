"""Exact bipartite L2 isotonic regression by integer min cuts, over every query at once.

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
at once.  No block crosses a connected component, so each component is
solved on its own, starting from itself (union-find), with one small
max-flow per set (:func:`ntpcheck.transformer.kernels.eq3.isotonic_nodes`, compiled).

**Multipliers.**  In each block, ``lambda`` is a flow that sends ``u_a`` out
of every optimal node and ``-u_b`` into every non-optimal node along the
block's pairs (the stationarity condition of the KKT system).  Scaled by
``|B|`` these are the integers ``|N_B|`` and ``|O_B|``: exactly the flow of
the block's own split test read backwards.  A set does not split if and
only if its maximum flow is ``|O_S| |N_S|`` (the cut of ``U`` has capacity
``|O_S| |N_S| - |S| w(U)``), that is, if it saturates every source and
sink edge; the pair edges carry at most ``min(|O_S|, |N_S|)``, below
their capacity.  So a block's multipliers are its pairs' flows divided by
``|B|``, with no second max-flow; complete blocks get ``1/|B|`` on every
pair.  Pairs between blocks get 0.

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

from ..kernels.eq3 import isotonic_nodes

__all__ = ["isotonic_bipartite"]


def isotonic_bipartite(is_o: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values ``u`` of every node and multipliers ``lambda`` of every pair, exactly.

    Parameters
    ----------
    is_o : bool array, shape (n,)
        Which nodes are optimal.
    ia, ib : int arrays, shape (K,)
        The pairs: optimal node ``ia[k]`` above non-optimal node ``ib[k]``.

    Nodes without a pair take 0.  See the module docstring for the method.
    """
    return isotonic_nodes(np.asarray(is_o, dtype=bool), np.asarray(ia, dtype=np.int64), np.asarray(ib, dtype=np.int64))
