"""The systems: protocol, state, reproducibility, closed forms, bad input."""

from __future__ import annotations

import itertools
import math
import pickle
from collections import Counter
from fractions import Fraction

import pytest

from chancekit.errors import ChancekitError, InvalidTypeError, InvalidValueError, StateError
from chancekit.fair import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    ErrorAccumulator,
    GeneralizedDeck,
    HistoryReroll,
    NoRepeatSystem,
    PityTimer,
    System,
    prd_constant,
    system_from_spec,
)
from chancekit.rng import PCG32, Streams

ALL = [
    lambda: Dice(6),
    lambda: Deck(5),
    lambda: GeneralizedDeck(4, 2, 3),
    lambda: GeneralizedDeck(3, 1, 5, weights=(3, 1, 1)),
    lambda: DynamicDice(6, 0.355),
    lambda: DynamicDice(3, 0.5, weights=(7, 2, 1)),
    lambda: PRD(0.25),
    lambda: PityTimer(0.05, soft_start=5, ramp=0.2, hard=8),
    lambda: HistoryReroll(7, 4, 4),
    lambda: ErrorAccumulator(0.3),
    lambda: NoRepeatSystem(DynamicDice(4, 0.6)),
    lambda: NoRepeatSystem(Deck(3)),
]


@pytest.mark.parametrize("make", ALL)
def test_protocol_state_roundtrip_and_reproducible(make):
    a, b = make(), make()
    assert isinstance(a, System)
    rng = PCG32(123)
    seq_a = a.draw_many(40, rng)
    seq_b = b.draw_many(40, PCG32(123))
    assert seq_a == seq_b  # same seed, same draws
    assert set(seq_a) <= set(a.values)
    probs = a.probabilities()
    assert len(probs) == a.n and math.isclose(sum(probs), 1.0) and min(probs) >= 0
    # state round trip: continue from a saved state identically
    state = a.getstate()
    hash(state)
    r1, r2 = PCG32(5), PCG32(5)
    cont1 = a.draw_many(20, r1)
    b.setstate(state)
    assert b.draw_many(20, r2) == cont1
    # pickling and copying keep parameters and state
    c = pickle.loads(pickle.dumps(a))
    assert repr(c) == repr(a) and c.getstate() == a.getstate()
    d = a.copy()
    assert d.getstate() == a.getstate()
    # reset goes back to the start
    a.reset()
    assert a.getstate() == make().getstate()


@pytest.mark.parametrize("make", ALL)
def test_draw_follows_probabilities(make):
    """Empirical next-draw frequency from a fixed state matches probabilities()."""
    s = make()
    s.draw_many(3, PCG32(1))
    state = s.getstate()
    probs = s.probabilities()
    rng = PCG32(77)
    hits = Counter()
    k = 6000
    for _ in range(k):
        s.setstate(state)
        hits[s.draw_index(rng)] += 1
    for i, p in enumerate(probs):
        assert abs(hits[i] / k - p) <= 4 * math.sqrt(p * (1 - p) / k) + 1e-9


def test_deck_is_a_shuffle_bag_and_refills():
    deck = Deck(7)
    seq = deck.draw_many(70, PCG32(3))
    for i in range(0, 70, 7):
        assert sorted(seq[i:i + 7]) == list(range(1, 8))


def test_generalized_deck_refill_rule_matches_brief():
    g = GeneralizedDeck(2, 1, 3)  # starts with 2 cards < 3: grows after the first draw
    assert g.remaining() == (1, 1)
    g.observe(0)  # 1 card left < 3 -> add one of each
    assert g.remaining() == (1, 2)
    g.observe(1)  # 2 left < 3 -> add again
    assert g.remaining() == (2, 2)
    g.observe(1)  # 3 left, not < 3
    assert g.remaining() == (2, 1)
    with pytest.raises(InvalidValueError):
        GeneralizedDeck(2, 1, 1, weights=(1, 1)).observe(0) or Deck(2).setstate((1, 1, 1))


