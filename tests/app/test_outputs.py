"""Safe outputs (issue 29): nothing the user had is destroyed, and a bad output path is refused
with one line and exit 2 before any work.

The tests run as root here, where ``os.access`` says yes to everything, so the unwritable
places are real ones: ``/proc`` and a path under a regular file.
"""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest

from ntpcheck.app.cli.cli import main

QUICK = ["verify", "--claims", "Ex. 1"]  # a verify run of well under a second


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _refused(argv, capsys, *words):
    """``argv`` exits 2 with one line naming the problem, before any work (no progress line)."""
    code, out, err = _run(argv, capsys)
    assert code == 2, err
    assert err.startswith("ntpcheck: error:") and err.count("\n") == 1, err
    assert ".ntpcheck-" not in err  # never a temporary file's name
    for w in words:
        assert w in err, err
    assert not out
    return err


def test_report_into_a_non_empty_directory_is_refused_and_nothing_is_touched(tmp_path, capsys):
    paper = tmp_path / "paper"
    (paper / "figs").mkdir(parents=True)
    (paper / "notes.tex").write_text("\\section{mine}")
    (paper / "figs" / "a.png").write_bytes(b"png")
    before = sorted(p.relative_to(paper).as_posix() for p in paper.rglob("*"))
    _refused([*QUICK, "--report", paper], capsys, "--report", str(paper), "not empty", "notes.tex")
    assert sorted(p.relative_to(paper).as_posix() for p in paper.rglob("*")) == before
    assert (paper / "notes.tex").read_text() == "\\section{mine}"


def test_report_into_an_old_report_is_refused_too(tmp_path, capsys):
    """No exception for ntpcheck's own earlier report: the rule is "new or empty"."""
    rep = tmp_path / "rep"
    assert _run([*QUICK, "--report", rep], capsys)[0] == 0
    first = (rep / "report.md").read_text()
    _refused([*QUICK, "--report", rep], capsys, "not empty", "report.md")
    assert (rep / "report.md").read_text() == first


def test_report_into_a_new_or_empty_directory(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for d in (empty, tmp_path / "new" / "nested"):
        assert _run([*QUICK, "--report", d], capsys)[0] == 0
        assert (d / "report.md").exists()


def test_json_through_a_symlink_keeps_the_link(tmp_path, capsys):
    target = tmp_path / "real" / "out.json"
    target.parent.mkdir()
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "real" / "new.json")
    for path in (link, dangling):
        assert _run([*QUICK, "--json", path], capsys)[0] == 0
        assert path.is_symlink()
        assert json.loads(path.read_text())["claims"][0]["id"] == "Ex. 1"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # a replaced file keeps its permissions
    assert sorted(os.listdir(tmp_path / "real")) == ["new.json", "out.json"]


def test_json_to_dev_null_is_a_stream(capsys):
    assert _run([*QUICK, "--json", "/dev/null"], capsys)[0] == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_json_to_a_fifo_is_written_through(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        code = _run([*QUICK, "--json", fifo], capsys)[0]
    finally:
        if reader.is_alive():  # the run failed before opening the FIFO: release the reader
            with open(fifo, "wb"):
                pass
        reader.join()
    assert code == 0
    assert json.loads(got[0])["complete"] is True
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("argv, words", [
    ([*QUICK, "--json", "/proc/version"], ["--json /proc/version", "cannot write in /proc"]),
    (["matrix", "--claims", "Lemma 5", "--json", "/proc/ntpcheck.json"], ["--json /proc/ntpcheck.json"]),
    (["bench", "--sizes", "10", "--json", "/proc/ntpcheck.json"], ["--json /proc/ntpcheck.json"]),
    (["reproduce", "figure2", "--out", "/proc/sys"], ["--out /proc/sys", "cannot write"]),
    ([*QUICK, "--report", "/proc/ntpcheck-report"], ["--report /proc/ntpcheck-report", "cannot write"]),
], ids=["verify-json-proc", "matrix-json-proc", "bench-json-proc", "reproduce-out-proc", "verify-report-proc"])
def test_unwritable_places_are_refused_before_any_work(argv, words, capsys):
    _refused(argv, capsys, *words)


def test_unwritable_paths_under_a_file_and_a_symlink_into_proc(tmp_path, capsys):
    (tmp_path / "f.txt").write_text("x")
    _refused([*QUICK, "--json", tmp_path / "f.txt" / "out.json"], capsys, "is not a directory")
    link = tmp_path / "link.json"
    link.symlink_to("/proc/version")
    _refused([*QUICK, "--json", link], capsys, str(link), "/proc")
    assert link.is_symlink()


def test_a_write_that_fails_after_the_run_names_the_users_path(capsys):
    """``/dev/full`` is accepted as a stream up front; its write fails (disk full): one line, exit 2,
    naming ``/dev/full``, never a temporary file."""
    code, out, err = _run([*QUICK, "--json", "/dev/full"], capsys)
    assert code == 2 and err.strip().splitlines()[-1].startswith("ntpcheck: error: /dev/full:"), err
    assert ".ntpcheck-" not in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this platform")
def test_a_full_disk_under_the_standard_output_is_one_line_and_exit_2():
    """``ntpcheck claims > /dev/full``: the write fails while the command prints."""
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "ntpcheck", "claims"], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("ntpcheck: error:") and "No space left on device" in p.stderr


