"""``chancekit anydice FILE``: every output printed as ``dist`` prints it, ``--json`` that
follows its schema, ``--plot``, warnings on stderr, errors as one line plus the caret, and
hostile files (empty, binary, not UTF-8, huge, a folder, standard input, odd Unicode).

The answers are checked against brute-force enumeration of the dice, not against the
language itself."""

from __future__ import annotations

import io
import itertools
import json
import shlex
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chancekit.cli import _anydice
from chancekit.cli.main import build_parser, main
from chancekit.cli.schemas import SCHEMAS

pytest.importorskip("chancekit.anydice")

SAMPLE = Path(__file__).parent / "data" / "anydice" / "anydice-data-sample.jsonl"


def brute(faces: list[int], n: int, f: Any) -> dict[int, Fraction]:
    """P(f(roll)) over every roll of n dice with these faces."""
    c = Counter(f(r) for r in itertools.product(faces, repeat=n))
    total = sum(c.values())
    return {k: Fraction(v, total) for k, v in c.items()}


def write(tmp_path: Path, text: str | bytes, name: str = "p.dice") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


PROGRAM = 'output [highest 1 of 2d6] named "best of two"\nX: 3\noutput Xd4\n'


def test_each_output_is_printed_as_dist_prints_it(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    code, out, err = run(capsys, ["anydice", write(tmp_path, PROGRAM)])
    assert code == 0 and err == ""
    blocks = out.split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["best of two", "output 2"]
    for block, want in zip(blocks, [brute([1, 2, 3, 4, 5, 6], 2, max),
                                     brute([1, 2, 3, 4], 3, sum)], strict=True):
        rows = {int(line.split()[0]): line.split()[1] for line in block.splitlines()[2:]
                if line.split() and line.split()[0].isdigit()}
        assert rows == {k: f"{100 * float(p):.4f}%" for k, p in want.items()}
        mean = sum(k * p for k, p in want.items())
        assert f"mean {float(mean):.4f}" in block


def test_json_follows_the_schema_and_is_exact(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    code, out, _ = run(capsys, ["anydice", write(tmp_path, PROGRAM), "--json"])
    assert code == 0
    doc = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMAS["anydice"]).validate(doc)
    assert doc["schema"] == "chancekit.anydice/1" and doc["warnings"] == []
    assert [o["label"] for o in doc["outputs"]] == ["best of two", "output 2"]
    for o, want in zip(doc["outputs"], [brute([1, 2, 3, 4, 5, 6], 2, max),
                                        brute([1, 2, 3, 4], 3, sum)], strict=True):
        total = int(o["total_weight"])
        assert {r["outcome"]: Fraction(int(r["weight"]), total) for r in o["outcomes"]} == want
        assert Fraction(o["mean"]) == sum(k * p for k, p in want.items())


def test_standard_input_with_bom_and_windows_line_ends(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    data = "\ufeff" + PROGRAM.replace("\n", "\r\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode("utf-8"))))
    code, out, _ = run(capsys, ["anydice", "-", "--json"])
    assert code == 0
    assert [o["label"] for o in json.loads(out)["outputs"]] == ["best of two", "output 2"]


def test_odd_unicode_labels_and_names(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    text = 'output 1d2 named "🎲 ünïcødé ‮rtl‬ zero​width 骰子"\n'
    code, out, _ = run(capsys, ["anydice", write(tmp_path, text, "🎲 fichier.dice"), "--json"])
    assert code == 0
    assert json.loads(out)["outputs"][0]["label"] == "🎲 ünïcødé ‮rtl‬ zero​width 骰子"


def test_a_program_error_is_one_line_and_a_caret(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    code, out, err = run(capsys, ["anydice", write(tmp_path, "output 1d6\noutput 3 + }\n")])
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == 3 and "Traceback" not in err
    assert lines[0].startswith("chancekit anydice: error: ") and "line 2" in lines[0]
    assert lines[1].strip() == "output 3 + }"
    # the caret sits under the token the message names
    assert lines[2].index("^") == lines[1].index("}")


def test_an_unknown_function_error_suggests_the_nearest(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    code, out, err = run(capsys, ["anydice", write(tmp_path, "output [higest 3 of 4d6]\n")])
    assert code == 1 and out == ""
    assert "no function matches [higest ? of ?] (did you mean [highest N of DICE]?)" in err


def test_an_unfinished_line_is_blamed_where_it_stops(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    code, _, err = run(capsys, ["anydice", write(tmp_path, "output 1 + 2 +\noutput 2\n")])
    lines = err.splitlines()
    assert code == 1 and "line 1, column 15" in lines[0] and "unfinished" in lines[0]
    assert lines[1].strip() == "output 1 + 2 +"
    assert lines[2].index("^") == lines[1].index("+", lines[1].index("2")) + 1


@pytest.mark.parametrize("content,words", [
    (b"\x7fELF\x02\x01\x01\x00\x00", "not a text file: byte 8 is NUL"),
    (b"output 1d6 named \"\xff\xfe\"", "not UTF-8 text: byte 19 (0xff)"),
    (b"output 1d6\n" * 100_000, "larger than 1,000,000 bytes"),
])
def test_files_that_are_not_programs_are_refused_in_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, words: str) -> None:
    code, out, err = run(capsys, ["anydice", write(tmp_path, content)])
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and words in err


def test_missing_file_folder_and_undecodable_name(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    for target, words in [(str(tmp_path / "nope.dice"), "an existing file"),
                          (str(tmp_path), "not a folder"),
                          ("bad\udcff.dice", "not UTF-8")]:
        code, out, err = run(capsys, ["anydice", target])
        assert code == 1 and out == "" and len(err.splitlines()) == 1 and words in err, err


def test_empty_program_has_no_output(capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    path = write(tmp_path, "")
    code, out, err = run(capsys, ["anydice", path])
    assert code == 0 and out == "" and "no `output`" in err
    code, out, _ = run(capsys, ["anydice", path, "--json"])
    assert code == 0 and json.loads(out)["outputs"] == []
    code, _, err = run(capsys, ["anydice", path, "--plot", str(tmp_path / "x.png")])
    assert code == 1 and "at least one output" in err


def test_plot_of_one_and_of_several_outputs(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    for text, name in [("output 2d6\n", "one.png"), (PROGRAM, "two.png")]:
        code, _, _ = run(capsys, ["anydice", write(tmp_path, text), "--plot",
                                  str(tmp_path / name)])
        assert code == 0
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_help_examples_run(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every example of ``chancekit anydice --help``, with a program in attack.dice."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "attack.dice").write_text(
        "function: hit R:n { if R >= 15 { result: 1 } result: 0 }\noutput [hit d20]\n")
    action = next(a for a in build_parser()._actions if hasattr(a, "choices")
                  and isinstance(a.choices, dict))
    epilog = action.choices["anydice"].epilog
    examples = [line.strip() for line in epilog.splitlines() if "chancekit anydice" in line]
    assert len(examples) == 4
    for example in examples:
        feed, _, command = example.rpartition("| ")
        argv = shlex.split(command.split(" > ")[0])[1:]
        if feed:  # echo '...' | chancekit anydice -
            text = shlex.split(feed)[1] + "\n"
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        code, out, err = run(capsys, argv)
        assert code == 0, (example, err)
        assert out or (tmp_path / "attack.png").exists()
    assert (tmp_path / "attack.png").exists()


def test_real_programs_answer_or_fail_cleanly(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    """The 32 sample programs of posita/anydice-data: exit 0 with JSON, or exit 1 with a
    one-line error (plus the caret lines of a program error); never a traceback."""
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 32
    answered = 0
    for row in rows:
        code, out, err = run(capsys, ["anydice", write(tmp_path, row["program"]), "--json"])
        assert code in (0, 1) and "Traceback" not in err, row["id"]
        if code == 0:
            jsonschema.Draft202012Validator(SCHEMAS["anydice"]).validate(json.loads(out))
            answered += 1
        else:
            assert err.startswith("chancekit anydice: error: ") and len(err.splitlines()) in (
                1, 3), (row["id"], err)
    assert answered >= 28  # the language runs real programs, not just fails cleanly


def test_reading_is_bounded() -> None:
    """The reader never takes more than MAX_PROGRAM_BYTES + 1 bytes from a stream."""
    class Endless(io.RawIOBase):
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, b: Any) -> int:
            b[:] = b"a" * len(b)
            Endless.served += len(b)
            return len(b)

    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BufferedReader(Endless()))
    try:
        with pytest.raises(Exception, match="larger than"):
            _anydice.read_program("-")
    finally:
        sys.stdin = old
    from chancekit.limits import MAX_PROGRAM_BYTES

    assert Endless.served <= MAX_PROGRAM_BYTES + 1 + 2 * io.DEFAULT_BUFFER_SIZE


def test_a_known_anydice_defect_is_a_warning_on_stderr(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    """``d8 <= {1,2}``: AnyDice reads it as ``>``; chancekit answers exactly (the die
    against the sequence's sum, 3) and says so, on stderr and in ``warnings``."""
    path = write(tmp_path, "output d8 <= {1,2}\n")
    code, out, err = run(capsys, ["anydice", path])
    assert code == 0 and out.startswith("output 1")
    assert err.startswith("chancekit anydice: warning: ") and "defect" in err
    code, out, _ = run(capsys, ["anydice", path, "--json"])
    doc = json.loads(out)
    assert len(doc["warnings"]) == 1 and "defect" in doc["warnings"][0]
    o = doc["outputs"][0]
    assert {r["outcome"]: Fraction(int(r["weight"]), int(o["total_weight"]))
            for r in o["outcomes"]} == {1: Fraction(3, 8), 0: Fraction(5, 8)}


def test_labels_are_text_not_rich_markup(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    """An output named like rich markup (``[/x]`` closes no tag) prints as written."""
    label = "[bold]x[/] [/nope] [link=http://a]y"
    code, out, err = run(capsys, ["anydice", write(tmp_path, f'output 1d2 named "{label}"\n')])
    assert code == 0 and err == "" and out.splitlines()[0] == label


def test_control_characters_in_a_name_are_shown_not_obeyed(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An escape sequence in a program's ``named`` text would recolour the terminal: the
    table shows control characters as their visible pictures (``--json`` keeps the text)."""
    path = write(tmp_path, 'output 1d2 named "a\x1b[31mRED\x07b"\n')
    code, out, _ = run(capsys, ["anydice", path])
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert out.splitlines()[0] == "a\u241b[31mRED\u2407b"
    code, out, _ = run(capsys, ["anydice", path, "--json"])
    assert json.loads(out)["outputs"][0]["label"] == "a\x1b[31mRED\x07b"
