"""Issue 14's battery: bad or edge inputs and arguments, each answered with exit 2 and
one line naming the problem (``ntpcheck: error: ...``), or with a correct result.
None may give a traceback, hang, or a silently wrong number.

A case is one record: an id, the files it needs (name -> bytes), the command line
(``{tmp}`` is the case's directory) and either the fragment the error line must
contain or a check of the correct result.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Callable

import pytest

from ntpcheck.app.cli.cli import main


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    error: str | None = None  # fragment of the one-line error; None: must succeed
    files: dict = field(default_factory=dict)
    ok: Callable[[str, str], bool] | None = None  # (stdout, stderr) -> result is right


def _check(text: bytes, error: str | None, id: str, ok=None) -> Case:
    return Case(id, ("check", "{tmp}/d.txt"), error, {"d.txt": text}, ok)


def _vocab_is(*tokens):
    return lambda out, err: json.loads(out)["vocab"] == list(tokens)


def _json_ok(out: str, err: str) -> bool:
    d = json.loads(out)  # strict: json.loads accepts NaN, so check the text too
    return "NaN" not in out and "Infinity" not in out and d["schema_version"] == 1 and "scipy" in d["versions"]


def _assumption_2_holds(out: str, err: str) -> bool:
    return json.loads(out)["assumptions"]["2"]["holds"] is True


EX = ("check", "example1")
CASES = [
    # ---- dataset text: the parser ------------------------------------------------
    _check(b"", "no samples", "empty-file"),
    _check(b"# nothing here\n\n   \n", "no samples", "only-comments"),
    Case("bom-at-start", ("check", "{tmp}/d.txt", "--json", "-"), None, {"d.txt": "\ufeffA -> B\n".encode()}, _vocab_is("A", "B")),
    _check("A -> B\nC \ufeffD -> A\n".encode(), "U+FEFF", "bom-inside-token"),
    _check(b"A B->C\n", "contains '->'", "arrow-inside-token"),
    _check(b"A B@C -> D\n", "contains '@'", "at-inside-token"),
    _check("A\u200bB -> C\n".encode(), "U+200B", "zero-width-space"),
    _check(b"A\x01B -> C\n", "U+0001", "control-character"),
    _check(b"A\x00 -> C\n", "U+0000", "nul-byte"),
    _check("A -> B\nB\u00ad -> A\n".encode(), "U+00AD", "soft-hyphen"),
    Case("cr-line-ends", ("check", "{tmp}/d.txt", "--json", "-"), None, {"d.txt": b"A -> B\rB -> C\rA B -> C\r"}, _vocab_is("A", "B", "C")),
    Case("crlf-line-ends", ("check", "{tmp}/d.txt", "--json", "-"), None, {"d.txt": b"A -> B\r\nB -> C\r\n"}, _vocab_is("A", "B", "C")),
    Case("mixed-line-ends", ("check", "{tmp}/d.txt", "--json", "-"), None, {"d.txt": b"A -> B\r\nB -> C\rC -> A\n"}, _vocab_is("A", "B", "C")),
    Case("cr-line-numbers", ("check", "{tmp}/d.txt"), "line 3", {"d.txt": b"A -> B\rB -> C\rA -> B -> C\r"}),
    _check(b"A -> \xff\xfe\n", "not valid UTF-8", "invalid-utf8"),
    _check("A -> é\n".encode("latin-1"), "not valid UTF-8", "latin1-bytes"),
    _check(b"A -> B -> C\n", "more than one '->'", "two-arrows"),
    _check(b"-> B\n", "no sentence before '->'", "no-sentence"),
    _check(b"A ->\n", "no next token", "no-next-token"),
    _check(b"A -> B C\n", "exactly one next token", "two-next-tokens"),
    _check(b"A\n", "at least two tokens", "one-token-sequence"),
    _check(b"A -> B @ 0\n", "finite and > 0", "zero-weight"),
    _check(b"A -> B @ -1\n", "finite and > 0", "negative-weight"),
    _check(b"A -> B @ nan\n", "finite and > 0", "nan-weight"),
    _check(b"A -> B @ inf\n", "finite and > 0", "inf-weight"),
    _check(b"A -> B @ abc\n", "not a number", "text-weight"),
    _check(b"A -> B @ 1 @ 2\n", "more than one '@'", "two-weights"),
    _check(b"A -> B @\n", "followed by exactly one number", "weight-missing"),
    _check(b"vocab:\nA -> B\n", "lists no tokens", "empty-vocab-line"),
    _check(b"vocab: A A B\nA -> B\n", "more than once", "duplicate-vocab"),
    _check(b"vocab: A B\nvocab: A B\nA -> B\n", "second 'vocab:' line", "two-vocab-lines"),
    _check(b"vocab: A B\nA -> C\n", "not in the 'vocab:' line", "token-outside-vocab"),
    _check(b"vocab: A -> B\nA -> B\n", "reserved", "arrow-in-vocab"),
    _check(b"A#B -> C\n", "at least two tokens", "hash-cuts-line"),
    _check(b"A -> B\nC -> D\n" + b"x " * 100_001 + b"\n", "tokens on one line", "line-too-long"),
    _check(" ".join(f"t{i % 50}" for i in range(12_000)).encode() + b"\n", "token positions", "sequence-too-long"),
    # arrow look-alikes, a vocab line in the wrong case, tokens equal up to Unicode normalisation (issue 29)
    *(_check(f"A {arrow} B\n".encode(), "line 1, column 3: " + repr(arrow) + " looks like an arrow", f"arrow-{k}")
      for k, arrow in enumerate(["\u2192", "\u21d2", "=>", "\u2014>", "\u2013>", ">", "\u27f6", "\u279c", "<-", "\uff1e"])),
    *(_check(f"A -> B\nA B {arrow} C\n".encode(), "line 2", f"arrow-ascii-{k}") for k, arrow in enumerate(["->>", "-->"])),
    _check(b"VOCAB: A B\nA -> B\n", "line 1: 'VOCAB:' looks like a vocabulary line", "vocab-upper-case"),
    _check(b"A -> B\nVocab: A B\n", "line 2: 'Vocab:' looks like a vocabulary line", "vocab-title-case"),
    _check(b"vocab : A B\nA -> B\n", "line 1: 'vocab :' looks like a vocabulary line", "vocab-space-colon"),
    _check("caf\u00e9 -> A\nA cafe\u0301 -> A\n".encode(), "line 2: token 'cafe\u0301' and token 'caf\u00e9' (line 1) differ "
           "only by Unicode normalisation", "nfc-nfd-twins"),
    _check("vocab: caf\u00e9 cafe\u0301\ncaf\u00e9 -> caf\u00e9\n".encode(), "line 1", "nfc-nfd-twins-in-vocab"),
    # a header (a printed counterexample's): malformed lines are refused with their number, never skipped
    _check(b"# parameters: T = 9, T' = x\nA B\n", "line 1: 'parameters:' T' = 'x' must be an integer >= 0", "header-bad-T2"),
    _check(b"# parameters: T = 9\nA B\n", "line 1: 'parameters:' needs T'", "header-no-T2"),
    _check(b"# parameters: T = 9, T' = 1, lr = 2\nA B\n", "'lr = 2' is not one of", "header-unknown-key"),
    _check(b"# parameters: T = 9, T' = 1, eta = -2\nA B\n", "finite number > 0", "header-negative-eta"),
    _check(b"# parameters: T = 9, T' = 1\n# parameters: T = 9, T' = 1\nA B\n", "line 2: second 'parameters:' line",
           "header-twice"),
    Case("header-algorithm", ("verify", "--dataset", "{tmp}/d.txt", "--claims", "Lemma 1"), "line 1: 'algorithm:' 'sgd9' is not a known",
         {"d.txt": b"# algorithm: sgd9\n# parameters: T = 9, T' = 1\nA B\n"}),
    _check(b"# algorithm: two words\n# parameters: T = 9, T' = 1\nA B\n", "line 1: 'algorithm:' 'two words' is not", "header-algorithm-words"),
    _check(b"# algorithm: gd\nA B\n", "line 1: an 'algorithm:' line needs a 'parameters:' line", "header-algorithm-alone"),
    _check(b"# embeddings: 2 x 2\n#   1 0\nA B\n", "line 3: the 'embeddings:' line (line 1) announces 2 rows, found 1", "header-rows-missing"),
    _check(b"# embeddings: 2 x 2\n#   1 0\n#   0 1 5\nA B\n", "line 3: row 2 has 3 numbers, row 1 has 2", "header-row-ragged"),
    _check(b"# embeddings: 1 x 3\n#   1 0 0\nA B\n", "'embeddings:' has 3 columns and announces 3; the dataset has |V| = 2",
           "header-columns"),
    _check(b"# embeddings: some\nA B\n", "must be 'canonical' or 'D x V'", "header-embeddings-word"),
    Case("header-conflicts-with-option", ("check", "{tmp}/d.txt", "--embeddings", "orthonormal"),
         "--embeddings orthonormal conflicts with the embeddings in the header of", {"d.txt": b"# embeddings: canonical\nA B\n"}),
    Case("header-embeddings-used", ("check", "{tmp}/d.txt", "--json", "-"), None,
         {"d.txt": b"# embeddings: 1 x 2\n#   0.6 0.8\nA B\n"}, lambda out, err: json.loads(out)["assumptions"]["2"]["holds"] is False),
    Case("verify-embeddings-without-dataset", ("verify", "--embeddings", "orthonormal"), "apply only with --dataset"),
    Case("dataset-is-directory", ("check", "{tmp}"), "cannot read"),
    Case("dataset-missing", ("check", "{tmp}/nope.txt"), "neither a file nor a built-in"),
    Case("dataset-dev-zero", ("check", "/dev/zero"), "limit for a dataset file"),
    # ---- embeddings ----------------------------------------------------------------
    Case("embeddings-empty", (*EX, "--embeddings", "{tmp}/e.txt"), "contains no numbers", {"e.txt": b""}),
    Case("embeddings-text", (*EX, "--embeddings", "{tmp}/e.txt"), "line 1: 'a' is not a number", {"e.txt": b"a b\nc d\n"}),
    Case("embeddings-ragged", (*EX, "--embeddings", "{tmp}/e.txt"), "line 3: row 3 has 2 numbers, row 1 has 4",
         {"e.txt": b"1 0 0 0\n0 1 0 0\n0 0\n0 0 0 1\n"}),
    *(Case(f"embeddings-{k}", (*EX, "--embeddings", "{tmp}/e.txt", "--json", "-"), None, {"e.txt": text}, _assumption_2_holds)
      for k, text in (("bom", "\ufeff1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n".encode()),
                      ("crlf", b"1 0 0 0\r\n0 1 0 0\r\n0 0 1 0\r\n0 0 0 1\r\n"),
                      ("commas-comments", b"# E = I\n1, 0, 0, 0\n0, 1, 0, 0\n\n0, 0, 1, 0\n0, 0, 0, 1  # last\n"))),
    Case("embeddings-shape", (*EX, "--embeddings", "{tmp}/e.txt"), "|V|", {"e.txt": b"1 0\n0 1\n"}),
    Case("embeddings-nan", (*EX, "--embeddings", "{tmp}/e.txt"), "finite", {"e.txt": b"1 0 0 nan\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"}),
    Case("embeddings-missing", (*EX, "--embeddings", "/no/file"), "cannot read embeddings"),
    Case("dim-without-orthonormal", (*EX, "--dim", "3"), "--dim only applies"),
    Case("dim-zero", (*EX, "--embeddings", "orthonormal", "--dim", "0"), "must be >= 1"),
    Case("dim-too-small", (*EX, "--embeddings", "orthonormal", "--dim", "2"), "need d >= 4"),
    Case("exact-needs-orthonormal", ("solve", "example1", "--embeddings", "{tmp}/e.txt", "--solver", "exact"), "Assumption 2",
         {"e.txt": b"1 0 0 0\n0.5 1 0 0\n0 0 1 0\n0 0 0 1\n"}),
    # ---- arguments -----------------------------------------------------------------
    Case("seed-negative", (*EX, "--seed", "-1"), "between 0 and 2^32 - 1"),
    Case("seed-text", (*EX, "--seed", "abc"), "not an integer"),
    Case("seed-huge", (*EX, "--seed", str(2**32)), "between 0 and 2^32 - 1"),
    Case("verify-seed-negative", ("verify", "--seed", "-1"), "between 0 and 2^32 - 1"),
    Case("bench-repeat-zero", ("bench", "--repeat", "0"), "must be >= 1"),
    Case("bench-sizes-one", ("bench", "--sizes", "1"), "below 8"),
    Case("bench-sizes-text", ("bench", "--sizes", "abc"), "not an integer"),
    Case("bench-sizes-empty", ("bench", "--sizes", ""), "not a comma-separated list"),
    Case("bench-sizes-gap", ("bench", "--sizes", "10,,20"), "not a comma-separated list"),
    Case("bench-cvxpy-max-negative", ("bench", "--cvxpy-max", "-1"), "must be >= 0"),
    Case("train-T-negative", ("train", "example1", "--T", "-3"), "must be >= 0"),
    Case("train-eta-zero", ("train", "example1", "--eta", "0"), "finite and > 0"),
    Case("train-eta-nan", ("train", "example1", "--eta", "nan"), "finite and > 0"),
    Case("train-eta0-inf", ("train", "example1", "--eta0", "inf"), "finite and > 0"),
    Case("train-predict-unknown", ("train", "example1", "--predict", "S X"), "token 'X' is not in the vocabulary"),
    Case("train-predict-empty", ("train", "example1", "--predict", ""), "empty"),
    Case("claims-only-commas", ("verify", "--claims", ",,"), "names no claim"),
    Case("claims-unknown", ("verify", "--claims", "lemma99"), "unknown claim"),
    Case("claims-empty", ("verify", "--claims", ""), "names no claim"),
    Case("claims-blank", ("matrix", "--claims", "   "), "names no claim"),
    Case("claims-nearest", ("verify", "--claims", "cor 2"), "nearest: Cor. 1 [k=5] (cor1-k5)"),
    Case("claims-section-sign-alias", ("verify", "--claims", "Sec. 8"), "\u00a77 (sec7)"),
    Case("claims-list-unknown-paper", ("claims", "--paper", "nosuch"), "unknown paper"),
    Case("verify-dataset-profile", ("verify", "--dataset", "example1", "--profile", "thorough"), "--profile does not apply"),
    Case("verify-dataset-seed", ("verify", "--dataset", "example1", "--seed", "5"), "--seed only applies to --embeddings orthonormal"),
    Case("verify-dataset-no-pinned", ("verify", "--dataset", "example1", "--no-pinned"), "--no-pinned does not apply"),
    Case("seed-without-orthonormal", (*EX, "--seed", "3"), "--seed only applies to --embeddings orthonormal"),
    Case("dim-with-embeddings-file", (*EX, "--embeddings", "{tmp}/e.txt", "--dim", "4"), "--dim only applies",
         {"e.txt": b"1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"}),
    Case("train-idealised-T0", ("train", "example1", "--idealised", "--T", "0"), "--idealised needs --T >= 1"),
    Case("train-idealised-no-collocation", ("train", "{tmp}/d.txt", "--idealised", "--T", "5"), "--idealised needs a token with a collocation",
         {"d.txt": b"A B -> C\n"}),
    Case("reproduce-algorithms-trials", ("reproduce", "algorithms", "--trials", "3"), "--trials only applies"),
    Case("matrix-claims-no-cells", ("matrix", "--claims", "Ex. 1"), "no cells in the matrix"),
    # ---- executor (issue 32): refused before any work ----------------------------------
    Case("workers-zero", ("verify", "--workers", "0"), "argument --workers: '0' must be >= 1"),
    Case("workers-negative", ("verify", "--workers", "-1"), "argument --workers: '-1' must be >= 1"),
    Case("bench-linear-sizes", ("bench", "--linear", "--sizes", "10"), "--sizes does not apply to bench --linear"),
    Case("seed-full-width-digit", ("verify", "--seed", "\uff11"), "is not an integer (ASCII digits 0-9)"),
    Case("dim-too-large", ("check", "example1", "--embeddings", "orthonormal", "--dim", "100000000"),
         "is larger than the largest dimension ntpcheck takes (100000)"),
    Case("campaign-summary-missing", ("campaign", "--summary", "{tmp}/nope.jsonl"), "nope.jsonl: no such file"),
    Case("workers-text", ("matrix", "--workers", "many"), "argument --workers: 'many' is not an integer"),
    Case("scheduler-malformed", ("verify", "--scheduler", "http//nowhere"), "--scheduler 'http//nowhere': not a scheduler address"),
    Case("scheduler-bad-port", ("matrix", "--scheduler", "tcp://127.0.0.1:99999"), "not a scheduler address"),
    Case("scheduler-unreachable", ("verify", "--claims", "Lemma 1", "--scheduler", "tcp://127.0.0.1:9"),
         "--scheduler tcp://127.0.0.1:9: no Dask scheduler answered within 10 s"),
    Case("workers-and-scheduler", ("verify", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"), "exclude each other"),
    Case("verify-dataset-workers", ("verify", "--dataset", "example1", "--workers", "2"), "--workers does not apply to verify --dataset"),
    Case("campaign-no-mode", ("campaign",), "campaign needs --minutes M (draw) or --summary FILE"),
    Case("campaign-both-modes", ("campaign", "--minutes", "1", "--summary", "x.jsonl"), "and not both"),
    Case("campaign-minutes-zero", ("campaign", "--minutes", "0"), "argument --minutes: '0' must be finite and > 0"),
    Case("campaign-summary-claims", ("campaign", "--summary", "{tmp}/c.jsonl", "--claims", "Lemma 1"),
         "--claims does not apply to campaign --summary", {"c.jsonl": b""}),
    Case("campaign-summary-empty", ("campaign", "--summary", "{tmp}/c.jsonl"), "no campaign batches there", {"c.jsonl": b""}),
    Case("campaign-summary-not-jsonl", ("campaign", "--summary", "{tmp}/c.jsonl"), "line 1: not a campaign batch",
         {"c.jsonl": b"hello\n{}\n"}),
    Case("campaign-json-without-summary", ("campaign", "--minutes", "1", "--json", "x.json"), "--json only applies to campaign --summary"),
    Case("campaign-file-missing-dir", ("campaign", "--minutes", "1", "--file", "/nonexistent/c.jsonl"), "does not exist"),
    Case("profile-unknown", ("verify", "--profile", "fast"), "invalid choice"),
    Case("paper-unknown", ("verify", "--paper", "nosuch"), "nosuch"),
    Case("solver-unknown", ("solve", "example1", "--solver", "NOSUCH"), "NOSUCH"),
    Case("figure-unknown", ("reproduce", "figure3"), "invalid choice"),
    Case("trials-zero", ("reproduce", "figure2", "--trials", "0"), "must be >= 1"),
    Case("command-unknown", ("bogus",), "invalid choice"),
    Case("no-command", (), "required"),
    # ---- output paths: refused before any work ---------------------------------------
    Case("verify-json-missing-dir", ("verify", "--json", "/nonexistent/x.json"), "/nonexistent does not exist"),
    Case("verify-json-is-dir", ("verify", "--json", "{tmp}"), "is a directory"),
    Case("verify-json-under-file", ("verify", "--json", "{tmp}/f.txt/x.json"), "is not a directory", {"f.txt": b"x"}),
    Case("verify-json-empty", ("verify", "--json", ""), "empty path"),
    Case("verify-report-is-file", ("verify", "--report", "{tmp}/f.txt"), "not a directory", {"f.txt": b"x"}),
    Case("verify-report-under-file", ("verify", "--report", "{tmp}/f.txt/r"), "not a directory", {"f.txt": b"x"}),
    Case("matrix-json-missing-dir", ("matrix", "--json", "/nonexistent/x.json"), "does not exist"),
    Case("bench-json-missing-dir", ("bench", "--json", "/nonexistent/x.json"), "does not exist"),
    Case("check-json-without-path", (*EX, "--json"), "expected one argument"),
    Case("check-json-missing-dir", (*EX, "--json", "/nonexistent/x.json"), "does not exist"),
    Case("solve-json-is-dir", ("solve", "example1", "--json", "{tmp}"), "is a directory"),
    Case("train-json-missing-dir", ("train", "example1", "--json", "/nonexistent/x.json"), "does not exist"),
    Case("claims-json-missing-dir", ("claims", "--json", "/nonexistent/x.json"), "does not exist"),
    Case("check-json-is-the-dataset", ("check", "{tmp}/d.txt", "--json", "{tmp}/d.txt"), "would destroy it", {"d.txt": b"A -> B\n"}),
    Case("verify-report-holds-user-files", ("verify", "--claims", "Ex. 1", "--report", "{tmp}"), "is not empty (1 entry: f.txt)",
         {"f.txt": b"x"}),
    Case("reproduce-out-is-file", ("reproduce", "figure2", "--out", "{tmp}/f.txt"), "not a directory", {"f.txt": b"x"}),
    # ---- results that must be right, not just no crash ---------------------------------
    Case("verify-json-stdout", ("verify", "--claims", "Ex. 1", "--json", "-"), None, ok=_json_ok),
    Case("check-json-stdout", (*EX, "--json", "-"), None, ok=_json_ok),
    Case("claims-json-stdout", ("claims", "--json", "-"), None, ok=_json_ok),
    Case("train-cyclic-json", ("train", "{tmp}/d.txt", "--json", "-", "--T", "50", "--T2", "50"), None,
         {"d.txt": b"A -> B\nB -> A\nA B A -> B\nB A B -> A\n"}, _json_ok),
    Case("train-overflow-json", ("train", "example1", "--eta0", "1e308", "--eta", "1e308", "--json", "-", "--T", "20", "--T2", "20"), None,
         ok=lambda out, err: _json_ok(out, err) and len(json.loads(out)["non_finite"]) > 0),
    Case("solve-no-collocation-warns", ("solve", "{tmp}/d.txt"), None, {"d.txt": b"A B -> C\n"},
         lambda out, err: "warning" in err and "no token has a collocation" in err),
    Case("train-idealised-says-so", ("train", "example1", "--idealised", "--T", "50", "--T2", "50"), None,
         ok=lambda out, err: "idealised" in out),
    Case("train-unmoved-warns", ("train", "example1", "--eta0", "1e-6", "--T", "5", "--T2", "5"), None,
         ok=lambda out, err: "barely moved" in err),
    # output paths that would lose or mix what is written (issue 42)
    Case("json-trailing-slash", ("verify", "--claims", "Ex. 1", "--json", "{tmp}/out.json/"), "names a directory"),
    Case("solve-json-and-npz-one-path", ("solve", "example1", "--json", "{tmp}/X", "--npz", "{tmp}/X"), "each output needs its own path"),
    Case("json-inside-report", ("verify", "--claims", "Ex. 1", "--json", "{tmp}/R/x.json", "--report", "{tmp}/R"),
         "is inside --report"),
    # damaged campaign files (issue 42): one line naming the file and line, never a traceback or an endless read
    Case("campaign-object-line", ("campaign", "--summary", "{tmp}/c.jsonl"), "not a campaign batch", {"c.jsonl": b"{}\n"}),
    Case("campaign-list-line", ("campaign", "--summary", "{tmp}/c.jsonl"), "not a campaign batch", {"c.jsonl": b"[1, 2]\n"}),
    Case("campaign-bad-shard", ("campaign", "--summary", "{tmp}/c.jsonl"), "is damaged",
         {"c.jsonl": b'{"paper": "huang2024", "profile": "quick", "seed": 0, "pinned": true, "kind": "verify", "unit": "Ex. 1", '
                     b'"claim": "Ex. 1", "batch": 0, "shard": "@@@"}\n'}),
    Case("campaign-dev-zero", ("campaign", "--summary", "/dev/zero"), "not a regular file"),
    Case("bench-size-1e5", ("bench", "--sizes", "100000"), "the largest the benchmark runs"),
    Case("train-steps-1e12", ("train", "example1", "--T", "1000000000000"), "more steps than ntpcheck takes"),
    # the smaller items of issue 42
    Case("workers-1e9", ("verify", "--claims", "Ex. 1", "--workers", "1000000000"), "at most"),
    Case("claim-header-100k", ("verify", "--dataset", "{tmp}/d.txt"), "(100000 characters)",
         {"d.txt": b"# claim: " + b"x" * 100_000 + b"\nA -> B\n"}),
    Case("train-weights-1e308", ("train", "{tmp}/d.txt", "--json", "-", "--T", "20", "--T2", "20"), None,
         {"d.txt": b"A B -> C @ 1e308\nA C -> B @ 1e308\nB -> A @ 1e308\n"},
         # trained as at weight 1: nothing non-finite but 1 - cos(W, W*), undefined here (no W* for stage 2)
         lambda out, err: _json_ok(out, err) and all("one_minus_cos" in x for x in json.loads(out)["non_finite"])),
    Case("instances-is-report", ("verify", "--claims", "Ex. 1", "--instances", "{tmp}/R", "--report", "{tmp}/R"), "give each its own"),
    Case("figures-holds-user-files", ("verify", "--claims", "Ex. 1", "--figures", "{tmp}"), "is not empty (1 entry: f.txt)",
         {"f.txt": b"x"}),
    Case("figures-is-report", ("verify", "--claims", "Ex. 1", "--figures", "{tmp}/R", "--report", "{tmp}/R"), "give each its own"),
    Case("json-inside-figures", ("verify", "--claims", "Ex. 1", "--json", "{tmp}/F/x.json", "--figures", "{tmp}/F"),
         "is inside --figures"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path, capsys):
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv]
    try:
        code = main(argv)
    except SystemExit as e:  # the argument parser's errors
        code = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if case.error is None:
        # `check` exits 1 when an assumption fails (a checked result, not an error)
        assert code == 0 or (code == 1 and argv[0] == "check"), err
        assert case.ok is None or case.ok(out, err), (out[-2000:], err)
    else:
        assert code == 2, (out[-2000:], err)
        assert err.startswith("ntpcheck: error:") and err.count("\n") == 1, err
        assert case.error in err, err


def test_a_look_alike_digit_in_ntpcheck_workers_is_one_line(monkeypatch, capsys):
    """``NTPCHECK_WORKERS='²'`` ended in a ValueError traceback (``'²'.isdigit()`` is true, issue 42)."""
    monkeypatch.setenv("NTPCHECK_WORKERS", "\u00b2")
    assert main(["verify", "--claims", "Ex. 1"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("ntpcheck: error: NTPCHECK_WORKERS=") and err.count("\n") == 1 and not out, err


def test_a_closed_standard_output_is_no_traceback(tmp_path):
    """``ntpcheck check example1 >&-`` ended in an AttributeError traceback (issue 42)."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "ntpcheck.app.cli.cli", "check", "example1"], stdout=None, stderr=subprocess.PIPE,
                       text=True, timeout=300, cwd=tmp_path, preexec_fn=lambda: os.close(1))
    assert "Traceback" not in p.stderr and p.returncode in (0, 1, 2), p.stderr


