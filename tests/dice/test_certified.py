"""Certified distributions (issue #31, item 7): every interval contains the exact
probability. Oracles: brute-force enumeration over Fractions (itertools.product) on small
cases, chancekit's exact Distribution where enumeration is too long; at low precision
(16-40 bits) the intervals are wide, so rounding the wrong way would show."""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit.dice import Distribution, d
from chancekit.dice.certified import (
    CertifiedDistribution,
    Interval,
    PrecisionLost,
    certify,
    precision,
)
from chancekit.errors import InvalidValueError, LimitError
from chancekit.limits import evaluation

dice_st = st.dictionaries(st.integers(-4, 6), st.integers(1, 9), min_size=1, max_size=5)
bits_st = st.integers(16, 40)


def brute(dice: list[dict[int, int]], f) -> dict[object, Fraction]:
    """The exact distribution of ``f(x1, ..., xn)`` over independent dice, enumerated."""
    totals = [sum(w.values()) for w in dice]
    out: Counter[object] = Counter()
    for combo in itertools.product(*(list(w.items()) for w in dice)):
        p = Fraction(1)
        for (_, w), t in zip(combo, totals, strict=True):
            p *= Fraction(w, t)
        out[f(*(x for x, _ in combo))] += p
    return dict(out)


def contains(c: CertifiedDistribution, exact: dict[object, Fraction]) -> bool:
    exact = {k: v for k, v in exact.items() if v}
    if set(c.outcomes()) != set(exact):
        return False
    return all(c.interval(k)[0] <= p <= c.interval(k)[1] for k, p in exact.items())


@settings(max_examples=150, deadline=None)
@given(dice_st, dice_st, bits_st, st.sampled_from(["+", "-", "*", "max", "min", "<", "=="]))
def test_pairwise_contains_brute_force(a, b, bits, op):
    f = {"+": operator.add, "-": operator.sub, "*": operator.mul, "max": max, "min": min,
         "<": lambda x, y: int(x < y), "==": lambda x, y: int(x == y)}[op]
    with precision(bits):
        ca, cb = certify(Distribution(a)), certify(Distribution(b))
        got = ca._combine(cb, f, op)
    assert contains(got, brute([a, b], f))


@settings(max_examples=100, deadline=None)
@given(dice_st, st.integers(1, 4), bits_st)
def test_repeat_sum_contains_brute_force(a, n, bits):
    with precision(bits):
        got = certify(Distribution(a)).repeat_sum(n)
    assert contains(got, brute([a] * n, lambda *xs: sum(xs)))


@settings(max_examples=100, deadline=None)
@given(dice_st, st.integers(1, 4), bits_st, st.booleans())
def test_extreme_contains_brute_force(a, n, bits, highest):
    with precision(bits):
        got = certify(Distribution(a)).extreme(n, highest=highest)
    assert contains(got, brute([a] * n, lambda *xs: max(xs) if highest else min(xs)))


@settings(max_examples=100, deadline=None)
@given(dice_st, st.integers(1, 4), st.integers(1, 4), bits_st)
def test_order_statistic_contains_brute_force(a, n, rank, bits):
    rank = min(rank, n)
    with precision(bits):
        got = certify(Distribution(a)).order_statistic(n, rank)
    assert contains(got, brute([a] * n, lambda *xs: sorted(xs, reverse=True)[rank - 1]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(dice_st, st.integers(1, 50)), min_size=1, max_size=4), bits_st,
       st.booleans())
def test_mixture_contains_brute_force(parts, bits, interval_weights):
    total = sum(w for _, w in parts)
    exact: Counter[object] = Counter()
    for dist, w in parts:
        t = sum(dist.values())
        for x, v in dist.items():
            exact[x] += Fraction(w, total) * Fraction(v, t)
    with precision(bits):
        # weights as intervals (a certified expansion's) or plain ints (an exact one's)
        ws = [Interval.of(Fraction(w, 7)) if interval_weights else w for _, w in parts]
        cparts = [certify(Distribution(p)) if i % 2 else Distribution(p)
                  for i, (p, _) in enumerate(parts)]
        got = CertifiedDistribution.mixture(cparts, ws)
    assert contains(got, dict(exact))


