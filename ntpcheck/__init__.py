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

from .assumptions import CONDITIONS, CheckResult, Violation, check_all
from .data import Dataset, Sample
from .errors import (
    AssumptionViolatedError,
    DatasetFormatError,
    EmbeddingError,
    InfeasibleProblemError,
    NTPCheckError,
    SolverFailedError,
)
from .structure import Role, Structure, analyse
from .textformat import dumps, load, loads
from .training import TrainingConfig, Trajectory, train

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
