"""The rest of what a virtual table accepts (issue #32): Foundry's and Roll20's dice
syntax against independent brute-force oracles (tests/dice/_vtt_oracles.py), every
example formula of their references (tests/data/vtt_examples.tsv) answered or refused by
name, variables and queries, the command line."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _vtt_oracles import Endless, TooLong, enumerate_tapes, foundry_formula, roll20_formula

import chancekit.dice._compile as compile_mod
import chancekit.dice._roll as roll_mod
from chancekit.dice._parse import parse
from chancekit.dice.notation import ambiguities, dist, roll
from chancekit.errors import ChancekitError, LimitError, NotationError
from chancekit.rng import PCG32

DEPTH = 2  # explosion chains stop after 2 extra dice here (both sides patched alike)
DATA = Path(__file__).parent.parent / "data" / "vtt_examples.tsv"


@pytest.fixture
def small_depth(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(compile_mod, "EXPLODE_DEPTH", DEPTH)
    monkeypatch.setattr(roll_mod, "EXPLODE_DEPTH", DEPTH)
    return DEPTH


def _pmf(d: Any) -> dict[Any, Fraction]:
    t = d.total
    return {k: Fraction(w, t) for k, w in d.weights.items()}


def _agree(dialect: str, make: Any, seed: int, count: int) -> tuple[int, int, list[str]]:
    """``count`` random formulas: (answered and equal, refused by name, failures)."""
    rng = random.Random(seed)
    equal = refused = 0
    bad: list[str] = []
    seen = 0
    while seen < count:
        text, oracle, variables = make(rng)
        try:
            want = enumerate_tapes(lambda c, o=oracle: o(c, DEPTH))
        except TooLong:
            continue  # too many draws to enumerate: another formula
        except Endless:  # a reroll of every face: refused, never looped
            with pytest.raises(NotationError, match=r"forever|not take|not supported"):
                dist(text, dialect=dialect, variables=variables)
            continue
        seen += 1
        try:
            got = _pmf(dist(text, dialect=dialect, variables=variables))
        except NotationError as e:
            # the orders chancekit declines are refused by name, never a bare 'unexpected'
            if "not take" in e.problem or "forever" in e.problem or "not supported" in e.problem:
                refused += 1
                continue
            bad.append(f"{text}: {e}")
            continue
        want = {k: v for k, v in want.items() if v}
        if got != want:
            bad.append(f"{text}: got {got} want {want}")
        else:
            equal += 1
    return equal, refused, bad


def test_foundry_300_random_formulas_match_the_brute_force(small_depth: int) -> None:
    equal, refused, bad = _agree("foundry", foundry_formula, 32, 300)
    assert not bad, "\n".join(bad[:10])
    assert equal >= 265, (equal, refused)  # a refusal by name is rare (min/max orders)


def test_roll20_300_random_formulas_match_the_brute_force(small_depth: int) -> None:
    equal, refused, bad = _agree("roll20", roll20_formula, 20, 300)
    assert not bad, "\n".join(bad[:10])
    assert equal >= 290, (equal, refused)


@pytest.mark.parametrize("dialect,make", [("foundry", foundry_formula),
                                         ("roll20", roll20_formula)])
def test_roll_follows_the_same_oracle(dialect: str, make: Any, small_depth: int) -> None:
    """``roll()`` fed every tape gives the oracle's distribution too (its own code path)."""
    rng = random.Random(7)
    done = 0
    while done < 40:
        text, oracle, variables = make(rng)
        try:
            want = enumerate_tapes(lambda c, o=oracle: o(c, DEPTH))
        except (TooLong, Endless):
            continue
        try:
            dist(text, dialect=dialect, variables=variables)
        except NotationError:
            continue
        done += 1

        class Tape:
            def __init__(self, choose: Any) -> None:
                self.choose = choose

            def randbelow(self, n: int) -> int:
                return self.choose(n)

        tree = parse(text, dialect, variables)

        def run(choose: Any, text: str = text, tree: Any = tree) -> Any:
            return roll_mod.roll_tree(tree, Tape(choose), text)[0]

        try:
            got = enumerate_tapes(run, max_draws=40)
        except TooLong:
            continue
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}, text


# ----------------------------------------------------------------- documented examples
def _examples() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        dialect, formula, expect, source = line.split("\t")
        rows.append((dialect, formula, expect, source))
    return rows


