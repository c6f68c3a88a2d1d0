"""Dice pools evaluated face by face (the polynomial-time method).

A pool mechanic (roll N dice, then keep, count, match or compare them) has exponentially
many raw rolls, but most mechanics only need a small summary while the faces are read in
order. The engine walks the faces (highest first, or lowest first); at each face, for each
kind of die, ``k`` of its ``r`` still-unread dice show this face in ``C(r, k)`` ways (times
the face's weight to the power ``k`` for weighted dice). A *rule* sees only
``(state, face, counts)`` — counts being how many dice of each pool show the face — and
returns the next state. The answer is the weight of each final outcome once every die is
read. Cost: O(F · S · Π(n_j+1)²) for F faces, S rule states and n_j dice of kind j.

Write a mechanic as a :class:`FaceRule` (a function, or a subclass) and evaluate it with
:func:`evaluate_pool`. A step may return :class:`Decided` when the outcome is known: the
rest of the dice are then summed out in closed form. Built-ins: :func:`keep_sum`,
:func:`keep_highest`, :func:`keep_lowest`, :func:`count_successes`, :func:`largest_set`,
:func:`longest_straight`, :func:`neon_city_overdrive`, :func:`risk_battle`. Several of them
use faster specialisations of the same face walk (the running sum carried as a polynomial,
or exponential generating functions); every one is checked against brute force.

>>> from chancekit.dice import d
>>> rule = FaceRule(lambda best, face, counts: max(best, counts[0]), initial=0)
>>> evaluate_pool(rule, 3 * [d(6)]).probability(3)
Fraction(1, 36)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.distribution import EXPLODE_DEPTH, Distribution, constant, d
from chancekit.dice.selectors import Op, Selector, matches_every_face
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.limits import MAX_DICE, MAX_POOL_DICE, MAX_POOL_STATES, MAX_WORK, power_work

__all__ = [
    "MAX_POOL_DICE",
    "MAX_POOL_STATES",
    "MAX_WORK",
    "Decided",
    "FaceRule",
    "Pool",
    "clear_caches",
    "count_successes",
    "evaluate_pool",
    "keep_highest",
    "keep_lowest",
    "keep_sum",
    "largest_set",
    "longest_straight",
    "neon_city_overdrive",
    "risk_battle",
]

#: work of one (state, dice shown) combination of the general face walk (MAX_WORK units:
#: a rule step and a few big-integer products, about 1 µs)
STEP_WORK = 50
#: Most results kept in the memo cache (least recently used are dropped).
CACHE_SIZE = 256

_cache: OrderedDict[Hashable, Distribution] = OrderedDict()


def clear_caches() -> None:
    """Empty the pool memo cache (it is bounded by ``CACHE_SIZE`` entries anyway).

    >>> clear_caches()
    """
    _cache.clear()


def _cached(key: Hashable, compute: Callable[[], Distribution]) -> Distribution:
    try:
        hit = _cache.get(key)
    except TypeError:  # unhashable rule state or parameters: no caching
        return compute()
    if hit is not None:
        _cache.move_to_end(key)
        return hit
    result = compute()
    _cache[key] = result
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return result


class Decided:
    """Returned by a rule's ``step`` when the final outcome is already known: the engine
    stops tracking the roll and sums the unread dice out in closed form.

    >>> Decided(6).outcome
    6
    """

    __slots__ = ("outcome",)

    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome

    def __repr__(self) -> str:
        return f"Decided({self.outcome!r})"


class FaceRule:
    """A pool mechanic as per-face rules.

    - ``initial``: the state before any face is read (hashable);
    - ``step(state, face, counts) -> state | Decided(outcome)``: ``counts[i]`` is how many
      dice of pool ``i`` show ``face``; called once per face, in ``order``, for every
      reachable state (also with zero counts);
    - ``final(state) -> outcome`` (default: the state itself);
    - ``order``: ``"descending"`` (highest face first, the default) or ``"ascending"``.

    Give the functions to the constructor, or subclass and override ``step``/``final``
    (and set ``initial``/``order`` as class attributes). Rules are compared by identity, so
    reusing one rule object lets the memo cache work.

    >>> from chancekit.dice import d
    >>> sixes = FaceRule(lambda st, face, c: st + c[0] if face == 6 else st, initial=0)
    >>> evaluate_pool(sixes, 2 * [d(6)]).probability(2)
    Fraction(1, 36)
    """

    initial: Any = None
    order: str = "descending"

    def __init__(self, step: Callable[[Any, Any, tuple[int, ...]], Any] | None = None, *,
                 initial: Any = None, final: Callable[[Any], Any] | None = None,
                 order: str | None = None) -> None:
        if step is not None:
            if not callable(step):
                raise InvalidTypeError("step", step, "a function (state, face, counts)")
            self.step = step  # type: ignore[method-assign]
        if final is not None:
            if not callable(final):
                raise InvalidTypeError("final", final, "a function (state) -> outcome")
            self.final = final  # type: ignore[method-assign]
        if initial is not None:
            self.initial = initial
        if order is not None:
            self.order = order
        if self.order not in ("descending", "ascending"):
            raise InvalidValueError("order", self.order, "'descending' or 'ascending'")

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        """The next state after reading ``face`` (override or pass to the constructor)."""
        raise NotImplementedError("give FaceRule a step function or override step()")

    def final(self, state: Any) -> Any:
        """The outcome of a state once every die is read (default: the state)."""
        return state

    def state_bound(self, faces: Sequence[Any], dice: int) -> int | None:
        """An upper bound on the rule states alive after any face, for ``dice`` dice with
        these ``faces`` (``None``: unknown, the engine then counts states as it runs and
        stops at the budget). The built-in rules give one, so their work is estimated
        before the walk starts."""
        return None

    def evaluate(self, *pools: Sequence[Distribution] | Distribution) -> Distribution:
        """Same as ``evaluate_pool(self, *pools)``."""
        return evaluate_pool(self, *pools)


def _as_pool(i: int, pool: Any) -> list[Distribution]:
    if isinstance(pool, Distribution):
        return [pool]
    if isinstance(pool, str | bytes) or not isinstance(pool, Sequence):
        raise InvalidTypeError(f"pool {i}", pool, "a sequence of Distributions (e.g. 3 * [d6])")
    for x in pool:
        if not isinstance(x, Distribution):
            raise InvalidTypeError(f"die in pool {i}", x, "a Distribution")
    return list(pool)


def _group(dice: list[Distribution]) -> list[tuple[Distribution, int]]:
    return sorted(Counter(dice).items(), key=lambda t: (-t[1], repr(t[0])))


def _check_dice(total: int) -> None:
    if total > MAX_POOL_DICE:
        raise LimitError(
            f"{total} dice in a pool exceeds MAX_POOL_DICE = {MAX_POOL_DICE}; use fewer dice",
            limit="MAX_POOL_DICE", value=total)


def evaluate_pool(rule: FaceRule, *pools: Sequence[Distribution] | Distribution) -> Distribution:
    """The exact distribution of ``rule``'s outcome over one roll of every pool.

    Each pool is a sequence of dice (Distributions; they may differ — identical ones are
    grouped), or a single die. Faces are the union of all dice's outcomes, read in
    ``rule.order``. Results are memoised (bounded; see :func:`clear_caches`). Cost
    O(F · S · Π(n_j+1)²) step calls and multiplications for F faces, S states and n_j dice
    of kind j; refused with LimitError past :data:`MAX_POOL_DICE` dice or
    :data:`MAX_POOL_STATES` states.

    >>> from chancekit.dice import d
    >>> most = FaceRule(lambda st, face, c: st or (face if c[0] else 0), initial=0)
    >>> evaluate_pool(most, [d(4), d(6)]).probability(6)
    Fraction(1, 6)
    """
    if not isinstance(rule, FaceRule):
        raise InvalidTypeError("rule", rule, "a FaceRule")
    groups = [_group(_as_pool(i, p)) for i, p in enumerate(pools)]
    _check_dice(sum(c for g in groups for _, c in g))
    key = ("rule", rule, tuple(tuple(g) for g in groups))
    return _cached(key, lambda: _evaluate(rule, groups))


def _evaluate(rule: FaceRule, groups: list[list[tuple[Distribution, int]]]) -> Distribution:
    types: list[tuple[int, Distribution, int]] = [
        (pi, die, n) for pi, g in enumerate(groups) for die, n in g]
    n_pools = len(groups)
    rem_states = math.prod(n + 1 for _, _, n in types)
    if rem_states > MAX_POOL_STATES:
        raise LimitError(
            f"the dice left per kind give {rem_states} combinations, more than "
            f"MAX_POOL_STATES = {MAX_POOL_STATES}; use fewer kinds of dice or fewer dice",
            limit="MAX_POOL_STATES", value=rem_states)
    work = math.prod((n + 1) * (n + 2) // 2 for _, _, n in types)
    face_set: set[Any] = set()
    for _, die, _ in types:
        face_set.update(die.outcomes())
    try:
        face_list = sorted(face_set, reverse=(rule.order == "descending"))
    except TypeError:
        raise InvalidTypeError("faces", tuple(face_set), "mutually comparable") from None
    n_faces = len(face_list)
    if work * n_faces > MAX_WORK:
        raise LimitError(
            f"evaluating these pools visits about {work * n_faces} (dice left, dice shown) "
            f"combinations per rule state, more than MAX_WORK = {MAX_WORK}; use "
            "fewer dice or a built-in with a specialised algorithm", limit="MAX_WORK",
            value=work * n_faces)
    bound = rule.state_bound(face_list, sum(n for _, _, n in types))
    if bound is not None:
        limits.charge(work * n_faces * min(bound, MAX_POOL_STATES) * STEP_WORK,
                      "evaluating these pools face by face", limit=MAX_WORK,
                      name="MAX_WORK")
    weights = [[die.weights.get(f, 0) for f in face_list] for _, die, _ in types]
    later = [[sum(ws[i + 1:]) for i in range(n_faces)] for ws in weights]
    opt_cache: dict[tuple[int, int, int], list[tuple[int, int]]] = {}

    def options(i: int, j: int, r: int) -> list[tuple[int, int]]:
        """(dice of kind j showing face i, ways) with r of them left to place."""
        key = (i, j, r)
        got = opt_cache.get(key)
        if got is None:
            w = weights[j][i]
            if i == n_faces - 1:
                got = [(r, w**r)] if (w or r == 0) else []
            elif w == 0:
                got = [(0, 1)]
            else:
                got = [(k, math.comb(r, k) * w**k) for k in range(r + 1)]
            opt_cache[key] = got
        return got

    def moves(i: int, rems: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...],
                                                            int]]:
        res = []
        for combo in itertools.product(*(options(i, j, r) for j, r in enumerate(rems))):
            counts = [0] * n_pools
            ways = 1
            for (pi, _, _), (k, m) in zip(types, combo, strict=True):
                counts[pi] += k
                ways *= m
            res.append((tuple(k for k, _ in combo), tuple(counts), ways))
        return res

    def rest(i: int, left: tuple[int, ...]) -> int:
        ways = 1
        for j, r in enumerate(left):
            if r:
                ways *= later[j][i] ** r
        return ways

    return face_walk(rule, face_list, tuple(n for _, _, n in types), moves, rest,
                     [work * STEP_WORK] * n_faces, bound is not None,
                     "evaluating these pools face by face")


def face_walk(rule: FaceRule, faces: list[Any], start: tuple[int, ...],
              moves: Callable[[int, tuple[int, ...]], list[tuple[tuple[int, ...],
                                                               tuple[int, ...], int]]],
              rest: Callable[[int, tuple[int, ...]], int], units: list[int],
              charged: bool, what: str) -> Distribution:
    """The face walk of every multiset evaluator: dice pools (with replacement) and deals
    of cards (without: :mod:`chancekit.dice.cards`). The state is (what each slot -- a
    kind of dice, a hand -- still needs, the rule's state), with integer weights. At face
    ``i``, ``moves(i, rems)`` lists (taken per slot, the counts the rule sees, ways); a
    :class:`Decided` state is finished by ``rest(i, left)``, the ways later faces fill
    what is left. ``units[i]`` work units per state at face ``i`` are counted, and charged
    face by face unless ``charged`` (estimated up front from the rule's state bound).
    Refused past :data:`MAX_POOL_STATES` states."""
    out: dict[Any, int] = {}

    def add(outcome: Any, w: int) -> None:
        try:
            out[outcome] = out.get(outcome, 0) + w
        except TypeError:
            raise InvalidTypeError("outcome", outcome, "a hashable value") from None

    states: dict[tuple[tuple[int, ...], Any], int] = {(start, rule.initial): 1}
    for i, face in enumerate(faces):
        new: dict[tuple[tuple[int, ...], Any], int] = {}
        step_cache: dict[tuple[Any, tuple[int, ...]], Any] = {}
        move_cache: dict[tuple[int, ...], Any] = {}
        steps = len(states) * units[i]
        if not charged:  # no estimate up front: charge each face before reading it
            limits.charge(steps, what, limit=MAX_WORK, name="MAX_WORK")
        limits.count(steps)
        for (rems, st), wt in states.items():
            opts = move_cache.get(rems)
            if opts is None:
                opts = move_cache[rems] = moves(i, rems)
            for taken, counts, ways in opts:
                sk = (st, counts)
                try:
                    ns = step_cache[sk]
                except KeyError:
                    ns = step_cache[sk] = rule.step(st, face, counts)
                except TypeError:
                    raise InvalidTypeError("rule state", st, "a hashable value") from None
                left = tuple(r - k for r, k in zip(rems, taken, strict=True))
                if isinstance(ns, Decided):
                    finish = rest(i, left)
                    if finish:
                        add(ns.outcome, wt * ways * finish)
                    continue
                nk = (left, ns)
                try:
                    new[nk] = new.get(nk, 0) + wt * ways
                except TypeError:
                    raise InvalidTypeError("rule state", ns, "a hashable value") from None
        if len(new) > MAX_POOL_STATES:
            raise LimitError(
                f"the rule reached {len(new)} states, more than MAX_POOL_STATES = "
                f"{MAX_POOL_STATES}; keep less in the state", limit="MAX_POOL_STATES",
                value=len(new))
        states = new
    if not faces:
        return constant(rule.final(rule.initial))
    for (_, st), wt in states.items():
        add(rule.final(st), wt)
    return Distribution._raw(out)


# -- Pool: dice with operators --------------------------------------------------------------


class Pool:
    """``n`` dice like ``die`` (or the items of a set, :meth:`of`), with operators applied
    in order; :meth:`sum` is the exact distribution of what is kept, summed. Immutable:
    every operator returns a new pool. This is what dice notation compiles to —
    ``Pool(d(6), 4).keep(highest(3)).sum() == dist("4d6kh3")`` — so anything notation can
    say, Python can say with the same names, under the same limits.

    Operators (selectors from :mod:`chancekit.dice.selectors`: ``highest(n)``,
    ``lowest(n)``, ``equal(v)``, ``below(v)``, ``above(v)``, ``at_most(v)``,
    ``at_least(v)``; several selectors are their union):

    - :meth:`keep` / :meth:`drop` (``k`` / ``p``): by position or by value;
    - :meth:`reroll` (``rr``; ``once=True``: ``ro``), :meth:`reroll_add` (``ra``),
      :meth:`explode` (``e``, ``!``), :meth:`clamp` (``mi``/``ma``);
    - :meth:`compound` (``!!``), :meth:`penetrate` (``!p``), :meth:`explode_once`
      (Foundry ``xo``), :meth:`count` (target numbers and failures, ``>=8f1``: last).

    Cost: per-die operators are one die's distribution and one polynomial power; a last
    keep/drop of the highest/lowest is the face walk of :func:`keep_sum`; anything else the
    general engine over multisets (:mod:`chancekit.dice.evaluate`), refused past
    ``MAX_POOL_STATES`` or the work budget ``MAX_WORK``.

    >>> from chancekit.dice.selectors import highest, equal
    >>> Pool(d(6), 4).keep(highest(3)).sum().mean()
    Fraction(15869, 1296)
    >>> Pool(d(6), 3).reroll(equal(1), once=True).sum() == Pool(d(6).reroll([1], depth=1), 3).sum()
    True
    """

    __slots__ = ("_depth", "_die", "_items", "_n", "_ops")

    def __init__(self, die: Distribution, n: int = 1, *, depth: int | None = None) -> None:
        if not isinstance(die, Distribution):
            raise InvalidTypeError("die", die, "a Distribution (e.g. d(6))")
        if not die._int:
            _require_int_faces(die, "Pool")
        self._die: Distribution | None = die
        self._n = require_int("n (number of dice)", n, lo=0, hi=MAX_DICE)
        self._items: tuple[Distribution, ...] = ()
        self._ops: tuple[Op, ...] = ()
        self._depth = EXPLODE_DEPTH if depth is None else require_int("depth", depth, lo=0)

    @classmethod
    def of(cls, items: Sequence[Distribution | int]) -> Pool:
        """A pool of independent items (a set: ``(1d4+1, 3, 2d6)kh1`` in notation); only
        :meth:`keep` and :meth:`drop` apply to items.

        >>> from chancekit.dice.selectors import highest
        >>> Pool.of([d(4), d(6)]).keep(highest(1)).sum().probability(6)
        Fraction(1, 6)
        """
        if isinstance(items, str | bytes) or not isinstance(items, Sequence):
            raise InvalidTypeError("items", items, "a sequence of Distributions or numbers")
        self = object.__new__(cls)
        self._die = None
        self._items = tuple(x if isinstance(x, Distribution) else constant(x) for x in items)
        self._n = len(self._items)
        self._ops = ()
        self._depth = EXPLODE_DEPTH
        return self

    def _with(self, op: Op) -> Pool:
        if self._die is None and op.kind not in ("k", "p", "cnt"):
            raise InvalidValueError(f"a pool of items can only keep, drop or count, not "
                                    f"{op.kind!r}")
        if any(o.kind == "cnt" for o in self._ops):
            raise InvalidValueError("count() must be the last operator of a pool")
        if not all(isinstance(s, Selector) for s in op.sels + op.fails) or not (
                op.sels or op.fails):
            raise InvalidTypeError("selectors", op.sels,
                                   "one or more Selector (highest(3), equal(1), ...)")
        if op.kind in ("rr", "e", "ra", "ro", "mi", "ma", "ce", "pe", "eo", "cnt") and not all(
                s.by_value for s in op.sels + op.fails):
            raise InvalidValueError(f"{op.kind}: selectors", op.sels,
                                    "value selectors (equal, below, above, ...)")
        if op.kind == "ce" and any(o.kind not in ("rr", "ro", "mi", "ma", "ce")
                                   for o in self._ops):
            raise InvalidValueError("a compounding explosion must come before keep, drop, "
                                    "explode and reroll-and-add operators")
        if any(o.kind == "ce" for o in self._ops) and op.kind in (
                "rr", "ro", "ra", "e", "pe", "eo", "ce"):
            raise InvalidValueError("after a compounding explosion only keep, drop, clamp "
                                    "and count apply")
        if self._die is not None and op.kind in ("rr", "e", "ce", "pe") and matches_every_face(
                op, self._die.outcomes()):
            what = "reroll" if op.kind == "rr" else "explode"
            raise InvalidValueError(f"{what}: every face of the die matches, so it would "
                                    f"{what} forever; match fewer faces")
        new = object.__new__(Pool)
        new._die, new._n, new._items, new._depth = self._die, self._n, self._items, self._depth
        new._ops = (*self._ops, op)
        return new

    def keep(self, *sels: Selector) -> Pool:
        """Keep the selected dice (``k``); the others count 0."""
        return self._with(Op("k", sels))

    def drop(self, *sels: Selector) -> Pool:
        """Drop the selected dice (``p``)."""
        return self._with(Op("p", sels))

    def reroll(self, *sels: Selector, once: bool = False) -> Pool:
        """Reroll matching dice until they do not match (``rr``), or once (``ro``)."""
        return self._with(Op("ro" if once else "rr", sels))

    def reroll_add(self, *sels: Selector) -> Pool:
        """If any die matches, roll one more die and add it (``ra``)."""
        return self._with(Op("ra", sels))

    def explode(self, *sels: Selector) -> Pool:
        """Each matching die adds another die, which may explode again, at most ``depth``
        times (``e``; ``!`` is ``explode(equal(highest face))``)."""
        return self._with(Op("e", sels))

    def compound(self, *sels: Selector) -> Pool:
        """Compounding explosion (``!!``, Roll20 / Shadowrun / L5R): a matching die rolls
        again and adds the new roll to itself (again while it matches, at most ``depth``
        times); later operators see one die. Must come before keep/drop/explode.

        >>> from chancekit.dice.selectors import equal, highest
        >>> Pool(d(10), 10).compound(equal(10)).keep(highest(5)).sum().mean() > 40
        True
        >>> Pool(d(6), 1).compound(equal(6)).sum().probability(7)
        Fraction(1, 36)
        """
        return self._with(Op("ce", sels))

    def penetrate(self, *sels: Selector) -> Pool:
        """Penetrating explosion (``!p``, Hackmaster): like :meth:`explode`, but each extra
        die counts one less (it explodes on its face as rolled).

        >>> from chancekit.dice.selectors import equal
        >>> Pool(d(6), 1).penetrate(equal(6)).sum().probability(6)
        Fraction(1, 36)
        """
        return self._with(Op("pe", sels))

    def explode_once(self, *sels: Selector) -> Pool:
        """Each matching die adds one extra die, which does not explode (Foundry ``xo``).

        >>> from chancekit.dice.selectors import equal
        >>> Pool(d(6), 1).explode_once(equal(6)).sum().probability(12)
        Fraction(1, 36)
        """
        return self._with(Op("eo", sels))

    def count(self, *success: Selector, fail: Selector | Sequence[Selector] = ()) -> Pool:
        """Count instead of summing (target numbers, World of Darkness, Shadowrun): each
        kept die scores 1 if it matches a ``success`` selector, and -1 if it matches a
        ``fail`` selector (Roll20 ``>=8f1``). Exploded dice count too. Must be last.

        >>> from chancekit.dice.selectors import at_least, equal
        >>> Pool(d(10), 10).count(at_least(8), fail=equal(1)).sum().mean()
        Fraction(2, 1)
        >>> Pool(d(10), 5).count(at_least(7)).sum().mean()
        Fraction(2, 1)
        """
        fails = (fail,) if isinstance(fail, Selector) else tuple(fail)
        if not success:
            raise InvalidValueError("count: success", success, "at least one selector")
        return self._with(Op("cnt", tuple(success), fails=fails))

    def clamp(self, lo: int | None = None, hi: int | None = None) -> Pool:
        """Raise each die to at least ``lo`` (``mi``) and lower it to at most ``hi``
        (``ma``)."""
        pool = self
        if lo is not None:
            pool = pool._with(Op("mi", (Selector(None, require_int("lo", lo)),)))
        if hi is not None:
            pool = pool._with(Op("ma", (Selector(None, require_int("hi", hi)),)))
        return pool

    def sum(self) -> Distribution:
        """The exact distribution of the sum of what is kept (the one pool evaluator)."""
        from chancekit.dice import evaluate
        from chancekit.dice.caps import attach, pool_cap

        with limits.evaluation(limit=MAX_WORK, name="MAX_WORK"):
            if self._die is None:
                out = evaluate.items_sum(self._items, self._ops)
            else:
                out = evaluate.pool_sum(self._die, self._n, self._ops, self._depth)
        # the probability that an explosion reached the depth cap (dice.caps)
        cap = pool_cap(self._die, self._n, self._items, self._ops, self._depth)
        return out if cap is None and type(out) is Distribution else attach(
            out, *(cap or (Fraction(0), None)))

    def evaluate(self, rule: FaceRule, *others: Pool) -> Distribution:
        """The exact distribution of ``rule``'s outcome over one roll of this pool (and of
        ``others``, as pools 1, 2, …): the face-by-face walk of :func:`evaluate_pool`, so a
        user ``FaceRule`` goes through the same ``Pool`` as keep/drop and explosions. Pools
        with operators are not walked face by face (their dice are no longer independent
        draws of one die): give the operators' effect to the rule instead.

        >>> sixes = FaceRule(lambda st, face, c: st + c[0] if face == 6 else st, initial=0)
        >>> Pool(d(6), 2).evaluate(sixes).probability(2)
        Fraction(1, 36)
        """
        pools = (self, *others)
        for i, p in enumerate(pools):
            if not isinstance(p, Pool):
                raise InvalidTypeError(f"pool {i}", p, "a Pool")
            if p._ops:
                raise InvalidValueError(
                    f"pool {i} has operators ({p!r}); FaceRules read the dice as rolled -- "
                    "put the operators' effect in the rule")
        dice = [list(p._items) if p._die is None else [p._die] * p._n for p in pools]
        return evaluate_pool(rule, *dice)

    def __repr__(self) -> str:
        ops = "".join(f".{o.kind}({', '.join(s.text() for s in o.sels + o.fails)})"
                      for o in self._ops)
        what = f"{self._n} x {self._die!r}" if self._die is not None else f"{self._n} items"
        return f"Pool({what}){ops}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pool):
            return NotImplemented
        return (self._die, self._n, self._items, self._ops, self._depth) == (
            other._die, other._n, other._items, other._ops, other._depth)

    def __hash__(self) -> int:
        return hash((self._die, self._n, self._items, self._ops, self._depth))


# -- built-ins ------------------------------------------------------------------------------


def _dice_list(name: str, dice: Any) -> list[Distribution]:
    if isinstance(dice, Distribution):
        return [dice]
    if isinstance(dice, str | bytes) or not isinstance(dice, Sequence):
        raise InvalidTypeError(name, dice, "a sequence of Distributions (e.g. 4 * [d6])")
    for x in dice:
        if not isinstance(x, Distribution):
            raise InvalidTypeError(f"die in {name}", x, "a Distribution")
    _check_dice(len(dice))
    return list(dice)


def _require_int_faces(die: Distribution, what: str) -> None:
    if not all(isinstance(x, int) for x in die.outcomes()):
        raise InvalidTypeError(f"{what}: faces", die.outcomes(), "integers")


class _KeepRule(FaceRule):
    def __init__(self, k: int, order: str) -> None:
        super().__init__(initial=(0, 0), order=order)
        self.k = k

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        kept, total = state
        take = min(counts[0], self.k - kept)
        if not take:
            return state
        kept += take
        total += take * face
        if kept == self.k:
            return Decided(total)
        return (kept, total)

    def final(self, state: Any) -> Any:
        return state[1]

    def state_bound(self, faces: Sequence[Any], dice: int) -> int:
        # (kept so far < k, their sum): sums of up to k faces
        return self.k * (self.k * (max(faces) - min(faces)) + 1) + 1


def keep_sum(dice: Sequence[Distribution], *, highest: int | None = None,
             lowest: int | None = None) -> Distribution:
    """Distribution of the sum of the ``highest`` k (or ``lowest`` k) of ``dice``.

    Exactly one of ``highest``/``lowest``, 0 <= k <= len(dice). Identical integer dice use
    the face walk with the running sum carried as an ``fmpz_poly``: O(F · k²) polynomial
    operations (100d6 keep 10 in about a millisecond); mixed dice use :func:`evaluate_pool`.

    >>> from chancekit.dice import d
    >>> keep_sum(4 * [d(6)], highest=3).probability(18)
    Fraction(7, 432)
    >>> keep_sum([d(4), d(8)], lowest=1).probability(4)
    Fraction(5, 32)
    """
    if (highest is None) == (lowest is None):
        raise InvalidValueError("keep_sum needs exactly one of highest= or lowest=")
    dice = _dice_list("dice", dice)
    k = require_int("highest" if highest is not None else "lowest",
                    highest if highest is not None else lowest, lo=0, hi=len(dice))
    order = "descending" if highest is not None else "ascending"
    if k == 0:
        return constant(0)
    for die in dice:
        if not all(isinstance(x, int) for x in die.outcomes()):
            raise InvalidTypeError("keep_sum: faces", die.outcomes(), "integers")
    groups = _group(dice)
    if len(groups) == 1:
        die, n = groups[0]
        hi = order == "descending"
        if k == n:
            return die.repeat_sum(n)
        if k == 1:
            return _cached(("extreme", die, n, order), lambda: _extreme_iid(die, n, hi))
        _check_keep_work(die, n, k)
        if n - k < k:
            return _cached(("drop", die, n, n - k, order),
                           lambda: _drop_sum_poly(die, n, n - k, hi))
        return _cached(("keep", die, n, k, order), lambda: _keep_sum_poly(die, n, k, hi))
    if k == len(dice):
        total = constant(0)
        for die, n in groups:
            total = total + die.repeat_sum(n)
        return total
    return evaluate_pool(_keep_rules(k, order), dice)


def keep_work(die: Distribution, n: int, k: int) -> int:
    """Estimated work (units of about 20 ns, :mod:`chancekit.limits`) of the face walk of
    ``n`` identical dice keeping ``k``, from the walk's own structure (measured against it
    in benchmarks/bench_limits.py, "keep/drop"):

    * keeping (``_keep_sum_poly``): per face, ``k(k+1)/2`` polynomial-times-integer steps
      on polynomials of up to ``j x span`` coefficients (``j`` dice kept so far), about 2
      units a coefficient plus one a 16 words of weight, and 30 units of Python per step;
    * dropping (``_drop_sum_poly``, fewer dropped than kept): per face and per number
      dropped so far ``j``, ``drop - j + 1`` powers of the die's tail to the ``n - j``
      (:func:`chancekit.limits.power_work` each) and 50 units of Python.

    300d6kh150: 42 M (0.64 s measured); 100d6kh90: 2.1 M; 4d6111dl1: 3.8 G (refused).

    >>> from chancekit.dice import d
    >>> keep_work(d(6), 300, 150) // 10**6, keep_work(d(6), 4, 3)
    (42, 1572)
    """
    outs = die.outcomes()
    return face_walk_work(len(outs), outs[-1] - outs[0] + 1, die.total.bit_length(), n, k)


def face_walk_work(faces: int, span: int, tbits: int, n: int, k: int) -> int:
    """:func:`keep_work` of a die known by its number of ``faces``, its ``span`` (highest
    minus lowest face, plus one) and the bits of its total weight (``tbits``): what the
    pool evaluator checks before building the die it will keep from."""
    words = n * tbits // 64 + 1
    drop = n - k
    if drop < k:  # read from the dropped end; each step powers a degree-n*span poly
        power = power_work(span, n * (span - 1) + 1, n * tbits)
        return faces * (drop * (drop + 3) // 2 * power + drop * 50)
    coefficient_ops = k * k * k * span // 6
    return faces * (coefficient_ops * (2 + words // 16) + k * (k + 1) // 2 * 30)


def _check_keep_work(die: Distribution, n: int, k: int) -> None:
    """Refuse up front a face walk of ``n`` identical dice keeping ``k`` whose estimated
    work (:func:`keep_work`) passes ``MAX_WORK`` (units of about 20 ns, so about a
    second): 20d1000kh10 (4.8 s), 3d3000kh2 (2 s) and 4d6111dl1 (12 s) are refused,
    300d6kh150 (0.64 s), 8d1000kh4 (0.24 s) and 100d6kh90 (9 ms) are not."""
    work = keep_work(die, n, k)
    faces = len(die.weights)
    if work > MAX_WORK:
        raise LimitError(
            f"keeping {k} of {n} dice with {faces} faces needs about {work:,} units of "
            f"work, more than MAX_WORK = {MAX_WORK:,}; use fewer or smaller dice, "
            "or estimate it by rolling (chancekit.roll) many times",
            limit="MAX_WORK", value=work)
    limits.charge(work, f"keeping {k} of {n} dice")
    limits.count(work)


def _extreme_iid(die: Distribution, n: int, highest: bool) -> Distribution:
    """The highest (or lowest) of ``n`` copies of ``die`` in closed form: the weight of face
    ``f`` is ``S(f)**n - S'(f)**n`` with ``S``/``S'`` the weight of faces up to ``f``
    included / excluded (beyond ``f`` for the lowest). O(F) big-integer powers."""
    faces = sorted(die.outcomes(), reverse=not highest)
    out: dict[Any, int] = {}
    cum = 0
    prev = 0
    for f in faces:
        cum += die.weights[f]
        cur = cum**n
        if cur != prev:
            out[f] = cur - prev
        prev = cur
    return Distribution._raw(out)


def _drop_sum_poly(die: Distribution, n: int, drop: int, highest: bool) -> Distribution:
    """Sum of the highest (``highest``) or lowest ``n - drop`` of ``n`` copies of ``die``,
    for a small ``drop``: the faces are read from the dropped end; until ``drop`` dice are
    dropped nothing is kept (the state is one integer weight per number dropped), and once
    the ``drop``-th die is dropped at face ``f`` the unread dice are all beyond ``f``:
    their sum is a power of the die restricted to faces beyond ``f``, summed in closed form
    ``(T + R)^r - (first terms)`` with ``T`` the face itself and ``R`` the faces beyond.
    O(F · drop²) polynomial powers."""
    faces = sorted(die.outcomes(), reverse=not highest)  # dropped end first
    base = faces[0]
    ws = [die.weights[f] for f in faces]
    nf = len(faces)
    expo = [abs(f - base) for f in faces]
    # beyond[i]: generating polynomial of one die restricted to faces after faces[i]
    beyond: list[flint.fmpz_poly] = [flint.fmpz_poly([])] * nf
    acc = flint.fmpz_poly([])
    for i in range(nf - 1, -1, -1):
        beyond[i] = acc
        acc = acc + flint.fmpz_poly([0] * expo[i] + [ws[i]])
    weight = [0] * drop  # weight[j]: j dice dropped so far, all read faces seen
    weight[0] = 1
    result = flint.fmpz_poly([])
    for i in range(nf):
        w, e, rest = ws[i], expo[i], beyond[i]
        here = flint.fmpz_poly([0] * e + [w])
        new = [0] * drop
        for j in range(drop):
            c = weight[j]
            if not c:
                continue
            r = n - j
            need = drop - j  # dice still to drop: t >= need of the r unread show face i
            if need <= r:
                full = (here + rest) ** r
                for t in range(need):
                    full -= math.comb(r, t) * (here**t) * (rest ** (r - t))
                result += c * full.right_shift(need * e) if e * need else c * full
            for t in range(min(need - 1, r) + 1):
                new[j + t] += c * math.comb(r, t) * w**t
        weight = new
    kept = n - drop
    coeffs = result.coeffs()
    g = int(result.content())
    out: dict[Any, int] = {}
    sign = 1 if highest else -1
    for i, c in enumerate(coeffs):
        if c:
            out[kept * base + sign * i] = int(c) // g
    return Distribution._raw(out, reduced=True)


_keep_rule_cache: dict[tuple[int, str], _KeepRule] = {}


def _keep_rules(k: int, order: str) -> _KeepRule:
    rule = _keep_rule_cache.get((k, order))
    if rule is None:
        if len(_keep_rule_cache) > 64:
            _keep_rule_cache.clear()
        rule = _keep_rule_cache[(k, order)] = _KeepRule(k, order)
    return rule


def _keep_sum_poly(die: Distribution, n: int, k: int, highest: bool) -> Distribution:
    face_list = sorted(die.outcomes(), reverse=highest)
    fmin = min(face_list)
    ws = [die.weights[f] for f in face_list]
    zero = flint.fmpz_poly([])
    polys: list[flint.fmpz_poly | None] = [None] * k
    polys[0] = flint.fmpz_poly([1])
    result = zero
    for i, f in enumerate(face_list):
        e = f - fmin
        w = ws[i]
        low = sum(ws[i + 1:])
        last = i == len(face_list) - 1
        new: list[flint.fmpz_poly | None] = [None] * k
        for j in range(k):
            p = polys[j]
            if p is None:
                continue
            r = n - j
            need = k - j
            # absorbing: at least `need` of the r unread dice show f; the rest go lower
            if need > r:
                absorb = 0
            else:
                # sum over t >= need of C(r, t) w^t low^(r-t) = (w + low)^r - (t < need terms)
                absorb = (w + low) ** r
                for t in range(need):
                    absorb -= math.comb(r, t) * w**t * low ** (r - t)
            if absorb:
                result += (p * absorb).left_shift(need * e) if e * need else p * absorb
            if last:
                continue
            for t in range(min(need - 1, r) + 1):
                c = math.comb(r, t) * w**t
                q = p * c
                if t * e:
                    q = q.left_shift(t * e)
                new[j + t] = q if new[j + t] is None else new[j + t] + q
        polys = new
    return Distribution._from_poly(k * fmin, result)


def keep_highest(n: int, die: Distribution, k: int) -> Distribution:
    """Sum of the highest ``k`` of ``n`` copies of ``die`` (``4d6kh3`` = keep_highest(4, d6, 3)).

    >>> from chancekit.dice import d
    >>> keep_highest(4, d(6), 3).probability(3)
    Fraction(1, 1296)
    """
    n = require_int("n", n, lo=0)
    _check_dice(n)
    if not isinstance(die, Distribution):
        raise InvalidTypeError("die", die, "a Distribution")
    return keep_sum(n * [die], highest=k)


def keep_lowest(n: int, die: Distribution, k: int) -> Distribution:
    """Sum of the lowest ``k`` of ``n`` copies of ``die``.

    >>> from chancekit.dice import d
    >>> keep_lowest(2, d(20), 1).probability(1)
    Fraction(39, 400)
    """
    n = require_int("n", n, lo=0)
    _check_dice(n)
    if not isinstance(die, Distribution):
        raise InvalidTypeError("die", die, "a Distribution")
    return keep_sum(n * [die], lowest=k)


def _face_pred(name: str, spec: Any) -> Callable[[Any], bool]:
    if spec is None:
        return lambda x: False
    if callable(spec):
        return lambda x: bool(spec(x))
    if isinstance(spec, str | bytes) or not isinstance(spec, Iterable):
        spec = [spec]
    allowed = set(spec)
    return lambda x: x in allowed


def count_successes(dice: Sequence[Distribution], success: Iterable[Any] | Callable[[Any], bool],
                    *, double: Iterable[Any] | Callable[[Any], bool] | None = None
                    ) -> Distribution:
    """Distribution of the number of successes: a die scores 1 if its face is in
    ``success`` (a set of faces, or a predicate), plus 1 more if it is in ``double``.
    Per-die scores are summed with polynomial powers: O(M(n)) per kind of die.

    >>> from chancekit.dice import d
    >>> count_successes(5 * [d(10)], lambda x: x >= 8, double=[10]).probability(0)
    Fraction(16807, 100000)
    """
    dice = _dice_list("dice", dice)
    is_s = _face_pred("success", success)
    is_d = _face_pred("double", double)
    total = constant(0)
    for die, n in _group(dice):
        score = die.map(lambda x: int(is_s(x)) + int(is_d(x)))
        total = total + n @ score
    return total


class _LargestRule(FaceRule):
    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        return max(state, counts[0])


_LARGEST = _LargestRule(initial=0)


def largest_set(dice: Sequence[Distribution]) -> Distribution:
    """Distribution of the size of the largest set of dice showing the same face.

    Identical dice use exponential generating functions over the faces:
    P(every face count <= m) = n!·[x^n] Π_f Σ_{k<=m} (p_f x)^k / k!, and a closed form once
    m >= n/2; O(n · F) ``fmpq_poly`` products. Mixed dice use :func:`evaluate_pool`.

    >>> from chancekit.dice import d
    >>> largest_set(3 * [d(6)]).probability(1)
    Fraction(5, 9)
    """
    dice = _dice_list("dice", dice)
    if not dice:
        return constant(0)
    groups = _group(dice)
    if len(groups) == 1:
        die, n = groups[0]
        work = _largest_work(die, n)
        if work > MAX_WORK:
            raise LimitError(
                f"the largest set of {n} dice needs about {work:,} units of work, more than "
                f"MAX_WORK = {MAX_WORK:,}; use fewer dice (300d6 takes about half "
                "a second)", limit="MAX_WORK", value=work)
        limits.charge(work, f"the largest set of {n} dice")
        limits.count(work)
        return _cached(("largest", die, n), lambda: _largest_egf(die, n))
    return evaluate_pool(_LARGEST, dice)


def _largest_work(die: Distribution, n: int) -> int:
    """Estimated work (MAX_WORK units) of :func:`_largest_egf`: for each set size
    below n/2, truncated power series products of n terms whose rational coefficients
    have about n·log2(n·total) bits. Calibrated: 200d6 0.17 s, 400d6 1.2 s (refused)."""
    kinds = len(set(die.weights.values()))
    sizes = max(0, n // 2 - (-(-n // len(die.weights))) + 1)
    bits = n * (n * die.total).bit_length()
    return 20 * sizes * kinds * n * (bits // 64 + 1)


def _largest_egf(die: Distribution, n: int) -> Distribution:
    ws = list(die.weights.values())
    total = die.total
    all_count = total**n
    by_weight = Counter(ws)
    nf = math.factorial(n)
    at_most: list[int] = [0] * (n + 1)  # at_most[m] = weighted count of rolls, max count <= m
    m0 = -(-n // len(ws))
    half = n // 2
    for m in range(m0, n + 1):
        if m >= half:
            # at most one face can exceed m (2(m+1) > n): subtract those rolls directly
            over = 0
            for w, mult in by_weight.items():
                rest = total - w
                over += mult * sum(math.comb(n, c) * w**c * rest ** (n - c)
                                   for c in range(m + 1, n + 1))
            at_most[m] = all_count - over
            continue
        poly = flint.fmpq_poly([1])
        for w, mult in by_weight.items():
            base = flint.fmpq_poly([flint.fmpq(w**k, math.factorial(k)) for k in range(m + 1)])
            poly = poly.mul_low(base.pow_trunc(mult, n + 1), n + 1) if mult else poly
        c = poly.coeffs()
        coef = c[n] if len(c) > n else flint.fmpq(0)
        at_most[m] = int(coef.p) * (nf // int(coef.q)) if coef != 0 else 0
    out: dict[Any, int] = {}
    prev = 0
    for m in range(1, n + 1):
        cur = at_most[m] if m >= m0 else 0
        if cur - prev:
            out[m] = cur - prev
        prev = cur
    return Distribution._raw(out)


class _StraightRule(FaceRule):
    order = "ascending"

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        prev, run, best = state
        if not counts[0]:
            return (None, 0, best)
        run = run + 1 if (prev is not None and face == prev + 1) else 1
        return (face, run, max(best, run))

    def final(self, state: Any) -> Any:
        return state[2]


_STRAIGHT = _StraightRule(initial=(None, 0, 0))


def longest_straight(dice: Sequence[Distribution]) -> Distribution:
    """Distribution of the length of the longest run of consecutive integer faces shown
    (a face shown by several dice counts once). Face by face, ascending.

    >>> from chancekit.dice import d
    >>> longest_straight(2 * [d(6)]).probability(2)
    Fraction(5, 18)
    """
    dice = _dice_list("dice", dice)
    for die in dice:
        _require_int_faces(die, "longest_straight")
    if not dice:
        return constant(0)
    return evaluate_pool(_STRAIGHT, dice)


class _NCORule(FaceRule):
    def __init__(self, top: int) -> None:
        super().__init__(initial=0)
        self.top = top

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        left = counts[0] - counts[1]
        if left > 0:
            return Decided(self.top - 1 + left if face == self.top else face)
        return state


def neon_city_overdrive(action: int, danger: int, *, die: Distribution | None = None
                        ) -> Distribution:
    """Neon City Overdrive: each danger die cancels one action die showing the same face;
    the result is the highest action face left (0 if none); if that is a six, the result
    is 5 + the number of sixes left (7 = one critical, 8 = two, ...). ``die`` defaults to
    a d6 (with another die, "six" means its highest face). Face by face, highest first.

    >>> neon_city_overdrive(1, 1).probability(0)
    Fraction(1, 6)
    >>> neon_city_overdrive(2, 0).probability(7)
    Fraction(1, 36)
    """
    action = require_int("action", action, lo=0)
    danger = require_int("danger", danger, lo=0)
    die = d(6) if die is None else die
    if not isinstance(die, Distribution):
        raise InvalidTypeError("die", die, "a Distribution")
    _require_int_faces(die, "neon_city_overdrive")
    _check_dice(action + danger)
    if action == 0:
        return constant(0)
    work = nco_work(die, action, danger)
    if work > MAX_WORK:
        raise LimitError(
            f"{action} action vs {danger} danger dice needs about {work} steps, more than "
            f"MAX_WORK = {MAX_WORK}; use fewer dice", limit="MAX_WORK",
            value=work)
    return _cached(("nco", die, action, danger), lambda: _nco_fast(die, action, danger))


def nco_work(die: Distribution, action: int, danger: int) -> int:
    """Estimated work (MAX_WORK units) of :func:`neon_city_overdrive`: per face, the
    (action left, danger left) walk, whose big integers grow with the dice, and the table
    of binomial tails for the larger pool (n² products of n·log2(total)-bit numbers).
    Calibrated: 50 vs 50 (0.28 s), 3 vs 300 (0.8 s), 600 vs 0 (1.4 s, refused)."""
    n = max(action, danger)
    grow = n * die.total.bit_length()
    walk = ((action + 1) * (danger + 1)) ** 2 // 4 * (1 + grow // 640)
    tails = (n + 1) ** 2 * (grow // 64 + 1)
    return 2 * len(die.outcomes()) * (walk + tails)


def _nco_fast(die: Distribution, na: int, nb: int) -> Distribution:
    """The NCO face walk specialised to two pools of one die kind: the only undecided state
    is (action dice left, danger dice left); the decided mass is summed in closed form."""
    face_list = sorted(die.outcomes(), reverse=True)
    top = face_list[0]
    ws = [die.weights[f] for f in face_list]
    n_max = max(na, nb)
    comb = [[math.comb(r, k) for k in range(r + 1)] for r in range(n_max + 1)]
    cur: list[list[int]] = [[0] * (nb + 1) for _ in range(na + 1)]
    cur[na][nb] = 1
    out: dict[Any, int] = {}
    for i, f in enumerate(face_list):
        w = ws[i]
        low = sum(ws[i + 1:])
        last = i == len(face_list) - 1
        wp = [w**k for k in range(n_max + 1)]
        lp = [low**k for k in range(n_max + 1)]
        # tail[r][k] = C(r, k) w^k low^(r-k): k of r dice show f, the rest show lower faces
        tail = [[comb[r][k] * wp[k] * lp[r - k] for k in range(r + 1)] for r in range(n_max + 1)]
        shown = [[comb[r][k] * wp[k] for k in range(r + 1)] for r in range(n_max + 1)]
        new: list[list[int]] = [[0] * (nb + 1) for _ in range(na + 1)]
        decided = 0
        for ra in range(na + 1):
            row = cur[ra]
            ta = tail[ra]
            # suffix[j] = sum of ta[ka] for ka >= j
            suffix = [0] * (ra + 2)
            for ka in range(ra, -1, -1):
                suffix[ka] = suffix[ka + 1] + ta[ka]
            al = shown[ra]
            for rb in range(nb + 1):
                m = row[rb]
                if not m:
                    continue
                tb = tail[rb]
                if f == top:
                    for kb in range(rb + 1):
                        if not tb[kb]:
                            continue
                        for ka in range(kb + 1, ra + 1):
                            if ta[ka]:
                                r = top - 1 + ka - kb
                                out[r] = out.get(r, 0) + m * ta[ka] * tb[kb]
                else:
                    acc = 0
                    for kb in range(min(rb, ra - 1) + 1):
                        acc += tb[kb] * suffix[kb + 1]
                    decided += m * acc
                if last:
                    if ra <= rb:  # every remaining die shows f and all action dice cancel
                        new[0][0] += m * al[ra] * shown[rb][rb]
                    continue
                be = shown[rb]
                for kb in range(rb + 1):
                    mb = m * be[kb]
                    target = new
                    for ka in range(min(kb, ra) + 1):
                        target[ra - ka][rb - kb] += mb * al[ka]
        if decided:
            out[f] = out.get(f, 0) + decided
        cur = new
    if cur[0][0]:
        out[0] = out.get(0, 0) + cur[0][0]
    return Distribution._raw(out)


class _RiskRule(FaceRule):
    def __init__(self, pairs: int) -> None:
        super().__init__(initial=(0, 0, 0, 0))
        self.pairs = pairs

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        sa, sb, att_loss, def_loss = state
        a, b = counts
        m = self.pairs
        for i in range(max(sa, sb), min(m, max(sa + a, sb + b))):
            if i < sb + b:
                att_loss += 1  # defender's die is at least as high: ties go to the defender
            else:
                def_loss += 1
        sa += a
        sb += b
        if sa >= m and sb >= m:
            return Decided((att_loss, def_loss))
        return (sa, sb, att_loss, def_loss)

    def final(self, state: Any) -> Any:
        return (state[2], state[3])


def risk_battle(attackers: int = 3, defenders: int = 2, *, die: Distribution | None = None
                ) -> Distribution:
    """RISK-style opposed sorted pairs: both sides roll, sort high to low, and compare the
    first min(attackers, defenders) pairs; the higher die wins, ties go to the defender.
    Outcomes are ``(attacker_losses, defender_losses)`` tuples.

    >>> risk_battle(3, 2).probability((0, 2))
    Fraction(1445, 3888)
    """
    attackers = require_int("attackers", attackers, lo=0)
    defenders = require_int("defenders", defenders, lo=0)
    die = d(6) if die is None else die
    if not isinstance(die, Distribution):
        raise InvalidTypeError("die", die, "a Distribution")
    _check_dice(attackers + defenders)
    pairs = min(attackers, defenders)
    if pairs == 0:
        return constant((0, 0))
    rule = _risk_rules.get(pairs)
    if rule is None:
        if len(_risk_rules) > 64:
            _risk_rules.clear()
        rule = _risk_rules[pairs] = _RiskRule(pairs)
    return evaluate_pool(rule, attackers * [die], defenders * [die])


_risk_rules: dict[int, _RiskRule] = {}
