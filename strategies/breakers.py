"""Strategies for datasets that break exactly one condition of the paper.

``violating(a)`` draws one of two kinds of violation (for ``"2"`` the dataset
is realizable and the embeddings are drawn non-orthonormal instead):

*isolated*
    a realizable, prefix-closed base dataset (which may shrink to nothing)
    plus a small *gadget* on fresh tokens ``u, v, w`` that breaks condition
    ``a`` and nothing else.  The gadget never touches the base's queries,
    tokens or collocation, so it shows only what a violation does to itself.
*embedded*
    a realizable, prefix-closed base dataset (at least one sentence) plus
    one or a few samples built *from the base*: the violating sentence is a
    base sentence, or a base sentence followed by its next token, so it
    shares its query and tokens with base samples; its next token is any
    base token (one with a next token or without); its weight is drawn like
    the base's (up to 1000x apart).  Candidate additions are tried from a
    drawn starting point and the first that breaks exactly ``a`` (checked
    with :func:`ntpcheck.transformer.assumptions.check_all`) is kept, so every draw
    keeps the promise; if no candidate does, the isolated gadget is used.

    ======= ============================================================
    cond.   embedded additions (``X -> y`` a base sample, ``S`` = ``X`` or ``X y``)
    ======= ============================================================
    1i      ``S -> z`` with no token of ``S`` collocated to ``z``;
            ``x -> z`` for a one-token sample ``x -> y``, ``z != y``;
            ``x -> n(x')`` for a token ``x`` without a next token
    1ii     ``S -> n(t)`` for a token ``t`` of ``S`` (reverses an order)
    3       ``X y -> y``, ``X y y -> y`` (``y`` repeated past ``I(n)``), or
            ``S -> n(t)`` for a token ``t`` of ``S`` outnumbered in ``S``
    prefix  ``X t -> n(o)`` with ``t != y`` (the prefix ``X -> t`` missing)
    ======= ============================================================

    Embedded violations whose query is shared with a base sample shrink to
    (``tests/strategies/test_strategies.py``): 1i ``A -> B, A B -> B, A B -> A``;
    1ii ``A -> B, A B -> B, B -> A, A B -> A``; 3 ``A -> B, A B -> B,
    A B B -> B``; prefix ``A -> B, A A -> B``.

*general data* (``prefix_closed=False``, the matrix's "general data" rows)
    the base is general realizable data (prefix closure mostly fails, and is
    no condition of the row) and the candidates are those above plus, for
    Assumption 3, every multiplicity of any non-optimal token ``t`` of a base
    sample ``X -> y``: ``X`` with ``t`` repeated ``k`` times, ``|I(n)| < k``,
    up to ``L_max`` (:func:`_multiplied`); the degree of any violation (how
    many offending samples, 1 to 3) is drawn and shrinks to 1.  Shrinks to
    one sentence whose non-optimal token occurs twice and its optimal token
    once, with at most four samples (``tests/properties/test_readings.py``).  Half of
    the Assumption-3 draws (a choice that shrinks to the candidates above)
    try an *outvoting* sentence first (:func:`_outvoting`): ``o t t q ->
    n(o)`` on the query ``q`` of a base sample ``X -> y`` that has ``q`` as a
    non-optimal token and lacks ``o``, ``o`` and ``t`` collocated (a
    collocation added where a token lacks one).  It is the structure that
    breaks Lemma 5 at the first stage-2 step; the matrix (default profile,
    seeds 0-2) shrinks it to ``A -> A, A A B -> A, C D D B -> B, C -> B,
    D -> C`` (``tests/strategies/test_breakers_outvoting.py``).

Assumption 2 is broken at every degree (:mod:`.embeddings`): the smallest
defect an example shrinks to is an inner product of about 0.03 between two
columns, or a column of norm 1.01.

Gadgets (each is minimal for its kind; see ``tests/strategies/test_strategies.py``):

====== ================= ===============================================
cond.  variant           samples
====== ================= ===============================================
1i     not-a-function    ``u -> v``, ``u -> u``
1i     not-injective     ``u -> u``, ``v -> u``
1i     unexplained       ``u -> v``, ``u v -> u``
1ii    cycle             ``u v v u`` (3 prefixes), ``v -> u``
1ii    confused          ``u v w``, ``w u v u``, ``v w``
3      majority          ``u v v v`` (``u`` optimal once, ``v`` twice)
prefix missing-prefix    ``u -> u``, ``u v -> u`` (``u -> v`` missing)
2      correlated,       realizable data, embeddings with one correlated
       unnormalised,     pair, one column of norm != 1, or d < |V|
       low-dim
====== ================= ===============================================
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ntpcheck.transformer.assumptions import CONDITIONS, check_all, failed
from ntpcheck.transformer.construct import padded_dataset
from ntpcheck.common.data import Dataset, Sample
from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.textformat import loads

from ._validation import check_bounds, check_choice, check_int
from .datasets import STEERS, WEIGHTS, draw_realizable, token_names
from .embeddings import non_orthonormal_matrices, orthonormal_matrices

__all__ = ["violating", "breaks_exactly", "GADGETS", "BREAKABLE", "KINDS"]

#: The kinds of violation ``violating`` draws, in shrinking order.
KINDS = ("isolated", "embedded")
#: Candidate additions tried per embedded draw before falling back to the gadget.
_MAX_TRIES = 200

#: The conditions ``violating`` can break (those of :data:`ntpcheck.CONDITIONS`).
BREAKABLE = CONDITIONS

#: condition -> list of (variant, gadget text over u, v, w)
GADGETS: dict[str, list[tuple[str, str]]] = {
    "1i": [
        ("not-a-function", "u -> v\nu -> u\n"),
        ("not-injective", "u -> u\nv -> u\n"),
        ("unexplained", "u -> v\nu v -> u\n"),
    ],
    "1ii": [
        ("cycle", "u v v u\nv -> u\n"),
        ("confused", "u v w\nw u v u\nv w\n"),
    ],
    "3": [("majority", "u v v v\n")],
    "prefix": [("missing-prefix", "u -> u\nu v -> u\n")],
}


def _gadget_stats(text: str) -> tuple[int, int, int]:
    ds = loads(text)
    return ds.n_vocab, ds.n_samples, ds.l_max


def _instantiate(text: str, names: list[str]) -> Dataset:
    mapping = dict(zip("uvw", names))
    lines = []
    for ln in text.splitlines():
        lines.append(" ".join(mapping.get(w, w) for w in ln.split()))
    return loads("\n".join(lines) + "\n")


def _multiplied(base, n: dict, max_len: int) -> list[tuple[tuple[str, ...], ...]]:
    """Assumption 3 broken at every degree on general data: for a sample ``X -> y`` with
    optimal positions ``I`` and a non-optimal token ``t`` of ``X``, the sentence ``X`` with
    ``t`` repeated ``k`` times (``k`` from ``|I| + 1`` up to what ``max_len`` allows), the
    extra copies put first or just before the query (attention has no positions: only
    the multiset and the query matter), with the same query and next token, so the new
    sample shares its query and tokens with ``X -> y``.  Shorter sentences come first."""
    out = []
    for X, y in base:
        n_opt = sum(n.get(x) == y for x in X)
        if not n_opt:
            continue
        for t in dict.fromkeys(X):
            if n.get(t) == y:
                continue
            for k in range(max(n_opt + 1, X.count(t) + 1), max_len - len(X) + X.count(t) + 1):
                extra = (t,) * (k - X.count(t))
                for S in dict.fromkeys((extra + X, X[:-1] + extra + X[-1:])):
                    out.append(((S, y),))
    out.sort(key=lambda add: len(add[0][0]))
    return out


def _outvoting(base, n: dict, max_len: int, pool: list[str]) -> list[tuple[tuple[str, ...], ...]]:
    """Assumption 3 broken on general data where it moves Lemma 5's attention the wrong way:
    for a base sample ``X -> y`` whose query ``q`` is not optimal, the sentence ``o t .. t q -> n(o)`` (``t``
    repeated ``k >= 2`` times) for tokens ``o, t`` of the vocabulary ``pool`` outside ``X``
    but for ``t`` (``o != t``, neither is ``q``, ``n(o), n(t) != y``); a token without a
    collocation gets one (``o -> z``, ``z`` outside the image of ``n``, added too).

    Why (first order in the first stage-2 step, Appendix C.2's gradient): the step moves the
    score of token ``a`` under ``q`` by ``sum_n pi_n m_n(a) phi (c_a - cbar_n)``, summed over the
    samples with query ``q``, where ``c_a`` is the output margin of ``a``'s value for the sample's
    next token and ``cbar_n`` its attention-weighted mean.  In ``o t t q -> n(o)`` the repeated
    ``t`` outvotes ``o`` in the output softmax, so ``cbar < 0`` and every token whose value does not
    vote against ``n(o)``, the query among them, gains score under ``q``; in ``X -> y``, which has
    ``q`` but not ``o``, that shifts attention from its optimal position to ``q`` (``A -> A``,
    ``B -> B``, ``C -> C``, ``A B B D -> A``, ``C D -> C``: ``phi`` of ``C`` drops at ``t = 0``
    for stage-1 margins ``A >= 2``, and ``A >= 0.6`` when ``A B B D -> A`` weighs 31.6).
    Candidates adding fewer collocations, then shorter sentences, come first; whether one
    breaks exactly Assumption 3 (no cycle or confused token under ``q``) is decided by the caller."""
    image = set(n.values())
    free = [z for z in pool if z not in image]
    out = []
    for X, y in base:
        q = X[-1]
        if n.get(q) == y or len(set(X)) < 2:
            continue  # the query optimal in X (raising it raises X's optimal attention), or nothing to attend from
        for o in pool:
            if o in X or n.get(o) == y:
                continue
            for t in pool:
                if t in (o, q) or n.get(t) == y or (t in X and n.get(t) is None):
                    continue
                colls, spare = [], list(free)
                for x in (o, t):
                    if x not in n:
                        if not spare:
                            break
                        colls.append(((x,), spare.pop(0)))
                else:
                    no = n.get(o, colls[0][1] if colls else None)
                    for k in range(2, max_len - 1):
                        out.append((((o,) + (t,) * k + (q,), no), *colls))
    out.sort(key=lambda add: (len(add), len(add[0][0])))
    return list(dict.fromkeys(out))


def _candidates(condition: str, b, max_len: int, prefix_closed: bool = True) -> list[tuple[tuple[str, ...], ...]]:
    """Additions to the base (each a tuple of (sentence, next) pairs) that may break ``condition``.

    Every sentence added is a base sentence ``X`` or ``X y`` for a base sample
    ``X -> y`` (whose prefixes are all samples), except for ``"prefix"``, whose
    ``X t`` skips the sample ``X -> t``, and except on general data
    (``prefix_closed=False``), where Assumption 3 is also broken by any
    multiplicity of a non-optimal token (:func:`_multiplied`); which
    candidates break exactly ``condition`` is decided by the caller."""
    n = b.n
    base = [(smp.sentence, smp.next) for smp in b.samples]
    keys = set(base)
    vocab = list(dict.fromkeys(t for sent, y in base for t in (*sent, y)))
    image = set(n.values())
    out: list[tuple[tuple[str, ...], ...]] = []
    stems = [(X, y, S) for X, y in base for S in (X, X + (y,)) if len(S) <= max_len]
    if condition == "1i":
        out += [((S, z),) for X, y, S in stems for z in vocab if z not in {n.get(t) for t in S}]
        out += [(((x,), z),) for x, y in n.items() for z in vocab if z != y]
        out += [(((x,), z),) for x in vocab if x not in n for z in image]
    elif condition == "1ii":
        out += [((S, n[t]),) for X, y, S in stems if len(S) > 1 for t in dict.fromkeys(S) if t in n and (S, n[t]) not in keys]
    elif condition == "3":
        out += [((X + (y,), y), (X + (y, y), y)) for X, y in base if len(X) + 2 <= max_len and n.get(y) != y]
        out += [((S, n[t]),) for X, y, S in stems if len(S) > 2 for t in dict.fromkeys(S) if t in n and (S, n[t]) not in keys]
        if not prefix_closed:
            out += _multiplied(base, n, max_len)
    elif condition == "prefix":
        out += [((X + (t,), n[o]),) for X, y in base if len(X) < max_len for t in vocab if t != y and (X, t) not in keys
                for o in dict.fromkeys(X + (t,)) if o in n]
    return out


def breaks_exactly(ds: Dataset, condition: str, *, prefix_closed: bool = True) -> bool:
    """Whether ``ds`` breaks ``condition`` and no other condition of the row: on general data
    (``prefix_closed=False``) prefix closure is no condition, so it may fail too."""
    bad = set(failed(check_all(ds)))
    if not prefix_closed and condition != "prefix":
        bad.discard("prefix")
    return bad == {condition}


def _draw_embedded(draw, condition: str, pool: list[str], *, max_len: int, max_samples: int, min_vocab: int,
                   prefix_closed: bool = True) -> Dataset | None:
    """A base dataset with an embedded violation of ``condition``; a base on which no
    candidate works is redrawn with one more sentence (up to three); None if none works.

    On general data the degree of the violation is drawn too (shrinking to 1): up to
    two further candidates are added after the first when the result still breaks
    exactly ``condition`` (more offending samples, or for Assumption 3 more sentences
    with a repeated non-optimal token), each with its own weight.  (On prefix-closed
    data one addition, as the shrunk minima below were measured.)"""
    degree = 1 + draw(st.integers(0, 2)) if not prefix_closed else 1
    # On general data, Assumption 3 is broken half of the time by an outvoting sentence first
    # (:func:`_outvoting`): the structure that moves Lemma 5's attention down, which the other
    # candidates reach only where the base happens to hold two sentences on one query.  The
    # choice shrinks to the other candidates (and their shrunk minima).
    outvote = condition == "3" and not prefix_closed and draw(st.booleans())
    for min_sentences in (1, 2, 3):
        b = draw_realizable(draw, pool, max_len=max_len, max_samples=max(1, max_samples - 2), prefix_closed=prefix_closed,
                            min_sentences=min_sentences, steer=STEERS)
        cands = _candidates(condition, b, max_len, prefix_closed)
        outvoting = _outvoting([(s.sentence, s.next) for s in b.samples], b.n, max_len, pool) if outvote else []
        if outvote and not outvoting and min_sentences < 3:
            continue  # no sentence to outvote on this base: a larger one is drawn
        first = len(cands)
        if outvoting:
            cands, first = outvoting + cands, len(outvoting)
        if not cands:
            continue
        start = draw(st.integers(0, first - 1))
        weight = draw(WEIGHTS)
        samples: list[Sample] = list(b.samples)
        added = 0
        for k in range(min(len(cands), _MAX_TRIES)):
            more = [Sample(sent, y, weight) for sent, y in cands[(start + k) % len(cands)]]
            ds = Dataset.from_samples([*samples, *more])
            # Weights never decide a condition, so each further addition's weight is drawn once it is kept.
            if ds.n_samples <= max_samples and breaks_exactly(ds, condition, prefix_closed=prefix_closed):
                samples, added = list(ds.samples), added + 1
                if added == degree:
                    break
                weight = draw(WEIGHTS)
        if added:
            return padded_dataset(samples, min_vocab, pool)
    return None


def violating(
    assumption: str,
    *,
    min_vocab: int = 2,
    max_vocab: int = 8,
    max_len: int = 6,
    max_samples: int = 12,
    kinds: tuple[str, ...] = KINDS,
    prefix_closed: bool = True,
    embeddings: str = "canonical",
):
    """Instances that break exactly ``assumption`` and satisfy every other condition.

    Parameters
    ----------
    assumption : {"1i", "1ii", "2", "3", "prefix"}
        The condition to break (see :mod:`ntpcheck.transformer.assumptions`).
    min_vocab, max_vocab, max_len, max_samples : int
        Size bounds, as for :func:`strategies.realizable_datasets`; they
        must leave room for the gadget.
    kinds : tuple of {"isolated", "embedded"}
        Which kinds of violation to draw (see the module docstring); both by
        default.  Ignored for ``"2"``.
    prefix_closed : bool
        The data reading of the row: True breaks ``assumption`` on prefix-closed data
        (Section 3's convention, kept); False on general realizable data
        (:func:`~.datasets.realizable_datasets` with ``prefix_closed=False``), whose
        prefix closure is no condition and mostly fails.
    embeddings : {"canonical", "orthonormal"}
        The embeddings of the row (except for ``"2"``, which draws
        non-orthonormal ones): canonical, or random orthonormal with ``d`` in
        ``[|V|, |V| + 2]``.

    Returns
    -------
    SearchStrategy[ntpcheck.transformer.instance.Instance]

    Shrinks towards the isolated gadget alone (the base shrinks to
    nothing), the first variant in the table below; embedded violations
    shrink towards a one-sentence base and the first candidate that works;
    for ``"2"``, towards the smallest realizable dataset with a correlated
    pair.
    """
    check_choice("assumption", assumption, BREAKABLE)
    check_int("min_vocab", min_vocab, 1)
    check_int("max_vocab", max_vocab, 1)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_int("max_len", max_len, 1)
    check_int("max_samples", max_samples, 1)
    if isinstance(kinds, str) or not kinds or not set(kinds) <= set(KINDS):
        raise InvalidArgument(f"kinds={kinds!r} must be a non-empty tuple of {KINDS}")
    kinds = tuple(k for k in KINDS if k in kinds)
    if not isinstance(prefix_closed, bool):
        raise InvalidArgument(f"prefix_closed={prefix_closed!r} must be a bool")
    check_choice("embeddings", embeddings, ("canonical", "orthonormal"))

    if assumption == "2":
        from .datasets import realizable_datasets

        if max_vocab < 2:
            raise InvalidArgument("breaking Assumption 2 needs max_vocab >= 2")
        base = realizable_datasets(min_vocab=max(min_vocab, 2), max_vocab=max_vocab, max_len=max_len, max_samples=max_samples,
                                   prefix_closed=prefix_closed, steer=STEERS if not prefix_closed else ())

        @st.composite
        def _bad_embeddings(draw):
            ds = draw(base)
            kind = draw(st.sampled_from(["correlated", "unnormalised", "low-dim"]))
            return Instance(ds, draw(non_orthonormal_matrices(ds.n_vocab, kind)))

        return _bad_embeddings()

    fitting = []
    for variant, text in GADGETS[assumption]:
        nv, ns, lm = _gadget_stats(text)
        if nv <= max_vocab and ns <= max_samples and lm <= max_len:
            fitting.append((variant, text, nv, ns))
    if not fitting:
        smallest = min((_gadget_stats(t) for _, t in GADGETS[assumption]), key=lambda s: s[1])
        raise InvalidArgument(
            f"breaking {assumption!r} needs max_vocab >= {smallest[0]}, max_samples >= {smallest[1]} "
            f"and max_len >= {smallest[2]}; got {max_vocab}, {max_samples}, {max_len}"
        )

    @st.composite
    def _isolated(draw):
        variant, text, nv, ns = draw(st.sampled_from(fitting))
        pool = token_names(max_vocab - nv)
        base = draw_realizable(
            draw, pool, max_len=max_len, max_samples=max_samples - ns, prefix_closed=prefix_closed, min_sentences=0
        ) if pool and max_samples > ns else None
        taken = {t for smp in (base.samples if base else []) for t in (*smp.sentence, smp.next)}
        names = [t for t in token_names(max_vocab) if t not in taken][:nv]
        gadget = _instantiate(text, names)
        samples = (list(base.samples) if base else []) + list(gadget.samples)
        return padded_dataset(samples, min_vocab, token_names(max_vocab))

    @st.composite
    def _violating(draw):
        if draw(st.sampled_from(kinds)) == "embedded":
            ds = _draw_embedded(draw, assumption, token_names(max_vocab), max_len=max_len, max_samples=max_samples,
                                min_vocab=min_vocab, prefix_closed=prefix_closed)
            if ds is not None:
                return _with_embeddings(draw, ds)
        return _with_embeddings(draw, draw(_isolated()))

    def _with_embeddings(draw, ds: Dataset) -> Instance:
        return Instance(ds, draw(orthonormal_matrices(ds.n_vocab)) if embeddings == "orthonormal" else None)

    return _violating()
