"""Where numba keeps its compiled kernels when the install cannot (a shared, read-only install).

numba caches a ``cache=True`` function next to its source (``__pycache__``) or, where that is not
writable, in the user's cache directory; where neither is (a service account with
``HOME=/nonexistent`` on a cluster's shared Python), it raises ``RuntimeError: cannot cache
function ...: no locator available`` when the function is defined.  :func:`ensure_cache_dir`
points ``NUMBA_CACHE_DIR`` at a private folder under the system's temporary directory in that case
only (an explicit ``NUMBA_CACHE_DIR`` always wins).  Called before numba is imported by
:mod:`ntpcheck.transformer.kernels` and :mod:`ntpcheck.linear._loops`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

__all__ = ["ensure_cache_dir"]


def _writable(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (created if missing); tried, not inferred from modes
    (root passes every mode check)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def ensure_cache_dir() -> str | None:
    """Set ``NUMBA_CACHE_DIR`` to ``<tmp>/ntpcheck-numba-<uid>`` where neither the installed package's
    ``__pycache__`` nor ``~/.cache`` is writable; the folder set, or None where nothing was needed."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    if _writable(Path(__file__).resolve().parent.parent / "transformer" / "kernels" / "__pycache__"):
        return None
    home = os.environ.get("HOME", "")
    if home and home != "/nonexistent" and _writable(Path(home).expanduser() / ".cache"):
        return None
    folder = Path(tempfile.gettempdir()) / f"ntpcheck-numba-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:   # numba already imported: it read its configuration then
        config.CACHE_DIR = str(folder)
    return str(folder)
