"""What the claims of Huang et al. are checked on: instance strategies and parameter maps.

Data (``profile -> SearchStrategy[Instance]``): :func:`realizable`,
:func:`fixed`, :func:`section7`, and :func:`breaking` for the necessity
matrix.  Parameter maps (``Instance -> Instance``): :func:`params` and the
claim-specific :func:`cor1`, :func:`lemma7`, :func:`thm2`,
:func:`idealised`, which choose step sizes so that a claim's own threshold
is reached within the run.  A parameter map may raise
:class:`~ntpcheck.common.errors.NTPCheckError` (an infeasible Eq. (2) on data that
breaks Assumption 1(i)); the runner reports that as an ``error`` outcome.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from hypothesis import strategies as st

import ntpcheck
from ntpcheck.common.data import Sample
from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.model import safe_norm
from ntpcheck.transformer.training import TrainingConfig

from ntpcheck.strategies import STEERS, instances, realizable_datasets, searched_params, token_names, violating

from ..framework.evidence import evidence
from . import bounds, quantities

__all__ = [
    "SIZES",
    "A_RANGE",
    "COR1_A_RANGE",
    "A_STAGE2_RANGE",
    "ETA_RANGE",
    "Reading",
    "realizable",
    "with_margin",
    "stage2_time",
    "SECTION7_STAGE2_TIME",
    "fixed",
    "shared_query",
    "section7",
    "breaking",
    "violated",
    "example1",
    "one_self_loop",
    "hall_not_bipartite",
    "params",
    "idealised",
    "cor1",
    "lemma7",
    "thm2",
    "smallest_stage2",
    "skewed_example1",
]

#: Dataset sizes per profile: small enough that a default `ntpcheck verify`
#: finishes in about half a minute on two cores, large enough to hit ties,
#: repeats and non-comparable tokens.
SIZES = {
    "quick": dict(max_vocab=4, max_len=4, max_samples=8),
    "default": dict(max_vocab=6, max_len=5, max_samples=10),
    "thorough": dict(max_vocab=8, max_len=6, max_samples=16),
}

Data = Callable[[str], st.SearchStrategy]
ParamMap = Callable[[Instance], Instance]


#: The stage-1 margin ``A = T eta_0/(4 ||W*_ov||^2)`` a search draws (log-uniform): from a soft
#: output softmax past the sharp one of the paper's Section 7 run (A of order 10 with |V| = 20), to
#: 300, where Lemma 2's coefficient ||W||/||W*|| matters (``A -> A`` over ``A B``: from A of about 100).
A_RANGE = (0.1, 300.0)
#: The same for the claims about stage 2: up to 30, where the loss at ``W_kq = 0`` is still a float64
#: (margins ``4 ||W*_ov|| A`` past ~745 underflow it to 0, and stage 2 cannot start).
A_STAGE2_RANGE = (0.1, 30.0)
#: Stage 2's step size a search draws (log-uniform): Theorems 1-3 ask ``eta <= O(1)``; the
#: lemmas behind them are read under the same hypothesis.
ETA_RANGE = (0.005, 1.0)


def _drawn_embeddings(insts: st.SearchStrategy[Instance]) -> st.SearchStrategy[Instance]:
    """``insts`` as drawn (canonical embeddings), or the same data with random orthonormal ones."""
    return insts.flatmap(lambda i: st.one_of(st.just(i), instances(st.just(i.dataset), TrainingConfig(), embeddings="orthonormal")))


@dataclass(frozen=True)
class Reading:
    """A claim's data reading (``profile -> SearchStrategy[Instance]``): realizable data
    (Assumptions 1-3), prefix-closed or general, with its embeddings and the training
    parameters the claim quantifies over.  The necessity matrix breaks one condition at a
    time *on the same reading* (:func:`breaking`).

    Attributes
    ----------
    prefix_closed : bool
        Section 3's convention (True), or general realizable data.
    embeddings : {"canonical", "orthonormal", "drawn"}
        ``"drawn"``: canonical or random orthonormal with ``d`` in ``[|V|, |V| + 2]``
        (Assumption 2 either way; shrinks to canonical).
    steer : frozenset
    A, eta : (lo, hi) or None
        Ranges of the drawn stage-1 margin and stage-2 step size
        (:func:`ntpcheck.strategies.searched_params`); None: not drawn (the setup's own).
    """

    prefix_closed: bool = True
    embeddings: str = "canonical"
    steer: frozenset = STEERS
    A: tuple[float, float] | None = None
    eta: tuple[float, float] | None = None

    def __call__(self, profile: str) -> st.SearchStrategy[Instance]:
        sizes = SIZES[profile]
        ds = realizable_datasets(prefix_closed=self.prefix_closed, steer=self.steer, **sizes)
        emb = "orthonormal" if self.embeddings == "orthonormal" else "canonical"
        insts = instances(ds, TrainingConfig(), embeddings=emb)
        if self.embeddings == "drawn":
            insts = _drawn_embeddings(insts)
        return self.with_params(insts)

    def with_params(self, insts: st.SearchStrategy[Instance]) -> st.SearchStrategy[Instance]:
        """``insts`` with this reading's training parameters drawn (none drawn: unchanged)."""
        if self.A is None and self.eta is None:
            return insts
        A = self.A or A_RANGE
        eta = self.eta or (None, None)
        params = searched_params(min_A=A[0], max_A=A[1], min_eta=eta[0], max_eta=eta[1])
        if self.A is None:
            params = params.map(lambda p: {**p, "target_A": None})
        return st.tuples(insts, params).map(lambda a: a[0].with_params(**{k: v for k, v in a[1].items() if v is not None}))


def realizable(*, prefix_closed: bool = True, embeddings: str = "canonical", steer=STEERS,
               A: tuple[float, float] | None = None, eta: tuple[float, float] | None = None) -> Reading:
    """Realizable datasets (Assumptions 1-3) sized for the profile, as instances,
    steered (by default) towards every structure of :data:`~ntpcheck.strategies.STEERS`,
    with the training parameters ``A`` and ``eta`` drawn in the given ranges (:class:`Reading`)."""
    return Reading(prefix_closed, embeddings, frozenset(steer), A, eta)


def shared_query(profile: str) -> st.SearchStrategy[Instance]:
    """General realizable data (as :func:`realizable` with ``prefix_closed=False``, or none)
    joined with a gadget on other tokens where one query ``q`` has two or three optimal tokens.

    The gadget: sentences ``o_i b_i1 ... q -> n(o_i)`` (``b_i`` a drawn set of other
    tokens, each below ``o_i``; ``q`` is below every ``o_i``) and the collocation samples
    ``o_i -> n(o_i)`` (``n`` injective).  It is realizable by construction (every
    sentence's winner ``o_i`` occurs once, as every other token does, and no token is
    both above and below another), and so is its union with data on disjoint tokens.
    Whether Hall's condition holds depends on the drawn sets (half of the gadgets are
    drawn so that it mostly fails), so both sides of Prop. 2 (exact) are reached, which
    general data alone rarely do (about 10 and 4 in 100).  The gadget has
    ``max(max_vocab, 5)`` tokens of the profile (:data:`SIZES`): Hall's condition cannot
    fail with fewer (two optimal tokens need three non-optimal ones, ``q`` among them).
    """
    sizes = SIZES[profile]
    n_general = sizes["max_vocab"]
    pool = token_names(n_general + max(n_general, 5))[n_general:]  # disjoint from the general data's tokens
    longest = max(sizes["max_len"] - 2, 1)  # o_i, its set, q
    general = realizable_datasets(prefix_closed=False, steer=STEERS, **sizes)

    @st.composite
    def datasets(draw) -> ntpcheck.Dataset:
        toks = draw(st.permutations(pool))
        k = draw(st.integers(2, 3))
        q, opt, rest = toks[0], toks[1:1 + k], toks[1 + k:]
        free = st.lists(st.sampled_from(rest), max_size=min(longest, len(rest)), unique=True)
        if draw(st.booleans()):  # free sets below each o_i: Hall's condition mostly holds
            below = [draw(free) for _ in range(k)]
        else:  # o_1..o_j share at most one token below them, the others have two or more: it mostly fails
            j = draw(st.integers(1, k - 1))
            few = draw(st.lists(st.sampled_from(rest), max_size=1))
            own = st.lists(st.sampled_from(rest), min_size=min(2, longest, len(rest)), max_size=min(longest, len(rest)), unique=True)
            below = [(draw(st.sampled_from([[], few])) if i < j else draw(own)) for i in range(k)]
        nxt = draw(st.permutations(pool))[:k]
        gadget = [Sample((o,), n) for o, n in zip(opt, nxt)] + [Sample((o, *b, q), n) for o, b, n in zip(opt, below, nxt)]
        other = draw(st.one_of(st.none(), general))
        return ntpcheck.Dataset.from_samples(([] if other is None else list(other.samples)) + gadget)

    return instances(datasets(), TrainingConfig())


def fixed(factory: Callable[[], Instance]) -> Data:
    """Always the same instance (a worked example of the paper)."""
    return lambda profile: st.just(None).map(lambda _: factory())


def section7(profile: str) -> st.SearchStrategy[Instance]:
    """The paper's Section 7 setting: a random realizable dataset with |V| = 20 (about
    90 samples), d = |V|, the paper's step sizes, 900 + 900 steps.  Seeded (see
    :func:`ntpcheck.transformer.synthetic.random_realizable_dataset`): a reproduction, not a search."""
    from ntpcheck.transformer.synthetic import random_realizable_dataset

    return st.integers(0, 2**31 - 1).map(lambda seed: Instance(random_realizable_dataset(20, 90, seed=seed, approximate=True), None, T=900, T2=900))


def breaking(condition: str, profile: str, data=None) -> st.SearchStrategy[Instance]:
    """Instances that break exactly ``condition`` (for the assumption-necessity matrix), on
    the claim's own data reading ``data`` (a :class:`Reading`: prefix-closed or general data,
    its embeddings, its drawn parameters; Section 3's prefix-closed data otherwise)."""
    reading = data if isinstance(data, Reading) else Reading()
    emb = "orthonormal" if reading.embeddings == "orthonormal" else "canonical"
    insts = violating(condition, prefix_closed=reading.prefix_closed, embeddings=emb, **SIZES[profile])
    if reading.embeddings == "drawn" and condition != "2":
        insts = _drawn_embeddings(insts)
    return reading.with_params(insts)


def violated(inst: Instance) -> list[str]:
    """The conditions of :data:`ntpcheck.transformer.assumptions.CONDITIONS` that ``inst`` breaks."""
    from ntpcheck.transformer.assumptions import check_all, failed

    return failed(check_all(inst.dataset, inst.E))


def example1() -> Instance:
    """Example 1 of the paper with the Section 7 parameters (the sabotages' reference)."""
    return Instance(ntpcheck.load("example1"))


def hall_not_bipartite() -> Instance:
    """Two optimal tokens under ``E`` with overlapping non-optimal sets (``A > C, E`` and
    ``B > D, E``): not complete bipartite, yet Hall's condition holds, so Proposition 2's
    formula is exact."""
    return Instance(ntpcheck.loads("A -> A\nB -> B\nA C E -> A\nB D E -> B\n"))


def one_self_loop() -> Instance:
    """``A -> A`` over the vocabulary ``A B``: the smallest dataset with a collocation."""
    return Instance(ntpcheck.loads("A -> A\nvocab: A B\n"))


def with_margin(inst: Instance) -> Instance:
    """``inst`` with a drawn stage-1 margin resolved into ``eta_0``
    (:meth:`~ntpcheck.transformer.instance.Instance.with_margin`; ``||W*_ov||`` of its data and
    embeddings, None where Eq. (2) is infeasible)."""
    if inst.target_A is None:
        return inst
    try:
        w = safe_norm(evidence(Instance(inst.dataset, inst.embeddings, T=0, T2=0)).w_ov_star)
    except ntpcheck.NTPCheckError:
        w = None
    return inst.with_margin(w)


def params(**p) -> ParamMap:
    """Set fixed training parameters (``T``, ``T2``, ``eta0``, ``eta``); a drawn stage-1 margin
    becomes ``eta_0`` (:func:`with_margin`), a drawn ``eta`` is kept unless ``p`` sets it."""
    return lambda inst: with_margin(inst.with_params(**p))


#: Stage 2's time ``eta T'`` of the paper's Section 7 run (``|V| = d = 20``, ``eta = 0.05/sqrt(d)``,
#: ``T' = 900``): about 10.  Theorem 3 describes the gaps once stage 2 has run that long.
SECTION7_STAGE2_TIME = 900 * 0.05 / math.sqrt(20)


def stage2_time(*, T: int, T2: int) -> ParamMap:
    """:func:`params` with ``T2`` raised where a drawn (small) ``eta`` would stop stage 2
    before the time ``eta T'`` of the Section 7 run (:data:`SECTION7_STAGE2_TIME`):
    ``T' = max(T2, ceil(SECTION7_STAGE2_TIME / eta))`` (2013 steps at ``eta = 0.005``).

    Examples
    --------
    >>> inst = stage2_time(T=900, T2=900)(Instance(ntpcheck.loads("A -> B\\n"), eta=0.005))
    >>> inst.T2, inst.steps[1] * inst.T2 >= SECTION7_STAGE2_TIME
    (2013, True)
    """
    fixed = params(T=T, T2=T2)

    def make(inst: Instance) -> Instance:
        base = fixed(inst)
        return base.with_params(T2=max(T2, math.ceil(SECTION7_STAGE2_TIME / base.steps[1])))

    return make


def idealised(*, T: int, T2: int) -> ParamMap:
    """Stage 1 replaced by its idealisation of Appendix C.1: every margin equals
    ``A = T eta_0 / (4 ||W*_ov||^2)`` (:func:`bounds.A`), or the drawn margin ``target_A``."""

    def make(inst: Instance) -> Instance:
        # A drawn margin sets eta_0 too, so that the A of the claims' formulas (from eta_0) is the margin.
        base = with_margin(inst.with_params(T=T, T2=T2, stage1_margin=None))
        return base.with_params(stage1_margin=quantities.A(evidence(base)))

    return make


#: The stage-1 margin ``A`` Corollary 1 (corrected)'s search draws (log-uniform), turned into
#: ``eta_0`` past the threshold's (:func:`cor1`): at ``||W*_ov|| = 1/sqrt 2``, ``|V| = 2`` the
#: threshold's ``A`` is about 377, so the range reaches ``eta_0`` 10^6 times the threshold's, and
#: at least 10^4 times for ``||W*_ov|| <= 3``, ``|V| <= 8`` (where the factor ``4||W*_ov||``
#: of the upper bound becomes tight: the margins approach ``4||W*_ov|| A`` as ``eta_0`` grows).
COR1_A_RANGE = (1.0, 1e9)


def cor1(inst: Instance, *, k: int = 5, T: int = 3000) -> Instance:
    """Corollary 1's threshold reached: ``T`` steps and ``eta_0 = c log T / T``,
    ``c = 384 ||W*_ov||^k log(2|V|)``, or larger: the instance's own ``eta_0`` or the one of
    its drawn margin ``target_A`` (``eta_0 = 4 ||W*_ov||^2 A / T``) where that is past the
    threshold's (so the setup is idempotent: a replayed instance keeps its ``eta_0``).

    Stage 1 is scale-free in ``eta_0`` apart from the threshold, so choosing
    ``eta_0`` this way reaches the corollary's hypotheses in ``T`` steps.
    """
    base = Instance(inst.dataset, inst.embeddings, T=T, T2=0)
    w_ov = safe_norm(evidence(base).w_ov_star)
    c = bounds.cor1_threshold_constant(w_ov, inst.dataset.n_vocab, k)
    drawn = 4 * w_ov**2 * inst.target_A / T if inst.target_A is not None else 0.0
    eta0 = max(0.2 / math.sqrt(base.d), c * math.log(T) / T, inst.eta0 or 0.0, drawn)
    return Instance(inst.dataset, inst.embeddings, T=T, T2=0, eta0=eta0)


def lemma7(*, idealise: bool, steps_after: int = 300, t0_budget: int = 600) -> ParamMap:
    """Lemma 7's ``t_0`` reached: ``eta`` raised (never below the paper's) so that
    ``t_0 <= t0_budget``; the run lasts ``t_0 + steps_after`` steps."""

    def make(inst: Instance) -> Instance:
        ds = inst.dataset
        base = Instance(ds, None, T=900, T2=0)
        ws = safe_norm(evidence(base).w_kq_star)
        eta = max(inst.eta or 0.05 / math.sqrt(base.d), 8 * ds.l_max * ws**2 / t0_budget)
        t0 = bounds.lemma7_t0(eta, ds.l_max, ws)
        out = Instance(ds, inst.embeddings, T=900, T2=t0 + steps_after, eta=eta, target_A=inst.target_A)
        return idealised(T=900, T2=t0 + steps_after)(out) if idealise else with_margin(out)

    return make


def thm2(inst: Instance, *, c0: float = 1.0, T: int = 900, eta: float = 1.0, after: int = 300, cap: int = 3000) -> Instance:
    """Parameters under which Theorem 2's thresholds (absolute constant ``c0``) can be met.

    Stage 1: ``T`` steps with ``eta_0`` raised (never below the paper's) so that
    ``T >= c0 ||W*_ov||^5 log|V| log T/eta_0``.  Stage 2: ``eta = 1`` (the
    theorem asks ``eta <= O(1)``) and ``T' = t_c0 + after`` steps, where ``t_c0``
    is the stage-2 threshold, capped at ``cap``: past the cap the instance
    stays outside the hypotheses (reported, not hidden).
    """
    ds = inst.dataset
    base = with_margin(Instance(ds, inst.embeddings, T=T, T2=0, target_A=inst.target_A))
    ev = evidence(base)
    w_ov, w_kq = safe_norm(ev.w_ov_star), safe_norm(ev.w_kq_star)
    eta0 = max(base.steps[0], (1 + 1e-9) * bounds.thm2_stage1_threshold(T, 1.0, w_ov, ds.n_vocab, c0) / T)
    t_need = bounds.thm2_first_t(eta, ds.n_samples, ds.l_max, w_kq, c0) if w_kq > 0 else 0
    return Instance(ds, inst.embeddings, T=T, T2=min(cap, t_need + after), eta0=eta0, eta=eta)


def smallest_stage2() -> Instance:
    """``A -> B``, ``B -> C``, ``A B -> B``: the smallest realizable dataset whose Eq. (3)
    has a constraint (under query B, A is optimal and B non-optimal); ``||W*_kq|| = 1/sqrt 2``,
    so Theorem 2's thresholds with ``c_0 = 1`` are met within a few steps."""
    return Instance(ntpcheck.loads("A -> B\nB -> C\nA B -> B\n"))


def skewed_example1() -> Instance:
    """Example 1 with unit but non-orthogonal embeddings (seeded Gram matrix, off-diagonal
    entries in about [-0.3, 0.3]): outside Assumption 2, so stage 1 is no longer exact and
    ``1 - cos(W_ov, W*_ov)`` is not at rounding level.  Where a claim's quantity vanishes
    under Assumption 2, its sabotage is measured here to show the checker reads it."""
    import numpy as np

    V = 4
    E = np.eye(V) + 0.3 * np.random.default_rng(7).uniform(-1, 1, (V, V))
    return Instance(ntpcheck.load("example1"), E / np.linalg.norm(E, axis=0))
