"""``chancekit symbols``: the text table, --all, --json against the library, and errors."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from chancekit.cli.main import main
from chancekit.dice import Symbols, genesys, project


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["symbols", "2A1P vs 2D"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("net symbols of 2 ability 1 proficiency 2 difficulty")
    assert "(131 less likely results hidden; --all shows them)" in out
    assert "success (net successes >= 1): 65.0798% (exactly 7997/12288)" in out
    assert "at least one triumph: 8.3333%" in out


def test_all_lists_every_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["symbols", "2A1P vs 2D", "--all"]) == 0
    out = capsys.readouterr().out
    assert "hidden" not in out
    rows = [line for line in out.splitlines() if "%  " in line and "at least" not in line]
    assert len(rows) == len(genesys("2A1P vs 2D"))


def test_json_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["symbols", "aap vs dc", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    g = genesys("2A1P vs 1D1C")
    assert doc["dice"] == {"ability": 2, "proficiency": 1, "difficulty": 1, "challenge": 1}
    got = {Symbols(o["symbols"]): Fraction(int(o["weight"]), int(doc["total_weight"]))
           for o in doc["outcomes"]}
    assert got == g.pmf()
    assert Fraction(doc["success"]) == project(g, "success").at_least(1)
    assert Fraction(doc["means"]["threat"]) == project(g, "threat").mean()
    assert doc["at_least_one"]["despair"] == pytest.approx(1 / 12)


@pytest.mark.parametrize("argv,fragment", [
    (["symbols", "2A vs 1P"], "proficiency dice go before 'vs' at column 8"),
    (["symbols", "3d6"], "unexpected '6'"),
    (["symbols", "2X"], "unknown die letter 'X'"),
    (["symbols", "99P99C"], "MAX_WORK"),
    (["symbols", "200000A"], "MAX_DICE"),
])
def test_mistakes_are_one_line(argv: list[str], fragment: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and lines[0].startswith("chancekit symbols: error: ")
    assert fragment in lines[0] and "Traceback" not in err
    assert len(lines) in (1, 3)
