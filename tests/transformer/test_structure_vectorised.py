"""The vectorised structure (index arrays) agrees with Definition 1 read literally.

:class:`ntpcheck.transformer.structure.Structure` computes ``I(n)``, the Eq. (3) pairs,
roles and confused tokens from padded index arrays; :func:`partial_orders`
builds the orders of Definition 1 one sample at a time.  On arbitrary
datasets (every assumption may fail) the two must agree exactly, and the
pairs must come in order of first occurrence (sample, ``l``, ``l'``), which
the constraint labels of Eq. (3) rely on.
"""

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from ntpcheck.common.data import Dataset, Sample
from ntpcheck.transformer.structure import Role, analyse, partial_orders, roles

TOKENS = ["a", "b", "c", "d", "e"]


@st.composite
def any_dataset(draw):
    """Arbitrary small datasets; shrink towards few, short sentences over few tokens."""
    sents = draw(st.lists(st.tuples(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=5), st.sampled_from(TOKENS)),
                          min_size=1, max_size=8))
    return Dataset.from_samples([Sample(tuple(s), y) for s, y in sents], vocab=TOKENS)


def literal_pairs(st_):
    """The Eq. (3) pairs by the nested loops of the definition, first occurrence first."""
    seen = {}
    coll = st_.collocation
    for s in st_.dataset.samples:
        pos = [l for l, x in enumerate(s.sentence) if coll(x) == s.next]
        if not pos:
            continue
        opt = [s.sentence[l] for l in pos]
        non = [x for l, x in enumerate(s.sentence) if l not in pos]
        for a in dict.fromkeys(opt):
            for b in dict.fromkeys(non):
                seen.setdefault((a, b, s.query), None)
    return tuple(seen)


@st.composite
def mixed_dataset(draw):
    """Sequence lines (each gives all its prefixes, which ``arrays`` fills as one broadcast) mixed
    with free samples, in drawn order; shrinks towards one short line."""
    lines = draw(st.lists(st.lists(st.sampled_from(TOKENS), min_size=2, max_size=7), min_size=1, max_size=4))
    samples = [Sample(tuple(s[:l]), s[l]) for s in lines for l in range(1, len(s))]
    free = draw(any_dataset()).samples if draw(st.booleans()) else ()
    order = draw(st.permutations(range(len(samples) + len(free)))) if draw(st.booleans()) else range(len(samples) + len(free))
    merged = [*samples, *free]
    return Dataset.from_samples([merged[i] for i in order], vocab=TOKENS)


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_dataset(), mixed_dataset()))
def test_vectorised_structure_matches_definition_1(ds):
    s = analyse(ds)
    assert s.eq3_pairs == literal_pairs(s)
    orders = partial_orders(ds, s.collocation)
    assert list(s.queries) == list(orders)
    for q, g in orders.items():
        assert {(a, b) for a, b, qq in s.eq3_pairs if qq == q} == set(g.edges)
        assert s.roles[q] == roles(g)
        assert s.confused[q] == [x for x in ds.vocab if roles(g)[x] is Role.CONFUSED]
    for sample, pos in zip(ds.samples, s.optimal):
        assert pos == tuple(l for l, x in enumerate(sample.sentence) if s.collocation(x) == sample.next)


@settings(max_examples=100, deadline=None)
@given(any_dataset())
def test_eq3_triples_grow_their_tables(ds):
    """Sized for one pair, the compiled triples grow their arrays and hash set and find the same."""
    from ntpcheck.transformer.kernels.eq3 import eq3_triples

    s = analyse(ds)
    small = eq3_triples(*s.ragged, s.n_optimal, ds.query_indices, ds.n_vocab, 1)
    assert [x.tolist() for x in small] == [x.tolist() for x in s.eq3_index]


@settings(max_examples=200, deadline=None)
@given(any_dataset())
def test_order_edges_are_the_graph_edges(ds):
    """``Structure.order_edges`` (from the index arrays) lists each query's relations exactly as
    the networkx orders of Definition 1 do, in the same order."""
    st_ = analyse(ds)
    graphs = partial_orders(ds, st_.collocation)
    assert st_.order_edges == {q: list(g.edges) for q, g in graphs.items()}


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_dataset(), mixed_dataset()))
def test_sample_arrays_are_the_sentences(ds):
    """``Dataset.arrays`` (one mapping pass, a chain of prefixes broadcast) pads each sentence literally."""
    a = ds.arrays
    for k, s in enumerate(ds.samples):
        L = len(s.sentence)
        assert a.lengths[k] == L and a.mask[k].sum() == L and not a.tokens[k, L:].any()
        assert [ds.vocab[i] for i in a.tokens[k, :L]] == list(s.sentence)
        assert ds.vocab[a.query[k]] == s.sentence[-1] and ds.vocab[a.target[k]] == s.next


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_dataset(), mixed_dataset()))
def test_ragged_form_is_the_sentences(ds):
    """The ragged form the compiled passes read (a chain of prefixes stored once as its last
    sentence) gives each sentence, its query and its next token literally."""
    s = analyse(ds)
    flat, start, lengths, target, nxt = s.ragged
    for k, x in enumerate(ds.samples):
        assert [ds.vocab[i] for i in flat[start[k]:start[k] + lengths[k]]] == list(x.sentence)
        assert ds.vocab[target[k]] == x.next and ds.vocab[ds.query_indices[k]] == x.query
    assert s.n_optimal.tolist() == [len(pos) for pos in s.optimal]


