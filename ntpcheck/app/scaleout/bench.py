"""``ntpcheck bench``: the max-margin solver benchmark, scored like qpbenchmark.

Eq. (3) on the four data kinds of :func:`ntpcheck.transformer.synthetic.solver_dataset`
(complete-star, sparse, many-optimal, prefix-closed), and Eq. (2) on the
complete-star data, at each size.  **What is timed is what a user waits
for**: from the loaded dataset to the certified answer, for every method
alike (structure analysis, problem building, cvxpy compile, solve, polish,
KKT certificate); the minimum over ``repeat`` runs (at least
:data:`FAST_REPEAT` for the exact and closed-form methods), each on a dataset
with its cached arrays dropped.  The stages of the best run are kept.
Loading the dataset's text (``textformat.loads``: parsing, token checks,
index mapping) is timed once per case, the same for every method, and
:func:`speedups` gives each ratio both from the loaded dataset and from the
text, as a user running ``ntpcheck solve FILE`` waits (without the process
start).

A run *succeeds* if its answer is within ``TOL`` of the exact solution (max
absolute entry difference) and its primal residual is below ``TOL``.
Methods are scored by success rate and by the shifted geometric mean of their
times (shift 10 ms, since these times are far below qpbenchmark's 10 s
shift); a failed run counts with the time limit ``TIME_LIMIT``, so a fast
inaccurate answer does not win.  cvxpy solvers run without the polish (their
raw answer) and, for CLARABEL and PIQP, also with it (``+polish``).
"""

from __future__ import annotations

import builtins
import functools
import math
import os
import platform
import sys
import time

import numpy as np

from ntpcheck.common import interrupt
from ntpcheck.transformer import maxmargin as mm
from ntpcheck.transformer.maxmargin import eq2_matrix, solve_eq3_exact
from ntpcheck.transformer.structure import analyse
from ntpcheck.transformer.synthetic import SOLVER_KINDS, solver_dataset
from ntpcheck.transformer.textformat import dumps, loads

__all__ = ["run_bench", "bench_rows", "score", "speedups", "environment", "TOL", "SHIFT", "TIME_LIMIT"]

TOL = 1e-7
SHIFT = 0.010
TIME_LIMIT = 10.0
#: cvxpy solvers the benchmark tries (skipped when not installed), and those also run polished.
CVXPY_SOLVERS = ("CLARABEL", "OSQP", "SCS", "ECOS", "PIQP")
POLISHED = ("CLARABEL", "PIQP")


def _methods() -> list[str]:
    installed = mm.installed_solvers()
    raw = [s for s in CVXPY_SOLVERS if s in installed]
    return raw + [f"{s}+polish" for s in POLISHED if s in installed]


def environment() -> dict:
    """Python, platform, CPU and the versions of every package a timing depends on."""
    from ntpcheck.common.versions import package_versions

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    v = package_versions()
    return {"python": v.pop("python"), "platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(),
            "solvers": v.pop("solvers"), "versions": v}


def _fresh(ds):
    """The dataset as loaded (its tokens validated and mapped to indices when it was built): drop
    the cached padded arrays and frequencies so that every method builds them."""
    for name in ("arrays", "pi"):
        ds.__dict__.pop(name, None)
    return ds


def _solve(ds, problem: str, method: str):
    """One end-to-end solve of ``problem`` ("eq2" or "eq3") by ``method`` ("exact", "closed form",
    a cvxpy solver name, or ``NAME+polish``), from the dataset as loaded."""
    st = analyse(_fresh(ds))
    if method in ("exact", "closed form"):
        return (mm.solve_eq3_exact if problem == "eq3" else mm.solve_eq2_exact)(st)
    name, _, pol = method.partition("+")
    return mm.solve((mm.build_eq3 if problem == "eq3" else mm.build_eq2)(st), name, polish=bool(pol))


#: Runs of the exact and closed-form methods: a run of a few milliseconds is perturbed by the
#: shared machine far more, relative to its length, than a cvxpy run of a quarter second, and
#: 20 of them take well under a second.
FAST_REPEAT = 20


