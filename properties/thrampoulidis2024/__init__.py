"""Thrampoulidis, *Implicit Optimization Bias of Next-token Prediction in Linear Models*
(NeurIPS 2024): its static claims as checkable records.

* :mod:`.bounds`: the paper's constants and bounds, once;
* :mod:`.setups`: instance strategies, the matrix's breakers, reading a file;
* :mod:`.statics` (§2–3), :mod:`.geometry` (§3.1, the NTP-SVM), :mod:`.cef` (§4, App. D–E.2),
  :mod:`.appc` (App. C, Remark 2): the checkers;
* :mod:`.findings`: claims found false, with pinned counterexamples;
* :mod:`.claims`: the ``CLAIMS`` records;
* :mod:`.dynamics` (GD: Lemma 2, Thm. 2, Lemma 4 (3)-(4), Thm. 2's final inequality), :mod:`.regpath`
  (Thm. 1, its proof's (a) and (d), Lemma 4 (5)-(6)), :mod:`.proof_cases` (its proof's case analysis (e)),
  :mod:`.remarks` (R2, Remark 1's Cover), :mod:`.lemma5` (Lemma 5 at arbitrary W), with
  :mod:`.logcheck`; limits are judged by the framework's :mod:`~ntpcheck.properties.framework.limits`.
"""

from ..framework.claim import Paper
from ..framework.figure import with_figures
from . import setups
from .figspecs import FIGURES
from .claims import CLAIMS as STATIC_CLAIMS
from .dynamics import DYNAMICS_CLAIMS
from .lemma5_claims import LEMMA5_CLAIMS
from .proof_cases import PROOF_CASE_CLAIMS
from .regpath import REGPATH_CLAIMS
from .remarks import REMARK_CLAIMS

CLAIMS = with_figures(STATIC_CLAIMS + REGPATH_CLAIMS + PROOF_CASE_CLAIMS + DYNAMICS_CLAIMS + LEMMA5_CLAIMS + REMARK_CLAIMS,
                      FIGURES)

__all__ = ["PAPER", "CLAIMS"]

PAPER = Paper(
    name="thrampoulidis2024",
    title="Thrampoulidis (NeurIPS 2024): Implicit Optimization Bias of Next-token Prediction in Linear Models",
    claims=CLAIMS,
    conditions=setups.CONDITIONS,
    breaking=setups.breaking,
    violated=setups.violated,
    load=setups.load,
)
