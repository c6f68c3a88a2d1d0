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
    (["stream", "--seed", "1", "--bound", "0"], "--bound must be an integer from 1 to 2**4096"),
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


# -- issues #10 and #15 -------------------------------------------------------------------
import io  # noqa: E402
import os  # noqa: E402

from chancekit.cli import _stream  # noqa: E402
from chancekit.cli._output import print_json  # noqa: E402

HEX4000 = "0x" + "f" * 4000


def one_line_error(capsys, argv, code=1):
    got, out, err = run(capsys, *argv)
    assert got == code and out == ""
    assert "Traceback" not in err and err.count("\n") == 1 and len(err) < 800
    return err


@pytest.mark.parametrize("argv,message", [
    (["stream", "--seed", HEX4000, "-n", "1"], "--seed must be an integer of at most 4300"),
    (["stream", "--seed", HEX4000, "--stream", "a", "-n", "1"], "--seed must be an integer"),
    (["stream", "--seed", "1", "--bound", HEX4000, "-n", "1"], "--bound must be an integer"),
    (["stream", "--seed", "1", "--stream", HEX4000], "--stream must be an integer"),
    (["stream", "--seed", "9" * 5000, "--stream", "a"], "--seed must be an integer"),
    (["roll", "1d6", "--seed", HEX4000, "--stream", "a", "--json"], "--seed must be"),
], ids=range(6))
def test_huge_integers_on_the_command_line_are_one_line_errors(capsys, argv, message):
    assert message in one_line_error(capsys, argv)


@pytest.mark.parametrize("seed", [" 12345", "12345\n", "1_2345", "١٢٣٤٥", "１２３", "0x_ff"])
@pytest.mark.parametrize("extra", [[], ["--stream", "named"]])
def test_seeds_that_only_look_like_integers_are_refused(capsys, seed, extra):
    err = one_line_error(capsys, ["stream", "--seed", seed, *extra])
    assert "--seed must be an integer in plain ASCII digits" in err


def test_stream_number_that_only_looks_like_an_integer_is_refused(capsys):
    assert "--stream must be" in one_line_error(capsys, ["stream", "--seed", "1",
                                                         "--stream", " 5"])
    assert "--stream must be" in one_line_error(capsys, ["roll", "1d6", "--seed", "1",
                                                         "--stream", "5\n"])


def test_integers_in_every_plain_form_still_work(capsys):
    for seed in ("42", "+42", "0x2a", "0X2A", "0o52", "0b101010", "0"):
        code, out, _ = run(capsys, "stream", "--seed", seed, "--stream", "54", "-n", "1")
        assert code == 0
        assert out == f"{PCG32(int(seed, 0), 54).next_u32()}\n"
    code, out, _ = run(capsys, "stream", "--seed", "007", "--id", "a", "-n", "1")  # text
    assert code == 0 and out == f"{Streams('007')['a'].next_u32()}\n"


BAD = os.fsdecode(b"\xff")  # a surrogate-escaped str, as Python gives undecodable argv


@pytest.mark.parametrize("argv,option", [
    (["stream", "--seed", "1", "--stream", BAD, "-n", "1"], "--stream"),
    (["stream", "--seed", "1", "--id", BAD, "-n", "1"], "--id"),
    (["stream", "--seed", "1", "--child", BAD, "--id", "a", "-n", "1"], "--child"),
    (["stream", "--seed", "x" + BAD, "--id", "a", "-n", "1"], "--seed"),
    (["roll", "1d6", "--stream", BAD], "--stream"),
    (["roll", "1d6", "--seed", BAD, "--stream", "a"], "--seed"),
], ids=range(6))
def test_arguments_that_are_not_utf8_are_one_line_errors(capsys, argv, option):
    err = one_line_error(capsys, argv)
    assert f"{option} must be valid UTF-8 text" in err and "\\udcff" in err


def test_arguments_that_are_not_utf8_in_a_real_process():
    res = subprocess.run([os.fsencode(sys.executable), b"-m", b"chancekit", b"stream",
                          b"--seed", b"1", b"--stream", b"\xff", b"-n", b"1"],
                         capture_output=True)
    err = res.stderr.decode("utf-8", "replace")
    assert res.returncode == 1 and res.stdout == b""
    assert "--stream must be valid UTF-8 text" in err and "Traceback" not in err
    assert err.count("\n") == 1


