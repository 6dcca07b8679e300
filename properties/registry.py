"""The claim registry: one :class:`~ntpcheck.claims.Claim` per row of CLAIMS.md (and per reading).

Every claim carries its instance strategy, its checker and a sabotage (the
checker run on a deliberately wrong input, which must be rejected).  Both
``tests/test_claims.py`` and ``ntpcheck verify`` consume :data:`REGISTRY`.
"""

from __future__ import annotations

from functools import partial

from hypothesis import strategies as st

import ntpcheck
from ntpcheck.claims import Claim, Instance

from . import gradients as g
from . import section6 as s6
from . import stage1 as s1
from . import stage2 as s2
from .common import datasets_for, with_params

__all__ = ["REGISTRY", "by_name", "ASSUMPTIONS_1_2", "ASSUMPTIONS_1_2_3"]

ASSUMPTIONS_1_2 = ("1i", "1ii", "2", "prefix")
ASSUMPTIONS_1_2_3 = ("1i", "1ii", "2", "3", "prefix")


def _ex1() -> Instance:
    return Instance(ntpcheck.load("example1"))


def _strategy(make, *, prefix_closed: bool = True, embeddings: str = "canonical", **sizes):
    def build(profile: str):
        if embeddings == "orthonormal":
            from strategies import realizable_datasets

            from .common import SIZES

            base = realizable_datasets(prefix_closed=prefix_closed, embeddings="orthonormal", **{**SIZES[profile], **sizes})
        else:
            base = datasets_for(profile, prefix_closed=prefix_closed, **sizes).map(lambda ds: Instance(ds))
        return base.map(make)

    return build


def _guarded(make):
    """A parameter map that records a failure (e.g. an infeasible Eq. (2) on data
    breaking Assumption 1(i)) in the instance instead of raising while drawing."""
    from ntpcheck.errors import NTPCheckError

    def wrapped(inst: Instance) -> Instance:
        try:
            return make(inst)
        except NTPCheckError as e:
            return Instance(inst.dataset, inst.embeddings, T=0, T2=0, setup_error=f"{type(e).__name__}: {e}")

    return wrapped


def _params(**p):
    return lambda inst: with_params(inst, **p)


@_guarded
def _cor1(inst: Instance) -> Instance:
    c = s1.cor1_instance(inst.dataset)
    return Instance(inst.dataset, inst.embeddings, T=c.T, T2=0, eta0=c.eta0)


def _lemma7(idealised: bool):
    @_guarded
    def make(inst: Instance) -> Instance:
        c = s2.lemma7_instance(inst.dataset, idealised=idealised)
        return Instance(inst.dataset, inst.embeddings, T=c.T, T2=c.T2, eta=c.eta, idealised=idealised)

    return make


#: Minimal counterexample to Proposition 2 without prefix closure (found by
#: Hypothesis, see README "Findings"): under query B, A > B and C > D, E, B.
PROP2_COUNTEREXAMPLE = """\
A -> A
A A B -> A
C -> B
C D E B -> B
"""


def _prop2_cex() -> Instance:
    return Instance(ntpcheck.loads(PROP2_COUNTEREXAMPLE), None, T=0, T2=0)


def _fixed(inst_factory):
    return lambda profile: st.just(None).map(lambda _: inst_factory())


STAGE1 = _params(T=300, T2=0)
PROP1 = _params(T=900, T2=0)
IDEAL = _params(T=900, T2=300, idealised=True)
TRAINED = _params(T=900, T2=300)
FULL = _params(T=900, T2=900)
SOLVE_ONLY = _params(T=0, T2=0)
THM2 = _guarded(s2.thm2_instance)


def _section7_strategy(profile: str):
    """The paper's Section 7 setting: a random realizable dataset with |V| = 20 (about
    90 samples), d = |V|, the paper's step sizes, 900 + 900 steps.  Seeded (see
    :func:`ntpcheck.synthetic.random_realizable_dataset`): a reproduction, not a search."""
    from ntpcheck.synthetic import random_realizable_dataset

    return st.integers(0, 2**31 - 1).map(lambda seed: Instance(random_realizable_dataset(20, 90, seed=seed), None, T=900, T2=900))


