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
