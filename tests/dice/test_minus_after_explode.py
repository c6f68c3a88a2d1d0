"""A minus right after an explosion whose face is optional is a subtraction: '1d6!-1' is
(1d6!) - 1 (it was an explosion on the face -1, which a d6 never shows: the plain 1d6, a
silent misreading; roll20 and avrae's d20 read the selector's number without a sign).
A negative face is still written with a comparison ('4dF!<=-1'), and operators whose
selector is required keep reading '-N' as the face ('r-1')."""

from __future__ import annotations

import pytest

from chancekit.dice.notation import dist


@pytest.mark.parametrize(("dialect", "text", "same_as"), [
    ("roll20", "1d6!-1", "1d6! - 1"),
    ("roll20", "1d6!-10", "1d6! - 10"),
    ("roll20", "1d6!!-3", "1d6!! - 3"),
    ("roll20", "1d6!p-2", "1d6!p - 2"),
    ("roll20", "2d6!-1d4", "2d6! - 1d4"),
    ("avrae", "1d6!-1", "1d6! - 1"),
    ("avrae", "1d6e-1", "1d6e - 1"),
    ("avrae", "1d6e6-1", "1d6e6 - 1"),
    ("foundry", "1d6x-1", "1d6x - 1"),
    ("foundry", "1d6xo-1", "1d6xo - 1"),
])
def test_minus_after_an_optional_face_subtracts(dialect, text, same_as):
    got, want = dist(text, dialect=dialect), dist(same_as, dialect=dialect)
    assert got == want
    assert got.mean() != dist(text.split("-")[0].rstrip("!epx") or "0", dialect=dialect).mean()


def test_negative_faces_with_a_comparison_still_explode():
    # fudge dice exploding on -1 (roll20's '<=' is inclusive): some mass below -4
    d = dist("4dF!<=-1", dialect="roll20")
    assert min(d.weights) < -4
    assert dist("1d6!-1", dialect="roll20").mean() == dist("1d6!", dialect="roll20").mean() - 1


def test_a_bare_reroll_then_minus_reads_as_the_roll20_oracle_does():
    # Roll20's bare 'r' rerolls the lowest face (a fudge die's -1s), and '-1' after it is
    # arithmetic: rpg-dice-roller gives 4dFr-1 the totals -1..3 ([0r, 0, 0, 1]-1 = 0)
    assert dist("4dFr-1", dialect="roll20") == dist("4dFr<=-1", dialect="roll20") - 1
    assert dist("4dFr", dialect="roll20") == dist("4dFr<=-1", dialect="roll20")
    assert dist("2d6r", dialect="roll20") == dist("2d6r1", dialect="roll20")
