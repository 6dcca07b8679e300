"""Every formula of Huang, Liang & Yang (NeurIPS 2024), once, with its equation or lemma.

Checkers and figures call these functions; nothing else writes a formula of
the paper.  They are pure functions of numbers (``t`` may be an array), so a
figure can draw a bound from a trajectory and a checker can test it.

Notation: ``w_ov = ||W*_ov||`` (Eq. 2), ``w_kq = ||W*_kq||`` (Eq. 3), ``V = |V|``,
``L = L_max``, ``N`` the number of distinct samples, ``eta_0`` and ``eta`` the
stage-1 and stage-2 step sizes of Algorithm 1.

Examples
--------
Example 1 of the paper has four collocation pairs over four tokens, so
``||W*_ov||^2 = |C| (|V| - 1)/|V| = 3``; with the Section 7 step
``eta_0 = 0.2/sqrt(4)`` and ``T = 900``:

>>> A(900, 0.1, 3 ** 0.5)
7.5
>>> round(C0(0.1, 3 ** 0.5) * 900, 12)   # Theorem 2 writes A = C_0 T
7.5
"""

from __future__ import annotations

import math

import numpy as np

from ntpcheck.common.errors import AssumptionViolatedError
from ntpcheck.common.sparsecols import flat_nonzero
from ntpcheck.transformer.structure import Role, as_structure

from ..framework.parts import DOWN, DROP, STEEPER_DOWN, STEEPER_UP, UP, mutable

__all__ = [
    "prop2_by_query",
    "prop2_entries",
    "prop2_hall_deficiency",
    "prop2_hall_deficiencies",
    "A",
    "C0",
    "C1",
    "lemma1_upper",
    "lemma1_lower",
    "lemma2_bracket",
    "prop1_alignment",
    "prop1_loss_rate",
    "cor1_threshold_constant",
    "cor1_corrected_upper",
    "lemma6_upper",
    "lemma6_lower",
    "lemma7_t0",
    "lemma7_alpha",
    "thm1_norm_lower",
    "thm1_alignment",
    "thm1_local_exponent",
    "thm2_implied_c0",
    "thm2_attention",
    "thm2_non_optimal_mass",
    "thm2_log_loss",
    "fn3_log_L_star",
    "prop2_values",
    "prop2_matrix",
    "THM2_K",
    "thm2_stage1_threshold",
    "thm2_stage2_threshold",
    "thm2_first_t",
    "thm2_log_non_optimal_mass",
]


# ---- Stage 1 (Section 5.1, Appendix B, C.1) ---------------------------------


def A(T: int, eta0: float, w_ov: float) -> float:
    """``A = T eta_0 / (4 ||W*_ov||^2)``: the stage-1 margin scale of Corollary 1 (App. C.1)."""
    return T * eta0 / (4 * w_ov**2)


def C0(eta0: float, w_ov: float) -> float:
    """``C_0 = eta_0 / (4 ||W*_ov||^2)`` of Theorem 2, so that ``A = C_0 T``."""
    return eta0 / (4 * w_ov**2)


def lemma1_upper(t, eta0: float):
    """Lemma 1 (App. B): ``||W_ov^(t)|| <= t eta_0`` (part ``"upper t eta_0"``: its constant 1)."""
    return mutable("upper t eta_0", 1.0, DOWN) * t * eta0


def lemma1_lower(t, eta0: float, w_ov: float):
    """Lemma 1 (App. B): ``||W_ov^(t)|| >= t eta_0 / (2 ||W*_ov||)`` (part ``"lower 2||W*_ov||"``)."""
    return t * eta0 / (mutable("lower 2||W*_ov||", 2.0, DOWN) * w_ov)


def lemma2_bracket(w_norm: float, w_ov: float, n_vocab: int) -> float:
    """Lemma 2 (App. B, read from its proof): ``||W^(t)||/||W*_ov|| + 2 log(2|V|)``,
    so that ``<W, grad L_0(W)> >= bracket <W*_ov, grad L_0(W)>``.  Both sides are negative, so a
    smaller bracket is a stronger claim (parts ``"||W||/||W*||"`` and the term ``"2 log(2|V|)"``)."""
    return mutable("||W||/||W*||", w_norm / w_ov, DOWN) + mutable("2 log(2|V|)", 2 * math.log(2 * n_vocab), DROP)


