"""The three ways of summing the k highest/lowest of n identical dice (issue #22 item 3,
keep-half scaling): by the threshold face (``_keep_sum_poly``, Horner in the faces beyond
the k-th kept die), by the face walk (``_keep_walk_poly``) and from the dropped end
(``_drop_sum_poly``). Each is checked against brute force over every roll, and the
estimate that picks between them grows as n^2 work units for keep-half, not n^3."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit import limits
from chancekit.dice import d
from chancekit.dice.distribution import Distribution
from chancekit.dice.facewalk import (
    _drop_sum_poly,
    _keep_costs,
    _keep_sum_poly,
    _keep_walk_poly,
    keep_sum,
    keep_work,
)


def brute(weights: dict[int, int], n: int, k: int, highest: bool) -> dict[int, int]:
    """Every ordered roll of n dice, sorted, the k kept summed: no shared code."""
    out: dict[int, int] = {}
    for roll in itertools.product(weights.items(), repeat=n):
        faces = sorted((f for f, _ in roll), reverse=highest)
        w = math.prod(x for _, x in roll)
        s = sum(faces[:k])
        out[s] = out.get(s, 0) + w
    g = math.gcd(*out.values())
    return {s: w // g for s, w in sorted(out.items())}


dice = st.dictionaries(st.integers(-6, 12), st.integers(1, 6), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(dice, st.integers(1, 5), st.data(), st.booleans())
def test_every_way_matches_brute_force(weights: dict[int, int], n: int, data: st.DataObject,
                                       highest: bool) -> None:
    k = data.draw(st.integers(1, n))
    die = Distribution(weights)
    want = brute(weights, n, k, highest)
    assert dict(_keep_sum_poly(die, n, k, highest).weights) == want
    assert dict(_keep_walk_poly(die, n, k, highest).weights) == want
    if n - k >= 1:
        assert dict(_drop_sum_poly(die, n, n - k, highest).weights) == want
    assert dict(keep_sum(n * [die], **{"highest" if highest else "lowest": k}).weights) == want


@pytest.mark.parametrize(("n", "k"), [(20, 10), (31, 15), (40, 39), (24, 2)])
def test_the_ways_agree_on_larger_pools(n: int, k: int) -> None:
    die = Distribution({1: 3, 2: 1, 5: 2, 9: 1})
    for highest in (True, False):
        a = _keep_sum_poly(die, n, k, highest)
        assert a == _keep_walk_poly(die, n, k, highest)
        if k > n - k:
            assert a == _drop_sum_poly(die, n, n - k, highest)


def test_keep_half_of_d6_mirrors() -> None:
    high = _keep_sum_poly(d(6), 120, 60, True)
    low = _keep_sum_poly(d(6), 120, 60, False)
    assert {420 - x: w for x, w in low.weights.items()} == dict(high.weights)


def test_keep_half_work_grows_as_n_squared() -> None:
    # the face walk priced k^3 span coefficient steps (exponent 3 and more); by the
    # threshold face it is k^2 span products: from 120 to 240 dice the work units of the
    # cheapest way grow by at most 2^2.5 (icepool's measured exponent was 2.7)
    small, large = keep_work(d(6), 120, 60), keep_work(d(6), 240, 120)
    assert math.log2(large / small) <= 2.5
    by_face, walk, _, _ = _keep_costs(d(6), 240, 120, True)
    assert by_face * 20 < walk


def test_the_cheapest_way_is_charged_and_taken() -> None:
    # 20 compounded d10s keeping 10: few kept of a wide die with big weights, the walk wins
    from chancekit.dice import dist
    wide = dist("1d10!!", dialect="roll20")
    by_face, walk, drop, _ = _keep_costs(wide, 20, 10, True)
    assert drop is None and walk < by_face
    with limits.evaluation(limit=10**9, name="MAX_WORK") as budget:  # (67 M: issue 31)
        keep_sum(20 * [wide], highest=10)
    assert budget.estimated == walk
    # 300 d6 keeping 150: by the threshold face
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        keep_sum(300 * [d(6)], highest=150)
    assert budget.estimated == _keep_costs(d(6), 300, 150, True)[0]


def test_the_open_budget_sets_the_limit_not_max_work() -> None:
    # `--max-work N` opens a budget of N units: a keep past MAX_WORK is answered in it, and
    # a smaller budget refuses a keep that MAX_WORK lets through (pool.py/facewalk.py used
    # to compare with the constant MAX_WORK directly)
    from chancekit.dice.pool import largest_set
    from chancekit.errors import LimitError

    work = keep_work(d(6), 1100, 550)
    assert work > limits.MAX_WORK
    with pytest.raises(LimitError):
        keep_sum(1100 * [d(6)], highest=550)
    with limits.evaluation(limit=2 * work, name="MAX_WORK") as budget:
        assert keep_sum(1100 * [d(6)], highest=550).total > 0
    assert budget.estimated == work
    with limits.evaluation(limit=1000, name="MAX_WORK"):
        with pytest.raises(LimitError, match="budget"):
            keep_sum(60 * [d(6)], highest=30)
        with pytest.raises(LimitError, match="budget"):
            largest_set(300 * [d(6)])


def test_the_highest_of_many_wide_dice_is_priced_before_it_runs() -> None:
    # 1000d100000kh1 ran 26 s (a face check per copy of the die, 10^8 of them) and 3 s of
    # powers before this; now priced by extreme_work and refused with nothing counted
    from chancekit.dice.facewalk import extreme_work
    from chancekit.errors import LimitError

    wide = d(100000)
    assert extreme_work(wide, 1000) > limits.MAX_WORK
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError, match="highest of 1000 dice"):
            keep_sum(1000 * [wide], highest=1)
    assert budget.counted == 0
    # and it is right where it runs: the highest of 3 d4 against brute force
    assert dict(keep_sum(3 * [d(4)], highest=1).weights) == brute({f: 1 for f in range(1, 5)},
                                                                   3, 1, True)


def test_few_faces_far_apart_take_the_general_walk() -> None:
    # d{1, 10^9}: the dense ways pay for a span of 10^9 (refused before); the general walk
    # keeps only the sums that occur. Closed form: c ~ Binomial(20, 1/2) dice show 10^9,
    # the 10 highest sum to min(c, 10) x 10^9 + (10 - min(c, 10)) x 1
    from chancekit.dice import dist

    big = 10**9
    got = dist("20d{1,1000000000}kh10")
    want: dict[int, int] = {}
    for c in range(21):
        top = min(c, 10)
        s = top * big + (10 - top)
        want[s] = want.get(s, 0) + math.comb(20, c)
    assert got == Distribution(want)
    far = Distribution({-10**12: 1, 10**12: 1})
    _, _, _, pool = _keep_costs(far, 5, 2, True)
    assert pool is not None and pool < limits.MAX_WORK
    assert dict(keep_sum(5 * [far], lowest=2).weights) == brute({-10**12: 1, 10**12: 1},
                                                                   5, 2, False)


def test_the_highest_of_two_dice_with_huge_weights_is_priced_with_its_gcd() -> None:
    # AnyDice's recursive [highest of N x D] (corpus program 22432) doubles the weights'
    # bits at each level: the reduction's gcd is quadratic in their words, and was not
    # priced (9 s before the refusal); now refused with nothing counted
    from chancekit.dice.facewalk import extreme_work
    from chancekit.errors import LimitError

    huge = Distribution({1: 3**1_500_000, 2: 1, 3: 5})
    assert extreme_work(huge, 2) > limits.MAX_WORK
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            keep_sum(2 * [huge], highest=1)
    assert budget.counted == 0


def test_quoting_a_huge_int_counts_its_digits_from_its_top_bits() -> None:
    import sys

    from chancekit.errors import quote

    n = 7 * 10**200_000 + 12345
    text = quote(n)
    assert "200001 digits" in text and text.endswith("...0000012345)")
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert str(n).startswith(text.split("(")[1][:5])
    finally:
        sys.set_int_max_str_digits(old)
