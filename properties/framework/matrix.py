"""The assumption-necessity matrix: each claim on instances that break exactly one condition.

For each claim with a ``setup`` and each condition of its paper, the claim's
checker runs (through the ordinary runner) on instances drawn from
``paper.breaking(condition, profile)``, with the claim's own training
parameters.  A ``holds`` where the claim lists the condition means the claim
did not need it (on the instances tried); a ``falsified`` where the claim
does *not* list it means it relies on a condition it does not state.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Iterable

from .claim import Claim, Paper
from .runner import ClaimResult, RunInterrupted, run_claim

__all__ = ["MatrixCell", "matrix_cells"]


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
    return dataclasses.replace(claim, data=lambda profile: paper.breaking(condition, profile), examples=pins)


def matrix_cells(paper: Paper, claims: Iterable[Claim], profile: str, seed: int, progress=None, *,
                 pinned: bool = True) -> list[MatrixCell]:
    """Every (claim, condition) cell, in claim order, each run with ``run_claim``
    (``pinned=False``: without pinned examples, only what the search finds)."""
    todo = [(c, cond) for c in claims if c.setup is not None for cond in paper.conditions]
    # Each cell replays the paper's pinned examples (of any claim) that break exactly its condition.
    pins = {cond: paper.pinned_breaking(cond) if pinned else () for cond in paper.conditions}
    cells = []
    for k, (c, cond) in enumerate(todo, 1):
        t0 = time.perf_counter()
        try:
            r = run_claim(_without(paper, c, cond, pins[cond]), profile, seed)
        except KeyboardInterrupt:
            raise RunInterrupted(cells, len(todo)) from None
        if progress:
            progress(f"[{k}/{len(todo)}] {c.name} without {cond}: {r.verdict} ({time.perf_counter() - t0:.1f} s)")
        cells.append(MatrixCell(c, cond, r))
    return cells
