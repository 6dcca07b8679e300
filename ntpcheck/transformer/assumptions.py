"""Checks of the paper's assumptions, with structured violations.

Conditions checked (names as used across ntpcheck):

``"1i"``
    Assumption 1(i): a collocation exists, i.e. the one-token samples define
    a function ``n`` that is injective, and it explains the data: every
    sample contains a token ``x`` with ``n(x)`` equal to its next token
    (``I(n)`` is non-empty; without this no choice of attention realises the
    sample).  The last part is also reported alone as ``"realizable"``.
``"1ii"``
    Assumption 1(ii): every x^q-partial order is acyclic and has no confused
    token.
``"2"``
    Assumption 2: the embeddings are orthonormal.
``"3"``
    Assumption 3: in every sample with ``I(n)`` non-empty, ``|I(n)|`` is at
    least the multiplicity of each non-optimal token.  Samples with empty
    ``I(n)`` are reported under ``"1i"`` instead (``I(n)`` is only defined
    for realizable samples), which keeps the checks independent.
``"prefix"``
    The Section 3 convention: every prefix of a training sentence is a
    training sample, ``([x_1..x_l], x_{l+1})`` for ``l < L``.
``"realizable"``
    The realizability part of ``"1i"`` on its own.

Each check returns a :class:`CheckResult` whose violations name the tokens,
queries and samples involved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ntpcheck.common.data import Dataset, Sample
from .embeddings import ORTHONORMAL_TOL, as_embeddings, orthonormality_defect
from .structure import Role, Structure, analyse

__all__ = [
    "Violation",
    "CheckResult",
    "CONDITIONS",
    "check_1i",
    "check_1ii",
    "check_2",
    "check_3",
    "check_prefix",
    "check_realizable",
    "check_all",
]

#: The independent conditions; ``"realizable"`` is part of ``"1i"``.
CONDITIONS = ("1i", "1ii", "2", "3", "prefix")


@dataclass(frozen=True)
class Violation:
    """One way in which a condition fails.

    Attributes
    ----------
    kind : str
        A short machine-readable tag (``"cycle"``, ``"confused-token"``...).
    message : str
        One readable sentence naming the tokens and samples involved.
    tokens : tuple of str
    query : str or None
    samples : tuple of str
        The samples involved, in the text format (``"S V -> O"``).
    """

    kind: str
    message: str
    tokens: tuple[str, ...] = ()
    query: str | None = None
    samples: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "message": self.message,
            "tokens": list(self.tokens),
            "query": self.query,
            "samples": list(self.samples),
        }


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one condition's check."""

    name: str
    violations: tuple[Violation, ...] = field(default_factory=tuple)

    @property
    def holds(self) -> bool:
        return not self.violations

    def __bool__(self) -> bool:
        return self.holds

    def to_json(self) -> dict:
        return {"holds": self.holds, "violations": [v.to_json() for v in self.violations]}


def _structure(ds_or_st: Dataset | Structure) -> Structure:
    return ds_or_st if isinstance(ds_or_st, Structure) else analyse(ds_or_st)


def _unexplained(st: Structure) -> list[Violation]:
    """The samples with no optimal position, as violations; computed once per structure
    (:func:`check_realizable` and :func:`check_1i` both report them)."""
    cached = st.__dict__.get("_unexplained_violations")
    if cached is None:
        cached = st.__dict__["_unexplained_violations"] = _find_unexplained(st)
    return list(cached)


def _find_unexplained(st: Structure) -> list[Violation]:
    """One violation per sample without an optimal position.  A sentence that extends the
    previous one by a token (a sequence line's prefixes) extends its distinct tokens and its
    text instead of rebuilding them, so a line of L tokens costs O(L^2) copying, not hashing."""
    out = []
    distinct: dict[str, None] = {}
    text = ""
    has_mask = st.n_optimal > 0
    for s, explained, extends in zip(st.dataset.samples, has_mask.tolist(), st.dataset.extends.tolist()):
        sent = s.sentence
        if extends:
            distinct[sent[-1]] = None
            text = f"{text} {sent[-1]}"
        else:
            distinct, text = dict.fromkeys(sent), " ".join(sent)
        if explained:
            continue
        out.append(
            Violation(
                "unexplained-sample",
                f"sample '{s.brief()}': no token of the sentence has collocation {s.next} "
                "(its next token), so no attention can predict it",
                tokens=(*distinct, s.next),
                query=s.query,
                samples=(s.text(text),),
            )
        )
    return out


