"""Argument validation shared by the strategies (raises InvalidArgument at build time)."""

from __future__ import annotations

from hypothesis.errors import InvalidArgument

__all__ = ["check_int", "check_bounds", "check_choice"]


def check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    if value < minimum:
        raise InvalidArgument(f"{name}={value!r} must be at least {minimum}")
    return value


def check_bounds(lo_name: str, lo: int, hi_name: str, hi: int) -> None:
    if lo > hi:
        raise InvalidArgument(f"{lo_name}={lo!r} must not exceed {hi_name}={hi!r}")


def check_choice(name: str, value: object, choices) -> None:
    if value not in choices:
        raise InvalidArgument(f"{name}={value!r} must be one of {', '.join(map(repr, choices))}")
