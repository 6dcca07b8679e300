"""``ntpcheck solve``: the max-margin solutions ``W*_ov`` (Eq. 2) and ``W*_kq`` (Eq. 3), by token name.

Two ways to the same report (:class:`SolveReport`), chosen by what the user asked:

* the canonical embeddings with the exact solver (the default there): both
  solutions are built by column (:mod:`ntpcheck.transformer.maxmargin.compact`) and
  never as ``|V| x |V|`` matrices, so |V| = 10,000 takes seconds and
  little memory;
* any other embeddings or a cvxpy solver (``--solver NAME``): the dense
  solutions of :mod:`ntpcheck.transformer.maxmargin` (norms, residuals, ``--npz``); the
  token values ``x^T W q`` are read from them into
  :class:`~ntpcheck.common.sparsecols.SparseColumns`, except that the exact solver's
  are its own (``W = E U E^T`` under Assumption 2: ``U``, without the rounding
  of ``E^T W E``).

The text and JSON list what is there (:mod:`.solve_render`); ``--dense``
prints every entry; ``--npz PATH`` also writes the matrices for numpy
(:func:`npz_arrays`).  Bad input (an unwritable ``--npz`` path, or one that
is the dataset or embeddings file) stops before any work.

Examples
--------
>>> from ntpcheck.app.cli.cli import main
>>> main(["solve", "example1"])  # doctest: +ELLIPSIS
Eq. (2): ||W*_ov|| = 1.73205   (12 constraints, exact, ... s)
W*_ov x, by token x: each column equals its fill except at the tokens listed:
  x  fill   token  W*_ov x
  -  -----  -----  -------
  S  -0.25  V      0.75
...
  P      P      non-optimal  -0.5         -0.5
  (7 of the 16 (query, token) entries are 0 in both and not listed; --dense lists every entry)
  Proposition 2 vs solver: max |difference| = 5.55e-17
  KKT residuals: primal 0, dual 0, stationarity 5.6e-17, complementarity 0
0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ntpcheck.transformer import maxmargin as mm
from ntpcheck.transformer.embeddings import is_canonical, is_orthonormal
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.transformer.maxmargin.compact import CompactSolution, solve_eq2_compact, solve_eq3_compact
from ntpcheck.properties.huang2024.bounds import prop2_entries
from ntpcheck.common.sparsecols import SparseColumns
from ntpcheck.transformer.structure import Structure, analyse
from ntpcheck.transformer.textformat import load_with_header
from ntpcheck.transformer.textheader import Header

from .npz import write_npz
from .embedding_choice import chosen_embeddings
from .solve_render import solve_json, solve_text

__all__ = ["SolveReport", "run_solve", "solve_report", "npz_arrays"]


@dataclass(frozen=True, eq=False)
class SolveReport:
    """Everything ``ntpcheck solve`` prints, in token coordinates.

    ``w_ov`` has a column per token with a collocation (``W*_ov x``), ``w_kq``
    and ``prop2`` a column per query (``x^T W*_kq q`` and Proposition 2's
    value); ``eq2`` and ``eq3`` are the solutions (norm, residuals, timing);
    ``E`` the embeddings (None: canonical, never built).
    """

    structure: Structure
    eq2: mm.MaxMarginSolution | CompactSolution
    eq3: mm.MaxMarginSolution | CompactSolution
    w_ov: SparseColumns
    w_kq: SparseColumns
    prop2: SparseColumns | None
    prop2_note: str | None
    closed_form_diff: float | None
    solver: str
    E: np.ndarray | None

    @property
    def vocab(self) -> list[str]:
        return list(self.structure.dataset.vocab)


def run_solve(args, emit: Callable, warn: Callable[[str], None]) -> int:
    """The command: load, solve, write ``--npz``, print text or JSON (the output paths,
    ``--npz`` among them, were checked before any work: :func:`.options.check_options`).

    The CLI's helpers come as arguments (the CLI imports this module):
    ``emit(args, json, text, compact)`` prints, ``warn`` says a warning.
    """
    ds, header = load_with_header(args.dataset)
    rep = solve_report(args, analyse(ds), header)
    if not len(rep.w_ov.columns):
        warn("no token has a collocation (no sample is 'x -> y'; Assumption 1(i)), so W*_ov is 0 and its table is empty")
    if args.npz:
        write_npz(args.npz, npz_arrays(rep))
    emit(args, lambda: solve_json(rep, args.dense), lambda: solve_text(rep, args.dense), compact=len(rep.structure.queries) > 100)
    return 0


def solve_report(args, st: Structure, header: Header | None = None) -> SolveReport:
    """Solve Eq. (2) and Eq. (3) as ``args`` asks (``--embeddings``, ``--dim``, ``--solver``) and
    the dataset file's ``header`` gives (its embeddings, unless ``--embeddings`` says otherwise;
    :func:`.embedding_choice.chosen_embeddings`).  The canonical basis with the exact solver is
    solved by column, without building ``E`` (a |V| x |V| identity)."""
    V = st.dataset.n_vocab
    exact = args.solver is None or args.solver.lower() == "exact"
    given = None if header is None else header.embeddings
    canonical_basis = args.embeddings in (None, "canonical") and (given is None or is_canonical(given))
    if exact and canonical_basis and args.dim in (None, V):
        return _compact(st)
    return _dense(st, chosen_embeddings(args, st.dataset, header, args.dataset), args.solver)


def _compact(st: Structure) -> SolveReport:
    s2, s3 = solve_eq2_compact(st), solve_eq3_compact(st)
    prop2, note = _prop2(st, s3.W.columns)
    # closed form: the exact Eq. (2) answer is the closed form itself
    return SolveReport(st, s2, s3, s2.W, s3.W, prop2, note, 0.0, "exact", None)


def _dense(st: Structure, E: np.ndarray, solver: str | None) -> SolveReport:
    orthonormal = is_orthonormal(E)  # the canonical basis answers without computing E^T E
    solver = solver or ("exact" if orthonormal else mm.DEFAULT_SOLVER)
    queries = np.flatnonzero(st.query_row >= 0)
    if solver.lower() == "exact":
        s2, s3 = mm.solve_eq2_exact(st, E), mm.solve_eq3_exact(st, E)
        # W = E U E^T: report the solver's own token values U (x^T W q under Assumption 2), so
        # that the rounding of E^T W E (1e-17 where U is 0) does not list every entry
        w_ov, w_kq = solve_eq2_compact(st).W, solve_eq3_compact(st).W
    else:
        s2, s3 = mm.solve(mm.build_eq2(st, E), solver), mm.solve(mm.build_eq3(st, E), solver)
        U, K = (s2.W, s3.W) if is_canonical(E) else (s2.W @ E, E.T @ s3.W @ E)
        w_ov = SparseColumns.from_dense(U, sorted(st.dataset.index[x] for x in st.collocation.mapping), "common")
        w_kq = SparseColumns.from_dense(K, queries)
    prop2, note = _prop2(st, queries) if orthonormal else (None, "Proposition 2 needs Assumption 2 (orthonormal embeddings)")
    closed = float(np.max(np.abs(mm.eq2_closed_form(st, E) - s2.W), initial=0.0)) if orthonormal else None
    name = solver.upper() if solver.lower() != "exact" else "exact"
    return SolveReport(st, s2, s3, w_ov, w_kq, prop2, note, closed, name, None if is_canonical(E) else E)


def _prop2(st: Structure, queries: np.ndarray) -> tuple[SparseColumns | None, str | None]:
    """Proposition 2's values by query column, or None and why not."""
    try:
        row, token, value = prop2_entries(st)
    except NTPCheckError as e:
        return None, str(e)
    V = st.dataset.n_vocab
    return SparseColumns.from_entries((V, V), queries, 0.0, row, token, value), None


