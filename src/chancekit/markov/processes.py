"""Processes built on the exact chain engine: usage dice, HP races, rolling until a
condition on the last rolls, drawing from a deck until a condition, the first success of
a fairness system (and its long-run shares), and Monopoly-style boards.

Each is one small ``step`` function handed to :mod:`chancekit.markov.chain`, so the
answers are exact and the limits are the engine's: each takes ``max_work=N`` (units of
work, default :data:`~chancekit.limits.MAX_MARKOV_WORK`) for its sizes known up front, its
exploration and its solves together.

>>> from chancekit import d
>>> roll_until(d(6), lambda last: last == (6, 6), 2).mean      # two 6s in a row
Fraction(42, 1)
>>> race = hp_race((10, 10), ("2d6", "1d8+1"))
>>> race.winner.probability("first") > race.winner.probability("second")
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.cards import Deck
from chancekit.dice.distribution import Distribution, d
from chancekit.errors import InvalidTypeError, InvalidValueError, quote
from chancekit.fair.studio import AimAssist, GachaPity
from chancekit.fair.systems import PRD, PityTimer, System
from chancekit.markov.chain import (
    Steps,
    _absorb,
    _absorb_work,
    _acyclic_scale,
    _budget,
    _moments_work,
    _steps,
    _steps_of,
    absorb,
    explore,
    stationary,
    steps,
    upfront,
)

__all__ = ["BUILTINS", "Race", "board", "builtin", "draw_until", "first_success", "hp_race",
           "long_run", "monopoly", "roll_until", "usage_die"]


def _lifted(build: Callable[..., Any]) -> Callable[..., Any]:
    """A builder run inside one chain budget of ``max_work`` units (its keyword; default
    :data:`~chancekit.limits.MAX_MARKOV_WORK`): its up-front sizes, exploration and
    solves all charge it."""
    @functools.wraps(build)
    def run(*args: Any, **kwargs: Any) -> Any:
        with _budget(kwargs.get("max_work")):
            return build(*args, **kwargs)

    return run


def _die(value: Any, what: str) -> Distribution:
    """A die argument: a Distribution, dice notation, or an int number of sides."""
    if isinstance(value, Distribution):
        return value
    if isinstance(value, str):
        from chancekit.dice.notation import dist
        return dist(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return d(require_int(what, value, lo=1))
    raise InvalidTypeError(what, value, "a Distribution, dice notation or a number of sides")


def _ints(die: Distribution, what: str) -> None:
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in die.outcomes()):
        raise InvalidValueError(what, die, "a distribution of integers")


# --------------------------------------------------------------------------- usage die
@_lifted
def usage_die(ladder: Sequence[Any], *, down: Iterable[int] = (1, 2),
              upto: int | None = None, tail: Fraction | float | None = None,
              max_work: int | float | None = None) -> Steps:
    """Uses of a usage die: roll the first die of ``ladder`` each use; on a face in
    ``down`` it steps down to the next die, after the last it is spent. Exact mean and
    variance (a die of s sides with down {1, 2} lasts s/2 uses on average); the count has
    no bound, so its distribution is walked up to ``upto`` uses or a ``tail`` mass
    (:func:`~chancekit.markov.steps`).

    >>> u = usage_die([12, 10, 8, 6, 4])
    >>> u.mean, u.variance                     # sum of s/2, sum of (s/2)(s/2 - 1)
    (Fraction(20, 1), Fraction(70, 1))
    """
    if isinstance(ladder, str | bytes) or not isinstance(ladder, Sequence) or not ladder:
        raise InvalidValueError("ladder", ladder, "a non-empty sequence of dice (d12, 10, '1d8')")
    dice = [_die(x, f"ladder[{i}]") for i, x in enumerate(ladder)]
    if isinstance(down, str | bytes) or not isinstance(down, Iterable):
        raise InvalidTypeError("down", down, "a set of faces, e.g. {1, 2}")
    low = frozenset(down)
    for i, die in enumerate(dice):
        stay = sum(w for x, w in die.items() if x not in low)
        if stay == die.total:
            raise InvalidValueError(f"ladder[{i}]", die,
                                    f"a die that can roll one of {sorted(low, key=repr)}")
    moves = [Distribution({i: sum(w for x, w in die.items() if x not in low),
                           i + 1: sum(w for x, w in die.items() if x in low)})
             for i, die in enumerate(dice)]
    last = len(dice)
    return steps(lambda i: i if i == last else moves[i], 0, upto=upto, tail=tail)


# --------------------------------------------------------------------------- HP races
@dataclass(frozen=True)
class Race:
    """An HP race: ``winner`` (``"first"``, ``"second"``, or ``"both"`` when both go
    down in the same simultaneous round; None for a one-sided race) and ``rounds``, the
    rounds until it ends (:class:`~chancekit.markov.Steps`)."""

    winner: Distribution | None
    rounds: Steps


def _times(hp: int, dmg: Distribution) -> list[Fraction] | None:
    """P(down after exactly t hits), t = 0..hp, when every hit does at least 1 (else None)."""
    if min(dmg.outcomes()) < 1:
        return None
    s = steps(lambda h: h if h <= 0 else dmg.map(lambda x: max(h - x, 0)), hp)
    return list(s.pmf)


def _upfront_side(hp: int, dmg: Distribution) -> None:
    """One side's chain is known before it is explored: HP from ``hp`` down to below 0
    (at most ``hp + max damage`` values), each with at most one transition an outcome."""
    states = hp + max(max(dmg.outcomes()), 0) + 1
    low = min(dmg.outcomes())
    heals = low < 0  # then the HP line reaches back up: one component
    walk = 0
    if low >= 1:  # the full distribution of the time to go down: at most hp / low hits
        walk = (states * (len(dmg) + 1) * limits.MARKOV_EDGE_WORK
                * (1 + -(-hp // low) // 4))  # what steps() charges, small numbers
    upfront(f"a race of {hp:,} HP", states, states * len(dmg), hp if heals else 0, walk)


@_lifted
def hp_race(hp: int | Sequence[int], damage: Any | Sequence[Any], *,
            order: str = "simultaneous", method: str = "auto", upto: int | None = None,
            tail: Fraction | float | None = None, max_work: int | float | None = None) -> Race:
    """Rounds until hit points run out, and who wins a race of two.

    One side: ``hp_race(30, "2d6")``, the rounds until 30 HP are gone at 2d6 a round.
    Two sides: ``hp_race((a, b), (dmg_first, dmg_second))``: each round the first deals
    ``dmg_first`` to the second and the second ``dmg_second`` to the first, both at once
    (``order="simultaneous"``: both may go down together, ``"both"``) or the first
    before the second (``"alternating"``: a fighter down does not strike back). Damage is
    a Distribution of integers, notation or a number of sides; 0 or negative (healing)
    outcomes are allowed (healing stops at the starting HP, the maximum).

    When every hit does at least 1 the two sides are independent processes: the
    race is read from each side's exact time to go down (``method="auto"``, O(hp x
    outcomes) each); otherwise, or with ``method="joint"``, the pair of HP is one chain
    (O(a x b x outcomes^2)). The rounds' distribution is complete when their count is
    bounded, else walked up to ``upto`` rounds or a ``tail`` mass.

    >>> hp_race(30, "2d6").rounds.mean > 4
    True
    >>> hp_race((6, 7), ("1d6", "3"), order="alternating").winner.probability("first")
    Fraction(7, 12)
    """
    if order not in ("simultaneous", "alternating"):
        raise InvalidValueError("order", order, "'simultaneous' or 'alternating'")
    if method not in ("auto", "joint"):
        raise InvalidValueError("method", method, "'auto' or 'joint'")
    if isinstance(hp, int):
        a = require_int("hp", hp, lo=1, hi=10**6)
        dmg = _die(damage, "damage")
        _ints(dmg, "damage")
        if max(dmg.outcomes()) <= 0:
            raise InvalidValueError("damage", damage, "damage that can lower the HP (some "
                                    "outcome above 0): else the race never ends")
        _upfront_side(a, dmg)
        times = _times(a, dmg) if method == "auto" else None
        if times is not None:
            return Race(None, _cut(_steps_of(times), upto))
        return Race(None, steps(
            lambda h: h if h <= 0 else dmg.map(lambda x: min(h - x, a)), a,
            upto=upto, tail=tail))
    if isinstance(hp, str | bytes) or not isinstance(hp, Sequence) or len(hp) != 2:
        raise InvalidValueError("hp", hp, "an int, or a pair (first, second)")
    if isinstance(damage, str | bytes) or not isinstance(damage, Sequence) or len(damage) != 2:
        raise InvalidValueError("damage", damage, "a pair (dealt by first, dealt by second)")
    a = require_int("hp[0]", hp[0], lo=1, hi=10**6)
    b = require_int("hp[1]", hp[1], lo=1, hi=10**6)
    da = _die(damage[0], "damage[0]")
    db = _die(damage[1], "damage[1]")
    _ints(da, "damage[0]")
    _ints(db, "damage[1]")
    if max(da.outcomes()) <= 0 and max(db.outcomes()) <= 0:
        raise InvalidValueError("damage", damage, "damage that can lower someone's HP (an "
                                "outcome above 0 on either side): else the race never ends")
    if method == "auto" and min(da.outcomes()) >= 1 and min(db.outcomes()) >= 1:
        _upfront_side(a, db)
        _upfront_side(b, da)
        ta, tb = _times(a, db), _times(b, da)  # rounds until first / second goes down
        if ta is not None and tb is not None:
            race = _independent(ta, tb, order)
            return Race(race.winner, _cut(race.rounds, upto))
    return _joint(a, b, da, db, order, upto, tail)


def _cut(s: Steps, upto: int | None) -> Steps:
    """A complete count's distribution cut at ``upto`` (the rest stated as the tail)."""
    if upto is None or upto >= s.upto:
        return s
    pmf = s.pmf[:upto + 1]
    return Steps(s.mean, s.variance, pmf, 1 - sum(pmf, Fraction(0)))


