"""Issue #31 item 5, fourth pass: notation refusals made after 1-3 s of CPU in the fresh
samples of docs/fuzzing.md ("fourth pass"), now made before the work; counted units and
estimates, never seconds. The classes: a product's divisors known to the tree (the gcd of
``x y`` is ``gcd(A) gcd(B)``: ``/ N`` of it surely gives Fractions); a side surely spread
out (a sum with it is pairs, refused past ``MAX_PAIRS`` from the tree); the outcomes of a
reroll-and-add and of ``c / x``; the pools of a rolled count built with the most dice
first; the keep's sampled price spread over the whole die.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest

from _upfront import counted_before_refusal
from chancekit import limits
from chancekit.dice import d, dist
from chancekit.dice._estimate import lower_bound
from chancekit.dice._parse import parse
from chancekit.dice.distribution import Distribution
from chancekit.dice.facewalk import keep_work
from chancekit.errors import LimitError

#: (text, dialect, units counted before the fix): the late refusals of the fourth pass's
#: samples (HostileNotation seeds 3107 and 3201, BesideNotation seed 3204), each refused
#: after 1.2-2.6 s of CPU before
FOUND_LATE_5 = [
    ("3D(47/d436839ra>5)mi-2+(1d10)", "avrae", 22_700_000),       # c / x of 873 k x
    ("+((4d3*4*92d2+1d2k3-63d934kh4-37+\r\nd12!<2ro>=5))", "roll20", 19_000_000),
    ("61d10ro<3-  (25d20+d8)d6!>4kh3", "avrae", 43_600_000),      # rolled count
    # (20501d2*(3d20+d8)d6e8kl1 was refused here by its right side's pool states, the
    # explosion that matches no face of a d6 kept: that side answers since issue 31's
    # eighth pass, and the product is refused after its left side,
    # test_notation_hardening10.py)
    ("((5d4)d4e8)d4!>=4ph5%(7d20+d8)d6kh1/ 2356d10", "avrae", 37_500_000),
    # HostileNotation seed 3203: the million faces of the exploding die matched and
    # copied (1.8 s; nothing counted), then its keep was refused
    ("1d{-3}-d10+78d4r1+ 5d968737dh1!", "roll20", 1),
    # BesideNotation seed 3206: a general pool's 'ra' after a drop by value (2.0 s)
    ("31d745kh2+ 11d10pl0p<4ra<-2p7", "avrae", 60_300_000),
    # BesideNotation seed 3208: a rolled count of reroll-and-add pools, their sums with
    # the die added (answered in 2.0 s before the fourth pass, refused after 1.8 s once
    # 'ra' charged its passes, now from the tree)
    ("((17d8ph0+d4)d20ra>3+d851%d468)/7", "avrae", 44_200_000),
    # BesideNotation seed 3211: a set whose keep takes every item (kl4kh0 of three), and
    # a reroll after an idle drop by value (p>=68 on a d12), 0.8-1.5 s each
    ("(20d4, 13d12, 2d12)kl4kh0//  d685187+7", "avrae", 14_800_000),
    # ((17d6kl0+d8)d20cf=6+5d115kl4+8d12p>=68kl5ro>=1ro>22 answers since issue 31's
    # seventh pass: its last reroll is sums and powers, test_notation_hardening9.py)
    # and a plain sum repeat_sum refuses for its weights, reached after the rest (1 s)
    ("(2518d100* 6d6ro>7ph5kl5ro3+((5d4)d4)d10pl4)/7", "avrae", 20_700_000),
]


@pytest.mark.parametrize(("text", "dialect", "before"), FOUND_LATE_5)
def test_refused_before_the_work(text: str, dialect: str, before: int) -> None:
    error, counted = counted_before_refusal(lambda: dist(text, dialect=dialect))
    assert error.limit in ("MAX_WORK", "MAX_PAIRS", "MAX_OUTCOMES", "MAX_POOL_STATES",
                           "MAX_WEIGHT_BITS")
    assert counted <= 1_000_000, (text, counted)
    assert counted < before // 10 or counted == 0, (text, counted)


def test_a_product_divided_is_priced_as_fractions_before_the_map(monkeypatch) -> None:
    """52d2kl4 + (d%kh1 * 8d884kl3) / 337990 (HostileNotation seed 3107): the product's
    105 000 results were mapped to Fractions (1.2 s), then the sum with 5 outcomes was
    priced at the Fraction rate and refused. Its distinct results are now counted
    before the product, and the tree knows the quotients are Fractions (the products'
    gcd is 1): refused before the product and the map."""
    mapped: list[int] = []
    real = Distribution.map

    def spy(self: Distribution, f):  # type: ignore[no-untyped-def]
        mapped.append(len(self))
        return real(self, f)

    monkeypatch.setattr(Distribution, "map", spy)
    error, counted = counted_before_refusal(
        lambda: dist("52d2kl4+(d%kh1* 8d884kl3)/\r\n337990"))
    assert error.limit == "MAX_WORK"
    assert max(mapped, default=0) < 10_000  # the quotients were never built
    # the keep (8d884kl3: 20 M since issue 31's fifth pass) and the count of products
    keep = keep_work(d(884), 8, 3, highest=False)
    assert counted < keep + 6_000_000


def test_a_rolled_count_of_keeps_is_refused_before_its_dear_pools() -> None:
    """((5d4)d8kl5)d6rr4ph3 * 3408d3 - ... (HostileNotation seed 3107): its pools were
    priced 40 M units before the refusal (5.5 s); now 2.5 M (the repricing of 2071dea
    and the tree priced again with the count known)."""
    with pytest.raises(LimitError):
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist("((5d4)d8kl5)d6rr4ph3*3408d3-9d{+9,-1,10,5}ro0")
    assert budget.estimated < 8_000_000


@pytest.mark.parametrize("text", [
    "23d679kl7-(-(3d130546-10d8ro>87ph35ph3+11d10kl125pl0ro<1e>5))",
    "(7d6+d6)d8e<5+ 8732dF*4dFpl3e4",
])
def test_the_third_pass_cases_are_refused_up_front(text: str) -> None:
    """The other two late cases the third pass left (2.7 s and 1.3 s): refused before any
    pool is built."""
    _, counted = counted_before_refusal(lambda: dist(text))
    assert counted < 200_000, (text, counted)


# ------------------------------------------------------------ what the tree knows
def _gcd(x: Distribution) -> int:
    return math.gcd(*(int(v) for v in x.outcomes()))


GCD_CASES = ["d6*d8", "2*d6", "3d6*4", "d%kh1*8d8kl3", "-(d6*d4)", "6*(2d6*3)",
             "d6+d4", "(2*d6)*(3*d4)", "d6*d6*5", "12", "-8", "4d6ra6*2"]


@pytest.mark.parametrize("text", GCD_CASES)
def test_the_gcd_the_tree_knows_is_a_multiple_of_the_true_one(text: str) -> None:
    """Bound.gcd is 0 (unknown) or a multiple of the gcd of every outcome (brute force:
    the exact distribution's outcomes), so 'c does not divide it' proves a Fraction."""
    g = lower_bound(parse(text, "avrae")).gcd
    assert g == 0 or g % _gcd(dist(text)) == 0, (text, g)


@pytest.mark.parametrize(("text", "frac"), [
    ("(d6*d8)/5", True), ("(d6*d8)/1", False), ("(2*d6*d4)/2", False),
    ("(d%kh1*8d884kl3)/337990", True), ("47/d100", True), ("12/d3", False),
    ("(6*d6)/3", False), ("(6*d6)/4", True),
])
def test_fractions_are_proven_not_guessed(text: str, frac: bool) -> None:
    """The tree says 'surely Fractions' only when the exact distribution has one (and
    does say it for these)."""
    got = lower_bound(parse(text, "avrae")).frac
    assert got == frac, text
    if got:  # (the oracle run lifted: the 105 000 Fractions cost about the whole budget)
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            outcomes = dist(text).outcomes()
        assert any(isinstance(v, Fraction) for v in outcomes)


@pytest.mark.parametrize("text", ["d6ra6", "3d6ra>4", "2d20ra<3", "d{1,5,9}ra5",
                                  "4d4ra1", "2d6ro1ra6", "d10ra>10", "3d3ra<=3",
                                  "140d20ra>3", "5d10rr<3ra>8", "7d6ro<3ra6", "6d8mi3ra8",
                                  "20d300ra>10", "4d6rr1ra6"])
def test_the_reroll_and_add_bound_is_a_lower_bound(text: str) -> None:
    """At least as many outcomes as the tree says, and the tree's work at most what the
    evaluation charges: brute force over every roll (one extra die if any matches)."""
    got = dist(text)
    bound = lower_bound(parse(text, "avrae"))
    assert bound.lo <= len(got), (text, bound.lo, len(got))
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        dist(text)
    assert bound.work <= budget.estimated


def test_reroll_and_add_brute_force() -> None:
    """3d4ra>3 by enumeration: one fresh die added when any die shows 4 (Avrae's ra)."""
    out: Counter[int] = Counter()
    for dice in itertools.product(range(1, 5), repeat=3):
        for extra in range(1, 5):
            out[sum(dice) + (extra if max(dice) == 4 else 0)] += 1
    total = sum(out.values())
    assert dist("3d4ra>3") == Distribution({k: Fraction(v, total) for k, v in out.items()})
    assert lower_bound(parse("3d4ra>3", "avrae")).lo <= len(out)


def test_a_sum_with_a_side_spread_out_is_refused_by_max_pairs_from_the_tree() -> None:
    """A known side that is spread out (4d3*4*92d2: 1 280 products over 8 800) makes the
    sum pairs: 4.8 M of them with 63d934kh4 is refused before the keep runs. (Issue 31's
    fifth pass prices that keep past the budget itself, 85 M for 1.0-1.2 s: 12d934kh3,
    3.6 M pairs, is the same case.)"""
    with pytest.raises(LimitError) as e:
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist("(4d3*4*92d2)-12d934kh3")
    # (its pairs at PAIR_WORK pass MAX_WORK as they pass MAX_PAIRS: either says it)
    assert e.value.limit in ("MAX_PAIRS", "MAX_WORK") and budget.counted < 1_000_000
    assert "pairs" in str(e.value) or "column 7 known" in str(e.value)


@pytest.mark.parametrize(("text", "dialect"), [
    ("(1d3)d6kh2", "avrae"), ("(2d3)d4!kh1", "avrae"), ("(1d4)d6ro1", "avrae"),
    ("(d3)d4ra4", "avrae"), ("(4d6*4*2d2)-3d6kh2", "avrae"),
])
def test_rolled_counts_in_any_order_give_the_same_answer(text: str, dialect: str) -> None:
    """The pools of a rolled count built most dice first: the same mixture as built by
    hand in the order of the counts (Distribution.mixture of Pool sums)."""
    from chancekit.dice._compile import compile_tree

    node = parse(text, dialect)
    assert compile_tree(node, text) == dist(text, dialect=dialect)
    if text.startswith("(1d3)d6kh2"):
        parts = [dist(f"{n}d6kh2") for n in (1, 2, 3)]
        assert dist(text) == Distribution.mixture(parts, [1, 1, 1])


def test_the_keep_bound_spreads_its_samples_over_the_die() -> None:
    """face_walk_work prices a die of more than 256 faces from faces spread over it (not
    the first 256): within the keep_work it stands for, and no longer half of it."""
    from chancekit.dice import d
    from chancekit.dice.facewalk import face_walk_work, keep_work

    for n, k, faces in ((12, 7, 519), (33, 9, 264), (63, 4, 934), (8, 3, 884)):
        sampled = face_walk_work(faces, faces, faces.bit_length(), n, k)
        exact = keep_work(d(faces), n, k)
        assert 0.8 * exact <= sampled <= 1.25 * exact, (n, k, faces, sampled, exact)


@pytest.mark.parametrize(("text", "dialect"), [
    ("10d10!kh3", "roll20"), ("8d6!kh3", "avrae"), ("30d6!ph5", "avrae"),
    ("4d20!kh2", "roll20"), ("5d1000!kh1", "roll20"), ("6d500!kl2", "roll20"),
    ("7d8!dl2", "roll20"),
])
def test_the_explode_keep_bound_is_below_what_the_evaluation_charges(text: str,
                                                                     dialect: str) -> None:
    """The tree's price of an explosion then a keep (the keep of the dice that did not
    explode) never passes what the closed form charges: it refuses only what the
    evaluation would refuse."""
    bound = lower_bound(parse(text, dialect)).work
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        dist(text, dialect=dialect)
    assert 0 < bound <= budget.estimated, (text, bound, budget.estimated)


@pytest.mark.parametrize("text", ["6d6pl0p<3ra6", "5d6pl0p<3ra>5kh2", "7d8k>4ra8",
                                  "6d10pl0p<4ra<-2p7", "8d6ph0p>4kh2", "9d10rr<0p<1kh4pl3",
                                  "12d4ra>3pl5kh6", "6d6p1p2ra3", "5d12k<4k>1ra2"])
def test_the_general_bound_follows_drops_by_value(text: str) -> None:
    """The general pool's bound follows its steps through idle ones and a keep or drop by
    value (every multiset of up to n dice over the faces left): still never more than
    the engine charges."""
    bound = lower_bound(parse(text, "avrae")).work
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        dist(text)
    assert 0 < bound <= budget.estimated, (text, bound, budget.estimated)


def test_the_tree_prices_a_keep_at_most_at_keep_work() -> None:
    """The tree's price of NdXkhK / klK (keep_work where no face is sampled, 99 % of the
    sampled price else) is never above keep_work, what the keep charges: 300 random
    keeps of 3-60 dice of 2-3000 faces (seeded), and never below 98 % of it."""
    import random

    from chancekit.dice import d
    from chancekit.dice.facewalk import SMALL_KEEP, keep_work

    rng = random.Random(31)
    for _ in range(300):
        faces, n = rng.randint(2, 3000), rng.randint(3, 60)
        k = rng.randint(2, n - 1)
        for sel, high in (("kh", True), ("kl", False)):
            bound = lower_bound(parse(f"{n}d{faces}{sel}{k}", "avrae")).work
            exact = keep_work(d(faces), n, k, highest=high)
            assert bound <= exact, (n, faces, k, sel, bound, exact)
            if n * faces > SMALL_KEEP:
                assert bound >= 0.98 * exact, (n, faces, k, sel, bound, exact)


def test_a_rolled_count_that_explodes_forever_is_an_error_not_a_refusal() -> None:
    """((2d6)d6!>=1)d4 + ... (BesideNotation seed 3210): the rolled count's '!>=1' matches
    every face of a d6, which is an error of the input; it is now checked before the
    tree is priced (the tree's price of the rest, 51 M units, said MAX_WORK instead)."""
    from chancekit.errors import NotationError

    for text in ("((2d6)d6!>=1)d4+(11d10ma0kl4e<7k3*2511d8)-64d20ro<3", "(2d6)d6!>=1"):
        with pytest.raises(NotationError, match="every face"):
            dist(text)
    assert len(dist("(2d6)d6!>=6kh2")) >= 2  # a valid explosion still answers
