"""The max-margin quadratic program every paper's max-margin problem is: the problem as data
(:mod:`.problem`), KKT residuals, certificates and the active-set polish (:mod:`.kkt`), and cvxpy with
that polish (:mod:`.cvx`).  Paper-independent; no Hypothesis."""