def test_a_buffer_that_cannot_be_written_at_the_end_is_one_line_and_exit_2(capsys, monkeypatch):
    """What a command printed may still be buffered when it returns (a regular file on a full disk
    takes the last few KiB only then).  The process ends without Python's teardown (issue 43,
    seventh round), which had reported that failure only as "Exception ignored" (exit 120): the
    command's own flush makes it one line and exit status 2; a pipe its reader closed keeps the
    status."""
    import errno
    import sys

    from ntpcheck.app.cli import cli

    class Full:
        def __init__(self, error):
            self.error = error

        def flush(self):
            raise self.error

    monkeypatch.setattr(sys, "stdout", Full(OSError(errno.ENOSPC, "No space left on device")))
    assert cli._flushed(0) == 2
    assert capsys.readouterr().err == "ntpcheck: error: the standard output: No space left on device\n"
    monkeypatch.setattr(sys, "stdout", Full(BrokenPipeError(errno.EPIPE, "Broken pipe")))
    assert cli._flushed(1) == 1
    monkeypatch.setattr(sys, "stdout", None)
    assert cli._flushed(0) == 0


def test_compiled_training_in_chunks_is_bit_for_bit_the_same(monkeypatch):
    """The compiled NGD loops return to Python between chunks (so Ctrl-C is seen); the
    trajectory does not depend on the chunk size."""
    import numpy as np

    import ntpcheck
    from ntpcheck.transformer import training

    ds = ntpcheck.load("example1")
    cfg = training.TrainingConfig(T=700, T2=700, stride=7)

    def run():
        t = training.train(ds, cfg)
        return t.stage1.W, t.stage1.loss, t.stage2.W, t.stage2.loss, t.stage2.norm

    whole = run()
    monkeypatch.setattr(training, "_FIRST_CHUNK", 3)
    monkeypatch.setattr(training, "_next_chunk", lambda chunk, steps, seconds: 1 + steps % 5)
    chunked = run()
    for a, b in zip(whole, chunked):
        assert np.array_equal(a, b)


def test_a_ctrl_c_lost_in_a_finaliser_is_raised_again(capsys):
    """A KeyboardInterrupt raised inside ``__del__`` is dropped by Python ("Exception ignored");
    :func:`ntpcheck.common.interrupt.check` raises it again, and nothing is printed."""
    import signal

    from ntpcheck.common import interrupt

    class Finalised:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)

    with interrupt.handling():
        obj = Finalised()
        del obj  # the handler's KeyboardInterrupt is swallowed here
        assert interrupt.requested()
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
    assert not interrupt.requested()
    assert "Exception ignored" not in capsys.readouterr().err


