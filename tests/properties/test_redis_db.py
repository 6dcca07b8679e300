"""Counterexamples found anywhere replay everywhere: Hypothesis's example database shared
through Redis (``RedisExampleDatabase`` multiplexed with the local directory database).

A real ``redis-server`` is started on a free loopback port by this test; the test
is skipped, with a message, when ``redis-server`` or the ``redis`` package is
absent (``.ci/run`` installs both, so CI really exercises it).
"""

import shutil
import socket
import subprocess
import time

import pytest
from hypothesis import given, settings
from hypothesis.database import DirectoryBasedExampleDatabase, MultiplexedDatabase

redis = pytest.importorskip("redis", reason="the redis package is not installed (pip install redis)")
pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None,
                                reason="redis-server is not installed (apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_server(tmp_path):
    port = _free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
    yield client
    proc.terminate()
    proc.wait(timeout=10)


def _shared_db(client, local_dir):
    from hypothesis.extra.redis import RedisExampleDatabase

    return MultiplexedDatabase(DirectoryBasedExampleDatabase(str(local_dir)), RedisExampleDatabase(client))


def _run(db, calls):
    """A property that fails for datasets with a 3-token sentence; returns the failure."""
    from ntpcheck.strategies import realizable_datasets

    @settings(database=db, max_examples=500, deadline=None, derandomize=False)
    @given(realizable_datasets(max_len=4))
    def prop(ds):
        calls.append(ds)
        assert ds.l_max < 3

    with pytest.raises(AssertionError):
        prop()


def test_counterexample_found_on_one_machine_replays_on_another(redis_server, tmp_path):
    first_calls, second_calls = [], []
    _run(_shared_db(redis_server, tmp_path / "machine1"), first_calls)
    assert redis_server.dbsize() > 0  # the failure was saved to Redis
    # A second "machine": empty local directory, same Redis -> the stored failure replays first.
    _run(_shared_db(redis_server, tmp_path / "machine2"), second_calls)
    assert second_calls[0].l_max >= 3, "the first example tried should be the shared counterexample"
    assert len(second_calls) < len(first_calls)


FALSE_CLAIM = '''
from ntpcheck.properties.framework import conjecture, inequality
from ntpcheck.strategies import realizable_datasets

@conjecture("Conj. R", data=realizable_datasets(max_vocab=4, max_len=3, max_samples=5))
def test_one_sample(ev):
    return inequality(float(ev.dataset.n_samples), 1.0, what="N <= 1")
'''


def test_plugin_profile_shares_through_redis_from_any_directory(redis_server, tmp_path):
    """``NTPCHECK_REDIS_URL`` with a run that asks for ntpcheck (here ``--ntp-profile``), from a
    directory without any conftest: the plugin's ``dev`` profile saves the failure to Redis."""
    import os
    import sys

    (tmp_path / "test_claim.py").write_text(FALSE_CLAIM)
    host, port = redis_server.connection_pool.connection_kwargs["host"], redis_server.connection_pool.connection_kwargs["port"]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env["NTPCHECK_REDIS_URL"] = f"redis://{host}:{port}/0"
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "--ntp-profile", "quick"],
                       cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 1 and "Conj. R is falsified" in r.stdout, r.stdout + r.stderr
    assert "hypothesis profile 'dev'" in r.stdout and "RedisExampleDatabase" in r.stdout, r.stdout
    assert redis_server.dbsize() > 0
