"""Shape and distance statistics of exact distributions.

``central_moment(d, k)`` is exact (a :class:`~fractions.Fraction`). The standardized
moments are irrational in general (``mu3 / mu2**1.5``), so :func:`skewness` and
:func:`kurtosis` return floats computed from the *exact* central moments, rounded once:
``skewness**2 = mu3**2 / mu2**3`` is formed exactly, converted, and its square root
taken; the excess kurtosis ``mu4 / mu2**2 - 3`` is rational, so
``kurtosis(d, exact=True)`` returns it as a Fraction. :func:`shape` gives mean, variance,
skewness and kurtosis from one pass. Distances between two distributions are exact
Fractions: Kolmogorov–Smirnov (the largest gap between the two CDFs) and total variation
(half the L1 distance of the pmfs).

>>> from chancekit.dice import d
>>> from chancekit.dice.stats import kurtosis, ks_distance, skewness, tv_distance
>>> skewness(d(6)), kurtosis(d(6), exact=True)
(0.0, Fraction(-222, 175))
>>> round(skewness(d(20).max(d(20))), 4)
-0.572
>>> ks_distance(2 @ d(6), d(12)), tv_distance(d(4), d(6))
(Fraction(1, 6), Fraction(1, 3))

Cost: everything is done in integers, with one gcd at the end. The moments are one pass
over the outcomes forming the power sums ``sum w * x**j`` (small-by-big products; the
central moments follow by the binomial formula), so 10000d6 (50 001 weights of 26 000
bits) takes about 0.3 s; the distances walk the union of the two outcome sets once,
sorted, adding weight differences scaled to the common total (10000d6 against itself
shifted by one: about 0.2 s each). When the two totals share few factors (10000d6 against
9000d7) each scaled weight would be a big-by-big product, so the sign of each difference
is read from logarithms (exactly on a near tie), and only the sums and the gaps where the
sign changes are formed exactly: 0.3 s for both. Fraction arithmetic per outcome (a gcd
per step) took seconds for the moments and minutes for the distances.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import Any

from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution, _big_gcd, _coprime_fraction
from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.limits import ENTRY_WORK, SHAPE_WORK

__all__ = ["central_moment", "ks_distance", "kurtosis", "shape", "shape_work", "skewness",
           "tv_distance"]


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


def _power_sums(d: Distribution, k: int) -> tuple[int, list[int]]:
    """``(L, [S_0, ..., S_k])``: ``S_j = sum w * (L*x)**j`` over the outcomes, in integers
    (``L`` the common denominator of the outcomes, 1 for ints; ``S_0`` the total). One
    pass of small-by-big products: 10000d6 (26 000-bit weights) in about 0.3 s for k=4,
    where Fraction arithmetic per outcome took seconds (a gcd per step)."""
    items = list(d.items())
    if not all(type(x) is int for x, _ in items):
        pairs = _numeric(d)
        den = 1
        for x, _ in pairs:
            if x.denominator != 1:
                den = math.lcm(den, x.denominator)
        items = [(x.numerator * (den // x.denominator), w) for x, w in pairs]
    else:
        den = 1
    sums = [0] * (k + 1)
    for y, w in items:
        t = w
        sums[0] += t
        for j in range(1, k + 1):
            t *= y
            sums[j] += t
    return den, sums


def _central_numerators(sums: list[int]) -> list[int]:
    """``A_k = sum_j C(k, j) T**j S_j (-S_1)**(k-j)`` for k = 0..len(sums)-1, so that the
    k-th central moment is ``A_k / (T**(k+1) * L**k)`` (integers only)."""
    t, s1 = sums[0], sums[1]
    out = []
    for k in range(len(sums)):
        out.append(sum(math.comb(k, j) * t ** j * sums[j] * (-s1) ** (k - j)
                       for j in range(k + 1)))
    return out


def _fraction(n: int, m: int) -> Fraction:
    """``Fraction(n, m)`` (m > 0), reduced with flint's gcd when the numbers are large."""
    if max(n.bit_length(), m.bit_length()) < 4000:
        return Fraction(n, m)
    g = _big_gcd(abs(n), m) if n else m
    return _coprime_fraction(n // g, m // g)


def _big_ratio(n: int, m: int) -> float:
    """``n / m`` as a correctly rounded float (n >= 0, m > 0); ``inf`` past the float
    range (int / int is exact-then-rounded in Python)."""
    try:
        return n / m
    except OverflowError:
        return math.inf


def _signed_ratio(n: int, m: int) -> float:
    """``n / m`` for any sign of n (m > 0), correctly rounded; +-inf past the float range."""
    r = _big_ratio(abs(n), m)
    return -r if n < 0 else r


def central_moment(d: Distribution, k: int) -> Fraction:
    """The exact k-th central moment ``E[(X - mean)**k]`` (k >= 1), a Fraction.

    >>> from chancekit.dice import d
    >>> central_moment(d(6), 2)
    Fraction(35, 12)
    """
    d = _check("d", d)
    k = require_int("k", k, lo=1, hi=64)
    den, sums = _power_sums(d, k)
    a = _central_numerators(sums)[k]
    return _fraction(a, sums[0] ** (k + 1) * den ** k)


def _shape(d: Distribution, what: str) -> tuple[int, list[int]]:
    """``(T, [A_0..A_4])`` (see :func:`_central_numerators`), refusing a constant."""
    d = _check("d", d)
    _, sums = _power_sums(d, 4)
    a = _central_numerators(sums)
    if a[2] == 0:
        raise InvalidValueError("d", d, f"a distribution with positive variance ({what} of "
                                "a constant is undefined)")
    return sums[0], a


def _skewness(t: int, a: list[int]) -> float:
    # skewness**2 = mu3**2 / mu2**3 = A3**2 * T / A2**3: one rounding, then a square root
    if a[3] == 0:
        return 0.0
    root = math.sqrt(_big_ratio(a[3] * a[3] * t, a[2] ** 3))
    return -root if a[3] < 0 else root


def _kurtosis(t: int, a: list[int]) -> tuple[int, int]:
    # mu4 / mu2**2 - 3 = (A4 * T - 3 * A2**2) / A2**2
    sq = a[2] * a[2]
    return a[4] * t - 3 * sq, sq


def skewness(d: Distribution) -> float:
    """The skewness ``mu3 / mu2**1.5`` as a float, from the exact central moments (the
    square of the skewness is rational; it is rounded once, then its square root taken;
    ``inf`` past the float range).

    >>> from chancekit.dice import d
    >>> round(skewness(d(6).explode()), 4)
    2.0911
    """
    return _skewness(*_shape(d, "skewness"))


def kurtosis(d: Distribution, *, exact: bool = False) -> float | Fraction:
    """The excess kurtosis ``mu4 / mu2**2 - 3`` (0 for a normal law): a float (correctly
    rounded; ``inf`` past the float range), or the exact Fraction with ``exact=True`` (it
    is rational).

    >>> from chancekit.dice import d
    >>> kurtosis(d(2))
    -2.0
    """
    n, m = _kurtosis(*_shape(d, "kurtosis"))
    if exact:
        return _fraction(n, m)
    return _signed_ratio(n, m)


def shape_work(d: Distribution) -> int:
    """Estimated work (units of about 20 ns, :mod:`chancekit.limits`) of the exact
    :func:`shape` of ``d``, made before it starts in O(outcomes) bit-length reads: per
    outcome the four products ``t *= y`` of the power sums, each (digits of ``t``) x
    (digits of ``y``) 30-bit digit products (about 1.8 ns each, measured) where ``t``
    grows from the weight's bits by the bits of ``y`` (the outcome times the outcomes'
    common denominator, bounded by the sum of the distinct denominators' bits); then,
    once, the central moments and their fractions, about 7 x (64-bit words of the total)^2
    (a die of 21 outcomes with a 786,000-bit total took 20 s exactly: now rounded floats).

    >>> from chancekit.dice import d
    >>> shape_work(3 @ d(6)) < 10_000 < shape_work(100 @ d(1000))
    True
    """
    items = d.weights
    n = len(items)
    if not n:
        return 0
    wbits = sum(w.bit_length() for w in items.values()) // n + 1
    outs = d.outcomes()
    if all(type(x) is int for x in (outs[0], outs[-1])) and d._int:
        ybits = max(abs(outs[0]), abs(outs[-1])).bit_length() + 1
    else:
        dens: set[int] = set()
        top = 0
        for x in outs:
            den = getattr(x, "denominator", 1)
            num = getattr(x, "numerator", 0)
            if isinstance(den, int) and isinstance(num, int):
                dens.add(den)
                top = max(top, abs(num).bit_length() - den.bit_length())
        ybits = top + sum(q.bit_length() for q in dens) + 2
    yd = ybits // 30 + 1
    digit_products = sum(((wbits + j * ybits) // 30 + 1) * yd for j in range(4))
    # the central moments and their fractions from the sums, once: products, divisions
    # and gcds of numbers a few times as wide as the total, quadratic in its words
    # (measured: 20 s for a 786,000-bit total over 21 outcomes, 149c7's die at 18 rounds)
    tw = (d.total.bit_length() + 4 * ybits) // 64 + 1
    return n * (6 * ENTRY_WORK + digit_products * 9 // 100) + 7 * tw * tw


def shape(d: Distribution) -> dict[str, Any]:
    """Mean, variance, skewness and excess kurtosis from **one** pass over the outcomes
    (the four power sums, in integers): ``{"mean": Fraction, "variance": Fraction,
    "skewness": float | None, "kurtosis": Fraction | None, "kurtosis_float": float |
    None, "exact": bool}`` (``None`` for a constant, where they are undefined). A
    distribution over anything but numbers raises
    :class:`~chancekit.errors.InvalidValueError`. 10000d6 in about 0.3 s.

    The cost of the exact moments is estimated first (:func:`shape_work`); past
    :data:`chancekit.limits.SHAPE_WORK` (about half a second: huge weights over outcomes
    with a huge common denominator took 51 s for ``5/1D914!<-4e>1ro1``) only the mean is
    exact and the rest is computed in fixed point with a proven error bound, the
    precision doubled until each float is certain: ``variance`` is then a float,
    ``skewness`` and ``kurtosis_float`` are the same correctly rounded floats, the exact
    ``kurtosis`` is None and ``exact`` is False (docs/limits.md, "Summary statistics").

    >>> from chancekit.dice import d
    >>> s = shape(3 @ d(6))
    >>> s["mean"], s["variance"], s["skewness"], s["kurtosis"], s["exact"]
    (Fraction(21, 2), Fraction(35, 4), 0.0, Fraction(-74, 175), True)
    """
    d = _check("d", d)
    if shape_work(d) > SHAPE_WORK:
        return _rounded_shape(d)
    den, sums = _power_sums(d, 4)
    t = sums[0]
    a = _central_numerators(sums)
    out: dict[str, Any] = {
        "mean": _fraction(sums[1], t * den),
        "variance": _fraction(a[2], t ** 3 * den * den),
        "skewness": None, "kurtosis": None, "kurtosis_float": None, "exact": True}
    if a[2]:
        n, m = _kurtosis(t, a)
        out["skewness"] = _skewness(t, a)
        out["kurtosis"] = _fraction(n, m)
        out["kurtosis_float"] = _signed_ratio(n, m)
    return out


# ---------------------------------------------------------------- certified floats
class _Iv:
    """A closed interval of rationals [lo, hi] (exact Fraction endpoints) with the few
    operations the central moments need."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: Fraction, hi: Fraction | None = None) -> None:
        self.lo, self.hi = lo, lo if hi is None else hi

    def __add__(self, o: _Iv) -> _Iv:
        return _Iv(self.lo + o.lo, self.hi + o.hi)

    def __sub__(self, o: _Iv) -> _Iv:
        return _Iv(self.lo - o.hi, self.hi - o.lo)

    def __mul__(self, o: _Iv) -> _Iv:
        ps = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return _Iv(min(ps), max(ps))

    def scale(self, c: int) -> _Iv:
        return _Iv(self.lo * c, self.hi * c) if c >= 0 else _Iv(self.hi * c, self.lo * c)

    def div(self, o: _Iv) -> _Iv | None:
        """self / o, or None when o may be 0."""
        if o.lo <= 0 <= o.hi:
            return None
        return self * _Iv(1 / o.hi, 1 / o.lo)


def _one_float(iv: _Iv | None) -> float | None:
    """The float both ends round to (Fraction -> float rounds correctly), else None."""
    if iv is None:
        return None
    try:
        lo, hi = float(iv.lo), float(iv.hi)
    except OverflowError:
        return None
    return lo if lo == hi else None


def _fractions(d: Distribution) -> list[tuple[int, int, int]]:
    """``(numerator, denominator, weight)`` of every outcome (ints; O(outcomes))."""
    out = []
    for x, w in d.items():
        if type(x) is int:
            out.append((x, 1, w))
        else:
            q = _numeric(Distribution._raw({x: 1}))[0][0] if not isinstance(
                x, numbers.Rational) or isinstance(x, bool) else x
            out.append((int(q.numerator), int(q.denominator), w))
    return out


def _exact_mean(items: list[tuple[int, int, int]], total: int) -> Fraction:
    """The exact mean as a Fraction by a balanced tree of exact rational sums (C gcds),
    whatever the outcomes' common denominator."""
    from chancekit import _exact as flint

    fmpq = flint.fmpq
    terms = [fmpq(w * a, b) for a, b, w in items]
    while len(terms) > 1:
        terms = [terms[i] + terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    q = terms[0] / total
    return _fraction(int(q.p), int(q.q))


def _rounded_shape(d: Distribution) -> dict[str, Any]:
    """:func:`shape` past SHAPE_WORK: the mean exact; the central moments in fixed point
    with proven error bounds (probabilities to ``prec`` bits, outcomes about the mean to
    ``prec`` bits), the precision doubled until the variance, skewness squared and
    kurtosis each round to one float (at most 4096 bits: then the nearest estimate).
    O(outcomes) small-integer products per precision."""
    items = _fractions(d)
    total = d.total
    mean = _exact_mean(items, total)
    out: dict[str, Any] = {"mean": mean, "variance": None, "skewness": None,
                           "kurtosis": None, "kurtosis_float": None, "exact": False}
    n = len(items)
    cn = round(mean * 2**64)  # c = cn / 2**64, a dyadic close to the mean
    c = Fraction(cn, 2**64)
    # y = x - c = (a * 2**64 - cn * b) / (b * 2**64) for x = a / b
    ys = [((a << 64) - cn * b, b << 64, w) for a, b, w in items]
    amax = max(-(-abs(p) // q) for p, q, _ in ys) + 1  # >= every |y|
    prec = 128
    while True:
        ps = rs = prec  # bits of the probabilities, bits of the outcomes
        sums = [0] * 5
        for p, q, w in ys:
            t = (w << ps) // total  # the probability in [t, t + 1) / 2**ps
            a = (p << rs) // q  # y in [a, a + 1) / 2**rs
            t *= a
            sums[1] += t
            t *= a
            sums[2] += t
            t *= a
            sums[3] += t
            sums[4] += t * a
        # M_j = sum p y**j within err_j: the probabilities' floor (n terms of amax**j /
        # 2**ps) and the outcomes' floor (j amax**(j-1) / 2**rs, as the p sum to 1)
        ms = [_Iv(Fraction(1))]
        for j in range(1, 5):
            mid = Fraction(sums[j], 1 << (ps + j * rs))
            err = Fraction(n * amax**j, 1 << ps) + Fraction(j * amax**(j - 1), 1 << rs)
            ms.append(_Iv(mid - err, mid + err))
        dl = ms[1]  # the true mean minus c
        mu2 = ms[2] - dl * dl
        mu3 = ms[3] - (dl * ms[2]).scale(3) + (dl * dl * dl).scale(2)
        mu4 = (ms[4] - (dl * ms[3]).scale(4) + (dl * dl * ms[2]).scale(6)
               - (dl * dl * dl * dl).scale(3))
        var = _one_float(mu2)
        skew2 = (mu3 * mu3).div(mu2 * mu2 * mu2)
        kurt = mu4.div(mu2 * mu2)
        kurt = None if kurt is None else kurt - _Iv(Fraction(3))
        s2, k = _one_float(skew2), _one_float(kurt)
        sign_known = mu3.lo > 0 or mu3.hi < 0
        if (var is not None and s2 is not None and k is not None
                and (sign_known or s2 == 0.0)) or prec >= 4096:
            break
        prec *= 2
    del c
    if mu2.hi <= 0:  # a constant: nothing past the mean
        out["variance"] = 0.0
        return out
    out["variance"] = var if var is not None else float((mu2.lo + mu2.hi) / 2)
    if s2 is None and skew2 is not None:
        s2 = float((skew2.lo + skew2.hi) / 2)
    if s2 is not None:
        root = math.sqrt(max(0.0, s2))
        out["skewness"] = -root if mu3.hi < 0 else root
    if k is None and kurt is not None:
        k = float((kurt.lo + kurt.hi) / 2)
    out["kurtosis_float"] = k
    return out


def _cdf_points(a: Distribution, b: Distribution) -> list[Any]:
    try:
        return sorted(set(a.weights) | set(b.weights))
    except TypeError:
        raise InvalidValueError("a, b", (a, b), "distributions over mutually ordered "
                                "outcomes (a CDF needs an order)") from None


def _scales(a: Distribution, b: Distribution) -> tuple[int, int, int]:
    """``(ma, mb, L)``: weights times ``ma`` (of ``a``) and ``mb`` (of ``b``) are counts out
    of the common total ``L = lcm(total_a, total_b)``, so differences are integers."""
    ta, tb = a.total, b.total
    g = _big_gcd(ta, tb) if min(ta.bit_length(), tb.bit_length()) >= 4000 \
        else math.gcd(ta, tb)
    return tb // g, ta // g, ta // g * tb


#: past this many bits a weight scale makes every product a big-by-big multiplication: the
#: distances then decide the sign of each difference from logarithms (exactly on a near tie)
_SMALL_SCALE_BITS = 64


def _sign(x: int, y: int, lma: float, lmb: float, ma: int, mb: int) -> int:
    """The sign of ``x*ma - y*mb`` (x, y >= 0): from logarithms, exactly only on a near tie
    (each log is within a few ulps, so the margin is relative)."""
    if not y:
        return 1 if x else 0
    if not x:
        return -1
    lx, ly = math.log(x) + lma, math.log(y) + lmb
    gap = lx - ly
    if abs(gap) > 1e-13 * (abs(lx) + abs(ly) + abs(lma) + abs(lmb)) + 1e-12:
        return 1 if gap > 0 else -1
    v = x * ma - y * mb
    return (v > 0) - (v < 0)


def _signed_steps(a: Distribution, b: Distribution, xs: Iterable[Any], ma: int, mb: int
                  ) -> Iterator[tuple[int, int, int]]:
    """``(weight in a, weight in b, sign of the scaled difference)`` per outcome of ``xs``."""
    wa, wb = a.weights, b.weights
    lma, lmb = math.log(ma), math.log(mb)
    for x in xs:
        u, v = wa.get(x, 0), wb.get(x, 0)
        yield u, v, _sign(u, v, lma, lmb, ma, mb)


def ks_distance(a: Distribution, b: Distribution) -> Fraction:
    """The Kolmogorov–Smirnov distance ``max_x |F_a(x) - F_b(x)|``, exact.

    >>> from chancekit.dice import d
    >>> ks_distance(d(6), d(6) + 1)
    Fraction(1, 6)
    """
    a, b = _check("a", a), _check("b", b)
    xs = _cdf_points(a, b)
    ma, mb, total = _scales(a, b)
    wa, wb = a.weights, b.weights
    best = 0  # in units of 1/total: integers only, one gcd at the end
    if max(ma.bit_length(), mb.bit_length()) <= _SMALL_SCALE_BITS:
        gap = 0
        for x in xs:
            gap += wa.get(x, 0) * ma - wb.get(x, 0) * mb
            if abs(gap) > best:
                best = abs(gap)
        return _fraction(best, total)
    # big scales: the gap F_a - F_b only peaks where its step changes sign, so the exact
    # gap (two big products) is needed at those outcomes only; the CDFs are integer sums
    ca = cb = 0
    last = None
    for u, v, sign in _signed_steps(a, b, xs, ma, mb):
        if last is not None and sign != last:
            best = max(best, abs(ca * ma - cb * mb))
        ca += u
        cb += v
        last = sign
    return _fraction(best, total)


def tv_distance(a: Distribution, b: Distribution) -> Fraction:
    """The total variation distance ``(1/2) sum_x |p_a(x) - p_b(x)|``, exact (outcomes need
    not be ordered).

    >>> from chancekit.dice import d
    >>> tv_distance(d(6), d(6))
    Fraction(0, 1)
    """
    a, b = _check("a", a), _check("b", b)
    ma, mb, total = _scales(a, b)
    wa, wb = a.weights, b.weights
    if max(ma.bit_length(), mb.bit_length()) <= _SMALL_SCALE_BITS:
        gaps = sum(abs(w * ma - wb.get(x, 0) * mb) for x, w in wa.items())
        gaps += sum(w * mb for x, w in wb.items() if x not in wa)
        return _fraction(gaps, 2 * total)
    # big scales: sum |diff| = (A+ - A-) * ma - (B+ - B-) * mb, with A+/B+ the weights where
    # a is the likelier: only the signs per outcome, then four sums and two products
    sa = sb = 0
    xs = list(wa) + [x for x in wb if x not in wa]
    for u, v, sign in _signed_steps(a, b, xs, ma, mb):
        if sign > 0:
            sa += u
            sb += v
        elif sign < 0:
            sa -= u
            sb -= v
    return _fraction(sa * ma - sb * mb, 2 * total)
