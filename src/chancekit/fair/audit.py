"""Rate audits (issue #30): test published drop rates against observed pulls, exactly.

- :func:`audit_counts`: counts per value against published chances. Two values: the
  two-sided exact binomial test as ``scipy.stats.binomtest`` defines it (the chances of
  every count no more likely than the one observed, a relative tolerance of 1e-7 for
  ties, as scipy); more values: the exact multinomial test (every count vector no more
  likely than the observed one), enumerated in integers.
- :func:`audit_log`: a pull log under a pity system (or any system with a bounded state):
  the exact distribution of the number of rares in that many pulls from the log's start
  state (one forward pass over the system's exact chain), the log's own chance (zero if
  a pull was impossible, e.g. a common at hard pity), and, for the gaps between rares,
  an exact binomial test of the share of gaps shorter than the published median gap.
- :func:`clopper_pearson`: the exact interval of a rate, by bisection on the exact
  binomial tail at dyadic rationals, to 2**-40 and rounded outwards (so the returned
  interval contains the exact Clopper-Pearson one; no scipy at run time).

All chances are exact Fractions; a float rate is read as the decimal it was written as
(``0.006`` is 3/500).

>>> a = audit_counts({"5-star": 3, "other": 997}, {"5-star": 0.006, "other": 0.994})
>>> round(float(a.p_value), 4), a.verdict
(0.3025, 'consistent with the published rates at 1% (p = 0.3)')
>>> lo, hi = a.intervals["5-star"]
>>> round(float(lo), 5), round(float(hi), 5)
(0.00062, 0.00874)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from chancekit._validate import require_fraction, require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError, quote
from chancekit.fair.systems import System
from chancekit.limits import (
    MAX_AUDIT_PULLS,
    MAX_AUDIT_STEPS,
    MAX_MULTINOMIAL_CELLS,
)

__all__ = ["MAX_AUDIT_PULLS", "MAX_MULTINOMIAL_CELLS", "Audit", "audit_counts", "audit_log",
           "binomial_test", "clopper_pearson"]

#: bits of the bisection of the Clopper-Pearson interval (its endpoints to 2**-40)
CP_BITS = 40
#: scipy's relative tolerance for ties in the two-sided exact tests (1 + 1e-7)
_RERR = Fraction(10**7 + 1, 10**7)


def _rate(x: Any, what: str) -> Fraction:
    return require_fraction(what, x)


def _count(x: Any, what: str) -> int:
    return require_int(what, x, lo=0, hi=MAX_AUDIT_PULLS)


# --------------------------------------------------------------------------- binomial
def _binomial_terms(n: int, p: Fraction) -> tuple[list[int], int]:
    """``T_i = C(n, i) a**i b**(n - i)`` for p = a / D, b = D - a, and D**n: P(X = i) =
    T_i / D**n. O(n) big-integer operations (each term from the last)."""
    a, den = p.numerator, p.denominator
    b = den - a
    if a == 0 or b == 0:
        hit = n if b == 0 else 0
        return [1 if i == hit else 0 for i in range(n + 1)], 1
    t = b**n
    out = [t]
    for i in range(n):
        t = t * (n - i) * a // ((i + 1) * b)
        out.append(t)
    return out, den**n


def binomial_test(k: int, n: int, p: Any) -> Fraction:
    """The two-sided exact binomial p-value of ``k`` successes in ``n`` trials at rate
    ``p``, as ``scipy.stats.binomtest(k, n, p).pvalue`` defines it: the total chance of
    every count whose chance is at most the observed one's times 1 + 1e-7; exact. O(n)
    big-integer operations.

    >>> binomial_test(3, 10, Fraction(1, 2))
    Fraction(11, 32)
    """
    n = _count(n, "n")
    k = require_int("k", k, lo=0, hi=n)
    p = _rate(p, "p")
    terms, den = _binomial_terms(n, p)
    if k * p.denominator == p.numerator * n:
        return Fraction(1)
    bar = terms[k] * _RERR
    tot = sum(t for t in terms if t <= bar)
    return min(Fraction(1), Fraction(tot, den))


def _tail_le(k: int, n: int, m: int, bits: int) -> tuple[int, int]:
    """P(X <= k) for X ~ Binomial(n, m / 2**bits), exact, as (numerator, denominator)."""
    a, b = m, (1 << bits) - m
    if a == 0:
        return 1, 1
    if b == 0:
        return (1 if k >= n else 0), 1
    den = 1 << (bits * n)
    if k < 0:
        return 0, den
    if k >= n:
        return den, den
    if k + 1 <= n - k:  # the terms i = 0..k, each from the last
        t = b**n
        tot = t
        for i in range(k):
            t = t * (n - i) * a // ((i + 1) * b)
            tot += t
        return tot, den
    t = a**n  # the other side: 1 - the terms i = k+1..n, from i = n down
    tot = t
    for i in range(n, k + 1, -1):
        t = t * i * b // ((n - i + 1) * a)
        tot += t
    return den - tot, den


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        dl = d * c
        h *= dl
        if abs(dl - 1.0) < 1e-16:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b) in floats (a guess only: every answer
    is certified by the exact tail)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
           + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def _float_root(f: Any, increasing: bool, alpha: float) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if (f(mid) < alpha) == increasing:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(k: int, n: int, confidence: Any = Fraction(95, 100)
                    ) -> tuple[Fraction, Fraction]:
    """The exact (Clopper-Pearson) interval of a rate with ``k`` successes in ``n``
    trials: the lower end is the rate at which P(X >= k) = (1 - confidence) / 2, the upper
    the one at which P(X <= k) = (1 - confidence) / 2.

    Certified, without scipy: a float guess of each end (the incomplete beta function by
    its continued fraction), then a dyadic bracket of width 2**-40 around it checked on
    the exact binomial tail (integers), widened until it holds; each end is returned
    rounded outwards (the result contains the exact interval and is at most 2**-40 wider
    at each end). Cost: about 4 exact tails an end, each O(k) big-integer operations of
    about n x 40 bits (n = 1000: milliseconds; n = 10**4: about a second).

    >>> lo, hi = clopper_pearson(3, 10)
    >>> round(float(lo), 6), round(float(hi), 6)
    (0.06674, 0.652453)
    """
    n = _count(n, "n")
    k = require_int("k", k, lo=0, hi=n)
    conf = _rate(confidence, "confidence")
    if not 0 < conf < 1:
        raise InvalidValueError("confidence", confidence, "a level 0 < confidence < 1")
    if n == 0:
        return Fraction(0), Fraction(1)
    alpha = (1 - conf) / 2
    bits = CP_BITS
    one = 1 << bits

    def below(m: int, tail: Any) -> bool:
        """tail(m) < alpha, exactly."""
        num, den = tail(m)
        return num * alpha.denominator < alpha.numerator * den

    def bracket(tail: Any, increasing: bool, guess: float) -> tuple[int, int]:
        """Dyadic numerators lo < hi, hi - lo = 1, with the root of the monotone exact
        tail between them (tail < alpha on the lo side when increasing)."""
        g = min(max(int(guess * one), 0), one)
        w = 2
        while True:  # widen around the guess until the exact tail brackets the root
            lo, hi = max(0, g - w), min(one, g + w)
            ok_lo = lo == 0 or below(lo, tail) == increasing
            ok_hi = hi == one or below(hi, tail) != increasing
            if ok_lo and ok_hi:
                break
            w *= 16
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if below(mid, tail) == increasing:
                lo = mid
            else:
                hi = mid
        return lo, hi

    def ge(m: int) -> tuple[int, int]:  # P(X >= k) at m / 2**bits
        num, den = _tail_le(k - 1, n, m, bits)
        return den - num, den

    def le(m: int) -> tuple[int, int]:  # P(X <= k)
        return _tail_le(k, n, m, bits)

    fa = float(alpha)
    if k == 0:
        lower = Fraction(0)
    else:  # P(X >= k | p) = I_p(k, n - k + 1) rises with p
        guess = _float_root(lambda x: _betainc(k, n - k + 1, x), True, fa)
        lower = Fraction(bracket(ge, True, guess)[0], one)
    if k == n:
        upper = Fraction(1)
    else:  # P(X <= k | p) = 1 - I_p(k + 1, n - k) falls with p
        guess = _float_root(lambda x: 1.0 - _betainc(k + 1, n - k, x), False, fa)
        upper = Fraction(bracket(le, False, guess)[1], one)
    return lower, upper


# --------------------------------------------------------------------------- multinomial
def _multinomial_p(counts: Sequence[int], probs: Sequence[Fraction]) -> Fraction:
    """The exact multinomial test: the chance of every count vector no more likely than
    ``counts``. Integers: P(x) = n! / prod x_i! prod a_i**x_i / D**n."""
    n = sum(counts)
    m = len(counts)
    den = math.lcm(*(p.denominator for p in probs))
    a = [int(p * den) for p in probs]
    cells = math.comb(n + m - 1, m - 1)
    if cells > MAX_MULTINOMIAL_CELLS:
        raise LimitError(f"the exact multinomial test of {n:,} pulls over {m} values "
                         f"enumerates {cells:,} count vectors, more than "
                         f"MAX_MULTINOMIAL_CELLS = {MAX_MULTINOMIAL_CELLS:,}; test each value "
                         "against the rest (two values: the exact binomial test)",
                         limit="MAX_MULTINOMIAL_CELLS", value=cells)
    fact = [1] * (n + 1)
    for i in range(1, n + 1):
        fact[i] = fact[i - 1] * i
    pw = [[1] * (n + 1) for _ in range(m)]
    for j in range(m):
        for i in range(1, n + 1):
            pw[j][i] = pw[j][i - 1] * a[j]

    def weight(x: Sequence[int]) -> int:
        w = fact[n]
        for j, c in enumerate(x):
            w = w * pw[j][c] // fact[c]
        return w

    bar = weight(counts) * _RERR
    tot = 0
    # every composition of n into m parts; the weight built value by value
    def walk(j: int, left: int, w: int) -> None:
        nonlocal tot
        if j == m - 1:
            v = w * pw[j][left] // fact[left]
            if v <= bar:
                tot += v
            return
        for c in range(left + 1):
            walk(j + 1, left - c, w * pw[j][c] // fact[c])

    walk(0, n, fact[n])
    return Fraction(tot, den**n)


# --------------------------------------------------------------------------- the audit
@dataclass(frozen=True)
class Audit:
    """An audit's result: ``p_value`` (exact), ``intervals`` (value -> exact 95 %
    Clopper-Pearson interval of its rate), ``verdict`` in words at ``level`` (default
    1 %), and what was tested: ``observed`` counts, ``expected`` counts, ``pulls``,
    ``test`` (its name) and, for a pull log, the separate ``tests`` and the log's
    ``log_chance`` (its exact probability under the published system)."""

    p_value: Fraction
    intervals: dict[Any, tuple[Fraction, Fraction]]
    verdict: str
    observed: dict[Any, int]
    expected: dict[Any, Fraction]
    pulls: int
    test: str
    level: Fraction = Fraction(1, 100)
    tests: dict[str, Fraction] = field(default_factory=dict)
    log_chance: Fraction | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: floats beside the exact values as strings."""
        def num(x: Fraction) -> dict[str, Any]:
            return {"float": float(x), "exact": str(x)}

        return {
            "p_value": num(self.p_value), "verdict": self.verdict, "test": self.test,
            "level": float(self.level), "pulls": self.pulls,
            "observed": {str(k): v for k, v in self.observed.items()},
            "expected": {str(k): float(v) for k, v in self.expected.items()},
            "intervals": {str(k): [float(lo), float(hi)]
                          for k, (lo, hi) in self.intervals.items()},
            "tests": {k: num(v) for k, v in self.tests.items()},
            "log_chance": None if self.log_chance is None else float(self.log_chance),
        }


