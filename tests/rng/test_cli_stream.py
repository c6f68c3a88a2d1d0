"""`chancekit stream`, `chancekit tour`, and the CLI's error conventions, in-process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from chancekit import PCG32, Streams
from chancekit.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_raw_stream_matches_the_reference(capsys):
    code, out, _ = run(capsys, "stream", "--seed", "42", "--stream", "54", "-n", "6", "--hex")
    assert code == 0
    assert out.split() == ["0xa15c02b7", "0x7b47f409", "0xba1d3330", "0x83d2f293",
                           "0xbfa4784b", "0xcbed606e"]


def test_named_stream_with_bound_and_json(capsys):
    code, out, _ = run(capsys, "stream", "--seed", "12345", "--id", "dwarvish-mines-1",
                       "-n", "10", "--bound", "100", "--json")
    data = json.loads(out)
    g = Streams(12345)["dwarvish-mines-1"]
    assert code == 0 and data["draws"] == [g.randbelow(100) for _ in range(10)]
    assert data["state_after"]["state"] == f"{g.getstate().state:#018x}"


def test_children_skip_and_text_seed(capsys):
    code, out, _ = run(capsys, "stream", "--seed", "my-campaign", "--child", "dungeon",
                       "--id", "level-3", "-n", "3", "--skip", "2")
    g = Streams("my-campaign").child("dungeon")["level-3"]
    g.advance(2)
    assert code == 0 and out.split() == [str(g.next_u32()) for _ in range(3)]


def test_big_bound_uses_exact_multiword_draws(capsys):
    code, out, _ = run(capsys, "stream", "--seed", "1", "--bound", str(10**20), "-n", "3")
    g = PCG32(1)
    assert code == 0 and out.split() == [str(g.randbelow(10**20)) for _ in range(3)]


@pytest.mark.parametrize("argv,message", [
    (["stream", "--seed", "1", "--bound", "0"], "bound must be an integer >= 1, not 0"),
    (["stream", "--seed", "x", "--stream", "3"], "--seed must be an integer"),
    (["stream", "--seed", "-1"], "seed must be an integer from 0 to 2**64 - 1"),
    (["stream", "--seed", "1", "-n", "-3"], "-n must be an integer from 0"),
    (["stream", "--seed", "1", "--child", "a"], "--child goes with a named stream"),
])
def test_user_mistakes_are_one_line_on_stderr_exit_1(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["stream"], ["stream", "--seed", "1", "-n", "x"],
                                  ["stream", "--seed", "1", "--id", "a", "--stream", "2"],
                                  ["no-such-command"]])
def test_usage_errors_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_tour_runs_every_section_and_shows_its_command(capsys):
    from chancekit.cli._tour import SECTIONS

    code, out, _ = run(capsys, "tour")
    assert code == 0
    for title, _, argv in SECTIONS:
        assert title in out
        assert "$ chancekit " + " ".join(argv) in out
    for fact in ("13.2716%", "dwarvish-mines-1", "0.5089", "0.4590", "mean 10.5 -> 10.5"):
        assert fact in out


def test_console_script_and_module_entry_points():
    res = subprocess.run([sys.executable, "-m", "chancekit", "--version"], capture_output=True,
                         text=True, check=True)
    assert res.stdout.startswith("chancekit ")
    res = subprocess.run([sys.executable, "-m", "chancekit", "stream", "--seed", "1",
                          "--bound", "0"], capture_output=True, text=True)
    assert res.returncode == 1 and "Traceback" not in res.stderr
