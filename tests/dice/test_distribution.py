"""Distribution: construction, arithmetic, modifiers and statistics, each checked against
brute-force enumeration, icepool (test-only oracle) and hypothesis properties."""

from __future__ import annotations

import copy
import json
import math
import operator
import pickle
from fractions import Fraction

import icepool
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _upfront import MAX_CALLS, measure
from chancekit.dice import Distribution, constant, d, faces, fudge
from chancekit.dice.distribution import MAX_DICE
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError


def from_icepool(die: icepool.Die) -> Distribution:
    return Distribution(dict(die.items()))


# -- construction ------------------------------------------------------------------------


def test_weights_scaled_to_coprime_integers() -> None:
    x = Distribution({1: Fraction(1, 3), 2: Fraction(2, 3), 3: 0})
    assert dict(x.weights) == {1: 1, 2: 2}
    assert x.total == 3
    assert Distribution({1: 2, 2: 4}) == Distribution({1: 1, 2: 2})
    assert hash(Distribution({1: 2, 2: 4})) == hash(Distribution({2: 2, 1: 1}))


@pytest.mark.parametrize("bad", [{}, {1: 0}, {1: -1}, {1: float("inf")}, {1: float("nan")}])
def test_bad_weights_are_refused(bad: dict) -> None:
    with pytest.raises(InvalidValueError):
        Distribution(bad)


def test_bad_types() -> None:
    with pytest.raises(InvalidTypeError):
        Distribution({1: "x"})
    with pytest.raises(InvalidTypeError):
        Distribution([1, 2])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        faces([[1], [2]])
    with pytest.raises(InvalidValueError) as e:
        Distribution({1: -2})
    assert "weight of 1" in str(e.value)


def test_negative_weight_message_names_entry() -> None:
    with pytest.raises(InvalidValueError, match="weight of 'b'"):
        Distribution({"a": 1, "b": -1})


@pytest.mark.parametrize("sides", [0, -1])
def test_d_needs_a_side(sides: int) -> None:
    with pytest.raises(InvalidValueError):
        d(sides)


def test_constructors() -> None:
    assert d(6).outcomes() == (1, 2, 3, 4, 5, 6)
    assert fudge().outcomes() == (-1, 0, 1)
    assert faces([2, 2, 5]).pmf() == {2: Fraction(2, 3), 5: Fraction(1, 3)}
    assert constant("x").outcomes() == ("x",)
    assert d(1) == constant(1)


def test_value_semantics() -> None:
    a = 3 @ d(6)
    b = d(6) + d(6) + d(6)
    assert a == b and not (a != b)
    assert {a: "x"}[b] == "x"
    assert a != d(6)
    assert (d(6) == 3) is False  # structural: a die is not the number 3
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(a) is a
    with pytest.raises(TypeError, match="no truth value"):
        bool(d(6) > 3)
    with pytest.raises(TypeError):
        d(6).weights[1] = 5  # type: ignore[index]


def test_labels_without_arithmetic() -> None:
    coin = Distribution({"heads": 1, "tails": 2})
    assert coin.probability("tails") == Fraction(2, 3)
    assert coin.probability("edge") == 0
    assert coin.map(str.upper).probability("HEADS") == Fraction(1, 3)
    with pytest.raises(InvalidTypeError):
        coin + 1
    with pytest.raises(InvalidTypeError):
        coin.mean()
    mixed = Distribution({"a": 1, 1: 1})  # unsortable outcomes keep insertion order
    assert mixed.outcomes() == ("a", 1)
    with pytest.raises(InvalidTypeError):
        mixed.median()


# -- arithmetic against brute force -------------------------------------------------------

DICE = [d(4), fudge(), faces([-3, 0, 2, 2]), faces([1, 1, 1, 6]), constant(5)]
OPS = [
    ("+", operator.add),
    ("-", operator.sub),
    ("*", operator.mul),
    ("//", operator.floordiv),
    ("%", operator.mod),
]


