"""The strategies keep their promises, reach every structure, and shrink to small examples."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.errors import InvalidArgument

import ntpcheck
from ntpcheck import Role, analyse, check_all
from ntpcheck.transformer.assumptions import failed
from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.training import TrainingConfig
from ntpcheck.transformer.embeddings import is_orthonormal
from ntpcheck.strategies import (BREAKABLE, MAX_WEIGHT_RATIO, STEERS, embeddings, instances, realizable_datasets,
                                 training_params, violating)
from ntpcheck.strategies.breakers import KINDS
from ntpcheck.properties.huang2024.bounds import prop2_hall_deficiency

from tests.helpers import find_any, minimal

AT_LEAST_200 = settings(max_examples=max(200, settings.default.max_examples))


# --- every draw keeps the promise -------------------------------------------------

@AT_LEAST_200
@given(realizable_datasets())
def test_realizable_prefix_closed_satisfies_every_condition(ds):
    r = check_all(ds)
    assert failed(r) == [] and r["realizable"].holds


@AT_LEAST_200
@given(realizable_datasets(prefix_closed=False, max_len=5))
def test_realizable_without_prefix_closure_satisfies_the_assumptions(ds):
    r = check_all(ds)
    assert [c for c in failed(r) if c != "prefix"] == []
    assert ds.l_max <= 5


@AT_LEAST_200
@given(realizable_datasets(steer=STEERS))
def test_steered_prefix_closed_satisfies_every_condition(ds):
    assert failed(check_all(ds)) == []


@AT_LEAST_200
@given(realizable_datasets(prefix_closed=False, steer=STEERS))
def test_steered_without_prefix_closure_satisfies_the_assumptions(ds):
    assert [c for c in failed(check_all(ds)) if c != "prefix"] == []


@AT_LEAST_200
@given(instances(realizable_datasets(max_vocab=5), TrainingConfig(), embeddings="orthonormal"))
def test_orthonormal_instances(inst):
    assert isinstance(inst, Instance)
    assert failed(check_all(inst.dataset, inst.E)) == []


@given(st.data(), st.integers(1, 6), st.integers(1, 10), st.integers(1, 5), st.integers(1, 20))
def test_bounds_are_respected(data, lo, span, max_len, max_samples):
    ds = data.draw(realizable_datasets(min_vocab=lo, max_vocab=lo + span, max_len=max_len, max_samples=max_samples))
    assert lo <= ds.n_vocab <= lo + span
    assert ds.l_max <= max_len and ds.n_samples <= max_samples


@pytest.mark.parametrize("kinds", [KINDS, ("isolated",), ("embedded",)], ids=["both", "isolated", "embedded"])
@pytest.mark.parametrize("assumption", BREAKABLE)
def test_violating_breaks_exactly_one(assumption, kinds):
    if assumption == "2" and kinds != KINDS:
        pytest.skip("Assumption 2 is broken by the embeddings, not by samples")

    @AT_LEAST_200
    @given(violating(assumption, kinds=kinds))
    def inner(inst):
        assert failed(check_all(inst.dataset, inst.E)) == [assumption]

    inner()


# --- embedded violations interact with the base data ------------------------------

def _text(s) -> str:
    return f"{' '.join(s.sentence)} -> {s.next}"


def _split(inst, condition):
    """The samples named by ``condition``'s violations, and the others."""
    named = {x.split(" @ ")[0] for v in check_all(inst.dataset, inst.E)[condition].violations for x in v.samples}
    bad = [s for s in inst.dataset.samples if _text(s) in named]
    return bad, [s for s in inst.dataset.samples if _text(s) not in named]


def shares_query(inst, condition) -> bool:
    """A violating sample has the query of a sample that is not part of the violation."""
    bad, ok = _split(inst, condition)
    return any(b.query == o.query for b in bad for o in ok)


SAMPLE_BREAKABLE = [c for c in BREAKABLE if c != "2"]