def prop1_alignment(t, eta0: float, w_ov: float, n_vocab: int, k: int = 1, C: float = 12.0):
    """Proposition 1: ``1 - cos(W_ov^(t), W*_ov) <= 12 ||W*_ov||^k log(2|V|) log t / (t eta_0)``.

    The exponent ``k`` is unreadable in the OCR (readings 1, 2, 3).  Parts: the constant
    ``"12"``, the exponent ``"k"`` (its mutant lowers ``||W*||^k``: steeper in the direction
    of ``log ||W*||``) and ``"log t"`` (its power 1 made 0.99).
    """
    k = mutable("k", k, STEEPER_DOWN if w_ov >= 1 else STEEPER_UP)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mutable("12", C, DOWN) * w_ov**k * math.log(2 * n_vocab) * np.log(t) ** mutable("log t", 1.0, STEEPER_DOWN)
                / (t * eta0))


def prop1_loss_rate(eta0: float, w_ov: float, k: int = 1) -> float:
    """Proposition 1: ``L_0(W_ov^(t)) = O(exp(-eta_0 t / (4 ||W*_ov||^k)))``: the claimed rate
    (parts: the constant ``"4"`` and the exponent ``"k'"``, each mutated towards a faster rate)."""
    k = mutable("k'", k, STEEPER_DOWN if w_ov >= 1 else STEEPER_UP)
    return eta0 / (mutable("4", 4.0, DOWN) * w_ov**k)


def cor1_threshold_constant(w_ov: float, n_vocab: int, k: int = 5) -> float:
    """``384 ||W*_ov||^k log(2|V|)``: Corollary 1 asks ``T >= constant log T / eta_0`` (part ``"threshold"``)."""
    return mutable("threshold", 384.0, DOWN) * w_ov**k * math.log(2 * n_vocab)


def cor1_corrected_upper(A_: float, w_ov: float, delta: float) -> float:
    """Corollary 1 corrected (ntpcheck's finding): margins ``< 4 ||W*_ov|| A (1 + 2 ||W*_ov|| sqrt(delta))``,
    ``delta`` Proposition 1's alignment bound for ``k = 1`` at ``T`` (part ``"4||W*_ov||"``)."""
    return mutable("4||W*_ov||", 4.0, DOWN) * w_ov * A_ * (1 + 2 * w_ov * math.sqrt(delta))


# ---- Stage 2 (Section 5.2, Appendix C) --------------------------------------


def C1(eta: float, l_max: int, w_kq: float) -> float:
    """``C_1 = eta / (4 L_max ||W*_kq||^2)`` of Theorem 2 (part ``"C_1"``: a larger one is a faster rate)."""
    return mutable("C_1", eta / (4 * l_max * w_kq**2), UP)


def lemma6_upper(t, eta: float):
    """Lemma 6 (App. C.3) and Theorem 1: ``||W_kq^(t)|| <= t eta`` (part ``"upper t eta"``: its constant 1)."""
    return mutable("upper t eta", 1.0, DOWN) * t * eta


def lemma6_lower(t, eta: float, l_max: int, w_kq: float):
    """Lemma 6 (App. C.3): ``||W_kq^(t)|| >= t eta / (2 L_max ||W*_kq||)`` (part ``"lower 2 L_max ||W*_kq||"``)."""
    return t * eta / (mutable("lower 2 L_max ||W*_kq||", 2.0, DOWN) * l_max * w_kq)


def lemma7_t0(eta: float, l_max: int, w_kq: float) -> int:
    """Lemma 7 (App. C.4): ``t_0 = ceil(8 L_max ||W*_kq||^2 / eta)`` (part ``"t_0"``, a threshold)."""
    return math.ceil(mutable("t_0", 8 * l_max * w_kq**2 / eta, DOWN))


def lemma7_alpha(n: int, l_max: int, w_kq: float, w_norm):
    """Lemma 7: ``alpha_t = 4 N L_max^2 ||W*_kq||^2 (1 + log(2 L_max ||W^(t)||)) / ||W^(t)||``
    (``w_norm`` a number or an array of them; part ``"alpha_t"``: its constant 4, smaller is stronger)."""
    return mutable("alpha_t", 4.0, DOWN) * n * l_max**2 * w_kq**2 * (1 + np.log(2 * l_max * w_norm)) / w_norm


