"""Hypothesis strategies for ntpcheck (installed as ``ntpcheck.strategies``).

Public API
----------
realizable_datasets(...)   datasets satisfying Assumptions 1, 2, 3 (and prefix closure): Dataset
violating(assumption, ...) instances breaking exactly one of "1i", "1ii", "2", "3", "prefix": Instance
embeddings(n_tokens, ...)  orthonormal (Assumption 2) or non-orthonormal embeddings
training_params(...)       T, T', eta_0, eta around the paper's Section 7 choices
instances(datasets, ...)   datasets + embeddings + training parameters: Instance
searched_params(...)       the stage-1 margin A and stage 2's eta a claim quantifies over: dict

This layer imports only the math core (``ntpcheck.*``) and Hypothesis.

All arguments are keyword-only and validated when the strategy is built
(``hypothesis.errors.InvalidArgument``).  Drawn datasets print in ntpcheck's
text format, so a failing example can be pasted into ``ntpcheck check``.
"""

from .breakers import BREAKABLE, GADGETS, violating
from .datasets import MAX_WEIGHT_RATIO, STEERS, realizable_datasets, token_names
from .embeddings import embeddings
from .params import instances, log_uniform, searched_params, training_params

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
]
