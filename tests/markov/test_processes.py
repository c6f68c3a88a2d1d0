"""The processes against closed forms, brute force, icepool, simulation and published
numbers (Project Euler 84), and every two-value fairness system's target() against its
exact long-run rate."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from chancekit import d
from chancekit.dice import Deck, standard_deck
from chancekit.dice.cards import rank, suit
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.fair import PRD, ErrorAccumulator, HistoryReroll, PityTimer
from chancekit.fair.studio import AimAssist, GachaPity, LuckyStreak, TwoRollHit, long_run_rate
from chancekit.markov import (
    board,
    draw_until,
    first_success,
    hp_race,
    long_run,
    roll_until,
    usage_die,
)
from chancekit.markov.processes import monopoly


# --------------------------------------------------------------------------- usage die
@pytest.mark.parametrize("ladder", [[12, 10, 8, 6, 4], [20, 12, 6], [4], [6, 6, 6]])
def test_usage_die_closed_form(ladder):
    u = usage_die(ladder)
    assert u.mean == sum(Fraction(s, 2) for s in ladder)
    assert u.variance == sum(Fraction(s, 2) * (Fraction(s, 2) - 1) for s in ladder)


def test_usage_die_other_faces_and_bad_ladders():
    assert usage_die([d(6)], down={1}).mean == 6
    assert usage_die(["1d8"]).mean == 4
    with pytest.raises(InvalidValueError, match="ladder"):
        usage_die([])
    with pytest.raises(InvalidValueError, match="ladder"):
        usage_die([d(6) + 10])  # never rolls 1-2: would never step down


# --------------------------------------------------------------------------- HP races
def _icepool_race(icepool, a, b, order):
    dmg = icepool.d6 + icepool.d6

    def step(state):
        x, y = state
        if x <= 0 or y <= 0:
            return state
        if order == "alternating":
            return icepool.map(lambda hb, ha: (x, y - hb) if y - hb <= 0 else (x - ha, y - hb),
                               dmg, dmg)
        return icepool.map(lambda hb, ha: (x - ha, y - hb), dmg, dmg)

    out = icepool.map(step, (a, b), repeat="inf")
    win: dict[str, Fraction] = {}
    for (x, y), q in out.items():
        key = "both" if x <= 0 and y <= 0 else ("first" if y <= 0 else "second")
        win[key] = win.get(key, 0) + Fraction(q, out.denominator())
    return win


@pytest.mark.parametrize("order", ["simultaneous", "alternating"])
def test_hp_race_matches_icepool(order):
    icepool = pytest.importorskip("icepool")
    race = hp_race((9, 8), ("2d6", "2d6"), order=order)
    assert race.winner.pmf() == _icepool_race(icepool, 9, 8, order)
    assert sum(race.winner.pmf().values()) == 1


@pytest.mark.parametrize("order", ["simultaneous", "alternating"])
def test_hp_race_independent_and_joint_agree(order):
    a = hp_race((23, 17), ("2d6", "1d8+1"), order=order)
    b = hp_race((23, 17), ("2d6", "1d8+1"), order=order, method="joint")
    assert a.winner == b.winner
    assert a.rounds.pmf == b.rounds.pmf and a.rounds.mean == b.rounds.mean
    assert a.rounds.variance == b.rounds.variance


def test_hp_race_with_misses_and_healing_uses_the_joint_chain():
    icepool = pytest.importorskip("icepool")
    race = hp_race((6, 5), ("1d4-1", "1d3-1"))  # 0 damage possible: self-loops
    assert race.rounds.tail == 1 and race.rounds.pmf == ()

    def step(state):
        x, y = state
        if x <= 0 or y <= 0:
            return state
        return icepool.map(lambda hb, ha: (x - ha, y - hb), icepool.d4 - 1, icepool.d3 - 1)

    out = icepool.map(step, (6, 5), repeat="inf")
    first = sum(Fraction(q, out.denominator()) for (x, y), q in out.items() if y <= 0 < x)
    assert race.winner.probability("first") == first
    one = hp_race(10, "1d6-2")  # healing by 1 on a roll of 1
    assert one.winner is None and one.rounds.mean > 0


def test_one_sided_race_closed_form():
    # 3 HP, 1 or 2 damage each round with equal chance: rounds 2 (1/4 + 1/2) or 3 (1/4)
    r = hp_race(3, "1d2").rounds
    assert list(r.pmf) == [0, 0, Fraction(3, 4), Fraction(1, 4)]
    assert hp_race(30, "2d6").rounds.distribution is not None


def test_damage_that_never_lowers_hp_is_refused():
    for damage in ("0", "1d2-2"):
        with pytest.raises(InvalidValueError, match="never ends"):
            hp_race(10, damage)
    with pytest.raises(InvalidValueError, match="never ends"):
        hp_race((5, 5), ("0", "0"))
    # one side harmless: the other always wins
    assert hp_race((5, 5), ("0", "1d4")).winner.pmf() == {"second": 1}


def test_hp_race_bad_input():
    with pytest.raises(InvalidValueError, match="order"):
        hp_race(10, "1d6", order="random")
    with pytest.raises(InvalidValueError, match="hp"):
        hp_race((1, 2, 3), ("1d6", "1d6"))
    with pytest.raises(InvalidValueError, match="damage"):
        hp_race(10, d(2).map(lambda x: "a" if x == 1 else "b"))
    with pytest.raises(LimitError):
        hp_race((1000, 1000), ("1d6-1", "1d6-1"))


# --------------------------------------------------------------------------- roll until
def test_roll_until_classic_waiting_times():
    assert roll_until(d(6), lambda last: last == (6, 6), 2).mean == 42
    assert roll_until(d(2), lambda last: last == (1, 1), 2).mean == 6       # HH
    assert roll_until(d(2), lambda last: last == (1, 2), 2).mean == 4       # HT
    assert roll_until(d(2), lambda last: last == (1, 1, 1), 3).mean == 14   # HHH
    s = roll_until(d(6), lambda last: last == (6, 6), 2, upto=3)
    assert list(s.pmf) == [0, 0, Fraction(1, 36), Fraction(5, 216)]


def test_roll_until_mean_agrees_with_simulation():
    s = roll_until(d(6), lambda last: sum(last) >= 10, 2)
    rng = random.Random(11)
    runs, total = 20_000, 0
    for _ in range(runs):
        last: tuple[int, ...] = ()
        t = 0
        while True:
            last = (*last, rng.randint(1, 6))[-2:]
            t += 1
            if sum(last) >= 10:
                break
        total += t
    assert abs(total / runs - float(s.mean)) < 5 * math.sqrt(float(s.variance) / runs)


# --------------------------------------------------------------------------- draw until
def _brute_draw(cards, condition):
    """Every ordering of the cards: the first prefix meeting the condition."""
    out: dict = {}
    perms = list(itertools.permutations(range(len(cards))))
    for perm in perms:
        hit = None
        for n in range(0, len(cards) + 1):
            if condition(Deck([cards[i] for i in perm[:n]])):
                hit = n
                break
        out[hit] = out.get(hit, 0) + Fraction(1, len(perms))
    return out


def test_draw_until_matches_all_orderings():
    cards = ["A", "A", "K", "K", "Q", "J"]
    pair = lambda h: any(c == 2 for c in h.counts.values())  # noqa: E731
    assert draw_until(Deck(cards), pair).pmf() == _brute_draw(cards, pair)
    three = lambda h: len(h.counts) == 3  # noqa: E731
    assert draw_until(Deck(cards), three).pmf() == _brute_draw(cards, three)
    never = lambda h: h.copies("A") == 3  # noqa: E731
    assert draw_until(Deck(cards), never).pmf() == {None: 1}


def test_draw_until_standard_deck():
    by_rank = standard_deck().map(rank)
    pair = draw_until(by_rank, lambda h: max(h.counts.values()) >= 2)
    # P(no pair in the first n cards) = prod (52 - 4i) / (52 - i): the birthday problem
    no_pair = Fraction(1)
    for i in range(5):
        no_pair *= Fraction(52 - 4 * i, 52 - i)
    assert pair.at_least(6) == no_pair
    suits = draw_until(standard_deck().map(suit), lambda h: len(h.counts) == 4)
    assert suits.probability(4) == Fraction(13**4 * 24, 52 * 51 * 50 * 49)
    kings = draw_until(standard_deck().map(lambda c: rank(c) == 13), lambda h: h.copies(True) == 4)
    assert kings.mean() == Fraction(4 * 53, 5)  # the last of 4 kings: 4 (n + 1) / 5
    with pytest.raises(InvalidTypeError, match="deck"):
        draw_until(["A"], lambda h: True)


# --------------------------------------------------------------------------- fairness
def _survival_pmf(chance, upto):
    out, alive = [Fraction(0)], Fraction(1)
    for k in range(1, upto + 1):
        q = chance(k)
        out.append(alive * q)
        alive *= 1 - q
    return out, alive


def test_first_success_of_a_pity_timer_is_the_survival_product():
    pity = PityTimer(0.006, soft_start=74, ramp=0.06, hard=90)
    s = first_success(pity)

    def chance(k):
        if k >= 90:
            return Fraction(1)
        q = Fraction(3, 500) + (Fraction(6, 100) * (k - 73) if k >= 74 else 0)
        return min(Fraction(1), q)

    want, alive = _survival_pmf(chance, 90)
    assert list(s.pmf) == want and alive == 0
    # renewal: the long-run rate is 1 / the mean pulls per success
    assert abs(float(1 / s.mean) - long_run_rate(pity.chance)) < 1e-12
    assert abs(float(1 / s.mean) - pity.target()[1]) < 1e-12


def test_first_success_of_prd_and_plain_rates():
    prd = PRD(0.25)
    s = first_success(prd)
    assert abs(float(1 / s.mean) - 0.25) < 1e-9
    geo = first_success(PityTimer(0.1), upto=3)
    assert list(geo.pmf) == [0, Fraction(1, 10), Fraction(9, 100), Fraction(81, 1000)]
    assert first_success(PityTimer(0.1)).mean == 10


def test_gacha_featured_with_the_guarantee():
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    s = first_success(g, "featured")
    assert s.tail == 0 and len(s.pmf) == 181
    one = first_success(PityTimer(0.006, soft_start=74, ramp=0.06, hard=90))
    # featured at the first 5-star with 1/2, else at the second (the guarantee)
    assert s.mean == one.mean * Fraction(3, 2)
    assert abs(float(s.mean) - 93.45) < 0.01
    with pytest.raises(InvalidValueError, match="value"):
        first_success(g, "legendary")


@pytest.mark.parametrize("system", [PRD(0.1), AimAssist(0.65, 0.10, cap=0.95),
                                    AimAssist(0.3, 0.2)], ids=repr)
def test_first_success_renews_at_the_long_run_rate(system):
    # a "tries since the last success" system starts where a success leaves it: the
    # mean wait is 1 / the long-run rate (summed independently by long_run_rate)
    chance = getattr(system, "chance", None) or (lambda k: min(1.0, k * system.C))
    assert abs(1 / float(first_success(system).mean) - long_run_rate(chance)) < 1e-9


def test_first_success_of_the_other_two_value_systems():
    from chancekit.fair.studio import true_hit

    assert first_success(TwoRollHit(70)).mean == 1 / true_hit(70)
    assert first_success(LuckyStreak(0.25, 2)).mean == 4   # from rest: a plain 25 % roll
    acc = first_success(ErrorAccumulator(0.25))             # chances 1/4, 1/2, 3/4, 1
    want, alive = _survival_pmf(lambda k: Fraction(min(k, 4), 4), 4)
    assert list(acc.pmf) == want and alive == 0


TWO_VALUE = [
    PRD(0.25), PRD(0.1),
    PityTimer(0.1), PityTimer(0.1, hard=10), PityTimer(0.05, soft_start=10),
    PityTimer(0.02, soft_start=5, ramp=0.1), PityTimer(0.006, soft_start=74, ramp=0.06, hard=90),
    ErrorAccumulator(0.3), ErrorAccumulator(0.25),
    AimAssist(0.65, 0.10, cap=0.95), AimAssist(0.3, 0.2),
    TwoRollHit(70), LuckyStreak(0.25, 2), LuckyStreak(0.4, 3),
    HistoryReroll(2, history=1, tries=2),
]


@pytest.mark.parametrize("system", TWO_VALUE, ids=repr)
def test_every_two_value_target_is_its_long_run_rate(system):
    exact = long_run(system)
    assert sum(exact.pmf().values()) == 1
    for value, share in zip(system.values, system.target(), strict=True):
        assert abs(share - float(exact.probability(value))) < 1e-9, (value, share)


def test_systems_without_a_finite_chain_are_refused_up_front():
    from chancekit.fair import Deck as FairDeck
    from chancekit.fair import Dice, NoRepeatSystem

    for system in (Dice(2), FairDeck(3), NoRepeatSystem(Dice(3))):
        with pytest.raises(InvalidValueError, match="counts every value"):
            first_success(system, system.values[0])
        with pytest.raises(InvalidValueError, match="counts every value"):
            long_run(system)
    with pytest.raises(LimitError) as e:
        first_success(PityTimer(0.001, soft_start=10, ramp=1e-6))
    # up to 999,011 tries since a success: refused by its priced size, with the lift
    assert e.value.limit == "MAX_MARKOV_WORK" and "999,011" in str(e.value)
    assert "max_work=" in str(e.value)


def test_long_run_rate_agrees_with_simulation():
    pity = PityTimer(0.1, soft_start=4, ramp=0.2)
    rate = float(long_run(pity).probability(True))
    rng = random.Random(3)
    k, hits, n = 1, 0, 200_000
    for _ in range(n):
        if rng.random() < pity.chance(k):
            hits += 1
            k = 1
        else:
            k += 1
    assert abs(hits / n - rate) < 5 * math.sqrt(rate * (1 - rate) / n) * 2


# --------------------------------------------------------------------------- boards
def test_project_euler_84():
    four = sorted(monopoly(4).pmf().items(), key=lambda kv: -kv[1])[:3]
    assert "".join(f"{sq:02d}" for sq, _ in four) == "101524"
    six = monopoly(6).pmf()
    top = sorted(six.items(), key=lambda kv: -kv[1])[:3]
    assert [sq for sq, _ in top] == [10, 24, 0]
    for (sq, p), published in zip(top, (6.24, 3.18, 3.09), strict=True):
        assert abs(float(p) * 100 - published) < 0.01, sq
    assert sum(six.values()) == 1


def test_board_without_rules_is_uniform_and_go_to_moves_mass():
    assert board(6, "1d6").pmf() == {sq: Fraction(1, 6) for sq in range(6)}
    ring = board(10, "1d4", go_to={3: 0}).pmf()
    assert 3 not in ring and ring[0] > ring[1]
    with pytest.raises(InvalidValueError, match="square"):
        board(10, "1d4", go_to={12: 0})


def test_one_sided_races_and_usage_dice_are_refused_up_front(monkeypatch):
    """race 1000000 1d6 explored 100k states before refusing; usage-die d1000000 walked
    1,367 steps: both are refused now before any state is explored or step walked."""
    import chancekit.markov.chain as engine
    from chancekit.markov.processes import builtin

    def boom(*a, **k):
        raise AssertionError("work started")

    monkeypatch.setattr(engine, "_pmf", boom)
    for args in (["1000000", "1d6"], ["1000000", "1"]):
        with pytest.raises(LimitError) as e:
            builtin("race", args)
        assert e.value.limit == "MAX_MARKOV_STATES" and "has up to 1,000,0" in str(e.value)
    with pytest.raises(LimitError) as e:
        hp_race((100_000, 30), ("1d6", "1d6"))  # independent sides: each priced up front
    assert e.value.limit == "MAX_MARKOV_WORK" and "100,000 HP needs" in str(e.value)
    with pytest.raises(LimitError) as e:
        hp_race((1_000_000, 30), ("1d6", "1d6"))  # past the memory ceiling
    assert e.value.limit == "MAX_MARKOV_STATES" and "has up to" in str(e.value)
    with pytest.raises(LimitError) as e:
        builtin("usage-die", ["d1000000"])
    assert e.value.limit == "MAX_MARKOV_STEPS" and "needs about" in str(e.value)
    with pytest.raises(LimitError) as e:
        builtin("usage-die", ["d1000"])
    assert e.value.limit == "MAX_MARKOV_WORK" and "walking about" in str(e.value)
    # what fits still works: a usage die's mean needs no walk, and a short walk is fine
    assert usage_die([1000000]).mean == 500000
    monkeypatch.undo()
    assert builtin("usage-die", ["d1000000"], upto=10)[0].upto == 10


def test_healing_races_are_sized_up_front():
    """Healing makes the HP line one component (one dense solve): its size is known
    before exploring."""
    with pytest.raises(LimitError) as e:
        hp_race(5000, "1d6-3")
    # a 5,000-state component: priced up front (no longer a fixed ceiling), liftable
    assert e.value.limit == "MAX_MARKOV_WORK" and "5,000 states that reach" in str(e.value)
    assert "max_work=" in str(e.value) and "MB for its 5,000 x 5,000 matrix" in str(e.value)
    with pytest.raises(LimitError) as e:
        hp_race((40, 40), ("1d6-2", "1d8-2"))  # both heal: up to 1,600 in one component
    # its dense solve (1,600**3 / 4 units) is priced up front, past the default budget
    assert e.value.limit == "MAX_MARKOV_WORK" and "40 x 40 HP (one component" in str(e.value)
    assert "max_work=2e9" in str(e.value)
    assert hp_race(12, "1d6-3").rounds.mean > 0  # small ones are answered
