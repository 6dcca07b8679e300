"""How fast the command line starts, as a ratio to a bare interpreter measured in the same run (issue 43).

    pytest tests/benchmarks/test_bench_startup.py --benchmark-enable --benchmark-only

Each round is a fresh process, as in a user's shell loop or a subprocess-based test.  The reference,
``python``, is ``python -c "import sys"``; issue 43's goals are ``ntpcheck --help`` within 4x of it and
``ntpcheck check example1`` within 12x (``python -m ntpcheck`` as the command; minimum of the rounds).
``check`` on example1 runs without numba: the role and Eq. (3) kernels have numpy forms for small data
(:mod:`ntpcheck.transformer.roles`).  The normal suite runs each once as a smoke test.
"""

import subprocess
import sys

import pytest

COMMANDS = {
    "python": [sys.executable, "-c", "import sys"],
    "help": [sys.executable, "-m", "ntpcheck", "--help"],
    "check-example1": [sys.executable, "-m", "ntpcheck", "check", "example1"],
}


def _run(args: list[str]) -> None:
    assert subprocess.run(args, stdout=subprocess.DEVNULL).returncode == 0


@pytest.mark.parametrize("what", list(COMMANDS))
def test_startup(benchmark, what):
    benchmark.group = "cli: start (ratio to python)"
    args = COMMANDS[what]
    _run(args)  # warm the file cache (and numba's, were it loaded)
    benchmark.pedantic(_run, args=(args,), rounds=15 if benchmark.enabled else 1, warmup_rounds=0)


def test_check_example1_loads_no_numba_nor_networkx():
    """What keeps ``check example1`` fast: neither numba (0.7 s with its kernels) nor networkx (0.1 s)
    nor the claim framework is imported for it (an import put back at a module's top fails here)."""
    code = ("import sys; sys.argv = ['ntpcheck', 'check', 'example1']\n"
            "from ntpcheck.app.cli.cli import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(sys.argv[1:])\n"
            "print(sorted(m for m in ('numba', 'networkx', 'scipy', 'ntpcheck.properties.framework', 'hypothesis') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]", out


def test_help_loads_no_numpy():
    code = ("import sys, contextlib, io\nfrom ntpcheck.app.cli.cli import build_parser\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: build_parser().parse_args(['--help'])\n"
            "    except SystemExit: pass\n"
            "print('numpy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"