def thm1_norm_lower(t, eta: float, w_kq: float, l_max: int = 1):
    """Theorem 1: ``||W_kq^(t)|| >= t eta / (2 ||W*_kq||)`` as printed (``l_max=1``);
    with ``l_max = L_max`` the reading of Lemma 6 (part ``"lower 2||W*_kq||"``)."""
    return t * eta / (mutable("lower 2||W*_kq||", 2.0, DOWN) * w_kq * l_max)


def thm1_alignment(t, eta: float, n: int, l_max: int, w_kq: float, C: float = 54.0):
    """Theorem 1, main term: ``1 - cos(W_kq^(t), W*_kq) <= 54 N L_max^4 ||W*_kq||^4 log^2 t / (t eta)``.

    The lower-order terms are unreadable in the OCR; dropping them makes the
    bound smaller, so a ``holds`` or ``vacuous`` verdict stays conclusive.  Parts: the
    constant ``"54"`` and the power of ``"log^2 t"`` (2 made 1.99).
    """
    return mutable("54", C, DOWN) * n * l_max**4 * w_kq**4 * np.log(t) ** mutable("log^2 t", 2.0, STEEPER_DOWN) / (t * eta)


def thm1_local_exponent(t: float) -> float:
    """The local log-log slope of Theorem 1's rate ``log^2 t / t`` at ``t``: ``-1 + 2/log t``
    (part ``"rate exponent"``: 0.01 steeper in its mutant)."""
    return mutable("rate exponent", -1 + 2 / math.log(t), STEEPER_DOWN)


def thm2_implied_c0(t: int, eta: float, n: int, l_max: int, w_kq: float) -> float:
    """The ``c_0`` for which Theorem 2's stage-2 threshold ``c_0 N L_max ||W*_kq||^6 log^2 t / eta`` equals ``t``."""
    return t * eta / (n * l_max * w_kq**6 * math.log(max(t, 2)) ** 2)


#: Theorem 2's exponent of ||W*_ov|| in the stage-1 threshold: 5, as Corollary 1, whose
#: threshold the proof of Theorem 2 (App. C.6) recalls.
THM2_K = 5


def thm2_stage1_threshold(T: int, eta0: float, w_ov: float, n_vocab: int, c0: float = 1.0, k: int = THM2_K) -> float:
    """Theorem 2's stage-1 threshold ``c_0 ||W*_ov||^k log|V| log T / eta_0`` (T must be at least this;
    part ``"T threshold"``)."""
    return mutable("T threshold", c0, DOWN) * w_ov**k * math.log(n_vocab) * math.log(max(T, 2)) / eta0


def thm2_stage2_threshold(t, eta: float, n: int, l_max: int, w_kq: float, c0: float = 1.0):
    """Theorem 2's stage-2 threshold ``c_0 N L_max ||W*_kq||^6 log^2 t / eta`` (t must be at least this)."""
    return c0 * n * l_max * w_kq**6 * np.log(np.maximum(t, 2)) ** 2 / eta


def thm2_first_t(eta: float, n: int, l_max: int, w_kq: float, c0: float = 1.0) -> int:
    """The smallest ``t >= 8`` with ``t >= c_0 N L_max ||W*_kq||^6 log^2 t / eta``; from there on
    it holds for every larger t (``t / log^2 t`` increases for ``t > e^2``).

    Examples
    --------
    >>> thm2_first_t(1.0, 1, 2, 2**-0.5)      # one constraint: t >= log^2 t / 4
    8
    """
    c = mutable("t threshold", c0, DOWN) * n * l_max * w_kq**6 / eta
    lo, hi = 8, 16
    while hi < c * math.log(hi) ** 2:
        lo, hi = hi, 2 * hi
    if lo >= c * math.log(lo) ** 2:
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid < c * math.log(mid) ** 2 else (lo, mid)
    return hi