@settings(max_examples=60, deadline=None)
@given(dice_st, bits_st)
def test_map_contains(a, bits):
    with precision(bits):
        got = certify(Distribution(a)).map(lambda x: x % 3)
    assert contains(got, brute([a], lambda x: x % 3))


def test_larger_sums_against_the_exact_path_with_tight_bounds():
    for die, n in ((d(6), 1000), (d(20), 300), (Distribution({0: 1, 2: 1, 3: 5}), 500)):
        got = certify(die).repeat_sum(n)
        assert got.contains(n @ die)
        assert got.max_error < 1e-30  # 128 bits: far inside the 1e-12 the runs ask


def test_keeps_support_exact_with_gaps():
    # sums of {0, 2} never odd: no outcome is listed that the exact answer lacks
    got = certify(Distribution({0: 1, 2: 1})).repeat_sum(300)
    assert got.contains(300 @ Distribution({0: 1, 2: 1}))
    assert all(x % 2 == 0 for x in got.outcomes())


def test_reads_are_balls_and_bounds():
    c = certify(d(6)).repeat_sum(3)
    exact = 3 @ d(6)
    lo, hi = c.interval(10)
    assert lo <= exact.probability(10) <= hi
    assert c.probability(99).is_zero()
    lo_m, hi_m = c.mean_bounds()
    assert lo_m <= exact.mean() <= hi_m
    lo_a, hi_a = c.interval(3)
    assert lo_a <= Fraction(1, 216) <= hi_a
    ball = c.at_least(10)
    assert ball.lower() <= float(exact.at_least(10)) <= ball.upper()
    text = repr(c)
    assert "certified" in text and "exact" not in text
    assert c.is_exact is False
    doc = c.to_dict()
    assert doc["certified"] and not doc["exact"] and doc["max_error"] == c.max_error


def test_interval_arithmetic_rounds_outward():
    third = Interval.of(Fraction(1, 3), 20)
    assert third.lower < Fraction(1, 3) < third.upper
    prod = third * third
    assert prod.lower <= Fraction(1, 9) <= prod.upper
    assert (third ** 5).contains(Fraction(1, 243))
    assert (third + 2).contains(Fraction(7, 3))
    with pytest.raises(InvalidValueError):
        Interval(3, 2, 10)


def test_renormalising_by_an_unprovable_mass_is_refused():
    tiny = Interval(0, 1, 16)  # a mass that may be 0
    with pytest.raises(PrecisionLost):
        CertifiedDistribution.mixture([d(6)], [tiny])


def test_work_is_priced_and_refused_past_the_budget():
    with evaluation(limit=1_000_000, name="MAX_WORK"), pytest.raises(LimitError) as e:
        certify(d(6)).repeat_sum(20000)
    assert e.value.limit == "MAX_WORK" and "certified" in str(e.value)
    with pytest.raises(LimitError) as e:
        certify(d(1000)).repeat_sum(3000)  # 2,997,001 outcomes
    assert e.value.limit == "MAX_OUTCOMES"


def test_precision_is_checked():
    with pytest.raises(InvalidValueError):
        precision(8)
    with pytest.raises(LimitError) as e:
        precision(10**6)
    assert e.value.limit == "MAX_CERTIFIED_BITS"


# -- notation the certified way (chancekit.dice._approx) against the exact engine --------
term_st = st.one_of(
    st.builds(lambda n, x: f"{n}d{x}", st.integers(1, 4), st.integers(2, 6)),
    st.builds(lambda n, x, k: f"{n}d{x}{k}", st.integers(2, 4), st.integers(2, 6),
              st.sampled_from(["kh1", "kl1"])),
    st.integers(-3, 9).map(str),
)
expr_st = st.recursive(term_st, lambda inner: st.builds(
    lambda a, op, b: f"({a} {op} {b})", inner,
    st.sampled_from(["+", "-", "*", "//", "<", ">=", "=="]), inner), max_leaves=4)


