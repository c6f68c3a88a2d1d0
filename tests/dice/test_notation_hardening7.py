"""Issue #31 item 5, fifth pass: the notation refusals still made after 1.0-1.5 s of CPU in
the fourth pass's samples (docs/fuzzing.md), now made earlier; counted units and estimates,
never seconds. The classes: the general engine's steps priced by their states (a state's
own cost, keeps of the highest/lowest as two slices), idle steps skipped, the tree
following keeps of the highest/lowest and adding the explosion ahead of them; the distinct
results of ``c % X`` and ``X // c`` counted before the step after them; maps merging their
results in C-level passes.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _upfront import MAX_CALLS, counted_before_refusal, measure
from chancekit import limits
from chancekit.dice import dist
from chancekit.dice._estimate import _general
from chancekit.dice._parse import parse
from chancekit.dice.distribution import Distribution
from chancekit.dice.evaluate import STATE_ELEMENTS, items_work, step_elements
from chancekit.dice.facewalk import _walk_steps
from chancekit.errors import InvalidTypeError, LimitError

#: (text, units counted before this pass): BesideNotation seed 3211 and 3210, a remainder's
#: results priced only once mapped (0.8-1.4 s each)
REMAINDERS = [
    ("-100000000000000000000000000% d890707/4", 22_300_000),
    ("(-100000000000000000000000% d690986)/7", 17_300_000),
]


@pytest.mark.parametrize(("text", "before"), REMAINDERS)
def test_a_remainders_results_are_counted_before_the_map(text: str, before: int) -> None:
    error, counted = counted_before_refusal(lambda: dist(text))
    assert error.limit == "MAX_WORK"
    # the die built and one counting pass (ENTRY_WORK an outcome), not the map
    assert counted <= 6 * 890_707, (text, counted)
    assert counted < before // 3


def test_a_remainder_that_fits_is_answered_as_before() -> None:
    got = dist("(10**6 % d5000) / 7".replace("10**6", "1000000"))
    want: Counter[Fraction] = Counter(Fraction(1_000_000 % x, 7) for x in range(1, 5001))
    assert dict(got.weights) == dict(want)


def _charged(text: str) -> int:
    with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
        dist(text)
    return budget.estimated


@pytest.mark.parametrize("text", ["9d12kh2e8", "6d6kh3e6", "8d12ro52ph3kh4k>7", "7d8ph2kl3",
                                  "6d10kh4pl1", "5d6p<2kh2", "7d6kl3!", "6d4kl2e>2"])
def test_the_trees_bound_of_a_general_pool_is_below_its_charge(text: str) -> None:
    """The tree's figure is a lower bound: what the evaluation charges is at least it."""
    bound = _general(parse(text)).work
    assert 0 < bound <= _charged(text), text


def test_the_tree_follows_a_keep_of_the_highest_and_adds_the_explosion_ahead() -> None:
    # 9d12kh2e8: every multiset of the 9 dice enumerated, the keep read them, then the
    # explosion of the two kept (its first level): the three, not the larger of two
    states = 167_960  # C(20, 11)
    enumeration = states * (9 + 12) * limits.TUPLE_WORK
    keep = step_elements(parse("9d12kh2").ops[0], 9 * states, states) * limits.TUPLE_WORK
    assert _general(parse("9d12kh2e8")).work > enumeration + keep
    # and the step after a keep of the highest is priced on every multiset of the kept
    # dice: 8d12ph3 leaves 5 dice, C(16, 11) = 4368 multisets, each with a state's cost
    with_keep = _general(parse("8d12ph3kh4k>7")).work
    without = _general(parse("8d12ph3kh4")).work
    assert with_keep - without >= 4368 * STATE_ELEMENTS * limits.TUPLE_WORK


def test_an_idle_step_is_skipped_and_not_charged() -> None:
    assert dist("8d12ro52ph3kh4k>7") == dist("8d12ph3kh4k>7")
    assert _charged("8d12ro52ph3kh4k>7") == _charged("8d12ph3kh4k>7")


def test_a_step_idle_on_the_faces_runs_after_a_clamp() -> None:
    # every kept die clamped to 8, which 'ro8' then rerolls once: three fresh d6 (a skip of
    # 'ro8' because no face of the d6 is 8 would leave 24)
    assert dist("4d6kh3mi8ro8") == dist("3d6")
    # and a drop of none of the lowest is idle anywhere
    assert dist("5d6kh3pl0kl2") == _brute_keeps(5, 6, [("k", 3, 0), ("k", 0, 2)])


