"""Where a run's tasks should go on a cluster: a preference for a worker, so that tasks that share a
process's cached evidence (:mod:`ntpcheck.properties.framework.evidence`) run in one process.

Placement never changes a result (each task runs with the run's seed wherever it runs); it only
decides how much work is done twice.  Dask still moves a task to an idle worker (work stealing)
and off a dead one.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from ntpcheck.properties.framework.shards import strategy_key

__all__ = ["Placement", "key_groups", "placement", "strategy_groups", "strategy_placement"]


def strategy_groups(claims: list, profile: str) -> list[list[int]]:
    """The claims' indices grouped by the data strategy they draw from under ``profile``
    (:func:`~ntpcheck.properties.framework.shards.strategy_key`: its ``repr``, which names the strategy
    and its arguments; a claim whose strategy cannot be built here is a group of its own), groups in
    order of their first claim.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> a, b = (lambda p: "st.integers()"), (lambda p: "st.floats()")
    >>> strategy_groups([C(name="x", data=a), C(name="y", data=b), C(name="z", data=a), C(name="w", data=None)], "default")
    [[0, 2], [1], [3]]
    """
    return key_groups([strategy_key(c, profile) for c in claims])


def key_groups(keys: list[Hashable]) -> list[list[int]]:
    """The indices of ``keys`` grouped by equal key, groups in order of their first index.

    Examples
    --------
    >>> key_groups(["a", "b", "a"])
    [[0, 2], [1]]
    """
    groups: dict[Hashable, list[int]] = {}
    for k, key in enumerate(keys):
        groups.setdefault(key, []).append(k)
    return list(groups.values())


class Placement(NamedTuple):
    """Where (``lanes``: a worker's address in a list, or None) and in which order (``priorities``:
    Dask runs a worker's higher priorities first) verify's claims run."""

    lanes: list[list[str] | None]
    priorities: list[int]


def strategy_placement(addresses: list[str], claims: list, profile: str,
                       costs: list[float] | None = None) -> Placement:
    """For verify's ``claims``, the worker (of ``addresses``) each should run on and the order: the
    claims that draw from one data strategy together (:func:`strategy_groups`), so that they share the
    evidence a process caches; no lanes (None) with fewer than two workers.

    Every claim searches with the run's seed (a thorough shard with the seed of its strategy and
    shard), so claims with the same strategy start on the same instances and reuse each other's trainings and solutions: with the cache cleared before each
    claim, the second paper's verify took 82.1 s of CPU instead of 58.4 s, and spread one by one
    over two workers it lost about half of that (overhead 1.35; issue 43).  Each claim weighs its
    ``costs`` entry (estimated seconds, :mod:`.claim_seconds`; 1 each without).  A group heavier
    than a worker's share (the total over the workers) is cut into contiguous chunks no heavier than
    that (a chunk holds at least one claim); the chunks go, heaviest first, to the least loaded
    worker, so no worker carries more than its share plus the heaviest chunk.

    The order is the same: chunks heaviest first (the longest-processing-time-first rule), a
    chunk's claims in plan order, as one process runs them.  Sorting the claims themselves by their
    seconds instead ran the second paper's genie bound (T1-pf (d), 100 instances) before Theorem 1
    and Lemma 4 (5), whose regularization paths it then computed for them: that group took 27.8 s
    of CPU instead of 24.5 s in plan order (issue 43).  A claim's seconds are those it took after
    the claims before it in its chunk, so only a chunk's total is an estimate worth sorting on.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> a, b = (lambda p: "st.integers()"), (lambda p: "st.floats()")
    >>> claims = [C(name=n, data=d) for n, d in zip("wxyz", (a, b, a, a))]
    >>> strategy_placement(["w1", "w2"], claims, "default").lanes
    [['w1'], ['w2'], ['w1'], ['w2']]
    >>> strategy_placement(["w1", "w2"], claims, "default", [1, 4, 1, 1])
    Placement(lanes=[['w2'], ['w1'], ['w2'], ['w2']], priorities=[3, 4, 2, 1])
    >>> strategy_placement(["w1"], claims, "default", [1, 3, 1, 1])
    Placement(lanes=[None, None, None, None], priorities=[4, 1, 3, 2])
    """
    return placement(addresses, [strategy_key(c, profile) for c in claims], costs)


def placement(addresses: list[str], keys: list[Hashable], costs: list[float] | None = None) -> Placement:
    """:func:`strategy_placement` for tasks named by ``keys`` (tasks with equal keys share their
    evidence: a claim's data strategy, or a strategy and a shard), each weighing its ``costs`` entry.

    Examples
    --------
    >>> placement(["w1", "w2"], [("a", 0), ("a", 1), ("a", 0), ("a", 1)], [2, 2, 1, 1])
    Placement(lanes=[['w1'], ['w2'], ['w1'], ['w2']], priorities=[4, 2, 3, 1])
    """
    weight = list(costs) if costs is not None else [1.0] * len(keys)
    share = sum(weight) / max(len(addresses), 1)
    chunks: list[tuple[float, list[int]]] = []  # (weight, tasks)
    for group in key_groups(keys):
        total, chunk = 0.0, []
        for k in group:
            if chunk and total + weight[k] > share:
                chunks.append((total, chunk))
                total, chunk = 0.0, []
            total += weight[k]
            chunk.append(k)
        chunks.append((total, chunk))
    chunks.sort(key=lambda c: c[0], reverse=True)  # stable: ties keep plan order
    order = [k for _, chunk in chunks for k in chunk]
    priorities = [0] * len(keys)
    for rank, k in enumerate(order):
        priorities[k] = len(keys) - rank
    if len(addresses) < 2:
        return Placement([None] * len(keys), priorities)
    load = {a: 0.0 for a in addresses}
    lanes: list[list[str] | None] = [None] * len(keys)
    for total, chunk in chunks:
        where = min(addresses, key=lambda a: load[a])
        load[where] += total
        for k in chunk:
            lanes[k] = [where]
    return Placement(lanes, priorities)