def _assert_certified_contains(text, exact, bits):
    """Notation ``text`` has a certified path, and its answer at ``bits`` contains ``exact``."""
    from chancekit.dice import _approx
    from chancekit.dice._parse import parse

    tree = parse(text, "avrae")
    assert _approx.supported(tree) is None
    with precision(bits):
        got = _approx.evaluate(tree, text)
    assert got.contains(exact)


@settings(max_examples=80, deadline=None)
@given(expr_st, bits_st)
def test_notation_certified_contains_the_exact_answer(text, bits):
    from chancekit.dice import dist
    from chancekit.errors import NotationError

    try:
        exact = dist(text)
    except NotationError:  # a division by a die that can be 0
        return
    _assert_certified_contains(text, exact, bits)


def test_notation_without_a_certified_path_keeps_the_exact_refusal():
    from chancekit.dice import _approx, dist
    from chancekit.dice._parse import parse

    assert _approx.supported(parse("4d6kh3 + 2", "avrae")) is not None
    with pytest.raises(LimitError) as e:
        dist("2000d6kh1000", approx=True)
    assert "no certified path" in str(e.value)
    got = dist("20000d6 >= 70000", approx=True)
    assert isinstance(got, CertifiedDistribution) and got.max_error <= 1e-12
    # 20000d6 is symmetric about 70000: P(>= 70000) = (1 + P(= 70000)) / 2
    lo, hi = got.interval(1)
    centre = dist("20000d6", approx=True).interval(70000)
    assert 2 * lo - 1 <= centre[1] and centre[0] <= 2 * hi - 1


# -- groups whose operators act on each die alone (explosions, rerolls, counts) ----------
PER_DIE_CASES = [
    ("avrae", "3d6!"), ("avrae", "4d6e6"), ("avrae", "4d6ro1"), ("avrae", "2d6rr1!"),
    ("avrae", "4d6mi2"), ("avrae", "4d6rr1e6mi2ma5"), ("avrae", "3d6ro1ro2"),
    ("roll20", "3d6!!"), ("roll20", "3d6!p"), ("roll20", "5d10>7f1"), ("roll20", "3d6!>5"),
    ("roll20", "3d6ro<2"), ("roll20", "3d6cs6"), ("roll20", "3d6!!>5"), ("roll20", "3d10!>8"),
    ("foundry", "3d6x"), ("foundry", "3d6xo"), ("foundry", "4d6r1"), ("foundry", "4d6rr1"),
    ("foundry", "5d10cs>7cf1"), ("foundry", "4d6even"), ("foundry", "5d10cs>7df1"),
    ("foundry", "3d6min2max5"), ("foundry", "3d6x>5"),
]


@pytest.mark.parametrize("bits", [16, 128])
@pytest.mark.parametrize(("dialect", "text"), PER_DIE_CASES)
def test_per_die_operators_contain_the_exact_answer(dialect, text, bits):
    """N dice with operators acting on each die alone are N copies of one such die
    (explosions' depth cap included): the certified sum holds the exact answer."""
    from chancekit.dice import _approx, dist
    from chancekit.dice.notation import _compile

    exact = dist(text, dialect=dialect)
    tree = _compile(text, dialect, None)
    assert _approx.supported(tree) is None
    with precision(bits):
        got = _approx.evaluate(tree, text)
    assert isinstance(got, CertifiedDistribution) and got.contains(exact)
    if bits == 128:
        assert got.max_error <= 1e-30


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(2, 8), st.sampled_from(["!", "ro1", "rr1", "mi2", "ma3",
                                                               "!rr1", "e1", "ro1!"]),
       st.sampled_from(["", " + 3", " >= 9", " * 2"]), bits_st)
