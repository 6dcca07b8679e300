"""``ntpcheck bench --linear``: the second paper's NTP-SVM ``W^mm`` (Def. 3) against one vectorised cvxpy solve.

Thrampoulidis (2024), Def. 3: ``min ‖W‖`` over ``W ∈ R^{V×d}`` subject to
(6a) equal in-support logits and (6b) margins ``≥ 1``.  :func:`cvxpy_w_mm` states
it as plainly as cvxpy allows, one matrix variable ``W`` and two vectorised
constraints on the logits ``W H̄``; :func:`ntpcheck.linear.svm.w_mm` solves it by
the active set of :mod:`ntpcheck.linear.svm_active`.  At the sizes of
:data:`SIZES` (the last one App. A's: ``d = 60``, ``m = 50``, ``V = 10``,
``S_j = 6``) on the data of :func:`linear_instance`, each is timed from the
data to the answer, the minimum over ``repeat`` interleaved rounds (``w_mm``
several times a round, at least :data:`FAST_REPEAT` runs in all, as
``ntpcheck bench`` does for its exact methods), on one BLAS thread
(:func:`ntpcheck.common.blas.single_threaded_blas`: threadpoolctl or OpenBLAS's own
call; where neither is available, a child process started with
``OPENBLAS_NUM_THREADS=1`` and its kin).  Each row reports the ratio, the
relative Frobenius differences of the answers (to each timed solver's and to
CLARABEL at tight tolerances, :func:`tight_w_mm`, untimed), ``w_mm``'s own KKT residual and the
independent certificate of :func:`ntpcheck.common.qp.kkt.certify` in ℱ^⊥
coordinates.  The previous path (``w_mm(D, "cvxpy")``: separability LP,
CLARABEL, polish) is timed too.
"""

from __future__ import annotations

import builtins
import functools
import json
import math
import os
import subprocess
import sys
import time
import warnings

import numpy as np

from ntpcheck.common import interrupt
from ntpcheck.linear import NTPData

__all__ = ["SIZES", "FAST_REPEAT", "TIGHT", "linear_instance", "cvxpy_w_mm", "tight_w_mm", "linear_rows", "run_bench_linear"]

#: ``(d, m, V)``: a small problem, a middle one, and App. A's.
SIZES = ((6, 4, 6), (25, 20, 10), (60, 50, 10))
#: Runs of ``w_mm`` in all (a run of a millisecond is perturbed by the shared machine more than a cvxpy run).
FAST_REPEAT = 20
#: The cvxpy solvers timed, where installed (their default tolerances: what a plain call gets).
SOLVERS = ("CLARABEL", "PIQP")
#: Tolerances of the untimed reference solve, tightest first (CLARABEL fails, or stops inaccurate, on
#: some problems at 1e-14; the next that succeeds is used).  Its answers agree with ``w_mm`` to ~1e-11.
TIGHT = (1e-14, 1e-13, 1e-12)
BLAS_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def linear_instance(d: int, m: int, V: int, seed: int = 0) -> NTPData:
    """App. A's construction at any size: ``N(0, I/d)`` embeddings, each context followed by
    ``S = round(0.6 V)`` random tokens (App. A: 6 of 10) with counts in ``1..30``.

    Examples
    --------
    >>> D = linear_instance(60, 50, 10)
    >>> (D.d, D.m, D.V), set(D.mask.sum(axis=1).tolist())
    ((60, 50, 10), {6})
    """
    rng = np.random.default_rng(seed)
    S = min(V - 1, max(1, round(0.6 * V)))
    C = np.zeros((m, V), dtype=np.int64)
    for j in range(m):
        C[j, rng.choice(V, S, replace=False)] = rng.integers(1, 31, S)
    return NTPData(rng.normal(size=(d, m)) / np.sqrt(d), C)


def cvxpy_w_mm(D: NTPData, solver: str = "CLARABEL", strict: bool = False, **options) -> np.ndarray:
    """Def. 3 as one vectorised cvxpy problem: variable ``W`` (V × d), logits ``L = W H̄``, (6a)
    ``L[z, j] = L[z_j, j]`` for ``z ∈ 𝒮_j``, (6b) ``L[z_j, j] − L[v, j] ≥ 1`` for ``v ∉ 𝒮_j``
    (anchors ``z_j = min 𝒮_j``), objective ``sum_squares(W)``.  ``strict``: refuse an answer the solver
    calls inaccurate (:class:`~ntpcheck.common.errors.SolverFailedError`).

    Examples
    --------
    >>> from ntpcheck.linear.svm import w_mm
    >>> D = linear_instance(6, 4, 6)
    >>> bool(np.linalg.norm(cvxpy_w_mm(D) - w_mm(D).W) < 1e-6 * np.linalg.norm(w_mm(D).W))
    True
    """
    import cvxpy as cp

    from ntpcheck.common.errors import SolverFailedError

    W = cp.Variable((D.V, D.d))
    L = W @ D.H
    anchor = np.argmax(D.mask, axis=1)
    j, v = np.nonzero(~D.mask)
    jz, z = np.nonzero(D.mask & (np.arange(D.V) != anchor[:, None]))
    cons = []
    if len(j):
        cons.append(L[anchor[j], j] - L[v, j] >= 1)
    if len(jz):
        cons.append(L[z, jz] == L[anchor[jz], jz])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(W)), cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Solution may be inaccurate": the status says so
        prob.solve(solver=solver, **options)
    if W.value is None or (strict and prob.status != "optimal"):
        raise SolverFailedError(f"{solver} returned status {prob.status!r}")
    return np.asarray(W.value, dtype=float)