def thm2_log_non_optimal_mass(t, C1_: float, l_max: int):
    """Theorem 2's attention bound as the log of the allowed non-optimal mass,
    ``log(L e^{-C_1 t} / (1 + L e^{-C_1 t}))``, finite however large ``C_1 t`` is
    (part ``"L_max factor"``: the factor ``L_max``, smaller is stronger)."""
    x = math.log(mutable("L_max factor", l_max, DOWN)) - C1_ * np.asarray(t, dtype=float)
    return x - np.logaddexp(0.0, x)


def thm2_attention(t, C1_: float, l_max: int):
    """Theorem 2: ``min_n sum_{l* in I(n)} phi_l*^(t) >= (1 + L_max exp(-C_1 t))^-1``."""
    return 1.0 / (1.0 + mutable("L_max factor", l_max, DOWN) * np.exp(-C1_ * t))


def thm2_non_optimal_mass(t, C1_: float, l_max: int):
    """Theorem 2's attention bound as the allowed non-optimal mass
    ``1 - (1 + L e^{-C_1 t})^-1 = L e^{-C_1 t} / (1 + L e^{-C_1 t})`` (no cancellation)."""
    e = l_max * np.exp(-C1_ * t)
    return e / (1.0 + e)


def thm2_log_loss(t, A_: float, C1_: float, l_max: int, n_vocab: int):
    """Theorem 2, in logs: ``log L(theta^(t)) <= log|V| - A + 2 A L_max / (L_max + exp(C_1 t))``
    (the claimed ``L - L* <= |V| exp(...) - L*`` with ``L*`` cancelled).  Parts: ``"|V|"``,
    ``"A"`` (larger is stronger where ``e^{C_1 t} > L_max``, so past Theorem 2's threshold) and
    ``"L_max factor"``."""
    A_ = mutable("A", A_, UP)
    L = mutable("L_max factor", l_max, DOWN)
    with np.errstate(over="ignore"):
        return math.log(mutable("|V|", n_vocab, DOWN)) - A_ + 2 * A_ * L / (L + np.exp(C1_ * t))


def fn3_log_L_star(A_: float, n_vocab: int) -> float:
    """Footnote 3 of Theorem 2: ``log L* = log(|V| exp(-T C_0)) = log|V| - A`` (parts ``"|V|"``, ``"A"``)."""
    return math.log(mutable("|V|", n_vocab, DOWN)) - mutable("A", A_, UP)


# ---- Section 6 ---------------------------------------------------------------


def prop2_hall_deficiency(st) -> float:
    """How far Proposition 2's formula is from being the max-margin solution (ours).

    Eq. (3) separates over queries; under query ``q`` the formula point
    (``|N|/(|O|+|N|)`` on ``O``, ``-|O|/(|O|+|N|)`` on ``N``) is feasible with
    every constraint tight, so it is optimal iff KKT multipliers ``lambda >= 0``
    exist on the order's edges ``o > x`` with each optimal token sending
    ``2|N|/(|O|+|N|)`` and each non-optimal one receiving ``2|O|/(|O|+|N|)``: a
    transportation problem, feasible iff Hall's condition
    ``|N(S)|/|N| >= |S|/|O|`` holds for every set ``S`` of optimal tokens
    (``N(S)``: the non-optimal tokens below some token of ``S``).

    Returns ``max_q max_S (|S|/|O| - |N(S)|/|N|)`` over proper non-empty
    subsets ``S`` of ``O`` for queries with ``|O| >= 2``, and ``-1`` if there
    is none (then Hall's condition holds trivially): ``<= 0`` iff the formula
    is exact, ``> 0`` by how much Hall's condition fails.  Under Section 3's
    prefix convention every query has one optimal token, so the result is
    ``-1``.  The value is also a distance to failure for the search.

    Examples
    --------
    >>> import ntpcheck
    >>> prop2_hall_deficiency(ntpcheck.analyse(ntpcheck.load("example1")))
    -1.0
    >>> cex = ntpcheck.loads("A -> A\\nA A B -> A\\nC -> B\\nC D E B -> B\\n")
    >>> round(prop2_hall_deficiency(ntpcheck.analyse(cex)), 6)  # S = {A}: 1/2 - 1/3
    0.166667
    """
    return max(prop2_hall_deficiencies(st).values(), default=-1.0)


