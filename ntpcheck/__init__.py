"""ntpcheck: property-based verification of Huang, Liang & Yang (NeurIPS 2024),
*Non-asymptotic Convergence of Training Transformers for Next-token Prediction*.

Public API
----------
load(path_or_name)      a dataset from a file or a built-in name (``example1``)
loads(text), dumps(ds)  the plain text format, both ways
analyse(ds)             collocation, partial orders, roles, optimal positions
check_all(ds, E)        the assumption checks with structured violations
train(ds, config, E)    Algorithm 1 with recorded trajectories
"""

import importlib

#: Public name -> the submodule that defines it (under ``ntpcheck.common`` or ``ntpcheck.transformer``).  Loaded on first use (PEP 562), so that
#: importing ``ntpcheck`` -- as pytest does for its plugin in every project where it is
#: installed -- costs nothing until a name is used.
_LAZY = {
    **dict.fromkeys(["CONDITIONS", "CheckResult", "Violation", "check_all"], "transformer.assumptions"),
    **dict.fromkeys(["Dataset", "Sample"], "common.data"),
    **dict.fromkeys(["AssumptionViolatedError", "DatasetFormatError", "EmbeddingError", "InfeasibleProblemError",
                     "NTPCheckError", "SolverFailedError"], "common.errors"),
    **dict.fromkeys(["Role", "Structure", "analyse"], "transformer.structure"),
    **dict.fromkeys(["dumps", "load", "loads"], "transformer.textformat"),
    **dict.fromkeys(["TrainingConfig", "Trajectory", "train"], "transformer.training"),
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])


__version__ = "0.1.0"

__all__ = [
    "Dataset",
    "Sample",
    "load",
    "loads",
    "dumps",
    "analyse",
    "Structure",
    "Role",
    "check_all",
    "CheckResult",
    "Violation",
    "CONDITIONS",
    "train",
    "TrainingConfig",
    "Trajectory",
    "NTPCheckError",
    "DatasetFormatError",
    "EmbeddingError",
    "InfeasibleProblemError",
    "SolverFailedError",
    "AssumptionViolatedError",
    "__version__",
]
