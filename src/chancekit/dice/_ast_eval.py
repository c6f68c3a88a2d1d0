"""Exact evaluation of a dice syntax tree to integer weights (private).

The result of :func:`exact_weights` is a ``dict`` outcome -> positive ``int`` weight (not
normalised); :func:`chancekit.dice.notation.dist` wraps it in a
:class:`~chancekit.dice.distribution.Distribution`.

How a dice group ``NdX<ops>`` is evaluated (semantics in docs/notation.md):

1. every operator acts on each die on its own (``rr ro mi ma e`` and keep/drop by value):
   the contribution of one die is computed exactly (a small recursion over the operators,
   explosion chains capped at :data:`EXPLODE_DEPTH` extra dice), then N of them are added
   by polynomial powering (python-flint ``fmpz_poly``) -- O(N * range) coefficients;
2. per-die operators without explosion or drop, then one keep/drop highest/lowest:
   the keep-highest/lowest pool engine of ``chancekit.dice.pool`` (``keep_sum``);
3. anything else (``kh1kl1``, keep after an explosion, ``ra``, operators after a keep...):
   a general engine over the multisets of kept dice values, refused past
   :data:`MAX_POOL_STATES` states.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from chancekit import limits
from chancekit.dice._ast import (
    EXPLODE_DEPTH,
    MAX_OUTCOMES,
    MAX_POOL_STATES,
    MAX_WEIGHT_BITS,
    MAX_WORK,
    Binary,
    Dice,
    Group,
    Node,
    Num,
    Op,
    Unary,
    walk,
)
from chancekit.errors import LimitError, NotationError, quote

__all__ = ["exact_weights", "normalise"]

W = dict[Any, int]


# ---------------------------------------------------------------- weight helpers
def _clean(x: Any) -> Any:
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def normalise(w: W) -> W:
    """Drop zero weights and divide by the gcd (equal probabilities -> equal dicts)."""
    w = {k: v for k, v in w.items() if v}
    if not w:
        return w
    g = min(w.values())  # smallest first: each gcd step stays cheap for huge weights
    for v in w.values():
        g = math.gcd(g, v)
        if g == 1:
            break
    if g > 1:
        w = {k: v // g for k, v in w.items()}
    return w


def _all_int(w: W) -> bool:
    return all(type(k) is int for k in w)


def _flint_add(a: W, b: W) -> W:
    import flint

    limits.count(mul_work(len(a), len(b), _bits(a) + _bits(b)))

    amin, bmin = min(a), min(b)
    pa = [0] * (max(a) - amin + 1)
    for k, v in a.items():
        pa[k - amin] = v
    pb = [0] * (max(b) - bmin + 1)
    for k, v in b.items():
        pb[k - bmin] = v
    coeffs = (flint.fmpz_poly(pa) * flint.fmpz_poly(pb)).coeffs()
    lo = amin + bmin
    return {lo + i: int(c) for i, c in enumerate(coeffs) if c}


def _flint_power(a: W, n: int) -> W:
    import flint

    amin = min(a)
    pa = [0] * (max(a) - amin + 1)
    for k, v in a.items():
        pa[k - amin] = v
    coeffs = (flint.fmpz_poly(pa) ** n).coeffs()
    limits.count(power_work(len(pa), len(coeffs), n * _bits(a)))
    lo = amin * n
    return {lo + i: int(c) for i, c in enumerate(coeffs) if c}


class _Ctx:
    """Evaluation context: the source text (for errors) and the column of the step being
    estimated (for the budget's refusal)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.col = 1

    def limit(self, what: str, limit_name: str, limit: int, value: int, col: int) -> LimitError:
        return LimitError(
            f"{what} at column {col} of {quote(self.text)}: about {_big(value)} is past the "
            f"limit {limit_name} = {limit:,}; use fewer or smaller dice, or estimate it with "
            f"chancekit.roll(...) many times", limit=limit_name, value=value)

    def refuse(self, what: str, units: int) -> LimitError:
        """The budget's refusal: ``MAX_WORK`` for the whole expression."""
        return self.limit(f"{what} needs too much work (all steps of the expression)",
                          "MAX_WORK", MAX_WORK, units, self.col)

    def charge(self, units: int, col: int, what: str = "computing this exactly") -> None:
        """Charge a step's estimate (MAX_WORK units) to the expression's one budget."""
        self.col = col
        limits.charge(units, what, limit=MAX_WORK, name="MAX_WORK")


def _big(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"2^{n.bit_length() - 1}"


def _bits(w: W) -> int:
    return max(1, sum(w.values()).bit_length())


def _check_size(ctx: _Ctx, outcomes: int, bits: int, col: int) -> None:
    if outcomes > MAX_OUTCOMES:
        raise ctx.limit("the exact distribution would have too many outcomes",
                        "MAX_OUTCOMES", MAX_OUTCOMES, outcomes, col)
    if outcomes * bits > MAX_WEIGHT_BITS:
        raise ctx.limit("the exact distribution would need too much memory "
                        "(outcomes x bits per weight)", "MAX_WEIGHT_BITS", MAX_WEIGHT_BITS,
                        outcomes * bits, col)


def power_work(length: int, span: int, bits: int) -> int:
    """Estimated work (MAX_WORK units, about 20 ns each) of raising a polynomial of
    ``length`` coefficients to a power with ``span`` coefficients of ``bits`` bits: flint
    uses the J.C.P. Miller recurrence (length x output bits) or repeated squaring (about
    150 x output bits), whichever is cheaper, then every coefficient is converted to a
    Python int (about one unit a 64-bit limb, plus the dict entry). Calibrated in
    benchmarks/bench_limits.py: ``10000d6`` 28 M (0.55 s), ``831d100`` 53 M (refused)."""
    return span * bits * min(length, 150) // 1000 + span * (bits // 64 + ENTRY_WORK)


def mul_work(len_a: int, len_b: int, bits: int) -> int:
    """Estimated work (MAX_WORK units) of multiplying two polynomials of ``len_a`` and
    ``len_b`` coefficients whose product has ``bits``-bit coefficients (flint: Kronecker
    substitution, an FFT product of integers of (len_a + len_b) x bits bits, about 0.1 ns
    a bit), plus the dict conversions. Calibrated: 2000 x 42000 coefficients of 2900 bits,
    21 M (0.4 s)."""
    return (len_a + len_b) * (bits // 6 + ENTRY_WORK)


#: work of one pair visited by a pairwise combination (``*``, ``%``, comparisons...):
#: a Python-level step, about 500 ns (calibrated in benchmarks/bench_limits.py)
PAIR_WORK = 25
#: work of one outcome of a distribution built in Python (a dict entry: about 100 ns)
ENTRY_WORK = 5


def _check_work(ctx: _Ctx, work: int, col: int, what: str = "computing this exactly") -> None:
    ctx.charge(work, col, what)


def add(a: W, b: W, ctx: _Ctx, col: int) -> W:
    """Distribution of the sum of independent ``a`` and ``b``."""
    if len(a) == 1 or len(b) == 1:
        (k, v), other = (next(iter(a.items())), b) if len(a) == 1 else (next(iter(b.items())), a)
        return {_clean(k + x): v * w for x, w in other.items()}
    if _all_int(a) and _all_int(b):
        span = max(a) - min(a) + max(b) - min(b) + 1
        _check_size(ctx, span, _bits(a) + _bits(b), col)
        if len(a) * len(b) > 400:
            _check_work(ctx, mul_work(len(a), len(b), _bits(a) + _bits(b)), col)
            return _flint_add(a, b)
    return pairwise(a, b, lambda x, y: x + y, ctx, col)


def pairwise(a: W, b: W, f: Callable[[Any, Any], Any], ctx: _Ctx, col: int) -> W:
    """Distribution of ``f(x, y)`` for independent ``x ~ a``, ``y ~ b``; O(|a| |b|)."""
    pairs = len(a) * len(b)
    if pairs > MAX_OUTCOMES:
        raise ctx.limit("combining these two distributions needs too many pairs",
                        "MAX_OUTCOMES", MAX_OUTCOMES, pairs, col)
    _check_work(ctx, pairs * PAIR_WORK, col, "combining these two distributions")
    limits.count(pairs * PAIR_WORK)
    out: dict[Any, int] = {}
    for x, wx in a.items():
        for y, wy in b.items():
            z = _clean(f(x, y))
            out[z] = out.get(z, 0) + wx * wy
    return out


def mix(parts: Iterable[tuple[int, W]]) -> W:
    """The mixture: pick part i with weight p_i, then an outcome of its distribution."""
    parts = [(p, w, sum(w.values())) for p, w in parts if p]
    limits.count(sum(len(w) for _, w, _ in parts) * ENTRY_WORK)
    lcm = 1
    for _, _, t in parts:
        lcm = lcm * t // math.gcd(lcm, t)
    out: dict[Any, int] = {}
    for p, w, t in parts:
        scale = p * (lcm // t)
        for k, v in w.items():
            out[k] = out.get(k, 0) + v * scale
    return normalise(out)


def sum_n(unit: W, n: int, ctx: _Ctx, col: int) -> W:
    """Distribution of the sum of ``n`` independent copies of ``unit``."""
    if n == 0:
        return {0: 1}
    if n == 1 or len(unit) == 1:
        if len(unit) == 1:
            (k, _), = unit.items()
            return {_clean(k * n): 1}
        return dict(unit)
    if _all_int(unit):
        unit = normalise(unit)
        span = n * (max(unit) - min(unit)) + 1
        _check_size(ctx, span, n * _bits(unit), col)
        _check_work(ctx, power_work(max(unit) - min(unit) + 1, span, n * _bits(unit)), col)
        return _flint_power(unit, n)
    # non-integer outcomes (fractions from "/"): binary powering by pairwise sums
    result: W = {0: 1}
    base = unit
    while True:
        if n & 1:
            result = pairwise(result, base, lambda x, y: x + y, ctx, col)
        n >>= 1
        if not n:
            return result
        base = pairwise(base, base, lambda x, y: x + y, ctx, col)


# ---------------------------------------------------------------- tree walk
def exact_weights(node: Node, text: str) -> W:
    """Exact weights of the value of ``node`` (``text`` is the source, for messages).

    The whole expression shares one work budget (:mod:`chancekit.limits`, ``MAX_WORK``):
    each step's estimate is charged before the step starts."""
    ctx = _Ctx(text)
    with limits.evaluation(limit=MAX_WORK, name="MAX_WORK", refuse=ctx.refuse):
        # every die is built once: charged for the whole tree before anything is built
        # (thirty d1000000 in one set are refused at once, not after 2.6 GB)
        _check_work(ctx, sum(len(n.faces) for n in walk(node) if isinstance(n, Dice))
                    * ENTRY_WORK, 1, "building the dice")
        return normalise(_eval(node, ctx))


def _eval(node: Node, ctx: _Ctx) -> W:
    if isinstance(node, Num):
        return {_clean(node.value): 1}
    if isinstance(node, Dice):
        return _dice(node, ctx)
    if isinstance(node, Group):
        if not node.is_set:
            return _eval(node.items[0], ctx)
        return _set(node, ctx)
    if isinstance(node, Unary):
        inner = _eval(node.operand, ctx)
        return inner if node.op == "+" else {_clean(-k): v for k, v in inner.items()}
    if isinstance(node, Binary):
        return _binary(node, ctx)
    raise AssertionError(node)  # pragma: no cover


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
    ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y,
}


def _binary(node: Binary, ctx: _Ctx) -> W:
    a = normalise(_eval(node.left, ctx))
    b = normalise(_eval(node.right, ctx))
    op, col = node.op, node.col
    if op == "+":
        return add(a, b, ctx, col)
    if op == "-":
        return add(a, {_clean(-k): v for k, v in b.items()}, ctx, col)
    if op == "*":
        return pairwise(a, b, lambda x, y: x * y, ctx, col)
    if op in ("/", "//", "%"):
        if 0 in b:
            raise NotationError(
                f"division by zero: the right side of '{op}' can be 0", ctx.text, col)
        if op == "/":
            return pairwise(a, b, lambda x, y: Fraction(x) / y, ctx, col)
        if op == "//":
            return pairwise(a, b, lambda x, y: x // y, ctx, col)
        return pairwise(a, b, lambda x, y: x % y, ctx, col)
    f = _COMPARE[op]
    return pairwise(a, b, lambda x, y: int(f(x, y)), ctx, col)


# ---------------------------------------------------------------- dice groups
_PER_DIE = ("rr", "ro", "mi", "ma", "e")


def _is_per_die(op: Op) -> bool:
    return op.kind in _PER_DIE or (op.kind in ("k", "p") and all(s.by_value for s in op.sels))


def _base(node: Dice) -> W:
    faces = node.faces
    if isinstance(faces, range) or (faces[0] == 1 and faces[-1] == len(faces)
                                    and len(set(faces)) == len(faces)):
        return dict.fromkeys(faces, 1)
    return dict(Counter(faces))



def check_dice_ops(node: Dice, text: str) -> None:
    """Refuse operators that would loop forever or never end on this die (shared by
    ``dist`` and ``roll``): rerolling or exploding on every face."""
    for op in node.ops:
        if op.kind in ("rr", "e") and node.matches_every_face(op):
            what = "reroll" if op.kind == "rr" else "explode"
            raise NotationError(
                f"'{op.spelled}' would {what} every face of the die forever; match fewer faces",
                text, op.col)


def _dice(node: Dice, ctx: _Ctx) -> W:
    check_dice_ops(node, ctx.text)
    limits.count(len(node.faces) * ENTRY_WORK)
    base = _base(node)
    ops = node.ops
    n = node.count
    if not ops:
        return sum_n(base, n, ctx, node.col)
    if all(_is_per_die(op) for op in ops):
        return sum_n(_unit(base, ops, ctx, node.col), n, ctx, node.col)
    # a keep of highest/lowest that covers every die (``2d20kh1kl1``) keeps them all
    for i, op in enumerate(ops):
        if op.kind not in ("rr", "ro", "mi", "ma"):
            if (op.kind == "k" and not any(s.by_value for s in op.sels)
                    and _covered(op, n)):
                return _dice(Dice(n, node.faces, ops[:i] + ops[i + 1:], node.col,
                                  node.spelled), ctx)
            break
    *head, last = ops
    # per-die operators, then "ra" (one extra die if any die matches): closed form
    if last.kind == "ra" and all(op.kind in ("rr", "ro", "mi", "ma") for op in head):
        return _reroll_add(base, _unit(base, tuple(head), ctx, node.col), n, last, ctx,
                           node.col)
    # per-die operators (no explosion, no drop) then one keep/drop highest/lowest
    if (all(op.kind in ("rr", "ro", "mi", "ma") for op in head) and last.kind in ("k", "p")
            and len(last.sels) == 1 and not last.sels[0].by_value):
        die = _unit(base, tuple(head), ctx, node.col)
        sel = last.sels[0]
        k = min(sel.num, n)
        if last.kind == "k":
            return _keep(die, n, k, sel.cat == "h", ctx, node.col)
        return _keep(die, n, n - k, sel.cat == "l", ctx, node.col)
    return _pool(base, n, ops, ctx, node.col)


def _covered(op: Op, n: int) -> bool:
    """Whether highest/lowest selectors pick every one of ``n`` dice."""
    hi = max((s.num for s in op.sels if s.cat == "h"), default=0)
    lo = max((s.num for s in op.sels if s.cat == "l"), default=0)
    return hi + lo >= n


def _power_raw(unit: W, n: int, ctx: _Ctx, col: int) -> W:
    """``n``-fold sum of integer ``unit`` with its weights kept as they are (not reduced)."""
    if n == 0:
        return {0: 1}
    span = n * (max(unit) - min(unit)) + 1
    _check_size(ctx, span, n * _bits(unit), col)
    _check_work(ctx, power_work(max(unit) - min(unit) + 1, span, n * _bits(unit)), col)
    return _flint_power(unit, n) if len(unit) > 1 else {next(iter(unit)) * n: next(
        iter(unit.values())) ** n}


def _reroll_add(base: W, unit: W, n: int, op: Op, ctx: _Ctx, col: int) -> W:
    """``n`` dice distributed as ``unit``, then ``ra``: one fresh ``base`` die is added if
    any die matches. The sum splits into (no die matches) and (some die matches):
    ``none * total(base) + (all - none) (*) base``, all = unit^n, none = the same over the
    faces that do not match. O(one polynomial power)."""
    if n == 0:  # no dice: none matches, nothing is added
        return {0: 1}
    if not (_all_int(unit) and _all_int(base)):
        return _pool(base, n, (op,), ctx, col)  # pragma: no cover - dice faces are ints
    unit = normalise(unit)
    every = _power_raw(unit, n, ctx, col)
    miss = {v: w for v, w in unit.items() if not op.matches(v)}
    none = _power_raw(miss, n, ctx, col) if miss else {}
    some = {v: w - none.get(v, 0) for v, w in every.items()}
    some = {v: w for v, w in some.items() if w}
    total = sum(base.values())
    out: W = {v: w * total for v, w in none.items()}
    if some:
        for v, w in add(some, base, ctx, col).items():
            out[v] = out.get(v, 0) + w
    return out


def _keep(die: W, n: int, k: int, highest: bool, ctx: _Ctx, col: int) -> W:
    """Sum of the ``k`` highest (or lowest) of ``n`` dice distributed as ``die``."""
    if k <= 0:
        return {0: 1}
    if k >= n:
        return sum_n(die, n, ctx, col)
    if _all_int(die):
        fast = _contract_keep_sum(die, n, k, highest)
        if fast is not None:
            return fast
    return _pool(die, n, (Op("k", (_sel("h" if highest else "l", k),), col, ""),), ctx, col)


def _sel(cat: str | None, num: int) -> Any:
    from chancekit.dice._ast import Selector

    return Selector(cat, num, 0)


def _contract_keep_sum(die: W, n: int, k: int, highest: bool) -> W | None:
    """``chancekit.dice.pool.keep_sum`` (polynomial time), if that module is available."""
    try:
        from chancekit.dice.distribution import Distribution
        from chancekit.dice.pool import keep_sum
    except ImportError:  # pragma: no cover - only while the pool module is being written
        return None
    d = Distribution(die)
    res = keep_sum([d] * n, highest=k) if highest else keep_sum([d] * n, lowest=k)
    return {_clean(x): int(w) for x, w in res.weights.items()}


def _unit(base: W, ops: tuple[Op, ...], ctx: _Ctx, col: int) -> W:
    """Exact distribution of what one die contributes when every operator acts per die.

    Works on distributions, not face by face: ``through(i, x)`` is the contribution of a
    die whose value, entering operator ``i``, is distributed as ``x``; an operator splits
    ``x`` into the faces it matches and the rest. An explosion adds the fresh dice's
    chain, built level by level (``EXPLODE_DEPTH`` levels, one polynomial product each).
    Cost O(operators x depth x one product of the die's range by the chain's range); the
    whole chain is estimated and charged before it starts (``1d10000!>7`` is refused at
    once, not after 7 GB)."""
    _check_explode(base, ops, ctx, col)
    chains: dict[int, W] = {}

    def total(x: W) -> int:
        return sum(x.values())

    def through(i: int, x: W) -> W:
        if i == len(ops) or not x:
            return x
        op = ops[i]
        kind = op.kind
        if kind in ("mi", "ma"):
            num = op.sels[-1].num
            y: W = {}
            for v, w in x.items():
                k = max(v, num) if kind == "mi" else min(v, num)
                y[k] = y.get(k, 0) + w
            return through(i + 1, y)
        hit = {v: w for v, w in x.items() if op.matches(v)}
        if not hit:  # nothing matches: every operator but a keep lets the die through
            return {0: 1} if kind == "k" else through(i + 1, x)
        miss = {v: w for v, w in x.items() if not op.matches(v)}
        if kind == "rr":
            redraw = {u: c for u, c in base.items() if not op.matches(u)}
            return through(i + 1, mix([(total(miss), miss), (total(hit), redraw)]))
        if kind == "ro":
            return through(i + 1, mix([(total(miss), miss), (total(hit), base)]))
        if kind == "k":
            return mix([(total(hit), through(i + 1, hit)), (total(miss), {0: 1})])
        if kind == "p":
            return mix([(total(miss), through(i + 1, miss)), (total(hit), {0: 1})])
        # "e": this die, plus the chain of fresh dice that may explode again
        exploded = add(through(i + 1, hit), chain(i), ctx, col)
        return mix([(total(miss), through(i + 1, miss)), (total(hit), exploded)])

    def chain(i: int) -> W:
        """What the fresh dice rolled by explosion ``i`` add: a fresh die goes through the
        later operators, and explodes again while levels remain."""
        got = chains.get(i)
        if got is not None:
            return got
        op = ops[i]
        stop = {u: c for u, c in base.items() if not op.matches(u)}
        go = {u: c for u, c in base.items() if op.matches(u)}
        stop_d, go_d = through(i + 1, stop), through(i + 1, go)
        level = through(i + 1, base)  # the last level: no more explosions
        for _ in range(EXPLODE_DEPTH - 1):
            level = mix([(total(stop), stop_d), (total(go), add(go_d, level, ctx, col))])
        chains[i] = level
        return level

    return through(0, dict(base))


def _check_explode(base: W, ops: tuple[Op, ...], ctx: _Ctx, col: int) -> None:
    """Estimate an explosion chain before building it: ``EXPLODE_DEPTH`` levels, level r
    a product of the die's range by r ranges (outcomes bounded by MAX_OUTCOMES)."""
    explosions = sum(1 for op in ops if op.kind == "e")
    if not explosions:
        return
    span = max(base) - min(base) + 1  # dice faces are integers
    bits = _bits(base)
    _check_size(ctx, span * (explosions * EXPLODE_DEPTH + 1), bits * EXPLODE_DEPTH, col)
    work = sum(mul_work(span, r * span, r * bits) + r * span * ENTRY_WORK
               for r in range(1, EXPLODE_DEPTH + 1))
    _check_work(ctx, explosions * work, col, "exploding these dice")


# ---------------------------------------------------------------- general pool engine
def _multisets(die: W, m: int, ctx: _Ctx, col: int) -> dict[tuple[Any, ...], int]:
    """Weights of the sorted tuples of ``m`` independent draws from ``die``."""
    if m == 0:
        return {(): 1}
    faces = sorted(die)
    count = math.comb(m + len(faces) - 1, len(faces) - 1)
    if count > MAX_POOL_STATES:
        raise ctx.limit(f"enumerating the {m} dice of this pool", "MAX_POOL_STATES",
                        MAX_POOL_STATES, count, col)
    # every multiset is built once, through at most one partial state per face
    _check_work(ctx, count * (m + len(faces)) * TUPLE_WORK, col,
                f"enumerating the {m} dice of this pool")
    limits.count(count * (m + len(faces)) * TUPLE_WORK)
    states: dict[tuple[tuple[Any, ...], int], int] = {((), m): 1}
    done: dict[tuple[Any, ...], int] = {}
    for idx, f in enumerate(faces):
        last = idx == len(faces) - 1
        wf = die[f]
        nxt: dict[tuple[tuple[Any, ...], int], int] = {}
        for (tup, rem), w in states.items():
            rng = (rem,) if last else range(rem + 1)
            for c in rng:
                wt = w * math.comb(rem, c) * wf**c
                if c == rem:  # every die placed: finished, not carried through later faces
                    key = tup + (f,) * c
                    done[key] = done.get(key, 0) + wt
                else:
                    k2 = (tup + (f,) * c, rem - c)
                    nxt[k2] = nxt.get(k2, 0) + wt
        states = nxt
    return done


def _merge(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(sorted(a + b))


def _combine(states: dict[tuple[Any, ...], int], ctx: _Ctx, col: int) -> None:
    if len(states) > MAX_POOL_STATES:
        raise ctx.limit("the keep/drop/explode pool engine holds too many states",
                        "MAX_POOL_STATES", MAX_POOL_STATES, len(states), col)


def select(values: tuple[Any, ...], op: Op) -> set[int]:
    """Indices of ``values`` (sorted ascending) picked by the union of ``op``'s selectors."""
    picked: set[int] = set()
    n = len(values)
    for s in op.sels:
        if s.cat == "h":
            picked.update(range(max(0, n - s.num), n))
        elif s.cat == "l":
            picked.update(range(min(n, max(0, s.num))))
        else:
            picked.update(i for i, v in enumerate(values) if s.matches(v))
    return picked


#: work of one tuple element built or read by the general pool engine (MAX_WORK units;
#: about 60 ns, calibrated in benchmarks/bench_limits.py)
TUPLE_WORK = 6


class _Budget:
    """Work of the general pool engine, in tuple elements: each step charges its estimate
    to the expression's budget before it starts (:meth:`plan`) and counts what it does
    (:meth:`spend`)."""

    def __init__(self, ctx: _Ctx, col: int) -> None:
        self.ctx, self.col = ctx, col

    def plan(self, elements: int, what: str) -> None:
        _check_work(self.ctx, elements * TUPLE_WORK, self.col, what)

    def spend(self, n: int) -> None:
        limits.count(n * TUPLE_WORK)


def _pool(base: W, n: int, ops: tuple[Op, ...], ctx: _Ctx, col: int) -> W:
    states = _multisets(base, n, ctx, col)
    budget = _Budget(ctx, col)
    # an explosion followed by one last keep/drop of highest/lowest only needs the a
    # highest and b lowest dice (plus the sum of the rest for a drop): squash the pool
    squash: tuple[int, int, bool] | None = None
    if (len(ops) >= 2 and ops[-2].kind == "e" and ops[-1].kind in ("k", "p")
            and not any(s.by_value for s in ops[-1].sels)):
        last = ops[-1]
        squash = (max((s.num for s in last.sels if s.cat == "h"), default=0),
                  max((s.num for s in last.sels if s.cat == "l"), default=0),
                  last.kind == "p")
    mids: dict[tuple[Any, ...], Any] | None = None
    for i, op in enumerate(ops):
        if squash is not None and i == len(ops) - 2:
            states, mids = _explode_squashed(states, op, base, squash, budget, ctx, col)
            continue
        if mids is not None:  # the last keep/drop after a squashed explosion
            out: dict[Any, int] = {}
            for (tup, mid), w in states.items():
                picked = select(tup, op)
                keep = picked if op.kind == "k" else set(range(len(tup))) - picked
                s = _clean(sum(v for j, v in enumerate(tup) if j in keep) + mid)
                out[s] = out.get(s, 0) + w
            return out
        states = _pool_op(states, op, base, ctx, col, budget)
    out = {}
    for tup, w in states.items():
        s = _clean(sum(tup))
        out[s] = out.get(s, 0) + w
    return out


def _explode_squashed(states: dict[tuple[Any, ...], int], op: Op, base: W,
                      squash: tuple[int, int, bool] | None, budget: _Budget, ctx: _Ctx,
                      col: int) -> tuple[dict[Any, int], dict[Any, Any]]:
    """The ``e`` step: each matching die rolls another, and new dice explode too,
    ``EXPLODE_DEPTH`` levels deep. Keys of the result are ``(pool, mid)``. With ``squash =
    (a, b, need_mid)`` a pool longer than ``a + b`` is kept as its ``b`` lowest and ``a``
    highest values (and, for a drop, ``mid``: the sum of the others), which is all one last
    keep/drop of ``a`` highest / ``b`` lowest can see; with ``None`` pools are kept whole
    (``mid`` stays 0)."""
    hi, lo, need_mid = squash if squash is not None else (0, 0, False)
    width = hi + lo

    def sq(tup: tuple[Any, ...], mid: Any) -> tuple[tuple[Any, ...], Any]:
        if squash is None or len(tup) <= width:
            return tup, mid
        cut = len(tup) - hi
        if need_mid:
            mid = mid + sum(tup[lo:cut])
        return tup[:lo] + tup[cut:], mid

    total = sum(base.values())
    pending: dict[tuple[tuple[Any, ...], Any, int], int] = {}
    for tup, w in states.items():
        m = sum(1 for v in tup if op.matches(v))
        t2, mid = sq(tup, 0)
        key = (t2, mid, m)
        pending[key] = pending.get(key, 0) + w
    mcache: dict[int, dict[tuple[Any, ...], int]] = {}
    for level in range(1, EXPLODE_DEPTH + 1):
        top = max(m for (_, _, m) in pending)
        if top == 0:
            break
        nxt: dict[tuple[tuple[Any, ...], Any, int], int] = {}
        for m in {m for (_, _, m) in pending} - set(mcache) - {0}:
            mcache[m] = _multisets(base, m, ctx, col)
        budget.plan(sum(len(mcache[m]) * (len(tup) + m + 120) if m else len(tup) + 1
                        for (tup, _, m) in pending), "exploding the dice of this pool")
        for (tup, mid, m), w in pending.items():
            scale = w * total ** (top - m)
            if m == 0:
                key = (tup, mid, 0)
                nxt[key] = nxt.get(key, 0) + scale
                continue
            if m not in mcache:
                mcache[m] = _multisets(base, m, ctx, col)
            budget.spend(len(mcache[m]) * (len(tup) + m + 120))
            for extra, we in mcache[m].items():
                m2 = sum(1 for v in extra if op.matches(v)) if level < EXPLODE_DEPTH else 0
                t2, mid2 = sq(_merge(tup, extra), mid)
                key = (t2, mid2, m2)
                nxt[key] = nxt.get(key, 0) + scale * we
            if len(nxt) > MAX_POOL_STATES:
                _combine(nxt, ctx, col)
        pending = nxt
    out: dict[Any, int] = {}
    for (tup, mid, _), w in pending.items():
        out[(tup, mid)] = out.get((tup, mid), 0) + w
    return out, {}


def _pool_op(states: dict[tuple[Any, ...], int], op: Op, base: W, ctx: _Ctx,
             col: int, budget: _Budget | None = None) -> dict[tuple[Any, ...], int]:
    out: dict[tuple[Any, ...], int] = {}
    kind = op.kind
    if budget is None:
        budget = _Budget(ctx, col)
    what = f"the '{op.spelled}' step of this pool"
    budget.plan(sum(len(t) + 1 for t in states), what)
    budget.spend(sum(len(t) + 1 for t in states))

    def put(tup: tuple[Any, ...], w: int) -> None:
        budget.spend(len(tup) + 1)
        out[tup] = out.get(tup, 0) + w
        if len(out) > MAX_POOL_STATES:
            _combine(out, ctx, col)

    if kind in ("k", "p", "mi", "ma"):
        for tup, w in states.items():
            if kind in ("k", "p"):
                picked = select(tup, op)
                keep = picked if kind == "k" else set(range(len(tup))) - picked
                new = tuple(v for i, v in enumerate(tup) if i in keep)
            elif kind == "mi":
                new = tuple(sorted(max(v, op.sels[-1].num) for v in tup))
            else:
                new = tuple(sorted(min(v, op.sels[-1].num) for v in tup))
            put(new, w)
        return out
    total = sum(base.values())
    if kind in ("rr", "ro"):
        draw = {u: c for u, c in base.items() if not op.matches(u)} if kind == "rr" else base
        dtotal = sum(draw.values())
        split = {tup: tuple(v for v in tup if not op.matches(v)) for tup in states}
        top = max(len(tup) - len(fixed) for tup, fixed in split.items())
        cache: dict[int, dict[tuple[Any, ...], int]] = {}
        for m in {len(tup) - len(fixed) for tup, fixed in split.items()}:
            cache[m] = _multisets(draw, m, ctx, col)
        budget.plan(sum(len(cache[len(t) - len(f)]) * (len(t) + 1) for t, f in split.items()),
                    what)
        for tup, w in states.items():
            fixed = split[tup]
            m = len(tup) - len(fixed)
            scale = w * dtotal ** (top - m)
            for extra, we in cache[m].items():
                put(_merge(fixed, extra), scale * we)
        return out
    if kind == "ra":
        budget.plan(sum(len(base) * (len(t) + 2) for t in states), what)
        for tup, w in states.items():
            if any(op.matches(v) for v in tup):
                for u, c in base.items():
                    put(_merge(tup, (u,)), w * c)
            else:
                put(tup, w * total)
        return out
    # "e": the explosion, pools kept whole
    exploded, _ = _explode_squashed(states, op, base, None, budget, ctx, col)
    for (tup, _mid), w in exploded.items():
        put(tup, w)
    return out


# ---------------------------------------------------------------- sets
def _set(node: Group, ctx: _Ctx) -> W:
    items = [normalise(_eval(it, ctx)) for it in node.items]
    if not items:
        return {0: 1}
    ops = node.ops
    if not ops:
        res: W = {0: 1}
        for it in items:
            res = add(res, it, ctx, node.col)
        return res
    if len(ops) == 1 and len(ops[0].sels) == 1 and not ops[0].sels[0].by_value:
        op, sel = ops[0], ops[0].sels[0]
        n = len(items)
        k = min(sel.num, n)
        keep, highest = (k, sel.cat == "h") if op.kind == "k" else (n - k, sel.cat == "l")
        if keep <= 0:
            return {0: 1}
        if keep >= n:
            res = {0: 1}
            for it in items:
                res = add(res, it, ctx, node.col)
            return res
        if keep == 1 and n > 1:
            return _extreme(items, highest)
        if all(_all_int(it) for it in items):
            try:
                fast = _contract_keep_sum_list(items, keep, highest)
            except LimitError:  # too costly face by face: enumerate the items instead
                fast = None
            if fast is not None:
                return fast
    if all(_is_per_die(op) for op in ops):
        res = {0: 1}
        for it in items:
            res = add(res, _map_item(it, ops), ctx, node.col)
        return res
    # general: enumerate the joint outcomes as sorted tuples
    count = 1
    for it in items:
        count *= len(it)
    if count > MAX_POOL_STATES:
        raise ctx.limit("enumerating the items of this set", "MAX_POOL_STATES",
                        MAX_POOL_STATES, count, node.col)
    _check_work(ctx, count * len(items) * TUPLE_WORK, node.col,
                "enumerating the items of this set")
    limits.count(count * len(items) * TUPLE_WORK)
    states: dict[tuple[Any, ...], int] = {(): 1}
    for it in items:
        nxt: dict[tuple[Any, ...], int] = {}
        for tup, w in states.items():
            for x, wx in it.items():
                key = _merge(tup, (x,))
                nxt[key] = nxt.get(key, 0) + w * wx
        states = nxt
    for op in ops:
        states = _pool_op(states, op, {0: 1}, ctx, node.col)
    out: dict[Any, int] = {}
    for tup, w in states.items():
        s = _clean(sum(tup))
        out[s] = out.get(s, 0) + w
    return out


def _extreme(items: list[W], highest: bool) -> W:
    """Distribution of the max (or min) of independent items, by cumulative products:
    O(outcomes x items)."""
    xs = sorted(set().union(*items), reverse=not highest)
    cums = [0] * len(items)
    prev = 0
    out: W = {}
    for x in xs:
        prod = 1
        for i, it in enumerate(items):
            cums[i] += it.get(x, 0)
            prod *= cums[i]
        if prod != prev:
            out[x] = prod - prev
            prev = prod
    return out


def _map_item(it: W, ops: tuple[Op, ...]) -> W:
    out: dict[Any, int] = {}
    for x, w in it.items():
        v = x
        for op in ops:
            if v is None:
                break
            hit = op.matches(v)
            if (op.kind == "k" and not hit) or (op.kind == "p" and hit):
                v = None
        key = 0 if v is None else v
        out[key] = out.get(key, 0) + w
    return out


def _contract_keep_sum_list(items: list[W], k: int, highest: bool) -> W | None:
    try:
        from chancekit.dice.distribution import Distribution
        from chancekit.dice.pool import keep_sum
    except ImportError:  # pragma: no cover - only while the pool module is being written
        return None
    dists = [Distribution(it) for it in items]
    res = keep_sum(dists, highest=k) if highest else keep_sum(dists, lowest=k)
    return {_clean(x): int(w) for x, w in res.weights.items()}