def _independent(ta: list[Fraction], tb: list[Fraction], order: str) -> Race:
    """The race from the two independent times to go down: the first wins when the
    second goes down first (``tb < ta``; in alternating order also ``tb == ta``)."""
    n = max(len(ta), len(tb))
    ta = ta + [Fraction(0)] * (n - len(ta))
    tb = tb + [Fraction(0)] * (n - len(tb))
    win = {"first": Fraction(0), "second": Fraction(0), "both": Fraction(0)}
    rounds = [Fraction(0)] * n
    sa = sb = Fraction(1)  # P(T > t - 1)
    for t in range(n):
        sa_next, sb_next = sa - ta[t], sb - tb[t]  # P(T > t)
        first = tb[t] * sa_next          # second down at t, first still up
        second = ta[t] * sb_next
        both = ta[t] * tb[t]
        if order == "alternating":
            first += both
            both = Fraction(0)
        win["first"] += first
        win["second"] += second
        win["both"] += both
        rounds[t] = first + second + both
        sa, sb = sa_next, sb_next
    while len(rounds) > 1 and not rounds[-1]:
        rounds.pop()
    return Race(Distribution(win), _steps_of(rounds))


def _joint(a: int, b: int, da: Distribution, db: Distribution, order: str,
           upto: int | None = None, tail: Fraction | float | None = None) -> Race:
    block = (a if min(db.outcomes()) < 0 else 1) * (b if min(da.outcomes()) < 0 else 1)
    upfront(f"a race of {a:,} x {b:,} HP", a * b + 3, a * b * len(da) * len(db),
            block if block > 1 else 0)
    ends = ("first", "second", "both")
    wa, wb = list(da.items()), list(db.items())

    def step(state: Any) -> Any:
        if state in ends:
            return Distribution._raw({state: 1}, reduced=True)
        x, y = state
        out: dict[Any, int] = {}
        for hit_b, w1 in wa:          # the first's damage to the second
            y2 = y - hit_b
            if order == "alternating" and y2 <= 0:
                out["first"] = out.get("first", 0) + w1 * db.total
                continue
            y2 = min(y2, b)  # healing stops at the starting HP
            for hit_a, w2 in wb:
                x2 = min(x - hit_a, a)
                key: Any = ("both" if x2 <= 0 else "first") if y2 <= 0 else (
                    "second" if x2 <= 0 else (x2, y2))
                out[key] = out.get(key, 0) + w1 * w2
        return Distribution._raw(out)

    chain = explore(step, (a, b))
    with _budget():  # one budget, both passes estimated before either starts
        acyclic = _acyclic_scale(chain)
        limits.check(_absorb_work(chain, acyclic) + _moments_work(chain, acyclic),
                     f"a race of {a:,} x {b:,} HP (the joint chain: {len(chain):,} states, "
                     f"{chain.transitions:,} transitions)")
        return Race(_absorb(chain), _steps(chain, upto, None if tail is None
                                           else Fraction(tail)))


