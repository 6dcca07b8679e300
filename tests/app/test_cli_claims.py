"""Issue 29, items 5 and 6: claims a user can look up and name in ASCII, options that a
mode would ignore refused, ``check``'s exit status, and one meaning of ``--json``
(a path, ``-`` for standard output) on every command.  Real subprocesses where the
terminal matters (an ASCII-only standard output)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ntpcheck.app.cli.cli import build_parser, main
from ntpcheck.common.errors import NTPCheckError
from ntpcheck.properties import PAPERS, paper
from ntpcheck.properties.framework import select_claims


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as e:  # the argument parser's own errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, fragment):
    assert code == 2 and err.startswith("ntpcheck: error:") and err.count("\n") == 1, err
    assert fragment in err, err


def ascii_run(*argv):
    """``ntpcheck argv`` in a fresh process whose standard streams are ASCII-only."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    return subprocess.run([sys.executable, "-m", "ntpcheck", *argv], capture_output=True, env=env, timeout=300)


# ---- ntpcheck claims ------------------------------------------------------------------

def test_claims_lists_every_claim_of_every_paper(capsys):
    """``ntpcheck claims`` lists each claim record of each paper of ``ntpcheck papers``, with
    the counts ``papers`` prints, and every name and test id it lists selects that record."""
    code, out, _ = run(capsys, "claims", "--json", "-")
    doc = json.loads(out)
    assert code == 0 and doc["schema_version"] == 1
    code, papers_text, _ = run(capsys, "papers")
    for name in PAPERS:
        p = paper(name)
        listed = [c for c in doc["claims"] if c["paper"] == name]
        assert [c["name"] for c in listed] == [c.name for c in p.claims]
        row = next(ln.split() for ln in papers_text.splitlines() if ln.startswith(name + " "))
        assert row[1:3] == [str(len({c["id"] for c in listed})), str(len(listed))]
        for rec, claim in zip(listed, p.claims):
            assert rec["statement"] and rec["section"] and rec["assumptions"] == list(claim.assumptions)
            for alias in (rec["name"], rec["slug"]):
                assert select_claims(p.claims, alias) == [claim], alias
            assert claim in select_claims(p.claims, rec["id"]) == select_claims(p.claims, rec["id_slug"])
            assert rec["slug"].isascii() and rec["id_slug"].isascii()


def test_claims_text_and_json_file(capsys, tmp_path):
    path = tmp_path / "claims.json"
    code, out, _ = run(capsys, "claims", "--paper", "huang2024", "--json", str(path))
    assert code == 0 and "Cor. 1 [k=5]  (test id cor1-k5)" in out and "Hall's condition" in out
    assert len(json.loads(path.read_text())["claims"]) == len(paper("huang2024").claims)
    one_line_error(*run(capsys, "claims", "--paper", "nosuch")[::2], "unknown paper 'nosuch'")


# ---- --claims: every spelling a user may write -----------------------------------------

@pytest.mark.parametrize("spec, keys", [
    ("cor1", ["cor1-k5"]),
    ("Cor. 1", ["cor1-k5"]),
    ("COR. 1 [K=5]", ["cor1-k5"]),
    ("cor1-k5", ["cor1-k5"]),
    ("Cor. 1 (corrected)", ["cor1-corrected-k5"]),
    ("sec7", ["sec7"]), ("Sec. 7", ["sec7"]), ("Section 7", ["sec7"]), ("\u00a77", ["sec7"]), ("\u00a7 7", ["sec7"]),
    ("prop2-a12", ["prop2-a12"]),
    ("Prop. 2 [Assumptions 1\u20132 only]", ["prop2-a12"]),  # the README's en dash
    ("Prop. 2 [Assumptions 1-2 only]", ["prop2-a12"]),
    ("Proposition 2 [assumptions 1 - 2 only]", ["prop2-a12"]),
    ("prop2", ["prop2-sec3", "prop2-a12"]),
    ("  ex 1 ,Ex.2", ["ex1", "ex2"]),
    ("\uff25\uff58. 1", ["ex1"]),  # full-width letters (NFKC)
    ("Thm. 1 [norm, 2||W*||]", ["thm1-norm"]),
    ("Theorem 1 [norm, 2 \u2016W*\u2016]", ["thm1-norm"]),
    ("Thm. 1 [norm, 2 L_max ||W*||]", ["thm1-norm-lmax"]),
    ("Lemma 5 [trained W_ov, general data],Ex. 1", ["lemma5-trained-gen", "ex1"]),  # a comma inside a reading
    ("Thm. 2 fn. 3", ["thm2-fn3-equal", "thm2-fn3-upper"]),
    ("thm2-fn3-upper,thm2-fn3-upper", ["thm2-fn3-upper"]),
])
def test_claim_spellings(spec, keys):
    assert [c.key for c in select_claims(paper("huang2024").claims, spec)] == keys