def test_weighted_deck_holds_cards_in_ratio():
    deck = Deck(3, weights=(14, 5, 1), labels=("common", "rare", "epic"))
    seq = deck.draw_many(40, PCG32(8))
    assert Counter(seq) == {"common": 28, "rare": 10, "epic": 2}


def test_dynamic_dice_rule_multiply_then_renormalise():
    dd = DynamicDice(4, 0.3)
    probs = [Fraction(1, 4)] * 4
    for i in (2, 2, 0, 3, 2):
        dd.observe(i)
        probs[i] *= Fraction(3, 10)
        tot = sum(probs)
        probs = [p / tot for p in probs]
        got = dd.probabilities()
        assert all(math.isclose(a, float(b)) for a, b in zip(got, probs, strict=True))


def test_dynamic_dice_weights_meaning():
    dd = DynamicDice(3, 1.0, weights=(7, 2, 1))
    assert dd.probabilities() == pytest.approx((0.7, 0.2, 0.1))
    dd.observe(0)
    assert dd.probabilities() == pytest.approx((0.7, 0.2, 0.1))  # f = 1: a weighted die


@pytest.mark.parametrize("p", [0.2, 0.25, 0.5, 0.8, 0.95])
def test_prd_constant_gives_the_rate(p):
    c = prd_constant(p)
    # exact long-run rate: 1 / E[tries], with Fractions of the float C
    cf = Fraction(c)
    expect, surv, k = Fraction(0), Fraction(1), 1
    while surv > 0:
        expect += surv
        surv *= max(Fraction(0), 1 - k * cf)
        k += 1
    assert abs(float(1 / expect) - p) < 1e-12
    assert PRD(p).C == c


def test_prd_published_constants():
    # the Dota 2 wiki table: 25% -> C = 0.084744, 5% -> 0.003802
    assert round(PRD(0.25).C, 6) == 0.084744
    assert round(PRD(0.05).C, 6) == 0.003802
    prd = PRD(0.25)
    for k in range(1, 20):
        assert prd.probabilities()[1] == pytest.approx(min(1.0, k * prd.C))
        prd.observe(0)


def test_prd_long_run_rate_by_simulation():
    prd = PRD(0.2)
    rng = PCG32(4)
    hits = sum(prd.draw(rng) for _ in range(20000))
    assert abs(hits / 20000 - 0.2) < 4 * math.sqrt(0.2 * 0.8 / 20000) * 0.8 + 0.005


def test_pity_timer_chances():
    pity = PityTimer(0.006, soft_start=74, ramp=0.06, hard=90)
    assert pity.chance(1) == 0.006 and pity.chance(73) == 0.006
    assert pity.chance(74) == pytest.approx(0.066) and pity.chance(90) == 1.0
    assert pity.chance(89) == pytest.approx(min(1.0, 0.006 + 16 * 0.06))


def test_history_reroll_probabilities_by_enumerating_the_rolls():
    n, hist, tries = 5, 3, 3
    s = HistoryReroll(n, hist, tries)
    for v in (0, 1, 0):
        s.observe(v)
    held = set(s.getstate())
    # enumerate every sequence of up to `tries` rolls
    law = [Fraction(0)] * n

    def walk(prob, left):
        for v in range(n):
            p = prob / n
            if v in held and left > 1:
                walk(p, left - 1)
            else:
                law[v] += p

    walk(Fraction(1), tries)
    assert s.probabilities() == pytest.approx([float(x) for x in law], abs=1e-15)


def test_error_accumulator_keeps_successes_close_to_rate():
    acc = ErrorAccumulator(0.3)
    rng = PCG32(11)
    total = 0
    for t in range(1, 500):
        total += acc.draw(rng)
        assert abs(total - 0.3 * t) < 1.0 + 1e-9


def test_no_repeat_never_repeats_and_is_fair():
    f = NoRepeatSystem(Dice(6))
    seq = f.draw_many(3000, PCG32(2))
    assert all(a != b for a, b in itertools.pairwise(seq))
    assert all(abs(c - 500) < 120 for c in Counter(seq).values())