@pytest.mark.parametrize("a", DICE, ids=repr)
@pytest.mark.parametrize("b", DICE, ids=repr)
@pytest.mark.parametrize(("name", "op"), OPS, ids=[n for n, _ in OPS])
def test_binary_ops_match_enumeration(brute, a: Distribution, b: Distribution, name: str,
                                      op: object) -> None:
    if name in ("//", "%") and 0 in b.outcomes():
        with pytest.raises(InvalidValueError, match="division by zero"):
            op(a, b)  # type: ignore[operator]
        return
    expect = brute([a, b], lambda r: op(r[0], r[1]))  # type: ignore[operator]
    assert op(a, b) == expect  # type: ignore[operator]
    # number on either side
    assert op(a, 3) == a.map(lambda x: op(x, 3))  # type: ignore[operator]
    if 0 not in a.outcomes() or name not in ("//", "%"):
        assert op(7, a) == a.map(lambda x: op(7, x))  # type: ignore[operator]


@pytest.mark.parametrize("a", DICE, ids=repr)
def test_unary_max_min_match_enumeration(brute, a: Distribution) -> None:
    assert -a == a.map(lambda x: -x)
    assert abs(a) == a.map(abs)
    assert a.max(d(3)) == brute([a, d(3)], max)
    assert a.min(d(3)) == brute([a, d(3)], min)
    assert a.max(2) == a.map(lambda x: max(x, 2))


def test_true_division_is_exact() -> None:
    x = d(4) / 2
    assert x.outcomes() == (Fraction(1, 2), 1, Fraction(3, 2), 2)
    with pytest.raises(InvalidValueError):
        d(4) / (d(3) - 1)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("die", [d(6), fudge(), faces([-2, 5, 5]), d(1)], ids=repr)
def test_n_at_die_matches_enumeration(brute, n: int, die: Distribution) -> None:
    expect = brute(n * [die], sum) if n else constant(0)
    assert n @ die == expect


def test_n_at_labels_uses_repeated_addition() -> None:
    x = Distribution({Fraction(1, 2): 1, 1: 1})
    assert 3 @ x == x + x + x


def test_comparisons_return_01_distributions(brute) -> None:
    for name, op, meth in [("<", operator.lt, "lt"), ("<=", operator.le, "le"),
                           (">", operator.gt, "gt"), (">=", operator.ge, "ge"),
                           ("==", operator.eq, "eq"), ("!=", operator.ne, "ne")]:
        expect = brute([d(6), d(8)], lambda r, op=op: int(op(r[0], r[1])))
        assert getattr(d(6), meth)(d(8)) == expect, name
        if name not in ("==", "!="):
            assert op(d(6), d(8)) == expect
    assert (d(20) + 5 >= 15).probability(1) == Fraction(11, 20)
    assert (3 < d(6)).probability(1) == Fraction(1, 2)  # reflected
    assert d(6).eq(3).probability(1) == Fraction(1, 6)


def test_mixture() -> None:
    m = Distribution.mixture([d(4), d(6)], [1, 3])
    assert m.probability(1) == Fraction(1, 4) * Fraction(1, 4) + Fraction(3, 4) * Fraction(1, 6)
    assert Distribution.mixture([d(2), 7]).probability(7) == Fraction(1, 2)
    with pytest.raises(InvalidValueError):
        Distribution.mixture([])
    with pytest.raises(InvalidValueError):
        Distribution.mixture([d(2)], [0])


# -- big sums ----------------------------------------------------------------------------


def test_1000d6_exact() -> None:
    x = 1000 @ d(6)
    assert x.total == 6**1000
    assert x.weights[1000] == 1 and x.weights[6000] == 1
    assert x.weights[1001] == 1000
    assert x.mean() == 3500
    assert x.variance() == 1000 * Fraction(35, 12)
    assert x == from_icepool(icepool.d6.pool(50).sum()).repeat_sum(20)