def test_aliases_do_not_collide():
    """No spelling of one claim id is a spelling of another id's claim."""
    from ntpcheck.properties.framework.selection import aliases

    for name in PAPERS:
        owner: dict[str, str] = {}
        for c in paper(name).claims:
            for a in aliases(c):
                assert owner.setdefault(a, c.id) == c.id, (a, owner[a], c.id)


@pytest.mark.parametrize("spec", ["", "   ", ",", " , ,"])
def test_blank_claims_refused(capsys, spec):
    one_line_error(*run(capsys, "verify", "--claims", spec)[::2], "names no claim")
    with pytest.raises(NTPCheckError, match="names no claim"):
        select_claims(paper("huang2024").claims, [" "])


def test_unknown_claim_names_nearest_with_test_ids(capsys):
    code, _, err = run(capsys, "verify", "--claims", "Ex. 1,cor 2")
    one_line_error(code, err, "unknown claim 'cor 2'; nearest: Cor. 1 [k=5] (cor1-k5)")
    assert "ntpcheck claims" in err
    code, _, err = run(capsys, "matrix", "--claims", "prop 2 [a12]")
    one_line_error(code, err, "Prop. 2 [Assumptions 1-2 only] (prop2-a12)")


def test_ascii_terminal():
    """Under an ASCII-only stdout and stderr nothing ends in a traceback: names with ``\u00a7``
    are printed escaped, and ``Ex. 1`` runs as usual."""
    r = ascii_run("verify", "--claims", "Ex. 1")
    assert r.returncode == 0 and b"Ex. 1" in r.stdout and b"Traceback" not in r.stderr, r.stderr[-2000:]
    r = ascii_run("claims")
    assert r.returncode == 0 and b"(test id sec7)" in r.stdout and b"\\xa77" in r.stdout and not r.stderr
    r = ascii_run("verify", "--claims", "\u00a78")
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1 and b"\\xa77 (sec7)" in r.stderr, r.stderr


# ---- check's exit status -----------------------------------------------------------------

@pytest.mark.parametrize("text, code", [
    ("A -> A\nA A B -> A\nC -> B\nC D E B -> B\n", 0),  # not prefix-closed, Assumptions 1-3 hold: 0
    ("a -> A\nb -> B\nq -> Q\na b q -> A\nb a q -> B\n", 1),  # 1(ii): a cycle
    ("a -> b\na -> c\n", 1),  # 1(i)
    ("A -> B -> C\n", 2),
])
def test_check_exit_status(capsys, tmp_path, text, code):
    f = tmp_path / "d.txt"
    f.write_text(text)
    got, out, err = run(capsys, "check", str(f))
    assert got == code, err
    assert code != 1 or "FAILS" in out


def test_check_exit_1_is_documented():
    import ntpcheck.app.cli.cli as cli

    assert "1 when ``check``" in cli.__doc__
    helps = {a.dest: a.help for a in build_parser()._subparsers._group_actions[0]._choices_actions}
    assert "exit 1 if Assumption 1(i), 1(ii), 2 or 3 fails" in helps["check"]


# ---- --json PATH on every command ----------------------------------------------------------

@pytest.mark.parametrize("command", [["check", "example1"], ["solve", "example1"],
                                     ["train", "example1", "--T", "20", "--T2", "20", "--predict", "S P"]])
def test_json_takes_a_path(capsys, tmp_path, command):
    """``--json PATH``: the text on stdout and the JSON in the file; ``--json -``: only JSON on stdout."""
    path = tmp_path / "out.json"
    code, out, _ = run(capsys, *command, "--json", str(path))
    assert code == 0 and out.strip() and not out.lstrip().startswith("{")
    doc = json.loads(path.read_text())
    code, out, _ = run(capsys, *command, "--json", "-")
    assert code == 0 and set(json.loads(out)) == set(doc)
    one_line_error(*run(capsys, *command, "--json")[::2], "expected one argument")
    one_line_error(*run(capsys, *command, "--json", str(tmp_path / "no" / "x.json"))[::2], "does not exist")


def test_json_never_overwrites_the_input(capsys, tmp_path):
    data, emb = tmp_path / "d.txt", tmp_path / "e.txt"
    data.write_text("A -> B\nB -> A\n")
    emb.write_text("1 0\n0 1\n")
    for argv in (["check", str(data), "--json", str(data)],
                 ["solve", str(data), "--embeddings", str(emb), "--json", str(emb)],
                 ["verify", "--dataset", str(data), "--claims", "Ex. 1", "--json", str(data)]):
        one_line_error(*run(capsys, *argv)[::2], "writing it would destroy it")
    assert data.read_text() == "A -> B\nB -> A\n" and emb.read_text() == "1 0\n0 1\n"


