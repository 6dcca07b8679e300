"""The assumption-necessity matrix: each claim on instances that break exactly one condition.

For each claim with a ``setup`` and each condition of its paper, the claim's
checker runs (through the ordinary runner) on instances drawn from
``paper.breaking(condition, profile, claim.data)``: the condition broken on
the claim's own data reading (a "general data" row breaks it on general data,
a prefix-closed row on prefix-closed data), with the claim's own training
parameters.  A ``holds`` where the claim lists the condition means the claim
did not need it (on the instances tried); a ``falsified`` where the claim
does *not* list it means it relies on a condition it does not state.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, Callable, Iterable

from ntpcheck.common import interrupt

from .claim import Claim, Paper
from .runner import ClaimResult, RunInterrupted, run_claim

__all__ = ["MatrixCell", "Unit", "matrix_cells", "matrix_plan", "run_cells"]

#: One unit of work of a matrix: ``(label, claim or None, cell)``: the cell is ``cell(run_claim(claim))``,
#: or ``cell(None)`` where the claim is not run (``claim`` None).
Unit = tuple[str, Claim | None, Callable[[ClaimResult | None], Any]]


@dataclasses.dataclass(frozen=True)
class MatrixCell:
    """One cell: ``claim`` checked on data without ``condition``."""

    claim: Claim
    condition: str
    result: ClaimResult

    @property
    def listed(self) -> bool:
        """Whether the claim lists the dropped condition among its assumptions."""
        return self.condition in self.claim.assumptions


def _without(paper: Paper, claim: Claim, condition: str, pins: tuple) -> Claim:
    """``claim`` on data that breaks exactly ``condition``, with the pinned examples ``pins``."""
    return dataclasses.replace(claim, data=lambda profile: paper.breaking(condition, profile, claim.data), examples=pins)


def matrix_cells(paper: Paper, claims: Iterable[Claim], profile: str, seed: int, progress=None, *,
                 pinned: bool = True) -> list[MatrixCell]:
    """Every (claim, condition) cell, in claim order, each run with ``run_claim``
    (``pinned=False``: without pinned examples, only what the search finds)."""
    return run_cells(matrix_plan(paper, claims, pinned=pinned), profile, seed, progress)


def matrix_plan(paper: Paper, claims: Iterable[Claim], *, pinned: bool = True) -> list[Unit]:
    """The units of :func:`matrix_cells`, in order (run them with :func:`run_cells`, or one by one
    elsewhere: a unit's place in this list names it, as the claims' names and the paper do)."""
    # Each cell replays the paper's pinned examples (of any claim) that break exactly its condition.
    pins = {cond: paper.pinned_breaking(cond) if pinned else () for cond in paper.conditions}
    return [(f"{c.name} without {cond}", _without(paper, c, cond, pins[cond]), functools.partial(MatrixCell, c, cond))
            for c in claims if c.setup is not None for cond in paper.conditions]


def run_cells(todo: list[Unit], profile: str, seed: int,
              progress=None) -> list:
    """The cells of a matrix, in order: for each ``(label, claim, cell)``, ``cell(run_claim(claim))``,
    or ``cell(None)`` for a claim not run there (``claim`` None).  ``progress`` gets one line
    per cell run; Ctrl-C raises :class:`RunInterrupted` with the finished cells."""
    cells: list = []
    for k, (label, claim, cell) in enumerate(todo, 1):
        if claim is None:
            cells.append(cell(None))
            continue
        t0 = time.perf_counter()
        try:
            interrupt.check()
            r = run_claim(claim, profile, seed)
        except KeyboardInterrupt:
            raise RunInterrupted(cells, len(todo)) from None
        if progress:
            progress(f"[{k}/{len(todo)}] {label}: {r.verdict} ({time.perf_counter() - t0:.1f} s)")
        cells.append(cell(r))
    return cells
