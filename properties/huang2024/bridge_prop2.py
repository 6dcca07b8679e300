"""Bridge [Prop. 2 = NTP-SVM] (ours): Huang et al.'s Prop. 2 against Thrampoulidis's closed form of
the NTP-SVM for orthogonal contexts, two independent derivations of one matrix column.

Tests: Huang, Liang & Yang (2024) Prop. 2 (corrected), the values of ``W*_kq`` (Eq. 3) on a query's
optimal and non-optimal tokens, against Thrampoulidis (2024) §3.1's NTP-SVM (Def. 3), whose
closed form for orthogonal contexts is proved in :mod:`ntpcheck.linear.svm`.

Under Assumption 2 write ``s_x = xᵀ W_kq q`` for the scores of query ``q``.  Eq. (3)'s constraints
under ``q`` are ``s_a − s_b ≥ 1`` for the pairs ``a >_q b``; when the order is complete bipartite
(every optimal token ``a ∈ O_q`` above every non-optimal ``b ∈ N_q``), the column's part on
``O_q ∪ N_q`` is the minimum-norm ``s`` with ``s_a − s_b ≥ 1`` for all ``(a, b) ∈ O_q × N_q``.
Thrampoulidis's NTP-SVM of one context ``h̄ = 1`` over the vocabulary ``O_q ∪ N_q`` with support
``O_q`` is the minimum-norm ``u`` with ``u_a = u_{a'}`` on the support and ``u_a − u_b ≥ 1``
across it.  The two programs differ by the support's equality (6a), which the first one's unique
solution meets by symmetry (exchanging two optimal tokens maps feasible points to feasible points
of the same norm, and the minimiser of a strictly convex function is unique), so they are one
program: Prop. 2's ``|N|/(|O|+|N|)`` and ``−|O|/(|O|+|N|)`` must equal the closed form
``(V′ − S)/V′`` and ``−S/V′`` with ``S = |O_q|``, ``V′ = |O_q| + |N_q|``, and the first paper's
solver (:attr:`~ntpcheck.properties.framework.evidence.Evidence.w_kq_star`) must give them.

Checked per query whose order is complete bipartite: the solver's column against
:func:`ntpcheck.linear.svm.w_mm_exact` on that one-context problem (the two papers' objects
compared directly, not Prop. 2's formula); ``outside-hypotheses`` where no query's order is
complete bipartite.  The non-comparable tokens' zeros (Prop. 2's third value) have no counterpart
in the linear model and stay with the ``Prop. 2`` records.
"""

from __future__ import annotations

import numpy as np

from ntpcheck.linear import NTPData
from ntpcheck.transformer.structure import Role

from ..framework.checks import falsified, holds, outside
from ..framework.claim import Claim, Structural
from ..framework.verdicts import Outcome
from .claims import ASSUMPTIONS_1_2, PROP2_EXACT_DATA, SOLVE_ONLY

__all__ = ["BRIDGE_PROP2_CLAIMS", "check_prop2_svm", "query_problem"]

#: W*_kq is polished to KKT residuals ~1e-15 and the closed form is exact: 1e-7 on entries in
#: [-1, 1] is far below any mismatch of the two programs (a wrong count moves an entry by >= 1/V'^2).
TOL = 1e-7


def query_problem(O: list[str], N: list[str]) -> NTPData:
    """Thrampoulidis's data of one context ``h̄ = 1`` (``d = m = 1``) over the vocabulary ``O + N``,
    with the next tokens ``O`` (one count each): the NTP-SVM of query ``q``'s column.

    Examples
    --------
    >>> from ntpcheck.linear.svm import w_mm_exact
    >>> w_mm_exact(query_problem(["a"], ["b", "c"]))[:, 0].round(6).tolist()  # (V'-S)/V', -S/V'
    [0.666667, -0.333333, -0.333333]
    """
    counts = np.array([[1] * len(O) + [0] * len(N)])
    return NTPData(np.ones((1, 1)), counts)


def _complete_bipartite(g, O: list[str], N: list[str]) -> bool:
    return bool(O) and bool(N) and all(g.has_edge(a, b) for a in O for b in N)


def check_prop2_svm(ev, *, closed_form=None) -> Outcome:
    """The solver's ``xᵀ W*_kq q`` on ``O_q ∪ N_q`` against the NTP-SVM closed form, on every query
    whose order is complete bipartite (module docstring).  ``closed_form(D)``: the linear model's
    solution (:func:`ntpcheck.linear.svm.w_mm_exact`; replaced in the sabotage)."""
    from ntpcheck.linear.svm import w_mm_exact

    closed_form = closed_form or w_mm_exact
    st, ds = ev.structure, ev.dataset
    K = ev.E.T @ ev.w_kq_star @ ev.E
    worst_, where, compared = 0.0, "", 0
    for q, g in st.orders.items():
        O = [x for x, r in st.roles[q].items() if r is Role.OPTIMAL]
        N = [x for x, r in st.roles[q].items() if r is Role.NON_OPTIMAL]
        if not _complete_bipartite(g, O, N):
            continue
        compared += 1
        u = closed_form(query_problem(O, N))[:, 0]
        s = np.array([K[ds.index[x], ds.index[q]] for x in O + N])
        k = int(np.argmax(np.abs(s - u)))
        if abs(s[k] - u[k]) > worst_:
            worst_ = float(abs(s[k] - u[k]))
            where = f"query {q}, token {(O + N)[k]}: W*_kq gives {s[k]:.6g}, the NTP-SVM {u[k]:.6g} (|O| = {len(O)}, |N| = {len(N)})"
    if not compared:
        return outside("no query's order is complete bipartite (every optimal token above every non-optimal one)")
    m = {"max_abs_error": worst_, "queries_compared": compared}
    if worst_ > TOL:
        return falsified(TOL - worst_, where, **m)
    return holds(TOL - worst_, f"{compared} queries: W*_kq's column = the NTP-SVM closed form to {worst_:.2g}", **m)


def _sabotage() -> Outcome:
    """The closed form scaled by 1.01 (every value 1% off) on Example 1: the check must see it."""
    from ntpcheck.linear.svm import w_mm_exact

    from ..framework.evidence import evidence
    from .setups import example1

    return check_prop2_svm(evidence(example1()), closed_form=lambda D: 1.01 * w_mm_exact(D))


BRIDGE_PROP2_CLAIMS: tuple[Claim, ...] = (
    Claim("Bridge", "ours; tests Huang Prop. 2 (corrected) against Thrampoulidis §3.1's closed form",
          "on every query whose order is complete bipartite, "
          "W*_kq's scores on the optimal and non-optimal tokens (Eq. 3, Prop. 2's two-level pattern) are the NTP-SVM "
          "(Def. 3) of one orthogonal context with the optimal tokens as its support (its closed form)",
          ASSUMPTIONS_1_2, PROP2_EXACT_DATA, check_prop2_svm, setup=SOLVE_ONLY, reading="Prop. 2 = NTP-SVM",
          slug="bridge-prop2-svm", sabotage=Structural(_sabotage, "the closed form 1% off (scaled by 1.01)")),
)
