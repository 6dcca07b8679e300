"""Hypothesis profiles, selected by the HYPOTHESIS_PROFILE environment variable.

* ``dev`` (default on a workstation): quick, randomised.
* ``ci`` (default when ``CI`` is set): derandomised, no deadline, 200 examples
  for the strategy-coverage tests; reproducible run to run.
* ``thorough``: many examples, for falsification campaigns.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=40, deadline=None)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_default = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))
