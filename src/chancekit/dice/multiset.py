"""Pool algebra: multiset expressions over dice pools, evaluated in one face walk.

A roll of a dice pool is a *multiset* of faces. This module composes pools the way
icepool's multiset algebra does (the same names and meanings; docs/pools.md lists every
icepool equivalent and every difference) and evaluates the whole composition in one walk of
the faces (:func:`chancekit.dice.facewalk.face_walk`, the engine behind :class:`FaceRule`):

- **expressions** (lazy): ``a + b`` (:meth:`~MultisetExpression.additive_union`),
  ``a - b`` (:meth:`~MultisetExpression.difference`: each die of ``b`` cancels one equal die
  of ``a``), ``a & b``, ``a | b``, ``a ^ b``, :meth:`~MultisetExpression.keep_outcomes`,
  :meth:`~MultisetExpression.drop_outcomes`, :meth:`~MultisetExpression.unique`,
  :meth:`~MultisetExpression.multiply_counts`, :meth:`~MultisetExpression.keep_counts`,
  :meth:`~MultisetExpression.highest`, :meth:`~MultisetExpression.lowest`,
  :meth:`~MultisetExpression.middle`;
- **opposed operators** between two pools: :meth:`~MultisetExpression.sort_pair` (RISK),
  :meth:`~MultisetExpression.max_pair_keep` / :meth:`~MultisetExpression.max_pair_drop`
  (cancelling), :meth:`~MultisetExpression.versus_all` /
  :meth:`~MultisetExpression.versus_any` (face to face);
- **evaluations** (each returns a :class:`~chancekit.dice.distribution.Distribution`):
  ``count``, ``sum``, ``expand``, ``largest_count`` (wild faces allowed),
  ``largest_count_and_outcome``, ``all_counts``, ``largest_straight``, ``all_straights``,
  ``count_subset``, ``issubset``/``issuperset``/``isdisjoint``,
  ``highest_outcome_and_count``, ``leximax``/``leximin``;
- :func:`multiset_function`: a function of pools returning several evaluations, evaluated
  together in one walk (the outcome is a :class:`Vector`: per-element arithmetic).

As in icepool, every occurrence of a pool in an expression is a roll of its own
(``(p - p).count()`` is not always 0); inside a :func:`multiset_function` each argument is
one roll, however often the function reads it. Counts are never negative (icepool's
``keep_negative_counts`` is not offered).

Cost: the face walk's, O(F · S · Π(n_j+1)²) for F faces, S states of the composed
operators and evaluations and n_j dice of kind j; estimated before the walk starts as an
upper bound of its steps (per face: the multisets read, or the dice left x the states
each operator and evaluation may hold, :func:`_walk_work`) and refused past the work
budget (``max-work`` lifts it); the closed forms estimate theirs first too.

>>> from chancekit.dice import Pool, d
>>> attack, block = Pool(d(6), 3), Pool(d(6), 2)
>>> attack.sort_pair(">", block).count().probability(2)  # RISK 3 v 2: both pairs won
Fraction(1445, 3888)
>>> (Pool(d(6), 2) - Pool(d(6), 1)).count().mean()
Fraction(61, 36)
"""

from __future__ import annotations

import contextvars
import itertools
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice import facewalk
from chancekit.dice.distribution import Distribution
from chancekit.dice.facewalk import Decided, FaceRule
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError

__all__ = [
    "Evaluation",
    "MultisetExpression",
    "Vector",
    "multiset_function",
    "multiset_work",
]

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<=": operator.le, "<": operator.lt,
    ">=": operator.ge, ">": operator.gt}
_ORDERED = ("<=", "<", ">=", ">")
_DESC, _ASC = "d", "a"
_ORDER_NAMES = {"descending": _DESC, "ascending": _ASC, "d": _DESC, "a": _ASC,
                "high": _DESC, "low": _ASC}