# --------------------------------------------------------------------------- roll until
@_lifted
def roll_until(die: Any, condition: Callable[[tuple[Any, ...]], bool], k: int, *,
               upto: int | None = None, tail: Fraction | float | None = None,
               max_work: int | float | None = None) -> Steps:
    """Rolls of ``die`` until ``condition(last)`` holds, ``last`` the tuple of the last
    ``k`` rolls (fewer before ``k`` rolls). States are the possible ``last`` tuples (up to
    outcomes**k): map the die first (``d(6).map(lambda x: x == 6)``) to keep them few.

    >>> from chancekit import d
    >>> roll_until(d(6), lambda last: last == (6,), 1).mean
    Fraction(6, 1)
    >>> roll_until(d(2), lambda last: last == (1, 2, 1), 3).mean     # HTH: 10 flips
    Fraction(10, 1)
    """
    die = _die(die, "die")
    k = require_int("k", k, lo=1, hi=64)
    m = len(die)
    states = sum(m**j for j in range(k + 1)) + 1
    upfront(f"rolling until a condition on the last {k} rolls of {m} outcomes", states,
            states * m)
    if not callable(condition):
        raise InvalidTypeError("condition", condition, "a function tuple -> bool")
    class _Done:  # a marker no die outcome equals
        __slots__ = ()

    mark = _Done()
    cache: dict[Any, Any] = {}

    def step(last: Any) -> Any:
        if last is mark:
            return mark
        out = cache.get(last)
        if out is None:
            w: dict[Any, int] = {}
            for x, q in die.items():
                nxt = (*last, x)[-k:]
                key = mark if condition(nxt) else nxt
                w[key] = w.get(key, 0) + q
            out = cache[last] = Distribution._raw(w)
        return out

    return steps(step, (), upto=upto, tail=tail)


