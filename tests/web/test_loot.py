"""The loot list of the Tables page reads each weight like ``--weights`` does
(``chancekit.sampling.read_weight``): a weight past MAX_WEIGHT_DIGITS is refused before
``Fraction`` builds it (``1e999999999`` used to run into the worker's time limit)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from _upfront import MAX_CALLS, measure
from chancekit.errors import InvalidValueError, LimitError
from chancekit.sampling import parse_weights
from chancekit.web.compute import parse_loot


def test_loot_weights_read_exactly() -> None:
    assert parse_loot("sword=5\n# rare\nshield = 1/2\npotion=0.25") == {
        "sword": Fraction(5), "shield": Fraction(1, 2), "potion": Fraction(1, 4)}
    assert parse_loot("a=1") == parse_weights("a=1")


def test_a_huge_exponent_is_refused_up_front() -> None:
    error, _, calls = measure(lambda: parse_loot("sword=5\nscroll=1e999999999"))
    assert isinstance(error, LimitError) and error.limit == "MAX_WEIGHT_DIGITS"
    assert "loot line 2" in str(error)
    assert calls < MAX_CALLS


@pytest.mark.parametrize(("text", "says"), [("a=-1", "must be >= 0"),
                                             ("a=x", "is not a number")])
def test_bad_weights_name_the_line(text: str, says: str) -> None:
    with pytest.raises(InvalidValueError, match="loot line 1: the weight") as info:
        parse_loot(text)
    assert says in str(info.value)
