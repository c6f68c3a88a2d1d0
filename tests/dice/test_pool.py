"""Pools evaluated face by face: every built-in and the general engine against brute-force
enumeration of all rolls (parametrised grids), plus limits, caches and errors."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _upfront import MAX_CALLS, measure
from chancekit.dice import (
    Decided,
    Distribution,
    FaceRule,
    clear_caches,
    constant,
    count_successes,
    d,
    evaluate_pool,
    faces,
    facewalk,
    fudge,
    keep_highest,
    keep_lowest,
    keep_sum,
    largest_set,
    longest_straight,
    neon_city_overdrive,
    risk_battle,
)
from chancekit.dice import pool as pool_module
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError

WEIRD = faces([1, 1, 2, 5, 5, 5])  # non-uniform weights, a gap in the faces
NEG = faces([-2, 0, 0, 3])

# -- keep highest / lowest ---------------------------------------------------------------

KEEP_POOLS = [
    4 * [d(6)],
    5 * [d(4)],
    3 * [WEIRD],
    4 * [NEG],
    [d(4), d(6), d(8)],
    [d(6), d(6), WEIRD, NEG],
    2 * [fudge()] + [d(3)],
]


@pytest.mark.parametrize("dice", KEEP_POOLS, ids=lambda p: f"{len(p)}dice")
@pytest.mark.parametrize("side", ["highest", "lowest"])
def test_keep_sum_matches_enumeration(brute, dice: list, side: str) -> None:
    for k in range(len(dice) + 1):
        if side == "highest":
            expect = brute(dice, lambda r, k=k: sum(sorted(r, reverse=True)[:k]))
            got = keep_sum(dice, highest=k)
        else:
            expect = brute(dice, lambda r, k=k: sum(sorted(r)[:k]))
            got = keep_sum(dice, lowest=k)
        assert got == expect, (side, k)


def test_keep_conveniences() -> None:
    assert keep_highest(4, d(6), 3) == keep_sum(4 * [d(6)], highest=3)
    assert keep_lowest(3, d(8), 2) == keep_sum(3 * [d(8)], lowest=2)
    assert keep_highest(4, d(6), 3).mean() == Fraction(15869, 1296)
    assert keep_highest(0, d(6), 0) == constant(0)


def test_keep_sum_generic_path_agrees_with_poly_path() -> None:
    # the general engine (mixed-dice path) and the polynomial fast path on identical dice
    rule = facewalk._KeepRule(3, "descending")
    assert evaluate_pool(rule, 7 * [WEIRD]) == keep_sum(7 * [WEIRD], highest=3)
    rule = facewalk._KeepRule(2, "ascending")
    assert evaluate_pool(rule, 6 * [NEG]) == keep_sum(6 * [NEG], lowest=2)


def test_keep_sum_bad_arguments() -> None:
    with pytest.raises(InvalidValueError, match="exactly one"):
        keep_sum(3 * [d(6)])
    with pytest.raises(InvalidValueError, match="exactly one"):
        keep_sum(3 * [d(6)], highest=1, lowest=1)
    with pytest.raises(InvalidValueError):
        keep_sum(3 * [d(6)], highest=4)
    with pytest.raises(InvalidTypeError):
        keep_sum([d(6), 3], highest=1)  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        keep_sum(2 * [faces(["a", "b"])], highest=1)


# -- successes ---------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [5 * [d(10)], [d(6), d(8), WEIRD], 3 * [NEG]],
                         ids=["5d10", "mixed", "neg"])
def test_successes_match_enumeration(brute, dice: list) -> None:
    def hit(x: int) -> bool:
        return x >= 5

    expect = brute(dice, lambda r: sum(hit(x) + (x in (5, 10)) for x in r))
    assert count_successes(dice, hit, double=[5, 10]) == expect
    expect = brute(dice, lambda r: sum(x in (3, 0) for x in r))
    assert count_successes(dice, [3, 0]) == expect


# -- largest set, straights -------------------------------------------------------------

SET_POOLS = [
    1 * [d(6)],
    4 * [d(6)],
    5 * [d(3)],
    6 * [d(4)],
    4 * [WEIRD],
    [d(4), d(6), d(6)],
    [WEIRD, d(6), NEG],
]


@pytest.mark.parametrize("dice", SET_POOLS, ids=lambda p: f"{len(p)}dice")
def test_largest_set_matches_enumeration(brute, dice: list) -> None:
    expect = brute(dice, lambda r: max(Counter(r).values()))
    assert largest_set(dice) == expect


def _longest_run(r: tuple) -> int:
    present = set(r)
    best = 0
    for x in present:
        if x - 1 not in present:
            n = 1
            while x + n in present:
                n += 1
            best = max(best, n)
    return best


@pytest.mark.parametrize("dice", [5 * [d(6)], 4 * [d(8)], [d(4), d(6), WEIRD], 3 * [NEG]],
                         ids=["5d6", "4d8", "mixed", "neg"])
def test_longest_straight_matches_enumeration(brute, dice: list) -> None:
    assert longest_straight(dice) == brute(dice, _longest_run)


# -- Neon City Overdrive -----------------------------------------------------------------


def _nco(action: tuple, danger: tuple, top: int = 6) -> int:
    left = Counter(action)
    left.subtract(Counter(danger))
    alive = [f for f, c in left.items() if c > 0]
    if not alive:
        return 0
    best = max(alive)
    return top - 1 + left[best] if best == top else best


@pytest.mark.parametrize(("a", "b"), [(0, 0), (0, 2), (1, 0), (1, 1), (2, 1), (3, 2), (2, 3),
                                      (4, 2), (3, 3)])
def test_nco_matches_enumeration(brute, a: int, b: int) -> None:
    expect = brute((a + b) * [d(6)], lambda r: _nco(r[:a], r[a:])) if a + b else constant(0)
    assert neon_city_overdrive(a, b) == expect


def test_nco_other_die() -> None:
    def oracle(r: tuple) -> int:
        return _nco(r[:3], r[3:], top=4)

    assert neon_city_overdrive(3, 2, die=d(4)) == enumerate_small(5 * [d(4)], oracle)


def enumerate_small(dice: list, f) -> Distribution:  # type: ignore[no-untyped-def]
    """Brute force (a local copy of the conftest fixture, usable inside hypothesis)."""
    out: dict = {}
    for combo in itertools.product(*(tuple(x.weights.items()) for x in dice)):
        w = math.prod(wi for _, wi in combo)
        r = f(tuple(face for face, _ in combo))
        out[r] = out.get(r, 0) + w
    return Distribution(out)


def test_nco_published_facts() -> None:
    x = neon_city_overdrive(2, 0)
    assert x.probability(7) == Fraction(1, 36)  # two sixes: one critical
    assert x.probability(6) == Fraction(10, 36)
    y = neon_city_overdrive(6, 6)
    assert sum(y.pmf().values()) == 1
    assert max(y.outcomes()) == 5 + 6


# -- RISK --------------------------------------------------------------------------------


def _risk(r: tuple, a: int) -> tuple[int, int]:
    att = sorted(r[:a], reverse=True)
    dfn = sorted(r[a:], reverse=True)
    al = dl = 0
    for x, y in zip(att, dfn, strict=False):
        if x > y:
            dl += 1
        else:
            al += 1
    return (al, dl)


@pytest.mark.parametrize("a", [1, 2, 3, 4])
@pytest.mark.parametrize("b", [1, 2, 3])
def test_risk_matches_enumeration(brute, a: int, b: int) -> None:
    assert risk_battle(a, b) == brute((a + b) * [d(6)], lambda r: _risk(r, a))


def test_risk_published_3v2() -> None:
    x = risk_battle(3, 2)
    assert x.probability((0, 2)) == Fraction(2890, 7776)
    assert x.probability((1, 1)) == Fraction(2611, 7776)
    assert x.probability((2, 0)) == Fraction(2275, 7776)
    assert risk_battle(0, 2) == constant((0, 0))


# -- the general engine ------------------------------------------------------------------


class _Opposed(FaceRule):
    """Highest die of pool 0 beats every die of pool 1 strictly? (ascending order)."""

    order = "ascending"
    initial = (0, 0)  # (highest face of pool 0 so far, of pool 1)

    def step(self, state, face, counts):  # type: ignore[no-untyped-def]
        a, b = state
        return (face if counts[0] else a, face if counts[1] else b)

    def final(self, state):  # type: ignore[no-untyped-def]
        return int(state[0] > state[1])


def test_engine_two_pools_ascending_mixed(brute) -> None:
    pool_a = [d(4), d(6)]
    pool_b = [WEIRD, d(3), d(3)]
    expect = brute(pool_a + pool_b, lambda r: int(max(r[:2]) > max(r[2:])))
    assert evaluate_pool(_Opposed(), pool_a, pool_b) == expect
    assert _Opposed().evaluate(pool_a, pool_b) == expect


@pytest.mark.parametrize("order", ["descending", "ascending"])
def test_engine_sum_any_order(brute, order: str) -> None:
    rule = FaceRule(lambda s, face, c: s + face * c[0], initial=0, order=order)
    dice = [d(4), WEIRD, NEG, NEG]
    assert evaluate_pool(rule, dice) == brute(dice, sum)


def test_engine_decided_sums_out_the_rest(brute) -> None:
    # "first face (from the top) shown by at least two dice; 0 if none"
    rule = FaceRule(lambda s, face, c: Decided(face) if c[0] >= 2 else s, initial=0)
    dice = [d(6), d(6), WEIRD, d(4)]

    def oracle(r: tuple) -> int:
        twos = [f for f, n in Counter(r).items() if n >= 2]
        return max(twos) if twos else 0

    assert evaluate_pool(rule, dice) == brute(dice, oracle)


def test_engine_single_die_and_empty_pool() -> None:
    rule = FaceRule(lambda s, face, c: s + c[0] * face, initial=0)
    assert evaluate_pool(rule, d(6)) == d(6)
    assert evaluate_pool(rule, []) == constant(0)


@given(st.lists(st.sampled_from([d(3), d(4), WEIRD, NEG, faces([2, 7])]), min_size=1,
                max_size=4), st.sampled_from(["descending", "ascending"]))
def test_engine_count_of_maximum_property(dice: list, order: str) -> None:
    # number of dice showing the pool's highest face, any order, any mixture
    def step(s, face, c):  # type: ignore[no-untyped-def]
        if order == "descending":
            return Decided(c[0]) if c[0] else s
        return c[0] if c[0] else s

    rule = FaceRule(step, initial=0, order=order)
    expect = enumerate_small(dice, lambda r: r.count(max(r)))
    got = evaluate_pool(rule, dice)
    assert got == expect
    assert sum(got.pmf().values()) == 1


def test_engine_errors() -> None:
    with pytest.raises(InvalidValueError):
        FaceRule(lambda s, f, c: s, order="sideways")
    with pytest.raises(InvalidTypeError):
        evaluate_pool("rule", [d(6)])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        evaluate_pool(FaceRule(lambda s, f, c: [s]), 2 * [d(6)])  # unhashable state
    with pytest.raises(InvalidTypeError):
        evaluate_pool(FaceRule(lambda s, f, c: s), 3)  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError):
        evaluate_pool(FaceRule(), [d(2)])


def test_limits_refused_quickly() -> None:
    dice = [d(n) for n in range(2, 40)]
    for call, limit in ((lambda: keep_highest(20_000, d(6), 3), None),
                        (lambda: neon_city_overdrive(6000, 6000), None),
                        (lambda: evaluate_pool(FaceRule(lambda s, f, c: s), dice),
                         "MAX_POOL_STATES")):
        error, _, calls = measure(call)
        assert isinstance(error, LimitError) and error.limit is not None
        assert limit is None or error.limit == limit
        assert calls < MAX_CALLS  # refused up front (counted calls, not seconds)


def test_cache_is_bounded_and_clearable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facewalk, "CACHE_SIZE", 5)
    clear_caches()
    for n in range(1, 12):
        keep_highest(n, d(4), 1)
    assert len(facewalk._cache) == 5
    clear_caches()
    assert len(facewalk._cache) == 0


def test_work_limit_refused_quickly() -> None:
    error, _, calls = measure(lambda: neon_city_overdrive(1000, 1000))
    assert isinstance(error, LimitError) and error.limit == "MAX_WORK"
    assert calls < MAX_CALLS


@pytest.mark.parametrize(("a", "b"), [(6, 6), (9, 4)])
def test_nco_fast_path_agrees_with_general_engine(a: int, b: int) -> None:
    rule = pool_module._NCORule(6)
    assert neon_city_overdrive(a, b) == evaluate_pool(rule, a * [d(6)], b * [d(6)])