# --------------------------------------------------------------------------- draw until
@_lifted
def draw_until(deck: Deck, condition: Callable[[Deck], bool], *,
               max_work: int | float | None = None) -> Distribution:
    """Cards drawn (without replacement) until ``condition(drawn)`` holds, ``drawn`` the
    cards so far as a :class:`~chancekit.dice.Deck`; outcome ``None`` when the deck runs
    out first. Exact; states are the multisets of drawn cards before the condition holds
    (counted as they are explored: the condition is opaque), so map the deck to what
    the condition reads (``standard_deck().map(rank)`` for pairs: 2**13 states).

    >>> from chancekit.dice import Deck, standard_deck
    >>> from chancekit.dice.cards import rank
    >>> pair = draw_until(standard_deck().map(rank), lambda h: max(h.counts.values()) == 2)
    >>> pair.mean() > 5
    True
    >>> draw_until(Deck(list("AAKK")), lambda h: h.copies("A") == 2).pmf()
    {2: Fraction(1, 6), 3: Fraction(1, 3), 4: Fraction(1, 2)}
    """
    if not isinstance(deck, Deck):
        raise InvalidTypeError("deck", deck, "a chancekit Deck")
    if not callable(condition):
        raise InvalidTypeError("condition", condition, "a function Deck -> bool")
    values = list(deck.counts)
    copies = [deck.counts[v] for v in values]
    size = len(deck)

    def step(state: Any) -> Any:
        if state[0] == "end":
            return state
        drawn = state
        n = sum(drawn)
        if n == size:
            return ("end", None)
        w: dict[Any, int] = {}
        for i, _v in enumerate(values):
            left = copies[i] - drawn[i]
            if left:
                nxt = (*drawn[:i], drawn[i] + 1, *drawn[i + 1:])
                hand = Deck._trusted({values[j]: c for j, c in enumerate(nxt) if c})
                key = ("end", n + 1) if condition(hand) else nxt
                w[key] = w.get(key, 0) + left
        return Distribution._raw(w)

    start = tuple(0 for _ in values)
    if not size:
        return Distribution({None: 1})
    return absorb(step, start).map(lambda s: s[1])


