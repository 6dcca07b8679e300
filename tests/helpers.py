"""Test helpers in the style of Hypothesis's own tests/common/debug.py."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, find, settings


def find_any(strategy, condition, *, max_examples: int = 3000):
    """Some example satisfying ``condition`` (not necessarily minimal); fails the test if none."""
    return find(
        strategy,
        condition,
        settings=settings(max_examples=max_examples, database=None, deadline=None,
                          phases=["generate", "target"], suppress_health_check=list(HealthCheck)),
        random=random.Random(0),
    )


def minimal(strategy, condition=lambda x: True, *, max_examples: int = 2000):
    """The example Hypothesis shrinks to."""
    return find(
        strategy,
        condition,
        settings=settings(max_examples=max_examples, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck)),
        random=random.Random(0),
    )
