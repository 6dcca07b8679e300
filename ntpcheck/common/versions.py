"""Versions of ntpcheck and of every package its numbers depend on (read from the
installed distributions' metadata, so nothing heavy is imported)."""

from __future__ import annotations

import platform
from importlib import metadata

__all__ = ["package_versions", "PACKAGES", "SOLVER_PACKAGES"]

#: The packages every result depends on.
PACKAGES = ("ntpcheck", "numpy", "scipy", "cvxpy", "networkx", "hypothesis")
#: cvxpy solver name -> the distribution that provides it.
SOLVER_PACKAGES = {"CLARABEL": "clarabel", "OSQP": "osqp", "SCS": "scs", "ECOS": "ecos", "PIQP": "piqp"}


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def package_versions() -> dict:
    """``{"python": ..., "ntpcheck": ..., "numpy": ..., ..., "solvers": {name: version}}``
    (installed solvers only).

    Examples
    --------
    >>> v = package_versions()
    >>> sorted(k for k in v if k != "solvers") == sorted(("python",) + PACKAGES)
    True
    """
    out: dict = {"python": platform.python_version()}
    out.update({p: _version(p) for p in PACKAGES})
    out["solvers"] = {s: v for s, p in SOLVER_PACKAGES.items() if (v := _version(p)) is not None}
    return out
