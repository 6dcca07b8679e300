"""Exact Eq. (3), compiled: its distinct constraints, and L2 isotonic regression on them.

The mathematics is in :mod:`ntpcheck.transformer.maxmargin.isotonic` (the method) and
:attr:`ntpcheck.transformer.structure.Structure.eq3_index` (the constraints); these are
their loops, so that a solve at |V| = 400 is not a few hundred numpy calls per
recursion level.

* :func:`eq3_triples`: the distinct ``(x_l, x_l', query)`` with ``l in I(n)``,
  ``l' not in I(n)``, in order of first occurrence, deduplicated through an
  open-addressing hash set (:func:`_insert`).
* :func:`isotonic_nodes`: values and multipliers of the bipartite isotonic
  problem, one connected component at a time (union-find), each split
  recursively by integer min cuts (:func:`.maxflow.dinic`).

Examples
--------
>>> import numpy as np
>>> flat, start, lengths = np.array([0, 1, 2]), np.array([0]), np.array([3])
>>> target, nxt = np.array([4]), np.array([4, -1, -1])
>>> [x.tolist() for x in eq3_triples(flat, start, lengths, target, nxt, np.array([1]), np.array([2]), 3)]
[[0, 0], [1, 2], [2, 2]]
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .loops import copy1, put4
from .maxflow import dinic, workspace

__all__ = ["eq3_triples", "node_index", "isotonic_nodes"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of key * 2^64/phi


@njit(cache=True)
def _table(n_keys):  # pragma: no cover - compiled
    """An empty hash table for up to ``n_keys`` keys (load <= 1/2): ``(keys, values, shift)``."""
    bits = 1
    while (1 << bits) < 2 * max(n_keys, 1):
        bits += 1
    return np.full(1 << bits, -1, dtype=np.int64), np.empty(1 << bits, dtype=np.int64), np.uint64(64 - bits)


@njit(cache=True)
def _insert(keys, values, shift, key, value):  # pragma: no cover - compiled
    """The value stored for ``key`` (a non-negative int), storing ``value`` if it is new."""
    mask = len(keys) - 1
    h = np.int64((np.uint64(key) * _GOLDEN) >> shift)
    while True:
        if keys[h] == key:
            return values[h]
        if keys[h] < 0:
            keys[h] = key
            values[h] = value
            return value
        h = (h + 1) & mask


@njit(cache=True)
def _grown(keys, values, shift):  # pragma: no cover - compiled
    """The table rebuilt at twice the size, with the same entries."""
    new_keys, new_values = np.full(2 * len(keys), -1, dtype=np.int64), np.empty(2 * len(keys), dtype=np.int64)
    new_shift = shift - np.uint64(1)
    for h in range(len(keys)):
        if keys[h] >= 0:
            _insert(new_keys, new_values, new_shift, keys[h], values[h])
    return new_keys, new_values, new_shift


@njit(cache=True)
def _grown_array(x, k):  # pragma: no cover - compiled
    out = np.empty(2 * len(x), dtype=x.dtype)
    copy1(out, x, k)
    return out


@njit(cache=True)
def eq3_triples(flat, start, lengths, target, nxt, n_opt, query, V, initial=1 << 16):  # pragma: no cover - compiled
    """``(a, b, q)``: every distinct ``(x_l, x_l', x_L)`` with ``l`` optimal and ``l'`` a
    non-optimal position of a sample with an optimal position, in order of first occurrence
    (sample, then ``l``, then ``l'``).  The samples are in the ragged form of
    :mod:`.roles` (``n_opt``: :func:`.roles.optimal_counts`).  The output and the hash set are
    sized for every pair, up to ``initial``, and grown beyond."""
    N = len(lengths)
    seen = np.full(V, -1, dtype=np.int64)  # seen[token] = 2 n (+1 if non-optimal): first in sample n
    L = 0
    pairs = 0  # a long line's prefixes repeat their pairs: the distinct triples may be far fewer
    for n in range(N):
        L = max(L, lengths[n])
        pairs += n_opt[n] * (lengths[n] - n_opt[n])
    opt = np.empty(L, dtype=np.int64)
    non = np.empty(L, dtype=np.int64)
    size = max(1, min(pairs, initial))
    keys, slot, shift = _table(size)
    a = np.empty(size, dtype=np.int64)
    b = np.empty(size, dtype=np.int64)
    q = np.empty(size, dtype=np.int64)
    k = 0
    for n in range(N):
        if n_opt[n] == 0:  # no optimal position: no constraint (and its tokens are not read)
            continue
        no = nn = 0
        s, y = start[n], target[n]
        for l in range(lengths[n]):
            x = flat[s + l]
            tag = 2 * n + (0 if nxt[x] == y else 1)
            if seen[x] != tag:
                seen[x] = tag
                if tag & 1:
                    non[nn] = x
                    nn += 1
                else:
                    opt[no] = x
                    no += 1
        y = query[n]
        for i in range(no):
            for j in range(nn):
                key = (y * V + opt[i]) * V + non[j]
                if _insert(keys, slot, shift, key, k) == k:
                    if k == len(a):
                        a, b, q = _grown_array(a, k), _grown_array(b, k), _grown_array(q, k)
                    a[k], b[k], q[k] = opt[i], non[j], y
                    k += 1
                    if 2 * k >= len(keys):
                        keys, slot, shift = _grown(keys, slot, shift)
    return a[:k], b[:k], q[:k]


@njit(cache=True)
def node_index(a, b, q, V):  # pragma: no cover - compiled
    """Nodes ``(token, query)`` of the pairs, numbered in order of first appearance: returns
    ``(ia, ib, node_token, node_query, is_optimal)`` with pair ``k`` from node ``ia[k]`` to ``ib[k]``."""
    K = len(a)
    keys, slot, shift = _table(2 * K)
    ia = np.empty(K, dtype=np.int64)
    ib = np.empty(K, dtype=np.int64)
    tok = np.empty(2 * K, dtype=np.int64)
    qry = np.empty(2 * K, dtype=np.int64)
    is_o = np.empty(2 * K, dtype=np.bool_)
    n = 0
    for k in range(K):
        for side in range(2):
            x = a[k] if side == 0 else b[k]
            u = _insert(keys, slot, shift, q[k] * V + x, n)
            if u == n:
                tok[n], qry[n], is_o[n] = x, q[k], side == 0
                n += 1
            if side == 0:
                ia[k] = u
            else:
                ib[k] = u
    return ia, ib, tok[:n], qry[:n], is_o[:n]


@njit(cache=True)
def _find(parent, u):  # pragma: no cover - compiled
    while parent[u] != u:
        parent[u] = parent[parent[u]]
        u = parent[u]
    return u


@njit(cache=True)
def _components(n, ia, ib):  # pragma: no cover - compiled
    """The connected components (union-find): their number, and their nodes and pairs grouped
    (``_group``), each in increasing order."""
    parent = np.arange(n)
    for k in range(len(ia)):
        ru, rv = _find(parent, ia[k]), _find(parent, ib[k])
        if ru != rv:
            parent[max(ru, rv)] = min(ru, rv)
    comp = np.full(n, -1, dtype=np.int64)
    count = 0
    for u in range(n):
        r = _find(parent, u)
        if comp[r] < 0:
            comp[r] = count
            count += 1
        comp[u] = comp[r]
    ns, norder = _group(comp, count, np.arange(n))
    es, eorder = _group(comp[ia], count, np.arange(len(ia)))
    return count, ns, norder, es, eorder


@njit(cache=True)
def _group(label, count, items):  # pragma: no cover - compiled
    """``items`` grouped by ``label`` (counting sort, stable): ``(start, order)``."""
    start = np.zeros(count + 1, dtype=np.int64)
    for x in label:
        start[x + 1] += 1
    for c in range(count):
        start[c + 1] += start[c]
    fill = start[:count].copy()
    order = np.empty(len(items), dtype=np.int64)
    for i in range(len(items)):
        order[fill[label[i]]] = items[i]
        fill[label[i]] += 1
    return start, order


@njit(cache=True)
def _split_flow(nodes, edges, nO, is_o, ia, ib, local, g, work, flow):  # pragma: no cover - compiled
    """The integer max-flow of one set's split test (see :mod:`ntpcheck.transformer.maxmargin.isotonic`),
    with ``nO`` optimal nodes: ``s -> b`` of capacity ``|O|``, ``a -> t`` of ``|N|``, and ``b -> a`` of ``|O| + 1`` for the
    set's pairs.  ``flow`` receives the flow per edge (node edges first, in node order), and
    ``work[4][i] >= 0`` says whether node ``i`` is reachable (:func:`.maxflow.dinic`);
    ``g`` holds the (tail, head, cap) arrays."""
    tail, head, cap = g
    k, m = len(nodes), len(edges)
    for i in range(k):
        if is_o[nodes[i]]:
            tail[i], head[i], cap[i] = i, k + 1, k - nO
        else:
            tail[i], head[i], cap[i] = k, i, nO
    for j in range(m):
        e = edges[j]
        tail[k + j], head[k + j], cap[k + j] = local[ib[e]], local[ia[e]], nO + 1
    dinic(k + 2, k + m, tail, head, cap, k, k + 1, work, flow)


@njit(cache=True)
def _split(nodes, edges, reach, local, ia, ib, tmp):  # pragma: no cover - compiled
    """Reorder a set in place: its nodes as ``[reached | not reached]``, its pairs as ``[inside
    the reached part | inside the rest | across]``; returns the two sizes of each."""
    k, m = len(nodes), len(edges)
    nu = 0
    for i in range(k):
        if reach[i]:
            tmp[nu] = nodes[i]
            nu += 1
    r = nu
    for i in range(k):
        if not reach[i]:
            tmp[r] = nodes[i]
            r += 1
    copy1(nodes, tmp, k)
    counts = np.zeros(3, dtype=np.int64)
    side = np.empty(m, dtype=np.int64)
    for j in range(m):
        ru, rv = reach[local[ia[edges[j]]]], reach[local[ib[edges[j]]]]
        side[j] = (0 if ru else 1) if ru == rv else 2
        counts[side[j]] += 1
    fill = np.array([0, counts[0], counts[0] + counts[1]])
    for j in range(m):
        tmp[fill[side[j]]] = edges[j]
        fill[side[j]] += 1
    copy1(edges, tmp, m)
    return nu, counts[0], counts[1]


@njit(cache=True)
def isotonic_nodes(is_o, ia, ib):  # pragma: no cover - compiled
    """``(val, lam)``: values of every node and multipliers of every pair (see
    :mod:`ntpcheck.transformer.maxmargin.isotonic`).

    Each component's nodes and pairs are a segment of two arrays; a set that splits is
    reordered in place (:func:`_split`) into two sub-segments, kept on a stack of
    ``(node from, node to, pair from, pair to)``; pairs across a cut stay out (multiplier 0).
    The flows run in one workspace sized for the largest component."""
    n = len(is_o)
    val = np.zeros(n)
    lam = np.zeros(len(ia))
    local = np.full(n, -1, dtype=np.int64)
    count, ns, nodes_all, es, edges_all = _components(n, ia, ib)
    kmax = mmax = 0
    for c in range(count):
        kmax = max(kmax, ns[c + 1] - ns[c])
        mmax = max(mmax, es[c + 1] - es[c])
    g = (np.empty(kmax + mmax, dtype=np.int64), np.empty(kmax + mmax, dtype=np.int64), np.empty(kmax + mmax, dtype=np.int64))
    work = workspace(kmax + 2, kmax + mmax)
    flow = np.empty(kmax + mmax, dtype=np.int64)
    tmp = np.empty(max(kmax, mmax), dtype=np.int64)
    stack = np.empty((max(n, 1), 4), dtype=np.int64)  # every push but the first follows a split
    for c in range(count):
        put4(stack, 0, ns[c], ns[c + 1], es[c], es[c + 1])
        top = 1
        while top:
            top -= 1
            n0, n1, e0, e1 = stack[top]
            nodes, edges = nodes_all[n0:n1], edges_all[e0:e1]
            k, m = n1 - n0, e1 - e0
            nO = 0
            for i in range(k):
                local[nodes[i]] = i
                nO += is_o[nodes[i]]
            nN = k - nO
            if m != nO * nN:  # not complete bipartite: split at the mean by a min cut
                _split_flow(nodes, edges, nO, is_o, ia, ib, local, g, work, flow)
                reach = work[4][:k] >= 0
                upO = upN = 0
                for i in range(k):
                    if reach[i]:
                        if is_o[nodes[i]]:
                            upO += 1
                        else:
                            upN += 1
                if nO * upN - nN * upO > 0:  # |S| w(U) > 0: S splits into U and S \ U
                    nu, mu, ml = _split(nodes, edges, reach, local, ia, ib, tmp)
                    put4(stack, top, n0, n0 + nu, e0, e0 + mu)
                    put4(stack, top + 1, n0 + nu, n1, e0 + mu, e0 + mu + ml)
                    top += 2
                    continue
                # a block: the flow saturated every source and sink edge (max flow = |O| |N|), so it
                # carries |N_B| out of each a and |O_B| into each b: on the pairs it is lambda |B|
                for j in range(m):
                    lam[edges[j]] = flow[k + j] / k
            else:
                for j in range(m):
                    lam[edges[j]] = 1.0 / k
            mean = nN / k
            for i in range(k):
                val[nodes[i]] = mean if is_o[nodes[i]] else mean - 1.0
    return val, lam
