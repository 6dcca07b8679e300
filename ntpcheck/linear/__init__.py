"""Next-token prediction in linear models (Thrampoulidis, NeurIPS 2024): the math core.

No Hypothesis here; pure functions over numpy arrays and the frozen data model.

* :mod:`.data`: the training set in distinct-context form (§2): embeddings
  ``H̄`` (d × m) and integer counts ``c_{j,z}``, from which ``n``, ``π̂``, ``p̂``
  and the supports ``𝒮_j`` are derived exactly;
* :mod:`.loss`: CE (Eq. 2), its gradient, the entropy ``ℋ``.
"""

from .data import NTPData
from .loss import ce, ce_grad, entropy

__all__ = ["NTPData", "ce", "ce_grad", "entropy"]
