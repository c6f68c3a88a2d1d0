"""AnyDice's built-in function library, by name.

Each entry is the function's words (``None`` for each argument), its parameter types
(``n``, ``d``, ``s`` as in a user function, so the same expansion rules apply), the
function on bound values, and an optional fast path on the raw arguments that computes
the whole expansion at once on chancekit's engine (``[3d6 contains 6]``, ``[count {5,6}
in 20d6]``, ``[highest 3 of 10d6]``: closed forms and the pool face walk instead of one
call per roll). A user function with the same words replaces the built-in.

>>> sorted(" ".join(w or "_" for w in key) for key in BUILTINS)[:3]
['_ contains _', 'absolute _', 'count _ in _']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from chancekit import limits
from chancekit.anydice import _values as V
from chancekit.dice import Distribution, constant, keep_sum
from chancekit.errors import LimitError

__all__ = ["BUILTINS", "Builtin"]


class Builtin(NamedTuple):
    kinds: tuple[str | None, ...]
    func: Callable[..., Any]
    fast: Callable[[Any, list[Any]], Any] | None = None


def _absolute(_: Any, x: int) -> int:
    return abs(x)


def _absolute_fast(_: Any, args: list[Any]) -> Any:
    (x,) = args
    if isinstance(x, V.Die) and not x.empty:
        return V.Die.single(x.dist.map(abs))
    return NotImplemented


def _contains(_: Any, seq: tuple[int, ...], x: int) -> int:
    return int(x in seq)


def _contains_fast(_: Any, args: list[Any]) -> Any:
    pool, x = args
    if isinstance(x, tuple):
        x = sum(x)
    if not (isinstance(pool, V.Die) and isinstance(x, int)):
        return NotImplemented
    if pool.empty:
        return V.EMPTY
    if V._cert.wide(pool.base):  # a certified run: the expansion's own way
        return NotImplemented
    base, n = pool.base, pool.count
    miss = (base.total - base.weights.get(x, 0)) ** n
    return V.Die.single(Distribution({1: base.total**n - miss, 0: miss}))


def _count_in(_: Any, values: tuple[int, ...], seq: tuple[int, ...]) -> int:
    c = Counter(seq)
    return sum(c[v] for v in values)


def _count_fast(_: Any, args: list[Any]) -> Any:
    values, pool = args
    if isinstance(values, int):
        values = (values,)
    if not (isinstance(pool, V.Die) and isinstance(values, tuple)):
        return NotImplemented
    if pool.empty:
        return V.EMPTY
    c = Counter(values)
    return V.Die.single(pool.base.map(lambda f: c[f]).repeat_sum(pool.count))


def _explode(interp: Any, die: V.Die) -> Any:
    if die.empty:
        return V.EMPTY
    depth = interp.settings["explode depth"]
    faces = die.base.outcomes()
    if die.count > 1 and all(type(f) is int for f in faces) and min(faces) >= 0:
        # before the dice are summed: the exploded sum spans at least depth x its width
        width = die.count * (max(faces) - min(faces))
        if depth * width + 1 > limits.MAX_OUTCOMES:
            raise LimitError(f"exploding {die.count} dice {depth} times would span at "
                             f"least {depth * width + 1:,} outcomes, more than "
                             f"MAX_OUTCOMES = {limits.MAX_OUTCOMES:,}; use fewer or "
                             "smaller dice, or a lower \"explode depth\"",
                             limit="MAX_OUTCOMES", value=depth * width + 1)
    return V.Die.single(die.dist.explode(depth=depth))


def _ranks(die: V.Die, n: int, which: str) -> Any:
    if die.empty:
        return V.EMPTY
    size = die.count
    if which == "middle":
        if n >= size:
            return V.Die.single(die.dist)
        if n <= 0:
            return 0
        start = 1 + (size - n) // 2
        ranks = range(start, start + n)
    else:
        k = min(n, size)
        if k <= 0:
            return 0
        ranks = range(1, k + 1) if which == "highest" else range(size - k + 1, size + 1)
    return V.Die.single(V.select(die.base, size, Counter(ranks)))


def _highest(_: Any, n: int, die: V.Die) -> Any:
    return _ranks(die, n, "highest")


def _lowest(_: Any, n: int, die: V.Die) -> Any:
    return _ranks(die, n, "lowest")


def _middle(_: Any, n: int, die: V.Die) -> Any:
    return _ranks(die, n, "middle")


def _keep_of(which: str) -> Callable[..., Any]:
    def run(_: Any, n: int, *dice: V.Die) -> Any:
        if any(x.empty for x in dice):
            return V.EMPTY
        pool = [x.base for x in dice for _ in range(x.count)]
        k = min(max(n, 0), len(pool))
        if any(V._cert.wide(b) for b in pool):
            if k == 0:
                return 0
            if any(b is not pool[0] and b != pool[0] for b in pool):
                raise V._cert.no_path(f"the {which} {n} of several different dice")
            size = len(pool)  # one kind of die: its ranks, the certified way
            ranks = range(1, k + 1) if which == "highest" else range(size - k + 1, size + 1)
            return V.Die.single(V.select(pool[0], size, Counter(ranks)))
        if k == 0:
            return 0
        if which == "highest":
            return V.Die.single(keep_sum(pool, highest=k))
        return V.Die.single(keep_sum(pool, lowest=k))

    return run


def _extreme(which: str) -> Callable[..., Any]:
    def run(_: Any, a: int, b: int) -> int:
        return max(a, b) if which == "highest" else min(a, b)

    def fast(_: Any, args: list[Any]) -> Any:
        a, b = (sum(x) if isinstance(x, tuple) else x for x in args)
        if isinstance(a, int) and isinstance(b, int):
            return NotImplemented
        if (isinstance(a, V.Die) and a.empty) or (isinstance(b, V.Die) and b.empty):
            return V.EMPTY
        da = a.dist if isinstance(a, V.Die) else constant(a)
        db = b.dist if isinstance(b, V.Die) else constant(b)
        V.seen(da, db)
        if V._cert.wide(da) or V._cert.wide(db):  # a certified run
            return V.Die.single(V.certified_pairwise("max" if which == "highest" else "min",
                                                     da, db))
        V.charge_bits(len(da) * len(db), da, db)
        return V.Die.single(da.max(b.dist if isinstance(b, V.Die) else b) if which == "highest"
                            else da.min(b.dist if isinstance(b, V.Die) else b))

    return run, fast


def _maximum(_: Any, die: V.Die) -> int:
    if die.empty:
        return 0
    return die.count * max(die.base.outcomes()) if die.count else 0


def _reverse(_: Any, seq: tuple[int, ...]) -> Any:
    return seq[::-1] if seq else 0


def _sort(interp: Any, seq: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(seq, reverse=not interp.lowest_first))


_hi, _hi_fast = _extreme("highest")
_lo, _lo_fast = _extreme("lowest")

BUILTINS: dict[tuple[str | None, ...], Builtin] = {
    ("absolute", None): Builtin(("n",), _absolute, _absolute_fast),
    (None, "contains", None): Builtin(("s", "n"), _contains, _contains_fast),
    ("count", None, "in", None): Builtin(("s", "s"), _count_in, _count_fast),
    ("explode", None): Builtin(("d",), _explode),
    ("highest", None, "of", None): Builtin(("n", "d"), _highest),
    ("lowest", None, "of", None): Builtin(("n", "d"), _lowest),
    ("middle", None, "of", None): Builtin(("n", "d"), _middle),
    ("highest", "of", None, "and", None): Builtin(("n", "n"), _hi, _hi_fast),
    ("lowest", "of", None, "and", None): Builtin(("n", "n"), _lo, _lo_fast),
    ("highest", None, "of", None, "and", None): Builtin(("n", "d", "d"), _keep_of("highest")),
    ("lowest", None, "of", None, "and", None): Builtin(("n", "d", "d"), _keep_of("lowest")),
    ("highest", None, "of", None, "and", None, "and", None): Builtin(
        ("n", "d", "d", "d"), _keep_of("highest")),
    ("lowest", None, "of", None, "and", None, "and", None): Builtin(
        ("n", "d", "d", "d"), _keep_of("lowest")),
    ("maximum", "of", None): Builtin(("d",), _maximum),
    ("reverse", None): Builtin(("s",), _reverse),
    ("sort", None): Builtin(("s",), _sort),
}
