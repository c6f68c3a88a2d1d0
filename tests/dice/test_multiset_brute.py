"""The pool algebra against brute-force enumeration of every roll, each operator and
evaluation written out from its definition on sorted lists (independent of the face
walk), plus the guards: clear errors, work refused up front, FaceRule mistakes."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit import limits
from chancekit.dice import Decided, Distribution, FaceRule, Pool, d, evaluate_pool, multiset
from chancekit.dice.multiset import Evaluation, Vector, _Size, multiset_function, multiset_work
from chancekit.dice.selectors import equal
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError


def enumerate_rolls(dice: list[Distribution], f: Any) -> Distribution:
    """f(roll) over every roll of ``dice``, weighted (exponential: small cases only)."""
    out: dict[Any, int] = {}
    for combo in itertools.product(*(tuple(x.weights.items()) for x in dice)):
        w = 1
        for _, wi in combo:
            w *= wi
        r = f(tuple(face for face, _ in combo))
        out[r] = out.get(r, 0) + w
    return Distribution(out)

OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
       ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def brute(pools: list[tuple[int, int]], f: Any) -> Distribution:
    """f(*sorted rolls) over every roll of the pools [(n, sides), ...]."""
    dice = [d(s) for n, s in pools for _ in range(n)]
    cuts = list(itertools.accumulate(n for n, _ in pools))

    def g(roll: tuple[int, ...]) -> Any:
        parts, start = [], 0
        for c in cuts:
            parts.append(sorted(roll[start:c]))
            start = c
        return f(*parts)
    return enumerate_rolls(dice, g)


def sort_pair(a: list[int], b: list[int], op: str, desc: bool = True) -> list[int]:
    a, b = sorted(a, reverse=desc), sorted(b, reverse=desc)
    return [x for x, y in zip(a, b, strict=False) if OPS[op](x, y)]  # extras dropped


def max_pairs(a: list[int], b: list[int], op: str) -> int:
    """The most pairs (x from a, y from b, each used once) with op(x, y): brute force."""
    best = 0
    for k in range(min(len(a), len(b)), 0, -1):
        for xs in itertools.combinations(range(len(a)), k):
            for ys in itertools.permutations(range(len(b)), k):
                if all(OPS[op](a[i], b[j]) for i, j in zip(xs, ys, strict=True)):
                    return k
    return best


@pytest.mark.parametrize(("na", "nb", "op"), [(3, 2, ">"), (2, 3, ">="), (3, 3, "<"),
                                              (1, 2, "!=")])
def test_sort_pair_count(na: int, nb: int, op: str) -> None:
    got = Pool(d(4), na).sort_pair(op, Pool(d(4), nb)).count()
    assert got == brute([(na, 4), (nb, 4)], lambda a, b: len(sort_pair(a, b, op)))


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
@pytest.mark.parametrize("keep", [True, False])
def test_max_pair_count(op: str, keep: bool) -> None:
    a, b = Pool(d(4), 3), Pool(d(4), 2)
    got = (a.max_pair_keep(op, b) if keep else a.max_pair_drop(op, b)).count()
    expect = brute([(3, 4), (2, 4)], lambda x, y: max_pairs(x, y, op) if keep
                   else len(x) - max_pairs(x, y, op))
    assert got == expect


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_versus(op: str) -> None:
    a, b = Pool(d(5), 3), Pool(d(5), 2)
    assert a.versus_all(op, b).sum() == brute(
        [(3, 5), (2, 5)], lambda x, y: sum(v for v in x if all(OPS[op](v, w) for w in y)))
    assert a.versus_any(op, b).expand() == brute(
        [(3, 5), (2, 5)], lambda x, y: tuple(v for v in x if any(OPS[op](v, w) for w in y)))


def test_set_operators() -> None:
    a, b = Pool(d(4), 3), Pool(d(3), 2)

    def counts(x: list[int]) -> Counter[int]:
        return Counter(x)

    def expand(c: Counter[int]) -> tuple[int, ...]:
        return tuple(sorted(c.elements()))
    cases = [
        (a + b, lambda x, y: expand(counts(x) + counts(y))),
        (a - b, lambda x, y: expand(counts(x) - counts(y))),
        (a & b, lambda x, y: expand(counts(x) & counts(y))),
        (a | b, lambda x, y: expand(counts(x) | counts(y))),
        (a ^ b, lambda x, y: expand((counts(x) - counts(y)) + (counts(y) - counts(x)))),
    ]
    for e, f in cases:
        assert e.expand() == brute([(3, 4), (2, 3)], f)


def test_unary_operators() -> None:
    p = Pool(d(4), 4)
    one = [(4, 4)]
    assert p.unique().count() == brute(one, lambda x: len(set(x)))
    assert p.keep_counts(">=", 2).sum() == brute(
        one, lambda x: sum(v for v in x if x.count(v) >= 2))
    assert p.multiply_counts(2).sum() == brute(one, lambda x: 2 * sum(x))
    assert p.keep_outcomes({1, 4}).count() == brute(one, lambda x: sum(v in (1, 4) for v in x))
    assert p.drop_outcomes(lambda v: v > 2).sum() == brute(
        one, lambda x: sum(v for v in x if v <= 2))
    assert p.highest(2, 1).sum() == brute(one, lambda x: sum(x[-3:-1]))
    assert p.lowest(2).expand() == brute(one, lambda x: tuple(x[:2]))
    assert p.middle(2).sum() == brute(one, lambda x: sum(x[1:3]))
    assert Pool(d(4), 3).middle(2, tie="high").sum() == brute([(3, 4)], lambda x: sum(x[1:]))
    # highest of an expression read ascending (its size is known: pools added)
    assert (Pool(d(3), 2) + Pool(d(4), 1)).highest(2).sum() == brute(
        [(2, 3), (1, 4)], lambda x, y: sum(sorted(x + y)[-2:]))


def test_evaluations() -> None:
    p = Pool(d(5), 4)
    one = [(4, 5)]

    def straights(x: list[int]) -> tuple[int, ...]:
        c = Counter(x)
        out = []
        for level in range(1, 5):
            run = 0
            for v in range(1, 7):
                if c[v] >= level:
                    run += 1
                elif run:
                    out.append(run)
                    run = 0
        return tuple(sorted(out, reverse=True))

    def longest(x: list[int]) -> int:
        return max((len(r) for r in _runs(sorted(set(x)))), default=0)
    assert p.largest_count() == brute(one, lambda x: max(Counter(x).values()))
    assert p.largest_count_and_outcome() == brute(
        one, lambda x: max((c, v) for v, c in Counter(x).items()))
    assert p.all_counts() == brute(one, lambda x: tuple(sorted(Counter(x).values(),
                                                                reverse=True)))
    assert p.largest_straight() == brute(one, longest)
    assert p.all_straights() == brute(one, straights)
    assert p.highest_outcome_and_count() == brute(one, lambda x: (x[-1], x.count(x[-1])))
    assert p.keep_outcomes([9]).highest_outcome_and_count() == Distribution({(1, 0): 1})
    assert p.count_subset([1, 2], empty_divisor=0) == brute(
        one, lambda x: min(x.count(1), x.count(2)))
    assert p.issuperset([2, 2]) == brute(one, lambda x: x.count(2) >= 2)
    assert p.isdisjoint(Pool(d(5), 1)) == brute([(4, 5), (1, 5)], lambda x, y: y[0] not in x)
    assert p.leximax(">", Pool(d(5), 4)) == brute(
        [(4, 5), (4, 5)], lambda x, y: int(x[::-1] > y[::-1]))


def _runs(values: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for v in values:
        if runs and runs[-1][-1] == v - 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return runs


def test_wild_dice() -> None:
    p = Pool(d(6), 4)
    assert p.largest_count(wild=6) == brute(
        [(4, 6)], lambda x: max([Counter(v for v in x if v != 6)[k] for k in range(1, 6)])
        + x.count(6))
    assert p.all_counts(wild=[5, 6]) == brute([(4, 6)], lambda x: _wild_counts(x, {5, 6}))
    # the closed form of a plain pool and the face walk of an expression agree
    for n, wild in [(5, [5, 6]), (7, 6), (6, []), (4, [1, 2, 3, 4, 5, 6])]:
        walked = (Pool(d(6), n) + []).largest_count(wild=wild)  # noqa: RUF005
        assert Pool(d(6), n).largest_count(wild=wild) == walked
    weighted = Distribution({1: 3, 2: 1, 5: 2})
    walked = (Pool(weighted, 5) + []).largest_count(wild=5)  # noqa: RUF005 (a multiset)
    assert Pool(weighted, 5).largest_count(wild=5) == walked


def _wild_counts(x: list[int], wild: set[int]) -> tuple[int, ...]:
    c = sorted(Counter(v for v in x if v not in wild).values(), reverse=True)
    w = sum(v in wild for v in x)
    if not w:
        return tuple(c)
    return (c[0] + w, *c[1:]) if c else (w,)


def test_multiset_function_is_one_walk_of_one_roll() -> None:
    @multiset_function
    def hits_crits(p: Any) -> Any:
        return p.keep_outcomes(lambda v: v >= 5).count(), p.keep_outcomes([6]).count()
    got = hits_crits(Pool(d(6), 3))
    assert got == brute([(3, 6)], lambda x: (sum(v >= 5 for v in x), x.count(6)))
    assert all(isinstance(o, Vector) for o in got.outcomes())
    doubled = got + got  # per-element arithmetic
    assert doubled.probability((6, 6)) == got.probability((3, 3)) ** 2
    # returning an expression: the function is that expression
    @multiset_function
    def net(a: Any, b: Any) -> Any:
        return a - b
    assert net(Pool(d(4), 2), Pool(d(4), 1)).count() == (Pool(d(4), 2) - Pool(d(4), 1)).count()


@given(st.integers(0, 3), st.integers(0, 3), st.sampled_from(["<", "<=", ">", ">="]))
@settings(max_examples=25, deadline=None)
def test_keep_plus_drop_is_everything(na: int, nb: int, op: str) -> None:
    """Property: max_pair_keep and max_pair_drop split this side's dice."""
    a, b = Pool(d(4), na), Pool(d(4), nb)

    @multiset_function
    def split(x: Any, y: Any) -> Any:
        return x.max_pair_keep(op, y).count(), x.max_pair_drop(op, y).count()
    assert split(a, b).map(lambda v: v[0] + v[1]) == Distribution({na: 1})


