"""AnyDice's three kinds of value and every operator's meaning on them.

A value is an ``int`` (a number), a ``tuple`` of ints (a sequence) or a :class:`Die`: a
collection of ``count`` dice like ``base`` (a :class:`~chancekit.dice.Distribution`), the
empty die ``d{}`` (``base`` None), or one die (``count`` 1). Arithmetic reads a collection
as its sum (``Distribution.repeat_sum``, cached); ``@`` reads it by position, through the
pool engine (:func:`chancekit.dice.keep_sum`, :func:`chancekit.dice.evaluate_pool`).
Outcome-by-outcome operators go through ``Distribution`` (``+``/``-`` as polynomial
products, the rest pair by pair), so the limits and the work budget are chancekit's.

>>> from chancekit.dice import d
>>> binary("/", Die.single(d(6)), 2).dist.weights
mappingproxy({0: 1, 1: 2, 2: 2, 3: 1})
>>> binary(">", (1, 5, 6), 4)
2
"""

from __future__ import annotations

import contextvars
import itertools
import math
import operator
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from chancekit import limits
from chancekit.dice import Decided, Distribution, FaceRule, constant, evaluate_pool, keep_sum
from chancekit.dice import certified as _cert
from chancekit.errors import LimitError, quote

__all__ = ["EMPTY", "Die", "as_die", "at", "binary", "dice", "make_die", "to_seq", "unary"]

#: the integer AnyDice gives for 0 raised to a negative power
NEG_POWER_SENTINEL = -(2**63)


#: the widest exact weights (bits of a total) an operator of this run has met, when the
#: run keeps count (``run_program`` does: a refusal for work then offers a certified
#: answer only if huge weights were met, the only refusals that answer can avoid)
WIDEST: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "chancekit_anydice_widest", default=None)


def seen(*values: Any) -> None:
    """Note the weights' width of every exact distribution in ``values`` (see WIDEST)."""
    box = WIDEST.get()
    if box is None:
        return
    for v in values:
        if isinstance(v, Distribution):
            b = v.total.bit_length()
            if b > box[0]:
                box[0] = b


class Die:
    """``count`` dice like ``base`` (a Distribution), or the empty die (``base`` None).
    ``sides``: the number N when the die was written ``dN`` or ``MdN`` (AnyDice then names
    it ``dN``/``MdN`` in an output's name; any other die is ``d{?}``), else None."""

    __slots__ = ("_dist", "base", "count", "sides")

    def __init__(self, base: Distribution | None, count: int = 1,
                 sides: int | None = None) -> None:
        self.base = base
        self.count = count
        self.sides = sides
        self._dist = base if count == 1 else None

    @classmethod
    def single(cls, dist: Distribution) -> Die:
        return cls(dist, 1)

    @property
    def empty(self) -> bool:
        return self.base is None

    @property
    def dist(self) -> Distribution:
        """The collection summed (one die); only for a non-empty die."""
        if self._dist is None:
            assert self.base is not None
            base = self.base
            seen(base)
            if self.count > 1 and _cert.wide(base):  # (a certified run: no huge power)
                base = _cert.certify(base)
            elif len(base) <= CACHED_OUTCOMES and isinstance(base, Distribution):
                # the same sum once: a body that writes 40d6 sums it for each outcome of
                # its expansion (26b36 mutated: 8,800 sums, 8 s), and the result, one
                # object, hashes once in the operators' cache after it
                key = (self.count, base)
                got = _SUMS.get(key)
                if got is None:
                    got = base.repeat_sum(self.count) if self.count else constant(0)
                    _SUMS.keep(key, got)
                self._dist = got
                return got
            self._dist = base.repeat_sum(self.count) if self.count else constant(0)
        return self._dist

    def __repr__(self) -> str:
        if self.base is None:
            return "Die(empty)"
        return f"Die({self.count} x {dict(self.base.weights)})"


#: the empty die d{} (no dice: ``#d{}`` is 0)
EMPTY = Die(None, 0)
#: what ``NdX`` gives when N is a die and either side is empty: empty, yet one die long
#: (``#(d{}d6)`` is 1, and a position other than 1 of it is 0)
EMPTY_ONE = Die(None, 1)


def _trunc_div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


#: the most bits of a number a program may build by ``*`` or ``^`` (AnyDice's numbers are
#: 64-bit; past this a LimitError, so squaring in a loop cannot build a gigabyte integer)
NUMBER_BITS = 4096


def _mul(a: int, b: int) -> int:
    if a.bit_length() + b.bit_length() > NUMBER_BITS + 1:
        raise LimitError(f"a product of numbers with {a.bit_length() + b.bit_length()} bits "
                         f"is past {NUMBER_BITS} bits (AnyDice works with 64-bit numbers)",
                         limit="number bits", value=a.bit_length() + b.bit_length())
    return a * b


def _power(a: int, b: int) -> int:
    if b < 0:
        if a == 0:
            return NEG_POWER_SENTINEL
        if a == 1:
            return 1
        if a == -1:
            return -1 if b % 2 else 1
        return 0
    if abs(a) > 1 and b * (a.bit_length() - 1) > NUMBER_BITS:
        raise LimitError(f"{quote(a)} ^ {quote(b)} has more than {NUMBER_BITS} bits (AnyDice "
                         "works with 64-bit numbers)", limit="number bits", value=b)
    return a**b