def test_the_examples_file_names_its_sources() -> None:
    rows = _examples()
    assert len(rows) >= 60
    assert {r[0] for r in rows} == {"foundry", "roll20"}
    assert all(r[3] for r in rows)


@pytest.mark.parametrize("dialect,formula,expect,source", _examples())
def test_every_documented_example_is_answered_or_refused_by_name(
        dialect: str, formula: str, expect: str, source: str) -> None:
    if expect.startswith("refused:"):
        with pytest.raises(ChancekitError) as info:
            dist(formula, dialect=dialect)
        assert expect.removeprefix("refused:").strip() in str(info.value)
        assert "unexpected" not in str(info.value).splitlines()[0]
        return
    got = dist(formula, dialect=dialect, variables={"prof": 2, "abilities.str.mod": 3})
    if expect == "answered":
        return
    assert got.mean() == Fraction(expect), (formula, float(got.mean()))


# ----------------------------------------------------------------- by hand, small cases
@pytest.mark.parametrize("formula,mean", [
    ("2d6ms>=8", -1), ("2d6ms<8", 1), ("2d6ms>=0", 7), ("4d6sf<2", Fraction(38, 3)),
    ("6d6even", 3), ("6d6odd", 3), ("6d6df", 19), ("6d6cs>3df", 0), ("6d6cf<3df", -2),
    ("20d20cs", 1), ("6d6cf", 1), ("1d20r", Fraction(439, 40)), ("2dc", 1),
    ("1d6**2", Fraction(91, 6)), ("-2**2", -4), ("2**-2", Fraction(1, 4)),
    ("sign(1d6-3)", Fraction(1, 6)), ("trunc(-7/2)", -3), ("roundFast(-5/2)", -3),
    ("round(-5/2)", -2), ("clamp(1d20, 5, 15)", Fraction(41, 4)), ("pow(2, 1d3)", Fraction(14, 3)),
    ("sqrt(16)", 4), ("cbrt(-27)", -3), ("hypot(3, 4)", 5), ("roundDecimals(1/3, 2)",
                                                                Fraction(33, 100)),
    ("floor(sqrt(1d20))", Fraction(27, 10)), ("{1d20, 1d20}kh", Fraction(553, 40)),
    ("{2d6, 1d12}cs>6", Fraction(7, 12) + Fraction(1, 2)), ("1d20 + 5[fire]", Fraction(31, 2)),
    ("2d6ms>=8[margin] + 1", 0), ("2d6ms<8[under]", 1),
])
def test_foundry_readings_by_hand(formula: str, mean: Any) -> None:
    assert dist(formula, dialect="foundry").mean() == mean


def test_sqrt_of_a_non_square_is_javascripts_float() -> None:
    import math

    d = dist("sqrt(1d4)", dialect="foundry")
    assert set(d.outcomes()) == {1, math.sqrt(2), math.sqrt(3), 2}


@pytest.mark.parametrize("formula,mean", [
    ("[[1d4]]d6", Fraction(35, 4)), ("1d20 + [[1d4]]", 13), ("[[ [[1d4]] + 1 ]]", Fraction(7, 2)),
    ("4d6mt", Fraction(19, 24)), ("2d6mt", Fraction(1, 6)), ("2d6m", 7), ("2d6ms", 7),
    ("4d6sd", 14), ("1d20 + ?{Bonus|2}", Fraction(25, 2)),
    ("1d20 + ?{Cover|None,0|Half,2|Three quarters,5}", Fraction(21, 2)),
    ("{4d6, 4d6}kh1>10", None),
])
def test_roll20_readings_by_hand(formula: str, mean: Any) -> None:
    got = dist(formula, dialect="roll20")
    if mean is not None:
        assert got.mean() == mean


def test_roll20_matching_total_against_counting() -> None:
    """``4d6mt``: 1 - P(all distinct) - ... by counting the 1296 rolls directly."""
    import itertools
    from collections import Counter

    want: Counter[int] = Counter()
    for r in itertools.product(range(1, 7), repeat=4):
        want[sum(1 for c in Counter(r).values() if c >= 2)] += 1
    got = dist("4d6mt", dialect="roll20")
    assert {k: Fraction(v, 1296) for k, v in want.items()} == _pmf(got)
    want3: Counter[int] = Counter()
    for r in itertools.product(range(1, 7), repeat=4):
        want3[sum(1 for v, c in Counter(r).items() if c >= 3 and v >= 4)] += 1
    assert _pmf(dist("4d6mt3>=4", dialect="roll20")) == {
        k: Fraction(v, 1296) for k, v in want3.items()}


