"""Where a run's units of work execute: in this process, or on Dask (``dask.distributed``).

``--workers 1`` runs every unit here, in plan order, as before Dask (a sharded
profile: shard by shard through each data strategy's units; :class:`InProcess`).  ``--workers N`` (N > 1) starts a ``LocalCluster`` of N
worker *processes* (one thread each) on the loopback interface; ``--scheduler
ADDRESS`` (or ``NTPCHECK_DASK_SCHEDULER``) connects to a running cluster
instead (:class:`OnDask`).  Each unit is one task, named by data
(:class:`.units.Plan`), run with the same seed as in-process, so a seed
gives the same verdicts, counts and counterexamples whatever runs it.

Dask is imported only here, and only for ``--workers`` > 1 or
``--scheduler``; without it the run stops at once with one line naming the
extra (``pip install "ntpcheck[dask]"``).  A worker that dies mid-task has
its task run again elsewhere (Dask's scheduler does this); Ctrl-C cancels
the tasks not finished, closes what this process started, and hands the
finished results to the caller (:class:`RunInterrupted`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from ntpcheck.common import interrupt
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.properties.framework import RunInterrupted, run_claims
from ntpcheck.properties.framework.matrix import run_cells
from ntpcheck.properties.framework.shards import shards_for, strategy_key

from . import local_cluster
from .dask_connect import CONNECT_TIMEOUT, connect
from .placement import placement, strategy_groups
from .units import Plan, run_shard, run_unit

__all__ = ["CONNECT_TIMEOUT", "InProcess", "OnDask", "check_address", "open_executor"]

_ADDRESS = re.compile(r"^(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
_EXTRA = 'pip install "ntpcheck[dask]"'


def check_address(address: str, option: str = "--scheduler") -> str:
    """``address`` if it looks like a scheduler's (``[tcp://|tls://]HOST:PORT``), else one-line :class:`NTPCheckError`.

    Examples
    --------
    >>> check_address("tcp://127.0.0.1:8786"), check_address("scheduler.lan:8786")
    ('tcp://127.0.0.1:8786', 'scheduler.lan:8786')
    >>> check_address("http://x")
    Traceback (most recent call last):
    ...
    ntpcheck.common.errors.NTPCheckError: --scheduler 'http://x': not a scheduler address; expected tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)
    """
    m = _ADDRESS.match(address.strip())
    if not m or not 0 < int(m.group(1)) < 65536:
        raise NTPCheckError(f"{option} {address!r}: not a scheduler address; expected tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)")
    return address.strip()


class InProcess:
    """Every unit here: the runner's own loops (:func:`run_claims`, :func:`run_cells`), or shard by
    shard through each data strategy's units for a sharded profile."""

    kind = "in-process"

    def __init__(self) -> None:
        #: Each sharded claim's shard seconds in the last run, by label (:mod:`.claim_seconds`).
        self.shard_seconds: dict[str, list[float]] = {}

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "workers": 1, "scheduler": None}

    def run(self, plan: Plan, profile: str, seed: int, progress: Callable[[str], None] | None = None) -> list:
        """The plan's cells (results, for verify) in order; Ctrl-C: :class:`RunInterrupted`.
        Unsharded profiles run the runner's own loops, as before Dask; sharded ones run shard by
        shard through each data strategy's units, which start a shard on the same instances
        (:func:`~ntpcheck.properties.framework.shards.strategy_key`)."""
        units = plan.units()
        n = shards_for(profile)
        self.shard_seconds = {}
        if n == 1 and plan.kind == "verify":
            return run_claims([c for _, c, _ in units], profile, seed, progress, pinned=plan.pinned)
        if n == 1:
            return run_cells(units, profile, seed, progress)
        cells: list = [plan.cell(k, None) if claim is None else None for k, (_, claim, _) in enumerate(units)]
        searched = [k for k, (_, claim, _) in enumerate(units) if claim is not None]
        parts: dict[int, list] = {k: [] for k in searched}
        finished = len(units) - len(searched)
        try:
            # shard by shard through each data strategy's claims, which draw the same instances there:
            # a shard's evidence is still in this process's cache when the next claim needs it
            for group in strategy_groups([units[k][1] for k in searched], profile):
                for s in range(n):
                    for k in (searched[i] for i in group):
                        interrupt.check()
                        parts[k].append(run_shard(plan, k, profile, seed, s)[0])
                        if len(parts[k]) < n:
                            continue
                        cells[k] = plan.merged(k, profile, parts[k])
                        self.shard_seconds[units[k][0]] = [shard.seconds for shard in parts[k]]
                        finished += 1
                        if progress:
                            progress(_line(finished, len(units), units[k][0], _result(cells[k]), ["in-process"]))
                    if progress and len(group) > 1 and s < n - 1:  # no claim of the group is finished yet
                        progress(_pass_line(s + 1, n, [units[searched[i]][0] for i in group]))
        except KeyboardInterrupt:
            interrupt.ignore_further()  # stopping now: another Ctrl-C must not break off writing what finished
            raise RunInterrupted(plan.interrupted(cells, parts, profile), len(units)) from None
        return cells

    def stream(self, tasks: Iterator[tuple[Any, Callable, tuple]], deadline: float) -> Iterator[tuple[Any, Any]]:
        """``(tag, fn(*args))`` for each ``(tag, fn, args)`` of ``tasks``, one after another, while
        ``time.monotonic()`` is before ``deadline`` (a task started before it is finished)."""
        for tag, fn, args in tasks:
            if time.monotonic() >= deadline:
                return
            interrupt.check()
            yield tag, fn(*args)