def _brute_keeps(n: int, sides: int, ops: list[tuple[str, int, int]]) -> Distribution:
    """Every roll of ``n`` dice, sorted, through keeps/drops of (``k``/``p``, the ``h``
    highest, the ``l`` lowest), summed."""
    out: Counter[int] = Counter()
    for roll in itertools.product(range(1, sides + 1), repeat=n):
        s = sorted(roll)
        for kind, h, lo in ops:
            picked = set(range(max(0, len(s) - h), len(s))) | set(range(min(lo, len(s))))
            s = [v for i, v in enumerate(s) if (i in picked) == (kind == "k")]
        out[sum(s)] += 1
    return Distribution(out)


@pytest.mark.parametrize(("text", "n", "sides", "ops"), [
    ("4d6kh3kl2ph1", 4, 6, [("k", 3, 2), ("p", 1, 0)]),  # kh3kl2: one keep, a union
    ("5d4ph1pl1kh2", 5, 4, [("p", 1, 0), ("p", 0, 1), ("k", 2, 0)]),
    ("4d6kh2kl1ph1", 4, 6, [("k", 2, 1), ("p", 1, 0)]),
    ("5d5pl2kh2kl1", 5, 5, [("p", 0, 2), ("k", 2, 1)]),
    ("3d6kh5pl0kl1", 3, 6, [("k", 5, 0), ("k", 0, 1)]),
    ("4d5ph9kh1", 4, 5, [("p", 9, 0), ("k", 1, 0)]),
])
def test_keeps_of_the_highest_and_lowest_as_slices_match_brute_force(
        text: str, n: int, sides: int, ops: list[tuple[str, int, int]]) -> None:
    assert dist(text) == _brute_keeps(n, sides, ops), text


def _naive_map(weights: dict[int, int], f) -> dict[object, Fraction]:  # type: ignore[no-untyped-def]
    out: dict[object, int] = {}
    for k, w in weights.items():
        out[f(k)] = out.get(f(k), 0) + w
    total = sum(out.values())
    return {k: Fraction(v, total) for k, v in out.items()}


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(-50, 50), st.integers(1, 6), min_size=1, max_size=30),
       st.integers(1, 9), st.sampled_from(["mod", "floordiv", "pair", "neg", "frac"]),
       st.booleans())
def test_map_merges_like_a_plain_loop(weights: dict[int, int], k: int, how: str,
                                      equal: bool) -> None:
    if equal:
        weights = dict.fromkeys(weights, 3)
    f = {"mod": lambda x: x % k, "floordiv": lambda x: x // k, "pair": lambda x: (x % k, 1),
         "neg": lambda x: -x, "frac": lambda x: Fraction(x, k)}[how]
    got = Distribution(weights).map(f)
    want = _naive_map(weights, f)
    assert {o: got.probability(o) for o in got.outcomes()} == want
    assert got._int == all(type(o) is int for o in want)


def test_an_unhashable_map_result_is_named() -> None:
    with pytest.raises(InvalidTypeError, match=r"\[1\]"):
        Distribution({1: 1, 2: 1}).map(lambda x: [x])


@pytest.mark.parametrize(("text", "dialect"), [
    ("45747d3dl3-d734933", "roll20"), ("100000d{6,154673,+12,-3}dh1ro=-1", "roll20")])
def test_a_keep_of_many_dice_is_priced_in_constant_time(text: str, dialect: str) -> None:
    """HostileNotation seed 3213: the face walk's price summed its steps one by one,
    O(k^2) for k kept (45 744 here: past the 60 s alarm); the closed form is refused at
    once, a few thousand Python calls."""
    error, _peak, calls = measure(lambda: dist(text, dialect=dialect))
    assert isinstance(error, LimitError) and error.limit == "MAX_WORK"
    assert calls < MAX_CALLS


def test_the_walks_steps_in_closed_form_match_their_sum() -> None:
    for k in range(60):
        assert _walk_steps(k) == sum(k + j + sum(2 * j + t for t in range(k - j))
                                     for j in range(k))