def _percent(x: Fraction) -> str:
    return f"{float(x * 100):g}%"


def _verdict(p: Fraction, level: Fraction, impossible: str | None = None) -> str:
    if impossible:
        return f"inconsistent with the published rates: {impossible}"
    shown = f"{float(p):.2g}" if p >= Fraction(1, 10**4) else f"{float(p):.1e}"
    if p < level:
        return f"not consistent with the published rates at {_percent(level)} (p = {shown})"
    return f"consistent with the published rates at {_percent(level)} (p = {shown})"


def audit_counts(observed: Mapping[Any, Any], rates: Mapping[Any, Any], *,
                 level: Any = Fraction(1, 100)) -> Audit:
    """Test counts per value (``observed``: value -> how often it was seen) against
    published chances (``rates``: value -> chance, adding up to 1; floats read as the
    decimals written). Two values: the exact two-sided binomial test (as
    ``scipy.stats.binomtest``); more: the exact multinomial test (at most
    :data:`MAX_MULTINOMIAL_CELLS` count vectors). ``intervals``: each value's exact 95 %
    Clopper-Pearson interval (:func:`clopper_pearson`). ``verdict``: words at ``level``.

    >>> audit_counts({"rare": 9, "common": 91}, {"rare": 0.02, "common": 0.98}).verdict
    'not consistent with the published rates at 1% (p = 0.00019)'
    """
    if not isinstance(rates, Mapping) or len(rates) < 2:
        raise InvalidTypeError("rates", rates, "a mapping value -> published chance, with "
                               "at least two values (e.g. {'5-star': 0.006, 'other': 0.994})")
    if not isinstance(observed, Mapping):
        raise InvalidTypeError("observed", observed, "a mapping value -> count")
    probs = {v: _rate(p, f"rates[{quote(v, limit=30)}]") for v, p in rates.items()}
    if sum(probs.values()) != 1:
        raise InvalidValueError("rates", dict(rates), "chances adding up to exactly 1 "
                                f"(these add up to {float(sum(probs.values())):.9g}); add "
                                "the rest as one more value")
    extra = [v for v in observed if v not in probs]
    if extra:
        raise InvalidValueError("observed", quote(extra[0], limit=40),
                                f"one of the published values {list(probs)[:8]}")
    counts = {v: _count(observed.get(v, 0), f"observed[{quote(v, limit=30)}]")
              for v in probs}
    n = sum(counts.values())
    if n == 0:
        raise InvalidValueError("observed", dict(observed), "at least one pull")
    if n > MAX_AUDIT_PULLS:
        raise LimitError(f"an audit of {n:,} pulls is past MAX_AUDIT_PULLS = "
                         f"{MAX_AUDIT_PULLS:,}", limit="MAX_AUDIT_PULLS", value=n)
    lvl = _rate(level, "level")
    impossible = next((v for v in probs if counts[v] and not probs[v]), None)
    if impossible is not None:
        p = Fraction(0)
        test = "impossible value"
    elif len(probs) == 2:
        v = next(iter(probs))
        p = binomial_test(counts[v], n, probs[v])
        test = "exact binomial (two-sided)"
    else:
        p = _multinomial_p(list(counts.values()), list(probs.values()))
        test = "exact multinomial"
    intervals = {v: clopper_pearson(c, n) for v, c in counts.items()}
    why = (f"{quote(impossible, limit=40)} was seen {counts[impossible]:,} times at a "
           "published chance of 0") if impossible is not None else None
    return Audit(p, intervals, _verdict(p, lvl, why), counts,
                 {v: q * n for v, q in probs.items()}, n, test, lvl, {test: p})


