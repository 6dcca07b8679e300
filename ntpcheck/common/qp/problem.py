"""The max-margin quadratic program as data: ``min 1/2 ||w||^2 s.t. R w >= 1``, ``W = w.reshape(shape)``.

Every paper's max-margin problem is one of these: the first paper's Eq. (2) and Eq. (3)
(:mod:`ntpcheck.transformer.maxmargin.problems` builds them), the second paper's NTP-SVM in
ℱ^⊥ coordinates (:func:`ntpcheck.linear.svm.w_mm`).  :mod:`.cvx` solves it with a certificate
(:mod:`.kkt`).

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> P = MaxMarginProblem("toy", sp.csr_matrix(np.array([[1.0, 0.0]])), (1, 2), [("a",)])
>>> P.n_constraints
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .kkt import KKTResiduals

__all__ = ["IndexLabels", "MaxMarginProblem", "MaxMarginSolution"]


class IndexLabels(Sequence):
    """Constraint labels ``(name, name, name)`` kept as three index arrays, named on access.

    Eq. (2) at ``|V| = 2000`` has four million constraints; building their
    name tuples up front took longer than solving.
    """

    def __init__(self, vocab: Sequence[str], *columns: np.ndarray) -> None:
        self._vocab, self._cols = vocab, columns

    def __len__(self) -> int:
        return len(self._cols[0]) if self._cols else 0

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self[i] for i in range(*k.indices(len(self))))
        return tuple(self._vocab[int(c[k])] for c in self._cols)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None


@dataclass(frozen=True, eq=False)
class MaxMarginProblem:
    """One max-margin problem: ``min 1/2 ||w||^2 s.t. R w >= 1``, ``W = w.reshape(shape)``.

    Attributes
    ----------
    name : str
        ``"Eq. (2)"`` or ``"Eq. (3)"``.
    R : scipy.sparse.csr_matrix, shape (K, m)
        One row per distinct constraint, acting on ``vec(W)`` (row-major).
    shape : (int, int)
    labels : sequence of tuple of str
        Eq. (2): ``(x, n(x), v)``; Eq. (3): ``(optimal, non-optimal, query)``.
    """

    name: str
    R: sp.csr_matrix
    shape: tuple[int, int]
    labels: Sequence[tuple[str, ...]]

    @property
    def n_constraints(self) -> int:
        return self.R.shape[0]


@dataclass(frozen=True, eq=False)
class MaxMarginSolution:
    """A solution with its multipliers, KKT residuals and timing.

    ``seconds`` is the solver's own time; ``stages`` splits it (cvxpy:
    ``compile``, ``solve``, ``polish``; exact: ``solve``, ``certificate``).
    ``polish_move`` is the largest entry change the active-set polish made
    (None when it was not applied).
    """

    problem: MaxMarginProblem
    W: np.ndarray
    multipliers: np.ndarray
    residuals: KKTResiduals
    method: str
    seconds: float
    stages: dict = field(default_factory=dict)
    polish_move: float | None = None

    @property
    def norm(self) -> float:
        return float(np.linalg.norm(self.W))

    @property
    def n_constraints(self) -> int:
        return self.problem.n_constraints
