"""``chancekit table`` and ``chancekit sample`` in-process."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from chancekit.cli.main import main

LOOT = "sword=5,shield=3,potion=12"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_weights_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "table", "--weights", LOOT, "--row-die", "6")
    assert code == 0
    assert "Roll a d6 for the row, then a d20" in out
    assert "largest error 0 points" in out
    assert "sword" in out and "potion" in out


@pytest.mark.parametrize("fmt, marker", [("md", "|---"), ("csv", "face,outcome"),
                                         ("html", "<!DOCTYPE html>"), ("text", "else")])
def test_table_formats(capsys: pytest.CaptureFixture[str], fmt: str, marker: str) -> None:
    code, out, _ = run(capsys, "table", "--weights", LOOT, "--format", fmt)
    assert code == 0 and marker in out


def test_table_output_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "loot.html"
    code, out, err = run(capsys, "table", "--weights", LOOT, "--format", "html", "-o",
                         str(target))
    assert code == 0 and out == "" and "wrote" in err
    assert target.read_text().startswith("<!DOCTYPE html>")


def test_table_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "table", "--weights", LOOT, "--row-die", "6", "--json")
    data = json.loads(out)
    assert code == 0 and data["tables"][0]["realized"] == {"sword": "1/4", "shield": "3/20",
                                                 "potion": "3/5"}
    assert len(data["tables"][0]["rows"]) == 6


def test_table_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "table", "--weights", "a=1,b=2,c=3", "--row-die", "2")
    assert code == 1 and "row_die=100" in err
    code, _, err = run(capsys, "table", "--weights", "a=1,b", "--row-die", "6")
    assert code == 1 and "'b'" in err and "label=weight" in err
    code, _, err = run(capsys, "table", "--weights", "a=1", "--check-die", "1")
    assert code == 1 and "at least 2 faces" in err
    code, _, err = run(capsys, "table")
    assert code == 1 and "--weights" in err


def test_sample_reproducible_and_distributed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sample", "--weights", LOOT, "-n", "2000", "--seed", "42",
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["seed"] == 42 and len(data["draws"]) == 2000
    counts = Counter(data["draws"])
    assert abs(counts["potion"] - 1200) < 120 and abs(counts["sword"] - 500) < 110
    _, again, _ = run(capsys, "sample", "--weights", LOOT, "-n", "2000", "--seed", "42",
                      "--json")
    assert json.loads(again)["draws"] == data["draws"]
    _, other, _ = run(capsys, "sample", "--weights", LOOT, "-n", "2000", "--seed", "42",
                      "--stream", "loot-room-1", "--json")
    assert json.loads(other)["draws"] != data["draws"]


def test_sample_no_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sample", "--weights", LOOT, "-n", "500", "--seed", "1",
                       "--no-repeat", "1")
    draws = out.split()
    assert code == 0 and len(draws) == 500
    assert not any(a == b for a, b in itertools.pairwise(draws))


@pytest.mark.parametrize("weights, needle", [
    ("sword=-1,shield=2", "sword=-1"),
    ("sword=nan", "nan"),
    ("sword=inf", "inf"),
    ("sword=0,shield=0", "every weight is zero"),
    ("sword=5,,shield=2", "label=weight"),
    ("sword=5,sword=2", "twice"),
    ("", "label=weight"),
])
def test_sample_bad_weights(capsys: pytest.CaptureFixture[str], weights: str,
                            needle: str) -> None:
    code, out, err = run(capsys, "sample", "--weights", weights, "--seed", "1")
    assert code == 1 and out == "" and needle in err
    assert "Traceback" not in err


def test_table_plot_writes_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "t.png"
    code, _, err = run(capsys, "table", "3d6", "--plot", str(target))
    assert code == 0 and "wrote" in err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    loot = tmp_path / "loot.png"
    code, _, _ = run(capsys, "table", "--weights", LOOT, "--row-die", "6", "--json",
                     "--plot", str(loot))
    assert code == 0 and loot.read_bytes()[:4] == b"\x89PNG"


def test_table_plot_refuses_a_bad_path_before_the_work(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "t.xyz"
    code, out, err = run(capsys, "table", "3d6", "--plot", str(bad))
    assert code == 1 and out == "" and "--plot" in err and ".png" in err
    assert not bad.exists()
    code, _, err = run(capsys, "table", "3d6", "--plot", str(tmp_path / "no" / "t.png"))
    assert code == 1 and "existing folder" in err


def test_table_two_stage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "table", "2d20", "--two-stage")
    assert code == 0 and "First stage" in out and "22 to 40" in out
    assert "2d20 overall: mean 21 ->" in out
    code, out, _ = run(capsys, "table", "2d20", "--two-stage", "--format", "md")
    assert code == 0 and "## Second stage" in out
    png = tmp_path / "two.png"
    code, _, _ = run(capsys, "table", "2d20", "--two-stage", "--plot", str(png))
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "table", "2d20", "--two-stage", "--json")
    assert code == 1 and "--two-stage" in err
    code, _, err = run(capsys, "table", "2d20")
    assert code == 1 and "--two-stage" in err