def test_10000d6_works() -> None:
    x = 10_000 @ d(6)
    assert x.outcomes()[0] == 10_000 and x.outcomes()[-1] == 60_000
    assert x.total == 6**10_000
    assert x.mean() == 35_000


@pytest.mark.parametrize(("n", "die"), [(10**6, d(6)), (MAX_DICE, d(10**6)),
                                         (50_000, d(1000))])
def test_limits_refused_quickly(n: int, die: Distribution) -> None:
    error, _, calls = measure(lambda: n @ die)
    assert isinstance(error, LimitError)
    assert calls < MAX_CALLS  # refused up front (counted calls, not seconds)
    assert error.limit in ("MAX_DICE", "MAX_WEIGHT_BITS")
    assert "MAX_" in str(error)


def test_negative_count_refused() -> None:
    with pytest.raises(InvalidValueError):
        -1 @ d(6)
    with pytest.raises(InvalidTypeError):
        1.5 @ d(6)  # type: ignore[operator]


# -- per-die modifiers ---------------------------------------------------------------------


def _explode_brute(die: Distribution, on: set, depth: int) -> Distribution:
    if depth == 0:
        return die
    rest = _explode_brute(die, on, depth - 1)
    out: dict = {}
    for x, w in die.weights.items():
        if x in on:
            for y, v in rest.weights.items():
                out[x + y] = out.get(x + y, 0) + w * v
        else:
            out[x] = out.get(x, 0) + w * rest.total
    return Distribution(out)


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize(("die", "on"), [(d(6), None), (d(4), [3, 4]), (fudge(), [1]),
                                         (faces([-2, 1, 1, 3]), [-2])], ids=str)
def test_explode_matches_recursion(die: Distribution, on: list | None, depth: int) -> None:
    fire = {max(die.outcomes())} if on is None else set(on)
    assert die.explode(on, depth=depth) == _explode_brute(die, fire, depth)


@pytest.mark.parametrize("depth", [1, 2, 5, 9])
def test_explode_matches_icepool_depth(depth: int) -> None:
    assert d(6).explode(depth=depth) == from_icepool(icepool.d6.explode(depth=depth))
    assert d(10).explode([9, 10], depth=depth) == from_icepool(
        icepool.d10.explode([9, 10], depth=depth))


def test_explode_labels_and_predicate() -> None:
    x = Distribution({Fraction(1, 2): 1, 2: 1}).explode(lambda v: v == 2, depth=2)
    assert x.probability(Fraction(9, 2)) == Fraction(1, 8)
    assert x.probability(6) == Fraction(1, 8)  # the last roll is kept as rolled


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("on", [[1], [1, 2], [6]])
def test_reroll_matches_enumeration(brute, on: list, depth: int) -> None:
    def rule(r: tuple) -> int:
        for x in r[:-1]:
            if x not in on:
                return x
        return r[-1]

    assert d(6).reroll(on, depth=depth) == brute((depth + 1) * [d(6)], rule)


def test_reroll_until_no_match() -> None:
    assert d(6).reroll([1, 2]) == Distribution({3: 1, 4: 1, 5: 1, 6: 1})
    assert d(6).reroll(lambda x: x < 3) == d(4) + 2
    with pytest.raises(InvalidValueError, match="finite depth"):
        d(2).reroll([1, 2])
    assert d(2).reroll([1, 2], depth=3) == d(2)


def test_clamp() -> None:
    assert d(6).clamp(lo=2, hi=5) == faces([2, 2, 3, 4, 5, 5])
    with pytest.raises(InvalidValueError):
        d(6).clamp(lo=5, hi=2)


# -- reading -----------------------------------------------------------------------------