def test_vector_arithmetic() -> None:
    v = Vector((3, 1))
    assert v + (1, 2) == Vector((4, 3))  # noqa: RUF005 (per element, not concatenation)
    assert -v == Vector((-3, -1)) and v * 2 == (6, 2)
    assert v.ge((3, 2)) == Vector((True, False))
    with pytest.raises(InvalidValueError, match="lengths"):
        v + (1, 2, 3)  # noqa: RUF005


def test_clear_errors() -> None:
    p = Pool(d(6), 3)
    with pytest.raises(InvalidValueError, match="sort_pair: comparison"):
        p.sort_pair("=>", p)
    with pytest.raises(InvalidValueError, match="extra"):
        p.sort_pair(">", p, extra="sideways")
    with pytest.raises(InvalidTypeError, match="Pool or multiset expression"):
        p.versus_all(">", "3d6")
    with pytest.raises(InvalidValueError, match="tie="):
        Pool(d(6), 4).middle(1)
    with pytest.raises(InvalidValueError, match="operators"):
        Pool(d(6), 3).reroll(equal(1)).unique().count()
    with pytest.raises(InvalidValueError, match="opposite orders"):
        (p - p).highest(1).lowest(1).count()
    with pytest.raises(InvalidValueError, match="empty_divisor"):
        p.count_subset(Pool(d(6), 1).keep_outcomes([7]))


