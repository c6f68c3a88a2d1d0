"""Loot bags without replacement (issue #30) against icepool's Wallenius on 50 random
small bags, and against enumerating every order of the draws."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import icepool
import pytest

from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.sampling import ChanceTree
from chancekit.sampling.bag import draw_without_replacement, first_draw

F = Fraction


def _bags(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        size = rng.randint(1, 6)
        names = rng.sample("abcdefgh", size)
        weights = {x: rng.choice([1, 1, 2, 3, 5, 8]) for x in names}
        counts = {x: rng.choice([1, 1, 1, 2, 3]) for x in names}
        n = rng.randint(0, min(5, sum(counts.values())))
        yield weights, counts, n


@pytest.mark.parametrize("weights,counts,n", list(_bags(50, 30)))
def test_equal_to_icepool_wallenius(weights, counts, n):
    got = draw_without_replacement(weights, n, counts=counts)
    data = {x: (w, counts[x]) for x, w in weights.items()}
    die = icepool.Wallenius(data).deal(n).expand() if n else None
    if die is None:
        assert got.pmf() == {(): 1}
        return
    want = {tuple(k): F(v, die.denominator()) for k, v in die.items()}
    assert got.pmf() == want


def _orders(weights: dict, counts: dict, n: int) -> dict:
    """Every order of n draws, copy by copy, with its exact chance."""
    copies = [(x, j) for x, c in counts.items() for j in range(c)]
    out: dict = {}
    for seq in itertools.permutations(range(len(copies)), n):
        p = F(1)
        left = sum(weights[x] for x, _ in copies)
        for i in seq:
            w = weights[copies[i][0]]
            p *= F(w, left)
            left -= w
        hand = tuple(sorted(copies[i][0] for i in seq))
        out[hand] = out.get(hand, 0) + p
    return out


@pytest.mark.parametrize("weights,counts,n", [
    ({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 1, "c": 1}, 2),
    ({"a": 1, "b": 2, "c": 3}, {"a": 2, "b": 1, "c": 2}, 3),
    ({"a": F(1, 2), "b": 0.25, "c": 1}, {"a": 1, "b": 2, "c": 1}, 3),
    ({"x": 7}, {"x": 3}, 2),
])
def test_equal_to_enumerating_orders(weights, counts, n):
    got = draw_without_replacement(weights, n, counts=counts)
    ws = {x: F(w) for x, w in weights.items()}
    assert got.pmf() == _orders(ws, counts, n)


def test_first_draw_equals_enumerating_orders():
    weights = {"a": 1, "b": 2, "c": 3, "d": 3}
    counts = {"a": 1, "b": 2, "c": 1, "d": 1}
    copies = [(x, j) for x, c in counts.items() for j in range(c)]
    want: dict[int, F] = {}
    for seq in itertools.permutations(range(len(copies))):
        p, left = F(1), sum(weights[x] for x, _ in copies)
        for i in seq:
            p *= F(weights[copies[i][0]], left)
            left -= weights[copies[i][0]]
        t = next(k + 1 for k, i in enumerate(seq) if copies[i][0] == "b")
        want[t] = want.get(t, 0) + p
    assert first_draw(weights, "b", counts=counts).pmf() == want


def test_a_chance_tree_is_the_bag():
    tree = ChanceTree({"sword": 1, "shield": 3, "potion": 6})
    tree.remove("potion")
    got = draw_without_replacement(tree, 1)
    assert got.pmf() == {("shield",): F(3, 4), ("sword",): F(1, 4)}


def test_unorderable_items_keep_the_bag_order():
    got = draw_without_replacement({1: 1, "a": 1}, 2)
    assert got.pmf() == {(1, "a"): 1}


def test_bad_input_and_limits():
    with pytest.raises(InvalidValueError):
        draw_without_replacement({"a": 1}, 2)
    with pytest.raises(InvalidValueError):
        draw_without_replacement({"a": -1}, 1)
    with pytest.raises(InvalidTypeError):
        draw_without_replacement("a=1", 1)
    with pytest.raises(InvalidValueError, match="item of weights"):
        draw_without_replacement({"a": 1}, 1, counts={"b": 1})
    with pytest.raises(InvalidValueError):
        first_draw({"a": 1}, "z")
    with pytest.raises(LimitError, match="MAX_BAG_STATES"):
        draw_without_replacement({i: i + 1 for i in range(40)}, 20)
    with pytest.raises(LimitError, match="MAX_BAG_HANDS"):
        draw_without_replacement({i: 1 for i in range(40)}, 20)
