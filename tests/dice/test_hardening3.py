"""Regression tests for issue #23 (hardening, part three), each failing before its fix:
custom dice with faces near 10**17 that explode (a ``MemoryError`` under an address-space
cap), refusals made late, presentation that cost more than the answer and values that
could not be printed. Checked by counted work, refusals and memory caps, never seconds."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from _upfront import MAX_CALLS, PEAK_BYTES, measure
from chancekit.dice import dist
from chancekit.errors import LimitError

# issue #23 item 1: each built a dense polynomial of 10**17 coefficients (MemoryError)
HUGE_FACES = [
    "3d{3,99999999999999999,-2,8}e",
    "((2d{999999999999999999,767167}!))",
    "6d8rr5 +--5d{+2,+2,999999999999999999,999999999999999999}e",
]


@pytest.mark.parametrize("text", HUGE_FACES)
def test_exploding_huge_faces_is_refused_up_front_naming_the_face(text: str) -> None:
    dist("1d6")
    error, peak, calls = measure(lambda: dist(text))
    assert isinstance(error, LimitError), error
    assert error.limit == "MAX_OUTCOMES" and "MAX_OUTCOMES" in str(error)
    assert "99999999999999999" in str(error)  # the face that makes the span
    assert calls < MAX_CALLS and peak < PEAK_BYTES


def test_a_dense_polynomial_of_far_apart_outcomes_is_refused() -> None:
    from chancekit.dice import faces
    with pytest.raises(LimitError) as info:
        faces([1, 10**17])._poly()
    assert info.value.limit == "MAX_OUTCOMES" and "100000000000000000" in str(info.value)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_huge_faces_under_an_address_space_cap() -> None:
    """In a child process capped at 1 GiB of address space: a MemoryError fails it."""
    prog = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from chancekit.dice import dist
        from chancekit.errors import LimitError
        for text in {HUGE_FACES!r}:
            try:
                dist(text)
                print("ok", text)
            except LimitError as e:
                print("refused", e.limit)
    """)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                         timeout=600, env={"OPENBLAS_NUM_THREADS": "1", "PATH": ""})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["refused MAX_OUTCOMES"] * len(HUGE_FACES)


# issue #23 item 4: str(mean) raised ValueError (Python's 4300-digit limit)
def test_huge_exact_values_print() -> None:
    from fractions import Fraction

    d = dist("D{+2, 3 ,-19930, 3 }/41d290")
    m = d.mean()
    assert m.numerator.bit_length() > 15_000  # past the 4300-digit str() limit
    for value in (m, d.variance(), d.probability(d.outcomes()[0]), d.at_least(0),
                  d.at_most(0)):
        text = str(value)
        assert isinstance(value, Fraction) and len(text) < 200 and len(repr(value)) < 250
    assert str(m).startswith("~-0.84179341038633") or str(m).startswith("~-8.41793410386334")
    assert "5235-digit numerator" in str(m)
    assert float(m) == float(Fraction(m.numerator, m.denominator))  # the same exact value
    assert m == Fraction(m.numerator, m.denominator)


def test_small_exact_values_print_as_fractions() -> None:
    m = dist("3d6").mean()
    assert (str(m), repr(m)) == ("21/2", "Fraction(21, 2)")
    assert str(dist("d6-4").mean()) == "-1/2"


@pytest.mark.parametrize(("n", "m"), [(10**5000 + 1, 3 * 10**4999), (-(10**4400), 1),
                                      (1, 7 * 10**4500), (2**20000 - 1, 2**19999)],
                         ids=["third", "negative", "tiny", "binary"])
def test_the_bounded_form_has_sixteen_correct_digits(n: int, m: int) -> None:
    from decimal import Decimal, localcontext

    from chancekit.dice.distribution import ExactFraction

    text = str(ExactFraction(n, m))
    shown = Decimal(text[1:].split(" ")[0])
    with localcontext() as ctx:  # an independent reference: Decimal division
        ctx.prec = 40
        ctx.Emax, ctx.Emin = 10**6, -(10**6)
        exact = Decimal(n) / Decimal(m)
    assert abs(shown - exact) <= abs(exact) * Decimal("1e-15")


