"""Cards and hands (issue #14): exact figures, brute force over every deal of small decks,
icepool's Deck/deal as an oracle, joint rules over two hands, and the limits."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from math import comb
from typing import Any

import icepool
import pytest

from chancekit.dice import Deal, Decided, Deck, Distribution, FaceRule, standard_deck
from chancekit.dice.cards import rank, suit
from chancekit.dice.pool import _LARGEST, _STRAIGHT
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError

DECKS = [
    Deck({1: 2, 2: 3, 4: 1, 5: 2, 7: 2}),
    Deck([3, 3, 3, 3, 1, 2, 2, 6, -1]),
    Deck({v: 3 for v in range(5)}),
    Deck(range(1, 9)),
]


def brute(deck: Deck, sizes: tuple[int, ...],
          f: Callable[[tuple[tuple[Any, ...], ...]], Any]) -> Distribution:
    """Every deal of the physical cards (copies told apart), hand by hand; ``f`` gets the
    hands as sorted tuples of values."""
    cards = [(v, i) for v, m in deck.counts.items() for i in range(m)]
    out: dict[Any, int] = {}

    def rec(left: list[tuple[Any, int]], j: int, hands: tuple[tuple[Any, ...], ...]) -> None:
        if j == len(sizes):
            r = f(hands)
            out[r] = out.get(r, 0) + 1
            return
        for pick in itertools.combinations(range(len(left)), sizes[j]):
            chosen = set(pick)
            hand = tuple(sorted(left[i][0] for i in pick))
            rec([c for i, c in enumerate(left) if i not in chosen], j + 1, (*hands, hand))

    rec(cards, 0, ())
    return Distribution(out)


def largest(hand: tuple[Any, ...]) -> int:
    return max((hand.count(v) for v in hand), default=0)


def straight(hand: tuple[int, ...]) -> int:
    best = run = 0
    prev = None
    for v in sorted(set(hand)):
        run = run + 1 if prev is not None and v == prev + 1 else 1
        best = max(best, run)
        prev = v
    return best


def from_icepool(die: icepool.Die) -> Distribution:
    return Distribution(dict(die.items()))


# -- the figures -------------------------------------------------------------------


def test_at_least_a_pair_in_five_of_52() -> None:
    got = standard_deck().deal(5).largest_set(by=rank).at_least(2)
    assert got == 1 - Fraction(52 * 48 * 44 * 40 * 36, 52 * 51 * 50 * 49 * 48)
    assert got == Fraction(2053, 4165)
    assert round(float(got), 4) == 0.4929


def test_flush_and_other_poker_figures() -> None:
    hand = standard_deck().deal(5)
    assert hand.largest_set(by=suit).probability(5) == Fraction(4 * comb(13, 5), comb(52, 5))
    ranks = hand.largest_set(by=rank)
    assert ranks.probability(4) == Fraction(13 * 48, comb(52, 5))
    assert ranks.probability(1) == Fraction(comb(13, 5) * 4**5, comb(52, 5))
    # 5 in a row, ace high only: 9 lowest ranks (2..10), any suits
    assert hand.longest_straight(by=rank).probability(5) == Fraction(9 * 4**5, comb(52, 5))


def test_at_least_one_ace_in_seven() -> None:
    aces = standard_deck().deal(7).count(lambda card: rank(card) == 14)
    assert aces.at_least(1) == 1 - Fraction(comb(48, 7), comb(52, 7))
    assert aces.mean() == Fraction(7, 13)


@pytest.mark.parametrize(("cards", "expect"), [
    (7, Fraction(7, 145)),    # 3 in the opening hand + a draw on turns 2..5
    (8, Fraction(28, 435)),   # Hearthstone's rule: the player going first also draws on turn 1
])
def test_hearthstone_both_copies_by_turn_five(cards: int, expect: Fraction) -> None:
    deck = Deck({card: 2 for card in range(15)})   # 30 cards, 2 copies each, no mulligan
    got = deck.deal(cards).count({0}).probability(2)
    assert got == expect == Fraction(comb(28, cards - 2), comb(30, cards))


# -- brute force ----------------------------------------------------------------------------


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("n", [0, 1, 2, 4, 5])
def test_builtins_match_brute_force(deck: Deck, n: int) -> None:
    hand = deck.deal(n)
    one = (n,)
    assert hand.largest_set() == brute(deck, one, lambda h: largest(h[0]))
    assert hand.longest_straight() == brute(deck, one, lambda h: straight(h[0]))
    assert hand.sum() == brute(deck, one, lambda h: sum(h[0]))
    assert hand.count(lambda v: v % 2 == 1) == brute(
        deck, one, lambda h: sum(v % 2 for v in h[0]))
    for k in range(n + 2):
        assert hand.keep_highest(k) == brute(deck, one, lambda h, k=k: sum(h[0][::-1][:k]))
        assert hand.keep_lowest(k) == brute(deck, one, lambda h, k=k: sum(h[0][:k]))


def wheel(deck: Deck, hand: tuple[int, ...]) -> int:
    values = set(hand)
    low, high = min(deck.counts), max(deck.counts)
    if high in values:
        values.add(low - 1)
    return min(straight(tuple(values)), len(deck.counts))


@pytest.mark.parametrize("deck", [*DECKS, Deck({v: 2 for v in range(1, 6)})])
@pytest.mark.parametrize("n", [1, 3, 5, 6])
def test_ace_low_straights_match_brute_force(deck: Deck, n: int) -> None:
    assert deck.deal(n).longest_straight(ace_low=True) == brute(
        deck, (n,), lambda h: wheel(deck, h[0]))


def test_poker_straights_with_the_wheel() -> None:
    got = standard_deck().deal(5).longest_straight(by=rank, ace_low=True).probability(5)
    assert got == Fraction(10 * 4**5, comb(52, 5))   # 10 200 straights + 40 straight flushes


@pytest.mark.parametrize("deck", DECKS[:3])
def test_generic_walk_matches_fast_paths(deck: Deck) -> None:
    for n in (1, 3, 5):
        hand = deck.deal(n)
        assert hand.evaluate(_LARGEST) == hand.largest_set()
        assert hand.evaluate(_STRAIGHT) == hand.longest_straight()


@pytest.mark.parametrize(("deck", "n"), [
    (Deck({v: 1 + v % 3 for v in range(8)}), 12),      # plain-integer generating functions
    (Deck({v: 1 + v % 3 for v in range(8)}), 15),
    (Deck({v: 4 for v in range(13)}), 20),             # fmpz_poly generating functions
    (Deck({v: 1 + v % 4 for v in range(10)}), 18),
    (Deck({v: 4 for v in range(13)}), 12),             # hand shapes
])
def test_largest_set_paths_match_the_walk(deck: Deck, n: int) -> None:
    assert deck.deal(n).largest_set() == deck.deal(n).evaluate(_LARGEST)


def test_projections_match_brute_force() -> None:
    deck = Deck({(r, s): 1 for r in range(1, 6) for s in "ab"})   # 10 cards, 5 ranks, 2 suits
    hand = deck.deal(4)
    assert hand.largest_set(by=suit) == brute(
        deck.map(suit), (4,), lambda h: largest(h[0]))
    assert hand.largest_set(by=rank) == brute(deck.map(rank), (4,), lambda h: largest(h[0]))
    assert hand.sum(by=rank) == brute(deck.map(rank), (4,), lambda h: sum(h[0]))
    assert hand.count({(1, "a"), (2, "b")}).probability(2) == Fraction(comb(8, 2), comb(10, 4))


# -- several hands ------------------------------------------------------------------------


class _MoreAces(FaceRule):
    """Who holds more aces (value 14); decided as soon as the aces are read."""

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        if face != 14:
            return state
        a, b = counts
        return Decided("me" if a > b else "you" if b > a else "tie")


MORE_ACES = _MoreAces(initial="tie")


def test_joint_rule_over_two_hands_matches_brute_force() -> None:
    deck = Deck({14: 3, 13: 2, 12: 2, 2: 2})
    got = deck.deal(3, 2).evaluate(MORE_ACES)
    expect = brute(deck, (3, 2), lambda h: "me" if h[0].count(14) > h[1].count(14)
                   else "you" if h[1].count(14) > h[0].count(14) else "tie")
    assert got == expect
    # the counts of both hands, per value, through one rule
    both = FaceRule(lambda st, v, c: (*st, c), initial=())
    assert deck.deal(2, 3).evaluate(both) == brute(
        deck, (2, 3), lambda h: tuple((h[0].count(v), h[1].count(v))
                                      for v in sorted(deck.counts, reverse=True)))


def test_more_aces_on_a_full_deck_is_symmetric() -> None:
    got = standard_deck().map(rank).deal(5, 5).evaluate(MORE_ACES)
    assert got.probability("me") == got.probability("you")
    # P(tie) = P(both hold the same number of aces)
    same = sum(comb(4, k) * comb(48, 5 - k) * comb(4 - k, k) * comb(43 + k, 5 - k)
               for k in range(3))
    assert got.probability("tie") == Fraction(same, comb(52, 5) * comb(47, 5))


def test_my_hand_after_another_hand_is_the_same_as_my_hand_alone() -> None:
    """Dealing 5 cards to someone else first does not change my hand's distribution."""
    ranks = standard_deck().map(rank)
    mine = FaceRule(lambda best, v, c: max(best, c[1]), initial=0)
    assert ranks.deal(5, 5).evaluate(mine) == ranks.deal(5).largest_set()
    deck = DECKS[0]
    second = FaceRule(lambda st, v, c: st + v * c[1], initial=0)
    assert deck.deal(3, 4).evaluate(second) == deck.deal(4).sum()
    assert deck.deal(3, 4).sum(hand=1) == deck.deal(4).sum()


