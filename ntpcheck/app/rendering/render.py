"""Readable text and JSON renderings of ntpcheck's results.

Each ``*_json`` function returns the JSON object documented for the CLI
command of the same name; each ``*_text`` function renders the same content
for a person.  Nothing here computes: it only formats the data that the
core and the claim runner return.  ``check``'s renderings and the plain formatting
(:func:`fmt`, :func:`table`) are in :mod:`.render_check`, re-exported here.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ntpcheck.properties.framework import COUNT_NAMES, ClaimResult, MatrixCell, Verdict
from ntpcheck.properties.framework.informative import informative_text
from ntpcheck.properties.framework.results import room_text
from .output import ColumnTable
from .render_check import check_json, check_text, fmt, indent, table  # re-exported: one module renders everything

__all__ = [
    "INCOMPLETE",
    "check_json",
    "check_text",
    "token_table",
    "matrix_by_query",
    "columns_by_token",
    "fmt",
    "table",
    "indent",
    "result_summary",
    "c0_text",
    "results_table",
    "results_json",
    "matrix_table",
    "algorithm_table",
    "algorithm_legend",
    "algorithm_json",
    "matrix_json",
    "json_default",
]

def matrix_by_query(K: np.ndarray, vocab, queries=None) -> ColumnTable:
    """``{query: {token: K[token, query]}}`` for a ``|V| x |V|`` token-coordinate matrix."""
    queries = list(vocab) if queries is None else list(queries)
    idx = {t: i for i, t in enumerate(vocab)}
    return ColumnTable(K, vocab, queries, [idx[q] for q in queries])


def columns_by_token(U: np.ndarray, vocab, tokens=None) -> ColumnTable:
    """``{x: {v: U[v, x]}}``: the column ``W x`` of a value matrix, by output token."""
    return matrix_by_query(U, vocab, tokens)


def token_table(values: Mapping[str, Mapping[str, float]], vocab, title: str, digits: int = 6) -> str:
    """Render ``{column: {row: value}}`` as a table with one column per key."""
    cols = {c: values[c] for c in values}  # each column built once (a ColumnTable builds on access)
    rows = [[v] + [fmt(col[v], digits) for col in cols.values()] for v in vocab]
    return title + "\n" + indent(table(rows, [""] + list(cols)))


def result_summary(r: ClaimResult) -> str:
    """The number that best sums up a claim's result: slack, constant or rate."""
    m = r.measured
    if r.verdict is Verdict.FALSIFIED:
        return f"slack {m.get('slack', float('nan')):.3g}"
    if m.get("implied_c0") is not None:
        return c0_text(m)
    if "informative" in m:
        return informative_text(m, r.min_tested)
    if "fitted_exponent" in m:
        ci = m.get("exponent_ci")
        which = "closest to the rejection line: " if m.get("rejection_line") is not None else "slowest fitted "
        return f"{which}t^{m['fitted_exponent']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
    if "rate" in m:
        return f"rate {m['rate']}"
    ws = m.get("worst_slack")
    return "-" if ws is None else f"worst slack {ws:.3g}"


def c0_text(m) -> str:
    """Theorem 2's two constants said apart: the ``c_0`` its thresholds were evaluated
    at, and the smallest ``c_0`` the run is consistent with (``implied_c0``)."""
    used = f"c_0 = {m['c0']:g} used; " if m.get("c0") is not None else ""
    return f"{used}smallest c_0 consistent: {m['implied_c0']:.3g}"


def counts_text(counts) -> str:
    """``tested/drawn`` and the non-zero per-verdict counts, each with its distinct instances
    where repeats were drawn, e.g. ``10/14: 10 holds (7 distinct), 4 outside``.

    Examples
    --------
    >>> counts_text({"drawn": 3, "tested": 2, "holds": 2, "outside": 1,
    ...              "distinct": {"drawn": 2, "tested": 1, "holds": 1, "outside": 1}})
    '2/3: 2 holds (1 distinct), 1 outside'
    """
    distinct = counts.get("distinct") or {}

    def one(k: str) -> str:
        d = distinct.get(k, counts[k])
        return f"{counts[k]} {k}" + (f" ({d} distinct)" if d != counts[k] else "")

    parts = [one(k) for k in COUNT_NAMES.values() if counts.get(k)]
    return f"{counts['tested']}/{counts['drawn']}: " + ", ".join(parts) if parts else f"{counts['tested']}/{counts['drawn']}"


def exercised_text(ex) -> str:
    """The parts a claim's instances exercised: ``"2/2"``, ``"1/2 (never: lower 2||W*||)"``,
    ``"-"`` for a claim without parts; dominated parts are named after ``+``.

    Examples
    --------
    >>> exercised_text({"exercised": {"a": 3, "b": 0}, "dominated": ["c"], "mutation_score": 0.5})
    '1/2 (never: b) + dominated: c'
    >>> exercised_text({})
    '-'
    """
    if not ex:
        return "-"
    if ex.get("parts"):  # how tight each part was (a search's result)
        return tightness_text(ex["parts"])
    kills = ex.get("exercised", {})
    never = [n for n, k in kills.items() if k == 0]
    text = f"{len(kills) - len(never)}/{len(kills)}" + (f" (never: {', '.join(never)})" if never else "")
    return text + (f" + dominated: {', '.join(ex['dominated'])}" if ex.get("dominated") else "")


def tightness_text(parts) -> str:
    """Each part's tightness in one line: the tight ones counted, then the loose and dominated
    ones with their factors.

    Examples
    --------
    >>> tightness_text({"a": {"status": "tight", "text": "a tight"}, "C_1": {"status": "loose", "text": "C_1 x5.63"},
    ...                 "b": {"status": "dominated", "text": "b x1.41"}})
    'tight 1/3; loose: C_1 x5.63; dominated: b x1.41'
    """
    tight = sum(p["status"] == "tight" for p in parts.values())
    return "; ".join(x for x in (f"tight {tight}/{len(parts)}", room_text(parts)) if x)


