"""Exceptions raised by ntpcheck.

Every error that reaches a user names the problem in one line and, where it
can, the assumption of the paper that the input violates.  The CLI turns any
:class:`NTPCheckError` into exit status 2 with that line.
"""

from __future__ import annotations

__all__ = [
    "NTPCheckError",
    "DatasetFormatError",
    "EmbeddingError",
    "InfeasibleProblemError",
    "SolverFailedError",
    "AssumptionViolatedError",
    "ResourceLimitError",
    "OutputPathError",
]


class NTPCheckError(Exception):
    """Base class of every error ntpcheck raises on bad input."""


class DatasetFormatError(NTPCheckError, ValueError):
    """A dataset text could not be parsed.

    Attributes
    ----------
    line : int or None
        1-based line number of the offending line, when there is one.
    """

    def __init__(self, message: str, line: int | None = None, source: str | None = None, column: int | None = None):
        self.line = line
        self.column = column
        self.source = source
        where = ""
        if source is not None:
            where += f"{source}:"
        if line is not None:
            where += f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        elif where:
            where += " "
        super().__init__(where + message)


class EmbeddingError(NTPCheckError, ValueError):
    """Embeddings have the wrong shape, or are not orthonormal where required (Assumption 2)."""


class InfeasibleProblemError(NTPCheckError):
    """A max-margin problem (Eq. 2 or Eq. 3) has no feasible point."""


class SolverFailedError(NTPCheckError):
    """A numerical solver did not return a usable solution."""


class AssumptionViolatedError(NTPCheckError):
    """An operation needs an assumption of the paper that the dataset violates."""


class ResourceLimitError(DatasetFormatError):
    """A dataset text is larger than ntpcheck's documented limits (refused before anything is
    built); located by file and line like any :class:`DatasetFormatError`."""


class OutputPathError(NTPCheckError):
    """An output path cannot be written (checked before any work is done)."""
