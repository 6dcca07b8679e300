"""The second paper's reproductions (Thrampoulidis 2024, App. A): the data as the paper describes
them, Fig. 2's caption (w_1 = w_5 in W^mm, not in W*), and the command's files."""

from __future__ import annotations

import numpy as np
import pytest

from ntpcheck.app.report.linear_figures import FIG1_SUPPORTS, fig12_data, fig345_data


def test_fig12_data_and_caption():
    f = fig12_data(0, steps=2000)
    D = f.D
    assert (D.d, D.m, D.V) == (2, 3, 5) and D.supports == FIG1_SUPPORTS
    # words 1 and 5 follow the same contexts (A and B): equal rows of W^mm, different rows of W*
    assert np.allclose(f.refs.W_mm[0], f.refs.W_mm[4], atol=1e-8)
    assert not np.allclose(f.refs.W_star[0], f.refs.W_star[4], atol=1e-3)
    assert abs(np.sum(f.refs.W_mm * f.refs.W_star)) < 1e-8  # orthogonal subspaces (App. A.1)
    assert f.runs["GD"].max_rise <= 0


def test_fig345_data_as_described():
    f = fig345_data(0, "gaussian", steps=20)
    D = f.D
    assert (D.n, D.m, D.d, D.V) == (5000, 50, 60, 10)
    assert set(D.mask.sum(axis=1)) == {6} and D.counts[D.mask].min() >= 1
    assert abs(f.notes["entropy"] - 1.445) < 0.1  # Dirichlet(1) over 6 tokens: expected entropy H_6 - 1 = 1.45
    assert f.notes["gd_limit"] > 0.5  # eta = 0.5 <= 1/(2L) for N(0, I/d) embeddings (R10)


@pytest.mark.slow
def test_reproduce_writes_png_and_csv(tmp_path, capsys):
    from matplotlib.image import imread

    from ntpcheck.app.cli.cli import main

    assert main(["reproduce", "linear-fig12", "--out", str(tmp_path)]) == 0
    png = imread(tmp_path / "thrampoulidis_fig12.png")
    assert png.shape[1] >= 1000
    text = (tmp_path / "thrampoulidis_fig12.csv").read_text()
    assert text.startswith("run,k,quantity,value") and "W_mm" in text and "one_minus_corr" in text
    assert "wrote" in capsys.readouterr().out
    from ntpcheck.app.cli.reproduce import reproduced_files

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(reproduced_files("linear-fig12", None))  # what --overwrite guards


def test_bridge_contexts():
    """The bridge's reductions of Huang's data: one-token contexts are Huang's stage 1 (S_j = 1), mean
    contexts merge sentences with equal mean embeddings, query contexts are orthonormal."""
    from ntpcheck.properties.huang2024.bridge import mean_contexts, one_token_contexts, query_contexts, unit_weights
    from ntpcheck.properties.huang2024.setups import example1

    inst = example1()
    inst = type(inst)(unit_weights(inst.dataset), inst.embeddings)
    D1 = one_token_contexts(inst)
    assert set(D1.mask.sum(axis=1)) == {1}
    Dm = mean_contexts(inst)
    assert Dm.n == len(inst.dataset.samples)
    Dq = query_contexts(inst)
    G = Dq.H.T @ Dq.H
    assert np.allclose(G, np.eye(Dq.m))


def test_embeddings_reading_only_for_fig345(tmp_path, capsys):
    from ntpcheck.app.cli.cli import main

    assert main(["reproduce", "linear-fig12", "--embeddings-reading", "unit", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "only applies to reproduce linear-fig345" in err and len(err.splitlines()) == 1