# ----------------------------------------------------------------- variables and queries
def test_variables_fill_at_names_and_formulas_read_as_in_parentheses() -> None:
    v = {"prof": 3, "dmg": "1d8+2", "level": "2"}
    assert dist("1d20 + @prof", dialect="foundry", variables=v).mean() == Fraction(27, 2)
    assert dist("2*@dmg", dialect="foundry", variables=v) == dist("2*(1d8+2)", dialect="foundry")
    assert dist("(@level)d6", dialect="foundry", variables=v).mean() == 7
    assert dist("1d@level", dialect="foundry", variables=v).mean() == Fraction(3, 2)
    assert dist("@{prof} + 1d20", dialect="roll20", variables=v).mean() == Fraction(27, 2)
    assert dist("1d20+?{Bonus|2}", dialect="roll20",
                variables={"Bonus": 5}).mean() == Fraction(31, 2)


@pytest.mark.parametrize("formula,dialect,variables,fragment", [
    ("1d20 + @prof", "foundry", None, "'@prof' has no value: give it with --var prof=VALUE"),
    ("@a", "foundry", {"a": "@a"}, "refers to itself"),
    ("@a", "foundry", {"a": "1d6+"}, "is not a formula"),
    ("1d20+?{Bonus}", "roll20", None, "has no default"),
    ("@a", "foundry", {"a": True}, "a number or a formula"),
])
def test_variable_errors_name_the_variable(formula: str, dialect: str, variables: Any,
                                           fragment: str) -> None:
    with pytest.raises(ChancekitError) as info:
        dist(formula, dialect=dialect, variables=variables)
    assert fragment in str(info.value)


def test_an_exponential_chain_of_variables_is_refused_by_a_limit() -> None:
    chain = {chr(97 + i): f"@{chr(98 + i)}+@{chr(98 + i)}" for i in range(20)}
    chain[chr(97 + 20)] = "1d6"
    with pytest.raises(LimitError) as info:
        dist("@a", dialect="foundry", variables=chain)
    assert info.value.limit == "MAX_LENGTH"


def test_queries_and_chat_commands_leave_a_note() -> None:
    notes = ambiguities("/r 1d20 + ?{Bonus|2}", "roll20")
    assert any("read as its default 2" in n for n in notes)
    assert any("chat command `/r`" in n for n in notes)
    assert dist("/r 1d20 + ?{Bonus|2}", dialect="roll20").mean() == Fraction(25, 2)


def test_the_margin_of_success_reads_differently_in_roll20_and_says_so() -> None:
    (line,) = ambiguities("2d6ms>=8", "foundry")
    assert "in roll20" in line and "margin of success" in line