@pytest.mark.parametrize("condition", SAMPLE_BREAKABLE)
def test_embedded_violation_outweighs_a_satisfying_sentence_on_its_query(condition):
    """The interaction the isolated gadgets cannot produce: the violating sentence shares
    its query with a satisfying sentence of lower weight."""

    def outweighs(inst):
        bad, ok = _split(inst, condition)
        return any(b.query == o.query and o.weight < b.weight for b in bad for o in ok)

    find_any(violating(condition), outweighs)


@pytest.mark.parametrize("condition", SAMPLE_BREAKABLE)
def test_embedded_violation_reuses_base_tokens_with_three_distinct_tokens(condition):
    def rich(inst):
        bad, ok = _split(inst, condition)
        toks = {t for o in ok for t in (*o.sentence, o.next)}
        return any(len(set(b.sentence)) >= 3 and set(b.sentence) <= toks for b in bad)

    find_any(violating(condition, kinds=("embedded",)), rich)


@pytest.mark.parametrize("condition", SAMPLE_BREAKABLE)
def test_most_embedded_draws_interact_with_the_base(condition):
    """Falling back to the isolated gadget is the exception: most embedded draws share a
    query with a sample outside the violation, or the violation reaches into the base
    (a collocation conflict that leaves base samples unexplained names 3 or more samples)."""
    seen = []

    @settings(max_examples=100, database=None, derandomize=True)
    @given(violating(condition, kinds=("embedded",)))
    def inner(inst):
        bad, _ = _split(inst, condition)
        seen.append(shares_query(inst, condition) or len(bad) >= 3)

    inner()
    assert sum(seen) >= len(seen) / 2, f"{sum(seen)} of {len(seen)} interacted"


# --- weights -----------------------------------------------------------------------

def test_weights_reach_three_orders_of_magnitude():
    ratio = lambda ds: max(s.weight for s in ds.samples) / min(s.weight for s in ds.samples)
    ds = find_any(realizable_datasets(), lambda ds: ratio(ds) >= 0.999 * MAX_WEIGHT_RATIO)
    assert ratio(ds) <= MAX_WEIGHT_RATIO * (1 + 1e-12)


def test_weights_shrink_to_equal():
    ds = minimal(realizable_datasets(steer=STEERS), lambda ds: ds.n_samples >= 3)
    assert {s.weight for s in ds.samples} == {1.0}


# --- steering -----------------------------------------------------------------------

def test_steering_reaches_prop2_hall_failures():
    """Shared queries with unequal non-optimal neighbourhoods (Prop. 2 fails) are reached
    by the steered strategy; the minimum is 5 tokens and 4 samples (README)."""
    ds = minimal(realizable_datasets(prefix_closed=False, steer=STEERS), lambda ds: prop2_hall_deficiency(analyse(ds)) > 0)
    assert ds.n_samples <= 4 and ds.n_vocab <= 5, str(ds)


# --- coverage: every structure the assumptions allow is reached ------------------

def _roles(ds):
    st_ = analyse(ds)
    return st_, st_.roles


def several_optimal(ds):
    st_, roles = _roles(ds)
    return any(sum(r is Role.OPTIMAL for r in rr.values()) >= 2 for rr in roles.values())


def non_comparable_in_a_real_order(ds):
    st_, roles = _roles(ds)
    return any(
        st_.orders[q].number_of_edges() and any(r is Role.NON_COMPARABLE for r in rr.values())
        for q, rr in roles.items()
    )


def assumption3_boundary(ds):
    st_, roles = _roles(ds)
    for s, pos in zip(ds.samples, st_.optimal):
        for x in set(s.sentence):
            if roles[s.query][x] is Role.NON_OPTIMAL and s.sentence.count(x) == len(pos) >= 2:
                return True
    return False


def partial_collocation(ds):
    return len(analyse(ds).collocation.mapping) < ds.n_vocab


def skewed(ds):
    return np.ptp(ds.pi) > 0