# -- output written in blocks -----------------------------------------------------------------
def old_way(argv_bound, n, hexa, as_json, rng):
    """`chancekit stream` output as it was before block writing: all draws in one list."""
    if argv_bound is None:
        draws = rng.u32_array(n).tolist()
    elif argv_bound <= 2**32:
        draws = rng.randbelow_array(argv_bound, n).tolist()
    else:
        draws = [rng.randbelow(argv_bound) for _ in range(n)]
    if not as_json:
        fmt = "0x{:08x}" if hexa and argv_bound is None else "{}"
        return " ".join(fmt.format(x) for x in draws) + "\n"
    buf = io.StringIO()
    state = rng.getstate()
    print_json("stream", {"seed": 7, "stream": "s", "children": [], "bound": argv_bound,
                          "skip": 0, "draws": draws, "state_after": {
                              "state": f"{state.state:#018x}", "inc": f"{state.inc:#018x}"}},
               file=buf)
    return buf.getvalue()


@pytest.mark.parametrize("bound", [None, 6, 2**31 + 1, 2**32, 10**20])
@pytest.mark.parametrize("n", [0, 1, 13, 3 * 13 + 5])
@pytest.mark.parametrize("as_json,hexa", [(False, False), (False, True), (True, False)])
def test_block_output_is_bit_identical_to_the_one_shot_output(capsys, monkeypatch, bound, n,
                                                              as_json, hexa):
    monkeypatch.setattr(_stream, "BLOCK", 13)  # several blocks, and a partial last one
    argv = ["stream", "--seed", "7", "--stream", "s", "-n", str(n)]
    argv += ["--bound", str(bound)] if bound else []
    argv += ["--hex"] if hexa else []
    argv += ["--json"] if as_json else []
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert out == old_way(bound, n, hexa, as_json, Streams(7)["s"])


def test_block_output_with_the_real_block_size(capsys):
    n = 2 * _stream.BLOCK + 1000
    for extra in ([], ["--bound", "1000"]):
        code, out, _ = run(capsys, "stream", "--seed", "7", "--stream", "s", "-n", str(n),
                           *extra)
        assert code == 0
        assert out == old_way(int(extra[1]) if extra else None, n, False, False,
                              Streams(7)["s"])


MEMORY_CAPPED = """
import resource, subprocess, sys
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
proc = subprocess.Popen([sys.executable, "-m", "chancekit", "stream", "--seed", "1",
                         "-n", "2000000"] + sys.argv[1:], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, preexec_fn=cap)
count = 0
size = 0
while chunk := proc.stdout.read(1 << 16):
    count += chunk.count(b" ") + chunk.count(b"\\n")
    size += len(chunk)
err = proc.stderr.read().decode()
print(proc.wait(), count, size, repr(err[-300:]))
"""


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_two_million_draws_fit_under_a_1_gib_address_space(extra):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    res = subprocess.run([sys.executable, "-c", MEMORY_CAPPED, *extra], capture_output=True,
                         text=True, env=env, check=True)
    code, count, size, err = res.stdout.split(" ", 3)
    assert code == "0", err
    if not extra:  # 2 000 000 numbers: 1 999 999 spaces and one newline
        assert int(count) == 2_000_000
    else:
        assert int(count) > 2_000_000 and int(size) > 20_000_000


class CountingSink:
    """A stdout that keeps nothing: counts characters and numbers written."""

    def __init__(self):
        self.chars = 0
        self.separators = 0

    def write(self, text):
        self.chars += len(text)
        self.separators += text.count(" ") + text.count("\n")
        return len(text)

    def flush(self):
        pass


@pytest.mark.parametrize("extra", [[], ["--bound", "6"], ["--json"]])
def test_stream_memory_does_not_grow_with_n(monkeypatch, extra):
    import tracemalloc

    def peak(n):
        sink = CountingSink()
        monkeypatch.setattr(sys, "stdout", sink)
        tracemalloc.start()
        try:
            code = main(["stream", "--seed", "1", "-n", str(n), *extra])
            _, top = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert code == 0 and sink.separators >= n
        return top

    peak(1000)  # warm caches (jump tables, imports)
    small, large = peak(2 * _stream.BLOCK), peak(10 * _stream.BLOCK)
    # one-shot output held every draw: 5x the draws took ~5x the memory (~80 MB here)
    assert large < 1.5 * small
    assert large < 24 * 2**20