# --------------------------------------------------------------------------- fairness
def _rational(x: float) -> Fraction:
    """A system's float chance read as the decimal it was written as: the nearest
    fraction with a denominator up to 10**9 (0.006 + 2 * 0.06 -> 63/500)."""
    return Fraction(x).limit_denominator(10**9)


def _since_cap(system: System) -> int | None:
    """For a "try since the last success" system: a k from which the success chance no
    longer changes (the chain caps its counter there), None when unknown."""
    if isinstance(system, PRD):
        return math.ceil(1 / system.C) + 1
    pity = system._pity if isinstance(system, GachaPity) else system
    if isinstance(pity, PityTimer):
        if pity.hard is not None:
            return pity.hard
        if pity.soft_start is None:
            return 1
        if pity.ramp > 0:
            return pity.soft_start + math.ceil((1 - pity.base) / pity.ramp) + 1
        return pity.soft_start
    if isinstance(system, AimAssist):
        if system.step == 0:
            return 1
        return 2 + math.ceil((system.cap - system.base) / system.step)
    return None


def _state_chain(system: System) -> tuple[Callable[[Any], Any], Any, Callable[[Any], Any]]:
    """(canonical state, start, probabilities at a state) of a system's state chain.
    Refused up front when the state is known to be too big: a counter capped past
    MAX_MARKOV_STATES, or a system whose state counts every draw (dice, decks, dynamic
    dice: no finite chain)."""
    from chancekit.fair.systems import _CountSystem

    if isinstance(system, _CountSystem) or isinstance(getattr(system, "inner", None),
                                                      _CountSystem):
        raise InvalidValueError(
            f"{type(system).__name__}'s state counts every value drawn, so its chain has no "
            "end; first_success and long_run take systems with a bounded state (PRD, pity "
            "timers, gacha, error accumulator, aim assist, lucky streak, history rerolls)")
    sysc = system.copy()
    cap = _since_cap(sysc)
    if cap is not None:
        flags = 2 * ((system.fate or 0) + 1) if isinstance(system, GachaPity) else 1
        states = flags * cap + 2
        upfront(f"{type(system).__name__}'s counter (up to {cap:,} tries since a success)",
                states, 3 * states)
    if cap is not None:
        def canon(s: Any) -> Any:
            return (min(s[0], cap), *s[1:])
    else:
        def canon(s: Any) -> Any:
            return s

    return canon, canon(sysc.getstate()), _stepper(sysc, canon)


def _stepper(sysc: System, canon: Callable[[Any], Any]) -> Any:
    """``probs(state)``, the system's exact chances at a state (summing to 1), with
    ``probs.after(state, i)``, the canonical state after drawing value ``i``: both run on
    ``sysc`` (a copy: its state is set each call)."""
    def probs(s: Any) -> list[Fraction]:
        sysc.setstate(s)
        p = [_rational(x) for x in sysc.probabilities()]
        tot = sum(p)
        return [x / tot for x in p]

    def after(s: Any, i: int) -> Any:
        sysc.setstate(s)
        sysc.observe(i)
        return canon(sysc.getstate())

    probs.after = after  # type: ignore[attr-defined]
    return probs