def tight_w_mm(D: NTPData) -> tuple[np.ndarray, float]:
    """``(W, tol)``: :func:`cvxpy_w_mm` by CLARABEL at the tightest tolerance of :data:`TIGHT` that it
    finishes with status ``optimal`` (feasibility, absolute and relative gap ``tol``, KKT ratio ``100 tol``;
    at 1e-14 it sometimes stops ``optimal_inaccurate`` 1e-3 away).

    Examples
    --------
    >>> from ntpcheck.linear.svm import w_mm
    >>> D = linear_instance(6, 4, 6)
    >>> W, tol = tight_w_mm(D)
    >>> bool(np.linalg.norm(W - w_mm(D).W) < 1e-9 * np.linalg.norm(W)), tol <= 1e-12
    (True, True)
    """
    from cvxpy.error import SolverError

    from ntpcheck.common.errors import SolverFailedError

    for tol in TIGHT:
        try:
            opts = {"tol_feas": tol, "tol_gap_abs": tol, "tol_gap_rel": tol, "tol_ktratio": 100 * tol, "max_iter": 500}
            return cvxpy_w_mm(D, "CLARABEL", strict=True, **opts), tol
        except (SolverError, SolverFailedError):
            continue
    raise SolverFailedError(f"CLARABEL failed at every tolerance of {TIGHT}")


def _installed() -> list[str]:
    from ntpcheck.transformer.maxmargin import installed_solvers

    return [s for s in SOLVERS if s in installed_solvers()]


def _fresh(D: NTPData) -> NTPData:
    """The same data without their cached masks and supports, so that every run derives them."""
    return NTPData(D.H, D.counts)


def _rel(X: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(X - ref) / max(np.linalg.norm(ref), 1e-300))


def _time_case(D: NTPData, solvers: list[str], repeat: int) -> dict:
    """Interleaved rounds: each solver once, then ``w_mm`` ``ceil(FAST_REPEAT / repeat)`` times; minima."""
    from ntpcheck.linear.svm import w_mm

    names = ["w_mm", *solvers, "previous"]
    best = {k: math.inf for k in names}
    out: dict = {}
    inner = max(1, math.ceil(FAST_REPEAT / repeat))
    for _ in range(repeat):
        for k in names:
            interrupt.check()
            for _ in range(inner if k == "w_mm" else 1):
                Df = _fresh(D)
                t0 = time.perf_counter()
                ans = w_mm(Df) if k == "w_mm" else w_mm(Df, "cvxpy") if k == "previous" else cvxpy_w_mm(Df, k)
                sec = time.perf_counter() - t0
                if sec < best[k]:
                    best[k], out[k] = sec, ans
    return {"seconds": best, "answers": out}


def _case_row(d: int, m: int, V: int, seed: int, repeat: int) -> dict:
    from ntpcheck.linear.subspace import subspace
    from ntpcheck.linear.svm import svm_problem
    from ntpcheck.common.qp.kkt import certify

    D = linear_instance(d, m, V, seed)
    solvers = _installed()
    t = _time_case(D, solvers, repeat)
    sol = t["answers"]["w_mm"]
    ref, tol = tight_w_mm(D)
    F = subspace(D)
    _, res = certify(svm_problem(D, F), F.null_basis @ sol.W.ravel())
    sec = t["seconds"]
    return {"d": d, "m": m, "V": V, "seed": seed, "constraints": int((~D.mask).sum()), "dim_perp": int(D.V * D.d - F.dim),
            "w_mm_method": sol.method, "w_mm_seconds": sec["w_mm"],
            "solver_seconds": {s: sec[s] for s in solvers}, "ratio": {s: sec[s] / sec["w_mm"] for s in solvers},
            "previous_seconds": sec["previous"], "previous_method": t["answers"]["previous"].method,
            "ratio_previous": sec["previous"] / sec["w_mm"],
            "difference": {s: _rel(t["answers"][s], sol.W) for s in solvers},
            "difference_tight_clarabel": _rel(ref, sol.W), "tight_tolerance": tol, "difference_previous": _rel(t["answers"]["previous"].W, sol.W),
            "kkt": sol.kkt, "kkt_certify": res.worst, "norm": sol.norm}


