"""Cards and hands: exact distributions of hands dealt without replacement, face by face.

A hand is a pool drawn without replacement. Reading the card values in order (as the dice
face walk reads faces), ``k`` of the ``m`` cards of a value are in a hand in ``C(m, k)``
ways, and a hand's size is fixed. So a :class:`~chancekit.dice.pool.FaceRule` written for
dice runs unchanged on a deal: :meth:`Deal.evaluate` walks the values with the state
(cards each hand still needs, rule state), the weight of each step being
``C(m, k_1)·C(m - k_1, k_2)·…`` for the hands' counts, and a step may return
:class:`~chancekit.dice.pool.Decided` (the unread cards are then dealt out in closed form,
``C(L, r_1)·C(L - r_1, r_2)·…`` for the ``L`` cards left). The built-ins are the same
specialisations as for dice: a hypergeometric closed form for counts, integer generating
functions ``[x^n] Π_v Σ_{k<=s} C(m_v, k) x^k`` for the largest set, and the running sum
carried as an ``fmpz_poly`` for sums and keep-highest/lowest.

>>> from chancekit.dice.cards import standard_deck, rank, suit
>>> hand = standard_deck().deal(5)
>>> hand.largest_set(by=rank).at_least(2)            # at least a pair
Fraction(2053, 4165)
>>> hand.largest_set(by=suit).probability(5)         # a flush (straight flushes too)
Fraction(33, 16660)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution, constant
from chancekit.dice.facewalk import STEP_WORK, FaceRule, _cached, face_walk
from chancekit.dice.pool import _STRAIGHT
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, quote
from chancekit.limits import MAX_OUTCOMES, MAX_POOL_DICE, MAX_POOL_STATES, MAX_WORK

__all__ = ["RANKS", "SUITS", "Deal", "Deck", "rank", "standard_deck", "suit"]

#: ranks of :func:`standard_deck`: 2..10, then J = 11, Q = 12, K = 13, A = 14 (ace high)
RANKS = tuple(range(2, 15))
#: suits of :func:`standard_deck`: clubs, diamonds, hearts, spades
SUITS = ("C", "D", "H", "S")


def rank(card: tuple[int, str]) -> int:
    """The rank of a :func:`standard_deck` card (2..14, ace high).

    >>> rank((14, "S"))
    14
    """
    return card[0]


def suit(card: tuple[int, str]) -> str:
    """The suit of a :func:`standard_deck` card (``"C"``, ``"D"``, ``"H"`` or ``"S"``).

    >>> suit((14, "S"))
    'S'
    """
    return card[1]


class Deck:
    """A multiset of cards: ``Deck({"A": 4, "K": 4})`` (value -> copies) or
    ``Deck(["A", "A", "K"])`` (one entry per card). Values are any hashable, mutually
    comparable labels (ints, strings, ``(rank, suit)`` tuples); cards with equal values
    are interchangeable. Immutable and hashable.

    >>> deck = Deck(["A", "A", "K", "Q"])
    >>> len(deck), deck.copies("A")
    (4, 2)
    >>> deck.deal(2).count({"A"}).probability(2)
    Fraction(1, 6)
    """

    __slots__ = ("_counts", "_hash", "_size")

    def __init__(self, cards: Mapping[Any, int] | Iterable[Any]) -> None:
        counts: dict[Any, int] = {}
        if isinstance(cards, Deck):
            counts = dict(cards._counts)
        elif isinstance(cards, Mapping):
            for value, copies in cards.items():
                copies = require_int(f"copies of {quote(value)}", copies, lo=0)
                if copies:
                    counts[value] = copies
        elif isinstance(cards, str | bytes) or not isinstance(cards, Iterable):
            raise InvalidTypeError("cards", cards,
                                   "a mapping value -> copies, or a sequence of cards")
        else:
            try:
                counts = dict(Counter(cards))
            except TypeError:
                raise InvalidTypeError("cards", cards, "hashable card values") from None
        if len(counts) > MAX_OUTCOMES:
            raise LimitError(
                f"a deck of {len(counts):,} distinct values exceeds MAX_OUTCOMES = "
                f"{MAX_OUTCOMES:,}; group the cards by what the question needs (Deck.map)",
                limit="MAX_OUTCOMES", value=len(counts))
        self._set(counts)

    def _set(self, counts: dict[Any, int]) -> None:
        try:
            counts = dict(sorted(counts.items()))
        except TypeError:
            raise InvalidTypeError("card values", tuple(counts)[:20],
                                   "mutually comparable (the walk reads them in order)"
                                   ) from None
        self._counts = counts
        self._size = sum(counts.values())
        self._hash: int | None = None

    @classmethod
    def _trusted(cls, counts: dict[Any, int]) -> Deck:
        """From positive int copies, without validation (private fast path)."""
        self = object.__new__(cls)
        self._set(counts)
        return self

    @property
    def counts(self) -> Mapping[Any, int]:
        """Copies of each value, in ascending order of value."""
        return MappingProxyType(self._counts)

    def copies(self, value: Any) -> int:
        """How many cards show ``value`` (0 if none)."""
        return self._counts.get(value, 0)

    def __len__(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deck) and self._counts == other._counts

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._counts.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"Deck({quote(self._counts, limit=300)})"

    def map(self, f: Callable[[Any], Any]) -> Deck:
        """The deck with every card replaced by ``f(card)`` (equal results merge): ask
        about ranks with ``deck.map(rank)``, about suits with ``deck.map(suit)``.

        >>> standard_deck().map(suit).counts["H"]
        13
        """
        if not callable(f):
            raise InvalidTypeError("f", f, "a function card -> value")
        out: dict[Any, int] = {}
        for value, copies in self._counts.items():
            key = f(value)
            try:
                out[key] = out.get(key, 0) + copies
            except TypeError:
                raise InvalidTypeError("f(card)", key, "a hashable value") from None
        return Deck._trusted(out)

    def without(self, cards: Iterable[Any]) -> Deck:
        """The deck after removing ``cards`` (seen cards: your own hand, a burned card).

        >>> standard_deck().without([(14, "S"), (14, "H")]).map(rank).copies(14)
        2
        """
        if isinstance(cards, str | bytes) or not isinstance(cards, Iterable):
            raise InvalidTypeError("cards", cards, "a sequence of cards")
        counts = dict(self._counts)
        for card in cards:
            try:
                have = counts.get(card, 0)
            except TypeError:
                raise InvalidTypeError("card", card, "a hashable value") from None
            if not have:
                raise InvalidValueError("card to remove", card, "a card left in the deck")
            counts[card] = have - 1
        return Deck._trusted({v: m for v, m in counts.items() if m})

    def deal(self, *sizes: int) -> Deal:
        """Deal hands of these sizes (one hand by default: ``deck.deal(5)``; two:
        ``deck.deal(5, 5)``), uniformly without replacement.

        >>> Deck(range(10)).deal(3, 2).sizes
        (3, 2)
        """
        return Deal(self, *sizes)


def standard_deck() -> Deck:
    """The 52-card deck: ``(rank, suit)`` tuples, ranks 2..14 (J = 11, Q = 12, K = 13,
    A = 14) and suits ``"C"``, ``"D"``, ``"H"``, ``"S"``. Project with :func:`rank` and
    :func:`suit` (``by=rank``, ``deck.map(suit)``).

    >>> len(standard_deck()), standard_deck().map(rank).copies(12)
    (52, 4)
    """
    return _STANDARD


_STANDARD = Deck({(r, s): 1 for r in RANKS for s in SUITS})


def _multinomial(total: int, parts: Iterable[int]) -> int:
    """Ways to pick disjoint subsets of the given sizes from ``total`` cards."""
    ways = 1
    for k in parts:
        if k > total:
            return 0
        ways *= math.comb(total, k)
        total -= k
    return ways


class Deal:
    """Hands of fixed sizes dealt from a :class:`Deck` without replacement (``deck.deal(5)``
    or ``deck.deal(5, 5)``). Every result is an exact :class:`Distribution` over the
    ``C(N, n_1)·C(N - n_1, n_2)·…`` equally likely deals.

    Convenience methods describe one hand (``hand=0`` by default). A hand's own
    distribution does not depend on the other hands (dealing 5 cards to someone else first
    leaves your 5 a uniformly random 5 of the deck), so they are computed as that hand
    alone; what the other hands hold matters only for joint rules (:meth:`evaluate`) or
    once the cards are known (:meth:`Deck.without`).

    >>> from chancekit.dice.cards import standard_deck, rank
    >>> standard_deck().deal(7).count(lambda card: rank(card) == 14).at_least(1)
    Fraction(3478, 7735)
    """

    __slots__ = ("deck", "sizes")

    def __init__(self, deck: Deck, *sizes: int) -> None:
        if not isinstance(deck, Deck):
            raise InvalidTypeError("deck", deck, "a Deck")
        if not sizes:
            raise InvalidValueError("deal() needs at least one hand size (deck.deal(5))")
        sizes = tuple(require_int(f"hand size {i}", n, lo=0) for i, n in enumerate(sizes))
        total = sum(sizes)
        if total > MAX_POOL_DICE:
            raise LimitError(
                f"{total} cards in hands exceeds MAX_POOL_DICE = {MAX_POOL_DICE}; deal fewer "
                "cards", limit="MAX_POOL_DICE", value=total)
        if total > len(deck):
            raise InvalidValueError(f"hand sizes {sizes} ask for {total} cards, but the deck "
                                    f"has {len(deck)}")
        self.deck = deck
        self.sizes: tuple[int, ...] = sizes

    def __repr__(self) -> str:
        return f"{self.deck!r}.deal({', '.join(map(str, self.sizes))})"

    # -- the face walk ----------------------------------------------------------------------

    def evaluate(self, rule: FaceRule) -> Distribution:
        """The exact distribution of ``rule``'s outcome over the deal: the dice face walk
        with ``counts[i]`` = how many cards of the current value are in hand ``i``. Values
        are read in ``rule.order``; results are memoised with the dice pools' cache.

        >>> from chancekit.dice import FaceRule
        >>> from chancekit.dice.cards import Deck
        >>> aces = FaceRule(lambda st, v, c: c if v == "A" else st, initial=(0, 0))
        >>> Deck({"A": 4, "x": 48}).deal(5, 5).evaluate(aces).probability((1, 1))
        Fraction(123, 1547)
        """
        if not isinstance(rule, FaceRule):
            raise InvalidTypeError("rule", rule, "a FaceRule")
        return _cached(("cards", rule, self.deck, self.sizes), lambda: _walk(rule, self))

    def _one(self, hand: int) -> int:
        hand = require_int("hand", hand, lo=0, hi=len(self.sizes) - 1)
        return self.sizes[hand]

    def _single(self, by: Callable[[Any], Any] | None, hand: int) -> Deal:
        deck = self.deck if by is None else self.deck.map(by)
        return Deal(deck, self._one(hand))

    # -- built-ins ------------------------------------------------------------------------

    def count(self, which: Iterable[Any] | Callable[[Any], bool], *, hand: int = 0
              ) -> Distribution:
        """How many cards of the hand match ``which`` (a predicate on cards, or a set of
        cards). Hypergeometric, in closed form.

        >>> standard_deck().deal(5).count(lambda c: suit(c) == "H").probability(0)
        Fraction(2109, 9520)
        """
        if callable(which):
            pred = which
        elif isinstance(which, str | bytes) or not isinstance(which, Iterable):
            raise InvalidTypeError("which", which, "a predicate or a set of cards")
        else:
            try:
                allowed = set(which)
            except TypeError:
                raise InvalidTypeError("which", which, "a set of hashable cards") from None
            pred = allowed.__contains__
        n = self._one(hand)
        good = sum(m for v, m in self.deck._counts.items() if pred(v))
        rest = len(self.deck) - good
        return Distribution._raw({k: math.comb(good, k) * math.comb(rest, n - k)
                                  for k in range(min(n, good) + 1)
                                  if n - k <= rest})

    def largest_set(self, *, by: Callable[[Any], Any] | None = None, hand: int = 0
                    ) -> Distribution:
        """Size of the largest group of cards of equal value in the hand (``by=rank``:
        pairs, trips, quads; ``by=suit``: flushes). Generating functions:
        P(every value at most s) = [x^n] Π_v Σ_{k<=s} C(m_v, k) x^k / C(N, n).

        >>> standard_deck().deal(5).largest_set(by=rank).probability(4)
        Fraction(1, 4165)
        """
        one = self._single(by, hand)
        return _cached(("cards-largest", one.deck, one.sizes),
                       lambda: _largest(one.deck, one.sizes[0]))

    def longest_straight(self, *, by: Callable[[Any], Any] | None = None, hand: int = 0,
                         ace_low: bool = False) -> Distribution:
        """Length of the longest run of consecutive integer values in the hand (a value
        held twice counts once). The face walk with the dice's own straight rule. With
        ``ace_low=True`` the deck's highest value also plays just below its lowest (the
        poker wheel A-2-3-4-5 with :func:`standard_deck`), never both ways at once.

        >>> hand = standard_deck().deal(5)
        >>> hand.longest_straight(by=rank).probability(5)             # ace high only
        Fraction(192, 54145)
        >>> hand.longest_straight(by=rank, ace_low=True).probability(5)   # poker straights
        Fraction(128, 32487)
        """
        one = self._single(by, hand)
        _require_int_values(one.deck, "longest_straight")
        if not ace_low:
            return one.evaluate(_STRAIGHT)
        values = len(one.deck._counts)
        return one.evaluate(_WHEEL).map(lambda x: min(x, values))

    def sum(self, *, by: Callable[[Any], Any] | None = None, hand: int = 0) -> Distribution:
        """Sum of the values of the hand (integers; ``by`` maps a card to its value).

        >>> Deck({1: 2, 2: 2}).deal(2).sum().probability(3)
        Fraction(2, 3)
        """
        one = self._single(by, hand)
        n = one.sizes[0]
        return one._keep(n, "descending") if n else constant(0)

    def keep_highest(self, k: int, *, by: Callable[[Any], Any] | None = None, hand: int = 0
                     ) -> Distribution:
        """Sum of the ``k`` highest values in the hand.

        >>> Deck(range(1, 7)).deal(3).keep_highest(1).probability(6)
        Fraction(1, 2)
        """
        k = require_int("k", k, lo=0)
        return self._single(by, hand)._keep(k, "descending")

    def keep_lowest(self, k: int, *, by: Callable[[Any], Any] | None = None, hand: int = 0
                    ) -> Distribution:
        """Sum of the ``k`` lowest values in the hand.

        >>> Deck(range(1, 7)).deal(3).keep_lowest(1).probability(1)
        Fraction(1, 2)
        """
        k = require_int("k", k, lo=0)
        return self._single(by, hand)._keep(k, "ascending")

    def _keep(self, k: int, order: str) -> Distribution:
        _require_int_values(self.deck, "a sum")
        n = self.sizes[0]
        k = min(k, n)
        if k == 0:
            return constant(0)
        return _cached(("cards-keep", self.deck, n, k, order),
                       lambda: _keep_sum(self.deck, n, k, order))


class _WheelRule(FaceRule):
    """Longest straight where the highest value also plays below the lowest: values read
    high to low, remembering whether the highest is held; at the end a run reaching the
    lowest value is extended by it."""

    order = "descending"

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        prev, run, best, top = state
        if top is None:
            top = counts[0] > 0
        if not counts[0]:
            return (None, 0, best, top)
        run = run + 1 if (prev is not None and face == prev - 1) else 1
        return (face, run, max(best, run), top)

    def final(self, state: Any) -> Any:
        prev, run, best, top = state
        return max(best, run + 1) if (top and prev is not None) else best


_WHEEL = _WheelRule(initial=(None, 0, 0, None))


def _require_int_values(deck: Deck, what: str) -> None:
    bad = [v for v in deck._counts if isinstance(v, bool) or not isinstance(v, int)]
    if bad:
        raise InvalidTypeError(f"{what}: card values", tuple(bad[:10]),
                               "integers (map the cards with by=...)")


# -- engines ----------------------------------------------------------------------------------


def _walk(rule: FaceRule, deal: Deal) -> Distribution:
    """The face walk over card values; state = (cards each hand still needs, rule state)."""
    items = list(deal.deck._counts.items())
    if rule.order == "descending":
        items.reverse()
    sizes = deal.sizes
    n_faces = len(items)
    later = [0] * n_faces
    acc = 0
    for i in range(n_faces - 1, -1, -1):
        later[i] = acc
        acc += items[i][1]
    # (hands' remaining needs) x (per-value splits): estimated per rule state
    rems = math.prod(n + 1 for n in sizes)
    if rems > MAX_POOL_STATES:
        raise LimitError(
            f"the hands' sizes give {rems} combinations of cards still needed, more than "
            f"MAX_POOL_STATES = {MAX_POOL_STATES}; deal fewer or smaller hands",
            limit="MAX_POOL_STATES", value=rems)
    splits = [math.prod(min(n, m) + 1 for n in sizes) for _, m in items]
    per_state = rems * sum(splits)
    bound = rule.state_bound([v for v, _ in items], sum(sizes))
    if bound is not None:
        limits.charge(per_state * min(bound, MAX_POOL_STATES) * STEP_WORK,
                      "evaluating the deal value by value", limit=MAX_WORK, name="MAX_WORK")

    def splits_of(need: tuple[int, ...], m: int, low: int) -> list[tuple[tuple[int, ...], int]]:
        """(k per hand, ways) for m cards of one value, leaving at most ``low`` needed."""
        res: list[tuple[tuple[int, ...], int]] = []

        def rec(j: int, left: int, ks: tuple[int, ...], ways: int, still: int) -> None:
            if j == len(need):
                if still <= low:
                    res.append((ks, ways))
                return
            for k in range(min(need[j], left) + 1):
                rec(j + 1, left - k, (*ks, k), ways * math.comb(left, k),
                    still + need[j] - k)

        rec(0, m, (), 1, 0)
        return res

    def moves(i: int, need: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...],
                                                            int]]:
        return [(ks, ks, ways) for ks, ways in splits_of(need, items[i][1], later[i])]

    return face_walk(rule, [v for v, _ in items], sizes, moves,
                     lambda i, left: _multinomial(later[i], left),
                     [x * STEP_WORK for x in splits], bound is not None,
                     "evaluating the deal value by value")


def _largest(deck: Deck, n: int) -> Distribution:
    """Largest set of one hand: at_most[s] = [x^n] Π_m (Σ_{k<=s} C(m, k) x^k)^(values with
    m copies), one truncated integer power per multiplicity."""
    if n == 0:
        return constant(0)
    by_copies = Counter(deck._counts.values())
    top = min(n, max(by_copies))
    bits = n * max(by_copies).bit_length() + len(deck).bit_length() * n
    # one truncated power per (set size, multiplicity) of n terms of about `bits` bits;
    # calibrated: 200 of 13 x 40 cards 19 ms, 300 of 100 x 10 cards 4.6 ms
    work = 3 * top * len(by_copies) * n * (bits // 64 + 1) + 50 * len(deck._counts)
    limits.charge(work, f"the largest set of a hand of {n}", limit=MAX_WORK, name="MAX_WORK")
    limits.count(work)
    everything = math.comb(len(deck), n)
    if n <= 12 and len(by_copies) == 1:
        return _largest_shapes(len(deck._counts), next(iter(by_copies)), n)
    small = n <= 16 and len(deck._counts) <= 64  # plain ints: no flint set-up cost
    out: dict[Any, int] = {}
    prev = 0
    for s in range(1, top + 1):
        if s == top:
            cur = everything
        elif small:
            cur = _small_at_most(by_copies, s, n)
        else:
            poly = flint.fmpz_poly([1])
            for m, mult in by_copies.items():
                base = flint.fmpz_poly([math.comb(m, k) for k in range(min(s, m) + 1)])
                poly = poly.mul_low(base.pow_trunc(mult, n + 1), n + 1)
            coeffs = poly.coeffs()
            cur = int(coeffs[n]) if len(coeffs) > n else 0
        if cur - prev:
            out[s] = cur - prev
        prev = cur
    return Distribution._raw(out)


def _partitions(n: int, most: int) -> Iterable[tuple[int, ...]]:
    """Partitions of n into parts of at most ``most``, largest part first."""
    if n == 0:
        yield ()
        return
    for first in range(min(n, most), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first, *rest)


def _largest_shapes(values: int, m: int, n: int) -> Distribution:
    """Largest set of a hand of n from ``values`` values of m copies each, by the hand's
    shape (a partition of n): F!/((F - parts)! Π mult!) placements, Π C(m, part) choices."""
    out: dict[Any, int] = {}
    for shape in _partitions(n, m):
        if len(shape) > values:
            continue
        ways = math.perm(values, len(shape))
        for c in Counter(shape).values():
            ways //= math.factorial(c)
        for part in shape:
            ways *= math.comb(m, part)
        out[shape[0]] = out.get(shape[0], 0) + ways
    return Distribution._raw(out)


def _small_at_most(by_copies: Mapping[int, int], s: int, n: int) -> int:
    """[x^n] Π_m (Σ_{k<=s} C(m, k) x^k)^(values with m copies), with plain integer lists."""
    poly = [1]
    for m, mult in by_copies.items():
        base = [math.comb(m, k) for k in range(min(s, m) + 1)]
        for _ in range(mult):
            res = [0] * min(len(poly) + len(base) - 1, n + 1)
            for i, a in enumerate(poly):
                if a:
                    for j, b in enumerate(base[:n + 1 - i]):
                        res[i + j] += a * b
            poly = res
    return poly[n] if len(poly) > n else 0


def _keep_work(deck: Deck, n: int, k: int) -> int:
    """Estimated work of :func:`_keep_sum` (calibrated: keep 10 of 100 cards valued
    1..1000 0.85 s; the sum of 100 of 13 x 40 cards 1 s)."""
    values = deck._counts
    span = max(values) - min(values)
    bits = n * len(deck).bit_length()
    return 4 * len(values) * k * (min(k, max(values.values())) + 1) * (
        k * span // 64 + 1) * (bits // 64 + 1) + 200 * len(values)


def _keep_sum(deck: Deck, n: int, k: int, order: str) -> Distribution:
    """Sum of the k highest (or lowest) values of a hand of n: values read from the kept
    end with the running sum as a polynomial per "cards drawn so far" (< k); once k cards
    are drawn, the other n - j come from the C(L, n - j) ways of the unread cards."""
    items = list(deck._counts.items())
    if order == "descending":
        items.reverse()
    vmin = min(v for v, _ in items)
    work = _keep_work(deck, n, k)
    limits.charge(work, f"keeping {k} of a hand of {n}", limit=MAX_WORK, name="MAX_WORK")
    limits.count(work)
    later = [0] * len(items)
    acc = 0
    for i in range(len(items) - 1, -1, -1):
        later[i] = acc
        acc += items[i][1]
    polys: list[flint.fmpz_poly | None] = [None] * k
    polys[0] = flint.fmpz_poly([1])
    result = flint.fmpz_poly([])
    for i, (v, m) in enumerate(items):
        e = v - vmin
        low = later[i]
        new: list[flint.fmpz_poly | None] = [None] * k
        for j, p in enumerate(polys):
            if p is None:
                continue
            for t in range(min(m, n - j) + 1):
                j2 = j + t
                if j2 >= k:
                    rest = math.comb(low, n - j2)
                    if rest:
                        c = math.comb(m, t) * rest
                        shift = (k - j) * e
                        result += (p * c).left_shift(shift) if shift else p * c
                elif n - j2 <= low:
                    c = math.comb(m, t)
                    q = (p * c).left_shift(t * e) if t * e else p * c
                    new[j2] = q if new[j2] is None else new[j2] + q
        polys = new
    return Distribution._from_poly(k * vmin, result)
