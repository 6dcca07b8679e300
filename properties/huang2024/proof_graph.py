"""Which results each proof of Huang, Liang & Yang (NeurIPS 2024) uses: the paper's claim graph.

:data:`PROOF_USES` maps a claim id to the ids of the claims its proof invokes, read from the
proofs in the paper's appendices (``shared/paper/paper.txt``; the OCR drops many reference
numbers, so each entry cites the step it was read from).  It is data, not part of any claim
record: ``python -m ntpcheck.app.report.docs_pages`` draws it on the paper's page, coloured by the
verdicts of a run, and lists what each result rests on.  Every name is a claim id of this paper
(``tests/test_docs.py``).

Examples
--------
>>> PROOF_USES["Thm. 2"]
('Cor. 1', 'Thm. 1', 'Lemma 6')
"""

from __future__ import annotations

__all__ = ["PROOF_USES"]

PROOF_USES: dict[str, tuple[str, ...]] = {
    # App. B: "Using Equation (3)" (the stage-1 gradient, Eq. 5) and the optimality of W*_ov.
    "Lemma 1": ("Eq. 5",),
    # App. B: "Due to Equation (8) in Lemma 1" (Eq. 5 only through it), Eq. (2)'s optimality, "the convexity of L0".
    "Lemma 2": ("Lemma 1",),
    # App. B, Proposition 3 (restated): the norm "follows directly from Lemma 1"; "By Lemma 2 and the updating rule".
    "Prop. 1": ("Lemma 1", "Lemma 2"),
    # App. C.1: "by induction and the fact that" the stage-1 update (Eq. 5) moves every i != n(x) alike.
    "Lemma 3": ("Eq. 5",),
    # App. C.1: "the second equality follows directly from Lemma 3"; (a) "follows from Proposition 1", (b) "is due to Lemma 1".
    "Cor. 1": ("Prop. 1", "Lemma 1", "Lemma 3"),
    # Ours (README of issue 41): the same steps, with the margins' limit 4||W*_ov|| A in place of 3A.
    "Cor. 1 (corrected)": ("Prop. 1", "Lemma 1", "Lemma 3"),
    # App. C.1: "From Equation (6)" (the number is OCR-dropped; the display is Eq. 6's gradient).  The
    # margins = A and the equal off-target entries are Lemma 4's own hypotheses ("If W_ov satisfies that"):
    # Cor. 1 and Lemma 3 discharge them only in Theorem 2's proof (read by a second reviewer, issue 45).
    "Lemma 4": ("Eq. 6",),
    # App. C.2: the induction reads the projected gradient of Lemma 4.
    "Lemma 5": ("Lemma 4",),
    # App. C.3: the projection onto W*_kq through Lemma 4's form, bounded with the floor 1/L_max of Lemma 5.
    "Lemma 6": ("Lemma 4", "Lemma 5"),
    # App. C.4: "has the following form (Lemma )" (Lemma 4's display); "Due to Proposition we have B = 0"
    # (about W*_kq: Prop. 2); (c) "follows from Lemma [ ]" (the optimal attention's floor: Lemma 5); t >= t_0
    # through the norm's growth (Lemma 6, used unnamed).  Every number here is OCR-dropped, read from context.
    "Lemma 7": ("Lemma 4", "Lemma 5", "Lemma 6", "Prop. 2"),
    # App. C.5: "By Lemma [ ] we have" and "t0 ... defined in Lemma [ ]" (Lemma 7: the numbers are
    # OCR-dropped, the context is Lemma 7's); "By Lemma[6] we have"; "Finally, by Lemma[6]".
    "Thm. 1": ("Lemma 6", "Lemma 7"),
    # App. C.6: "A = T eta_0/(4||W*_ov||^2) due to Corollary 1"; (13) is Theorem 1's bound; the norm of Lemma 6.
    "Thm. 2": ("Cor. 1", "Thm. 1", "Lemma 6"),
    # Footnote 3 of Theorem 2: L* = |V| exp(-T C_0) is written with Cor. 1's margins A.
    "Thm. 2 fn. 3": ("Cor. 1",),
    # App. D.2: "follows similar logic to Theorem 2. By Equation (13)" (Theorem 1's bound), (a) "follows from
    # Lemma@" (OCR; the norm's lower bound of Lemma 6); §6: "Combining Proposition 2 with Theorem 1 we
    # obtain the following theorem" (x_0 scores 0 only by Prop. 2).
    "Thm. 3": ("Thm. 1", "Thm. 2", "Lemma 6", "Prop. 2"),
    # §6: Example 2 is Theorem 3 applied to Example 1's data.
    "Ex. 2": ("Ex. 1", "Thm. 3"),
}