def test_a_sets_enumeration_is_priced_by_its_merges_and_seen_by_the_tree() -> None:
    """BesideNotation seed 3214: (20d8, 12d4, 5d4, 1d4)pl4pl0 enumerated 334 000 tuples
    (0.64 s, priced 10.7 M), then its step, then the rest was refused at 1.0 s. The
    enumeration is priced merge by merge and the tree prices it from its items' outcomes."""
    text = "9d6pl179pl2pl2ro>5*59d10e6+(20d8, 12d4, 5d4, 1d4)pl4pl0+ -d649969+7"
    error, counted = counted_before_refusal(lambda: dist(text))
    assert error.limit == "MAX_WORK" and counted < 1_000_000
    sizes = [len(dist(t)) for t in ("20d8", "12d4", "5d4", "1d4")]
    assert _charged("(20d8, 12d4, 5d4, 1d4)pl4pl0") >= items_work(sizes) > 20_000_000


def test_a_compounded_keep_of_many_dice_measures_its_weights_by_a_logarithm() -> None:
    """HostileNotation seed 3215: 81331d%!!kh4 (roll20) built 100 ** (21 x 81331), 11 M
    bits, only to read its length (1.5 s) before refusing."""
    error, _peak, calls = measure(lambda: dist("81331d%!!kh4", dialect="roll20"))
    assert isinstance(error, LimitError) and error.limit == "MAX_WORK"
    assert calls < MAX_CALLS
    assert _peak < 2**20  # nothing of 11 M bits was built


def test_big_dice_are_not_read_face_by_face_before_a_refusal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each refused after 0.9-1.1 s: the multisets of 97 775 dice of 519 615 faces counted
    by a binomial of 2^389 187 and the top face matched by a call a face (HostileNotation
    seed 3220); a die of 545 150 outcomes hashed (0.36 s) to group five copies of it and
    to key the keep's cache (BesideNotation seed 3219)."""
    error, _peak, calls = measure(
        lambda: dist("-97775d519615!1dl0 *\t7d618ro0r5r>8 //25", dialect="roll20"))
    # (dl0 drops none: stripped since issue 31's seventh pass, so the explosion alone is
    # refused by its span; before, the pool's multisets, by a binomial stopped past the cap)
    assert isinstance(error, LimitError) and error.limit in ("MAX_POOL_STATES", "MAX_OUTCOMES")
    assert "more than" in str(error)
    assert calls < MAX_CALLS  # (a call a face is 520 000)
    hashed: list[int] = []
    real = Distribution.__hash__

    def spy(self: Distribution) -> int:
        hashed.append(len(self))
        return real(self)

    monkeypatch.setattr(Distribution, "__hash__", spy)
    with pytest.raises(LimitError):
        dist("(5d6cf<6-5d545150ph4, 46d834kh0)")
    assert max(hashed, default=0) <= 20_000


def test_a_keep_of_nearly_all_dice_is_priced_by_the_dice_beyond_each_face() -> None:
    """BesideNotation seed 3222: 216d10rr2kh212-like keeps of a rolled count: the drop way
    (powers of the die beyond each face) was priced with the whole span, 22.5 M, so the
    threshold way priced 11.6 M ran instead, 0.5-0.9 s each. Each power now has the width
    of the faces beyond it: the drop way is priced below the threshold way and taken."""
    from chancekit.dice.facewalk import _keep_costs

    die = dist("1d10rr2")
    by_face, _walk, drop, _pool = _keep_costs(die, 216, 212, True)
    assert drop is not None and drop < by_face
    # and where few are kept the threshold way stays the cheaper (216 dice keeping 200)
    by_face, _walk, drop, _pool = _keep_costs(die, 216, 200, True)
    assert drop is not None and by_face < drop


def _brute_ra(n: int, sides: int, at_least: int) -> Distribution:
    out: Counter[int] = Counter()
    for roll in itertools.product(range(1, sides + 1), repeat=n):
        if any(v >= at_least for v in roll):
            for u in range(1, sides + 1):
                out[sum(roll) + u] += 1
        else:
            out[sum(roll)] += sides
    return Distribution(out)


@pytest.mark.parametrize(("n", "sides", "at_least"), [
    (1, 6, 6), (2, 6, 5), (3, 4, 2), (3, 6, 1), (2, 6, 7), (4, 3, 3), (2, 10, 9)])
def test_reroll_and_add_in_one_polynomial_pass_matches_brute_force(
        n: int, sides: int, at_least: int) -> None:
    assert dist(f"{n}d{sides}ra>={at_least}") == _brute_ra(n, sides, at_least)


