"""Hypothesis profiles, selected by the HYPOTHESIS_PROFILE environment variable.

* ``dev`` (default on a workstation): quick, randomised.
* ``ci`` (default when ``CI`` is set): derandomised, no deadline, 200 examples
  for the strategy-coverage tests; reproducible run to run.
* ``thorough``: many examples, for falsification campaigns.

Shared counterexamples: with ``NTPCHECK_REDIS_URL=redis://host:port/0`` set,
the ``dev`` and ``thorough`` profiles save and replay failures through
``RedisExampleDatabase`` multiplexed with the local ``.hypothesis/examples``
directory, so a counterexample found on one machine replays on every other.
"""

import os

from hypothesis import HealthCheck, settings

def _database():
    url = os.environ.get("NTPCHECK_REDIS_URL")
    if not url:
        return None
    import redis
    from hypothesis.database import DirectoryBasedExampleDatabase, MultiplexedDatabase
    from hypothesis.extra.redis import RedisExampleDatabase

    return MultiplexedDatabase(
        DirectoryBasedExampleDatabase(".hypothesis/examples"), RedisExampleDatabase(redis.Redis.from_url(url))
    )


_shared = {"database": _database()} if os.environ.get("NTPCHECK_REDIS_URL") else {}
settings.register_profile("dev", max_examples=40, deadline=None, **_shared)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow], **_shared)

_default = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))