@st.composite
def samples_with_repeats(draw):
    """Samples of equal length over two tokens, so that many share (length, first, query, next)
    and some repeat; shrinks towards few samples."""
    L = draw(st.integers(1, 4))
    sents = draw(st.lists(st.tuples(st.lists(st.sampled_from("ab"), min_size=L, max_size=L), st.sampled_from("ab"),
                                    st.sampled_from([1.0, 2.5])), min_size=1, max_size=12))
    return [Sample(tuple(x), y, w) for x, y, w in sents]


@settings(max_examples=300, deadline=None)
@given(samples_with_repeats())
def test_repeated_samples_are_found_by_their_full_key(samples):
    """Bucketing by (length, first, query, next) before hashing finds exactly the samples whose
    sentence and next token repeat: merging adds their weights in order of first appearance,
    and a dataset built with a repeat is refused."""
    from ntpcheck.common.data import DatasetFormatError
    from ntpcheck.common.sample import first_of_key

    first: dict = {}
    assert first_of_key(samples) == [first.setdefault(x.key, i) for i, x in enumerate(samples)]
    weights: dict = {}
    for x in samples:
        weights[x.key] = weights.get(x.key, 0.0) + x.weight
    ds = Dataset.from_samples(samples)
    assert [(x.key, x.weight) for x in ds.samples] == list(weights.items())
    if len(weights) < len(samples):
        try:
            Dataset(ds.vocab, tuple(samples))
        except DatasetFormatError as e:
            assert "appears twice" in str(e)
        else:
            raise AssertionError("a repeated sample was accepted")
    else:
        assert Dataset(ds.vocab, tuple(samples)).samples == tuple(samples)


@settings(max_examples=200, deadline=None)
@given(st.one_of(any_dataset(), mixed_dataset()))
def test_unexplained_samples_read_literally(ds):
    """The realizability check (which extends a sequence line's tokens and text a token at a
    time) reports exactly the samples with no optimal position, each with its text and tokens."""
    from ntpcheck.transformer.assumptions import check_realizable

    s = analyse(ds)
    want = [x for x, pos in zip(ds.samples, s.optimal) if not pos]
    got = check_realizable(s).violations
    assert [v.samples for v in got] == [(str(x),) for x in want]
    assert [v.tokens for v in got] == [(*dict.fromkeys(x.sentence), x.next) for x in want]


def literal_assumption3(st_):
    """Assumption 3's violations ``(sample, token, count, |I(n)|)`` by the definition's loops."""
    out = []
    for s, pos in zip(st_.dataset.samples, st_.optimal):
        for x in dict.fromkeys(s.sentence) if pos else ():
            if st_.roles[s.query][x] is Role.NON_OPTIMAL and s.sentence.count(x) > len(pos):
                out.append((str(s), x, s.sentence.count(x), len(pos)))
    return out


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_dataset(), mixed_dataset()))
def test_assumption3_and_prefix_checks_read_literally(ds):
    """Assumption 3 (counted in one compiled pass) names exactly the non-optimal tokens that
    outnumber the optimal positions, in sample then first-occurrence order; the prefix check
    (no lookup for a sequence line's next prefix) names exactly the missing prefixes."""
    from ntpcheck.transformer.assumptions import check_3, check_prefix

    s = analyse(ds)
    got = [(v.samples[0], v.tokens[0], int(v.message.split(" occurs ")[1].split()[0]),
            int(v.message.split(" only ")[1].split()[0])) for v in check_3(s).violations]
    assert got == literal_assumption3(s)
    keys = {x.key for x in ds.samples}
    missing = {(x.sentence[:l], (*x.sentence, x.next)[l]) for x in ds.samples for l in range(1, len(x.sentence))} - keys
    assert {v.message.split("'")[1] for v in check_prefix(s).violations} == {f"{' '.join(a)} -> {b}" for a, b in missing}


@settings(max_examples=150, deadline=None)
@given(any_dataset())
def test_numpy_roles_equal_the_compiled_kernels(ds):
    """:mod:`ntpcheck.transformer.roles` (numpy, small data: no numba import for ``ntpcheck check``, issue 43) gives
    exactly what the compiled :mod:`ntpcheck.transformer.kernels.roles` gives: counts, role codes, Assumption 3's list."""
    import numpy as np

    from ntpcheck.transformer.kernels import roles as compiled
    from ntpcheck.transformer.roles import NUMPY

    small = SimpleNamespace(NUMPY=NUMPY, **NUMPY)  # the numpy forms, whatever is loaded
    s = analyse(ds)
    args = s.ragged
    p_small, p_compiled = small.optimal_counts(*args), compiled.optimal_counts(*args)
    assert p_small.dtype == p_compiled.dtype and np.array_equal(p_small, p_compiled)
    tail = (ds.query_indices, s.query_row, len(s.queries), ds.n_vocab)
    c_small, c_compiled = small.role_codes(*args, p_compiled, *tail), compiled.role_codes(*args, p_compiled, *tail)
    assert c_small.dtype == c_compiled.dtype and np.array_equal(c_small, c_compiled)
    got = small.non_optimal_majority(*args, p_compiled, ds.query_indices, s.query_row, c_compiled)
    want = compiled.non_optimal_majority(*args, p_compiled, ds.query_indices, s.query_row, c_compiled)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    from ntpcheck.transformer.kernels.eq3 import eq3_triples

    got = small.NUMPY["eq3_triples"](*args, p_compiled, ds.query_indices, ds.n_vocab)
    want = eq3_triples(*args, p_compiled, ds.query_indices, ds.n_vocab)
    assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, want)), (got, want)