def _comparison(name: str, value: Any, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidValueError(name, value, "one of " + ", ".join(repr(a) for a in allowed))
    return value


def _order(name: str, value: Any) -> str:
    if not isinstance(value, str) or value not in _ORDER_NAMES:
        raise InvalidValueError(name, value, "'descending' or 'ascending'")
    return _ORDER_NAMES[value]


class Vector(tuple):  # type: ignore[type-arg]
    """A tuple outcome with per-element arithmetic (several numbers at once: successes and
    advantages, hits and crits). ``+ - * // %`` and unary ``-``/``abs`` act element by
    element (a plain number applies to every element); comparisons stay those of tuples
    (lexicographic), so outcomes sort; :meth:`lt`, :meth:`le`, :meth:`gt`, :meth:`ge`,
    :meth:`eq` compare element by element and return a Vector of bools. In JSON a Vector is
    a list. O(length) per operation.

    >>> v = Vector((2, 1)) + Vector((1, 1))
    >>> v, v - 1, v.gt((2, 3))
    (Vector(3, 2), Vector(2, 1), Vector(True, False))
    """

    __slots__ = ()

    def _zip(self, other: Any, op: Callable[[Any, Any], Any], sym: str) -> Vector:
        if isinstance(other, tuple):
            if len(other) != len(self):
                raise InvalidValueError(f"Vector {sym}: lengths {len(self)} and {len(other)} "
                                        "differ")
            return Vector(op(a, b) for a, b in zip(self, other, strict=True))
        if isinstance(other, int | float) or hasattr(other, "__index__") or hasattr(
                other, "numerator"):
            return Vector(op(a, other) for a in self)
        return NotImplemented  # type: ignore[return-value]

    def __add__(self, other: Any) -> Vector:  # type: ignore[override]
        return self._zip(other, operator.add, "+")

    def __radd__(self, other: Any) -> Vector:
        return self._zip(other, lambda a, b: b + a, "+")

    def __sub__(self, other: Any) -> Vector:
        return self._zip(other, operator.sub, "-")

    def __rsub__(self, other: Any) -> Vector:
        return self._zip(other, lambda a, b: b - a, "-")

    def __mul__(self, other: Any) -> Vector:  # type: ignore[override]
        return self._zip(other, operator.mul, "*")

    def __rmul__(self, other: Any) -> Vector:  # type: ignore[override]
        return self._zip(other, lambda a, b: b * a, "*")

    def __floordiv__(self, other: Any) -> Vector:
        return self._zip(other, operator.floordiv, "//")

    def __mod__(self, other: Any) -> Vector:  # type: ignore[override]
        return self._zip(other, operator.mod, "%")

    def __neg__(self) -> Vector:
        return Vector(-a for a in self)

    def __pos__(self) -> Vector:
        return self

    def __abs__(self) -> Vector:
        return Vector(abs(a) for a in self)

    def lt(self, other: Any) -> Vector:
        """Element-by-element ``<``."""
        return self._zip(other, operator.lt, "lt")

    def le(self, other: Any) -> Vector:
        """Element-by-element ``<=``."""
        return self._zip(other, operator.le, "le")

    def gt(self, other: Any) -> Vector:
        """Element-by-element ``>``."""
        return self._zip(other, operator.gt, "gt")

    def ge(self, other: Any) -> Vector:
        """Element-by-element ``>=``."""
        return self._zip(other, operator.ge, "ge")

    def eq(self, other: Any) -> Vector:
        """Element-by-element ``==``."""
        return self._zip(other, operator.eq, "eq")

    def __repr__(self) -> str:
        return "Vector(" + ", ".join(repr(a) for a in self) + ")"

    def __str__(self) -> str:
        return "(" + ", ".join(str(a) for a in self) + ")"


# -- expressions ---------------------------------------------------------------------------

#: evaluations made inside a multiset_function are lazy (collected, walked together)
_LAZY: contextvars.ContextVar[bool] = contextvars.ContextVar("chancekit_multiset_lazy",
                                                            default=False)


def _expr(name: str, x: Any) -> MultisetExpression:
    """An operand as an expression: an expression (a Pool), a Distribution (one die), a
    mapping outcome -> count or a sequence of outcomes (a fixed multiset)."""
    if isinstance(x, MultisetExpression):
        return x
    if isinstance(x, Distribution):
        return _Dice((x,))
    if isinstance(x, Mapping):
        counts: dict[Any, int] = {}
        for k, v in x.items():
            counts[k] = require_int(f"{name}: count of {k!r}", v, lo=0)
        return _Fixed(counts)
    if isinstance(x, Sequence) and not isinstance(x, str | bytes):
        return _Fixed(dict(Counter(x)))
    raise InvalidTypeError(name, x, "a Pool or multiset expression, a Distribution, a "
                           "mapping outcome -> count, or a list of outcomes")


def _outcome_set(name: str, spec: Any) -> tuple[Callable[[Any], bool], Any]:
    """(predicate, cache key) of a keep/drop_outcomes argument: a set of outcomes, a
    single outcome or a predicate."""
    if callable(spec) and not isinstance(spec, Distribution):
        def pred(x: Any) -> bool:
            try:
                return bool(spec(x))
            except Exception as e:  # the user's predicate failed: say where
                raise InvalidValueError(f"{name}: the predicate raised {type(e).__name__} "
                                        f"on {x!r}: {e}") from None
        return pred, ("fn", id(spec))
    if isinstance(spec, str | bytes) or not isinstance(spec, Iterable):
        spec = [spec]
    try:
        allowed = frozenset(spec)
    except TypeError:
        raise InvalidTypeError(name, spec, "a set of outcomes or a predicate") from None
    return allowed.__contains__, ("set", allowed)


class MultisetExpression:
    """The operators and evaluations shared by :class:`~chancekit.dice.pool.Pool` and every
    expression built from pools. Operators are lazy (they build an expression); each
    evaluation walks the faces once and returns the exact Distribution (inside a
    :func:`multiset_function`, an :class:`Evaluation` to be walked with the others).

    >>> from chancekit.dice import Pool, d
    >>> Pool(d(6), 4).highest(3).sum().mean()
    Fraction(15869, 1296)
    """

    __slots__ = ()

    # -- structure (overridden by the nodes) ---------------------------------------------
    def _children(self) -> tuple[MultisetExpression, ...]:
        return ()

    def _key(self) -> Any:
        return ("leaf", id(self))

    # -- what a pool leaf tells the walk (Pool overrides them; this module cannot import
    # chancekit.dice.pool, which imports it) ---------------------------------------------
    def _leaf_dice(self) -> list[Distribution] | None:
        """The dice rolled, for a pool (None: not a pool)."""
        return None

    def _leaf_size(self) -> int | None:
        return None

    def _leaf_faces(self) -> Sequence[Any]:
        """The faces the pool's dice would show (for a pool of no dice)."""
        return ()

    def _plain(self) -> tuple[Distribution, int] | None:
        """(die, n) for n identical dice as rolled (closed forms), else None."""
        return None

    # -- binary multiset operators --------------------------------------------------------
    def additive_union(self, *others: Any) -> MultisetExpression:
        """Counts added: ``[1, 2] + [2, 3] -> [1, 2, 2, 3]`` (``+``)."""
        return _Counts("add", (self, *(_expr("additive_union", o) for o in others)))

    def difference(self, *others: Any) -> MultisetExpression:
        """Each element of the others cancels one equal element of this one, counts never
        below zero: ``[1, 2, 2, 3] - [1, 2, 4] -> [2, 3]`` (``-``)."""
        return _Counts("sub", (self, *(_expr("difference", o) for o in others)))

    def intersection(self, *others: Any) -> MultisetExpression:
        """The least count of each outcome: ``[1, 2, 2, 3] & [1, 2, 4] -> [1, 2]``
        (``&``)."""
        return _Counts("and", (self, *(_expr("intersection", o) for o in others)))

    def union(self, *others: Any) -> MultisetExpression:
        """The greatest count of each outcome: ``[1, 2, 2, 3] | [1, 2, 4] ->
        [1, 2, 2, 3, 4]`` (``|``)."""
        return _Counts("or", (self, *(_expr("union", o) for o in others)))

    def symmetric_difference(self, other: Any) -> MultisetExpression:
        """The absolute difference of counts: ``[1, 2, 2, 3] ^ [1, 2, 4] -> [2, 3, 4]``
        (``^``)."""
        return _Counts("xor", (self, _expr("symmetric_difference", other)))

    def __add__(self, other: Any) -> MultisetExpression:
        return self.additive_union(other)

    def __radd__(self, other: Any) -> MultisetExpression:
        return _expr("additive_union", other).additive_union(self)

    def __sub__(self, other: Any) -> MultisetExpression:
        return self.difference(other)

    def __rsub__(self, other: Any) -> MultisetExpression:
        return _expr("difference", other).difference(self)

    def __and__(self, other: Any) -> MultisetExpression:
        return self.intersection(other)

    def __rand__(self, other: Any) -> MultisetExpression:
        return _expr("intersection", other).intersection(self)

    def __or__(self, other: Any) -> MultisetExpression:
        return self.union(other)

    def __ror__(self, other: Any) -> MultisetExpression:
        return _expr("union", other).union(self)

    def __xor__(self, other: Any) -> MultisetExpression:
        return self.symmetric_difference(other)

    def __rxor__(self, other: Any) -> MultisetExpression:
        return _expr("symmetric_difference", other).symmetric_difference(self)

    # -- unary ------------------------------------------------------------------------------
    def keep_outcomes(self, outcomes: Any) -> MultisetExpression:
        """Keep only these outcomes (a set, one outcome, or a predicate); the others count
        zero. ``Pool(d(6), 5).keep_outcomes(lambda x: x >= 5).count()`` counts successes."""
        pred, key = _outcome_set("keep_outcomes", outcomes)
        return _Counts("keep", (self,), (pred, key))

    def drop_outcomes(self, outcomes: Any) -> MultisetExpression:
        """Drop these outcomes (a set, one outcome, or a predicate)."""
        pred, key = _outcome_set("drop_outcomes", outcomes)
        return _Counts("drop", (self,), (pred, key))

    def unique(self, n: int = 1) -> MultisetExpression:
        """Each outcome counted at most ``n`` times."""
        return _Counts("unique", (self,), require_int("unique: n", n, lo=0))

    def multiply_counts(self, n: int) -> MultisetExpression:
        """Every count times ``n`` (>= 0)."""
        return _Counts("mul", (self,), require_int("multiply_counts: n", n, lo=0))

    def keep_counts(self, comparison: str, n: int) -> MultisetExpression:
        """Keep the outcomes whose count fits ``comparison n`` (``keep_counts('>=', 2)``:
        pairs and better); the others count zero."""
        op = _comparison("keep_counts: comparison", comparison, tuple(_CMP))
        return _Counts("kc", (self,), (op, require_int("keep_counts: n", n)))

    def highest(self, keep: int = 1, drop: int = 0) -> MultisetExpression:
        """The ``keep`` highest elements after dropping the ``drop`` highest."""
        keep = require_int("highest: keep", keep, lo=0)
        drop = require_int("highest: drop", drop, lo=0)
        return _Keep(self, True, drop, drop + keep)

    def lowest(self, keep: int = 1, drop: int = 0) -> MultisetExpression:
        """The ``keep`` lowest elements after dropping the ``drop`` lowest."""
        keep = require_int("lowest: keep", keep, lo=0)
        drop = require_int("lowest: drop", drop, lo=0)
        return _Keep(self, False, drop, drop + keep)

    def middle(self, keep: int = 1, *, tie: str = "error") -> MultisetExpression:
        """The ``keep`` middle elements (the size must be known: a pool, or pools added);
        when as many cannot be dropped from each end, ``tie`` says which way to lean:
        ``'high'``, ``'low'`` or ``'error'`` (the default)."""
        keep = require_int("middle: keep", keep, lo=0)
        tie = _comparison("middle: tie", tie, ("error", "high", "low"))
        size = _size(self)
        if size is None:
            raise InvalidValueError("middle: the size of the expression is not known ahead "
                                    "(it must be a pool, or pools added together)")
        keep = min(keep, size)
        extra = size - keep
        if extra % 2 and tie == "error":
            raise InvalidValueError(f"middle({keep}) of {size} elements is not centred; "
                                    "give tie='high' or tie='low'")
        low = extra // 2 + (1 if extra % 2 and tie == "high" else 0)
        return _Keep(self, False, low, low + keep)

    # -- opposed operators ----------------------------------------------------------------
    def sort_pair(self, comparison: str, other: Any, order: str = "descending",
                  extra: str = "drop") -> MultisetExpression:
        """Sort both sides (``order``), pair them element by element, and keep this side's
        elements whose pair fits ``comparison`` (RISK: ``attack.sort_pair('>', defence)``;
        ties to the defender). ``extra``: what becomes of this side's elements left
        unpaired: ``'drop'`` (default), ``'keep'``, ``'low'``/``'high'``/``'equal'``
        (compared as lower/higher than/equal to a missing partner), ``'early'``/``'late'``
        (as before/after it in ``order``)."""
        op = _comparison("sort_pair: comparison", comparison, tuple(_CMP))
        extra = _comparison("sort_pair: extra", extra,
                            ("drop", "keep", "low", "high", "equal", "early", "late"))
        return _SortPair(self, _expr("sort_pair: other", other), op,
                         _order("sort_pair: order", order), extra)

    def max_pair_keep(self, comparison: str, other: Any,
                      priority: str | None = None) -> MultisetExpression:
        """Make as many pairs (this element, other element) fitting ``comparison`` as
        possible, then keep this side's paired elements. ``priority`` ``'low'`` or
        ``'high'``: which elements pair first (the number of pairs is the same)."""
        return self._max_pair(comparison, other, priority, True)

    def max_pair_drop(self, comparison: str, other: Any,
                      priority: str | None = None) -> MultisetExpression:
        """As :meth:`max_pair_keep`, but drop the paired elements and keep the rest: "each
        block cancels one success it is at least as high as" is
        ``successes.max_pair_drop('<=', blocks)``."""
        return self._max_pair(comparison, other, priority, False)

    def _max_pair(self, comparison: str, other: Any, priority: str | None,
                  keep: bool) -> MultisetExpression:
        name = "max_pair_keep" if keep else "max_pair_drop"
        op = _comparison(f"{name}: comparison", comparison, ("==", *_ORDERED))
        other = _expr(f"{name}: other", other)
        if priority is not None:
            priority = _comparison(f"{name}: priority", priority, ("low", "high"))
        if op == "==":
            return self.intersection(other) if keep else self.difference(other)
        return _MaxPair(self, other, op, priority, keep)

    def versus_all(self, comparison: str, other: Any) -> MultisetExpression:
        """This side's elements that fit ``comparison`` against every element of
        ``other`` (face to face: ``mine.versus_all('>', theirs)``: the dice that beat
        their best die; all of them if ``other`` is empty)."""
        op = _comparison("versus_all: comparison", comparison, _ORDERED)
        return _Versus(self, _expr("versus_all: other", other), op, True)

    def versus_any(self, comparison: str, other: Any) -> MultisetExpression:
        """This side's elements that fit ``comparison`` against at least one element of
        ``other``."""
        op = _comparison("versus_any: comparison", comparison, _ORDERED)
        return _Versus(self, _expr("versus_any: other", other), op, False)

    # -- evaluations -----------------------------------------------------------------------
    def _evaluate(self, ev: _Evaluator, *others: MultisetExpression) -> Any:
        lazy = Evaluation(ev, (self, *others))
        if _LAZY.get():
            return lazy
        return lazy.distribution()

    def count(self) -> Any:
        """Evaluation: the number of elements (icepool's ``size``). Pools filtered by
        outcome (keep/drop_outcomes, multiply_counts, added together: each die counts on
        its own) take a closed form, a polynomial power per kind of die.

        >>> from chancekit.dice import Pool, d
        >>> Pool(d(6), 3).keep_outcomes([6]).count().probability(0)
        Fraction(125, 216)
        """
        fast = _per_die_total(self, _Size())
        if fast is None:
            fast = _sort_pair_count_closed(self)
        return self._evaluate(_Size()) if fast is None else fast

    def size(self) -> Any:
        """Evaluation: the number of elements (same as :meth:`count`)."""
        return MultisetExpression.count(self)

    def sum(self, map: Callable[[Any], Any] | Mapping[Any, Any] | None = None) -> Any:
        """Evaluation: the sum of the elements (of ``map(element)`` if given); per-die
        expressions as :meth:`count` take a closed form."""
        ev = _Sum(map)
        fast = _per_die_total(self, ev)
        return self._evaluate(ev) if fast is None else fast

    def expand(self, order: str = "ascending") -> Any:
        """Evaluation: the sorted tuple of the elements (``order``: ``'ascending'`` or
        ``'descending'``). As many outcomes as multisets: keep pools small."""
        return self._evaluate(_Expand(_order("expand: order", order)))

    def largest_count(self, *, wild: Any = ()) -> Any:
        """Evaluation: the size of the largest matching set; ``wild`` faces (a set, one
        face or a predicate) count as any face, so they join the largest set.

        >>> from chancekit.dice import Pool, d
        >>> Pool(d(6), 2).largest_count(wild=6).probability(2)
        Fraction(4, 9)

        A plain pool of identical dice takes a closed form (exponential generating
        functions, as :func:`~chancekit.dice.pool.largest_set`): O(n² · F) rational
        coefficients instead of the face walk.
        """
        w = _wild(wild)
        if not _LAZY.get():
            fast = _largest_count_closed(self, w)
            if fast is not None:
                return fast
        return self._evaluate(_LargestCount(w, False))

    def largest_count_and_outcome(self, *, wild: Any = ()) -> Any:
        """Evaluation: ``(size, outcome)`` of the largest matching set (the highest outcome
        among equal sizes); ``wild`` faces join it."""
        return self._evaluate(_LargestCount(_wild(wild), True))

    def all_counts(self, filter: int | str = 1, *, wild: Any = ()) -> Any:
        """Evaluation: the sizes of all matching sets, descending, those below ``filter``
        left out (``'all'``: every face, zeros too); ``wild`` faces join the largest."""
        if filter != "all":
            filter = require_int("all_counts: filter", filter)
        return self._evaluate(_AllCounts(filter, _wild(wild)))

    def largest_straight(self) -> Any:
        """Evaluation: the length of the longest run of consecutive integers shown."""
        return self._evaluate(_LargestStraight())

    def all_straights(self) -> Any:
        """Evaluation: the lengths of all straights, descending (each element in one
        straight; duplicates make overlapping straights, the longer ones first). A plain
        pool of identical dice takes a closed form over the levels of the straights
        (:func:`_all_straights_closed`), about 10 times fewer steps than the face walk.

        >>> from chancekit.dice import Pool, d
        >>> Pool(d(6), 3).all_straights().probability((3,))
        Fraction(1, 9)
        """
        fast = _all_straights_closed(self)
        return self._evaluate(_AllStraights()) if fast is None else fast

    def highest_outcome_and_count(self) -> Any:
        """Evaluation: ``(highest outcome, its count)``; ``(lowest face, 0)`` if empty."""
        return self._evaluate(_HighestOutcome())

    def count_subset(self, divisor: Any, *, empty_divisor: int | None = None) -> Any:
        """Evaluation: how many times ``divisor`` is contained in this multiset (an empty
        divisor gives ``empty_divisor``, or an error if it is not set)."""
        if empty_divisor is not None:
            empty_divisor = require_int("empty_divisor", empty_divisor)
        return self._evaluate(_CountSubset(empty_divisor), _expr("count_subset", divisor))

    def issubset(self, other: Any) -> Any:
        """Evaluation: every count at most ``other``'s."""
        return self._evaluate(_Compare("sub"), _expr("issubset", other))

    def issuperset(self, other: Any) -> Any:
        """Evaluation: every count at least ``other``'s."""
        return self._evaluate(_Compare("sup"), _expr("issuperset", other))

    def isdisjoint(self, other: Any) -> Any:
        """Evaluation: no outcome in both."""
        return self._evaluate(_Compare("disjoint"), _expr("isdisjoint", other))

    def leximax(self, comparison: str, other: Any, extra: str = "high") -> Any:
        """Evaluation: compare both sides sorted descending, element by element (the first
        difference decides); 1 if ``comparison`` holds, else 0 (``'cmp'``: -1, 0 or 1).
        ``extra``: a side's elements past the other's end count as ``'high'`` or
        ``'low'``; with ``'drop'`` the outcome is 0 when the first difference is such an
        element (icepool's meaning)."""
        return self._lexi(comparison, other, extra, _DESC)

    def leximin(self, comparison: str, other: Any, extra: str = "high") -> Any:
        """Evaluation: as :meth:`leximax`, sorted ascending."""
        return self._lexi(comparison, other, extra, _ASC)

    def _lexi(self, comparison: str, other: Any, extra: str, order: str) -> Any:
        op = _comparison("comparison", comparison, (*_CMP, "cmp"))
        extra = _comparison("extra", extra, ("high", "low", "drop"))
        return self._evaluate(_Lexi(op, extra, order), _expr("lexi: other", other))


def _largest_count_closed(e: MultisetExpression,
                          wild: tuple[Callable[[Any], bool], Any] | None) -> Any:
    """``largest_count`` (wild faces joining the largest set) of ``n`` identical dice in
    closed form, or None when ``e`` is not such a pool. With ``k`` wild dice and the other
    ``m = n - k`` on the other faces (weights ``q_f``), the weight of "no face more than
    ``t`` times" is ``m! [x^m] Π_f Σ_{j<=t} (q_f x)^j / j!``: one truncated product per
    ``t`` gives it for every ``m`` at once. Estimated and charged like the walk."""
    plain = e._plain()
    if plain is None or plain[1] == 0:
        return None
    from chancekit import _exact as flint

    die, n = plain
    pred = (lambda x: False) if wild is None else wild[0]
    p_wild = sum(w for f, w in die.weights.items() if pred(f))
    by_weight = Counter(w for f, w in die.weights.items() if not pred(f))
    bits = n * (n * die.total).bit_length()
    # the truncated powers grow with the faces too (measured on 200 dice of 2..100 faces,
    # 2026-11-27: 0.7 to 2.2 times the estimate without the last factor)
    faces = sum(by_weight.values())
    work = (20 * (n + 1) * max(len(by_weight), 1) * n * (bits // 64 + 1)
            * (5 + faces.bit_length()) // 5)
    limits.refuse_past_budget(work, f"the largest set of {n} dice with wild faces",
                              "use fewer dice")
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        limits.charge(work, f"the largest set of {n} dice")
        limits.count(work)
    fact = [math.factorial(i) for i in range(n + 1)]
    # at_most[t][m]: weight of m non-wild dice with no face shown more than t times
    at_most: list[list[int]] = []
    for t in range(n + 1):
        poly = flint.fmpq_poly([1])
        for w, mult in by_weight.items():
            base = flint.fmpq_poly([flint.fmpq(w**j, fact[j]) for j in range(t + 1)])
            poly = poly.mul_low(base.pow_trunc(mult, n + 1), n + 1)
        coeffs = poly.coeffs()
        row = []
        for m in range(n + 1):
            c = coeffs[m] if m < len(coeffs) else flint.fmpq(0)
            row.append(int(c.p) * (fact[m] // int(c.q)) if c != 0 else 0)
        at_most.append(row)
    out: dict[Any, int] = {}
    for k in range(n + 1):  # k wild dice
        m = n - k
        ways = math.comb(n, k) * p_wild**k
        if not ways:
            continue
        prev = 0
        for t in range(m + 1):
            cur = at_most[t][m] if m else 1
            if cur != prev:
                out[t + k] = out.get(t + k, 0) + ways * (cur - prev)
            prev = cur
    return Distribution._raw(out)


def _sort_pair_count_closed(e: MultisetExpression) -> Distribution | None:
    """``count()`` of ``a.sort_pair(op, b)`` for two plain pools (``n`` identical dice
    each) and an ordered comparison, or None otherwise: a walk of its own over (dice of
    ``a`` read, dice of ``b`` read), the kept count riding in a packed weight as in
    :func:`~chancekit.dice.facewalk.face_walk_packed`. Each face is read in two half
    steps, one side's dice then the other's: with ``op`` one of ``<``, ``<=``, ``>``,
    ``>=`` a tie counts as "partner earlier" or as "partner later", so whether one of
    ``a``'s dice is kept depends only on how many of ``b``'s dice came before it (read
    first when a tie counts as earlier, after when it counts as later). That makes
    O(F · (n_a+1)(n_b+1) · (n_a+n_b+2)) packed-integer steps instead of the general walk's
    O(F · (n_a+1)²(n_b+1)²): RISK 10 v 10 does about 8,700 instead of 26,000. The same
    numbers as the general walk (tests/dice/test_multiset_brute.py compares them)."""
    if _LAZY.get() or not isinstance(e, _SortPair) or e.op not in _ORDERED:
        return None
    pa, pb = e.kids[0]._plain(), e.kids[1]._plain()
    if pa is None or pb is None:
        return None
    (da, na), (db, nb) = pa, pb
    earlier, tie, later, xres = e._results(e.sort)
    if tie == earlier:
        b_first = True
    elif tie == later:
        b_first = False
    else:  # pragma: no cover - every ordered comparison is one of the two
        return None
    try:
        faces = sorted(set(da.outcomes()) | set(db.outcomes()), reverse=e.sort == _DESC)
    except TypeError:
        return None  # the general walk names the faces that do not compare
    facewalk._check_dice(na + nb)
    n_faces = len(faces)
    weight_bits = na * da.total.bit_length() + nb * db.total.bit_length() + 1
    width = (weight_bits + 8) // 8 * 8
    work = (n_faces * (na + 1) * (nb + 1) * (na + nb + 2) * facewalk.STEP_WORK
            * ((na + 1) * width // 64 + 1))
    limits.refuse_past_budget(work, "this pool evaluation (sort_pair, count)",
                              "use fewer dice or faces (--max-work / limits.evaluation "
                              "lifts the budget)")
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        limits.charge(work, "this pool evaluation (sort_pair, count)")
        limits.count(work)
    comb = [[math.comb(r, k) for k in range(r + 1)] for r in range(max(na, nb) + 1)]
    wa_all, wb_all = da.weights, db.weights
    nb1 = nb + 1
    # kept[ua][u]: shifts (kept count x width) of a's dice ua .. ua+ka-1 for ka = 0..,
    # when u of b's dice come before them (partner index < u: earlier; >= u: later)
    kept_tab = []
    for ua in range(na + 1):
        row = []
        for u in range(nb + 1):
            shifts = [0]
            acc = 0
            for i in range(ua, na):
                acc += xres if i >= nb else (earlier if i < u else later)
                shifts.append(acc * width)
            row.append(shifts)
        kept_tab.append(row)
    size = (na + 1) * nb1
    cur: list[int] = [0] * size
    cur[0] = 1
    for fi, f in enumerate(faces):
        last = fi == n_faces - 1
        wa, wb = wa_all.get(f, 0), wb_all.get(f, 0)
        for phase in ((0, 1) if b_first else (1, 0)):
            nxt = [0] * size
            if phase == 0:  # b's dice at this face
                pw = [wb**k for k in range(nb + 1)]
                for idx, wt in enumerate(cur):
                    if not wt:
                        continue
                    ub = idx % nb1
                    r = nb - ub
                    if last:
                        if r == 0 or wb:
                            nxt[idx + r] += wt * pw[r]
                        continue
                    if not wb:
                        nxt[idx] += wt
                        continue
                    row = comb[r]
                    for k in range(r + 1):
                        nxt[idx + k] += wt * (row[k] * pw[k])
            else:  # a's dice, the kept ones shifting the packed count
                pw = [wa**k for k in range(na + 1)]
                for idx, wt in enumerate(cur):
                    if not wt:
                        continue
                    ua, ub = divmod(idx, nb1)
                    r = na - ua
                    shifts = kept_tab[ua][ub]
                    if last:
                        if r == 0 or wa:
                            nxt[idx + r * nb1] += (wt * pw[r]) << shifts[r]
                        continue
                    if not wa:
                        nxt[idx] += wt
                        continue
                    row = comb[r]
                    for k in range(r + 1):
                        nxt[idx + k * nb1] += (wt * (row[k] * pw[k])) << shifts[k]
            cur = nxt
    return _unpack(cur[-1], width, [na + 1], lambda outs: outs[0])


#: work units of one (term, term) product of the straights closed form per 64-bit word of
#: its integers, in the loose bound (:func:`_straights_work`)
_STRAIGHTS_PAIR_WORK = 10
#: the most faces, and the most dice, the straights closed form takes (past either: the
#: face walk, whose estimate made before it starts refuses what is past the budget)
_STRAIGHTS_MOST = 64
#: work units of one item (a product of terms, a term copied) the straights closed form
#: makes, counted by its dry run (:func:`_straights_item_units`): a fixed part, a part per
#: die per face (fewer faces: fewer terms per product, so more big-integer operations per
#: term) and a part per 16 words of its integers. The dry run is in the price: it makes
#: the same products on small integers (a quarter to half the time of the real run).
#: Measured with the dry run (2026-11-27, 2-core project machine): 28-33 ns an item on
#: 26d10..30d10 and 22d20, 117-142 on 42d6..60d6, 190 on 64d5, 420-650 on 64d4..64d2
_STRAIGHTS_ITEM_WORK = 2
class _PastBudget(Exception):
    """The dry run of the straights closed form counted past the budget (internal)."""


def _straights_work(n: int, ws: tuple[int, ...], total: int) -> int:
    """A loose upper bound of the work units of :func:`_all_straights_closed`: its pairs of
    terms (:func:`_straights_pairs`) at the price of one (:func:`_straights_pair_units`);
    when it passes the budget the closed form counts its products exactly by a dry run
    (:func:`_straights_counted`) instead. O(levels x lengths x dice) integer operations."""
    return _straights_pairs(n, ws) * _straights_pair_units(n, len(ws), total)


def _straights_words(n: int, n_faces: int, total: int) -> int:
    """The size in 64-bit words of the closed form's integers (weights x n!^faces)."""
    return (n * total.bit_length() + n_faces * math.factorial(n).bit_length()) // 64 + 1


def _straights_pair_units(n: int, n_faces: int, total: int) -> int:
    """The work units of one product of terms in the loose bound: their size in words."""
    return _STRAIGHTS_PAIR_WORK * _straights_words(n, n_faces, total)


def _straights_item_units(n: int, n_faces: int, total: int) -> int:
    """The work units of one item the dry run counts: :data:`_STRAIGHTS_ITEM_WORK`, 1.2 a
    die per face, 1 per 16 words of the integers (60d6: 15 units, 300 ns, for 142 ns
    measured; 64d2: 40 units for 650 ns; 26d10: 5 units for 33 ns)."""
    return (_STRAIGHTS_ITEM_WORK + 6 * n // (5 * n_faces)
            + _straights_words(n, n_faces, total) // 16)


def _straights_pairs(n: int, ws: tuple[int, ...]) -> int:
    """An upper bound of the pairs of terms :func:`_all_straights_closed` multiplies for
    ``n`` dice whose faces weigh ``ws``: per (level, interval length m), the distinct
    intervals (one for a die of equal weights) x the splits (m², or the multisets of bar
    lengths) x the pairs of terms whose dice add up to at most what is left (terms of d
    dice: the partitions of d into parts <= m). Loose (20 to 3,000 times the products
    made): only the bound under which no dry run is needed."""
    n_faces = len(ws)
    top = min(n_faces, n)
    # p[m][d]: partitions of d into parts <= m
    p = [[1] + [0] * n]
    for m in range(1, top + 1):
        row = p[-1][:]
        for d in range(m, n + 1):
            row[d] += row[d - m]
        p.append(row)
    cum = [list(itertools.accumulate(row)) for row in p]  # partitions of <= d
    back = [row[::-1] for row in cum]  # back[m][n - d] = cum[m][d]

    def pairs(dice: int, m: int) -> int:
        m = min(m, top)
        return sum(map(operator.mul, p[m][:dice + 1], back[m][n - dice:]))

    def splits(m: int) -> int:
        return m * m + cum[min(m, top)][min(m, n)]

    work = splits(n_faces) * pairs(n, n_faces)
    equal = len(set(ws)) == 1
    for m in range(1, min(n_faces, n) + 1):
        intervals = 1 if equal else len({ws[i:i + m] for i in range(n_faces - m + 1)})
        for j in range(2, n // m + 2):
            work += intervals * splits(m) * pairs(n - (j - 1) * m, m)
    return work


def _straights_setup(n: int, n_faces: int) -> tuple[int, dict[int, int], list[int]]:
    """(span, place, bar_key) of the closed form's keys: dice used x span + the number of
    bars of each length 2.. (mixed radix, ``place[length]``)."""
    place: dict[int, int] = {}
    span = 1
    for length in range(2, min(n_faces, n) + 1):
        place[length] = span
        span *= n // length + 1
    bar_key = [0] + [m * span + place.get(m, 0) for m in range(1, n_faces + 1)]
    return span, place, bar_key


def _straights_counted(n: int, ws: tuple[int, ...], equal: bool, most: int) -> int:
    """The items (products of terms, terms copied) :func:`_all_straights_closed` makes,
    counted exactly by a dry run of the same code on small integers: the weights replaced
    by their ranks (the same zeros and the same equal intervals, so the same terms) and
    the factorials by 1. Raises :class:`_PastBudget` as soon as the count passes ``most``,
    so the count costs at most about half the work it refuses."""
    rank = {w: i + 1 for i, w in enumerate(sorted(set(ws) - {0}))}
    small = tuple(rank.get(w, 0) for w in ws)
    span, _, bar_key = _straights_setup(n, len(ws))
    done = [0]

    def count(items: int) -> None:
        done[0] += items
        if done[0] > most:
            raise _PastBudget
    _straights_whole(n, small, equal, span, bar_key, [0] + [1] * (n + 1), count)
    return done[0]


def _all_straights_closed(e: MultisetExpression, *, intervals: bool = False
                          ) -> Distribution | None:
    """``all_straights`` of ``n`` identical dice with integer faces in closed form, or None
    when ``e`` is not such a pool (past 64 dice or 64 faces: the face walk, whose estimate
    refuses up front what is past the budget).

    Level by level instead of face by face. With exponential generating functions the
    weight of a count vector ``c``, ``n! Π_f w_f^c_f / c_f!``, splits into a factor
    ``w_f / j`` per level ``j <= c_f`` of each face, and the straights are the maximal runs
    of each level: bars nested in the bars one level down. So a bar of level ``j`` over an
    interval is its weight times an arrangement of level ``j+1`` bars inside it (disjoint,
    not adjacent), and the answer is the arrangement of level-1 bars on the whole face
    range: a recursion over (level, interval) whose values are polynomials in the bar
    lengths (dicts: key = dice used and the number of bars of each length >= 2, additive
    under the union of multisets; the bars of length 1 follow from the dice used). The
    ``1/j`` factors are kept whole by counting each face ``n!/c_f!`` (a position left
    uncovered at level ``j`` gives ``n!/(j-1)!``) and dividing by ``n!^(F-1)`` at the end.
    Equal weights (a standard die) make every interval of a length alike: an arrangement
    is then a sum over the multisets of bar lengths (placements counted), and on the whole
    range only the terms using all ``n`` dice are formed, bottom up
    (:func:`_straights_equal`). 8d6: about 160 products of terms where the face walk
    makes 1,600 steps over 700 distinct states. ``intervals``: the recursion over
    intervals even for equal weights (the tests compare the two).

    Work, estimated before any product is made: under the budget by a loose bound
    (:func:`_straights_work`, O(levels x lengths x dice)); past it by counting the
    products exactly with a dry run on small integers (:func:`_straights_counted`),
    which stops as soon as the count passes the budget: 64d6 is refused after about
    0.2 s of counting, 36d6 is answered."""
    if _LAZY.get():
        return None
    plain = e._plain()
    if plain is None or plain[1] == 0:
        return None
    die, n = plain
    faces = die.outcomes()
    if not all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
        return None
    lo, hi = min(faces), max(faces)
    if hi - lo >= _STRAIGHTS_MOST or n > _STRAIGHTS_MOST:
        return None  # the face walk, which estimates and refuses on its own
    ws = tuple(die.weights.get(f, 0) for f in range(lo, hi + 1))
    n_faces = len(ws)
    equal = len(set(ws)) == 1 and not intervals
    what = f"all_straights of {n} dice with {n_faces} faces"
    work = _straights_work(n, ws, die.total)
    most = limits.work_limit()
    if work > most:  # the loose bound is past the budget: count the products exactly
        unit = _straights_item_units(n, n_faces, die.total)
        try:
            work = _straights_counted(n, ws, equal, most // unit) * unit
        except _PastBudget:
            raise LimitError(
                f"{what} needs more than {most:,} units of work (the MAX_WORK budget; its "
                "products counted before any is made); use fewer dice or faces "
                "(--max-work / limits.evaluation lifts the budget)", limit="MAX_WORK",
                value=most + 1) from None
        limits.refuse_past_budget(work, what, "use fewer dice or faces (--max-work / "
                                  "limits.evaluation lifts the budget)")
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        limits.charge(work, f"this pool evaluation ({what})")
        limits.count(work)
    span, place, bar_key = _straights_setup(n, n_faces)
    fn = math.factorial(n)
    uncovered = [0] + [fn // math.factorial(j - 1) for j in range(1, n + 2)]
    whole = _straights_whole(n, ws, equal, span, bar_key, uncovered, lambda items: None)
    div = fn ** (n_faces - 1)
    res: dict[Any, int] = {}
    for k, c in whole.items():
        used, rest = divmod(k, span)
        if used != n or not c:
            continue
        lens: list[int] = []
        for length in range(max(place, default=1), 1, -1):
            count, rest = divmod(rest, place[length])
            lens += [length] * count
        lens += [1] * (n - sum(lens))
        res[tuple(lens)] = c // div
    return Distribution._raw(res)


def _straights_whole(n: int, ws: tuple[int, ...], equal: bool, span: int,
                     bar_key: list[int], uncovered: list[int],
                     charge: Callable[[int], None]) -> dict[int, int]:
    """The level-1 arrangement of :func:`_all_straights_closed` over the faces weighing
    ``ws`` (``equal``: all alike, :func:`_straights_equal`; else the recursion over
    intervals). ``charge(items)`` is told every product of terms before it is made (the
    dry run counts them)."""
    n_faces = len(ws)
    if equal:
        return _straights_equal(n, n_faces, ws[0], span, bar_key, uncovered, charge)
    g_memo: dict[tuple[int, tuple[int, ...]], dict[int, int]] = {}
    t_memo: dict[tuple[int, tuple[int, ...]], dict[int, int]] = {}
    top = ws

    def bar(j: int, w: tuple[int, ...]) -> dict[int, int]:
        """One bar of level j over positions w, with everything nested in it."""
        key = (j, w)
        got = t_memo.get(key)
        if got is None:
            m = len(w)
            if j * m > n or 0 in w:
                got = {}
            else:
                kb = bar_key[m]
                weight = math.prod(w)
                inner = arrange(j + 1, w)
                charge(len(inner))
                got = {k + kb: c * weight for k, c in inner.items()}
            t_memo[key] = got
        return got

    def arrange(j: int, w: tuple[int, ...]) -> dict[int, int]:
        """The arrangements of level-j bars over positions w (all at level >= j-1), at most
        n - (j-1)·len(w) dice; on the whole range (j == 1) exactly n."""
        key = (j, w)
        got = g_memo.get(key)
        if got is None:
            got = g_memo[key] = _arrange_any(j, w, j == 1 and w is top)
        return got

    idx_memo: dict[Any, Any] = {}

    def by_degree(j: int, w: tuple[int, ...], t: dict[int, int]
                  ) -> dict[int, list[tuple[int, int]]]:
        """A bar's terms by the dice they use (for the joins that must use all n)."""
        key = ("d", j, w)
        got = idx_memo.get(key)
        if got is None:
            got = idx_memo[key] = {}
            for k, c in t.items():
                got.setdefault(k // span, []).append((k, c))
        return got  # type: ignore[no-any-return]

    def sorted_items(j: int, w: tuple[int, ...], t: dict[int, int]) -> list[tuple[int, int]]:
        """A bar's terms by key, so a product stops at the first past the dice left."""
        key = ("s", j, w)
        got = idx_memo.get(key)
        if got is None:
            got = idx_memo[key] = sorted(t.items())
        return got  # type: ignore[no-any-return]

    def _arrange_any(j: int, w: tuple[int, ...], exact: bool) -> dict[int, int]:
        m = len(w)
        lim = (n - (j - 1) * m + 1) * span
        u = uncovered[j]
        before = [{0: 1}]  # before[s]: prefixes of length s whose last position is free
        acc: dict[int, int] = {0: 1}
        for p in range(1, m + 1):
            charge(len(acc))
            free = {k: c * u for k, c in acc.items()}
            last = exact and p == m
            acc = {k: c for k, c in free.items() if k // span == n} if last else dict(free)
            get = acc.get
            for s in range(max(0, p - n // j), p):
                t = bar(j, w[s:p])
                if not t:
                    continue
                charge(len(before[s]) * len(t))
                if last:
                    idx = by_degree(j, w[s:p], t)
                    for k1, c1 in before[s].items():
                        for k2, c2 in idx.get(n - k1 // span, ()):
                            k = k1 + k2
                            acc[k] = get(k, 0) + c1 * c2
                    continue
                items = sorted_items(j, w[s:p], t)
                for k1, c1 in before[s].items():
                    room = lim - k1
                    for k2, c2 in items:
                        if k2 >= room:
                            break
                        k = k1 + k2
                        acc[k] = get(k, 0) + c1 * c2
            before.append(free)
        return acc

    return arrange(1, top)


def _straights_equal(n: int, n_faces: int, w: int, span: int, bar_key: list[int],
                     uncovered: list[int], charge: Callable[[int], None]
                     ) -> dict[int, int]:
    """The level-1 arrangement of :func:`_all_straights_closed` on ``n_faces`` faces of
    equal weight ``w``, bottom up: a bar depends only on its (level, length), computed from
    the highest level down; an arrangement of level-``j`` bars on ``m`` positions is a sum
    over the multisets of bar lengths (longest first, an explicit stack): ``C(free+1, r)``
    placements of ``r`` bars with ``free`` uncovered positions, times ``r!/Π mult!`` for
    the orders of the lengths. On the whole range only the terms using all ``n`` dice."""
    stride = n_faces + 1
    bars: dict[int, list[tuple[int, int]]] = {}
    indexed: dict[int, dict[int, list[tuple[int, int]]]] = {}
    comb = math.comb

    def arrange(j: int, m: int, exact: bool) -> dict[int, int]:
        u = uncovered[j]
        avail = n - (j - 1) * m  # dice left for levels >= j
        lim = (avail + 1) * span
        out: dict[int, int] = {} if exact else {0: u**m}
        if m == 1 and not exact:  # one position: free, or one bar of length 1
            one = bars.get(j * stride + 1, ())
            charge(len(one))
            for k, c in one:
                if k < lim:
                    out[k] = c
            return out
        get = out.get
        stack: list[Any] = [(min(m, n // j, avail), None, 0, 0, 0, 0)]
        while stack:
            longest, partial, covered, r, mult, last = stack.pop()
            for length in range(min(longest, m - covered - r), 0, -1):
                t = bars.get(j * stride + length)
                if not t:
                    continue
                rr = r + 1
                same = mult + 1 if length == last else 1
                cov = covered + length
                free = m - cov
                ways = comb(free + 1, rr) * u**free
                grow = cov + rr < m  # room for a gap and one more bar
                if partial is None:  # the first bar: the product is the bar itself
                    charge(len(t))
                    if t[-1][0] >= lim:
                        t = [kc for kc in t if kc[0] < lim]
                    for k, c in t:
                        if not exact or k // span == n:
                            out[k] = get(k, 0) + c * ways
                    if grow and t:
                        stack.append((length, dict(t), cov, rr, same, length))
                    continue
                # c1 * rr // same is whole: the multinomial of the bar lengths so far
                charge(len(partial) * (len(t) + 2))
                if exact:
                    idx = indexed.get(j * stride + length)
                    if idx is None:
                        idx = indexed[j * stride + length] = {}
                        for k2, c2 in t:
                            idx.setdefault(k2 // span, []).append((k2, c2))
                    for k1, c1 in partial.items():
                        got = idx.get(n - k1 // span)
                        if got:
                            c1 = c1 * rr // same * ways
                            for k2, c2 in got:
                                k = k1 + k2
                                out[k] = get(k, 0) + c1 * c2
                    if not grow:
                        continue
                nxt: dict[int, int] = {}
                nget = nxt.get
                for k1, c1 in partial.items():
                    room = lim - k1
                    c1 = c1 * rr // same
                    for k2, c2 in t:
                        if k2 >= room:
                            break
                        k = k1 + k2
                        nxt[k] = nget(k, 0) + c1 * c2
                charge(len(nxt))
                if not exact:
                    for k, c in nxt.items():
                        out[k] = get(k, 0) + c * ways
                if grow and nxt:
                    stack.append((length, nxt, cov, rr, same, length))
        return out

    for j in range(n, 0, -1):
        for length in range(1, min(n_faces, n // j) + 1):
            kb, wl = bar_key[length], w**length
            if n - j * length < 1:  # no dice left for a bar one level up
                bars[j * stride + length] = [(kb, uncovered[j + 1]**length * wl)]
                continue
            inner = arrange(j + 1, length, False)
            charge(len(inner))
            bars[j * stride + length] = sorted([(k + kb, c * wl) for k, c in inner.items()])
    return arrange(1, n_faces, True)

def _per_die(e: MultisetExpression) -> list[tuple[Distribution, int, Callable[[Any], int]]
                                           ] | None:
    """(die, copies, multiplicity of a face) for an expression whose every die counts on
    its own (pools, keep/drop_outcomes, multiply_counts, additive unions of them), else
    None."""
    if isinstance(e, _Dice):
        return [(x, 1, lambda f: 1) for x in e.dice]
    dice = e._leaf_dice() if not isinstance(e, _Node | _Fixed) else None
    if dice is not None:
        return [(x, n, lambda f: 1) for x, n in facewalk._group(dice)]
    if not isinstance(e, _Counts) or e.kind not in ("add", "keep", "drop", "mul"):
        return None
    parts = [_per_die(k) for k in e.kids]
    if any(p is None for p in parts):
        return None
    if e.kind == "add":
        return [x for p in parts for x in p]  # type: ignore[union-attr]
    inner = parts[0]
    assert inner is not None
    if e.kind == "mul":
        m = e.param
        return [(x, n, lambda f, g=g: g(f) * m) for x, n, g in inner]
    pred = e.param[0]
    keep = e.kind == "keep"
    return [(x, n, lambda f, g=g: g(f) if pred(f) == keep else 0) for x, n, g in inner]


def _per_die_total(e: MultisetExpression, ev: _Evaluator) -> Distribution | None:
    """count() or sum() of a per-die expression (:func:`_per_die`) in closed form: each
    kind of die mapped to what it adds, then ``n @ die`` (a polynomial power) and the
    kinds added. None when not per-die, inside a multiset_function, or not numbers."""
    if _LAZY.get():
        return None
    parts = _per_die(e)
    if parts is None:
        return None
    from chancekit.dice.distribution import constant

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        ones = []
        for die, n, g in parts:
            def value(f: Any, g: Callable[[Any], int] = g) -> Any:
                if not isinstance(ev, _Sum):
                    return g(f)
                k = g(f)
                return k * (f if ev.fn is None else ev.fn(f)) if k else 0
            try:
                one = die.map(value)
            except (TypeError, ArithmeticError):
                return None
            if not one._int:
                return None
            ones.append((n, one))
        # look ahead: the powers' work (each charged as it starts), so that a pool whose
        # powers pass the budget is refused before the first of them
        ahead = 0
        for n, one in ones:
            if n > 1:
                outs = one.outcomes()
                width = outs[-1] - outs[0]
                ahead += limits.power_work(width + 1, n * width + 1,
                                           n * one.total.bit_length())
        limits.check(ahead, f"summing the {sum(n for n, _ in ones)} dice of the pool")
        total: Distribution | None = None
        for n, one in ones:
            part = n @ one
            total = part if total is None else total + part
    return constant(0) if total is None else total


def _wild(spec: Any) -> tuple[Callable[[Any], bool], Any] | None:
    if isinstance(spec, tuple | list | set | frozenset) and not spec:
        return None
    return _outcome_set("wild", spec)


class _Leaf(MultisetExpression):
    __slots__ = ()


class _Dice(_Leaf):
    """Some dice (Distributions), rolled once."""

    __slots__ = ("dice",)

    def __init__(self, dice: tuple[Distribution, ...]) -> None:
        self.dice = dice

    def __repr__(self) -> str:
        return f"_Dice({list(self.dice)!r})"


class _Fixed(_Leaf):
    """A fixed multiset (outcome -> count)."""

    __slots__ = ("counts",)

    def __init__(self, counts: dict[Any, int]) -> None:
        self.counts = {k: v for k, v in counts.items() if v}

    def _key(self) -> Any:
        return ("fixed", tuple(sorted(self.counts.items(), key=repr)))

    def __repr__(self) -> str:
        return f"_Fixed({self.counts!r})"


class _Node(MultisetExpression):
    """An operator over child expressions (evaluated face by face)."""

    __slots__ = ("kids",)
    kids: tuple[MultisetExpression, ...]
    stateful = False

    def _children(self) -> tuple[MultisetExpression, ...]:
        return self.kids

    def _params(self) -> Any:
        return ()

    def _key(self) -> Any:
        return (type(self).__name__, self._params(), tuple(k._key() for k in self.kids))

    def size(self) -> Any:  # the evaluation (MultisetExpression.size)
        return self.count()

    def allowed(self, sizes: list[int | None]) -> set[str]:
        """The walk orders this operator supports given its children's sizes."""
        return {_DESC, _ASC}

    def states(self, sizes: list[int], known: list[bool]) -> int:
        """An upper bound of this operator's states once the dice read of each kind are
        known: its inputs hold at most ``sizes`` elements, and ``known[j]``: how many
        elements input ``j`` has read follows from the dice read (a pool, pools added)."""
        return 1

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}{self._params()!r}{self.kids!r}"


class _Counts(_Node):
    """A stateless count combinator."""

    __slots__ = ("kind", "param")

    def __init__(self, kind: str, kids: tuple[MultisetExpression, ...], param: Any = None
                 ) -> None:
        self.kind, self.kids, self.param = kind, kids, param

    def _params(self) -> Any:
        p = self.param
        if self.kind in ("keep", "drop"):
            p = p[1]
        return (self.kind, p)

    def fn(self) -> Callable[[Any, list[int]], int]:
        kind, p = self.kind, self.param
        if kind == "add":
            return lambda f, c: sum(c)
        if kind == "sub":
            return lambda f, c: max(c[0] - sum(c[1:]), 0)
        if kind == "and":
            return lambda f, c: min(c)
        if kind == "or":
            return lambda f, c: max(c)
        if kind == "xor":
            return lambda f, c: abs(c[0] - c[1])
        if kind == "keep":
            pred = p[0]
            return lambda f, c: c[0] if pred(f) else 0
        if kind == "drop":
            pred = p[0]
            return lambda f, c: 0 if pred(f) else c[0]
        if kind == "unique":
            return lambda f, c: min(c[0], p)
        if kind == "mul":
            return lambda f, c: c[0] * p
        op, n = p
        cmp = _CMP[op]
        return lambda f, c: c[0] if cmp(c[0], n) else 0


class _Param(_Counts):
    """A multiset_function's argument: one roll, however often the function reads it."""

    __slots__ = ()

    def __init__(self, e: MultisetExpression) -> None:
        super().__init__("add", (e,))


class _Keep(_Node):
    """Positions ``[start, stop)`` of the sorted elements, counted from the top (``top``)
    or from the bottom."""

    __slots__ = ("start", "stop", "top")
    stateful = True

    def __init__(self, child: MultisetExpression, top: bool, start: int, stop: int) -> None:
        self.kids, self.top, self.start, self.stop = (child,), top, start, stop

    def _params(self) -> Any:
        return (self.top, self.start, self.stop)

    def allowed(self, sizes: list[int | None]) -> set[str]:
        return {_DESC, _ASC} if sizes[0] is not None else {_DESC if self.top else _ASC}

    def states(self, sizes: list[int], known: list[bool]) -> int:
        return 1 if known[0] else min(self.stop, sizes[0]) + 1

    def make(self, order: str, sizes: list[int | None]) -> tuple[Any, Callable[..., Any]]:
        start, stop = self.start, self.stop
        if (order == _DESC) != self.top:  # walk from the other end: positions mirrored
            n = sizes[0]
            assert n is not None
            start, stop = max(n - stop, 0), max(n - start, 0)

        def step(seen: int, f: Any, c: list[int]) -> tuple[int, int]:
            k = c[0]
            kept = min(seen + k, stop) - max(seen, start)
            return min(seen + k, stop), (kept if kept > 0 else 0)
        return 0, step, (lambda seen: seen >= stop)


class _SortPair(_Node):
    __slots__ = ("extra", "op", "sort")
    stateful = True

    def __init__(self, a: MultisetExpression, b: MultisetExpression, op: str, sort: str,
                 extra: str) -> None:
        self.kids, self.op, self.sort, self.extra = (a, b), op, sort, extra

    def _params(self) -> Any:
        return (self.op, self.sort, self.extra)

    def _results(self, order: str) -> tuple[int, int, int, int]:
        """Whether this side's element is kept when its partner comes (earlier, at the same
        face, later) in the walk, and when it has none."""
        cmp = _CMP[self.op]
        # a vs b: partner earlier in a descending walk means b > a
        earlier = cmp(0, 1) if order == _DESC else cmp(1, 0)
        later = cmp(1, 0) if order == _DESC else cmp(0, 1)
        tie = cmp(0, 0)
        extra = self.extra
        if extra == "early":
            extra = "high" if self.sort == _DESC else "low"
        elif extra == "late":
            extra = "low" if self.sort == _DESC else "high"
        x = {"drop": False, "keep": True, "low": cmp(0, 1), "high": cmp(1, 0),
             "equal": tie}[extra]
        return int(earlier), int(tie), int(later), int(x)

    def allowed(self, sizes: list[int | None]) -> set[str]:
        out = set()
        for order in (_DESC, _ASC):
            if order == self.sort:
                _, _, later, x = self._results(order)
                if later == x or sizes[1] is not None:
                    out.add(order)
            elif sizes[0] is not None and sizes[1] is not None:
                out.add(order)
        return out

    def states(self, sizes: list[int], known: list[bool]) -> int:
        # the elements read of each side (or only their difference)
        return (1 if known[0] else sizes[0] + 1) * (1 if known[1] else sizes[1] + 1)

    def make(self, order: str, sizes: list[int | None]) -> tuple[Any, Callable[..., Any]]:
        earlier, tie, later, xres = self._results(order)
        sa, sb = sizes
        if order == self.sort and (later == xres or sb is None):
            # only the lead (this side's elements read minus the other's) matters
            def step_lead(lead: int, f: Any, c: list[int]) -> tuple[int, int]:
                ka, kb = c
                # this side's new elements: relative indices lead .. lead+ka-1 vs kb
                before = min(max(-lead, 0), ka)  # partner already read
                lo = max(lead, 0)
                ties = max(min(kb, lead + ka) - lo, 0) if lead < kb else 0
                after = ka - before - ties
                return lead + ka - kb, before * earlier + ties * tie + after * later
            return 0, step_lead, None
        forward = order == self.sort
        assert sb is not None

        def step(st: tuple[int, int], f: Any, c: list[int]) -> tuple[tuple[int, int], int]:
            ua, ub = st
            ka, kb = c
            kept = 0
            for j in range(ua, ua + ka):
                i = j if forward else sa - 1 - j  # type: ignore[operator]
                if i >= sb or i < 0:
                    kept += xres
                    continue
                pb = i if forward else sb - 1 - i
                kept += earlier if pb < ub else (tie if pb < ub + kb else later)
            return (ua + ka, ub + kb), kept
        return (0, 0), step, None


class _MaxPair(_Node):
    __slots__ = ("keep", "op", "priority")
    stateful = True

    def __init__(self, a: MultisetExpression, b: MultisetExpression, op: str,
                 priority: str | None, keep: bool) -> None:
        self.kids, self.op, self.priority, self.keep = (a, b), op, priority, keep

    def _params(self) -> Any:
        return (self.op, self.priority, self.keep)

    def _plan(self) -> tuple[str, bool, bool]:
        """(order, pair_equal, early) as icepool's MultisetMaxPairLate/Early."""
        def lexi(order: str) -> tuple[int, int, int]:
            left_first, tie, right_first = {
                "<=": (1, 1, 0), "<": (1, 0, 0), ">=": (0, 1, 1), ">": (0, 0, 1)}[self.op]
            if order == _DESC:
                left_first, right_first = right_first, left_first
            return left_first, tie, right_first
        if self.priority is None:
            order = _ASC
            left_first, tie, _ = lexi(order)
            if left_first:
                order = _DESC
            return order, bool(tie), False
        order = _ASC if self.priority == "low" else _DESC
        left_first, tie, _ = lexi(order)
        return order, bool(tie), bool(left_first)

    def allowed(self, sizes: list[int | None]) -> set[str]:
        order, _, early = self._plan()
        if early and sizes[1] is None:
            return set()
        return {order}

    def states(self, sizes: list[int], known: list[bool]) -> int:
        # unpaired (and, reading early, the other side's elements left)
        sb = sizes[1]
        return sb + 1 if known[1] or not self._plan()[2] else (sb + 1) * (sb + 2) // 2

    def make(self, order: str, sizes: list[int | None]) -> tuple[Any, Callable[..., Any]]:
        _, pair_equal, early = self._plan()
        keep = self.keep
        if not early:
            def late(prev: int, f: Any, c: list[int]) -> tuple[int, int]:
                a, b = c
                new = min(prev + b, a) if pair_equal else min(prev, a)
                return prev + b - new, (new if keep else a - new)
            return 0, late, None

        def early_step(st: tuple[int, int], f: Any, c: list[int]
                       ) -> tuple[tuple[int, int], int]:
            unpaired, remaining = st
            a, b = c
            if pair_equal:
                n = min(unpaired, a)
                unpaired -= n
                remaining -= b
                unpaired = min(unpaired, remaining)
            else:
                remaining -= b
                unpaired = min(unpaired, remaining)
                n = min(unpaired, a)
                unpaired -= n
            return (unpaired, remaining), (n if keep else a - n)
        sb = sizes[1]
        return (sb, sb), early_step, None


class _Versus(_Node):
    __slots__ = ("every", "op")
    stateful = True

    def __init__(self, a: MultisetExpression, b: MultisetExpression, op: str,
                 every: bool) -> None:
        self.kids, self.op, self.every = (a, b), op, every

    def _params(self) -> Any:
        return (self.op, self.every)

    def _preferred(self) -> str:
        # versus_all '>'/'>=': no element of b at or above a: read from the top
        high = self.op in (">", ">=")
        return _DESC if high == self.every else _ASC

    def allowed(self, sizes: list[int | None]) -> set[str]:
        return {_DESC, _ASC} if sizes[1] is not None else {self._preferred()}

    def states(self, sizes: list[int], known: list[bool]) -> int:
        return 1 if known[1] else sizes[1] + 1

    def make(self, order: str, sizes: list[int | None]) -> tuple[Any, Callable[..., Any]]:
        strict = self.op in (">", "<")
        if order == self._preferred():
            if self.every:  # kept while nothing of b is read (at this face too if strict)
                def step(seen: int, f: Any, c: list[int]) -> tuple[int, int]:
                    a, b = c
                    kept = a if not seen and not (strict and b) else 0
                    return (1 if seen or b else 0), kept
            else:  # kept once something of b was read (at this face too if not strict)
                def step(seen: int, f: Any, c: list[int]) -> tuple[int, int]:
                    a, b = c
                    kept = a if seen or (b and not strict) else 0
                    return (1 if seen or b else 0), kept
            return 0, step, ((lambda seen: seen == 1) if self.every else None)
        n = sizes[1]
        assert n is not None
        # read from the other end: count b's elements read so far
        if self.every:  # every element of b lies strictly before (non-strict: or here)
            def step(seen: int, f: Any, c: list[int]) -> tuple[int, int]:
                a, b = c
                ok = seen == n if strict else seen + b == n
                return seen + b, (a if ok else 0)
        else:  # something of b lies beyond this face (non-strict: or here)
            def step(seen: int, f: Any, c: list[int]) -> tuple[int, int]:
                a, b = c
                ok = seen + b < n if strict else seen < n
                return seen + b, (a if ok else 0)
        return 0, step, None


def _size(e: MultisetExpression) -> int | None:
    """The number of elements, when it is known before rolling."""
    if e._leaf_dice() is not None:
        return e._leaf_size()
    if isinstance(e, _Dice):
        return len(e.dice)
    if isinstance(e, _Fixed):
        return sum(e.counts.values())
    if isinstance(e, _Counts):
        if e.kind == "add":
            sizes = [_size(k) for k in e.kids]
            return None if None in sizes else sum(sizes)  # type: ignore[arg-type]
        if e.kind == "mul":
            s = _size(e.kids[0])
            return None if s is None else s * e.param
        return None
    if isinstance(e, _Keep):
        if e.stop <= e.start:
            return 0
        s = _size(e.kids[0])
        return None if s is None else max(min(e.stop, s) - e.start, 0)
    return None


# -- evaluations ----------------------------------------------------------------------------


class _Evaluator:
    """An evaluation: a state read face by face, then a final outcome."""

    arity = 1
    #: needs every integer between the lowest and highest face (straights)
    consecutive = False
    #: the final outcome does not change when only zero counts follow
    zero_stable = True
    #: a step reads the face (not only the counts)
    reads_face = False

    def allowed(self, sizes: list[int | None]) -> set[str]:
        return {_DESC, _ASC}

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        """An upper bound of this evaluation's states after ``i`` faces are read, its inputs
        holding at most ``sizes`` elements (None: no bound but the multisets read), given
        the dice read of each kind (``known[j]``: how many elements input ``j`` has read
        follows from them); what the walk's estimate made before it starts multiplies
        (:func:`_walk_work`)."""
        return (sizes[0] + 1) ** 2

    def width(self, i: int, sizes: list[int]) -> int:
        """The most numbers in one state (hashed and copied at each step)."""
        return 2

    def init(self, order: str, faces: list[Any]) -> Any:
        return 0

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        raise NotImplementedError

    def final(self, st: Any) -> Any:
        return st

    def fixed(self, st: Any) -> bool:
        """True when no later count can change the outcome."""
        return False

    def key(self) -> Any:
        return (type(self).__name__,)


class _Size(_Evaluator):
    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return 1 if known and known[0] else sizes[0] + 1

    def step(self, st: int, f: Any, c: list[int]) -> int:
        return st + c[0]


class _Sum(_Evaluator):
    reads_face = True

    def __init__(self, map: Any) -> None:
        if map is None:
            self.fn: Callable[[Any], Any] | None = None
        elif isinstance(map, Mapping):
            self.fn = lambda x, m=dict(map): m.get(x, 0)
        elif callable(map):
            def fn(x: Any) -> Any:
                try:
                    return map(x)
                except Exception as e:  # the user's map failed: say where
                    raise InvalidValueError(f"sum: map raised {type(e).__name__} on {x!r}: "
                                            f"{e}") from None
            self.fn = fn
        else:
            raise InvalidTypeError("sum: map", map, "a function or a mapping")
        self._k = None if map is None else id(map)

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return None  # any values (the packed walk, for whole numbers, holds none)

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        k = c[0]
        if not k:
            return st
        return st + (f if self.fn is None else self.fn(f)) * k

    def key(self) -> Any:
        return ("sum", self._k)


class _Expand(_Evaluator):
    reads_face = True

    def __init__(self, order: str) -> None:
        self.order = order

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return math.comb(sizes[0] + i, i)

    def width(self, i: int, sizes: list[int]) -> int:
        return sizes[0]

    def init(self, order: str, faces: list[Any]) -> Any:
        self.walk = order
        return ()

    def step(self, st: tuple[Any, ...], f: Any, c: list[int]) -> tuple[Any, ...]:
        return st + (f,) * c[0] if c[0] else st

    def final(self, st: tuple[Any, ...]) -> tuple[Any, ...]:
        return st if self.walk == self.order else st[::-1]

    def key(self) -> Any:
        return ("expand", self.order)


class _LargestCount(_Evaluator):
    def __init__(self, wild: tuple[Callable[[Any], bool], Any] | None,
                 with_outcome: bool) -> None:
        self.wild = None if wild is None else wild[0]
        self._wk = None if wild is None else wild[1]
        self.with_outcome = with_outcome
        self.reads_face = wild is not None or with_outcome

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        s = sizes[0]
        return (s + 2) * (s + 1 if self.wild is not None else 1) * (
            i + 1 if self.with_outcome else 1)

    def init(self, order: str, faces: list[Any]) -> Any:
        return (None, 0)  # (best (count, face) or None, wild count)

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        best, wild = st
        k = c[0]
        if self.wild is not None and self.wild(f):
            return (best, wild + k) if k else st
        cand = (k, f) if self.with_outcome else k
        if best is None or cand > best:
            return (cand, wild)
        return st

    def final(self, st: Any) -> Any:
        best, wild = st
        if best is None:
            return (wild, None) if self.with_outcome else wild
        if self.with_outcome:
            return (best[0] + wild, best[1])
        return best + wild

    def key(self) -> Any:
        return ("largest", self._wk, self.with_outcome)


class _AllCounts(_Evaluator):
    def __init__(self, filt: int | str, wild: tuple[Callable[[Any], bool], Any] | None
                 ) -> None:
        self.filt = filt
        self.wild = None if wild is None else wild[0]
        self._wk = None if wild is None else wild[1]
        self.zero_stable = filt != "all" and filt > 0  # type: ignore[operator]
        self.reads_face = wild is not None

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        # the counts kept: a partition of at most the size into at most i parts
        s = sizes[0]
        got = parts.cumulative(1, s)
        return None if got is None else got * (s + 1 if self.wild is not None else 1)

    def width(self, i: int, sizes: list[int]) -> int:
        return min(i, sizes[0]) + 2

    def init(self, order: str, faces: list[Any]) -> Any:
        return ((), 0)

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        counts, wild = st
        k = c[0]
        if self.wild is not None and self.wild(f):
            return (counts, wild + k) if k else st
        if self.filt == "all" or k >= self.filt:  # type: ignore[operator]
            return (tuple(sorted((*counts, k), reverse=True)), wild)
        return st

    def final(self, st: Any) -> Any:
        counts, wild = st
        if not wild:
            return counts
        if not counts:
            return (wild,)
        return (counts[0] + wild, *counts[1:])

    def key(self) -> Any:
        return ("all_counts", self.filt, self._wk)


class _LargestStraight(_Evaluator):
    consecutive = True

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return (min(i, sizes[0]) + 1) ** 2

    def init(self, order: str, faces: list[Any]) -> Any:
        return (0, 0)

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        best, run = st
        run = run + 1 if c[0] >= 1 else 0
        return (max(best, run), run)

    def final(self, st: Any) -> Any:
        return st[0]


class _AllStraights(_Evaluator):
    consecutive = True

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        # (the straights still open, those ended): two partitions into parts <= i whose
        # sum is the elements read
        return parts.cumulative(2, sizes[0])

    def width(self, i: int, sizes: list[int]) -> int:
        return sizes[0] + 2

    def init(self, order: str, faces: list[Any]) -> Any:
        return ((), ())

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        cur, ended = st
        k = c[0]
        if k < len(cur):
            if not cur[k:]:
                return (tuple(x + 1 for x in cur[:k]), ended)
            return (tuple(x + 1 for x in cur[:k]),
                    tuple(sorted(ended + cur[k:], reverse=True)))
        return (tuple(x + 1 for x in cur) + (1,) * (k - len(cur)), ended)

    def final(self, st: Any) -> Any:
        cur, ended = st
        return tuple(sorted(cur + ended, reverse=True))


class _HighestOutcome(_Evaluator):
    reads_face = True

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return i * sizes[0] + 1

    def init(self, order: str, faces: list[Any]) -> Any:
        self.walk = order
        self.low = min(faces) if faces else None
        return None

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        if c[0] > 0 and (st is None or f > st[0]):
            return (f, c[0])
        return st

    def fixed(self, st: Any) -> bool:
        return st is not None and self.walk == _DESC

    def final(self, st: Any) -> Any:
        return (self.low, 0) if st is None else st


class _CountSubset(_Evaluator):
    arity = 2

    def __init__(self, empty: int | None) -> None:
        self.empty = empty

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return sizes[0] + 2

    def init(self, order: str, faces: list[Any]) -> Any:
        return None

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        a, b = c
        if not b:
            return st
        q = a // b
        return q if st is None or q < st else st

    def final(self, st: Any) -> Any:
        if st is None:
            if self.empty is None:
                raise InvalidValueError("count_subset: the divisor can be empty; give "
                                        "empty_divisor= (the outcome then)")
            return self.empty
        return st

    def key(self) -> Any:
        return ("count_subset", self.empty)


class _Compare(_Evaluator):
    arity = 2

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        return 2

    def init(self, order: str, faces: list[Any]) -> Any:
        return True

    def step(self, st: bool, f: Any, c: list[int]) -> bool:
        if not st:
            return st
        a, b = c
        if self.kind == "sub":
            return a <= b
        if self.kind == "sup":
            return a >= b
        return not (a > 0 and b > 0)

    def fixed(self, st: bool) -> bool:
        return not st

    def key(self) -> Any:
        return ("compare", self.kind)


class _Lexi(_Evaluator):
    arity = 2

    def __init__(self, op: str, extra: str, sort: str) -> None:
        self.op, self.extra, self.sort = op, extra, sort

    def _tuple(self) -> tuple[int, int, int, int, int]:
        """(left first, left extra, tie, right extra, right first) as icepool's
        compute_lexi_tuple_with_extra for the sort order."""
        base = {"==": (0, 1, 0), "!=": (1, 0, 1), "<=": (1, 1, 0), "<": (1, 0, 0),
                ">=": (0, 1, 1), ">": (0, 0, 1), "cmp": (-1, 0, 1)}[self.op]
        left_first, tie, right_first = base
        if self.sort == _DESC:
            left_first, right_first = right_first, left_first
        extra = self.extra
        if extra == "low":
            extra = "early" if self.sort == _ASC else "late"
        elif extra == "high":
            extra = "early" if self.sort == _DESC else "late"
        if extra == "early":
            le, re = left_first, right_first
        elif extra == "late":
            le, re = right_first, left_first
        else:  # 'drop': as icepool, an extra element decides 0
            le, re = 0, 0
        return left_first, le, tie, re, right_first

    def allowed(self, sizes: list[int | None]) -> set[str]:
        return {_DESC, _ASC} if None not in sizes else {self.sort}

    def states(self, i: int, sizes: list[int], parts: _Parts,
               known: Sequence[bool] = ()) -> int | None:
        # (extra, first, lead): the lead follows from the elements read of both sides
        return 9 if known and all(known) else 9 * (sizes[0] + sizes[1] + 1)

    def init(self, order: str, faces: list[Any]) -> Any:
        self.forward = order == self.sort
        if self.forward:
            return (0, 0, 0)
        sa, sb = self.sizes
        extra = -1 if sa < sb else (1 if sb < sa else 0)  # type: ignore[operator]
        return (extra, 0, sb - sa)  # type: ignore[operator]

    def step(self, st: Any, f: Any, c: list[int]) -> Any:
        extra, first, lead = st
        a, b = c
        if self.forward:
            if extra == 0:
                if a < b:
                    extra = -1
                elif b < a:
                    extra = 1
            elif extra == 1 and b > 0:
                first = 1
            elif extra == -1 and a > 0:
                first = -1
            return (extra, first, lead)
        lead += a - b
        if lead > 0 and a > 0:
            first = -1
        elif lead < 0 and b > 0:
            first = 1
        return (extra, first, lead)

    def final(self, st: Any) -> Any:
        extra, first, _ = st
        left_first, left_extra, tie, right_extra, right_first = self._tuple()
        if first > 0:
            return left_first
        if first < 0:
            return right_first
        if extra > 0:
            return left_extra
        if extra < 0:
            return right_extra
        return tie

    def key(self) -> Any:
        return ("lexi", self.op, self.extra, self.sort)


# -- evaluation: many evaluations, one walk -------------------------------------------------


class Evaluation:
    """An evaluation not yet walked: what an evaluation method returns inside a
    :func:`multiset_function` (outside, it walks at once and returns the Distribution).

    >>> from chancekit.dice import Pool, d
    >>> Evaluation  # doctest: +ELLIPSIS
    <class '...Evaluation'>
    """

    __slots__ = ("args", "ev")

    def __init__(self, ev: _Evaluator, args: tuple[MultisetExpression, ...]) -> None:
        self.ev, self.args = ev, args

    def distribution(self) -> Distribution:
        """Walk the faces and return the exact distribution."""
        return _run([self], vector=False)

    def __repr__(self) -> str:
        return f"Evaluation({self.ev.key()!r})"


def multiset_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Your own evaluation from the pieces, without writing a class (icepool's
    ``@multiset_function``): ``fn`` takes pools and returns an expression (then the
    decorated function is that expression), an evaluation, or a tuple of evaluations; the
    evaluations are walked together, once, and their outcomes form a :class:`Vector`.

    >>> from chancekit.dice import Pool, d
    >>> @multiset_function
    ... def hits_and_crits(pool):
    ...     return pool.keep_outcomes(lambda x: x >= 5).count(), pool.keep_outcomes([6]).count()
    >>> hits_and_crits(Pool(d(6), 2)).probability((2, 2))
    Fraction(1, 36)
    """
    if not callable(fn):
        raise InvalidTypeError("multiset_function", fn, "a function of pools")

    def wrapper(*pools: Any) -> Any:
        args = [_Param(_expr(f"{getattr(fn, '__name__', 'function')}: argument {i}", p))
                for i, p in enumerate(pools)]
        token = _LAZY.set(True)
        try:
            out = fn(*args)
        finally:
            _LAZY.reset(token)
        if isinstance(out, MultisetExpression):
            return out
        if isinstance(out, Evaluation):
            return _run([out], vector=False)
        flat: list[Evaluation] = []

        def collect(x: Any) -> Any:
            if isinstance(x, Evaluation):
                flat.append(x)
                return len(flat) - 1
            if isinstance(x, tuple | list):
                return tuple(collect(y) for y in x)
            raise InvalidTypeError("multiset_function result", x,
                                   "an expression, an evaluation (pool.count(), ...) or a "
                                   "tuple of evaluations")
        shape = collect(out)
        if not flat:
            raise InvalidValueError("multiset_function: the function returned no evaluation")
        return _run(flat, vector=True, shape=shape)

    wrapper.__name__ = getattr(fn, "__name__", "multiset_function")
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


class _Program(FaceRule):
    """The composed operators and evaluations as one rule of the face walk: the state is
    (operator states, evaluation states); each step computes every node's count at the
    face, bottom up. Packed (``shifts`` given: counts and sums only), the state is the
    operator states alone and a step returns ``(state, shift)``: what the evaluations add
    rides in the packed weight (:func:`chancekit.dice.facewalk.face_walk_packed`). A step
    is ``Decided`` once no evaluation can change: every evaluation fixed, or every input
    of the evaluations dead (an operator that will only give zero counts: highest(k)
    once k are read, versus_all once the other side showed)."""

    def __init__(self, code: list[tuple[Any, ...]], evals: list[tuple[_Evaluator,
                 tuple[int, ...]]], init: Any, finisher: Callable[[tuple[Any, ...]], Any],
                 dead: list[Callable[[list[Any], list[bool]], bool]] | None,
                 shifts: list[Callable[[Any, int], int]] | None, face_free: bool) -> None:
        super().__init__(initial=init)
        self.code = code
        self.evals = evals
        self.finisher = finisher
        self.dead = dead
        self.shifts = shifts
        self.face_free = face_free
        self.stable = all(ev.zero_stable for ev, _ in evals)
        self.ev_slots = sorted({i for _, slots in evals for i in slots})
        self.step = self._generate()  # type: ignore[method-assign]

    def _generate(self) -> Callable[[Any, Any, tuple[int, ...]], Any]:
        """The step as one generated Python function (the counts inlined, no loop over the
        program): the same arithmetic as :meth:`_counts` and :meth:`step_slow`, 3 to 5
        times faster, which the face walk calls once per (state, counts)."""
        env: dict[str, Any] = {"Decided": Decided, "FIN": self.finisher}
        lines = ["def step(state, face, counts):"]
        packed = self.shifts is not None
        n_nodes = sum(1 for kind, *_ in self.code if kind == 3)
        if packed:
            lines.append("    N = state")
        else:
            lines.append("    N, E = state")
        j = 0
        for slot, (kind, x, kids, extra) in enumerate(self.code):
            v = f"v{slot}"
            ks = [f"v{k}" for k in kids]
            if kind == 0:
                lines.append(f"    {v} = counts[{x}]")
            elif kind == 1:
                env[f"X{slot}"] = x
                lines.append(f"    {v} = X{slot}.get(face, 0)")
            elif kind == 2:
                node: _Counts = extra
                k, p = node.kind, node.param
                if k == "add":
                    expr = " + ".join(ks)
                elif k == "sub":
                    expr = f"max({ks[0]} - {' - '.join(ks[1:])}, 0)" if len(ks) > 1 else ks[0]
                elif k == "and":
                    expr = f"min({', '.join(ks)})" if len(ks) > 1 else ks[0]
                elif k == "or":
                    expr = f"max({', '.join(ks)})" if len(ks) > 1 else ks[0]
                elif k == "xor":
                    expr = f"abs({ks[0]} - {ks[1]})"
                elif k in ("keep", "drop"):
                    env[f"P{slot}"] = p[0]
                    expr = (f"({ks[0]} if P{slot}(face) else 0)" if k == "keep"
                            else f"(0 if P{slot}(face) else {ks[0]})")
                elif k == "unique":
                    expr = f"min({ks[0]}, {int(p)})"
                elif k == "mul":
                    expr = f"{ks[0]} * {int(p)}"
                else:
                    op, n = p
                    expr = f"({ks[0]} if {ks[0]} {op} {int(n)} else 0)"
                lines.append(f"    {v} = {expr}")
            else:
                env[f"S{slot}"] = x
                lines.append(f"    n{j}, {v} = S{slot}(N[{j}], face, [{', '.join(ks)}])")
                j += 1
        new_n = "(" + "".join(f"n{i}, " for i in range(n_nodes)) + ")"
        # dead flags, when some operator can die
        dead_expr = "False"
        if self.dead is not None:
            flags: list[str] = []
            j = 0
            for slot, (kind, _x, kids, extra) in enumerate(self.code):
                if kind in (0, 1):
                    flags.append("False")
                elif kind == 2:
                    kf = [flags[k] for k in kids]
                    if extra.kind in ("add", "or", "xor"):
                        flags.append("(" + " and ".join(kf) + ")")
                    elif extra.kind == "and":
                        flags.append("(" + " or ".join(kf) + ")")
                    else:
                        flags.append(kf[0])
                else:
                    if extra is None:
                        flags.append("False")
                    else:
                        env[f"D{slot}"] = extra
                        lines.append(f"    d{slot} = D{slot}(n{j})")
                        flags.append(f"d{slot}")
                    j += 1
            dead_expr = " and ".join(flags[i] for i in self.ev_slots) or "True"
        if packed:
            terms = []
            for e, (fn, (_, slots)) in enumerate(zip(self.shifts or [], self.evals,
                                                     strict=True)):
                env[f"H{e}"] = fn
                terms.append(f"H{e}(face, v{slots[0]})")
            lines.append(f"    sh = {' + '.join(terms) or '0'}")
            lines.append(f"    if {dead_expr}:")
            lines.append("        return Decided(sh)")
            lines.append(f"    return ({new_n}, sh)")
        else:
            outs = []
            fixed = []
            for e, (ev, slots) in enumerate(self.evals):
                env[f"E{e}"] = ev.step
                env[f"F{e}"] = ev.fixed
                args = ", ".join(f"v{k}" for k in slots)
                lines.append(f"    e{e} = E{e}(E[{e}], face, [{args}])")
                outs.append(f"e{e}")
                fixed.append(f"F{e}(e{e})")
            es = "(" + "".join(o + ", " for o in outs) + ")"
            cond = " and ".join(fixed)
            if self.stable and self.dead is not None:
                cond = f"({cond}) or ({dead_expr})"
            lines.append(f"    if {cond}:")
            lines.append(f"        return Decided(FIN({es}))")
            lines.append(f"    return ({new_n}, {es})")
        exec("\n".join(lines), env)
        return env["step"]  # type: ignore[no-any-return]

    def _counts(self, nstates: Any, face: Any, counts: tuple[int, ...]
                ) -> tuple[list[int], list[Any]]:
        vals: list[int] = []
        new: list[Any] = []
        append = vals.append
        for kind, x, kids, _ in self.code:
            if kind == 0:  # a pool
                append(counts[x])
            elif kind == 1:  # a fixed multiset
                append(x.get(face, 0))
            elif kind == 2:  # a count combinator
                append(x(face, [vals[i] for i in kids]))
            else:
                st, c = x(nstates[len(new)], face, [vals[i] for i in kids])
                new.append(st)
                append(c)
        return vals, new

    def _all_dead(self, new: list[Any]) -> bool:
        dead = self.dead
        if dead is None:
            return False
        flags: list[bool] = []
        for fn in dead:
            flags.append(fn(new, flags))
        return all(flags[i] for i in self.ev_slots)

    def step_slow(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        """The step interpreted (what :meth:`_generate` compiles; kept as its reference)."""
        if self.shifts is not None:  # packed: the state is the operators' states
            vals, new = self._counts(state, face, counts)
            sh = 0
            for fn, (_, slots) in zip(self.shifts, self.evals, strict=True):
                sh += fn(face, vals[slots[0]])
            if self._all_dead(new):
                return Decided(sh)
            return (tuple(new), sh)
        nstates, estates = state
        vals, new = self._counts(nstates, face, counts)
        out = []
        fixed = True
        for (ev, slots), est in zip(self.evals, estates, strict=True):
            s = ev.step(est, face, [vals[i] for i in slots])
            out.append(s)
            if fixed and not ev.fixed(s):
                fixed = False
        es = tuple(out)
        if fixed or (self.stable and self._all_dead(new)):
            return Decided(self.finisher(es))
        return (tuple(new), es)

    def final(self, state: Any) -> Any:
        return self.finisher(state[1])


def _pool_dice(e: MultisetExpression) -> list[Distribution] | None:
    """The dice of a leaf (None for a fixed multiset)."""
    if isinstance(e, _Dice):
        return list(e.dice)
    return e._leaf_dice()


def multiset_work(evaluation: Evaluation | Sequence[Evaluation]) -> int:
    """The estimated work (MAX_WORK units) of walking ``evaluation`` (or several), made
    before the walk: an upper bound of its steps (:func:`_walk_work`: per face, the states
    the walk may hold x the dice shown per state, the states bounded by the operators' and
    evaluations' own bounds and by the sub-multisets of the dice read), plus the
    preparation of the faces; past the budget, counting stops (a lower bound then).

    >>> from chancekit.dice import Pool, d
    >>> from chancekit.dice.multiset import multiset_function
    >>> 0 < multiset_work(Evaluation(_Size(), (Pool(d(6), 3),))) < 10**6
    True
    """
    evs = [evaluation] if isinstance(evaluation, Evaluation) else list(evaluation)
    return _compile(evs)[1]


def _compile(evs: list[Evaluation]) -> tuple[dict[str, Any], int]:

    # nodes in post order; every occurrence of a pool is its own roll (as in icepool), but
    # a multiset_function's argument is one roll however often the function reads it
    code: list[tuple[Any, list[int]]] = []
    slot_of: dict[int, int] = {}
    sizes_of: dict[int, int | None] = {}
    sources: dict[int, int] = {}  # slot -> pool index
    groups: list[list[tuple[Distribution, int]]] = []
    fixed: list[_Fixed] = []
    face_set: set[Any] = set()

    def visit(e: MultisetExpression) -> int:
        if isinstance(e, _Param):
            got = slot_of.get(id(e))
            if got is not None:
                return got
        if isinstance(e, _Node):
            kids = [visit(k) for k in e.kids]
            code.append((e, kids))
        else:
            code.append((e, []))
            dice = _pool_dice(e)
            if dice is not None:
                sources[len(code) - 1] = len(groups)
                groups.append(facewalk._group(dice))
                if not dice:  # no dice: the faces they would show
                    face_set.update(e._leaf_faces())
            elif isinstance(e, _Fixed):
                fixed.append(e)
            else:  # pragma: no cover - leaves are pools, dice or fixed multisets
                raise InvalidTypeError("leaf", e, "a Pool")
        slot = len(code) - 1
        if isinstance(e, _Param):
            slot_of[id(e)] = slot
        sizes_of[slot] = _size(e)
        return slot

    ev_slots = [tuple(visit(a) for a in e.args) for e in evs]
    total = sum(n for g in groups for _, n in g)
    facewalk._check_dice(total)
    # faces: every die's, every fixed multiset's, and the gaps for straights
    for g in groups:
        for die, _ in g:
            face_set.update(die.outcomes())
    for leaf in fixed:
        face_set.update(leaf.counts)
    if any(e.ev.consecutive for e in evs) and face_set:
        if not all(isinstance(f, int) and not isinstance(f, bool) for f in face_set):
            raise InvalidTypeError("straights: faces", tuple(face_set), "integers")
        lo, hi = min(face_set), max(face_set)
        if hi - lo > limits.MAX_OUTCOMES:
            raise LimitError(f"straights over faces {lo}..{hi}: more than MAX_OUTCOMES = "
                             f"{limits.MAX_OUTCOMES} faces", limit="MAX_OUTCOMES",
                             value=hi - lo)
        limits.refuse_past_budget(  # the preparation below, before the gaps are filled
            (hi - lo + 1) * (len(code) + 2) * _PREP_WORK,
            f"preparing this pool evaluation ({hi - lo + 1:,} faces)",
            "use dice with fewer faces (--max-work / limits.evaluation lifts the budget)")
        face_set.update(range(lo, hi + 1))
    try:
        faces = sorted(face_set)
    except TypeError:
        raise InvalidTypeError("faces", tuple(face_set), "mutually comparable") from None
    # preparing the walk reads every face once per node (merging the faces no operator
    # sees, below): priced and refused before it (2 dice of a million faces: at once)
    prep = len(faces) * (len(code) + 2) * _PREP_WORK
    limits.refuse_past_budget(prep, f"preparing this pool evaluation ({len(faces):,} faces)",
                              "use dice with fewer faces (--max-work / limits.evaluation "
                              "lifts the budget)")
    # the walk order: descending unless an operator or evaluation needs ascending
    orders = {_DESC, _ASC}
    for e, kids in code:
        if isinstance(e, _Node):
            orders &= e.allowed([sizes_of[k] for k in kids])
    for e, slots in zip(evs, ev_slots, strict=True):
        orders &= e.ev.allowed([sizes_of[k] for k in slots])
    if not orders:
        raise InvalidValueError(
            "these operators need the faces read in opposite orders (e.g. highest() with "
            "lowest() of an expression whose size is not known, or max_pair with "
            "priority='low' and 'high'); split the evaluation, or apply them to pools whose "
            "size is known")
    order = _DESC if _DESC in orders else _ASC
    # the compiled program
    prog: list[tuple[int, Any, tuple[int, ...]]] = []
    init_nodes: list[Any] = []
    dead: list[Callable[[list[Any], list[bool]], bool]] = []
    any_dead = False
    reads_face = False
    for slot, (e, kids) in enumerate(code):
        if isinstance(e, _Node):
            sizes = [sizes_of[k] for k in kids]
            if isinstance(e, _Counts):
                prog.append((2, e.fn(), tuple(kids), e))
                reads_face = reads_face or e.kind in ("keep", "drop")
                dead.append(_counts_dead(e, tuple(kids)))
            else:
                st0, fn, isdead = e.make(order, sizes)
                prog.append((3, fn, tuple(kids), isdead))
                if isdead is None:
                    dead.append(lambda new, flags: False)
                else:
                    any_dead = True
                    here = len(init_nodes)
                    dead.append(lambda new, flags, j=here, p=isdead: p(new[j]))
                init_nodes.append(st0)
        elif isinstance(e, _Fixed):
            prog.append((1, e.counts, (), None))
            reads_face = True
            dead.append(lambda new, flags: False)
        else:
            prog.append((0, sources[slot], (), None))
            dead.append(lambda new, flags: False)
    init_evals = []
    ev_list = []
    for e, slots in zip(evs, ev_slots, strict=True):
        ev = e.ev
        if isinstance(ev, _Lexi):
            ev.sizes = [sizes_of[k] for k in slots]  # type: ignore[attr-defined]
        init_evals.append(ev.init(order, faces))
        ev_list.append((ev, slots))
        reads_face = reads_face or ev.reads_face
    # faces no operator or evaluation can see a die on (every pool filtered away there,
    # no fixed multiset) are merged, consecutive ones into one: fewer faces to walk
    walk = faces if order == _ASC else faces[::-1]
    if not any(isinstance(ev, _AllCounts) and ev.filt == "all" for ev, _ in ev_list):
        walk, groups = _merge_inert(walk, code, sources, groups, ev_slots)
    packing = _packing(ev_list, code, sizes_of, faces, groups)
    pack = None if packing is None else _pack_plan(packing, sources)
    step_units = facewalk.STEP_WORK
    if pack is not None:  # a step adds and shifts packed weights: linear in their bits
        step_units += pack[0] * math.prod(pack[1]) // 64
    work = prep + _walk_work(walk, groups, code, sizes_of, sources, ev_list,
                             pack is not None, step_units)
    return {"groups": groups, "faces": walk, "order": order, "prog": prog,
            "init": (tuple(init_nodes), tuple(init_evals)), "evals": ev_list,
            "dead": dead if any_dead else None, "packing": packing,
            "face_free": not reads_face, "sources": sources, "pack": pack,
            "step_units": step_units}, work


#: work units of reading one face, whatever the states (the walk's dicts and caches)
_FACE_WORK = 100
#: work units of preparing one face for one node of the walk (sorting the faces, merging
#: those no operator sees: 1.9-2.9 us a face for 1 to 3 nodes, measured on d1000000)
_PREP_WORK = 50
#: work units of one call of a step of the composed program that is not shared (an
#: operator's or an evaluation's step, a new state built: about 2 us, measured on
#: all_counts and leximax of 200 dice, 5-7 us a step with two of them)
_PROGRAM_WORK = 100
#: the largest size whose partitions the estimate counts (past it: the multisets read)
_PARTS_MOST = 4000


class _Parts:
    """The partitions of every ``m <= top`` into parts ``<= i`` (one or two colours: the
    states of all_counts and all_straights), advanced face by face as the estimate walks
    (O(top) a face), with their prefix sums."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.i = 0
        self.rows: dict[int, list[int]] = {}
        self.sums: dict[int, list[int]] = {}

    def advance(self, i: int) -> None:
        """Parts up to ``i`` from now on."""
        while self.i < min(i, self.top):
            self.i += 1
            k = self.i
            for colours, row in self.rows.items():
                for _ in range(colours):
                    for m in range(k, self.top + 1):
                        row[m] += row[m - k]
            self.sums.clear()
        self.i = max(self.i, min(i, self.top))

    def cumulative(self, colours: int, size: int) -> int | None:
        """The partitions (of ``colours`` colours) of the numbers up to ``size``; None past
        :data:`_PARTS_MOST`."""
        if size > self.top:
            return None
        row = self.rows.get(colours)
        if row is None:  # a new row: built up to the current i
            row = self.rows[colours] = [1] + [0] * self.top
            for k in range(1, self.i + 1):
                for _ in range(colours):
                    for m in range(k, self.top + 1):
                        row[m] += row[m - k]
        got = self.sums.get(colours)
        if got is None:
            got = self.sums[colours] = list(itertools.accumulate(row))
        return got[size]


def _walk_work(walk: list[Any], groups: list[list[tuple[Distribution, int]]],
               code: list[tuple[Any, list[int]]], sizes_of: dict[int, int | None],
               sources: dict[int, int], ev_list: list[tuple[_Evaluator, tuple[int, ...]]],
               packed: bool, step_units: int) -> int:
    """The work units of the face walk, estimated before it starts, as an upper bound of
    the steps it makes (one per state and dice shown) at the price of one: per face,
    the steps from the states alive are at most

    - the multisets read so far (per kind of die with ``n`` dice and ``z`` faces read that
      it can show: ``C(n+z, z)`` states, ``C(n+z+1, z+1)`` steps), and
    - the dice left per kind x the operators' states (:meth:`_Node.bound` on the most
      elements of their inputs) x the evaluations' states (:meth:`_Evaluator.states`:
      partitions for all_counts and all_straights, sub-multisets for expand...),
      the dice shown per state being what the dice left allow;

    for one evaluation of one pool of one kind of die, the two are taken per number of
    dice read. A step costs ``step_units`` plus its state's numbers
    (:data:`~chancekit.limits.TUPLE_WORK` each) and its weight's words; a face
    :data:`_FACE_WORK`. Stops counting once past the budget. O(faces x kinds) integer
    operations (plus O(faces x dice) for the partitions and per-count sums).

    >>> from chancekit.dice import Pool, d
    >>> multiset_work(Evaluation(_AllCounts(1, None), (Pool(d(6), 12),))) < limits.MAX_WORK
    True
    >>> multiset_work(Evaluation(_AllStraights(), (Pool(d(6), 65),))) > limits.MAX_WORK
    True
    """
    most = limits.work_limit()
    n_faces = len(walk)
    work = n_faces * _FACE_WORK
    if work > most:
        return work
    kinds = [(die, n) for g in groups for die, n in g]
    cap: dict[int, int] = {}

    def size(slot: int) -> int:
        got = cap.get(slot)
        if got is None:
            got = cap[slot] = _max_size(slot, code, sizes_of, groups, sources)
        return got
    known: list[bool] = []  # the elements a slot has read follow from the dice read
    nodes = 1
    calls = 1 + len(ev_list)  # the steps the walk calls for one new (state, counts)
    for e, kids in code:
        if isinstance(e, _Counts):
            known.append(e.kind in ("add", "mul") and all(known[k] for k in kids))
        elif isinstance(e, _Node):
            # highest/lowest/middle: what it has given follows from what it has read
            known.append(isinstance(e, _Keep) and known[kids[0]])
            nodes *= e.states([size(k) for k in kids], [known[k] for k in kids])
            calls += 1
        else:
            known.append(True)  # a pool, or a fixed multiset
    evs = [] if packed else [(ev, [size(k) for k in slots], [known[k] for k in slots])
                             for ev, slots in ev_list]
    parts = _Parts(min(max((sz[0] for _, sz, _ in evs), default=0), _PARTS_MOST))
    # one evaluation of one pool of one kind: states counted per number of dice read
    single = len(evs) == 1 and evs[0][0].arity == 1 and len(code) == 1 and len(kinds) == 1
    words = sum(n * die.total.bit_length() for die, n in kinds) // 64 + 1
    shows = [[bool(die.weights.get(f)) for f in walk] for die, _ in kinds]
    read = [0] * len(kinds)  # faces read so far that each kind can show
    for i in range(n_faces):
        last = i == n_faces - 1
        parts.advance(i)
        moving = [shows[k][i] and not last for k in range(len(kinds))]
        by_multisets = 1
        for k, (_, n) in enumerate(kinds):
            z = read[k]
            by_multisets *= math.comb(n + z + 1, z + 1) if moving[k] else math.comb(n + z, z)
        width = 2
        if single:
            ev = evs[0][0]
            n, z = kinds[0][1], read[0]
            steps = 0
            ms = 1  # multisets of exactly r dice over z faces
            for r in range(n + 1):
                b = ev.states(i, [r], parts)
                st = ms if b is None else min(ms, b)
                steps += st * (n - r + 1 if moving[0] else 1)
                ms = ms * (r + z) // (r + 1) if z else 0
            steps = min(steps, by_multisets)
            width = ev.width(i, [n])
        else:
            bound: int | None = nodes
            for ev, sz, kn in evs:
                b = ev.states(i, sz, parts, kn)
                bound = None if b is None or bound is None else bound * b
                width += ev.width(i, sz)
            shown = math.prod((n + 1) * (n + 2) // 2 if moving[k] else n + 1
                              for k, (_, n) in enumerate(kinds))
            by_states = None if bound is None else bound * shown
            steps = by_multisets if by_states is None else min(by_multisets, by_states)
        price = step_units + words + (0 if packed else _PROGRAM_WORK * calls
                                      + limits.TUPLE_WORK * width)
        work += steps * price + _FACE_WORK
        if work > most:
            return work
        for k in range(len(kinds)):
            read[k] += shows[k][i]
    return work


def _counts_dead(e: _Counts, kids: tuple[int, ...]) -> Callable[[list[Any], list[bool]], bool]:
    """Whether a count combinator only gives zeros from now on, from its children's."""
    if e.kind in ("add", "or", "xor"):
        return lambda new, flags: all(flags[k] for k in kids)
    if e.kind == "and":
        return lambda new, flags: any(flags[k] for k in kids)
    k0 = kids[0]
    return lambda new, flags: flags[k0]


def _merge_inert(walk: list[Any], code: list[tuple[Any, list[int]]], sources: dict[int, int],
                 groups: list[list[tuple[Distribution, int]]],
                 ev_slots: list[tuple[int, ...]]) -> tuple[list[Any], list[list[tuple[
                     Distribution, int]]]]:
    """Merge the runs of consecutive faces where no operator with a state and no evaluation
    has an input that can be non-zero: they all read zeros there, so one face stands for
    the run (its highest), the dice's weights on the run added up."""
    pool_faces = [set().union(*(d.outcomes() for d, _ in g)) if g else set() for g in groups]
    watched: set[int] = set(i for slots in ev_slots for i in slots)
    for e, kids in code:
        if isinstance(e, _Node) and not isinstance(e, _Counts):
            watched.update(kids)
    inert = []
    for f in walk:
        live: list[bool] = []
        for slot, (e, kids) in enumerate(code):
            if isinstance(e, _Counts):
                k = e.kind
                if k in ("add", "or", "xor"):
                    v = any(live[i] for i in kids)
                elif k == "and":
                    v = all(live[i] for i in kids)
                elif k == "keep":
                    v = live[kids[0]] and e.param[0](f)
                elif k == "drop":
                    v = live[kids[0]] and not e.param[0](f)
                elif k in ("unique", "mul"):
                    v = live[kids[0]] and e.param > 0
                else:
                    v = live[kids[0]]
            elif isinstance(e, _Node):
                v = live[kids[0]]
            elif isinstance(e, _Fixed):
                v = f in e.counts
            else:
                v = f in pool_faces[sources[slot]]
            live.append(bool(v))
        inert.append(not any(live[i] for i in watched))
    if sum(inert) < 2:
        return walk, groups
    rep: dict[Any, Any] = {}
    out: list[Any] = []
    run: list[Any] = []
    for f, dead in zip(walk, inert, strict=True):
        if dead:
            run.append(f)
            continue
        if run:
            top = max(run)
            out.append(top)
            rep.update((x, top) for x in run)
            run = []
        out.append(f)
    if run:
        top = max(run)
        out.append(top)
        rep.update((x, top) for x in run)
    if len(out) == len(walk):
        return walk, groups
    merged = [[(die.map(lambda x: rep.get(x, x)) if any(x in rep for x in die.outcomes())
                else die, n) for die, n in g] for g in groups]
    return out, [facewalk._group([die for die, n in g for _ in range(n)]) for g in merged]


def _max_size(slot: int, code: list[tuple[Any, list[int]]], sizes_of: dict[int, int | None],
              groups: list[Any], sources: dict[int, int]) -> int:
    """An upper bound of the number of elements of the expression at ``slot``."""
    e, kids = code[slot]
    sub = [_max_size(k, code, sizes_of, groups, sources) for k in kids]
    if isinstance(e, _Counts):
        if e.kind in ("add", "or", "xor"):
            return sum(sub)
        if e.kind == "and":
            return min(sub)
        if e.kind == "mul":
            return sub[0] * e.param
        return sub[0]
    if isinstance(e, _Keep):
        return min(sub[0], e.stop - e.start)
    if isinstance(e, _Node):
        return sub[0]
    if isinstance(e, _Fixed):
        return sum(e.counts.values())
    return sum(n for _, n in groups[sources[slot]])


#: most bits of one packed weight (the range of the totals x the bits of a weight)
_PACK_BITS = 1 << 22


def _packing(ev_list: list[tuple[_Evaluator, tuple[int, ...]]],
             code: list[tuple[Any, list[int]]], sizes_of: dict[int, int | None],
             faces: list[Any], groups: list[Any]) -> Any:
    """How counts and sums ride in packed weights (None: not every evaluation is a count
    or a sum of whole numbers >= 0, or the packed numbers would be too wide): (bits per
    slot, the radix of each evaluation, a shift function per evaluation)."""
    if not all(type(ev) in (_Size, _Sum) for ev, _ in ev_list):
        return None
    return ev_list, code, sizes_of, faces, groups


def _pack_plan(packing: Any, sources: dict[int, int]) -> Any:
    ev_list, code, sizes_of, faces, groups = packing
    radix = []
    values = []
    for ev, slots in ev_list:
        most = _max_size(slots[0], code, sizes_of, groups, sources)
        if isinstance(ev, _Sum):
            vals = {}
            for f in faces:
                v = f if ev.fn is None else ev.fn(f)
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    return None
                vals[f] = v
            values.append(vals)
            most *= max(vals.values(), default=0)
        else:
            values.append(None)
        radix.append(most + 1)
    weight_bits = sum(n * d.total.bit_length() for g in groups for d, n in g) + 1
    width = (weight_bits + 8) // 8 * 8
    span = math.prod(radix)
    if span * width > _PACK_BITS:
        return None
    shifts = []
    place = width
    for vals, r in zip(values, radix, strict=True):
        if vals is None:
            shifts.append(lambda f, c, p=place: c * p)
        else:
            shifts.append(lambda f, c, p=place, vs=vals: vs.get(f, 0) * c * p)
        place *= r
    return width, radix, shifts


def _run(evs: list[Evaluation], *, vector: bool, shape: Any = None) -> Distribution:
    plan, work = _compile(evs)
    what = "this pool evaluation"
    most = limits.work_limit()
    if work > most:  # the estimate stopped counting past the budget: a lower bound
        raise LimitError(
            f"{what} needs more than {most:,} units of work (the MAX_WORK budget; "
            "estimated before the walk starts: faces x the states it may hold x the "
            "dice shown per state); use fewer dice or faces, or fewer operators that keep "
            "state (--max-work / limits.evaluation lifts the budget)", limit="MAX_WORK",
            value=work)
    # the estimate is an upper bound of the steps: charged now, the walk counts its steps
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        limits.charge(work, what)
        return _walk(plan, what, vector, shape)


def _walk(plan: dict[str, Any], what: str, vector: bool, shape: Any) -> Distribution:
    """The face walk of a compiled plan, its estimate already charged."""
    ev_list = plan["evals"]

    def build(x: Any, outs: list[Any]) -> Any:
        if isinstance(x, int):
            return outs[x]
        return Vector(build(y, outs) for y in x)

    pack = plan["pack"]
    if pack is not None:
        width, radix, shifts = pack
        rule = _Program(plan["prog"], ev_list, plan["init"][0], lambda es: None,
                        plan["dead"], shifts, plan["face_free"])
        total = facewalk.walk_groups(rule, plan["groups"], plan["faces"], what,
                                     packed=True, step_units=plan["step_units"],
                                     charged=True)
        return _unpack(total, width, radix, (lambda outs: build(shape, outs)) if vector
                       else (lambda outs: outs[0]))

    if vector:
        def finisher(es: tuple[Any, ...]) -> Any:
            outs = [ev.final(s) for (ev, _), s in zip(ev_list, es, strict=True)]
            return build(shape, outs)
    else:
        ev0 = ev_list[0][0]

        def finisher(es: tuple[Any, ...]) -> Any:
            return ev0.final(es[0])

    rule = _Program(plan["prog"], ev_list, plan["init"], finisher, plan["dead"], None,
                    plan["face_free"])
    return facewalk.walk_groups(rule, plan["groups"], plan["faces"], what, charged=True)


def _unpack(total: int, width: int, radix: list[int],
            outcome: Callable[[list[int]], Any]) -> Distribution:
    """The distribution held in a packed weight: the coefficient at slot ``j`` is the
    weight of the totals whose mixed-radix digits (``radix``) make ``j``. Linear in the
    bits."""
    raw = total.to_bytes((total.bit_length() + 7) // 8 + 1, "little")
    step = width // 8
    out: dict[Any, int] = {}
    for j in range(0, (len(raw) + step - 1) // step):
        w = int.from_bytes(raw[j * step:(j + 1) * step], "little")
        if not w:
            continue
        digits = []
        k = j
        for r in radix:
            digits.append(k % r)
            k //= r
        out[outcome(digits)] = w
    return Distribution._raw(out)
