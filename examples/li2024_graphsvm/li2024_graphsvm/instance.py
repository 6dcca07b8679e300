"""An instance (data and GD's parameters) and its evidence, computed lazily.

:class:`GraphInstance` implements ntpcheck's instance protocol (:class:`ntpcheck.api.PaperInstance`):
``key``, ``identity()``, ``describe()``, ``evidence()``, ``counterexample_text()`` (and
``dataset_key()``).  Its evidence, :class:`GraphEvidence`, holds what the checkers look at: the
graphs' constraints, the Graph-SVM with its certificate, ``S_fin`` and ``W_fin``, and GD's runs of
``steps`` and ``10 * steps`` steps (:mod:`.checks`; each computed once, a shorter run read off a longer).

Examples
--------
>>> from .textformat import loads
>>> inst = loads("A B C -> A\\nB A C -> B\\nA C -> A\\n")[0]
>>> inst.describe()
{'V': 3, 'N': 3, 'n': 3, 'd': 3, 'queries': 1}
>>> ev = inst.evidence()
>>> ev.acyclic, ev.svm.residuals["worst"] < 1e-12, ev.basis.shape
(False, True, (1, 9))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from . import model, svm
from .data import SequenceData
from .graph import Constraints, acyclic, constraints, within_basis

__all__ = ["PARAMETERS", "GraphInstance", "GraphEvidence"]

#: Parameter name -> (type, default, meaning).
PARAMETERS: dict[str, tuple[type, Any, str]] = {
    "steps": (int, 1000, "GD's base horizon (the limit claims read the last two decades, and confirm on runs 10x as long)"),
    "eta": (float, 1.0, "GD's step as a fraction of 1/L, L = max ||z||^2 max ||x||^2 (model.smoothness)"),
    "init": (int, 0, "GD's W_0: 0 is zero, k >= 1 is N(0, 1/d) entries with seed k - 1"),
}


@dataclass(frozen=True, eq=False)
class GraphInstance:
    """Data (:class:`~.data.SequenceData`) and parameters (sorted ``(name, value)`` pairs; defaults where absent)."""

    data: SequenceData
    params: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        out = {}
        for name, value in dict(self.params).items():
            if name not in PARAMETERS:
                raise ValueError(f"unknown parameter {name!r}; known: {', '.join(PARAMETERS)}")
            out[name] = PARAMETERS[name][0](value)
        object.__setattr__(self, "params", tuple(sorted(out.items())))

    def param(self, name: str):
        return dict(self.params).get(name, PARAMETERS[name][1])

    def with_params(self, **params) -> "GraphInstance":
        return replace(self, params=tuple({**dict(self.params), **params}.items()))

    @cached_property
    def key(self) -> tuple:
        """The computation exactly: data in its order, embeddings, parameters."""
        D = self.data
        return ("li2024", D.vocab, D.E.shape, D.E.tobytes(), D.samples, self.params)

    def identity(self) -> tuple:
        """The instance up to the order of its samples."""
        return (self.data.key(), self.params)

    def dataset_key(self) -> tuple:
        return self.data.key()

    def describe(self) -> dict[str, Any]:
        """``V`` tokens, ``N`` distinct samples, ``n`` samples, ``d``, the number of queries, parameters."""
        D = self.data
        N = len({(s[0], s[1]) for s in D.samples})
        return {"V": D.V, "N": N, "n": D.n, "d": D.d, "queries": len(D.queries), **dict(self.params)}

    def evidence(self) -> "GraphEvidence":
        return GraphEvidence(self)

    def counterexample_text(self, claim: str, detail: str, replay: str) -> str:
        from .textformat import dumps

        return dumps(self, claim=claim, comment=f"counterexample: {detail}") + f"# replay: save this text as FILE, then run: {replay}\n"

    def __repr__(self) -> str:
        from .textformat import dumps

        return f"li2024_graphsvm.textformat.loads('''\n{dumps(self)}''')[0]"

    def _repr_pretty_(self, p, cycle) -> None:  # Hypothesis prints the text format
        p.text(repr(self))


class GraphEvidence:
    """What the checkers of one instance look at, each computed on first use."""

    def __init__(self, instance: GraphInstance) -> None:
        self.instance, self.data = instance, instance.data
        self._runs: dict[int, model.Trajectory] = {}

    @cached_property
    def constraints(self) -> Constraints:
        return constraints(self.data)

    @cached_property
    def acyclic(self) -> bool:
        return acyclic(self.data)

    @property
    def independent(self) -> bool:
        return self.data.independent

    @cached_property
    def svm(self) -> svm.GraphSVM:
        """The Graph-SVM with its certificate (:func:`.svm.solve`; :class:`.svm.Infeasible` if it has none)."""
        c = self.constraints
        return svm.solve(c.A_eq, c.A_in)

    @cached_property
    def w_svm(self) -> np.ndarray:
        return self.svm.W(self.data.d)

    @cached_property
    def basis(self) -> np.ndarray:
        """Orthonormal rows spanning ``S_fin`` over ``vec(W)``."""
        return within_basis(self.constraints)

    def project(self, W: np.ndarray) -> np.ndarray:
        """``P_{S_fin} W`` (one matrix, or a stack of them)."""
        flat = np.asarray(W).reshape(-1, self.data.d ** 2)
        return ((flat @ self.basis.T) @ self.basis).reshape(np.shape(W))

    @cached_property
    def finite(self) -> model.FinitePart:
        """``W_fin`` (:func:`.model.finite_part`)."""
        return model.finite_part(self.data, self.basis)

    @cached_property
    def W0(self) -> np.ndarray:
        k, d = self.instance.param("init"), self.data.d
        return np.zeros((d, d)) if k == 0 else np.random.default_rng(k - 1).normal(scale=d ** -0.5, size=(d, d))

    def gd_at(self, factor: int = 1) -> model.Trajectory:
        """GD's run of ``factor * steps`` steps (:func:`.model.gd`), read off a longer run when there is one."""
        horizon = factor * self.instance.param("steps")
        longer = [h for h in self._runs if h >= horizon]
        if longer:
            run = self._runs[min(longer)]
            keep = run.t <= horizon
            return model.Trajectory(run.t[keep], run.W[keep])
        self._runs[horizon] = model.gd(self.data, self.W0, self.instance.param("eta"), horizon)
        return self._runs[horizon]