# --------------------------------------------------------------------------- pull logs
def _rational(x: float) -> Fraction:
    """A system's float chance read as the decimal it was written as (as
    :func:`chancekit.markov.first_success`)."""
    return Fraction(x).limit_denominator(10**9)


def _probs(system: System) -> list[Fraction]:
    p = [_rational(x) for x in system.probabilities()]
    tot = sum(p)
    return [x / tot for x in p]


def _rare_index(system: System, rare: Any) -> set[int]:
    if rare is None:
        if "common" in system.values:
            return {i for i, v in enumerate(system.values) if v != "common"}
        if True in system.values:
            return {system.values.index(True)}
        raise InvalidValueError("rare", None, f"the rare values among {system.values}")
    wanted = rare if isinstance(rare, (set, frozenset, list, tuple)) else [rare]
    out = set()
    for r in wanted:
        if r not in system.values:
            raise InvalidValueError("rare", r, f"one of the system's values {system.values}")
        out.add(system.values.index(r))
    return out


def audit_log(system: System, values: Iterable[Any], *, state: Any = None,
              rare: Any = None, level: Any = Fraction(1, 100)) -> Audit:
    """Test a pull log against a published system (:class:`~chancekit.fair.GachaPity`,
    :class:`~chancekit.fair.PityTimer`, PRD, ...): ``values`` the values pulled, in order,
    from ``state`` (the system's ``getstate()`` form; None: its current state); ``rare``
    the value(s) counted as rares (default: every value but ``"common"``, or ``True``).

    Tests, each exact: the number of rares in that many pulls (its distribution from one
    forward pass over the system's chain, two-sided as the binomial test); and, when the
    log has at least 5 complete gaps between rares and the system starts afresh after
    each rare, the share of gaps at most the published median gap (exact binomial). The
    p-value is the smallest times the number of tests (Bonferroni), at most 1. A pull the
    system cannot give (a common at hard pity) makes the log impossible: p = 0.
    ``intervals``: each value's Clopper-Pearson interval of its raw share, and
    ``"base"``: the rare rate from the pulls made before soft pity (PityTimer-like systems).
    Cost: O(pulls x live states) big-integer operations.

    >>> from chancekit.fair import PityTimer
    >>> log = ([False] * 9 + [True]) * 30       # every rare at hard pity: too regular
    >>> a = audit_log(PityTimer(0.1, hard=10), log)
    >>> a.test
    'exact rare count + gap test (Bonferroni)'
    >>> a.verdict
    'not consistent with the published rates at 1% (p = 1.0e-09)'
    """
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System (GachaPity, ...)")
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidTypeError("values", values, "a sequence of the values pulled")
    log = list(values)
    if not log:
        raise InvalidValueError("values", log, "at least one pull")
    if len(log) > MAX_AUDIT_PULLS:
        raise LimitError(f"a log of {len(log):,} pulls is past MAX_AUDIT_PULLS = "
                         f"{MAX_AUDIT_PULLS:,}", limit="MAX_AUDIT_PULLS", value=len(log))
    lvl = _rate(level, "level")
    sysc = system.copy()
    if state is not None:
        try:
            sysc.setstate(state)
        except StateError as e:
            raise InvalidValueError("state", state, f"a state of {type(system).__name__} "
                                    f"(like {system.getstate()!r}): {e}") from None
    rares = _rare_index(sysc, rare)
    index = {v: i for i, v in enumerate(sysc.values)}
    idx = []
    for at, v in enumerate(log):
        i = index.get(v)
        if i is None:
            # labels may come as text from a CSV file: "True", "featured"
            i = next((j for j, w in enumerate(sysc.values) if str(w) == str(v)), None)
        if i is None:
            raise InvalidValueError(f"values[{at}]", v, f"one of the system's values "
                                    f"{sysc.values}")
        idx.append(i)
    start = sysc.getstate()
    n = len(idx)
    # the chain first: a log too long for the exact pass is refused before it is walked
    prepared = _rows(sysc, start, rares, n)
    # the log's own chance, and the impossible pull if any
    chance = Fraction(1)
    walker = sysc.copy()
    impossible = None
    base_trials = base_hits = 0
    soft = _soft_start(sysc)
    for at, i in enumerate(idx):
        p = _probs(walker)
        if soft is not None and walker.getstate()[0] < soft:
            base_trials += 1
            base_hits += i in rares
        if not p[i]:
            impossible = (f"pull {at + 1} was {quote(sysc.values[i], limit=30)}, which the "
                          f"published system cannot give in state {walker.getstate()!r}")
            chance = Fraction(0)
            break
        chance *= p[i]
        walker.observe(i)
    observed = Counter(sysc.values[i] for i in idx)
    counts = {v: observed.get(v, 0) for v in sysc.values}
    rare_seen = sum(1 for i in idx if i in rares)
    tests: dict[str, Fraction] = {}
    expected: dict[Any, Fraction] = {}
    if impossible:
        p_value = Fraction(0)
        test = "impossible pull"
    else:
        dist, rest = _rare_dist(prepared[3], prepared[1], n, rare_seen)
        bar = dist[rare_seen] * _RERR
        # the counts above the cut are each at most ``rest`` <= P(observed): all in
        tests["rare count"] = min(Fraction(1), rest + sum((q for q in dist if q <= bar),
                                                          Fraction(0)))
        gap = _gap_test(sysc, idx, rares)
        if gap is not None:
            tests["gaps at most the median"] = gap
        p_value = min(Fraction(1), min(tests.values()) * len(tests))
        test = "exact rare count" + (" + gap test (Bonferroni)" if gap is not None else "")
    intervals: dict[Any, tuple[Fraction, Fraction]] = {
        v: clopper_pearson(c, n) for v, c in counts.items()}
    if soft is not None and base_trials:
        intervals["base"] = clopper_pearson(base_hits, base_trials)
    return Audit(p_value, intervals, _verdict(p_value, lvl, impossible), counts, expected,
                 n, test, lvl, tests, chance)


