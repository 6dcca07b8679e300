"""Bodies of ``ntpcheck verify``, ``ntpcheck matrix`` and ``ntpcheck papers``.

The claim runner (:mod:`ntpcheck.properties.framework.runner`) returns
results as data; these functions pick the paper and claims, run, and render
the same results as a text table, JSON and (``--report``) Markdown.
"""

from __future__ import annotations

import sys
import time

from ntpcheck.common import interrupt
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.properties import PAPERS, paper
from ntpcheck.properties.framework import RunInterrupted, Verdict, select_claims, versions

from ntpcheck.app.rendering import render
from ntpcheck.app.scaleout import claim_seconds
from ntpcheck.app.scaleout.executor import open_executor
from ntpcheck.app.rendering.output import INTERRUPTED, write_json
from ntpcheck.app.scaleout.units import Plan

__all__ = ["run_verify", "run_matrix", "run_papers"]


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _text_stream(args):
    """Where the text goes: standard error when ``--json -`` has standard output."""
    return sys.stderr if getattr(args, "json_path", None) == "-" else sys.stdout


def _pins(args) -> str:
    return "" if args.pinned else ", pinned examples skipped"


def _partial(r) -> bool:
    """Whether ``r`` is a claim decided by some of its shards when the run stopped (:meth:`Plan.interrupted`)."""
    return getattr(r, "interrupted_after", None) is not None


def run_verify(args) -> int:
    """Entry point of ``ntpcheck verify``.  Ctrl-C stops it cleanly: the verdicts
    finished so far are printed and written (``"complete": false``), exit 130.  Output paths
    were checked before (:func:`.options.check_options`)."""
    p = paper(args.paper)
    claims = select_claims(p.claims, args.claims)
    if not getattr(args, "dataset", None) and (getattr(args, "embeddings", None) or getattr(args, "dim", None)):
        raise NTPCheckError("--embeddings and --dim apply only with --dataset")
    out = _text_stream(args)
    t0 = time.perf_counter()
    complete, lost = True, None
    executor = ran = None
    try:
        if getattr(args, "dataset", None):
            results = _on_dataset(p, claims, args)
        else:
            plan = Plan(p.name, "verify", tuple(c.name for c in claims), args.pinned)
            with open_executor(args.workers, args.scheduler) as ex:
                executor, ran = ex.describe(), ex
                results = ex.run(plan, args.profile, args.seed, _progress)
    except RunInterrupted as e:
        results, complete = e.results, False
        interrupt.ignore_further()  # a second Ctrl-C must not lose what is written now
        lost = getattr(e, "why", None)  # the cluster lost a worker or its scheduler (ClusterLost)
        partial = sum(1 for r in e.results if _partial(r))
        more = f", {partial} more falsified by the shards that finished" if partial else ""
        print(f"\n{lost or 'interrupted'}: {len(e.results) - partial} of {e.of} claims finished{more}; writing those", file=sys.stderr)
    if results:
        print(render.results_table(results), file=out)
    falsified = [r for r in results if r.verdict is Verdict.FALSIFIED]
    for r in results:  # falsified, or (on a given dataset) outside the hypotheses with the conclusion failing
        if r.counterexample:
            print(f"\n{r.claim.name} is {r.verdict}: {r.detail}\n{r.counterexample}", file=out)
    how = f"on {args.dataset}" if getattr(args, "dataset", None) else f"(profile {args.profile}, seed {args.seed}{_pins(args)})"
    print(f"\n{len(results)} claims of {p.name} checked in {time.perf_counter() - t0:.1f} s {how}", file=sys.stderr)
    obj = render.results_json(results, p.name, args.profile, args.seed, versions(), args.pinned)
    obj["complete"] = complete
    if getattr(args, "dataset", None):
        obj["dataset"] = args.dataset
    _add_executor(obj, executor)
    write_json(args.json_path, obj)  # first: a report refused at the end (DIR filled meanwhile) loses no verdict
    if not getattr(args, "dataset", None):  # the next run on workers starts the longest claims first
        claim_seconds.record(p.name, args.profile, [r for r in results if not _partial(r)], getattr(ran, "shard_seconds", None))
    if getattr(args, "instances", None):
        from .instances_out import write_instances

        n = write_instances(args.instances, results)
        print(f"{n} tested instances written to {args.instances} (index.jsonl lists them)", file=sys.stderr)
    if getattr(args, "figures", None):
        from ..report.figures_out import write_figures

        n = write_figures(args.figures, results, p.name)
        print(f"{n} figures written to {args.figures} (index.json lists them)", file=sys.stderr)
    if getattr(args, "report", None):
        from ntpcheck.app.report.reportmd import write_report

        path = write_report(args.report, results, args.profile, args.seed, complete=complete, paper=p.name)
        print(f"report written to {path}", file=sys.stderr)
    if not complete:
        if lost:
            print(f"ntpcheck: error: {lost}", file=sys.stderr)
            return 2
        return INTERRUPTED
    return 1 if (args.strict and falsified) else 0


