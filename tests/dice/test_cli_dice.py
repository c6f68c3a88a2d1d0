"""``chancekit dist`` and ``chancekit roll``, run in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chancekit.cli.main import main
from chancekit.dice.notation import roll
from chancekit.rng import PCG32, Streams


def test_dist_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "4d6kh3"]) == 0
    out = capsys.readouterr().out
    assert "outcome" in out and "at least" in out and "at most" in out
    row18 = next(line for line in out.splitlines() if line.strip().startswith("18 "))
    assert "1.6204%" in row18  # 21/1296
    assert "mean 12.2446 (exactly 15869/1296), sd 2.8468" in out


def test_dist_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "1d20+5 >= 15", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["outcome"] for o in data["outcomes"]] == [0, 1]
    assert data["outcomes"][1]["probability"] == 0.55  # dist/2: a float; exact: weight/total
    assert data["outcomes"][1]["weight"] == "11" and data["total_weight"] == "20"
    assert data["outcomes"][1]["at_least"] == 0.55
    assert data["mean"] == "11/20" and data["hidden"] == 0


def test_dist_fraction_outcomes_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "1d2/2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["outcome"] for o in data["outcomes"]] == ["1/2", 1]


def test_dist_hides_tiny_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "40d6"]) == 0
    assert "--all shows them" in capsys.readouterr().out
    assert main(["dist", "40d6", "--all"]) == 0
    assert "--all shows them" not in capsys.readouterr().out


def test_dist_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "d.png"
    assert main(["dist", "3d6", "--plot", str(f)]) == 0
    assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["dist", "3d6", "--plot", str(tmp_path / "no" / "d.png")]) == 1
    assert "existing folder" in capsys.readouterr().err


def test_dist_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "3d6x2"]) == 1
    err = capsys.readouterr().err
    assert "unexpected 'x' at column 4" in err
    assert err.splitlines()[-1] == "     ^"
    assert main(["dist", "1000000d1000000"]) == 1
    assert "MAX_DICE" in capsys.readouterr().err


def test_roll_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "4d6kh3", "--seed", "42", "-n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    g = PCG32(42)
    assert lines == [str(roll("4d6kh3", rng=g)) for _ in range(3)]


def test_roll_named_stream_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "1d20+5", "--seed", "12345", "--stream", "combat", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = roll("1d20+5", rng=Streams(12345)["combat"])
    assert data["rolls"] == [expected.to_dict()]
    assert data["seed"] == 12345 and data["stream"] == "combat"


def test_roll_raw_stream_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "3d6", "--seed", "1", "--stream", "7"]) == 0
    assert capsys.readouterr().out.strip() == str(roll("3d6", rng=PCG32(1, 7)))


def test_roll_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "1d1e1", "--seed", "1"]) == 1
    assert "every face" in capsys.readouterr().err
    assert main(["roll", "1d6", "-n", "0"]) == 1
    capsys.readouterr()


def test_epilogs_have_examples() -> None:
    from chancekit.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("dist", "roll"):
        assert f"chancekit {name} " in sub.choices[name].epilog
