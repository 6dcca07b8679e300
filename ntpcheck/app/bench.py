"""``ntpcheck bench``: the max-margin solver benchmark, scored like qpbenchmark.

For Eq. (2) and Eq. (3) on synthetic realizable datasets
(:func:`ntpcheck.synthetic.bench_dataset`) of each size, every method solves
the problem; a run *succeeds* if its answer is within ``TOL`` of the exact
solution (max absolute entry difference) and its primal residual is below
``TOL``.  Methods are scored by success rate and by the shifted geometric
mean of their run times relative to the fastest method (shift 10 ms, since
these times are far below qpbenchmark's 10 s shift); a failed run counts
with the time limit ``TIME_LIMIT``, so a fast inaccurate answer does not win.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np

from ntpcheck import maxmargin as mm
from ntpcheck.maxmargin import eq2_matrix, solve_eq3_exact
from ntpcheck.structure import analyse
from ntpcheck.synthetic import bench_dataset

__all__ = ["run_bench", "bench_rows", "TOL", "SHIFT", "TIME_LIMIT"]

TOL = 1e-7
SHIFT = 0.010
TIME_LIMIT = 10.0


def _methods():
    cv = [s for s in ("CLARABEL", "OSQP", "SCS", "ECOS", "PIQP") if s in mm.installed_solvers()]
    return cv


def _time(f, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_rows(sizes, repeat: int = 3, progress=None) -> list[dict]:
    rows = []
    for n in sizes:
        st = analyse(bench_dataset(n))
        E = np.eye(n)
        st.eq3_index, st.collocation_index  # problem data, built once for every method
        ref3 = solve_eq3_exact(st, certify=False).W  # validates the assumptions once
        ref2 = eq2_matrix(st, E, True)
        p2, p3 = mm.build_eq2(st, E), mm.build_eq3(st, E)
        cases = [("eq3", "exact", lambda: solve_eq3_exact(st, certify=False, validate=False).W, ref3, p3, max(repeat, 5))]
        cases.append(("eq2", "closed form", lambda: eq2_matrix(st, E, True), ref2, p2, max(repeat, 20)))
        for s in _methods():
            cases.append(("eq3", s, (lambda s=s: mm.solve(p3, s, polish=False).W), ref3, p3, repeat))
            if n <= 400:
                cases.append(("eq2", s, (lambda s=s: mm.solve(p2, s, polish=False).W), ref2, p2, 1 if n >= 200 else repeat))
        for prob, method, f, ref, problem, rep in cases:
            try:
                sec, W = _time(f, rep)
                err = float(np.max(np.abs(W - ref)))
                primal = float(max(0.0, -(problem.R @ W.ravel() - 1).min())) if problem.n_constraints else 0.0
                ok = err <= TOL and primal <= TOL
                note = ""
            except Exception as e:  # a solver that fails is scored as a failure, with the reason
                sec, err, primal, ok, note = TIME_LIMIT, float("nan"), float("nan"), False, f"{type(e).__name__}: {e}"[:80]
            rows.append({"problem": prob, "n_vocab": n, "method": method, "seconds": sec, "max_abs_error": err,
                         "primal_residual": primal, "success": ok, "note": note})
            if progress:
                progress(f"{prob} |V|={n} {method}: {sec * 1e3:.3f} ms, error {err:.1e}, {'ok' if ok else 'FAIL'}")
    return rows


def score(rows: list[dict]) -> list[dict]:
    """Per problem and method: success rate and shifted geometric mean relative to the fastest."""
    out = []
    for prob in dict.fromkeys(r["problem"] for r in rows):
        rs = [r for r in rows if r["problem"] == prob]
        methods = list(dict.fromkeys(r["method"] for r in rs))
        sgm = {}
        for m in methods:
            ts = [(r["seconds"] if r["success"] else TIME_LIMIT) for r in rs if r["method"] == m]
            sgm[m] = math.exp(np.mean([math.log(t + SHIFT) for t in ts])) - SHIFT
        best = min(sgm.values())
        for m in methods:
            mr = [r for r in rs if r["method"] == m]
            out.append({"problem": prob, "method": m, "success_rate": sum(r["success"] for r in mr) / len(mr),
                        "shifted_geometric_mean_seconds": sgm[m], "relative": (sgm[m] + SHIFT) / (best + SHIFT)})
    return out


def run_bench(args) -> int:
    from .render import table
    from ntpcheck.atomic import atomic_write_text

    sizes = [int(s) for s in args.sizes.split(",")]
    rows = bench_rows(sizes, repeat=args.repeat, progress=lambda s: print(s, file=sys.stderr, flush=True))
    sizes_s = sorted({r["n_vocab"] for r in rows})
    trows = []
    for prob in ("eq2", "eq3"):
        for m in dict.fromkeys(r["method"] for r in rows if r["problem"] == prob):
            cells = [prob, m]
            for n in sizes_s:
                r = [x for x in rows if x["problem"] == prob and x["method"] == m and x["n_vocab"] == n]
                cells.append("-" if not r else (f"{r[0]['seconds'] * 1e3:.3g} ms" + ("" if r[0]["success"] else " FAIL")))
            trows.append(cells)
    print(table(trows, ["problem", "method"] + [f"|V|={n}" for n in sizes_s]))
    print()
    sc = score(rows)
    print(table([[s["problem"], s["method"], f"{100 * s['success_rate']:.0f}%", f"{s['shifted_geometric_mean_seconds'] * 1e3:.3g} ms", f"{s['relative']:.2f}"] for s in sc],
                ["problem", "method", f"success (tol {TOL:g})", "shifted geo. mean", "relative to fastest"]))
    for prob in ("eq2", "eq3"):
        n = max(sizes_s)
        ex = [r for r in rows if r["problem"] == prob and r["n_vocab"] == n and r["method"] in ("exact", "closed form")]
        cl = [r for r in rows if r["problem"] == prob and r["n_vocab"] == n and r["method"] == "CLARABEL"]
        if ex and cl:
            print(f"{prob} at |V| = {n}: {ex[0]['method']} is {cl[0]['seconds'] / ex[0]['seconds']:.0f}x faster than CLARABEL "
                  f"(max difference {cl[0]['max_abs_error']:.1e})")
    if args.json_path:
        atomic_write_text(args.json_path, json.dumps({"rows": rows, "score": sc, "tolerance": TOL, "shift_seconds": SHIFT}, indent=2))
    return 0
