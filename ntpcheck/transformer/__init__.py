"""The first paper's model: Huang, Liang & Yang (NeurIPS 2024), a one-layer transformer trained for
next-token prediction (issue 44).

Collocation, partial orders and roles (:mod:`.structure`), Assumptions 1-3 (:mod:`.assumptions`),
the model and its gradients (:mod:`.model`), Algorithm 1 and its variants (:mod:`.training`,
:mod:`.algorithms`), the max-margin problems Eq. 2 and Eq. 3 (:mod:`.maxmargin`), the compiled
kernels (:mod:`.kernels`), the paper's text format with its header (:mod:`.textformat`) and its
built-in Examples (:mod:`.builtin`).  It imports :mod:`ntpcheck.common`, never the second paper.
"""
