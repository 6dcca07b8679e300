"""What the checkers of Thrampoulidis (2024) look at for one instance, computed lazily, once.

:class:`LinearEvidence` gives the instance's data, ℱ (Eq. 5), compatibility
and W⋆ (Def. 1, Fn. 6), separability and the NTP-SVM ``W^mm`` (Defs. 2–3),
the entropy ℋ, and the probe matrices at which pointwise statements are
checked (seeded by the instance's ``probe`` parameter, scaled by ``scale``).
The framework caches one per instance (:func:`ntpcheck.properties.framework.evidence`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ntpcheck.common.errors import InfeasibleProblemError

from .loss import entropy
from .subspace import Compatibility, Subspace, compatibility, subspace
from .svm import Separability, SVMSolution, separability, w_mm

__all__ = ["LinearEvidence"]


class LinearEvidence:
    """Lazily computed results for one :class:`~.instance.LinearInstance`."""

    def __init__(self, instance) -> None:
        self.instance = instance

    @property
    def data(self):
        return self.instance.data

    @cached_property
    def F(self) -> Subspace:
        """ℱ (Eq. 5) and its projections."""
        return subspace(self.data)

    @cached_property
    def compat(self) -> Compatibility:
        """NTP_ℋ-compatibility (Def. 1) with its certificate."""
        return compatibility(self.data)

    @property
    def w_star(self) -> np.ndarray:
        """W⋆ (Fn. 6); raises :class:`InfeasibleProblemError` if the data are not compatible."""
        if not self.compat.compatible:
            raise InfeasibleProblemError(f"the data are not NTP_H-compatible (Def. 1): Eq. (4) has residual {self.compat.residual:.3g}")
        return self.compat.w_star

    @cached_property
    def sep(self) -> Separability:
        """NTP-separability (Def. 2) with its certificate."""
        return separability(self.data, self.F)

    @cached_property
    def svm(self) -> SVMSolution:
        """The NTP-SVM (Def. 3), exact for orthogonal contexts, else cvxpy; raises if not separable."""
        if not self.sep.separable:
            raise InfeasibleProblemError("the data are not NTP-separable (Def. 2): the NTP-SVM has no feasible point")
        return w_mm(self.data, "auto", self.F)

    @property
    def w_mm(self) -> np.ndarray:
        return self.svm.W

    @cached_property
    def entropy(self) -> float:
        """ℋ (§2)."""
        return entropy(self.data)

    @cached_property
    def rank(self) -> int:
        """The numerical rank of H̄ (singular values above 1e-10 of the largest)."""
        s = np.linalg.svd(self.data.H, compute_uv=False)
        return int(np.sum(s > 1e-10 * s[0])) if s.size and s[0] > 0 else 0

    def probe(self, k: int) -> np.ndarray:
        """The ``k``-th probe matrix (V × d): i.i.d. normal entries times the ``scale`` parameter,
        seeded by ``(probe, k)``; the same for the same instance, in every process."""
        rng = np.random.default_rng([int(self.instance.param("probe")), int(k)])
        return self.instance.param("scale") * rng.normal(size=(self.data.V, self.data.d))

    # -- the dynamics claims (ntpcheck.linear.dynamics, .regpath) -------------------------------
    @cached_property
    def references(self):
        """``W⋆``, ``W^mm`` and ℱ's basis, as the dynamics records take them."""
        from .dynamics import References

        return References(self.w_star, self.w_mm, self.F.basis)

    @property
    def gd(self):
        """GD with the instance's ``steps``, ``eta`` (× 1/(2L̄)) and ``init``, recorded with :attr:`references`."""
        return self.gd_at(1)

    def gd_at(self, factor: int = 1):
        """:attr:`gd` run ``factor`` times as many steps (the confirming runs of a limit,
        :func:`ntpcheck.properties.framework.limits.judge`); cached per factor."""
        from .dynamics import gd_step, train

        runs = self.__dict__.setdefault("_gd_runs", {})
        if factor not in runs:
            init = int(self.instance.param("init"))
            runs[factor] = train(self.data, "gd", int(factor) * int(self.instance.param("steps")),
                                 self.instance.param("eta") * gd_step(self.data), init="zero" if init == 0 else "lecun",
                                 seed=max(init - 1, 0), refs=self.references)
        return runs[factor]

    @cached_property
    def path(self):
        """The regularization path on ``B = ‖W^mm‖ · geomspace(0.5, 40, 28)``, as far as certified."""
        from .regpath import reg_path

        return reg_path(self.data, float(np.linalg.norm(self.w_mm)) * np.geomspace(0.5, 40.0, 28))

    def path_at(self, factor: int):
        """The regularization path over the decade ``B ∈ [factor B_c/10, factor B_c]``, ``B_c`` the last
        point :attr:`path` certified (``factor`` = 10, 100: the confirming runs of a limit over the last
        decade of ``B``), in extended precision (:func:`.regpath_far.reg_path_far`, 12 points a decade,
        each warm-started from the decade before); None for other factors, where ``V·d`` is too large
        (:data:`.regpath_far.MAX_ENTRIES`; a twentieth of it at 100, whose ~1000 digits cost more), or
        where the path is not certified that far.  Cached."""
        from .regpath import RegPath
        from .regpath_far import MAX_ENTRIES, reg_path_far

        runs = self.__dict__.setdefault("_path_runs", {})
        if factor not in runs:
            before = {10: lambda: self.path, 100: lambda: self.path_at(10)}.get(factor, lambda: None)()
            far = None
            if before is not None and before.points and (factor == 10 or self.data.V * self.data.d * 2 <= MAX_ENTRIES):
                B_c = before.points[-1].B
                far = reg_path_far(self.data, np.geomspace(B_c, 10 * B_c, 13)[1:], before.points[-1])
                # the decade's first point, B_c itself, from the run before
                far = None if far is None or far.stopped_at is not None else RegPath((before.points[-1],) + far.points)
            runs[factor] = far
        return runs[factor]

    def __repr__(self) -> str:
        return f"LinearEvidence({self.instance!r})"
