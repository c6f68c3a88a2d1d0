"""Argument checks shared by every module (private)."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

from chancekit.errors import InvalidTypeError, InvalidValueError


def require_int(name: str, value: Any, *, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is an integer (not a bool) within [lo, hi].

    >>> require_int("n", 3, lo=1)
    3
    >>> require_int("n", 0, lo=1)
    Traceback (most recent call last):
    ...
    chancekit.errors.InvalidValueError: n must be an integer >= 1, not 0
    """
    if type(value) is not int:  # an int needs no conversion (and no ABC check)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InvalidTypeError(name, value, "an int")
        value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InvalidValueError(name, value, describe_range(lo, hi))
    return value


def describe_range(lo: int | None, hi: int | None) -> str:
    """``"an integer >= 1"``, ``"an integer in [0, 2**64)"``-style wording."""
    if lo is not None and hi is not None:
        return f"an integer from {lo} to {hi}"
    if lo is not None:
        return f"an integer >= {lo}"
    if hi is not None:
        return f"an integer <= {hi}"
    return "an integer"


def require_fraction(name: str, value: Any, *, meaning: str = "a chance 0 <= p <= 1",
                     above_zero: bool = False) -> Fraction:
    """``value`` (an int, a finite float read by its repr, or a Fraction) as a Fraction in
    [0, 1] (``above_zero``: in (0, 1]); ``meaning`` words the error.

    >>> require_fraction("p", 0.25)
    Fraction(1, 4)
    """
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        raise InvalidTypeError(name, value, f"{meaning} (a number or a Fraction)")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidValueError(name, value, meaning)
        value = Fraction(repr(value))
    value = Fraction(value)
    if not (0 < value if above_zero else 0 <= value) or value > 1:
        raise InvalidValueError(name, value, meaning)
    return value