def test_matrix_interrupted_mid_row_prints_the_partial_row(tmp_path, capsys, monkeypatch):
    """The cells finished before Ctrl-C make a partial row ('-' for the cells not run), not a KeyError."""
    from ntpcheck.properties.framework import matrix

    real, calls = matrix.run_claim, []

    def run_claim(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(matrix, "run_claim", run_claim)
    code, out, err = _run(["matrix", "--claims", "Lemma 5 [trained W_ov]", "--profile", "quick", "--json", tmp_path / "m.json"], capsys)
    assert code == 130 and "interrupted: 2 of 5 cells finished" in err
    row = next(ln for ln in out.splitlines() if ln.startswith("Lemma 5"))
    assert row.split().count("-") == 3
    d = json.loads((tmp_path / "m.json").read_text())
    assert d["complete"] is False and len(d["rows"]) == 2


def test_a_write_removes_the_temporaries_a_killed_run_left(tmp_path, capsys):
    """Issue 42: SIGKILL skips every clean-up and left .ntpcheck-*.tmp files that nothing removed; the next
    write into that directory removes those of processes that no longer exist, and nothing else."""
    import os

    from ntpcheck.app.cli.cli import main

    stale, live, mine = ".ntpcheck-999999999-a.tmp", f".ntpcheck-{os.getpid()}-b.tmp", "notes.tmp"
    for name in (stale, live, mine):
        (tmp_path / name).write_text("x")
    assert main(["solve", "example1", "--json", str(tmp_path / "out.json")]) == 0
    assert sorted(os.listdir(tmp_path)) == sorted([live, mine, "out.json"])


def test_a_report_directory_filled_meanwhile_keeps_both_runs_files(tmp_path):
    """Issue 42: two runs given one --report DIR mixed their files; now each fills DIR in one rename,
    and the one that finds DIR filled keeps its own files beside it and says where."""
    import os

    import pytest

    from ntpcheck.common.atomic import published_directory
    from ntpcheck.common.errors import OutputPathError

    out = tmp_path / "report"
    with pytest.raises(OutputPathError, match="filled by another run meanwhile"):
        with published_directory(str(out)) as staging:
            (out / "theirs.md").write_text("the other run")  # the other run finished first
            (tmp_path / "ignored").mkdir()
            open(os.path.join(staging, "mine.md"), "w").close()
    assert sorted(os.listdir(out)) == ["theirs.md"]
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("report.ntpcheck-")]
    assert len(kept) == 1 and sorted(os.listdir(kept[0])) == ["mine.md"]


def test_a_json_directory_removed_during_the_run_is_one_line_after_the_verdicts(tmp_path, capsys, monkeypatch):
    """Issue 42: ``--json D/out.json`` with D deleted during the run exited 0 and wrote nothing; D is
    not recreated behind the user's back: the verdicts are printed, then one line naming D, exit 2."""
    import shutil

    from ntpcheck.app.rendering import render

    d = tmp_path / "D"
    d.mkdir()
    table = render.results_table

    def table_then_remove(results):
        shutil.rmtree(d)  # the user removes D while the run is finishing
        return table(results)

    monkeypatch.setattr(render, "results_table", table_then_remove)
    code, out, err = _run([*QUICK, "--json", d / "out.json"], capsys)
    assert code == 2 and "holds" in out, (out, err)
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"ntpcheck: error: {d / 'out.json'}:") and "no longer exists" in last, err
    assert not d.exists()


def test_a_report_over_the_file_size_limit_names_the_report_not_a_staging_file(tmp_path):
    """Issue 42: under ``ulimit -f 20`` a report ended in 'File too large' naming a figure in the
    staging directory; now one line names ``--report DIR`` and the file, and DIR is left as it was
    (absent)."""
    import resource
    import subprocess
    import sys

    def limit():  # 20 KiB, as `ulimit -f 20`: the report's first figure is larger
        resource.setrlimit(resource.RLIMIT_FSIZE, (20 * 1024, 20 * 1024))

    out = tmp_path / "report"
    p = subprocess.run([sys.executable, "-m", "ntpcheck.app.cli.cli", "verify", "--claims", "Lemma 1", "--workers", "1",
                        "--report", str(out)], capture_output=True, text=True, preexec_fn=limit, timeout=300)
    assert p.returncode == 2, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ntpcheck: error: {out}: could not write plots/") and "File too large" in last, p.stderr
    assert "Traceback" not in p.stderr and ".ntpcheck-" not in p.stderr and "holds" in p.stdout
    assert not out.exists() and not [q for q in tmp_path.iterdir() if q.name.startswith(".ntpcheck-")]
