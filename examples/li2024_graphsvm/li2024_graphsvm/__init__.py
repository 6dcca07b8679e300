"""Li, Huang, Ildiz, Rawat, Oymak (AISTATS 2024), *Mechanics of Next Token Prediction with
Self-Attention* (arXiv:2403.08081): its Graph-SVM claims as an ntpcheck paper plugin, ``li2024``.

Written only against :mod:`ntpcheck.api` (and numpy, scipy, networkx, Hypothesis); the bridge to the
first paper (:mod:`.bridge`) also calls ntpcheck's own solver of Huang et al.'s Eq. (3).  Registered
in this package's ``pyproject.toml``::

    [project.entry-points."ntpcheck.papers"]
    li2024 = "li2024_graphsvm.claims:PAPER"

What it was reconstructed from, and what was not found
------------------------------------------------------
* The abstract (arXiv:2403.08081; the AISTATS 2024 poster page; Google Research's publication
  page under the title *Mechanics of Next Token Prediction with Transformers*): a single
  self-attention layer trained by gradient descent on next-token prediction retrieves the
  high-priority tokens of the last token's (query's) directed token graph and composes them
  softly; GD discovers the strongly connected components (SCCs) of that graph; the weights
  decompose into a directional component (hard retrieval) and a finite component (soft
  composition).
* The authors' public code, github.com/yixiao-huang/next-token-prediction (README: the abstract
  and arXiv link): ``nxt_token_solver.W_svm_solver_cvxpy`` (the Graph-SVM: ``min ||W||_F`` with
  ``(x_y - x_j)^T W z = 0`` when label ``y`` and token ``j`` of a sample are in one SCC of the query's
  graph, ``<= -1`` for ``(x_j - x_y)^T W z`` otherwise), ``nxt_token_solver.Tarjan`` (the graph: edges
  from each label to the other tokens of its sequence, per query), ``utils.cal_Sfin`` (the
  within-component subspace of the finite part), ``data_utils.generate_reduced_ds`` (the samples
  restricted to the label's SCC, on which ``W_fin`` is trained), ``train_utils.get_loss`` (the
  model: attention on the positions of each token as its probability, ``-log`` of the label's).
* **Not found**: the paper's full text (its equation and theorem numbers, the exact assumptions
  of its convergence theorems, e.g. on the embeddings or the step size).  So the claims here are
  named by what they say, each labelled "reconstructed from the abstract and the authors' code"
  in its notes, and checked under the conditions named in :mod:`.claims` (linearly independent
  embeddings, GD with step ``eta/L`` at ``eta <= 1``).

Modules, one job each
---------------------
* :mod:`.data`: sequences, labels, embeddings; :mod:`.textformat`: their text, which replays;
* :mod:`.graph`: token-priority graphs, SCCs (networkx), the Graph-SVM's constraints, ``S_fin``;
* :mod:`.svm`: the Graph-SVM solved exactly (least-distance program by NNLS, active-set polish)
  with its KKT certificate;
* :mod:`.model`: the attention model, its loss, GD, the finite part ``W_fin``;
* :mod:`.instance`: the instance (:class:`ntpcheck.api.PaperInstance`) and its evidence;
* :mod:`.strategies`: data by construction (acyclic, cyclic, dependent embeddings);
* :mod:`.bridge`: Huang et al.'s ``W*_kq`` (Eq. (3)) of the same data;
* :mod:`.claims`: the checkers, the claims and ``PAPER``.
"""
