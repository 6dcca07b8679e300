"""Integer maximum flow (Dinic's algorithm), compiled, with the minimal source side of a min cut.

The exact Eq. (3) solver (:mod:`ntpcheck.transformer.maxmargin.isotonic`) runs one small
max-flow per set it tests for a split (:func:`dinic` in a :func:`workspace`
allocated once); the flows it needs are those of its own edges, and the cut
it needs is the set of nodes reachable from the source in the residual graph.  Dinic's last
breadth-first search (the one that no longer reaches the sink) computes
exactly that set, so both come from one call.

Arithmetic is on int64 capacities, so flows are exact.

Examples
--------
>>> import numpy as np
>>> tail, head = np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3])
>>> flow, reach = max_flow(4, tail, head, np.array([2, 1, 1, 5]), 0, 3)
>>> flow.tolist(), reach.tolist()
([1, 1, 1, 1], [True, True, False, False])
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["max_flow", "dinic", "workspace"]


@njit(cache=True)
def _arcs(n, m, tail, head, start, adj, to):
    """Residual arcs ``2k`` (edge ``k``) and ``2k + 1`` (its reverse), grouped by their start node
    (``start[u]:start[u + 1]`` of ``adj``), written into the given arrays."""
    for u in range(n + 1):
        start[u] = 0
    for k in range(m):
        start[tail[k] + 1] += 1
        start[head[k] + 1] += 1
    for u in range(n):
        start[u + 1] += start[u]
    for k in range(m):
        adj[start[tail[k]]] = 2 * k
        start[tail[k]] += 1
        adj[start[head[k]]] = 2 * k + 1
        start[head[k]] += 1
        to[2 * k] = head[k]
        to[2 * k + 1] = tail[k]
    for u in range(n, 0, -1):  # the fills moved each start to the next one's: shift back
        start[u] = start[u - 1]
    start[0] = 0


@njit(cache=True)
def _levels(n, s, start, adj, to, res, level, queue):
    """Breadth-first distances from ``s`` over arcs with residual capacity (-1: unreachable)."""
    for u in range(n):
        level[u] = -1
    level[s] = 0
    queue[0] = s
    qh, qt = 0, 1
    while qh < qt:
        u = queue[qh]
        qh += 1
        for i in range(start[u], start[u + 1]):
            e = adj[i]
            v = to[e]
            if res[e] > 0 and level[v] < 0:
                level[v] = level[u] + 1
                queue[qt] = v
                qt += 1


@njit(cache=True)
def max_flow(n, tail, head, cap, s, t):
    """A maximum ``s``-``t`` flow on the graph with edges ``tail[k] -> head[k]`` of capacity ``cap[k]``.

    Parameters
    ----------
    n : int
        Number of nodes (``0 .. n-1``).
    tail, head, cap : int64 arrays, shape (m,)
        The edges and their non-negative integer capacities (parallel edges allowed).
    s, t : int
        Source and sink.

    Returns
    -------
    flow : int64 array, shape (m,)
        The flow on every edge.
    reach : bool array, shape (n,)
        The nodes reachable from ``s`` in the residual graph of the maximum
        flow: the smallest source side of a minimum cut.
    """
    m = len(tail)
    work = workspace(n, m)
    flow = np.empty(m, dtype=np.int64)
    dinic(n, m, tail, head, cap, s, t, work, flow)
    return flow, work[4][:n] >= 0


@njit(cache=True)
def workspace(n, m):
    """Work arrays of :func:`dinic` for up to ``n`` nodes and ``m`` edges."""
    return (np.empty(n + 1, dtype=np.int64), np.empty(2 * m, dtype=np.int64), np.empty(2 * m, dtype=np.int64),
            np.empty(2 * m, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64))


@njit(cache=True)
def dinic(n, m, tail, head, cap, s, t, work, flow):
    """:func:`max_flow` on the first ``m`` edges, in a :func:`workspace` of at least that size:
    ``flow[:m]`` receives the flows, and ``work[4][:n] >= 0`` (the levels) is the reach."""
    start, adj, to, res, level, queue, cur, path = work
    _arcs(n, m, tail, head, start, adj, to)
    for k in range(m):
        res[2 * k] = cap[k]
        res[2 * k + 1] = 0
    while True:
        _levels(n, s, start, adj, to, res, level, queue)
        if level[t] < 0:
            break
        for u in range(n):
            cur[u] = start[u]
        while True:  # augment along shortest paths, with current-arc pointers
            depth, u = 0, s
            while u != t:
                moved = False
                while cur[u] < start[u + 1]:
                    e = adj[cur[u]]
                    v = to[e]
                    if res[e] > 0 and level[v] == level[u] + 1:
                        path[depth] = e
                        depth += 1
                        u = v
                        moved = True
                        break
                    cur[u] += 1
                if not moved:
                    if u == s:
                        break
                    level[u] = -1  # a dead end: never enter it again in this phase
                    depth -= 1
                    u = to[path[depth] ^ 1]
                    cur[u] += 1
            if u != t:
                break
            f = res[path[0]]
            for i in range(1, depth):
                f = min(f, res[path[i]])
            for i in range(depth):
                res[path[i]] -= f
                res[path[i] ^ 1] += f
    for k in range(m):
        flow[k] = res[2 * k + 1]
