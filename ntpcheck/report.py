"""Readable text and JSON renderings of ntpcheck's results.

Each ``*_json`` function returns the JSON object documented for the CLI
command of the same name; each ``*_text`` function renders the same content
for a person.  Nothing here computes: it only formats.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from .assumptions import CheckResult
from .structure import Structure

__all__ = [
    "check_json",
    "check_text",
    "token_table",
    "matrix_by_query",
    "columns_by_token",
    "fmt",
    "table",
]

ASSUMPTION_TITLES = {
    "1i": "Assumption 1(i)  collocation exists and explains every sample",
    "1ii": "Assumption 1(ii) partial orders acyclic, no confused token",
    "2": "Assumption 2     orthonormal embeddings",
    "3": "Assumption 3     |I(n)| >= multiplicity of each non-optimal token",
    "prefix": "Section 3        every prefix of a sentence is a sample",
    "realizable": "realizable       every sample has a token collocated with its next token",
}


def fmt(x: float, digits: int = 6) -> str:
    """Compact float formatting for tables."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}g}"


def table(rows: list[list[str]], header: list[str] | None = None) -> str:
    """A plain left-aligned text table."""
    allrows = ([header] if header else []) + rows
    if not allrows:
        return ""
    widths = [max(len(r[i]) for r in allrows) for i in range(len(allrows[0]))]
    out = []
    for k, r in enumerate(allrows):
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if header and k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def check_json(st: Structure, results: Mapping[str, CheckResult]) -> dict:
    """JSON of ``ntpcheck check``."""
    return {
        "vocab": list(st.dataset.vocab),
        "collocation": dict(st.collocation.mapping),
        "orders": {q: [[a, b] for a, b in g.edges] for q, g in st.orders.items()},
        "roles": {q: {x: r.value for x, r in rr.items()} for q, rr in st.roles.items()},
        "assumptions": {k: v.to_json() for k, v in results.items()},
    }


def check_text(st: Structure, results: Mapping[str, CheckResult]) -> str:
    """Text of ``ntpcheck check``."""
    ds = st.dataset
    lines = [
        f"dataset {ds.name or '(unnamed)'}: |V| = {ds.n_vocab}, N = {ds.n_samples} distinct samples, L_max = {ds.l_max}",
        f"vocabulary: {' '.join(ds.vocab)}",
        "",
        "collocation n(x):",
    ]
    coll = st.collocation
    for x in ds.vocab:
        lines.append(f"  {x} -> {coll(x) if coll(x) is not None else '(none)'}")
    lines += ["", "query-dependent partial orders (Definition 1):"]
    for q, g in st.orders.items():
        rel = ", ".join(f"{a} > {b}" for a, b in g.edges) or "(no relation)"
        lines.append(f"  under {q}: {rel}")
    lines += ["", "token roles per query:"]
    roles = st.roles
    rows = [[q] + [roles[q][x].value for x in ds.vocab] for q in st.orders]
    lines.append(_indent(table(rows, ["query"] + list(ds.vocab))))
    lines += ["", "assumptions:"]
    for k, res in results.items():
        mark = "holds" if res.holds else "FAILS"
        lines.append(f"  [{mark}] {ASSUMPTION_TITLES.get(k, k)}")
        for v in res.violations:
            lines.append(f"          - {v.message}")
    return "\n".join(lines)


def _indent(text: str, n: int = 2) -> str:
    return "\n".join(" " * n + ln for ln in text.splitlines())


def matrix_by_query(K: np.ndarray, vocab, queries=None) -> dict[str, dict[str, float]]:
    """``{query: {token: K[token, query]}}`` for a ``|V| x |V|`` token-coordinate matrix."""
    queries = list(vocab) if queries is None else list(queries)
    idx = {t: i for i, t in enumerate(vocab)}
    return {q: {x: float(K[idx[x], idx[q]]) for x in vocab} for q in queries}


def columns_by_token(U: np.ndarray, vocab, tokens=None) -> dict[str, dict[str, float]]:
    """``{x: {v: U[v, x]}}``: the column ``W x`` of a value matrix, by output token."""
    tokens = list(vocab) if tokens is None else list(tokens)
    idx = {t: i for i, t in enumerate(vocab)}
    return {x: {v: float(U[idx[v], idx[x]]) for v in vocab} for x in tokens}


def token_table(values: Mapping[str, Mapping[str, float]], vocab, title: str, digits: int = 6) -> str:
    """Render ``{column: {row: value}}`` as a table with one column per key."""
    cols = list(values)
    rows = [[v] + [fmt(values[c][v], digits) for c in cols] for v in vocab]
    return title + "\n" + _indent(table(rows, [""] + cols))
