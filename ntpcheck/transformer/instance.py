"""An instance: a dataset, its embeddings and the parameters of Algorithm 1, as plain data.

This is what the strategies draw and what a claim is checked on.  It holds
no results: the evidence computed from an instance (structure, max-margin
solutions, trajectories) lives in :mod:`ntpcheck.properties.framework.evidence`.

Examples
--------
>>> import ntpcheck
>>> inst = Instance(ntpcheck.load("example1"), T=300, T2=0)
>>> inst                                            # doctest: +ELLIPSIS
Instance(ntpcheck.loads(...), T=300, T2=0)
>>> inst.with_params(T2=50).T2
50
>>> inst.steps          # the paper's Section 7 step sizes for d = |V| = 4
(0.1, 0.025)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ntpcheck.common.data import Dataset
from .embeddings import as_embeddings, is_canonical
from ntpcheck.common.errors import DatasetFormatError
from .textheader import Header
from .training import TrainingConfig

if TYPE_CHECKING:
    from .algorithms import Variant

__all__ = ["Instance"]


@dataclass(frozen=True, eq=False, repr=False)
class Instance:
    """A dataset with embeddings and Algorithm 1's parameters.

    Attributes
    ----------
    dataset : Dataset
    embeddings : ndarray or None
        ``d x |V|``; canonical when None.
    T, T2 : int
        Steps of stage 1 and stage 2.
    eta0, eta : float or None
        Step sizes; the paper's Section 7 defaults when None.
    stage1_margin : float or None
        If set, stage 1's output is replaced by the idealised matrix whose
        margins all equal this value (Appendix C.1; see
        :func:`ntpcheck.transformer.training.idealised_stage1`).
    algorithm : Variant or None
        The training algorithm (:mod:`ntpcheck.transformer.algorithms`); None: Algorithm 1.
    target_A : float or None
        A requested stage-1 margin ``A = T eta_0 / (4 ||W*_ov||^2)`` (drawn by a
        search): :meth:`with_margin` turns it into ``eta_0``.  Never trained with:
        a claim's setup resolves it, so printed instances carry ``eta_0`` itself.
    """

    dataset: Dataset
    embeddings: np.ndarray | None = None
    T: int = 900
    T2: int = 900
    eta0: float | None = None
    eta: float | None = None
    stage1_margin: float | None = None
    algorithm: Variant | None = None
    target_A: float | None = None

    def with_margin(self, w_ov_star_norm: float | None) -> "Instance":
        """The instance with ``target_A`` resolved: ``eta_0 = 4 A ||W*_ov||^2 / T`` (Cor. 1's
        ``A = T C_0``, ``C_0 = eta_0 / (4 ||W*_ov||^2)``) and ``target_A`` cleared; unchanged
        apart from the clearing where there is no stage 1 (``T = 0``) or no ``||W*_ov||``
        (None: Eq. (2) infeasible).

        Examples
        --------
        >>> import ntpcheck
        >>> Instance(ntpcheck.loads("A -> B\\n"), T=100, target_A=2.0).with_margin(0.5).eta0
        0.02
        """
        if self.target_A is None:
            return self
        if self.T == 0 or not w_ov_star_norm:
            return replace(self, target_A=None)
        return replace(self, eta0=4 * self.target_A * w_ov_star_norm**2 / self.T, target_A=None)

    def with_params(self, **params) -> "Instance":
        """The same data with other training parameters (``T``, ``T2``, ``eta0``, ``eta``, ``stage1_margin``)."""
        return replace(self, **params)

    @cached_property
    def E(self) -> np.ndarray:
        """The embeddings as a validated ``d x |V|`` matrix (canonical when None)."""
        return as_embeddings(self.embeddings, self.dataset.n_vocab)

    @property
    def d(self) -> int:
        return self.E.shape[0]

    @property
    def idealised(self) -> bool:
        """Whether stage 1 is the idealised output of Appendix C.1."""
        return self.stage1_margin is not None

    @property
    def config(self) -> TrainingConfig:
        """The :class:`~ntpcheck.transformer.training.TrainingConfig` of this instance."""
        return TrainingConfig(T=self.T, T2=self.T2, eta0=self.eta0, eta=self.eta, stage1_margin=self.stage1_margin)

    @cached_property
    def steps(self) -> tuple[float, float]:
        """``(eta_0, eta)``, the paper's Section 7 defaults where unset."""
        return self.config.step_sizes(self.d)

    @cached_property
    def key(self) -> tuple:
        """Identifies the computation: dataset text, embeddings and parameters."""
        from ntpcheck.common.textwriter import dumps

        emb = None if self.embeddings is None else self.E.tobytes()
        return (dumps(self.dataset), emb, self.T, self.T2, self.eta0, self.eta, self.stage1_margin, self.algorithm, self.target_A)

    def header(self) -> Header:
        """The text format's header of this instance (:mod:`ntpcheck.transformer.textheader`): its
        parameters with the step sizes resolved, its algorithm, its embeddings."""
        eta0, eta = self.steps
        params = {"T": self.T, "T2": self.T2, "eta0": float(eta0), "eta": float(eta), "stage1_margin": self.stage1_margin}
        return Header(params, None if self.algorithm is None else self.algorithm.name,
                      None if self.embeddings is None else self.E)

    @classmethod
    def from_header(cls, dataset: Dataset, header: Header) -> "Instance":
        """The instance a file's header gives on ``dataset`` (defaults where it is silent).

        Examples
        --------
        >>> import ntpcheck
        >>> inst = Instance(ntpcheck.loads("A B\\n"), T=7, T2=3, eta=0.5)
        >>> Instance.from_header(inst.dataset, inst.header()).key == inst.with_params(eta0=inst.steps[0]).key
        True
        """
        from .algorithms import VARIANTS

        alg = None
        if header.algorithm is not None:
            alg = next((v for v in VARIANTS if v.name == header.algorithm), None)
            if alg is None:
                raise DatasetFormatError(f"'algorithm:' {header.algorithm!r} is not a known training algorithm "
                                         f"({', '.join(v.name for v in VARIANTS)})", header.at.get("algorithm"), header.source)
        E = header.embeddings
        return cls(dataset, None if E is None or is_canonical(E) else E, algorithm=alg, **(header.params or {}))

    def __repr__(self) -> str:
        extra = []
        if self.embeddings is not None:
            extra.append(f"embeddings=<{self.E.shape[0]}x{self.E.shape[1]}>")
        extra += [f"T={self.T}", f"T2={self.T2}"] + ([f"algorithm={self.algorithm.name}"] if self.algorithm is not None else [])
        for name in ("eta0", "eta", "stage1_margin", "target_A"):
            if getattr(self, name) is not None:
                extra.append(f"{name}={getattr(self, name)!r}")
        return f"Instance({self.dataset!r}, {', '.join(extra)})"
