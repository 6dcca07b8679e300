"""The NTP-SVM ``W^mm`` (Thrampoulidis 2024, Def. 3) by the active set of :mod:`ntpcheck.linear.svm_active`:
equal to the previous path (separability LP, CLARABEL, polish) and to one vectorised cvxpy solve at tight
tolerances to 1e-9 (relative Frobenius) at the benchmark's three sizes, KKT-certified, equal to the closed
form on orthogonal contexts, falling back (and saying so) where it gives no certified answer, and refusing
infeasible data with the same errors as before.  Speed is reported by ``ntpcheck bench --linear``, never
asserted here.
"""

import json

import numpy as np
import pytest

from ntpcheck.app.scaleout.bench_linear import SIZES, linear_instance, tight_w_mm
from ntpcheck.common.blas import single_threaded_blas
from ntpcheck.common.errors import InfeasibleProblemError
from ntpcheck.linear import NTPData
from ntpcheck.linear import svm_active
from ntpcheck.linear.subspace import anchor_index, anchor_pairs, index_rows, subspace
from ntpcheck.linear.svm import margin_pairs, margin_rows, margins, svm_problem, w_mm
from ntpcheck.linear.svm_active import ActiveSetFailed, margin_index, ntp_svm_active_set
from ntpcheck.common.qp.kkt import certify

#: (d, m, V, seed) at the three benchmark sizes: more seeds where a solve is cheap.
CASES = [(*SIZES[0], s) for s in range(4)] + [(*SIZES[1], s) for s in range(2)] + [(*SIZES[2], 0)]


def _rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _random(seed: int) -> NTPData:
    """Small data of every shape: d < m, repeated or integer (dependent) embeddings, random supports;
    about a third are not NTP-separable."""
    rng = np.random.default_rng(seed)
    d, m, V = int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(2, 7))
    H = rng.normal(size=(d, m))
    if seed % 3 == 1 and m > 1:
        H[:, -1] = H[:, 0]
    if seed % 3 == 2:
        H = np.round(H) + (np.abs(np.round(H)).sum(axis=0) == 0)
    C = rng.integers(0, 3, (m, V)) * (rng.random((m, V)) < 0.6)
    C[C.sum(axis=1) == 0, 0] = 1
    return NTPData(H, C)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Two BLAS threads on two busy cores make the previous path's dense steps ten times slower."""
    with single_threaded_blas():
        yield


@pytest.mark.parametrize("d,m,V,seed", CASES)
def test_equal_to_previous_path_and_tight_cvxpy(d, m, V, seed):
    D = linear_instance(d, m, V, seed)
    s = w_mm(D)
    assert s.method == "active set"
    assert _rel(s.W, w_mm(D, "cvxpy").W) <= 1e-9
    ref, _ = tight_w_mm(D)
    assert _rel(s.W, ref) <= 1e-9
    # the certificate: its own (Lemma 1's problem and (6a)) and the existing one in F-perp coordinates
    F = subspace(D)
    _, res = certify(svm_problem(D, F), F.null_basis @ s.W.ravel())
    scale = max(1.0, s.norm, float(np.max(s.multipliers)))
    assert s.kkt <= 1e-12 * scale and res.worst <= 1e-12 * scale
    lo, eq = margins(D, s.W)
    assert abs(lo - 1) <= 1e-12 and eq <= 1e-12
    assert np.linalg.norm(F.project(s.W)) <= 1e-12 * s.norm
    assert np.all(s.multipliers >= 0)


@pytest.mark.parametrize("seed", range(60))
def test_equal_to_previous_path_on_every_shape(seed):
    """d < m, dependent embeddings, inseparable data: the same answer or the same refusal."""
    D = _random(seed)
    try:
        old = w_mm(D, "cvxpy")
    except InfeasibleProblemError:
        with pytest.raises(InfeasibleProblemError):
            w_mm(D, "active set")
        with pytest.raises(ActiveSetFailed):
            ntp_svm_active_set(D)
        return
    new = w_mm(D, "active set")
    assert new.method == "active set"
    assert np.linalg.norm(new.W - old.W) <= 1e-9 * max(1.0, old.norm)
    assert new.kkt <= 1e-12 * max(1.0, new.norm, float(np.max(new.multipliers, initial=0.0)))


@pytest.mark.parametrize("d,m,V,seed", [(5, 3, 4, 0), (3, 3, 5, 1), (5, 6, 4, 0), (8, 10, 5, 2)])
def test_coordinates_agree(d, m, V, seed):
    """In ``V m`` coordinates when d > m or not, ℱ given or not, ℱ = {0} or not: one answer, the previous path's."""
    D = linear_instance(d, m, V, seed)
    one_hot = NTPData(D.H, np.eye(V, dtype=int)[np.arange(m) % V])  # F = {0}
    for D in (D, one_hot):
        a, b = w_mm(D), w_mm(D, F=subspace(D))
        assert a.method == b.method == "active set"
        assert _rel(a.W, b.W) <= 1e-12 and _rel(a.W, w_mm(D, "cvxpy").W) <= 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_orthogonal_contexts_closed_form(seed):
    rng = np.random.default_rng(seed)
    d, m, V = 6, 4, 5
    H = np.linalg.qr(rng.normal(size=(d, m)))[0] * rng.uniform(0.5, 2.0, m)
    C = rng.integers(0, 3, (m, V))
    C[:, 0] = np.maximum(C[:, 0], 1)
    C[0, -1] = 0
    D = NTPData(H, C)
    closed, active = w_mm(D), w_mm(D, "active set")
    assert closed.method == "exact" and active.method == "active set"
    assert _rel(active.W, closed.W) <= 1e-12