# issue #23 item 2: the exact moments of huge weights over a huge common denominator took
# 51 s (the CLI's summary line) where dist() took 0.4 s
SLOW_SUMMARY = "5/1D914!<-4e>1ro1"


def test_costly_moments_are_estimated_and_rounded() -> None:
    from chancekit.cli._dice import _figures_line, summary_figures
    from chancekit.dice.stats import shape, shape_work
    from chancekit.limits import SHAPE_WORK

    d = dist(SLOW_SUMMARY)
    assert shape_work(d) > 100 * SHAPE_WORK
    s = shape(d)
    assert s["exact"] is False and s["kurtosis"] is None
    # the exact path's values (computed once, in 51 s): the same correctly rounded floats
    assert (s["skewness"], s["kurtosis_float"]) == (518.5294118207705, 332193.5901094426)
    assert s["variance"] == 4.935917525044961e-05
    assert s["mean"] == d.mean()  # the mean stays exact
    f = summary_figures(d)
    assert f["exact"] is False and "rounded floats" in _figures_line(f)


def test_cheap_moments_stay_exact() -> None:
    from chancekit.dice.stats import shape, shape_work
    from chancekit.limits import SHAPE_WORK

    for text in ("3d6", "10000d6", "4d6kh3/7", "1000d6/7"):
        d = dist(text)
        assert shape_work(d) <= SHAPE_WORK, text
        assert shape(d)["exact"] is True


def _exact_and_rounded(d):  # type: ignore[no-untyped-def]
    from chancekit.dice import stats

    exact = stats.shape(d)
    assert exact["exact"]
    rounded = stats._rounded_shape(d)
    return exact, rounded


@pytest.mark.parametrize("text", ["3d6", "d6!/3", "4d6kh3/7", "d20-d4*3", "1d{1,10000000000}",
                                  "d6/7+d5/11", "3d6-11", "2d6!<2/5"])
def test_rounded_moments_are_the_exact_ones_rounded(text: str) -> None:
    exact, rounded = _exact_and_rounded(dist(text))
    assert rounded["mean"] == exact["mean"]
    assert rounded["variance"] == float(exact["variance"])
    assert rounded["skewness"] == exact["skewness"]
    assert rounded["kurtosis_float"] == exact["kurtosis_float"]


def test_rounded_moments_of_random_laws() -> None:
    from fractions import Fraction

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from chancekit.dice import Distribution

    outcome = st.one_of(st.integers(-10**6, 10**6),
                        st.fractions(min_value=-1000, max_value=1000, max_denominator=97))
    weights = st.dictionaries(outcome, st.integers(1, 2**200), min_size=2, max_size=12)

    @settings(max_examples=150, deadline=None)
    @given(weights)
    def check(w: dict[Fraction | int, int]) -> None:
        d = Distribution(w)
        if len(d) < 2:
            return
        exact, rounded = _exact_and_rounded(d)
        assert rounded["variance"] == float(exact["variance"])
        assert rounded["skewness"] == exact["skewness"]
        assert rounded["kurtosis_float"] == exact["kurtosis_float"]

    check()


# issue #23 item 3: refused after 3.8 s of maps over a million outcomes; now priced from
# the tree (dice/_estimate.py) before any step
LATE = ["-+d999999\t/4\n-5\r\n%37", "-d999999/4-5", "d999999/3*7-1"]


@pytest.mark.parametrize("text", LATE)
def test_late_refusals_come_before_the_work(text: str) -> None:
    dist("1d6")
    error, peak, calls = measure(lambda: dist(text))
    assert isinstance(error, LimitError) and error.limit == "MAX_WORK", error
    assert "priced before any step" in str(error)
    assert calls < MAX_CALLS and peak < PEAK_BYTES


