"""Units of work named by data only, so that another process can run them.

A claim holds lambdas (its data, setup and checker), so it is never sent to
another process.  A :class:`Plan` names a run instead (the paper, the kind
of run, the claims by name, the pinned examples on or off); any process
that imports ntpcheck rebuilds the same list of units from the paper
registry (:func:`ntpcheck.properties.paper`), and a unit is named by its
place in that list.  :func:`run_unit` runs one there and returns its result
without the claim; :meth:`Plan.cell` puts the caller's own claim back.

``kind`` is ``verify`` (one unit per claim), ``assumption`` (one per claim
and dropped condition, :func:`~ntpcheck.properties.framework.matrix.matrix_plan`)
or ``algorithm`` (one per claim and training algorithm,
:func:`~ntpcheck.properties.framework.algorithm_axis.algorithm_plan`).

Examples
--------
>>> plan = Plan("huang2024", "verify", ("Lemma 1", "Lemma 3"), pinned=True)
>>> [label for label, _, _ in plan.units()]
['Lemma 1', 'Lemma 3']
>>> len(Plan("huang2024", "assumption", ("Lemma 1",), pinned=True).units())
5
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Mapping
from typing import Any

from ntpcheck.properties import paper
from ntpcheck.properties.framework import ClaimResult, run_claim
from ntpcheck.properties.framework.algorithm_axis import algorithm_plan
from ntpcheck.properties.framework.matrix import Unit, matrix_plan
from ntpcheck.properties.framework.shards import Shard, merge, search_shard, shards_for

__all__ = ["KINDS", "PARTIAL", "Plan", "run_unit", "run_shard", "run_batch", "example_database", "where"]

#: The kinds of run a plan names.
KINDS = ("verify", "assumption", "algorithm")
#: How the detail of a claim decided by some of its shards begins (:meth:`Plan.interrupted`).
PARTIAL = "interrupted after "


@dataclasses.dataclass(frozen=True)
class Plan:
    """A run named by data: ``paper``'s ``claims`` (names) as ``kind`` says, ``pinned`` examples or not."""

    paper: str
    kind: str
    claims: tuple[str, ...]
    pinned: bool = True

    def units(self) -> list[Unit]:
        """The run's units, ``(label, claim or None, cell)``, in report order (:func:`_units`, cached)."""
        return _units(self)

    def merged(self, k: int, profile: str, shards: list[Shard]) -> Any:
        """Unit ``k``'s cell from its shards (:func:`~ntpcheck.properties.framework.shards.merge`)."""
        return self.cell(k, merge(self.units()[k][1], profile, shards))

    def interrupted(self, cells: list, parts: Mapping[int, Any], profile: str) -> list:
        """What a sharded run stopped early keeps, in plan order: the finished ``cells`` (None where
        not finished), and each verify claim whose finished shards (``parts[k]``: a list in shard
        order, or a dict by shard) include one that falsified it.  Such a claim is falsified
        whatever its other shards find (the merge's rule), so its counterexample, which replays, is
        not lost; it is marked (:attr:`ClaimResult.interrupted_after`, and its detail), since the
        whole search may report a smaller counterexample.  A claim whose finished shards falsified
        nothing has no verdict yet; one whose every shard finished is merged as usual.  The
        finished cells are never lost: a claim whose merge fails here is left out.

        Examples
        --------
        >>> from ntpcheck.properties.framework.shards import Shard
        >>> plan = Plan("huang2024", "verify", ("Lemma 1", "Lemma 3"), pinned=True)
        >>> plan.interrupted([None, None], {0: [Shard(outcomes=())], 1: {}}, "thorough")
        []
        """
        kept, n = list(cells), shards_for(profile)
        for k, got in parts.items():
            if self.kind != "verify" or kept[k] is not None or not got:
                continue
            try:
                shards = [got[s] for s in sorted(got)] if isinstance(got, Mapping) else list(got)
                falsifying = sum(s.falsified is not None for s in shards)
                if len(shards) == n:
                    kept[k] = self.merged(k, profile, shards)
                elif falsifying:
                    r = merge(self.units()[k][1], profile, shards)
                    kept[k] = self.cell(k, dataclasses.replace(r, interrupted_after=(len(shards), n), detail=(
                        f"{PARTIAL}{len(shards)} of {n} shards ({falsifying} of them falsified the claim; the "
                        f"whole search may report a smaller counterexample): {r.detail}")))
            except (Exception, KeyboardInterrupt):  # noqa: BLE001 - what finished must still be written
                continue
        return [c for c in kept if c is not None]

    def cell(self, k: int, result: ClaimResult | None) -> Any:
        """Unit ``k``'s cell (a :class:`ClaimResult` for ``verify``) from ``result`` computed anywhere,
        with this process's claim put back."""
        _, claim, cell = self.units()[k]
        return cell(None if result is None else dataclasses.replace(result, claim=claim))


