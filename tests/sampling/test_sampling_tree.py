"""ChanceTree: seeded stress test against a naive model (with _check after every step),
exact probabilities, state, the swap filter (no doubles; doubles at exactly 1/11; chi-square
uniformity over 10^6 draws)."""

from __future__ import annotations

import itertools
import math
import pickle
from collections import Counter
from fractions import Fraction

import pytest

from chancekit.errors import InvalidTypeError, InvalidValueError, StateError
from chancekit.rng import PCG32
from chancekit.sampling import ChanceTree, SwapFilter


class ScriptedRng:
    """Returns the scripted randbelow values (checks the bound each time)."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.bounds: list[int] = []

    def next_u32(self) -> int:  # pragma: no cover - not used
        raise AssertionError

    def randbelow(self, bound: int) -> int:
        self.bounds.append(bound)
        return self.values.pop(0)


def test_stress_against_naive_model() -> None:
    rng = PCG32(20261121)
    tree = ChanceTree()
    model: dict[object, Fraction] = {}
    next_id = 0
    for step in range(3000):
        op = rng.randbelow(100)
        if op < 30 or not model:
            w = rng.randbelow(50) if rng.randbelow(4) else Fraction(rng.randbelow(20),
                                                                     1 + rng.randbelow(6))
            tree.add(next_id, w)
            model[next_id] = Fraction(w)
            next_id += 1
        elif op < 45:
            item = list(model)[rng.randbelow(len(model))]
            tree.remove(item)
            del model[item]
        elif op < 75:
            item = list(model)[rng.randbelow(len(model))]
            w = rng.randbelow(1000)
            tree.set_weight(item, w)
            model[item] = Fraction(w)
        elif op < 90:
            total = sum(model.values())
            if total:
                item = tree.draw(rng)
                assert model[item] > 0
        else:
            total = sum(model.values())
            if total:
                item = tree.pop(rng)
                assert model.pop(item) > 0
        tree._check()
        assert len(tree) == len(model) and set(tree) == set(model)
        total = sum(model.values())
        assert tree.total == total
        if step % 50 == 0 and total:
            for item, w in model.items():
                assert tree.probability(item) == w / total
                assert tree.weight(item) == w


def test_draw_follows_cumulative_order_exactly() -> None:
    tree = ChanceTree({"a": 2, "b": 0, "c": 3, "d": 1})
    # the tree's slot order is a, b, c, d: cumulative [0,2) a, [2,5) c, [5,6) d
    expected = ["a", "a", "c", "c", "c", "d"]
    for r, want in enumerate(expected):
        src = ScriptedRng([r])
        assert tree.draw(src) == want
        assert src.bounds == [6]


def test_draw_frequencies() -> None:
    tree = ChanceTree({i: i + 1 for i in range(10)})
    rng = PCG32(9)
    n = 55_000
    counts = Counter(tree.draw(rng) for _ in range(n))
    for i in range(10):
        p = (i + 1) / 55
        assert abs(counts[i] - n * p) < 5 * math.sqrt(n * p * (1 - p))


def test_pop_without_replacement() -> None:
    tree = ChanceTree({i: 1 + i % 3 for i in range(200)})
    rng = PCG32(4)
    out = [tree.pop(rng) for _ in range(200)]
    assert sorted(out) == list(range(200)) and len(tree) == 0
    with pytest.raises(InvalidValueError, match="empty"):
        tree.draw(rng)


def test_fraction_weights_rescale_exactly() -> None:
    tree = ChanceTree({"a": 1})
    tree.add("b", Fraction(1, 3))
    tree.add("c", 0.25)
    tree._check()
    assert tree.probability("a") == Fraction(1) / Fraction(19, 12)
    assert tree.weight("b") == Fraction(1, 3) and tree.total == Fraction(19, 12)
    for _ in range(1000):  # no drift after many updates
        tree.set_weight("b", Fraction(2, 3))
        tree.set_weight("b", Fraction(1, 3))
    tree._check()
    assert tree.total == Fraction(19, 12)


def test_state_and_pickle() -> None:
    tree = ChanceTree({"x": 3, "y": Fraction(1, 2)})
    st = tree.getstate()
    other = ChanceTree()
    other.setstate(st)
    other._check()
    assert other.items() == tree.items()
    clone = pickle.loads(pickle.dumps(tree))
    assert clone.items() == tree.items()
    a, b = PCG32(1), PCG32(1)
    assert [tree.draw(a) for _ in range(20)] == [clone.draw(b) for _ in range(20)]
    for bad in [None, (2, 1, []), (1, 0, []), (1, 1, [("a", -1)]), (1, 1, [("a", 1),
                                                                             ("a", 2)]),
                (1, 1, [([], 1)])]:
        with pytest.raises(StateError):
            ChanceTree().setstate(bad)


def test_bad_input() -> None:
    tree = ChanceTree({"a": 1})
    with pytest.raises(InvalidValueError, match="already in the tree"):
        tree.add("a", 2)
    with pytest.raises(InvalidValueError, match="unknown item 'zz'"):
        tree.remove("zz")
    with pytest.raises(InvalidValueError, match="unknown item"):
        tree.set_weight("zz", 1)
    with pytest.raises(InvalidValueError, match="'a'"):
        tree.set_weight("a", -1)
    with pytest.raises(InvalidValueError):
        tree.set_weight("a", float("nan"))
    with pytest.raises(InvalidValueError, match="not hashable"):
        tree.add([1], 1)
    with pytest.raises(InvalidTypeError):
        tree.add("b", "heavy")
    with pytest.raises(InvalidValueError, match="twice"):
        ChanceTree([("a", 1), ("a", 2)])
    with pytest.raises(InvalidTypeError, match="pairs"):
        ChanceTree([1, 2, 3])
    tree._check()
    assert list(tree) == ["a"] and tree.weight("a") == 1  # nothing half-changed


# -- the swap filter ---------------------------------------------------------------------
def test_swap_filter_one_copy_no_doubles() -> None:
    tree = ChanceTree({f: 1 for f in range(1, 7)})
    f = tree.swap_filter(1)
    rolls = f.draw_many(20_000, PCG32(3))
    assert not any(a == b for a, b in itertools.pairwise(rolls))
    tree._check()
    assert len(tree) == 5 and len(f.held) == 1


def test_swap_filter_two_copies_doubles_at_one_in_eleven() -> None:
    tree = ChanceTree({(f, c): 1 for f in range(1, 7) for c in (0, 1)})
    f = tree.swap_filter(2, key=lambda item: item[0])
    n = 200_000
    rolls = f.draw_many(n, PCG32(11))
    assert not any(a == b == c for a, b, c in zip(rolls, rolls[1:], rolls[2:], strict=False))
    doubles = sum(a == b for a, b in itertools.pairwise(rolls))
    # exact long-run rate 1/11 (docs/sampling.md); an unfiltered d6 gives 1/6
    p = 1 / 11
    assert abs(doubles - (n - 1) * p) < 5 * math.sqrt(n * p * (1 - p)) * 1.5


def test_swap_filter_double_rate_exact_chain() -> None:
    """Exact: enumerate the filter's states (held buffer, as faces) with Fractions."""
    # state after the buffer is full: (older face, newer face) held out; the tree holds the
    # other 10 items. P(next == newer face) = copies of it left in the tree / 10.
    faces = range(1, 7)
    dist = {(a, b): Fraction(1, 30) for a in faces for b in faces if a != b}  # start
    for _ in range(60):
        new: dict = {}
        for (a, b), p in dist.items():
            for c in faces:
                left = 2 - (a == c) - (b == c)
                if left:
                    key = (b, c)
                    new[key] = new.get(key, 0) + p * Fraction(left, 10)
        dist = new
    rate = sum(p for (a, b), p in dist.items() if a == b)
    assert abs(rate - Fraction(1, 11)) < Fraction(1, 10**12)