_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": _mul,
    "/": _trunc_div,
    "^": _power,
    "&": lambda a, b: int(bool(a) and bool(b)),
    "|": lambda a, b: int(bool(a) or bool(b)),
    "=": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b),
    "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b),
}
#: the operators on two numbers that need no special case (``/`` and ``^`` do)
INT_OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": _mul, "/": _trunc_div,
    "=": lambda a, b: 1 if a == b else 0, "!=": lambda a, b: 1 if a != b else 0,
    "<": lambda a, b: 1 if a < b else 0, "<=": lambda a, b: 1 if a <= b else 0,
    ">": lambda a, b: 1 if a > b else 0, ">=": lambda a, b: 1 if a >= b else 0,
    "&": lambda a, b: 1 if a and b else 0, "|": lambda a, b: 1 if a or b else 0,
}
#: a sequence compared to a number (sequence on the left): how many elements match
_SEQ_NUM: dict[str, Callable[[tuple[int, ...], int], int]] = {
    "=": lambda s, n: s.count(n),
    "!=": lambda s, n: len(s) - s.count(n),
    "<": lambda s, n: sum(1 for x in s if x < n),
    "<=": lambda s, n: sum(1 for x in s if x <= n),
    ">": lambda s, n: sum(1 for x in s if x > n),
    ">=": lambda s, n: sum(1 for x in s if x >= n),
}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_ADDITIVE = ("+", "-", "|")
CMP = ("=", "!=", "<", "<=", ">", ">=")


def charge_bits(pairs: int, *dists: Distribution) -> None:
    """Charge the big-integer part of ``pairs`` weight products among ``dists`` and of
    the gcd that reduces them: exact weights can grow to millions of bits (a die mixed
    into itself in a loop squares its denominator each round). Below 1024 bits a weight
    costs no more than a small one (the step's own estimate covers it); above, about
    2 x words^1.58 units a product (Karatsuba) and 2 x words^2 for the gcd. (Generous:
    a running gcd that stays wide, when the weights share a big factor, makes the
    reduction quadratic per outcome: posita's 26524 spent 1 s in one such reduction.)"""
    words = sum(d.total.bit_length() for d in dists) // 64
    if words > 16:
        limits.charge(int(pairs * 2 * words**1.58) + 2 * words * words,
                      f"arithmetic on distributions with {64 * words:,}-bit weights")


def _dense(d: Distribution) -> bool:
    """The engine's rule for adding two distributions as polynomials (python-flint,
    priced with their bits by :func:`chancekit.limits.mul_work`) rather than pair by
    pair: integer outcomes spanning at most four times their count, plus 64."""
    outs = d.weights
    return next(reversed(outs)) - next(iter(outs)) + 1 <= 4 * len(outs) + 64


class _Kept(dict[Any, Distribution]):
    """Distributions computed lately, by key: cleared as a whole before it would hold more
    than ``entries`` of them or more than ``words`` in all (each measured by ``size``:
    machine words or faces). A dict: ``get`` is its own; ``clear`` also forgets the size."""

    def __init__(self, entries: int, words: int, size: Callable[[Distribution], int]) -> None:
        super().__init__()
        self.entries, self.words, self.size, self.used = entries, words, size, 0

    def keep(self, key: Any, value: Distribution) -> None:
        size = self.size(value)
        if len(self) >= self.entries or self.used + size > self.words:
            self.clear()
        self[key] = value
        self.used += size

    def clear(self) -> None:
        super().clear()
        self.used = 0


