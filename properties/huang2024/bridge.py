"""Bridge claims (ours) between Huang et al. (2024) and Thrampoulidis (2024): Huang's model with its
attention frozen is Thrampoulidis's linear next-token model, so the second paper's objects and
theorems say what Huang's ``W_ov`` converges to.  Each record runs on Huang-style data drawn by the
first paper's strategies (:func:`ntpcheck.strategies.realizable_datasets`).

* **Bridge [Eq. 2 = NTP-SVM]**: Huang's stage-1 problem (Eq. 2), ``min ‖W‖`` s.t.
  ``(e_{n(x)} − e_v)ᵀ W x ≥ 1`` over the tokens ``x`` with a collocation, is Def. 3's NTP-SVM of
  the one-token contexts ``h̄_x = x`` with supports ``{n(x)}`` (``S_j = 1``, so ℱ = {0} and (6a)
  is empty; Remark 1).  Checked: ``W*_ov`` (:func:`ntpcheck.transformer.maxmargin.w_ov_star`, Huang's closed
  form under Assumption 2) equals ``W^mm`` (:func:`ntpcheck.linear.svm.w_mm`) to 1e-8 relative.
* **Bridge [GD on W_ov, W_kq = 0]**: with ``W_kq = 0`` the attention is uniform, ``h(X) = Xφ`` is
  the mean of the sentence's token embeddings, and Huang's loss ``L(W_ov, 0) = Σ_n π^(n) ℓ_n`` is
  the CE (Eq. 2) of the linear model over the distinct mean embeddings (identical ones merged,
  their next tokens pooled: a merged context may have several).  Thm. 2 then says GD on ``W_ov``
  converges in direction to the NTP-SVM over these contexts and ``P_ℱ(W_k) → W⋆`` (nonzero where
  a merged context has several next tokens).  Checked: Huang's gradient
  (:func:`ntpcheck.transformer.model.grad_ov`) equals the linear model's at every recorded iterate (so the two
  GD trajectories coincide), and the trends of ``1 − corr`` and ``‖P_ℱW_k − W⋆‖`` over
  ``k ∈ [10², 10⁴]`` (:mod:`ntpcheck.properties.thrampoulidis2024.trends`).
* **Bridge [out-of-support logits equal]** (the analog of Huang's Lemma 3): with orthonormal
  contexts and ``W_0 = 0``, GD keeps the logits ``W_k h̄_j`` of every out-of-support token of
  context ``j`` equal: the gradient's column for ``j`` is ``π̂_j(𝕊(W h̄_j) − p̂_j)``, whose
  out-of-support entries are equal when the logits are (permutation symmetry), and orthonormal
  contexts do not mix columns.  Checked on the query contexts ``h̄_q = q`` (the attention
  concentrated on the query) with supports the next tokens after ``q``: spread ≤ 1e-12 of the
  largest logit at every recorded step.

Weights: the linear model's data are integer counts, so the checkers give every sample weight 1
(``π^(n) = 1/N``, the strategies' most frequent weight) and evaluate Huang's loss with the same
weights; the data are drawn as Huang's claims draw them (a :class:`~.setups.Reading`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ntpcheck.common.data import Dataset, Sample
from ntpcheck.transformer.instance import Instance
from ntpcheck.linear import NTPData
from ntpcheck.linear.dynamics import References, dist_floor, gd_step, train

from ..framework.checks import ROUNDING, falsified, holds, inequality, outside, worst
from ..framework.claim import Claim, Structural
from ..framework.verdicts import Outcome
from ..framework.limits import at_horizons, judge

__all__ = ["BRIDGE_CLAIMS", "unit_weights", "one_token_contexts", "mean_contexts", "query_contexts"]

#: GD steps of the bridge runs (the trends' window is k in [10^2, 10^4]).
STEPS = 10_000


def unit_weights(ds: Dataset) -> Dataset:
    """``ds`` with every sample's weight 1 (module docstring)."""
    return Dataset(ds.vocab, tuple(Sample(s.sentence, s.next, 1.0) for s in ds.samples), ds.name)


