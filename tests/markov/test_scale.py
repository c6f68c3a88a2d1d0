"""Markov chains at scale (issue 31 item 4): the limits are work, counted and estimated,
lifted by ``max_work``; a user's own 100 v 100 HP race and an acyclic chain of a million
transitions are answered exactly within the default budget. Work is asserted in counted
units, never in seconds (benchmarks/bench_markov.py times them)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from chancekit import d, limits
from chancekit.errors import LimitError
from chancekit.limits import EXPLORE_EDGE_WORK, EXPLORE_STATE_WORK, MAX_MARKOV_WORK
from chancekit.markov import absorb, explore, hp_race, stationary, steps


def race_step(damage):
    """A user's own step function for an HP race (not the builder): the pair of HP,
    each floored at 0, both striking at once; the race ends when either is down."""
    dmg = list(damage.items())

    def step(state):
        a, b = state
        if a <= 0 or b <= 0:
            return state
        out = {}
        for x, wx in dmg:
            for y, wy in dmg:
                key = (max(a - x, 0), max(b - y, 0))
                out[key] = out.get(key, 0) + wx * wy
        return out

    return step


def _winner(end):
    return end.map(lambda s: "both" if s == (0, 0) else "first" if s[1] == 0 else "second")


def test_a_user_written_100_v_100_race_is_answered_within_the_default_budget():
    """8,330 states and 873,346 transitions (refused by a fixed 250,000 before): the
    exploration and the integer pass fit MAX_MARKOV_WORK, and the answer is hp_race's
    (an independent method: each side's time to go down)."""
    with limits.evaluation(limit=MAX_MARKOV_WORK, name="MAX_MARKOV_WORK") as budget:
        end = absorb(race_step(d(6) + d(6)), (100, 100))
    assert budget.estimated <= MAX_MARKOV_WORK
    explored = 8330 * EXPLORE_STATE_WORK + 873_346 * EXPLORE_EDGE_WORK
    assert explored < budget.estimated < 3 * explored  # the pass: about as much again
    assert budget.counted >= explored  # the exploration is counted as it is charged
    assert _winner(end) == hp_race((100, 100), ("2d6", "2d6")).winner


def test_a_small_user_race_agrees_with_hp_race_exactly():
    for a, b in ((7, 9), (12, 5), (1, 30)):
        step = race_step(d(6))  # the same damage both ways: 1d6
        assert _winner(absorb(step, (a, b))) == hp_race((a, b), ("1d6", "1d6")).winner


def test_an_acyclic_chain_of_a_million_transitions_is_exact_in_one_pass():
    """13 layers of up to 1,000 states, 100 moves each (1,089,400 transitions): x goes
    to 7x + k modulo 1000 (k uniform in 0..99) 13 times; where it ends is counted
    independently, by a forward count of the paths in integers."""
    def step(state):
        layer, x = state
        if layer == 13:
            return state
        return {(layer + 1, (7 * x + k) % 1000): 1 for k in range(100)}

    with limits.evaluation(limit=MAX_MARKOV_WORK, name="MAX_MARKOV_WORK") as budget:
        chain = explore(step, (0, 0))
        assert chain.transitions == 100 * (1 + 100 + 793 + 10 * 1000)  # layers 3.. full
        end = absorb(step, (0, 0))
    assert budget.estimated <= MAX_MARKOV_WORK
    counts = [1] + [0] * 999
    for _ in range(13):
        nxt = [0] * 1000
        for x, c in enumerate(counts):
            if c:
                for k in range(100):
                    nxt[(7 * x + k) % 1000] += c
        counts = nxt
    want = {(13, x): Fraction(c, 100**13) for x, c in enumerate(counts) if c}
    assert end.pmf() == want


def test_a_refusal_names_the_lift_and_the_lift_answers():
    step = race_step(d(6) + d(6))
    with pytest.raises(LimitError) as e:
        absorb(step, (30, 30), max_work=10**6)
    text = str(e.value)
    assert e.value.limit == "MAX_MARKOV_WORK" and "max_work=4e6" in text
    assert "--max-work 4e6" in text and "hp_race((hp_a, hp_b)" in text
    end = absorb(step, (30, 30), max_work=4e6)
    assert _winner(end) == hp_race((30, 30), ("2d6", "2d6")).winner


def test_a_solve_refusal_asks_for_what_it_needs():
    """A cyclic component is priced (k**3 / 4) before its solve: the refusal names a
    max_work past its estimate, and that lift answers."""
    def walk(n):  # a ring of 300 states, each moving 1 or 2 on: one component
        return {(n + 1) % 300: 1, (n + 2) % 300: 1}

    with pytest.raises(LimitError) as e:
        stationary(walk, 0, max_work=10**6)
    units = e.value.value
    assert units > 300**3 // 4 and "stationary() needs too much work" in str(e.value)
    lift = str(e.value).split("max_work=")[1].split(" ")[0]
    assert float(lift) >= units
    pi = stationary(walk, 0, max_work=float(lift))
    assert set(pi.pmf().values()) == {Fraction(1, 300)}


def test_builders_take_max_work_too():
    with pytest.raises(LimitError) as e:
        hp_race((40, 40), ("1d6-2", "1d8-2"))
    assert "max_work=2e9" in str(e.value)
    with pytest.raises(LimitError) as e:
        hp_race((100, 100), ("2d6", "2d6"), max_work=1000)
    assert e.value.limit == "MAX_MARKOV_WORK" and "max_work = 1,000" in str(e.value)
    assert steps(lambda n: n if n == 0 else n - 1, 5, max_work=10**4).mean == 5
