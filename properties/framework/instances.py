"""What the framework needs of an instance: the first paper's, or any other paper's.

The framework grew around the first paper's :class:`ntpcheck.transformer.instance.Instance`
(a dataset of sentences, embeddings, Algorithm 1's parameters), and keeps its
behaviour for it exactly (:mod:`.runner`, :mod:`.evidence`).  Another paper's
instance (for Thrampoulidis 2024: an ``NTPData`` and its parameters) runs
through the same runner, counts, sabotage, parts and reports by implementing
:class:`PaperInstance`: the runner asks the instance itself for its identity,
its description, its evidence and its text.

Examples
--------
>>> import ntpcheck
>>> from ntpcheck.transformer.instance import Instance
>>> is_paper_instance(Instance(ntpcheck.loads("A -> B\\n")))
False
"""

from __future__ import annotations

from typing import Any, Hashable, Protocol, runtime_checkable

from ntpcheck.transformer.instance import Instance

__all__ = ["PaperInstance", "is_paper_instance", "dataset_key"]


@runtime_checkable
class PaperInstance(Protocol):
    """An instance of a paper other than the first, as the framework uses it.

    Attributes and methods
    ----------------------
    key : hashable
        Identifies the computation exactly (data, embeddings, parameters): the
        evidence cache's key (:func:`.evidence.evidence`).
    identity() -> hashable
        The instance up to conventions that change nothing (the order of
        contexts, of samples): two draws with the same identity count once
        (:func:`.runner.instance_key`).
    describe() -> dict
        Its sizes and parameters, for captions (:func:`.runner.describe`); at
        least ``"V"`` (tokens) and ``"N"`` (distinct samples), by which shards
        order counterexamples (:mod:`.shards`).
    evidence() -> object
        The evidence its claims' checkers receive, computed lazily.
    counterexample_text(claim, detail, replay) -> str
        The instance in its paper's text format, replayable on its own: a
        header naming ``claim`` and the failure ``detail``, the parameters,
        the data, and last a comment with the ``replay`` command.
    dataset_key() -> hashable, optional
        The data alone (without parameters), for counting distinct datasets in a
        claim's informative groups (:class:`~.claim.Informative`); ``identity()`` if absent.
    """

    key: Hashable

    def identity(self) -> Hashable: ...

    def describe(self) -> dict[str, Any]: ...

    def evidence(self) -> Any: ...

    def counterexample_text(self, claim: str, detail: str, replay: str) -> str: ...


def is_paper_instance(inst: Any) -> bool:
    """Whether ``inst`` is another paper's instance (:class:`PaperInstance`), not the first paper's."""
    return not isinstance(inst, Instance) and isinstance(inst, PaperInstance)


def dataset_key(inst: Any):
    """The data of ``inst`` for counting distinct datasets: the first paper's ``Dataset``, or
    another paper's ``dataset_key()`` (its ``identity()`` when it has none)."""
    if not is_paper_instance(inst):
        return inst.dataset
    return getattr(inst, "dataset_key", inst.identity)()
