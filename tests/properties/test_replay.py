"""Every printed counterexample replays on its own (issue 29): the text saved as a file and
the command in its last line give the same verdict, with the same embeddings, training
parameters and algorithm, read back from the text's header."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex

import numpy as np
import pytest

import ntpcheck
from ntpcheck.transformer.algorithms import variant
from ntpcheck.app.cli.cli import main
from ntpcheck.transformer.instance import Instance
from ntpcheck.properties import paper
from ntpcheck.properties.framework import algorithm_cells, select_claims
from ntpcheck.transformer.textformat import dumps, load_with_header, loads_with_header

BLOCK = re.compile(r"^([^\n]*)\n(# claim: .*?^# replay: save this text as FILE, then run: ([^\n]*))$", re.M | re.S)


def _printed(capsys, argv: list[str]) -> tuple[list[tuple[str, str, str]], dict]:
    """Run ``ntpcheck argv`` (with ``--json``): its printed ``(intro, counterexample, command)`` blocks and its JSON."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/out.json"
        assert main([*argv, "--json", path]) == 0
        with open(path) as f:
            obj = json.load(f)
    return [m.groups() for m in BLOCK.finditer(capsys.readouterr().out)], obj


def _replay(tmp_path, capsys, text: str, command: str) -> list[dict]:
    """Save ``text`` as a file, run the replay ``command`` on it; the JSON results."""
    f = tmp_path / "cex.txt"
    f.write_text(text + "\n", encoding="utf-8")
    argv = shlex.split(command.replace("FILE", str(f)))
    assert argv[:2] == ["ntpcheck", "verify"], command
    return _printed(capsys, argv[1:])[1]["claims"]


def _check_replays(tmp_path, capsys, blocks, expected) -> None:
    for intro, text, command in blocks:
        obj = _replay(tmp_path, capsys, text, command)
        assert len(obj) == 1, command
        want = expected(intro)
        got = (obj[0]["verdict"], obj[0].get("conclusion_holds"))
        assert got == want, (intro, text, got)


@pytest.mark.parametrize("claim", ["Prop. 2 [Assumptions 1-2 only]", "Cor. 1 [k=5]"])
def test_matrix_counterexamples_replay_to_the_same_verdict(tmp_path, capsys, claim):
    """Each falsified cell of ``matrix --profile quick``: falsified again where the claim does not list
    the dropped condition; outside its hypotheses with the conclusion failing where it does."""
    blocks, obj = _printed(capsys, ["matrix", "--profile", "quick", "--claims", claim])
    falsified = [c for c in obj["rows"] if c["verdict"] == "falsified"]
    assert len(blocks) == len(falsified) >= 2
    assert [text for _, text, _ in blocks] == [c["counterexample"].rstrip("\n") for c in falsified]  # JSON: the same text
    assert any("# embeddings: canonical" not in text for _, text, _ in blocks)  # the "without 2" cell's matrix
    assert [c["listed"] for c in falsified] == ["which it lists" in intro for intro, _, _ in blocks]
    _check_replays(tmp_path, capsys, blocks,
                   lambda intro: ("outside-hypotheses", False) if "which it lists" in intro else ("falsified", False))


@pytest.mark.slow
@pytest.mark.parametrize("axis", ["assumption", "algorithm"])
def test_every_falsified_matrix_cell_replays(tmp_path, capsys, axis):
    """The whole quick matrix on each axis (187 s and 123 s under ``pytest -n 2`` on the 2-core
    machine, the suite's two longest tests; the assumption axis's matrix alone took 141 s, most of it
    in shrinking the "without 2" cells' counterexamples): every counterexample printed replays, from
    its text alone, to its cell's verdict (47 of them on the assumption axis at seed 0)."""
    blocks, obj = _printed(capsys, ["matrix", "--axis", axis, "--profile", "quick"])
    assert len(blocks) >= (20 if axis == "assumption" else 5)
    assert any("# embeddings: canonical" not in text for _, text, _ in blocks) or axis == "algorithm"
    _check_replays(tmp_path, capsys, blocks,
                   lambda intro: ("outside-hypotheses", False) if "which it lists" in intro else ("falsified", False))


