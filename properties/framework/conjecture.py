"""Your own claim: a decorator that turns a checker into a :class:`~.claim.Claim`.

A conjecture is a claim like the paper's, declared next to the test that
uses it.  Bound to a name the pytest plugin collects (``test_*``), it is run
and reported exactly like the paper's claims: searched by Hypothesis, its
counterexample shrunk and printed in the text format, its verdict one of
``holds``, ``falsified``, ``vacuous``, ``outside-hypotheses``,
``inconclusive``, with counts.  ``ntpcheck.properties.framework.run_claim``
runs it outside pytest.

Examples
--------
>>> import numpy as np
>>> from ntpcheck.strategies import realizable_datasets
>>> from ntpcheck.properties.framework import conjecture, inequality, run_claim
>>> @conjecture("Conj. W_ov", data=realizable_datasets(max_vocab=3, max_len=3, max_samples=4),
...             assumptions=("1i", "1ii", "2"))
... def test_w_ov_norm(ev):
...     '''||W*_ov||^2 <= |V|'''
...     n = ev.instance.dataset.n_vocab
...     return inequality(np.linalg.norm(ev.w_ov_star) ** 2, n, what="||W*_ov||^2 <= |V|")
>>> test_w_ov_norm.name, test_w_ov_norm.statement
('Conj. W_ov', '||W*_ov||^2 <= |V|')
>>> run_claim(test_w_ov_norm, "quick").verdict
<Verdict.HOLDS: 'holds'>
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable

from ntpcheck.common.data import Dataset
from ntpcheck.transformer.instance import Instance

from .claim import Claim, Structural, Tighten
from .instances import is_paper_instance
from .verdicts import Outcome

__all__ = ["conjecture"]


def _instance(x: Any) -> Instance:
    if isinstance(x, Instance) or is_paper_instance(x):
        return x
    if isinstance(x, Dataset):
        return Instance(x)
    raise TypeError(f"a conjecture's data must produce Instance or Dataset values, got {type(x).__name__}")


def _drawn(inst: Instance) -> Instance:
    """The instance as drawn (a conjecture's default setup: no parameters imposed)."""
    return inst


def conjecture(
    id: str,
    *,
    data: Any,
    statement: str | None = None,
    section: str = "user",
    assumptions: Iterable[str] = (),
    setup: Callable[[Instance], Instance] | None = None,
    sabotage: Tighten | Structural | None = None,
    examples: Iterable[Callable[[], Instance]] = (),
    min_tested: int | None = None,
    slug: str | None = None,
) -> Callable[[Callable[[Any], Outcome]], Claim]:
    """Declare a claim of your own from its checker ``check(evidence) -> Outcome``.

    Parameters
    ----------
    id : str
        How reports name it (``"Conj. 1"``).
    data : SearchStrategy or callable
        Instances to check it on: a strategy of :class:`~ntpcheck.transformer.instance.Instance`
        or :class:`~ntpcheck.common.data.Dataset` values, or another paper's instances
        (:class:`~.instances.PaperInstance`) (a dataset becomes an instance
        with canonical embeddings and Algorithm 1's defaults), or
        ``data(profile) -> strategy`` to size the data by the profile.
    statement : str, optional
        The claim in words; the checker's docstring when omitted.
    assumptions : iterable of str
        The paper's conditions it is stated under (``"1i"``, ``"1ii"``, ``"2"``,
        ``"3"``, ``"prefix"``): on a user dataset (``--ntp-dataset``) that breaks
        one, the verdict is ``outside-hypotheses``.  The data should meet them.
    setup : callable, optional
        ``setup(instance) -> instance``: training parameters imposed before the check.
    sabotage, examples, min_tested, slug
        As for :class:`~.claim.Claim`.

    Returns
    -------
    callable
        A decorator: the checker becomes the :class:`~.claim.Claim`.
    """
    if not isinstance(id, str) or not id.strip():
        raise ValueError(f"a conjecture needs a non-empty id, got {id!r}")
    from hypothesis.strategies import SearchStrategy

    if isinstance(data, SearchStrategy):
        drawn = data.map(_instance)

        def strategy(profile: str):
            return drawn
    elif callable(data):  # profile -> strategy
        make = data

        def strategy(profile: str):
            return make(profile).map(_instance)
    else:
        raise TypeError(f"conjecture {id!r}: data must be a Hypothesis strategy or profile -> strategy, got {type(data).__name__}")

    def make_claim(check: Callable[[Any], Outcome]) -> Claim:
        text = statement or inspect.cleandoc(check.__doc__ or "") or check.__name__
        return Claim(id, section, text, tuple(assumptions), strategy, check, setup=setup or _drawn,
                     sabotage=sabotage, examples=tuple(examples), min_tested=min_tested, slug=slug)

    return make_claim