def _soft_start(system: System) -> int | None:
    """The first pull (since a rare) whose chance is not the base rate, for systems whose
    state starts with the pulls since the last success; None for others."""
    pity = getattr(system, "_pity", system)
    if type(pity).__name__ != "PityTimer":
        return None
    if pity.soft_start is not None:
        return pity.soft_start
    return pity.hard


def _rare_count(system: System, start: Any, rares: set[int], n: int, observed: int
                ) -> tuple[list[Fraction], Fraction]:
    """(P(r rares in n pulls from ``start``) for r = 0..n, exact up to a cut ``top``
    and 0 above it, and the exact mass above the cut), the cut high enough that every
    count above it is no more likely than ``observed``. One forward pass over the
    system's states, each holding a polynomial in y (the coefficient of y**r: the chance
    of r rares so far, an integer over L**t; python-flint ``fmpz_poly``), cut at degree
    top: O(n x transitions) polynomial operations of top x (n x bits(L)) bits, estimated
    and refused up front past MAX_AUDIT_STEPS (:func:`_rows`, which ``audit_log`` calls
    before it walks the log)."""
    system, start, rares, rows = _rows(system, start, rares, n)
    return _rare_dist(rows, start, n, observed)


def _rows(system: System, start: Any, rares: set[int], n: int
          ) -> tuple[System, Any, set[int], dict[Any, list[tuple[Any, Fraction, bool]]]]:
    """The states ``n`` pulls can reach from ``start`` and their transitions (a gacha
    counted by rarity: its pity counter alone), refused as soon as the transitions found
    so far x ``n`` pass MAX_AUDIT_STEPS."""
    pity = getattr(system, "_pity", None)
    if pity is not None and rares == set(range(1, system.n)):
        # a gacha counted by rarity only: whether a pull is rare depends on the pity
        # counter alone (the 50/50 and fate points pick which rare): half the states
        system, start, rares = pity, (start[0],), {1}
    sysc = system.copy()
    rows: dict[Any, list[tuple[Any, Fraction, bool]]] = {}
    frontier = [start]
    depth = 0
    edges_so_far = 0
    while frontier and depth <= n:  # the states n pulls can reach, and their chances
        nxt_frontier = []
        for s in frontier:
            if s in rows:
                continue
            sysc.setstate(s)
            out = []
            for i, p in enumerate(_probs(sysc)):
                if p:
                    sysc.setstate(s)
                    sysc.observe(i)
                    a = sysc.getstate()
                    out.append((a, p, i in rares))
                    if a not in rows:
                        nxt_frontier.append(a)
            rows[s] = out
            edges_so_far += len(out)
            if edges_so_far * n > MAX_AUDIT_STEPS:  # refused as soon as it is certain
                raise LimitError(f"audit_log(): {n:,} pulls over more than "
                                 f"{len(rows):,} states ({edges_so_far:,} transitions so "
                                 f"far) is more than {edges_so_far * n:,} polynomial steps, "
                                 f"more than MAX_AUDIT_STEPS = {MAX_AUDIT_STEPS:,}; audit "
                                 "fewer pulls or the counts (audit_counts)",
                                 limit="MAX_AUDIT_STEPS", value=edges_so_far * n)
        frontier = nxt_frontier
        depth += 1
    edges = sum(len(r) for r in rows.values())
    if edges * n > MAX_AUDIT_STEPS:
        raise LimitError(f"audit_log(): {n:,} pulls over {len(rows):,} states "
                         f"({edges:,} transitions) is about {edges * n:,} polynomial steps, "
                         f"more than MAX_AUDIT_STEPS = {MAX_AUDIT_STEPS:,}; audit fewer pulls "
                         "or the counts (audit_counts)", limit="MAX_AUDIT_STEPS",
                         value=edges * n)
    return system, start, rares, rows


