"""Which results each proof of Thrampoulidis (NeurIPS 2024) uses: the paper's claim graph.

:data:`PROOF_USES` maps a claim id to the ids of the claims its proof invokes, read from the
paper's §3 and App. D-E (``shared/paper2/paper.md``).  The ids are ntpcheck's: ``T1-pf`` and
``T2-pf`` are the steps of the proofs of Theorems 1 and 2 (App. E.2.1, E.1.3), ``L4`` is Lemma 4
(1)-(2) and ``Lemma 4`` its parts (3)-(6), ``Lemma 2`` the main text's Lemma 2 (App. E's Lemma 3).
It is data, not part of any claim record: ``python -m ntpcheck.app.report.docs_pages`` draws it on the
paper's page, coloured by the verdicts of a run.  Every name is a claim id of this paper
(``tests/test_docs.py``).  The edges were checked against the proofs by a second reader (issue 45):
Lemma 4 (5)-(6) use the proof of Theorem 1, and not the other way round (case (ii) of that proof
derives ``P_F(Ŵ_B) = W⋆`` directly), so the graph has no cycle.

Examples
--------
>>> PROOF_USES["Thm. 2"]
('Lemma 4', 'Lemma 5', 'T2-pf')
"""

from __future__ import annotations

__all__ = ["PROOF_USES"]

PROOF_USES: dict[str, tuple[str, ...]] = {
    # §3: W^p solves (4) (Fn. 6), the out-of-support softmax bound of (7), CE = H + KL (Eq. 2).
    "P1": ("E2", "Fn6", "Eq7"),
    # §3.1: (4) and (6) as S_j - 1 and V - 1 independent equations per context (Defs. 1-2).
    "L1": ("D1-ind",),
    # §1.1, R11 (no proof of its own): the necessity goes through the CE = H + KL argument of §3 (Eq. 2),
    # not through Prop. 1, which gives only sufficiency.
    "R11": ("E2",),
    # App. A, Fig. 2: the rows of W^mm (Def. 3's NTP-SVM).
    "Fig2": ("SVM",),
    # App. C, Remark 2: H_t of App. C's autoregressive reduction.
    "Rem2": ("AppC",),
    # App. E.1.1, Lemma 4 (1)-(2): "direct substitution of W* in (12) and use of (4)", "This and (13)"; the
    # uniqueness in F is proved there ("Hence, W* is unique solution in F of (4)"), not taken from Fn. 6.
    "L4": ("D-CEF",),
    # App. E.1.1, Lemma 4 (3)-(6): "by the lemma's assumptions and Lemma 3" (Lemma 2 here), the first two
    # claims, CE_F <= CE (App. D), ||W_k|| = ||P_F W_k|| + ||P_perp W_k|| (R2), "see proof of Theorem 1".
    "Lemma 4": ("Lemma 2", "L4", "D-CEF", "R2", "T1-pf"),
    # App. E.1.2: "by Lemma 4.D"; the CE expression (2); W^mm in F-perp by (6a).
    "Lemma 5": ("Lemma 4", "E2", "SVM"),
    # App. E.1.3: "By Lemma 5, there exists k_0"; "recall from Lemma 4".
    "T2-pf": ("Lemma 5", "Lemma 4"),
    # App. E.1.3: "For the subspace component, see Lemma 4.C ... the key ingredient of the proof is Lemma 5".
    "Thm. 2": ("Lemma 4", "Lemma 5", "T2-pf"),
    # App. E.2.1: (24) at U = W^mm with (6a)/(6b) (step (c)); (4) and (6a) for W*_B (step (d)); "the CE
    # expression in (2)".  Case (ii) gets P_F(W_B) = W* from W_B = W* + R' W-hat directly, not from Lemma 4 (5).
    "T1-pf": ("E2", "Eq24", "Fn6", "SVM"),
    # §4 and App. E.2.1: the proof's steps; "W^mm is the unique minimizer of (NTP-SVM)".  The proof needs only
    # W_B's optimality and ||W_B|| = B, for any minimiser: R1 (uniqueness) names the object, it is not used.
    "Thm. 1": ("T1-pf", "SVM"),
}
