"""The command line: text and JSON outputs, exit codes, one-line errors."""

import json
import subprocess
import sys

import pytest

from ntpcheck.app.cli.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_example1_text(capsys):
    code, out, _ = run(capsys, "check", "example1")
    assert code == 0
    for line in ["S -> V", "V -> O", "O -> P", "P -> S", "under S: S > P", "under V: V > S",
                 "under O: O > S, O > V", "under P: O > P"]:
        assert line in out
    assert "FAILS" not in out


def test_check_json_schema(capsys):
    code, out, _ = run(capsys, "check", "example1", "--json", "-")
    d = json.loads(out)
    assert d["vocab"] == ["S", "V", "O", "P"]
    assert d["collocation"] == {"S": "V", "V": "O", "O": "P", "P": "S"}
    assert sorted(map(tuple, d["orders"]["O"])) == [("O", "S"), ("O", "V")]
    assert d["roles"]["P"]["O"] == "optimal" and d["roles"]["P"]["S"] == "non-comparable"
    assert set(d["assumptions"]) == {"1i", "1ii", "2", "3", "prefix", "realizable"}
    assert all(v["holds"] and v["violations"] == [] for v in d["assumptions"].values())


def test_check_reports_violations(capsys, tmp_path):
    f = tmp_path / "cyc.txt"
    f.write_text("a -> A\nb -> B\nq -> Q\na b q -> A\nb a q -> B\n")
    code, out, _ = run(capsys, "check", str(f), "--json", "-")
    d = json.loads(out)
    assert code == 1 and not d["assumptions"]["1ii"]["holds"]
    assert d["assumptions"]["1ii"]["violations"][0]["kind"] == "cycle"


def test_solve_json(capsys):
    code, out, _ = run(capsys, "solve", "example1", "--json", "-")
    d = json.loads(out)
    assert code == 0
    assert d["w_kq"]["P"]["O"] == pytest.approx(0.5, abs=1e-8) and d["prop2"]["P"]["O"] == 0.5
    assert d["w_ov"]["S"]["entries"]["V"] == pytest.approx(0.75, abs=1e-8) and d["w_ov"]["S"]["fill"] == -0.25
    assert d["residuals"]["w_kq"]["stationarity"] < 1e-9
    assert set(d["seconds"]) == {"w_ov", "w_kq"} and all(v >= 0 for v in d["seconds"].values())


def test_solve_other_solver_and_unknown_solver(capsys):
    assert run(capsys, "solve", "example1", "--solver", "OSQP")[0] == 0
    code, _, err = run(capsys, "solve", "example1", "--solver", "NOPE")
    assert code == 2 and err.count("\n") == 1 and "not installed" in err


def test_train_predicts_example2(capsys):
    code, out, _ = run(capsys, "train", "example1", "--predict", "S P", "--predict", "O S P", "--json", "-")
    d = json.loads(out)
    assert code == 0
    preds = {p["sentence"]: (p["token"], p["probability"]) for p in d["predictions"]}
    assert preds["S P"][0] == "V" and preds["O S P"][0] == "P"
    assert d["stage2"]["loss"] < d["stage1"]["loss"] or d["stage2"]["loss"] < 1e-6
    assert set(d["seconds"]) == {"stage1", "stage2"}


def test_train_text(capsys):
    code, out, _ = run(capsys, "train", "example1", "--T", "50", "--T2", "50", "--predict", "S P")
    assert code == 0 and "predict 'S P' ->" in out and "probability" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["check", "no-such-dataset"], "neither a file nor a built-in"),
        (["train", "example1", "--predict", "S X"], "token 'X' is not in the vocabulary"),
        (["train", "example1", "--T", "-3"], "must be >= 0"),
        (["train", "example1", "--eta", "0"], "finite and > 0"),
        (["check", "example1", "--embeddings", "/no/file"], "cannot read embeddings"),
        (["bogus"], "invalid choice"),
        (["bench", "--sizes", "abc"], "'abc' is not an integer"),
        (["bench", "--sizes", ""], "not a comma-separated list"),
        (["bench", "--sizes", "10,,20"], "not a comma-separated list"),
        (["bench", "--sizes", "1"], "below 8"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment):
    parser_error = argv[0] in ("bogus", "bench") or "--T" in argv or "--eta" in argv
    with pytest.raises(SystemExit) if parser_error else _noop():
        code = main(argv)
        assert code == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and err.startswith("ntpcheck: error:")


class _noop:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_malformed_file_names_line(capsys, tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text("A B\nA -> B -> C\n")
    code, _, err = run(capsys, "check", str(f))
    assert code == 2 and "line 2" in err and "bad.txt" in err


def test_infeasible_solve_is_a_clear_error(capsys, tmp_path):
    f = tmp_path / "cyc.txt"
    f.write_text("a -> A\nb -> B\nq -> Q\na b q -> A\nb a q -> B\n")
    code, _, err = run(capsys, "solve", str(f))
    assert code == 2 and "cycle" in err and "Assumption 1(ii)" in err and "Traceback" not in err


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "ntpcheck", "check", "example1", "--json", "-"], capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["vocab"] == ["S", "V", "O", "P"]


def test_check_text_is_capped_on_long_sentences(capsys, tmp_path):
    """A 300-token sequence (299 prefix samples, 120 tokens): the text output elides long
    sentences and caps each section; --json keeps every violation."""
    words = [f"t{(7 * i) % 120}" for i in range(300)]
    f = tmp_path / "long.txt"
    f.write_text(" ".join(words) + "\n")
    code, out, _ = run(capsys, "check", str(f))
    assert code == 1 and "more violations (all of them with --json)" in out
    assert len(out.splitlines()) < 4 * 40 + 30 and max(map(len, out.splitlines())) < 400
    code, out, _ = run(capsys, "check", str(f), "--json", "-")
    d = json.loads(out)
    assert sum(len(c["violations"]) for c in d["assumptions"].values()) > 40


def test_streamed_tables_are_the_plain_json():
    """Under ``compact`` a finite :class:`ColumnTable` is streamed column by column; the document
    parses to what the indented (whole) encoding gives, and a non-finite table is not streamed
    but reported in ``non_finite``."""
    import json

    import numpy as np

    from ntpcheck.app.rendering.output import ColumnTable, json_text

    M = np.arange(12.0).reshape(3, 4) / 7
    obj = {"a": 1, "t": ColumnTable(M, ["x", "y", "z"], ["q", "r"], [3, 0]), "u": ColumnTable(M, "xyz", [])}
    streamed, whole = json.loads(json_text(obj, compact=True)), json.loads(json_text(obj))
    assert streamed == whole and whole["t"] == {"q": {"x": 3 / 7, "y": 7 / 7, "z": 11 / 7}, "r": {"x": 0.0, "y": 4 / 7, "z": 8 / 7}}
    M[1, 3] = np.inf
    bad = json.loads(json_text(obj, compact=True))
    assert bad["t"]["q"]["y"] is None and bad["non_finite"] == ["t.q.y: inf"]
