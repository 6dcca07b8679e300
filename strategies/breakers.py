"""Strategies for datasets that break exactly one condition of the paper.

``violating(a)`` draws a realizable, prefix-closed base dataset (which may
shrink to nothing) and adds a small *gadget* on fresh tokens ``u, v, w``
(named after the base's tokens) that breaks condition ``a`` and nothing else.
Because the gadget's tokens and collocation targets are fresh, the base's
samples, orders and collocation are untouched; for ``"2"`` the dataset is
realizable and the embeddings are drawn non-orthonormal instead.

Gadgets (each is minimal for its kind; see ``tests/test_strategies.py``):

====== ================= ===============================================
cond.  variant           samples
====== ================= ===============================================
1i     not-a-function    ``u -> v``, ``u -> u``
1i     not-injective     ``u -> u``, ``v -> u``
1i     unexplained       ``u -> v``, ``u v -> u``
1ii    cycle             ``u v v u`` (3 prefixes), ``v -> u``
1ii    confused          ``u v w``, ``w u v u``, ``v w``
3      majority          ``u v v v`` (``u`` optimal once, ``v`` twice)
prefix missing-prefix    ``u -> u``, ``u v -> u`` (``u -> v`` missing)
2      correlated,       realizable data, embeddings with one correlated
       unnormalised,     pair, one column of norm != 1, or d < |V|
       low-dim
====== ================= ===============================================
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ntpcheck.assumptions import CONDITIONS
from ntpcheck.data import Dataset
from ntpcheck.instance import Instance
from ntpcheck.textformat import loads

from ._validation import check_bounds, check_choice, check_int
from .datasets import draw_realizable, token_names
from .embeddings import non_orthonormal_matrices

__all__ = ["violating", "GADGETS", "BREAKABLE"]

#: The conditions ``violating`` can break (those of :data:`ntpcheck.CONDITIONS`).
BREAKABLE = CONDITIONS

#: condition -> list of (variant, gadget text over u, v, w)
GADGETS: dict[str, list[tuple[str, str]]] = {
    "1i": [
        ("not-a-function", "u -> v\nu -> u\n"),
        ("not-injective", "u -> u\nv -> u\n"),
        ("unexplained", "u -> v\nu v -> u\n"),
    ],
    "1ii": [
        ("cycle", "u v v u\nv -> u\n"),
        ("confused", "u v w\nw u v u\nv w\n"),
    ],
    "3": [("majority", "u v v v\n")],
    "prefix": [("missing-prefix", "u -> u\nu v -> u\n")],
}


def _gadget_stats(text: str) -> tuple[int, int, int]:
    ds = loads(text)
    return ds.n_vocab, ds.n_samples, ds.l_max


def _instantiate(text: str, names: list[str]) -> Dataset:
    mapping = dict(zip("uvw", names))
    lines = []
    for ln in text.splitlines():
        lines.append(" ".join(mapping.get(w, w) for w in ln.split()))
    return loads("\n".join(lines) + "\n")


def violating(
    assumption: str,
    *,
    min_vocab: int = 2,
    max_vocab: int = 8,
    max_len: int = 6,
    max_samples: int = 12,
):
    """Instances that break exactly ``assumption`` and satisfy every other condition.

    Parameters
    ----------
    assumption : {"1i", "1ii", "2", "3", "prefix"}
        The condition to break (see :mod:`ntpcheck.assumptions`).
    min_vocab, max_vocab, max_len, max_samples : int
        Size bounds, as for :func:`strategies.realizable_datasets`; they
        must leave room for the gadget.

    Returns
    -------
    SearchStrategy[ntpcheck.instance.Instance]
        Canonical embeddings except for ``"2"``.

    Shrinks towards the gadget alone (the base shrinks to nothing), the
    first variant in the table above; for ``"2"``, towards the smallest
    realizable dataset with a correlated pair.
    """
    check_choice("assumption", assumption, BREAKABLE)
    check_int("min_vocab", min_vocab, 1)
    check_int("max_vocab", max_vocab, 1)
    check_bounds("min_vocab", min_vocab, "max_vocab", max_vocab)
    check_int("max_len", max_len, 1)
    check_int("max_samples", max_samples, 1)

    if assumption == "2":
        from .datasets import realizable_datasets

        if max_vocab < 2:
            raise InvalidArgument("breaking Assumption 2 needs max_vocab >= 2")
        base = realizable_datasets(min_vocab=max(min_vocab, 2), max_vocab=max_vocab, max_len=max_len, max_samples=max_samples)

        @st.composite
        def _bad_embeddings(draw):
            ds = draw(base)
            kind = draw(st.sampled_from(["correlated", "unnormalised", "low-dim"]))
            return Instance(ds, draw(non_orthonormal_matrices(ds.n_vocab, kind)))

        return _bad_embeddings()

    fitting = []
    for variant, text in GADGETS[assumption]:
        nv, ns, lm = _gadget_stats(text)
        if nv <= max_vocab and ns <= max_samples and lm <= max_len:
            fitting.append((variant, text, nv, ns))
    if not fitting:
        smallest = min((_gadget_stats(t) for _, t in GADGETS[assumption]), key=lambda s: s[1])
        raise InvalidArgument(
            f"breaking {assumption!r} needs max_vocab >= {smallest[0]}, max_samples >= {smallest[1]} "
            f"and max_len >= {smallest[2]}; got {max_vocab}, {max_samples}, {max_len}"
        )

    @st.composite
    def _violating(draw):
        variant, text, nv, ns = draw(st.sampled_from(fitting))
        pool = token_names(max_vocab - nv)
        base = draw_realizable(
            draw, pool, max_len=max_len, max_samples=max_samples - ns, prefix_closed=True, min_sentences=0
        ) if pool and max_samples > ns else None
        taken = {t for smp in (base.samples if base else []) for t in (*smp.sentence, smp.next)}
        names = [t for t in token_names(max_vocab) if t not in taken][:nv]
        gadget = _instantiate(text, names)
        samples = (list(base.samples) if base else []) + list(gadget.samples)
        used: dict[str, None] = {}
        for s in samples:
            for t in (*s.sentence, s.next):
                used.setdefault(t, None)
        for t in token_names(max_vocab):
            if len(used) >= min_vocab:
                break
            used.setdefault(t, None)
        return Instance(Dataset.from_samples(samples, vocab=tuple(used)))

    return _violating()
