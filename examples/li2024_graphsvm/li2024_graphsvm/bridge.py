"""The bridge to the first paper: on acyclic graphs the Graph-SVM is Huang et al.'s ``W*_kq``.

Huang, Liang, Yang (NeurIPS 2024), Eq. (3)::

    W*_kq = argmin ||W||  s.t.  (x_l - x_l')^T W x_L^(n) >= 1   for all n, l in I(n), l' not in I(n),

``I(n)`` the positions of sentence ``n`` whose token the collocation maps to the next token.  The
same data in the first paper's terms: every token its own collocation (one-token sentences
``t -> t``), and each sample ``X -> y`` a sentence ``X`` with next token ``y``; then ``I(n)`` is the
positions of ``y``, and Eq. (3)'s constraints are ``(x_y - x_j)^T W z >= 1`` for every other token
``j`` of ``X``: the Graph-SVM's, one per edge ``y -> j`` of ``G^(z)``.  When every SCC is a single
token no edge is an equality, so the two programs are one and their solutions agree.  ntpcheck's
own solver gives ``W*_kq`` (``ntpcheck.transformer.maxmargin.solve_eq3_best``: exact under its Assumption 2
without confused tokens, else CLARABEL with an active-set polish, both with KKT certificates);
this module is the one place the plugin uses ntpcheck beyond :mod:`ntpcheck.api`.

Examples
--------
>>> from .textformat import loads
>>> inst = loads("A B C -> A\\nB C -> B\\nC A -> C\\n")[0]
>>> W_kq = w_kq(inst.data)
>>> bool(abs(W_kq - inst.evidence().w_svm).max() < 1e-9)
True
"""

from __future__ import annotations

import numpy as np

from .data import SequenceData

__all__ = ["first_paper_text", "w_kq"]


def first_paper_text(D: SequenceData) -> str:
    """``D`` in the first paper's text format (:mod:`ntpcheck.transformer.textformat`): its vocabulary, each token
    its own collocation, each sample ``X -> y @ weight``."""
    names = D.vocab
    lines = ["vocab: " + " ".join(names)] + [f"{t} -> {t}" for t in names]
    lines += [" ".join(names[t] for t in tokens) + f" -> {names[y]} @ {w!r}" for tokens, y, w in D.samples]
    return "\n".join(lines) + "\n"


def w_kq(D: SequenceData) -> np.ndarray:
    """``W*_kq`` of Eq. (3) for ``D`` with its embeddings, by ntpcheck's solver (certified)."""
    import ntpcheck
    from ntpcheck.transformer.maxmargin import solve_eq3_best

    solution = solve_eq3_best(ntpcheck.loads(first_paper_text(D)), D.E)
    return solution.W
