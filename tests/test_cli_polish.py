"""The command line's polish of issue 24 item 7 and the work flag of item 5: ``dist``
with several expressions and the --at-least / --at-most views, the seed an unseeded
``roll`` drew (and that it repeats the rolls), the terminal form of a breakdown, and
``--max-work`` (the budget of chancekit.limits, for one command)."""

from __future__ import annotations

import io
import json
import re
from fractions import Fraction
from typing import Any

import pytest

import chancekit
from chancekit.cli import _dice
from chancekit.cli.main import main


def _out(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> Any:
    assert main(argv) == code
    return capsys.readouterr()


def test_dist_takes_several_expressions(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(_out(capsys, ["dist", "4d6kh3", "3d6", "2d20kh1", "--json"]).out)
    assert doc["notation"] == "4d6kh3"
    assert [m["notation"] for m in doc["more"]] == ["3d6", "2d20kh1"]
    first = chancekit.dist("4d6kh3")
    for m in doc["more"]:
        d = chancekit.dist(m["notation"])
        got = {o["outcome"]: Fraction(int(o["weight"]), int(m["total_weight"]))
               for o in m["outcomes"]}
        assert got == d.pmf()
        from chancekit.dice import ks_distance, tv_distance

        assert Fraction(m["tv"]) == tv_distance(first, d)
        assert Fraction(m["ks"]) == ks_distance(first, d)
    text = _out(capsys, ["dist", "4d6kh3", "3d6"]).out
    assert "vs 4d6kh3: KS distance" in text and text.count("outcome") == 2
    # one expression: an empty list, the document otherwise as before
    assert json.loads(_out(capsys, ["dist", "3d6", "--json"]).out)["more"] == []


@pytest.mark.parametrize(("flag", "column"), [("--at-least", 2), ("--at-most", 3)])
def test_at_least_and_at_most_views(capsys: pytest.CaptureFixture[str], flag: str,
                                    column: int) -> None:
    """The bars follow the chosen column: the longest bar is on the largest value of it
    (outcome 3 for at least, 18 for at most; 10 and 11 for plain 3d6)."""
    text = _out(capsys, ["dist", "3d6", flag]).out
    rows = [line for line in text.splitlines() if re.match(r"\s*\d+\s+\d", line)]
    full = [r.split()[0] for r in rows if "█" * 30 in r]
    assert full == (["3"] if column == 2 else ["18"])
    assert f"({flag[2:].replace('-', ' ')})" in text
    plain = _out(capsys, ["dist", "3d6"]).out
    assert [r.split()[0] for r in plain.splitlines() if "█" * 30 in r] == ["10", "11"]
    with pytest.raises(SystemExit) as usage:       # one view at a time
        main(["dist", "3d6", "--at-least", "--at-most"])
    assert usage.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_plot_of_several_expressions(capsys: pytest.CaptureFixture[str],
                                     tmp_path: Any) -> None:
    path = tmp_path / "p.png"
    _out(capsys, ["dist", "3d6", "2d6", "--at-most", "--plot", str(path)])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unseeded_roll_prints_the_seed_that_repeats_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    first = _out(capsys, ["roll", "4d6kh3", "-n", "5", "--stream", "combat"])
    m = re.fullmatch(r"seed (\d+) \(drawn from the OS; --seed \1 --stream combat repeats "
                     r"these rolls\)\n", first.err)
    assert m, first.err
    again = _out(capsys, ["roll", "4d6kh3", "-n", "5", "--seed", m.group(1), "--stream",
                          "combat"])
    assert again.out == first.out and again.err == ""
    # the rolls themselves are the library's
    rng = chancekit.Streams(int(m.group(1)))["combat"]
    assert first.out.splitlines() == [str(chancekit.roll("4d6kh3", rng=rng))
                                      for _ in range(5)]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_dropped_dice_on_a_terminal(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe gets the markdown of str(RollResult) (documented, for chat bots); a terminal
    gets terminal styles and no ~~ marks; NO_COLOR gets the markdown again."""
    piped = _out(capsys, ["roll", "4d6kh3", "--seed", "7"]).out
    assert piped == "4d6kh3 (~~4~~, 5, 6, 6) = 17\n"
    tty = _Tty()
    monkeypatch.setattr("sys.stdout", tty)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert main(["roll", "4d6kh3", "--seed", "7"]) == 0
    shown = tty.getvalue()
    assert "~~" not in shown and "\x1b[2;9m4\x1b[22;29m" in shown
    assert re.sub(r"\x1b\[[0-9;]*m", "", shown) == "4d6kh3 (4, 5, 6, 6) = 17\n"
    assert _dice.terminal_breakdown("1d20 (**20**) = 20") == "1d20 (\x1b[1m20\x1b[22m) = 20"
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _dice.on_terminal(tty)


def test_max_work_raises_the_limit_for_one_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    """831d100 is refused by MAX_WORK (its estimate is about 55.7 million units) and
    answered with --max-work 4e8, before or after the command's arguments; the refusal
    names the flag; a budget below the work refuses even 3d6."""
    refused = _out(capsys, ["dist", "831d100"], code=1)
    assert "MAX_WORK" in refused.err and "--max-work N raises this limit" in refused.err
    assert refused.err.count("\n") == 1          # still one line
    for argv in (["dist", "831d100", "--max-work", "4e8", "--json"],
                 ["--max-work", "400000000", "dist", "831d100", "--json"]):
        doc = json.loads(_out(capsys, argv).out)
        assert Fraction(doc["mean"]) == Fraction(831 * 101, 2)
    low = _out(capsys, ["dist", "3d6", "--max-work", "10"], code=1)
    assert "MAX_WORK = 10" in low.err
    for bad in ("1.5", "0", "x", "1e16"):
        assert "--max-work must be" in _out(capsys, ["dist", "3d6", "--max-work", bad],
                                            code=1).err
    # the limit is for that one command: the next is back to the default
    _out(capsys, ["dist", "831d100"], code=1)


def test_estimate_command(capsys: pytest.CaptureFixture[str]) -> None:
    """`estimate` is the library's estimate of the seeded stream; unseeded, the seed it
    prints repeats it; a refusal of `dist` points to it."""
    from chancekit.dice.montecarlo import estimate

    doc = json.loads(_out(capsys, ["estimate", "1000d6kh500", "-n", "100", "--seed", "3",
                                   "--json"]).out)
    e = estimate("1000d6kh500", 100, rng=chancekit.PCG32(3))
    assert {o["outcome"]: o["count"] for o in doc["outcomes"]} == e.counts
    assert doc["samples"] == 100 and doc["complete"] and doc["mean"] == e.mean
    assert all(o["low"] <= o["frequency"] <= o["high"] for o in doc["outcomes"])
    first = _out(capsys, ["estimate", "2d6", "-n", "200"])
    seed = re.search(r"--seed (\d+) -n 200 repeats", first.err)
    assert seed, first.err
    again = _out(capsys, ["estimate", "2d6", "-n", "200", "--seed", seed.group(1)])
    assert again.out == first.out and "not exact" in first.out
    refused = _out(capsys, ["dist", "2000d6kh1000"], code=1)
    assert "chancekit estimate EXPR" in refused.err


@pytest.mark.parametrize("argv", [["serve", "--tune-time-limit", "0"],
                                  ["serve", "--time-limit", "5000"]])
def test_serve_time_limits_are_checked(capsys: pytest.CaptureFixture[str],
                                       argv: list[str]) -> None:
    err = _out(capsys, argv, code=1).err
    assert "must be between 0 and 3600 seconds" in err and err.count("\n") == 1


def test_estimate_help_and_seconds_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    assert "95 % Wilson" in capsys.readouterr().out      # no doubled %% in the description
    err = _out(capsys, ["estimate", "3d6", "--seconds", "0"], code=1).err
    assert "more than 0 and at most 3600" in err and err.count("\n") == 1
