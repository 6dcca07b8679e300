"""Text and JSON of ``ntpcheck solve``: the entries that are there, or with ``--dense`` all of them.

JSON (``"layout": "sparse"``, the default)::

    vocab, queries        token names; row/column i of a token-coordinate matrix is vocab[i]
    w_ov                  {x: {"fill": f, "entries": {v: W*_ov[v, x]}}} for each token x with a
                          collocation: column x of W*_ov (token coordinates) is f except at the
                          entries listed (f = -1/|V| for the exact solution); other columns are 0
    w_kq                  {q: {x: x^T W*_kq q}} for each query q: its nonzero entries (others 0)
    prop2                 {q: {x: Proposition 2's value}}: its nonzero entries, or null
    roles                 {q: {x: role}} for each (q, x) listed in w_kq or prop2
    omitted               {"w_ov": entries equal to their column's fill, "w_kq": zeros, "prop2": zeros}
    residuals, norms, eq2_closed_form_max_abs_diff, solver, seconds, stages, polish_move, [prop2_note]

So ``W*_kq`` in token coordinates is ``K = zeros((|V|, |V|))``, then
``K[vocab.index(x), vocab.index(q)] = v`` for each listed ``q, x, v``; the
values are the solver's floats, so the rebuilt matrix is the dense one
exactly.  With ``--dense`` (``"layout": "dense"``), ``w_ov``, ``w_kq`` and
``prop2`` are full tables ``{column: {row token: value}}`` over every token,
as before the sparse layout, and ``vocab``, ``queries``, ``roles`` and
``omitted`` are absent.

The text lists the same entries (``report.fmt``), says how many it leaves
out, and with ``--dense`` prints the full tables.

Examples
--------
>>> import argparse
>>> from ntpcheck import analyse, load
>>> from ntpcheck.app.cli.solve import solve_report
>>> args = argparse.Namespace(solver=None, embeddings="canonical", dim=None)
>>> d = solve_json(solve_report(args, analyse(load("example1"))))
>>> d["w_kq"]["P"], d["roles"]["P"], d["w_ov"]["S"], d["omitted"]
({'O': 0.5, 'P': -0.5}, {'O': 'optimal', 'P': 'non-optimal'}, {'fill': -0.25, 'entries': {'V': 0.75}}, {'w_ov': 12, 'w_kq': 7, 'prop2': 7})
"""

from __future__ import annotations

import numpy as np

from ntpcheck.common.sparsecols import SparseColumns
from ntpcheck.transformer.structure import Role

from ntpcheck.app.rendering import render as report

__all__ = ["solve_json", "solve_text", "ROLE_NAMES"]

KQ_HEADER = ["query", "token", "role", "x^T W*_kq q", "Prop. 2"]
#: Role names by :attr:`~ntpcheck.transformer.structure.Structure.role_codes` code.
ROLE_NAMES = tuple(r.value for r in (Role.NON_COMPARABLE, Role.OPTIMAL, Role.NON_OPTIMAL, Role.CONFUSED))


def solve_json(rep, dense: bool = False) -> dict:
    """The JSON object of ``ntpcheck solve`` (layout in the module docstring)."""
    obj = {"layout": "dense" if dense else "sparse", **(_dense_tables(rep) if dense else _sparse_tables(rep))}
    s2, s3 = rep.eq2, rep.eq3
    obj.update({
        "residuals": {"w_ov": s2.residuals.to_json(), "w_kq": s3.residuals.to_json()},
        "norms": {"w_ov": s2.norm, "w_kq": s3.norm},
        "eq2_closed_form_max_abs_diff": rep.closed_form_diff,
        "solver": rep.solver,
        "seconds": {"w_ov": s2.seconds, "w_kq": s3.seconds},
        "stages": {"w_ov": s2.stages, "w_kq": s3.stages},
        "polish_move": {"w_ov": s2.polish_move, "w_kq": s3.polish_move},
    })
    if rep.prop2_note:
        obj["prop2_note"] = rep.prop2_note
    return obj


