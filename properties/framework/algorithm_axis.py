"""The matrix's algorithm axis: each claim under each training algorithm.

For each claim the paper lists in ``algorithm_claims`` and each of its
``variants`` (:class:`ntpcheck.transformer.algorithms.Variant`), the claim's checker runs
through the ordinary runner on the claim's own data (which satisfy its
assumptions), with the claim's setup and then the variant as the instance's
``algorithm``.  A claim whose bounds are stated in NGD's step size
(``needs == "normalised"``) is not run under a variant whose steps are not
normalised; its cell says so (``result`` None).  ``holds`` under a variant
means the paper's conclusion survived that change of algorithm on the
instances tried; ``falsified`` comes with a shrunk counterexample.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Iterable

from .claim import Claim, Paper
from .matrix import Unit, run_cells
from .runner import ClaimResult

__all__ = ["AlgorithmCell", "algorithm_cells", "algorithm_plan", "under"]

#: Why a claim with bounds in NGD's step size is not run under another update rule.
NOT_NORMALISED = "its bounds are in NGD's step size; this algorithm's steps are not normalised"


@dataclasses.dataclass(frozen=True)
class AlgorithmCell:
    """One cell: ``claim`` checked with training algorithm ``algorithm`` (None result: not meaningful there)."""

    claim: Claim
    algorithm: Any
    result: ClaimResult | None
    reason: str = ""

    @property
    def paper_algorithm(self) -> bool:
        """Whether the cell's algorithm is the paper's own (Algorithm 1)."""
        return bool(getattr(self.algorithm, "is_algorithm_1", False))


def under(claim: Claim, alg) -> Claim:
    """``claim`` with every instance trained by ``alg`` (after the claim's own setup), pinned examples included."""
    base = claim.setup

    def setup(inst):
        return (inst if base is None else base(inst)).with_params(algorithm=alg)

    return dataclasses.replace(claim, setup=setup)


def algorithm_cells(paper: Paper, claims: Iterable[Claim], profile: str, seed: int, progress=None, *,
                    pinned: bool = True) -> list[AlgorithmCell]:
    """Every (claim, variant) cell of the claims among ``paper.algorithm_claims``, claim by claim."""
    return run_cells(algorithm_plan(paper, claims, pinned=pinned), profile, seed, progress)


def algorithm_plan(paper: Paper, claims: Iterable[Claim], *, pinned: bool = True) -> list[Unit]:
    """The units of :func:`algorithm_cells`, in order (as :func:`.matrix.matrix_plan`)."""
    needs = dict(paper.algorithm_claims)
    todo = []
    for c in claims:
        for v in paper.variants if c.name in needs else ():
            if needs[c.name] == "normalised" and not v.normalised:
                todo.append((c.name, None, functools.partial(AlgorithmCell, c, v, reason=NOT_NORMALISED)))
            else:
                claim = under(c, v) if pinned else dataclasses.replace(under(c, v), examples=())
                todo.append((f"{c.name} with {v.name}", claim, functools.partial(AlgorithmCell, c, v)))
    return todo
