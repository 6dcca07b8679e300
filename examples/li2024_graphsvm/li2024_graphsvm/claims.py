"""The claims of Li et al. (AISTATS 2024) as :class:`ntpcheck.api.Claim` records, and ``PAPER``.

Each is "reconstructed from the abstract and the authors' code" (:mod:`li2024_graphsvm` says what
was found and what was not): the paper's numbering and exact assumptions were not available, so
the claims are named by what they say and checked under the conditions of :data:`CONDITIONS`:

* ``Graph-SVM [KKT]``: the Graph-SVM (:mod:`.svm`) has a solution, certified by its KKT residuals
  (<= 1e-9), on acyclic and cyclic graphs alike;
* ``GD [direction]``: GD on ``W`` converges in direction to ``W^svm`` (hard retrieval);
* ``GD [finite part]``: the within-component projection of ``W_t`` converges to ``W_fin``, the
  minimiser of the reduced loss on ``S_fin`` (soft composition), while the direction diverges;
* ``Bridge``: on acyclic graphs the Graph-SVM is Huang et al.'s ``W*_kq`` (their Eq. (3)).

Examples
--------
>>> [c.name for c in CLAIMS]
['Graph-SVM [KKT]', 'GD [direction]', 'GD [finite part]', 'Bridge [acyclic]']
>>> from .worked import instance, CYCLIC
>>> violated(instance(CYCLIC))
['acyclic']
"""

from __future__ import annotations

from dataclasses import replace

from ntpcheck.api import Claim, Paper, Part, Structural

from .checks import check_bridge, check_certificate, check_direction, check_finite
from .figures import FIGURES
from .instance import GraphInstance
from .strategies import SIZES, instances, sequence_data
from .textformat import load
from .worked import ACYCLIC, CYCLIC, ONE_EDGE, instance

__all__ = ["CONDITIONS", "CLAIMS", "PAPER", "breaking", "violated"]

#: The conditions of the necessity matrix: linearly independent token embeddings (the Graph-SVM is
#: then feasible), and acyclic token-priority graphs (the bridge's hypothesis).
CONDITIONS = ("independent", "acyclic")

NOTES = ("reconstructed from the abstract and the authors' code (github.com/yixiao-huang/next-token-prediction: "
         "nxt_token_solver.W_svm_solver_cvxpy, Tarjan; utils.cal_Sfin; data_utils.generate_reduced_ds); "
         "the paper's numbering and assumptions were not found")


def same(inst: GraphInstance) -> GraphInstance:
    """The setup of every claim: the instance as drawn (its GD parameters are drawn with it)."""
    return inst


def _on(text: str, check, **kw):
    return lambda: check(instance(text).evidence(), **kw)


CLAIMS: tuple[Claim, ...] = (
    Claim("Graph-SVM", "Graph-SVM (code: W_svm_solver_cvxpy)",
          "min ||W||_F s.t. (x_i - x_j)^T W z = 0 for an edge i -> j of G^(z) inside an SCC, >= 1 for one across SCCs: "
          "a solution exists for independent embeddings, certified by its KKT residuals (<= 1e-9)",
          ("independent",), instances("any"), check_certificate, setup=same, reading="KKT",
          sabotage=Structural(_on(CYCLIC, check_certificate, scale=1.01), "1.01 W^svm offered as the solution"),
          notes=NOTES),
    Claim("GD", "abstract: hard retrieval (code: train_W, cal_corr)",
          "gradient descent on W converges in direction to the Graph-SVM: W_t/||W_t|| -> W^svm/||W^svm|| "
          "(1 - cos judged as a limit on t in [steps/100, steps], confirmed on a run 10x as long)",
          ("independent",), instances("any", gd=True), check_direction, setup=same, reading="direction",
          parts=(Part("lim direction", "limit", "the limit direction W^svm/||W^svm|| (mutant: turned by 0.01 rad)"),),
          sabotage=Structural(_on(ONE_EDGE, check_direction, turn=0.3),
                              "the reference turned by 0.3 rad, on data whose run is along W^svm from the first step"),
          notes=NOTES + "; 1 - cos falls like 1/log^2 t (1e-2 to 1e-4 at 10^3-10^4 steps), so the 0.01 rad mutant "
                        "(5e-5 in 1 - cos) is killed only where the run lies along W^svm from the first step (one "
                        "edge per query: the claim is vacuous there); elsewhere these horizons do not resolve it"),
    Claim("GD", "abstract: soft composition (code: train_W_Wfin, cal_Sfin)",
          "W_t = R_t W^svm/||W^svm|| + W_fin + o(1) within components: P_S W_t -> W_fin, S = span{(x_i - x_j) z^T: "
          "i, j in one SCC of G^(z)} (orthogonal to W^svm), W_fin the minimiser on S of the loss of the samples "
          "reduced to their label's SCC", ("independent",), instances("cyclic", gd=True), check_finite, setup=same,
          reading="finite part",
          parts=(Part("lim W_fin", "limit", "the limit W_fin of the within-component part (mutant: 1.01 W_fin)"),),
          sabotage=Structural(_on(CYCLIC, check_finite, offset=1.0), "2 W_fin taken as the limit"),
          notes=NOTES + "; ||P_S W_t - W_fin|| falls like 1/t, so the 1.01 W_fin mutant is resolved within runs "
                        "of 10^4 steps mainly where the within part sits at W_fin early (worked.SETTLED); confirming "
                        "the others would take runs of 10^5-10^6 steps"),
    Claim("Bridge", "to Huang et al. (NeurIPS 2024), Eq. (3)",
          "on acyclic graphs (every SCC a single token) the Graph-SVM equals W*_kq of Eq. (3) (each token its own "
          "collocation), to 1e-9", ("independent", "acyclic"), instances("acyclic"), check_bridge, setup=same,
          reading="acyclic", sabotage=Structural(_on(ACYCLIC, check_bridge, scale=1.01), "1.01 W*_kq compared"),
          notes=NOTES + "; W*_kq by ntpcheck.transformer.maxmargin.solve_eq3_best (the first paper's core)"),
)
CLAIMS = tuple(replace(c, figure=FIGURES[c.name]) for c in CLAIMS)


def violated(inst: GraphInstance) -> list[str]:
    """The conditions of :data:`CONDITIONS` that ``inst`` breaks, in that order."""
    ok = {"independent": inst.data.independent, "acyclic": inst.evidence().acyclic}
    return [c for c in CONDITIONS if not ok[c]]


def breaking(condition: str, profile: str, data=None):
    """Instances breaking exactly ``condition``: rank-deficient embeddings on acyclic data, or cyclic data
    with independent embeddings (the claim's data reading ``data`` is not used)."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; known: {', '.join(CONDITIONS)}")
    kw = dict(SIZES[profile], labels="acyclic", dependent=True) if condition == "independent" else \
        dict(SIZES[profile], labels="cyclic")
    return sequence_data(**kw).map(GraphInstance)


PAPER = Paper(
    name="li2024",
    title="Li, Huang, Ildiz, Rawat & Oymak (AISTATS 2024): Mechanics of Next Token Prediction with Self-Attention "
          "(Graph-SVM; reconstructed from the abstract and the authors' code)",
    claims=CLAIMS,
    conditions=CONDITIONS,
    breaking=breaking,
    violated=violated,
    load=load,
)
