"""Huang, Liang & Yang, *Non-asymptotic Convergence of Training Transformers for
Next-token Prediction* (NeurIPS 2024): every claim as a checkable record.

* :mod:`.bounds`: every formula of the paper, once;
* :mod:`.setups`: instance strategies and parameter maps;
* :mod:`.gradients` (App. A), :mod:`.stage1` (§5.1, App. B, C.1),
  :mod:`.stage2_lemmas` (App. C), :mod:`.stage2_theorems` (§5.2),
  :mod:`.section6` (§6, examples, §7): the checkers;
* :mod:`.findings`: claims found false, with pinned counterexamples;
* :mod:`.claims`: the ``CLAIMS`` records;
* :mod:`.bridge`, :mod:`.bridge_prop2`: the bridge claims to Thrampoulidis (2024) (ours), appended to ``CLAIMS``.
"""

from ntpcheck.transformer.algorithms import VARIANTS
from ntpcheck.transformer.assumptions import CONDITIONS

from ..framework.claim import Paper
from . import setups
from .bridge import BRIDGE_CLAIMS
from .bridge_prop2 import BRIDGE_PROP2_CLAIMS
from .claims import CLAIMS as PAPER_CLAIMS

CLAIMS = PAPER_CLAIMS + BRIDGE_CLAIMS + BRIDGE_PROP2_CLAIMS

__all__ = ["PAPER", "CLAIMS"]

PAPER = Paper(
    name="huang2024",
    title="Huang, Liang & Yang (NeurIPS 2024): Non-asymptotic Convergence of Training Transformers for Next-token Prediction",
    claims=CLAIMS,
    conditions=tuple(CONDITIONS),
    breaking=setups.breaking,
    violated=setups.violated,
    variants=VARIANTS,
    # The conclusions that mean something under another training algorithm (issue 15).  Thm. 1's
    # rate (T' = 20000) is left to ``ntpcheck reproduce algorithms``, which fits every variant's rate.
    algorithm_claims=(
        ("Lemma 5 [trained W_ov]", "any"),         # optimal-token attention rises monotonically
        ("Thm. 1 [norm, 2||W*||]", "normalised"),  # t eta / (2 ||W*||) <= ||W_kq^(t)|| <= t eta
        ("Thm. 2 [attention, c_0 = 1]", "normalised"),  # C_1 = eta / (4 L_max ||W*||^2)
        ("Thm. 3 [prediction]", "any"),            # unseen sentences predicted
        ("§7", "any"),                              # losses fall, alignment improves, norms grow linearly
    ),
)