def _on_dataset(p, claims, args):
    """Every claim on the one dataset ``args.dataset`` (:func:`run_on_instance`), with the
    training setting its header gives (a printed counterexample's) as given, and the
    embeddings of :func:`.embedding_choice.chosen_embeddings`."""
    import dataclasses

    from ntpcheck.transformer.embeddings import is_canonical
    from ntpcheck.transformer.instance import Instance
    from ntpcheck.properties.framework import checks_as_given, run_on_instance

    from .embedding_choice import load_with_embeddings

    path = args.dataset
    if p.load is not None:  # another paper's text format, which carries its own embeddings
        inst, header = _paper_instance(p, args)
        sizes = ", ".join(f"{k} = {v}" for k, v in inst.describe().items())
    else:
        ds, header, E = load_with_embeddings(args)
        inst = dataclasses.replace(Instance.from_header(ds, header), embeddings=None if is_canonical(E) else E)
        setting = f"; the header's T = {inst.T}, T' = {inst.T2}" + (f", {inst.algorithm.name}" if inst.algorithm else "") if header.params else ""
        sizes = f"{ds.n_samples} samples, |V| = {ds.n_vocab}, d = {inst.d}{setting}"
    if header.claim:   # a header that names no claim is a typo or another paper's file: say so, run nothing
        from ntpcheck.properties.framework import select_claims

        select_claims(p.claims, [header.claim], option=f"{path}: '# claim:' of paper {p.name}")
    breaks = p.violated(inst)
    _progress(f"{path}: " + (f"breaks {', '.join(breaks)}" if breaks else "meets every condition") + f" ({sizes})")
    results = []
    for c in claims:
        try:
            results.append(run_on_instance(c, inst, breaks, as_given=checks_as_given(c, header)))
        except KeyboardInterrupt:
            raise RunInterrupted(results, len(claims)) from None
    return results


def _paper_instance(p, args):
    """The instance and header of ``--dataset`` in the format of paper ``p`` (its ``load``)."""
    for flag, given in (("--embeddings", getattr(args, "embeddings", None)), ("--dim", getattr(args, "dim", None))):
        if given:
            raise NTPCheckError(f"{flag} does not apply to paper {p.name}: its dataset files give their embeddings")
    try:
        return p.load(args.dataset)
    except NTPCheckError:
        raise
    except (ValueError, OSError, UnicodeDecodeError) as e:  # a plugin's reader: one line, never a traceback
        raise NTPCheckError(f"{args.dataset}: not a dataset of paper {p.name}: {' '.join(str(e).split())[:300]}") from None


def run_matrix(args) -> int:
    """Entry point of ``ntpcheck matrix`` (Ctrl-C as in :func:`run_verify`)."""
    p = paper(args.paper)
    claims = select_claims(p.claims, args.claims)
    if getattr(args, "axis", "assumption") == "algorithm":
        return _run_algorithm_axis(args, p, claims)
    if not any(c.setup is not None for c in claims):
        names = ", ".join(c.name for c in claims)
        raise NTPCheckError(f"--claims {args.claims!r}: {names} check fixed examples, so they have no cells in the matrix")
    out = _text_stream(args)
    t0 = time.perf_counter()
    cells, complete, executor = _cells("assumption", p, claims, args)
    if cells:
        print(render.matrix_table(cells, p.conditions), file=out)
        print("\n* = a condition the claim does not list among its assumptions; n/m = instances tested / drawn", file=out)
    for c in cells:
        if c.result.counterexample:
            why = "which it does not list" if not c.listed else "which it lists"
            print(f"\n{c.claim.name} fails without {c.condition}, {why}:\n{c.result.counterexample}", file=out)
    code = _finish_cells(args, render.matrix_json(cells, p.name, args.profile, args.seed, versions(), args.pinned),
                         len(cells), complete, t0, executor)
    if getattr(args, "report", None) and cells:
        from ntpcheck.app.report.matrixreport import assumption_grid

        _matrix_report(args, assumption_grid(cells, p.conditions, p.name), complete, p.name)
    return code


