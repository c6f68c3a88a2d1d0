"""Dice notation's meaning: a syntax tree compiled to calls of the public API (private).

Each node becomes the API call a Python user would write (docs/notation.md):

==============================  =================================================
notation                        API
==============================  =================================================
``7``                           ``constant(7)``
``4d6kh3``                      ``Pool(d(6), 4).keep(highest(3)).sum()``
``3d{1,1,2}e2``                 ``Pool(faces([1, 1, 2]), 3).explode(equal(2)).sum()``
``(1d4+1, 3, 2d6)kh1``          ``Pool.of([...]).keep(highest(1)).sum()``
``a + b``, ``a // b``, ``-a``   ``a + b``, ``a // b``, ``-a`` on Distributions
``a >= b``                      ``a.ge(b)`` (a 0/1 distribution), likewise ``== != < >``
``10d10!!kh5`` (roll20)         ``Pool(d(10), 10).compound(equal(10)).keep(highest(5))``
``10d10>=8f1`` (roll20)         ``Pool(d(10), 10).count(at_least(8), fail=at_most(1))``
``{3d20+5}>21`` (roll20)        ``Pool(d(20), 3).count(at_least(16)).sum()`` (each die)
``{2d20+5, 1d8}>21`` (roll20)   ``Pool.of([2 @ d(20) + 5, d(8)]).count(at_least(21))``
``(1d4)d6``                     ``Distribution.mixture`` of ``Pool(d(6), n).sum()``
``floor(x)`` (roll20, foundry)  ``x.map(math.floor)``; ``max(a, b)``: ``a.max(b)``
==============================  =================================================

There is no other engine: the whole expression shares one work budget (``MAX_WORK``,
:mod:`chancekit.limits`), opened here, so notation and the equivalent API calls make the
same limit decisions. Errors from the API are given the column of the node that raised.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from chancekit import limits
from chancekit.dice._ast import Binary, Call, Dice, Group, Node, Num, Unary, VarDice, walk
from chancekit.dice._estimate import (
    Bound,
    Refused,
    dice_bound,
    forget,
    known,
    lower_bound,
    remembering,
)
from chancekit.dice.caps import combine, mixture, unary
from chancekit.dice.distribution import (
    EXPLODE_DEPTH,
    THEN_PER_OUTCOME,
    Distribution,
    constant,
    d,
    faces,
    wide_pairs_work,
)
from chancekit.dice.pool import Pool
from chancekit.errors import LimitError, NotationError, quote
from chancekit.limits import (
    ENTRY_WORK,
    FRACTION_MAP_WORK,
    MAP_WORK,
    MAX_OUTCOMES,
    MAX_POWER_BITS,
    MAX_WORK,
)

__all__ = ["ARITY", "FOUNDRY_FUNCTIONS", "FUNCTIONS", "UNARY_FUNCTIONS",
           "call", "compile_tree", "power", "price_power"]

_BINARY: dict[str, Callable[[Distribution, Distribution], Distribution]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "==": Distribution.eq, "!=": Distribution.ne, "<": Distribution.lt,
    ">": Distribution.gt, "<=": Distribution.le, ">=": Distribution.ge,
    "**": lambda a, b: a._combine(b, _guard(power, "**"), "**"),
}


#: the math functions of the roll20 and foundry dialects, on one value (docs/notation.md):
#: ``round`` is JavaScript's ``Math.round`` and Roll20's documented rule, half toward +inf
#: (``round(-5/2) == -2``); ``max``/``min`` take one or more arguments
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "floor": math.floor, "ceil": math.ceil, "abs": abs,
    "round": lambda x: math.floor(x + Fraction(1, 2)),
    "max": lambda *xs: max(xs), "min": lambda *xs: min(xs),
}
#: the functions of one argument (the others take one or more)
UNARY_FUNCTIONS = ("floor", "ceil", "round", "abs")


def _sign(x: Any) -> int:
    return (x > 0) - (x < 0)


def _round_fast(x: Any) -> int:
    """Foundry's ``Math.roundFast``: halves away from zero."""
    return math.floor(x + Fraction(1, 2)) if x >= 0 else math.ceil(x - Fraction(1, 2))


def _root(x: Any, n: int, name: str) -> Any:
    """The exact ``n``-th root of a rational when it is rational, else the float
    JavaScript's ``Math.sqrt`` / ``Math.cbrt`` gives."""
    if type(x) is int and x >= 0:  # the common case, without Fractions
        r = _iroot(x, n)
        if r**n == x:
            return r
        return math.sqrt(x) if n == 2 else math.cbrt(x)
    q = Fraction(x)
    if q < 0 and n == 2:
        raise ValueError(f"{name} of a negative number ({q}) is not a number")
    sign = -1 if q < 0 else 1
    a, b = abs(q.numerator), q.denominator
    ra, rb = _iroot(a, n), _iroot(b, n)
    if ra**n == a and rb**n == b:
        return _plain(sign * Fraction(ra, rb))
    return math.sqrt(q) if n == 2 else math.cbrt(q)


def _iroot(a: int, n: int) -> int:
    if n == 2:
        return math.isqrt(a)
    r = round(a ** (1 / 3)) if a < 2**53 else int(a ** (1 / 3))
    while r**3 > a:
        r -= 1
    while (r + 1) ** 3 <= a:
        r += 1
    return r


def _plain(x: Any) -> Any:
    return int(x) if isinstance(x, Fraction) and x.denominator == 1 else x