def check_realizable(ds: Dataset | Structure) -> CheckResult:
    """Every sample contains a token whose collocation is its next token."""
    return CheckResult("realizable", tuple(_unexplained(_structure(ds))))


def check_1i(ds: Dataset | Structure) -> CheckResult:
    """Assumption 1(i): an injective collocation exists and explains every sample."""
    st = _structure(ds)
    coll = st.collocation
    out: list[Violation] = []
    for x, ys in coll.multiple_next.items():
        out.append(
            Violation(
                "not-a-function",
                f"one-token sentence '{x}' has several next tokens: {', '.join(ys)}",
                tokens=(x, *ys),
                query=x,
                samples=tuple(f"{x} -> {y}" for y in ys),
            )
        )
    for y, xs in coll.shared_next.items():
        out.append(
            Violation(
                "not-injective",
                f"tokens {', '.join(xs)} all have next token {y}: the collocation is not injective",
                tokens=(*xs, y),
                samples=tuple(f"{x} -> {y}" for x in xs),
            )
        )
    out.extend(_unexplained(st))
    return CheckResult("1i", tuple(out))


def _witness(st: Structure, q: str, a: str, b: str) -> tuple[str, ...]:
    return tuple(str(st.dataset.samples[k]) for k in st.orders[q][a][b]["samples"])


def check_1ii(ds: Dataset | Structure) -> CheckResult:
    """Assumption 1(ii): every x^q-partial order is acyclic, with no confused token."""
    st = _structure(ds)
    out: list[Violation] = []
    if not st.has_confused:
        # A cycle needs a token both above and below others, i.e. a confused one: without any,
        # the orders (networkx, 0.1 s to import, with witnesses) need not be built at all.
        return CheckResult("1ii", ())
    import networkx as nx

    from .structure import may_have_cycle

    for q, g in st.orders.items():
        try:
            cycle = nx.find_cycle(g) if may_have_cycle(g) else None
        except nx.NetworkXNoCycle:
            cycle = None
        if cycle:
            nodes = [a for a, _ in cycle] + [cycle[0][0]]
            wit = tuple(dict.fromkeys(w for a, b in cycle for w in _witness(st, q, a, b)))
            out.append(
                Violation(
                    "cycle",
                    f"under query {q} the order has a cycle {' > '.join(nodes)}",
                    tokens=tuple(nodes[:-1]),
                    query=q,
                    samples=wit,
                )
            )
        for x, r in st.roles[q].items():
            if r is Role.CONFUSED:
                a = next(iter(g.predecessors(x)))
                b = next(iter(g.successors(x)))
                out.append(
                    Violation(
                        "confused-token",
                        f"under query {q} token {x} is confused: {a} > {x} > {b}",
                        tokens=(a, x, b),
                        query=q,
                        samples=_witness(st, q, a, x) + _witness(st, q, x, b),
                    )
                )
    return CheckResult("1ii", tuple(out))


def check_2(ds: Dataset | Structure, embeddings: np.ndarray | None = None, tol: float = ORTHONORMAL_TOL) -> CheckResult:
    """Assumption 2: ``E^T E = I`` (orthonormal embeddings, hence ``d >= |V|``)."""
    st = _structure(ds)
    vocab = st.dataset.vocab
    E = as_embeddings(embeddings, len(vocab))
    d, n = E.shape
    out: list[Violation] = []
    if d < n:
        out.append(Violation("dimension", f"d = {d} < |V| = {n}: {n} vectors in R^{d} cannot be orthonormal"))
    norms = np.linalg.norm(E, axis=0)
    for i in np.flatnonzero(np.abs(norms - 1) > tol):
        out.append(Violation("norm", f"token {vocab[i]} has norm {norms[i]:.6g}, not 1", tokens=(vocab[i],)))
    G = E.T @ E
    iu = np.argwhere(np.triu(np.abs(G) > tol, k=1))
    for i, j in iu[:20]:
        out.append(
            Violation(
                "correlated",
                f"tokens {vocab[i]} and {vocab[j]} have inner product {G[i, j]:.6g}, not 0",
                tokens=(vocab[i], vocab[j]),
            )
        )
    if len(iu) > 20:
        out.append(Violation("correlated", f"... and {len(iu) - 20} more correlated pairs (max |E^T E - I| = {orthonormality_defect(E):.3g})"))
    return CheckResult("2", tuple(out))