def _rare_dist(rows: dict[Any, list[tuple[Any, Fraction, bool]]], start: Any, n: int,
               observed: int) -> tuple[list[Fraction], Fraction]:
    """The forward pass of :func:`_rare_count` over the explored ``rows``."""
    lcm = math.lcm(*(p.denominator for r in rows.values() for _, p, _ in r))
    ints = {s: [(a, int(p * lcm), hit) for a, p, hit in r] for s, r in rows.items()}
    scale = lcm**n
    # P(R = r) exactly for r <= top; the mass above is 1 - their sum (exact), and when it
    # is at most P(R = observed) every count above top is too (the two-sided test's
    # bound); else top doubles
    top = min(n, max(2 * observed + 8, 16))
    while True:
        coeffs = _rare_pass(start, ints, n, top)
        head = [Fraction(coeffs[r], scale) if r < len(coeffs) and coeffs[r] else Fraction(0)
                for r in range(top + 1)]
        rest = 1 - sum(head, Fraction(0))
        if top >= n or observed > top or rest <= head[observed]:
            return head + [Fraction(0)] * (n - top), rest
        top = min(n, 2 * top)


def _rare_pass(start: Any, ints: dict[Any, list[tuple[Any, int, bool]]], n: int,
               top: int) -> list[int]:
    """The forward pass: P(r rares) x L**n for r = 0..top (higher counts dropped)."""
    from chancekit import _exact as flint

    cur: dict[Any, Any] = {start: flint.fmpz_poly([1])}
    for _ in range(n):
        nxt: dict[Any, Any] = {}
        for s, poly in cur.items():
            shifted = None
            for a, w, hit in ints[s]:
                if hit:
                    if shifted is None:
                        shifted = poly.left_shift(1)
                        if shifted.degree() > top:
                            shifted = shifted.truncate(top + 1)
                    term = shifted * w
                else:
                    term = poly * w
                got = nxt.get(a)
                nxt[a] = term if got is None else got + term
        cur = nxt
    total = flint.fmpz_poly([])
    for poly in cur.values():
        total += poly
    return [int(c) for c in total.coeffs()]


