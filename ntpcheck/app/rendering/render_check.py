"""``ntpcheck check``'s text and JSON, and the plain formatting every rendering uses (:func:`fmt`,
:func:`table`, :func:`capped`, :func:`indent`).

Kept apart from :mod:`.render` (claim results, matrices), which loads the claim framework: ``check``
starts without it (issue 43).

Examples
--------
>>> print(table([["Lemma 1", "holds"]], ["claim", "verdict"]))
claim    verdict
-------  -------
Lemma 1  holds
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from ntpcheck.transformer.assumptions import CheckResult
    from ntpcheck.transformer.structure import Structure

__all__ = ["ASSUMPTION_TITLES", "TEXT_LIMIT", "capped", "check_json", "check_text", "fmt", "indent", "table"]

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
    widths = [max(map(len, column)) for column in zip(*allrows)]
    line = "  ".join(f"{{:<{w}}}" for w in widths).format  # one call per row (solve lists 10^5 rows)
    out = [line(*r).rstrip() for r in allrows]
    if header:
        out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def check_json(st: Structure, results: Mapping[str, CheckResult]) -> dict:
    """JSON of ``ntpcheck check``."""
    return {
        "vocab": list(st.dataset.vocab),
        "collocation": dict(st.collocation.mapping),
        "orders": {q: [[a, b] for a, b in edges] for q, edges in st.order_edges.items()},
        "roles": {q: {x: r.value for x, r in rr.items()} for q, rr in st.roles.items()},
        "assumptions": {k: v.to_json() for k, v in results.items()},
    }


#: Text output lists at most this many lines per section (collocation, orders, violations of
#: one assumption) and shows the roles table only up to this many tokens; JSON has everything.
TEXT_LIMIT = 40


def capped(lines: list[str], what: str, limit: int = TEXT_LIMIT) -> list[str]:
    """``lines``, or their first ``limit`` and a line saying how many more ``--json`` has."""
    if len(lines) <= limit:
        return lines
    pad = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    return lines[:limit] + [f"{pad}... and {len(lines) - limit} more {what} (all of them with --json)"]


def _relations(edges: list, limit: int = 12) -> str:
    """``a > b, c > d, ...`` for one query's order (its edges), at most ``limit`` relations."""
    text = ", ".join(f"{a} > {b}" for a, b in edges[:limit]) or "(no relation)"
    return text + (f", ... ({len(edges) - limit} more)" if len(edges) > limit else "")


def check_text(st: Structure, results: Mapping[str, CheckResult]) -> str:
    """Text of ``ntpcheck check`` (long sections capped at :data:`TEXT_LIMIT` lines)."""
    ds = st.dataset
    vocab = " ".join(ds.vocab) if ds.n_vocab <= TEXT_LIMIT else " ".join(ds.vocab[:TEXT_LIMIT]) + f" ... ({ds.n_vocab - TEXT_LIMIT} more)"
    lines = [
        f"dataset {ds.name or '(unnamed)'}: |V| = {ds.n_vocab}, N = {ds.n_samples} distinct samples, L_max = {ds.l_max}",
        f"vocabulary: {vocab}",
        "",
        "collocation n(x):",
    ]
    coll = st.collocation
    lines += capped([f"  {x} -> {coll(x) if coll(x) is not None else '(none)'}" for x in ds.vocab], "tokens")
    lines += ["", "query-dependent partial orders (Definition 1):"]
    lines += capped([f"  under {q}: " + _relations(edges) for q, edges in st.order_edges.items()], "queries")
    if ds.n_vocab <= TEXT_LIMIT:
        lines += ["", "token roles per query:"]
        roles = st.roles
        rows = [[q] + [roles[q][x].value for x in ds.vocab] for q in st.queries]
        lines.append(indent(table(rows, ["query"] + list(ds.vocab))))
    else:
        lines += ["", f"token roles per query: a {len(st.queries)} x {ds.n_vocab} table (with --json)"]
    lines += ["", "assumptions:"]
    for k, res in results.items():
        mark = "holds" if res.holds else "FAILS"
        lines.append(f"  [{mark}] {ASSUMPTION_TITLES.get(k, k)}")
        lines += capped([f"          - {v.message}" for v in res.violations], "violations")
    return "\n".join(lines)


def indent(text: str, n: int = 2) -> str:
    return "\n".join(" " * n + ln for ln in text.splitlines())
