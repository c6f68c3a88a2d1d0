"""Cold start (issue 22): each command imports only what it uses. Counted, not timed: a
fresh process runs the command, then lists the modules it loaded; python-flint, numpy and
the heavy parts of chancekit must be absent where the command has no use for them (the
times are in benchmarks/bench_cold.py and docs/performance.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = {"numpy", "flint", "chancekit.dice.cards", "chancekit.dice.symbols",
         "chancekit.dice.stats", "chancekit.web", "chancekit.sampling.tabletop", "rich",
         "matplotlib"}
ENGINE = {"chancekit.dice.distribution", "chancekit.dice._parse", "chancekit.dice.pool"}

RUN_CLI = """
import json, sys
from chancekit.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""
RUN_CODE = """
import json, sys
{code}
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def loaded(program: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    tail = done.stderr.rpartition("\nMODULES ")[2]
    assert tail, done.stderr
    mods = set(json.loads(tail))
    return mods | {m.partition(".")[0] for m in mods}


@pytest.mark.parametrize("argv,absent", [
    (["--version"], HEAVY | ENGINE | {"typing", "chancekit.cli._dice", "argparse"}),
    # the listing is written from the recorded commands, not by argparse's formatter
    # (which loads shutil for the terminal width and locale for its message catalogue)
    (["--help"], HEAVY | ENGINE | {"typing", "shutil", "locale"}),
    (["-h"], HEAVY | ENGINE | {"typing", "shutil", "locale"}),
    ([], HEAVY | ENGINE | {"typing", "shutil", "locale"}),
    (["dist", "--help"], HEAVY | ENGINE | {"typing"}),
    (["roll", "3d6", "--help"], HEAVY | ENGINE),
    (["roll", "3d6+2", "--seed", "1"], HEAVY),
    (["stream", "--seed", "1", "-n", "5"], HEAVY | ENGINE),
    (["stream", "--seed", "1", "--stream", "loot", "-n", "5", "--bound", "6", "--json"],
     HEAVY | ENGINE),
])
def test_a_command_loads_only_what_it_uses(argv: list[str], absent: set[str]) -> None:
    mods = loaded(RUN_CLI.format(argv=argv))
    assert "chancekit.cli.main" in mods  # the probe ran
    assert not mods & absent, sorted(mods & absent)


def test_every_commands_help_loads_no_engine_flint_numpy_or_typing() -> None:
    # one process runs `chancekit COMMAND --help` for every command: the union is clean
    program = """
import contextlib, io, json, sys
from chancekit.cli.main import build_parser, main
commands = sorted(build_parser()._subparsers._group_actions[0].choices)
assert len(commands) > 10, commands
for command in commands:
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            main([command, "--help"])
        except SystemExit:
            pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""
    mods = loaded(program)
    assert "chancekit.cli._dice" in mods
    assert not mods & (HEAVY | ENGINE | {"typing"}), sorted(mods & (HEAVY | ENGINE | {"typing"}))


def test_a_first_small_dist_loads_no_flint_numpy_cards_symbols_or_web() -> None:
    mods = loaded(RUN_CODE.format(code="import chancekit; chancekit.dist('3d6').mean()"))
    assert "chancekit.dice.distribution" in mods
    assert not mods & (HEAVY | {"chancekit.sampling", "chancekit.cli", "html"}), sorted(
        mods & (HEAVY | {"html"}))


def test_import_chancekit_alone_is_the_front_door_only() -> None:
    mods = loaded(RUN_CODE.format(code="import chancekit"))
    ours = {m for m in mods if m.startswith("chancekit.")}
    assert ours == {"chancekit.errors"}, ours
    assert "typing" not in mods


def test_the_big_paths_still_load_what_they_need() -> None:
    # the probe can fail: a dist past the small-power path does load python-flint
    mods = loaded(RUN_CODE.format(code="import chancekit; chancekit.dist('300d6')"))
    assert "flint" in mods


def test_only_the_command_that_runs_gets_its_parser_built() -> None:
    from chancekit.cli.main import _Recorder, build_parser

    def subparsers(parser):
        return next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")

    full = subparsers(build_parser()).choices
    one = subparsers(build_parser("dist")).choices
    listed = subparsers(build_parser(None)).choices
    assert list(full) == list(one) == list(listed)  # every command is listed, in order
    assert len(full["roll"]._actions) > 3 and len(full["dist"]._actions) > 3
    assert [a.dest for a in one["dist"]._actions] == [a.dest for a in full["dist"]._actions]
    assert one["roll"]._actions == [] and listed["dist"]._actions == []

    # the recorder replays nested calls on what the real calls return
    import argparse

    rec = _Recorder()
    group = rec.add_mutually_exclusive_group(required=True)
    group.add_argument("--a", action="store_true")
    group.add_argument("--b", action="store_true")
    rec.set_defaults(x=1)
    parser = argparse.ArgumentParser()
    rec.replay(parser)
    assert parser.parse_args(["--b"]) == argparse.Namespace(a=False, b=True, x=1)
