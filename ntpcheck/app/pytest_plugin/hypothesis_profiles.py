"""ntpcheck's Hypothesis profiles and example database, for a run that asks for ntpcheck.

The profiles (their settings are those the test suite always had):

* ``dev`` (the default on a workstation): quick, randomised, no deadline;
* ``ci`` (the default when ``CI`` is set): derandomised, no deadline, no
  example database, ``print_blob``, 100 examples: reproducible run to run.
  Hypothesis registers a ``ci`` profile with these same settings itself; the
  one already registered is kept;
* ``thorough``: 2000 examples, for falsification campaigns.

``HYPOTHESIS_PROFILE=NAME`` chooses any registered profile instead.  Under
HypoFuzz (``hypothesis fuzz``) the default is ``dev`` even with ``CI`` set:
HypoFuzz refuses derandomised tests and needs an example database.

The example database of ``dev`` and ``thorough``: with
``NTPCHECK_REDIS_URL=redis://host:port/0`` set, Hypothesis's
``RedisExampleDatabase`` multiplexed with the local ``.hypothesis/examples``
directory, so a counterexample found on one machine replays on every other;
otherwise Hypothesis's own local directory database (``.hypothesis/examples``
in the current directory).  The database is made once per process, so every
test and HypoFuzz's check that each test's database is the default one see
the same object.

A name already registered (by the user's own conftest, say) is never
overwritten, and nothing here runs unless :func:`use_profiles` is called:
see :mod:`.pytest_plugin` for when the plugin calls it.
"""

from __future__ import annotations

import functools
import os
import sys

from ntpcheck.common.errors import NTPCheckError

__all__ = ["PROFILE_SETTINGS", "register_profiles", "chosen_profile", "use_profiles"]

#: The settings of each profile, without the database (added by :func:`register_profiles`).
PROFILE_SETTINGS: dict[str, dict] = {
    "dev": {"max_examples": 40, "deadline": None},
    "ci": {"max_examples": 100, "deadline": None, "derandomize": True, "database": None, "print_blob": True,
           "suppress_health_check": ("too_slow",)},
    "thorough": {"max_examples": 2000, "deadline": None, "suppress_health_check": ("too_slow",)},
}
_SHARED = ("dev", "thorough")  # the profiles that use the (Redis) example database


def register_profiles() -> None:
    """Register ``dev``, ``ci`` and ``thorough``, each unless a profile of that name exists.

    Examples
    --------
    >>> from hypothesis import settings
    >>> register_profiles()
    >>> settings.get_profile("thorough").max_examples, settings.get_profile("ci").derandomize
    (2000, True)
    """
    from hypothesis import HealthCheck, settings
    from hypothesis.errors import InvalidArgument

    shared = _shared_database(os.environ.get("NTPCHECK_REDIS_URL") or None)
    for name, values in PROFILE_SETTINGS.items():
        try:
            settings.get_profile(name)
            continue  # registered already: the user's, or Hypothesis's own `ci`
        except InvalidArgument:
            pass
        values = dict(values)
        if "suppress_health_check" in values:
            values["suppress_health_check"] = [HealthCheck[h] for h in values["suppress_health_check"]]
        if shared is not None and name in _SHARED:
            values["database"] = shared
        # on Hypothesis's defaults, not on the current profile (Hypothesis's `ci` when CI is set)
        settings.register_profile(name, parent=settings.get_profile("default"), **values)


def chosen_profile(environ=os.environ) -> str:
    """The profile a run uses: ``HYPOTHESIS_PROFILE`` if set, else ``ci`` when ``CI`` is set
    (outside HypoFuzz), else ``dev``.

    Examples
    --------
    >>> chosen_profile({}), chosen_profile({"CI": "true"}), chosen_profile({"CI": "1", "HYPOTHESIS_PROFILE": "thorough"})
    ('dev', 'ci', 'thorough')
    """
    if environ.get("HYPOTHESIS_PROFILE"):
        return environ["HYPOTHESIS_PROFILE"]
    return "ci" if environ.get("CI") and not in_hypofuzz() else "dev"


def use_profiles() -> str:
    """Register the profiles and load :func:`chosen_profile`; return its name.

    Raises :class:`~ntpcheck.common.errors.NTPCheckError` (one line) for an unknown
    ``HYPOTHESIS_PROFILE`` or an unusable ``NTPCHECK_REDIS_URL``.
    """
    from hypothesis import settings
    from hypothesis.errors import InvalidArgument

    register_profiles()
    name = chosen_profile()
    try:
        settings.load_profile(name)
    except InvalidArgument:
        raise NTPCheckError(f"HYPOTHESIS_PROFILE={name!r} is not a registered Hypothesis profile "
                            f"(ntpcheck registers {', '.join(PROFILE_SETTINGS)})") from None
    return name


def in_hypofuzz() -> bool:
    """Whether this process runs under ``hypothesis fuzz`` (HypoFuzz's main process or a worker)."""
    detection = sys.modules.get("hypofuzz.detection")  # imported by `hypothesis fuzz` itself
    return bool(detection and detection.in_hypofuzz_run())


@functools.cache
def _shared_database(url: str | None):
    """The Redis database multiplexed with the local directory, or None without a URL.

    Checked once here (a bad URL or an unreachable server is one line, before any test
    runs) and cached: HypoFuzz requires every test's database to equal the default's."""
    if url is None:
        return None
    try:
        import redis
    except ImportError:
        raise NTPCheckError("NTPCHECK_REDIS_URL is set but the redis package is not installed (pip install redis)") from None
    from hypothesis.database import DirectoryBasedExampleDatabase, MultiplexedDatabase
    from hypothesis.extra.redis import RedisExampleDatabase

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        client.ping()
    except (ValueError, redis.exceptions.RedisError) as e:
        raise NTPCheckError(f"NTPCHECK_REDIS_URL={url!r}: cannot use this Redis example database: "
                            f"{' '.join(str(e).split())}") from None
    return MultiplexedDatabase(DirectoryBasedExampleDatabase(".hypothesis/examples"), RedisExampleDatabase(client))
