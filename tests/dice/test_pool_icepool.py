"""icepool (test-only oracle) gives identical exact weights on medium cases."""

from __future__ import annotations

import icepool
import pytest

from chancekit.dice import (
    Distribution,
    count_successes,
    d,
    keep_highest,
    keep_lowest,
    largest_set,
    longest_straight,
    neon_city_overdrive,
)


def from_icepool(die: icepool.Die) -> Distribution:
    return Distribution(dict(die.items()))


def icepool_nco(action: int, danger: int) -> Distribution:
    left = icepool.d6.pool(action) - icepool.d6.pool(danger)
    result = left.highest_outcome_and_count().map(
        lambda face, count: 0 if count == 0 else (5 + count if face == 6 else face))
    return from_icepool(result)


@pytest.mark.parametrize(("a", "b"), [(6, 6), (10, 10), (3, 5), (7, 2)])
def test_nco_matches_icepool(a: int, b: int) -> None:
    assert neon_city_overdrive(a, b) == icepool_nco(a, b)


@pytest.mark.parametrize(("n", "sides"), [(30, 10), (12, 6), (8, 20)])
def test_largest_set_matches_icepool(n: int, sides: int) -> None:
    expect = from_icepool(icepool.d(sides).pool(n).largest_count())
    assert largest_set(n * [d(sides)]) == expect


@pytest.mark.parametrize(("n", "sides", "k"), [(100, 6, 10), (4, 6, 3), (10, 10, 3),
                                               (20, 8, 7)])
def test_keep_highest_matches_icepool(n: int, sides: int, k: int) -> None:
    expect = from_icepool(icepool.d(sides).pool(n).highest(k).sum())
    assert keep_highest(n, d(sides), k) == expect


def test_keep_lowest_matches_icepool() -> None:
    expect = from_icepool(icepool.d12.pool(15).lowest(4).sum())
    assert keep_lowest(15, d(12), 4) == expect


def test_8d6_exploding_matches_icepool() -> None:
    # same cap semantics: depth = extra rolls; past the cap the last roll is kept as rolled
    expect = from_icepool(8 @ icepool.d6.explode(depth=9))
    assert 8 @ d(6).explode(depth=9) == expect
    expect = from_icepool(3 @ icepool.d6.explode([5, 6], depth=3))
    assert 3 @ d(6).explode([5, 6], depth=3) == expect


def test_longest_straight_matches_icepool() -> None:
    expect = from_icepool(icepool.d6.pool(8).largest_straight())
    assert longest_straight(8 * [d(6)]) == expect


def test_successes_match_icepool() -> None:
    expect = from_icepool(20 @ icepool.d10.map(lambda x: (x >= 7) + (x == 10)))
    assert count_successes(20 * [d(10)], lambda x: x >= 7, double=[10]) == expect