def test_statistics_3d6() -> None:
    x = 3 @ d(6)
    assert x.mean() == Fraction(21, 2)
    assert x.variance() == Fraction(35, 4)
    assert math.isclose(x.sd(), math.sqrt(35 / 4))
    assert x.median() == 10
    assert x.quantile(0) == 3 and x.quantile(1) == 18
    assert x.quantile(Fraction(1, 216)) == 3 and x.quantile(0.01) == 4
    assert x.mode() == 10
    assert x.at_least(16) == Fraction(10, 216)
    assert x.at_most(4) == Fraction(4, 216)
    assert math.isclose(d(6).entropy(), math.log2(6))
    with pytest.raises(InvalidValueError):
        x.quantile(1.5)


def test_text_and_json() -> None:
    text = str(2 @ d(6))
    lines = text.splitlines()
    assert len(lines) == 11 and lines[5].strip().startswith("7") and "#" * 30 in lines[5]
    data = json.loads((2 @ d(6)).to_json())
    assert data["outcomes"][0] == 2 and data["total"] == "36"  # exact ints as decimal text
    assert sum(map(int, data["weights"])) == 36
    assert json.loads(Distribution({(1, 2): 1}).to_json())["outcomes"] == [[1, 2]]
    assert "Distribution({" in repr(d(20))


# -- hypothesis invariants -----------------------------------------------------------------

small_dice = st.lists(st.integers(-5, 8), min_size=1, max_size=6).map(faces)


@given(small_dice, small_dice)
def test_sum_moments_add(a: Distribution, b: Distribution) -> None:
    s = a + b
    assert sum(s.pmf().values()) == 1
    assert s.mean() == a.mean() + b.mean()
    assert s.variance() == a.variance() + b.variance()
    assert a - b == a + (-b)


@given(small_dice, st.integers(0, 12))
def test_repeat_sum_moments(a: Distribution, n: int) -> None:
    s = n @ a
    assert s.total == sum(s.weights.values())
    assert s.mean() == n * a.mean()
    assert s.variance() == n * a.variance()


@given(small_dice, st.integers(0, 4))
def test_explode_total_mass_and_mean(a: Distribution, depth: int) -> None:
    e = a.explode(depth=depth)
    assert sum(e.pmf().values()) == 1
    top = max(a.outcomes())
    p = a.probability(top)
    # E[exploded] = mean * (1 + p + ... + p^depth)
    assert e.mean() == a.mean() * sum(p**i for i in range(depth + 1))


@given(small_dice)
def test_cumulative_agrees_with_probability_at_least_and_at_most(x: Distribution) -> None:
    rows = x.cumulative()
    assert [r[0] for r in rows] == list(x.outcomes())
    for outcome, p, at_least, at_most in rows:
        assert p == x.probability(outcome)
        assert at_least == x.at_least(outcome) and at_most == x.at_most(outcome)
    assert rows[0][2] == 1 and rows[-1][3] == 1


@pytest.mark.parametrize(("die", "n"), [
    (d(6), 3), (d(10), 20), (faces([-1, 0, 0, 0, 0, 0, 1, 1, 1, 1]), 20), (faces([1, 3, 3]), 7),
    (faces([-5, 2, 2]), 40), (d(20), 30), (d(2), 300), (Distribution({7: 1}), 5),
    (Distribution({True: 1, False: 2}), 9)])
def test_repeat_sum_small_and_flint_powers_agree(die: Distribution, n: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Small powers are one Python integer power, larger ones flint's: both give the sum
    pair by pair, with coprime weights and the sorted outcomes."""
    from chancekit import _intpoly

    want = die
    for _ in range(n - 1):
        want = want + die
    got = die.repeat_sum(n)
    assert got == want and dict(got.weights) == dict(want.weights)
    assert list(got.weights) == sorted(got.weights) and got.total == sum(got.weights.values())
    assert math.gcd(*got.weights.values()) == 1
    for bits in (-1, 10**9):  # flint only, then Python integers only
        monkeypatch.setattr(_intpoly, "PYTHON_POWER_BITS", bits)
        assert dict(die.repeat_sum(n).weights) == dict(want.weights)
