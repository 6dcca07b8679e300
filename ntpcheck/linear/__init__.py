"""Next-token prediction in linear models (Thrampoulidis, NeurIPS 2024): the math core.

No Hypothesis here; pure functions over numpy arrays and the frozen data model.

* :mod:`.data`: the training set in distinct-context form (§2): embeddings
  ``H̄`` (d × m) and integer counts ``c_{j,z}``, from which ``n``, ``π̂``, ``p̂``
  and the supports ``𝒮_j`` are derived exactly;
* :mod:`.loss`: CE (Eq. 2), its gradient, the entropy ``ℋ``;
* :mod:`.subspace`: ℱ (Eq. 5) and its projections, W⋆ (Fn. 6), NTP_ℋ-compatibility (Def. 1);
* :mod:`.svm`: NTP-separability (Def. 2) and the NTP-SVM ``W^mm`` (Def. 3), exact for orthogonal contexts;
* :mod:`.excess`: CE − ℋ without cancellation, CE_ℱ (Eq. 12), Eq. (24);
* :mod:`.autoregressive`: App. C's sequences, prefixes, reduction to (2), ``ℋ_t``;
* :mod:`.instance`, :mod:`.textformat`, :mod:`.evidence`: an instance (data, names, parameters),
  its text format, and what checkers look at.
"""

from .data import NTPData
from .loss import ce, ce_grad, entropy
from .subspace import Compatibility, Subspace, compatibility, subspace, w_star
from .svm import Separability, SVMSolution, margins, separability, w_mm
from .excess import Excess, ce_f, excess
from .instance import LinearInstance
from .textformat import dumps, load, loads

__all__ = ["NTPData", "ce", "ce_grad", "entropy", "Subspace", "subspace", "Compatibility", "compatibility", "w_star",
           "Separability", "separability", "SVMSolution", "w_mm", "margins", "Excess", "excess", "ce_f", "LinearInstance",
           "loads", "load", "dumps"]