def bridge_instances(embeddings: str):
    """Huang's realizable data (Assumptions 1-3) with the given embeddings: a
    :class:`~.setups.Reading`, so that the necessity matrix breaks its conditions on the same data
    (the checkers use unit weights themselves, :func:`unit_weights`)."""
    from .setups import realizable

    return realizable(embeddings=embeddings)


def one_token_contexts(inst: Instance) -> NTPData:
    """The NTP data of Huang's stage 1: one context per token ``x`` with a collocation, ``h̄_x = x``,
    followed by ``n(x)`` (count 1)."""
    from ntpcheck.transformer.structure import analyse

    src, tgt = analyse(inst.dataset).collocation_index
    C = np.zeros((len(src), inst.dataset.n_vocab), dtype=np.int64)
    C[np.arange(len(src)), tgt] = 1
    return NTPData(inst.E[:, src], C)


def _grouped(inst: Instance, h_of) -> NTPData:
    """Distinct contexts ``h_of(sample)`` (equal to 1e-12 merged), counts of next tokens (weights 1)."""
    ds, E = inst.dataset, inst.E
    idx = ds.index
    keys, H, rows = {}, [], []
    for s in ds.samples:
        h = h_of(s, E, idx)
        key = tuple(np.round(h, 12))
        if key not in keys:
            keys[key] = len(H)
            H.append(h)
            rows.append(np.zeros(ds.n_vocab, dtype=np.int64))
        rows[keys[key]][idx[s.next]] += 1
    return NTPData(np.column_stack(H), np.vstack(rows))


def mean_contexts(inst: Instance) -> NTPData:
    """The contexts ``h(X) = Xφ`` with ``φ`` uniform (``W_kq = 0``): the mean token embedding."""
    return _grouped(inst, lambda s, E, idx: E[:, [idx[t] for t in s.sentence]].mean(axis=1))


def query_contexts(inst: Instance) -> NTPData:
    """The contexts ``h(X) = x_q`` (attention on the query): one per query, orthonormal under Assumption 2."""
    return _grouped(inst, lambda s, E, idx: E[:, idx[s.sentence[-1]]].astype(float))


# -- Eq. (2) = NTP-SVM ------------------------------------------------------------------------------
#: The two solvers agree to their certificates: exact closed forms (1e-15) under Assumption 2, KKT
#: residuals below 1e-8 for cvxpy with the active-set polish otherwise.
SVM_RTOL = 1e-8


def eq2_vs_svm(W_ov: np.ndarray, W_mm: np.ndarray) -> Outcome:
    err = float(np.linalg.norm(W_ov - W_mm) / max(np.linalg.norm(W_ov), 1e-300))
    m = {"relative_difference": err, "norm_w_ov": float(np.linalg.norm(W_ov)), "norm_w_mm": float(np.linalg.norm(W_mm))}
    if err > SVM_RTOL:
        return falsified(-err, f"W*_ov (Eq. 2) and the NTP-SVM of the one-token contexts differ by {err:.3g} (relative)", **m)
    return holds(SVM_RTOL - err, f"W*_ov (Eq. 2) = W^mm (Def. 3) of the one-token contexts to {err:.1e}", **m)


def check_eq2_svm(ev) -> Outcome:
    from ntpcheck.linear.svm import w_mm

    return eq2_vs_svm(ev.w_ov_star, w_mm(one_token_contexts(ev.instance)).W)


def _sabotage_eq2() -> Outcome:
    """The NTP-SVM of Example 1's one-token contexts with one next token moved (a wrong support)."""
    from ntpcheck.linear.svm import w_mm

    from ..framework.evidence import evidence
    from .setups import example1

    ev = evidence(example1())
    D = one_token_contexts(ev.instance)
    C = np.roll(D.counts, 1, axis=1)
    return eq2_vs_svm(ev.w_ov_star, w_mm(NTPData(D.H, C)).W)