def test_reroll_and_add_reduces_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """HostileNotation seed 3212: 2712d6ra>=2 mixed its two parts and reduced three dicts
    of 13 573 weights of 7 000 bits by Python gcds (2.6 s for 35 M units); now one
    polynomial and its content: no Python gcd pass over the weights."""
    from chancekit.dice import distribution

    reduced: list[int] = []
    real = distribution._reduce

    def spy(w):  # type: ignore[no-untyped-def]
        reduced.append(len(w))
        return real(w)

    monkeypatch.setattr(distribution, "_reduce", spy)
    got = dist("2712d6ra>=2")
    assert len(got) == 13_566 and max(reduced, default=0) < 1000


def test_a_big_integer_distribution_hashes_by_its_ends_and_equals_by_all() -> None:
    """AnyDice keys its caches by dice: hashing every wide weight of a die of hundreds of
    outcomes took 0.5 s of hang-415's 3.5 s. Equal distributions still hash alike however
    they were built (integer outcomes are kept sorted), and a difference in the middle
    still makes them unequal."""
    import random

    a = Distribution({i: 1 for i in range(1, 101)}).repeat_sum(5)
    items = list(a.weights.items())
    random.Random(5).shuffle(items)
    b = Distribution(dict(items))
    assert a == b and hash(a) == hash(b)
    c = dict(a.weights)
    mid = sorted(c)[len(c) // 2]
    c[mid] += 1
    other = Distribution(c)
    assert other != a and {a: 1, other: 2}[a] == 1
    assert hash(Distribution({"x": 1, 3: 2})) == hash(Distribution({3: 2, "x": 1}))


def test_a_rolled_counts_mixture_is_priced_with_its_pools() -> None:
    """BesideNotation seed 3210: (((6d3)d6)d4!1 - d899%d522)*3 built and mixed the 103
    pools of its rolled count (1.2 s; the mixture of 129 000 wide entries, 0.48 s, was
    charged nothing), then the sum after it was priced and refused. The mixture is priced
    with the pools, before any is built."""
    error, counted = counted_before_refusal(lambda: dist("(((6d3)d6)d4!1- d899%d522)*3"))
    assert error.limit == "MAX_WORK" and counted < 1_000_000
    with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
        dist("((6d3)d6)d4!1")
    assert budget.estimated > 40_000_000  # the powers (36 M) and the mixture


def test_a_squashed_explosion_prices_every_count_of_matches_up_front() -> None:
    """HostileNotation seed 3231: roll20 6d20!<3kl3 was priced 42.6 M before its
    enumeration (the squash keeps 3 dice, so matches were counted among 3), then its first
    level planned 360 M after 1 s: every die matches before the keep, and each count of
    matches past the squash's width has a pending pool of its own."""
    error, counted = counted_before_refusal(lambda: dist("6d20!<3kl3", dialect="roll20"))
    assert error.limit == "MAX_WORK" and counted < 1_000_000
    # lifted, the evaluation charges at least that bound (it is a lower bound)
    from chancekit.dice.evaluate import _explode_ahead

    node = parse("6d20!<3kl3", "roll20")
    ahead = _explode_ahead(dict(Counter(node.faces)), 6, node.ops, 20)
    assert ahead > limits.MAX_WORK


def test_the_selectors_interval_forms_match_a_scan() -> None:
    """matching_faces, matches_every_face and _split read contiguous faces by the
    selectors' intervals (selectors.matched_ranges): the same faces as one call a face."""
    import random

    from chancekit.dice.evaluate import _split
    from chancekit.dice.selectors import (
        Op,
        Selector,
        matches_every_face,
        matching_faces,
    )

    rnd = random.Random(9)
    for _ in range(2000):
        lo, n = rnd.randint(-5, 5), rnd.randint(64, 130)
        faces = list(range(lo, lo + n))
        sels = tuple(Selector(rnd.choice([None, "<", "<=", ">", ">="]),
                              rnd.randint(lo - 3, lo + n + 3)) for _ in range(rnd.randint(1, 3)))
        op = Op("e", sels)
        scan = [f for f in faces if op.matches(f)]
        assert matching_faces(op, faces) == scan
        assert matches_every_face(op, faces) == matches_every_face(op, range(lo, lo + n)) \
            == (len(scan) == n)
        hit, miss = _split(Distribution(dict.fromkeys(faces, 1)), op)
        assert sorted(hit) == scan and sorted(miss) == [f for f in faces if f not in hit]
