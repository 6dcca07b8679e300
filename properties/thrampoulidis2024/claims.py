"""Every static claim of Thrampoulidis (NeurIPS 2024), one declarative record each (one per reading).

The claims that need long training (Thm. 1 and 2, Lemmas 2, 4 (3)–(6), 5, the reproductions and the
bridge claims) are registered elsewhere.  Ids follow CLAIMS.md of the paper (E2, D1-ind, Fn6, ...).
Inequality claims are sabotaged by a generic tightening of their bounds (:class:`Tighten`), formulas
and identities by a structural change of their input (:class:`Structural`).
"""

from __future__ import annotations

from functools import partial

from ..framework.claim import Claim, Informative, Structural, Tighten
from ..framework.evidence import evidence
from ..framework.parts import Part
from ..framework.verdicts import Verdict
from . import findings as f, setups
from .appc import check_appc_identity, check_m_monotone, check_rem2, check_rem2_shannon, check_rem2_stationary
from .cef import (check_dcef_a, check_dcef_b, check_eq13, check_eq24, check_lemma4_1, check_lemma4_2, check_r11, check_r1_strict,
                  check_r1_unique, check_t1pf_c, r11_group)
from .geometry import (check_lemma1, check_rem1, check_svm, check_svm_equal_rows, check_svm_orthogonal, check_svm_supports_only,
                       rem1_group, shared_pattern)
from .statics import check_d1_ind, check_e2, check_eq7, check_fn6, check_prop1_limit, check_prop1_rate

__all__ = ["CLAIMS"]

HYP = setups.HYP
SAME = setups.same
DATA = setups.hypotheses()
PROBED = setups.hypotheses(probe=True)


def structural(text: str, check, what: str, **kw) -> Structural:
    """The checker on the fixed instance ``text`` with a deliberately wrong formula or input (``kw``)."""
    return Structural(lambda: check(evidence(f.instance(text)), **kw), what)


def tighten(text: str) -> Tighten:
    return Tighten(on=lambda: f.instance(text))


EXPONENT = Part("exponent of e^-gamma", "exponent", "the rate e^-gamma")