@pytest.mark.parametrize(
    "condition",
    [non_comparable_in_a_real_order, assumption3_boundary, partial_collocation, skewed,
     lambda ds: ds.l_max == 6, lambda ds: ds.n_vocab == 8],
    ids=["non-comparable", "assumption3-boundary", "partial-collocation", "skewed",
         "max-len", "max-vocab"],
)
def test_coverage(condition):
    find_any(realizable_datasets(), condition)


@pytest.mark.parametrize("condition", [several_optimal, assumption3_boundary, lambda ds: ds.l_max == 6],
                         ids=["several-optimal", "assumption3-boundary", "max-len"])
def test_coverage_without_prefix_closure(condition):
    find_any(realizable_datasets(prefix_closed=False), condition)


@AT_LEAST_200
@given(realizable_datasets(max_vocab=6, max_len=8, max_samples=30))
def test_prefix_closure_allows_one_optimal_token_per_query(ds):
    """Observation (proved in README, "Findings"): under Assumption 1 and the Section 3
    prefix convention, every query has at most one optimal token.  In a prefix-closed
    sentence each token after the first is n(an earlier token), so its tokens are an
    n-orbit segment from its first token; the first q-prefix of any q-sentence is the
    arc from its first token to q, of two such arcs one contains the other, and the
    unique-winner rule (no confused tokens) forces equal winners.  So "a query with
    several optimal tokens" is only reachable without prefix closure (tested above)."""
    assert not several_optimal(ds)


@pytest.mark.parametrize("assumption, variant", [("1i", "not-a-function"), ("1i", "not-injective"),
                                                  ("1i", "unexplained-sample"), ("1ii", "cycle"),
                                                  ("1ii", "confused-token")])
def test_every_breaker_variant_is_reached(assumption, variant):
    find_any(violating(assumption), lambda i: variant in {v.kind for v in check_all(i.dataset)[assumption].violations})


@pytest.mark.parametrize("kind", ["dimension", "norm", "correlated"])
def test_every_assumption2_defect_is_reached(kind):
    find_any(violating("2"), lambda i: kind in {v.kind for v in check_all(i.dataset, i.E)["2"].violations})


# --- shrinking: minimal examples are genuinely small ------------------------------

def test_minimal_realizable_is_one_sample():
    # The smallest dataset at all: one one-token sample (padded to min_vocab = 2 tokens).
    ds = minimal(realizable_datasets())
    assert ds.n_samples == 1 and ds.n_vocab == 2 and ds.vocab[0] == "A"


@pytest.mark.parametrize(
    "assumption, n_samples, n_vocab, why",
    [
        # two one-token samples with one sentence: two next tokens, or a sample no token explains
        ("1i", 2, 2, "a collocation conflict needs two samples; every single sample is consistent"),
        # u->v, v->u, "u v"->v, "u v v"->u: two sentences with one query and opposite winners,
        # plus the collocations of both tokens and the prefixes (prefix closure must hold)
        ("1ii", 4, 2, "opposite winners under one query need two such sentences and their prefixes"),
        ("2", 2, 2, "one realizable sample over two tokens; its embeddings carry the defect"),
        # "u v v v": the winner u once, the loser v twice needs a length-3 sentence and its prefixes
        ("3", 3, 2, "a loser occurring twice needs a 3-token sentence, which brings 2 prefixes"),
        # "u -> u", "u v -> u": the prefix "u -> v" is missing
        ("prefix", 2, 2, "a 2-token sentence whose 1-token prefix sample is missing, plus the collocation"),
    ],
)
def test_breakers_shrink_to_small_examples(assumption, n_samples, n_vocab, why):
    inst = minimal(violating(assumption))
    assert failed(check_all(inst.dataset, inst.E)) == [assumption]
    assert inst.dataset.n_samples <= n_samples, (why, str(inst.dataset))
    assert inst.dataset.n_vocab <= n_vocab, (why, str(inst.dataset))


