"""``ntpcheck solve``: the sparse text and JSON hold every entry exactly, ``--dense`` the full
tables, ``--npz`` the matrices; bad ``--npz`` paths stop before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ntpcheck
from ntpcheck.transformer import maxmargin as mm
from ntpcheck.app.cli.cli import build_parser, main
from ntpcheck.app.cli.npz import write_npz
from ntpcheck.properties.huang2024.bounds import prop2_matrix
from ntpcheck.transformer.synthetic import solver_dataset
from ntpcheck.transformer.textformat import dumps

def _json_option() -> list[str]:
    """JSON on standard output as ``solve`` takes it: ``--json`` as a flag, or ``--json -``
    once ``--json`` takes a path (issue 29: ``-`` is standard output)."""
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    option = next(a for a in commands["solve"]._actions if "--json" in a.option_strings)
    return ["--json"] if option.nargs == 0 else ["--json", "-"]


JSON = _json_option()
CONFUSED = "a -> A\nb -> B\nq -> Q\nc -> C\na b q -> A\nb c q -> B\n"  # b both above and below under q


def _solve(capsys, *argv) -> str:
    code = main(["solve", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _dense_from_sparse(d: dict) -> dict[str, np.ndarray]:
    """The token-coordinate matrices rebuilt from the sparse JSON, as its docstring says."""
    ix = {t: i for i, t in enumerate(d["vocab"])}
    V = len(ix)
    out = {}
    for key in ("w_kq", "prop2"):
        if d[key] is None:
            continue
        M = np.zeros((V, V))
        for q, col in d[key].items():
            for x, v in col.items():
                M[ix[x], ix[q]] = v
        out[key] = M
    U = np.zeros((V, V))
    for x, col in d["w_ov"].items():
        U[:, ix[x]] = col["fill"]
        for v, val in col["entries"].items():
            U[ix[v], ix[x]] = val
    out["w_ov"] = U
    return out


def _dense_tables(d: dict) -> dict[str, np.ndarray]:
    """The same matrices from ``--dense --json``'s full tables (token order of the tables' rows)."""
    vocab = list(next(iter(d["w_kq"].values())))
    ix = {t: i for i, t in enumerate(vocab)}
    out = {}
    for key in ("w_kq", "prop2", "w_ov"):
        if d[key] is None:
            continue
        M = np.zeros((len(vocab), len(vocab)))
        for c, col in d[key].items():
            M[:, ix[c]] = [col[t] for t in vocab]
        out[key] = M
    return out


CASES = {
    "example1": ["example1"],
    "sparse-kind": ["{tmp}/sparse.txt"],
    "prefix-closed": ["{tmp}/prefix.txt"],
    "orthonormal": ["example1", "--embeddings", "orthonormal", "--dim", "6"],
    "clarabel": ["example1", "--solver", "CLARABEL"],
    "confused-clarabel": ["{tmp}/confused.txt", "--solver", "CLARABEL"],
}


@pytest.fixture
def data(tmp_path):
    (tmp_path / "sparse.txt").write_text(dumps(solver_dataset("sparse", 40)))
    (tmp_path / "prefix.txt").write_text(dumps(solver_dataset("prefix-closed", 30)))
    (tmp_path / "confused.txt").write_text(CONFUSED)
    return tmp_path


@pytest.mark.parametrize("case", list(CASES))
def test_sparse_json_rebuilds_the_dense_matrices_exactly(capsys, data, case):
    argv = [a.format(tmp=data) for a in CASES[case]]
    sparse = json.loads(_solve(capsys, *argv, *JSON))
    dense = json.loads(_solve(capsys, *argv, *JSON, "--dense"))
    assert sparse["layout"] == "sparse" and dense["layout"] == "dense"
    rebuilt, tables = _dense_from_sparse(sparse), _dense_tables(dense)
    assert rebuilt.keys() == tables.keys()
    for key in tables:
        np.testing.assert_array_equal(rebuilt[key], tables[key], err_msg=key)
    V = len(sparse["vocab"])
    assert sparse["omitted"]["w_kq"] == V * len(sparse["queries"]) - sum(map(len, sparse["w_kq"].values()))
    for q, col in sparse["roles"].items():  # a role for every listed entry
        assert set(sparse["w_kq"][q]) | set((sparse["prop2"] or {}).get(q, {})) == set(col)
    for key in ("residuals", "norms", "solver", "eq2_closed_form_max_abs_diff", "polish_move"):
        assert sparse[key] == pytest.approx(dense[key], rel=1e-14, abs=1e-15) if key == "norms" else sparse[key] == dense[key]


def test_sparse_json_is_the_solvers_matrices(capsys, data):
    """Canonical embeddings: the rebuilt W*_kq and W*_ov are the dense exact solvers' W, and
    Prop. 2's values its matrix, bit for bit."""
    ds = ntpcheck.load(str(data / "sparse.txt"))
    rebuilt = _dense_from_sparse(json.loads(_solve(capsys, str(data / "sparse.txt"), *JSON)))
    np.testing.assert_array_equal(rebuilt["w_kq"], mm.solve_eq3_exact(ds).W)
    np.testing.assert_array_equal(rebuilt["w_ov"], mm.solve_eq2_exact(ds).W)
    np.testing.assert_array_equal(rebuilt["prop2"], prop2_matrix(ds, np.eye(ds.n_vocab)))