def test_verify_counterexample_replays(tmp_path, capsys):
    blocks, obj = _printed(capsys, ["verify", "--profile", "quick", "--claims", "Prop. 2 [Assumptions 1-2 only]"])
    assert len(blocks) == 1 and obj["claims"][0]["counterexample"].rstrip("\n") == blocks[0][1]
    _check_replays(tmp_path, capsys, blocks, lambda intro: ("falsified", False))


def test_algorithm_axis_counterexample_replays_with_its_algorithm(tmp_path, capsys):
    """The algorithm axis's counterexample names its variant in the header; the replay trains with it."""
    p = paper()
    claim = p.claim("Lemma 5 [trained W_ov]")
    cells = algorithm_cells(dataclasses.replace(p, variants=(variant("random-init"),)), [claim], "quick", 0)
    text = cells[0].result.counterexample
    assert cells[0].result.verdict.value == "falsified" and "\n# algorithm: random-init\n" in text
    command = text.rstrip("\n").rsplit("then run: ", 1)[1]
    assert _replay(tmp_path, capsys, text, command)[0]["verdict"] == "falsified"
    # without its algorithm line (and so without parameters), the same data hold under Algorithm 1
    plain = "\n".join(line for line in text.splitlines() if not line.startswith(("# algorithm:", "# parameters:")))
    assert _replay(tmp_path, capsys, plain, command)[0]["verdict"] != "falsified"


def test_header_round_trip_of_every_field():
    E = np.array([[0.6, 0.8, 1 / 3], [0.8, -0.6, 2 ** 0.5]])
    inst = Instance(ntpcheck.loads("B A C\n"), E, T=17, T2=4, eta0=0.3, eta=1 / 7, stage1_margin=2.5, algorithm=variant("adam"))
    text = dumps(inst.dataset, header="\n".join(inst.header().text_lines()), vocab=True)
    ds, header = loads_with_header(text)
    again = Instance.from_header(ds, header)
    assert again.key == inst.key and np.array_equal(again.E, E)
    assert header.at == {"parameters": 1, "algorithm": 2, "embeddings": 3}
    assert text.splitlines()[5:] == ["vocab: B A C", "B A C"]  # the columns' order is written out


def test_unknown_comments_stay_comments_and_builtins_have_no_header(tmp_path):
    f = tmp_path / "d.txt"
    f.write_text("# parameters are below\n# Embeddings: none\n#algorithm is Algorithm 1\nA B\n")
    ds, header = load_with_header(f)
    assert header.empty and ds.n_samples == 1
    assert load_with_header("example1")[1].empty


def test_header_parameters_are_used_as_given(tmp_path, capsys):
    """``verify --dataset`` checks the header's T (here too small for Cor. 1's threshold) rather than the claim's own."""
    f = tmp_path / "d.txt"
    f.write_text("A -> A\nB -> A\n")
    assert main(["verify", "--dataset", str(f), "--claims", "Cor. 1 [k=5]", "--json", "-"]) == 0
    own = json.loads(capsys.readouterr().out)["claims"][0]
    f.write_text("# parameters: T = 5, T' = 0\nA -> A\nB -> A\n")
    assert main(["verify", "--dataset", str(f), "--claims", "Cor. 1 [k=5]", "--json", "-"]) == 0
    given = json.loads(capsys.readouterr().out)["claims"][0]
    assert own["conclusion_holds"] is False and given["conclusion_holds"] is not False, (own, given)


def test_claim_names_with_commas_are_selected_whole():
    name = "Thm. 1 [alignment bound, general data]"
    assert [c.name for c in select_claims(paper().claims, f"Lemma 1,{name}")] == ["Lemma 1", name]
