"""Success counting in the avrae dialect (issue 24 item 2): ``cs``, ``cf``, ``df``.

Checked against an independent brute force (every sequence of faces, scored by a
separate rule written here), against icepool (World of Darkness with explosions), and
against the same mechanic spelled in roll20 and foundry; every formula valid before
keeps its meaning (``10d10>=8`` is still 1 if the total is at least 8).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import icepool
import pytest

from chancekit.dice.notation import ambiguities, dist, readings, roll
from chancekit.errors import NotationError
from chancekit.rng import PCG32


def _pmf(text: str, dialect: str = "avrae") -> dict[Any, Fraction]:
    return dist(text, dialect=dialect).pmf()


def _brute(n: int, sides: int, score: Any, keep: Any = None) -> dict[int, Fraction]:
    """Every sequence of ``n`` faces of a ``d(sides)``, optionally reduced by ``keep``
    (a function of the sorted faces), then scored face by face."""
    out: dict[int, Fraction] = {}
    p = Fraction(1, sides**n)
    for faces in itertools.product(range(1, sides + 1), repeat=n):
        kept = sorted(faces) if keep is None else keep(sorted(faces))
        s = sum(score(f) for f in kept)
        out[s] = out.get(s, 0) + p
    return out


@pytest.mark.parametrize(("text", "n", "sides", "score", "keep"), [
    ("4d6cs>=5", 4, 6, lambda f: int(f >= 5), None),
    ("4d6cs>4", 4, 6, lambda f: int(f > 4), None),
    ("4d6cs6", 4, 6, lambda f: int(f == 6), None),
    ("4d6cs=6", 4, 6, lambda f: int(f == 6), None),
    ("5d4cs<2", 5, 4, lambda f: int(f < 2), None),
    ("5d4cf<=2", 5, 4, lambda f: int(f <= 2), None),
    ("5d6cs>=5df1", 5, 6, lambda f: int(f >= 5) - int(f == 1), None),
    ("5d6cs>=5df<3", 5, 6, lambda f: int(f >= 5) - int(f < 3), None),
    ("4d6cs1cs6", 4, 6, lambda f: int(f in (1, 6)), None),
    ("4d6cs>=4df1df2", 4, 6, lambda f: int(f >= 4) - int(f <= 2), None),
    ("5d6kh3cs>=5", 5, 6, lambda f: int(f >= 5), lambda s: s[-3:]),
    ("5d6dl2cs>=4df1", 5, 6, lambda f: int(f >= 4) - int(f == 1), lambda s: s[2:]),
    ("4d6p1cs>=5", 4, 6, lambda f: int(f >= 5), lambda s: [x for x in s if x != 1]),
    ("{4d6}cs>=5", 4, 6, lambda f: int(f >= 5), None),
])
def test_counting_equals_brute_force(text: str, n: int, sides: int, score: Any,
                                     keep: Any) -> None:
    assert _pmf(text) == _brute(n, sides, score, keep)


def test_counting_a_set_of_totals() -> None:
    # how many of two attacks at +5 reach 21: each is 1d20+5 >= 21 with p = 1/4
    p = Fraction(1, 4)
    want = {0: (1 - p) ** 2, 1: 2 * p * (1 - p), 2: p * p}
    assert _pmf("(1d20+5, 1d20+5)cs>=21") == want
    assert _pmf("{1d20+5, 1d20+5}cs>=21") == want
    assert _pmf("(1d20+5, 1d20+5)cs>20") == want


def test_world_of_darkness_against_icepool() -> None:
    # 10s explode into extra dice that count too; 8+ a success, 1 a failure
    def chain(depth: int) -> Any:
        score = {x: int(x >= 8) - int(x == 1) for x in range(1, 11)}
        if depth == 0:
            return icepool.d10.map(score)
        rest = chain(depth - 1)
        return icepool.d10.map(lambda x: score[x] + rest if x == 10 else score[x])
    theirs = 12 @ chain(20)
    total = theirs.denominator()
    want = {k: Fraction(v, total) for k, v in theirs.items() if v}
    assert _pmf("12d10e10cs>=8df1") == want
    assert _pmf("12d10!cs>7df1") == want
    # the same mechanic in the other dialects
    assert _pmf("12d10!10>=8f1", "roll20") == want
    assert _pmf("12d10x10cs>=8df1", "foundry") == want


def test_shadowrun_pool_against_icepool() -> None:
    # Shadowrun: count the 5s and 6s of 12d6
    want = 12 @ icepool.d6.map(lambda x: int(x >= 5))
    total = want.denominator()
    assert _pmf("12d6cs>=5") == {k: Fraction(v, total) for k, v in want.items() if v}
    assert dist("12d6cs>=5").mean() == 4


def test_valid_formulas_keep_their_meaning() -> None:
    # `>=` after dice still compares the total in avrae
    assert _pmf("10d10>=8") == {1: Fraction(1)}
    assert dist("10d10>=60").mean() < 1
    assert _pmf("10d10>=8", "roll20") == _pmf("10d10cs>=8")


@pytest.mark.parametrize("text", ["4d6cs>=5", "5d6cs>=5df1", "5d6kh3cs>=5",
                                  "(1d6, 1d6, 1d6)cs>=4", "3d6e6cs>=5df1", "4d4cf<2"])
def test_rolls_follow_the_distribution(text: str) -> None:
    # every roll's total is a possible outcome, and over many rolls the mean is close
    d = dist(text)
    rng = PCG32(11)
    totals = [roll(text, rng=rng).total for _ in range(3000)]
    assert all(t in d for t in totals)
    sd = float(d.variance()) ** 0.5
    assert abs(sum(totals) / len(totals) - float(d.mean())) < 5 * sd / len(totals) ** 0.5 + 1e-9


def test_breakdown_shows_the_dice_and_the_count() -> None:
    r = roll("6d10cs>=8df1", rng=PCG32(1))
    assert str(r).startswith("6d10cs>=8df1 (")
    assert r.total == sum(int(v >= 8) - int(v == 1) for v in r.dice)


@pytest.mark.parametrize(("text", "col", "words"), [
    ("10d10cs>=8kh3", 11, "come last"),
    ("10d10df1", 6, "add 'cs'"),
    ("10d10cs>=8cf1", 11, "not both"),
    ("10d10cs", 8, "compare point"),
    ("10d10csh2", 8, "compare point"),
])
def test_errors(text: str, col: int, words: str) -> None:
    with pytest.raises(NotationError, match=words) as e:
        dist(text)
    assert e.value.column == col


def test_readings_and_notes_explain_it() -> None:
    assert readings("10d10cs>=8df1")["avrae"] == (
        "counts the dice showing 8 or more, minus one for each die showing 1")
    (line,) = ambiguities("10d10>=8")
    assert line.endswith("or write `10d10cs>=8` to count the dice in avrae")
    (line,) = ambiguities("10d10>=8f1")
    assert "or write `10d10cs>=8df<=1` to count the dice in avrae" in line
    assert dist("10d10cs>=8df<=1") == dist("10d10>=8f1", dialect="roll20")
    (line,) = ambiguities("10d10cs>=8")  # roll20 reads cs as a crit mark
    assert line.startswith("note: in roll20, `10d10cs>=8` marks crits")
    assert ambiguities("10d10cs>=8", "foundry")[0].startswith(
        "note: in roll20, `10d10cs>=8` marks crits")


def test_operators_after_rolled_sides_belong_to_the_dice() -> None:
    # 1d(1d6+2)cs>=3: the die has 3..8 sides, rolled first; count it if it shows 3+
    want: dict[Any, Fraction] = {}
    for s in range(3, 9):
        p_hit = Fraction(s - 2, s)
        want[1] = want.get(1, 0) + Fraction(1, 6) * p_hit
        want[0] = want.get(0, 0) + Fraction(1, 6) * (1 - p_hit)
    assert _pmf("1d(1d6+2)cs>=3") == want
    # 2d(1d4+2)kh1: the higher of two dice with 3..6 sides
    assert _pmf("2d(1d4+2)kh1") == {x: sum(Fraction(1, 4) * Fraction(2 * x - 1, s * s)
                                          for s in range(3, 7) if x <= s)
                                     for x in range(1, 7)}
    assert dist("2d(3)kh1") == dist("2d3kh1")