def test_work_refused_up_front_and_liftable() -> None:
    big = Pool(d(6), 60).sort_pair(">", Pool(d(6), 60))
    assert multiset_work(Evaluation(_Size(), (big,))) > limits.MAX_WORK
    counted: list[int] = []
    with pytest.raises(LimitError, match="MAX_WORK"):
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            try:
                big.count()
            finally:
                counted.append(budget.counted)
    assert counted == [0]  # refused before any step
    with limits.evaluation(limit=10**12, name="MAX_WORK"):  # --max-work lifts it
        assert Pool(d(6), 12).sort_pair(">", Pool(d(6), 12)).count().total > 0


def test_facerule_mistakes_are_named() -> None:
    # Decided(number) while final() is the default (the state, a tuple): mixed kinds
    rule = FaceRule(lambda s, f, c: Decided(f) if f == 6 and c[0] else (s[0] + c[0], s[1]),
                    initial=(0, 0))
    with pytest.raises(InvalidValueError, match=r"Decided.*final"):
        evaluate_pool(rule, 3 * [d(6)])
    mixed = FaceRule(lambda s, f, c: s + c[0] if f == 6 else s, initial=0,
                     final=lambda s: "none" if s == 0 else s)
    with pytest.raises(InvalidValueError, match="mix kinds"):
        evaluate_pool(mixed, 2 * [d(6)])


