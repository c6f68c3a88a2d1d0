"""Issue #31 item 5, third pass: the notation refusals still made after 1-3 s of CPU
(docs/fuzzing.md, "second pass"), now made before the work; counted units, never
seconds. The classes: the explosion-then-keep closed form (one polynomial product per
keep, priced before it); the quotients of ``A // B`` (at least ``(S - 1) // max|B| + 1``
of a consecutive ``A``, a run of consecutive integers: ``/ 7`` of them is surely
Fractions); a general-engine pool's first reroll or explosion after keeps and idle
operators, priced before the enumeration (in the engine and in the tree).
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from _upfront import counted_before_refusal
from chancekit import limits
from chancekit.dice import dist
from chancekit.dice._estimate import lower_bound
from chancekit.dice._parse import parse
from chancekit.errors import LimitError

#: (text, dialect): the late refusals of the second pass's fresh samples (HostileNotation
#: seed 3105, BesideNotation seed 3106), each refused after 1.1-3.0 s of CPU before
FOUND_LATE_4 = [
    ("51d6!ph5", "avrae"),                                    # explosion then keep
    ("((2821d20//9d{7,-3}ro52ro>=2)/7)-1647d12", "avrae"),    # quotients, then pairs
    ("6d20ph2ro0kh4!5* 33d264kl9", "avrae"),                  # explosion after keeps
    ("d556720+ 10d10ph2rr>=8+18d381kl6", "avrae"),            # reroll after a drop
    ("1353d{9,0}!>92ro<7dl157/d4f1>=6d92kh3", "roll20"),      # reroll after an idle '!'
]

#: work counted before the refusal: each case counted 30-45 M units before the fix
SMALL = 1_000_000


@pytest.mark.parametrize(("text", "dialect"), FOUND_LATE_4)
def test_refused_before_the_work(text: str, dialect: str) -> None:
    error, counted = counted_before_refusal(lambda: dist(text, dialect=dialect))
    assert error.limit in ("MAX_WORK", "MAX_PAIRS", "MAX_OUTCOMES")
    assert counted <= SMALL, (text, counted)


# ------------------------------------------------------------ explosion then keep
def _chains(faces: list[int], depth: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every chain of one die exploding on its top face (at most ``depth`` extra dice):
    the faces it shows and their probability (brute force)."""
    top, p = max(faces), Fraction(1, len(faces))
    out = []
    for j in range(depth + 1):
        for f in faces:
            if f != top:
                out.append(((top,) * j + (f,), p ** (j + 1)))
    out.append(((top,) * (depth + 1), p ** (depth + 1)))
    return out


@pytest.mark.parametrize(("text", "depth"), [
    ("3d4!ph1", 3), ("3d4!pl1", 2), ("4d3!kh2", 3), ("3d6!kl2", 2), ("2d{1,3,5}!ph1", 4),
])
def test_the_explosion_keep_closed_form_against_brute_force(text: str, depth: int) -> None:
    """Every pool of chains enumerated, its dice sorted and kept (the keeps summed with
    their shifts by one polynomial product each since this pass)."""
    from chancekit.dice.distribution import faces as die_of
    from chancekit.dice.evaluate import pool_sum

    node = parse(text)
    faces = list(node.faces)
    _, last = node.ops
    got = pool_sum(die_of(faces), node.count, node.ops, depth)
    sel = last.sels[0]
    want: Counter[int] = Counter()
    for combo in itertools.product(_chains(faces, depth), repeat=node.count):
        shown = sorted(v for chain, _ in combo for v in chain)
        p = Fraction(1)
        for _, q in combo:
            p *= q
        k = min(sel.num, len(shown))
        picked = shown[len(shown) - k:] if sel.cat == "h" else shown[:k]
        if last.kind == "p":
            rest = Counter(shown) - Counter(picked)
            picked = list(rest.elements())
        want[sum(picked)] += p
    assert {v: got.probability(v) for v in got.outcomes()} == dict(want)


def test_the_explosion_keep_prices_its_products_before_them() -> None:
    """51d6!ph5: 6 411 shifted keeps were built (2.8 s) and then refused; the products
    are priced before they start, refused with next to nothing counted, and the same
    pool of the same form answers under the budget."""
    with pytest.raises(LimitError) as e:
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist("51d6!ph5")
    assert "exploding and keeping" in str(e.value) and budget.counted < SMALL
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("12d6!ph5")
    assert budget.estimated < limits.MAX_WORK and got.outcomes()[0] == 7


# ------------------------------------------------------------ quotients
@pytest.mark.parametrize("text", ["100d6//3d4", "50d20//(2d6)", "30d6//-7", "40d4//d3",
                                  "20d10//-(2d{3,-5})", "60d6//4d{7,-3}ro2"])
