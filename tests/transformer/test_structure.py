"""Collocation, Definition 1 orders, roles and assumption checks on hand-made cases."""

import numpy as np
from hypothesis import given, settings
from hypothesis.strategies import integers as st_integers, lists as st_lists

import ntpcheck
from ntpcheck import Role, analyse, check_all, loads
from ntpcheck.transformer.assumptions import check_1i, check_1ii, check_2, check_3, check_prefix, check_realizable


def edges(st, q):
    return sorted(st.orders[q].edges)


def test_example1_matches_paper():
    st = analyse(ntpcheck.load("example1"))
    assert st.collocation.mapping == {"S": "V", "V": "O", "O": "P", "P": "S"}
    # Example 1: S >_S P; V >_V S; O >_O S, O >_O V; O >_P P.
    assert edges(st, "S") == [("S", "P")]
    assert edges(st, "V") == [("V", "S")]
    assert edges(st, "O") == [("O", "S"), ("O", "V")]
    assert edges(st, "P") == [("O", "P")]
    assert st.roles["P"] == {"S": Role.NON_COMPARABLE, "V": Role.NON_COMPARABLE, "O": Role.OPTIMAL, "P": Role.NON_OPTIMAL}
    assert all(r.holds for r in check_all(st).values())


def test_optimal_positions():
    st = analyse(loads("a -> b\nc -> d\na c a -> b\n"))
    k = [i for i, s in enumerate(st.dataset.samples) if len(s.sentence) == 3][0]
    assert st.optimal[k] == (0, 2)
    assert st.eq3_pairs == (("a", "c", "a"),)


# A cycle under query q: a > b (first sentence), b > a (second).
CYCLE = "a -> A\nb -> B\nq -> Q\na b q -> A\nb a q -> B\n"


def test_cycle_is_reported_with_its_tokens_and_samples():
    st = analyse(loads(CYCLE))
    res = check_1ii(st)
    assert not res.holds
    cyc = [v for v in res.violations if v.kind == "cycle"]
    assert len(cyc) == 1 and cyc[0].query == "q" and set(cyc[0].tokens) == {"a", "b"}
    assert set(cyc[0].samples) == {"a b q -> A", "b a q -> B"}
    assert "cycle" in cyc[0].message and "q" in cyc[0].message
    # a cycle makes both tokens confused too
    assert {v.tokens[1] for v in res.violations if v.kind == "confused-token"} == {"a", "b"}


def test_confused_token_without_cycle():
    # under q: a > b (sentence 1) and b > c (sentence 2): b is confused, no cycle.
    st = analyse(loads("a -> A\nb -> B\nq -> Q\na b q -> A\nb c q -> B\n"))
    assert st.roles["q"]["b"] is Role.CONFUSED
    res = check_1ii(st)
    assert [v.kind for v in res.violations] == ["confused-token"]
    assert res.violations[0].tokens == ("a", "b", "c")


def test_collocation_conflicts():
    st = analyse(loads("a -> b\na -> c\nd -> b\n"))
    kinds = sorted(v.kind for v in check_1i(st).violations)
    assert kinds == ["not-a-function", "not-injective", "unexplained-sample"]
    assert st.collocation.multiple_next == {"a": ("b", "c")}
    assert st.collocation.shared_next == {"b": ("a", "d")}


def test_partial_collocation_is_allowed():
    st = analyse(loads("a -> b\nb a -> b\n"))
    assert st.collocation("b") is None
    res = check_all(st)
    assert res["1i"].holds and res["1ii"].holds and res["prefix"].holds is False


def test_unexplained_sample_is_1i_and_realizable_but_not_3():
    st = analyse(loads("a -> b\nc -> d\na c -> e\n"))
    assert not check_realizable(st).holds
    assert [v.kind for v in check_1i(st).violations] == ["unexplained-sample"]
    assert check_3(st).holds


def test_assumption3_boundary():
    ok = analyse(loads("a -> A\nc -> C\nq -> Q\na a c c q -> A\n"))
    assert check_3(ok).holds  # two optimal positions, c twice: exactly the boundary
    bad = analyse(loads("a -> A\nc -> C\nq -> Q\na c c q -> A\n"))
    v = check_3(bad).violations
    assert len(v) == 1 and v[0].tokens == ("c",) and "occurs 2 times" in v[0].message


def test_prefix_check_names_missing_prefix():
    st = analyse(ntpcheck.load("example1-sentences"))
    msgs = [v.message for v in check_prefix(st).violations]
    assert any("'S -> V'" in m for m in msgs)


def test_prefix_check_looks_up_a_sentence_that_extends_the_previous_by_another_token():
    """``a b d -> e`` follows ``a b -> c``: its sentence extends the previous one, but by ``d``,
    not by that sample's next token, so its prefix ``a b -> d`` is missing (as is ``a -> b``)."""
    ds = ntpcheck.Dataset(("a", "b", "c", "d", "e"), (ntpcheck.Sample(("a", "b"), "c"), ntpcheck.Sample(("a", "b", "d"), "e")))
    assert ds.extends.tolist() == [False, True]
    assert sorted(v.message.split("'")[1] for v in check_prefix(ds).violations) == ["a -> b", "a b -> d"]


def test_assumption2_violations():
    st = analyse(ntpcheck.load("example1"))
    assert check_2(st, np.eye(4)).holds
    E = np.eye(4)
    E[0, 1] = 0.3
    assert [v.kind for v in check_2(st, E).violations] == ["norm", "correlated"]
    low = np.eye(4)[:3]
    assert "dimension" in [v.kind for v in check_2(st, low).violations]


def test_violation_json_is_serialisable():
    import json

    st = analyse(loads(CYCLE))
    json.dumps({k: v.to_json() for k, v in check_all(st).items()})


@given(st_lists(st_integers(0, 5), min_size=2, max_size=9), st_integers(0, 30))
@settings(max_examples=150, deadline=None)
def test_prefix_check_finds_exactly_the_missing_prefixes(seq, drop):
    """The inductive prefix check (only the longest prefix looked up, walking down past missing
    ones) reports exactly the missing prefixes that Section 3's definition names."""
    words = [f"t{i}" for i in seq]
    samples = [ntpcheck.Sample(tuple(words[:l]), words[l]) for l in range(1, len(words))]
    kept = [s for k, s in enumerate(samples) if k == len(samples) - 1 or (drop >> k) & 1 == 0]
    ds = ntpcheck.Dataset(tuple(dict.fromkeys(words)), tuple(dict.fromkeys(kept)))
    keys = {s.key for s in ds.samples}
    expected = {(s.sentence[:l], (*s.sentence, s.next)[l]) for s in ds.samples for l in range(1, len(s.sentence))} - keys
    messages = {v.message.split("'")[1] for v in check_prefix(ds).violations}
    assert messages == {f"{' '.join(a)} -> {b}" for a, b in expected}
    assert len(check_prefix(ds).violations) == len(expected)
