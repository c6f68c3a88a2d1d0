"""The command line's error conventions, across every subcommand: a user mistake is one
line on stderr (plus a caret line for notation), exit code 1, nothing on stdout, no
traceback; a usage mistake exits 2 with argparse's usage line. Random argv lists are
fuzzed in tests/test_fuzz_cli.py; this file pins the messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from chancekit.cli.main import main

MISTAKES = [
    (["dist", "3d6x2"], "unexpected 'x' at column 4"),
    (["dist", "2d6", "--plot", "chart.xyz"], "image format"),
    (["dist", "2d6", "--plot", "no-such-folder/d.png"], "existing folder"),
    (["nco", "-1", "2"], "action"),
    (["roll", "1d20", "-n", "0"], "-n must be"),
    (["roll", "1d20", "--seed", "text-seed"], "named stream"),
    (["table", "3d6", "-o", "no-such-folder/t.md"], "existing folder"),
    (["table", "3d6", "-o", "."], "cannot write"),           # a folder, found on writing
    (["table", "--weights", "a=1,b", "--row-die", "6"], "label=weight"),
    (["table", "2d20"], "row die"),
    (["sample", "1d6", "--swap", "1", "--no-repeat", "1"], "choose one filter"),
    (["sample"], "--weights"),
    (["tune", "--values", "3", "--samples", "3", "--min-entropy", "2"], "min_entropy"),
    (["tune", "--values", "3", "--samples", "x", "--min-entropy", "0.5"], "--samples"),
    (["tune", "--values", "3", "--samples", "3", "--min-entropy", "0.5", "--workers", "-1"],
     "--workers"),
    (["tune", "--values", "3", "--samples", "3", "--min-entropy", "0.5", "--plot", "t.txt"],
     "image format"),
    (["fairness", "deck", "--samples", "3", "--seed", "1"], "--trials"),
    (["fairness", "nope", "--samples", "3"], "nope"),
    (["fairness", "deck", "--samples", "0"], "samples"),
    (["simulate", "prd:2", "-n", "3", "--seed", "1"], "p"),
    (["stream", "--seed", "1", "--child", "a"], "named stream"),
    (["stream", "--seed", "-1"], "seed"),
]


@pytest.mark.parametrize("argv,fragment", MISTAKES, ids=[" ".join(a) for a, _ in MISTAKES])
def test_user_mistakes(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str],
                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"chancekit {argv[0]}: error: ") and fragment in lines[0]
    assert len(lines) == 1 or (len(lines) == 3 and lines[2].strip(" ^") == "")  # caret
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # refused before writing anything


@pytest.mark.parametrize("argv", [
    ["dist"], ["dist", "2d6", "--nope"], ["roll", "1d6", "-n", "x"], ["table", "--row-die"],
    ["tune", "--values", "3"], ["fairness", "deck"], ["schema", "nope"], ["stream"],
    ["no-such-command"], ["tune", "--values", "3", "--samples", "3", "--min-entropy",
                          "0.5", "--floor", "sometimes"],
])
def test_usage_mistakes_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: chancekit" in err and "Traceback" not in err


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "chancekit tour" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from chancekit import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"chancekit {__version__}"


def test_undecodable_arguments_are_escaped_not_a_crash(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fairness", "\udcffdeck", "--samples", "3"]) == 1  # byte 0xff from a shell
    err = capsys.readouterr().err
    assert "\\udcff" in err and "Traceback" not in err
