"""Option combinations of the ``ntpcheck`` command line, checked before any work.

argparse checks each option alone; this module checks them together.  An
option that the chosen mode would ignore is refused (exit 2, one line), so a
user never believes a setting took effect when it did not: ``verify
--dataset`` with ``--profile`` or ``--no-pinned`` (one given dataset is
checked, nothing is searched), ``--seed`` or ``--dim`` without ``--embeddings
orthonormal`` where they would seed embeddings (``check``, ``solve``,
``train``, ``verify --dataset``: the other embeddings are not random), and
``reproduce algorithms --trials`` (only Figure 2 has trials), ``--workers`` with
``--scheduler`` or ``verify --dataset``, and ``campaign --summary`` with the options
of a campaign's run (its file holds them); ``train
--idealised --T 0`` (the idealised stage-1 margin is 0) is refused too.  Options that
do nothing for the values given (``train --eta`` with ``--T2 0``) get a
one-line warning.  To tell "not given" from "given the default", these
options default to None in the parser and get their documented default here.

Every output path (``--json``, ``--npz``, ``--report``, ``--out``) is checked
here, once, before any work (:func:`.output.check_output_file`,
:func:`.output.check_output_dir`): an output file that is one of the
command's input files is refused (writing it would destroy the input), and
``--report`` takes only a new or empty directory.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys

from ntpcheck.common.errors import NTPCheckError, OutputPathError

__all__ = ["ascii_safe_streams", "check_options", "DEFAULTS"]

#: The documented defaults of the options that default to None in the parser.
DEFAULTS = {"seed": 0, "pinned": True, "trials": 20, "sizes": [10, 100, 400, 2000], "cvxpy_max": 400}


def ascii_safe_streams() -> None:
    """Let standard output and error print any text on any terminal: a character the
    stream's encoding lacks (``§`` under ``PYTHONIOENCODING=ascii``) is written as
    ``\\xa7`` instead of ending the run with :class:`UnicodeEncodeError`."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def _warn(message: str) -> None:
    print(f"ntpcheck: warning: {message}", file=sys.stderr)


def _refuse_ignored(args: argparse.Namespace) -> None:
    """Raise :class:`NTPCheckError` for an option the command's mode would ignore."""
    given = lambda name: getattr(args, name, None) is not None  # noqa: E731 - the parser's None: not given
    searching = args.command in ("verify", "matrix") and not getattr(args, "dataset", None)  # --seed: the search's
    if not searching and getattr(args, "embeddings", "orthonormal") != "orthonormal":
        for name in ("dim", "seed"):
            if given(name):
                raise NTPCheckError(f"--{name} only applies to --embeddings orthonormal (the random embeddings), "
                                    f"not to --embeddings {args.embeddings}")
    if getattr(args, "dataset", None) and args.command == "verify":
        for name, option in (("profile", "--profile"), ("pinned", "--no-pinned")):  # --seed: of orthonormal embeddings
            if given(name):
                raise NTPCheckError(f"{option} does not apply to verify --dataset, which checks the one dataset given "
                                    "and searches nothing; drop it, or drop --dataset to search")
    if args.command == "train" and args.idealised and args.T == 0:
        raise NTPCheckError("--idealised needs --T >= 1: it replaces stage 1's output by A W*_ov with "
                            "A = T eta0/(4||W*_ov||^2), which is 0 at --T 0")
    if args.command == "campaign" and (args.minutes is None) == (args.summary is None):
        raise NTPCheckError("campaign needs --minutes M (draw) or --summary FILE (aggregate), and not both")
    if args.command == "campaign" and not args.summary and given("json_path"):
        raise NTPCheckError("--json only applies to campaign --summary (a campaign writes its batches to --file)")
    if args.command == "campaign" and not args.summary and args.file is None:
        args.file = "campaign.jsonl"
    if args.command == "campaign" and args.summary:
        for name in ("claims", "profile", "seed", "pinned", "workers", "scheduler", "file"):
            if given(name):
                raise NTPCheckError(f"--{name.replace('pinned', 'no-pinned')} does not apply to campaign --summary, which reads "
                                    "the settings of the campaign from its file")
    if args.command == "bench" and args.linear:
        for name in ("sizes", "cvxpy_max"):
            if given(name):
                raise NTPCheckError(f"--{name.replace('_', '-')} does not apply to bench --linear, which times the three "
                                    "sizes of issue 43 (d/m/V = 6/4/6, 25/20/10, 60/50/10)")
    if args.command == "reproduce" and args.figure != "figure2" and given("trials"):
        raise NTPCheckError(f"--trials only applies to reproduce figure2, not to reproduce {args.figure}")
    if args.command == "reproduce" and args.figure != "linear-fig345" and given("embeddings_reading"):
        raise NTPCheckError(f"--embeddings-reading only applies to reproduce linear-fig345, not to reproduce {args.figure}")


