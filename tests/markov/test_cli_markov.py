"""``chancekit markov``: answers, and one clear line (exit 1) for every bad input."""

from __future__ import annotations

import json

import pytest

from chancekit.cli.main import main


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["markov", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert _json(capsys, "usage-die", "d12", "d10", "d8", "d6", "d4")["mean"] == "20"
    until = _json(capsys, "until", "1d6", "--sequence", "6,6")
    assert until["mean"] == "42" and until["tail_float"] <= 1e-6
    race = _json(capsys, "race", "30", "2d6", "25", "1d8+2")
    assert {w["outcome"] for w in race["winner"]} == {"first", "second", "both"}
    assert race["tail"] == "0" and abs(sum(d["probability"] for d in race["distribution"])
                                       - 1) < 1e-12
    pity = _json(capsys, "pity", "gacha:0.006,74,0.06,90")
    assert round(pity["mean_float"], 3) == 93.446 and pity["upto"] == 180


@pytest.mark.parametrize(("argv", "text"), [
    (["race"], "takes HP DAMAGE"),
    (["race", "x", "2d6"], "HP must be an integer"),
    (["race", "10", "2d6", "--upto", "-1"], "--upto must be a count"),
    (["race", "10", "2d6", "5"], "race takes HP DAMAGE"),
    (["race", "100000", "1d6-1", "100000", "1d6-1"], "MAX_MARKOV_STATES"),
    (["pity", "deck"], "counts every value"),
    (["pity", "gacha:0.006,74,0.06,90", "--value", "nope"], "one of the system's values"),
    (["until", "1d6"], "sequence"),
    (["until", "1d6", "--sequence", "7"], "never shows 7"),
    (["usage-die", "d6+10"], "ladder[0]"),
    (["usage-die", "\U0001f3b2"], "column 1"),
])
def test_bad_input_is_one_clear_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                                      text: str) -> None:
    assert main(["markov", *argv]) == 1
    err = capsys.readouterr().err
    assert text in err and "Traceback" not in err