def power(a: Any, b: Any) -> Any:
    """``a ** b`` exactly (Foundry's ``**`` and ``pow``): a whole exponent (negative:
    a Fraction); a fractional exponent is refused (the result is irrational: use
    ``sqrt``); results past :data:`MAX_POWER_BITS` bits are refused."""
    b = _plain(b)
    if not isinstance(b, int):
        raise ValueError(f"a power with a fractional exponent ({b}) is not supported (the "
                         "result is irrational): use sqrt() or cbrt()")
    if type(a) is int and 0 <= b and abs(b) * a.bit_length() <= MAX_POWER_BITS:
        return a**b  # the common case, without Fractions
    q = Fraction(a)
    if q == 0 and b < 0:
        raise ZeroDivisionError("0 to a negative power")
    size = abs(b) * max(abs(q.numerator).bit_length(), q.denominator.bit_length())
    if size > MAX_POWER_BITS and abs(q) != 1:
        raise LimitError(f"{a} ** {b} would have about {size:,} bits, past the limit "
                         f"MAX_POWER_BITS = {MAX_POWER_BITS:,}; use a smaller exponent",
                         limit="MAX_POWER_BITS", value=size)
    return _plain(q**b)


def _float_fn(f: Callable[[float], float], name: str) -> Callable[[Any], Any]:
    def go(x: Any) -> Any:
        try:
            r = f(x)
        except (ValueError, OverflowError):
            raise ValueError(f"{name}({_plain(x)}) is not a finite number") from None
        return _plain(Fraction(r)) if r == int(r) and abs(r) < 2**53 else r
    return go


def _round_decimals(x: Any, places: Any) -> Any:
    p = _plain(places)
    if not isinstance(p, int) or not 0 <= p <= 100:
        raise ValueError(f"roundDecimals needs a whole number of places from 0 to 100, not "
                         f"{p}")
    scale = 10**p
    return _plain(Fraction(math.floor(Fraction(x) * scale + Fraction(1, 2)), scale))


def _clamp(x: Any, lo: Any, hi: Any) -> Any:
    return min(hi, max(x, lo))


#: the foundry dialect's functions beyond :data:`FUNCTIONS` (JavaScript's ``Math`` and
#: Foundry's additions), each exact where its value is rational; ``sqrt cbrt exp log
#: log2 log10 hypot`` give floats where the value is irrational, as Foundry computes them
FOUNDRY_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "trunc": math.trunc, "sign": _sign, "roundFast": _round_fast,
    "sqrt": lambda x: _root(x, 2, "sqrt"), "cbrt": lambda x: _root(x, 3, "cbrt"),
    "exp": _float_fn(math.exp, "exp"), "log": _float_fn(math.log, "log"),
    "log2": _float_fn(math.log2, "log2"), "log10": _float_fn(math.log10, "log10"),
    "pow": power, "hypot": lambda *xs: _root(sum(Fraction(x) ** 2 for x in xs), 2, "hypot"),
    "clamp": _clamp, "clamped": _clamp, "roundDecimals": _round_decimals,
}
FUNCTIONS.update(FOUNDRY_FUNCTIONS)
#: how many arguments each function takes: a number, or ``None`` (one or more)
ARITY: dict[str, int | None] = {
    **{n: 1 for n in ("floor", "ceil", "round", "abs", "trunc", "sign", "roundFast", "sqrt",
                      "cbrt", "exp", "log", "log2", "log10")},
    "pow": 2, "roundDecimals": 2, "clamp": 3, "clamped": 3,
    "max": None, "min": None, "hypot": None,
}


#: functions whose map costs a Fraction's rate an outcome (roots, logarithms)
_HEAVY = ("sqrt", "cbrt", "exp", "log", "log2", "log10", "hypot", "roundDecimals")


def _bits(x: Any) -> int:
    q = x if isinstance(x, int) else Fraction(x)
    if isinstance(q, int):
        return max(1, abs(q).bit_length())
    return max(1, abs(q.numerator).bit_length(), q.denominator.bit_length())


