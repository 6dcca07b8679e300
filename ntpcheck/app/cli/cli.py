"""The ``ntpcheck`` command line.

Commands: ``check``, ``solve``, ``train``, ``verify``, ``matrix``,
``claims``, ``papers``, ``new-paper``, ``reproduce``, ``bench``.  Readable text by default;
``--json PATH`` also writes JSON to PATH, ``--json -`` writes only JSON to
standard output (the text goes to stderr or is left out).  Exit status 0 on
success, 1 when ``check`` finds an assumption failing (or ``verify --strict``
a claim falsified), 2 on bad input with a one-line reason on stderr
(``ntpcheck: error: ...``), before any long work.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ntpcheck.common import interrupt
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.common.interrupt import INTERRUPTED

from .argtypes import at_least as _at_least, dim as _dim, non_negative_int as _non_negative_int, steps as _steps, positive_float as _positive_float, seed as _seed, vocab_sizes as _vocab_sizes
from .options import ascii_safe_streams, check_options

# numpy, the claims and the renderers are imported by the commands that use them: `ntpcheck --help`
# and a command refused for a bad option start at once (issue 43).

__all__ = ["main", "build_parser"]

#: The conditions whose failure makes ``check`` exit 1: the paper's Assumptions 1-3.
ASSUMPTIONS = ("1i", "1ii", "2", "3")


class _Profiles:
    """The names of :data:`ntpcheck.properties.framework.PROFILES` as argparse ``choices``, read when
    first asked (the claim framework loads numpy: not for ``ntpcheck --help``)."""

    def _names(self) -> list[str]:
        from ntpcheck.properties.framework import PROFILES

        return list(PROFILES)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self):
        return iter(self._names())


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"ntpcheck: error: {message}\n")


def _add_dataset(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="a dataset file, or a built-in name (example1)")
    _add_embeddings(p)
    p.add_argument("--seed", type=_seed, default=None, help="seed of --embeddings orthonormal (default 0)")
    _add_json(p)


def _add_json(p: argparse.ArgumentParser, what: str = "") -> None:
    p.add_argument("--json", dest="json_path", default=None, metavar="PATH",
                   help=f"also write {what}JSON to PATH ('-': only JSON, on standard output)")


def _add_embeddings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--embeddings", default=None,
                   help="canonical, orthonormal (random, see --dim/--seed), or a text file with a d x |V| matrix "
                        "(default: the dataset file's header's, else canonical)")
    p.add_argument("--dim", type=_dim, default=None, help="d for --embeddings orthonormal (default |V|)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ntpcheck", description=__doc__.splitlines()[0])
    from ntpcheck import __version__

    parser.add_argument("--version", action="version", version=f"ntpcheck {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("check", help="collocation, partial orders, roles and assumption checks; exit 1 if "
                                     "Assumption 1(i), 1(ii), 2 or 3 fails (prefix closure is reported, not counted)")
    _add_dataset(p)

    p = sub.add_parser("solve", help="max-margin solutions W*_ov (Eq. 2) and W*_kq (Eq. 3)")
    _add_dataset(p)
    p.add_argument("--solver", default=None,
                   help="exact (default where Assumption 2 holds) or a cvxpy solver name (default otherwise: CLARABEL)")
    p.add_argument("--dense", action="store_true", help="list every entry of the matrices (default: only those not 0, "
                                                        "or not their column's fill)")
    p.add_argument("--npz", default=None, metavar="PATH", help="also write W*_ov, W*_kq, Prop. 2's matrix, the vocabulary "
                                                                "and the queries to PATH as numpy .npz")

    p = sub.add_parser("train", help="run Algorithm 1 (two-stage normalized GD)")
    _add_dataset(p)
    p.add_argument("--T", type=_steps, default=900, help="stage-1 steps (default 900, at most 10^9)")
    p.add_argument("--T2", type=_steps, default=900, help="stage-2 steps (default 900, at most 10^9)")
    p.add_argument("--eta0", type=_positive_float, default=None, help="stage-1 step (default 0.2/sqrt(d))")
    p.add_argument("--eta", type=_positive_float, default=None, help="stage-2 step (default 0.05/sqrt(d))")
    p.add_argument("--idealised", action="store_true", help="replace the stage-1 output by A W*_ov (Appendix C.1)")
    p.add_argument("--predict", action="append", default=[], metavar="SENTENCE", help='e.g. --predict "S P" (repeatable)')

    p = sub.add_parser("verify", help="check the paper's claims (the main job)")
    _add_claim_run(p, default_profile="default")
    p.add_argument("--strict", action="store_true", help="exit 1 if any claim is falsified")
    p.add_argument("--dataset", default=None, metavar="FILE",
                   help="check every claim on this one dataset (or built-in name) instead of searching; where it breaks "
                        "a claim's assumption the verdict is outside-hypotheses and conclusion_holds says whether the conclusion held; "
                        "a header's parameters, algorithm and embeddings (a printed counterexample's) are used as given")
    _add_embeddings(p)
    p.add_argument("--report", default=None, metavar="DIR", help="write a Markdown report with plots to DIR")
    p.add_argument("--figures", default=None, metavar="DIR",
                   help="write each claim's figure (the report's, as a small PNG) and an index.json of captions to DIR "
                        "(new or empty)")
    p.add_argument("--instances", default=None, metavar="DIR",
                   help="write every distinct tested instance of every claim to DIR (one replayable file each, with its "
                        "verdict and slack, and an index.jsonl): what each verdict rests on")

    p = sub.add_parser("reproduce", help="reproduce the paper's figures (figure2), or compare training algorithms (algorithms)")
    p.add_argument("figure", choices=["figure2", "algorithms", "linear-fig12", "linear-fig345"],
                   help="figure2: Section 7's Figure 2 with the bounds; algorithms: each variant of Algorithm 1's alignment "
                        "to the Frobenius and nuclear-norm max-margin directions; linear-fig12, linear-fig345: "
                        "Thrampoulidis (2024) Figs. 1-2 and 3-5")
    p.add_argument("--embeddings-reading", dest="embeddings_reading", choices=["gaussian", "unit", "standard"], default=None,
                   help="linear-fig345: the embeddings, unspecified by the paper: N(0, I/d) (default), unit-norm, N(0, I)")
    p.add_argument("--out", default=".", help="output directory (default: current)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the figure's files where --out has them already (without it such a run is refused)")
    p.add_argument("--seed", type=_seed, default=None, help="seed of the random datasets (default 0)")
    p.add_argument("--trials", type=_at_least(1), default=None, help="figure2: trials for the test-loss panel (default 20)")

    p = sub.add_parser("bench", help="max-margin solver benchmark (exact vs cvxpy solvers)")
    p.add_argument("--sizes", type=_vocab_sizes, default=None, help="comma-separated |V| values, each at least 8 (default 10,100,400,2000)")
    p.add_argument("--repeat", type=_at_least(1), default=3, help="runs per method (best is kept)")
    p.add_argument("--cvxpy-max", type=_non_negative_int, default=None, help="largest |V| given to the cvxpy solvers (default 400)")
    p.add_argument("--linear", action="store_true", help="instead: the linear model's NTP-SVM W^mm (Thrampoulidis 2024, Def. 3) "
                                                         "against one vectorised cvxpy solve, at d/m/V = 6/4/6, 25/20/10, 60/50/10")
    _add_json(p, "the timings as ")

    p = sub.add_parser("matrix", help="assumption-necessity matrix (each claim on data breaking one condition), or "
                                      "with --axis algorithm each claim under each training algorithm")
    _add_claim_run(p, default_profile="default")
    p.add_argument("--axis", choices=["assumption", "algorithm"], default="assumption",
                   help="assumption (default): drop one condition per column; algorithm: train with one variant of "
                        "Algorithm 1 per column, on data meeting every assumption")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="write the matrix as a heatmap (matrix.png) with each falsified cell's counterexample, as report.md "
                        "and a self-contained report.html, to DIR (new or empty)")

    p = sub.add_parser("campaign", help="draw for every claim and matrix cell until the time is up, appending each batch to a "
                                        "JSON-lines file and resuming from it; --summary FILE aggregates it")
    _add_claim_run(p, default_profile="default")
    p.add_argument("--minutes", type=_positive_float, default=None, metavar="M", help="how long to draw (a batch running then is cancelled)")
    p.add_argument("--file", default=None, metavar="PATH", help="the JSON-lines file batches are appended to and resumed "
                                                                            "from (default campaign.jsonl)")
    p.add_argument("--summary", default=None, metavar="FILE", help="aggregate the campaign in FILE into the verify and matrix "
                                                                   "tables (and --json) instead of drawing")

    sub.add_parser("papers", help="the papers whose claims ntpcheck checks, with their claim counts")

    p = sub.add_parser("new-paper", help="write the skeleton of a paper package (a plugin, entry-point group "
                                         "ntpcheck.papers) to start from")
    p.add_argument("name", help="the paper's name on the command line: a lowercase letter, then lowercase letters, "
                                "digits or _ (e.g. smith2025)")
    p.add_argument("dir", help="the directory to write it to (new or empty)")

    p = sub.add_parser("claims", help="every claim and reading: id, name, test id, section, assumptions, statement")
    p.add_argument("--paper", default=None, help="only this paper's claims (default: every paper of `ntpcheck papers`)")
    _add_json(p)
    return parser


def _add_claim_run(p: argparse.ArgumentParser, default_profile: str) -> None:
    """Options shared by the commands that run claims (verify, matrix)."""
    from ntpcheck.properties import DEFAULT_PAPER

    p.add_argument("--paper", default=DEFAULT_PAPER, help=f"which paper's claims (default {DEFAULT_PAPER}; see `ntpcheck papers`)")
    p.add_argument("--claims", default=None, metavar="NAMES",
                   help="comma-separated claims by id, full name or test id, e.g. 'cor1,Ex. 1,prop2-a12' "
                        "(case, spaces and dots ignored; see `ntpcheck claims`; default: all)")
    p.add_argument("--profile", choices=_Profiles(), default=None, metavar="PROFILE",
                   help=f"search effort: instances drawn per claim, %(choices)s (default {default_profile})")
    p.add_argument("--seed", type=_seed, default=None, help="seed of the search: the same seed draws the same instances (default 0)")
    p.set_defaults(default_profile=default_profile)
    _add_json(p)
    p.add_argument("--no-pinned", dest="pinned", action="store_false", default=None,
                   help="skip the pinned regression examples: report only what the search finds on its own")
    _add_executor(p)


def _add_executor(p: argparse.ArgumentParser) -> None:
    """``--workers`` and ``--scheduler``: where the units of work run (:mod:`.executor`)."""
    p.add_argument("--workers", type=_at_least(1), default=None, metavar="N",
                   help="worker processes on this machine (a Dask LocalCluster; default: all cores, or NTPCHECK_WORKERS); "
                        "1 runs everything in this process")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT; default: "
                        "NTPCHECK_DASK_SCHEDULER) instead of starting workers here")


def _emit(args, obj, text, compact: bool = False) -> None:
    """The text on standard output unless ``--json -``, then the strict JSON (:func:`.output.write_json`,
    large tables streamed) to ``--json``'s path; either may be given as a function that builds it,
    so that only what is written is built."""
    if args.json_path != "-":
        print(text() if callable(text) else text)
    if args.json_path:
        from ntpcheck.app.rendering.output import write_json

        write_json(args.json_path, obj() if callable(obj) else obj, compact)


def _warn(message: str) -> None:
    print(f"ntpcheck: warning: {message}", file=sys.stderr)


def cmd_check(args) -> int:
    from ntpcheck.transformer.assumptions import check_all, failed
    from ntpcheck.transformer.structure import analyse

    from ntpcheck.app.rendering import render_check as report
    from .embedding_choice import load_with_embeddings

    ds, _, E = load_with_embeddings(args)
    st = analyse(ds)
    res = check_all(st, E)
    _emit(args, lambda: report.check_json(st, res), lambda: report.check_text(st, res), compact=ds.n_samples > 1000)
    return 1 if failed(res, ASSUMPTIONS) else 0


def cmd_solve(args) -> int:
    from .solve import run_solve

    return run_solve(args, _emit, _warn)


def cmd_train(args) -> int:
    from .train import run_train

    return run_train(args, _emit, _warn)


def _prestart(args) -> None:
    """A run on a local cluster starts its workers' fork server first, so that their imports run
    while this process loads the claims (:func:`ntpcheck.app.scaleout.local_cluster.prestart`); a
    run on a given dataset runs here."""
    if not getattr(args, "dataset", None):
        from ntpcheck.app.scaleout.local_cluster import prestart

        prestart(getattr(args, "workers", 1), getattr(args, "scheduler", None))


def cmd_verify(args) -> int:
    _prestart(args)
    from .verify import run_verify

    return run_verify(args)


def cmd_matrix(args) -> int:
    _prestart(args)
    from .verify import run_matrix

    return run_matrix(args)


def cmd_campaign(args) -> int:
    _prestart(args)
    from ntpcheck.app.scaleout.campaign import run_campaign

    return run_campaign(args)


def cmd_papers(args) -> int:
    from .verify import run_papers

    return run_papers(args)


def cmd_claims(args) -> int:
    from .claimlist import run_claims_list

    return run_claims_list(args)


def cmd_bench(args) -> int:
    if args.linear:
        from ntpcheck.app.scaleout.bench_linear import run_bench_linear

        return run_bench_linear(args)
    from ntpcheck.app.scaleout.bench import run_bench

    return run_bench(args)


def cmd_new_paper(args) -> int:
    from .new_paper import run_new_paper

    return run_new_paper(args)


def cmd_reproduce(args) -> int:
    from .reproduce import run_reproduce

    return run_reproduce(args)


COMMANDS = {"campaign": cmd_campaign, "claims": cmd_claims, "papers": cmd_papers, "new-paper": cmd_new_paper, "reproduce": cmd_reproduce, "bench": cmd_bench, "check": cmd_check, "solve": cmd_solve, "train": cmd_train, "verify": cmd_verify, "matrix": cmd_matrix}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (None: ``sys.argv[1:]``, as the ``ntpcheck`` command) and
    return its exit status; Ctrl-C as :func:`ntpcheck.common.interrupt.run_command` says."""
    return interrupt.run_command(_run, argv, INTERRUPTED)