def npz_arrays(rep: SolveReport) -> dict[str, Callable[[], np.ndarray]]:
    """The ``--npz`` contents, each built when written.

    ``w_ov`` (``|V| x d``) and ``w_kq`` (``d x d``) are the solutions in the
    embedding space, as the model uses them; ``prop2`` is Proposition 2's
    ``W*_kq = E P E^T`` in the same coordinates (absent where it does not
    apply); ``vocab`` and ``queries`` name the tokens (row and column ``i``
    of a token-coordinate matrix is ``vocab[i]``); ``embeddings`` is ``E``
    (``d x |V|``), present unless it is the canonical basis (then every matrix
    is in token coordinates).
    """
    E = rep.E
    out: dict[str, Callable[[], np.ndarray]] = {}
    if E is None:
        out["w_ov"], out["w_kq"] = rep.w_ov.dense, rep.w_kq.dense
    else:
        out["w_ov"], out["w_kq"] = (lambda: rep.eq2.W), (lambda: rep.eq3.W)
    if rep.prop2 is not None:
        out["prop2"] = rep.prop2.dense if E is None else (lambda: E @ rep.prop2.dense() @ E.T)
    out["vocab"] = lambda: np.array(rep.vocab, dtype=str)
    out["queries"] = lambda: np.array(rep.structure.queries, dtype=str)
    if E is not None:
        out["embeddings"] = lambda: E
    return out