CLAIMS: tuple[Claim, ...] = (
    Claim("E2", "§2, Eq. (2)", "CE(W) = -sum_j pi_j sum_{z in S_j} p_jz log S_z(W h_j) = H + sum_j pi_j KL(p_j || S(W h_j)) > H",
          (), PROBED, check_e2, setup=SAME,
          sabotage=structural(f.MINIMAL, check_e2, "KL against the softmax renormalised on the support", kl_in_support=True)),
    Claim("D1-ind", "§3, Defs. 1-2", "per context, (4) for all pairs <=> (4) for one anchor: S_j - 1 independent constraints; "
          "(6) amounts to V - 1", (), DATA, check_d1_ind, setup=SAME,
          sabotage=structural(f.TWO_CONTEXTS, check_d1_ind, "counts off by one", count_offset=1)),
    Claim("Fn6", "§3, Fn. 6", "W* in F solves (4), uniquely in F; every solution is W* + (an element of F-perp)",
          ("compatible",), PROBED, check_fn6, setup=SAME,
          sabotage=structural(f.TWO_CONTEXTS, check_fn6, "W* moved within F", perturb=0.1)),
    Claim("Eq7", "§3, Eq. (7)", "S_v(gamma W^d h_j) <= e^-gamma for v not in S_j, W^d meeting (6)", ("separable",), PROBED, check_eq7,
          setup=SAME, sabotage=tighten(f.MINIMAL), parts=(Part("1", "constant", "the factor in front of e^-gamma"), EXPONENT)),
    Claim("P1", "§3, Prop. 1", "CE(W) > H for finite W, and CE(W^p + gamma W^d) -> H as gamma -> infinity", HYP, PROBED,
          check_prop1_limit, setup=SAME, reading="limit", sabotage=tighten(f.MINIMAL)),
    Claim("P1", "§3, Prop. 1 (derived by (9))", "CE(W^p + gamma W^d) - H <= V e^{M ||W^p||} e^-gamma", HYP, PROBED, check_prop1_rate,
          setup=SAME, reading="rate", sabotage=tighten(f.MINIMAL),
          parts=(Part("V", "constant", "the factor V"), Part("M", "constant", "M in e^{M ||W^p||}"), EXPONENT)),
    Claim("L1", "§3.1, Lemma 1", "d > m and rank H = m => infinitely many solutions of (4) and of (6) (by §3.1's construction)",
          ("overparameterised",), setups.hypotheses(min_extra_dims=1), check_lemma1, setup=SAME, reading="d > m", slug="l1-d-gt-m",
          sabotage=structural(f.INCOMPATIBLE, check_lemma1, "the conclusion on data with one embedding twice", hypotheses=False)),
    Claim("L1", "§3.1, Lemma 1 (R6)", "d = m and rank H = m => the same", ("overparameterised",), setups.hypotheses(min_extra_dims=0),
          partial(check_lemma1, strict=False), setup=SAME, reading="d = m", slug="l1-d-eq-m",
          sabotage=structural(f.INCOMPATIBLE, check_lemma1, "the conclusion on data with one embedding twice", hypotheses=False)),
    Claim("Rem1", "§3.1, Remark 1", "S_j = 1 for all j: H = 0, F = {0}, NTP-separable <=> multiclass linearly separable",
          (), setups.one_hot, check_rem1, setup=SAME,
          informative=Informative(rem1_group, ("separable", "not_separable"), "never: both sides are informative"),
          sabotage=structural(f.MINIMAL, check_rem1, "the multiclass answer negated", negate=True)),
    Claim("SVM", "§4, Def. 3", "W^mm meets (6) with margin 1, lies in F-perp, is the unique min-norm point (KKT), maximises the "
          "margin over unit W in F-perp; mV - sum S_j inequalities, sum S_j - m equalities", ("separable",), PROBED, check_svm,
          setup=SAME, reading="Def. 3", sabotage=structural(f.TWO_CONTEXTS, check_svm, "1.01 W^mm offered", scale=1.01)),
    Claim("SVM", "§4 [derived]", "W^mm depends on the supports only (not on p or pi)", ("separable",), PROBED, check_svm_supports_only,
          setup=SAME, reading="supports only",
          sabotage=structural(f.TWO_CONTEXTS, check_svm_supports_only, "W* compared instead", use_w_star=True)),
    Claim("SVM", "App. A, Fig. 2 [derived]", "<W*, W^mm> = 0 (orthogonal subspaces)", HYP, DATA, check_svm_orthogonal, setup=SAME,
          reading="W* orthogonal", sabotage=structural(f.TWO_CONTEXTS, check_svm_orthogonal, "W* + W^mm/2", shift=0.5)),
    Claim("Fig2", "App. A, Fig. 2 (general form)", "tokens with identical support patterns have identical rows of W^mm",
          ("separable",), setups.shared_patterns, check_svm_equal_rows, setup=SAME, reading="general form",
          informative=Informative(shared_pattern, ("shared",), "no two tokens share a support pattern"),
          sabotage=structural(f.SHARED, check_svm_equal_rows, "the rows of W* compared", matrix="w_star")),
    Claim("Eq24", "§4, App. E.2, Eq. (24)", "<-grad CE(W), U> = sum_j pi_j sum_z p_jz (sum_{z' in S_j} s_jz' (e_z - e_z')^T U h_j "
          "+ sum_{v not in S_j} s_jv (e_z - e_v)^T U h_j)", (), PROBED, check_eq24, setup=SAME,
          sabotage=structural(f.TWO_CONTEXTS, check_eq24, "the in-support sum dropped", in_support=False)),
    Claim("T1-pf", "§4, App. E.2", "(c): <-grad CE(W), W^mm> > 0 at every finite W: (24)'s first sum is 0 by (6a), its second > 0 by (6b)",
          ("separable",), PROBED, check_t1pf_c, setup=SAME, reading="c",
          sabotage=structural(f.TWO_CONTEXTS, check_t1pf_c, "-W^mm", sign=-1.0)),
    Claim("D-CEF", "App. D", "(a): CE(W) >= CE_F(W) for all W", (), PROBED, check_dcef_a, setup=SAME, reading="a", slug="dcef-a",
          sabotage=tighten(f.TWO_CONTEXTS)),
    Claim("D-CEF", "App. D (R3)", "(b) as printed: CE_F(W) = lim_R CE(W + R W^d) for W in F and W^d in F-perp meeting (6a)",
          (), PROBED, partial(check_dcef_b, reading="A"), setup=SAME, reading="b, (6a) as printed", slug="dcef-b-6a",
          expect=Verdict.FALSIFIED, finding=f.DCEF_6A, examples=(f.DCEF_6A.counterexample,)),
    Claim("D-CEF", "App. D (R3)", "(b) read with (6): CE_F(W) = lim_R CE(W + R W^d) for W in F and W^d meeting (6a) and (6b)",
          ("separable",), PROBED, partial(check_dcef_b, reading="B"), setup=SAME, reading="b, with (6)", slug="dcef-b-6",
          sabotage=structural(f.TWO_CONTEXTS, check_dcef_b, "-W^d", reading="B", flip=True)),
    Claim("D-CEF", "App. D, Eq. (13)", "(c): inf_{W in F} CE_F(W) = inf_W CE(W) = H", HYP, PROBED, check_eq13, setup=SAME, reading="c", slug="dcef-c",
          sabotage=structural(f.TWO_CONTEXTS, check_eq13, "W* moved within F", offset=0.1)),
    Claim("L4", "App. E.1, Lemma 4", "(1): CE_F(W*) = inf_{W in F} CE_F(W) = H", HYP, PROBED, check_lemma4_1, setup=SAME, reading="1",
          sabotage=structural(f.TWO_CONTEXTS, check_lemma4_1, "W* moved within F", offset=0.1)),
    Claim("L4", "App. E.1, Lemma 4", "(2): W* is the unique minimiser of CE_F on F", HYP, PROBED, check_lemma4_2, setup=SAME,
          reading="2", sabotage=structural(f.TWO_CONTEXTS, check_lemma4_2, "W* moved within F", offset=0.1)),
    Claim("R1", "§4 (R1)", "CE is strictly convex", (), PROBED, check_r1_strict, setup=SAME, reading="strictly convex",
          expect=Verdict.FALSIFIED, finding=f.R1_STRICT, examples=(f.R1_STRICT.counterexample,)),
    Claim("R1", "§4 (R1)", "W_B = argmin_{||W|| <= B} CE(W) is unique", ("separable", "S<V"), PROBED, check_r1_unique, setup=SAME,
          reading="W_B unique", sabotage=structural(f.FULL_SUPPORT, check_r1_unique, "every token after the context (S_j = V)")),
    Claim("R11", "§3, §1.1 (R11)", "reaching H needs NTP_H-compatibility: (3a) holds at W* on compatible data, and inf CE_F > H "
          "on incompatible data", (), setups.with_incompatible, check_r11, setup=SAME, reading="compatibility necessary",
          informative=Informative(r11_group, ("compatible", "not_compatible"), "never: both sides are informative"),
          sabotage=structural(f.INCOMPATIBLE, check_r11, "incompatible data taken as compatible", trust=True)),
    Claim("AppC", "App. C", "the prefix-averaged loss equals CE (2) of the distinct (t, context) pairs merged by embedding; "
          "App. C's display (pi per length) is (T - 1) times it", (), setups.sequences(probe=True), check_appc_identity, setup=SAME,
          reading="identity", sabotage=structural(f.SEQUENCES, check_appc_identity, "the display without T - 1", per_length=True)),
    Claim("AppC", "App. C", "m_1 >= m_2 >= ... >= m_{T-1}", (), setups.sequences(), partial(check_m_monotone, direction="non-increasing"),
          setup=SAME, reading="m_t non-increasing", expect=Verdict.FALSIFIED, finding=f.APPC_M, examples=(f.APPC_M.counterexample,)),
    Claim("AppC", "App. C (corrected)", "m_1 <= m_2 <= ... <= m_{T-1} for sequences of one length", (), setups.sequences(),
          partial(check_m_monotone, direction="non-decreasing"), setup=SAME, reading="m_t non-decreasing",
          sabotage=structural(f.UNEQUAL, check_m_monotone, "sequences of different lengths", direction="non-decreasing",
                              equal_lengths=False)),
    Claim("Rem2", "App. C, Remark 2 (R9)", "H_t >= H_{t+1} on empirical autoregressive data", (), setups.sequences(), check_rem2,
          setup=SAME, reading="empirical data", expect=Verdict.FALSIFIED, finding=f.REM2_FINDING, examples=(f.REM2_FINDING.counterexample,)),
    Claim("Rem2", "App. C, Remark 2 (R9)", "H_t >= H_{t+1} on shift-invariant (stationary) data", (),
          setups.sequences(stationary=True), check_rem2_stationary, setup=SAME, reading="stationary data",
          sabotage=structural(f.REM2, check_rem2, "the stationarity precondition dropped, on non-stationary data")),
    Claim("Rem2", "App. C, Remark 2 (corrected)", "H_{t+1} <= H'_t, the entropy of z_{t+2} given z_{2:t+1} (Shannon's inequality)",
          (), setups.sequences(), check_rem2_shannon, setup=SAME, reading="Shannon",
          sabotage=structural(f.REM2, check_rem2_shannon, "H_t in place of H'_t", shifted=False)),
)
