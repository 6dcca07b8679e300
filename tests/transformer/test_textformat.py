"""The text format: round trips, and bad input rejected with the line number."""

import math

import pytest
from hypothesis import given, strategies as st

import ntpcheck
from ntpcheck import Dataset, DatasetFormatError, Sample, dumps, loads
from ntpcheck.transformer.textformat import load_file


def test_example1_has_all_prefixes():
    ds = ntpcheck.load("example1")
    assert ds.vocab == ("S", "V", "O", "P")
    keys = {(" ".join(s.sentence), s.next) for s in ds.samples}
    assert keys == {
        ("S", "V"), ("S V", "O"), ("S V O", "P"), ("V", "O"), ("V O", "P"),
        ("O", "P"), ("O P", "P"), ("P", "S"), ("P S", "V"),
    }
    assert math.isclose(ds.pi.sum(), 1.0)


def test_issue_example_syntax():
    ds = loads("# comment\nS V O P   # sequence\nA C D E -> B\nB E -> C @ 2.5\n")
    w = {(" ".join(s.sentence), s.next): s.weight for s in ds.samples}
    assert w[("A C D E", "B")] == 1.0 and w[("B E", "C")] == 2.5
    assert w[("S V O", "P")] == 1.0
    assert ds.vocab == ("S", "V", "O", "P", "A", "C", "D", "E", "B")


def test_identical_samples_add_weights_and_pi_normalises():
    ds = loads("A B -> C\nA B -> C @ 3\nA -> B")
    w = {s.key: s.weight for s in ds.samples}
    assert w[(("A", "B"), "C")] == 4.0
    assert sorted(ds.pi) == pytest.approx([0.2, 0.8])


def test_vocab_line_fixes_order_and_round_trips():
    text = "vocab: Z A B\nA -> B\n"
    ds = loads(text)
    assert ds.vocab == ("Z", "A", "B")
    assert loads(dumps(ds)) == ds
    assert "vocab: Z A B" in dumps(ds)


def test_round_trip_builtin():
    ds = ntpcheck.load("example1")
    assert dumps(ds).splitlines() == ["S V O P", "V O P", "O P P", "P S V"]
    assert loads(dumps(ds)) == ds


tokens = st.sampled_from(["a", "b", "c", "S", "x1", "tok_2", "é", "a-b", "x.y", "Ω", "vocab"])
samples = st.builds(
    Sample,
    st.lists(tokens, min_size=1, max_size=5).map(tuple),
    tokens,
    st.one_of(st.just(1.0), st.floats(min_value=1e-150, max_value=1e150)),  # ratios stay representable
)


@given(st.lists(samples, min_size=1, max_size=10), st.booleans())
def test_round_trip_property(ss, shuffle_vocab):
    ds = Dataset.from_samples(ss)
    if shuffle_vocab:
        ds = Dataset(tuple(reversed(ds.vocab)), ds.samples)
    again = loads(dumps(ds))
    assert again == ds
    assert dumps(again) == dumps(ds)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("A B\nA -> B -> C\n", 2, "more than one '->'"),
        ("A B\n-> C\n", 2, "no sentence before"),
        ("A -> B C\n", 1, "exactly one next token"),
        ("A ->\n", 1, "no next token"),
        ("\n\nA\n", 3, "at least two tokens"),
        ("A -> B @ -1\n", 1, "finite and > 0"),
        ("A -> B @ 0\n", 1, "finite and > 0"),
        ("A -> B @ 1e999\n", 1, "finite and > 0"),
        ("A -> B @ x\n", 1, "not a number"),
        ("A -> B @ 1 @ 2\n", 1, "more than one '@'"),
        ("A -> B @\n", 1, "'@' must be followed"),
        ("vocab: A B\nA -> C\n", 2, "not in the 'vocab:' line"),
        ("vocab: A A\n", 1, "more than once"),
        ("vocab: A\nvocab: A\n", 2, "second 'vocab:'"),
        ("vocab:\n", 1, "lists no tokens"),
        ("A @x B\n", 1, "must end the line"),
        # look-alikes the parser would otherwise read as tokens (issue 29)
        ("A -> B\nA \u2192 B\n", 2, "'\u2192' looks like an arrow"),
        ("A \u21d2 B\n", 1, "looks like an arrow"),
        ("A B => C\n", 1, "'=>' looks like an arrow"),
        ("A > B\n", 1, "'>' looks like an arrow"),
        ("vocab: A =>\nA -> A\n", 1, "looks like an arrow"),
        ("VOCAB: A B\nA -> B\n", 1, "write it 'vocab:'"),
        ("A -> B\nVocab: A B\n", 2, "write it 'vocab:'"),
        ("caf\u00e9 -> A\nA cafe\u0301\n", 2, "(line 1) differ only by Unicode normalisation"),
        # tokens that print alike: Latin and Cyrillic, ASCII and full-width (found by a new user's trial)
        ("a b -> a\n\u0430 b -> b\n", 2, "token '\u0430' and token 'a' (line 1) look alike but are different tokens (U+0430 CYRILLIC"),
        ("A B -> A\n\uff21 B -> B\n", 2, "look alike but are different tokens (U+FF21 FULLWIDTH"),
        ("\u0421\u043e\u0440 -> x\nCop -> y\n", 2, "look alike"),
        ("na\u00efve -> x\nna\u00efv\u0435 -> y\n", 2, "(U+0435 CYRILLIC SMALL LETTER IE)"),
    ],
)
def test_bad_input_names_line(text, line, fragment):
    with pytest.raises(DatasetFormatError) as e:
        loads(text)
    assert e.value.line == line
    assert f"line {line}" in str(e.value) and fragment in str(e.value)