def _sort_pair_extra(a: list[int], b: list[int], op: str, desc: bool, extra: str) -> int:
    """How many of a's elements sort_pair keeps, extras included, from the definition."""
    a, b = sorted(a, reverse=desc), sorted(b, reverse=desc)
    if extra == "early":
        extra = "high" if desc else "low"
    elif extra == "late":
        extra = "low" if desc else "high"
    lone = {"drop": False, "keep": True, "low": OPS[op](0, 1), "high": OPS[op](1, 0),
            "equal": OPS[op](0, 0)}[extra]
    return sum(OPS[op](x, b[i]) if i < len(b) else lone for i, x in enumerate(a))


def _general_walk(expr: Any) -> Distribution:
    """count() of ``expr`` by the general face walk (an Evaluation walks; the fast paths
    are taken by the evaluation methods)."""
    return Evaluation(_Size(), (expr,)).distribution()


@pytest.mark.parametrize(("na", "sa", "nb", "sb"), [(3, 4, 2, 4), (2, 3, 3, 5), (0, 4, 2, 4),
                                                  (3, 4, 0, 4), (4, 3, 1, 2)])
@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_sort_pair_count_fast_path(na: int, sa: int, nb: int, sb: int, op: str) -> None:
    """count() of sort_pair between two plain pools takes its own walk (two half steps a
    face); every order and extra rule against brute force and the general walk."""
    for order, desc in (("descending", True), ("ascending", False)):
        for extra in ("drop", "keep", "low", "high", "equal", "early", "late"):
            expr = Pool(d(sa), na).sort_pair(op, Pool(d(sb), nb), order, extra)
            assert multiset._sort_pair_count_closed(expr) is not None
            got = expr.count()
            assert got == brute([(na, sa), (nb, sb)], lambda a, b, o=op, x=desc, e=extra:
                                _sort_pair_extra(a, b, o, x, e)), (order, extra)
            assert got == _general_walk(expr)


def test_sort_pair_count_fast_path_scope() -> None:
    """Only plain pools and ordered comparisons take it; the rest walk as before."""
    a, b = Pool(d(6), 3), Pool(d(6), 2)
    assert multiset._sort_pair_count_closed(a.sort_pair("==", b)) is None
    assert multiset._sort_pair_count_closed(a.sort_pair(">", b.keep_outcomes([5, 6]))) is None
    assert multiset._sort_pair_count_closed(a.highest(2)) is None
    uneven = Pool(d(6).map(lambda x: 2 * x), 3).sort_pair(">", Pool(d(8), 3))
    assert uneven.count() == _general_walk(uneven)
    assert uneven.count() == enumerate_rolls(
        3 * [d(6).map(lambda x: 2 * x)] + 3 * [d(8)],
        lambda r: len(sort_pair(list(r[:3]), list(r[3:]), ">")))
    risk = Pool(d(6), 10).sort_pair(">", Pool(d(6), 10)).count()
    assert risk == _general_walk(Pool(d(6), 10).sort_pair(">", Pool(d(6), 10)))