@_lifted
def first_success(system: System, value: Any = True, *, upto: int | None = None,
                  tail: Fraction | float | None = None, max_work: int | float | None = None
                  ) -> Steps:
    """Draws of a fairness system (from its current state) until it draws ``value``
    (``True`` for the two-value systems; ``"featured"`` for :class:`GachaPity`: pulls
    until the featured item, the 50/50 guarantee included). Exact; the system's float
    chances are read as the decimals they were written as (:func:`_rational`). Counters
    past the point where the chance stops changing are merged, so a pity timer without a
    hard pity is a finite chain.

    >>> from chancekit.fair import PityTimer
    >>> first_success(PityTimer(0.25, hard=4)).pmf
    (Fraction(0, 1), Fraction(1, 4), Fraction(3, 16), Fraction(9, 64), Fraction(27, 64))
    """
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System")
    if value not in system.values:
        raise InvalidValueError("value", value, f"one of the system's values {system.values}")
    target = system.values.index(value)
    _, start, probs = _state_chain(system)
    after = probs.after  # type: ignore[attr-defined]

    class _Hit:
        __slots__ = ()

    hit = _Hit()

    def step(s: Any) -> Any:
        if s is hit:
            return hit
        w: dict[Any, Fraction] = {}
        for i, p in enumerate(probs(s)):
            if p:
                key = hit if i == target else after(s, i)
                w[key] = w.get(key, 0) + p
        return Distribution(w)

    return steps(step, start, upto=upto, tail=tail)


@_lifted
def long_run(system: System, *, max_work: int | float | None = None) -> Distribution:
    """The exact long-run share of each value of a system (from its current state): the
    stationary distribution of its state chain, then each state's chances. This is
    what :meth:`System.target` should return.

    >>> from chancekit.fair import PityTimer
    >>> long_run(PityTimer(0.5, hard=2)).probability(True)
    Fraction(2, 3)
    """
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System")
    _, start, probs = _state_chain(system)
    after = probs.after  # type: ignore[attr-defined]

    def step(s: Any) -> Any:
        w: dict[Any, Fraction] = {}
        for i, p in enumerate(probs(s)):
            if p:
                key = after(s, i)
                w[key] = w.get(key, 0) + p
        return Distribution(w)

    share = stationary(step, start)
    out: dict[Any, Fraction] = {}
    for s, q in share.pmf().items():
        for i, p in enumerate(probs(s)):
            if p:
                v = system.values[i]
                out[v] = out.get(v, 0) + q * p
    return Distribution(out)


# --------------------------------------------------------------------------- boards
Card = Any  # None (stay), an int (go to that square), or a function square -> square


@_lifted
def board(squares: int, dice: Any = "2d6", *, doubles: int | None = 3,
          jail: int | None = None, go_to: Mapping[int, int] | None = None,
          cards: Mapping[int, Sequence[Card]] | None = None, sides: int | None = None,
          jail_ends_run: bool = True, max_work: int | float | None = None) -> Distribution:
    """The long-run share of rolls that end on each square of a race-track board.

    ``squares`` squares (0 = start); each roll moves by ``dice`` (or, with ``sides``, by
    two dice of that many sides, whose doubles count: the ``doubles``-th double in a row
    sends the token to ``jail`` instead of moving). ``go_to`` maps a square to where
    landing on it sends the token; ``cards`` maps a square to its deck of equally likely
    cards, each None (stay), a square number, or a function ``square -> square`` (drawn
    with replacement). Being sent to ``jail`` by a square or a card ends the run of
    doubles unless ``jail_ends_run=False``. Exact stationary distribution (one dense solve of up to
    squares x doubles states).

    >>> share = board(4, "1d2")
    >>> share.pmf()[0]
    Fraction(1, 4)
    """
    n = require_int("squares", squares, lo=1, hi=10_000)
    go_to = dict(go_to or {})
    cards = {k: list(v) for k, v in (cards or {}).items()}
    for sq in (*go_to, *go_to.values(), *cards, *([jail] if jail is not None else [])):
        require_int("square", sq, lo=0, hi=n - 1)
    if sides is not None:
        s = require_int("sides", sides, lo=1, hi=1000)
        moves = {}
        for x in range(1, s + 1):
            for y in range(1, s + 1):
                key = (x + y, x == y)
                moves[key] = moves.get(key, 0) + 1
        roll = Distribution._raw(moves)
        limit = None if doubles is None else require_int("doubles", doubles, lo=1)
        if limit is not None and jail is None:
            raise InvalidValueError("jail", jail, "a square when doubles are counted")
    else:
        roll = _die(dice, "dice").map(lambda x: (x, False))
        limit = None

    def land(sq: int) -> Distribution:
        """Where a token landing on ``sq`` ends, after go-to squares and cards."""
        out: dict[int, Fraction] = {}
        todo = [(sq, Fraction(1))]
        for _ in range(8):  # a card may send to another card square
            nxt = []
            for at, p in todo:
                if at in go_to:
                    out[go_to[at]] = out.get(go_to[at], 0) + p
                elif cards.get(at):
                    deck = cards[at]
                    for card in deck:
                        q = p / len(deck)
                        if card is None:
                            out[at] = out.get(at, 0) + q
                        else:
                            dest = card(at) if callable(card) else card
                            dest = require_int("card destination", dest, lo=0, hi=n - 1)
                            if dest == at:
                                out[at] = out.get(at, 0) + q
                            else:
                                nxt.append((dest, q))
                else:
                    out[at] = out.get(at, 0) + p
            todo = nxt
            if not todo:
                break
        else:
            raise InvalidValueError("cards", quote(cards, limit=80),
                                    "cards that do not send the token round in circles")
        return Distribution(out)

    runs = 1 if limit is None else limit
    upfront(f"a board of {n:,} squares", n * runs, n * runs * len(roll) * 4, n * runs)
    landed = [land(sq) for sq in range(n)]

    def step(state: Any) -> Any:
        sq, run = state
        out: dict[Any, Fraction] = {}
        tot = roll.total
        for (m, double), w in roll.items():
            p = Fraction(w, tot)
            if limit is not None and double and run + 1 >= limit:
                out[(jail, 0)] = out.get((jail, 0), 0) + p
                continue
            r = run + 1 if double and limit is not None else 0
            for dest, q in landed[(sq + m) % n].items():
                sent = dest == jail and dest != (sq + m) % n
                key = (dest, 0 if sent and jail_ends_run else r)
                out[key] = out.get(key, 0) + p * Fraction(q, landed[(sq + m) % n].total)
        return Distribution(out)

    share = stationary(step, (0, 0))
    return share.map(lambda s: s[0])