def check_3(ds: Dataset | Structure) -> CheckResult:
    """Assumption 3: ``|I(n)| >= #{l : x_l = x}`` for every non-optimal token ``x`` of every sample
    (counted in one pass, :func:`ntpcheck.transformer.roles.non_optimal_majority`)."""
    from .roles import non_optimal_majority

    st = _structure(ds)
    vocab, samples = st.dataset.vocab, st.dataset.samples
    out: list[Violation] = []
    found = non_optimal_majority(*st.ragged, st.n_optimal, st.dataset.query_indices, st.query_row, st.role_codes)
    for n, x, c, p in zip(*(a.tolist() for a in found)):
        s = samples[n]
        out.append(
            Violation(
                "non-optimal-majority",
                f"sample '{s.brief()}': non-optimal token {vocab[x]} occurs {c} times but there are only "
                f"{p} optimal positions",
                tokens=(vocab[x],),
                query=s.query,
                samples=(str(s),),
            )
        )
    return CheckResult("3", tuple(out))


def check_prefix(ds: Dataset | Structure) -> CheckResult:
    """Section 3: every prefix ``([x_1..x_l], x_{l+1})`` of a sample is a sample.

    By induction only the longest proper prefix of each sample needs looking
    up (its own prefixes are checked as a sample); below a missing one the
    walk goes on down to the first prefix that is a sample.  A sample whose
    sentence extends the previous sample's by that sample's next token (a
    sequence line) has its longest proper prefix just before it, and a
    one-token sentence has none: no lookup.
    So a sequence line of L tokens costs O(L) (no sample is hashed), any
    other sample one lookup while its prefixes are present.  Each missing
    prefix is reported with the samples whose walk reached it.
    """
    st = _structure(ds)
    samples = st.dataset.samples
    keys: set | None = None
    missing: dict[tuple, list[str]] = {}
    for k, (s, extends) in enumerate(zip(samples, st.dataset.extends.tolist())):
        if (extends and samples[k - 1].next == s.sentence[-1]) or len(s.sentence) == 1:
            continue  # its prefix is the sample before it, or it has no proper prefix
        if keys is None:
            keys = {s.key for s in samples}
        seq = (*s.sentence, s.next)
        for l in range(len(s.sentence) - 1, 0, -1):
            key = (seq[:l], seq[l])
            if key in keys:
                break
            missing.setdefault(key, []).append(s)
    out = []
    for (sent, nxt), parents in missing.items():
        out.append(
            Violation(
                "missing-prefix",
                f"prefix sample '{Sample._unchecked(sent, nxt, 1.0).brief()}' of '{parents[0].brief()}' is not in the dataset",
                tokens=tuple(dict.fromkeys(sent)) + (nxt,),
                query=sent[-1],
                samples=tuple(map(str, parents)),
            )
        )
    return CheckResult("prefix", tuple(out))


def check_all(ds: Dataset | Structure, embeddings: np.ndarray | None = None) -> dict[str, CheckResult]:
    """Run every check: keys ``1i, 1ii, 2, 3, prefix, realizable``.

    Examples
    --------
    >>> import ntpcheck
    >>> {k: r.holds for k, r in check_all(ntpcheck.load("example1")).items()}
    {'1i': True, '1ii': True, '2': True, '3': True, 'prefix': True, 'realizable': True}
    >>> r = check_all(ntpcheck.loads("a -> b\\na -> c\\n"))["1i"]
    >>> r.holds, r.violations[0].message
    (False, "one-token sentence 'a' has several next tokens: b, c")
    """
    st = _structure(ds)
    return {
        "1i": check_1i(st),
        "1ii": check_1ii(st),
        "2": check_2(st, embeddings),
        "3": check_3(st),
        "prefix": check_prefix(st),
        "realizable": check_realizable(st),
    }


def failed(results: dict[str, CheckResult], names: Sequence[str] = CONDITIONS) -> list[str]:
    """Names among ``names`` whose check failed."""
    return [n for n in names if not results[n].holds]