def test_the_tree_bound_is_a_lower_bound_of_the_charges() -> None:
    """Never refuses what the steps would answer: on expressions that fit, the bound is
    at most what the evaluation charged."""
    from chancekit import limits
    from chancekit.dice._estimate import lower_bound
    from chancekit.dice._parse import parse

    for text in ("3d6+4", "-d1000/4-5", "d6/2+d6", "10000d6", "9000d6+3", "d100*d100",
                 "(d20+5)>=15", "2d6-d4*3", "100d6/7+1", "-(3d6)", "d{1,1,2}+d{3,5}"):
        bound = lower_bound(parse(text, "avrae")).work
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist(text)
        assert bound <= budget.estimated, (text, bound, budget.estimated)


def test_adding_a_constant_is_one_map() -> None:
    # issue #24 item 5: 9000d6+3 was refused (a polynomial product estimated as 200 M
    # units) while 10000d6 was answered; adding a constant is one pass over the outcomes
    from chancekit import limits

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as plain:
        base = dist("9000d6")
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as shifted:
        got = dist("9000d6+3")
    assert got.weights[27003] == base.weights[27000]
    extra = shifted.estimated - plain.estimated
    assert extra <= 30 * len(base)  # one map: MAP_WORK a outcome, not a product
    assert plain.counted <= 4 * plain.estimated and plain.estimated <= 4 * plain.counted


# found by tools/fuzz.py --notation (HostileNotation) and issue #22: work before a refusal
# (or a hang: d335e>8k93e>4 ran past 60 s), now refused by the step's estimate up front
FOUND_LATE = [
    "d335e>8k93e>4",          # nested explosion chains: ran past 60 s
    "d35e>8k33e>4",           # the same class: 2.7 s answered, charged as 0.13 s
    "2d846rr<2!<=5mi-2e5",    # issue #23: 2.2 s of chains, then refused
    "3d%kh4!p8!>6",           # issue #22: refused after 3.8 s
    "7d%/10d%ph3+ 4",         # '/' builds a Fraction a pair: 4 s, then refused
    "-6d%/10d%pl2*28-1",
]


@pytest.mark.parametrize("text", FOUND_LATE)
def test_found_late_refusals_are_up_front(text: str) -> None:
    dist("1d6")
    error, peak, calls = measure(lambda: dist(text))
    assert isinstance(error, LimitError) and error.limit == "MAX_WORK", error
    assert calls < MAX_CALLS and peak < PEAK_BYTES


# issue #22 item 3: 300d6kh150 was refused (estimate 5.7x the work); the face walk's
# estimate now follows its structure (pool.keep_work), and a keep after per-die rerolls is
# priced before the rerolls run
def test_keep_half_of_300_dice_is_answered() -> None:
    from chancekit import limits
    from chancekit.dice import d
    from chancekit.dice.facewalk import keep_work

    assert keep_work(d(6), 300, 150) <= limits.MAX_WORK
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        high = dist("300d6kh150")
    assert budget.estimated <= limits.MAX_WORK
    low = dist("300d6kl150")
    # a die's faces x -> 7 - x: the 150 highest of 300 mirror the 150 lowest
    assert {1050 - x: w for x, w in low.weights.items()} == dict(high.weights)
    assert high.mean() > 150 * 3.5


@pytest.mark.parametrize(("die", "n", "k", "refused"), [
    (6, 300, 150, False), (6, 100, 90, False), (1000, 8, 4, False), (6, 20, 10, False),
    (1000, 20, 10, True), (3000, 3, 2, False), (6111, 4, 3, True), (611, 34, 33, True),
    (6, 2000, 1000, True)])
def test_keep_work_decisions(die: int, n: int, k: int, refused: bool) -> None:
    from chancekit import limits
    from chancekit.dice import d
    from chancekit.dice.facewalk import keep_work

    assert (keep_work(d(die), n, k) > limits.MAX_WORK) == refused


