"""Issue #31 item 5: notation refusals that came after the work (1-6 s of CPU), now made
before it. Each case is refused with the work counted before the refusal small (a few
million units at most, against the 30-50 M units each spent before the fix): counted
units, never seconds.

The classes: an expensive side beside a side the tree cannot price (general-engine
pools, rolled counts: evaluated first now, and the tree priced again with what they
give); the pools of a rolled count with operators (each count's pool priced by the
tree's own bound before the first is built); an explosion in the general engine after
keeps (priced before the enumeration); a pairwise step whose result feeds another
(its distinct results counted first).
"""

from __future__ import annotations

import pytest

from _upfront import counted_before_refusal
from chancekit import limits
from chancekit.dice import dist
from chancekit.errors import LimitError

#: (text, dialect): found by tools/fuzz.py --notation (HostileNotation seed 2024, and
#: BesideNotation seeds 1 and 3103), each refused after 1-6 s of CPU before
FOUND_LATE_3 = [
    ("24919dF+9d2ph4kl3", "avrae"),                   # a power beside a general pool
    ("1d{-2,133816,3}+9d12dl3!2kh4kl1", "roll20"),    # an explosion after a drop
    ("44+((-+6d{-1,4,6,5}ro3-d4>=7r3cs>2)+floor(-5D461kh5cf>3))/7d8", "roll20"),
    ("-2dF+(87d8p<0p4+d8)d6ph4", "avrae"),            # a rolled count of pools
    ("69d20/  66d2%76d4", "roll20"),                  # a pairwise chain (MAX_PAIRS)
    ("33d632kl7-4611686018427387906/ (9d20cf>=1+d4)d6*  (11d4+d4)d6", "avrae"),
    # (3517d2-6d20e<4ra0e87 answers since issue 31's eighth pass: 'ra0' and 'e87' match
    # no face of a d20, so the pool is 6d20e<4, per die; test_notation_hardening10.py)
    ("25470dF-\t((4d4)d6)d10ro8ra-3", "avrae"),
    ("(4611686018427387905//\t105d20/45d2)/7", "avrae"),
    ("((3d3)d4)d4>=\r\n65d20/108d2", "avrae"),
    ("12d4ra>3pl56kh64+  3d253944+(15d8p5+d6)d20ro-2cs>7", "avrae"),
    ("2274d8*(18d20rr<=1ro4+d4)d10", "avrae"),
    ("(15d6+d4)d4!+ 34d454kl4", "avrae"),
    ("-(-d487689+7+((9d4)d8rr>50)d4ro-5ma1)", "avrae"),
    # rolled counts of general-engine pools (BesideNotation seed 3106), a dense explosion
    ("6+(7d4kl5)d8p<4pl33-4%7d3", "avrae"),
    ("-d297399*(18d8+d6)d6pl2k4", "avrae"),
    ("(17d4kh4+d6)d6kl9kh5* 75d8rr1", "avrae"),
    ("d20+75d%e5+3d3kh111*71", "avrae"),
    ("12822d4/-100000000000000000//((4d4)d6)d6", "avrae"),  # a side divided by -N
]

#: work counted before the refusal: each case spent 30-50 M units before the fix
SMALL = 8_000_000


@pytest.mark.parametrize(("text", "dialect"), FOUND_LATE_3)
def test_refused_before_the_work(text: str, dialect: str) -> None:
    error, counted = counted_before_refusal(lambda: dist(text, dialect=dialect))
    assert error.limit in ("MAX_WORK", "MAX_PAIRS", "MAX_OUTCOMES", "MAX_WEIGHT_BITS")
    assert counted <= SMALL, (text, counted)


def test_a_side_that_is_one_outcome_is_answered_under_the_budget() -> None:
    # -d727196*3-3d8kl85ph3! (a side that is one outcome: the sum is a shift) was refused
    # up front while a negation was priced as a map (25 units an outcome); negated as a
    # shift (issue 31's fifth pass) its whole work fits the budget, and it is answered
    from chancekit import limits

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("-d727196*3-3d8kl85ph3!")
    assert len(got) == 727_196 and budget.estimated <= limits.MAX_WORK


def test_an_explosion_after_keeps_is_priced_before_the_enumeration(monkeypatch) -> None:
    """9d12dl3!2kh4kl1 (roll20): the 9-dice multisets were enumerated and dropped (41 M
    units), then the explosion was refused at 21 G; now refused before the enumeration."""
    from chancekit.dice import evaluate

    built = []
    monkeypatch.setattr(evaluate, "_multisets",
                        lambda *a: built.append(a) or {})  # never reached
    with pytest.raises(LimitError) as e:
        dist("9d12dl3!2kh4kl1", dialect="roll20")
    assert "exploding the dice of this pool" in str(e.value) and not built


def test_the_cheap_side_prices_the_sum_before_the_power() -> None:
    """20000dF + 9d2ph4kl3: the pool (4 outcomes) is evaluated first; the sum's
    polynomial product is then priced before 20 000 dice are summed (24919dF, the case
    found, is refused before any step since power_work follows flint: 55 M units alone;
    20000dF alone is answered, 36 M)."""
    with pytest.raises(LimitError) as e:
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            dist("20000dF+9d2ph4kl3")
    # (or refused before any step: mul_work recalibrated after this case was chosen)
    assert "priced again" in str(e.value) or "priced before any step" in str(e.value)
    assert budget.counted < 100_000  # nothing but the small pool


@pytest.mark.parametrize(("text", "dialect"), [
    ("4d6kh3+d20", "avrae"), ("(1d4)d6kh2+3d6", "avrae"), ("8d6!kh3", "avrae"),
    ("1000d6+4d6kh3kl2", "avrae"), ("(2d4)d6ph1*d8", "avrae"), ("d100/d20+3", "avrae"),
    ("d300/d40*2", "avrae"), ("3d6!kh2kl1+10d10", "avrae"), ("10d10!kh3", "roll20"),
])
def test_cheap_expressions_still_answer(text: str, dialect: str) -> None:
    """What is cheap is not refused: answered, with what the steps charged under the
    budget (and the same distribution as evaluating the sides in the written order)."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist(text, dialect=dialect)
    assert budget.estimated < limits.MAX_WORK and len(got) >= 1


def test_order_does_not_change_the_answer() -> None:
    """The cheaper side evaluated first: the same exact distribution as the sides
    summed by hand (independent sides commute)."""
    from chancekit import d
    from chancekit.dice.pool import Pool
    from chancekit.dice.selectors import highest, lowest

    pool = Pool(d(2), 9).drop(highest(4)).keep(lowest(3)).sum()
    assert dist("300dF+9d2ph4kl3") == (300 @ dist("1dF")) + pool


@pytest.mark.parametrize("text", ["4d6kh3kl2", "9d2ph4kl3", "5d6ra1ro2", "6d6kh4kl2+d20",
                                  "8d6p<3kh4", "(2d4)d6ph1kl2", "12d4ra>3pl5kh6"])
def test_the_general_bound_is_a_lower_bound_of_the_charges(text: str) -> None:
    """The bound of a general-engine pool (its multisets enumerated) never exceeds what
    the evaluation charges: it refuses only what the evaluation would refuse."""
    from chancekit.dice._estimate import lower_bound
    from chancekit.dice._parse import parse

    bound = lower_bound(parse(text, "avrae")).work
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        dist(text)
    assert bound <= budget.estimated, (text, bound, budget.estimated)