def _gap_test(system: System, idx: list[int], rares: set[int]) -> Fraction | None:
    """The exact binomial test of the share of complete gaps (pulls from just after a
    rare to the next rare) at most the published median gap, for systems that start
    afresh after a rare (the same state after every rare); None otherwise or with fewer
    than 5 gaps."""
    sysc = system.copy()
    after: set[Any] = set()
    gaps: list[int] = []
    run = None
    for i in idx:
        sysc.observe(i)
        if run is not None:
            run += 1
        if i in rares:
            if run is not None:
                gaps.append(run)
            after.add(sysc.getstate())
            run = 0
    if len(gaps) < 5 or len(after) > 8:
        return None
    medians = {_median_gap(system, fresh, rares) for fresh in after}
    if len(medians) != 1:  # the gaps are not alike after every rare
        return None
    median, acc = medians.pop()
    if median is None:
        return None
    short = sum(1 for g in gaps if g <= median)
    return binomial_test(short, len(gaps), acc)


def _median_gap(system: System, fresh: Any, rares: set[int]
                ) -> tuple[int | None, Fraction]:
    """The published median gap from ``fresh`` (pulls to the next rare) and the exact
    chance of a gap at most that long."""
    sysc = system.copy()
    cur: dict[Any, Fraction] = {fresh: Fraction(1)}
    acc = Fraction(0)
    for t in range(1, MAX_AUDIT_PULLS + 1):
        nxt: dict[Any, Fraction] = {}
        for s, m in cur.items():
            sysc.setstate(s)
            for i, p in enumerate(_probs(sysc)):
                if not p:
                    continue
                if i in rares:
                    acc += m * p
                else:
                    sysc.setstate(s)
                    sysc.observe(i)
                    a = sysc.getstate()
                    nxt[a] = nxt.get(a, 0) + m * p
        if acc >= Fraction(1, 2):
            return t, acc
        cur = nxt
        if not cur:
            break
    return None, acc