def linear_rows(sizes=SIZES, repeat: int = 3, seeds=(0,), progress=None) -> list[dict]:
    """One row per size and seed (module docstring); BLAS as the process has it (see :func:`run_bench_linear`)."""
    rows = []
    for d, m, V in sizes:
        for seed in seeds:
            row = _case_row(d, m, V, seed, repeat)
            rows.append(row)
            if progress:
                progress(f"d={d} m={m} V={V} seed {seed}: w_mm {row['w_mm_seconds'] * 1e3:.3g} ms ({row['w_mm_method']}), "
                         + ", ".join(f"{s} {row['solver_seconds'][s] * 1e3:.3g} ms ({row['ratio'][s]:.1f}x)" for s in row["ratio"]))
    return rows


def _blas_mode() -> str:
    from ntpcheck.common.blas import blas_limiter

    how = blas_limiter()
    if how:
        return f"1 thread ({how})"
    if all(os.environ.get(k) == "1" for k in BLAS_ENV):
        return "1 thread (environment)"
    return ""


def _single_threaded_rows(repeat: int, seeds, progress) -> tuple[list[dict], str]:
    """:func:`linear_rows` on one BLAS thread: here under :func:`ntpcheck.common.blas.single_threaded_blas` or the
    environment, else in a child process started with :data:`BLAS_ENV` set to 1 (its progress on our
    standard error)."""
    from ntpcheck.common.blas import single_threaded_blas

    mode = _blas_mode()
    if mode:
        with single_threaded_blas():
            return linear_rows(SIZES, repeat, seeds, progress), mode
    env = {**os.environ, **{k: "1" for k in BLAS_ENV}}
    code = f"from ntpcheck.app.scaleout.bench_linear import _child; _child({tuple(SIZES)!r}, {repeat}, {tuple(seeds)!r})"
    proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode:
        raise SystemExit(proc.returncode)
    return json.loads(proc.stdout.strip().splitlines()[-1]), "1 thread (child process, environment)"


def _child(sizes, repeat: int, seeds) -> None:
    """The child of :func:`_single_threaded_rows`: the rows as one JSON line on standard output."""
    try:
        rows = linear_rows(sizes, repeat, seeds, lambda s: builtins.print(s, file=sys.stderr, flush=True))
    except KeyboardInterrupt:  # the parent reports the Ctrl-C
        raise SystemExit(130) from None
    builtins.print(json.dumps(rows))


def _ms(x: float) -> str:
    return f"{x * 1e3:.3g} ms"


def run_bench_linear(args) -> int:
    from .bench import environment
    from ntpcheck.app.rendering.output import write_json
    from ntpcheck.app.rendering.render import table

    out = sys.stderr if args.json_path == "-" else sys.stdout
    print = functools.partial(builtins.print, file=out)  # noqa: A001 - text to stderr under --json -
    rows, blas = _single_threaded_rows(args.repeat, (0,), lambda s: builtins.print(s, file=sys.stderr, flush=True))
    solvers = list(rows[0]["ratio"]) if rows else []
    trows = []
    for r in rows:
        cells = [f"{r['d']}/{r['m']}/{r['V']}", str(r["constraints"]), _ms(r["w_mm_seconds"])]
        for s in solvers:
            cells += [_ms(r["solver_seconds"][s]), f"{r['ratio'][s]:.1f}x", f"{r['difference'][s]:.1e}"]
        cells += [f"{r['ratio_previous']:.1f}x", f"{r['difference_tight_clarabel']:.1e}", f"{r['kkt']:.1e}", f"{r['kkt_certify']:.1e}"]
        trows.append(cells)
    header = ["d/m/V", "(6b) rows", "w_mm"]
    for s in solvers:
        header += [s, "ratio", "difference"]
    header += ["vs previous", "diff. to tight CLARABEL", "KKT", "KKT (certify, F-perp)"]
    print(table(trows, header))
    print(f"\nBLAS: {blas}; minimum of {args.repeat} interleaved rounds (w_mm: at least {FAST_REPEAT} runs); "
          "differences: relative Frobenius norm to w_mm's answer")
    if args.json_path:
        write_json(args.json_path, {"rows": rows, "blas": blas, "repeat": args.repeat, "fast_repeat": FAST_REPEAT,
                                    "tight_tolerances": list(TIGHT), "environment": environment()})
    return 0
