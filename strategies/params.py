"""Strategies for the parameters of Algorithm 1 and for complete instances."""

from __future__ import annotations

import math

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.training import TrainingConfig

from ._validation import check_bounds, check_choice, check_int

__all__ = ["training_params", "instances", "log_uniform", "searched_params"]


def _check_eta(name: str, lo: float, hi: float) -> None:
    for v in (lo, hi):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise InvalidArgument(f"{name} bounds must be finite and > 0, got {v!r}")
    if lo > hi:
        raise InvalidArgument(f"min_{name}={lo!r} must not exceed max_{name}={hi!r}")


def training_params(
    *,
    min_T: int = 1,
    max_T: int = 900,
    min_T2: int = 1,
    max_T2: int = 900,
    min_eta0: float = 0.02,
    max_eta0: float = 0.3,
    min_eta: float = 0.005,
    max_eta: float = 0.1,
) -> st.SearchStrategy[TrainingConfig]:
    """:class:`~ntpcheck.TrainingConfig` values with ``T, T', eta_0, eta`` in the given ranges.

    The default ranges bracket the paper's Section 7 choices
    (``0.2/sqrt(d)`` and ``0.05/sqrt(d)`` for ``d`` from 1 to 20, 900 steps).
    The paper's defaults themselves (``eta0 = eta = None``) are drawn often.
    Shrinks towards the smallest step counts and the paper's step sizes.
    """
    check_int("min_T", min_T, 0)
    check_int("max_T", max_T, 0)
    check_bounds("min_T", min_T, "max_T", max_T)
    check_int("min_T2", min_T2, 0)
    check_int("max_T2", max_T2, 0)
    check_bounds("min_T2", min_T2, "max_T2", max_T2)
    _check_eta("eta0", min_eta0, max_eta0)
    _check_eta("eta", min_eta, max_eta)
    return st.builds(
        TrainingConfig,
        T=st.integers(min_T, max_T),
        T2=st.integers(min_T2, max_T2),
        eta0=st.one_of(st.none(), st.floats(min_eta0, max_eta0)),
        eta=st.one_of(st.none(), st.floats(min_eta, max_eta)),
    )


def instances(
    datasets: st.SearchStrategy,
    params: st.SearchStrategy[TrainingConfig] | TrainingConfig | None = None,
    *,
    embeddings: str = "canonical",
) -> st.SearchStrategy[Instance]:
    """:class:`~ntpcheck.transformer.instance.Instance` objects: datasets with embeddings and training parameters.

    Parameters
    ----------
    datasets : SearchStrategy of Dataset (or of Instance, whose embeddings are kept)
    params : SearchStrategy of TrainingConfig, TrainingConfig, or None
        Drawn parameters (default :func:`training_params`), or one fixed
        configuration (``TrainingConfig()`` is the paper's Section 7 choice).
    embeddings : {"canonical", "orthonormal"}
        ``"orthonormal"`` draws random orthonormal embeddings (Assumption 2,
        ``d`` in ``[|V|, |V| + 2]``) for each dataset.

    Shrinks as the datasets and parameters do; orthonormal embeddings shrink
    towards ``d = |V|``.
    """
    check_choice("embeddings", embeddings, ("canonical", "orthonormal"))
    if embeddings == "orthonormal":
        from .embeddings import orthonormal_matrices

        def _with_embeddings(d):
            ds = d.dataset if isinstance(d, Instance) else d
            return orthonormal_matrices(ds.n_vocab).map(lambda E: Instance(ds, E))

        datasets = datasets.flatmap(_with_embeddings)

    def combine(d, cfg: TrainingConfig) -> Instance:
        ds, E = (d.dataset, d.embeddings) if isinstance(d, Instance) else (d, None)
        return Instance(ds, E, T=cfg.T, T2=cfg.T2, eta0=cfg.eta0, eta=cfg.eta, stage1_margin=cfg.stage1_margin)

    if isinstance(params, TrainingConfig):
        fixed = params
        return datasets.map(lambda d: combine(d, fixed))
    params = training_params() if params is None else params
    return st.tuples(datasets, params).map(lambda args: combine(*args))


def log_uniform(lo: float, hi: float, *, steps: int = 200) -> st.SearchStrategy[float]:
    """Values ``lo (hi/lo)^(k/steps)`` for ``k`` in ``[0, steps]``: log-uniform on a grid
    (exact, so printed values replay), shrinking towards ``lo``."""
    _check_eta("value", lo, hi)
    return st.integers(0, steps).map(lambda k: float(lo * (hi / lo) ** (k / steps)))


def searched_params(
    *,
    min_A: float = 0.1,
    max_A: float = 30.0,
    min_eta: float | None = 0.005,
    max_eta: float | None = 1.0,
) -> st.SearchStrategy[dict]:
    """Training parameters a claim quantifies over, drawn within its hypotheses:
    ``{"target_A": A, "eta": eta}``.

    ``A = T eta_0 / (4 ||W*_ov||^2)`` is the stage-1 margin (how sharp the frozen
    ``W_ov`` makes the output softmax), drawn log-uniformly in ``[min_A, max_A]``;
    a claim's setup turns it into ``eta_0`` once ``||W*_ov||`` is known
    (:meth:`ntpcheck.transformer.instance.Instance.with_margin`).  ``eta`` (stage 2) is drawn
    log-uniformly in ``[min_eta, max_eta]`` (None: the claim fixes it).
    Each is None (the paper's Section 7 choice) about half of the time, and
    shrinks to None: minimal examples keep today's defaults.
    """
    _check_eta("A", min_A, max_A)
    eta = st.none()
    if min_eta is not None or max_eta is not None:
        if min_eta is None or max_eta is None:
            raise InvalidArgument("give both min_eta and max_eta, or neither")
        eta = st.one_of(st.none(), log_uniform(min_eta, max_eta))
    return st.fixed_dictionaries({"target_A": st.one_of(st.none(), log_uniform(min_A, max_A)), "eta": eta})
