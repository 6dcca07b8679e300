"""``ntpcheck solve`` at |V| = 10,000, N = 40,000, as a user runs it: a fresh process per round.

    pytest tests/benchmarks/test_bench_solve.py --benchmark-enable --benchmark-only

The issue's target is 10 s and 2 GiB for the text and for ``--json``.  The data
is the benchmark's complete-star kind (``ntpcheck.transformer.synthetic.solver_dataset``:
one-token collocation samples and three ``[a, b, q]`` samples per query, so
N = 4 |V| exactly).  Each round starts a new process, so the time includes the
interpreter, the imports (numba, scipy, hypothesis through the paper's
formulas) and numba loading its cached kernels; the reference measured in the
same run, ``startup``, is that fixed part alone (as in
``test_bench_check.py``), so the difference is what ``solve`` itself costs.
Each process's peak resident memory (``os.wait4``'s ``ru_maxrss``, that child
only) is in ``extra_info["peak_rss_mib"]`` (``--benchmark-json``).  The normal
suite runs each once at |V| = 200 as a smoke test.
"""

import os
import subprocess
import sys

import pytest

from ntpcheck.transformer.synthetic import solver_dataset
from ntpcheck.transformer.textformat import dumps

from tests.app.test_solve import JSON
from .test_bench_check import STARTUP


def _run(args: list[str], peaks: list[int]) -> None:
    """Run ``args`` to the end and record its own peak RSS (KiB on Linux)."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    assert p.returncode == 0, args
    peaks.append(usage.ru_maxrss)


@pytest.fixture(scope="module")
def dataset_file(tmp_path_factory, request):
    n_vocab = 10_000 if request.config.getoption("benchmark_enable", False) else 200
    ds = solver_dataset("complete-star", n_vocab)
    path = tmp_path_factory.mktemp("solve") / f"complete-star{n_vocab}.txt"
    path.write_text(dumps(ds))
    return path, ds.n_vocab, ds.n_samples


@pytest.mark.parametrize("what", ["text", "json", "startup"])
def test_solve_large(benchmark, dataset_file, what):
    benchmark.group = "cli: solve at |V| = 10,000, N = 40,000"
    path, n_vocab, n_samples = dataset_file
    solve = [sys.executable, "-m", "ntpcheck", "solve", str(path)]
    args = {"text": solve, "json": solve + JSON, "startup": [sys.executable, "-c", STARTUP]}[what]
    peaks: list[int] = []
    _run(args, peaks)  # the first run may compile the kernels (once per install): not timed
    peaks.clear()
    benchmark.pedantic(_run, args=(args, peaks), rounds=5 if benchmark.enabled else 1, warmup_rounds=0)
    benchmark.extra_info.update(n_vocab=n_vocab, n_samples=n_samples, peak_rss_mib=round(max(peaks) / 1024, 1))