@pytest.mark.parametrize(
    "condition, n_samples, n_vocab, why",
    [
        # A -> B, A B -> B, and the same sentence "A B" with a next token no token explains
        ("1i", 3, 2, "a base sentence of length 2 (2 samples) plus its unexplained second next token"),
        # A -> B, A B -> B, B -> A, A B -> A: "A B" also predicted by B reverses A > B under B.
        # Two tokens suffice; the shrinker can stop at three (E -> B, E B -> B, B -> A, E B -> A),
        # a local minimum in which renaming E to A would change the collocation drawn first.
        ("1ii", 4, 3, "a 2-token base sentence, the collocation of B, and the reversing sample"),
        # A -> B, A B -> B, A B B -> B: the base sentence continued with its next token twice
        ("3", 3, 2, "the base sample A -> B and the two samples repeating B"),
        # A -> B, A A -> B: the prefix sample "A -> A" is missing
        ("prefix", 2, 2, "a one-token base sample and a 2-token sentence skipping its prefix"),
    ],
)
def test_embedded_breakers_shrink_to_small_examples(condition, n_samples, n_vocab, why):
    inst = minimal(violating(condition, kinds=("embedded",)), lambda i: shares_query(i, condition))
    assert failed(check_all(inst.dataset)) == [condition]
    assert inst.dataset.n_samples <= n_samples and inst.dataset.n_vocab <= n_vocab, (why, str(inst.dataset))


def test_counterexamples_print_as_pasteable_text(tmp_path):
    inst = minimal(violating("1ii"))
    text = repr(inst.dataset)
    assert text.startswith('ntpcheck.loads("""')
    assert eval(text, {"ntpcheck": ntpcheck}) == inst.dataset
    f = tmp_path / "cex.txt"
    f.write_text(str(inst.dataset))
    from ntpcheck.app.cli.cli import main

    assert main(["check", str(f), "--json", "-"]) == 1  # 1(ii) fails


# --- embeddings and parameters -----------------------------------------------------

@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), embeddings(n))))
def test_orthonormal_embeddings(args):
    n, E = args
    assert E.shape[1] == n and is_orthonormal(E)


@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), embeddings(n, orthonormal=False))))
def test_non_orthonormal_embeddings(args):
    n, E = args
    assert E.shape[1] == n and not is_orthonormal(E)


@given(training_params(min_T=2, max_T=50, min_T2=3, max_T2=40))
def test_training_params_in_range(cfg):
    assert 2 <= cfg.T <= 50 and 3 <= cfg.T2 <= 40
    assert cfg.eta0 is None or 0.02 <= cfg.eta0 <= 0.3


@given(instances(realizable_datasets(max_vocab=3), training_params(max_T=5, max_T2=5)))
def test_instances_combine(inst):
    assert inst.T <= 5 and inst.T2 <= 5


# --- invalid arguments --------------------------------------------------------------

@pytest.mark.parametrize(
    "build",
    [
        lambda: realizable_datasets(min_vocab=0),
        lambda: realizable_datasets(min_vocab=5, max_vocab=3),
        lambda: realizable_datasets(max_len=0),
        lambda: realizable_datasets(max_samples=1.5),
        lambda: realizable_datasets(prefix_closed="yes"),
        lambda: instances(realizable_datasets(), embeddings="random"),
        lambda: violating("4"),
        lambda: violating("1ii", max_vocab=1),
        lambda: violating("3", max_samples=2),
        lambda: violating("3", max_len=2),
        lambda: violating("3", kinds=()),
        lambda: violating("3", kinds="embedded"),
        lambda: realizable_datasets(steer=["sideways"]),
        lambda: realizable_datasets(steer="long"),
        lambda: embeddings(0),
        lambda: embeddings(3, d=2),
        lambda: training_params(min_T=5, max_T=1),
        lambda: training_params(min_eta0=-1.0),
    ],
)
def test_invalid_arguments_raise_at_build_time(build):
    with pytest.raises(InvalidArgument):
        build()
