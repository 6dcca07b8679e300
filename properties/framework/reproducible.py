"""Draws that depend on the seed only, not on what the process has imported.

Hypothesis (6.13x and later) draws an integer, float or string, about one time in
twenty, from a pool of constants mined from the source of every *local* module in
``sys.modules`` (anything outside ``site-packages``: an editable install of ntpcheck,
the user's tests, a conftest).  The pool therefore differs between a fresh
``ntpcheck verify``, a Dask worker and a pytest process that has imported the test
modules, and the same seed draws different instances in each: the counts of a sharded
run differed between the pytest process and fresh workers (230 against 238 distinct
instances of Lemma 3).  A claim search must give the same answer for a seed
everywhere, so :func:`reproducible_draws` empties that pool while a search runs.  The
pool is a private detail of Hypothesis; where it is absent this does nothing, and
``tests/properties/test_reproducible.py`` fails if a search starts to depend on imports again.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["reproducible_draws"]

_LOCK = threading.Lock()
_DEPTH = 0
_SAVED = None


def _providers():
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the module
        return None
    if not all(hasattr(providers, a) for a in ("_get_local_constants", "Constants", "CONSTANTS_CACHE")):
        return None  # pragma: no cover - a Hypothesis without local constants
    return providers


@contextmanager
def reproducible_draws() -> Iterator[None]:
    """Within the block, Hypothesis draws no constants from local source files (re-entrant
    and thread-safe: the pool comes back when the outermost block ends).

    Examples
    --------
    >>> import random
    >>> from hypothesis import find, settings, strategies as st
    >>> def draws():
    ...     seen = []
    ...     with reproducible_draws():
    ...         try:
    ...             find(st.integers(0, 200), lambda x: seen.append(x) and False,
    ...                  settings=settings(max_examples=30, database=None), random=random.Random(0))
    ...         except Exception:
    ...             pass
    ...     return seen
    >>> draws() == draws()
    True
    """
    global _DEPTH, _SAVED
    providers = _providers()
    if providers is None:  # pragma: no cover
        yield
        return
    with _LOCK:
        if _DEPTH == 0:
            _SAVED = providers._get_local_constants
            empty = providers.Constants()
            providers._get_local_constants = lambda: empty
            providers.CONSTANTS_CACHE.cache.clear()
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0:
                providers._get_local_constants = _SAVED
                providers.CONSTANTS_CACHE.cache.clear()