def test_large_tables_stream_to_a_file(tmp_path):
    """``--json PATH`` streams compact tables into the file as it does to stdout: same document."""
    import numpy as np

    from ntpcheck.app.rendering.output import ColumnTable, json_text, write_json

    obj = {"a": 1, "t": ColumnTable(np.arange(12.0).reshape(3, 4), "xyz", ["q", "r", "s", "u"])}
    write_json(str(tmp_path / "t.json"), obj, compact=True)
    assert json.loads((tmp_path / "t.json").read_text()) == json.loads(json_text(obj))


# ---- options a mode would ignore ----------------------------------------------------------

@pytest.mark.parametrize("argv, fragment", [
    (["verify", "--dataset", "example1", "--profile", "thorough"], "--profile does not apply to verify --dataset"),
    (["verify", "--dataset", "example1", "--seed", "5"], "--seed only applies to --embeddings orthonormal"),
    (["verify", "--dataset", "example1", "--no-pinned"], "--no-pinned does not apply"),
    (["check", "example1", "--seed", "3"], "--seed only applies to --embeddings orthonormal"),
    (["solve", "example1", "--embeddings", "canonical", "--dim", "4"], "--dim only applies"),
    (["train", "example1", "--seed", "0"], "--seed only applies"),
    (["reproduce", "algorithms", "--trials", "3"], "--trials only applies to reproduce figure2"),
])
def test_ignored_options_are_refused(capsys, argv, fragment):
    one_line_error(*run(capsys, *argv)[::2], fragment)


def test_inert_training_steps_warn(capsys):
    code, _, err = run(capsys, "train", "example1", "--T", "10", "--T2", "0", "--eta", "0.1")
    assert code == 0 and "warning: --eta has no effect with --T2 0" in err


def test_defaults_still_apply(capsys):
    """The options that default to None in the parser get their documented defaults."""
    code, out, _ = run(capsys, "verify", "--claims", "Ex. 1", "--json", "-")
    d = json.loads(out)
    assert code == 0 and (d["profile"], d["seed"]) == ("default", 0)
    code, out, _ = run(capsys, "verify", "--dataset", "example1", "--claims", "Ex. 1", "--json", "-")
    assert code == 0 and len(json.loads(out)["claims"]) == 1
    from ntpcheck.app.cli.options import check_options

    for argv, want in ((["matrix"], ("default", 0, True)), (["verify"], ("default", 0, True)),
                       (["matrix", "--profile", "thorough", "--seed", "4", "--no-pinned"], ("thorough", 4, False))):
        args = build_parser().parse_args(argv)
        check_options(args)
        assert (args.profile, args.seed, args.pinned) == want
    args = build_parser().parse_args(["reproduce", "figure2"])
    check_options(args)
    assert (args.seed, args.trials) == (0, 20)


def test_every_option_has_help():
    parser = build_parser()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help text"


def test_report_never_replaces_a_users_directory(capsys, tmp_path, monkeypatch):
    """``--report .`` in a directory of the user's files is refused and deletes nothing;
    so is an earlier report's directory (only a new or empty directory is written into)."""
    (tmp_path / "precious.txt").write_text("mine")
    monkeypatch.chdir(tmp_path)
    one_line_error(*run(capsys, "verify", "--claims", "Ex. 1", "--report", ".")[::2], "precious.txt")
    assert (tmp_path / "precious.txt").read_text() == "mine"
    report = tmp_path / "rep"
    assert run(capsys, "verify", "--claims", "Ex. 1", "--report", str(report))[0] == 0
    before = sorted(p.name for p in report.iterdir())
    one_line_error(*run(capsys, "verify", "--claims", "Ex. 1", "--report", str(report))[::2], "is not empty")
    assert sorted(p.name for p in report.iterdir()) == before and "report.md" in before


def test_a_step_size_whose_run_overflows_falsifies_nothing(capsys, tmp_path):
    """eta0 = 1e307: ||W_ov^(t)|| = t eta0 passes the largest float at t = 18 while the entries are
    still finite.  Divided by that overflowed norm, W read as 0 and 1 - cos as 0.5, and Prop. 1
    was falsified on an instance where it holds (stage 1 is exact under Assumption 2: vacuous)."""
    data = tmp_path / "d.txt"
    data.write_text("# parameters: T = 40, T' = 0, eta0 = 1e307\nA -> A\nB -> B\n")
    code, out, _ = run(capsys, "verify", "--dataset", str(data), "--claims", "Prop. 1", "--json", "-")
    verdicts = {c["variant"]: c["verdict"] for c in json.loads(out)["claims"]}
    assert code == 0 and "falsified" not in verdicts.values(), verdicts
    assert {verdicts[f"k={k}"] for k in (1, 2, 3)} == {"vacuous"}, verdicts


def test_the_dim_limit_is_the_embeddings_files():
    """``--dim`` and an embeddings file's header take the same largest dimension."""
    from ntpcheck.app.cli.argtypes import MAX_DIM
    from ntpcheck.transformer.textheader import MAX_DIM as FILE_MAX_DIM

    assert MAX_DIM == FILE_MAX_DIM