def _matrix_report(args, grid, complete: bool, paper: str) -> None:
    """``matrix --report DIR``: the heatmap and the falsified cells' counterexamples (:mod:`.matrixreport`)."""
    from ntpcheck.app.report.matrixreport import write_matrix_report

    axis = "" if getattr(args, "axis", "assumption") == "assumption" else " --axis algorithm"
    path = write_matrix_report(args.report, grid, args.profile, args.seed, complete, paper, command=f"ntpcheck matrix --paper {paper}{axis}")
    print(f"report written to {path}", file=sys.stderr)


def _cells(kind: str, p, claims, args) -> tuple[list, bool, dict | None]:
    """The cells of the matrix axis ``kind`` on the executor of ``--workers``/``--scheduler``, whether
    all finished (Ctrl-C keeps the finished ones), and the executor's description."""
    plan = Plan(p.name, kind, tuple(c.name for c in claims), args.pinned)
    executor = None
    try:
        with open_executor(args.workers, args.scheduler) as ex:
            executor = ex.describe()
            return ex.run(plan, args.profile, args.seed, _progress), True, executor
    except RunInterrupted as e:
        interrupt.ignore_further()
        print(f"\n{getattr(e, 'why', None) or 'interrupted'}: {len(e.results)} of {e.of} cells finished; writing those", file=sys.stderr)
        return e.results, False, executor


def _add_executor(obj: dict, executor: dict | None) -> None:
    """``obj["executor"]``: what ran the units, for a run not in this process alone (``--workers 1``'s
    JSON stays as it was)."""
    if executor is not None and executor["kind"] != "in-process":
        obj["executor"] = executor


def _finish_cells(args, obj: dict, n_cells: int, complete: bool, t0: float, executor: dict | None = None) -> int:
    """The end of a matrix run: the timing line, the JSON (marked ``complete`` or not), the exit status."""
    print(f"\n{n_cells} cells in {time.perf_counter() - t0:.1f} s (profile {args.profile}, seed {args.seed}{_pins(args)})", file=sys.stderr)
    obj["complete"] = complete
    _add_executor(obj, executor)
    write_json(args.json_path, obj)
    return 0 if complete else INTERRUPTED


def _run_algorithm_axis(args, p, claims) -> int:
    """``ntpcheck matrix --axis algorithm``: each claim of ``p.algorithm_claims`` under each variant."""
    meaningful = {name for name, _ in p.algorithm_claims}
    if not any(c.name in meaningful for c in claims):
        raise NTPCheckError(f"--claims {args.claims!r}: none of these claims is on the algorithm axis; it has "
                            + ", ".join(sorted(meaningful)) if meaningful else f"paper {p.name} has no algorithm axis")
    out = _text_stream(args)
    t0 = time.perf_counter()
    cells, complete, executor = _cells("algorithm", p, claims, args)
    if cells:
        print(render.algorithm_table(cells, p.variants), file=out)
        print("\nn/m = instances tested / drawn; n/a = the claim's bounds are in NGD's step size, which this algorithm does not take",
              file=out)
        print("\n" + render.algorithm_legend(p.variants), file=out)
    for c in cells:
        if c.result is not None and c.result.counterexample:
            print(f"\n{c.claim.name} fails with {c.algorithm.name}:\n{c.result.counterexample}", file=out)
    code = _finish_cells(args, render.algorithm_json(cells, p.name, args.profile, args.seed, versions(), args.pinned),
                         len(cells), complete, t0, executor)
    if getattr(args, "report", None) and cells:
        from ntpcheck.app.report.matrixreport import algorithm_grid

        _matrix_report(args, algorithm_grid(cells, p.variants, p.name), complete, p.name)
    return code


def run_papers(args) -> int:
    """Entry point of ``ntpcheck papers``: the registered papers and their claim counts."""
    rows = []
    for name in PAPERS:
        p = paper(name)
        ids = len(dict.fromkeys(c.id for c in p.claims))
        rows.append([name, str(ids), str(len(p.claims)), p.title])
    print(render.table(rows, ["paper", "claims", "with readings", "title"]))
    return 0