def _fmt_all(values: list[float]) -> list[str]:
    """:func:`.render.fmt` of each value, each distinct value formatted once (solutions repeat few values).

    ``-0.0 == 0.0`` shares a key, so zeros are ``"0"`` and each ``-0.0`` is formatted itself.

    Examples
    --------
    >>> _fmt_all([0.0, -0.0, 0.25, 0.0, -0.0])
    ['0', '-0', '0.25', '0', '-0']
    """
    cache: dict[float, str] = {0.0: report.fmt(0.0)}
    out = [cache[v] if v in cache else cache.setdefault(v, report.fmt(v)) for v in values]
    arr = np.asarray(values, dtype=float)
    for i in np.flatnonzero((arr == 0.0) & np.signbit(arr)).tolist():
        out[i] = report.fmt(values[i])
    return out


def _names(rep) -> np.ndarray:
    return np.array(rep.vocab, dtype=object)


def _by_column(S: SparseColumns, names: np.ndarray) -> dict:
    """``{column name: {row name: value}}`` of the listed entries."""
    rows, vals = names[S.rows].tolist(), S.values.tolist()
    p = S.indptr.tolist()
    return {c: dict(zip(rows[p[k]:p[k + 1]], vals[p[k]:p[k + 1]])) for k, c in enumerate(names[S.columns].tolist())}


def _listed(rep) -> tuple[np.ndarray, np.ndarray]:
    """``(query position, token)`` of every entry listed in ``w_kq`` or ``prop2``, by query then token."""
    keys = rep.w_kq.keys() if rep.prop2 is None else np.union1d(rep.w_kq.keys(), rep.prop2.keys())
    return np.divmod(keys, rep.w_kq.shape[0])


def _sparse_tables(rep) -> dict:
    names = _names(rep)
    fills = rep.w_ov.fill.tolist()
    w_ov = {x: {"fill": fills[k], "entries": entries} for k, (x, entries) in enumerate(_by_column(rep.w_ov, names).items())}
    pos, tok = _listed(rep)
    queries = list(rep.structure.queries)
    roles: dict = {q: {} for q in queries}
    for k, x, code in zip(pos.tolist(), names[tok].tolist(), rep.structure.role_codes[pos, tok].tolist()):
        roles[queries[k]][x] = ROLE_NAMES[code]
    prop2 = rep.prop2
    return {
        "vocab": rep.vocab,
        "queries": queries,
        "w_ov": w_ov,
        "w_kq": _by_column(rep.w_kq, names),
        "prop2": None if prop2 is None else _by_column(prop2, names),
        "roles": roles,
        "omitted": {"w_ov": rep.w_ov.n_omitted, "w_kq": rep.w_kq.n_omitted, "prop2": None if prop2 is None else prop2.n_omitted},
    }


def _dense_tables(rep) -> dict:
    """Full tables, streamed column by column under ``--json`` (:class:`~.output.ColumnTable`)."""
    vocab, queries = rep.vocab, rep.structure.queries
    coll = [vocab[i] for i in rep.w_ov.columns]
    return {
        "w_ov": report.columns_by_token(rep.w_ov.dense(), vocab, coll),
        "w_kq": report.matrix_by_query(rep.w_kq.dense(), vocab, queries),
        "prop2": None if rep.prop2 is None else report.matrix_by_query(rep.prop2.dense(), vocab, queries),
    }


def solve_text(rep, dense: bool = False) -> str:
    """The text of ``ntpcheck solve``: the listed entries, or every entry with ``dense``."""
    s2, s3 = rep.eq2, rep.eq3
    lines = [_header("2", "ov", s2)]
    lines += _w_ov_dense(rep) if dense else _w_ov_sparse(rep)
    if rep.closed_form_diff is not None:
        lines.append(f"  closed form of Eq. (2): max |difference| = {rep.closed_form_diff:.3g}")
    lines += [_kkt(s2), "", _header("3", "kq", s3)]
    if dense:
        lines += _w_kq_dense_lines(rep)
    else:
        rows = _w_kq_rows_sparse(rep)
        lines.append(report.indent(report.table(rows, KQ_HEADER)))
        total = rep.w_kq.shape[0] * len(rep.w_kq.columns)
        lines.append(f"  ({total - len(rows):,} of the {total:,} (query, token) entries are 0 in both and not listed; "
                     "--dense lists every entry)")
    if rep.prop2_note:
        lines.append(f"  ({rep.prop2_note})")
    elif rep.prop2 is not None:
        lines.append(f"  Proposition 2 vs solver: max |difference| = {rep.prop2.max_abs_diff(rep.w_kq):.3g}")
    lines.append(_kkt(s3))
    return "\n".join(lines)


