"""``chancekit table`` and ``chancekit sample`` in-process."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
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
    code, _, err = run(capsys, "table", "2d20")
    assert code == 1 and "--two-stage" in err


def _by_enumeration(rows: list[dict], row_die: int, check_die: int) -> dict:
    """{outcome: Fraction}: every (row die, check die) pair of one table, counted."""
    out: dict = {}
    for r in rows:
        for c in range(1, check_die + 1):
            x = r["outcome"] if c <= r["threshold"] else r["alias"]
            out[x] = out.get(x, 0) + Fraction(1, row_die * check_die)
    return out


def _two_stage_by_enumeration(doc: dict) -> dict:
    rd, cd = doc["row_die"], doc["check_die"]
    pick = _by_enumeration(doc["first"]["rows"], rd, cd)
    out: dict = {}
    for g, table in enumerate(doc["second"], start=1):
        for x, p in _by_enumeration(table["rows"], rd, cd).items():
            out[str(x)] = out.get(str(x), 0) + pick.get(g, 0) * p
    return out


@pytest.mark.parametrize("argv", [["2d20"], ["3d6", "--row-die", "4", "--check-die", "6"],
                                  ["--weights", "a=1,b=2,c=3,d=4,e=5", "--row-die", "3"]])
def test_table_two_stage_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    import jsonschema

    from chancekit.cli.schemas import SCHEMAS
    from chancekit.sampling import TwoStageTable

    code, out, _ = run(capsys, "table", *argv, "--two-stage", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["tables"] == [] and len(doc["two_stage"]) == 1
    jsonschema.Draft202012Validator(SCHEMAS["table"]).validate(doc)
    sheet = doc["two_stage"][0]
    # the exact overall result, recomputed from the printed rows alone
    realized = {k: Fraction(v) for k, v in sheet["realized"].items()}
    assert _two_stage_by_enumeration(sheet) == realized
    assert sum(realized.values()) == 1
    # and it is the library's table, stage by stage
    src = argv[0] if argv[0] != "--weights" else {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    dice = {"row_die": int(argv[argv.index("--row-die") + 1]) if "--row-die" in argv else 20,
            "check_die": int(argv[argv.index("--check-die") + 1])
            if "--check-die" in argv else 20}
    t = TwoStageTable.build(src, **dice)
    assert sheet["groups"] == [list(g) for g in t.groups] or sheet["groups"] == [
        [str(x) for x in g] for g in t.groups]
    assert realized == {str(k): v for k, v in t.realized().pmf().items()}
    assert {k: Fraction(v) for k, v in sheet["target"].items()} == {
        str(k): v for k, v in t.target.items()}
    assert [[(r["face"], r["threshold"]) for r in s["rows"]] for s in sheet["second"]] == [
        [(r.face, r.threshold) for r in s.rows] for s in t.second]
    assert sheet["report"]["total_variation"] == float(t.report().total_variation)
    # single tables' documents carry an empty two_stage list
    code, out, _ = run(capsys, "table", "3d6", "--json")
    assert json.loads(out)["two_stage"] == []


def test_table_two_stage_csv_and_html(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    import csv
    import io

    from chancekit.sampling import TwoStageTable

    code, out, _ = run(capsys, "table", "2d20", "--two-stage", "--format", "csv")
    lines = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [k for k in lines[0]] == ["table", "face", "outcome", "threshold",
                                                   "alias"]
    assert len(lines) == 20 * 3 and {x["table"] for x in lines} == {"first", "1", "2"}
    # the exact result, by enumerating the CSV rows
    def rows(name: str) -> list[dict]:
        return [{"outcome": int(x["outcome"]) if x["outcome"] else None,
                 "threshold": int(x["threshold"]),
                 "alias": int(x["alias"]) if x["alias"] else None}
                for x in lines if x["table"] == name]
    sheet = {"row_die": 20, "check_die": 20, "first": {"rows": rows("first")},
             "second": [{"rows": rows("1")}, {"rows": rows("2")}]}
    t = TwoStageTable.build("2d20")
    assert _two_stage_by_enumeration(sheet) == {str(k): v
                                                for k, v in t.realized().pmf().items()}
    # several notations: one CSV, led by a title column
    code, out, _ = run(capsys, "table", "2d20", "--weights", "a=1,b=2", "--two-stage",
                       "--format", "csv")
    lines = list(csv.reader(io.StringIO(out)))
    assert lines[0][0] == "title" and {x[0] for x in lines[1:]} == {"2d20", "weights"}
    # html: one self-contained page, every table of both stages, to a file with -o
    page = tmp_path / "two.html"
    code, out, err = run(capsys, "table", "2d20", "3d20", "--two-stage", "--format", "html",
                         "-o", str(page))
    text = page.read_text()
    assert code == 0 and out == "" and "wrote" in err
    assert text.startswith("<!DOCTYPE html>") and text.count("<section") == 2
    assert "http" not in text and "<script" not in text  # nothing external
    assert text.count("<table>") == 2 * (1 + 1)          # first + one block of seconds each
    assert "2d20 overall</b>: mean 21 -&gt;" in text and "22 to 40" in text
    one = TwoStageTable.build("2d20").to_html()
    assert one.count("<table>") == 2 and one.count("<tr>") == 2 * (20 + 2)
