"""Fixed instances, as text: the sabotages' inputs and the tests' worked examples.

* :data:`ONE_EDGE`: one sample ``A B -> A``: ``W^svm = (x_A - x_B) x_B^T / 2``, and GD from 0 moves
  along it from the first step (``1 - cos = 0`` to rounding);
* :data:`CYCLIC`: under query ``C``, ``A`` and ``B`` form one SCC (weights 2 and 1, so
  ``W_fin != 0``: the softmax splits 2 : 1 between them), ``C`` and ``D`` lie below;
* :data:`ACYCLIC`: three queries, every SCC one token (``A > B > C`` under ``C`` has a chain);
* :data:`SETTLED`: ``B`` and ``C`` one SCC of ``G^(C)``, both samples over the same tokens: GD's
  within-component part sits at ``W_fin`` from the first step (the softmax splits 1 : 2 there).

Examples
--------
>>> instance(CYCLIC).evidence().acyclic, instance(ACYCLIC).evidence().acyclic
(False, True)
"""

from __future__ import annotations

from .instance import GraphInstance
from .textformat import loads

__all__ = ["ONE_EDGE", "CYCLIC", "ACYCLIC", "SETTLED", "instance"]

ONE_EDGE = "A B -> A\n"
CYCLIC = "A B D C -> A @ 2.0\nB A D C -> B\nA D C -> A\n"
ACYCLIC = "A B C -> A\nB C -> B\nC A -> C\nA C B -> A\n"
SETTLED = "B C A C -> B\nC B A C -> C\n"


def instance(text: str) -> GraphInstance:
    """The instance of ``text`` (:func:`.textformat.loads`)."""
    return loads(text)[0]
