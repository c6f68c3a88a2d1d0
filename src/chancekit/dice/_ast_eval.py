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
)
from chancekit.errors import LimitError, NotationError

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
    lo = amin * n
    return {lo + i: int(c) for i, c in enumerate(coeffs) if c}


class _Ctx:
    """Evaluation context: the source text (for errors)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def limit(self, what: str, limit_name: str, limit: int, value: int, col: int) -> LimitError:
        return LimitError(
            f"{what} at column {col} of {self.text!r}: about {_big(value)} is past the limit "
            f"{limit_name} = {limit:,}; use fewer or smaller dice, or estimate it with "
            f"chancekit.roll(...) many times", limit=limit_name, value=value)


def _big(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"{float(n):.2e}"


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
    150 x output bits), whichever is cheaper. Calibrated: ``10000d6`` 8 M (0.16 s),
    ``831d100`` 45 M (0.8 s), ``377d6e6`` 120 M (2.5 s)."""
    return span * bits * min(length, 150) // 1000


def _check_work(ctx: _Ctx, work: int, col: int, what: str = "computing this exactly") -> None:
    if work > MAX_WORK:
        raise ctx.limit(f"{what} needs too much work", "MAX_WORK", MAX_WORK, work, col)


def add(a: W, b: W, ctx: _Ctx, col: int) -> W:
    """Distribution of the sum of independent ``a`` and ``b``."""
    if len(a) == 1 or len(b) == 1:
        (k, v), other = (next(iter(a.items())), b) if len(a) == 1 else (next(iter(b.items())), a)
        return {_clean(k + x): v * w for x, w in other.items()}
    if _all_int(a) and _all_int(b):
        span = max(a) - min(a) + max(b) - min(b) + 1
        _check_size(ctx, span, _bits(a) + _bits(b), col)
        if len(a) * len(b) > 400:
            return _flint_add(a, b)
    return pairwise(a, b, lambda x, y: x + y, ctx, col)


def pairwise(a: W, b: W, f: Callable[[Any, Any], Any], ctx: _Ctx, col: int) -> W:
    """Distribution of ``f(x, y)`` for independent ``x ~ a``, ``y ~ b``; O(|a| |b|)."""
    pairs = len(a) * len(b)
    if pairs > MAX_OUTCOMES:
        raise ctx.limit("combining these two distributions needs too many pairs",
                        "MAX_OUTCOMES", MAX_OUTCOMES, pairs, col)
    out: dict[Any, int] = {}
    for x, wx in a.items():
        for y, wy in b.items():
            z = _clean(f(x, y))
            out[z] = out.get(z, 0) + wx * wy
    return out


def mix(parts: Iterable[tuple[int, W]]) -> W:
    """The mixture: pick part i with weight p_i, then an outcome of its distribution."""
    parts = [(p, w, sum(w.values())) for p, w in parts if p]
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
    """Exact weights of the value of ``node`` (``text`` is the source, for messages)."""
    return normalise(_eval(node, _Ctx(text)))


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
    if faces[0] == 1 and faces[-1] == len(faces) and len(set(faces)) == len(faces):
        return dict.fromkeys(faces, 1)
    return dict(Counter(faces))


def check_dice_ops(node: Dice, text: str) -> None:
    """Refuse operators that would loop forever or never end on this die (shared by
    ``dist`` and ``roll``): rerolling or exploding on every face."""
    faces = set(node.faces)
    for op in node.ops:
        if op.kind in ("rr", "e") and all(op.matches(f) for f in faces):
            what = "reroll" if op.kind == "rr" else "explode"
            raise NotationError(
                f"'{op.spelled}' would {what} every face of the die forever; match fewer faces",
                text, op.col)


def _dice(node: Dice, ctx: _Ctx) -> W:
    check_dice_ops(node, ctx.text)
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
    """Exact distribution of what one die contributes when every operator acts per die."""
    memo: dict[tuple[int, Any], W] = {}
    xmemo: dict[tuple[int, int], W] = {}
    faces = sorted(base)

    def contrib(i: int, v: Any) -> W:  # a kept die showing v enters operator i
        key = (i, v)
        got = memo.get(key)
        if got is not None:
            return got
        if i == len(ops):
            res: W = {v: 1}
        else:
            op = ops[i]
            kind = op.kind
            if kind == "rr":
                if op.matches(v):
                    res = mix((base[u], contrib(i + 1, u)) for u in faces if not op.matches(u))
                else:
                    res = contrib(i + 1, v)
            elif kind == "ro":
                res = (mix((base[u], contrib(i + 1, u)) for u in faces) if op.matches(v)
                       else contrib(i + 1, v))
            elif kind == "mi":
                res = contrib(i + 1, max(v, op.sels[-1].num))
            elif kind == "ma":
                res = contrib(i + 1, min(v, op.sels[-1].num))
            elif kind == "k":
                res = contrib(i + 1, v) if op.matches(v) else {0: 1}
            elif kind == "p":
                res = {0: 1} if op.matches(v) else contrib(i + 1, v)
            else:  # "e": this die, plus a fresh die that may explode again
                res = contrib(i + 1, v)
                if op.matches(v):
                    res = add(res, extra(i, EXPLODE_DEPTH - 1), ctx, col)
        memo[key] = res
        return res

    def extra(i: int, r: int) -> W:  # a fresh die rolled by explosion i, r more allowed
        key = (i, r)
        got = xmemo.get(key)
        if got is not None:
            return got
        op = ops[i]
        stop = [(base[u], contrib(i + 1, u)) for u in faces if not op.matches(u) or r == 0]
        go = [(base[u], contrib(i + 1, u)) for u in faces if op.matches(u) and r > 0]
        parts = stop[:]
        if go:
            go_mix = mix(go)
            parts.append((sum(p for p, _ in go), add(go_mix, extra(i, r - 1), ctx, col)))
        res = mix(parts)
        xmemo[key] = res
        return res

    return mix((base[v], contrib(0, v)) for v in faces)


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


class _Budget:
    """Work counter of the general pool engine (tuple elements built, MAX_WORK units): a
    backstop for pools whose state count cannot be bounded well up front."""

    def __init__(self, ctx: _Ctx, col: int) -> None:
        self.ctx, self.col, self.used = ctx, col, 0

    def spend(self, n: int) -> None:
        self.used += n
        if self.used > MAX_WORK:
            _check_work(self.ctx, self.used, self.col,
                        "the keep/drop/explode pool engine (counted as it runs)")


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
        for tup, w in states.items():
            fixed = split[tup]
            m = len(tup) - len(fixed)
            if m not in cache:
                cache[m] = _multisets(draw, m, ctx, col)
            scale = w * dtotal ** (top - m)
            for extra, we in cache[m].items():
                put(_merge(fixed, extra), scale * we)
        return out
    if kind == "ra":
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
            fast = _contract_keep_sum_list(items, keep, highest)
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