@functools.lru_cache(maxsize=16)
def _units(plan: Plan) -> list[Unit]:
    if plan.kind not in KINDS:
        raise ValueError(f"unknown kind of run {plan.kind!r}; one of {', '.join(KINDS)}")
    p = paper(plan.paper)
    by_name = {c.name: c for c in p.claims}
    claims = [by_name[name] for name in plan.claims]
    if plan.kind == "verify":
        return [(c.name, c, _same) for c in claims]
    build = matrix_plan if plan.kind == "assumption" else algorithm_plan
    return build(p, claims, pinned=plan.pinned)


def _same(result: ClaimResult | None) -> ClaimResult | None:
    return result


def run_unit(plan: Plan, k: int, profile: str, seed: int) -> tuple[ClaimResult, str]:
    """Run unit ``k`` of ``plan`` here, as the in-process run would (:func:`run_claim`, the same
    seed): its result without the claim (``claim=None``, it is not sent back) and :func:`where`."""
    _, claim, _ = plan.units()[k]
    here = where()
    r = run_claim(claim, profile, seed, pinned=_pinned(plan))
    return dataclasses.replace(r, claim=None), here


def run_shard(plan: Plan, k: int, profile: str, seed: int, shard: int) -> tuple[Shard, str]:
    """Run shard ``shard`` of unit ``k``'s search here (:func:`search_shard`), and :func:`where`."""
    _, claim, _ = plan.units()[k]
    here = where()
    return search_shard(claim, profile, seed, shard, shards_for(profile), pinned=_pinned(plan)), here


def run_batch(plan: Plan, k: int, profile: str, seed: int, batch: int, database: tuple[str, str] | None) -> tuple[Shard, str]:
    """Batch ``batch`` of a campaign for unit ``k``: a profile-sized search with the seed of
    ``(seed, strategy, batch)`` (the claim's data strategy,
    :func:`~ntpcheck.properties.framework.shards.strategy_key`; pinned examples in batch 0), through
    the example database ``database`` (:func:`example_database`) under a key naming the unit and
    the profile."""
    label, claim, _ = plan.units()[k]
    here = where()
    key = f"ntpcheck-campaign\0{plan.paper}\0{plan.kind}\0{label}\0{profile}".encode()
    shard = search_shard(claim, profile, seed, batch, 1, pinned=_pinned(plan), database=example_database(database),
                         database_key=key)
    return dataclasses.replace(shard, outcomes=tuple(dataclasses.replace(o, series=None) for o in shard.outcomes),
                               falsified=shard.falsified and dataclasses.replace(shard.falsified, series=None)), here


@functools.lru_cache(maxsize=4)
def example_database(spec: tuple[str, str] | None):
    """The Hypothesis example database of ``spec``: ``("redis", URL)`` (the shared Redis database of
    :mod:`.hypothesis_profiles`), ``("directory", PATH)``, or None (none).  One per process."""
    if spec is None:
        return None
    kind, where_ = spec
    if kind == "redis":
        from ntpcheck.app.pytest_plugin.pytest_plugin.hypothesis_profiles import _shared_database

        return _shared_database(where_)
    from hypothesis.database import DirectoryBasedExampleDatabase

    return DirectoryBasedExampleDatabase(where_)


def _pinned(plan: Plan) -> bool:
    """verify passes --no-pinned to the runner; the matrix's units carry their own pinned examples."""
    return plan.pinned if plan.kind == "verify" else True


def where() -> str:
    """The address of the Dask worker running this, or ``in-process``.

    On a worker it also silences Hypothesis's warning that the global ``random`` changed while
    data were drawn: Dask's own threads use it there (heartbeats, retries), not the strategies
    (which draw the same data on a worker as in process: ``tests/app/test_dask.py``)."""
    try:
        from distributed import get_worker

        address = get_worker().address
    except (ImportError, ValueError):
        return "in-process"
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
    return address