@_lifted
def monopoly(sides: int = 6, *, max_work: int | float | None = None) -> Distribution:
    """The Monopoly board as Project Euler 84 states it: two dice of ``sides`` sides,
    three doubles in a row to jail, Go To Jail at 30, Community Chest (2 of 16 cards
    move: GO, JAIL) at 2, 17, 33 and Chance (10 of 16 move: GO, JAIL, C1, E3, H2, R1, next
    railway twice, next utility, back 3) at 7, 22, 36. The exact long-run share of each
    square (0 = GO, 10 = JAIL). As in the percentages Project Euler publishes (6.24 %,
    3.18 %, 3.09 %), being sent to jail by a square or a card does not end a run of
    doubles (``jail_ends_run=False``; with it, 6.22 %, 3.19 %, 3.10 %).

    >>> top = sorted(monopoly(4).pmf().items(), key=lambda kv: -kv[1])[:3]
    >>> "".join(f"{sq:02d}" for sq, _ in top)           # Project Euler 84
    '101524'
    """
    def next_of(stops: Sequence[int]) -> Callable[[int], int]:
        return lambda at: min((s for s in stops if s > at), default=stops[0])

    rail, util = next_of((5, 15, 25, 35)), next_of((12, 28))
    chest: list[Card] = [0, 10] + [None] * 14
    chance: list[Card] = [0, 10, 11, 24, 39, 5, rail, rail, util,
                          lambda at: (at - 3) % 40] + [None] * 6
    return board(40, sides=sides, doubles=3, jail=10, go_to={30: 10}, jail_ends_run=False,
                 cards={2: chest, 17: chest, 33: chest, 7: chance, 22: chance, 36: chance})


# --------------------------------------------------------------------------- built-ins
#: the processes the command line and the web calculator offer, and what each counts
BUILTINS = {"usage-die": "uses", "race": "rounds", "pity": "pulls", "until": "rolls"}


def _int_text(text: str, what: str) -> int:
    t = text.strip()
    if not (t.isascii() and t.lstrip("+-").isdigit() and len(t) <= 12):
        raise InvalidValueError(what, text, "an integer")
    return int(t)


