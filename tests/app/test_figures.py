"""Figure 2 is produced, non-empty, and its CSV agrees with the trajectory."""

import csv

import numpy as np

from ntpcheck.app.cli.cli import main
from ntpcheck.common.atomic import atomic_write_bytes


def test_reproduce_figure2_writes_png_and_csv(tmp_path, capsys):
    assert main(["reproduce", "figure2", "--out", str(tmp_path), "--seed", "3", "--trials", "2"]) == 0
    png, csvp = tmp_path / "figure2.png", tmp_path / "figure2.csv"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    rows = list(csv.DictReader(csvp.open()))
    curves = {r["curve"] for r in rows}
    for name in ["stage1_loss", "stage1_one_minus_cos", "stage1_norm", "stage2_loss", "stage2_one_minus_cos",
                 "stage2_norm", "test_loss_mean", "train_loss_mean"]:
        assert name in curves
    # The CSV agrees with an independent run of the same experiment.
    from ntpcheck import TrainingConfig, analyse, train
    from ntpcheck.transformer.synthetic import random_realizable_dataset

    traj = train(analyse(random_realizable_dataset(20, 90, seed=3, approximate=True)), TrainingConfig(record_attention=False))
    for name, stage in (("stage1_loss", traj.stage1.loss), ("stage2_loss", traj.stage2.loss), ("stage2_norm", traj.stage2.norm)):
        vals = np.array([float(r["value"]) for r in rows if r["curve"] == name])
        np.testing.assert_allclose(vals, stage, rtol=1e-12)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ntpcheck-")]  # no temp files left
    from ntpcheck.app.cli.reproduce import reproduced_files

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(reproduced_files("figure2", None))  # what --overwrite guards


def test_atomic_write_leaves_old_file_on_failure(tmp_path):
    f = tmp_path / "out.json"
    atomic_write_bytes(str(f), b"old")

    import ntpcheck.common.atomic as fig

    orig = fig.os.replace
    try:
        fig.os.replace = lambda *a: (_ for _ in ()).throw(KeyboardInterrupt())
        try:
            atomic_write_bytes(str(f), b"new")
        except KeyboardInterrupt:
            pass
    finally:
        fig.os.replace = orig
    assert f.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_verify_report(tmp_path):
    out = tmp_path / "rep"
    assert main(["verify", "--profile", "quick", "--claims", "Lemma 1,Cor. 1,Lemma 3,Ex. 1", "--report", str(out)]) == 0
    text = (out / "report.md").read_text()
    assert "| [Lemma 1](#lemma-1) |" in text and "## Cor. 1 [k=5]: falsified" in text
    assert "```\n# claim: " in text and "\n# replay: " in text  # the counterexample, replayable
    pngs = list((out / "plots").glob("*.png"))
    assert pngs and all(p.stat().st_size > 5000 for p in pngs)
    for p in pngs:
        assert f"plots/{p.name}" in text
    # One figure per claim with tested instances (falsified ones included, with the counterexample's
    # instance in the caption), or why not in words.
    sections = text.split("\n## ")[1:]
    assert len(sections) == 4
    for sec in sections:
        assert "](plots/" in sec or "No figure" in sec, sec.splitlines()[0]
        if "](plots/" in sec:
            assert "|V| = " in sec or "instances: |V|" in sec
    falsified = next(sec for sec in sections if sec.startswith("Cor. 1 [k=5]: falsified"))
    assert "*Counterexample (in vermillion): |V| = " in falsified
    page = (out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == len(pngs) and 'href="#cor-1-k-5"' in page


def test_verify_figures(tmp_path):
    """``--figures DIR``: the report's figures as palette PNGs, and an index of every claim in run order
    (the documentation's paper pages are generated from it: :mod:`ntpcheck.app.report.docs_pages`)."""
    import json

    from PIL import Image

    out = tmp_path / "figs"
    assert main(["verify", "--profile", "quick", "--claims", "Lemma 1,Cor. 1,Ex. 1", "--figures", str(out)]) == 0
    index = json.loads((out / "index.json").read_text())
    assert [f["claim"] for f in index["figures"]] == ["Lemma 1", "Cor. 1 [k=5]", "Ex. 1"]
    cor1 = index["figures"][1]
    assert cor1["verdict"] == "falsified" and cor1["caption"].startswith("Counterexample (in vermillion): |V| = ")
    files = sorted(p.name for p in out.glob("*.png"))
    assert files == sorted(f["file"] for f in index["figures"] if f["file"]) and "lemma-1.png" in files
    for name in files:
        with Image.open(out / name) as im:
            assert im.mode == "P" and im.size[0] >= 1000  # a palette, at the report's width


def test_reproduce_replaces_nothing_without_overwrite(tmp_path, capsys):
    """A file of the figure's name in --out (a user's own, or an earlier run's) is never replaced
    silently: exit 2 before any work, naming it, the file as it was; --overwrite replaces it."""
    mine = tmp_path / "figure2.csv"
    mine.write_text("mine\n")
    assert main(["reproduce", "figure2", "--out", str(tmp_path), "--trials", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "figure2.csv is there already; --overwrite replaces it" in err, err
    assert mine.read_text() == "mine\n" and not (tmp_path / "figure2.png").exists()
    assert main(["reproduce", "figure2", "--out", str(tmp_path), "--trials", "2", "--overwrite"]) == 0
    assert mine.read_text().startswith("curve") and (tmp_path / "figure2.png").exists()
