"""A claim search draws the same instances for a seed whatever the process has imported.

Hypothesis mines constants from the source of local modules in ``sys.modules`` and draws
from them now and then; a sharded run inside pytest (test modules imported) and on fresh
Dask workers once counted different distinct instances of Lemma 3.  Here the same search
runs with this process's pool and with one holding every small integer and float the
strategies could draw: its outcomes must not change.
"""

from __future__ import annotations

from ntpcheck.properties.framework.reproducible import reproducible_draws
from ntpcheck.properties.framework.runner import search_claim
from ntpcheck.properties.huang2024 import PAPER


def _fingerprint(result) -> tuple:
    return (result.verdict, tuple(sorted(result.counts.items())), result.counterexample, repr(result.per_instance))


def test_a_search_does_not_depend_on_local_constants(monkeypatch):
    """Lemma 3 (drawn margins and step sizes: integers up to 200) searched with the pool of
    this process, then with a pool holding every small integer and float it could draw."""
    from hypothesis.internal.conjecture import providers

    claim = PAPER.claim("Lemma 3")
    before = _fingerprint(search_claim(claim, "quick", seed=0, pinned=False))
    pool = providers.Constants(integers=set(range(-5, 400)), floats={k / 8 for k in range(1, 80)})
    monkeypatch.setattr(providers, "_get_local_constants", lambda: pool)
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        after = _fingerprint(search_claim(claim, "quick", seed=0, pinned=False))
    finally:
        providers.CONSTANTS_CACHE.cache.clear()
    assert after == before


def test_the_pool_comes_back_after_the_outermost_block():
    from hypothesis.internal.conjecture import providers

    original = providers._get_local_constants
    with reproducible_draws():
        with reproducible_draws():
            assert providers._get_local_constants is not original
        assert providers._get_local_constants is not original
    assert providers._get_local_constants is original