def _header(eq: str, which: str, s) -> str:
    return f"Eq. ({eq}): ||W*_{which}|| = {report.fmt(s.norm)}   ({s.n_constraints} constraints, {s.method}, {s.seconds:.3g} s)"


def _kkt(s) -> str:
    return "  KKT residuals: " + ", ".join(f"{k} {v:.2g}" for k, v in s.residuals.to_json().items())


def _w_ov_sparse(rep) -> list[str]:
    S, names = rep.w_ov, _names(rep)
    rows = []
    fills, values, tokens, p = _fmt_all(S.fill.tolist()), _fmt_all(S.values.tolist()), names[S.rows].tolist(), S.indptr.tolist()
    for k, x in enumerate(names[S.columns].tolist()):
        rows += [[x, fills[k], t, v] for t, v in zip(tokens[p[k]:p[k + 1]], values[p[k]:p[k + 1]])] or [[x, fills[k], "(none)", ""]]
    return [
        "W*_ov x, by token x: each column equals its fill except at the tokens listed:",
        report.indent(report.table(rows, ["x", "fill", "token", "W*_ov x"])),
        f"  (the other {S.n_omitted:,} entries of these {len(S.columns)} columns equal their fill and are not listed; "
        "columns of tokens without a collocation are 0; --dense lists every entry)",
    ]


def _w_ov_dense(rep) -> list[str]:
    """:func:`.render.token_table` of ``W*_ov``'s columns, each distinct value formatted once."""
    vocab = rep.vocab
    rows = [[v] + _fmt_all(row) for v, row in zip(vocab, rep.w_ov.dense()[:, rep.w_ov.columns].tolist())]
    header = [""] + [vocab[i] for i in rep.w_ov.columns]
    return ["W*_ov x, by output token (columns: x):\n" + report.indent(report.table(rows, header))]


def _w_kq_rows_sparse(rep) -> list[list[str]]:
    pos, tok = _listed(rep)
    names, queries = _names(rep), rep.structure.queries
    K = _fmt_all(rep.w_kq.at(pos, tok).tolist())
    P = ["n/a"] * len(K) if rep.prop2 is None else _fmt_all(rep.prop2.at(pos, tok).tolist())
    codes = rep.structure.role_codes[pos, tok].tolist()
    return [[queries[k], x, ROLE_NAMES[c], v, p]
            for k, x, c, v, p in zip(pos.tolist(), names[tok].tolist(), codes, K, P)]


def _w_kq_dense_lines(rep) -> list[str]:
    """Every (query, token) row, as ``report.indent(report.table(rows, KQ_HEADER))`` prints them,
    without the rows as lists (|V| = 2000 has 4 million): the cells are formatted per query,
    the widths taken over them, then each line is one format call."""
    vocab, queries = rep.vocab, rep.structure.queries
    K = rep.w_kq.dense()[:, rep.w_kq.columns].T  # one row per query
    P = None if rep.prop2 is None else rep.prop2.dense()[:, rep.prop2.columns].T
    k_text = [_fmt_all(row) for row in K.tolist()]
    p_text = [["n/a"] * len(vocab)] * len(queries) if P is None else [_fmt_all(row) for row in P.tolist()]
    codes = rep.structure.role_codes
    columns = [[queries], [vocab], [[ROLE_NAMES[c] for c in np.unique(codes).tolist()]], k_text, p_text]
    widths = [max([len(h)] + [len(cell) for part in parts for cell in set(part)]) for h, parts in zip(KQ_HEADER, columns)]
    line = ("  " + "  ".join(f"{{:<{w}}}" for w in widths)).format
    out = [line(*KQ_HEADER).rstrip(), "  " + "  ".join("-" * w for w in widths)]
    for k, q in enumerate(queries):
        roles = [ROLE_NAMES[c] for c in codes[k].tolist()]
        out += [line(q, x, r, v, p).rstrip() for x, r, v, p in zip(vocab, roles, k_text[k], p_text[k])]
    return out
