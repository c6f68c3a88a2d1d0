"""The face-by-face walk of dice pools (the polynomial-time method), and its keep-k sum.

One home for the engine that both :class:`~chancekit.dice.pool.Pool` (through
:mod:`chancekit.dice.evaluate`) and :mod:`chancekit.dice.cards` walk: :class:`FaceRule`,
:class:`Decided`, :func:`evaluate_pool`, :func:`face_walk`, the bounded memo cache, and the
keep-k specialisations (:func:`keep_sum`, :func:`keep_work`, :func:`face_walk_work`). It
imports neither ``pool`` nor ``evaluate``, so the arrows go one way: ``pool`` ->
``evaluate`` -> ``facewalk`` (docs/architecture.md, "Import cycles"). The public names are
also importable from :mod:`chancekit.dice.pool` and :mod:`chancekit.dice`.

A *rule* sees only ``(state, face, counts)`` -- counts being how many dice of each pool show
the face -- and returns the next state. Cost: O(F · S · Π(n_j+1)²) for F faces, S rule
states and n_j dice of kind j.

>>> from chancekit.dice import d
>>> rule = FaceRule(lambda best, face, counts: max(best, counts[0]), initial=0)
>>> evaluate_pool(rule, 3 * [d(6)]).probability(3)
Fraction(1, 36)
>>> keep_sum(4 * [d(6)], highest=3).probability(18)
Fraction(7, 432)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution, constant
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.limits import MAX_POOL_DICE, MAX_POOL_STATES, MAX_WORK, power_work

__all__ = [
    "Decided",
    "FaceRule",
    "clear_caches",
    "evaluate_pool",
    "face_walk",
    "face_walk_packed",
    "face_walk_work",
    "keep_highest",
    "keep_lowest",
    "keep_sum",
    "keep_work",
    "walk_groups",
]

#: work of one (state, dice shown) combination of the general face walk (MAX_WORK units:
#: a rule step and a few big-integer products, about 1 µs)
STEP_WORK = 50
#: Most results kept in the memo cache (least recently used are dropped).
CACHE_SIZE = 256

_cache: OrderedDict[Hashable, Distribution] = OrderedDict()
_MISSING = object()


def clear_caches() -> None:
    """Empty the pool memo cache (it is bounded by ``CACHE_SIZE`` entries anyway).

    >>> clear_caches()
    """
    _cache.clear()


#: a die of more outcomes than this is not a key of the cache: hashing it costs more
#: than it saves (5d545150ph4: 0.3 s to hash the die before its 0.5 s keep)
_CACHED_OUTCOMES = 20_000


def _cached(key: Hashable, compute: Callable[[], Distribution]) -> Distribution:
    if isinstance(key, tuple) and any(isinstance(x, Distribution) and len(x) > _CACHED_OUTCOMES
                                      for x in key):
        return compute()
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
    - ``order``: ``"descending"`` (highest face first, the default) or ``"ascending"``;
    - ``step_work``: the work units the walk charges a step (default :data:`STEP_WORK`; a
      subclass whose ``step`` does more, as AnyDice's sequence features, raises it).

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
    #: work units of one step of this rule (a state and a move), charged by the walk:
    #: a subclass whose ``step`` does more (AnyDice's sequence features: 2-3 times a plain
    #: sum's, measured) says so here
    step_work: int = STEP_WORK

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
    if all(x is dice[0] for x in dice):  # n copies of one die: no hash of it (a die of
        return [(dice[0], len(dice))] if dice else []  # 545 150 outcomes took 0.36 s)
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


def walk_groups(rule: FaceRule, groups: list[list[tuple[Distribution, int]]],
                faces: list[Any], what: str = "evaluating these pools face by face",
                packed: bool = False, step_units: int = STEP_WORK,
                charged: bool = False) -> Any:
    """The face walk of ``rule`` over pools given as groups of (die, copies), reading
    ``faces`` in the order given (they may include faces no die shows: a fixed multiset's,
    the gaps of a straight). What :mod:`chancekit.dice.multiset` walks; not cached.
    ``packed``: the rule's steps return ``(state, shift)`` or ``Decided(shift)`` and the
    weights are generating functions packed in one integer (:func:`face_walk_packed`);
    the packed total is returned. ``charged``: the caller charged an estimate of the whole
    walk (an upper bound of its steps) before it: each face's steps are only counted, not
    charged again.

    >>> from chancekit.dice import d
    >>> rule = FaceRule(lambda st, face, c: st + c[0] * face, initial=0)
    >>> walk_groups(rule, [[(d(2), 2)]], [3, 2, 1]).probability(4)
    Fraction(1, 4)
    """
    return _evaluate(rule, groups, list(faces), what, packed, step_units, charged)


def _evaluate(rule: FaceRule, groups: list[list[tuple[Distribution, int]]],
              faces: list[Any] | None = None,
              what: str = "evaluating these pools face by face", packed: bool = False,
              step_units: int = STEP_WORK, charged: bool = False) -> Any:
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
    if faces is None:
        face_set: set[Any] = set()
        for _, die, _ in types:
            face_set.update(die.outcomes())
        try:
            face_list = sorted(face_set, reverse=(rule.order == "descending"))
        except TypeError:
            raise InvalidTypeError("faces", tuple(face_set), "mutually comparable") from None
    else:
        face_list = faces
    n_faces = len(face_list)
    if not charged and work * n_faces > (most := limits.work_limit()):
        raise LimitError(
            f"evaluating these pools visits about {work * n_faces} (dice left, dice shown) "
            f"combinations per rule state, more than the MAX_WORK budget ({most:,}); use "
            "fewer dice or a built-in with a specialised algorithm", limit="MAX_WORK",
            value=work * n_faces)
    bound = rule.state_bound(face_list, sum(n for _, _, n in types))
    unit = rule.step_work  # a rule's own steps may cost more than the walk's (AnyDice's)
    if bound is not None and not charged:
        limits.charge(work * n_faces * min(bound, MAX_POOL_STATES) * unit,
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

    if [pi for pi, _, _ in types] == list(range(n_pools)) and 1 <= n_pools <= 2:
        # one kind of die per pool: the moves as (dice left, counts, ways) at once
        def left_moves(i: int, rems: tuple[int, ...]) -> Any:
            if n_pools == 1:
                return [((rems[0] - k,), (k,), m) for k, m in options(i, 0, rems[0])]
            ra, rb = rems
            ob = options(i, 1, rb)
            return [((ra - ka, rb - kb), (ka, kb), ma * mb)
                    for ka, ma in options(i, 0, ra) for kb, mb in ob]
        if packed:
            return face_walk_packed(rule, face_list, tuple(n for _, _, n in types),
                                    left_moves, rest, what, given_left=True,
                                    step_units=step_units, charged=charged)
        return face_walk(rule, face_list, tuple(n for _, _, n in types), left_moves, rest,
                         [work * unit] * n_faces if bound is not None else None,
                         bound is not None or charged, what, given_left=True)
    if packed:
        return face_walk_packed(rule, face_list, tuple(n for _, _, n in types), moves, rest,
                                what, step_units=step_units, charged=charged)
    return face_walk(rule, face_list, tuple(n for _, _, n in types), moves, rest,
                     [work * unit] * n_faces if bound is not None else None,
                     bound is not None or charged, what)


def face_walk(rule: FaceRule, faces: list[Any], start: tuple[int, ...],
              moves: Callable[[int, tuple[int, ...]], list[tuple[tuple[int, ...],
                                                               tuple[int, ...], int]]],
              rest: Callable[[int, tuple[int, ...]], int], units: list[int] | None,
              charged: bool, what: str, given_left: bool = False) -> Distribution:
    """The face walk of every multiset evaluator: dice pools (with replacement) and deals
    of cards (without: :mod:`chancekit.dice.cards`). The state is (what each slot -- a
    kind of dice, a hand -- still needs, the rule's state), with integer weights. At face
    ``i``, ``moves(i, rems)`` lists (taken per slot, the counts the rule sees, ways); a
    :class:`Decided` state is finished by ``rest(i, left)``, the ways later faces fill
    what is left. ``units[i]`` work units per state at face ``i`` are counted (``units``
    None: the exact steps of the face, the rule's ``step_work`` each), and charged face by face
    unless ``charged`` (estimated up front from the rule's state bound); ``given_left``:
    ``moves`` gives (dice left, counts, ways) instead of (taken, ...). Refused past
    :data:`MAX_POOL_STATES` states. A rule whose outcomes mix kinds (numbers and tuples:
    typically a ``Decided(x)`` of one kind while ``final`` returns states of another) is
    refused with an error saying so."""
    out: dict[Any, int] = {}

    def add(outcome: Any, w: int) -> None:
        try:
            out[outcome] = out.get(outcome, 0) + w
        except TypeError:
            raise InvalidTypeError("outcome", outcome, "a hashable value") from None

    states: dict[tuple[tuple[int, ...], Any], int] = {(start, rule.initial): 1}
    step = rule.step
    missing = _MISSING
    face_free = getattr(rule, "face_free", False)  # steps do not read the face: one cache
    step_cache: dict[Any, dict[tuple[int, ...], Any]] = {}
    for i, face in enumerate(faces):
        new: dict[tuple[tuple[int, ...], Any], int] = {}
        if not face_free:
            step_cache = {}
        move_cache: dict[tuple[int, ...], list[tuple[tuple[int, ...], tuple[int, ...],
                                                     int]]] = {}
        if units is None:  # the exact work of this face: one step per (state, dice shown)
            for rems, _ in states:
                if rems not in move_cache:
                    move_cache[rems] = moves(i, rems) if given_left else [
                        (tuple([r - k for r, k in zip(rems, taken, strict=True)]), c, w)
                        for taken, c, w in moves(i, rems)]
            steps = sum(len(move_cache[rems]) for rems, _ in states) * rule.step_work
        else:
            steps = len(states) * units[i]
        if not charged:  # no estimate up front: charge each face before reading it
            limits.charge(steps, what, limit=MAX_WORK, name="MAX_WORK")
        limits.count(steps)
        for (rems, st), wt in states.items():
            opts = move_cache.get(rems)
            if opts is None:
                opts = move_cache[rems] = moves(i, rems) if given_left else [
                    (tuple([r - k for r, k in zip(rems, taken, strict=True)]), c, w)
                    for taken, c, w in moves(i, rems)]
            try:
                sc = step_cache.get(st)
            except TypeError:
                raise InvalidTypeError("rule state", st, "a hashable value") from None
            if sc is None:
                sc = step_cache[st] = {}
            for left, counts, ways in opts:
                ns = sc.get(counts, missing)
                if ns is missing:
                    ns = sc[counts] = step(st, face, counts)
                if ns.__class__ is Decided:
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
    _check_kinds(rule, out)
    return Distribution._raw(out)


def face_walk_packed(rule: FaceRule, faces: list[Any], start: tuple[int, ...],
                     moves: Callable[[int, tuple[int, ...]], list[tuple[tuple[int, ...],
                                                                      tuple[int, ...], int]]],
                     rest: Callable[[int, tuple[int, ...]], int], what: str,
                     given_left: bool = False, step_units: int = STEP_WORK,
                     charged: bool = False) -> int:
    """:func:`face_walk` for additive evaluations (counts, sums): the rule's state holds
    only what the operators need, and what the evaluation adds up rides in the weight, a
    generating function packed in one integer (Kronecker substitution: the weight of the
    running total ``t`` sits at bit ``t x slot width``). A step returns ``(state, shift)``
    (the total grows by ``shift / width``: the weight is shifted left) or
    ``Decided(shift)`` (nothing more is added: the rest is summed out in closed form).
    Returns the packed sum of every weight; each face is charged its exact steps.
    ``given_left``: ``moves`` gives (dice left, counts, ways) instead of (taken, ...);
    ``step_units``: the work of one step (wide packed weights cost more than STEP_WORK);
    ``charged``: an estimate of the whole walk was charged before it (steps only counted).
    Fewer states than carrying the total in the state: RISK 10 v 10 holds 121 (dice left)
    instead of about 1,000."""
    states: dict[tuple[tuple[int, ...], Any], int] = {(start, rule.initial): 1}
    step = rule.step
    missing = _MISSING
    face_free = getattr(rule, "face_free", False)
    step_cache: dict[Any, dict[tuple[int, ...], Any]] = {}
    done = 0
    for i, face in enumerate(faces):
        new: dict[tuple[tuple[int, ...], Any], int] = {}
        if not face_free:
            step_cache = {}
        move_cache: dict[tuple[int, ...], list[tuple[tuple[int, ...], tuple[int, ...],
                                                     int]]] = {}
        for rems, _ in states:
            if rems not in move_cache:
                move_cache[rems] = moves(i, rems) if given_left else [
                    (tuple([r - k for r, k in zip(rems, taken, strict=True)]), c, w)
                    for taken, c, w in moves(i, rems)]
        steps = sum(len(move_cache[rems]) for rems, _ in states) * step_units
        if not charged:
            limits.charge(steps, what, limit=MAX_WORK, name="MAX_WORK")
        limits.count(steps)
        for (rems, st), wt in states.items():
            opts = move_cache[rems]
            sc = step_cache.get(st)
            if sc is None:
                sc = step_cache[st] = {}
            for left, counts, ways in opts:
                ns = sc.get(counts, missing)
                if ns is missing:
                    ns = sc[counts] = step(st, face, counts)
                if ns.__class__ is Decided:
                    finish = rest(i, left)
                    if finish:
                        done += (wt * ways * finish) << ns.outcome
                    continue
                nst, sh = ns
                nk = (left, nst)
                new[nk] = new.get(nk, 0) + ((wt * ways) << sh if sh else wt * ways)
        if len(new) > MAX_POOL_STATES:
            raise LimitError(
                f"the rule reached {len(new)} states, more than MAX_POOL_STATES = "
                f"{MAX_POOL_STATES}; keep less in the state", limit="MAX_POOL_STATES",
                value=len(new))
        states = new
    return done + sum(states.values())


def _kind(x: Any) -> str:
    if isinstance(x, bool | int) or hasattr(x, "numerator"):
        return "number"
    if isinstance(x, tuple):
        return "tuple"
    return type(x).__name__


def _check_kinds(rule: FaceRule, out: dict[Any, int]) -> None:
    """Refuse outcomes of mixed kinds (a number and a tuple...): the mark of a rule whose
    ``Decided(x)`` and ``final(state)`` disagree."""
    kinds: dict[str, Any] = {}
    for x in out:
        kinds.setdefault(_kind(x), x)
        if len(kinds) > 1:
            (k1, x1), (k2, x2) = list(kinds.items())[:2]
            hint = ("a step returned Decided(outcome) while final() is the default (the "
                    "state itself): give FaceRule a final= that turns a state into an "
                    "outcome of the same kind") if type(rule).final is FaceRule.final and \
                "final" not in vars(rule) else "make Decided(...) and final() return the same kind"
            raise InvalidValueError(
                f"the rule's outcomes mix kinds: {x1!r} ({k1}) and {x2!r} ({k2}); {hint}")


# -- keep the k highest or lowest ----------------------------------------------------------


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
        return _keep_states(len(faces), max(faces) - min(faces) + 1, self.k)


def _keep_states(faces: int, span: int, k: int) -> int:
    """Bound on the states of the keep rule: (kept so far < k, their sum), the sums of up
    to k - 1 faces: at most ``j x (span - 1) + 1`` and at most the multisets of ``j`` of
    the faces, ``C(faces + j - 1, j)``, for ``j`` kept; plus the decided one."""
    dense = k * (k * (span - 1) + 1)
    if faces > 64:
        return dense + 1
    return min(dense, math.comb(faces + k - 1, k - 1)) + 1


def keep_sum(dice: Sequence[Distribution], *, highest: int | None = None,
             lowest: int | None = None) -> Distribution:
    """Distribution of the sum of the ``highest`` k (or ``lowest`` k) of ``dice``.

    Exactly one of ``highest``/``lowest``, 0 <= k <= len(dice). Identical integer dice take
    the cheapest of three ways, each priced first (:func:`keep_work`): by the face of the
    k-th kept die (O(F · k) polynomial products, 300d6 keep 150 in about 20 ms), the face
    walk carrying the kept sum as an ``fmpz_poly`` (O(F · k²) polynomial-times-integer
    steps), or from the dropped end when few are dropped; mixed dice use
    :func:`evaluate_pool`.

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
    groups = _group(dice)
    for die, _ in groups:  # each distinct die once (n copies of a d100000: 10^5 checks)
        if not (set(map(type, die.outcomes())) <= {int}
                or all(isinstance(x, int) for x in die.outcomes())):
            raise InvalidTypeError("keep_sum: faces", die.outcomes(), "integers")
    if len(groups) == 1:
        die, n = groups[0]
        hi = order == "descending"
        if k == n:
            return die.repeat_sum(n)
        if k == 1:
            work = extreme_work(die, n)
            limits.refuse_past_budget(
                work, f"the {'highest' if hi else 'lowest'} of {n} dice with {len(die)} faces",
                _KEEP_HINT)
            limits.charge(work, f"the highest or lowest of {n} dice")
            limits.count(work)
            return _cached(("extreme", die, n, order), lambda: _extreme_iid(die, n, hi))
        way = _check_keep_work(die, n, k, hi)
        if way == "pool" or n * len(die) <= SMALL_KEEP:
            # a few faces far apart: the sums that occur, not the span; or a small pool
            # (4d6kh3): the face walk over Python integers, as fast as the polynomials here
            # and python-flint is not needed (the static site answers before it loads it)
            return evaluate_pool(_keep_rules(k, order), dice)
        if way == "drop":
            return _cached(("drop", die, n, n - k, order),
                           lambda: _drop_sum_poly(die, n, n - k, hi))
        keep = _keep_walk_poly if way == "walk" else _keep_sum_poly
        return _cached(("keep", die, n, k, order), lambda: keep(die, n, k, hi))
    if k == len(dice):
        total = constant(0)
        for die, n in groups:
            total = total + die.repeat_sum(n)
        return total
    return evaluate_pool(_keep_rules(k, order), dice)


#: n x faces at most this: a keep of n identical dice goes through the face walk over Python
#: integers (4d6kh3: 0.08 ms, as the polynomial ways; 6d6kh3 0.4 ms against 0.06 ms)
SMALL_KEEP = 24


def keep_work(die: Distribution, n: int, k: int, *, highest: bool = True) -> int:
    """Estimated work (units of about 20 ns, :mod:`chancekit.limits`) of the sum of the
    ``highest`` (else lowest) ``k`` of ``n`` identical dice: the cheapest of the three ways
    :func:`keep_sum` has (:func:`_keep_sum_poly` by the threshold face,
    :func:`_keep_walk_poly` by the face walk, and :func:`_drop_sum_poly` when fewer are
    dropped than kept), each priced from its own
    structure and measured against it in benchmarks/bench_limits.py ("keep/drop"):

    * by the threshold face, per face ``k - 1`` products of a polynomial of up to ``k h``
      coefficients by one of ``h + 1`` (``h``: the span beyond the face; schoolbook
      ``a x b`` or Kronecker ``(a + b)`` times a small log factor, whichever is less),
      a tenth of a unit per coefficient and 64-bit word of the weights; every coefficient
      made (the products, the Horner gathering of the faces) about 2 units, 0.3 while
      they fit in 62 bits; 520 units of Python per step;
    * by the face walk (:func:`_keep_walk_poly`): per face ``k(k+1)/2``
      polynomial-times-integer steps on polynomials of up to ``j x span`` coefficients
      (:func:`_walk_steps` spans in all), 1.25 units a coefficient plus one a 16 words of
      weight (21-33 ns a coefficient measured for 2-6 words), and 30 units of Python per
      step;
    * dropping (fewer dropped than kept): per face and per number dropped so far ``j``,
      ``drop - j + 1`` powers of the die's tail to the ``n - j``
      (:func:`chancekit.limits.power_work` each) and 50 units of Python.

    By the threshold face: within 0.6-2.7x of the measured time (median 1.0) over 25 keeps
    of 2 to 1000 dice, 6 to 3000 faces, 2 to 500 kept (issue 31; 0.22-1.7x before).
    300d6kh150: 2.4 M (measured 20-75 ms); 1000d6kh500: 51 M (0.5-0.65 s measured);
    2000d6kh1000: 365 M (refused; 4.5 s measured); 4d6111dl1: refused.

    >>> from chancekit.dice import d
    >>> keep_work(d(6), 300, 150) // 10**5, keep_work(d(6), 4, 3)
    (24, 2214)
    """
    return min(w for w in _keep_costs(die, n, k, highest) if w is not None)


def _keep_costs(die: Distribution, n: int, k: int,
                highest: bool) -> tuple[int, int, int | None, int | None]:
    """(by the threshold face, by the face walk, dropping or None, the general walk or
    None) of :func:`keep_work`."""
    outs = die.outcomes()
    top, bottom = outs[-1], outs[0]
    hs = [top - f for f in outs] if highest else [f - bottom for f in outs]
    return _keep_work(hs, top - bottom + 1, die.total.bit_length(), n, k)


def face_walk_work(faces: int, span: int, tbits: int, n: int, k: int) -> int:
    """:func:`keep_work` of a die known by its number of ``faces``, its ``span`` (highest
    minus lowest face, plus one) and the bits of its total weight (``tbits``), its faces
    taken as evenly spread: what the pool evaluator checks before building the die it
    will keep from."""
    # the sampled faces spread over the whole span (not the first _SAMPLED of it: 12d519kh7
    # was priced 11.8 M in the tree, 27 M by keep_work)
    m = min(faces, _SAMPLED)
    step = (span - 1) / max(m - 1, 1)
    costs = _keep_work([round(i * step) for i in range(m)],
                       span, tbits, n, k, scale=faces / m)
    return min(w for w in costs if w is not None)


#: what a refused keep suggests instead
_KEEP_HINT = "use fewer or smaller dice, or estimate it by rolling (chancekit.roll) many times"
#: most faces for which :func:`keep_sum` also prices the general walk (:func:`evaluate_pool`)
_SPARSE_FACES = 16
#: the price of one Kronecker product step of :func:`_keep_work`'s threshold-face way, per
#: coefficient (x sqrt(log2 of the factor's length)); 4 before issue 31 (60-170 ns a unit
#: measured for 8-16 dice of 200-1000 faces, 35 for 300d6kh150); 16: 30-40 ns a unit
#: under the same load, as the engine's sums
KRONECKER_FACTOR = 16
#: faces priced one by one in :func:`_keep_work`; more are priced from this many samples
_SAMPLED = 256


def _keep_work(hs: list[int], span: int, tbits: int, n: int, k: int, *,
               scale: float = 1.0) -> tuple[int, int, int | None, int | None]:
    """The ways of :func:`keep_work` (by the threshold face; by the face walk; dropping,
    or None when as many are dropped as kept; the general walk of :func:`evaluate_pool`
    with the keep rule, or None past :data:`_SPARSE_FACES` faces: its own estimate);
    ``hs``: each face's distance to the far end of the kept side (sampled when there are
    many; ``scale`` faces each)."""
    faces = round(len(hs) * scale)
    words = n * tbits // 64 + 1
    drop = n - k
    dropping = None
    if len(hs) > _SAMPLED:
        hs = sorted(hs)
        scale *= len(hs) / _SAMPLED
        hs = [hs[i * len(hs) // _SAMPLED] for i in range(_SAMPLED)]
    if drop < k:  # read from the dropped end; each step powers the die beyond its face,
        # h + 1 wide (priced with the whole span, 216d10rr2kh212's drop was priced 22.5 M
        # and ran 0.06 s, so the threshold way, priced 11.6 M, ran instead: 0.5-0.9 s)
        dropping = int(scale * sum(drop * (drop + 3) // 2
                                   * power_work(h + 1, n * h + 1, n * tbits) for h in hs)
                       ) + faces * drop * 50
    steps = k - 1
    tri = steps * (steps - 1) // 2  # sum over the steps of (m - 1)
    products = copies = 0.0
    for h in hs:
        if h:
            b = h + 1
            school = b * (steps + h * tri)
            # (Kronecker products measured 4x dearer than first priced: [lowest 7 of
            # 14d1000], 45 M units, ran 4.8 s; 10d1000kh5 2 s at 17 M: issue 31)
            kronecker = KRONECKER_FACTOR * max(1.0, math.log2(b)) ** 0.5 * (
                steps * (1 + b) + h * tri)
            products += min(school, kronecker)
            copies += steps * (1 + b) + h * tri
        copies += (k + 4) * h
    # a coefficient past 62 bits is a GMP integer: each one made costs about 40 ns (the
    # typical one: the total over the k x span sums; 6d2000kh2's fit, 0.08 s)
    big = 1.0 if n * tbits - (k * span).bit_length() > 62 else 0.15
    # (fitted over 25 keeps of 2-1000 dice, 6-3000 faces, 2-500 kept, issue 31: 0.6-2.7x
    # the measured time, median 1.0; the factors were 0.093, 0.456 and 264, 0.22-1.7x,
    # 11d2000kh2 ran 0.74 s priced 7.9 M)
    work = scale * (0.1 * products * words + 2.0 * copies * big) \
        + 524 * faces * k * (1 + words / 16)
    walk = faces * (span * _walk_steps(k) * (20 + words) // 16 + k * (k + 1) // 2 * 30)
    pool = None
    if faces <= _SPARSE_FACES and n + 1 <= MAX_POOL_STATES:
        states = min(_keep_states(faces, span, k), MAX_POOL_STATES)
        pool = (n + 1) * (n + 2) // 2 * faces * states * STEP_WORK
    return int(work) + 1, walk, dropping, pool


def _walk_steps(k: int) -> int:
    """Coefficients :func:`_keep_walk_poly` reads or writes a face, in spans: for each
    number kept so far ``j < k``, the result's ``k`` spans added to, the state's ``j``
    times the absorbing weight, and each of its ``k - j`` moves (a product by an integer,
    a shift, a sum into the state after it: ``2j + t`` spans). 8 for k = 2, 24 for 3
    (``k^3 / 6`` before: 11d2000kh2, 14d1000kh3, 20d805kh3 ran 2.5-5x their price). O(1).

    >>> _walk_steps(2), _walk_steps(3), _walk_steps(10**6) > 10**17
    (8, 24, True)
    """
    # sum over j < k of k + j + 2j(k - j) + (k - j)(k - j - 1)/2, in closed form: O(1)
    # (the sum itself is O(k^2): 45747d3dl3 priced a keep of 45 744 dice for minutes)
    return k * k + k * (k - 1) // 2 + k * k * (k - 1) - (k - 1) * k * (2 * k - 1) // 3 \
        + (k + 1) * k * (k - 1) // 6


def _check_keep_work(die: Distribution, n: int, k: int, highest: bool) -> str:
    """Refuse up front a sum of the ``k`` highest/lowest of ``n`` identical dice whose
    estimated work (:func:`keep_work`) passes ``MAX_WORK`` (units of about 20 ns, so
    about a second): 20d1000kh10 (7 s), 4d6111dl1 (12 s) and 34d611dl1 (18 s) are
    refused, 300d6kh150 (17 ms), 8d1000kh4 (0.2 s) and 3d3000kh2 (0.14 s) are not.
    Charges the budget (but for "pool": :func:`evaluate_pool` charges its own, the same
    estimate); returns the cheapest way: "face", "walk", "drop" or "pool"."""
    costs = _keep_costs(die, n, k, highest)
    work, way = min((w, way) for w, way in
                    zip(costs, ("face", "walk", "drop", "pool"), strict=True) if w is not None)
    limits.refuse_past_budget(work, f"keeping {k} of {n} dice with {len(die)} faces",
                              _KEEP_HINT)
    if way != "pool":
        limits.charge(work, f"keeping {k} of {n} dice")
        limits.count(work)
    return way


def extreme_work(die: Distribution, n: int) -> int:
    """Estimated work (units of about 20 ns) of :func:`_extreme_iid`: per face one power to
    the ``n`` of an integer, ``n x bits`` of the die's total wide (repeated squaring, about
    words^1.58 x log2 n word products), 55 units of Python, and one quadratic gcd of the
    weights (words² / 8). Measured: 3000 dice of 10000
    faces 1.24 s (66 M units: refused), 1000 dice of 1000 faces 14 ms (0.6 M).

    >>> from chancekit.dice import d
    >>> extreme_work(d(1000), 1000) // 10**3
    645
    """
    words = n * die.total.bit_length() // 64 + 1
    # and the gcd that reduces the weights: the first one between two of them is quadratic
    # in their words (CPython's Lehmer gcd, about 0.12 units a word squared), then linear
    # (55 units of Python a face, with the result's dict sorted and summed: 5d889485kl1 ran
    # 1.0 s priced 40 M at 40)
    return int(len(die) * (55 + words ** 1.58 * math.log2(n + 1) / 50) + words * words / 8) + 1


def _extreme_iid(die: Distribution, n: int, highest: bool) -> Distribution:
    """The highest (or lowest) of ``n`` copies of ``die`` in closed form: the weight of face
    ``f`` is ``S(f)**n - S'(f)**n`` with ``S``/``S'`` the weight of faces up to ``f``
    included / excluded (beyond ``f`` for the lowest). O(F) big-integer powers."""
    out: dict[Any, int] = {}
    cum = 0
    prev = 0
    for f, w in sorted(die.weights.items(), reverse=not highest):
        cum += w
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
    """Sum of the highest (``highest``) or lowest ``k`` of ``n`` copies of ``die``, by the
    face ``f`` of the ``k``-th kept die (the threshold): ``j < k`` dice beyond ``f`` (kept
    whole), ``t >= k - j`` dice on ``f`` (``k - j`` of them kept), the rest dropped. With
    ``H`` the generating polynomial of one die's faces beyond ``f`` (exponent: distance
    from ``f``) and ``L`` the weight of the faces on the dropped side,

        sum_j C(n, j) T_j H^j,   T_j = sum_{t >= k-j} C(n-j, t) w_f^t L^(n-j-t),

    evaluated by Horner's rule in ``H``: per face ``k - 1`` products of a polynomial of up
    to ``k x span`` coefficients by ``H`` (at most ``span`` of them), and ``k`` updates of
    ``T_j`` along ``n - j - (k - j) = n - k`` (each a few products by small integers). The
    faces' terms are gathered by Horner's rule too (shift by ``k`` x the gap to the next
    face, add). O(F · k² · span) coefficient operations: keeping half of ``n`` dice grows
    as n² coefficient operations (n³ bit operations); 240d6kh120 in about 12 ms."""
    if highest:
        faces = sorted(die.outcomes())
        ws = [die.weights[f] for f in faces]
    else:  # the lowest k of X are minus the highest k of -X
        faces = sorted(-f for f in die.outcomes())
        ws = [die.weights[-f] for f in faces]
    nf = len(faces)
    drop = n - k
    binom = [1] * k  # C(n, j)
    for j in range(1, k):
        binom[j] = binom[j - 1] * (n - j + 1) // j
    below = [0] * nf  # weight of the faces below each (the dropped side)
    acc_w = 0
    for i, w in enumerate(ws):
        below[i] = acc_w
        acc_w += w
    poly = flint.fmpz_poly
    H = poly([])  # the faces above faces[i], exponent g - faces[i]
    result = poly([])  # the faces' terms so far, exponent: sum - k * faces[i]
    for i in range(nf - 1, -1, -1):
        w, low = ws[i], below[i]
        s = w + low
        # T_j for j = k-1 .. 0 (r = n - j dice unread, at least m = k - j on the face):
        # T(r+1, m+1) = s T(r, m) - C(r, m) w^m low^(r-m+1), the last term kept as `c`
        lowd = low**drop
        c = (drop + 1) * w * low * lowd  # C(r, 1) w low^(n-k+1) at r = n - k + 1
        T = s ** (drop + 1) - low * lowd
        r, m = drop + 1, 1
        top = H.degree() < 0  # the top face: nothing beyond it, only j = 0 counts
        acc = poly([]) if top else poly([binom[k - 1] * T])
        for j in range(k - 2, -1, -1):
            T = s * T - c
            c = c * (r + 1) // (m + 1) * w
            r += 1
            m += 1
            if not top:
                acc = acc * H + binom[j] * T
        if top:
            acc = poly([T])
        result = acc if i == nf - 1 else result.left_shift(k * (faces[i + 1] - faces[i])) + acc
        if i:
            H = (H + w).left_shift(faces[i] - faces[i - 1])
    if highest:
        return Distribution._from_poly(k * faces[0], result)
    g = int(result.content())
    base = k * faces[0]
    out = {-(base + e): int(x) // g for e, x in enumerate(result.coeffs()) if x}
    return Distribution._raw(dict(sorted(out.items())), reduced=True)


def _keep_walk_poly(die: Distribution, n: int, k: int, highest: bool) -> Distribution:
    """Sum of the highest (``highest``) or lowest ``k`` of ``n`` copies of ``die`` by the
    face walk: the faces read from the kept end, the state (dice kept so far ``j < k``)
    holding their sum as a polynomial; per face ``k(k+1)/2`` polynomial-times-integer
    steps. O(F · k³ · span) coefficient operations, but each a product by an integer:
    cheaper than :func:`_keep_sum_poly` for a few dice kept of a wide die with big
    weights (20d10!!kh10 compounded: 0.6 s against 1.2 s)."""
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
    return keep_sum(_copies(n, die), highest=k)


def keep_lowest(n: int, die: Distribution, k: int) -> Distribution:
    """Sum of the lowest ``k`` of ``n`` copies of ``die``.

    >>> from chancekit.dice import d
    >>> keep_lowest(2, d(20), 1).probability(1)
    Fraction(39, 400)
    """
    return keep_sum(_copies(n, die), lowest=k)


def _copies(n: int, die: Distribution) -> list[Distribution]:
    """``n`` copies of ``die``, both checked (the arguments of keep_highest/keep_lowest)."""
    n = require_int("n", n, lo=0)
    _check_dice(n)
    if not isinstance(die, Distribution):
        raise InvalidTypeError("die", die, "a Distribution")
    return n * [die]