class OnDask:
    """Every unit as a task on a Dask cluster, through ``client``; results in plan order."""

    def __init__(self, client, kind: str, scheduler: str | None) -> None:
        self.client, self.kind, self.scheduler = client, kind, scheduler
        #: Each sharded claim's shard seconds in the last run, by label (:mod:`.claim_seconds`).
        self.shard_seconds: dict[str, list[float]] = {}

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "workers": len(self._info()["workers"]), "scheduler": self.scheduler}

    def _info(self) -> dict:
        """The scheduler's description of the cluster, every worker listed."""
        try:
            return self.client.scheduler_info(n_workers=-1)  # Dask >= 2025 lists 5 workers by default
        except TypeError:  # older Dask lists every worker
            return self.client.scheduler_info()

    def run(self, plan: Plan, profile: str, seed: int, progress: Callable[[str], None] | None = None) -> list:
        """The plan's cells in order, each unit one task; a progress line per task as it finishes
        (unit, verdict, counts, seconds, worker); Ctrl-C cancels the rest and raises
        :class:`RunInterrupted` with the cells finished (in plan order)."""
        units = plan.units()
        n = shards_for(profile)
        self.shard_seconds = {}
        cells: list = [None] * len(units)
        futures: dict = {}  # future -> (unit, shard or None)
        parts: dict[int, dict] = {}  # unit -> {shard: Shard}, until all its shards are in
        workers: dict[int, list[str]] = {}
        finished = 0
        try:
            todo = []
            for k, (_, claim, _) in enumerate(units):
                if claim is None:
                    cells[k] = plan.cell(k, None)
                    finished += 1
                elif n == 1:
                    todo.append(((k, None), run_unit, (plan, k, profile, seed)))
                else:
                    parts[k], workers[k] = {}, []
                    todo.extend(((k, s), run_shard, (plan, k, profile, seed, s)) for s in range(n))
            costs = unit_costs(plan, profile, n)  # estimated seconds, longest started first (None: plan order)
            priorities: list = [None] * len(todo)
            if plan.kind != "verify":
                lanes = self._lanes(len(todo))
            else:  # by data strategy and shard: tasks that draw the same instances share their evidence
                # once a unit, not a shard (it builds the strategy to print it)
                strategy = {k: strategy_key(units[k][1], profile) for k in dict.fromkeys(k for (k, _), _, _ in todo)}
                keys = [(strategy[k], s) for (k, s), _, _ in todo]
                weights = None if costs is None else [costs[k][s or 0] for (k, s), _, _ in todo]
                placed = placement(sorted(self._info()["workers"]), keys, weights)
                lanes = placed.lanes
                if costs is not None:
                    priorities = placed.priorities
            for (tag, fn, args), lane, priority in zip(todo, lanes, priorities):
                # a preference, where there is one: Dask refuses allow_other_workers without workers
                # (a cluster of one worker, as `dask worker` without --nworkers starts)
                where = {} if lane is None else {"workers": lane, "allow_other_workers": True}
                if priority is not None:  # Dask runs a worker's higher priorities first
                    where["priority"] = priority
                futures[self.client.submit(fn, *args, pure=False, **where)] = tag
            for fut in self._finishing(futures):
                interrupt.check()
                try:
                    value, worker = fut.result()
                except Exception as e:  # noqa: BLE001 - a worker or the scheduler died: keep what finished
                    self.client.cancel(list(futures), force=True)
                    raise ClusterLost(f"the cluster lost the task of {units[futures[fut][0]][0]} ({type(e).__name__}: "
                                      f"{' '.join(str(e).split())[:160]})", [c for c in cells if c is not None], len(units)) from None
                k, s = futures[fut]
                if s is None:
                    cells[k], workers[k] = plan.cell(k, value), [worker]
                else:
                    parts[k][s] = value
                    workers[k].append(worker)
                    if len(parts[k]) < n:
                        continue
                    cells[k] = plan.merged(k, profile, [parts[k][i] for i in range(n)])
                    self.shard_seconds[units[k][0]] = [parts[k][i].seconds for i in range(n)]
                finished += 1
                if progress:
                    progress(_line(finished, len(units), units[k][0], _result(cells[k]), workers[k]))
        except ClusterLost as e:
            e.results, e.of = plan.interrupted(cells, parts, profile), len(units)
            raise
        except KeyboardInterrupt:
            interrupt.ignore_further()  # stopping now: another Ctrl-C must not break off writing what finished
            self.client.cancel(list(futures), force=True)
            raise RunInterrupted(plan.interrupted(cells, parts, profile), len(units)) from None
        return cells

    def _finishing(self, futures: dict) -> Iterator:
        """The futures as they finish; :class:`ClusterLost` when the cluster has had no worker for
        :data:`LOST_AFTER` seconds with tasks left (a user's cluster whose last worker was killed
        would otherwise keep the run waiting forever)."""
        from distributed import wait

        pending = set(futures)
        empty_since = None
        while pending:
            try:
                done, _ = wait(list(pending), timeout=1.0, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            except (Exception, asyncio.CancelledError) as e:  # noqa: BLE001 - the scheduler is gone: futures cancelled
                raise ClusterLost(f"the connection to the scheduler was lost ({type(e).__name__}) with {len(pending)} tasks left",
                                  [], 0) from None
            yield from [f for f in futures if f in done and f in pending]
            pending -= set(done)
            if done or not pending:
                empty_since = None
                continue
            try:
                alive = len(self._info()["workers"])
            except Exception:  # noqa: BLE001 - the scheduler itself is gone
                alive = 0
            if alive:
                empty_since = None
            elif empty_since is None:
                empty_since = time.monotonic()
            elif time.monotonic() - empty_since > LOST_AFTER:
                self.client.cancel(list(pending), force=True)
                raise ClusterLost(f"the cluster has had no worker for {LOST_AFTER:g} s with {len(pending)} tasks left", [], 0)


    def _lanes(self, n: int) -> list[list[str] | None]:
        """For ``n`` tasks in plan order, the worker each should run on: contiguous lanes, one per
        worker, for the matrices (``verify``'s claims go by data strategy: :func:`.placement.strategy_placement`).
        A matrix row's cells share the claim's instances, whose evidence (trainings, max-margin
        solutions) a process caches (:mod:`~ntpcheck.properties.framework.evidence`); spread one
        by one over the workers, every worker computed most of it again (a default-profile matrix
        took 1.4x the CPU time).  Distinct claims share far less, and there the lanes only
        delayed the tail (verify on two workers: min of four runs 34.6 s with lanes, 31.8 s
        without, against 51.3 s on one; issue 43).  The placement is a preference: Dask still moves tasks to an idle
        worker (work stealing) and off a dead one, and results never depend on it."""
        addresses = sorted(self._info()["workers"])
        if len(addresses) < 2:
            return [None] * n
        return [[addresses[i * len(addresses) // n]] for i in range(n)]

    def stream(self, tasks: Iterator[tuple[Any, Callable, tuple]], deadline: float) -> Iterator[tuple[Any, Any]]:
        """``(tag, fn(*args))`` as tasks finish, each ``(tag, fn, args)`` of ``tasks`` one task, two per
        worker in flight, until ``time.monotonic()`` reaches ``deadline``: then (or on Ctrl-C, or when
        the caller stops) the tasks not finished are cancelled."""
        from distributed import wait

        slots = 2 * max(1, self.describe()["workers"])
        pending: dict = {}
        tasks = iter(tasks)
        try:
            while True:
                while len(pending) < slots and time.monotonic() < deadline:
                    nxt = next(tasks, None)
                    if nxt is None:
                        break
                    tag, fn, args = nxt
                    pending[self.client.submit(fn, *args, pure=False)] = tag
                remaining = deadline - time.monotonic()
                if not pending or remaining <= 0:
                    return
                try:
                    done, _ = wait(list(pending), timeout=min(remaining, 0.5), return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = ()
                interrupt.check()
                for fut in [f for f in pending if f in done]:
                    yield pending.pop(fut), fut.result()
        finally:
            if pending:
                self.client.cancel(list(pending), force=True)


def unit_costs(plan: Plan, profile: str, shards: int = 1) -> list[tuple[float, ...]] | None:
    """Each unit's estimated seconds for a verify plan, one per shard (``shards`` of them): its
    claim's last run under ``profile`` (:mod:`.claim_seconds`), each shard's own seconds where that
    run kept them, else the claim's split evenly, and the median of the known claims' for a claim
    never run; None where none is known, or for the matrices (whose lanes keep a row's cells together)."""
    if plan.kind != "verify":
        return None
    from .claim_seconds import estimates

    known, each = estimates(plan.paper, profile)
    seconds = [known.get(label) for label, _, _ in plan.units()]
    timed = sorted(s for s in seconds if s is not None)
    if not timed:
        return None
    typical = timed[len(timed) // 2]
    return [each[label] if len(each.get(label, ())) == shards else ((typical if s is None else s) / shards,) * shards
            for (label, _, _), s in zip(plan.units(), seconds)]


class ClusterLost(RunInterrupted):
    """The cluster lost a task's worker, its last worker, or its scheduler: ``why``, and the
    ``results`` finished before (written as an interrupted run's are, then exit 2)."""

    def __init__(self, why: str, results: list, of: int) -> None:
        super().__init__(results, of)
        self.why = why


#: Seconds a run waits for a worker when its cluster has none left (a worker restarting comes back
#: sooner); ``NTPCHECK_LOST_AFTER`` sets it (tests).
LOST_AFTER = float(os.environ.get("NTPCHECK_LOST_AFTER", "30"))


def _result(cell):
    """The :class:`ClaimResult` of a cell (verify's cells are results)."""
    return getattr(cell, "result", cell)


def _pass_line(done: int, of: int, labels: list[str]) -> str:
    """A progress line after a shard pass through a data strategy's units.

    Examples
    --------
    >>> _pass_line(1, 4, ["Lemma 1", "Lemma 2", "Prop. 1 [k=1]", "Lemma 3"])
    '  shard 1/4 done for Lemma 1, Lemma 2 and 2 more drawing from one strategy'
    """
    more = f" and {len(labels) - 2} more" if len(labels) > 2 else ""
    return f"  shard {done}/{of} done for {', '.join(labels[:2])}{more} drawing from one strategy"


def _line(done: int, of: int, label: str, r, workers: list[str]) -> str:
    """A progress line: ``[done/of] label: verdict (tested/drawn, seconds, worker(s))``."""
    c = r.counts
    seconds = "" if r.seconds is None else f", {r.seconds:.1f} s"
    where = ", ".join(dict.fromkeys(workers))
    return (f"[{done}/{of}] {label}: {r.verdict} ({c['tested']}/{c['drawn']} tested/drawn{seconds}, "
            f"worker{'s' if len(set(workers)) > 1 else ''} {where})")


@contextlib.contextmanager
def open_executor(workers: int, scheduler: str | None) -> Iterator[InProcess | OnDask]:
    """The executor for ``--workers``/``--scheduler``, closed (with anything it started) on leaving.

    ``scheduler`` given: a client of that cluster (answering within :data:`CONNECT_TIMEOUT`
    seconds with at least one worker, else :class:`NTPCheckError`).  Else ``workers`` > 1: a
    ``LocalCluster`` of that many worker processes on 127.0.0.1.  Else :class:`InProcess`.
    """
    if scheduler is None and workers <= 1:
        yield InProcess()
        return
    try:
        import distributed
    except ImportError:
        what = f"--scheduler {scheduler}" if scheduler else f"--workers {workers}"
        raise NTPCheckError(f"{what} needs Dask, an optional extra: {_EXTRA} (or use --workers 1)") from None
    cluster = None
    if scheduler is not None:
        client = connect(distributed, check_address(scheduler))
        ex = OnDask(client, "dask", scheduler)
    else:
        cluster = local_cluster.start(distributed, workers)
        client = distributed.Client(cluster)
        ex = OnDask(client, "dask-local", cluster.scheduler_address)
    try:
        yield ex
    finally:
        local_cluster.close(client, cluster)
