"""Certified distributions: every probability an interval proven to contain the exact one.

Exact weights can grow past any budget (a die mixed into itself in a loop squares its
denominator each round: 149bd's weights reach millions of bits). When exact work is
refused for that reason, and only when the caller asks (``approx=True``), chancekit gives
a :class:`CertifiedDistribution` instead: outcome -> an :class:`Interval` ``[lo, hi]``
that contains the exact probability, with its error bound (``max_error``) printed beside
it. It is never called exact and never used unless asked.

How it is certified (docs/limits.md, "Certified answers"): every probability is held as
two integers ``lo <= hi`` over ``2**bits`` (fixed point, ``bits`` = 128 by default).
Every operation chancekit does on probabilities is a sum or a product of non-negative
numbers, or a division by a sum of them (renormalising after empty results), all of
which are monotone, so the exact result lies between the operation done on the lower
ends rounded down and done on the upper ends rounded up: sums of dice are two integer
polynomial products (python-flint ``fmpz_poly``, lower and upper) shifted back to
``bits``, pairwise operators accumulate exact products then round once per outcome.
Reading a probability gives a python-flint ``arb`` ball (midpoint +- radius) containing
the interval. (arb_poly's own products keep *relative* accuracy in tails of 1e-777,
which made ``10000d6`` take 10 s; absolute error is what is asked, and fixed-point
intervals give it at the cost of an integer product.)

>>> from chancekit.dice import d
>>> c = CertifiedDistribution.from_exact(d(6)).repeat_sum(3)
>>> c.contains((3 @ d(6)))
True
>>> c.max_error < 1e-30
True
>>> print(c.interval(10)[0] <= (3 @ d(6)).probability(10) <= c.interval(10)[1])
True
"""

from __future__ import annotations

import contextvars
import math
import operator
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from chancekit import _exact, limits
from chancekit.dice.distribution import Distribution
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError

__all__ = ["CertifiedDistribution", "Interval", "certify", "precision"]

#: bits of the fixed-point probabilities (2**-128 is about 3e-39): the first try; a
#: result whose error is past the asked bound is recomputed with ``bits * 4``, up to
#: :data:`chancekit.limits.MAX_CERTIFIED_BITS`
DEFAULT_BITS = 128

_BITS: contextvars.ContextVar[int] = contextvars.ContextVar("chancekit_certified_bits",
                                                            default=DEFAULT_BITS)

#: work units of one certified pair of outcomes (two products of ~bits-bit integers and
#: two dict updates, ~0.3 us at 128 bits)
PAIR_WORK = 15
#: work units of one outcome of a certified map or mixture entry
ENTRY_WORK = 10


class precision:
    """Context manager: certified work inside it uses ``bits``-bit fixed point.

    >>> with precision(256):
    ...     CertifiedDistribution.from_exact(Distribution({1: 1, 2: 2})).bits
    256
    """

    __slots__ = ("bits", "token")

    def __init__(self, bits: int) -> None:
        if not isinstance(bits, int) or bits < 16:
            raise InvalidValueError("bits", bits, "an integer of at least 16")
        if bits > limits.MAX_CERTIFIED_BITS:
            raise LimitError(f"certified arithmetic at {bits} bits is past the limit "
                             f"MAX_CERTIFIED_BITS = {limits.MAX_CERTIFIED_BITS}",
                             limit="MAX_CERTIFIED_BITS", value=bits)
        self.bits = bits
        self.token: contextvars.Token[int] | None = None

    def __enter__(self) -> precision:
        self.token = _BITS.set(self.bits)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.token is not None
        _BITS.reset(self.token)