def price_power(a: Distribution, b: Distribution, what: str) -> None:
    """Refuse or charge ``a ** b`` before any power is taken: the largest result's bits
    (:data:`MAX_POWER_BITS`), all results' bits together (``MAX_WEIGHT_BITS``), and
    the pairs, each a product of that many bits. O(outcomes of a and b)."""
    from chancekit.limits import MAX_WEIGHT_BITS, PAIR_WORK

    exps = [_plain(e) for e in b.outcomes()]
    if not all(isinstance(e, int) for e in exps):
        return  # the power itself refuses a fractional exponent, with its message
    top = max(abs(e) for e in exps)
    base = max(_bits(x) for x in a.outcomes())
    size = top * base
    if size > MAX_POWER_BITS and any(abs(Fraction(x)) not in (0, 1) for x in a.outcomes()):
        raise LimitError(f"{what} can be a number of about {size:,} bits, past the limit "
                         f"MAX_POWER_BITS = {MAX_POWER_BITS:,}; use a smaller exponent",
                         limit="MAX_POWER_BITS", value=size)
    pairs = len(a) * len(b)
    if pairs * size > MAX_WEIGHT_BITS:
        raise LimitError(f"{what} would hold about {pairs * size:,} bits of outcomes, past the "
                         f"limit MAX_WEIGHT_BITS = {MAX_WEIGHT_BITS:,}", limit="MAX_WEIGHT_BITS",
                         value=pairs * size)
    limits.charge(pairs * PAIR_WORK * (size // 64 + 1), what)


def call(name: str, args: list[Distribution]) -> Distribution:
    """The exact distribution of ``name(*args)`` for independent ``args``: a map of the
    one argument's outcomes (O(outcomes)), or the arguments combined pairwise (O(pairs)
    each, charged to the work budget by :meth:`Distribution._combine`)."""
    fn = FUNCTIONS[name]
    if name in _HEAVY:
        limits.charge(sum(len(a) for a in args) * (FRACTION_MAP_WORK - MAP_WORK),
                      f"{name}() of every outcome")
    if name == "pow":
        price_power(args[0], args[1], "pow()")
    if ARITY[name] == 1:
        return unary(args[0].map(_guard(fn, name)), args[0], name)
    if name in ("max", "min"):
        out = args[0]
        for a in args[1:]:
            out = combine(Distribution.max(out, a) if name == "max"
                          else Distribution.min(out, a), out, a, name)
        return out
    if name == "hypot":  # the root of a sum of squares, each argument independent
        squares = [a.map(lambda x: Fraction(x) ** 2) for a in args]
        total = squares[0]
        for sq in squares[1:]:
            total = total + sq
        return unary(total.map(_guard(lambda x: _root(x, 2, "hypot"), name)), args[0], name)
    out = args[0]
    for i, a in enumerate(args[1:]):
        if name in ("clamp", "clamped"):
            step = Distribution.max if i == 0 else Distribution.min
            out = combine(step(out, a), out, a, name)
        else:  # pow, roundDecimals
            out = combine(out._combine(a, _guard(fn, name), name), out, a, name)
    return out


def _guard(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with its ValueError / ZeroDivisionError turned into a NotationError-ready
    message (raised by ``_eval`` with the column)."""
    def go(*xs: Any) -> Any:
        try:
            return fn(*xs)
        except ZeroDivisionError as e:
            raise _FunctionError(f"{name}: division by zero ({e})") from None
        except ValueError as e:
            raise _FunctionError(f"{name}: {e}") from None
    return go


class _FunctionError(Exception):
    """A function's value is undefined for an outcome (sqrt(-1), 0 ** -1)."""


#: operators that only change the breakdown (marks, sorting, Roll20's matched dice)
_BREAKDOWN = ("mark", "sort", "match")


#: a pairwise step of at least this many pairs whose result feeds another priced step
#: counts its distinct results first (a gcd per pair for ``/``) when the step after it
#: could pass the budget (``69d20/66d2%76d4``: the ``/`` ran 1.5 s, then ``%`` was refused)
_COUNT_PAIRS = 5_000
#: units a pair when the distinct results of ``/`` or of Fractions are counted (a product,
#: a gcd and a reduced pair in a set: about 0.5 us)
_COUNT_RATIONAL_WORK = 25


class _Ctx:
    """The source text and the column of the node being compiled (for errors), and the
    tree priced as it is evaluated (``memo``: dice/_estimate.py's bounds by node id,
    ``path``: the nodes being evaluated, root first)."""

    def __init__(self, text: str, root: Node | None = None) -> None:
        self.text = text
        self.col = 1
        self.root = root
        self.memo: dict[int, Bound] = {}
        self.path: list[Node] = []

    def work(self, node: Node) -> int:
        """The lower bound of the work ``node`` has left (0 when not priced)."""
        got = self.memo.get(id(node))
        return got.work if got is not None else 0

    def first(self, node: Node) -> int:
        """The order to evaluate siblings in: sides the tree cannot read (their bound
        says one outcome and no work: general pools, rolled counts) first, then the
        cheapest; what they give prices the steps they feed before the others run."""
        got = self.memo.get(id(node))
        if got is None:
            return 0
        return -1 if (got.lo <= 1 and not got.const and not got.work) else got.work

    def learned(self, node: Node, bound: Bound) -> None:
        """``node``'s bound is now ``bound`` (evaluated: :func:`known`): the work left in
        the whole tree is priced again (the ancestors only, O(depth)) and refused now when
        it no longer fits the budget. Only when the node's outcomes are more than its
        bound said (else nothing left can cost more than priced)."""
        memo = self.memo
        before = memo.get(id(node))
        memo[id(node)] = bound
        if (self.root is None or not self.path or self.path[-1] is not node or (
                before is not None and not (
                    bound.lo > before.lo or bound.const != before.const
                    or bound.work > before.work or (bound.frac and not before.frac)
                    or (bound.dense and not (before.dense or before.consecutive))
                    or (bound.sparse and not before.sparse)
                    or (bound.gcd != before.gcd and bound.gcd > 0)
                    or bound.tbits > 2 * before.tbits + 64))):
            return  # nothing learnt that can raise the price of what is left
        for up in self.path[:-1]:
            memo.pop(id(up), None)
        try:
            rest = lower_bound(self.root)
        except Refused as r:
            raise LimitError(f"{r.what} (at column {r.col} of {quote(self.text)})",
                             limit=r.limit, value=r.value) from None
        limits.check(rest.work, "this expression (priced again with the outcomes of "
                     f"column {node.col} known)")

    def refuse(self, what: str, units: int) -> LimitError:
        shown = f"{units:,}" if units < 10**15 else f"2^{units.bit_length() - 1}"
        return LimitError(
            f"{what} needs too much work (all steps of the expression) at column {self.col} "
            f"of {quote(self.text)}: about {shown} is past the limit MAX_WORK = "
            f"{MAX_WORK:,}; use fewer or smaller dice, or estimate it with "
            "chancekit.roll(...) many times", limit="MAX_WORK", value=units)


def compile_tree(node: Node, text: str) -> Distribution:
    """The exact distribution of ``node`` (``text`` is the source, for messages)."""
    ctx = _Ctx(text, node)
    token = remembering(ctx.memo)
    try:
        return _compile(node, text, ctx)
    finally:
        forget(token)


def _compile(node: Node, text: str, ctx: _Ctx) -> Distribution:
    with limits.evaluation(limit=MAX_WORK, name="MAX_WORK", refuse=ctx.refuse):
        # every die is built once: charged for the whole tree before anything is built
        # (thirty d1000000 in one set are refused at once, not after 2.6 GB)
        limits.charge(sum(len(n.faces) for n in walk(node) if isinstance(n, Dice))
                      * ENTRY_WORK, "building the dice")
        # the steps the tree alone prices (dice/_estimate.py): refused before any of them
        try:
            bound = lower_bound(node)
        except Refused as r:  # a step the tree shows its own limit will refuse: now
            raise LimitError(f"{r.what} (at column {r.col} of {quote(text)})",
                             limit=r.limit, value=r.value) from None
        limits.check(bound.work, "this expression (priced before any step)")
        try:
            return _eval(node, ctx)
        except LimitError as e:
            if "at column" in str(e):
                raise
            raise LimitError(f"{e} (at column {ctx.col} of {quote(text)})", limit=e.limit,
                             value=e.value) from None


def _die(node: Dice) -> Distribution:
    f = node.faces
    if isinstance(f, range) and f.start == 1:
        return d(len(f))
    return faces(list(f))


def _eval(node: Node, ctx: _Ctx) -> Distribution:
    """``node``'s exact distribution; then the rest of the tree priced again with it
    known (:meth:`_Ctx.learned`)."""
    ctx.path.append(node)
    try:
        out = _eval_node(node, ctx)
        ctx.learned(node, known(out))
    finally:
        ctx.path.pop()
    return out


def _eval_node(node: Node, ctx: _Ctx) -> Distribution:
    ctx.col = node.col
    if isinstance(node, Num):
        return constant(node.value)
    if isinstance(node, Dice):
        if any(o.kind in _LIMITED and o.steps for o in node.ops):
            return _limited_explosions(node, ctx)
        pool = Pool(_die(node), node.count, depth=EXPLODE_DEPTH)
        for op in node.ops:
            if op.kind not in _BREAKDOWN:  # breakdown only
                pool = pool._with(op)
        ctx.col = node.col
        return pool.sum()
    if isinstance(node, VarDice):
        return _var_dice(node, ctx)
    if isinstance(node, Group):
        if not node.is_set:
            return _eval(node.items[0], ctx)
        pool = Pool.of(_eval_all(node.items, ctx))
        for op in node.ops:
            pool = pool._with(op)
        ctx.col = node.col
        return pool.sum()
    if isinstance(node, Unary):
        inner = _eval_then(node.operand, ctx, limits.SHIFT_WORK if node.op == "-" else 0)
        return inner if node.op == "+" else unary(Distribution.__neg__(inner), inner, "-")
    if isinstance(node, Call):
        args = _eval_all(node.args, ctx)
        ctx.col = node.col
        _count_called(node, args, ctx)
        try:
            return call(node.name, args)
        except _FunctionError as e:
            raise NotationError(f"{e} (an outcome of the argument)", ctx.text,
                                node.col) from None
    if isinstance(node, Binary):  # a side mapped by a number: looked ahead at
        left_rate = MAP_WORK if isinstance(node.right, Num) else 0
        right_rate = MAP_WORK if isinstance(node.left, Num) else 0
        if ctx.first(node.right) < ctx.first(node.left):
            # the cheaper side first: its outcomes price this step before the costly side
            b = _eval_then(node.right, ctx, right_rate)
            a = _eval_then(node.left, ctx, left_rate)
        else:
            a = _eval_then(node.left, ctx, left_rate)
            b = _eval_then(node.right, ctx, right_rate)
        ctx.col = node.col
        _count_results(node, a, b, ctx)
        if node.op == "**":
            price_power(a, b, "'**'")
        if node.op in ("/", "//", "%") and 0 in b:
            raise NotationError(
                f"division by zero: the right side of '{node.op}' can be 0", ctx.text, node.col)
        # explosion caps (dice.caps) carried whichever side has one
        try:
            return combine(_BINARY[node.op](a, b), a, b, node.op)
        except _FunctionError as e:
            raise NotationError(f"{e} (the sides can give it)", ctx.text, node.col) from None
    raise AssertionError(node)  # pragma: no cover


def _eval_all(nodes: Sequence[Node], ctx: _Ctx) -> list[Distribution]:
    """The distributions of ``nodes`` in their order, evaluated cheapest first
    (:meth:`_Ctx.first`: what the cheap ones give is priced before the costly ones run)."""
    order = sorted(range(len(nodes)), key=lambda i: ctx.first(nodes[i]))
    out: list[Distribution | None] = [None] * len(nodes)
    for i in order:
        out[i] = _eval(nodes[i], ctx)
    return [x for x in out if x is not None]


def _count_results(node: Binary, a: Distribution, b: Distribution, ctx: _Ctx) -> None:
    """Before a pairwise ``* / % //`` of rationals (integers or Fractions), or ``+`` or
    ``-`` with Fractions, whose result feeds another step: when the rest of the tree could
    pass the budget with as many results as pairs, count the distinct results first (for
    integers the results in one set; else a reduced numerator and denominator a pair: a
    small part of the step, which builds a Fraction a pair, hashes and sorts them) and
    price the rest with that count, so the step after it is refused before this one
    runs."""
    if len(ctx.path) < 2:
        return
    if node.op in ("%", "//") and a._int and b._int and (len(a._w) == 1) != (len(b._w) == 1):
        _count_mapped(node, a, b, ctx)
        return
    if node.op not in _COUNTED:
        return
    pairs = len(a._w) * len(b._w)
    if pairs < _COUNT_PAIRS or len(a._w) == 1 or len(b._w) == 1 or pairs > limits.MAX_PAIRS:
        return
    ints = a._int and b._int
    if node.op in ("+", "-") and ints:
        return  # (integers: a polynomial product, or pairs refused up front when spread)
    if not ints and not all(t is int or t is Fraction
                            for t in set(map(type, a._w)) | set(map(type, b._w))):
        return
    if node.op in ("/", "%", "//") and 0 in b._w:
        return  # division by zero: the step says so
    # (Distribution._combine's rate: a Fraction's for '/' or any Fraction side)
    rate = limits.PAIR_WORK if ints and node.op != "/" else limits.FRACTION_PAIR_WORK
    own = pairs * rate + wide_pairs_work(a, b)  # what the step will charge
    # the gcd of the products is the product of the sides' gcds (known(...).gcd: a
    # multiple of it), so a '/ N' after them may surely give Fractions
    gcd = known(a).gcd * known(b).gcd if node.op == "*" and ints else 0
    tbits = _product_tbits(a, b) if node.op == "*" and ints else 1
    most = Bound(pairs, False, node.op == "/" and ints, False, own, tbits, gcd=gcd)
    if _fits(node, most, ctx):
        return
    if ints and node.op != "/":
        limits.count(pairs * 20)
        f = _BINARY[node.op]
        got = len({f(x, y) for x in a._w for y in b._w})
        frac = False
    else:
        # (-18dFe7+39D8>=16-7dF//5d4kh3/d543*6d20kl2: Fractions times integers, uncounted,
        # ran 1 s before the pairs of the '>=' after them were refused)
        limits.count(pairs * _COUNT_RATIONAL_WORK)
        seen = {_reduced(node.op, x, y) for y in b._w for x in a._w}
        frac = any(m != 1 for _, m in seen)
        got = len(seen)
    ctx.learned(node, Bound(got, got == 1, frac, False, own, tbits, gcd=gcd))


#: the operators whose distinct results :func:`_count_results` counts
_COUNTED = ("*", "/", "+", "-", "%", "//")


def _reduced(op: str, x: Any, y: Any) -> tuple[int, int]:
    """``x op y`` for rationals ``x``, ``y`` (``y != 0`` for ``/ % //``) as its reduced
    numerator and denominator (> 0), from integers alone: no Fraction is built. O(1)."""
    n, m, p, q = x.numerator, x.denominator, y.numerator, y.denominator
    if op == "*":
        n, m = n * p, m * q
    elif op in ("+", "-"):
        n, m = n * q + p * m if op == "+" else n * q - p * m, m * q
    elif op == "/":
        n, m = (n * q, m * p) if p > 0 else (-n * q, -m * p)
    elif op == "%":  # x - y floor(x / y): the sign of y, as Python's
        n, m = (n * q) % (m * p), m * q
    else:  # "//"
        return (n * q) // (m * p), 1
    g = math.gcd(n, m)
    return n // g, m // g


def _product_tbits(a: Distribution, b: Distribution) -> int:
    """A lower bound of the bit length of the total weight of ``a * b`` (integers): the
    totals multiplied, divided by the gcd of the result's weights, which divides (so is at
    most) the weight of any product only one pair gives. Where each side's outcomes have one sign,
    the product farthest from 0 is one pair's (the sides' farthest outcomes), so the gcd is
    at most their weights' product; else 1 (nothing known). O(1).
    (``9d6 * 2403d6 - 19d%``: priced with 1-bit weights, the product ran 1.2 s before its
    6 000-bit weights refused the sum after it.)"""
    far = []
    for x in (a, b):
        lo, hi = next(iter(x._w)), next(reversed(x._w))
        if lo > 0:
            far.append(x._w[hi])
        elif hi < 0:
            far.append(x._w[lo])
        else:
            return 1
    return max(1, (a._total * b._total // (far[0] * far[1])).bit_length())


def _count_called(node: Call, args: list[Distribution], ctx: _Ctx) -> None:
    """The same before ``abs(X)`` of many outcomes whose result feeds another step: the
    tree knows only that abs folds them at most in two; counted by one C-level pass, a
    small part of the map, which hashes and sorts every result (roll20's
    ``D8%(...)+abs(-18/d178kh4-dF>=25+d434kh183)``: 73 900 Fractions mapped for 0.6 s,
    then the pairs of the '+' after them were refused)."""
    if node.name != "abs" or len(args) != 1 or len(ctx.path) < 2:
        return
    arg = args[0]
    n = len(arg._w)
    if n < _COUNT_PAIRS:
        return
    # (the map charges a Fraction's rate when the outcomes are not all integers)
    own = limits.MAP_CALL_WORK + n * (MAP_WORK if arg._int else FRACTION_MAP_WORK)
    if _fits(node, Bound(n, False, not arg._int, False, own), ctx):
        return
    limits.count(n * limits.ENTRY_WORK)
    got = len(set(map(abs, arg._w)))
    ctx.learned(node, Bound(got, got == 1, not arg._int, False, own))


def _count_mapped(node: Binary, a: Distribution, b: Distribution, ctx: _Ctx) -> None:
    """The same before ``c % X``, ``X % c``, ``c // X`` or ``X // c`` (one side one
    integer) whose result feeds another step: the tree cannot count its distinct results
    (``-10**26 % d890707 / 4`` mapped 890 707 outcomes for 0.7-1 s, then its 260 000
    remainders were priced as Fractions): counted by one C-level pass, a small part of
    the map, which builds the result's dictionary and sorts it."""
    if (len(a._w) == 1) == (len(b._w) == 1):
        return
    many, (c,) = (b, a._w) if len(a._w) == 1 else (a, b._w)
    n = len(many._w)
    if n < _COUNT_PAIRS or (many is b and 0 in b._w) or (many is a and c == 0):
        return  # (division by zero: the step says so)
    own = limits.MAP_CALL_WORK + n * limits.MAP_WORK  # what the map will charge
    # (at most: every outcome its own result, their gcd 1, so a '/ 4' after them is
    # priced at the Fraction rate)
    if _fits(node, Bound(n, False, False, False, own, gcd=1), ctx):
        return
    limits.count(n * limits.ENTRY_WORK)
    op = operator.mod if node.op == "%" else operator.floordiv
    results = set(map(lambda x: op(c, x), many._w) if many is b
                  else map(lambda x: op(x, c), many._w))
    ctx.learned(node, Bound(len(results), len(results) == 1, False, False, own,
                            gcd=math.gcd(*results)))


def _fits(node: Node, bound: Bound, ctx: _Ctx) -> bool:
    """Whether the rest of the tree fits the budget with ``node``'s bound ``bound`` (the
    memo is left with the ancestors priced again)."""
    memo = ctx.memo
    saved = memo.get(id(node))
    memo[id(node)] = bound
    for up in ctx.path[:-1]:
        memo.pop(id(up), None)
    try:
        rest = lower_bound(ctx.root) if ctx.root is not None else bound
        budget = limits.current()
        return budget is None or budget.estimated + rest.work <= budget.limit
    except Refused:
        return False
    finally:
        if saved is not None:
            memo[id(node)] = saved
        else:
            memo.pop(id(node), None)
        for up in ctx.path[:-1]:
            memo.pop(id(up), None)


def _eval_then(node: Node, ctx: _Ctx, rate: int) -> Distribution:
    """``_eval(node)`` when its result will be mapped next at ``rate`` units an outcome:
    exploding dice (whose outcomes the tree cannot count) let their sum look ahead at that
    map before the power starts (``9d730e>4/1`` powered for 1.3 s, then the map was
    refused)."""
    if not rate or not isinstance(node, Dice) or not node.ops or any(
            op.kind not in ("e", *_BREAKDOWN) for op in node.ops):
        return _eval(node, ctx)
    token = THEN_PER_OUTCOME.set(rate)
    try:
        return _eval(node, ctx)
    finally:
        THEN_PER_OUTCOME.reset(token)


def _whole(x: Distribution, what: str, lo: int, hi: int, name: str, ctx: _Ctx,
           col: int) -> list[int]:
    """The outcomes of a rolled count or number of sides, checked to be whole numbers in
    ``[lo, hi]``."""
    outs = x.outcomes()
    for v in outs:
        if not isinstance(v, int) and not (hasattr(v, "denominator") and v.denominator == 1):
            raise NotationError(f"the {what} must be a whole number; it can be {v}",
                                ctx.text, col)
    if int(outs[0]) < lo:
        raise NotationError(f"the {what} can be {outs[0]} (at least {lo} needed)", ctx.text, col)
    if int(outs[-1]) > hi:
        raise LimitError(f"the {what} can be {outs[-1]}, past the limit {name} = {hi:,} at "
                         f"column {col} of {quote(ctx.text)}", limit=name, value=int(outs[-1]))
    return [int(v) for v in outs]


#: units a face of a die of rolled sides with operators, beyond building it: the tree
#: builds it too to price its pool, and its operators read it (a per-die pass, a count's
#: scores). ``d(79d20 + 8*27d6ro7)cf<2``: 2 582 dice of 4.1 M faces in all, 1.17 s alone
#: charged 9.3 units a face (28 ns a unit), 1.45 s under load, then the rest was refused
_ROLLED_SIDE_OPS_WORK = 5


def _var_dice(node: VarDice, ctx: _Ctx) -> Distribution:
    """Dice with a rolled count and/or number of sides: the mixture, over each (count,
    sides), of the pool with that many dice (``Distribution.mixture``)."""
    from chancekit.limits import MAX_DICE, MAX_SIDES

    if isinstance(node.count, Node):
        count = node.count
        if isinstance(count, Dice) and not count.ops and count.count * count.top > MAX_DICE:
            # its largest sum is known before it is summed ((7D138793)d475: 1.2 s)
            raise LimitError(
                f"the number of dice can be {count.count * count.top}, past the limit "
                f"MAX_DICE = {MAX_DICE:,} at column {node.col} of {quote(ctx.text)}",
                limit="MAX_DICE", value=count.count * count.top)
        cd = _eval(node.count, ctx)
        if node.rounded and any(not isinstance(v, int) and getattr(v, "denominator", 2) != 1
                                for v in cd.outcomes()):
            cd = cd.map(FUNCTIONS["round"])  # Roll20: (5/2)d6 rolls round(5/2) = 3 dice
        counts = _whole(cd, "number of dice", -(1 << 64) if node.signed else 0, MAX_DICE,
                        "MAX_DICE", ctx, node.col)
        if counts[0] < -MAX_DICE:  # Foundry: a count below 0 rolls that many dice
            raise LimitError(
                f"the number of dice can be {counts[0]}: {-counts[0]:,} dice (negated) are "
                f"past the limit MAX_DICE = {MAX_DICE:,} at column {node.col} of "
                f"{quote(ctx.text)}", limit="MAX_DICE", value=-counts[0])
        cw = [cd.weights[c] for c in cd.outcomes()]
    else:
        counts, cw = [node.count], [1]
    if node.sides is not None:
        sd = _eval(node.sides, ctx)
        sides = _whole(sd, "number of sides", 1, MAX_SIDES, "MAX_SIDES", ctx, node.col)
        sw = [sd.weights[s] for s in sd.outcomes()]
        limits.charge(sum(sides) * (ENTRY_WORK + (_ROLLED_SIDE_OPS_WORK if node.ops else 0)),
                      "building the dice")
    else:
        sides, sw = [0], [1]
    # up front: one pool per (count, sides), each at least its dice x faces
    width = [len(node.faces)] if node.faces is not None else sides
    limits.charge(sum(max(abs(c), 1) for c in counts) * sum(width) * ENTRY_WORK,
                  "rolled numbers of dice and sides")
    if not node.ops:  # plain dice: every count's power priced before the first is built
        limits.check(_powers_work([abs(c) for c in counts], sides, node.faces),
                     "rolled numbers of dice and sides")
    if not any(o.kind in _LIMITED and o.steps for o in node.ops):
        # every (count, sides) pool priced by the tree's own bound before the first is
        # built ((87d8p<0p4+d8)d6ph4 kept dice of 105 counts one by one for 1.6 s, then
        # was refused), and the rest of the tree priced again with it
        _pools_work(node, counts, sides, ctx)
    parts: list[Distribution] = []
    weights: list[int] = []
    lcm, entries = 1, 0
    for s, ws in zip(sides, sw, strict=True):
        faces_ = node.faces if node.sides is None else range(1, s + 1)
        assert faces_ is not None
        dice = Dice(1, faces_, node.ops, node.col, node.spelled)
        check_dice_ops(dice, ctx.text)
        die = _die(dice)
        capped = any(o.kind in _LIMITED and o.steps for o in node.ops)
        # the most dice first: a pool whose own estimate refuses it is reached before the
        # smaller ones are built ((25d20+d8)d6!>4kh3 built 480 pools for 2.4 s, then the
        # 508-dice one was refused up front); the mixture does not depend on the order
        for c, wc in sorted(zip(counts, cw, strict=True), key=lambda cw_: -abs(cw_[0])):
            if capped:  # Foundry's limited explosions: that many dice, exactly
                total = _limited_explosions(Dice(abs(c), faces_, node.ops, node.col,
                                                 node.spelled), ctx)
            else:
                pool = Pool(die, abs(c), depth=EXPLODE_DEPTH)
                for op in node.ops:
                    if op.kind not in _BREAKDOWN:
                        pool = pool._with(op)
                total = pool.sum()
            ctx.col = node.col
            # Foundry (signed): a count below 0 rolls |count| dice and negates the total
            parts.append(-total if c < 0 else total)
            weights.append(ws * wc)
            # the mixture of the pools built so far is a part of the whole one (its
            # entries and its denominator only grow): refused now if that part does not
            # fit (d(+D811rr1)ra25 built 787 pools, 0.6 s, then their mixture, over a
            # denominator of 2 300 bits, was refused)
            lcm = lcm * total.total // math.gcd(lcm, total.total)
            entries += len(total)
            if len(parts) > 1:
                limits.check(mixture_work(entries, lcm.bit_length()),
                             "mixing the pools of a rolled count")
    if len(parts) == 1:
        return parts[0]
    limits.charge(mixture_work(entries, lcm.bit_length()),
                  "mixing the pools of a rolled count")
    return mixture(Distribution.mixture(parts, weights), parts, weights)


def mixture_work(entries: int, bits: int) -> int:
    """Units of ``Distribution.mixture`` of parts of ``entries`` outcomes in all over a
    common denominator of ``bits`` bits: each entry scaled (one product of wide integers,
    a word's square over 32) and added (``MIX_ENTRY_WORK``). Uncharged before: the 103
    pools of ((6d3)d6)d4!1, 129 000 entries of 71 words, mixed in 0.48 s. O(1).

    >>> mixture_work(1000, 64 * 71)
    169000
    """
    words = bits // 64
    return entries * (limits.MIX_ENTRY_WORK + words * words // 32)


#: Foundry's operators that take a limit ('x5=10', 'xo2=10', 'r1=1', 'rr2<3')
_LIMITED = ("e", "eo", "ro", "rr")


def _limited_explosions(node: Dice, ctx: _Ctx) -> Distribution:
    """Foundry's limited explosions, ``6d10x5=10`` / ``6d10x2>=9`` / ``6d10xo2=10``: the
    dice are checked in order (the rolled ones, then the new ones), each match rolls one
    more die while the limit lasts, and every rolled die counts (Foundry's
    ``Die#explode``); limited rerolls (``20d20r1=1``, ``rr2<3``) likewise replace a
    match by a new die (``Die#reroll``). Exact, no depth cap: ``f(p, b)``, the total of
    ``p`` dice still to check with ``b`` explosions left, is ``p`` plain dice when
    ``b = 0``, else the mixture of (a matching die + ``f(p, b-1)``) and (another die +
    ``f(p-1, b)``); with ``xo`` only the rolled dice are checked. A count after it
    (``cs``, ``cf``, ``df``, ``sf``, ``even``, ``odd``) scores every die alike. Cost:
    ``(n+1)(limit+1)`` mixtures of sums of at most ``n + limit`` dice, charged before
    the first.

    >>> from chancekit.dice.notation import dist
    >>> dist("1d6x1=6", dialect="foundry").mean()  # 3.5 + 1/6 x 3.5
    Fraction(49, 12)
    """
    from chancekit.dice.selectors import foundry_count

    ops = [o for o in node.ops if o.kind not in _BREAKDOWN]
    first, rest = ops[0], ops[1:]
    if not (first.kind in _LIMITED and first.steps) or len(rest) > 1 or any(
            o.kind != "cnt" for o in rest):
        what = ("limited rerolls ('r1=1')" if any(o.kind in ("ro", "rr") and o.steps
                                                  for o in ops)
                else "limited explosions ('x5=10')")
        raise NotationError(
            f"Foundry's {what} are taken first and alone, or followed by one count "
            "('6d10x2>=9cs>=8'); chancekit does not take them with other modifiers",
            ctx.text, next(o for o in ops if o.steps).col)
    reroll = first.kind in ("ro", "rr")
    cap, n, fs = first.steps[0], node.count, list(node.faces)
    cnt = rest[0] if rest else None
    # (n+1)(limit+1) states, each sums up to n+limit dice of |faces| outcomes against a
    # die, with weights of about (n+limit) log2|faces| bits
    width = max(1, (n + cap) * max(1, len(fs) - 1).bit_length() // 64)
    limits.charge((n + 1) * (cap + 1) * (n + cap + 1) * len(fs) * len(fs) * width
                  * ENTRY_WORK, "Foundry's limited explosions or rerolls")

    def score(v: int) -> Any:
        if cnt is None:
            return v
        got = foundry_count(cnt.steps, v) if cnt.steps else cnt.score(v)
        return v if got is None else got

    hit = [v for v in fs if first.matches(v)]
    miss = [v for v in fs if not first.matches(v)]
    one = faces([score(v) for v in fs])
    hits = faces([score(v) for v in hit]) if hit else None
    misses = faces([score(v) for v in miss]) if miss else None
    # bottom up, one row of budgets at a time (no recursion: a limit of 900 is 900 rows)
    prev = [constant(0)] + [p @ one for p in range(1, n + 1)]  # b = 0: plain dice
    for _ in range(cap):
        row = [constant(0)]
        for p in range(1, n + 1):
            parts, weights = [], []
            if hits is not None and reroll:  # a match is replaced by a new die: 'rr'
                # checks it too, 'r' (once) takes it as it falls
                parts.append(prev[p] if first.kind == "rr" else one + prev[p - 1])
                weights.append(len(hit))
            elif hits is not None:  # a match: one more die (checked too, unless 'xo')
                parts.append(hits + (prev[p] if first.kind == "e" else one + prev[p - 1]))
                weights.append(len(hit))
            if misses is not None:
                parts.append(misses + row[p - 1])
                weights.append(len(miss))
            row.append(parts[0] if len(parts) == 1 else Distribution.mixture(parts, weights))
        prev = row
    ctx.col = node.col
    return prev[n]


def _pools_work(node: VarDice, counts: list[int], sides: list[int], ctx: _Ctx) -> None:
    """Refuse now the pools of a rolled count or sides whose bounds (dice/_estimate.py,
    one per (count, sides) pair) add up past the budget: O(pairs), stopped at the
    first sum past it."""
    room = limits.work_limit()
    total = 0
    most = 1
    entries, bits = 0, 0
    for s in sides:
        faces_ = node.faces if node.sides is None else range(1, s + 1)
        if faces_ is None:
            return
        for c in counts:
            try:
                got = dice_bound(Dice(abs(c), faces_, node.ops, node.col, node.spelled))
            except Refused as r:
                raise LimitError(f"{r.what} (at column {node.col} of {quote(ctx.text)})",
                                 limit=r.limit, value=r.value) from None
            total += got.work
            most = max(most, got.lo)
            entries += got.lo
            bits = max(bits, got.tbits)
            if total > room:
                break
        if total > room:
            break
    if len(counts) * len(sides) > 1:  # and their mixture, at least its entries
        total += mixture_work(entries, bits)
    limits.check(total, "rolled numbers of dice and sides")
    # the mixture has at least the outcomes of its widest pool
    ctx.learned(node, Bound(most, False, False, False, total))


def _powers_work(counts: list[int], sides: list[int], fixed: Sequence[int] | None) -> int:
    """What ``Distribution.repeat_sum`` charges for every (count, sides) pair of plain
    rolled dice (``(67d6)d20`` summed 397 counts one by one, 1.4 s, then was refused):
    the same ``power_work``, or more than any budget where a sum would be refused for its
    outcomes."""
    total = 0
    for s in sides:
        if fixed is None:
            width, tbits = s - 1, s.bit_length()
        else:
            ints = [f for f in fixed if isinstance(f, int)]
            if len(ints) != len(fixed) or not ints:
                return 0
            seen = Counter(ints)
            width = max(seen) - min(seen)
            tbits = (len(ints) // math.gcd(*seen.values())).bit_length()
        for c in counts:
            if c < 2 or width < 1:
                continue
            span = c * width + 1
            if span > MAX_OUTCOMES:
                return 2**62
            total += limits.power_work(width + 1, span, c * tbits)
    return total


def check_dice_ops(node: Dice, text: str) -> None:
    """Refuse operators that would loop forever or never end on this die (shared by
    ``dist`` and ``roll``): rerolling or exploding on every face."""
    for op in node.ops:
        if op.kind in ("rr", "e", "ce", "pe") and node.matches_every_face(op) and not op.steps:
            what = "reroll" if op.kind == "rr" else "explode"
            raise NotationError(
                f"'{op.spelled}' would {what} every face of the die forever; match fewer faces",
                text, op.col)