def test_a_keep_after_rerolls_is_priced_before_them() -> None:
    from chancekit import limits

    # the die is built (charged, 5 M units); the reroll's mixture of its million faces
    # would count 5 M more before the keep refused: nothing is counted now
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as info:
            dist("58d1000000ro>3kl4")
    # (the tree prices a keep after a reroll once since issue 31's seventh pass: refused
    # before any step, or by the keep's own look-ahead)
    assert info.value.limit == "MAX_WORK" and ("keeping 4 of 58 dice" in str(info.value)
                                               or "priced before any step" in str(info.value))
    assert budget.counted == 0
    # with a map after it, the tree alone refuses it (the keep has 4 M outcomes at least)
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as info:
            dist("(-58d1000000ro>3kl4/2)")
    assert info.value.limit == "MAX_WORK" and "priced before any step" in str(info.value)
    assert budget.counted == 0


def test_compounding_many_dice_then_keep_takes_the_cheaper_way() -> None:
    """issue #22: 20d10!!kh10 (roll20) was refused: the closed form's estimate is 87 M
    units; compounding each die and walking the faces of the keep is cheaper and taken.
    (Issue 31: the walk's price now counts its coefficients, 67 M for 1.6 s measured, so
    the default budget refuses both ways up front; lifted, the walk runs.) Both ways give
    the same law."""
    from _upfront import counted_before_refusal
    from chancekit import limits
    from chancekit.dice import d, evaluate
    from chancekit.dice.pool import Pool
    from chancekit.dice.selectors import equal, highest

    error, counted = counted_before_refusal(lambda: dist("20d10!!kh10", dialect="roll20"))
    assert error.limit == "MAX_WORK" and counted < 1_000_000
    with limits.evaluation(limit=100_000_000, name="MAX_WORK") as budget:
        got = dist("20d10!!kh10", dialect="roll20")
    # the walk's price, not the closed form's (82 M)
    assert budget.estimated < 75_000_000 and len(got) > 100
    walk = dist("20d6!!kh10", dialect="roll20")
    saved = evaluate._WALK_FACTOR
    evaluate._WALK_FACTOR = 10**9
    try:
        closed = Pool(d(6), 20).compound(equal(6)).keep(highest(10)).sum()
    finally:
        evaluate._WALK_FACTOR = saved
    assert walk == closed


def test_a_reroll_in_the_general_engine_is_priced_before_the_enumeration() -> None:
    """6d20ro>6dl4kh4 enumerated its 177 100 multisets (49 M units counted) before the
    reroll step was refused; the step is now counted from binomials first."""
    from chancekit import limits
    from chancekit.dice.evaluate import _reroll_ahead
    from chancekit.dice.selectors import Op, Selector

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("6d20ro>6dl4kh4")
    assert budget.counted == 0
    # the count is exact on a small pool: 3d4ro1 -> 20 multisets x (3 + MULTISET_ELEMENTS),
    # then for each number m of 1s, (pools with m ones) x (redraws of m dice) x (3 + 1)
    from chancekit.dice.evaluate import MULTISET_ELEMENTS

    op = Op("ro", (Selector(None, 1, 0),), 0, "ro1")
    pools = {0: 10, 1: 6, 2: 3, 3: 1}  # multisets of 3 dice from 1..4 by number of 1s
    redraws = {0: 1, 1: 4, 2: 10, 3: 20}
    want = 20 * (3 + MULTISET_ELEMENTS) + sum(pools[m] * redraws[m] * 4 for m in range(4))
    assert _reroll_ahead({1: 1, 2: 1, 3: 1, 4: 1}, 3, op) == want * limits.TUPLE_WORK


