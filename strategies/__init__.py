"""Hypothesis strategies for ntpcheck (installed as ``ntpcheck.strategies``).

Public API
----------
realizable_datasets(...)   datasets satisfying Assumptions 1, 2, 3 (and prefix closure): Dataset
violating(assumption, ...) instances breaking exactly one of "1i", "1ii", "2", "3", "prefix": Instance
embeddings(n_tokens, ...)  orthonormal (Assumption 2) or non-orthonormal embeddings
training_params(...)       T, T', eta_0, eta around the paper's Section 7 choices
instances(datasets, ...)   datasets + embeddings + training parameters: Instance
searched_params(...)       the stage-1 margin A and stage 2's eta a claim quantifies over: dict

Thrampoulidis (2024), the linear model (:mod:`.linear`, :mod:`.linear_breakers`):

linear_instances(...)      data meeting every hypothesis of §3-4 by construction: LinearInstance
linear_breaking(condition) data breaking one of LINEAR_CONDITIONS: LinearInstance
sequence_sets(...)         App. C's sequences, reduced to distinct contexts: LinearInstance
step_sizes(data, above=)   GD step sizes below 1/(2L) or above it: float

This layer imports only the math core (``ntpcheck.*``) and Hypothesis.

All arguments are keyword-only and validated when the strategy is built
(``hypothesis.errors.InvalidArgument``).  Drawn datasets print in ntpcheck's
text format, so a failing example can be pasted into ``ntpcheck check``.
"""

from .breakers import BREAKABLE, GADGETS, violating
from .datasets import MAX_WEIGHT_RATIO, STEERS, realizable_datasets, token_names
from .embeddings import embeddings
from .params import instances, log_uniform, searched_params, training_params
from .linear import linear_instances, sequence_sets, step_sizes
from .linear_breakers import LINEAR_CONDITIONS, linear_breaking

__all__ = [
    "realizable_datasets",
    "violating",
    "embeddings",
    "training_params",
    "instances",
    "searched_params",
    "log_uniform",
    "BREAKABLE",
    "GADGETS",
    "token_names",
    "STEERS",
    "MAX_WEIGHT_RATIO",
    "linear_instances",
    "linear_breaking",
    "LINEAR_CONDITIONS",
    "sequence_sets",
    "step_sizes",
]
