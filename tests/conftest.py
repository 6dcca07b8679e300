"""ntpcheck's Hypothesis profiles for this suite, from the plugin
(:func:`ntpcheck.app.pytest_plugin.pytest_plugin.use_profiles_unless_chosen`, the same
profiles and database that ``pytest --ntpcheck`` uses from any directory):

* ``dev`` (default on a workstation): quick, randomised.
* ``ci`` (default when ``CI`` is set): derandomised, no deadline, no example
  database; reproducible run to run.
* ``thorough``: many examples, for falsification campaigns.

``HYPOTHESIS_PROFILE`` chooses another.  With ``NTPCHECK_REDIS_URL=redis://host:port/0``
set, ``dev`` and ``thorough`` save and replay failures through
``RedisExampleDatabase`` multiplexed with the local ``.hypothesis/examples``
directory, so a counterexample found on one machine replays on every other.

``NTPCHECK_WORKERS=1`` (unless set): ``ntpcheck verify``/``matrix`` run in process here.
``NTPCHECK_CACHE_DIR`` (unless set): a new temporary folder, so that the suite's runs never read
or change the claim-seconds estimates of the user's own runs (``~/.cache/ntpcheck``).
"""

import os
import tempfile

import pytest

from ntpcheck.app.pytest_plugin.pytest_plugin import use_profiles_unless_chosen


def pytest_configure(config: pytest.Config) -> None:
    use_profiles_unless_chosen(config)
    # `verify` and `matrix` default to a worker process per core (issue 32); the suite runs them in
    # process unless a test passes --workers or --scheduler (tests/app/test_dask.py), so that runs in
    # parallel (pytest -n 2) do not each start a cluster.
    os.environ.setdefault("NTPCHECK_WORKERS", "1")
    os.environ.setdefault("NTPCHECK_CACHE_DIR", tempfile.mkdtemp(prefix="ntpcheck-tests-"))
