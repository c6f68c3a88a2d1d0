"""Fuzzing the command line: random argv lists built from every subcommand, every option
(read from the parser itself, so new options are fuzzed too) and plausible or hostile
values, run through ``chancekit.cli.main.main``. The outcome must be an exit code in
{0, 1, 2} -- argparse usage errors and ``--help``/``--version`` leave by ``SystemExit``
with 2 or 0 -- and no other exception; on exit code 1, stderr is one line naming the
command (plus the text and caret lines of a notation error). Counts: docs/fuzzing.md.

Cases stay cheap: counts, lengths and trials in the vocabulary are small, apart from a few
hostile huge values that must be refused up front; ``--workers`` never gets a positive value
(no process pools); files are written under ``tmp_path``.
"""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _fuzz import fuzz_settings, run_cli, time_budget
from chancekit.cli.main import build_parser


def _commands() -> dict[str, list[argparse.Action]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    # serve runs a web server until interrupted: tests/web covers it
    return {name: list(p._actions) for name, p in sub.choices.items() if name != "serve"}


COMMANDS = _commands()
OPTIONS = sorted({s for acts in COMMANDS.values() for a in acts for s in a.option_strings})
CHOICES = sorted({str(c) for acts in COMMANDS.values() for a in acts if a.choices
                  and not isinstance(a, argparse._SubParsersAction) for c in a.choices})

SMALL = ["0", "1", "2", "3", "4", "6", "-1", "0x10", "1.5", "", " "]
HOSTILE = ["10000001", "100001", "1000001", "99999999999999999999", "1e9", "nan", "inf",
           "-99999999999", "2**64", "١٢"]
NOTATION = ["3d6", "4d6kh3", "d%", "4dF", "1d20+5 >= 15", "2d{1,1,2}", "2d6ro<3mi2",
            "1d8 [fire] + 2d6//2", "(1d4, 2)kh1", "1000000d1000000", "1d0", "3d6x2", "((",
            "d", "1d6/0", "-1d6", "99999999999999999999d6"]
WEIGHTS = ["sword=5,shield=3,potion=12", "a=1/3,b=0.25", "a=1e999999999", "a=0", "a=-1",
           "a=1,a=2", "=", "a=1e1000,b=1e-1000"]
SPECS = ["dice", "deck", "dynamic-dice:0.355", "gdeck:1,6+no-repeat", "prd:0.25",
         "pity:0.1,3,0.2,6", "erracc:0.3", "tgm", "deck:weights=14/5/1", "ddice:nan",
         "gdeck:0,0", "history-reroll:4,10001", "nope:1", "prd:2"]
SAMPLES = ["3", "2..4", "3:1,4:2", "0..2", "6:nan", "1..100001", "x", "4:1e999"]
NAMES = ["a", "level-1", "dwarvish-mines-1", "", "é", "x" * 300, "0", "0x1f"]
FILES = ["out.png", "out.html", "out.txt", "sheet.csv", "", "nodir/out.png"]
VALUES = st.sampled_from(SMALL + HOSTILE + NOTATION + WEIGHTS + SPECS + SAMPLES + NAMES
                         + FILES + CHOICES + ["--", "-", "-x"]) | st.text(max_size=6)

# options whose values must stay in the cheap range (or be hostile and refused)
CHEAP = {"-n": SMALL + HOSTILE, "--count": SMALL + HOSTILE, "--trials": [*SMALL, "100001"],
         "--samples": SAMPLES, "--values": ["2", "3", "4", "1", "0", "1000001", "x"],
         "--workers": ["0", "-1", "x"], "--skip": SMALL + HOSTILE, "--top": SMALL,
         "--child": NAMES, "--id": NAMES, "--stream": NAMES + SMALL,
         "--row-die": [*SMALL, "100", "1000001"], "--check-die": [*SMALL, "100", "1000001"]}


@st.composite
def argv_lists(draw: st.DrawFn) -> list[str]:
    argv: list[str] = []
    if draw(st.integers(0, 9)):
        cmd = draw(st.sampled_from(sorted(COMMANDS)))
        argv.append(cmd)
        own = sorted({s for a in COMMANDS[cmd] for s in a.option_strings})
    else:  # no or an unknown command, or a top-level option
        own = ["--help", "--version", "-h"]
        argv += draw(st.lists(st.sampled_from([*OPTIONS, "bogus", "", "-"]), max_size=2))
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(st.integers(0, 9))
        if kind <= 5 and own:  # one of the command's own options, with a value
            opt = draw(st.sampled_from(own))
            if opt in ("-h", "--help") and draw(st.integers(0, 9)):
                continue  # keep --help rare: it ends every parse
            argv.append(opt)
            if draw(st.integers(0, 9)):
                argv.append(draw(st.sampled_from(CHEAP[opt]) if opt in CHEAP else VALUES))
        elif kind <= 8:  # a positional or stray value
            argv.append(draw(VALUES))
        else:  # an option of another command
            argv.append(draw(st.sampled_from(OPTIONS)))
    # --workers: never a positive number (no process pools in the fuzz run)
    # (argparse also takes an unambiguous prefix such as --work)
    for i, tok in enumerate(argv[:-1]):
        if len(tok) > 3 and "--workers".startswith(tok) and argv[i + 1].strip().lstrip(
                "+").isdigit() and int(argv[i + 1]) > 0:
            argv[i + 1] = "0"
    return [t for t in argv if not (t.startswith("--w") and "=" in t)]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --plot / -o write their files here
    return tmp_path


@fuzz_settings(quick=400, long=25_000)
@given(argv=argv_lists())
def test_cli_argv(in_tmp, capsys, argv: list[str]) -> None:
    with time_budget(repr(argv), 2.0):
        run_cli(argv, capsys)


def test_vocabulary_covers_every_command() -> None:
    assert {"dist", "roll", "sample", "table", "tune", "fairness", "simulate",
            "stream"} <= set(COMMANDS)
    assert {"--weights", "--samples", "--seed", "--json"} <= set(OPTIONS)