def test_distinct_looking_tokens_of_other_scripts_are_kept():
    """Only look-alikes are refused: a Cyrillic or Greek token beside Latin ones it does not resemble loads."""
    ds = loads("\u043a\u043e\u0442 -> a\n\u03b1 b -> b\na -> \u03b1\n")
    assert "\u043a\u043e\u0442" in ds.vocab and "\u03b1" in ds.vocab
    # related only by compatibility forms, and drawn differently: kept apart
    for a, b in (("x\u00b2", "x2"), ("\u03d5", "\u03c6"), ("H\u2082O", "H2O"), ("\uff76", "\u30ab")):
        assert {a, b} <= set(loads(f"{a} -> {b}\n{b} -> {a}\n").vocab)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "   \n"])
def test_empty_dataset_rejected(text):
    with pytest.raises(DatasetFormatError, match="no samples"):
        loads(text)


def test_load_file_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"A -> B\n\xff\xfe -> C\n")
    with pytest.raises(DatasetFormatError, match=r"bad.txt:line 2: file is not valid UTF-8"):
        load_file(bad)
    with pytest.raises(DatasetFormatError, match="neither a file nor a built-in"):
        ntpcheck.load(tmp_path / "missing.txt")
    good = tmp_path / "good.txt"
    good.write_text("A B C\n")
    assert ntpcheck.load(good).n_samples == 2


def test_repr_is_pasteable_text():
    ds = ntpcheck.load("example1")
    assert eval(repr(ds), {"ntpcheck": ntpcheck}) == ds


def test_lookalike_rules_leave_ordinary_tokens_alone():
    """'>' inside a token, a token 'vocab' and text consistently in one normal form all parse."""
    ds = loads("a>b x-y vocab\ncafe\u0301 -> a>b\n")
    assert ds.vocab == ("a>b", "x-y", "vocab", "cafe\u0301")
    assert loads(dumps(ds)) == ds


@given(st.integers(1, 3), st.integers(0, 10**6), st.integers(0, 10**6),
       st.floats(1e-300, 1e300), st.one_of(st.none(), st.floats(1e-300, 1e300)), st.data())
def test_header_round_trip_property(d, T, T2, eta0, margin, data):
    """Every number of a header is written exactly (repr) and read back equal."""
    import numpy as np

    from ntpcheck.transformer.instance import Instance
    from ntpcheck.transformer.textformat import loads_with_header

    ds = loads("A B -> C\n")
    E = np.array(data.draw(st.lists(st.lists(st.floats(-1e300, 1e300), min_size=3, max_size=3), min_size=d, max_size=d)))
    inst = Instance(ds, E, T=T, T2=T2, eta0=eta0, eta=None, stage1_margin=margin)
    again = loads_with_header(dumps(ds, header="\n".join(inst.header().text_lines()), vocab=True))
    got = Instance.from_header(*again)
    assert (got.T, got.T2, got.steps, got.stage1_margin) == (T, T2, inst.steps, margin)
    assert np.array_equal(got.E, inst.E)
