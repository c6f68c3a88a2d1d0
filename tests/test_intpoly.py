"""Kronecker products (chancekit._intpoly) against schoolbook convolution, and the sums of
distributions through them (the browser's path) against pair-by-pair enumeration."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit import _intpoly
from chancekit.dice import Distribution, d


def _schoolbook(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for (x, wx), (y, wy) in itertools.product(a.items(), b.items()):
        out[x + y] = out.get(x + y, 0) + wx * wy
    return {k: v for k, v in sorted(out.items()) if v}


weights = st.dictionaries(st.integers(-40, 40), st.integers(0, 2**200), min_size=1,
                          max_size=12).filter(lambda w: any(w.values()))


def _sorted(w: dict[int, int]) -> dict[int, int]:
    return dict(sorted(w.items()))


@settings(max_examples=300, deadline=None)
@given(weights, weights)
def test_mul_is_the_convolution(a: dict[int, int], b: dict[int, int]) -> None:
    a, b = _sorted(a), _sorted(b)
    lo_a, lo_b = next(iter(a)), next(iter(b))
    bound = (sum(a.values()) * sum(b.values())).bit_length()
    got = _intpoly.mul(a, lo_a, b, lo_b, bound)
    want = _schoolbook(a, b)
    assert {lo_a + lo_b + i: c for i, c in enumerate(got) if c} == want
    assert len(got) == (next(reversed(a)) - lo_a) + (next(reversed(b)) - lo_b) + 1


@settings(max_examples=150, deadline=None)
@given(weights, st.integers(1, 7))
def test_power_is_repeated_convolution(a: dict[int, int], n: int) -> None:
    a = _sorted(a)
    lo = next(iter(a))
    want = a
    for _ in range(n - 1):
        want = _schoolbook(want, a)
    got = _intpoly.power(a, lo, n, (sum(a.values()) ** n).bit_length())
    assert {lo * n + i: c for i, c in enumerate(got) if c} == {k: v for k, v in want.items()
                                                                if v}


def test_a_field_exactly_full_does_not_spill() -> None:
    """A coefficient equal to the bound's largest value (all ones in its field) stays in it."""
    a = {0: 255, 1: 0, 2: 255}
    got = _intpoly.mul(a, 0, {0: 1}, 0, 8)
    assert got == [255, 0, 255]
    assert _intpoly.mul({0: 1, 1: 1}, 0, {0: 1, 1: 1}, 0, 2) == [1, 2, 1]


dists = st.dictionaries(st.integers(-30, 30), st.integers(1, 10**30), min_size=2,
                        max_size=25).map(Distribution)


@settings(max_examples=200, deadline=None)
@given(dists, dists)
def test_sums_through_python_products_equal_pairs(a: Distribution, b: Distribution) -> None:
    """The browser's sums (Python integer products) give the pairs' distribution, reduced."""
    pairs: dict[int, Fraction] = {}
    for (x, px), (y, py) in itertools.product(a.pmf().items(), b.pmf().items()):
        pairs[x + y] = pairs.get(x + y, Fraction(0)) + px * py
    old = _intpoly.PYTHON_PRODUCTS
    try:
        _intpoly.PYTHON_PRODUCTS = True
        got = a + b
        diff = a - b
    finally:
        _intpoly.PYTHON_PRODUCTS = old
    assert got.pmf() == pairs
    assert math.gcd(*got.weights.values()) == 1
    assert list(got.weights) == sorted(got.weights)
    assert diff == a + (-b)


@pytest.mark.parametrize("python", [True, False])
def test_sums_agree_on_both_paths(python: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_intpoly, "PYTHON_PRODUCTS", python)
    x = 27 @ d(8) + 12 + 12 @ d(8) + 6
    y = (x + 3 @ d(10)) - d(4)
    assert y.mean() == Fraction(27 * 9, 2) + 18 + 12 * Fraction(9, 2) + Fraction(33, 2) \
        - Fraction(5, 2)
    assert y.total == 8**39 * 10**3 * 4


spaced = st.builds(lambda w, step: Distribution({k * step: v for k, v in w.items()}),
                   st.dictionaries(st.integers(-150, 150), st.integers(1, 10**20),
                                   min_size=40, max_size=120),
                   st.integers(2, 9))


@settings(max_examples=30, deadline=None)
@given(spaced, spaced)
def test_spaced_sums_through_python_products_equal_pairs(a: Distribution,
                                                         b: Distribution) -> None:
    """Outcomes spread out (a multiple of 2..9 apart): the browser's one product of mostly
    zero coefficients gives the pairs' sum and difference, charged as the pairs."""
    from chancekit import limits

    def pairs(x: Distribution, y: Distribution, sign: int) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for (u, pu), (v, pv) in itertools.product(x.pmf().items(), y.pmf().items()):
            out[u + sign * v] = out.get(u + sign * v, Fraction(0)) + pu * pv
        return out

    charged = []
    for python in (False, True):
        old = _intpoly.PYTHON_PRODUCTS
        try:
            _intpoly.PYTHON_PRODUCTS = python
            with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
                got, diff = a + b, a - b
            charged.append(budget.estimated)
        finally:
            _intpoly.PYTHON_PRODUCTS = old
        assert got.pmf() == pairs(a, b, 1) and diff.pmf() == pairs(a, b, -1)
        assert math.gcd(*got.weights.values()) == 1
        assert list(diff.weights) == sorted(diff.weights)
    assert charged[0] == charged[1]  # the same refusals on both back ends


def test_a_sum_times_five_plus_another_takes_the_spaced_product(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """(the AnyDice corpus's ``(…)*5 + (…)*15 + …``): the spaced path is taken, and its
    answer is the pairs'."""
    from chancekit.dice import distribution

    calls = []
    real = distribution._kronecker_sum
    monkeypatch.setattr(distribution, "_kronecker_sum",
                        lambda *args: calls.append(1) or real(*args))
    a = (10 + 20 @ d(10)) * 7
    b = (20 @ d(12)) * 5
    assert not distribution._dense(a) and not distribution._dense(b)
    monkeypatch.setattr(_intpoly, "PYTHON_PRODUCTS", False)
    want = a + b
    monkeypatch.setattr(_intpoly, "PYTHON_PRODUCTS", True)
    assert not calls
    assert a + b == want and calls
