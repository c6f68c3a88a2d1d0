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

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.distribution import EXPLODE_DEPTH, Distribution, constant, d
from chancekit.dice.facewalk import (
    Decided,
    FaceRule,
    _cached,
    _check_dice,
    _dice_list,
    _group,
    _require_int_faces,
    clear_caches,
    evaluate_pool,
    keep_highest,
    keep_lowest,
    keep_sum,
)
from chancekit.dice.facewalk import face_walk_work as face_walk_work
from chancekit.dice.facewalk import keep_work as keep_work
from chancekit.dice.multiset import _LAZY, MultisetExpression
from chancekit.dice.selectors import Op, Selector, matches_every_face
from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.limits import MAX_DICE, MAX_POOL_DICE, MAX_POOL_STATES, MAX_WORK

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

# -- Pool: dice with operators --------------------------------------------------------------


class Pool(MultisetExpression):
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

    A pool without operators is also a multiset expression
    (:class:`~chancekit.dice.multiset.MultisetExpression`: ``a - b``, ``highest(2)``,
    ``sort_pair``, ``max_pair_drop``, ``versus_all``, ``largest_count`` … as in icepool;
    docs/pools.md).

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
        if any(o.kind in ("cnt", "mt") for o in self._ops):
            raise InvalidValueError("count() must be the last operator of a pool")
        if not all(isinstance(s, Selector) for s in op.sels + op.fails) or not (
                op.sels or op.fails or op.steps):
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

    def count(self, *success: Selector, fail: Selector | Sequence[Selector] = ()) -> Any:
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
        if not success and not fails:  # the multiset evaluation: how many dice
            return MultisetExpression.count(self)
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

    def sum(self, map: Any = None) -> Any:
        """The exact distribution of the sum of what is kept (the one pool evaluator);
        with ``map`` (a function or mapping of faces), the sum of the mapped faces (the
        multiset evaluation)."""
        if map is not None or _LAZY.get():
            return MultisetExpression.sum(self, map)
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

    # -- what the pool algebra (chancekit.dice.multiset) reads of a pool -------------------
    def _leaf_dice(self) -> list[Distribution]:
        if self._ops:
            raise InvalidValueError(
                f"{self!r} has operators (keep, explode, ...); the pool algebra reads the "
                "dice as rolled: use highest()/lowest()/keep_outcomes() instead of keep(), "
                "or explode the die first (Pool(d(6).explode(), 3))")
        return list(self._items) if self._die is None else [self._die] * self._n

    def _leaf_size(self) -> int:
        return self._n

    def _leaf_faces(self) -> Sequence[Any]:
        return () if self._die is None else self._die.outcomes()

    def _plain(self) -> tuple[Distribution, int] | None:
        return None if self._die is None or self._ops else (self._die, self._n)

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
        limits.refuse_past_budget(work, f"the largest set of {n} dice",
                                  "use fewer dice (300d6 takes about half a second)")
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
    limits.refuse_past_budget(work, f"{action} action vs {danger} danger dice",
                              "use fewer dice")
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