def test_no_repeat_allows_forced_repeat_instead_of_deadlock():
    f = NoRepeatSystem(GeneralizedDeck(2, 2, 1, weights=(1, 1)))
    f.setstate((0, (1, 0, 1)))  # one card of value 0... and value 1 left
    f.observe(1)  # now only value 0 left; last was 1: fine
    seq = f.draw_many(10, PCG32(1))
    assert len(seq) == 10


def test_sampling_no_repeat_filter_wraps_a_stateless_system():
    from chancekit.sampling import NoRepeat

    flt = NoRepeat(Dice(4))
    rng = PCG32(6)
    seq = [flt.draw(rng) for _ in range(500)]
    assert all(a != b for a, b in itertools.pairwise(seq))


def test_spec_strings():
    assert repr(system_from_spec("dynamic-dice:0.355", 6)) == "DynamicDice(6, 0.355)"
    assert repr(system_from_spec("gdeck:1,6", 6)) == "GeneralizedDeck(6, 1, 6)"
    assert repr(system_from_spec("deck+no-repeat", 4)) == "NoRepeatSystem(Deck(4))"
    assert system_from_spec("prd:0.25", 6).n == 2
    assert repr(system_from_spec("pity:0.006,74,0.06,90", 2)).startswith("PityTimer(0.006")
    assert repr(system_from_spec("tgm", 7)) == "HistoryReroll(7, 4, 4)"


@pytest.mark.parametrize("bad", ["nope", "gdeck:1", "ddice:x", "deck:foo=1", "dice:3",
                                 "ddice:weights=1/2,0.5"])
def test_bad_specs(bad):
    with pytest.raises(ChancekitError) as e:
        system_from_spec(bad, 3)
    assert "column" in str(e.value) or "must be" in str(e.value)


@pytest.mark.parametrize("build, match", [
    (lambda: Dice(1), "n must be an integer >= 2"),
    (lambda: Deck(0), "n must be"),
    (lambda: GeneralizedDeck(6, 0, 1), "size must be an integer >= 1"),
    (lambda: GeneralizedDeck(6, 1, 0), "refill must be an integer >= 1"),
    (lambda: DynamicDice(6, 0.0), r"decrease must be a number in \(0, 1\]"),
    (lambda: DynamicDice(6, 1.5), "decrease must be"),
    (lambda: DynamicDice(6, float("nan")), "decrease must be"),
    (lambda: PRD(0.0), r"p must be a number in \(0, 1\)"),
    (lambda: PRD(1.0), "p must be"),
    (lambda: ErrorAccumulator(-0.1), "p must be"),
    (lambda: PityTimer(1.2), "base must be"),
    (lambda: HistoryReroll(7, 0), "history must be"),
    (lambda: DynamicDice(3, 0.5, weights=(1, 2)), "weights must be"),
    (lambda: Deck(3, weights=(1, 0, 2)), "must be an integer >= 1"),
    (lambda: Dice(3, labels="ab"), "labels must be"),
])
def test_bad_parameters(build, match):
    with pytest.raises(InvalidValueError, match=match):
        build()


def test_bad_types_and_states():
    with pytest.raises(InvalidTypeError):
        DynamicDice(6, "0.5")
    with pytest.raises(InvalidTypeError):
        NoRepeatSystem("dice")
    with pytest.raises(StateError):
        Dice(3).setstate((1, 2))
    with pytest.raises(StateError):
        Deck(3).setstate((2, 0, 0, 1))  # more cards drawn than added
    with pytest.raises(StateError):
        PRD(0.3).setstate((0,))
    with pytest.raises(InvalidValueError):
        Dice(3).observe(3)


def test_named_stream_draws():
    a = Deck(5).draw_many(10, Streams(1)["level-1"])
    b = Deck(5).draw_many(10, Streams(1)["level-1"])
    assert a == b