def prop2_hall_deficiencies(st) -> dict[str, float]:
    """Per query, :func:`prop2_hall_deficiency` under that query alone (``-1`` where Hall's
    condition holds trivially: fewer than two optimal tokens, or no non-optimal one).

    Examples
    --------
    >>> import ntpcheck
    >>> cex = ntpcheck.loads("A -> A\\nA A B -> A\\nC -> B\\nC D E B -> B\\n")
    >>> {q: round(d, 6) for q, d in prop2_hall_deficiencies(ntpcheck.analyse(cex)).items()}
    {'A': -1.0, 'B': 0.166667, 'C': -1.0}
    """
    from itertools import combinations

    st = as_structure(st)
    out: dict[str, float] = {}
    for q, g in st.orders.items():
        r = st.roles[q]
        O = [x for x, role in r.items() if role is Role.OPTIMAL]
        N = {x for x, role in r.items() if role is Role.NON_OPTIMAL}
        worst = -1.0
        if len(O) >= 2 and N:
            for k in range(1, len(O)):
                for S in combinations(O, k):
                    below = {y for o in S for y in g.successors(o) if y in N}
                    worst = max(worst, k / len(O) - len(below) / len(N))
        out[q] = worst
    return out


def prop2_values(st) -> dict[str, dict[str, float]]:
    """Proposition 2's claimed ``x^T W*_kq q``, by query and token.

    For each query ``q`` with optimal set ``O``, non-optimal ``N`` and
    non-comparable ``M``: ``|N|/(|O|+|N|)`` on ``O``, ``-|O|/(|O|+|N|)`` on
    ``N``, 0 on ``M`` (and 0 everywhere for a query with no relation).

    Raises
    ------
    AssumptionViolatedError
        If some order has a confused token (Assumption 1(ii)): the
        proposition says nothing about it.

    Examples
    --------
    >>> import ntpcheck
    >>> vals = prop2_values(ntpcheck.analyse(ntpcheck.load("example1")))
    >>> vals["O"]["O"], vals["O"]["S"]     # under O: O > S and O > V
    (0.6666666666666666, -0.3333333333333333)
    """
    st = as_structure(st)
    vocab = st.dataset.vocab
    return {q: dict(zip(vocab, row)) for q, row in zip(st.queries, prop2_by_query(st).tolist())}


def prop2_by_query(st) -> np.ndarray:
    """:func:`prop2_values` as an array: row ``k`` is query ``st.queries[k]``, columns the vocabulary.

    Vectorised over the role codes of :class:`~ntpcheck.transformer.structure.Structure`.
    """
    st = as_structure(st)
    row, token, value = prop2_entries(st)
    P = np.zeros(st.role_codes.shape)
    P[row, token] = value
    return P


def prop2_entries(st) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`prop2_by_query` at its comparable tokens only: ``(row, token, value)`` with
    ``row`` indexing ``st.queries``; every other entry is 0 (``ntpcheck solve`` at large |V|)."""
    st = as_structure(st)
    if st.has_confused:
        q = next(q for q, conf in st.confused.items() if conf)
        raise AssumptionViolatedError(
            f"Proposition 2 needs Assumption 1(ii), but under query {q} token(s) {', '.join(st.confused[q])} are confused"
        )
    codes = st.role_codes
    row, token = np.divmod(flat_nonzero(codes), codes.shape[1])
    code = codes[row, token]
    n_o = np.bincount(row[code == 1], minlength=len(codes))
    n_n = np.bincount(row[code == 2], minlength=len(codes))
    tot = np.maximum(n_o + n_n, 1)
    return row, token, np.where(code == 1, (n_n / tot)[row], (-n_o / tot)[row])


def prop2_matrix(st, E: np.ndarray) -> np.ndarray:
    """Proposition 2's ``W*_kq = E P E^T`` with ``P[x, q]`` from :func:`prop2_values` (Assumption 2)."""
    from ntpcheck.transformer.embeddings import require_orthonormal

    st = as_structure(st)
    V = st.dataset.n_vocab
    require_orthonormal(E, "Proposition 2's formula")
    P = np.zeros((V, V))
    qi = [st.dataset.index[q] for q in st.queries]
    P[:, qi] = prop2_by_query(st).T
    return E @ P @ E.T