def test_index_arrays_match_the_pairs():
    for seed in range(20):
        D = _random(seed)
        assert list(zip(*(a.tolist() for a in margin_index(D)))) == margin_pairs(D)
        assert list(zip(*(a.tolist() for a in anchor_index(D)))) == anchor_pairs(D)
    D = _random(3)
    assert np.array_equal(margin_rows(D), index_rows(D, *margin_index(D)))


def test_full_supports_give_zero():
    D = NTPData(np.eye(2, 3), np.ones((3, 4), dtype=int))
    s = w_mm(D)
    assert s.method == "active set" and s.multipliers.shape == (0,) and not s.W.any()


@pytest.mark.parametrize("D", [NTPData(np.ones((1, 2)), np.array([[1, 0], [1, 1]])),  # one embedding, nested supports
                               NTPData(np.ones((1, 2)), np.array([[1, 1], [1, 0]])),  # (6a) for one, (6b) for the other
                               NTPData(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]]))],
                         ids=["nested", "equal-vs-margin", "shared-embedding"])
def test_infeasible_refused_as_before(D):
    with pytest.raises(InfeasibleProblemError):
        w_mm(D, "cvxpy")
    for method in ("auto", "active set"):
        with pytest.raises(InfeasibleProblemError):
            w_mm(D, method)
    with pytest.raises(ActiveSetFailed, match="infeasible"):
        ntp_svm_active_set(D)


def test_fallback_says_why(monkeypatch):
    D = linear_instance(6, 4, 6, 1)
    exact = w_mm(D)
    monkeypatch.setattr(svm_active, "KKT_RTOL", -1.0)  # no answer is accepted
    s = w_mm(D)
    assert s.method.startswith("CLARABEL") and "(active set: KKT residual" in s.method
    assert _rel(s.W, exact.W) <= 1e-9
    with pytest.raises(ValueError, match="unknown NTP-SVM method"):
        w_mm(D, "bogus")


def test_bench_linear_cli(capsys, monkeypatch):
    """``ntpcheck bench --linear`` at one small size (in this process: BLAS limited by the environment)."""
    from ntpcheck.app.scaleout import bench_linear
    from ntpcheck.app.cli.cli import main

    for k in bench_linear.BLAS_ENV:
        monkeypatch.setenv(k, "1")
    monkeypatch.setattr(bench_linear, "SIZES", ((6, 4, 6), (4, 6, 4)))
    monkeypatch.setattr(bench_linear, "FAST_REPEAT", 2)
    assert main(["bench", "--linear", "--repeat", "1", "--json", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["blas"].startswith("1 thread") and len(out["rows"]) == 2
    for r in out["rows"]:
        assert r["w_mm_method"] == "active set" and r["ratio"]["CLARABEL"] > 0
        assert r["difference_tight_clarabel"] <= 1e-9 and r["difference_previous"] <= 1e-9
        assert r["kkt"] <= 1e-12 and r["kkt_certify"] <= 1e-12


def test_bench_linear_child_process(capsys, monkeypatch):
    """Where BLAS cannot be limited in this process, the benchmark runs in a child with OPENBLAS_NUM_THREADS=1."""
    from ntpcheck.app.scaleout import bench_linear
    from ntpcheck.app.cli.cli import main

    for k in bench_linear.BLAS_ENV:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr("ntpcheck.common.blas.blas_limiter", lambda: "")
    monkeypatch.setattr(bench_linear, "SIZES", ((4, 3, 3),))
    assert main(["bench", "--linear", "--repeat", "1"]) == 0
    out, err = capsys.readouterr()
    assert "child process" in out and "d/m/V" in out and "4/3/3" in out


def test_single_threaded_blas_sets_and_restores():
    from ntpcheck.common.blas import _openblas, blas_limiter

    if blas_limiter() != "openblas":
        pytest.skip(f"BLAS limited by {blas_limiter() or 'nothing'} here")
    funcs = _openblas()
    for _, put in funcs:
        put(2)
    # A library started with OPENBLAS_NUM_THREADS=1 (or on one core) keeps 1 whatever is asked: restored means as before.
    before = [get() for get, _ in funcs]
    with single_threaded_blas():
        assert [get() for get, _ in funcs] == [1] * len(funcs)
    assert [get() for get, _ in funcs] == before
