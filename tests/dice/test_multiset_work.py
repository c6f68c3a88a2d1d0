"""Work of the pool algebra: every evaluation of the multiset layer, over a grid of
evaluations x pool sizes x face counts, either answers within its estimate or is refused
by an estimate made before any of its work (counted work units, never seconds), and
``max_work`` lifts the refusal (issue 29, item 8)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chancekit import limits
from chancekit.dice import Pool, d, multiset, multiset_function
from chancekit.dice.multiset import Evaluation, _AllStraights, multiset_work
from chancekit.errors import LimitError

#: a budget small enough that every answer of the grid is cheap
BUDGET = 1_000_000


@multiset_function
def _both_sides(a: Any, b: Any) -> Any:
    return a.versus_all(">", b).count(), b.versus_all(">", a).count()


def evaluations(faces: int) -> dict[str, Callable[[Any, Any], Any]]:
    """Every evaluation of the multiset layer, and the operators feeding them."""
    half = faces // 2

    def high(x: int) -> bool:
        return x > half
    return {
        "count": lambda a, b: a.count(),
        "sum": lambda a, b: a.sum(),
        "sum of a map below zero": lambda a, b: a.sum(lambda x: x - half),
        "expand": lambda a, b: a.expand(),
        "largest_count": lambda a, b: a.largest_count(),
        "largest_count wild": lambda a, b: a.largest_count(wild=[faces]),
        "largest_count of an expression": lambda a, b: (a - b).largest_count(),
        "largest_count_and_outcome": lambda a, b: a.largest_count_and_outcome(),
        "all_counts": lambda a, b: a.all_counts(),
        "all_counts all": lambda a, b: a.all_counts("all", wild=[1]),
        "largest_straight": lambda a, b: a.largest_straight(),
        "all_straights": lambda a, b: a.all_straights(),
        "all_straights of an expression": lambda a, b: a.highest(a._leaf_size()
                                                                 ).all_straights(),
        "highest_outcome_and_count": lambda a, b: a.highest_outcome_and_count(),
        "count_subset": lambda a, b: a.count_subset(b, empty_divisor=0),
        "issubset": lambda a, b: a.issubset(b),
        "issuperset": lambda a, b: a.issuperset(b),
        "isdisjoint": lambda a, b: a.isdisjoint(b),
        "leximax": lambda a, b: a.leximax(">", b),
        "leximin": lambda a, b: a.leximin("<=", b, extra="drop"),
        "sort_pair count": lambda a, b: a.sort_pair(">", b).count(),
        "sort_pair sum": lambda a, b: a.sort_pair(">=", b, extra="keep").sum(),
        "max_pair_drop": lambda a, b: a.keep_outcomes(high).max_pair_drop(
            "<=", b.keep_outcomes(high)).count(),
        "max_pair_keep early": lambda a, b: a.max_pair_keep("<", b, "high").count(),
        "versus_all": lambda a, b: a.versus_all(">", b).count(),
        "versus_any sum": lambda a, b: a.versus_any("<", b).sum(),
        "highest sum": lambda a, b: a.highest(3).sum(),
        "middle expand": lambda a, b: a.middle(1, tie="high").expand(),
        "difference count": lambda a, b: (a - b).count(),
        "union unique": lambda a, b: (a | b).unique().count(),
        "keep_counts": lambda a, b: (a + b).keep_counts(">=", 2).count(),
        "multiset_function": _both_sides,
    }


def grid() -> Iterator[tuple[str, int, int]]:
    """(evaluation, dice, faces): 1 to 200 dice of 2 to 100 faces."""
    sizes = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 200]
    for faces in (2, 3, 4, 6, 10, 20, 50, 100):
        for name in evaluations(faces):
            for n in sizes:
                yield name, n, faces


def attempt(name: str, n: int, faces: int, limit: int) -> tuple[str, limits.Budget, Any]:
    """Evaluate under a budget of ``limit``: ("answered" or "refused", the budget, the
    distribution or the error)."""
    fn = evaluations(faces)[name]
    a, b = Pool(d(faces), n), Pool(d(faces), max(1, n // 2))
    with limits.evaluation(limit=limit, name="MAX_WORK") as budget:
        try:
            return "answered", budget, fn(a, b)
        except LimitError as e:
            return "refused", budget, e


@pytest.mark.parametrize("faces", [2, 3, 4, 6, 10, 20, 50, 100])
def test_every_evaluation_answers_or_is_refused_up_front(faces: int) -> None:
    """Over 1..200 dice: an answer never does more work than was estimated (and charged)
    before it started, and within the budget; a refusal comes before any of the work
    (nothing counted but the dice's preparation, a few units a face) and names MAX_WORK;
    raising the budget to the refusal's estimate answers."""
    outcomes: dict[str, list[str]] = {}
    for name, n, f in grid():
        if f != faces:
            continue
        kind, budget, got = attempt(name, n, f, BUDGET)
        outcomes.setdefault(name, []).append(kind)
        if kind == "answered":
            assert budget.estimated <= BUDGET, (name, n, f)
            assert budget.counted <= budget.estimated, (name, n, f)
            assert got.total > 0
            continue
        assert got.limit == "MAX_WORK", (name, n, f, got)
        # (at most a few maps of the faces before the refusal: each its call and outcomes)
        assert budget.counted <= (limits.MAP_CALL_WORK + limits.MAP_WORK * f) * 4, (
            name, n, f, budget.counted)
        if outcomes[name].count("refused") == 1:
            # the smallest refused: a larger budget (max_work) answers it, within the
            # estimate, or refuses it again with an estimate past that budget too
            kind, lifted, again = attempt(name, n, f, 20 * BUDGET)
            if kind == "answered":
                assert BUDGET < lifted.estimated <= 20 * BUDGET, (name, n, f)
                assert lifted.counted <= lifted.estimated, (name, n, f)
            else:
                assert again.value > 20 * BUDGET - lifted.estimated, (name, n, f)
    # the grid is not trivial: most evaluations answer small pools and refuse large ones
    assert sum(k[0] == "answered" for k in outcomes.values()) >= len(outcomes) * 3 // 4
    assert sum(k[-1] == "refused" for k in outcomes.values()) >= len(outcomes) // 2


def test_all_straights_past_64_dice_is_refused_by_the_walk_s_estimate() -> None:
    """65d6 goes to the face walk (the closed form takes at most 64 dice), whose estimate
    (partitions into parts <= faces read, two kinds: the open and the ended straights)
    is past the budget before the walk starts: nothing is counted."""
    p = Pool(d(6), 65)
    assert multiset._all_straights_closed(p) is None
    assert multiset_work(Evaluation(_AllStraights(), (p,))) > limits.MAX_WORK
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError, match="MAX_WORK"):
            p.all_straights()
    assert budget.counted == budget.estimated == 0
    # a few dice over many faces, or many dice over two: cheap walks, answered
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        assert Pool(d(2), 100).all_straights().total > 0
        assert Pool(d(100), 2).all_straights().total > 0
    assert 0 < budget.counted <= budget.estimated <= limits.MAX_WORK


