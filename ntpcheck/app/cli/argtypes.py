"""Argument types of the ``ntpcheck`` command line: each parses one option's text or
raises :class:`argparse.ArgumentTypeError`, which the parser turns into exit 2 with
one line naming the option."""

from __future__ import annotations

import argparse
import math

__all__ = ["non_negative_int", "steps", "MAX_STEPS", "at_least", "dim", "MAX_DIM", "seed", "vocab_sizes", "positive_float"]


def _int(text: str) -> int:
    """``int(text)`` for ASCII digits only: Python's ``int`` also reads full-width and other
    scripts' digits (``'\uff11'`` is 1), which a user may not have meant to type.

    Examples
    --------
    >>> _int(" 12 ")
    12
    >>> _int("\uff11")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '１' is not an integer (ASCII digits 0-9)
    """
    try:
        if not text.isascii():
            raise ValueError
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer{'' if text.isascii() else ' (ASCII digits 0-9)'}") from None


def non_negative_int(text: str) -> int:
    v = _int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return v


#: The most NGD steps ``train`` takes per stage (10^9: hours, and a run to interrupt); 10^12 asked
#: for 8 TB of trajectory and ended in "out of memory".
MAX_STEPS = 1_000_000_000


def steps(text: str) -> int:
    """An argument type: a number of training steps, ``0 <= T <= MAX_STEPS``.

    Examples
    --------
    >>> steps("900")
    900
    >>> steps("1000000000000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1000000000000' is more steps than ntpcheck takes (at most 1000000000)
    """
    v = non_negative_int(text)
    if v > MAX_STEPS:
        raise argparse.ArgumentTypeError(f"{text!r} is more steps than ntpcheck takes (at most {MAX_STEPS})")
    return v


def at_least(k: int):
    """An argument type: an integer >= ``k`` (any integer below is refused with the same words).

    Examples
    --------
    >>> at_least(1)("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '-1' must be >= 1
    """
    def parse(text: str) -> int:
        v = _int(text)
        if v < k:
            raise argparse.ArgumentTypeError(f"{text!r} must be >= {k}")
        return v

    parse.__name__ = f"integer >= {k}"
    return parse


#: The largest ``--dim``: the largest D an embeddings file's header may give
#: (:data:`ntpcheck.transformer.textheader.MAX_DIM`, the same number: tested); ``check --dim 10^8``
#: held 15.7 GB for 42 s before it answered.
MAX_DIM = 100_000


def dim(text: str) -> int:
    """An argument type: an embedding dimension, ``1 <= d <= MAX_DIM``."""
    v = at_least(1)(text)
    if v > MAX_DIM:
        raise argparse.ArgumentTypeError(f"{text!r} is larger than the largest dimension ntpcheck takes ({MAX_DIM})")
    return v


def seed(text: str) -> int:
    """A random seed: an integer in [0, 2^32 - 1] (what numpy's generators accept)."""
    v = _int(text)
    if not 0 <= v < 2**32:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 2^32 - 1")
    return v


#: The largest ``bench --sizes`` value: the benchmark holds several |V| x |V| float64 tables, 0.8 GB
#: each at 10^4 (at 10^5 one would need 80 GB, and the run ended in "out of memory").
MAX_BENCH_SIZE = 10_000


def vocab_sizes(text: str) -> list[int]:
    """``--sizes``: comma-separated vocabulary sizes, each at least 8 (the benchmark's data need it) and at
    most :data:`MAX_BENCH_SIZE`.

    Examples
    --------
    >>> vocab_sizes("10,100")
    [10, 100]
    >>> vocab_sizes("100000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: size 100000 is above 10000, the largest the benchmark runs (its |V| x |V| tables would need 80 GB each)
    """
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of sizes")
    out = []
    for v in map(non_negative_int, parts):
        if v < 8:
            raise argparse.ArgumentTypeError(f"size {v} is below 8, the smallest the benchmark's data allow")
        if v > MAX_BENCH_SIZE:
            raise argparse.ArgumentTypeError(f"size {v} is above {MAX_BENCH_SIZE}, the largest the benchmark runs "
                                             f"(its |V| x |V| tables would need {8 * v * v / 1e9:.3g} GB each)")
        out.append(v)
    return out


def positive_float(text: str) -> float:
    try:
        if not text.isascii():  # float() also reads other scripts' digits
            raise ValueError
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be finite and > 0")
    return v
