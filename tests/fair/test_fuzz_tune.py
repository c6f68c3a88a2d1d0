"""Fuzzing the fair-randomness entry points that take user data: ``tune`` (arbitrary grids,
sample lengths / distributions, entropy floors, system lists), ``system_from_spec`` (spec
strings) and ``chancekit tune|fairness|simulate`` (the ``--samples`` parser and specs).
Nothing but chancekit's documented errors may escape. Valid cases are kept tiny (n <= 4,
N <= 6) so each call is milliseconds; hostile sizes are mixed in and must be refused up
front. Counts: docs/fuzzing.md.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from _fuzz import fuzz_settings, run_cli, time_budget
from chancekit.errors import ChancekitError
from chancekit.fair import System, TuneResult, system_from_spec, tune
from chancekit.fair.tune import FAMILIES
from chancekit.rng import PCG32

FAMILY = st.sampled_from([*FAMILIES, "Dice", "prd", "", "deck ", "x"])
HOSTILE_INT = st.sampled_from([0, -1, 1, 10**6 + 1, 10**9, 2**64, -(2**70)])
SCALAR = st.one_of(
    st.integers(-2, 12), st.floats(), st.floats(0, 1), HOSTILE_INT, st.text(max_size=3),
    st.none(), st.booleans(), st.fractions(max_denominator=10),
    st.sampled_from([math.nan, math.inf, -math.inf, 0.5, 1e-300, Fraction(1, 3)]),
)
PARAM = st.one_of(
    st.tuples(), st.tuples(SCALAR), st.tuples(SCALAR, SCALAR),
    st.tuples(st.integers(1, 4), st.integers(1, 4)), st.tuples(st.floats(0, 1)),
    st.lists(SCALAR, max_size=3), SCALAR, st.lists(st.lists(SCALAR, max_size=2), max_size=2),
    st.tuples(st.lists(SCALAR, max_size=2)),
)
GRID = st.one_of(
    st.dictionaries(FAMILY, st.lists(PARAM, max_size=4), max_size=3),
    st.none(), st.lists(PARAM, max_size=2), st.text(max_size=3),
    st.dictionaries(FAMILY, st.one_of(SCALAR, st.text(max_size=3)), max_size=2),
)
SAMPLES = st.one_of(
    st.integers(1, 6), HOSTILE_INT, st.builds(range, st.integers(-1, 4), st.integers(-1, 7)),
    st.lists(st.one_of(st.integers(0, 6), SCALAR), max_size=3),
    st.dictionaries(st.one_of(st.integers(0, 6), SCALAR), st.one_of(st.floats(0, 5), SCALAR),
                    max_size=3),
    st.floats(), st.text(max_size=3), st.none(), st.booleans(),
)
VALUES = st.one_of(st.integers(2, 4), HOSTILE_INT, st.lists(st.integers(), max_size=4),
                   st.text(max_size=3), st.floats(), st.none(), st.booleans())
SYSTEMS = st.one_of(st.lists(FAMILY, max_size=3), FAMILY, st.none(), st.integers())
ENTROPY = st.one_of(st.floats(0, 1), st.floats(), SCALAR)
FLOOR = st.sampled_from(["average", "every", "", "AVERAGE", None, 1])


@fuzz_settings(quick=500, long=40_000)
@given(VALUES, SAMPLES, ENTROPY, GRID, SYSTEMS, FLOOR)
def test_tune_arguments(values, samples, min_entropy, grid, systems, floor) -> None:
    kwargs = {"grid": grid, "floor": floor}
    if systems is not None:
        kwargs["systems"] = systems
    with time_budget(repr((values, samples, min_entropy, kwargs))):
        try:
            result = tune(values, samples, min_entropy, **kwargs)
        except ChancekitError:
            return
    assert isinstance(result, TuneResult)
    for fam, table in result.tables.items():
        assert all(c.family == fam for c in table)
        assert all(c.feasible and c.rank == 1 for c in result.winners[fam])
    result.to_dict()


@fuzz_settings(quick=300, long=30_000)
@given(st.dictionaries(st.sampled_from(list(FAMILIES)), st.lists(PARAM, min_size=1, max_size=4),
                       min_size=1, max_size=2),
       st.integers(2, 4), st.integers(1, 6), st.floats(0, 1))
def test_tune_grids(grid, values, samples, min_entropy) -> None:
    """Well-formed calls with arbitrary grids only: the grid is what is fuzzed."""
    with time_budget(repr(grid)):
        try:
            result = tune(values, samples, min_entropy, grid=grid, systems=tuple(grid))
        except ChancekitError:
            return
    assert set(result.tables) == set(grid)


NAMES = ["dice", "d", "die", "deck", "bag", "generalized-deck", "gdeck", "dynamic-dice",
         "ddice", "history-reroll", "tgm", "prd", "pity", "pity-timer", "error-accumulator",
         "erracc", "DICE", "coin", "", " deck"]
ARG = st.one_of(
    st.integers(-2, 12).map(str), st.floats(allow_nan=True).map(repr),
    st.sampled_from(["0.355", "0.5", "1e9", "1e999", "nan", "inf", "-inf", "10000", "10001",
                     "99999999999999999999", "weights=14/5/1", "weights=1/0", "weights=",
                     "weights=a/b", "weights=0.5/0.5", "x=1", "=", ""]),
    st.text(max_size=4),
)
SPEC_VALID = ["dynamic-dice:0.355", "gdeck:1,6+no-repeat", "deck:weights=14/5/1", "dice",
              "history-reroll:4,4", "prd:0.25", "pity:0.1,3,0.2,6", "erracc:0.3",
              "ddice:0.5,weights=1/2/3", "tgm+norepeat"]


@st.composite
def spec_text(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        text = list(draw(st.sampled_from(SPEC_VALID)))
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(text)))
            ch = draw(st.sampled_from(":,=+/.-0123456789eapx ") | st.characters())
            if draw(st.booleans()) and pos < len(text):
                text[pos] = ch
            else:
                text.insert(pos, ch)
        return "".join(text)
    name = draw(st.sampled_from(NAMES) | st.text(max_size=4))
    args = draw(st.lists(ARG, max_size=5))
    suffix = draw(st.sampled_from(["", "+no-repeat", "+norepeat", "+NO-REPEAT", "+"]))
    return name + (":" + ",".join(args) if args or draw(st.booleans()) else "") + suffix


@fuzz_settings(quick=1_000, long=100_000)
@given(st.one_of(spec_text(), st.text(max_size=12)),
       st.one_of(st.integers(2, 8), HOSTILE_INT, st.floats(), st.none()))
def test_system_from_spec(spec, n) -> None:
    with time_budget(repr((spec, n))):
        try:
            system = system_from_spec(spec, n)
        except ChancekitError:
            return
        assert isinstance(system, System)
        probs = system.probabilities()
        assert abs(sum(probs) - 1) < 1e-9 and all(p >= 0 for p in probs)
        assert len(system.draw_many(3, PCG32(1))) == 3


SAMPLES_TEXT = st.one_of(
    st.integers(-1, 6).map(str),
    st.builds(lambda a, b: f"{a}..{b}", st.integers(-1, 5), st.integers(-1, 7)),
    st.lists(st.builds(lambda k, w: f"{k}:{w}", st.integers(-1, 6),
                       st.sampled_from(["1", "2.5", "", "nan", "inf", "-1", "0", "x", "1e999"])),
             min_size=1, max_size=3).map(",".join),
    st.text("0123456789.:,-+ e_nai", max_size=8),
    st.sampled_from(["100001", "1000000000", "1..100001", "3:1,100001:1", " 4 ", "1...3",
                     "..", ":", ",", "٣", "2:1,2:1"]),
    st.text(max_size=6),
)


@fuzz_settings(quick=200, long=15_000)
@given(SAMPLES_TEXT, st.sampled_from(["2", "3", "4", "1", "0", "-3", "1000001"]),
       st.sampled_from(["0.5", "0.9", "0", "1", "nan", "inf", "-0.1", "1.5"]),
       st.sampled_from(["dice,deck", "generalized-deck", "dynamic-dice", "deck", "", ",",
                        "prd", "dice,dice"]),
       st.sampled_from(["average", "every"]), st.booleans())
def test_cli_tune(capsys, samples, values, entropy, systems, floor, as_json) -> None:
    argv = ["tune", "--values", values, f"--samples={samples}", "--min-entropy", entropy,
            "--systems", systems, "--floor", floor, "--top", "2"]
    with time_budget(repr(argv)):
        run_cli([*argv, "--json"] if as_json else argv, capsys)


@fuzz_settings(quick=300, long=20_000)
@given(st.one_of(spec_text(), st.text(max_size=10)),
       st.sampled_from(["2", "3", "4", "1", "0", "1000001", "x"]),
       st.sampled_from(["1", "3", "6", "0", "-1", "100001"]),
       st.sampled_from([[], ["--trials", "5", "--seed", "1"], ["--prune", "0.1"],
                        ["--trials", "0", "--seed", "1"], ["--prune", "nan"], ["--json"]]),
       st.booleans())
def test_cli_fairness_simulate(capsys, spec, values, samples, extra, simulate) -> None:
    if simulate:
        argv = ["simulate", f"{spec}", "--values", values, "-n", samples, "--seed", "3"]
    else:
        argv = ["fairness", f"{spec}", "--values", values, "--samples", samples, *extra]
    with time_budget(repr(argv)):
        run_cli(argv, capsys)