def test_battery_is_large_enough():
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)


def test_interrupted_verify_writes_partial_results(tmp_path, capsys, monkeypatch):
    """Ctrl-C in the middle of a verify run: the finished verdicts are printed and written,
    marked incomplete, exit 130, and the report goes into the (empty) report directory."""
    from ntpcheck.properties.framework import runner

    real = runner.run_claim
    calls = []

    def run_claim(claim, *a, **k):
        calls.append(claim.id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(claim, *a, **k)

    monkeypatch.setattr(runner, "run_claim", run_claim)
    report = tmp_path / "rep"
    report.mkdir()
    js = tmp_path / "v.json"
    code = main(["verify", "--claims", "Ex. 1,Ex. 2", "--json", str(js), "--report", str(report)])
    out, err = capsys.readouterr()
    assert code == 130 and "interrupted: 1 of 2 claims finished" in err
    d = json.loads(js.read_text())
    assert d["complete"] is False and len(d["claims"]) == 1
    assert "Incomplete" in (report / "report.md").read_text()
    assert oct(os.stat(js).st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


@pytest.mark.parametrize("command, claims", [("verify", "Ex. 1,Eq. 5"), ("matrix", "Eq. 5")])
def test_json_outputs_match_their_schema(command, claims, tmp_path, capsys):
    """The verify and matrix JSON validate against the schemas shipped in ntpcheck/app/rendering/schemas,
    written to a file and to standard output alike (stdout then holds nothing else)."""
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    schema = json.loads(resources.files("ntpcheck.app.rendering").joinpath(f"schemas/{command}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    path = tmp_path / "out.json"
    assert main([command, "--claims", claims, "--profile", "quick", "--json", str(path)]) == 0
    capsys.readouterr()
    jsonschema.validate(json.loads(path.read_text()), schema)
    assert main([command, "--claims", claims, "--profile", "quick", "--json", "-"]) == 0
    jsonschema.validate(json.loads(capsys.readouterr().out), schema)


def test_synthetic_generator_names_the_size_it_reached():
    """Asked for more samples than Assumptions 1-3 admit, the generator says how many it made;
    with approximate=True (the Section 7 setups' "about 90") it does not."""
    import warnings

    from ntpcheck.transformer.synthetic import random_realizable_dataset

    with pytest.warns(UserWarning, match=r"reached \d+ of the 10000 samples"):
        ds = random_realizable_dataset(10, 10_000)
    assert ds.n_samples < 9000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        random_realizable_dataset(10, 10_000, approximate=True)


def test_a_header_naming_no_claim_is_refused(tmp_path, capsys):
    """``# claim: Lemma 99`` (no such claim) was ignored and every claim ran (issue 42): exit 2, one line
    naming the header and the nearest names, before any claim runs."""
    f = tmp_path / "data.txt"
    f.write_text("# claim: Lemma 99\nA -> B\n")
    assert main(["verify", "--dataset", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'# claim:'" in err and "Lemma 99" in err and "nearest" in err, err
    f.write_text("# claim: Lemma 1\nA -> B\n")   # a real name: runs as before
    assert main(["verify", "--dataset", str(f), "--claims", "Lemma 1"]) == 0
