"""``verify --instances DIR`` (issue 41): every distinct tested instance written so that it
replays to the same outcome; the directory checked before any work."""

from __future__ import annotations

import json

from ntpcheck.app.cli.cli import main


def test_every_listed_instance_replays_to_its_verdict(tmp_path, capsys):
    out = tmp_path / "inst"
    assert main(["verify", "--profile", "quick", "--claims", "lemma1,cor1-corrected-k5", "--workers", "1",
                 "--instances", str(out)]) == 0
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    claims = {row["claim"] for row in index}
    assert claims == {"Lemma 1", "Cor. 1 (corrected) [k=5]"}
    capsys.readouterr()
    for row in index[:3] + index[-3:]:
        path = out / row["file"]
        assert main(["verify", "--dataset", str(path), "--claims", row["claim"], "--json", str(tmp_path / "r.json")]) == 0
        replay = json.loads((tmp_path / "r.json").read_text())["claims"][0]
        assert replay["verdict"] == row["verdict"], (path.read_text(), replay["detail"])


def test_instances_dir_is_checked_before_any_work(tmp_path, capsys):
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    assert main(["verify", "--claims", "Lemma 1", "--instances", str(full)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (full / "notes.txt").read_text() == "mine"
    same = tmp_path / "same"
    assert main(["verify", "--claims", "Lemma 1", "--instances", str(same), "--report", str(same)]) == 2
    assert "give each its own" in capsys.readouterr().err
