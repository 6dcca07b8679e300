"""Stage 1 of Algorithm 1 in closed form, and the idealised stage 1 of Appendix C.1.

Both need Assumption 2 (orthonormal embeddings) and a collocation that is a
function, where Eq. (2) has the closed form ``W*_ov = sum_x (e_{n(x)} -
1/|V|) x^T`` (:func:`ntpcheck.transformer.maxmargin.eq2_closed_form`).

* :func:`stage1_closed_form`: the exact NGD trajectory ``W_ov^(t) = t eta_0
  W*_ov/||W*_ov||`` (what stage 2 starts from, without running stage 1).
* :func:`idealised_stage1`: ``A W*_ov``, whose margins all equal ``A``.
"""

from __future__ import annotations

import numpy as np

from .model import safe_norm
from .structure import Structure

__all__ = ["stage1_closed_form", "stage1_closed_form_applies", "idealised_stage1"]


def stage1_closed_form_applies(st: Structure, E: np.ndarray) -> bool:
    """Orthonormal embeddings (Assumption 2) and a collocation that is a function: then
    :func:`stage1_closed_form` is stage 1's trajectory."""
    from .embeddings import is_orthonormal

    return not st.collocation.multiple_next and is_orthonormal(E)


def stage1_closed_form(st: Structure, E: np.ndarray, t: int, eta0: float) -> np.ndarray:
    """``W_ov^(t) = t eta_0 W*_ov / ||W*_ov||``: stage 1 of Algorithm 1 in closed form.

    Under Assumption 2 with a collocation that is a function, at
    ``W = s W*_ov`` (``s >= 0``) every collocation column has logits
    ``s (e_{n(x)} - 1/|V|)``, so all share one wrong-class probability
    ``p(s)`` and Eq. (5) gives ``grad L_0 = -|V| p(s) W*_ov``: the
    normalised step is ``+eta_0 W*_ov/||W*_ov||`` at every ``t``, from
    ``W^(0) = 0`` (tested equal to the NGD run to 1e-12).  Tokens without a
    next token have zero columns in both.

    Examples
    --------
    >>> import numpy as np, ntpcheck
    >>> st = ntpcheck.analyse(ntpcheck.load("example1"))
    >>> W = stage1_closed_form(st, np.eye(4), 10, 0.5)
    >>> round(float(np.linalg.norm(W)), 12)      # Lemma 1 with equality: ||W^(t)|| = t eta_0
    5.0
    """
    from .maxmargin import eq2_closed_form

    W = eq2_closed_form(st, E)
    n = safe_norm(W)
    return W * (t * eta0 / n) if n > 0 else W


def idealised_stage1(st: Structure, E: np.ndarray, margin: float) -> np.ndarray:
    """``margin * W*_ov``: the value matrix whose stage-1 margins all equal ``margin``.

    Under Assumption 2 every margin ``(e_{n(x)} - e_i)^T W*_ov x`` of the
    closed form is exactly 1 (:func:`ntpcheck.transformer.maxmargin.eq2_closed_form`), so
    every margin of the result equals ``margin`` and the other differences
    vanish, as Appendix C.1 assumes from Lemma 4 on (with ``margin = A``).

    Examples
    --------
    >>> import numpy as np, ntpcheck
    >>> st = ntpcheck.analyse(ntpcheck.load("example1"))
    >>> W = idealised_stage1(st, np.eye(4), 2.5)
    >>> float(W[1, 0] - W[2, 0])    # margin of column S: n(S) = V against O
    2.5
    """
    from .maxmargin import eq2_closed_form

    return margin * eq2_closed_form(st, E)