def test_known_cards_condition_the_deck() -> None:
    mine = [(14, "S"), (14, "H")]
    rest = standard_deck().without(mine).deal(3)       # the flop, given my two aces
    assert rest.count(lambda c: rank(c) == 14).at_least(1) == 1 - Fraction(
        comb(48, 3), comb(50, 3))


# -- icepool --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 5, 7])
def test_matches_icepool_deal(n: int) -> None:
    ranks = {r: 4 for r in range(2, 15)}
    ice = icepool.Deck(ranks).deal(n)
    hand = Deck(ranks).deal(n)
    assert hand.largest_set() == from_icepool(ice.largest_count())
    assert hand.sum() == from_icepool(ice.sum())
    assert hand.keep_highest(3) == from_icepool(ice.highest(3).sum())
    assert hand.keep_lowest(2) == from_icepool(ice.lowest(2).sum())
    assert hand.longest_straight() == from_icepool(ice.largest_straight())


class _IceAces(icepool.MultisetEvaluator):
    """icepool's side of MORE_ACES over a MultiDeal (counts arrive as one tuple)."""

    def next_state(self, state: Any, order: Any, outcome: Any, counts: Any) -> Any:
        st = state or (0, 0)
        return (st[0] + counts[0], st[1] + counts[1]) if outcome == 14 else st

    def final_outcome(self, final_state: Any, *args: Any, **kwargs: Any) -> Any:
        a, b = final_state or (0, 0)
        return "me" if a > b else "you" if b > a else "tie"