def test_per_die_groups_in_expressions_contain_the_exact_answer(n, x, ops, tail, bits):
    from chancekit.dice import dist

    text = f"{n}d{x}{ops}{tail}"
    _assert_certified_contains(text, dist(text), bits)


def test_keeps_and_matching_have_no_per_die_path():
    from chancekit.dice import _approx
    from chancekit.dice.notation import _compile

    for dialect, text in [("avrae", "3d6ra6"), ("roll20", "4d6mt"), ("avrae", "4d6!kh3"),
                          ("avrae", "4d6kh3")]:
        assert _approx.supported(_compile(text, dialect, None)) is not None, text


def test_explosions_past_the_exact_budget_are_certified():
    """600d6! is refused exactly (its weights would pass MAX_WEIGHT_BITS); with approx,
    a certified answer: 600 times the exact mean of one exploding d6 (capped at 20
    extra dice, as the exact engine caps it) lies in the proven mean, and the support
    is every sum 600 dice can make."""
    from chancekit.dice import dist

    with pytest.raises(LimitError) as e:
        dist("600d6!")
    assert getattr(e.value, "approx", False) and "approx=True" in str(e.value)
    got = dist("600d6!", approx=True)
    assert isinstance(got, CertifiedDistribution) and got.max_error <= 1e-12
    one = dist("1d6!")
    lo, hi = got.mean_bounds()
    assert lo <= 600 * one.mean() <= hi and hi - lo < Fraction(1, 10**20)
    assert min(got.outcomes()) == 600 and max(got.outcomes()) == 600 * max(one.outcomes())
    assert len(got) == max(one.outcomes()) * 600 - 600 + 1  # every sum from 600 up


# -- several positions at once (select) and explosions of a certified die ---------------
@settings(max_examples=150, deadline=None)
@given(dice_st, st.integers(1, 4), st.dictionaries(st.integers(1, 4), st.integers(1, 3),
                                                   min_size=1, max_size=4), bits_st)
def test_select_contains_brute_force(a, n, ranks, bits):
    ranks = {r: m for r, m in ranks.items() if r <= n} or {1: 1}
    with precision(bits):
        got = certify(Distribution(a)).select(n, ranks)
    assert contains(got, brute([a] * n, lambda *xs: sum(
        sorted(xs, reverse=True)[r - 1] * m for r, m in ranks.items())))


@settings(max_examples=100, deadline=None)
@given(dice_st, st.integers(0, 5), st.booleans(), bits_st)
def test_explode_contains_the_exact_engine(a, depth, lowest, bits):
    die = Distribution(a)
    if len(die) == 1:
        return  # every face explodes: refused by both
    on = [min(die.outcomes())] if lowest else None
    with precision(bits):
        got = certify(die).explode(on, depth=depth)
    assert got.contains(die.explode(on, depth=depth))


def test_select_and_explode_are_tight_and_priced():
    from chancekit.dice import d

    got = certify(d(20)).select(10, {1: 1, 2: 1, 3: 1})  # AnyDice's {1,2,3}@10d20
    assert got.max_error < 1e-30
    exact = brute([{f: 1 for f in range(1, 21)}] * 3, lambda *xs: sum(xs))
    assert contains(certify(d(20)).select(3, {1: 1, 2: 1, 3: 1}), exact)
    with evaluation(limit=10**6, name="MAX_WORK"), pytest.raises(LimitError) as e:
        certify(d(6)).select(100, {r: 1 for r in range(1, 51)})
    assert e.value.limit == "MAX_WORK" and "positions" in str(e.value)
    assert certify(d(6)).explode(depth=20).contains(d(6).explode(depth=20))
    with pytest.raises(LimitError):
        certify(Distribution({3: 1})).explode(depth=2)  # every face explodes
