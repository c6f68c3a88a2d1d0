"""PCG32 against the reference: the C demo's output (tests/data, copied from the reference
demo run as pcg32_srandom_r(42, 54)) and randomgen's C implementation as an oracle."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from chancekit import PCG32
from chancekit.rng.pcg32 import PurePCG32

# the compiled core (when built) and the pure-Python one reproduce the same vectors
CORES = pytest.mark.parametrize("cls", [PCG32, PurePCG32], ids=["compiled", "python"])
DATA = Path(__file__).resolve().parents[1] / "data"
NUMBERS, SUITS = "A23456789TJQK", "hcds"


def parse_demo() -> list[dict[str, list[str]]]:
    rounds: list[dict[str, list[str]]] = []
    for line in (DATA / "pcg32-demo-42-54.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if re.match(r"Round \d+:", line):
            rounds.append({})
            continue
        key, _, value = line.strip().partition(":")
        rounds[-1][key] = value.split() if key != "Coins" else list(value.strip())
    return rounds


ROUNDS = parse_demo()


def test_demo_file_has_five_complete_rounds():
    assert len(ROUNDS) == 5
    for r in ROUNDS:
        assert (len(r["32bit"]), len(r["Coins"]), len(r["Rolls"]), len(r["Cards"])) == (
            6, 65, 33, 52)


@CORES
def test_reference_demo_all_rounds(cls):
    rng = cls(42, 54)
    for expected in ROUNDS:
        assert [f"0x{rng.next_u32():08x}" for _ in range(6)] == expected["32bit"]
        assert ["H" if rng.randbelow(2) else "T" for _ in range(65)] == expected["Coins"]
        assert [str(rng.randbelow(6) + 1) for _ in range(33)] == expected["Rolls"]
        cards = list(range(52))
        rng.shuffle(cards)
        assert [NUMBERS[c // 4] + SUITS[c % 4] for c in cards] == expected["Cards"]


@CORES
def test_bulk_paths_reproduce_the_demo(cls):
    # The same demo, with u32_array for the words and randbelow_array for coins and rolls.
    rng = cls(42, 54)
    for expected in ROUNDS:
        assert [f"0x{w:08x}" for w in rng.u32_array(6)] == expected["32bit"]
        assert ["H" if c else "T" for c in rng.randbelow_array(2, 65)] == expected["Coins"]
        assert [str(r + 1) for r in rng.randbelow_array(6, 33)] == expected["Rolls"]
        cards = list(range(52))
        rng.shuffle(cards)
        assert [NUMBERS[c // 4] + SUITS[c % 4] for c in cards] == expected["Cards"]


@pytest.mark.parametrize("state,inc", [(0, 1), (123, 77), (2**64 - 1, 2**64 - 1),
                                       (0xDEADBEEFCAFEF00D, 0x14057B7EF767814F)])
@CORES
def test_against_randomgen_c_pcg32(cls, state, inc):
    randomgen = pytest.importorskip("randomgen")
    oracle = randomgen.PCG32(0)
    oracle.state = {"bit_generator": "PCG32", "state": {"state": state, "inc": inc}}
    ours = cls.from_state((state, inc))
    expected = oracle.random_raw(100_000).astype(np.uint32)
    assert np.array_equal(ours.u32_array(100_000), expected)
    assert ours.getstate() == (oracle.state["state"]["state"], inc)
    oracle.advance(-12345)
    ours.advance(-12345)
    assert ours.getstate().state == oracle.state["state"]["state"]


@CORES
def test_pinned_vectors_csv(cls):
    """Outputs frozen by docs/reproducibility.md: words, random(), randbelow of big bounds."""
    rows = (DATA / "pcg32-pinned.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert header == ["seed", "stream", "method", "arg", "values"]
    for row in rows[1:]:
        seed, stream, method, arg, values = row.split(",", 4)
        rng = cls(int(seed), int(stream))
        want = values.split()
        n = len(want)
        if method == "next_u32":
            got = [str(rng.next_u32()) for _ in range(n)]
        elif method == "random":
            got = [float(rng.random()).hex() for _ in range(n)]
        elif method == "randbelow":
            got = [str(rng.randbelow(int(arg))) for _ in range(n)]
        elif method == "getrandbits":
            got = [str(rng.getrandbits(int(arg))) for _ in range(n)]
        else:  # pragma: no cover
            raise AssertionError(method)
        assert got == want, row[:60]