def _eq3(ds, method: str):
    return _solve(ds, "eq3", method)


def _eq2(ds, method: str):
    return _solve(ds, "eq2", method)


def _timed(f, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        interrupt.check()  # a Ctrl-C that a solver's finaliser swallowed
        t0 = time.perf_counter()
        sol = f()
        sec = time.perf_counter() - t0
        if sec < best:
            best, out = sec, sol
    return best, out


def _row(problem: str, kind: str, n: int, ds, method: str, f, ref, repeat: int) -> dict:
    row = {"problem": problem, "kind": kind, "n_vocab": n, "n_samples": ds.n_samples, "method": method}
    try:
        sec, sol = _timed(f, repeat)
        err = float(np.max(np.abs(sol.W - ref), initial=0.0))
        primal = sol.residuals.primal
        stages = {"structure_and_build": max(0.0, sec - sum(sol.stages.values())), **sol.stages}
        row.update(seconds=sec, stages=stages, n_constraints=sol.problem.n_constraints, max_abs_error=err,
                   primal_residual=primal, success=bool(err <= TOL and primal <= TOL),
                   polish_move=sol.polish_move, answer=sol.method, note="")
    except Exception as e:  # a solver that fails is scored as a failure, with the reason
        row.update(seconds=TIME_LIMIT, stages={}, max_abs_error=None, primal_residual=None, success=False,
                   polish_move=None, answer=None, note=f"{type(e).__name__}: {e}"[:120])
    return row


def bench_rows(sizes, kinds=SOLVER_KINDS, repeat: int = 3, cvxpy_max: int = 400, progress=None) -> list[dict]:
    """One row per (problem, kind, size, method); cvxpy only up to ``cvxpy_max`` tokens."""
    rows = []
    for kind in kinds:
        for n in sizes:
            ds = solver_dataset(kind, n)
            text = dumps(ds)
            load, _ = _timed(lambda: loads(text), max(repeat, FAST_REPEAT) if n <= 400 else repeat)
            ref3 = solve_eq3_exact(ds, certify=False).W
            cases = [("eq3", "exact", lambda: _eq3(ds, "exact"), ref3, max(repeat, FAST_REPEAT))]
            cvx = _methods() if n <= cvxpy_max else []
            cases += [("eq3", m, (lambda m=m: _eq3(ds, m)), ref3, repeat) for m in cvx]
            if kind == "complete-star":
                ref2 = eq2_matrix(analyse(ds), np.eye(n), True)
                cases.append(("eq2", "closed form", lambda: _eq2(ds, "closed form"), ref2, max(repeat, FAST_REPEAT)))
                cases += [("eq2", m, (lambda m=m: _eq2(ds, m)), ref2, 1 if n >= 200 else repeat) for m in cvx if "+" not in m]
            for prob, method, f, ref, rep in cases:
                row = _row(prob, kind, n, ds, method, f, ref, rep)
                row["load_seconds"] = load
                rows.append(row)
                if progress:
                    err = "-" if row["max_abs_error"] is None else f"{row['max_abs_error']:.1e}"
                    progress(f"{prob} {kind} |V|={n} {method}: {row['seconds'] * 1e3:.3g} ms, error {err}, "
                             f"{'ok' if row['success'] else 'FAIL ' + row['note']}")
    return rows


def _sgm(times: list[float]) -> float:
    return math.exp(np.mean([math.log(t + SHIFT) for t in times])) - SHIFT


def score(rows: list[dict]) -> list[dict]:
    """Per problem and method, over every (kind, size) case it ran: success rate and the
    shifted geometric mean (failures at ``TIME_LIMIT``), relative to the best method."""
    out = []
    for prob in dict.fromkeys(r["problem"] for r in rows):
        rs = [r for r in rows if r["problem"] == prob]
        cases = {(r["kind"], r["n_vocab"]) for r in rs if r["method"] not in ("exact", "closed form")}
        methods = list(dict.fromkeys(r["method"] for r in rs))
        sgm = {}
        for m in methods:  # every method on the cases the cvxpy solvers ran, so the means compare
            sgm[m] = _sgm([(r["seconds"] if r["success"] else TIME_LIMIT) for r in rs
                           if r["method"] == m and (not cases or (r["kind"], r["n_vocab"]) in cases)])
        best = min(sgm.values())
        for m in methods:
            mr = [r for r in rs if r["method"] == m]
            out.append({"problem": prob, "method": m, "runs": len(mr), "success_rate": sum(r["success"] for r in mr) / len(mr),
                        "shifted_geometric_mean_seconds": sgm[m], "relative": (sgm[m] + SHIFT) / (best + SHIFT)})
    return out


def speedups(rows: list[dict]) -> list[dict]:
    """Exact Eq. (3) against each cvxpy method, per kind at the largest size both ran."""
    out = []
    for kind in dict.fromkeys(r["kind"] for r in rows if r["problem"] == "eq3"):
        rs = [r for r in rows if r["problem"] == "eq3" and r["kind"] == kind]
        sizes = [r["n_vocab"] for r in rs if r["method"] != "exact"]
        if not sizes:
            continue
        n = max(sizes)
        ex = next(r for r in rs if r["method"] == "exact" and r["n_vocab"] == n)
        for r in rs:
            if r["n_vocab"] == n and r["method"] != "exact":
                load = ex["load_seconds"]
                out.append({"kind": kind, "n_vocab": n, "method": r["method"], "exact_seconds": ex["seconds"],
                            "method_seconds": r["seconds"], "speedup": r["seconds"] / ex["seconds"],
                            "load_seconds": load, "speedup_from_text": (load + r["seconds"]) / (load + ex["seconds"]),
                            "method_error": r["max_abs_error"], "method_success": r["success"]})
    return out


def _ms(x: float) -> str:
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


def run_bench(args) -> int:
    from ntpcheck.app.rendering.output import write_json
    from ntpcheck.app.rendering.render import table

    out = sys.stderr if args.json_path == "-" else sys.stdout
    print = functools.partial(builtins.print, file=out)  # noqa: A001 - text to stderr under --json -
    sizes = args.sizes
    rows = bench_rows(sizes, repeat=args.repeat, cvxpy_max=args.cvxpy_max, progress=lambda s: print(s, file=sys.stderr, flush=True))
    trows = []
    for prob in ("eq3", "eq2"):
        for kind in dict.fromkeys(r["kind"] for r in rows if r["problem"] == prob):
            for m in dict.fromkeys(r["method"] for r in rows if r["problem"] == prob and r["kind"] == kind):
                cells = [prob, kind, m]
                for n in sizes:
                    r = [x for x in rows if x["problem"] == prob and x["kind"] == kind and x["method"] == m and x["n_vocab"] == n]
                    cells.append("-" if not r else _ms(r[0]["seconds"]) + ("" if r[0]["success"] else " FAIL"))
                trows.append(cells)
    print(table(trows, ["problem", "data", "method"] + [f"|V|={n}" for n in sizes]))
    print()
    sc = score(rows)
    print(table([[s["problem"], s["method"], f"{100 * s['success_rate']:.0f}%", _ms(s["shifted_geometric_mean_seconds"]), f"{s['relative']:.2f}"] for s in sc],
                ["problem", "method", f"success (tol {TOL:g})", "shifted geo. mean", "relative to best"]))
    sp = speedups(rows)
    if sp:
        print()
        print(table([[s["kind"], str(s["n_vocab"]), s["method"], f"{s['speedup']:.0f}x", _ms(s["load_seconds"]),
                      f"{s['speedup_from_text']:.1f}x", "-" if s["method_error"] is None else f"{s['method_error']:.1e}"] for s in sp],
                    ["data", "|V|", "method", "exact is faster by", "loading the text", "with the load", "method's error"]))
    if args.json_path:
        env = environment()
        write_json(args.json_path, {"rows": rows, "score": sc, "speedups": sp, "tolerance": TOL, "shift_seconds": SHIFT,
                                    "time_limit_seconds": TIME_LIMIT, "repeat": args.repeat, "environment": env})
    return 0