def test_swap_filter_chi_square_million_d6() -> None:
    tree = ChanceTree({f: 1 for f in range(1, 7)})
    n = 1_000_000
    rolls = tree.swap_filter(1).draw_many(n, PCG32(20261121))
    counts = Counter(rolls)
    chi2 = sum((counts[f] - n / 6) ** 2 / (n / 6) for f in range(1, 7))
    # chi-square, 5 degrees of freedom: 20.52 is the 0.999 quantile (documented threshold)
    assert chi2 < 20.52
    assert all(abs(counts[f] - n / 6) < 1000 for f in range(1, 7))


def test_swap_filter_draw_equals_draws_and_state() -> None:
    make = lambda: ChanceTree({f: f for f in range(1, 9)}).swap_filter(3)  # noqa: E731
    a, b = make(), make()
    ra, rb = PCG32(2), PCG32(2)
    assert [a.draw(ra) for _ in range(100)] == b.draw_many(100, rb)
    a.tree._check()
    st = a.getstate()
    c = make()
    c.setstate(st)
    assert c.draw_many(50, PCG32(5)) == a.draw_many(50, PCG32(5))
    with pytest.raises(StateError):
        c.setstate((1, 3, [(1, 1)] * 5, st[3]))


def test_swap_filter_bad_length() -> None:
    tree = ChanceTree({1: 1, 2: 1, 3: 0})
    with pytest.raises(InvalidValueError, match="smaller than"):
        tree.swap_filter(2)
    with pytest.raises(InvalidValueError):
        SwapFilter(tree, -1)
    assert tree.swap_filter(0).draw_many(5, PCG32(1))
