"""The notation / Distribution paths, cross-checked with brute-force enumeration."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction

import pytest

import chancekit
from chancekit.cli.main import main
from chancekit.errors import NotationError
from chancekit.sampling import AliasTable, TabletopTable

THREE_D6 = Counter(sum(r) for r in itertools.product(range(1, 7), repeat=3))
FOUR_D6_DROP_LOWEST = Counter(sum(sorted(r)[1:]) for r in itertools.product(range(1, 7),
                                                                             repeat=4))
FOUR_DF = Counter(sum(r) for r in itertools.product((-1, 0, 1), repeat=4))


def play(t: TabletopTable) -> dict[object, Fraction]:
    """Apply the rule to every (row, check) pair of rolls."""
    counts: Counter = Counter()
    for face, check in itertools.product(range(1, t.row_die + 1), range(1, t.check_die + 1)):
        row = t.rows[face - 1]
        counts[row.outcome if check <= row.threshold else row.alias] += 1
    return {k: Fraction(v, t.row_die * t.check_die) for k, v in counts.items()}


@pytest.mark.parametrize("notation, oracle", [("3d6", THREE_D6),
                                              ("4d6kh3", FOUR_D6_DROP_LOWEST),
                                              ("4dF", FOUR_DF)])
def test_notation_and_distribution_sources(notation: str, oracle: dict) -> None:
    by_text = TabletopTable.build(notation)
    by_dist = TabletopTable.build(chancekit.dist(notation))
    by_enum = TabletopTable.build(oracle)
    assert by_text == by_dist == by_enum
    assert by_text.title == notation
    assert play(by_text) == by_enum.realized().pmf()
    table = AliasTable(chancekit.dist(notation))
    total = sum(oracle.values())
    assert all(table.probability(k) * total == w for k, w in oracle.items())


def test_bad_notation_is_a_notation_error() -> None:
    with pytest.raises(NotationError):
        TabletopTable.build("3d6x")


def test_cli_sheet_and_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "3d6", "4d6kh3", "4dF", "d6", "--format", "md"]) == 0
    out = capsys.readouterr().out
    for name in ("3d6:", "4d6kh3:", "4dF:", "d6:"):
        assert name in out
    assert "mean 10.5 -> 10.5" in out
    assert main(["sample", "3d6", "-n", "50", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["draws"]) == 50 and all(3 <= x <= 18 for x in data["draws"])
    assert main(["table", "2d20"]) == 1
    assert "row_die=100" in capsys.readouterr().err
