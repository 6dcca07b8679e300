"""What identifies a tested instance: the claim's setup applied, the instance's key up to the
claim's symmetries (:mod:`.symmetry`), its dataset's key, and its sizes for captions."""

from __future__ import annotations

from typing import Any

from ntpcheck.transformer.instance import Instance

from .claim import Claim
from .instances import dataset_key, is_paper_instance
from .symmetry import symmetric_key

__all__ = ["prepare", "instance_key", "data_key", "keys_of", "describe"]


def prepare(claim: Claim, inst: Instance) -> Instance:
    """The instance with the claim's parameters applied (its ``setup``)."""
    return inst if claim.setup is None else claim.setup(inst)


def instance_key(inst: Instance) -> tuple:
    """What makes two instances the same test, up to the symmetries of the claims
    (:mod:`.symmetry`): the dataset up to sample order, renaming of its tokens and the scale of
    its weights; the embeddings up to rotation (their Gram matrix, dropped where it is the
    identity: Assumption 2); the training parameters with the step sizes resolved, and the
    algorithm's name.

    Examples
    --------
    >>> import ntpcheck
    >>> a = Instance(ntpcheck.loads("A -> B\\nB -> A\\n"))
    >>> b = Instance(ntpcheck.loads("Y -> X\\nX -> Y\\n"))
    >>> instance_key(a) == instance_key(b), instance_key(a) == instance_key(b.with_params(T=5))
    (True, False)

    Another paper's instance (:class:`~.instances.PaperInstance`) says its own: ``inst.identity()``.
    """
    if is_paper_instance(inst):
        return inst.identity()
    return symmetric_key(inst)[1]


def data_key(inst: Instance):
    """The dataset of ``inst`` up to renaming and weight scale (:func:`.symmetry.canonical_dataset`),
    for ``counts.datasets``; another paper's instance: its :func:`~.instances.dataset_key`."""
    if is_paper_instance(inst):
        return dataset_key(inst)
    return symmetric_key(inst)[0]


def keys_of(inst: Instance) -> tuple:
    """``(instance_key(inst), data_key(inst))``, the canonical naming computed once."""
    if is_paper_instance(inst):
        return inst.identity(), dataset_key(inst)
    data, key = symmetric_key(inst)
    return key, data


def describe(inst: Instance) -> dict[str, Any]:
    """The sizes and training parameters of ``inst`` (for captions): ``V``, ``N``, ``L_max``,
    ``T``, ``T2``, ``eta0``, ``eta``, and the ``algorithm``'s name (None: Algorithm 1); another
    paper's instance describes itself (:class:`~.instances.PaperInstance`)."""
    if is_paper_instance(inst):
        return inst.describe()
    ds = inst.dataset
    eta0, eta = inst.steps
    return {"V": ds.n_vocab, "N": ds.n_samples, "L_max": ds.l_max, "T": inst.T, "T2": inst.T2, "eta0": float(eta0), "eta": float(eta),
            "algorithm": None if inst.algorithm is None else inst.algorithm.name}
