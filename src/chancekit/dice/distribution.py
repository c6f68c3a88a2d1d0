"""Exact discrete distributions of dice outcomes.

A :class:`Distribution` is an immutable, hashable map from outcomes to positive integer
weights, reduced so that the weights are coprime: two distributions with the same
probabilities are equal objects (``==`` is structural and gives a plain ``bool``). Outcomes
are numbers, or any hashable label where arithmetic is not needed.

Contents: :class:`Distribution` (build, combine, read), :func:`d`, :func:`fudge`,
:func:`faces`, :func:`constant`, and the limits :data:`MAX_DICE`, :data:`MAX_OUTCOMES`,
:data:`MAX_WEIGHT_BITS`, :data:`MAX_PAIRS`, :data:`MAX_EXPLODE_DEPTH`,
:data:`MAX_FRACTION_WORK` (defined in :mod:`chancekit.limits`, listed in docs/limits.md).

Sums of integer outcomes are computed as polynomial products with python-flint's
``fmpz_poly`` (the weight of outcome ``x`` is the coefficient of ``z**x``), so ``1000 @ d(6)``
takes a few milliseconds and nothing recurses per die; small powers (``3 @ d(6)``) are one
Python integer power instead, the same polynomial packed into one integer.

>>> from chancekit.dice import d
>>> three_d6 = 3 @ d(6)
>>> three_d6.probability(10)
Fraction(1, 8)
>>> (d(20) + 5 >= 15).probability(1)
Fraction(11, 20)
"""

from __future__ import annotations

import contextvars
import itertools
import math
import numbers
import operator
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from chancekit import _exact as flint
from chancekit import _intpoly, limits
from chancekit._html import label as _label
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, quote
from chancekit.limits import (
    FRACTION_MAP_WORK,
    FRACTION_PAIR_WORK,
    MAP_CALL_WORK,
    MAP_WORK,
    MAX_DICE,
    MAX_EXPLODE_DEPTH,
    MAX_FRACTION_WORK,
    MAX_OUTCOMES,
    MAX_PAIRS,
    MAX_SIDES,
    MAX_WEIGHT_BITS,
    MAX_WORK,
    PAIR_WORK,
    SHIFT_WORK,
    WIDE_PAIR_WORK,
    mul_work,
    power_work,
)

__all__ = [
    "MAX_DICE",
    "MAX_EXPLODE_DEPTH",
    "MAX_FRACTION_WORK",
    "MAX_OUTCOMES",
    "MAX_PAIRS",
    "MAX_WEIGHT_BITS",
    "Distribution",
    "ExactFraction",
    "constant",
    "d",
    "faces",
    "fudge",
]

#: work units per outcome that the caller will spend on the result of the sum of dice it
#: is computing (a map after it: ``-9d730e>4``), set by notation around one pool; the
#: power in :meth:`Distribution.repeat_sum` then looks ahead at it before it starts
THEN_PER_OUTCOME: contextvars.ContextVar[int] = contextvars.ContextVar(
    "chancekit_then_per_outcome", default=0)

#: the default ``depth`` of :meth:`Distribution.explode` and of notation's ``!``/``e`` (one
#: default for both: extra rolls per die past which an exploding face adds nothing more)
EXPLODE_DEPTH = 20

Outcome = Hashable

#: digits of numerator plus denominator past which an ExactFraction prints its bounded form
#: (Python refuses ``str()`` of an int past 4300 digits: sys.get_int_max_str_digits())
PRINT_DIGITS = 4000


class ExactFraction(Fraction):
    """A :class:`~fractions.Fraction` that can always be printed: what :meth:`Distribution.mean`,
    :meth:`~Distribution.variance`, :meth:`~Distribution.probability`,
    :meth:`~Distribution.at_least` and :meth:`~Distribution.at_most` return.

    It is the exact value (``==``, arithmetic, ``.numerator`` and ``.denominator`` are a
    Fraction's; arithmetic gives plain Fractions). ``str()`` and ``repr()`` are a
    Fraction's while the numerator and denominator have at most :data:`PRINT_DIGITS`
    digits together; past that (Python refuses ``str()`` of an int of more than 4300
    digits) they print a bounded form: the value to 16 significant digits, marked ``~``,
    and the sizes of the exact numbers (docs/limits.md, "Printing huge values"). O(1) to
    print the bounded form.

    >>> from chancekit.dice import dist
    >>> dist("3d6").mean()
    Fraction(21, 2)
    >>> print(ExactFraction(10**5000 + 1, 3 * 10**4999))
    ~3.333333333333333 (exact: a 5001-digit numerator over a 5000-digit denominator)
    """

    __slots__ = ()

    def _huge(self) -> bool:
        # digits ~ bits x log10(2): checked from the bit lengths, never by building text
        return (self.numerator.bit_length() + self.denominator.bit_length()) * 0.30103 \
            > PRINT_DIGITS

    def _bounded(self) -> str:
        n, m = abs(self.numerator), self.denominator
        if not n:
            return "0"
        # log10(n / m) from the top 64 bits of each: the exponent, give or take one
        sn, sm = max(0, n.bit_length() - 64), max(0, m.bit_length() - 64)
        lg = math.log10(n >> sn) - math.log10(m >> sm) + (sn - sm) * math.log10(2)
        k = 18 - math.floor(lg)  # n * 10**k // m has 18 or 19 digits: exact integers
        q = n * 10**k // m if k >= 0 else n // (m * 10**-k)
        text = str(q)
        e = len(text) - 1 - k
        r = (q + 5 * 10 ** (len(text) - 17)) // 10 ** (len(text) - 16)  # 16 digits
        digits = str(r)
        if len(digits) > 16:
            digits, e = digits[:16], e + 1
        mant = digits[0] + ("." + digits[1:].rstrip("0") if digits[1:].rstrip("0") else "")
        sign = "-" if self.numerator < 0 else ""
        value = f"{sign}{mant}" + (f"e{e:+d}" if e else "")
        return (f"~{value} (exact: a {_digits(n)}-digit numerator over a "
                f"{_digits(m)}-digit denominator)")

    def __str__(self) -> str:
        return self._bounded() if self._huge() else Fraction.__str__(self)

    def __repr__(self) -> str:
        if self._huge():
            return f"ExactFraction({self._bounded()})"
        return f"Fraction({self.numerator}, {self.denominator})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ExactFraction, (self.numerator, self.denominator))


def _digits(n: int) -> int:
    """The number of decimal digits of ``n > 0`` (exact, without building its text)."""
    guess = max(1, int(n.bit_length() * 0.30102999566398))
    # 10**(guess - 1) <= n < 10**(guess + 1): one comparison settles it
    return guess + 1 if n >= 10**guess else guess


def _exact(n: int, m: int) -> ExactFraction:
    """``n / m`` reduced, as an :class:`ExactFraction` (flint's gcd for big numbers)."""
    if max(n.bit_length(), m.bit_length()) < 4000:
        return ExactFraction(n, m)
    g = _big_gcd(abs(n), m) if n else m
    n, m = n // g, m // g
    make = getattr(ExactFraction, "_from_coprime_ints", None)  # Python 3.12+
    if make is not None:
        return make(n, m)  # type: ignore[no-any-return]
    try:
        return ExactFraction(n, m, _normalize=False)  # type: ignore[call-arg]  # 3.11
    except TypeError:  # pragma: no cover - neither: normalise (correct, slower)
        return ExactFraction(n, m)


def _is_int(x: object) -> bool:
    return type(x) is int or isinstance(x, numbers.Integral)


def _exact_weight(outcome: object, w: object) -> Fraction | int:
    if isinstance(w, bool):
        return int(w)
    if isinstance(w, numbers.Integral):
        return int(w)
    if isinstance(w, Fraction):
        return w
    if isinstance(w, numbers.Rational):
        return Fraction(int(w.numerator), int(w.denominator))
    if isinstance(w, float):
        if not math.isfinite(w):
            raise InvalidValueError(f"weight of {outcome!r}", w, "a finite number >= 0")
        return Fraction(w)
    raise InvalidTypeError(f"weight of {outcome!r}", w, "an int or a Fraction")


#: entries of a big integer distribution that its hash reads (half from each end)
_HASH_SAMPLE = 16


def _sort_key_order(keys: Iterable[Any], types: set[type] | None = None) -> list[Any]:
    """The outcomes in increasing order (as given where they do not compare). Fractions
    (``types`` among them) are ordered by their floats in C, then checked exact pair by
    pair, O(n) Fraction comparisons; sorted exactly where two are out of order (two close
    Fractions of one float) or too large for a float. (A Fraction comparison is a Python
    call of about 1.4 us: d300 / d290 spent half its 3.5 s sorting 87 000 quotients.)"""
    keys = list(keys)
    if types is not None and len(keys) > 64 and Fraction in types and types <= _RATIONAL:
        try:
            floats = list(map(float, keys))
        except OverflowError:
            pass
        else:
            order = sorted(range(len(keys)), key=floats.__getitem__)
            got = [keys[i] for i in order]
            if all(map(operator.lt, got, itertools.islice(got, 1, None))):
                return got
    try:
        return sorted(keys)
    except TypeError:
        return keys


#: the outcome types :func:`_sort_key_order` may order by their floats
_RATIONAL = frozenset({int, bool, Fraction})