class PrecisionLost(LimitError):
    """The certified bounds became too wide at this precision (a renormalisation by a
    mass whose lower bound is 0): the caller may retry with more bits."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _fraction(n: int, bits: int) -> Fraction:
    return Fraction(n, 1 << bits)


class Interval:
    """A non-negative real known to lie in ``[lo, hi] / 2**bits`` (integers): a certified
    probability, or a weight (a product of probabilities and integer counts) on its way
    into a mixture. ``+`` and ``*`` with ints and Intervals round outward, so the exact
    value stays inside. Immutable and hashable.

    >>> third = Interval.of(Fraction(1, 3))
    >>> third.lower <= Fraction(1, 3) <= third.upper
    True
    >>> (third * 3).upper >= 1
    True
    """

    __slots__ = ("bits", "hi", "lo")

    def __init__(self, lo: int, hi: int, bits: int) -> None:
        if not 0 <= lo <= hi:
            raise InvalidValueError("interval", (lo, hi), "0 <= lo <= hi")
        self.lo = lo
        self.hi = hi
        self.bits = bits

    @classmethod
    def of(cls, q: Fraction | int, bits: int | None = None) -> Interval:
        """The tightest interval at ``bits`` around the non-negative rational ``q``."""
        b = _BITS.get() if bits is None else bits
        q = Fraction(q)
        n = q.numerator << b
        return cls(n // q.denominator, _ceil_div(n, q.denominator), b)

    @property
    def lower(self) -> Fraction:
        return _fraction(self.lo, self.bits)

    @property
    def upper(self) -> Fraction:
        return _fraction(self.hi, self.bits)

    @property
    def radius(self) -> Fraction:
        return _fraction(self.hi - self.lo, self.bits + 1)

    @property
    def midpoint(self) -> Fraction:
        return _fraction(self.lo + self.hi, self.bits + 1)

    def ball(self) -> Any:
        """The python-flint ``arb`` ball that contains this interval."""
        return _exact.ball(self.lo, self.hi, self.bits)

    def contains(self, q: Fraction | int) -> bool:
        return self.lower <= q <= self.upper

    def _align(self, other: Interval) -> tuple[Interval, Interval]:
        if self.bits == other.bits:
            return self, other
        if self.bits < other.bits:
            s = other.bits - self.bits
            return Interval(self.lo << s, self.hi << s, other.bits), other
        s = self.bits - other.bits
        return self, Interval(other.lo << s, other.hi << s, self.bits)

    def __add__(self, other: Any) -> Interval:
        if isinstance(other, int) and other >= 0:
            k = other << self.bits
            return Interval(self.lo + k, self.hi + k, self.bits)
        if isinstance(other, Interval):
            a, b = self._align(other)
            return Interval(a.lo + b.lo, a.hi + b.hi, a.bits)
        return NotImplemented

    __radd__ = __add__

    def __mul__(self, other: Any) -> Interval:
        if isinstance(other, int) and other >= 0:
            return Interval(self.lo * other, self.hi * other, self.bits)
        if isinstance(other, Interval):
            a, b = self._align(other)
            s = a.bits
            return Interval((a.lo * b.lo) >> s, _ceil_div(a.hi * b.hi, 1 << s), s)
        return NotImplemented

    __rmul__ = __mul__

    def __pow__(self, n: int) -> Interval:
        if not isinstance(n, int) or n < 0:
            return NotImplemented
        out = Interval(1 << self.bits, 1 << self.bits, self.bits)
        base = self
        while n:
            if n & 1:
                out = out * base
            n >>= 1
            if n:
                base = base * base
        return out

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Interval) and self.lo == other.lo and self.hi == other.hi
                and self.bits == other.bits)

    def __hash__(self) -> int:
        return hash((Interval, self.lo, self.hi, self.bits))

    def __float__(self) -> float:
        return float(self.midpoint)

    def __repr__(self) -> str:
        return f"{float(self.midpoint)!r} ± {_up(self.radius):.2g}"


def _up(q: Fraction) -> float:
    """A float at least ``q`` (for error bounds: never rounded down)."""
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def float_down(a: int, b: int) -> float:
    """The largest float at most ``a / b`` (``a >= 0``, ``b > 0``)."""
    try:
        f = a / b  # correctly rounded to nearest
    except OverflowError:  # past the largest float
        return sys.float_info.max
    n, m = f.as_integer_ratio()
    return math.nextafter(f, -math.inf) if n * b > a * m else f


def float_up(a: int, b: int) -> float:
    """The smallest float at least ``a / b`` (``a >= 0``, ``b > 0``)."""
    try:
        f = a / b
    except OverflowError:
        return math.inf
    n, m = f.as_integer_ratio()
    return math.nextafter(f, math.inf) if n * b < a * m else f


def fraction_down(q: Fraction) -> float:
    """The largest float at most the rational ``q`` (any sign)."""
    if q >= 0:
        return float_down(q.numerator, q.denominator)
    return -float_up(-q.numerator, q.denominator)


def fraction_up(q: Fraction) -> float:
    """The smallest float at least the rational ``q`` (any sign)."""
    return -fraction_down(-q)


def _sort(keys: Iterable[Any]) -> list[Any]:
    keys = list(keys)
    try:
        return sorted(keys)
    except TypeError:
        return keys


class CertifiedDistribution:
    """A distribution whose probabilities are proven intervals, not exact fractions.

    Built from an exact :class:`~chancekit.dice.Distribution` (:meth:`from_exact`) and
    combined like one (``+``, ``-``, ``*``, :meth:`map`, :meth:`repeat_sum`,
    :meth:`mixture`, :meth:`max`, :meth:`min`, :meth:`extreme`,
    :meth:`order_statistic`, :meth:`select`, :meth:`explode`), each operation priced
    before it starts
    against the open work budget. Reading: :meth:`probability`, :meth:`at_least`,
    :meth:`at_most` and :meth:`mean` give python-flint ``arb`` balls;
    :meth:`interval` gives the exact rational bounds; :attr:`max_error` the largest
    radius over the outcomes (absolute, in probability). The support is exact (an
    outcome is listed if and only if it is possible), even where its interval reaches 0.

    >>> from chancekit.dice import d
    >>> c = CertifiedDistribution.from_exact(d(4)) + d(4)
    >>> ball = c.probability(5)
    >>> float(ball.lower()) <= 0.25 <= float(ball.upper())
    True
    >>> c.interval(5)[0] <= Fraction(1, 4) <= c.interval(5)[1]
    True
    >>> "exact" in repr(c)
    False
    """

    __slots__ = ("_bits", "_hi", "_int", "_lo")

    _lo: dict[Any, int]
    _hi: dict[Any, int]
    _bits: int
    _int: bool

    #: never exact (a Distribution is; code that handles both can ask)
    is_exact = False

    # -- building ---------------------------------------------------------------------

    @classmethod
    def _make(cls, lo: dict[Any, int], hi: dict[Any, int], bits: int) -> CertifiedDistribution:
        if not hi:
            raise InvalidValueError("weights", {}, "a mapping with a positive weight")
        if len(hi) > limits.MAX_OUTCOMES:
            raise LimitError(f"the result would have {len(hi)} outcomes, more than "
                             f"MAX_OUTCOMES = {limits.MAX_OUTCOMES}; group outcomes first",
                             limit="MAX_OUTCOMES", value=len(hi))
        one = 1 << bits
        keys = _sort(hi)
        self = object.__new__(cls)
        self._lo = {k: min(lo.get(k, 0), one) for k in keys}
        self._hi = {k: min(hi[k], one) for k in keys}
        self._bits = bits
        self._int = all(type(k) is int for k in keys)
        return self

    @classmethod
    def from_exact(cls, dist: Distribution, bits: int | None = None) -> CertifiedDistribution:
        """The certified form of an exact distribution: each probability rounded down
        and up to ``bits`` (default: the current :class:`precision`). O(outcomes)."""
        if isinstance(dist, CertifiedDistribution):
            return dist if bits is None else dist._at(bits)
        if not isinstance(dist, Distribution):
            raise InvalidTypeError("dist", dist, "a Distribution")
        b = _BITS.get() if bits is None else bits
        t = dist.total
        limits.charge(len(dist) * ENTRY_WORK * (1 + t.bit_length() // 4096),
                      "rounding a distribution to certified intervals")
        lo, hi = {}, {}
        for x, w in dist.items():
            n = w << b
            lo[x] = n // t
            hi[x] = _ceil_div(n, t)
        return cls._make(lo, hi, b)

    def _at(self, bits: int) -> CertifiedDistribution:
        if bits == self._bits:
            return self
        if bits > self._bits:
            s = bits - self._bits
            return CertifiedDistribution._make({k: v << s for k, v in self._lo.items()},
                                               {k: v << s for k, v in self._hi.items()}, bits)
        s = self._bits - bits
        return CertifiedDistribution._make({k: v >> s for k, v in self._lo.items()},
                                           {k: _ceil_div(v, 1 << s) for k, v in self._hi.items()},
                                           bits)

    # -- reading ----------------------------------------------------------------------

    @property
    def bits(self) -> int:
        """Bits of the fixed-point bounds (2**-bits is the rounding unit)."""
        return self._bits

    @property
    def total(self) -> int:
        """The weights are probabilities: their exact sum is 1."""
        return 1

    @property
    def weights(self) -> Mapping[Any, Interval]:
        """Outcome -> :class:`Interval` containing its exact probability."""
        b = self._bits
        return MappingProxyType({k: Interval(self._lo[k], h, b) for k, h in self._hi.items()})

    def items(self) -> Iterable[tuple[Any, Interval]]:
        """(outcome, :class:`Interval`) pairs in outcome order."""
        b = self._bits
        lo = self._lo
        return [(k, Interval(lo[k], h, b)) for k, h in self._hi.items()]

    def outcomes(self) -> tuple[Any, ...]:
        return tuple(self._hi)

    def __len__(self) -> int:
        return len(self._hi)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._hi)

    def __contains__(self, x: object) -> bool:
        try:
            return x in self._hi
        except TypeError:
            return False

    def interval(self, x: Any) -> tuple[Fraction, Fraction]:
        """Exact rational bounds of the probability of ``x`` ((0, 0) if impossible)."""
        try:
            hi = self._hi.get(x, 0)
        except TypeError:
            hi = 0
        if not hi:
            return Fraction(0), Fraction(0)
        return _fraction(self._lo[x], self._bits), _fraction(hi, self._bits)

    def probability(self, x: Any) -> Any:
        """The ``arb`` ball containing the exact probability of ``x`` (exactly 0 if ``x``
        is impossible). O(1).

        >>> from chancekit.dice import d
        >>> ball = CertifiedDistribution.from_exact(d(3)).probability(1)
        >>> float(ball.lower()) <= 1 / 3 <= float(ball.upper()), float(ball.rad()) < 1e-30
        (True, True)
        """
        try:
            hi = self._hi.get(x, 0)
        except TypeError:
            hi = 0
        return _exact.ball(self._lo[x] if hi else 0, hi, self._bits)

    def _order(self, what: str) -> None:
        try:
            sorted(self._hi)
        except TypeError:
            raise InvalidTypeError(f"{what}: outcomes must be ordered") from None

    def _sum_where(self, keep: Callable[[Any], bool]) -> tuple[int, int]:
        lo = sum(v for k, v in self._lo.items() if keep(k))
        hi = sum(v for k, v in self._hi.items() if keep(k))
        return lo, min(hi, 1 << self._bits)

    def at_least(self, x: Any) -> Any:
        """Ball containing P(outcome >= x). O(m)."""
        self._order("at_least")
        return _exact.ball(*self._sum_where(lambda k: k >= x), self._bits)

    def at_most(self, x: Any) -> Any:
        """Ball containing P(outcome <= x). O(m)."""
        self._order("at_most")
        return _exact.ball(*self._sum_where(lambda k: k <= x), self._bits)

    def mean_bounds(self) -> tuple[Fraction, Fraction]:
        """Exact rational bounds of the mean (numeric outcomes): each outcome's term
        ``x * p`` bounded by its probability's ends. O(m)."""
        scale = 1 << self._bits
        if self._int:  # integer sums, one fraction at the end (500,001 outcomes: 0.1 s)
            los, his = self._lo, self._hi
            ilo = sum(k * (los[k] if k >= 0 else h) for k, h in his.items())
            ihi = sum(k * (h if k >= 0 else los[k]) for k, h in his.items())
            return Fraction(ilo, scale), Fraction(ihi, scale)
        # rational outcomes: integer sums per denominator (a Fraction per row made
        # 20000d6/7's 100,001 rows take seconds)
        by_den: dict[int, list[int]] = {}
        for k, h in self._hi.items():
            x = Fraction(k)
            a, b = x.numerator * self._lo[k], x.numerator * h
            acc = by_den.setdefault(x.denominator, [0, 0])
            acc[0] += min(a, b)
            acc[1] += max(a, b)
        lo = sum((Fraction(v[0], den) for den, v in by_den.items()), Fraction(0))
        hi = sum((Fraction(v[1], den) for den, v in by_den.items()), Fraction(0))
        return lo / scale, hi / scale

    def mean(self) -> Any:
        """Ball containing the exact mean.

        >>> from chancekit.dice import d
        >>> ball = CertifiedDistribution.from_exact(d(6)).mean()
        >>> float(ball.lower()) <= 3.5 <= float(ball.upper()), float(ball.rad()) < 1e-30
        (True, True)
        """
        lo, hi = self.mean_bounds()
        den = math.lcm(lo.denominator, hi.denominator)
        shift = den.bit_length() + self._bits
        return _exact.ball((lo.numerator * (den // lo.denominator) << shift) // den,
                           _ceil_div(hi.numerator * (den // hi.denominator) << shift, den),
                           shift)

    @property
    def max_error(self) -> float:
        """The largest radius of an outcome's interval around its midpoint (absolute, in
        probability), rounded up to a float: every exact probability is within it of
        the midpoint shown."""
        widest = max(h - self._lo[k] for k, h in self._hi.items())
        return _up(_fraction(widest, self._bits + 1))

    def midpoints(self) -> dict[Any, Fraction]:
        """Outcome -> the midpoint of its interval (exact rational)."""
        b = self._bits + 1
        return {k: _fraction(self._lo[k] + h, b) for k, h in self._hi.items()}

    def pmf(self) -> dict[Any, Interval]:
        """Outcome -> :class:`Interval` (as :attr:`weights`)."""
        return dict(self.weights)

    def contains(self, exact: Distribution) -> bool:
        """Whether ``exact`` has this support and every probability inside its interval."""
        if set(exact.outcomes()) != set(self._hi):
            return False
        t = exact.total
        scale = 1 << self._bits
        return all(self._lo[k] * t <= w * scale <= self._hi[k] * t for k, w in exact.items())

    def rows(self) -> list[tuple[Any, float, float, float]]:
        """(outcome, midpoint, lower, upper) as floats, for tables and charts (the
        floats are rounded; the bounds proven are :meth:`interval`'s)."""
        one, two = 1 << self._bits, 2 << self._bits
        lo = self._lo
        # (int / int is correctly rounded, and fast: no Fraction per row)
        return [(k, (lo[k] + h) / two, lo[k] / one, h / one) for k, h in self._hi.items()]

    def bounds(self) -> list[tuple[Any, float, float, float, float]]:
        """(outcome, midpoint, lower, upper, error) as floats whose bounds are proven too:
        ``lower`` rounded down and ``upper`` rounded up from the exact interval ends (so
        the exact probability lies in ``[lower, upper]`` as floats), ``error`` the
        interval's half-width rounded up, ``midpoint`` rounded to nearest. What ``--json``
        and the web send. O(m).

        >>> from chancekit.dice import d
        >>> (x, mid, lo, hi, err), *_ = CertifiedDistribution.from_exact(d(3)).bounds()
        >>> lo <= 1 / 3 <= hi and lo < hi and 0 < err < 1e-30
        True
        """
        one, two = 1 << self._bits, 2 << self._bits
        lo = self._lo
        return [(k, (lo[k] + h) / two, float_down(lo[k], one), float_up(h, one),
                 float_up(h - lo[k], two)) for k, h in self._hi.items()]

    def errors(self) -> dict[Any, float]:
        """Outcome -> the half-width of its interval (its error bound), as a float."""
        two = 2 << self._bits
        lo = self._lo
        return {k: (h - lo[k]) / two for k, h in self._hi.items()}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: ``{"certified": true, "max_error", "bits", "outcomes",
        "probabilities" (midpoints as floats), "lower", "upper"}``."""
        rows = self.rows()
        return {"certified": True, "exact": False, "max_error": self.max_error,
                "bits": self._bits, "outcomes": [r[0] for r in rows],
                "probabilities": [r[1] for r in rows], "lower": [r[2] for r in rows],
                "upper": [r[3] for r in rows]}

    def __repr__(self) -> str:
        shown = []
        for i, (k, iv) in enumerate(self.items()):
            if i == 8:
                shown.append("...")
                break
            shown.append(f"{k!r}: {float(iv.midpoint):.12g}")
        return (f"CertifiedDistribution({{{', '.join(shown)}}}, {len(self)} outcomes, "
                f"certified to ± {self.max_error:.2g})")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        """Structural: the same outcomes with the same bounds at the same precision (two
        certified answers of one exact value may differ: compare with :meth:`contains`
        or the intervals instead). O(m)."""
        if not isinstance(other, CertifiedDistribution):
            return NotImplemented
        return (self._bits == other._bits and self._hi == other._hi
                and self._lo == other._lo)

    def __hash__(self) -> int:
        return hash((CertifiedDistribution, self._bits, tuple(self._hi.items()),
                     tuple(self._lo.values())))

    def __bool__(self) -> bool:
        raise TypeError("a CertifiedDistribution has no truth value")

    # -- operations -------------------------------------------------------------------

    def _bits_with(self, other: CertifiedDistribution) -> tuple[CertifiedDistribution,
                                                                CertifiedDistribution]:
        b = max(self._bits, other._bits)
        return self._at(b), other._at(b)

    def map(self, f: Callable[[Any], Any]) -> CertifiedDistribution:
        """Apply ``f`` to every outcome, merging equal results (their bounds added)."""
        limits.charge(len(self) * ENTRY_WORK, "mapping certified outcomes")
        lo: dict[Any, int] = {}
        hi: dict[Any, int] = {}
        for k, h in self._hi.items():
            r = f(k)
            if isinstance(r, Distribution | CertifiedDistribution):
                raise InvalidTypeError("map result", r, "a plain outcome (certified map)")
            try:
                lo[r] = lo.get(r, 0) + self._lo[k]
            except TypeError:
                raise InvalidTypeError("map result", r, "a hashable value") from None
            hi[r] = hi.get(r, 0) + h
        return CertifiedDistribution._make(lo, hi, self._bits)

    def __neg__(self) -> CertifiedDistribution:
        return self.map(operator.neg)

    def __pos__(self) -> CertifiedDistribution:
        return self

    def __abs__(self) -> CertifiedDistribution:
        return self.map(abs)

    def _coerce(self, other: Any) -> CertifiedDistribution | None:
        if isinstance(other, CertifiedDistribution):
            return other
        if isinstance(other, Distribution):
            return CertifiedDistribution.from_exact(other, self._bits)
        return None

    def _combine(self, other: Any, op: Callable[[Any, Any], Any], name: str,
                 swap: bool = False) -> CertifiedDistribution:
        """``op`` over independent draws of both (a plain value: one map)."""
        o = self._coerce(other)
        if o is None:
            if isinstance(other, int | Fraction | float):
                try:
                    return self.map((lambda x: op(other, x)) if swap else (lambda x: op(x, other)))
                except ZeroDivisionError:
                    raise InvalidValueError(f"{name}: division by zero") from None
            return NotImplemented  # type: ignore[return-value]
        a, b = self._bits_with(o)
        if swap:
            a, b = b, a
        if name in ("+", "-") and a._int and b._int and _dense(a) and _dense(b):
            return _poly_add(a, b if name == "+" else -b)
        pairs = len(a) * len(b)
        if pairs > limits.MAX_PAIRS:
            raise LimitError(f"{name} would visit {pairs} outcome pairs, more than MAX_PAIRS "
                             f"= {limits.MAX_PAIRS}; reduce the outcomes first",
                             limit="MAX_PAIRS", value=pairs)
        limits.charge(pairs * PAIR_WORK * (1 + a._bits // 256),
                      f"combining two certified distributions with {name}")
        lo: dict[Any, int] = {}
        hi: dict[Any, int] = {}
        blo, bhi = b._lo, b._hi
        try:
            for x, hx in a._hi.items():
                lx = a._lo[x]
                for y, hy in bhi.items():
                    r = op(x, y)
                    lo[r] = lo.get(r, 0) + lx * blo[y]
                    hi[r] = hi.get(r, 0) + hx * hy
        except ZeroDivisionError:
            raise InvalidValueError(f"{name}: division by zero (the divisor can be 0)") from None
        except TypeError as e:
            raise InvalidTypeError(f"{name}: {e}") from None
        s = a._bits
        one = 1 << s
        return CertifiedDistribution._make({k: v >> s for k, v in lo.items()},
                                           {k: _ceil_div(v, one) for k, v in hi.items()}, s)

    def __add__(self, other: Any) -> CertifiedDistribution:
        return self._combine(other, operator.add, "+")

    def __radd__(self, other: Any) -> CertifiedDistribution:
        return self._combine(other, operator.add, "+", swap=True)

    def __sub__(self, other: Any) -> CertifiedDistribution:
        return self._combine(other, operator.sub, "-")

    def __rsub__(self, other: Any) -> CertifiedDistribution:
        return self._combine(other, operator.sub, "-", swap=True)

    def __mul__(self, other: Any) -> CertifiedDistribution:
        return self._combine(other, operator.mul, "*")

    def __rmul__(self, other: Any) -> CertifiedDistribution:
        return self._combine(other, operator.mul, "*", swap=True)

    def max(self, other: Any) -> CertifiedDistribution:
        """max(self, other) over independent draws."""
        return self._combine(other, max, "max")

    def min(self, other: Any) -> CertifiedDistribution:
        """min(self, other) over independent draws."""
        return self._combine(other, min, "min")

    def __rmatmul__(self, n: Any) -> CertifiedDistribution:
        """``n @ c``: the sum of ``n`` independent copies (as :meth:`repeat_sum`)."""
        if isinstance(n, bool) or not isinstance(n, int):
            return NotImplemented
        return self.repeat_sum(n)

    def repeat_sum(self, n: int) -> CertifiedDistribution:
        """The sum of ``n`` independent copies: integer outcomes by repeated squaring of
        the lower and upper polynomials (each square rounded outward), others pairwise.

        >>> from chancekit.dice import d
        >>> CertifiedDistribution.from_exact(d(6)).repeat_sum(10).contains(10 @ d(6))
        True
        """
        if not isinstance(n, int) or n < 0:
            raise InvalidValueError("n (number of dice)", n, "an integer >= 0")
        if n > limits.MAX_DICE:
            raise LimitError(f"summing {n} dice exceeds MAX_DICE = {limits.MAX_DICE}",
                             limit="MAX_DICE", value=n)
        if n == 0:
            return CertifiedDistribution._make({0: 1 << self._bits}, {0: 1 << self._bits},
                                               self._bits)
        if self._int:
            lo, hi = min(self._hi), max(self._hi)
            span = n * (hi - lo) + 1
            if span > limits.MAX_OUTCOMES:
                raise LimitError(f"{n} dice with outcomes {lo}..{hi} would give {span} "
                                 f"outcomes, past MAX_OUTCOMES = {limits.MAX_OUTCOMES}",
                                 limit="MAX_OUTCOMES", value=span)
            if _dense(self):
                return _poly_power(self, n)
        result: CertifiedDistribution | None = None
        base = self
        k = n
        while k:
            if k & 1:
                result = base if result is None else result + base
            k >>= 1
            if k:
                base = base + base
        assert result is not None
        return result

    @classmethod
    def mixture(cls, parts: list[Any], weights: list[Any]) -> CertifiedDistribution:
        """Choose part ``i`` with probability proportional to ``weights[i]`` (ints or
        :class:`Interval`), then draw from it; parts are exact or certified. The exact
        result lies between the lower ends over the upper total and the upper ends over
        the lower total. Refused with :class:`PrecisionLost` if the total's lower bound
        reaches 0."""
        if not parts or len(parts) != len(weights):
            raise InvalidValueError("parts", parts, "one weight per part")
        bits = max([_BITS.get()] + [p._bits for p in parts if isinstance(p, cls)]
                   + [w.bits for w in weights if isinstance(w, Interval)])
        one = 1 << bits
        entries = sum(len(p) for p in parts)
        limits.charge(entries * ENTRY_WORK * (1 + bits // 256) + len(parts) * ENTRY_WORK,
                      "mixing certified distributions")
        wl, wh = [], []
        for w in weights:
            if isinstance(w, Interval):
                w = Interval(w.lo, w.hi, w.bits)._align(Interval(0, 0, bits))[0]
                wl.append(w.lo)
                wh.append(w.hi)
            elif isinstance(w, int) and w >= 0:
                wl.append(w << bits)
                wh.append(w << bits)
            else:
                raise InvalidValueError("weights", w, "non-negative integers or Intervals")
        total_lo, total_hi = sum(wl), sum(wh)
        if total_lo == 0:
            raise PrecisionLost(f"the certified mass to renormalise by is not provably "
                                f"positive at {bits} bits", limit="MAX_CERTIFIED_BITS",
                                value=bits)
        lo: dict[Any, int] = {}
        hi: dict[Any, int] = {}
        for p, a, b in zip(parts, wl, wh, strict=True):
            if not b:
                continue
            c = p if isinstance(p, cls) else cls.from_exact(p, bits)
            c = c._at(bits)
            ql = (a << bits) // total_hi  # this part's share, rounded down / up
            qh = min(_ceil_div(b << bits, total_lo), one)
            for x, h in c._hi.items():
                lo[x] = lo.get(x, 0) + ql * c._lo[x]
                hi[x] = hi.get(x, 0) + qh * h
        return cls._make({k: v >> bits for k, v in lo.items()},
                         {k: _ceil_div(v, one) for k, v in hi.items()}, bits)

    def extreme(self, n: int, highest: bool = True) -> CertifiedDistribution:
        """The highest (or lowest) of ``n`` independent copies, from the cumulative
        bounds raised to the n-th power (rounded outward at every squaring): O(m log n).

        >>> from chancekit.dice import d
        >>> CertifiedDistribution.from_exact(d(6)).extreme(2).contains(d(6).max(d(6)))
        True
        """
        if not isinstance(n, int) or n < 1:
            raise InvalidValueError("n", n, "an integer >= 1")
        self._order("extreme")
        keys = sorted(self._hi) if highest else sorted(self._hi, reverse=True)
        s = self._bits
        one = 1 << s
        limits.charge(len(keys) * ENTRY_WORK * (2 + 2 * n.bit_length()),
                      f"the {'highest' if highest else 'lowest'} of {n} certified dice")
        # F(x) = P(one die is at or below x) (from the other end for the lowest)
        flo, fhi, acc_lo, acc_hi = [], [], 0, 0
        for k in keys:
            acc_lo += self._lo[k]
            acc_hi += self._hi[k]
            flo.append(acc_lo)
            fhi.append(min(acc_hi, one))
        flo[-1] = fhi[-1] = one  # the last cumulative is exactly 1
        glo = [_pow_down(v, n, s) for v in flo]
        ghi = [_pow_up(v, n, s) for v in fhi]
        lo, hi = {}, {}
        for i, k in enumerate(keys):
            plo = glo[i] - (ghi[i - 1] if i else 0)
            phi = ghi[i] - (glo[i - 1] if i else 0)
            lo[k] = max(plo, 0)
            hi[k] = max(phi, 1)  # possible: positive
        return CertifiedDistribution._make(lo, hi, s)

    def order_statistic(self, n: int, rank: int) -> CertifiedDistribution:
        """The die at ``rank`` (1 = the highest) of ``n`` independent copies. The
        cumulative of that die at ``x`` is ``G(F(x))``, the chance that at least
        ``n - rank + 1`` copies are at most ``x``: a sum of binomial terms, increasing
        in ``F``, so ``G`` of the lower and upper cumulative bounds (computed exactly in
        integers, then rounded outward) bound it. O(m n) products of up to n x bits
        bits; refused past 1000 copies (the highest and lowest have :meth:`extreme`).

        >>> from collections import Counter
        >>> from itertools import product
        >>> from chancekit.dice import d
        >>> c = CertifiedDistribution.from_exact(d(6)).order_statistic(3, 2)
        >>> c.contains(Distribution(Counter(sorted(r)[1] for r in product(range(1, 7), repeat=3))))
        True
        """
        if not isinstance(n, int) or not isinstance(rank, int) or not 1 <= rank <= n:
            raise InvalidValueError("rank", rank, f"an integer from 1 to {n}")
        if rank == 1 or rank == n:
            return self.extreme(n, highest=rank == 1)
        if n > 1000:
            raise no_path(f"the die at position {rank} of {n} dice (at most 1000 dice)")
        self._order("order_statistic")
        s = self._bits
        one = 1 << s
        limits.charge(len(self) * n * (ENTRY_WORK + n * s // 512),
                      f"the die at position {rank} of {n} certified dice")
        need = n - rank + 1  # copies at or below x
        coef = [math.comb(n, j) for j in range(n + 1)]
        scale = one ** n

        def g(f: int) -> int:  # scale x P(at least `need` of n copies at or below x)
            return sum(coef[j] * f**j * (one - f) ** (n - j) for j in range(need, n + 1))

        keys = sorted(self._hi)
        acc_lo = acc_hi = 0
        glo, ghi = [], []
        for k in keys:
            acc_lo += self._lo[k]
            acc_hi += self._hi[k]
            glo.append(g(min(acc_lo, one)) >> (s * (n - 1)))
            ghi.append(_ceil_div(g(min(acc_hi, one)), scale // one))
        glo[-1] = ghi[-1] = one
        lo, hi = {}, {}
        for i, k in enumerate(keys):
            lo[k] = max(glo[i] - (ghi[i - 1] if i else 0), 0)
            hi[k] = max(ghi[i] - (glo[i - 1] if i else 0), 1)
        return CertifiedDistribution._make(lo, hi, s)

    def select(self, n: int, ranks: Mapping[int, int]) -> CertifiedDistribution:
        """The sum of the dice at ``ranks`` (rank -> how many times it counts; 1 = the
        highest) of ``n`` independent copies: several positions at once (AnyDice's
        ``{1,2}@5dX``, the highest or lowest k of n). A walk over the outcomes from the
        highest (from the lowest, on the negated die, when the ranks lie nearer that
        end), the state being (dice placed so far ``c``, the sum of the ranks they took):
        ``t`` of the ``n - c`` dice left show the face with weight ``C(n - c, t) p^t``;
        once every counted rank ``R`` is placed the state is done, and all the ways to get
        there from ``c`` at this face weigh the tail
        ``sum_{t >= R - c} C(n - c, t) p^t P(below)^(n - c - t)``, computed once per
        ``c``. Every term is a product of non-negative numbers, so the walk on the lower
        ends rounded down and on the upper ends rounded up bounds the exact one; the
        powers are kept to ``bits + n + 2 log2(n) + 16`` bits (rounded the same way), so
        that ``C(n - c, t)`` (below ``2^n``) cannot lift their rounding past ``2^-bits``.
        O(m x (S x R^2 + R x n)) products (R the deepest counted rank from the nearer
        end, S the sums the counted ranks make), priced before it starts.

        >>> from collections import Counter
        >>> from itertools import product
        >>> from chancekit.dice import d
        >>> c = CertifiedDistribution.from_exact(d(6)).select(4, {1: 1, 2: 1})
        >>> rolls = product(range(1, 7), repeat=4)
        >>> c.contains(Distribution(Counter(sum(sorted(r)[-2:]) for r in rolls)))
        True
        """
        if not isinstance(n, int) or n < 1:
            raise InvalidValueError("n", n, "an integer >= 1")
        ranks = {r: m for r, m in dict(ranks).items() if m}
        if not ranks or not all(isinstance(r, int) and 1 <= r <= n and isinstance(m, int)
                                for r, m in ranks.items()):
            raise InvalidValueError("ranks", ranks, f"ranks from 1 to {n} with counts")
        if not self._int:
            raise InvalidTypeError("select: outcomes", self.outcomes(), "integers")
        deepest = max(ranks)
        if deepest - 1 > n - min(ranks):  # nearer the lowest end: walk from there
            flipped = {n + 1 - r: m for r, m in ranks.items()}
            return (-self).select(n, flipped).map(operator.neg)
        weight = [0] * (n + 1)  # weight[c] = the counts of ranks 1..c
        for r in range(1, n + 1):
            weight[r] = weight[r - 1] + ranks.get(r, 0)
        keys = sorted(self._hi, reverse=True)
        width = keys[0] - keys[-1]
        s = self._bits
        g = s + n + 2 * n.bit_length() + 16  # bits of the powers
        # per face: the live states' moves (states with c placed: at most the sums of
        # their counted ranks, weight[c] x width + 1; each moves fewer than deepest - c
        # ways), about 60 units each (Python); the tails (deepest x (n + 1) terms) and
        # the powers (4 n), each a product of integers of about 2g bits (Karatsuba:
        # words^1.585). Calibrated: 40d6 top 20, 0.027 s (priced 0.055 s); 100d6 top 50,
        # 0.37 s (0.78 s); 30d20 top 15, 0.19 s; 100d20 top 50, 9.9 s (9.5 s); 300d6 top
        # 150, 13.9 s (20 s); {1,2} of 1000 d6, 0.23-0.31 s (0.45 s); top 10 of 1000 d6,
        # 1.1 s (1.1 s)
        moves = sum((abs(weight[c]) * width + 1) * (deepest - c) for c in range(deepest))
        words = 2 * g // 64 + 1
        work = len(keys) * (moves * (60 + int(0.02 * (g // 64 + 1) ** 1.585))
                            + (deepest * (n + 1) + 4 * n) * (20 + 2 * int(words**1.585)))
        what = f"dice at {len(ranks)} positions of {n} certified dice"
        limits.refuse_past_budget(work, what, "use fewer dice, or fewer positions")
        limits.charge(work, what)
        one = 1 << s
        gone = 1 << g
        total_w = weight[deepest]
        # the weight below each face: the sum of the bounds of the faces under it
        below_lo, below_hi = [], []
        acc_lo = acc_hi = 0
        for k in reversed(keys):
            below_lo.append(acc_lo)
            below_hi.append(min(acc_hi, one))
            acc_lo += self._lo[k]
            acc_hi += self._hi[k]
        below_lo.reverse()
        below_hi.reverse()

        def powers(base: int, upward: bool) -> list[int]:  # base**t at g bits, rounded
            b = base << (g - s)
            out = [gone]
            for _ in range(n):
                x = out[-1] * b
                out.append(_ceil_div(x, gone) if upward else x >> g)
            return out

        # live states (c < deepest): (c, sum) -> [lo, hi] at `one`
        live: dict[tuple[int, int], list[int]] = {(0, 0): [one, one]}
        done_lo: dict[int, int] = {}
        done_hi: dict[int, int] = {}
        for i, f in enumerate(keys):
            last = i == len(keys) - 1
            p_lo, p_hi = powers(self._lo[f], False), powers(self._hi[f], True)
            b_lo, b_hi = powers(below_lo[i], False), powers(below_hi[i], True)
            tails: dict[int, tuple[int, int]] = {}
            for c in {c for c, _ in live}:
                left = n - c
                tl = th = 0
                for t in range(deepest - c, left + 1):
                    cnt = math.comb(left, t)
                    tl += cnt * p_lo[t] * b_lo[left - t]
                    th += cnt * p_hi[t] * b_hi[left - t]
                tails[c] = (tl >> g, _ceil_div(th, gone))  # at g bits
            nxt: dict[tuple[int, int], list[int]] = {}
            for (c, total), (ml, mh) in live.items():
                tl, th = tails[c]
                if th:  # done here: every counted rank placed at this face or above
                    got = total + f * (total_w - weight[c])
                    done_lo[got] = done_lo.get(got, 0) + ((ml * tl) >> g)
                    done_hi[got] = done_hi.get(got, 0) + _ceil_div(mh * th, gone)
                if last:
                    continue  # (dice left unplaced below the lowest face: impossible)
                left = n - c
                for t in range(min(deepest - c, left + 1)):
                    cnt = math.comb(left, t)
                    vh = _ceil_div(mh * cnt * p_hi[t], gone)
                    if not vh:
                        continue
                    slot = nxt.setdefault((c + t, total + f * (weight[c + t] - weight[c])),
                                          [0, 0])
                    slot[0] += (ml * cnt * p_lo[t]) >> g
                    slot[1] += vh
            live = nxt
        return CertifiedDistribution._make(done_lo, {k: max(v, 1) for k, v in done_hi.items()},
                                           s)

    def explode(self, on: Iterable[Any] | None = None, *,
                depth: int = 20) -> CertifiedDistribution:
        """The die where a face in ``on`` (default: the highest) adds another roll, for
        at most ``depth`` extra rolls, the last kept as rolled (as
        :meth:`Distribution.explode`): ``E_0`` = the die, ``E_k`` = the faces that stay
        plus the exploding faces added to ``E_{k-1}``; sums of products of non-negative
        numbers, so bounded by the walk on the lower and the upper ends (rounded once per
        outcome and level). O(depth x |on| x outcomes), priced first.

        >>> from chancekit.dice import d
        >>> CertifiedDistribution.from_exact(d(6)).explode(depth=3).contains(d(6).explode(depth=3))
        True
        """
        if not isinstance(depth, int) or depth < 0:
            raise InvalidValueError("depth", depth, "an integer >= 0")
        self._order("explode")
        fire = {max(self._hi)} if on is None else set(on) & set(self._hi)
        if not fire or depth == 0:
            return self
        if len(fire) == len(self._hi):
            raise no_path("exploding a certified die on every face")
        # level k adds |fire| x (outcomes so far, at most (k + 1) x m) products
        limits.charge(len(fire) * len(self) * (depth + 1) * (depth + 2) // 2 * PAIR_WORK
                      * (1 + self._bits // 256), "exploding a certified die")
        s = self._bits
        stay = [k for k in self._hi if k not in fire]
        cur_lo, cur_hi = dict(self._lo), dict(self._hi)
        for _ in range(depth):
            lo: dict[Any, int] = {k: self._lo[k] << s for k in stay}
            hi: dict[Any, int] = {k: self._hi[k] << s for k in stay}
            for y in fire:
                yl, yh = self._lo[y], self._hi[y]
                for x, h in cur_hi.items():
                    z = x + y
                    lo[z] = lo.get(z, 0) + yl * cur_lo[x]
                    hi[z] = hi.get(z, 0) + yh * h
            if len(hi) > limits.MAX_OUTCOMES:
                raise LimitError(f"exploding this certified die {depth} times would pass "
                                 f"MAX_OUTCOMES = {limits.MAX_OUTCOMES}",
                                 limit="MAX_OUTCOMES", value=len(hi))
            cur_lo = {k: v >> s for k, v in lo.items()}
            cur_hi = {k: max(_ceil_div(v, 1 << s), 1) for k, v in hi.items()}
        return CertifiedDistribution._make(cur_lo, cur_hi, s)


def no_path(what: str) -> LimitError:
    """The refusal of an operation that has no certified path."""
    return LimitError(f"{what} has no certified path (only sums, differences, products, "
                      "comparisons, maps, mixtures, dice by position of one kind of die "
                      "and explosions do); it needs exact weights that are too large here",
                      limit="certified path", value=what)


def _pow_down(v: int, n: int, s: int) -> int:
    """(v / 2**s) ** n rounded down, in units of 2**-s (each squaring floored)."""
    out, base = 1 << s, v
    while n:
        if n & 1:
            out = (out * base) >> s
        n >>= 1
        if n:
            base = (base * base) >> s
    return out


def _pow_up(v: int, n: int, s: int) -> int:
    one = 1 << s
    out, base = one, v
    while n:
        if n & 1:
            out = min(_ceil_div(out * base, one), one)
        n >>= 1
        if n:
            base = min(_ceil_div(base * base, one), one)
    return out


def _product_work(len_a: int, len_b: int, bits: int) -> int:
    """Work units of one ``fmpz_poly`` product of ``len_a`` by ``len_b`` coefficients of
    ``bits`` bits kept inside python-flint (floored or ceiled there: no coefficient is
    converted to a Python int, unlike :func:`chancekit.limits.mul_work`'s products): the
    FFT product, about 0.1 ns a bit, and a few units a coefficient."""
    return (len_a + len_b) * (bits // 6 + limits.ENTRY_WORK)


def _dense(c: CertifiedDistribution) -> bool:
    keys = c._hi
    return max(keys) - min(keys) + 1 <= 4 * len(keys) + 64


def _poly_add(a: CertifiedDistribution, b: CertifiedDistribution) -> CertifiedDistribution:
    """The sum of two dense integer certified distributions: two ``fmpz_poly`` products
    (lower ends, upper ends), floored and ceiled back to ``bits``. The support is where
    the upper product is positive (every possible outcome has a positive upper end)."""
    s = a._bits
    alo, ahi = min(a._hi), max(a._hi)
    blo, bhi = min(b._hi), max(b._hi)
    la, lb = ahi - alo + 1, bhi - blo + 1
    limits.charge(2 * _product_work(la, lb, 2 * s + (la + lb).bit_length())
                  + (la + lb) * (s // 32 + ENTRY_WORK), "adding certified distributions")
    P = _exact.fmpz_poly

    def poly(c: CertifiedDistribution, d: dict[Any, int], lo: int, n: int) -> Any:
        coeffs = [0] * n
        for x, v in d.items():
            coeffs[x - lo] = v
        return P(coeffs)

    low = poly(a, a._lo, alo, la) * poly(b, b._lo, blo, lb)
    high = poly(a, a._hi, alo, la) * poly(b, b._hi, blo, lb)
    one = 1 << s
    hs = high.coeffs()
    ls = low.coeffs()
    lo: dict[Any, int] = {}
    hi: dict[Any, int] = {}
    off = alo + blo
    for i, h in enumerate(hs):
        if h:
            h = int(h)
            hi[off + i] = _ceil_div(h, one)
            lo[off + i] = (int(ls[i]) >> s) if i < len(ls) else 0
    return CertifiedDistribution._make(lo, hi, s)


def _poly_power(c: CertifiedDistribution, n: int) -> CertifiedDistribution:
    """``n`` copies of a dense integer certified distribution summed: the lower and
    upper polynomials raised by repeated squaring, each product floored (lower) or
    ceiled (upper) back to ``bits`` inside python-flint. The squares double in length,
    so their work adds up to about twice the last one's, and the products by the base
    as much again: priced as 4 products of two half-length polynomials, for the lower
    and for the upper ends (8 in all), plus the conversions (calibrated: 20000d6, 0.85 s
    CPU on the loaded machine, priced 42 M units)."""
    s = c._bits
    lo0, hi0 = min(c._hi), max(c._hi)
    width = hi0 - lo0
    span = n * width + 1
    limits.charge(8 * _product_work(span // 2 + 1, span // 2 + 1, 2 * s + span.bit_length())
                  + span * (s // 16 + 2 * ENTRY_WORK), f"summing {n} certified dice")
    P = _exact.fmpz_poly
    one = _exact.fmpz(1 << s)
    low = [0] * (width + 1)
    high = [0] * (width + 1)
    for x, v in c._hi.items():
        high[x - lo0] = v
        low[x - lo0] = c._lo[x]
    bl, bh = P(low), P(high)
    # (python-flint's fmpz_poly // scalar floors non-negative coefficients, not negative
    # ones, so the ceiling adds one - 1 to every coefficient, then floors: 0 stays 0)
    below = P([int(one) - 1] * span)

    def up(p: Any) -> Any:  # every coefficient divided by one, rounded up
        return (p + below) // one

    rl = rh = None
    k = n
    while k:
        if k & 1:
            if rl is None:
                rl, rh = bl, bh
            else:
                rl = (rl * bl) // one
                rh = up(rh * bh)
        k >>= 1
        if k:
            bl = (bl * bl) // one
            bh = up(bh * bh)
    assert rl is not None and rh is not None
    hs, ls = rh.coeffs(), rl.coeffs()
    off = lo0 * n
    lo: dict[Any, int] = {}
    hi: dict[Any, int] = {}
    for i, h in enumerate(hs):
        if h:
            hi[off + i] = int(h)
            lo[off + i] = int(ls[i]) if i < len(ls) else 0
    return CertifiedDistribution._make(lo, hi, s)


def certify(value: Any, bits: int | None = None) -> CertifiedDistribution:
    """``value`` as a certified distribution (an exact one rounded, a certified one as
    it is)."""
    if isinstance(value, CertifiedDistribution):
        return value
    return CertifiedDistribution.from_exact(value, bits)


#: in a certified run, exact weights wider than this many bits are rounded to intervals
#: before the next operation on them (below it exact arithmetic is cheap, and results
#: stay exact)
CERTIFY_FROM_BITS = 1024

_MODE: contextvars.ContextVar[int | None] = contextvars.ContextVar("chancekit_certified_mode",
                                                                 default=None)


class mode:
    """Context manager: inside it, a language run (AnyDice) rounds exact weights past
    ``from_bits`` bits to certified intervals instead of carrying them exactly (what
    ``approx=True`` turns on, after the exact run was refused).

    >>> with mode(from_bits=64):
    ...     threshold()
    64
    >>> threshold() is None
    True
    """

    __slots__ = ("from_bits", "token")

    def __init__(self, from_bits: int = CERTIFY_FROM_BITS) -> None:
        self.from_bits = from_bits
        self.token: contextvars.Token[int | None] | None = None

    def __enter__(self) -> mode:
        self.token = _MODE.set(self.from_bits)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.token is not None
        _MODE.reset(self.token)


def threshold() -> int | None:
    """The bits past which exact weights are certified instead (None: exact only)."""
    return _MODE.get()


def wide(value: Any) -> bool:
    """In a certified run: whether ``value`` is certified, or exact with weights past the
    threshold (so the next operation on it goes the certified way). Always False
    outside one."""
    t = _MODE.get()
    if t is None:
        return False
    if isinstance(value, CertifiedDistribution):
        return True
    return isinstance(value, Distribution) and value.total.bit_length() > t


#: the precisions a certified run tries, in order, until the asked error bound holds
PRECISIONS = (DEFAULT_BITS, 512, limits.MAX_CERTIFIED_BITS)
