"""AliasTable: exactness by enumeration (hypothesis), draws, vector path, bad input."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.rng import PCG32
from chancekit.sampling import AliasTable
from chancekit.sampling.alias import vose_integer


def enumerate_table(t: AliasTable) -> dict[object, Fraction]:
    """Independent check: walk every (column, r) cell of the table."""
    counts = dict.fromkeys(t.labels, 0)
    for j, label in enumerate(t.labels):
        thr = t.thresholds[j]
        assert 0 <= thr <= t.capacity
        counts[label] += thr
        counts[t.aliases[j]] += t.capacity - thr
    n = len(t) * t.capacity
    return {k: Fraction(v, n) for k, v in counts.items()}


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=40).filter(any))
def test_integer_weights_exact(ws: list[int]) -> None:
    t = AliasTable(ws)
    total = sum(ws)
    got = enumerate_table(t)
    assert got == {i: Fraction(w, total) for i, w in enumerate(ws)}
    assert t.realized() == got
    assert all(t.probability(i) == Fraction(w, total) for i, w in enumerate(ws))


@given(st.lists(st.fractions(min_value=0, max_value=50, max_denominator=97), min_size=1,
                max_size=25).filter(any))
def test_fraction_weights_exact(ws: list[Fraction]) -> None:
    t = AliasTable({f"x{i}": w for i, w in enumerate(ws)})
    total = sum(ws)
    assert enumerate_table(t) == {f"x{i}": w / total for i, w in enumerate(ws)}


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1,
                max_size=20).filter(any))
def test_float_weights_exact_conversion(ws: list[float]) -> None:
    t = AliasTable(ws)
    exact = [Fraction(w) for w in ws]
    total = sum(exact)
    assert enumerate_table(t) == {i: w / total for i, w in enumerate(exact)}


def test_float_is_the_binary_value_not_the_decimal() -> None:
    t = AliasTable([0.1, 0.9])
    assert t.probability(0) == Fraction(0.1) / (Fraction(0.1) + Fraction(0.9))
    assert t.probability(0) != Fraction(1, 10)


@given(st.lists(st.integers(0, 30), min_size=1, max_size=12), st.integers(1, 30))
def test_vose_integer_keeps_own_column(masses: list[int], cap: int) -> None:
    n = len(masses)
    # make the masses sum to n * cap by topping up the last one (if possible)
    diff = n * cap - sum(masses)
    if masses[-1] + diff < 0:
        return
    masses[-1] += diff
    thr, ali = vose_integer(masses, cap)
    units = [0] * n
    for j in range(n):
        assert 0 <= thr[j] <= cap
        units[j] += thr[j]
        units[ali[j]] += cap - thr[j]
    assert units == masses


def test_draw_frequencies_match() -> None:
    t = AliasTable({"a": 1, "b": 2, "c": 7})
    rng = PCG32(2024)
    n = 200_000
    draws = t.draw_array(rng, n)
    for lab, p in (("a", 0.1), ("b", 0.2), ("c", 0.7)):
        count = int((draws == lab).sum())
        sd = math.sqrt(n * p * (1 - p))
        assert abs(count - n * p) < 5 * sd


def test_draw_array_equals_scalar_draws_small_span() -> None:
    t = AliasTable([3, 1, 4, 1, 5, 9, 2, 6])
    assert len(t) * t.capacity <= 2**32
    a, b = PCG32(7, 3), PCG32(7, 3)
    vec = t.draw_indices(a, 500).tolist()
    assert vec == [t.draw_index(b) for _ in range(500)]
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("ws", [[2**40, 1, 3], [0.1, 0.2, 0.7], [1 / 3, 2.5, 7],
                                [2**62 + 1, 2**61]])
def test_draw_array_equals_scalar_draws_wide(ws: list) -> None:
    t = AliasTable(ws)
    assert 2**32 < len(t) * t.capacity < 2**64
    a, b = PCG32(11, 5), PCG32(11, 5)
    vec = t.draw_indices(a, 3000).tolist()
    assert vec == [t.draw_index(b) for _ in range(3000)]
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("ws", [
    [2**40, 1, 3],                    # span > 2**32: the lazy rule
    [Fraction(1, 3), 0.1, 2.5],       # float mixed with fractions: 2**55-ish capacity
    [2**70, 3, 5],                    # capacity > 2**64
    [2**62, 2**62 - 1, 1, 1],         # n * capacity > 2**64, capacity <= 2**64
    [1e-300, 1.0],                    # capacity > 2**1000
])
def test_wide_capacity_paths(ws: list) -> None:
    t = AliasTable(ws)
    assert len(t) * t.capacity > 2**32
    draws = t.draw_indices(PCG32(5), 20_000)
    assert set(np.unique(draws).tolist()) <= set(range(len(ws)))
    counts = np.bincount(draws.astype(np.int64), minlength=len(ws))
    for i in range(len(ws)):
        p = float(t.probability(i))
        sd = math.sqrt(20_000 * p * (1 - p)) + 1
        assert abs(counts[i] - 20_000 * p) < 5 * sd
    # scalar path agrees in distribution too (and returns valid indices)
    rng = PCG32(6)
    assert all(0 <= t.draw_index(rng) < len(ws) for _ in range(200))


def test_zero_weight_never_drawn() -> None:
    t = AliasTable({"never": 0, "always": 5})
    assert set(t.draw_array(PCG32(1), 1000).tolist()) == {"always"}
    assert t.probability("never") == 0


def test_labels_of_mixed_types_keep_their_type() -> None:
    t = AliasTable({1: 1, "one": 1})
    out = t.draw_array(PCG32(3), 50).tolist()
    assert set(out) == {1, "one"}


def test_value_semantics() -> None:
    a = AliasTable({"x": 2, "y": 4})
    b = AliasTable({"x": 1, "y": 2})
    assert a == b and hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a._cap = 3  # type: ignore[misc]
    assert "AliasTable" in repr(a)


@pytest.mark.parametrize("bad, match", [
    ({"a": -1, "b": 2}, "'a'"),
    ({"a": float("nan")}, "'a'"),
    ({"a": 1, "b": float("inf")}, "'b'"),
    ({"a": 0, "b": 0}, "every weight is zero"),
    ({}, "empty"),
    ([], "empty"),
    ([1, -0.5], r"\[1\]"),
])
def test_bad_weights(bad: object, match: str) -> None:
    with pytest.raises(InvalidValueError, match=match):
        AliasTable(bad)


def test_bad_types() -> None:
    with pytest.raises(InvalidTypeError):
        AliasTable({"a": "3"})
    with pytest.raises(InvalidTypeError):
        AliasTable({"a": True})
    with pytest.raises(InvalidTypeError):
        AliasTable("3d6")
    with pytest.raises(InvalidTypeError):
        AliasTable(42)


def test_unknown_label() -> None:
    with pytest.raises(InvalidValueError, match="unknown label 'z'"):
        AliasTable({"a": 1}).probability("z")


def test_distribution_like_sources() -> None:
    class FakeDist:
        weights: ClassVar[dict[int, int]] = {3: 1, 4: 3}

    class PmfOnly:
        def pmf(self) -> dict[int, Fraction]:
            return {1: Fraction(1, 4), 2: Fraction(3, 4)}

    assert AliasTable(FakeDist()).probability(4) == Fraction(3, 4)
    assert AliasTable(PmfOnly()).probability(1) == Fraction(1, 4)
    assert AliasTable(np.array([1, 3])).probability(1) == Fraction(3, 4)