# -- GD on W_ov with W_kq = 0 -----------------------------------------------------------------------
#: Huang's gradient and the linear model's are the same function computed in two ways (gathered
#: columns, batched matmuls vs one product): agreement to 1e-10 of the gradient's scale.
GRAD_RTOL = 1e-10


def check_gd_frozen(ev) -> Outcome:
    from ntpcheck.transformer import model
    from ntpcheck.linear.loss import ce_grad
    from ntpcheck.linear.subspace import compatibility
    from ntpcheck.linear.svm import separability

    inst = dataclasses.replace(ev.instance, dataset=unit_weights(ev.instance.dataset))  # counts: every weight 1
    D = mean_contexts(inst)
    if not (compatibility(D).compatible and separability(D).separable and (~D.mask).any()):
        return outside("the mean-embedding contexts are not NTP_H-compatible and NTP-separable with some S_j < V")
    refs = References.of(D)
    runs = at_horizons(lambda f: train(D, "gd", STEPS * f, gd_step(D), init="zero", refs=refs))
    tr = runs(1)
    arr = inst.dataset.arrays
    Wkq = np.zeros((inst.d, inst.d))
    gaps = []
    for W in tr.W[:: max(1, len(tr.W) // 12)]:
        Gh = model.grad_ov(W, Wkq, inst.E, arr)
        Gl = ce_grad(D, W)
        gaps.append(float(np.linalg.norm(Gh - Gl) / max(np.linalg.norm(Gl), 1e-300)))
    same = inequality(np.array(gaps), np.full(len(gaps), GRAD_RTOL), what="Huang's grad_{W_ov} L(W_ov, 0) = grad CE of the "
                      "mean-embedding contexts (relative difference)", scale=np.ones(len(gaps)), rhs_kind="tolerance")
    if same.verdict.value == "falsified":
        return same
    several = int(np.sum(D.mask.sum(axis=1) > 1))
    def of(quantity, floor):
        return lambda f: (lambda t: (t.k, quantity(t), floor(t)) if t.status == "done" else None)(runs(f))

    return worst(judge(of(lambda t: t.one_minus_corr, lambda t: ROUNDING),
                       "1 - <W_k/||W_k||, W^mm/||W^mm||> (mean-embedding NTP-SVM)", merged_contexts_with_several_next=several),
                 judge(of(lambda t: t.dist_F, lambda t: dist_floor(t.norm, np.linalg.norm(refs.W_star))), "||P_F W_k - W*||"))


def _sabotage_gd_frozen() -> Outcome:
    """The limit of ``P_ℱW_k`` taken as ``W̄^mm`` instead of ``W⋆``, on Example 1's mean-embedding contexts
    (canonical embeddings, unit weights: one next token each, so ℱ = {0}, ``W⋆ = 0`` and the distance
    stays 1).  (Stage 1's direction in place of the NTP-SVM's, this sabotage's earlier form, is a
    direction GD resolves only to O(1/log k): it drifts towards its offset for 10⁶ steps without
    settling, which the judge rightly calls inconclusive, not a finding.)"""
    from .setups import example1

    inst = dataclasses.replace(example1(), dataset=unit_weights(example1().dataset))
    D = mean_contexts(inst)
    refs = References.of(D)
    wrong = refs.W_mm / np.linalg.norm(refs.W_mm)

    def run(f):
        tr = train(D, "gd", STEPS * f, gd_step(D), init="zero", refs=refs)
        return tr.k, np.sqrt(np.sum((refs.project(tr.W) - wrong) ** 2, axis=(1, 2))), dist_floor(tr.norm, 1.0)

    return judge(at_horizons(run), "||P_F W_k - W^mm/||W^mm||||")


# -- out-of-support logits stay equal ---------------------------------------------------------------
def spread_outcome(D: NTPData, tr) -> Outcome:
    """Per recorded step, the largest spread ``max − min`` of the out-of-support logits of a context,
    against ``1e-12 ×`` the largest logit (rounding of GD's updates: ~1e-16 per step, summed)."""
    Z = tr.W @ D.H  # (n, V, m)
    out = ~D.mask.T[None]
    hi = np.where(out, Z, -np.inf).max(axis=1)
    lo = np.where(out, Z, np.inf).min(axis=1)
    has = (~D.mask).sum(axis=1) >= 2
    if not has.any():
        return outside("no context has two out-of-support tokens")
    spread = np.max(np.where(has[None], hi - lo, 0.0), axis=1)
    scale = np.maximum(np.abs(Z).max(axis=(1, 2)), 1.0)
    return inequality(spread / scale, np.full(len(spread), 1e-12), tr.k, what="spread of the out-of-support logits of a "
                      "context / largest logit", scale=np.ones(len(spread)), rhs_kind="tolerance")


def check_out_of_support(ev) -> Outcome:
    from ntpcheck.transformer.embeddings import is_orthonormal

    if not is_orthonormal(ev.instance.E):
        return outside("the embeddings are not orthonormal (Assumption 2)")
    D = query_contexts(ev.instance)
    return spread_outcome(D, train(D, "gd", STEPS, gd_step(D), init="zero"))


def _sabotage_out_of_support() -> Outcome:
    """Non-orthogonal contexts (mean embeddings of Example 1, which share tokens): the columns mix and
    the out-of-support logits of a context drift apart."""
    from .setups import example1

    inst = dataclasses.replace(example1(), dataset=unit_weights(example1().dataset))
    D = mean_contexts(inst)
    return spread_outcome(D, train(D, "gd", STEPS, gd_step(D), init="zero"))


BRIDGE_CLAIMS: tuple[Claim, ...] = (
    Claim("Bridge", "ours; tests Huang Eq. 2 = Thrampoulidis Def. 3 (an identity: one problem, two solvers)",
          "Huang's W*_ov (Eq. 2) is the NTP-SVM (Thrampoulidis, "
          "Def. 3) of the one-token contexts h_x = x with supports {n(x)}", ("1i", "1ii", "2"), bridge_instances("orthonormal"),
          check_eq2_svm, setup=lambda i: i, reading="Eq. 2 = NTP-SVM", slug="bridge-eq2-svm",
          sabotage=Structural(_sabotage_eq2, "the one-token contexts' next tokens rotated by one")),
    Claim("Bridge", "ours; tests Thrampoulidis Thm. 2 on Huang §3's model with W_kq = 0",
          "GD on Huang's W_ov with W_kq = 0 (h(X) = mean token "
          "embedding) is GD on the linear NTP loss of the merged mean-embedding contexts, and converges in direction to "
          "their NTP-SVM with P_F(W_k) -> W* (trends over k in [10^2, 10^4])", ("1i", "1ii", "2"),
          bridge_instances("canonical"), check_gd_frozen, setup=lambda i: i, reading="GD on W_ov, W_kq = 0",
          slug="bridge-gd-frozen",
          sabotage=Structural(_sabotage_gd_frozen, "the limit of P_F W_k taken as W^mm/||W^mm|| instead of W*")),
    Claim("Bridge", "ours; tests Huang Lemma 3's analog for Thrampoulidis's GD (a symmetry)",
          "with orthonormal contexts (h(X) = x_q) and W_0 = 0, GD keeps "
          "the out-of-support logits of every context equal", ("1i", "1ii", "2"), bridge_instances("orthonormal"),
          check_out_of_support, setup=lambda i: i, reading="out-of-support logits equal", slug="bridge-oos-equal",
          sabotage=Structural(_sabotage_out_of_support, "non-orthogonal contexts (mean embeddings of Example 1)")),
)