@pytest.mark.parametrize(("counts", "sizes"), [
    ({14: 3, 13: 2, 12: 2, 2: 2}, (3, 2)),
    ({14: 3, 13: 2, 12: 2, 2: 2}, (2, 2)),
    ({r: 4 for r in range(2, 15)}, (5, 5)),
])
def test_joint_rule_matches_icepool_multideal(counts: dict[int, int],
                                              sizes: tuple[int, int]) -> None:
    expect = from_icepool(_IceAces().evaluate(icepool.Deck(counts).deal(sizes)))
    assert Deck(counts).deal(*sizes).evaluate(MORE_ACES) == expect


def test_uneven_deck_matches_icepool() -> None:
    counts = {1: 2, 2: 3, 4: 1, 5: 2, 7: 2, 9: 5}
    for n in (3, 6):
        ice = icepool.Deck(counts).deal(n)
        hand = Deck(counts).deal(n)
        assert hand.largest_set() == from_icepool(ice.largest_count())
        assert hand.keep_highest(2) == from_icepool(ice.highest(2).sum())


# -- values and errors ----------------------------------------------------------------------


def test_deck_values() -> None:
    assert Deck(["a", "b", "a"]) == Deck({"a": 2, "b": 1, "c": 0})
    assert hash(Deck(["a", "b"])) == hash(Deck({"b": 1, "a": 1}))
    assert len(standard_deck()) == 52 and standard_deck().map(suit).counts["S"] == 13
    assert isinstance(standard_deck().deal(5), Deal)
    assert standard_deck().deal(5, 5).sizes == (5, 5)


def test_errors() -> None:
    with pytest.raises(InvalidValueError, match="ask for 6 cards"):
        Deck(range(5)).deal(3, 3)
    with pytest.raises(InvalidValueError, match="copies of 'a'"):
        Deck({"a": -1})
    with pytest.raises(InvalidTypeError, match="mutually comparable"):
        Deck([1, "a"])
    with pytest.raises(InvalidTypeError):
        Deck("abc")
    with pytest.raises(InvalidValueError, match="a card left in the deck"):
        Deck([1, 2]).without([3])
    with pytest.raises(InvalidTypeError, match="integers"):
        standard_deck().deal(5).sum()
    with pytest.raises(InvalidValueError, match="hand"):
        standard_deck().deal(5).largest_set(hand=1)
    with pytest.raises(InvalidTypeError, match="hashable"):
        standard_deck().deal(5).count([[14, "S"]])
    with pytest.raises(InvalidValueError, match="at least one hand"):
        standard_deck().deal()


def test_limits_are_refused_up_front() -> None:
    with pytest.raises(LimitError) as e:
        Deck(range(20_000)).deal(3000, 3000).evaluate(MORE_ACES)
    assert e.value.limit == "MAX_POOL_STATES"
    with pytest.raises(LimitError) as e:
        Deck({v: 2000 for v in range(1000)}).deal(5000).largest_set()
    assert e.value.limit == "MAX_WORK"
    with pytest.raises(LimitError) as e:
        Deck(range(1, 1001)).deal(500).sum()
    assert e.value.limit == "MAX_WORK"
    with pytest.raises(LimitError) as e:
        Deck(range(20_000)).deal(10_001)
    assert e.value.limit == "MAX_POOL_DICE"