def _int_list(text: str, what: str) -> list[int]:
    return [_int_text(x, what) for x in text.split(",") if x.strip()]


def builtin(kind: str, args: Sequence[str], *, down: str = "1,2", alternating: bool = False,
            value: str | None = None, sequence: str | None = None,
            upto: int | None = None) -> tuple[Steps, Distribution | None, str]:
    """One of the :data:`BUILTINS` from text arguments, as the command line and the web
    calculator give them: ``(count, winner or None, unit)``. A count with no bound is
    walked up to ``upto``, or until less than 1e-6 is left.

    - ``usage-die DIE...`` (``down``: the faces that step down, "1,2");
    - ``race HP DAMAGE`` or ``race HP1 DMG1 HP2 DMG2`` (each fighter's HP, then the damage
      it deals; ``alternating``: the first strikes first);
    - ``pity SPEC``: a fairness spec (``pity:0.006,74,0.06,90``, ``gacha:…``, ``prd:0.25``);
      ``value``: the value waited for (default True, or ``featured``);
    - ``until DIE`` with ``sequence`` ("6,6"): rolls until the last rolls are it.

    >>> count, winner, unit = builtin("until", ["1d6"], sequence="6,6", upto=2)
    >>> count.mean, count.pmf[2], unit
    (Fraction(42, 1), Fraction(1, 36), 'rolls')
    """
    if kind not in BUILTINS:
        raise InvalidValueError("kind", kind, "one of " + ", ".join(BUILTINS))
    args = [str(a) for a in args]

    def need(counts: tuple[int, ...], usage: str) -> None:
        if len(args) not in counts:
            raise InvalidValueError(f"{kind} takes {usage}; got {len(args)} argument(s): "
                                    f"{' '.join(args) or '(none)'}")

    if upto is not None:
        upto = require_int("upto", upto, lo=0)
    tail = None if upto is not None else Fraction(1, 10**6)
    winner = None
    if kind == "usage-die":
        need(tuple(range(1, 101)), "one or more dice (d12 d10 d8 ...)")
        ladder = [int(a) if a.isascii() and a.isdigit() else a for a in args]
        count = usage_die(ladder, down=set(_int_list(down, "down")), upto=upto, tail=tail)
    elif kind == "race":
        need((2, 4), "HP DAMAGE, or HP1 DMG1 HP2 DMG2")
        order = "alternating" if alternating else "simultaneous"
        if len(args) == 2:
            race = hp_race(_int_text(args[0], "HP"), args[1], order=order, upto=upto,
                           tail=tail)
        else:
            hp = (_int_text(args[0], "HP1"), _int_text(args[2], "HP2"))
            race = hp_race(hp, (args[1], args[3]), order=order, upto=upto, tail=tail)
            winner = race.winner
        count = race.rounds
    elif kind == "pity":
        from chancekit.errors import InvalidTypeError as _Type
        from chancekit.fair.spec import system_from_spec

        need((1,), "one fairness spec (pity:0.006,74,0.06,90, prd:0.25, gacha:...)")
        try:
            system = system_from_spec(args[0], None)
        except _Type:  # a system of n values: its state counts every draw
            system = system_from_spec(args[0], 2)
        wanted: Any = True
        if value is not None:
            wanted = {"true": True, "false": False}.get(value.lower(), value)
        elif "featured" in system.values:
            wanted = "featured"
        count = first_success(system, wanted, upto=upto, tail=tail)
    else:
        need((1,), "one die (1d6) and a sequence")
        if not sequence:
            raise InvalidValueError("sequence", sequence, "the rolls to wait for, e.g. 6,6")
        seq = tuple(_int_list(sequence, "sequence"))
        if not 1 <= len(seq) <= 12:
            raise InvalidValueError("sequence", sequence, "1 to 12 rolls")
        die = _die(args[0], "die")
        missing = [x for x in seq if x not in die]
        if missing:
            raise InvalidValueError("sequence", sequence, f"rolls {args[0]} can show (it "
                                    f"never shows {missing[0]})")
        count = roll_until(die, lambda last: last == seq, len(seq), upto=upto, tail=tail)
    return count, winner, BUILTINS[kind]
