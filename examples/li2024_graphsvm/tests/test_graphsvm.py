"""The Graph-SVM: certified on cyclic data, equal to Huang et al.'s W*_kq on acyclic data, and what
its constraints and finite part are on worked examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from li2024_graphsvm import svm
from li2024_graphsvm.bridge import w_kq
from li2024_graphsvm.data import SequenceData
from li2024_graphsvm.graph import constraints, reduced_samples
from li2024_graphsvm.instance import GraphInstance
from li2024_graphsvm.strategies import sequence_data
from li2024_graphsvm.worked import CYCLIC, instance

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


@SETTINGS
@given(sequence_data(labels="cyclic", max_vocab=6, max_len=6, max_samples=8))
def test_certificate_on_cyclic_data(D):
    ev = GraphInstance(D).evidence()
    s = ev.svm
    assert s.residuals["worst"] <= svm.CERTIFIED, s.residuals
    assert float(np.abs(ev.basis @ s.w).max()) <= 1e-9   # W^svm is orthogonal to S_fin
    assert float(np.linalg.norm(s.w)) > 0 and not ev.acyclic


@SETTINGS
@given(sequence_data(labels="acyclic", max_vocab=6, max_len=6, max_samples=8))
def test_bridge_on_acyclic_data(D):
    ev = GraphInstance(D).evidence()
    assert ev.acyclic and not ev.constraints.equalities
    assert float(np.abs(ev.w_svm - w_kq(D)).max()) <= 1e-9 * max(1.0, float(np.abs(ev.w_svm).max()))


@settings(max_examples=10, deadline=None, derandomize=True)
@given(sequence_data(labels="any"))
def test_agrees_with_cvxpy(D):
    """An independent solver (CLARABEL, to its own accuracy) finds the same point."""
    cp = pytest.importorskip("cvxpy")
    c = constraints(D)
    w = cp.Variable(D.d ** 2)
    cons = [c.A_in @ w >= 1] + ([c.A_eq @ w == 0] if len(c.A_eq) else [])
    cp.Problem(cp.Minimize(cp.sum_squares(w)), cons).solve(solver="CLARABEL")
    assert float(np.abs(w.value - svm.solve(c.A_eq, c.A_in).w).max()) < 1e-4   # CLARABEL: ~1e-5 on these


def test_dependent_embeddings_can_be_infeasible():
    """``x_A = x_B`` and the edge ``A -> B`` across components: ``(x_A - x_B)^T W z = 0 >= 1``."""
    E = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    D = SequenceData(("A", "B", "C"), E, (((0, 1, 2), 0, 1.0),))
    c = constraints(D)
    with pytest.raises(svm.Infeasible):
        svm.solve(c.A_eq, c.A_in)


def test_the_worked_cycle():
    """Under query C, A and B are one SCC (edges both ways), D and C lie below; the samples reduced to
    {A, B} weigh 2 : 1, so W_fin puts the softmax at 2/3 : 1/3 (score difference log 2)."""
    inst = instance(CYCLIC)
    ev, (A, B, D, C) = inst.evidence(), range(4)
    assert ev.constraints.equalities == ((A, B, C), (B, A, C))
    assert {(a, b) for a, b, _ in ev.constraints.inequalities} == {(A, D), (A, C), (B, D), (B, C)}
    assert [s[:2] for s in reduced_samples(inst.data)] == [((A, B), A), ((B, A), B)]
    E, W = inst.data.E, ev.finite.W
    assert abs((E[:, A] - E[:, B]) @ W @ E[:, C] - np.log(2)) < 1e-12 and ev.finite.grad < 1e-12
    margins = ev.constraints.A_in @ ev.svm.w
    assert margins.min() == pytest.approx(1.0, abs=1e-12)