def test_the_quotients_bound_is_a_lower_bound(text: str) -> None:
    """At least ``(S - 1) // max|B| + 1`` quotients of a consecutive side of ``S``
    outcomes: never more than the evaluation gives."""
    bound = lower_bound(parse(text))
    got = dist(text)
    assert 2 <= bound.lo <= len(got), (text, bound.lo, len(got))
    assert bound.run >= 2
    # the run: that many consecutive integers among the outcomes
    outs = sorted(got.outcomes())
    best = cur = 1
    for x, y in itertools.pairwise(outs):
        cur = cur + 1 if y == x + 1 else 1
        best = max(best, cur)
    assert best >= bound.run


def test_a_run_of_quotients_divided_is_surely_fractions() -> None:
    bound = lower_bound(parse("(40d4//d3)/7"))
    assert bound.frac and any(not isinstance(v, int) for v in dist("(40d4//d3)/7").outcomes())
    assert lower_bound(parse("2821d20//9d{7,-3}ro52ro>=2")).lo == (2821 * 19) // 63 + 1


# ------------------------------------------------------------ the general engine
@pytest.mark.parametrize(("text", "dialect"), [
    ("5d6ph2ro0kh2!5", "avrae"), ("7d8ph2rr>=7", "avrae"),
    ("8d4dl3rr1", "avrae"), ("9d{9,0}!>8ro<7dl5", "roll20"), ("6d6kl4ro1kh2", "avrae"),
])
def test_the_pool_bound_is_a_lower_bound_of_the_charges(text: str, dialect: str) -> None:
    """The tree's price of a general-engine pool (its enumeration and its first reroll or
    explosion after keeps) never exceeds what the evaluation charges."""
    bound = lower_bound(parse(text, dialect)).work
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        dist(text, dialect=dialect)
    assert 0 < bound <= budget.estimated, (text, bound, budget.estimated)


@pytest.mark.parametrize(("text", "keep_low", "drop_high", "reroll"), [
    ("5d6ph2rr>=5", 3, 2, "rr"), ("5d6ph2ro>=5", 3, 2, "ro"), ("4d6pl1ro1", 3, 0, "ro"),
])
def test_a_reroll_after_a_drop_against_brute_force(text: str, keep_low: int,
                                                   drop_high: int, reroll: str) -> None:
    """The pools the engine now prices ahead still answer, exactly: every roll
    enumerated, the dice dropped, the matching kept dice rerolled (``rr`` until they do
    not match: uniform over the faces that do not; ``ro`` once)."""
    got = dist(text)
    want: Counter[int] = Counter()
    p = Fraction(1, 6 ** 5 if text.startswith("5") else 6 ** 4)
    n = 5 if text.startswith("5") else 4
    for roll in itertools.product(range(1, 7), repeat=n):
        s = sorted(roll)
        kept = s[: n - drop_high] if drop_high else s[n - keep_low:]
        match = (lambda v: v >= 5) if "5" in text[4:] else (lambda v: v == 1)
        fixed = [v for v in kept if not match(v)]
        m = len(kept) - len(fixed)
        draw = [v for v in range(1, 7) if not match(v)] if reroll == "rr" else list(range(1, 7))
        for extra in itertools.product(draw, repeat=m):
            want[sum(fixed) + sum(extra)] += p / len(draw) ** m
    assert {v: got.probability(v) for v in got.outcomes()} == dict(want)


# ------------------------------------------------------------ sets that keep every item
@pytest.mark.parametrize(("text", "dialect"), [
    ("(3d6,2d4)", "avrae"), ("(3d6,2d4)kl5", "roll20"), ("{3d6,2d4}dl0", "roll20"),
    ("(3d6,d4,1)kh3", "roll20"), ("{3d6,-2d4}kl2", "roll20"), ("{3d6,2d4}kh1", "roll20"),
    ("{(2d6)d4, d8}kh2", "roll20"), ("{2d6,d4}pl0", "avrae"),
])
def test_a_set_that_keeps_every_item_is_priced_as_their_sum(text: str, dialect: str) -> None:
    """A set whose keeps keep every item is the sum of its items: at least
    ``sum |A_i| - (k - 1)`` outcomes, never more than the evaluation gives."""
    assert lower_bound(parse(text, dialect)).lo <= len(dist(text, dialect=dialect))


def test_a_negated_set_of_big_sums_is_refused_up_front() -> None:
    """-(-7d125017, 444D2ro>6cs>-2)kl3 (roll20, HostileNotation seed 3107): the set was
    priced as one outcome, its 875 k sums negated after 2.7 s, then refused."""
    with pytest.raises(LimitError):
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist("-(-7d125017, 444D2ro>6cs>-2)kl3", dialect="roll20")
    assert budget.counted <= SMALL
    assert lower_bound(parse("(-7d125017, 444D2ro>6cs>-2)kl3", "roll20")).lo >= 7 * 125016
