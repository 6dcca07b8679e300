"""Built-in datasets, available by name wherever a dataset file is accepted
(:func:`ntpcheck.load` parses them; this module only holds their texts).

``example1``
    Example 1 of the paper (Section 4.1): V = {S, V, O, P} and
    D_0 = {SVOP, VOP, OPP, PSV} with all their prefixes.
``example1-sentences``
    The same four sentences as single samples only, without the prefixes
    (breaks the Section 3 prefix convention; kept to show that check).
"""

from __future__ import annotations

__all__ = ["names", "BUILTIN_TEXTS"]

BUILTIN_TEXTS: dict[str, str] = {
    "example1": """\
# Example 1 of the paper (Section 4.1): subject, verb, object, punctuation.
# Each line is a sequence; every prefix is a training sample (Section 3).
S V O P
V O P
O P P
P S V
""",
    "example1-sentences": """\
# The four sentences of Example 1 as single samples, without their prefixes.
S V O -> P
V O -> P
O P -> P
P S -> V
""",
}


def names() -> list[str]:
    """Names of the built-in datasets."""
    return sorted(BUILTIN_TEXTS)