# ----------------------------------------------------------------- named refusals
@pytest.mark.parametrize("formula,dialect,column,fragment", [
    ("3d6!", "foundry", 4, "Roll20's explode '!'"),
    ("2d6x", "roll20", 4, "Foundry's explode modifier 'x'"),
    ("2d6ms>=8", "avrae", 4, "unexpected"),  # avrae: no dialect to name
    ("4d6even", "roll20", 4, "Foundry's even-count modifier"),
    ("5d10x2>=8kh1", "foundry", 5, "limited explosions"),
    ("20d20r1=1kh1", "foundry", 6, "limited rerolls"),
    ("4d6min2r1", "foundry", 8, "reads the die as rolled"),
    ("4d6cs>4x", "foundry", 8, "after a count modifier"),
    ("sin(1)", "foundry", 1, "Foundry's Math.sin() is not supported"),
    ("sqrt(4)", "roll20", 1, "is a Foundry function"),
    ("1t[loot]", "roll20", 1, "rollable tables"),
    ("1d20 &{tracker}", "roll20", 6, "&{tracker}"),
    ("4d6zz", "foundry", 4, "'zz' is not a foundry dice modifier"),
    ("2**3", "avrae", 2, "'**' (a power) is roll20 and foundry notation"),
    ("2d6c1", "foundry", 4, "coin call"),
    ("4d6>3mt", "roll20", 4, "matching total 'mt' with target numbers"),
    ("3d6>[[1d4]]", "roll20", 5, "Roll20's rolled compare point"),
    ("{2d6+3}kh1", "roll20", 1, "Roll20's keep/drop across a grouped roll of dice and numbers"),
    ("{2d6*2}>3", "roll20", 1, "Roll20's grouped roll of one sub-roll"),
    ("{4d6kh3+1d8}>3", "roll20", 1, "whose dice already keep, drop or count"),
])
def test_refusals_name_the_construct_and_the_dialect(formula: str, dialect: str, column: int,
                                                     fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        dist(formula, dialect=dialect)
    assert fragment in info.value.problem, str(info.value)
    assert info.value.column == column, str(info.value)


@pytest.mark.parametrize("formula", ["2**99999999", "1d6**1d6**1d6", "pow(1d1000, 1d1000)",
                                     "sqrt(1d1000000)", "1d1000000**2"])
def test_huge_powers_and_maps_are_refused_before_the_work(formula: str) -> None:
    from _upfront import MAX_CALLS, PEAK_BYTES, measure

    raised, peak, calls = measure(lambda: dist(formula, dialect="foundry"))
    assert isinstance(raised, LimitError), raised
    assert calls < MAX_CALLS and peak < PEAK_BYTES, (calls, peak)


def test_rolls_of_the_new_constructs() -> None:
    r = roll("2d6ms>=8", PCG32(3), dialect="foundry")
    assert r.total == sum(r.dice) - 8
    r = roll("4d6mt", PCG32(3), dialect="roll20")
    from collections import Counter

    assert r.total == sum(1 for c in Counter(r.dice).values() if c >= 2)
    assert roll("[[1d4]]d6", PCG32(1), dialect="roll20").dice_rolled >= 2


# ----------------------------------------------------------------- the command line
def test_cli_var_option(capsys: pytest.CaptureFixture[str]) -> None:
    from chancekit.cli.main import main

    assert main(["dist", "--dialect", "foundry", "--json", "1d20+@prof", "--var",
                 "prof=3"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["mean"] in ("27/2", 13.5) or "13.5" in str(out)
    assert main(["roll", "--dialect", "roll20", "--seed", "1", "1d20+?{Bonus|2}"]) == 0
    err = capsys.readouterr().err
    assert "read as its default 2" in err
    assert main(["dist", "--dialect", "foundry", "1d20", "--var", "novalue"]) != 0
    assert "NAME=VALUE" in capsys.readouterr().err


def test_the_web_api_takes_variables() -> None:
    import json

    from chancekit.web.api import handle

    status, body = handle("/api/dist", json.dumps({
        "expressions": ["1d20 + @prof"], "dialect": "foundry", "variables": {"prof": 3}}))
    assert status == 200 and body["series"][0]["mean"] in ("27/2", 13.5)
    status, body = handle("/api/dist", json.dumps({
        "expressions": ["1d20 + @prof"], "dialect": "foundry"}))
    assert status == 422 and "'@prof' has no value" in body["error"]["message"]
    status, body = handle("/api/dist", json.dumps({
        "expressions": ["1d20"], "variables": {"x": [1]}}))
    assert status == 400 and body["error"]["field"] == "variables"


# ----------------------------------------------------------------- capitals, negative counts
@pytest.mark.parametrize("written,lower", [
    ("2D6KH1", "2d6kh1"), ("4d6KH3", "4d6kh3"), ("4D6Kh3", "4d6kh3"),
    ("10D10CS>=8DF=1", "10d10cs>=8df=1"), ("6d6EVEN", "6d6even"), ("4d10MIN2", "4d10min2"),
    ("5d10XO10", "5d10xo10"), ("3DCC1", "3dcc1"), ("2d20KL + 5", "2d20kl + 5"),
    ("1d20RR<3", "1d20rr<3"), ("3d6MS10", "3d6ms10"), ("4d6Sf<2", "4d6sf<2"),
])
def test_foundry_reads_its_modifiers_in_any_case(written: str, lower: str) -> None:
    """Foundry lower-cases a modifier's command (DiceTerm#_evaluateModifiers) and matches
    its arguments case-insensitively (Die's /i regular expressions)."""
    assert dist(written, dialect="foundry") == dist(lower, dialect="foundry")


def test_capitals_stay_refused_by_name_where_the_dialect_has_no_such_modifier() -> None:
    with pytest.raises(NotationError) as info:
        dist("2d6KH1", dialect="roll20")
    assert "'KH' is not a roll20 dice modifier" in info.value.problem
    with pytest.raises(NotationError) as info:
        dist("2d6ZZ", dialect="foundry")
    assert "'ZZ' is not a foundry dice modifier" in info.value.problem


@pytest.mark.parametrize("formula,want", [
    # Foundry rolls |n| dice for a count n < 0, applies the modifiers, negates the total
    ("(-1)d6", {-v: Fraction(1, 6) for v in range(1, 7)}),
    ("(1d2-2)d6", {0: Fraction(1, 2), **{-v: Fraction(1, 12) for v in range(1, 7)}}),
    ("(-2)d2kh1", {-1: Fraction(1, 4), -2: Fraction(3, 4)}),
    ("(-2)d2cs2", {0: Fraction(1, 4), -1: Fraction(1, 2), -2: Fraction(1, 4)}),
    # Die#total takes the margin off the negated total: -(1d2) - 1
    ("(-1)d2ms>=1", {-2: Fraction(1, 2), -3: Fraction(1, 2)}),
    ("-2d2", {-2: Fraction(1, 4), -3: Fraction(1, 2), -4: Fraction(1, 4)}),
    ("{-1d2}", {-1: Fraction(1, 2), -2: Fraction(1, 2)}),
    ("(@n)d2", {-2: Fraction(1, 4), -3: Fraction(1, 2), -4: Fraction(1, 4)}),
])
def test_foundry_negative_rolled_counts_negate_the_term(formula: str, want: Any) -> None:
    assert _pmf(dist(formula, dialect="foundry", variables={"n": -2})) == want


@pytest.mark.parametrize("dialect", ["roll20", "avrae"])
def test_other_dialects_keep_refusing_a_negative_count(dialect: str) -> None:
    with pytest.raises(NotationError, match="at least 0"):
        dist("(1d2-2)d6", dialect=dialect)


def test_rolling_a_negative_count() -> None:
    for seed in range(20):
        r = roll("(-3)d6", PCG32(seed), dialect="foundry")
        assert r.total == -sum(r.dice) and len(r.dice) == 3


@pytest.mark.parametrize("formula,column,fragment", [
    ("3DCC2", 4, "coin call 'c' applies to coins only"),
    ("{1d6,1d6}X", 10, "foundry's 'x' applies to dice, not to a group"),
    ("3d6ro1", 4, "Roll20's reroll-once 'ro' is not foundry notation"),
    ("3d6RO1", 4, "Roll20's reroll-once 'ro' is not foundry notation"),
    ("2d6ms", 6, "Foundry's margin of success 'ms' needs a target number"),
])
def test_foundry_refusals_in_any_case_name_the_construct(formula: str, column: int,
                                                         fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        dist(formula, dialect="foundry")
    assert fragment in info.value.problem and info.value.column == column, str(info.value)


def test_a_huge_negative_count_is_refused_by_the_dice_limit() -> None:
    with pytest.raises(LimitError) as info:
        dist("(-1000000000)d6", dialect="foundry")
    assert info.value.limit == "MAX_DICE" and "(negated)" in str(info.value)
    assert dist("3d6rodd", dialect="foundry") == dist("3d6r1odd", dialect="foundry")


@pytest.mark.parametrize("formula,want", [
    # Roll20: "the number of dice (N+Y) is rounded to the nearest whole number, just like
    # round(N+Y)" -- halves up, as its round()
    ("(5/2)d2", {3: Fraction(1, 8), 4: Fraction(3, 8), 5: Fraction(3, 8), 6: Fraction(1, 8)}),
    ("(-1/2)d6", {0: Fraction(1)}),
    ("(1d2/2)d2", {1: Fraction(1, 2), 2: Fraction(1, 2)}),  # 1/2 and 1 both round to 1
])
def test_roll20_rounds_a_computed_count(formula: str, want: Any) -> None:
    assert _pmf(dist(formula, dialect="roll20")) == want
    r = roll(formula, PCG32(5), dialect="roll20")
    assert r.total in want  # the dice of the count are among r.dice too
    with pytest.raises(NotationError, match="whole number"):
        dist(formula, dialect="avrae")


def test_roll20_text_after_the_formula_is_a_comment_with_a_note() -> None:
    notes = ambiguities("/roll 1d20+5 Roll for Initiative", "roll20")
    assert any("('Roll for Initiative') is read as Roll20 reads it: a comment" in n
               for n in notes)
    assert dist("1d20+5 Roll for Initiative", dialect="roll20") == dist("1d20+5",
                                                                        dialect="roll20")
    with pytest.raises(NotationError):  # no space before it: a typo, not a comment
        dist("1d20+5Roll", dialect="roll20")