REGISTRY: list[Claim] = [
    # ---- Appendix A
    Claim("Eq. 5", "grad_{W_ov} L_0 = sum_x (T_0(x) - e_{n(x)}) x^T (Appendix A, Eq. 5)", ASSUMPTIONS_1_2,
          _strategy(STAGE1, embeddings="orthonormal"), g.check_eq5, sabotage=lambda: g.check_eq5(_ex1(), sign=-1.0),
          make=STAGE1, section="App. A"),
    Claim("Eq. 6", "grad_{W_kq} L = sum_n pi X (diag phi - phi phi^T) X^T W_ov^T (T - e_y) x_L^T (Appendix A, Eq. 6)", ASSUMPTIONS_1_2,
          _strategy(STAGE1, embeddings="orthonormal"), g.check_eq6, sabotage=lambda: g.check_eq6(_ex1(), drop_jacobian_term=True),
          make=STAGE1, section="App. A"),
    # ---- Stage 1 (Section 5.1, Appendix B, C.1)
    Claim("Lemma 1", "t eta_0/(2||W*_ov||) <= ||W_ov^(t)|| <= t eta_0 for every t (Appendix B)", ASSUMPTIONS_1_2,
          _strategy(STAGE1), s1.check_lemma1, sabotage=lambda: s1.check_lemma1(with_params(_ex1(), T=300, T2=0), upper_factor=0.5),
          make=STAGE1, section="App. B"),
    Claim("Lemma 2", "<W^(t), grad L_0> >= (||W^(t)||/||W*|| + 2 log 2|V|) <W*, grad L_0> for t >= 1 (Appendix B)", ASSUMPTIONS_1_2,
          _strategy(STAGE1), s1.check_lemma2, sabotage=lambda: s1.check_lemma2(with_params(_ex1(), T=300, T2=0), factor=0.5),
          make=STAGE1, section="App. B"),
    *[
        Claim("Prop. 1", f"1 - cos(W_ov^(t), W*_ov) <= 12 ||W*_ov||^{k} log(2|V|) log t/(t eta_0) for t >= 2 (Prop. 1)", ASSUMPTIONS_1_2,
              _strategy(PROP1), partial(s1.check_prop1_alignment, k=k), variant=f"k={k}",
              sabotage=partial(lambda k: s1.check_prop1_alignment(with_params(_ex1(), T=900, T2=0), k=k, C=1e-30), k),
              make=PROP1, section="§5.1")
        for k in (1, 2, 3)
    ],
    *[
        Claim("Prop. 1", f"L_0(W_ov^(t)) = O(exp(-eta_0 t/(4 ||W*_ov||^{k}))) (Prop. 1, loss)", ASSUMPTIONS_1_2,
              _strategy(PROP1), partial(s1.check_prop1_loss, k=k), variant=f"loss k'={k}",
              sabotage=partial(lambda k: s1.check_prop1_loss(with_params(_ex1(), T=900, T2=0), k=k, rate_factor=100.0), k),
              make=PROP1, section="§5.1")
        for k in (1, 2)
    ],
    Claim("Lemma 3", "(e_i - e_i')^T W_ov^(t) x = 0 for all t, x and i, i' != n(x) (Appendix C.1)", ASSUMPTIONS_1_2,
          _strategy(STAGE1), s1.check_lemma3,
          sabotage=lambda: s1.check_lemma3(with_params(_ex1(), T=300, T2=0), weights=s1.sabotaged_stage1_weights(with_params(_ex1(), T=300, T2=0))),
          make=STAGE1, section="App. C.1"),
    Claim("Cor. 1", "if T >= 384 ||W*_ov||^5 log(2|V|) log T/eta_0: A < (e_{n(x)} - e_i)^T W_ov^(T) x < 3A, A = T eta_0/(4||W*_ov||^2) (Cor. 1)", ASSUMPTIONS_1_2,
          _strategy(_cor1), s1.check_cor1, variant="k=5",
          sabotage=lambda: s1.check_cor1(_cor1(Instance(ntpcheck.loads("A -> A\nvocab: A B\n")))
                                         , lower=4.0),
          make=_cor1, section="App. C.1",
          notes="k = 5 is the reading consistent with Prop. 1 for k = 1 (the proof needs T^2 eta_0^2/(16||W*||^4) >= 24 T eta_0 ||W*|| log(2|V|) log T)."),
    Claim("Cor. 1 (corrected)", "same threshold: A < margin < 4||W*_ov|| A (1 + 2||W*_ov|| sqrt(delta_T)), delta_T = Prop. 1's bound with k = 1", ASSUMPTIONS_1_2,
          _strategy(_cor1), s1.check_cor1_corrected, variant="k=5",
          sabotage=lambda: s1.check_cor1_corrected(_cor1(_ex1()), shrink=0.5), make=_cor1, section="App. C.1"),
    # ---- Stage 2 (Section 5.2, Appendix C)
    Claim("Lemma 4", "with every stage-1 margin = A: <grad_{W_kq} L, W'> = A sum_n pi [([T]_y - 1) sum_{l in I(n)} + sum_{l not in I(n)} [T]_{n(x_l)}] phi_l (x_l - X phi)^T W' x_L (Appendix C.1)", ASSUMPTIONS_1_2,
          _strategy(_params(T=900, T2=60, idealised=True)), s2.check_lemma4,
          sabotage=lambda: s2.check_lemma4(with_params(_ex1(), T=900, T2=60, idealised=True), second_term=0.0),
          make=_params(T=900, T2=60, idealised=True), section="App. C.1"),
    *[
        Claim("Lemma 5", "phi_l*^(n,t+1) >= phi_l*^(n,t) >= 1/L_max for optimal l*, and phi_l* >= phi_l for non-optimal l (Appendix C.2)", ASSUMPTIONS_1_2_3,
              _strategy(mk), s2.check_lemma5, variant=v,
              sabotage=partial(lambda mk: s2.check_lemma5(mk(_ex1()), attention=s2.sabotaged_attention(mk(_ex1()))), mk),
              make=mk, section="App. C.2")
        for v, mk in (("idealised W_ov", IDEAL), ("trained W_ov", TRAINED))
    ],
    *[
        Claim("Lemma 6", "t eta/(2 L_max ||W*_kq||) <= ||W_kq^(t)|| <= t eta (zero init; Appendix C.3)", ASSUMPTIONS_1_2_3,
              _strategy(mk), s2.check_lemma6, variant=v,
              sabotage=partial(lambda mk: s2.check_lemma6(mk(_ex1()), lower_factor=20.0), mk), make=mk, section="App. C.3")
        for v, mk in (("idealised W_ov", IDEAL), ("trained W_ov", TRAINED))
    ],
    *[
        Claim("Lemma 7", "t >= t_0 = ceil(8 L_max ||W*_kq||^2/eta): <grad L, W/||W||> >= (1 + alpha_t) <grad L, W*/||W*||> (Appendix C.4)", ASSUMPTIONS_1_2_3,
              _strategy(_lemma7(ideal)), s2.check_lemma7, variant=v,
              sabotage=partial(lambda ideal: s2.check_lemma7(_lemma7(ideal)(_ex1()), alpha_factor=-1e6), ideal),
              make=_lemma7(ideal), section="App. C.4")
        for v, ideal in (("idealised W_ov", True), ("trained W_ov", False))
    ],
    Claim("Thm. 1", "t eta/(2||W*_kq||) <= ||W_kq^(t)|| <= t eta for t >= 2 (Theorem 1, as printed)", ASSUMPTIONS_1_2_3,
          _strategy(FULL), s2.check_thm1_norm, variant="norm, 2||W*||",
          sabotage=lambda: s2.check_thm1_norm(FULL(_ex1()), lower_factor=50.0), make=FULL, section="§5.2"),
    Claim("Thm. 1", "t eta/(2 L_max ||W*_kq||) <= ||W_kq^(t)|| <= t eta for t >= 2 (reading as in Lemma 6)", ASSUMPTIONS_1_2_3,
          _strategy(FULL), partial(s2.check_thm1_norm, with_lmax=True), variant="norm, 2 L_max ||W*||",
          sabotage=lambda: s2.check_thm1_norm(FULL(_ex1()), with_lmax=True, lower_factor=200.0), make=FULL, section="§5.2"),
    Claim("Thm. 1", "1 - cos(W_kq^(t), W*_kq) <= 54 N L_max^4 ||W*_kq||^4 log^2 t/(t eta) (main term; Theorem 1)", ASSUMPTIONS_1_2_3,
          _strategy(FULL), s2.check_thm1_alignment, variant="alignment bound",
          sabotage=lambda: s2.check_thm1_alignment(FULL(_ex1()), C=1e-12), make=FULL, section="§5.2"),
    Claim("Thm. 1", "1 - cos(W_kq^(t), W*_kq) = O(log^2 t/t) (Theorem 1, rate)", ASSUMPTIONS_1_2_3,
          _strategy(FULL), s2.check_thm1_rate, variant="rate",
          sabotage=lambda: s2.check_thm1_rate(FULL(_ex1()), slack_exponent=-3.0), make=FULL, section="§5.2"),
    Claim("Thm. 2", "min_n sum_{l* in I(n)} phi_l*^(t) >= (1 + L_max exp(-C_1 t))^-1, C_1 = eta/(4 L_max ||W*_kq||^2), beyond a c_0 threshold (Theorem 2)", ASSUMPTIONS_1_2_3,
          _strategy(THM2), s2.check_thm2_attention, variant="attention",
          sabotage=lambda: _expect_not_holding(s2.check_thm2_attention(s2.thm2_instance(_ex1()), rate_factor=1e4)), make=THM2, section="§5.2"),
    Claim("Thm. 2", "L(theta^(t)) - L* <= |V| exp(-A + 2 A L_max/(L_max + exp(C_1 t))) - L*, A = C_0 T (Theorem 2)", ASSUMPTIONS_1_2_3,
          _strategy(THM2), s2.check_thm2_loss, variant="loss",
          sabotage=lambda: _expect_not_holding(s2.check_thm2_loss(s2.thm2_instance(_ex1()), A_factor=50.0)), make=THM2, section="§5.2"),
    Claim("Thm. 2 fn. 3", "for fixed W_ov = W_ov^(T), the minimum of L over W_kq is L* = |V| exp(-T C_0) (footnote 3, as written)", ASSUMPTIONS_1_2_3,
          _strategy(PROP1), s2.check_fn3, variant="L* = min L",
          sabotage=lambda: s2.check_fn3(with_params(_ex1(), T=900, T2=0), reading="upper", factor=1e-300), make=PROP1, section="§5.2"),
    Claim("Thm. 2 fn. 3", "min over W_kq of L <= L* = |V| exp(-T C_0) (reading: L* bounds the minimum)", ASSUMPTIONS_1_2_3,
          _strategy(PROP1), partial(s2.check_fn3, reading="upper"), variant="min L <= L*",
          sabotage=lambda: s2.check_fn3(with_params(_ex1(), T=900, T2=0), reading="upper", factor=1e-300), make=PROP1, section="§5.2"),
    # ---- Section 6
    Claim("Prop. 2", "x*^T W*_kq q = |N|/(|O|+|N|), x^T W*_kq q = -|O|/(|O|+|N|), x_0^T W*_kq q = 0 (Prop. 2), in the paper's Section 3 setting (prefix-closed data)",
          ASSUMPTIONS_1_2, _strategy(SOLVE_ONLY), s6.check_prop2, variant="Section 3 setting",
          sabotage=lambda: s6.check_prop2(_ex1(), perturb=0.01), make=SOLVE_ONLY, section="§6"),
    Claim("Prop. 2", "the same formula under Assumptions 1-2 only, as the proposition is stated (any dataset, not necessarily prefix-closed)",
          ("1i", "1ii", "2"), _strategy(SOLVE_ONLY, prefix_closed=False), s6.check_prop2, variant="Assumptions 1-2 only",
          sabotage=lambda: s6.check_prop2(_ex1(), perturb=0.01), make=SOLVE_ONLY, section="§6", examples=(_prop2_cex,)),
    Claim("Prop. 2 (corrected)", "the formula holds when every optimal token is above every non-optimal one under each query (automatic under prefix closure)",
          ("1i", "1ii", "2"), _strategy(SOLVE_ONLY, prefix_closed=False), s6.check_prop2_corrected,
          sabotage=lambda: s6.check_prop2_corrected(_ex1(), perturb=0.01), make=SOLVE_ONLY, section="§6", examples=(_prop2_cex,)),
    Claim("Thm. 3", "(x* - x_0)^T W_kq^(t) q >= C_2 t and (x_0 - x)^T W_kq^(t) q >= C_2 t for some C_2 > 0 (Theorem 3)", ASSUMPTIONS_1_2_3,
          _strategy(FULL), s6.check_thm3_gaps, variant="gaps",
          sabotage=lambda: s6.check_thm3_gaps(FULL(_ex1()), c2_factor=2.0), make=FULL, section="§6"),
    Claim("Thm. 3", "a new sentence with query q made of one non-comparable x_0 and non-optimal tokens is predicted n(x_0) w.p. >= 1 - eps (Theorem 3; eps = 0.01)", ASSUMPTIONS_1_2_3,
          _strategy(FULL), s6.check_thm3_prediction, variant="prediction",
          sabotage=lambda: s6.check_thm3_prediction(FULL(_ex1()), expect_wrong=True), make=FULL, section="§6"),
    Claim("Ex. 1", "Example 1: collocation S->V, V->O, O->P, P->S; S >_S P; V >_V S; O >_O S, O >_O V; O >_P P", ASSUMPTIONS_1_2_3,
          _fixed(_ex1), s6.check_example1, sabotage=lambda: s6.check_example1(_ex1(), expected_orders={"P": {("P", "O")}}), section="§4.1"),
    Claim("Ex. 2", "Example 2: trained on Example 1, 'S P' is predicted V and 'O S P' is predicted P", ASSUMPTIONS_1_2_3,
          _fixed(_ex1), s6.check_example2, sabotage=lambda: s6.check_example2(_ex1(), expected={"S P": "O"}), section="§6"),
    Claim("§7", "Section 7 / Figure 2: |V| = 20, d = |V|, paper's step sizes, 900 + 900 steps: losses fall, alignment improves, norms grow linearly",
          ASSUMPTIONS_1_2_3, _section7_strategy, s6.check_section7,
          sabotage=lambda: s6.check_section7(FULL(_ex1()), loss_drop=1e-60), section="§7"),
]


def _expect_not_holding(o):
    """Thm. 2's thresholds are unspecified (c_0), so a sabotaged bound shows up as
    'not reached at the last step'; report that as a rejection."""
    from ntpcheck.claims import Outcome, Verdict

    if o.verdict is Verdict.NOT_REACHED:
        return Outcome(Verdict.FALSIFIED, -1.0, o.measured, "sabotaged bound fails at the last step: " + o.detail)
    return o


def by_name(name: str) -> Claim:
    for c in REGISTRY:
        if c.name == name:
            return c
    raise KeyError(name)
