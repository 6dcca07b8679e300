"""Where a run's tasks should go on a cluster: a preference for a worker, so that tasks that share a
process's cached evidence (:mod:`ntpcheck.properties.framework.evidence`) run in one process.

Placement never changes a result (each task runs with the run's seed wherever it runs); it only
decides how much work is done twice.  Dask still moves a task to an idle worker (work stealing)
and off a dead one.
"""

from __future__ import annotations

__all__ = ["strategy_groups", "strategy_lanes"]


def strategy_groups(claims: list, profile: str) -> list[list[int]]:
    """The claims' indices grouped by their data strategy (its ``repr`` for ``profile``, which names
    the strategy and its arguments), groups in order of their first claim; a claim whose strategy
    cannot be built here is a group of its own.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> a, b = (lambda p: "st.integers()"), (lambda p: "st.floats()")
    >>> strategy_groups([C(data=a), C(data=b), C(data=a), C(data=None)], "default")
    [[0, 2], [1], [3]]
    """
    groups: dict[object, list[int]] = {}
    for k, claim in enumerate(claims):
        try:
            key: object = repr(claim.data(profile))
        except Exception:  # noqa: BLE001 - a preference only: such a claim is placed on its own
            key = ("claim", k)
        groups.setdefault(key, []).append(k)
    return list(groups.values())


def strategy_lanes(addresses: list[str], claims: list, profile: str,
                   costs: list[float] | None = None) -> list[list[str] | None]:
    """For verify's ``claims``, the worker (of ``addresses``) each should run on: the claims that draw
    from one data strategy together (:func:`strategy_groups`), so that they share the evidence a
    process caches; None for every claim with fewer than two workers.

    Every claim searches with the run's seed, so claims with the same strategy draw the same
    instances and reuse each other's trainings and solutions: with the cache cleared before each
    claim, the second paper's verify took 82.1 s of CPU instead of 58.4 s, and spread one by one
    over two workers it lost about half of that (overhead 1.35; issue 43).  Each claim weighs its
    ``costs`` entry (estimated seconds, :mod:`.claim_seconds`; 1 each without).  A group heavier
    than a worker's share (the total over the workers) is cut into contiguous chunks no heavier than
    that (a chunk holds at least one claim); the chunks go, heaviest first, to the least loaded
    worker, so no worker carries more than its share plus the heaviest chunk.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> a, b = (lambda p: "st.integers()"), (lambda p: "st.floats()")
    >>> strategy_lanes(["w1", "w2"], [C(data=a), C(data=b), C(data=a), C(data=a)], "default")
    [['w1'], ['w2'], ['w1'], ['w2']]
    >>> strategy_lanes(["w1", "w2"], [C(data=a), C(data=b), C(data=a), C(data=a)], "default", [1, 3, 1, 1])
    [['w1'], ['w2'], ['w1'], ['w1']]
    """
    if len(addresses) < 2:
        return [None] * len(claims)
    weight = list(costs) if costs is not None else [1.0] * len(claims)
    share = sum(weight) / len(addresses)
    chunks: list[tuple[float, list[int]]] = []  # (weight, claims)
    for group in strategy_groups(claims, profile):
        total, chunk = 0.0, []
        for k in group:
            if chunk and total + weight[k] > share:
                chunks.append((total, chunk))
                total, chunk = 0.0, []
            total += weight[k]
            chunk.append(k)
        chunks.append((total, chunk))
    load = {a: 0.0 for a in addresses}
    lanes: list[list[str] | None] = [None] * len(claims)
    for total, chunk in sorted(chunks, key=lambda c: c[0], reverse=True):  # stable: ties keep plan order
        where = min(addresses, key=lambda a: load[a])
        load[where] += total
        for k in chunk:
            lanes[k] = [where]
    return lanes
