"""Turning a weights argument into labels and exact integer weights (private).

Accepted sources: a mapping ``label -> weight``, a sequence of weights (labels
``0..n-1``), or a distribution (anything with a ``.weights`` mapping, or a ``.pmf()``
returning a mapping). Weights may be ``int``, ``Fraction`` (any ``numbers.Rational``) or
finite ``float``; floats are converted *exactly* with ``Fraction(float)`` -- the value
the float really holds, not the decimal it was typed as. Every bad entry is reported by
name; nothing is built until every entry has been checked.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from chancekit.errors import InvalidTypeError, InvalidValueError


def exact_weight(name: str, value: Any) -> Fraction:
    """``value`` as a non-negative ``Fraction``; floats exactly. ``name`` names the entry."""
    if isinstance(value, bool):
        raise InvalidTypeError(name, value, "an int, Fraction or float weight")
    if isinstance(value, numbers.Rational):
        w = Fraction(int(value.numerator), int(value.denominator))
    elif isinstance(value, (float, numbers.Real)):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise InvalidValueError(name, value, "a finite weight >= 0")
        w = Fraction(f)
    else:
        raise InvalidTypeError(name, value, "an int, Fraction or float weight")
    if w < 0:
        raise InvalidValueError(name, value, "a weight >= 0")
    return w


def _entries(source: Any, what: str) -> list[tuple[Any, Any]]:
    if isinstance(source, Mapping):
        return list(source.items())
    weights = getattr(source, "weights", None)
    if isinstance(weights, Mapping):
        return list(weights.items())
    pmf = getattr(source, "pmf", None)
    if callable(pmf):
        got = pmf()
        if isinstance(got, Mapping):
            return list(got.items())
    if isinstance(source, (str, bytes)):
        raise InvalidTypeError(what, source, "a mapping label -> weight or a sequence of "
                               "weights (a dice notation string is accepted by "
                               "TabletopTable.build)")
    if isinstance(source, (Sequence, Iterable)) and not isinstance(source, (str, bytes)):
        try:
            return list(enumerate(source))
        except TypeError:  # pragma: no cover - defensive
            pass
    raise InvalidTypeError(what, source, "a mapping label -> weight, a sequence of weights, "
                           "or a Distribution")


def integer_weights(source: Any, *, what: str = "weights",
                    allow_zero_total: bool = False) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    """``(labels, ints)``: the labels in order and integer weights proportional to the
    exact weights, divided by their greatest common divisor (so ``[2, 4]`` -> ``[1, 2]``).

    >>> integer_weights({"a": 0.5, "b": Fraction(1, 4)})
    (('a', 'b'), (2, 1))
    """
    if hasattr(source, "dtype") and hasattr(source, "tolist"):  # a numpy array
        source = source.tolist()
    entries = _entries(source, what)
    if not entries and not allow_zero_total:
        raise InvalidValueError(f"{what} is empty: give at least one label with a weight > 0")
    values = [v for _, v in entries]
    if all(v.__class__ is int for v in values):  # fast path: plain integers
        if min(values, default=0) < 0:
            lab, bad = next((lab, v) for lab, v in entries if v < 0)
            raise InvalidValueError(f"{what}[{lab!r}]", bad, "a weight >= 0")
        g = math.gcd(*values)
        if g == 0:
            if allow_zero_total:
                return tuple(lab for lab, _ in entries), tuple(values)
            raise InvalidValueError(f"{what}: every weight is zero ({len(values)} entries); "
                                    "at least one must be > 0")
        return tuple(lab for lab, _ in entries), tuple(v // g for v in values)
    labels = []
    fracs = []
    for label, value in entries:
        labels.append(label)
        fracs.append(exact_weight(f"{what}[{label!r}]", value))
    denom = 1
    for f in fracs:
        denom = denom * f.denominator // math.gcd(denom, f.denominator)
    ints = [f.numerator * (denom // f.denominator) for f in fracs]
    g = 0
    for x in ints:
        g = math.gcd(g, x)
    if g == 0:
        if allow_zero_total:
            return tuple(labels), tuple(ints)
        raise InvalidValueError(f"{what}: every weight is zero ({len(ints)} entries); "
                                "at least one must be > 0")
    return tuple(labels), tuple(x // g for x in ints)


def parse_weights(text: str) -> dict[str, Fraction]:
    """Parse ``"sword=5,shield=3,potion=12"`` (weights: integers, ``a/b`` or decimals, read
    exactly). Each malformed entry is named in the error.

    >>> parse_weights("sword=5, shield=1/2, potion=0.25")
    {'sword': Fraction(5, 1), 'shield': Fraction(1, 2), 'potion': Fraction(1, 4)}
    """
    out: dict[str, Fraction] = {}
    if not text.strip():
        raise InvalidValueError("--weights", text, "label=weight pairs separated by commas, "
                                "e.g. 'sword=5,shield=3'")
    for raw in text.split(","):
        entry = raw.strip()
        label, sep, value = entry.partition("=")
        label, value = label.strip(), value.strip()
        if not sep or not label or not value:
            raise InvalidValueError(f"--weights entry {entry!r} must look like label=weight "
                                    "(e.g. 'sword=5')")
        if label in out:
            raise InvalidValueError(f"--weights: label {label!r} appears twice")
        try:
            w = Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise InvalidValueError(f"--weights entry {entry!r}: the weight {value!r} is not "
                                    "a number (use e.g. 5, 1/3 or 0.25)") from None
        if w < 0:
            raise InvalidValueError(f"--weights entry {entry!r}: weight must be >= 0")
        out[label] = w
    return out
