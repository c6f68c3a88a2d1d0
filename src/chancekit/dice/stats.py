"""Shape and distance statistics of exact distributions.

``central_moment(d, k)`` is exact (a :class:`~fractions.Fraction`). The standardized
moments are irrational in general (``mu3 / mu2**1.5``), so :func:`skewness` and
:func:`kurtosis` return floats computed from the *exact* central moments, rounded once:
``skewness**2 = mu3**2 / mu2**3`` is formed as a Fraction, converted, and its square root
taken; the excess kurtosis ``mu4 / mu2**2 - 3`` is rational, so
``kurtosis(d, exact=True)`` returns it as a Fraction. Distances between two
distributions are exact Fractions: Kolmogorov–Smirnov (the largest gap between the two
CDFs) and total variation (half the L1 distance of the pmfs).

>>> from chancekit.dice import d
>>> from chancekit.dice.stats import kurtosis, ks_distance, skewness, tv_distance
>>> skewness(d(6)), kurtosis(d(6), exact=True)
(0.0, Fraction(-222, 175))
>>> round(skewness(d(20).max(d(20))), 4)
-0.572
>>> ks_distance(2 @ d(6), d(12)), tv_distance(d(4), d(6))
(Fraction(1, 6), Fraction(1, 3))

Cost: one pass over the outcomes, O(outcomes) Fraction operations (outcomes are bounded by
``MAX_OUTCOMES``); the distances walk the union of the two outcome sets once, sorted.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution
from chancekit.errors import InvalidTypeError, InvalidValueError

__all__ = ["central_moment", "ks_distance", "kurtosis", "skewness", "tv_distance"]


def _check(name: str, d: Any) -> Distribution:
    if not isinstance(d, Distribution):
        raise InvalidTypeError(name, d, "a chancekit.dice.Distribution")
    return d


def _numeric(d: Distribution) -> list[tuple[Fraction, int]]:
    out = []
    for x, w in d.items():
        if isinstance(x, bool) or not isinstance(x, numbers.Rational):
            if isinstance(x, numbers.Real) and not isinstance(x, bool):
                x = Fraction(x)  # a float outcome: its exact binary value
            else:
                raise InvalidValueError("distribution", d,
                                        "a distribution over numbers (moments need values)")
        out.append((Fraction(x), int(w)))
    return out


def central_moment(d: Distribution, k: int) -> Fraction:
    """The exact k-th central moment ``E[(X - mean)**k]`` (k >= 1), a Fraction.

    >>> from chancekit.dice import d
    >>> central_moment(d(6), 2)
    Fraction(35, 12)
    """
    d = _check("d", d)
    k = require_int("k", k, lo=1, hi=64)
    pairs = _numeric(d)
    total = sum(w for _, w in pairs)
    mean = sum(x * w for x, w in pairs) / total
    return sum((x - mean) ** k * w for x, w in pairs) / total


def _mu2(d: Distribution, what: str) -> Fraction:
    m2 = central_moment(d, 2)
    if m2 == 0:
        raise InvalidValueError("d", d, f"a distribution with positive variance ({what} of "
                                "a constant is undefined)")
    return m2


def skewness(d: Distribution) -> float:
    """The skewness ``mu3 / mu2**1.5`` as a float, from the exact central moments (the
    square of the skewness is a Fraction; one rounding, then a square root).

    >>> from chancekit.dice import d
    >>> round(skewness(d(6).explode()), 4)
    2.0911
    """
    m2 = _mu2(d, "skewness")
    m3 = central_moment(d, 3)
    if m3 == 0:
        return 0.0
    return math.copysign(math.sqrt(m3 * m3 / (m2 ** 3)), m3)


def kurtosis(d: Distribution, *, exact: bool = False) -> float | Fraction:
    """The excess kurtosis ``mu4 / mu2**2 - 3`` (0 for a normal law): a float, or the exact
    Fraction with ``exact=True`` (it is rational).

    >>> from chancekit.dice import d
    >>> kurtosis(d(2))
    -2.0
    """
    m2 = _mu2(d, "kurtosis")
    k = central_moment(d, 4) / (m2 * m2) - 3
    return k if exact else float(k)


def _cdf_points(a: Distribution, b: Distribution) -> tuple[list[Any], dict[Any, Fraction],
                                                            dict[Any, Fraction]]:
    pa, pb = a.pmf(), b.pmf()
    try:
        xs = sorted(set(pa) | set(pb))
    except TypeError:
        raise InvalidValueError("a, b", (a, b), "distributions over mutually ordered "
                                "outcomes (a CDF needs an order)") from None
    return xs, pa, pb


def ks_distance(a: Distribution, b: Distribution) -> Fraction:
    """The Kolmogorov–Smirnov distance ``max_x |F_a(x) - F_b(x)|``, exact.

    >>> from chancekit.dice import d
    >>> ks_distance(d(6), d(6) + 1)
    Fraction(1, 6)
    """
    xs, pa, pb = _cdf_points(_check("a", a), _check("b", b))
    fa = fb = Fraction(0)
    best = Fraction(0)
    for x in xs:
        fa += pa.get(x, 0)
        fb += pb.get(x, 0)
        best = max(best, abs(fa - fb))
    return best


def tv_distance(a: Distribution, b: Distribution) -> Fraction:
    """The total variation distance ``(1/2) sum_x |p_a(x) - p_b(x)|``, exact (outcomes need
    not be ordered).

    >>> from chancekit.dice import d
    >>> tv_distance(d(6), d(6))
    Fraction(0, 1)
    """
    pa, pb = _check("a", a).pmf(), _check("b", b).pmf()
    return sum((abs(pa.get(x, 0) - pb.get(x, 0)) for x in set(pa) | set(pb)),
               Fraction(0)) / 2