#: What an interrupted run's report says of its verdicts (:meth:`ntpcheck.app.scaleout.units.Plan.interrupted`).
INCOMPLETE = ("The verdicts below are the finished ones, and those that a finished shard falsified "
              "(marked with their shards: the whole search may report a smaller counterexample).")


def results_table(results: list[ClaimResult]) -> str:
    """The verdict table of ``ntpcheck verify``."""
    rows = []
    for r in results:
        cex = "-"
        if r.counterexample:
            body = [ln for ln in r.counterexample.splitlines() if ln and not ln.startswith("#")]
            cex = " | ".join(body[:4]) + (" | ..." if len(body) > 4 else "")
        verdict = r.verdict.value
        if r.interrupted_after is not None:  # kept from a search stopped early (Plan.interrupted)
            verdict += " ({}/{} shards)".format(*r.interrupted_after)
        rows.append([r.claim.id, r.claim.reading or "", verdict, counts_text(r.counts), str(r.min_tested), exercised_text(r.exercised),
                     result_summary(r), cex])
    header = ["claim", "variant", "verdict", "tested/drawn", "needed", "parts (how tight)", "worst slack / rate", "counterexample"]
    if any(r.breaks is not None for r in results):  # a run on one given dataset
        there = {True: "holds", False: "fails", None: "-"}
        for row, r in zip(rows, results):
            row[4:4] = [there[r.conclusion_holds]]
        header[4:4] = ["conclusion there"]
    return table(rows, header)


def results_json(results: list[ClaimResult], paper: str, profile: str, seed: int, versions: dict, pinned: bool = True) -> dict:
    """The JSON object of ``ntpcheck verify --json``."""
    return {"paper": paper, "claims": [r.to_json() for r in results], "profile": profile, "seed": seed, "pinned": pinned,
            "versions": versions}


def matrix_table(cells: list[MatrixCell], conditions) -> str:
    """The assumption-necessity matrix as text; ``*`` marks a condition the claim does not list,
    ``-`` a cell not run (an interrupted run's last row is partial)."""
    names = list(dict.fromkeys(c.claim.name for c in cells))
    by = {(c.claim.name, c.condition): c for c in cells}
    rows = [[n] + [matrix_cell_text(by[(n, cond)]) if (n, cond) in by else "-" for cond in conditions] for n in names]
    return table(rows, ["claim"] + [f"without {c}" for c in conditions])


def matrix_cell_text(cell: MatrixCell) -> str:
    """``verdict* tested/drawn``, e.g. ``falsified* 3/5`` (``*``: the claim does not list the condition)."""
    r = cell.result
    return f"{r.verdict.value}{'' if cell.listed else '*'} {r.counts['tested']}/{r.counts['drawn']}"


def matrix_json(cells: list[MatrixCell], paper: str, profile: str, seed: int, versions: dict, pinned: bool = True) -> dict:
    """The JSON object of ``ntpcheck matrix --json``."""
    return {
        "paper": paper,
        "axis": "assumption",
        "rows": [
            {"claim": c.claim.id, "variant": c.claim.reading, "dropped": c.condition, "listed": c.listed,
             "verdict": c.result.verdict.value, "counts": dict(c.result.counts), "counterexample": c.result.counterexample,
             "detail": c.result.detail}
            for c in cells
        ],
        "profile": profile,
        "seed": seed,
        "pinned": pinned,
        "versions": versions,
    }


def algorithm_table(cells: list, variants) -> str:
    """The algorithm axis as text: a row per claim, a column per training algorithm."""
    names = list(dict.fromkeys(c.claim.name for c in cells))
    by = {(c.claim.name, c.algorithm.name): c for c in cells}
    rows = [[n] + [_algorithm_cell_text(by.get((n, v.name))) for v in variants] for n in names]
    return table(rows, ["claim"] + [v.name for v in variants])


def _algorithm_cell_text(cell) -> str:
    if cell is None:
        return ""
    if cell.result is None:
        return "n/a"
    return f"{cell.result.verdict.value} {cell.result.counts['tested']}/{cell.result.counts['drawn']}"


def algorithm_legend(variants) -> str:
    """One line per training algorithm: its name and what it changes."""
    return "\n".join(f"{v.name}: {v.description}" for v in variants)


def algorithm_json(cells: list, paper: str, profile: str, seed: int, versions: dict, pinned: bool = True) -> dict:
    """The JSON object of ``ntpcheck matrix --axis algorithm --json``."""
    rows = []
    for c in cells:
        r = c.result
        rows.append({"claim": c.claim.id, "variant": c.claim.reading, "algorithm": c.algorithm.name,
                     "paper_algorithm": c.paper_algorithm, "applicable": r is not None,
                     "verdict": None if r is None else r.verdict.value, "counts": None if r is None else dict(r.counts),
                     "counterexample": None if r is None else r.counterexample, "detail": c.reason if r is None else r.detail})
    algs = {c.algorithm.name: c.algorithm for c in cells}
    return {"paper": paper, "axis": "algorithm", "rows": rows,
            "algorithms": [{"name": a.name, "description": a.description, **{k: getattr(a, k) for k in (
                "schedule", "optimizer", "init_scale", "factorised", "batch_size", "lr", "seed")}} for a in algs.values()],
            "profile": profile, "seed": seed, "pinned": pinned, "versions": versions}


def json_default(x):
    """``json.dumps`` fallback for numpy scalars and arrays."""
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)