def _run(argv: Sequence[str] | None) -> int:
    ascii_safe_streams()
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:  # while the claims' modules load
        return _interrupted()
    try:
        check_options(args)
        import numpy as np

        # Overflow in a diverging run is reported in the output (stopped, non_finite), not as numpy warnings.
        with np.errstate(all="ignore"):
            return _flushed(COMMANDS[args.command](args))
    except NTPCheckError as e:
        return _fail(str(e))
    except BrokenPipeError:  # pragma: no cover - e.g. `ntpcheck ... | head`
        return 0
    except OSError as e:  # an output that could not be written after all (disk full, removed directory)
        return _fail(f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}")
    except MemoryError:
        return _fail("out of memory (the input is too large for this machine; see the limits in `ntpcheck.transformer.textformat`)")
    except KeyboardInterrupt:
        return _interrupted()


def _interrupted() -> int:  # Ctrl-C outside a run that keeps its finished part
    print("ntpcheck: interrupted", file=sys.stderr)
    return INTERRUPTED


def _flushed(status: int) -> int:
    """``status`` once what the command printed is written: the process then ends without Python's
    teardown (:func:`ntpcheck.common.interrupt.run_command`), which would have reported a failed
    write of the standard output's buffer only as "Exception ignored".  A standard output that
    cannot take it (a full disk) is one line and exit status 2; a pipe closed by its reader
    (``ntpcheck ... | head``) keeps ``status``."""
    try:
        if sys.stdout is not None:  # None: started with the standard output closed (``>&-``)
            sys.stdout.flush()
    except BrokenPipeError:
        return status
    except OSError as e:
        return _fail(f"the standard output: {e.strerror or e}")
    return status


def _fail(message: str) -> int:
    """Print ``ntpcheck: error: message`` on one line (exit status 2)."""
    print(f"ntpcheck: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