def test_all_straights_closed_form_counts_its_products_before_making_them() -> None:
    """Past its loose bound, the closed form counts its products by a dry run on small
    integers and prices them (per item, by dice per face and words); refused when that
    is past the budget (64d6: nothing counted), answered at that price when it is not."""
    ws = (1,) * 6
    loose = multiset._straights_work(16, ws, 6)
    unit = multiset._straights_item_units(16, 6, 6)
    items = multiset._straights_counted(16, ws, True, 10**18)
    assert 0 < items * unit < loose
    # a budget between the count and the loose bound: answered, charged the count
    with limits.evaluation(limit=items * unit + 1, name="MAX_WORK") as budget:
        got = Pool(d(6), 16).all_straights()
    assert budget.estimated == budget.counted == items * unit
    assert got == multiset._all_straights_closed(Pool(d(6), 16), intervals=True)
    # under the count: refused before any product
    with limits.evaluation(limit=items * unit - 1, name="MAX_WORK") as budget:
        with pytest.raises(LimitError, match="all_straights"):
            Pool(d(6), 16).all_straights()
    assert budget.counted == 0
    # the dry run stops as soon as it passes what it may count
    with pytest.raises(multiset._PastBudget):
        multiset._straights_counted(16, ws, True, items - 1)
    # 64d6 and 64d64: past the default budget, refused with nothing done
    for n, f in ((64, 6), (64, 64), (40, 40)):
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            with pytest.raises(LimitError, match="all_straights"):
                Pool(d(f), n).all_straights()
        assert budget.counted == 0
    # unequal weights: the dry run walks the intervals with the weights' ranks
    die = d(6).map(lambda x: min(x, 5))  # 5 weighs twice
    ws2 = tuple(die.weights[f] for f in range(1, 6))
    items2 = multiset._straights_counted(10, ws2, False, 10**18)
    unit2 = multiset._straights_item_units(10, 5, die.total)
    with limits.evaluation(limit=items2 * unit2 + 1, name="MAX_WORK"):
        got = Pool(die, 10).all_straights()
    assert got == Evaluation(_AllStraights(), (Pool(die, 10),)).distribution()


@pytest.mark.parametrize(("n", "faces"), list(itertools.product((1, 3, 7), (2, 5, 9))))
def test_walk_estimate_bounds_the_steps(n: int, faces: int) -> None:
    """The walk's estimate is an upper bound of the steps it counts, for evaluations whose
    states are partitions (all_counts, all_straights), sub-multisets (expand) or
    operators' states."""
    p, q = Pool(d(faces), n), Pool(d(faces), max(1, n - 1))
    for ev in (multiset._AllCounts(1, None), multiset._AllStraights(),
               multiset._Expand("a"), multiset._LargestCount(None, True)):
        lazy = Evaluation(ev, (p,))
        with limits.evaluation(limit=10**10, name="MAX_WORK") as budget:
            lazy.distribution()
        assert 0 < budget.counted <= budget.estimated == multiset_work(lazy)
    both = Evaluation(multiset._Lexi(">", "high", "d"), (p.highest(2), q))
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        both.distribution()
    assert 0 < budget.counted <= budget.estimated