def _words_held(d: Distribution) -> int:
    """About the machine words a distribution holds: its outcomes and weights."""
    return len(d) * (4 + d.total.bit_length() // 64)


#: most results kept by each of the caches below
RESULTS_KEPT = 2048
#: and results of at most about this many machine words in all (~32 MB): 2 048 dice of
#: 1 200 outcomes of 1 280-bit weights would hold 600 MB (hang-423 ran out of a 1 GB
#: address space)
RESULTS_WORDS = 4_000_000

#: sums of dice computed lately, by (count, die): see Die.dist
_SUMS = _Kept(RESULTS_KEPT, RESULTS_WORDS, _words_held)

#: work units of one operator on a die beyond its entries (building the result: ~2 us)
OP_WORK = 100


#: results of recent operators on dice, by (operator, operands): an expansion often
#: repeats the same die arithmetic outcome after outcome (``DMG + 2d6`` for each of 8,000
#: rolls); distributions compare and hash by value, so a hit is the same answer
_RESULTS = _Kept(RESULTS_KEPT, RESULTS_WORDS, _words_held)


#: operands with more outcomes than this skip the cache (hashing one is O(outcomes): a
#: million-outcome die took ~0.9 s to hash before ``d1000000 * d1000000`` was refused)
CACHED_OUTCOMES = 4096


def certified_pairwise(op: str, a: Any, b: Any) -> Any:
    """``a op b`` the certified way (a certified run, an operand certified or with
    weights past the threshold): exact operands rounded to intervals first."""
    f = _OPS.get(op) or {"max": max, "min": min}[op]
    cd = (Distribution, _cert.CertifiedDistribution)
    if not isinstance(a, cd):
        return _cert.certify(b).map(lambda y: f(a, y))
    if not isinstance(b, cd):
        return _cert.certify(a).map(lambda x: f(x, b))
    return _cert.certify(a)._combine(_cert.certify(b), f, op)


def _pairwise(op: str, a: Distribution | int, b: Distribution | int) -> Distribution:
    seen(a, b)
    if _cert.threshold() is not None and (_cert.wide(a) or _cert.wide(b)):
        return certified_pairwise(op, a, b)
    if ((isinstance(a, Distribution) and len(a) > CACHED_OUTCOMES)
            or (isinstance(b, Distribution) and len(b) > CACHED_OUTCOMES)):
        return _pairwise_new(op, a, b)
    key = (op, a, b)
    try:
        hit = _RESULTS.get(key)
    except TypeError:  # pragma: no cover - every operand is hashable
        hit = None
    if hit is not None:
        return hit
    result = _pairwise_new(op, a, b)
    _RESULTS.keep(key, result)
    return result


def _pairwise_new(op: str, a: Distribution | int, b: Distribution | int) -> Distribution:
    if isinstance(a, Distribution) and isinstance(b, Distribution):
        # a sum or difference of dense dice is one polynomial product, priced with its
        # bits by the engine (limits.mul_work) and reduced by flint's content(): not
        # pair by pair (2000d6+200d8+3000, 0.3 s, was charged 34 G units here)
        if op not in ("+", "-") or not (_dense(a) and _dense(b)):
            charge_bits(len(a) * len(b), a, b)
        # the operator's own machinery: its cache key and the result hashed, the result
        # wrapped (about 10 us and 0.1 us an outcome beyond the engine's price)
        limits.charge(OP_WORK + (len(a) + len(b)) * limits.ENTRY_WORK, f"a die {op} a die")
    elif isinstance(a, Distribution):
        if op not in ("+", "-"):  # (a shift merges and multiplies no weight: 1300f)
            charge_bits(len(a), a)
        limits.charge(OP_WORK + len(a) * (limits.ENTRY_WORK + words(a.total) // 2),
                      f"a die {op} a number")
    else:
        assert isinstance(b, Distribution)
        if op != "+":
            charge_bits(len(b), b)
        # (the result hashed into the caches: linear in the weights' words)
        limits.charge(OP_WORK + len(b) * (limits.ENTRY_WORK + words(b.total) // 2),
                      f"a number {op} a die")
    if op == "+" and isinstance(a, Distribution):
        return a + b
    if op == "+":  # a number + a die: the die's outcomes shifted (Distribution._shifted)
        return b + a
    if op == "-" and isinstance(a, Distribution):
        return a - b
    f = _OPS[op]
    if not isinstance(a, Distribution):
        assert isinstance(b, Distribution)
        return b.map(lambda y: f(a, y))
    if not isinstance(b, Distribution):
        return a.map(lambda x: f(x, b))
    return a._combine(b, f, op)


def binary(op: str, left: Any, right: Any) -> Any:
    """``left op right`` for ``+ - * / ^ & |`` and the comparisons, with AnyDice's rules:
    sequences are summed (compared to a number they count matches; compared to a sequence
    they compare left to right), a collection is summed, an empty die is 0 for ``+ - |``
    and empties the rest."""
    if op in CMP:
        return _compare(op, left, right)
    le = isinstance(left, Die) and left.empty
    re_ = isinstance(right, Die) and right.empty
    if le and re_:
        return EMPTY
    if isinstance(left, tuple):
        left = sum(left)
    if isinstance(right, tuple):
        right = sum(right)
    if le or re_:
        if op not in _ADDITIVE:
            return EMPTY
        if le:
            left = 0
        else:
            right = 0
    return _apply(op, left, right)


def _apply(op: str, left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int):
        return _OPS[op](left, right)
    a = left.dist if isinstance(left, Die) else left
    b = right.dist if isinstance(right, Die) else right
    return Die.single(_pairwise(op, a, b))


def _compare(op: str, left: Any, right: Any) -> Any:
    if (isinstance(left, Die) and left.empty) or (isinstance(right, Die) and right.empty):
        return EMPTY
    if isinstance(left, tuple) and isinstance(right, tuple):
        return int(_TUPLE_CMP[op](left, right))
    if isinstance(left, tuple):
        if isinstance(right, int):
            return _SEQ_NUM[op](left, right)
        left = sum(left)
    if isinstance(right, tuple):
        if isinstance(left, int):
            return _SEQ_NUM[_FLIP[op]](right, left)
        right = sum(right)
    return _apply(op, left, right)


_TUPLE_CMP: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def unary(op: str, value: Any) -> Any:
    """Prefix ``- + ! #`` (``d`` is :func:`make_die`)."""
    if op == "+":
        return value
    if op == "#":
        if isinstance(value, int):
            return len(str(abs(value)))
        if isinstance(value, tuple):
            return len(value)
        return value.count
    if op == "-":
        if isinstance(value, tuple):
            return -sum(value)
        if isinstance(value, int):
            return -value
        if value.empty:
            return EMPTY
        return Die(-value.base, value.count)
    if op == "!":
        if isinstance(value, tuple):
            value = sum(value)
        if isinstance(value, int):
            return int(not value)
        if value.empty:
            return EMPTY
        return Die.single(value.dist.map(lambda x: int(not x)))
    raise AssertionError(op)


#: the faces of the dice ``dN`` kept built, in all (cleared past it): a loop over ``dA``
#: for A up to hundreds built each die again once 64 were kept (hang-212: 29 600 dice)
STANDARD_FACES = 1 << 20
_STANDARD = _Kept(STANDARD_FACES, STANDARD_FACES, len)  # dN by N


def standard_die(sides: int) -> Distribution:
    """``dN``: 1..N; a negative N gives N..-1; d0 always shows 0."""
    hit = _STANDARD.get(sides)
    if hit is not None:
        return hit
    die = _standard_die(sides)
    _STANDARD.keep(sides, die)
    return die


def _standard_die(sides: int) -> Distribution:
    if sides == 0:
        return constant(0)
    lo, hi = (1, sides) if sides > 0 else (sides, -1)
    if hi - lo + 1 > limits.MAX_SIDES:
        raise LimitError(f"a die with {abs(sides)} sides is past MAX_SIDES = "
                         f"{limits.MAX_SIDES}", limit="MAX_SIDES", value=sides)
    limits.charge((hi - lo + 1) * 5 * limits.ENTRY_WORK, "building a die",
                  limit=limits.MAX_WORK, name="MAX_WORK")  # (sorted, reduced: ~0.5 us a face)
    return Distribution._raw(dict.fromkeys(range(lo, hi + 1), 1), reduced=True)


def make_die(value: Any) -> Die:
    """Unary ``d``: a number N -> dN, a sequence -> a die with those faces (``d{}`` is the
    empty die), a die stays as it is."""
    if isinstance(value, Die):
        return value
    if isinstance(value, int):
        return Die(standard_die(value), 1, value)
    if not value:
        return EMPTY
    if len(value) > limits.MAX_SIDES:
        raise LimitError(f"a die with {len(value)} faces is past MAX_SIDES = "
                         f"{limits.MAX_SIDES}", limit="MAX_SIDES", value=len(value))
    return Die.single(Distribution._raw(dict(Counter(value))))


def as_die(value: Any) -> Die:
    """A value as one die: a number -> that constant, a sequence -> its sum."""
    if isinstance(value, Die):
        return value
    if isinstance(value, tuple):
        value = sum(value)
    return Die.single(constant(value))


def dice(count: Any, faces: Any) -> Die:
    """Binary ``NdX``: N (a sequence is summed; a die: each of its outcomes, mixed) dice
    like X. ``0dX`` is 0, ``(-N)dX`` is ``Nd(-X)``."""
    if isinstance(count, tuple):
        count = sum(count)
    if isinstance(count, int) and abs(count) > limits.MAX_DICE:  # before building the die
        raise LimitError(f"{abs(count)} dice is past MAX_DICE = {limits.MAX_DICE}; use "
                         "fewer dice", limit="MAX_DICE", value=abs(count))
    die = make_die(faces)
    if isinstance(count, Die):
        if count.empty or die.empty:
            return EMPTY_ONE
        if count.count > 1 and count._dist is None:  # the largest count, before summing
            top = count.count * max(abs(k) for k in count.base.outcomes())
            if top > limits.MAX_DICE:
                raise LimitError(f"a die-valued count of up to {top} dice is past MAX_DICE "
                                 f"= {limits.MAX_DICE}; use fewer dice", limit="MAX_DICE",
                                 value=top)
            one = die.dist
            outs = one.outcomes()
            if top > 1 and all(type(f) is int for f in outs):  # its k-fold sum at least
                width = max(outs) - min(outs)
                if top * width + 1 <= limits.MAX_OUTCOMES:
                    limits.check(limits.power_work(len(one), top * width + 1,
                                                   top * one.total.bit_length()),
                                 f"rolling a die-valued count (up to {top}) of dice")
        one = die.dist
        if _cert.wide(count.dist) or _cert.wide(one):  # a certified run: no huge weights
            # (before _charge_counts: its exact estimate prices the huge weights)
            parts = [dice(n, Die.single(one)).dist for n in count.dist.outcomes()]
            weights = [w for _, w in count.dist.items()]
            return Die.single(_cert.CertifiedDistribution.mixture(parts, weights))
        _charge_counts(count.dist, one)
        composed = _compose(count.dist, one)
        if composed is not None:
            return Die.single(composed)
        parts, weights = [], []
        for n, w in count.dist.items():
            parts.append(dice(n, Die.single(one)).dist)
            weights.append(w)
        charge_mixture(parts, weights, "mixing the sums of a die-valued count of dice")
        return Die.single(Distribution.mixture(parts, weights))
    if die.empty:
        return EMPTY
    if count == 1:
        return die
    if count == 0:
        return Die.single(constant(0))
    base = die.dist
    sides = die.sides if isinstance(faces, int) else None
    if count < 0:
        count, base = -count, -base
        sides = None if sides is None else -sides
    if count > limits.MAX_DICE:
        raise LimitError(f"{count} dice is past MAX_DICE = {limits.MAX_DICE}; use fewer "
                         "dice", limit="MAX_DICE", value=count)
    return Die(base, count, sides)


def _compose(counts: Distribution, one: Distribution) -> Distribution | None:
    """``counts`` d ``one`` as one polynomial composition, or None (negative counts or
    faces, or a polynomial past 4 x MAX_OUTCOMES): with P the faces' polynomial (weights,
    total T) and G(y) = sum of w_k T^(top-k) y^k over the counts, G(P(x)) has the weights
    of every k-fold sum mixed by the counts' weights over one denominator (flint's
    composition: no mixture of big-weight parts, ``d4d4d4d4d4d4`` 3.5 s -> well under 1 s)."""
    if not _composable(counts, one):
        return None
    from chancekit import _exact

    top, hi = max(counts.outcomes()), max(one.outcomes())

    total = one.total
    ow = one.weights
    cw = counts.weights
    p = _exact.fmpz_poly([ow.get(i, 0) for i in range(hi + 1)])
    g = _exact.fmpz_poly([cw.get(k, 0) * total ** (top - k) for k in range(top + 1)])
    return Distribution._from_poly(0, g(p))


def _composable(counts: Distribution, one: Distribution) -> bool:
    """Whether :func:`_compose` takes ``counts`` d ``one`` as one composition: counts and
    faces non-negative integers, the polynomial within 4 x MAX_OUTCOMES."""
    ks = counts.outcomes()
    faces = one.outcomes()
    if not all(type(k) is int and k >= 0 for k in ks) or not all(
            type(f) is int and f >= 0 for f in faces):
        return False
    return max(ks) * max(faces) + 1 <= 4 * limits.MAX_OUTCOMES


def compose_work(top: int, width: int, bits: int, count_bits: int = 0) -> int:
    """Work units of a composition G(P(x)) (flint) whose result has ``top x width + 1``
    coefficients of at most ``count_bits + top x bits`` bits (the counts' weights times
    the faces' total to the power): about five FFT squarings of the result's size and its
    conversion (10-19 ns a unit measured, from d681 of d8, 0.14 s, to d4096 of d4 and the
    counts of d4d4d4d4d4d4 of d4, 2.6-3.4 s; issue 31: priced as every k-fold power, 3183d's
    ``1d681d8`` was charged 163 M units for 0.16 s)."""
    span = top * width + 1
    words = (count_bits + top * bits) // 64 + 1
    size = span * words
    return span * (30 + words) + 5 * size * (4 + size.bit_length() // 2)


def _charge_counts(counts: Distribution, one: Distribution) -> None:
    """Refuse up front a die-valued count whose sums would be too many or too big: the
    largest count against MAX_DICE and MAX_OUTCOMES, and the work of every k-fold sum
    (``limits.power_work``) charged before the first is computed."""
    ks = [abs(k) for k in counts.outcomes()]
    top = max(ks)
    if top > limits.MAX_DICE:
        raise LimitError(f"a die-valued count of up to {top} dice is past MAX_DICE = "
                         f"{limits.MAX_DICE}; use fewer dice", limit="MAX_DICE", value=top)
    width = max(one.outcomes()) - min(one.outcomes())
    if top * width + 1 > limits.MAX_OUTCOMES:
        raise LimitError(f"up to {top} dice with outcomes spanning {width + 1} would give "
                         f"{top * width + 1} outcomes, past MAX_OUTCOMES = "
                         f"{limits.MAX_OUTCOMES}", limit="MAX_OUTCOMES", value=top * width + 1)
    bits = one.total.bit_length()
    if _composable(counts, one):  # one composition (_compose), not a power per count
        work = compose_work(top, width, bits, counts.total.bit_length())
    else:
        work = sum(limits.power_work(len(one), k * width + 1, k * bits) for k in ks if k > 1)
    limits.charge(work + len(ks) * OP_WORK, f"rolling a die-valued count ({len(ks)} counts "
                  f"up to {top}) of dice")


def to_seq(value: Any) -> tuple[int, ...]:
    """A value as sequence items: a number -> itself, a die -> its distinct outcomes in
    increasing order (a collection: of its sum)."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, int):
        return (value,)
    if value.empty:
        return ()
    return tuple(value.dist.outcomes())


def digits(number: int, lowest_first: bool) -> list[int]:
    sign = -1 if number < 0 else 1
    ds = [sign * int(c) for c in str(abs(number))]
    return ds[::-1] if lowest_first else ds


def at(left: Any, right: Any, lowest_first: bool) -> Any:
    """``positions @ value``: digits of a number, elements of a sequence, or the dice of a
    collection sorted (highest first unless ``lowest_first``); the selected values are
    summed and a position that does not exist gives 0."""
    positions = (left,) if isinstance(left, int) else left
    if isinstance(right, int):
        ds = digits(right, lowest_first)
        return sum(ds[p - 1] for p in positions if 1 <= p <= len(ds))
    if isinstance(right, tuple):
        return sum(right[p - 1] for p in positions if 1 <= p <= len(right))
    if right.empty and right.count == 0:
        return EMPTY
    n = right.count
    # ranks counted from the highest die (1 = highest), with their multiplicity
    ranks = Counter((p if not lowest_first else n + 1 - p) for p in positions if 1 <= p <= n)
    if not ranks:
        return 0
    if right.empty:
        return EMPTY
    return Die.single(select(right.base, n, ranks))


def select(base: Distribution, n: int, ranks: Counter[int]) -> Distribution:
    """The sum of the dice at ``ranks`` (1 = highest; a rank counted as often as it is
    listed) of ``n`` dice like ``base``: a plain sum, keep-highest/keep-lowest through
    :func:`keep_sum`, else one face walk of :func:`evaluate_pool`."""
    if n == 1:
        return base.map(lambda x: x * ranks[1]) if ranks[1] != 1 else base
    seen(base)
    if _cert.wide(base):  # a certified run: the highest/lowest die, or all of them
        c = _cert.certify(base)
        if len(ranks) == n and all(v == 1 for v in ranks.values()):
            return c.repeat_sum(n)
        if dict(ranks) == {1: 1}:
            return c.extreme(n, highest=True)
        if dict(ranks) == {n: 1}:
            return c.extreme(n, highest=False)
        if len(ranks) == 1 and next(iter(ranks.values())) == 1:
            return c.order_statistic(n, next(iter(ranks)))
        return c.select(n, dict(ranks))  # several positions: the certified face walk
    if all(v == 1 for v in ranks.values()):  # these price their own work, bits included
        k = len(ranks)
        if k == n:
            return base.repeat_sum(n)
        if set(ranks) == set(range(1, k + 1)):
            return keep_sum(n * [base], highest=k)
        if set(ranks) == set(range(n - k + 1, n + 1)):
            return keep_sum(n * [base], lowest=k)
    charge_bits(len(base) * n * n, *([base] * n))  # weights of n dice multiplied
    return evaluate_pool(_RankRule(tuple(sorted(ranks.items()))), n * [base])


#: one rule object per rank pattern, so the pool engine's memo cache (keyed by rule
#: identity) is reused across calls
_RANK_RULES: dict[tuple[tuple[int, int], ...], _RankRule] = {}


class _RankRule(FaceRule):
    """Sum of faces at given ranks (highest first), each with a multiplicity."""

    def __new__(cls, ranks: tuple[tuple[int, int], ...]) -> _RankRule:  # one rule per key
        rule = _RANK_RULES.get(ranks)
        if rule is None:
            if len(_RANK_RULES) >= 512:  # bounded: a long-running server sees many
                _RANK_RULES.clear()
            rule = _RANK_RULES[ranks] = super().__new__(cls)
        return rule

    def __init__(self, ranks: tuple[tuple[int, int], ...]) -> None:
        super().__init__(initial=(0, 0), order="descending")
        self.mult = dict(ranks)
        self.last = max(self.mult)

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        seen, total = state
        c = counts[0]
        if not c:
            return state
        m = sum(self.mult.get(r, 0) for r in range(seen + 1, seen + c + 1))
        seen += c
        total += m * face
        if seen >= self.last:
            return Decided(total)
        return (seen, total)

    def final(self, state: Any) -> Any:
        return state[1]

    def state_bound(self, faces: Any, dice: int) -> int:
        """The partial sums alive beside one count of dice left (not over all of them),
        raised to a quarter of the engine's mean count of (dice left, state) pairs.

        The state's ``seen`` is the number of dice already placed, which the engine's
        own key (the dice left) already holds, so the pairs alive with ``r`` dice left
        number at most the partial sums of ``n - r`` placed dice: ``m * (hi - lo) + 1``
        for the ``m <= sum(mult)`` asked ranks among them. The engine charges
        ``faces x sum over r of (r + 1) x bound``, an upper bound of its steps with this
        per-remainder bound. It counts ``pairs alive x sum over r of (r + 1)`` per face
        (a backstop refuses past CALIBRATION_FACTOR x the limit), so the bound is at
        least that mean count over CALIBRATION_FACTOR: a walk charged under the limit
        is never stopped by the backstop. Read highest first, after face ``f`` a
        partial sum of ``m`` asked dice lies in ``[m f, m hi]``. f818's
        ``{1,8,9,16,17,24}@24d([stat])``: 136 (the old bound, over every ``seen``,
        was 2,328 and refused the 0.2 s walk)."""
        hi, lo = max(faces), min(faces)
        per_left = sum(self.mult.values()) * (hi - lo) + 1
        asked = [0]  # asked ranks among the first s placed dice, s < last
        for r in range(1, min(self.last, dice)):
            asked.append(asked[-1] + self.mult.get(r, 0))
        m, seen = sum(asked), len(asked)
        alive = sum(m * (hi - f) + seen for f in faces)  # pairs alive, summed over faces
        mean = -(-alive // (len(faces) * limits.CALIBRATION_FACTOR))
        return max(per_left, mean)


#: the big-integer work of mixing (measured at about 20 ns a unit on the loaded machine)
#: is charged this many times over, the margin the interpreter's own units carry
#: (charged at 20 ns, measured at 4-8: docs/anydice.md, "budget margin"), so a program
#: that spends the budget on million-bit weights stops as soon as one that spends it on
#: function calls (1734d: ten rounds of 8-million-bit mixtures, refused after 2.2 s CPU
#: with a margin of 1)
BIG_MARGIN = 3


def int_mul_work(a: int, b: int) -> int:
    """Work units of the product of an ``a``-word and a ``b``-word integer (64-bit words):
    schoolbook, about 5 ns a word pair, or CPython's Karatsuba past a few dozen words,
    about 20 ns x (long / short) x short^1.585 (measured 2026-11-25, loaded machine):
    the smaller. A one-word factor: ``a / 4`` units, linear."""
    lo, hi = (a, b) if a <= b else (b, a)
    if lo <= 16:
        return 1 + hi * lo // 4
    return 1 + min(hi * lo // 4, int(-(-hi // lo) * lo**1.585))


def int_div_work(a: int, b: int) -> int:
    """Work units of an ``a``-word integer divided by (or first gcd step with) a
    ``b``-word one: schoolbook, one pass over the divisor per word of the quotient, about
    5 ns a word pair plus 30 ns a word (measured on the loaded machine: 27 ns a word for
    one-word divisors, 4-5 ns a word pair past 16 words). Linear when either the divisor
    or the quotient is small."""
    return 1 + (max(a - b, 0) + 1) * (b + 6) * 3 // 10


def gcd_work(a: int, b: int) -> int:
    """Work units of ``math.gcd`` of an ``a``-word and a ``b``-word integer: one division
    of the longer by the shorter, then Lehmer's quadratic steps on the shorter's size
    (about 5 ns a word pair, measured on the loaded machine: 0.74 s for two 800,000-bit
    numbers). Quadratic only in the SHORTER one: ``gcd(7, x)`` is linear in ``x``."""
    lo, hi = (a, b) if a <= b else (b, a)
    return int_div_work(hi, lo) + lo * lo * 3 // 10


def lcm_step_work(lcm: int, total: int) -> int:
    """Work units of one step ``lcm * total // gcd(lcm, total)`` when either is past 16
    words (0 below: :func:`mix_work`'s charge covers it)."""
    a, b = lcm.bit_length() // 64 + 1, total.bit_length() // 64 + 1
    if a <= 16 and b <= 16:
        return 0
    return (gcd_work(a, b) + int_mul_work(a, b) + int_div_work(a + b, min(a, b))) * BIG_MARGIN


#: work units of one entry of a part in a mixture (chancekit.limits, shared with notation)
MIX_ENTRY_WORK = limits.MIX_ENTRY_WORK


def mix_work(parts: list[Distribution], weights: list[int], lcm: int) -> tuple[int, int]:
    """``(units, words)``: the work of ``Distribution.mixture(parts, weights)`` given the
    common denominator ``lcm`` of the parts (its own recomputation charged apart), and the
    words (64 bits) of its widest weight before reduction. Each entry ``v`` of part ``p``
    becomes ``v x w x (lcm // p.total)`` (one product, :func:`int_mul_work`); the weights
    are then reduced by their gcd, which starts from the SMALLEST weight
    (``chancekit.dice.distribution._reduce``): one Lehmer gcd quadratic in that weight's
    size and a division of each weight by it (:func:`gcd_work`), and a division by the
    gcd found. So a die whose outcomes all carry million-bit weights (149bd: every round of
    ``[restrict ROLL to RANGE else ROLL]`` keeps most of its mass on ``-1``) costs
    seconds, while one with a small weight beside them (149c7: the ``-1`` left ever
    rarer) costs linear time. Sizes are read from bit lengths, an upper bound each
    (a sum of ``k`` terms is at most ``log2 k`` bits wider than the widest). The gcd
    pass is charged both ways it can go: the running gcd collapsing (Lehmer's steps,
    quadratic in the smallest weight, once: their cost telescopes) and staying as wide
    as the smallest weight (a division of every weight by it, and the final division by
    it); a common factor about half as wide as weights about as wide as it (never seen
    in real programs) may cost up to a quarter of that smallest weight's square per
    outcome more. Below 16 words a weight costs what a small one does:
    ``ENTRY_WORK`` an entry and ``2 x words^2``."""
    entries = sum(len(p) for p in parts)
    lcm_bits = lcm.bit_length()
    wide = (lcm_bits + max(w.bit_length() for w in weights)) // 64
    if wide <= 16:
        return entries * MIX_ENTRY_WORK * (1 + wide // 16) + 2 * wide * wide, wide
    wide += 1
    units = entries * MIX_ENTRY_WORK * (1 + wide // 16)  # the linear passes: sums, checks
    if entries > MIX_EXACT_ENTRIES:
        return units + _mix_bound(parts, weights, lcm_bits) * BIG_MARGIN, wide
    bits: dict[Any, int] = {}  # outcome -> bits of its weight before reduction, at most
    for p, w in zip(parts, weights, strict=True):
        s_bits, scale_units = _part_scale(p, w, lcm_bits)
        units += scale_units
        s_words = s_bits // 64 + 1
        get = bits.get
        for x, v in p.items():
            vb = v.bit_length()
            units += int_mul_work(vb // 64 + 1, s_words)
            if vb + s_bits > get(x, 0):
                bits[x] = vb + s_bits
    extra = len(parts).bit_length()
    small = (min(bits.values()) + extra) // 64 + 1  # the smallest weight, where the gcd starts
    units += small * small * 3 // 10  # Lehmer's steps on the smallest's size
    for b in bits.values():  # a division by the running gcd, then by the gcd found
        units += 2 * int_div_work((b + extra) // 64 + 1, small)
    return units * BIG_MARGIN, wide


def _part_scale(p: Distribution, w: int, lcm_bits: int) -> tuple[int, int]:
    """(bits of the scale ``w x (lcm // p.total)`` of a mixture's part, work units of
    computing it: a division of the common denominator by the part's total, a product)."""
    t_bits = p.total.bit_length()
    q_bits = lcm_bits - t_bits + 1  # lcm // p.total
    return w.bit_length() + q_bits, (int_div_work(lcm_bits // 64 + 1, t_bits // 64 + 1)
                                     + int_mul_work(w.bit_length() // 64 + 1, q_bits // 64 + 1))


#: past this many entries in all, :func:`mix_work` bounds the big-integer work part by
#: part (:func:`_mix_bound`) instead of entry by entry: a Python step per entry cost more
#: than the mixture it priced (hang-200: 4.3 s of estimates for 0.9 s of mixtures)
MIX_EXACT_ENTRIES = 20_000
#: the parts whose lightest outcome is tried as the result's smallest weight
MIX_CANDIDATES = 8


def _mix_bound(parts: list[Distribution], weights: list[int], lcm_bits: int) -> int:
    """The big-integer work of a mixture of many entries, bounded part by part with C-level
    passes only: each entry's product priced at its part's total (an entry is at most its
    total); the result's smallest weight, where the gcd starts, bounded by the weight of
    the lightest outcome of one of the :data:`MIX_CANDIDATES` parts whose lightest entry,
    scaled, is smallest (summed over every part that has it: an upper bound of the
    smallest); and every outcome divided as if it were the widest."""
    units, widest = 0, 0
    scales = []
    mins = []
    for p, w in zip(parts, weights, strict=True):
        t_bits = p.total.bit_length()
        s_bits, scale_units = _part_scale(p, w, lcm_bits)
        units += scale_units + len(p) * int_mul_work(t_bits // 64 + 1, s_bits // 64 + 1)
        widest = max(widest, t_bits + s_bits)
        scales.append(s_bits)
        mins.append(min(p.weights.values()).bit_length() + s_bits)
    extra = len(parts).bit_length()
    small = (min(widest, _smallest_bits(parts, scales, mins)) + extra) // 64 + 1
    units += small * small * 3 // 10  # Lehmer's steps on the smallest's size
    outcomes = sum(len(p) for p in parts)
    return units + outcomes * 2 * int_div_work((widest + extra) // 64 + 1, small)


def _smallest_bits(parts: list[Distribution], scales: list[int], mins: list[int]) -> int:
    """An upper bound of the bits of the smallest weight of a mixture before reduction
    (each outcome's weight: the sum over the parts that have it of its weight there, of
    ``bits + scales[i]`` bits at most, ``mins[i]`` the least of part ``i``): the exact bound
    of the lightest outcome of each of the :data:`MIX_CANDIDATES` parts of least ``mins``
    (a pass over the parts each)."""
    best = None
    for i in sorted(range(len(parts)), key=mins.__getitem__)[:MIX_CANDIDATES]:
        w_i = parts[i].weights
        x = min(w_i, key=w_i.__getitem__)
        b = max(q.weights.get(x, 0).bit_length() + s
                for q, s in zip(parts, scales, strict=True) if x in q.weights)
        best = b if best is None else min(best, b)
    assert best is not None
    return best


def words(n: Any) -> int:
    """The 64-bit words of the integer ``n`` (at least 1); of a certified weight
    (:class:`~chancekit.dice.certified.Interval`), of its fixed-point upper bound."""
    if not isinstance(n, int):
        n = n.hi
    return n.bit_length() // 64 + 1


def weight_product_work(lists: list[Any]) -> int:
    """Work units, per combination, of the weight of one combination of an expansion over
    ``lists`` (each a list of ``(value, weight)``): the product of one weight from each,
    priced with its width (:func:`int_mul_work`), and the sum that later adds it into
    its result's weight (:func:`mix`). Nothing but a unit for small weights; for wide
    ones the product dominates the expansion: ``[helper 1dD 1dD]`` over a die ``D``
    whose weights squared every round of a loop (issue 31: 121 products of 680,000-bit
    weights took 7 s, uncharged, the next round 20 s)."""
    sizes = [max(words(w) for _, w in items) if items else 1 for items in lists]
    acc, units = sizes[0], 0
    for m in sizes[1:]:
        units += int_mul_work(acc, m)
        acc += m
    return units + acc // 4


#: Euclid's steps (one division each) tried before a Lehmer gcd in :func:`reduce_priced`
EUCLID_STEPS = 4


def reduce_priced(w: dict[int, int]) -> Distribution:
    """The distribution of the integer weights ``w`` reduced by their gcd, each big step
    charged before it runs: from the smallest weight, a division of each weight by the
    running gcd (:func:`int_div_work`), and only where it leaves a remainder a Lehmer gcd
    (:func:`gcd_work`, quadratic in the shorter: two random 1.3-million-bit weights take
    2.7 s), so equal or multiple weights (149c7's) cost linear time and unrelated wide
    ones are refused before their gcd. Small weights: ``Distribution``'s own pass."""
    if max(w.values()).bit_length() <= 16 * 64:
        return Distribution._raw(w)
    g = min(w.values())
    for v in w.values():
        if g == 1:
            break
        gw = words(g)
        limits.charge(int_div_work(words(v), gw) * BIG_MARGIN,
                      f"reducing weights of {v.bit_length():,} bits")
        r = v % g
        # a few of Euclid's steps first, a division each: weights that are multiples of
        # one another's remainders (149c7: 786,431-bit weights, 0.25 s in all) end there
        # in linear time; only a gcd still open after them is charged Lehmer's steps
        for _ in range(EUCLID_STEPS):
            if not r:
                break
            limits.charge(int_div_work(words(g), words(r)) * BIG_MARGIN,
                          f"the gcd of weights of {g.bit_length():,} bits")
            g, r = r, g % r
        if r:
            limits.charge(gcd_work(words(g), words(r)) * BIG_MARGIN,
                          f"the gcd of weights of {g.bit_length():,} bits")
            g = math.gcd(g, r)
    if g > 1:
        limits.charge(sum(int_div_work(words(v), words(g)) for v in w.values()),
                      "reducing weights by their gcd")
        w = {k: v // g for k, v in w.items()}
    return Distribution._raw(w, reduced=True)


def mix(results: list[tuple[Any, int]]) -> Die:
    """The die of results reached with integer weights (an expansion): each result is a
    number, a sequence (summed) or a die (its collection summed); empty dice drop out and
    the rest are renormalised. All empty: the empty die."""
    numbers: dict[int, int] = {}  # results that are numbers: outcome -> weight
    dice: dict[Distribution, int] = {}  # results that are dice (equal ones merged)
    for value, w in results:
        if type(value) is int:
            numbers[value] = numbers.get(value, 0) + w
        elif isinstance(value, tuple):
            x = sum(value)
            numbers[x] = numbers.get(x, 0) + w
        elif not value.empty:
            dist = value.dist
            dice[dist] = dice.get(dist, 0) + w
    parts: list[Distribution] = list(dice)
    weights: list[int] = list(dice.values())
    seen(*parts)
    if _cert.threshold() is not None and _mix_certified(parts, weights, numbers):
        if not parts and len(numbers) == 1:
            return Die.single(constant(next(iter(numbers))))
        if len(parts) == 1 and not numbers:
            return Die.single(parts[0])
        if not parts and not numbers:
            return EMPTY
        cparts = parts + [constant(x) for x in numbers]
        return Die.single(_cert.CertifiedDistribution.mixture(
            cparts, weights + list(numbers.values())))
    if not parts:
        return Die.single(reduce_priced(numbers)) if numbers else EMPTY
    if numbers:
        parts.append(reduce_priced(numbers))
        weights.append(sum(numbers.values()))
    if len(parts) == 1:
        return Die.single(parts[0])
    charge_mixture(parts, weights, "mixing the results of a function")
    return Die.single(Distribution.mixture(parts, weights))


def _mix_certified(parts: list[Any], weights: list[Any], numbers: dict[int, Any]) -> bool:
    """In a certified run: whether a mixture goes the certified way (a part or weight
    is certified, or the exact weights would pass the threshold: the parts' distinct
    totals multiplied, at most, and the widest weight)."""
    if any(isinstance(w, _cert.Interval) for w in weights) or any(
            isinstance(w, _cert.Interval) for w in numbers.values()):
        return True
    if any(_cert.wide(p) for p in parts):
        return True
    t = _cert.threshold()
    assert t is not None
    bits = sum(x.bit_length() for x in {p.total for p in parts})
    bits += max((w.bit_length() for w in weights), default=0)
    bits += max((w.bit_length() for w in numbers.values()), default=0)
    return bits > t


def charge_mixture(parts: list[Distribution], weights: list[int], what: str) -> None:
    """Charge ``Distribution.mixture(parts, weights)`` before it starts: the common
    denominator of the parts step by step (each big step charged before it runs, and
    once more for the mixture's own), then :func:`mix_work`."""
    lcm, lcm_work = 1, 0
    for p in parts:  # the common denominator the mixture scales every part to
        step = lcm_step_work(lcm, p.total)
        if step:  # big: charged before each step (the mixture computes it once more)
            limits.charge(step, f"{what} (their common denominator, "
                          f"{lcm.bit_length() + p.total.bit_length():,} bits)")
            lcm_work += step
        lcm = lcm * p.total // math.gcd(lcm, p.total)
    units, wide = mix_work(parts, weights, lcm)
    limits.charge(units + lcm_work, f"{what} (with {64 * wide:,}-bit weights)")


def fraction_weights(d: Distribution) -> dict[int, Fraction]:
    t = d.total
    return {k: Fraction(v, t) for k, v in d.items()}


def multisets(base: Distribution, n: int, lowest_first: bool) -> list[tuple[tuple[int, ...], int]]:
    """Every sorted roll of ``n`` dice like ``base`` with its weight (multinomial times
    face weights), in AnyDice's order: highest first (each roll high to low, the rolls in
    decreasing order) by default, else low to high. One C-level
    ``combinations_with_replacement`` pass; O(rolls x n)."""
    faces = list(base.outcomes())  # increasing
    if not lowest_first:
        faces.reverse()
    fact = [math.factorial(i) for i in range(n + 1)]
    top = fact[n]
    weights = base.weights
    uniform = len(set(weights.values())) == 1
    out: list[tuple[tuple[int, ...], int]] = []
    append = out.append
    for roll in itertools.combinations_with_replacement(faces, n):
        counts = Counter(roll)
        denom = 1
        for c in counts.values():
            denom *= fact[c]
        w = top // denom
        if not uniform:
            for f, c in counts.items():
                w *= weights[f] ** c
        append((roll, w))
    return out