def test_an_injective_map_keeps_the_weights_without_a_gcd_pass(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """2490d20>6!p<=1*91 (roll20, found by tools/fuzz.py --notation) ran past 60 s: the map
    of '* 91' reduced 2491 weights of 224 000 bits by gcds though no outcome merged."""
    from chancekit.dice import d, distribution

    x = 40 @ d(6)
    calls = []
    real = distribution._reduce
    monkeypatch.setattr(distribution, "_reduce", lambda w: calls.append(1) or real(w))
    y = x * 91
    assert calls == [] and y.weights[91 * 140] == x.weights[140] and y.total == x.total
    z = x.map(lambda v: v % 2)  # merges: reduced
    assert calls == [1] and z.probability(0) == x.map(lambda v: v % 2).probability(0)


def test_the_reroll_look_ahead_of_a_huge_pool_is_cheap() -> None:
    # found by tools/fuzz.py --notation: the look-ahead summed binomials of 77 167 dice
    # of 297 424 faces (past 60 s); such a pool is refused by MAX_POOL_STATES at once
    error, _, calls = measure(lambda: dist("77167d2974rr<6k>3kh3!"))
    assert isinstance(error, LimitError) and error.limit == "MAX_POOL_STATES"
    assert calls < MAX_CALLS


# tools/fuzz.py --notation, issue #22 (re-measured 2026-11-25): refused only after 1-3 s of
# CPU, with 30-50 M units counted; now refused before the costly step, with at most a
# fifth of MAX_WORK counted (the pool's own enumeration, for 80d3pl1e<3)
FOUND_LATE_2 = [
    ("d8*(-10d970946kh1)", "roll20", "MAX_PAIRS"),          # kept 10 million-faced dice
    ("45d313677kh1%56D{4,+433387,977652}kh3", "roll20", "MAX_PAIRS"),
    ("-36d973704p<=7", "avrae", "MAX_WEIGHT_BITS"),       # dropped by value on 1 M faces
    # (MAX_WEIGHT_BITS until issue 31's eighth pass: the tree now knows the rerolled
    # big dice's outcomes, and the work of what they feed refuses it first)
    ("(-5d558783rr2ro>6rr<4)+1>=39d3ph3ph161", "avrae", "MAX_WORK"),
    ("80d652403ro4mi-2", "avrae", "MAX_WEIGHT_BITS"),
    ("(67D6)d20//-15<(339d{1,7,6}kl4kh40kl4-6+2)", "roll20", "MAX_WORK"),  # rolled count
    ("--3d3*(-+(2d10*d20)d%)==9d6ro<=2", "roll20", "MAX_WORK"),
    ("80d3pl1e<3", "avrae", "MAX_WORK"),                    # 61 sizes of exploding dice
    ("-5D889485kl1", "avrae", "MAX_WORK"),                  # the keep priced in the tree
    ("9d730e>4/1", "avrae", "MAX_WORK"),                    # the map after the power
    ("6d63525+ 5d136511", "avrae", "MAX_OUTCOMES"),         # |A + B| >= |A| + |B| - 1
    ("7d114707+659699+7d8ph4p>8", "avrae", "MAX_WORK"),     # the sum's weights counted
    ("-+round(-+d590570)-3d10", "roll20", "MAX_WORK"),      # a function's map counted
    # the count's own sum is past the budget (7d138793: 58 M units, 1.8 s; issue 31's
    # power_work), before its largest sum is past MAX_DICE
    ("(7D138793)d475", "avrae", "MAX_WORK"),
]


@pytest.mark.parametrize(("text", "dialect", "limit"), FOUND_LATE_2)
def test_more_late_refusals_are_up_front(text: str, dialect: str, limit: str) -> None:
    from chancekit import limits

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as info:
            dist(text, dialect=dialect)
    assert info.value.limit == limit, info.value
    # (a third since issue 31's mul_work: the same products counted at 1.5-2 x the units)
    assert budget.counted <= limits.MAX_WORK // 3, (text, budget.counted)


def test_the_tree_bound_of_kept_dice_is_a_lower_bound() -> None:
    """The outcomes the tree counts for a keep (every sum of the kept dice's faces) are
    never more than the evaluation's: its bound stays under what the steps charge."""
    from chancekit import limits
    from chancekit.dice._estimate import lower_bound
    from chancekit.dice._parse import parse

    for text in ("-(4d6kh3)", "4d6kh3*2", "-(10d20ro<3kl2)", "5d{1,1,4,9}ph2*3",
                 "d100*(3d100kh1)", "(8d10kh3)/(2d10kl1)", "-(6d6k0)", "-(300d6kh150)",
                 "-(20d1000kh1)", "-(50d100000kl1)", "-(40d30dh39)", "-(200d20ph1)",
                 "-(d100*d20)", "-(3d10*(d6-1))", "-(d1000/(d4*2))", "((d6-1)*d100)%d7",
                 "7d1000+3d6kh2", "-(5d700)-2d6p<2", "(30d20+4)-(3d{1,1,2}kh2)",
                 "d3000-4d6", "(d5000+3)-d7", "-(round(d20))", "abs(d10-5)*2",
                 "floor(d100)+3d6", "-(ceil(3d6/2))", "round(-d1000)-2d6"):
        dialect = "roll20" if any(f in text for f in ("round", "abs", "floor", "ceil")) \
            else "avrae"
        tree = parse(text, dialect)
        bound = lower_bound(tree)
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            got = dist(text, dialect=dialect)
        assert bound.work <= budget.estimated, (text, bound.work, budget.estimated)
        assert bound.lo <= len(got), (text, bound.lo, len(got))


# issue #31 item 5: pools the tree could not price (explosions, rerolls, ``ra``, ``cs``)
# beside an expensive side were refused only after the other side ran (docs/fuzzing.md,
# re-measured 2026-11-25: 1.6-2.4 s of CPU, 40-45 M units counted); the tree now builds
# the pool's one die (as the evaluation does, which then reuses it) and prices its power
FOUND_LATE_3 = [
    ("79d20!+d962cs>2", "roll20", "MAX_WORK"),     # an explosion beside a count
    ("1d284rr8+9d697!", "avrae", "MAX_WORK"),      # a reroll beside an explosion
]


@pytest.mark.parametrize(("text", "dialect", "limit"), FOUND_LATE_3)
def test_pools_beside_an_expensive_side_are_refused_before_either_runs(
        text: str, dialect: str, limit: str) -> None:
    from chancekit import limits

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as info:
            dist(text, dialect=dialect)
    assert info.value.limit == limit, info.value
    assert "priced before any step" in str(info.value)
    # (a third since issue 31's mul_work: the same products counted at 1.5-2 x the units)
    assert budget.counted <= limits.MAX_WORK // 3, (text, budget.counted)


def test_the_tree_bound_of_exploding_and_rerolled_pools_is_a_lower_bound() -> None:
    """The power the tree prices for a pool of per-die operators (or then ``ra``) is the
    one the evaluation charges: never more, and the outcomes it counts are there."""
    from chancekit import limits
    from chancekit.dice._estimate import lower_bound
    from chancekit.dice._parse import parse

    for text, dialect in (("7d87!", "avrae"), ("5d10!>=7", "avrae"), ("20d6rr1", "avrae"),
                          ("30d10ra>=9", "avrae"), ("12d8ro<3ra8", "avrae"),
                          ("6d12e>10mi3", "avrae"), ("9d20!cs>15", "roll20"),
                          ("40d6cs>=5", "roll20"), ("4d{1,1,3,7}e7", "avrae"),
                          ("3d6!p", "roll20"), ("-(8d10!)", "avrae"), ("2d20ra20*3", "avrae")):
        bound = lower_bound(parse(text, dialect))
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            got = dist(text, dialect=dialect)
        assert 0 < bound.work <= budget.estimated or "cs" in text, (text, bound.work)
        assert bound.work <= budget.estimated, (text, bound.work, budget.estimated)
        assert bound.lo <= len(got), (text, bound.lo, len(got))
