"""Issue #31 item 5, sixth pass: the notation refusals fresh samples still found after
1.0-3.3 s of CPU at 4871054 (docs/fuzzing.md), now made before the work; counted units,
charge labels and bounds, never seconds. The classes: a pairwise step over wide weights
priced by their words (it was priced as small ones, 3-5 times under), the total weight of
a product known to the tree before the step after it, and ``abs`` folding any outcomes at
most in two.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _upfront import counted_before_refusal
from chancekit import limits
from chancekit.dice import dist
from chancekit.dice._compile import _product_tbits
from chancekit.dice._estimate import lower_bound
from chancekit.dice._parse import parse
from chancekit.dice.distribution import Distribution, wide_pairs_work
from chancekit.errors import LimitError

weights = st.dictionaries(st.integers(-40, 40), st.integers(1, 2**300), min_size=1,
                          max_size=12)


@settings(max_examples=60, deadline=None)
@given(weights, weights)
def test_wide_pairs_work_is_the_sum_over_the_pairs(a: dict[int, int], b: dict[int, int]) -> None:
    # the oracle: every pair's words (whole 64-bit words of each weight) summed one by one
    x, y = Distribution._raw(a, reduced=True), Distribution._raw(b, reduced=True)
    per_pair = sum(
        (wx.bit_length() // 64) * (wy.bit_length() // 64)
        + 2 * (wx.bit_length() // 64 + wy.bit_length() // 64)
        for wx in x.weights.values() for wy in y.weights.values())
    assert wide_pairs_work(x, y) == per_pair * limits.WIDE_PAIR_WORK // 20


def test_small_weights_cost_a_pair_as_before() -> None:
    # (weights under 64 bits: nothing added, so no small sum's price moved)
    assert wide_pairs_work(Distribution({k: 2**63 - 1 - k for k in range(50)}),
                           Distribution({k: 3 for k in range(7)})) == 0


def _labels(monkeypatch: pytest.MonkeyPatch, text: str, dialect: str = "avrae") -> list[str]:
    """The labels charged while ``text`` is refused in the default budget."""
    seen: list[str] = []
    charge = limits.charge

    def spy(units: int, what: str, *args: Any, **kwargs: Any) -> None:
        seen.append(what)
        charge(units, what, *args, **kwargs)

    monkeypatch.setattr(limits, "charge", spy)
    with pytest.raises(LimitError):
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
            dist(text, dialect=dialect)
    return seen


@pytest.mark.parametrize("text", [
    "((2d6, 4d12, 2d4)kh2 * 14768d2) * 3",  # 546 000 pairs of 14 768-bit weights
    "(1654d10 * (6d4k41+d6)d10) * 3",
    "17266d2 % ((1d3)d4ro>=2)d6 + 2875d3",
])
def test_a_pairwise_step_over_wide_weights_is_refused_before_its_pairs(
        monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    # before: priced as small weights (20-31 M units), it ran 2-3 s, then the map or the sum
    # after it was refused; now it is refused before the first pair (by its own charge, or
    # by the tree once its results are counted)
    seen = _labels(monkeypatch, text)
    pairwise = [i for i, w in enumerate(seen) if w.startswith("combining two distributions")]
    assert pairwise in ([], [len(seen) - 1]), seen[-3:]  # none charged, or refused by its own


def test_a_products_wide_weights_price_the_sum_after_it_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 9d6 * 2403d6: 552 000 pairs priced with 1-bit weights fitted, ran 1.2 s, then its
    # 6 000-bit weights refused the sum after it; now that sum is priced before the product
    seen = _labels(monkeypatch, "-+(9d6*2403d6+79-19d%)")
    assert "combining two distributions with *" not in seen


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.integers(-30, 30).filter(bool), st.integers(1, 50), min_size=1,
                       max_size=8),
       st.dictionaries(st.integers(-30, 30).filter(bool), st.integers(1, 50), min_size=1,
                       max_size=8))
def test_the_products_total_bits_bound_holds(a: dict[int, int], b: dict[int, int]) -> None:
    x, y = Distribution(a), Distribution(b)
    product = x * y  # the oracle: the product built, reduced by its own gcd
    assert product.total.bit_length() >= _product_tbits(x, y)


def test_the_products_total_bits_bound_is_sharp_for_dice() -> None:
    # 3d6 * 4d8: the farthest product (18 * 32) has weight 1, so nothing is divided out
    x, y = dist("3d6"), dist("4d8")
    assert _product_tbits(x, y) == (x.total * y.total).bit_length() == (x * y).total.bit_length()
    assert _product_tbits(dist("d6-3"), y) == 1  # both signs on a side: nothing known


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-60, 60), min_size=2, max_size=10, unique=True))
def test_abs_folds_any_outcomes_at_most_in_two(faces: list[int]) -> None:
    text = "abs(d{" + ",".join(map(str, faces)) + "} * 3)"  # outcomes with gaps
    bound = lower_bound(parse(text, "roll20")).lo
    assert len(dist(text, dialect="roll20")) >= bound >= (len(faces) + 1) // 2


def test_a_pair_step_after_abs_is_refused_before_the_quotients(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # abs of 29 600 quotients was priced as one outcome: the quotients ran 0.5 s first
    text = "(-9999993+d505)/abs(d3*10D%/7d6dh2/-13)"
    seen = _labels(monkeypatch, text, "roll20")
    assert not any(w.startswith("combining two distributions") for w in seen), seen
    _, counted = counted_before_refusal(lambda: dist(text, dialect="roll20"))
    assert counted == 0


def test_fractions_times_integers_are_counted_before_the_step_after_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Fractions were never counted: their product ran 1 s, then the '>=' after it was
    # refused by its pairs
    seen = _labels(monkeypatch, "-18dFe7+39D8>=16-7dF//5d4kh3/d543*6d20kl2")
    assert "combining two distributions with *" not in seen


def test_divisors_at_most_bounds_the_divisors() -> None:
    from chancekit.dice._estimate import _divisors_at_most

    def divisors(c: int) -> int:  # the oracle: every candidate tried
        return sum(1 for k in range(1, abs(c) + 1) if c % k == 0)

    for c in [*range(-300, 0), *range(1, 3000), 1009 * 1013, 1009**2, 997 * 1009, 2**20]:
        got = _divisors_at_most(c)
        assert got >= divisors(c), c
        if abs(c) < 1000:  # primes under 1 000 only: exact
            assert got == divisors(c), c
    assert _divisors_at_most(10**16) == 17 * 17  # 2**16 5**16


@pytest.mark.parametrize(("text", "den"), [
    ("1/76", 76), ("(1/76 + d100) * 6", 38), ("-(1/76 + d100)", 76), ("2 + 3*4", 1),
    ("0.5 + 0.5", 1), ("(3/4 - d6) * 4", 1), ("d6 + 1/2", 2), ("1/2 * d6", 0),
])
def test_the_trees_denominators_match_the_outcomes(text: str, den: int) -> None:
    bound = lower_bound(parse(text, "roll20"))
    assert bound.den == den
    if den:  # the oracle: the outcomes' own denominators
        got = dist(text, dialect="roll20")
        assert {getattr(x, "denominator", 1) for x in got.weights} == {den}
    assert bound.frac == (den > 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(-20, 20), st.integers(1, 12), st.integers(2, 30), st.integers(-9, 9),
       st.sampled_from(["+", "-"]))
def test_a_surely_fractional_bound_has_a_fraction(p: int, q: int, sides: int, k: int,
                                                  op: str) -> None:
    text = f"({p}/{q} {op} d{sides}) * {k}" if k else f"{p}/{q} {op} d{sides}"
    bound = lower_bound(parse(text, "roll20"))
    got = dist(text, dialect="roll20")
    if bound.frac:
        assert any(getattr(x, "denominator", 1) != 1 for x in got.weights), text
    if bound.den:
        assert {getattr(x, "denominator", 1) for x in got.weights} == {bound.den}, text


@pytest.mark.parametrize(("text", "dialect"), [
    ("(99 / d4 >= 2) + (1/76 + d3000) * 6", "roll20"),  # the compare is one outcome
    ("(d4 >= 1) + (1/76 + d3000)", "roll20"),
    ("(d4 >= 1) - 5d20", "avrae"),
])
def test_a_side_that_may_be_one_outcome_is_priced_as_a_map_at_most(text: str,
                                                                    dialect: str) -> None:
    # the tree priced the pairs of a side it could not count (a comparison); the step was
    # one map of the other side, cheaper: the bound passed the charges
    with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
        dist(text, dialect=dialect)
    assert lower_bound(parse(text, dialect)).work <= budget.estimated


def test_a_division_into_a_constant_is_charged_as_fractions() -> None:
    # c / x guessed whether x divides c by whether c divided x: 1 / d5000 was charged as
    # integers though all but one quotient are Fractions
    with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
        got = dist("1 / d5000")
    assert budget.estimated >= 5000 * limits.FRACTION_MAP_WORK
    assert lower_bound(parse("1 / d5000", "avrae")).work <= budget.estimated
    assert got.probability(Fraction(1, 7)) == Fraction(1, 5000)


def test_a_fraction_map_in_reverse_order_is_sorted_and_equal() -> None:
    got = dist("-1000000 / d3000")  # quotients in decreasing order, rebuilt once
    keys = list(got.weights)
    assert keys == sorted(keys)
    assert got == Distribution({Fraction(-1_000_000, x): 1 for x in range(1, 3001)})


def test_the_multisets_are_priced_as_enumerated() -> None:
    from chancekit.dice import evaluate

    for die, m in [({f: 1 for f in range(1, 301)}, 2), ({-1: 1, 0: 1, 1: 1}, 15),
                   ({f: f for f in range(1, 13)}, 5)]:
        with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
            out = evaluate._multisets(die, m)
        assert budget.estimated == (evaluate.enumeration_elements(len(out), m)
                                    * limits.TUPLE_WORK)
        # the oracle: every sorted tuple of m faces, its weight the product by multiplicity
        assert len(out) == math.comb(len(die) + m - 1, m)


def test_two_dice_of_many_faces_through_the_general_engine_are_answered() -> None:
    # refused up front at 136 M units (2 dice of 300 faces priced as 302 elements a
    # multiset) though it ran 0.75 s
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        got = dist("2d300kh1ra>=-3rr>5")
    # the oracle, by hand: the higher of two d300, then one more d300 (every face is at
    # least -3); 'rr>5' rerolls each die until it shows 1..5, so a die past 5 ends uniform
    high = {k: Fraction(2 * k - 1, 300**2) for k in range(1, 301)}
    fresh = {k: Fraction(1, 300) for k in range(1, 301)}

    def rerolled(die: dict[int, Fraction]) -> dict[int, Fraction]:
        past = sum(p for k, p in die.items() if k > 5)
        return {k: die[k] + past / 5 for k in range(1, 6)}

    a, b = rerolled(high), rerolled(fresh)
    want: dict[int, Fraction] = {}
    for x, px in a.items():
        for y, py in b.items():
            want[x + y] = want.get(x + y, 0) + px * py
    assert got == Distribution(want)


def test_the_cap_mass_of_many_exploding_dice_needs_no_gcd_of_its_powers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 73651d2e2cs<=-5 answered after 4-6 s: 1 - (1 - q)**n built as a Fraction reduced
    # two 1.5 M-bit powers by a gcd (uncharged); it is in lowest terms as built
    import fractions

    from chancekit.dice.caps import pool_cap
    from chancekit.dice.distribution import d

    wide: list[int] = []
    gcd = fractions.math.gcd

    def spy(*args: int) -> int:
        if max(abs(a).bit_length() for a in args) > 100_000:
            wide.append(len(args))
        return gcd(*args)

    monkeypatch.setattr(fractions.math, "gcd", spy)
    op = parse("2d2e2", "avrae").ops[0]  # type: ignore[attr-defined]
    cap = pool_cap(d(2), 73651, [], [op], 2)
    assert cap is not None and not wide
    mass = cap[0]
    assert gcd(mass.numerator, mass.denominator) == 1
    # the oracle on a small pool: Fraction's own arithmetic, reduced by its gcd
    small = pool_cap(d(2), 5, [], [op], 2)
    assert small is not None and small[0] == 1 - (1 - Fraction(1, 8)) ** 5


def test_abs_of_many_outcomes_is_counted_before_its_map(monkeypatch: pytest.MonkeyPatch) -> None:
    # the tree halves abs's outcomes; these 73 900 sums do not fold: mapped for 0.6 s,
    # then the '+' after them was refused by its pairs
    text = "D8%\t(-+2d20kh4kh2)+abs(-18/d178kh4-dF>=25+\nd434kh183)"
    seen = _labels(monkeypatch, text, "roll20")
    assert "mapping the outcomes" not in seen[seen.index(
        "combining two distributions with +"):]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(2, 9), st.integers(1, 40), st.sampled_from("+-"))
def test_sums_with_fractions_counted_match_the_step(a: int, q: int, b: int, op: str) -> None:
    # the count the tree learns (reduced numerator and denominator a pair) is the number of
    # outcomes the step gives: checked through the budget the count is made in
    from chancekit.dice import _compile

    x, y = dist(f"d{a}/{q}"), dist(f"d{b}")
    want = x + y if op == "+" else x - y
    counted: dict[int, int] = {}

    class Ctx:
        path = (None, None)

        def learned(self, node: Any, bound: Any) -> None:
            counted["lo"] = bound.lo

    node = parse(f"d{a}/{q} {op} d{b}", "avrae")
    saved = _compile._COUNT_PAIRS
    _compile._COUNT_PAIRS = 2
    try:
        monkeypatch = pytest.MonkeyPatch()
        monkeypatch.setattr(_compile, "_fits", lambda *args: False)
        _compile._count_results(node, x, y, Ctx())  # type: ignore[arg-type]
    finally:
        monkeypatch.undo()
        _compile._COUNT_PAIRS = saved
    if len(x) > 1 and len(y) > 1:
        assert counted["lo"] == len(want)


@pytest.mark.parametrize("text", ["D96ra>7e<1kh0", "d96ra>7kh1", "d96ra>7rr<3", "d12kh1ra>3",
                                  "4d6ra>4kh3", "5d8kh3ra<3kl2", "3d10ra10rr<3", "6d6ra6p<3",
                                  "2d20kl1ra<5kh1", "4d4ra>2ra>3kh2", "4d8ra>6e9kl2"])
def test_the_general_bound_after_a_reroll_and_add_is_below_its_charge(text: str) -> None:
    # one die is priced like a pool now, and the step after an 'ra' reads every multiset
    # of K + 1 matching faces: still a lower bound of what the engine charges
    with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
        dist(text)
    assert lower_bound(parse(text, "avrae")).work <= budget.estimated


def test_the_step_after_an_ra_of_one_big_die_is_priced_up_front() -> None:
    # D996ra>7e<1kh0: the 'kh0' after the 'ra' (and the idle explosion) was priced when
    # reached, and refused at 1 s; since issue 31's eighth pass a keep of none after the
    # 'ra' is known to leave no die (evaluate.leaves_no_die): 0, nothing counted, and
    # the tree prices the pools of the 'ra' with a keep that leaves some
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        assert dist("D996ra>7e<1kh0") == dist("0")
    assert budget.counted < 1_000  # (the steps on the one empty pool)
    _, counted = counted_before_refusal(lambda: dist("D996ra>7e<1kh1"))
    assert counted == 0
    assert lower_bound(parse("D996ra>7e<1kh1", "avrae")).work > limits.MAX_WORK


rationals = st.one_of(st.integers(-60, 60),
                      st.fractions(min_value=-60, max_value=60, max_denominator=15))


@settings(max_examples=300, deadline=None)
@given(rationals, rationals, st.sampled_from(["*", "+", "-", "/", "%", "//"]))
def test_a_pairs_reduced_result_matches_fractions(x: Any, y: Any, op: str) -> None:
    from chancekit.dice._compile import _reduced

    if op in ("/", "%", "//") and y == 0:
        return
    # the oracle: Python's own Fraction arithmetic
    want = Fraction({"*": lambda: Fraction(x) * y, "+": lambda: Fraction(x) + y,
                     "-": lambda: Fraction(x) - y, "/": lambda: Fraction(x) / y,
                     "%": lambda: Fraction(x) % y, "//": lambda: Fraction(x) // y}[op]())
    assert _reduced(op, x, y) == (want.numerator, want.denominator)


def test_fractions_modulo_integers_are_counted_before_the_step_after_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the '%' of Fractions by integers ran 0.8 s, then the sum after it was refused
    seen = _labels(monkeypatch, "4d2kl4ro>=0kl1/d296%d294+((2d6)d4)d6rr4")
    assert "combining two distributions with %" not in seen


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 4), st.sampled_from([2, 4, 6, 10]),
       st.lists(st.sampled_from(["mi3", "mi7", "ma4", "ma9", "ro<3", "ro>8", "ro5", "ro<20",
                                 "mi12", "ma0"]), min_size=1, max_size=3),
       st.sampled_from(["", "kh1", "kl2", "ph1", "pl1"]))
def test_clamped_and_rerolled_dice_bound_their_outcomes(n: int, sides: int, ops: list[str],
                                                        keep: str) -> None:
    text = f"{n}d{sides}{''.join(ops)}{keep}"
    bound = lower_bound(parse(text, "avrae"))
    got = sorted(dist(text).weights)  # the oracle: the engine's exact answer
    assert bound.lo <= len(got)
    if bound.consecutive:
        assert got[-1] - got[0] + 1 == len(got)


def test_a_clamped_keep_of_big_dice_is_counted_by_the_tree() -> None:
    # its keep, priced as one outcome, ran 1 s before the '*' was refused by its pairs
    _, counted = counted_before_refusal(lambda: dist("-9D3*36d274079ro>=7mi100kl1+ d8kl81"))
    assert counted < 2_000_000  # the dice built, not the keep (18.6 M units)
    assert lower_bound(parse("36d274079ro>=7mi100kl1", "avrae")).lo == 273_980


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(
    st.integers(-10**30, 10**30),
    st.fractions(max_denominator=10**6),
    # neighbours no float tells apart, and values past a float's range
    st.integers(1, 10**6).map(lambda k: Fraction(10**20 * k + 1, 10**20)),
    st.integers(1, 10**6).map(lambda k: Fraction(10**400 + k, 3))), min_size=65,
    max_size=200, unique=True))
def test_outcomes_sorted_by_their_floats_are_sorted_exactly(keys: list[Any]) -> None:
    from chancekit.dice.distribution import _sort_key_order

    types = set(map(type, keys))
    assert _sort_key_order(keys, types) == sorted(keys)  # the oracle: Python's own sort


def test_a_division_of_two_dice_compares_its_quotients_a_linear_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # d300 / d290 spent half its 3.5 s in Fraction comparisons (n log n of them)
    compared = [0]
    lt = Fraction.__lt__

    def counting(self: Fraction, other: Any) -> bool:
        compared[0] += 1
        return lt(self, other)

    monkeypatch.setattr(Fraction, "__lt__", counting)
    got = dist("d120/d110")
    assert compared[0] <= 2 * len(got)
    want: dict[Fraction, int] = {}
    for x in range(1, 121):
        for y in range(1, 111):
            want[Fraction(x, y)] = want.get(Fraction(x, y), 0) + 1
    assert got == Distribution(want)


@settings(max_examples=100, deadline=None)
@given(st.integers(-5, 5), st.integers(60, 200),
       st.lists(st.tuples(st.sampled_from([None, "<", "<=", ">", ">="]), st.integers(-10, 210)),
                min_size=0, max_size=3),
       st.booleans())
def test_faces_matched_counts_as_a_scan(lo: int, n: int, sels: list[tuple[Any, int]],
                                        as_dict: bool) -> None:
    from chancekit.dice.selectors import Op, Selector, faces_matched

    op = Op("rr", tuple(Selector(c, k) for c, k in sels))
    faces: Any = range(lo, lo + n)
    if as_dict:
        faces = dict.fromkeys(faces, 1)
    assert faces_matched(op, faces) == sum(1 for f in faces if op.matches(f))  # the scan
    shuffled = dict.fromkeys([lo + n - 1, *range(lo, lo + n - 1)], 1)  # not in order
    assert faces_matched(op, shuffled) == sum(1 for f in shuffled if op.matches(f))


@pytest.mark.parametrize("text", ["d478427k>=7pl4!85", "d400000k>=7pl4!85"])
def test_one_big_die_through_the_general_engine_is_priced_without_a_call_a_face(
        text: str) -> None:
    # the tree read every face in Python (1.1 s for d478427) and, past it, the first step
    # was priced when reached (d400000: refused at 1.6 s)
    from _upfront import measure

    error, _, calls = measure(lambda: dist(text))
    assert isinstance(error, LimitError)
    assert calls < 100_000  # a call a face would be 400 000 and more


@pytest.mark.parametrize(("text", "want"), [
    ("2d{999999999999999999}ra>=1", 3 * 999999999999999999),
    ("-389853*2d{999999999999999999}ra>=1", -389853 * 3 * 999999999999999999),
])
def test_reroll_and_add_of_far_apart_outcomes_is_not_a_polynomial(text: str, want: int) -> None:
    # its polynomial was shifted by 10**18 coefficients: python-flint could not allocate
    # them and aborted the whole process (found by a fuzz worker that died)
    assert dict(dist(text).weights) == {want: 1}


def test_reroll_and_add_stays_one_polynomial_where_it_is_dense() -> None:
    from chancekit.dice.evaluate import _ra_dense

    assert _ra_dense(dist("d6"), {k: 1 for k in range(3, 19)})
    assert not _ra_dense(dist("d{999999999999999999}"), {2 * 999999999999999999: 1})


MERSENNE = 2**61 - 1  # Python hashes an integer by its residue modulo this prime


@pytest.mark.parametrize("text", [
    "d20000*2305843009213693951",  # every outcome hashes to 0: 4 s, d1000000 hours
    "6d589kl11+(9d8rr5ro6+d4)d20ma5*4611686018427387904",  # 1.3 M sums, 4 300 hash values
    "d3000*4611686018427387904 + d300",  # 900 000 sums, 6 300 hash values: 16 s
])
def test_outcomes_that_hash_alike_are_refused_before_their_dictionary(text: str) -> None:
    # found by a fuzz case past the 60 s alarm; the dictionary's probes were uncharged
    with pytest.raises(LimitError, match="hash sends to the same place") as e:
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist(text)
    assert e.value.limit == "MAX_WORK"
    assert budget.counted < limits.MAX_WORK  # refused before, not after, the dictionary


def test_outcomes_that_hash_alike_are_still_answered_when_few() -> None:
    got = dist("d3000*2305843009213693951")
    assert dict(got.weights) == {k * MERSENNE: 1 for k in range(1, 3001)}  # the oracle


def test_ordinary_results_are_not_crowded() -> None:
    from chancekit.dice.distribution import _crowd_units, _crowded_work

    assert _crowded_work(list(range(-50_000, 50_000))) == 0
    assert _crowded_work([k % 7 for k in range(100_000)]) == 0  # merges, not collisions
    crowded = [k * MERSENNE for k in range(5000)]
    assert _crowded_work(crowded) == _crowd_units(5000, 1)


@pytest.mark.parametrize("text", ["256d6ro8pl5", "100d6mi0pl5", "20d6ro8kh3", "10d6ma9kl2",
                                  "6d6mi1ma6kh3", "40d6rr7pl5"])
def test_an_idle_clamp_or_reroll_leaves_the_keeps_price(text: str) -> None:
    # priced as no work at all before; now as the pool without the idle operator, still
    # a lower bound of what the engine charges (which skips nothing: per_die keeps the die)
    with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
        got = dist(text)
    bound = lower_bound(parse(text, "avrae"))
    assert 0 < bound.work <= budget.estimated
    assert bound.lo <= len(got)


@pytest.mark.parametrize("text", ["d853%d761+\n((8d4)d8)d6ro8pl5", "d771%d601+ (24d6+d4)d6mi0pl5"])
def test_a_rolled_count_of_keeps_behind_an_idle_operator_is_priced_up_front(text: str) -> None:
    # each count's keep was priced as reached (up to 200 of them), refused at 1.3-1.9 s
    _, counted = counted_before_refusal(lambda: dist(text))
    assert counted < 5_000_000


@settings(max_examples=150, deadline=None)
@given(st.integers(-20, 20), st.integers(64, 150),
       st.lists(st.tuples(st.sampled_from([None, "<", "<=", ">", ">="]), st.integers(-30, 180)),
                max_size=2),
       st.lists(st.tuples(st.sampled_from([None, "<", "<=", ">", ">="]), st.integers(-30, 180)),
                max_size=2),
       st.randoms(use_true_random=False))
def test_a_counts_scores_by_intervals_match_the_score_of_each_face(
        lo: int, n: int, sels: list[tuple[Any, int]], fails: list[tuple[Any, int]],
        rnd: Any) -> None:
    from chancekit.dice.evaluate import _scores
    from chancekit.dice.selectors import Op, Selector

    x = Distribution({v: rnd.randint(1, 9) for v in range(lo, lo + n)})
    op = Op("cnt", tuple(Selector(c, k) for c, k in sels),
            fails=tuple(Selector(c, k) for c, k in fails))
    want: dict[int, int] = {}
    for v, c in x.weights.items():  # the oracle: Op.score face by face
        want[op.score(v)] = want.get(op.score(v), 0) + c
    assert _scores(x, op) == Distribution(want)


def test_a_count_on_rolled_sides_needs_no_call_a_face() -> None:
    # d(79d20 + 8*27d6ro7)cf<2 scored its 2 580 dice face by face: 8 M calls, 5.8 s
    from _upfront import measure

    with limits.evaluation(limit=10**10, name="MAX_WORK"):
        error, _, calls = measure(lambda: dist("d(79d20+8*27d6ro7)cf<2"))
    assert error is None
    assert calls < 3_000_000  # (1.2 M: the 2 580 dice built and priced; 33 M before)
    # the oracle: every side count of 2d6 + 60 (62..72 sides, past the 64 of the
    # interval path), every face scored by the count's own rule
    op = parse("d6cf<2", "avrae").ops[0]  # type: ignore[attr-defined]
    want: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            sides = a + b + 60
            for face in range(1, sides + 1):
                score = op.score(face)
                want[score] = want.get(score, 0) + Fraction(1, 36 * sides)
    assert dist("d(2d6+60)cf<2") == Distribution(want)
