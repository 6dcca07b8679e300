"""Issue 32: verify and matrix on Dask give the answers of ``--workers 1``, and lose nothing.

Real components only: a ``LocalCluster`` of two worker processes (``--workers 2``); a
scheduler and two workers started here as ``dask scheduler``/``dask worker`` processes on
127.0.0.1 (``--scheduler``); a worker killed with SIGKILL mid-run; Ctrl-C (SIGINT to the
whole process group, as a terminal sends it) mid-run.  Small runs: the quick profile and a
few claims.  "Same answers" is the JSON without timings and the ``executor`` object.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # a dependency of distributed

from ntpcheck.app.cli.cli import main  # noqa: E402

CLAIMS = "Lemma 1,Lemma 3"
VERIFY = ["verify", "--claims", CLAIMS, "--profile", "quick"]
MATRIX = ["matrix", "--claims", "Lemma 3", "--profile", "quick"]
ALGORITHM = ["matrix", "--axis", "algorithm", "--claims", "Lemma 5 [trained W_ov]", "--profile", "quick"]
BIN = Path(sys.executable).parent


def identity(doc: dict) -> dict:
    """The JSON without what may differ between executors: timings and the ``executor`` object."""
    doc = {k: v for k, v in doc.items() if k != "executor"}
    for key in ("claims", "rows"):
        if key in doc:
            doc[key] = [{k: v for k, v in r.items() if k not in ("seconds", "instances_per_second")} for r in doc[key]]
    return doc


def run_json(argv: list[str], tmp_path: Path, name: str) -> dict:
    path = tmp_path / f"{name}.json"
    assert main([*argv, "--json", str(path)]) == 0
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def in_process(tmp_path_factory) -> dict:
    """The reference: every run with ``--workers 1``."""
    tmp = tmp_path_factory.mktemp("w1")
    return {name: run_json([*argv, "--workers", "1"], tmp, name)
            for name, argv in (("verify", VERIFY), ("matrix", MATRIX), ("algorithm", ALGORITHM))}


def test_local_cluster_gives_the_json_of_one_worker(in_process, tmp_path, capsys):
    """``--workers 2``: a LocalCluster of two processes; identical JSON, executor described, schema valid."""
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    for name, argv in (("verify", VERIFY), ("matrix", MATRIX)):
        doc = run_json([*argv, "--workers", "2"], tmp_path, name)
        assert identity(doc) == identity(in_process[name])
        assert doc["executor"]["kind"] == "dask-local" and doc["executor"]["workers"] == 2
        assert "executor" not in in_process[name]  # --workers 1's JSON is what it was
        schema = json.loads(resources.files("ntpcheck.app.rendering").joinpath(f"schemas/{name}.schema.json").read_text())
        jsonschema.validate(doc, schema)
    err = capsys.readouterr().err
    assert re.search(r"\[\d/2\] Lemma 3: holds \(8/8 tested/drawn, [\d.]+ s, worker tcp://127\.0\.0\.1:\d+\)", err), err


def test_sharded_thorough_run_gives_the_same_json(tmp_path, monkeypatch):
    """``--profile thorough`` splits each claim into shards: in process and on two workers alike,
    a falsified claim (Cor. 1 without pins: the search finds it) included.  Each run keeps every
    shard's seconds for the next run's placement (:mod:`ntpcheck.app.scaleout.claim_seconds`)."""
    from ntpcheck.app.scaleout.claim_seconds import load_shards

    monkeypatch.setenv("NTPCHECK_CACHE_DIR", str(tmp_path))
    argv = ["verify", "--claims", "Lemma 3,Cor. 1", "--profile", "thorough", "--no-pinned"]
    docs = {}
    for w in ("1", "2"):  # the second run places its tasks by the shard seconds the first kept
        docs[w] = doc = run_json([*argv, "--workers", w], tmp_path, f"w{w}")
        kept = load_shards("huang2024", "thorough")
        assert sorted(kept) == ["Cor. 1 [k=5]", "Lemma 3"] and all(len(s) == 4 for s in kept.values())
        assert all(abs(sum(kept[c["id"] + (f" [{c['variant']}]" if c["variant"] else "")]) - c["seconds"]) < 0.01 for c in doc["claims"])
    one, two = docs["1"], docs["2"]
    assert identity(one) == identity(two)
    assert [c["verdict"] for c in one["claims"]] == ["holds", "falsified"] and one["claims"][0]["counts"]["drawn"] == 300


class Cluster:
    """``dask scheduler --port 0`` and ``n`` ``dask worker`` processes (no nanny: one process each) on 127.0.0.1."""

    def __init__(self, n: int, cwd: Path) -> None:
        self.procs: list[subprocess.Popen] = []
        self.scheduler = self._start([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
                                     cwd, r"Scheduler at:\s+(tcp://\S+)")
        self.workers = [self._start([str(BIN / "dask"), "worker", self.scheduler, "--host", "127.0.0.1", "--nthreads", "1",
                                     "--no-nanny", "--no-dashboard", "--name", f"w{k}"], cwd, r"Registered to:")
                        for k in range(n)]

    def _start(self, argv: list[str], cwd: Path, pattern: str) -> str:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        t0 = time.monotonic()
        for line in proc.stderr:
            m = re.search(pattern, line)
            if m:
                threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe drained
                return m.group(1) if m.groups() else line
            assert time.monotonic() - t0 < 120, f"{argv[1]} did not start"
        raise AssertionError(f"{argv} ended: {proc.wait()}")

    def close(self) -> None:
        for p in self.procs:  # started here, and nothing of theirs to keep
            if p.poll() is None:
                p.kill()
            p.wait()


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(2, tmp_path)
    yield c
    c.close()


def test_remote_scheduler_gives_the_json_of_one_worker(in_process, cluster, tmp_path):
    """``--scheduler ADDRESS`` of a cluster started with the ``dask`` command: identical JSON, both axes."""
    for name, argv in (("verify", VERIFY), ("matrix", MATRIX), ("algorithm", ALGORITHM)):
        doc = run_json([*argv, "--scheduler", cluster.scheduler], tmp_path, name)
        assert identity(doc) == identity(in_process[name]), name
        assert doc["executor"] == {"kind": "dask", "workers": 2, "scheduler": cluster.scheduler}


def test_a_cluster_of_one_worker(in_process, tmp_path):
    """A cluster a user starts with one ``dask worker``: the run has no lanes to prefer, and must not ask
    Dask for ``allow_other_workers`` without ``workers`` (a ValueError traceback before)."""
    c = Cluster(1, tmp_path)
    try:
        doc = run_json([*VERIFY, "--scheduler", c.scheduler], tmp_path, "verify")
    finally:
        c.close()
    assert doc["executor"]["workers"] == 1 and identity(doc) == identity(in_process["verify"])


def test_env_scheduler_is_used(in_process, cluster, tmp_path, monkeypatch):
    monkeypatch.delenv("NTPCHECK_WORKERS", raising=False)
    monkeypatch.setenv("NTPCHECK_DASK_SCHEDULER", cluster.scheduler)
    doc = run_json(VERIFY, tmp_path, "verify")
    assert doc["executor"]["scheduler"] == cluster.scheduler and identity(doc) == identity(in_process["verify"])


def _spawn(argv: list[str], cwd: Path) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    """``python -m ntpcheck ARGV`` in its own session (so a signal can go to its whole group), stderr collected."""
    env = {k: v for k, v in os.environ.items() if k not in ("NTPCHECK_WORKERS", "NTPCHECK_DASK_SCHEDULER")}
    proc = subprocess.Popen([sys.executable, "-m", "ntpcheck", *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr))
    reader.start()
    return proc, err, reader


def _wait_for(what, limit: float = 120.0) -> None:
    t0 = time.monotonic()
    while not what():
        assert time.monotonic() - t0 < limit, "gave up waiting"
        time.sleep(0.05)


def test_a_worker_killed_mid_run_loses_nothing(cluster, tmp_path):
    """SIGKILL to a worker process while it runs a task: the task runs again on the other worker,
    the run completes with every claim, and the verdicts are those of ``--workers 1``."""
    from distributed import Client

    claims = "Lemma 1,Lemma 2,Lemma 3,Lemma 4"
    ref = run_json(["verify", "--claims", claims, "--profile", "quick", "--workers", "1"], tmp_path, "ref")
    proc, err, reader = _spawn(["verify", "--claims", claims, "--profile", "quick", "--scheduler", cluster.scheduler,
                                "--json", "out.json"], tmp_path)
    pids = {p.pid for p in cluster.procs[1:]}
    with Client(cluster.scheduler, timeout="10s") as client:
        busy: list = []

        def a_worker_is_busy() -> bool:
            busy[:] = [a for a, tasks in client.processing().items() if tasks]
            return bool(busy) or proc.poll() is not None

        _wait_for(a_worker_is_busy)
        assert proc.poll() is None, "".join(err)
        pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
    assert pid in pids
    os.kill(pid, signal.SIGKILL)
    assert proc.wait(timeout=300) == 0, "".join(err)
    reader.join()
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["complete"] is True
    assert [(c["id"], c["verdict"], c["counts"]) for c in doc["claims"]] == [(c["id"], c["verdict"], c["counts"]) for c in ref["claims"]]
    assert identity(doc) == identity(ref)


@pytest.mark.parametrize("twice", [False, True], ids=["once", "twice"])
def test_ctrl_c_with_workers_writes_the_finished_claims_and_leaves_no_process(tmp_path, twice):
    """SIGINT to the process group (a terminal's Ctrl-C) mid-run with ``--workers 2``: exit 130, the
    finished claims written (``complete: false``), no traceback, and no worker process left.
    ``twice``: the process gets it again at once, as from ``timeout -s INT`` (to the process, then
    its group) or a double press (:func:`ntpcheck.common.interrupt._handler`; before, one run in
    12 lost every finished claim)."""
    proc, err, reader = _spawn(["verify", "--profile", "quick", "--workers", "2", "--json", "out.json"], tmp_path)
    try:
        _wait_for(lambda: any(line.startswith("[1/") for line in err) or proc.poll() is not None)
        assert proc.poll() is None, "".join(err)
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= 2  # the worker processes (and multiprocessing's helper)
        sent = time.monotonic()
        if twice:
            os.kill(proc.pid, signal.SIGINT)
        os.killpg(proc.pid, signal.SIGINT)
        rc = proc.wait(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reader.join()
    text = "".join(err)
    assert rc == 130, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    assert took < 10, f"{took:.1f} s from the signal to the end"
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["complete"] is False and len(doc["claims"]) >= 1
    assert "claims finished; writing those" in text
    _wait_for(lambda: not [c for c in children if _alive(c)], limit=15)


def _alive(p) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_without_dask_the_error_names_the_extra(tmp_path):
    """Dask missing: one line naming the extra, exit 2, before any work."""
    code = ("import sys; sys.modules['distributed'] = None\n"
            "from ntpcheck.app.cli.cli import main; sys.exit(main(['verify', '--claims', 'Lemma 1', '--workers', '2']))")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == ('ntpcheck: error: --workers 2 needs Dask, an optional extra: pip install "ntpcheck[dask]" '
                                '(or use --workers 1)'), r.stderr


def test_a_port_that_accepts_and_stays_silent_is_refused_in_one_line(monkeypatch, capsys):
    """Issue 42: Dask's timeout covers the TCP connect, not its handshake; a port that accepts and never
    answers held verify forever.  Now it is one line, exit 2, within CONNECT_TIMEOUT + 5 s."""
    import socket
    import time

    from ntpcheck.app.scaleout import dask_connect
    from ntpcheck.app.cli.cli import main

    monkeypatch.setattr(dask_connect, "CONNECT_TIMEOUT", 1)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    port = server.getsockname()[1]
    t0 = time.monotonic()
    try:
        assert main(["verify", "--claims", "Ex. 1", "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    finally:
        server.close()
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err
    assert "did not answer as a Dask scheduler" in err and err.count("\n") == 1


def _lose(tmp_path, monkeypatch, which: int) -> tuple[int, str, dict]:
    """verify on a cluster of one worker; SIGKILL to ``cluster.procs[which]`` (0: the scheduler, 1: the
    worker) once the first claim finished: the exit status, stderr, and the JSON written."""
    monkeypatch.setenv("NTPCHECK_LOST_AFTER", "3")
    c = Cluster(1, tmp_path)
    try:
        proc, err, reader = _spawn(["verify", "--claims", "Lemma 1,Lemma 2,Lemma 3,Lemma 4,Lemma 6,Thm. 1", "--scheduler",
                                    c.scheduler, "--json", "out.json"], tmp_path)
        _wait_for(lambda: any(line.startswith("[1/") for line in err) or proc.poll() is not None)
        c.procs[which].kill()
        rc = proc.wait(timeout=120)
        reader.join()
    finally:
        c.close()
    return rc, "".join(err), json.loads((tmp_path / "out.json").read_text())


def test_a_cluster_that_loses_its_last_worker_ends_in_one_line_with_the_finished_claims(tmp_path, monkeypatch):
    """Issue 42: the run waited forever (killed after 134 s).  Now: LOST_AFTER seconds without a worker, exit 2,
    one line, the finished verdicts written with complete: false."""
    rc, err, doc = _lose(tmp_path, monkeypatch, 1)
    assert rc == 2 and "Traceback" not in err and "ntpcheck: error: the cluster has had no worker" in err, err
    assert doc["complete"] is False and len(doc["claims"]) >= 1


def test_a_cluster_that_loses_its_scheduler_ends_in_one_line_with_the_finished_claims(tmp_path, monkeypatch):
    """Issue 42: a FutureCancelledError traceback and no verdicts before."""
    rc, err, doc = _lose(tmp_path, monkeypatch, 0)
    assert rc == 2 and "Traceback" not in err and "ntpcheck: error: the connection to the scheduler was lost" in err, err
    assert doc["complete"] is False and len(doc["claims"]) >= 1


def test_local_workers_run_one_thread_of_everything():
    """Issue 43: each local worker runs BLAS (Dask's own setting) and numba's parallel kernels on one
    thread, so that N workers do not start N x cores threads on N cores."""
    import os

    from ntpcheck.app.scaleout.executor import open_executor

    before = os.environ.get("NUMBA_NUM_THREADS")
    with open_executor(2, None) as ex:
        found = ex.client.run(lambda: (os.environ.get("NUMBA_NUM_THREADS"), os.environ.get("OPENBLAS_NUM_THREADS")))
    assert len(found) == 2 and set(found.values()) == {("1", "1")}, found
    # not leaked into this process: numba refuses a thread count changed after its threads started
    assert os.environ.get("NUMBA_NUM_THREADS") == before


def _worker_state() -> dict:
    """What a worker process has before its first task: the papers' claims imported, one thread
    of everything, Dask's malloc trim threshold unset, and Dask's settings (:func:`.local_cluster.worker_config`)."""
    import dask

    return {"claims imported": "ntpcheck.properties.huang2024" in sys.modules,
            "threads": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")},
            "trim": os.environ.get("MALLOC_TRIM_THRESHOLD_"), "profiler": dask.config.get("distributed.worker.profile.enabled"),
            "tick": dask.config.get("distributed.admin.tick.interval"),
            "memory monitor": dask.config.get("distributed.worker.memory.monitor-interval")}


def test_local_workers_are_forked_warm_with_one_thread_each():
    """Issue 43: ``--workers N`` forks its workers from a fork server that imported the claims once
    (POSIX); each has one thread of BLAS and numba, no malloc trim threshold, no profiler, and the
    event-loop tick and memory monitor slowed (issue 43, seventh round)."""
    from ntpcheck.app.scaleout import local_cluster
    from ntpcheck.app.scaleout.executor import open_executor

    if local_cluster.start_method() != "forkserver":
        pytest.skip("no fork server on this platform: workers are spawned")
    with open_executor(2, None) as ex:
        states = list(ex.client.run(_worker_state).values())
    assert len(states) == 2
    for s in states:
        assert s == {"claims imported": True, "threads": dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"), "1"),
                     "trim": None, "profiler": False, "tick": "1s", "memory monitor": "500ms"}


def test_spawned_workers_give_the_same_json(in_process, tmp_path, monkeypatch):
    """``NTPCHECK_START_METHOD=spawn`` (fresh interpreters, as Dask's default) gives the same JSON."""
    monkeypatch.setenv("NTPCHECK_START_METHOD", "spawn")
    assert identity(run_json([*VERIFY, "--workers", "2"], tmp_path, "spawned")) == identity(in_process["verify"])