class Distribution:
    """An exact, immutable, hashable discrete distribution: outcome -> positive int weight.

    ``Distribution(weights)`` takes a mapping of outcomes to non-negative ``int`` or
    ``Fraction`` weights; zero weights are dropped and the rest scaled to coprime integers.
    Empty, negative or non-finite weights raise :class:`~chancekit.errors.InvalidValueError`
    naming the entry. Building costs O(m log m) for m outcomes.

    Comparisons: ``==`` and ``!=`` are *structural* (same probabilities; a distribution
    never equals a plain number — use ``.eq(3)``), so distributions can be dict keys.
    ``<``, ``<=``, ``>``, ``>=`` and the methods :meth:`lt` … :meth:`ne` return a 0/1
    *distribution*; read a probability with ``.probability(1)``. ``bool(dist)``
    raises ``TypeError``.

    >>> coin = Distribution({"heads": 1, "tails": 1})
    >>> coin.probability("heads")
    Fraction(1, 2)
    >>> Distribution({1: Fraction(1, 3), 2: Fraction(2, 3)}).weights
    mappingproxy({1: 1, 2: 2})
    """

    __slots__ = ("_hash", "_int", "_total", "_w")

    _w: dict[Any, int]
    _total: int
    _int: bool
    _hash: int | None

    def __init__(self, weights: Mapping[Any, int | Fraction]) -> None:
        if isinstance(weights, Distribution):
            self._set(dict(weights._w), weights._total)
            return
        if not isinstance(weights, Mapping):
            raise InvalidTypeError("weights", weights, "a mapping of outcome -> weight")
        exact: dict[Any, int | Fraction] = {}
        for outcome, w in weights.items():
            try:
                hash(outcome)
            except TypeError:
                raise InvalidTypeError("outcome", outcome, "a hashable value") from None
            if isinstance(outcome, float) and math.isnan(outcome):
                raise InvalidValueError("outcome", outcome, "not NaN")
            v = _exact_weight(outcome, w)
            if v < 0:
                raise InvalidValueError(f"weight of {outcome!r}", w, "a number >= 0")
            if v:
                exact[outcome] = v
        if not exact:
            raise InvalidValueError("weights", dict(weights), "a mapping with a positive weight")
        if len(exact) > MAX_OUTCOMES:
            raise LimitError(
                f"a distribution may have at most MAX_OUTCOMES = {MAX_OUTCOMES} outcomes, "
                f"not {len(exact)}; group outcomes (map) before building it",
                limit="MAX_OUTCOMES", value=len(exact))
        denom = 1
        for v in exact.values():
            if isinstance(v, Fraction) and v.denominator != 1:
                denom = denom * v.denominator // math.gcd(denom, v.denominator)
        ints = {k: int(v * denom) for k, v in exact.items()}
        self._set(_reduce(ints))

    # -- construction helpers -------------------------------------------------------------

    def _set(self, w: dict[Any, int], total: int | None = None,
             types: set[type] | None = None, ordered: bool = False) -> None:
        types = set(map(type, w)) if types is None else types
        keys = w if ordered else _sort_key_order(w, types)
        # (a Fraction hashes in about 1.5 us, again at every insert and lookup: a dict
        # already in order is copied with its stored hashes, one in reverse order, such as
        # c / X, is rebuilt from its items without looking each key up)
        if all(map(operator.is_, keys, w)):
            self._w = dict(w)
        elif all(map(operator.is_, keys, reversed(w))):
            self._w = dict(reversed(w.items()))
        else:
            self._w = {k: w[k] for k in keys}
        self._total = sum(w.values()) if total is None else total
        # (by the outcomes' types, one C-level pass: a call per outcome took 0.26 s for
        # 260 000 outcomes)
        self._int = all(t is int or issubclass(t, numbers.Integral) for t in types)
        self._hash = None

    @classmethod
    def _raw(cls, w: dict[Any, int], *, reduced: bool = False, total: int | None = None,
             types: set[type] | None = None, ordered: bool = False) -> Distribution:
        """Build from positive int weights without validation (private fast path); a
        caller that knows the weights' sum (``reduced`` ones), the outcomes' types or
        that they are in increasing order already (``ordered``) gives them."""
        self = object.__new__(cls)
        if not w:
            raise InvalidValueError("weights", w, "a mapping with a positive weight")
        if len(w) > MAX_OUTCOMES:
            raise LimitError(
                f"the result would have {len(w)} outcomes, more than MAX_OUTCOMES = "
                f"{MAX_OUTCOMES}; group outcomes (map) first", limit="MAX_OUTCOMES",
                value=len(w))
        self._set(w if reduced else _reduce(w), total if reduced else None, types, ordered)
        return self

    @classmethod
    def _from_poly(cls, offset: int, poly: flint.fmpz_poly, *,
                   total: int | None = None) -> Distribution:
        """From the coefficients of ``poly`` (outcome ``offset + i``), divided by their
        gcd; a caller that knows their sum and that they need no reduction (coprime)
        gives it as ``total``: no gcd, no sum, the weights kept as they are."""
        if total is not None:
            self = object.__new__(cls)
            self._w = {offset + i: int(c) for i, c in enumerate(poly.coeffs()) if c}
            self._total = total
            self._int = True
            self._hash = None
            return self
        g = int(poly.content())
        if g > 1:
            poly = poly // g  # (in C, not a Python division a coefficient)
        w: dict[Any, int] = {}
        for i, c in enumerate(poly.coeffs()):
            if c:
                w[offset + i] = int(c)
        self = object.__new__(cls)
        self._w = w  # already sorted by outcome
        self._total = sum(w.values())
        self._int = True
        self._hash = None
        return self

    def _poly(self) -> tuple[int, flint.fmpz_poly]:
        """The weights as a dense polynomial (offset, poly): one coefficient per integer
        from the lowest outcome to the highest, so refused past 4 x MAX_OUTCOMES + 64 of
        them before anything is allocated (faces 1 and 10**17 would need 10**17)."""
        lo = next(iter(self._w))
        hi = next(reversed(self._w))
        if hi - lo >= 4 * MAX_OUTCOMES + 64:
            raise LimitError(
                f"outcomes from {lo} to {hi} span {hi - lo + 1:,} integers, too far apart "
                f"to combine as one polynomial (at most 4 x MAX_OUTCOMES = "
                f"{4 * MAX_OUTCOMES:,}); use faces closer together", limit="MAX_OUTCOMES",
                value=hi - lo + 1)
        coeffs = [0] * (hi - lo + 1)
        for x, w in self._w.items():
            coeffs[x - lo] = w
        return lo, flint.fmpz_poly(coeffs)

    @classmethod
    def mixture(cls, dists: Sequence[Distribution | Any],
                weights: Sequence[int | Fraction] | None = None) -> Distribution:
        """Choose one of ``dists`` (with probability proportional to ``weights``, equal if
        omitted), then draw from it. Plain values count as constants. O(total outcomes).

        >>> Distribution.mixture([d(4), d(6)]).probability(5)
        Fraction(1, 12)
        """
        dists = [x if isinstance(x, Distribution) else constant(x) for x in dists]
        if not dists:
            raise InvalidValueError("dists", dists, "a non-empty sequence")
        if weights is None:
            weights = [1] * len(dists)
        if len(weights) != len(dists):
            raise InvalidValueError("weights", weights, f"a sequence of {len(dists)} weights")
        ws = [_exact_weight(i, w) for i, w in enumerate(weights)]
        if any(w < 0 for w in ws) or not any(ws):
            raise InvalidValueError("weights", weights, "non-negative with a positive sum")
        lcm = 1
        for dd, w in zip(dists, ws, strict=True):
            if w:
                lcm = lcm * dd._total // math.gcd(lcm, dd._total)
        out: dict[Any, Fraction | int] = {}
        for dd, w in zip(dists, ws, strict=True):
            if not w:
                continue
            scale = w * (lcm // dd._total)
            for x, v in dd._w.items():
                out[x] = out.get(x, 0) + v * scale
        if all(type(w) is int for w in ws):  # integer weights, positive entries: nothing
            # to validate (the parts were); about 1 us an outcome saved (issue 31: the
            # mixtures of an expansion over dice were priced 5 units an entry, ran 50)
            return cls._raw(out)  # type: ignore[arg-type]
        return cls(out)

    # -- reading --------------------------------------------------------------------------

    @property
    def weights(self) -> Mapping[Any, int]:
        """Read-only mapping outcome -> coprime positive integer weight."""
        return MappingProxyType(self._w)

    @property
    def total(self) -> int:
        """Sum of the weights (the common denominator of the probabilities)."""
        return self._total

    def outcomes(self) -> tuple[Any, ...]:
        """The outcomes, sorted when they are sortable (else in insertion order)."""
        return tuple(self._w)

    def __len__(self) -> int:
        return len(self._w)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._w)

    def __contains__(self, x: object) -> bool:
        try:
            return x in self._w
        except TypeError:
            return False

    def items(self) -> Iterable[tuple[Any, int]]:
        """(outcome, weight) pairs in outcome order."""
        return self._w.items()

    def pmf(self) -> dict[Any, Fraction]:
        """Outcome -> exact probability (``Fraction``). O(m).

        >>> d(4).pmf()[2]
        Fraction(1, 4)
        """
        t = self._total
        return {x: Fraction(w, t) for x, w in self._w.items()}

    def probability(self, x: Any) -> Fraction:
        """Exact probability of outcome ``x`` (0 if absent). O(1).

        >>> (2 @ d(6)).probability(7)
        Fraction(1, 6)
        """
        try:
            w = self._w.get(x, 0)
        except TypeError:
            w = 0
        return _exact(w, self._total)

    def _need_order(self, what: str) -> None:
        try:
            sorted(self._w)
        except TypeError:
            raise InvalidTypeError(f"{what} needs sortable outcomes; outcomes",
                                   self.outcomes(), "mutually comparable") from None

    def at_least(self, x: Any) -> Fraction:
        """P(outcome >= x), exact. O(m).

        >>> d(20).at_least(15)
        Fraction(3, 10)
        """
        self._need_order("at_least")
        return _exact(sum(w for k, w in self._w.items() if k >= x), self._total)

    def at_most(self, x: Any) -> Fraction:
        """P(outcome <= x), exact. O(m).

        >>> d(20).at_most(5)
        Fraction(1, 4)
        """
        self._need_order("at_most")
        return _exact(sum(w for k, w in self._w.items() if k <= x), self._total)

    def cumulative(self) -> tuple[tuple[Any, Fraction, Fraction, Fraction], ...]:
        """Every outcome, in order, with its probability, P(result >= it) and
        P(result <= it), exact. Two gcds of the size of :attr:`total` per row, at most
        O(m b**2) for b bits, so refused up front past :data:`MAX_FRACTION_WORK`
        (``10000 @ d(6)`` would take about 20 s and 1 GB); :meth:`cumulative_float` is the
        fast table.

        >>> for row in d(3).cumulative():
        ...     print(*row)
        1 1/3 1 1/3
        2 1/3 2/3 2/3
        3 1/3 1/3 1
        """
        t = self._total
        bits = t.bit_length()
        work = len(self._w) * bits * bits
        if work > MAX_FRACTION_WORK:
            raise LimitError(
                f"the exact cumulative table of {len(self._w)} outcomes with a {bits}-bit "
                f"total needs about {work:.1e} bit operations (outcomes x bits**2), more than "
                f"MAX_FRACTION_WORK = {MAX_FRACTION_WORK:.0e}; use cumulative_float() (the "
                "same table as floats, fast), or probability()/at_least() for a few rows",
                limit="MAX_FRACTION_WORK", value=work)
        gcd = _big_gcd if bits > _FLINT_GCD_BITS else math.gcd
        rows = []
        below = 0
        ge = _ONE  # P(result >= x); P(result <= previous x) is 1 - ge, same gcd
        for x, w in self._w.items():
            g = gcd(w, t)
            p = _coprime_fraction(w // g, t // g) if g > 1 else _coprime_fraction(w, t)
            below += w
            if below == t:
                le, next_ge = _ONE, _ZERO
            else:
                g = gcd(below, t)
                tg = t // g
                le = _coprime_fraction(below // g, tg)
                next_ge = _coprime_fraction((t - below) // g, tg)
            rows.append((x, p, ge, le))
            ge = next_ge
        return tuple(rows)

    def cumulative_float(self, min_probability: float = 0.0
                         ) -> tuple[tuple[Any, float, float, float], ...]:
        """:meth:`cumulative` as floats: (outcome, probability, P(result >= it),
        P(result <= it)), each the correctly rounded quotient of exact integers. Rows with
        a probability below ``min_probability`` are left out (their weight still counts in
        the others' columns). O(m b) for b bits of :attr:`total` (``10000 @ d(6)``: about
        0.5 s, 0.1 s with ``min_probability=1e-6``); no limit. What ``chancekit dist`` and
        the notebook display print.

        >>> for row in d(4).cumulative_float()[:2]:
        ...     print(*row)
        1 0.25 1.0 0.25
        2 0.25 0.75 0.5
        """
        t = self._total
        rows = []
        below = 0
        for x, w in self._w.items():
            p = w / t
            if p >= min_probability:
                rows.append((x, p, (t - below) / t, (below + w) / t))
            below += w
        return tuple(rows)

    def _moments(self) -> tuple[Fraction, Fraction]:
        # (integers are numbers: no check an outcome, 1.4 s of isinstance for 727 196)
        if not self._int and not all(isinstance(k, numbers.Number)
                                     and not isinstance(k, complex) for k in self._w):
            raise InvalidTypeError("outcomes", self.outcomes(), "numbers for mean/variance")
        t = self._total
        if self._int:  # (C-level passes: a generator an outcome was 3x slower)
            ks, ws = self._w.keys(), self._w.values()
            s1 = sum(map(operator.mul, ks, ws))
            s2 = sum(map(operator.mul, map(operator.mul, ks, ks), ws))
            return _exact(s1, t), _exact(s2 * t - s1 * s1, t * t)
        s1f = sum(Fraction(k) * w for k, w in self._w.items())
        s2f = sum(Fraction(k) ** 2 * w for k, w in self._w.items())
        mean = s1f / t
        var = s2f / t - mean * mean
        return (_exact(mean.numerator, mean.denominator),
                _exact(var.numerator, var.denominator))

    @property
    def capped_mass(self) -> Fraction:
        """The probability that an explosion depth cap was reached while computing this
        value: 0 here; a :class:`CappedDistribution` (what an
        explosion returns) says how much (docs/dice.md, "Explosion caps").

        >>> d(6).capped_mass, d(6).explode().capped_mass == Fraction(1, 6) ** 21
        (Fraction(0, 1), True)
        """
        return Fraction(0)

    @property
    def uncapped_mean(self) -> Fraction | None:
        """The exact mean without any explosion depth cap (here: :meth:`mean`; ``None``
        where a cap was reached and the uncapped mean has no closed form).

        >>> d(6).explode().uncapped_mean
        Fraction(21, 5)
        """
        return self.mean()

    def mean(self) -> Fraction:
        """Exact mean. O(m).

        >>> (3 @ d(6)).mean()
        Fraction(21, 2)
        """
        return self._moments()[0]

    def variance(self) -> Fraction:
        """Exact (population) variance. O(m).

        >>> d(6).variance()
        Fraction(35, 12)
        """
        return self._moments()[1]

    def sd(self) -> float:
        """Standard deviation (float). O(m).

        >>> round(d(6).sd(), 4)
        1.7078
        """
        return math.sqrt(self.variance())

    def quantile(self, q: float | Fraction) -> Any:
        """The smallest outcome x with P(outcome <= x) >= q, for 0 <= q <= 1. O(m).

        A float ``q`` is read as the decimal it prints as (0.1 means 1/10).

        >>> d(10).quantile(0.25)
        3
        """
        if isinstance(q, float):
            if not math.isfinite(q):
                raise InvalidValueError("q", q, "a number from 0 to 1")
            qf = Fraction(repr(q))
        elif isinstance(q, numbers.Rational):
            qf = Fraction(q)
        else:
            raise InvalidTypeError("q", q, "a number from 0 to 1")
        if not 0 <= qf <= 1:
            raise InvalidValueError("q", q, "a number from 0 to 1")
        self._need_order("quantile")
        target = qf * self._total
        acc = 0
        last = None
        for k, w in self._w.items():
            acc += w
            last = k
            if acc >= target:
                return k
        return last  # pragma: no cover - acc reaches total

    def median(self) -> Any:
        """The lower median: smallest x with P(outcome <= x) >= 1/2. O(m).

        >>> d(6).median()
        3
        """
        return self.quantile(Fraction(1, 2))

    def mode(self) -> Any:
        """The most likely outcome (the lowest one, in outcome order, on a tie). O(m).

        >>> (2 @ d(6)).mode()
        7
        """
        best = max(self._w.values())
        return next(k for k, w in self._w.items() if w == best)

    def entropy(self) -> float:
        """Shannon entropy in bits (float). O(m).

        >>> d(8).entropy()
        3.0
        """
        t = self._total
        h = 0.0
        for w in self._w.values():
            p = w / t
            if p > 0:
                h -= p * math.log2(p)
        return h

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"format": "chancekit.distribution/2", "outcomes": [...],
        "weights": [...], "total": ..., "probabilities": [...]}``.

        Weights and total are exact **decimal strings** (any size; ``str(int)`` refuses
        past 4300 digits, and JSON readers lose integers past 2**53), probabilities are
        floats for convenience. Outcomes: ``int`` (|x| < 2**53), ``str``, ``bool``,
        ``None`` and finite ``float`` as themselves, tuples as lists, ``Fraction`` as
        ``{"fraction": "7/2"}``, larger ints as ``{"int": "<decimal>"}``, symbol-dice
        outcomes (:class:`~chancekit.dice.symbols.Symbols`) as ``{"symbols": {"success":
        2, "advantage": 1}}`` (``{"symbols": {}}`` for a blank), other labels as their
        ``str`` (the one lossy case). :meth:`from_dict` reads it back. O(m b log b).

        >>> d(2).to_dict()["weights"]
        ['1', '1']
        >>> from chancekit.dice.symbols import symbol_die
        >>> symbol_die([{"hit": 2}, {}]).to_dict()["outcomes"]
        [{'symbols': {'hit': 2}}, {'symbols': {}}]
        """
        t = self._total
        return {
            "format": _FORMAT,
            "outcomes": [_encode_outcome(x) for x in self._w],
            "weights": [_decimal(w) for w in self._w.values()],
            "total": _decimal(t),
            "probabilities": [w / t for w in self._w.values()],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON; :meth:`from_json` reads it back.

        >>> fudge().to_json()[:58]
        '{"format": "chancekit.distribution/2", "outcomes": [-1, 0,'
        """
        import json  # on first use: a cold dist() does not need it

        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Distribution:
        """The distribution :meth:`to_dict` wrote (``probabilities`` are ignored; ``total``,
        when present, must be the sum of the weights; weights may also be ints).
        Malformed input raises :class:`~chancekit.errors.InvalidValueError`.

        >>> Distribution.from_dict((3 @ d(6)).to_dict()) == 3 @ d(6)
        True
        """
        if not isinstance(data, Mapping):
            raise InvalidTypeError("distribution data", data, "a mapping (see to_dict)")
        fmt = data.get("format", _FORMAT)
        if fmt != _FORMAT:
            raise InvalidValueError("format", fmt, repr(_FORMAT))
        outcomes, weights = data.get("outcomes"), data.get("weights")
        if not isinstance(outcomes, list) or not isinstance(weights, list) \
                or len(outcomes) != len(weights):
            raise InvalidValueError("distribution data", data,
                                    "a mapping with lists 'outcomes' and 'weights' of one length")
        out: dict[Any, int] = {}
        for raw, w in zip(outcomes, weights, strict=True):
            x = _decode_outcome(raw)
            if x in out:
                raise InvalidValueError("outcomes", raw, "listed once each")
            out[x] = _read_int(w, f"weight of {quote(x)}")
        if "total" in data and _read_int(data["total"], "total") != sum(out.values()):
            raise InvalidValueError("total", data["total"], "the sum of the weights")
        return cls(out)

    @classmethod
    def from_json(cls, text: str | bytes) -> Distribution:
        """The distribution :meth:`to_json` wrote: ``from_json(x.to_json()) == x``.

        >>> Distribution.from_json(d(6).to_json()) == d(6)
        True
        """
        import json

        try:
            data = json.loads(text)
        except (TypeError, ValueError) as e:
            raise InvalidValueError(f"distribution JSON: {e}") from None
        return cls.from_dict(data)

    def __str__(self) -> str:
        t = self._total
        labels = [_label(k) for k in self._w]
        width = max(len(s) for s in labels)
        top = max(self._w.values())
        rows = []
        for s, w in zip(labels, self._w.values(), strict=True):
            p = w / t
            bar = "#" * round(30 * w / top)
            rows.append(f"{s:>{width}}  {100 * p:8.4f}%  {bar}")
        return "\n".join(rows)

    def _repr_html_(self) -> str:
        """Jupyter display: a table with an inline SVG bar chart (no network resources)."""
        from chancekit._html import distribution_html

        return distribution_html(self)

    def __repr__(self) -> str:
        # never fails: huge ints (past str()'s 4300 digits) are summarised by quote()
        body = ", ".join(f"{_quote_outcome(k)}: {quote(w)}"
                         for k, w in itertools.islice(self._w.items(), 12))
        if len(self._w) > 12:
            body += f", ... ({len(self._w)} outcomes)"
        return f"Distribution({{{body}}})"

    # -- value semantics ------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Distribution):
            return self._total == other._total and self._w == other._w
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        if self._hash is None:
            w = self._w
            if self._int and len(w) > _HASH_SAMPLE:
                # integer outcomes are kept sorted and the weights coprime, so equal
                # distributions have the same entries in the same order: a sample of them
                # (the ends) and their number and total hash alike; every weight hashed took
                # 130 us a die of hundreds of wide weights (hang-415: 0.5 s of 3.5)
                ends = (*itertools.islice(w.items(), _HASH_SAMPLE // 2),
                        *itertools.islice(reversed(w.items()), _HASH_SAMPLE // 2))
                self._hash = hash((len(w), self._total, ends))
            else:
                self._hash = hash(frozenset(w.items()))
        return self._hash

    def __bool__(self) -> bool:
        raise TypeError(
            "a Distribution has no truth value; use .probability(1) for the chance that a "
            "comparison holds, or == for structural equality")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Distribution, (dict(self._w),))

    def __copy__(self) -> Distribution:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Distribution:
        return self

    # -- transformation -------------------------------------------------------------------

    def map(self, f: Callable[[Any], Any]) -> Distribution:
        """Apply ``f`` to every outcome and merge equal results. If ``f`` returns a
        Distribution for some outcome, that outcome is replaced by it (a mixture). O(m).

        >>> d(6).map(lambda x: x % 2).weights
        mappingproxy({0: 1, 1: 1})
        """
        # (a wide weight costs more to move and sum: 0.6 us an outcome at 8 bits, 0.9 at
        # 2 048, 2.25 at 8 192; hang-200 mapped 1 200 outcomes of 2 048 bits 3 300 times)
        work = MAP_CALL_WORK + len(self._w) * ((MAP_WORK if self._int else FRACTION_MAP_WORK)
                                               + self._total.bit_length() // 96)
        _charge(work, "mapping the outcomes")
        limits.count(work)
        # (the results and their merge in C-level passes where they can be: c % d890707
        # took 0.7-1 s, about 800 ns an outcome, with a Python step per result)
        results = list(map(f, self._w))
        types = set(map(type, results))
        if any(issubclass(t, Distribution) for t in types):
            return Distribution.mixture(results, list(self._w.values()))
        if types == {int}:
            crowded = _crowded_work(results)
            if crowded:
                _charge(crowded, _CROWDED)
        try:
            out = dict(zip(results, self._w.values(), strict=True))
            if len(out) < len(results):  # some results merge: add their weights
                ws = set(self._w.values())
                if len(ws) == 1:  # equal weights (a plain die): count the results
                    (w,) = ws
                    out = {r: c * w for r, c in Counter(results).items()}
                else:
                    out = {}
                    for r, w in zip(results, self._w.values(), strict=True):
                        out[r] = out.get(r, 0) + w
        except TypeError:
            bad = next(r for r in results if not isinstance(r, Hashable))
            raise InvalidTypeError("map result", bad, "a hashable value") from None
        # no two outcomes merged: the weights are this distribution's, coprime already (a
        # gcd pass over 2491 weights of 224 000 bits took minutes: 2490d20>6!p<=1*91)
        return Distribution._raw(out, reduced=len(out) == len(self._w),
                                 total=self._total if len(out) == len(self._w) else None,
                                 types=types)

    def _shifted(self, c: int) -> Distribution:
        """Integer outcomes plus the integer ``c`` (``d + 3``, ``d - 3``): the weights kept
        as they are, in the same order, and no merge, O(m) with a small constant (a map
        costs 0.6-2 us an outcome: issue 31's hang shapes shifted dice of 2 000-bit weights
        thousands of times)."""
        # (140 ns an outcome measured, with a hash of the result; AnyDice's operators charge
        # wide weights apart: anydice._values.charge_bits)
        return self._relabelled(lambda: {k + c: w for k, w in self._w.items()},
                                "shifting the outcomes", same=c == 0)

    def _offset(self, c: Any, op: Callable[[Any, Any], Any], name: str, *,
                left: bool) -> Distribution | None:
        """``self op c`` (``left``) or ``c op self`` for an integer ``c`` as a relabelling
        one for one, where it is one: integers plus or minus ``c`` (:meth:`_shifted`),
        rationals plus or minus ``c`` or ``c`` minus them (:meth:`_rational_shifted`);
        None for the other steps (a map then). O(1) to decide."""
        if type(c) is not int:
            return None
        if self._int:
            if name == "+" or (name == "-" and left):
                return self._shifted(c if name == "+" else -c)
            return None
        if op not in (operator.add, operator.sub) or not _rational(self):
            return None
        if op is operator.add:
            return self._rational_shifted(c, 1)
        return self._rational_shifted(-c, 1) if left else self._rational_shifted(c, -1)

    def _rational_shifted(self, c: int, sign: int) -> Distribution:
        """Rational outcomes (ints and Fractions) ``x`` as ``sign * x + c`` (``X + 3``,
        ``X - 3``, ``3 - X``) for an integer ``c``: one for one and in order (reversed for
        ``sign`` -1), so no merge, no sort and the same weights; a Fraction ``p/q`` gives
        ``(sign p + c q)/q``, in lowest terms already, built without a gcd. Charged as
        the map it replaces (``FRACTION_MAP_WORK`` an outcome): a map ran 7 us an outcome
        (``(5d8/5d439) - 89``: 0.35 s for 49 744), a Fraction built, hashed and compared
        again to sort. O(m).

        >>> (Distribution({Fraction(1, 2): 1, 2: 3}) - 1).weights
        mappingproxy({Fraction(-1, 2): 1, 1: 3})
        >>> (1 - Distribution({Fraction(1, 2): 1, 2: 3})).weights
        mappingproxy({-1: 3, Fraction(1, 2): 1})
        """
        work = MAP_CALL_WORK + len(self._w) * (FRACTION_MAP_WORK
                                               + self._total.bit_length() // 96)
        _charge(work, "mapping the outcomes")
        limits.count(work)
        make = _coprime_fraction
        items = self._w.items() if sign > 0 else reversed(self._w.items())
        w: dict[Any, int] = {}
        whole = True  # (a Fraction of denominator 1, as Distribution({Fraction(4): 1}) keeps)
        for k, v in items:
            q = k.denominator
            if q == 1:
                w[sign * k.numerator + c] = v
            else:
                whole = False
                w[make(sign * k.numerator + c * q, q)] = v
        out = object.__new__(Distribution)
        out._w = w
        out._total = self._total
        out._int = whole
        out._hash = None
        return out

    def _relabelled(self, build: Callable[[], dict[int, int]], what: str, *,
                    same: bool = False) -> Distribution:
        """Integer outcomes given new labels one for one, in order (a shift, a negation),
        with these weights: no merge, no reduction, the total kept; ``build`` makes the
        new dict after ``SHIFT_WORK`` an outcome is charged (``same``: this one)."""
        work = MAP_CALL_WORK + len(self._w) * SHIFT_WORK
        _charge(work, what)
        limits.count(work)
        if same:
            return self
        out = object.__new__(Distribution)
        out._w = build()
        out._total = self._total
        out._int = True
        out._hash = None
        return out

    def _combine(self, other: Any, op: Callable[[Any, Any], Any], name: str,
                 swap: bool = False) -> Distribution:
        if name in _VERBS:  # arithmetic: text outcomes would concatenate ('a' + 'b')
            _refuse_text(*((other, self) if swap else (self, other)), name)
        if not isinstance(other, Distribution):
            if isinstance(other, Distribution | numbers.Number | str | tuple):
                pass
            else:
                return NotImplemented  # type: ignore[return-value]
            shifted = self._offset(other, op, name, left=not swap)
            if shifted is not None:
                return shifted
            try:
                if swap:
                    return self.map(lambda x: op(other, x))
                return self.map(lambda x: op(x, other))
            except ZeroDivisionError:
                raise InvalidValueError(f"{name}: division by zero") from None
            except TypeError as e:
                raise InvalidTypeError(f"{name}: {e}") from None
        a, b = (other, self) if swap else (self, other)
        if len(b._w) == 1 or len(a._w) == 1:  # one side a constant: one map, not pairs
            (c, _), = (b if len(b._w) == 1 else a)._w.items()
            many = a if len(b._w) == 1 else b
            if not isinstance(c, int) and not many._int:
                pass  # (Fractions either way: map charges the Fraction rate)
            elif not isinstance(c, int) or (name == "/" and not _divides(c, many,
                                                                          into=many is b)):
                # the results will be Fractions: charged as such before the map
                _charge(len(many._w) * (FRACTION_MAP_WORK - MAP_WORK),
                        f"combining a distribution with {name}")
            shifted = many._offset(c, op, name, left=many is a)
            if shifted is not None:
                return shifted
            try:
                if len(b._w) == 1:
                    return a.map(lambda x: op(x, c))
                return b.map(lambda y: op(c, y))
            except ZeroDivisionError:
                raise InvalidValueError(f"{name}: division by zero") from None
            except TypeError as e:
                raise InvalidTypeError(f"{name}: {e}") from None
        if a._int and b._int and name in ("+", "-") and _dense(a) and _dense(b):
            return _poly_add(a, b if name == "+" else -b)
        pairs = len(a._w) * len(b._w)
        if pairs > MAX_PAIRS:
            raise LimitError(
                f"{name} would visit {pairs} outcome pairs, more than MAX_PAIRS = {MAX_PAIRS};"
                " reduce the outcomes first (map/clamp)", limit="MAX_PAIRS", value=pairs)
        if name in ("+", "-") and len(a._w) + len(b._w) - 1 > MAX_OUTCOMES:
            # |A + B| >= |A| + |B| - 1: refused before the pairs, not after (10d445rr>5e67
            # + 40777*4158d4ra71... visited 1.5 M pairs for 2.8 s, then was refused)
            raise LimitError(
                f"the result would have at least {len(a._w) + len(b._w) - 1} outcomes, more "
                f"than MAX_OUTCOMES = {MAX_OUTCOMES}; group outcomes (map) first",
                limit="MAX_OUTCOMES", value=len(a._w) + len(b._w) - 1)
        rate = FRACTION_PAIR_WORK if name == "/" or not (a._int and b._int) else PAIR_WORK
        work = pairs * rate + wide_pairs_work(a, b)
        _charge(work, f"combining two distributions with {name}")
        limits.count(work)
        if name in ("+", "-") and a._int and b._int:
            crowded = _crowded_sums_work(a, b)
            if crowded:
                _charge(crowded, _CROWDED)
        if (name in ("+", "-") and a._int and b._int and _intpoly.PYTHON_PRODUCTS
                and _spaced_product_pays(a, b)):
            # outcomes spread out (a sum times 5, say): one Python integer product still
            # beats the pairs in the browser (charged as the pairs: the same refusals)
            return _kronecker_sum(a._w, b._w if name == "+" else
                                  {-y: w for y, w in reversed(b._w.items())},
                                  a._total * b._total)
        if rate == FRACTION_PAIR_WORK and _ARITHMETIC.get(op) == name and _rational(a, b):
            try:
                return Distribution._raw(_rational_pairs(a._w, b._w, name), ordered=True)
            except ZeroDivisionError:
                raise InvalidValueError(f"{name}: division by zero (the divisor can be 0)"
                                        ) from None
        out: dict[Any, int] = {}
        try:
            for x, wx in a._w.items():
                for y, wy in b._w.items():
                    r = op(x, y)
                    out[r] = out.get(r, 0) + wx * wy
        except ZeroDivisionError:
            raise InvalidValueError(f"{name}: division by zero (the divisor can be 0)") from None
        except TypeError as e:
            raise InvalidTypeError(f"{name}: {e}") from None
        return Distribution._raw(out)

    def __add__(self, other: Any) -> Distribution:
        return self._combine(other, operator.add, "+")

    def __radd__(self, other: Any) -> Distribution:
        return self._combine(other, operator.add, "+", swap=True)

    def __sub__(self, other: Any) -> Distribution:
        return self._combine(other, operator.sub, "-")

    def __rsub__(self, other: Any) -> Distribution:
        return self._combine(other, operator.sub, "-", swap=True)

    def __mul__(self, other: Any) -> Distribution:
        return self._combine(other, operator.mul, "*")

    def __rmul__(self, other: Any) -> Distribution:
        return self._combine(other, operator.mul, "*", swap=True)

    def __floordiv__(self, other: Any) -> Distribution:
        return self._combine(other, operator.floordiv, "//")

    def __rfloordiv__(self, other: Any) -> Distribution:
        return self._combine(other, operator.floordiv, "//", swap=True)

    def __truediv__(self, other: Any) -> Distribution:
        """Exact division: integer results stay ints, others become ``Fraction``."""
        return self._combine(other, _exact_div, "/")

    def __rtruediv__(self, other: Any) -> Distribution:
        return self._combine(other, _exact_div, "/", swap=True)

    def __mod__(self, other: Any) -> Distribution:
        return self._combine(other, operator.mod, "%")

    def __rmod__(self, other: Any) -> Distribution:
        return self._combine(other, operator.mod, "%", swap=True)

    def __neg__(self) -> Distribution:
        if self._int:
            # integers negated: the same weights in reverse order, no map and no merge,
            # charged as a shift (-15735d84cs3 mapped 15 736 weights of 100 000 bits,
            # priced 17 M units for a few ms)
            return self._relabelled(lambda: {-k: w for k, w in reversed(self._w.items())},
                                    "negating the outcomes")
        try:
            return self.map(operator.neg)
        except TypeError as e:
            raise InvalidTypeError(f"-: {e}") from None

    def __pos__(self) -> Distribution:
        return self

    def __abs__(self) -> Distribution:
        try:
            return self.map(abs)
        except TypeError as e:
            raise InvalidTypeError(f"abs: {e}") from None

    def __rmatmul__(self, n: Any) -> Distribution:
        """``n @ dist``: the sum of ``n`` independent copies (n >= 0; ``0 @ dist`` is the
        constant 0). Integer outcomes use one ``fmpz_poly`` power (small ones: one Python
        integer power), O(M(n·s)) for span s; others use repeated squaring. Refused past
        :data:`MAX_DICE` or :data:`MAX_WEIGHT_BITS`.

        >>> (1000 @ d(6)).mean()
        Fraction(3500, 1)
        """
        if isinstance(n, Distribution):
            return NotImplemented  # type: ignore[return-value]
        n = require_int("n (number of dice)", n, lo=0)
        return self.repeat_sum(n)

    def repeat_sum(self, n: int) -> Distribution:
        """The sum of ``n`` independent copies; same as ``n @ self``.

        >>> d(6).repeat_sum(2).probability(12)
        Fraction(1, 36)
        """
        n = require_int("n (number of dice)", n, lo=0)
        if n > MAX_DICE:
            raise LimitError(
                f"summing {n} dice exceeds MAX_DICE = {MAX_DICE}; use fewer dice or a normal "
                "approximation (mean and variance scale with n)", limit="MAX_DICE", value=n)
        if n == 0:
            return constant(0)
        if n == 1:
            return self
        if self._int:
            w = self._w
            lo = next(iter(w))
            hi = next(reversed(w))
            span = n * (hi - lo) + 1
            tbits = self._total.bit_length()
            # log2(max(2, total)) <= max(1, bit length): past that bound, the exact estimate
            if span > MAX_OUTCOMES or span * n * tbits > MAX_WEIGHT_BITS:
                bits = span * max(1, n * math.log2(max(2, self._total)))
                if span > MAX_OUTCOMES or bits > MAX_WEIGHT_BITS:
                    raise LimitError(
                        f"{n} dice with outcomes {lo}..{hi} would give {span} outcomes with "
                        f"weights of about {bits / 8 / 2**20:.0f} MiB, past MAX_OUTCOMES = "
                        f"{MAX_OUTCOMES} / MAX_WEIGHT_BITS = {MAX_WEIGHT_BITS}; use fewer dice "
                        "or the mean and variance (they scale with n)",
                        limit="MAX_WEIGHT_BITS", value=bits)
            work = power_work(hi - lo + 1, span, n * tbits)
            then = THEN_PER_OUTCOME.get()
            if then:  # the caller maps the sum next: its at least n(k - 1) + 1 outcomes
                limits.check(work + (n * (len(w) - 1) + 1) * then, f"summing {n} dice")
            _charge(work, f"summing {n} dice")
            limits.count(work)
            # the weights are coprime, so are those of the power (Gauss's lemma): no gcd
            total = self._total ** n
            slot = total.bit_length()  # every coefficient is at most the total
            if _intpoly.python_power(span * slot):
                return _small_power(w, lo, n, slot, total)
            off, p = self._poly()
            return Distribution._from_poly(off * n, p**n, total=total)
        result: Distribution | None = None
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

    # -- max / min / comparisons ----------------------------------------------------------

    def max(self, other: Any) -> Distribution:
        """Distribution of max(self, other) for independent draws (other: value or dist).

        >>> d(6).max(d(6)).probability(6)
        Fraction(11, 36)
        """
        return self._combine(other, max, "max")

    def min(self, other: Any) -> Distribution:
        """Distribution of min(self, other) for independent draws.

        >>> d(6).min(d(6)).probability(1)
        Fraction(11, 36)
        """
        return self._combine(other, min, "min")

    def _cmp(self, other: Any, op: Callable[[Any, Any], bool], name: str) -> Distribution:
        if not isinstance(other, Distribution | numbers.Number | str | tuple):
            return NotImplemented  # type: ignore[return-value]
        return self._combine(other, lambda x, y: int(op(x, y)), name)

    def lt(self, other: Any) -> Distribution:
        """0/1 distribution of ``self < other``.

        >>> d(6).lt(3).probability(1)
        Fraction(1, 3)
        """
        return self._cmp(other, operator.lt, "<")

    def le(self, other: Any) -> Distribution:
        """0/1 distribution of ``self <= other``."""
        return self._cmp(other, operator.le, "<=")

    def gt(self, other: Any) -> Distribution:
        """0/1 distribution of ``self > other``."""
        return self._cmp(other, operator.gt, ">")

    def ge(self, other: Any) -> Distribution:
        """0/1 distribution of ``self >= other``."""
        return self._cmp(other, operator.ge, ">=")

    def eq(self, other: Any) -> Distribution:
        """0/1 distribution of ``self == other`` (outcome-wise; ``==`` itself is structural).

        >>> d(6).eq(d(6)).probability(1)
        Fraction(1, 6)
        """
        return self._cmp(other, operator.eq, "==")

    def ne(self, other: Any) -> Distribution:
        """0/1 distribution of ``self != other`` (outcome-wise)."""
        return self._cmp(other, operator.ne, "!=")

    __lt__ = lt
    __le__ = le
    __gt__ = gt
    __ge__ = ge

    # -- per-die modifiers ----------------------------------------------------------------

    def _face_set(self, on: Iterable[Any] | Callable[[Any], bool] | None, name: str) -> set[Any]:
        if on is None:
            self._need_order(name)
            return {next(reversed(self._w))}
        if callable(on):
            return {k for k in self._w if on(k)}
        if isinstance(on, str | bytes) or not isinstance(on, Iterable):
            on = [on]
        return {k for k in on if k in self._w}

    def explode(self, on: Iterable[Any] | Callable[[Any], bool] | None = None, *,
                depth: int = EXPLODE_DEPTH) -> Distribution:
        """The die where rolling a face in ``on`` (default: the highest face) adds another
        roll, recursively, for at most ``depth`` extra rolls (default
        :data:`EXPLODE_DEPTH`, 20: the same as notation's ``!``, so
        ``3 @ d(6).explode() == dist("3d6!")``). Past the cap, the last extra
        roll is kept as rolled (an exploding face there adds nothing more) — the same as
        icepool's ``explode(depth=depth)``. Cost O(depth) polynomial products; refused up
        front past :data:`MAX_EXPLODE_DEPTH`, :data:`MAX_OUTCOMES` or the work budget
        (``MAX_WORK``, :mod:`chancekit.limits`).

        >>> d(6).explode(depth=1).probability(12)
        Fraction(1, 36)
        >>> d(6).explode(depth=1).probability(6)
        Fraction(0, 1)
        """
        return explode(self, on, depth=depth)


    def reroll(self, on: Iterable[Any] | Callable[[Any], bool], *,
               depth: int | None = None) -> Distribution:
        """The die rerolled while it shows a face in ``on``: ``depth=1`` rerolls once,
        ``depth=None`` until no match (exact: the die conditioned on the other faces).
        The last reroll is kept whatever it shows. O(m) big-integer products (closed
        form); refused past :data:`MAX_EXPLODE_DEPTH` or :data:`MAX_WEIGHT_BITS`.

        >>> d(6).reroll([1]).probability(2)
        Fraction(1, 5)
        >>> d(6).reroll([1], depth=1).probability(1)
        Fraction(1, 36)
        """
        return reroll(self, on, depth=depth)


    def clamp(self, lo: Any = None, hi: Any = None) -> Distribution:
        """Each outcome raised to at least ``lo`` and lowered to at most ``hi`` (per-die
        minimum / maximum, like ``mi2`` / ``ma5``). O(m).

        >>> d(6).clamp(lo=3).probability(3)
        Fraction(1, 2)
        """
        if lo is not None and hi is not None and lo > hi:
            raise InvalidValueError("clamp", (lo, hi), "lo <= hi")

        def f(x: Any) -> Any:
            if lo is not None and x < lo:
                return lo
            if hi is not None and x > hi:
                return hi
            return x

        return self.map(f)


def _charge(units: int, what: str) -> None:
    """Charge a step's estimate to the open work budget (one call alone: MAX_WORK)."""
    limits.charge(units, what, limit=MAX_WORK, name="MAX_WORK")


def _rational(*dists: Distribution) -> bool:
    """Every outcome of ``dists`` is an ``int`` (or ``bool``) or a ``Fraction`` (not a
    float, text or another subclass): what :func:`_rational_pairs` and
    :meth:`Distribution._rational_shifted` take. O(outcomes) in C."""
    return set().union(*(map(type, d._w) for d in dists)) <= _RATIONAL


def _rational_pairs(aw: dict[Any, int], bw: dict[Any, int], name: str) -> dict[Any, int]:
    """The weights of ``x name y`` over the pairs of ``aw`` and ``bw`` (rationals, ``name``
    one of ``+ - * /``), as ``_combine``'s pairs give them (whole results as ``int``),
    in increasing order, unreduced. Each pair's result is kept as its reduced numerator and
    denominator (two integers and a gcd: no Fraction built, none hashed), and one
    Fraction is built per distinct result: ``5d8 / 5d439`` (78 876 pairs) ran 9.4 us a
    pair through ``Fraction`` (built, then hashed at each of two dict lookups and again
    when sorted). ``ZeroDivisionError`` for a divisor 0. O(pairs).

    >>> _rational_pairs({1: 1, 2: 1}, {2: 1, 4: 1}, "/")
    {Fraction(1, 4): 1, Fraction(1, 2): 2, 1: 1}
    """
    acc: dict[tuple[int, int], int] = {}
    get = acc.get
    gcd = math.gcd
    if name == "/" and all(type(x) is int for x in itertools.chain(aw, bw)):
        for y, wy in bw.items():
            if y == 0:
                raise ZeroDivisionError
            m = -y if y < 0 else y
            for x, wx in aw.items():
                g = gcd(x, m)
                k = ((x if y > 0 else -x) // g, m // g)
                acc[k] = get(k, 0) + wx * wy
    else:
        right = [(y.numerator, y.denominator, wy) for y, wy in bw.items()]
        for x, wx in aw.items():
            n, m = x.numerator, x.denominator
            for p, q, wy in right:
                if name == "*":
                    u, v = n * p, m * q
                elif name == "/":
                    if p == 0:
                        raise ZeroDivisionError
                    u, v = (n * q, m * p) if p > 0 else (-n * q, -m * p)
                else:
                    u = n * q + p * m if name == "+" else n * q - p * m
                    v = m * q
                g = gcd(u, v)
                k = (u // g, v // g)
                acc[k] = get(k, 0) + wx * wy
    keys = list(acc)
    try:  # in increasing order by floats, checked exact on the integers
        keys.sort(key=lambda k: k[0] / k[1])
    except OverflowError:
        keys.sort(key=lambda k: Fraction(*k))
    else:
        if not all(u * y < x * v for (u, v), (x, y) in itertools.pairwise(keys)):
            keys.sort(key=lambda k: Fraction(*k))
    return {(u if v == 1 else _coprime_fraction(u, v)): acc[u, v] for u, v in keys}


def _exact_div(x: Any, y: Any) -> Any:
    if _is_int(x) and _is_int(y):
        q = Fraction(int(x), int(y))
        return q.numerator if q.denominator == 1 else q
    return x / y


#: the operators :func:`_rational_pairs` computes, by the names ``_combine`` gives them
#: (AnyDice's own ``/`` also says "/", and rounds)
_ARITHMETIC: dict[Any, str] = {operator.add: "+", operator.sub: "-", operator.mul: "*",
                               _exact_div: "/"}


def _small_power(w: dict[int, int], lo: int, n: int, slot: int, total: int) -> Distribution:
    """The ``n``-fold sum of the integer weights ``w`` (outcomes from ``lo``, ``total``
    their sum to the power ``n``) as one Python integer power (Kronecker substitution):
    each weight in a ``slot``-bit field, and no field overflows (each coefficient of the
    power is at most ``total < 2**slot``). The weights are kept as the power gives them."""
    base = lo * n
    coeffs = _intpoly.power(w, lo, n, slot)
    out = {base + i: c for i, c in enumerate(coeffs) if c}
    self = object.__new__(Distribution)
    self._w = out  # sorted by outcome
    self._total = total
    self._int = True
    self._hash = None
    return self


def _reduce(w: dict[Any, int]) -> dict[Any, int]:
    if not w:
        return w
    # start from the smallest weight: every gcd step is then cheap even for huge weights
    g = min(w.values())
    for v in w.values():
        g = math.gcd(g, v)
        if g == 1:
            return w
    if g > 1:
        return {k: v // g for k, v in w.items()}
    return w


def wide_pairs_work(a: Distribution, b: Distribution) -> int:
    """Units of the wide weights of every pair of ``a`` and ``b`` that a pairwise
    combination visits (``WIDE_PAIR_WORK``), beyond ``PAIR_WORK`` a pair: summed over the
    pairs from each side's sum of whole 64-bit words, so O(|a| + |b|) in C-level passes;
    0 where no weight reaches 64 bits.

    >>> wide_pairs_work(d(6), d(8)), wide_pairs_work(d(6), Distribution({0: 2**200, 1: 1}))
    (0, 12)
    """
    words = (64).__rfloordiv__  # a weight's whole words, in C-level passes
    wa = sum(map(words, map(int.bit_length, a._w.values())))
    wb = sum(map(words, map(int.bit_length, b._w.values())))
    if not (wa or wb):
        return 0
    return (wa * wb + 2 * (len(b._w) * wa + len(a._w) * wb)) * WIDE_PAIR_WORK // 20


#: what a refusal of outcomes that hash alike says
_CROWDED = ("storing outcomes that Python's hash sends to the same place (integers that "
            "differ by multiples of 2**61 - 1)")
#: results that share a hash value, on average, before their dictionary is priced by them
_CROWD = 16


def _crowded_work(results: list[int]) -> int:
    """Units of the dictionary of these integer ``results`` beyond a plain one, 0 unless
    they crowd: Python hashes an integer by its residue modulo ``2**61 - 1``, so results
    ``k (2**61 - 1)`` all share one hash value and each new one is compared with every
    one before it (``d20000 * 2305843009213693951``: 4 s; ``d1000000 * ...``: hours).
    Distinct results ``D`` over ``H`` hash values cost about ``D**2 / 2H`` comparisons
    (:func:`_crowd_units`: d20 000 over one value, 2 * 10**8 units, ran 4 s). The hash values are
    counted in C; the distinct results, only where they crowd, by sorting (no hash).
    O(n), O(n log n) when crowded."""
    n = len(results)
    if n < 4096:
        return 0
    h = len(set(map(hash, results)))
    if h * _CROWD >= n:
        return 0
    s = sorted(results)
    d = 1 + sum(map(operator.ne, s, itertools.islice(s, 1, None)))
    return _crowd_units(d, h) if d > h * _CROWD else 0


def _crowd_units(d: int, h: int) -> int:
    """Units of ``d`` distinct keys over ``h`` hash values in one dictionary: about
    ``d**2 / 2h`` comparisons, one unit each in a small table and more as the table
    outgrows the caches (a probe of a table of 900 000 keys: about 250 ns)."""
    return d * d // (2 * h) * (1 + d // 65_536)


def _crowded_sums_work(a: Distribution, b: Distribution) -> int:
    """The same for the sums (differences) of integer outcomes visited pair by pair,
    before the pairs: where one side's outcomes are further apart than the other's span,
    every pair gives its own result, and the hash of ``x + y`` is ``hash(x) + hash(y)``
    modulo ``2**61 - 1``, so the results take at most the two spans of hash values plus
    one (twice that with negative outcomes: ``6d589 + (...)d20ma5 * 2**62``: 1.3 M sums
    over 4 300 hash values, past the 60 s alarm). O(|a| + |b|)."""
    pairs = len(a._w) * len(b._w)
    if pairs < 4096:
        return 0
    for wide, narrow in ((a, b), (b, a)):
        keys = list(wide._w)
        span = next(reversed(narrow._w)) - next(iter(narrow._w))
        if len(keys) >= 2 and min(map(operator.sub, keys[1:], keys)) > span:
            break
    else:
        return 0  # (some sums may merge: their count is not known)
    ha, hb = list(map(hash, a._w)), list(map(hash, b._w))
    h = (max(ha) - min(ha)) + (max(hb) - min(hb)) + 1
    if min(ha) < 0 or min(hb) < 0:
        h *= 2  # (a negative result's hash is minus its magnitude's: two values a residue)
    return _crowd_units(pairs, h) if pairs > h * _CROWD else 0


def _divides(c: Any, x: Distribution, *, into: bool = False) -> bool:
    """Whether the integer ``c`` divides every outcome of the integer distribution ``x``
    (quotients ``x / c`` stay ints), or with ``into`` whether every outcome divides ``c``
    (``c / x``), read from the lowest outcomes only: O(1) (a guess for the charge of a
    division, which never depends on it for its result).

    >>> _divides(2, d(4) * 2), _divides(12, d(4), into=True), _divides(10, d(4), into=True)
    (True, True, False)
    """
    if not x._int or not c:
        return False
    if into:
        return all(k and c % k == 0 for k in itertools.islice(x._w, 4))
    return all(k % c == 0 for k in itertools.islice(x._w, 4))


def _dense(x: Distribution) -> bool:
    """Whether integer outcomes are close enough together for a polynomial (their span at
    most a few times their number): ``2 * 10**309`` and ``4 * 10**309`` are added pair by
    pair, not as a polynomial of 10**309 coefficients."""
    span = next(reversed(x._w)) - next(iter(x._w)) + 1
    return span <= 4 * len(x._w) + 64


def _poly_add(a: Distribution, b: Distribution) -> Distribution:
    # the span before the polynomials are built (63d4!8r>7*82d%+81d4kh4 built 1 s of them)
    span_a = next(reversed(a._w)) - next(iter(a._w)) + 1
    span = span_a + (next(reversed(b._w)) - next(iter(b._w)))
    if span > MAX_OUTCOMES:
        raise LimitError(
            f"the sum would span {span} outcomes, more than MAX_OUTCOMES = {MAX_OUTCOMES}",
            limit="MAX_OUTCOMES", value=span)
    # (the polynomials are as long as the spans, gaps included: d324107*3 + 10dFkh2kh2!
    # multiplied 972 000 coefficients priced as its 324 000 outcomes, 1.7 s for 22 M units)
    work = mul_work(span_a, span - span_a + 1,
                    a._total.bit_length() + b._total.bit_length())
    _charge(work, "adding two distributions")
    limits.count(work)
    total = a._total * b._total  # every coefficient of the product is at most this
    slot = total.bit_length()
    if _intpoly.python_mul(span_a * slot, (span - span_a) * slot):  # the browser's choice
        return _kronecker_sum(a._w, b._w, total)
    oa, pa = a._poly()
    ob, pb = b._poly()
    return Distribution._from_poly(oa + ob, pa * pb)


def _spaced_product_pays(a: Distribution, b: Distribution) -> bool:
    """Whether the sum of integer distributions whose outcomes are not dense is cheaper
    as one product of their (mostly zero) coefficients than pair by pair: the spans
    together at most a quarter of the pairs (and within MAX_OUTCOMES)."""
    span = (next(reversed(a._w)) - next(iter(a._w))) + (next(reversed(b._w))
                                                      - next(iter(b._w))) + 2
    return span <= MAX_OUTCOMES and 4 * span <= len(a._w) * len(b._w)


def _kronecker_sum(a: dict[int, int], b: dict[int, int], total: int) -> Distribution:
    """The sum of two integer distributions' weights (keys sorted, ``total`` the product
    of their totals, a bound on every coefficient) by one Kronecker product
    (:mod:`chancekit._intpoly`), reduced: the browser's sums, dense or spread out."""
    lo_a, lo_b = next(iter(a)), next(iter(b))
    coeffs = _intpoly.mul(a, lo_a, b, lo_b, total.bit_length())
    base = lo_a + lo_b
    w = _reduce({base + i: c for i, c in enumerate(coeffs) if c})
    if len(w) > MAX_OUTCOMES:
        return Distribution._raw(w, reduced=True)  # (refused there, as named)
    self = object.__new__(Distribution)
    self._w = w  # sorted by outcome, integer outcomes
    self._total = sum(w.values())
    self._int = True
    self._hash = None
    return self


#: the arithmetic operators, refused on text outcomes
_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor-divide",
          "%": "take the remainder of"}


def _refuse_text(left: Any, right: Any, name: str) -> None:
    """Raise InvalidTypeError if either side has a str/bytes outcome (O(m), non-int only)."""
    def pick(side: Any) -> tuple[Any, bool]:  # (outcome to name, is it text)
        if not isinstance(side, Distribution):
            return side, isinstance(side, str | bytes)
        if not side._int:
            for k in side._w:
                if isinstance(k, str | bytes):
                    return k, True
        return next(iter(side._w)), False

    (x, x_text), (y, y_text) = pick(left), pick(right)
    if x_text or y_text:
        kind = type(x if x_text else y).__name__
        raise InvalidTypeError(
            f"cannot {_VERBS[name]} outcomes {quote(x)} and {quote(y)} ({kind}): arithmetic "
            "needs numbers; symbol dice are a later feature")


# -- exact text of big numbers, fractions without a second gcd (reading and JSON) ---------

_FORMAT = "chancekit.distribution/2"
_DECIMAL = re.compile(r"-?[0-9]+")
_SAFE_INT = 2**53  # JSON readers that use doubles keep integers below this exactly
_STR_BITS = 10_000  # str() of an int is quick below this (and under the 4300-digit cap)
_FLINT_GCD_BITS = 2_000  # flint's gcd is faster than math.gcd past about this size
_ONE = Fraction(1)
_ZERO = Fraction(0)


def _decimal(n: int) -> str:
    """Exact decimal text of an int of any size (``str`` refuses past 4300 digits)."""
    if n.bit_length() <= _STR_BITS:
        return str(n)
    return str(flint.fmpz(n))


def _fraction_text(q: Fraction) -> str:
    """``str(q)`` ("7/2", "3") for a Fraction of any size."""
    if q.denominator == 1:
        return _decimal(q.numerator)
    return f"{_decimal(q.numerator)}/{_decimal(q.denominator)}"


def _read_int(v: object, what: str) -> int:
    """An int from JSON: a decimal string of any length, or an int."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if not isinstance(v, str) or not _DECIMAL.fullmatch(v):
        raise InvalidValueError(what, v, "an integer or its decimal text")
    return int(v) if len(v) <= 3000 else int(flint.fmpz(v))


#: structured JSON forms of outcome types defined in modules above this one, which register
#: them (:func:`_register_outcome_form`; ``dice.symbols`` adds ``"symbols"``):
#: {kind: (type, to JSON, from JSON)}; written as ``{kind: ...}``
_OUTCOME_FORMS: dict[str, tuple[type, Callable[[Any], Any], Callable[[Any], Any]]] = {}


def _register_outcome_form(kind: str, cls: type, encode: Callable[[Any], Any],
                           decode: Callable[[Any], Any]) -> None:
    """Write outcomes of type ``cls`` as ``{kind: encode(x)}`` and read them back with
    ``decode`` (which raises :class:`~chancekit.errors.InvalidValueError` on bad input)."""
    _OUTCOME_FORMS[kind] = (cls, encode, decode)


def _encode_outcome(x: Any) -> Any:
    if x is None or isinstance(x, bool | str):
        return x
    if isinstance(x, int):
        return x if -_SAFE_INT < x < _SAFE_INT else {"int": _decimal(x)}
    if isinstance(x, Fraction):
        return {"fraction": _fraction_text(x)}
    if isinstance(x, float):
        return x if math.isfinite(x) else {"float": repr(x)}
    if isinstance(x, tuple):
        return [_encode_outcome(v) for v in x]
    for kind, (cls, encode, _) in _OUTCOME_FORMS.items():
        if isinstance(x, cls):
            return {kind: encode(x)}
    try:
        return str(x)
    except Exception:
        return quote(x)


def _decode_outcome(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_decode_outcome(i) for i in v)
    if isinstance(v, dict):
        if len(v) == 1:
            (kind, text), = v.items()
            if kind == "int":
                return _read_int(text, "outcome")
            if kind == "fraction" and isinstance(text, str):
                num, slash, den = text.partition("/")
                n, m = _read_int(num, "outcome"), _read_int(den, "outcome") if slash else 1
                if m <= 0:
                    raise InvalidValueError("outcome", v, "a fraction with a denominator > 0")
                return Fraction(n, m)
            if kind == "float" and text in ("inf", "-inf"):
                return float(text)
            form = _OUTCOME_FORMS.get(kind)
            if form is not None:
                return form[2](text)
        raise InvalidValueError("outcome", v, 'a JSON value, {"int"/"fraction": text} or '
                                '{"symbols": {name: count}}')
    if isinstance(v, float) and not math.isfinite(v):
        raise InvalidValueError("outcome", v, "a finite number")
    return v


def _quote_outcome(x: Any) -> str:
    if isinstance(x, Fraction):
        return f"Fraction({quote(x.numerator)}, {quote(x.denominator)})"
    return quote(x)


def _short_fraction(q: Fraction, limit: int = 40) -> str | None:
    """``str(q)`` if it has at most ``limit`` characters, else None (never builds a long
    text)."""
    if q.numerator.bit_length() + q.denominator.bit_length() > 4 * limit:
        return None
    text = str(q)
    return text if len(text) <= limit else None


def _big_gcd(a: int, b: int) -> int:
    return int(flint.fmpz(a).gcd(flint.fmpz(b)))


def _coprime_fraction_init() -> Callable[[int, int], Fraction]:
    # the two slots set directly (0.3 us, a quarter of Fraction's own constructor), where
    # this Python's Fraction keeps them there and the result is the same Fraction
    def slots(n: int, d: int, new: Any = object.__new__, cls: type = Fraction) -> Fraction:
        f = new(cls)
        f._numerator = n
        f._denominator = d
        return f  # type: ignore[no-any-return]

    try:
        probe = slots(-7, 9)
        if (probe == Fraction(-7, 9) and hash(probe) == hash(Fraction(-7, 9))
                and probe.numerator == -7 and probe.denominator == 9
                and probe + 1 == Fraction(2, 9) and repr(probe) == "Fraction(-7, 9)"):
            return slots
    except (AttributeError, TypeError):  # pragma: no cover - another Fraction
        pass
    make = getattr(Fraction, "_from_coprime_ints", None)  # Python 3.12+
    if make is not None:  # pragma: no cover - the slots above first
        return make  # type: ignore[no-any-return]
    try:
        Fraction(1, 2, _normalize=False)  # type: ignore[call-arg]  # Python 3.11
    except TypeError:  # pragma: no cover - neither: normalise (correct, slower)
        return Fraction
    return lambda n, d: Fraction(n, d, _normalize=False)  # type: ignore[call-arg]


#: Fraction(n, d) for coprime n and d > 0, without Fraction's own gcd
_coprime_fraction = _coprime_fraction_init()


def d(sides: int) -> Distribution:
    """A fair die with faces 1..sides (sides >= 1). O(sides).

    >>> d(6).outcomes()
    (1, 2, 3, 4, 5, 6)
    """
    sides = require_int("sides", sides, lo=1, hi=MAX_SIDES)
    die = object.__new__(Distribution)  # already sorted, reduced and integer: O(sides) in C
    die._w = dict.fromkeys(range(1, sides + 1), 1)
    die._total = sides
    die._int = True
    die._hash = None
    return die


def fudge() -> Distribution:
    """A Fudge/Fate die: -1, 0, +1 equally likely.

    >>> (4 @ fudge()).probability(4)
    Fraction(1, 81)
    """
    return Distribution._raw({-1: 1, 0: 1, 1: 1}, reduced=True)


def faces(seq: Iterable[Any]) -> Distribution:
    """A die with the listed faces; a face listed twice is twice as likely.

    >>> faces([1, 1, 2]).probability(1)
    Fraction(2, 3)
    """
    if isinstance(seq, str | bytes) or not isinstance(seq, Iterable):
        raise InvalidTypeError("faces", seq, "an iterable of outcomes")
    out: dict[Any, int] = {}
    for x in seq:
        try:
            out[x] = out.get(x, 0) + 1
        except TypeError:
            raise InvalidTypeError("face", x, "a hashable value") from None
    if not out:
        raise InvalidValueError("faces", seq, "a non-empty sequence")
    return Distribution(out)


def constant(x: Any) -> Distribution:
    """The distribution that is always ``x``.

    >>> constant(3).mean()
    Fraction(3, 1)
    """
    if type(x) is int:  # the common case, without the checks of any mapping
        one = object.__new__(Distribution)
        one._w = {x: 1}
        one._total = 1
        one._int = True
        one._hash = None
        return one
    return Distribution({x: 1})


# -- per-die modifiers: explode and reroll, one implementation ----------------------------
# (Distribution.explode/reroll and the pool evaluator share one law; each estimate is
# charged to the work budget before the work starts; dice.modifiers re-exports them)


def explode(die: Distribution, on: Iterable[Any] | Callable[[Any], bool] | None = None, *,
            depth: int) -> Distribution:
    """See :meth:`Distribution.explode`."""
    depth = _check_depth(depth)
    fire = die._face_set(on, "explode")
    if not fire or depth == 0:
        return die
    if len(fire) == len(die._w) and depth > 1000:
        raise LimitError(f"every face explodes; depth {depth} is past 1000",
                         limit="depth", value=depth)
    stay = {k: w for k, w in die._w.items() if k not in fire}
    boom = {k: w for k, w in die._w.items() if k in fire}
    if die._int and _dense_fits(die, depth):
        # checked before any work, before the die's dense polynomial is built (faces 1
        # and 10**17 would make it 10**17 coefficients): the result spans at most
        # (depth + 1) * (n - 1) + 1 outcomes with weights of about (depth + 1) *
        # log2(total) bits
        lo, hi = die.outcomes()[0], die.outcomes()[-1]
        n = hi - lo + 1
        span = (depth + 1) * (n - 1) + 1
        if span > MAX_OUTCOMES:
            raise LimitError(
                f"exploding this die {depth} times would span {span:,} outcomes (its faces "
                f"run from {lo} to {hi}), more than MAX_OUTCOMES = {MAX_OUTCOMES:,}; use "
                "smaller faces or a smaller depth", limit="MAX_OUTCOMES", value=span)
        work = explode_work(n, die._total, depth)
        try:
            _charge(work, f"exploding a die with {n} faces {depth} times")
        except LimitError as e:
            most = max_explode_depth(n, die._total)
            raise LimitError(
                f"{e} -- the deepest explosion of a die with {n} faces within MAX_WORK = "
                f"{limits.MAX_WORK:,} is depth={most} (a chain that long has probability "
                f"below {_tail(die, fire, most)}); use depth <= {most}",
                limit=e.limit, value=e.value) from None
        off, full = die._poly()
        limits.count(work)
        s_poly = flint.fmpz_poly([stay.get(off + i, 0) for i in range(n)])
        b_poly = flint.fmpz_poly([boom.get(off + i, 0) for i in range(n)])
        # E_0 = X; E_k = S * total(E_{k-1}) + B * E_{k-1}, reduced by content each step.
        e_off, e = off, full
        for _ in range(depth):
            e, e_off = _aligned_add(s_poly * int(e(1)), off, b_poly * e, off + e_off)
            g = int(e.content())
            if g > 1:
                e = e // g  # (in C, not a Python int a coefficient)
        return attach(Distribution._from_poly(e_off, e),
                           *explode_cap(die, fire, depth))
    # general outcomes, or whole numbers far from 0 (faces 10**6 and 10**6 + 1 make few
    # sums but a dense polynomial of millions of coefficients): dictionary convolution,
    # its outcomes bounded and its work charged before it starts
    work = _dict_explode_work(die, len(stay), len(boom), depth)
    _charge(work, f"exploding a die with {len(die._w)} faces {depth} times")
    limits.count(work)
    cur = die
    for _ in range(depth):
        out: dict[Any, int] = {}
        for k, w in stay.items():
            out[k] = out.get(k, 0) + w * cur._total
        for k, w in boom.items():
            for y, v in cur._w.items():
                r = k + y
                out[r] = out.get(r, 0) + w * v
        cur = Distribution._raw(out)
    return attach(cur, *explode_cap(die, fire, depth))


def _dense_fits(die: Distribution, depth: int) -> bool:
    """Whether the dense polynomial of a whole-number die's explosion is about as long as
    the calibrated span ``(depth + 1) * (n - 1) + 1`` (faces near 0; a chain of ``m``
    faces sums to between ``m * lo`` and ``m * hi``), so :func:`explode_work` prices it."""
    lo, hi = die.outcomes()[0], die.outcomes()[-1]
    span = (depth + 1) * (hi - lo) + 1
    lower = lo if lo >= 0 else (depth + 1) * lo
    upper = hi if hi <= 0 else (depth + 1) * hi
    return upper - lower + 1 <= 2 * span + 1


def _dict_explode_work(die: Distribution, n_stay: int, n_boom: int, depth: int) -> int:
    """Work of the dictionary explosion, refused past MAX_OUTCOMES outcomes: level k has
    at most ``n_stay + n_boom * |level k - 1|`` outcomes, and at most ``C(k + b, b) * n``
    (a multiset of at most k of the b exploding faces, then any face), and for whole
    numbers at most the dense span; each pair costs a dictionary entry and a product of
    weights of about ``(k + 1) log2(total)`` bits. O(depth)."""
    n = len(die._w)
    lb = max(1.0, math.log2(max(2, die._total)))
    dense: float = math.inf
    if all(type(x) is int or type(x) is Fraction for x in die._w):
        # rational faces: every sum is a multiple of 1/L (L the denominators' lcm) in the
        # range a chain of 1 to depth + 1 faces can reach
        lo, hi = min(die._w), max(die._w)
        lower = lo if lo >= 0 else (depth + 1) * lo
        upper = hi if hi <= 0 else (depth + 1) * hi
        den = math.lcm(*(Fraction(x).denominator for x in die._w))
        dense = int((upper - lower) * den) + 1
    bound, multisets, work = n, 1, 0
    for k in range(1, depth + 1):
        work += (n_boom * bound + n_stay) * (limits.ENTRY_WORK + int((k + 1) * lb) // 64)
        if multisets <= MAX_OUTCOMES:
            multisets = multisets * (k + n_boom) // k  # C(k + b, b)
        bound = min(n_stay + n_boom * bound, multisets * n, dense)
        if bound > MAX_OUTCOMES:
            raise LimitError(
                f"exploding this die {depth} times can give {bound:,} outcomes after {k} "
                f"explosions (its {n} faces, {n_boom} of them exploding), more than "
                f"MAX_OUTCOMES = {MAX_OUTCOMES:,}; use fewer faces or a smaller depth",
                limit="MAX_OUTCOMES", value=bound)
    return work


def explode_work(n: int, total: int, depth: int) -> int:
    """Estimated work (units of :mod:`chancekit.limits`) of exploding a die spanning ``n``
    integer outcomes, of total weight ``total``, ``depth`` times: level r multiplies the
    die (n coefficients of log2(total) bits) by the chain so far (r (n - 1) + 1
    coefficients of about r log2(total) bits) -- flint's product, measured per coefficient
    pair and bit, or Kronecker substitution (:func:`~chancekit.limits.mul_work`) when that
    is cheaper -- plus passes over the chain (sum, content). Calibrated against measured
    CPU times (d2 to d1000, depths up to the largest allowed). O(depth).

    >>> explode_work(6, 6, 20) < explode_work(6, 6, 40) < explode_work(100, 100, 40)
    True
    """
    lb = max(1.0, math.log2(max(2, total)))
    # measured: flint's product of a die of n <= 6 coefficients by a long chain costs
    # about 0.03 ns per coefficient pair and bit (1/667 unit), 7 to 12 coefficients up to
    # 0.22 ns (1/90 unit), more 0.12 ns (1/167 unit); the sums, the value at 1 and the
    # content about 0.06 ns per bit (docs/performance.md, "Explosion depth")
    per = 667 if n <= 6 else 90 if n <= 12 else 167
    work = 0
    for r in range(1, depth + 1):
        length = r * (n - 1) + 1
        bits = int((r + 1) * lb + math.log2(n)) + 1
        work += min(n * length * bits // per, mul_work(n, length, bits)) + (
            length * bits // 333 + length * limits.ENTRY_WORK)
    return work


def max_explode_depth(n: int, total: int) -> int:
    """The largest depth whose :func:`explode_work` fits in ``MAX_WORK`` (at most
    ``MAX_EXPLODE_DEPTH``); O(depth log depth) arithmetic, no polynomial.

    >>> max_explode_depth(6, 6) > 500
    True
    """
    lo, hi = 0, MAX_EXPLODE_DEPTH
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if explode_work(n, total, mid) <= limits.MAX_WORK:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _tail(die: Distribution, fire: set[Any], depth: int) -> str:
    """The probability that a chain of ``depth`` extra dice still explodes, as a bound
    ("1e-300"), for the refusal message."""
    p = Fraction(sum(die._w[k] for k in fire), die._total)
    exp10 = (depth + 1) * math.log10(float(p)) if p else -math.inf
    return f"1e{math.ceil(exp10)}" if exp10 > -1e300 else "0"


def reroll(die: Distribution, on: Iterable[Any] | Callable[[Any], bool], *,
           depth: int | None = None) -> Distribution:
    """See :meth:`Distribution.reroll`."""
    match = die._face_set(on, "reroll")
    if depth is None:
        keep = {k: w for k, w in die._w.items() if k not in match}
        if not keep:
            raise InvalidValueError(
                "reroll: every face matches, so rerolling until no match never ends; "
                "give a finite depth")
        return Distribution._raw(keep)
    depth = _check_depth(depth)
    if not match or depth == 0:
        return die
    total = die._total
    m_weight = sum(w for k, w in die._w.items() if k in match)
    bits = len(die._w) * depth * max(1.0, math.log2(max(2, total)))
    if bits > MAX_WEIGHT_BITS:
        raise LimitError(
            f"rerolling {len(die._w)} outcomes {depth} times needs weights of about "
            f"{bits / 8 / 2**20:.0f} MiB, past MAX_WEIGHT_BITS = {MAX_WEIGHT_BITS}; use a "
            "smaller depth, or depth=None (reroll until no match)",
            limit="MAX_WEIGHT_BITS", value=bits)
    # closed form of `depth` rounds of "keep the face, or reroll on a match" (O(m)):
    # a kept face x ends with w_x * sum_{i<=depth} M**i * T**(depth-i), a matching face
    # with w_x * M**depth (M: weight of the matching faces, T: total weight)
    keep_factor = ((total ** (depth + 1) - m_weight ** (depth + 1)) // (total - m_weight)
                   if total != m_weight else 0)
    match_factor = m_weight**depth
    return Distribution._raw({k: w * (match_factor if k in match else keep_factor)
                              for k, w in die._w.items()})


def _check_depth(depth: int) -> int:
    depth = require_int("depth", depth, lo=0)
    if depth > MAX_EXPLODE_DEPTH:
        raise LimitError(
            f"depth {depth} is past MAX_EXPLODE_DEPTH = {MAX_EXPLODE_DEPTH}; use a smaller "
            "depth", limit="MAX_EXPLODE_DEPTH", value=depth)
    return depth


def _aligned_add(a: flint.fmpz_poly, oa: int, b: flint.fmpz_poly,
                 ob: int) -> tuple[flint.fmpz_poly, int]:
    """z**oa * a + z**ob * b as (poly, offset)."""
    base = min(oa, ob)
    return a.left_shift(oa - base) + b.left_shift(ob - base), base


# -- explosion depth caps carried by the value (docs: dice.caps) -------------------------
# CappedDistribution lives beside Distribution so that explode() can build it without an
# import cycle; how caps propagate through pools and notation stays in dice.caps.

Cap = tuple[Fraction, Fraction | None]
#: units of one outcome of a mean (three products and two sums of Python integers, in
#: C-level passes: about 0.1 us)
MOMENT_WORK = 6


def _cap(x: Any) -> Cap | None:
    return getattr(x, "_cap", None) if isinstance(x, Distribution) else None


def _umean(x: Any) -> Fraction | None:
    """The uncapped mean of a value (its mean when nothing was capped; a plain number is
    its own mean); ``None`` when unknown or not a number."""
    c = _cap(x)
    if c is not None:
        return c[1]
    if isinstance(x, Distribution):
        # (two sums over the outcomes: charged, as the step that made them was)
        _charge(len(x._w) * MOMENT_WORK, "the mean beside an explosion's cap")
        try:
            return Fraction(x.mean())
        except Exception:
            return None
    try:
        return Fraction(x)
    except (TypeError, ValueError):
        return None


def union(*masses: Fraction) -> Fraction:
    """The probability that at least one of independent events of these probabilities
    happens: ``1 - prod(1 - m)``."""
    keep = Fraction(1)
    for m in masses:
        keep *= 1 - m
    return 1 - keep


def attach(x: Distribution, capped: Fraction, umean: Fraction | None) -> Distribution:
    """``x`` with a capped mass and an uncapped mean (``x`` itself when nothing was
    capped). O(1): the weights are shared, not copied."""
    if not capped:
        return x if type(x) is Distribution else _plain(x)
    out = object.__new__(CappedDistribution)
    out._w, out._total, out._int = x._w, x._total, x._int
    out._hash = None
    out._cap = (Fraction(capped), umean)
    return out


def _plain(x: Distribution) -> Distribution:
    out = object.__new__(Distribution)
    out._w, out._total, out._int, out._hash = x._w, x._total, x._int, None
    return out


def combine(result: Distribution, a: Any, b: Any, op: str) -> Distribution:
    """``result = a op b`` (independent) with the caps of ``a`` and ``b`` carried over
    (module docstring). O(1)."""
    ca, cb = _cap(a), _cap(b)
    if ca is None and cb is None:
        return result
    mass = union(ca[0] if ca else Fraction(0), cb[0] if cb else Fraction(0))
    um: Fraction | None = None
    if op in ("+", "-"):
        ua, ub = _umean(a), _umean(b)
        if ua is not None and ub is not None:
            um = ua + ub if op == "+" else ua - ub
    elif op in ("*", "/"):
        scalar_b = not isinstance(b, Distribution) or len(b.weights) == 1
        scalar_a = not isinstance(a, Distribution) or len(a.weights) == 1
        ua, ub = _umean(a), _umean(b)
        if ua is not None and ub is not None and (scalar_a or scalar_b):
            if op == "*":
                um = ua * ub
            elif scalar_b and ub:
                um = ua / ub
    return attach(result, mass, um)


def unary(result: Distribution, x: Any, op: str) -> Distribution:
    """``result = op(x)`` for ``-`` (the mean negated) and any other map (mean unknown)."""
    c = _cap(x)
    if c is None:
        return result
    um = -c[1] if op == "-" and c[1] is not None else (c[1] if op == "+" else None)
    return attach(result, c[0], um)


def mixture(result: Distribution, parts: Sequence[Distribution],
            weights: Sequence[int]) -> Distribution:
    """``result``, the mixture of ``parts`` with ``weights``: the weighted averages."""
    if all(_cap(p) is None for p in parts):
        return result
    total = sum(weights)
    mass = sum((Fraction(w, total) * (_cap(p) or (Fraction(0), None))[0]
                for p, w in zip(parts, weights, strict=True)), Fraction(0))
    ums = [_umean(p) for p in parts]
    um = None if any(u is None for u in ums) else sum(
        (Fraction(w, total) * u for u, w in zip(ums, weights, strict=True)),  # type: ignore[operator]
        Fraction(0))
    return attach(result, mass, um)


def repeat(result: Distribution, x: Distribution, n: int) -> Distribution:
    """``result = n @ x``."""
    c = _cap(x)
    if c is None or n == 0:
        return result
    return attach(result, 1 - (1 - c[0]) ** n, None if c[1] is None else n * c[1])


def explode_cap(die: Distribution, fire: set[Any], depth: int) -> Cap:
    """The cap of ``die`` exploding on the faces ``fire`` with at most ``depth`` extra
    dice: the chain reaches the cap with probability ``p ** (depth + 1)``; the uncapped
    mean is ``mean / (1 - p)`` (``None`` for non-numeric faces or p = 1). A die that
    already carried a cap: at most ``depth + 1`` of its draws, so
    ``1 - (1 - q)(1 - c) ** (depth + 1)`` bounds the mass."""
    p = Fraction(sum(die._w[k] for k in fire), die._total)
    q = p ** (depth + 1)
    before = _cap(die)
    if before is not None:
        q = 1 - (1 - q) * (1 - before[0]) ** (depth + 1)
    m = _umean(die)
    um = None if m is None or p == 1 else m / (1 - p)
    return q, um


class CappedDistribution(Distribution):
    """A :class:`Distribution` some of whose mass reached an explosion depth cap (module
    docstring): ``capped_mass`` and ``uncapped_mean`` say how much and what the mean is
    without the cap. Arithmetic and comparisons carry them to their results."""

    __slots__ = ("_cap",)

    _cap: Cap

    @property
    def capped_mass(self) -> Fraction:
        """The probability that some explosion chain reached its depth cap."""
        c = _cap(self)  # (a classmethod called on this class builds one without a cap)
        return Fraction(0) if c is None else c[0]

    @property
    def uncapped_mean(self) -> Fraction | None:
        """The exact mean without the depth cap, where it has a closed form."""
        c = _cap(self)
        return Distribution.uncapped_mean.fget(self) if c is None else c[1]  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return super().__repr__()

    def __reduce__(self) -> tuple[Any, ...]:
        # pickles keep the cap (Distribution's own __reduce__ would rebuild a plain one)
        c = _cap(self)
        if c is None:
            return (Distribution, (dict(self._w),))
        return (_unpickle, (dict(self._w), c[0], c[1]))


def _unpickle(weights: dict[Any, int], capped: Fraction,
              umean: Fraction | None) -> Distribution:
    return attach(Distribution(weights), capped, umean)


def _binary(name: str, op: str, swap: bool = False) -> Callable[..., Any]:
    base = getattr(Distribution, name)

    def method(self: CappedDistribution, other: Any) -> Any:
        r = base(self, other)
        if not isinstance(r, Distribution):
            return r
        return combine(r, other, self, op) if swap else combine(r, self, other, op)

    method.__name__ = name
    method.__doc__ = f"As :meth:`Distribution.{name}`, carrying the cap (module docstring)."
    return method


for _name, _op, _swap in (
        ("__add__", "+", False), ("__radd__", "+", True), ("__sub__", "-", False),
        ("__rsub__", "-", True), ("__mul__", "*", False), ("__rmul__", "*", True),
        ("__truediv__", "/", False), ("__rtruediv__", "/", True),
        ("__floordiv__", "//", False), ("__rfloordiv__", "//", True),
        ("__mod__", "%", False), ("__rmod__", "%", True), ("max", "max", False),
        ("min", "min", False), ("lt", "<", False), ("le", "<=", False), ("gt", ">", False),
        ("ge", ">=", False), ("eq", "==", False), ("ne", "!=", False),
        ("__lt__", "<", False), ("__le__", "<=", False), ("__gt__", ">", False),
        ("__ge__", ">=", False)):
    setattr(CappedDistribution, _name, _binary(_name, _op, _swap))


def _neg(self: CappedDistribution) -> Distribution:
    return unary(Distribution.__neg__(self), self, "-")


def _map(self: CappedDistribution, f: Callable[[Any], Any]) -> Distribution:
    return unary(Distribution.map(self, f), self, "map")


def _abs(self: CappedDistribution) -> Distribution:
    return unary(Distribution.__abs__(self), self, "abs")


def _rmatmul(self: CappedDistribution, n: Any) -> Distribution:
    r = Distribution.__rmatmul__(self, n)
    return r if r is NotImplemented else repeat(r, self, int(n))


def _repeat_sum(self: CappedDistribution, n: int) -> Distribution:
    return repeat(Distribution.repeat_sum(self, n), self, n)


def _clamp(self: CappedDistribution, lo: Any = None, hi: Any = None) -> Distribution:
    return unary(Distribution.clamp(self, lo, hi), self, "map")


def _reroll(self: CappedDistribution, on: Any, *, depth: int | None = None) -> Distribution:
    return unary(Distribution.reroll(self, on, depth=depth), self, "map")


CappedDistribution.__neg__ = _neg  # type: ignore[method-assign]
CappedDistribution.map = _map  # type: ignore[method-assign]
CappedDistribution.__abs__ = _abs  # type: ignore[method-assign]
CappedDistribution.__rmatmul__ = _rmatmul  # type: ignore[method-assign]
CappedDistribution.repeat_sum = _repeat_sum  # type: ignore[method-assign]
CappedDistribution.clamp = _clamp  # type: ignore[method-assign]
CappedDistribution.reroll = _reroll  # type: ignore[method-assign]
