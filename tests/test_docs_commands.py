"""Every command example in README.md and docs/*.md is executed and its output compared.

Examples live in ```console blocks: a line ``$ chancekit ARGS`` followed by the exact
output expected (up to the next ``$`` line or the end of the block). A block whose output
should not be compared (e.g. it writes a file, or prints OS-seeded draws) marks the command
with a trailing ``  # output not compared``. Python examples in the same files run as
doctests (pytest --doctest-glob=*.md).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from chancekit.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_COMPARED = "# output not compared"


def examples():
    for path in FILES:
        text = path.read_text()
        for block in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M):
            start = text[: block.start()].count("\n") + 2
            lines = block.group(1).splitlines()
            i = 0
            while i < len(lines):
                if not lines[i].startswith("$ chancekit"):
                    i += 1
                    continue
                cmd, lineno = lines[i], start + i
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                yield pytest.param(cmd, lines[i + 1 : j],
                                   id=f"{path.name}:{lineno}")
                i = j


@pytest.mark.parametrize("command,expected", list(examples()))
def test_documented_command(command, expected, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # commands that write files write them here
    compare = not command.rstrip().endswith(NOT_COMPARED)
    argv = shlex.split(command.split(NOT_COMPARED)[0][2:])[1:]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, f"{command!r} exited {code}"
    if compare:
        got = [line.rstrip() for line in out.rstrip("\n").splitlines()]
        assert got == [line.rstrip() for line in expected], command