def test_sparse_text_lists_what_is_there_and_says_what_it_leaves_out(capsys):
    out = _solve(capsys, "example1")
    assert "  S  -0.25  V      0.75" in out  # column S: 0.75 at n(S) = V, its fill -0.25 elsewhere
    assert "  O      O      optimal      0.666667     0.666667" in out
    assert "the other 12 entries of these 4 columns equal their fill" in out
    assert "7 of the 16 (query, token) entries are 0 in both and not listed" in out
    assert "Proposition 2 vs solver: max |difference| = 5.55e-17" in out
    dense = _solve(capsys, "example1", "--dense")
    assert "  P      S      non-comparable  0            0" in dense and "not listed" not in dense


def test_listed_entries_carry_their_role(capsys, data):
    d = json.loads(_solve(capsys, "example1", *JSON))
    assert d["roles"]["O"] == {"S": "non-optimal", "V": "non-optimal", "O": "optimal"}
    d = json.loads(_solve(capsys, str(data / "confused.txt"), "--solver", "CLARABEL", *JSON))
    assert d["roles"]["q"]["b"] == "confused" and d["prop2"] is None and "Assumption 1(ii)" in d["prop2_note"]


@pytest.mark.parametrize("embeddings", [[], ["--embeddings", "orthonormal", "--dim", "6"]])
def test_npz_holds_the_matrices(capsys, tmp_path, embeddings):
    path = tmp_path / "w.npz"
    out = _solve(capsys, "example1", *embeddings, "--npz", str(path))
    assert out.startswith("Eq. (2)")
    z = np.load(path)
    ds = ntpcheck.load("example1")
    assert z["vocab"].tolist() == list(ds.vocab) and z["queries"].tolist() == ["S", "V", "O", "P"]
    if embeddings:
        E = z["embeddings"]
        assert E.shape == (6, 4) and z["w_ov"].shape == (4, 6) and z["w_kq"].shape == (6, 6)
    else:
        E = np.eye(4)
        assert "embeddings" not in z.files
    np.testing.assert_allclose(z["w_kq"], mm.solve_eq3_exact(ds, E).W, atol=1e-14)
    np.testing.assert_allclose(z["w_ov"], mm.solve_eq2_exact(ds, E).W, atol=1e-14)
    np.testing.assert_allclose(z["prop2"], prop2_matrix(ds, E), atol=1e-14)
    # the listed x^T W*_kq q and W*_ov x are those of the written matrices (up to the rounding of E^T W E)
    rebuilt = _dense_from_sparse(json.loads(_solve(capsys, "example1", *embeddings, *JSON)))
    np.testing.assert_allclose(rebuilt["w_kq"], E.T @ z["w_kq"] @ E, atol=1e-14)
    np.testing.assert_allclose(rebuilt["w_ov"], z["w_ov"] @ E, atol=1e-14)


def test_npz_is_whole_or_absent(tmp_path):
    """An array that fails while the file is written leaves the old file and no temporary."""
    path = tmp_path / "w.npz"
    path.write_bytes(b"old")

    def fail():
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        write_npz(str(path), {"a": lambda: np.zeros(3), "b": fail})
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["w.npz"]


@pytest.mark.parametrize("npz, fragment", [
    ("{tmp}/no/such/dir/w.npz", "does not exist"),
    ("{tmp}", "is a directory"),
    ("-", "needs a path"),
    ("{tmp}/d.txt", "is the dataset file"),
])
def test_bad_npz_path_exits_2_before_work(tmp_path, npz, fragment):
    data = tmp_path / "d.txt"
    data.write_text("A -> B\nB -> A\n")
    r = subprocess.run([sys.executable, "-m", "ntpcheck", "solve", str(data), "--npz", npz.format(tmp=tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "" and fragment in r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("ntpcheck: error: --npz")
    assert data.read_text() == "A -> B\nB -> A\n"
