"""The evidence a checker looks at for one instance, computed lazily and cached in one place.

For an :class:`~ntpcheck.transformer.instance.Instance` (data and parameters only), an
:class:`Evidence` gives the structure (collocation, orders, roles), the
max-margin solutions ``W*_ov`` (Eq. 2) and ``W*_kq`` (Eq. 3) and the
trajectory of Algorithm 1 with every weight kept.  Each is computed on first
use.  :func:`evidence` returns the same object for the same computation
(dataset text, embeddings, parameters) within a process, so claims that draw
the same instance do not train twice; the structure and the max-margin
solutions depend only on the dataset and embeddings and are shared by every
instance with those (a parameter map that solves Eq. (3) to choose a step
size and the check that follows solve it once).
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cached_property
from typing import Callable, TypeVar

import numpy as np

from ntpcheck.common.errors import NTPCheckError
from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.structure import Structure, analyse
from ntpcheck.transformer.training import Trajectory, train

from .instances import is_paper_instance

__all__ = ["Evidence", "evidence", "clear_cache", "in_token_coordinates", "TOKEN_COORDINATES"]

_CACHE_SIZE = 256
#: Most recently used evidence, keyed by :attr:`Instance.key`.
_CACHE: "OrderedDict[tuple, Evidence]" = OrderedDict()
#: Most recently used max-margin solutions, keyed by (dataset text, embeddings).
_SOLUTIONS: "OrderedDict[tuple, MaxMarginSolutions]" = OrderedDict()

_V = TypeVar("_V")


def _lru(cache: "OrderedDict[tuple, _V]", key: tuple, make: Callable[[], _V]) -> _V:
    """``cache[key]``, made by ``make()`` on a miss; the oldest entry goes beyond ``_CACHE_SIZE``."""
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        return hit
    value = cache[key] = make()
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


class MaxMarginSolutions:
    """The structure and the max-margin solutions of one dataset with its embeddings, computed lazily."""

    def __init__(self, dataset, E: np.ndarray):
        self.dataset, self.E = dataset, E

    @cached_property
    def structure(self) -> Structure:
        return analyse(self.dataset)

    @cached_property
    def w_ov_star(self) -> np.ndarray:
        """``W*_ov`` of Eq. (2) (closed form under Assumption 2, else the solver)."""
        from ntpcheck.transformer.maxmargin import w_ov_star

        return w_ov_star(self.structure, self.E)

    @cached_property
    def eq3(self):
        """Eq. (3) solved exactly where that applies, else by cvxpy with the polish
        (:func:`ntpcheck.transformer.maxmargin.solve_eq3_best`)."""
        from ntpcheck.transformer.maxmargin import solve_eq3_best

        return solve_eq3_best(self.structure, self.E)


class Evidence:
    """Lazily computed, cached results for one instance.

    The instance's data and parameters are available as attributes
    (``dataset``, ``E``, ``d``, ``T``, ``T2``, ``idealised``, ``key``).
    """

    def __init__(self, instance: Instance):
        self.instance = instance
        self._solutions = _lru(_SOLUTIONS, instance.key[:2], lambda: MaxMarginSolutions(instance.dataset, instance.E))

    # -- the instance's own data ------------------------------------------
    @property
    def dataset(self):
        return self.instance.dataset

    @property
    def E(self) -> np.ndarray:
        return self.instance.E

    @property
    def d(self) -> int:
        return self.instance.d

    @property
    def T(self) -> int:
        return self.instance.T

    @property
    def T2(self) -> int:
        return self.instance.T2

    @property
    def idealised(self) -> bool:
        return self.instance.idealised

    @property
    def key(self) -> tuple:
        return self.instance.key

    @property
    def eta0(self) -> float:
        """Stage-1 step size actually used (the paper's default where unset)."""
        return self.instance.steps[0]

    @property
    def eta(self) -> float:
        """Stage-2 step size actually used."""
        return self.instance.steps[1]

    # -- derived, computed once -------------------------------------------
    @property
    def structure(self) -> Structure:
        return self._solutions.structure

    @property
    def w_ov_star(self) -> np.ndarray:
        """``W*_ov`` of Eq. (2) (closed form under Assumption 2, else the solver)."""
        return self._solutions.w_ov_star

    @property
    def eq3(self):
        """Eq. (3)'s solution (:attr:`MaxMarginSolutions.eq3`)."""
        return self._solutions.eq3

    @property
    def w_kq_star(self) -> np.ndarray:
        return self.eq3.W

    @cached_property
    def trajectory(self) -> Trajectory:
        """Algorithm 1 (or the instance's ``algorithm``) with the instance's parameters, all weights kept.

        References for the alignment curves are ``W*_ov`` and ``W*_kq`` when
        they can be computed (else the curves are NaN).
        """
        refs = []
        for name in ("w_ov_star", "w_kq_star"):
            if name == "w_kq_star" and self.T2 == 0:
                refs.append(None)  # stage 2 does not run: no need to solve Eq. (3)
                continue
            try:
                refs.append(getattr(self, name))
            except NTPCheckError:
                refs.append(None)
        if self.instance.algorithm is not None:  # a variant of Algorithm 1 (the matrix's algorithm axis)
            from ntpcheck.transformer.algorithms import train_variant

            return train_variant(self.structure, self.instance.algorithm, self.instance.config, self.E, tuple(refs), keep_weights=True)
        return train(self.structure, self.instance.config, self.E, tuple(refs), keep_weights=True)

    def __repr__(self) -> str:
        return f"Evidence({self.instance!r})"


#: Compute the evidence of an instance with orthonormal embeddings in token coordinates
#: (:func:`in_token_coordinates`); tests switch it off to check the symmetry itself.
TOKEN_COORDINATES = True


def in_token_coordinates(instance: Instance) -> Instance:
    """``instance`` with orthonormal embeddings (``E^T E = I`` to 1e-12: Assumption 2) replaced
    by the canonical ones, its step sizes resolved first (the paper's defaults depend on ``d``).

    Every quantity the claims read is a function of ``E^T E`` (gradient descent from zero stays
    in the span of the embeddings), so this changes nothing in exact arithmetic.  In floating
    point it keeps the symmetries of the data exact: with a large step size, stage 1 amplifies
    the rounding of a rotated ``E`` by about ``eta_0`` per step (at ``eta_0 = 52`` a rotation
    of the embeddings moved Corollary 1's margins by a factor 2.2 after 3000 steps), while in
    token coordinates the symmetric trajectory of the exact dynamics is followed.

    Examples
    --------
    >>> import ntpcheck, numpy as np
    >>> Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))
    >>> inst = Instance(ntpcheck.loads("A -> B\\nB -> C\\n"), Q)
    >>> canon = in_token_coordinates(inst)
    >>> canon.embeddings is None, canon.steps == inst.steps
    (True, True)
    """
    if instance.embeddings is None or not TOKEN_COORDINATES:
        return instance
    from .symmetry import gram_key

    if gram_key(instance.E) is not None:
        return instance
    import dataclasses

    eta0, eta = instance.steps
    return dataclasses.replace(instance, embeddings=None, eta0=eta0, eta=eta)


def evidence(instance: Instance) -> Evidence:
    """The (cached) :class:`Evidence` of ``instance`` (in token coordinates where its embeddings
    are orthonormal: :func:`in_token_coordinates`); for another paper's instance
    (:class:`~.instances.PaperInstance`) its own ``instance.evidence()``, cached the same way."""
    if is_paper_instance(instance):
        return _lru(_CACHE, instance.key, instance.evidence)
    instance = in_token_coordinates(instance)
    return _lru(_CACHE, instance.key, lambda: Evidence(instance))


def clear_cache() -> None:
    """Forget all cached evidence and solutions."""
    _CACHE.clear()
    _SOLUTIONS.clear()