def _executor(args: argparse.Namespace) -> None:
    """Fill in ``--workers`` and ``--scheduler`` (their environment variables, then all cores), refusing
    ``--workers`` with ``--scheduler`` (the cluster has its own) and either with ``verify --dataset``."""
    if not hasattr(args, "workers"):
        return
    if getattr(args, "dataset", None):
        for option in ("workers", "scheduler"):
            if getattr(args, option) is not None:
                raise NTPCheckError(f"--{option} does not apply to verify --dataset, which checks one dataset in this process")
        args.workers, args.scheduler = 1, None
        return
    if args.workers is not None and args.scheduler is not None:
        raise NTPCheckError("--workers and --scheduler exclude each other: the cluster at --scheduler has its own workers")
    option = "--scheduler"
    if args.scheduler is None and args.workers is None and os.environ.get("NTPCHECK_DASK_SCHEDULER"):
        args.scheduler, option = os.environ["NTPCHECK_DASK_SCHEDULER"], "NTPCHECK_DASK_SCHEDULER"
    if args.scheduler is not None:
        from ntpcheck.app.scaleout.executor import check_address

        check_address(args.scheduler, option)
    else:
        given = "--workers" if args.workers is not None else "NTPCHECK_WORKERS"
        if args.workers is None:
            args.workers = _default_workers()
        most = max_workers()
        if args.workers > most:  # each worker is a process with its own imports: ~0.3 GB apiece
            raise NTPCheckError(f"{given} {args.workers}: at most {most} worker processes on this machine "
                                f"(4 per core); a cluster's workers are given with --scheduler")


def max_workers() -> int:
    """The most local worker processes ntpcheck starts: 4 per core (each imports numpy, numba and
    the claims, about 0.3 GB; 10^9 of them ran out of memory after 52 s, issue 42)."""
    return 4 * (os.cpu_count() or 1)


def _default_workers() -> int:
    """``NTPCHECK_WORKERS`` if set (an integer >= 1, ASCII digits), else the number of cores."""
    text = os.environ.get("NTPCHECK_WORKERS")
    if not text:
        return os.cpu_count() or 1
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or int(digits) < 1:  # '²'.isdigit() is True
        raise NTPCheckError(f"NTPCHECK_WORKERS={text!r}: must be an integer >= 1")
    return int(digits)


def _warn_inert(args: argparse.Namespace) -> None:
    """One warning line per option that does nothing for the values given."""
    if args.command != "train":
        return
    if args.eta is not None and args.T2 == 0:
        _warn("--eta has no effect with --T2 0 (no stage-2 step is taken)")
    if args.eta0 is not None and args.T == 0 and not args.idealised:
        _warn("--eta0 has no effect with --T 0 (no stage-1 step is taken)")


def _inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The command's input files that exist, as ``(what, path)`` (a built-in dataset name is not a file)."""
    names = [("dataset", getattr(args, "dataset", None)), ("embeddings", getattr(args, "embeddings", None)),
             ("campaign", getattr(args, "summary", None))]
    return [(what, n) for what, n in names if n and os.path.isfile(n)]


#: Every output file option: (option, attribute of the parsed arguments).
_OUTPUT_FILES = (("--json", "json_path"), ("--npz", "npz"), ("--file", "file"))  # --file: campaign's, appended to
#: Every output directory option: (option, attribute, whether it must be new or empty).
_OUTPUT_DIRS = (("--report", "report", True), ("--figures", "figures", True), ("--instances", "instances", True),
                ("--out", "out", False))  # --out: figures beside what is there


def _check_output_paths(args: argparse.Namespace) -> None:
    """Every output path of the command, once, before any work: writable (a real probe,
    :func:`.output.check_output_file`, :func:`.output.check_output_dir`), and no output file
    is one of the command's input files."""
    from ntpcheck.app.rendering.output import check_output_dir, check_output_file  # numpy and orjson: not loaded for `ntpcheck --help`

    if getattr(args, "npz", None) == "-":
        raise OutputPathError("--npz -: the .npz file needs a path (it is binary; standard output takes the text or JSON)")
    files = [(option, getattr(args, name, None)) for option, name in _OUTPUT_FILES]
    files = [(option, path) for option, path in files if path and path != "-"]
    for option, path in files:
        if path.endswith(("/", os.sep)) or os.path.basename(path) in (".", ".."):
            raise OutputPathError(f"{option} {path}: names a directory; give a file name")
    for (o1, p1), (o2, p2) in itertools.combinations(files, 2):
        if os.path.realpath(p1) == os.path.realpath(p2):
            raise OutputPathError(f"{o2} {p2}: is {o1}'s file too; each output needs its own path")
    for option, name, empty in _OUTPUT_DIRS:
        directory = getattr(args, name, None)
        for o, path in files if directory and empty else ():
            if os.path.realpath(path).startswith(os.path.realpath(directory).rstrip(os.sep) + os.sep):
                raise OutputPathError(f"{o} {path}: is inside {option} {directory}, which must be new or empty; write it elsewhere")
    for option, name in _OUTPUT_FILES:
        path = getattr(args, name, None)
        check_output_file(path, option)
        if path and path != "-" and os.path.exists(path):
            for what, source in _inputs(args):
                if os.path.samefile(path, source):
                    raise OutputPathError(f"{option} {path}: is the {what} file {source}; writing it would destroy it")
    for option, name, empty in _OUTPUT_DIRS:
        check_output_dir(getattr(args, name, None), option, empty=empty)
    dirs = [(option, getattr(args, name, None)) for option, name, empty in _OUTPUT_DIRS if empty]
    for (o1, d1), (o2, d2) in itertools.combinations([(o, d) for o, d in dirs if d], 2):
        if os.path.realpath(d1) == os.path.realpath(d2):
            raise OutputPathError(f"{o2} {d2}: is {o1}'s directory too; give each its own")


def check_options(args: argparse.Namespace) -> None:
    """Refuse ignored options, warn about inert ones, check the ``--json`` path, and fill
    in the defaults of the options that the parser leaves at None."""
    _refuse_ignored(args)
    _executor(args)
    _warn_inert(args)
    _check_output_paths(args)
    for name, value in DEFAULTS.items():
        if getattr(args, name, False) is None:
            setattr(args, name, value)
    if getattr(args, "profile", False) is None:
        args.profile = args.default_profile