def _straights_of(roll: tuple[int, ...]) -> tuple[int, ...]:
    """all_straights from its definition: the maximal runs of the faces shown at least
    ``level`` times, for every level, longest first."""
    c = Counter(roll)
    out = []
    for level in range(1, len(roll) + 1):
        run = 0
        for v in range(min(roll, default=0), max(roll, default=0) + 2):
            if c[v] >= level:
                run += 1
            elif run:
                out.append(run)
                run = 0
    return tuple(sorted(out, reverse=True))


@pytest.mark.parametrize(("die", "n"), [
    (d(6), 1), (d(6), 2), (d(6), 4), (d(4), 5), (d(1), 3), (d(3), 6), (d(8), 3),
    (Distribution({1: 1, 2: 3, 4: 2, 5: 1}), 4),     # a gap, unequal weights
    (Distribution({-1: 2, 0: 1, 1: 3}), 5),          # negative faces
    (Distribution({2: 1, 3: 2, 7: 1}), 3),           # a long gap
    (d(6).map(lambda x: 2 * x), 3),                  # no two faces consecutive
    (Distribution({5: 2}), 3)])
def test_all_straights_fast_path(die: Distribution, n: int) -> None:
    """all_straights of a plain pool takes the closed form over levels (equal weights: sums
    over multisets of bar lengths, bottom up; any weights: intervals); brute force, the
    face walk and both closed forms agree."""
    p = Pool(die, n)
    assert multiset._all_straights_closed(p) is not None
    got = p.all_straights()
    assert got == enumerate_rolls(n * [die], _straights_of)
    assert got == Evaluation(multiset._AllStraights(), (p,)).distribution()
    assert got == multiset._all_straights_closed(p, intervals=True)


@pytest.mark.parametrize(("die", "n"), [(d(6), 8), (d(6), 12), (d(10), 7),
                                        (Distribution({1: 2, 2: 1, 3: 3, 4: 1, 6: 2}), 8)])
def test_all_straights_fast_path_larger(die: Distribution, n: int) -> None:
    """Larger pools: the closed form against the face walk (8d6 is the benchmark's)."""
    p = Pool(die, n)
    fast = multiset._all_straights_closed(p)
    assert fast is not None
    assert fast == Evaluation(multiset._AllStraights(), (p,)).distribution()
    assert fast == multiset._all_straights_closed(p, intervals=True)


def test_all_straights_fast_path_scope_and_work() -> None:
    """Not plain pools (or no dice): the face walk; the loose estimate is charged up front
    when it is under the budget; past it, the products are counted first by a dry run
    (tests/dice/test_multiset_work.py), so a pool that is in fact cheap is answered (the
    same as the face walk's answer) and one that is not is refused before any product,
    not after the face walk's seconds."""
    assert multiset._all_straights_closed(Pool(d(6), 3).highest(2)) is None
    assert multiset._all_straights_closed(Pool(d(6), 0)) is None
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        Pool(d(6), 8).all_straights()
    assert budget.estimated == budget.counted == multiset._straights_work(8, (1,) * 6, 6) > 0
    # a loose estimate past a small budget: counted, answered when the work is small
    small = multiset._straights_work(5, (1,) * 4, 4)
    with limits.evaluation(limit=small // 2, name="MAX_WORK") as budget:
        got = multiset._all_straights_closed(Pool(d(4), 5))
    assert budget.counted < small // 2
    assert got == Pool(d(4), 5).all_straights()   # (under the default budget)
    # and refused by its own count, before the face walk is tried
    with limits.evaluation(limit=1000, name="MAX_WORK"):
        with pytest.raises(LimitError, match="all_straights"):
            multiset._all_straights_closed(Pool(d(6), 8))
        with pytest.raises(LimitError):
            Pool(d(6), 8).all_straights()
