"""Claims of Thrampoulidis (NeurIPS 2024), *Implicit Optimization Bias of Next-token Prediction in
Linear Models*.  (Placeholder on branch i33-dyn: the package's own ``__init__`` comes from i33-core;
the dynamics claims are in :mod:`.dynamics`, :mod:`.regpath` and :mod:`.lemma5`.)"""
