"""Dialects of dice notation (issue #12): avrae (default), roll20, foundry.

* docs/notation.md's dialect table: every cell of a row has the same exact distribution;
* the expected values of the issue (``5d10>7`` 2.0 in Roll20, ``4d6k3`` 15869/1296,
  Foundry ``1d10r1`` 5.95, ``10d10>=8f1`` 2.0);
* ``roll()`` driven through every tape equals ``dist()`` for the new mechanics (success
  counting with failures, ``!!``, ``!p``, ``xo``, groups, rolled counts and sides);
* exact cross-checks with icepool and with an independent brute force;
* ``ambiguities``/``readings``, errors with a caret, the command line and the schemas.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool
import jsonschema
import pytest
from test_notation_brute import _normalise, enumerate_tapes

import chancekit
import chancekit.dice._compile as ast_eval
import chancekit.dice._roll as roll_mod
from chancekit.cli.main import main
from chancekit.cli.schemas import SCHEMAS
from chancekit.dice import Pool, d
from chancekit.dice._parse import parse
from chancekit.dice.notation import ambiguities, dist, readings, roll, weights
from chancekit.dice.selectors import at_least, at_most, equal, highest
from chancekit.errors import InvalidValueError, LimitError, NotationError
from chancekit.rng import PCG32

DOC = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
DIALECTS = ("avrae", "roll20", "foundry")


def _table_rows() -> list[tuple[str, dict[str, list[str]]]]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("| mechanic | avrae")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((cells[0], {dl: re.findall(r"`([^`]+)`", cell)
                                for dl, cell in zip(DIALECTS, cells[1:], strict=True)}))
    return rows


ROWS = _table_rows()


def test_the_table_has_a_row_per_mechanic() -> None:
    assert len(ROWS) >= 20
    assert all(any(cells.values()) for _, cells in ROWS)


@pytest.mark.parametrize(("mechanic", "cells"), ROWS, ids=[m for m, _ in ROWS])
def test_every_cell_of_a_table_row_means_the_same(mechanic: str,
                                                  cells: dict[str, list[str]]) -> None:
    results = [(dl, ex, dist(ex, dialect=dl)) for dl in DIALECTS for ex in cells[dl]]
    assert results, mechanic
    first = results[0][2]
    for dl, ex, got in results:
        assert got == first, (mechanic, dl, ex)
        roll(ex, rng=PCG32(1), dialect=dl)  # every cell also rolls


@pytest.mark.parametrize(("text", "dialect", "mean"), [
    ("5d10>7", "roll20", Fraction(2)),
    ("4d6k3", "roll20", Fraction(15869, 1296)),
    ("4d6k3", "foundry", Fraction(15869, 1296)),
    ("1d10r1", "foundry", Fraction(119, 20)),
    ("10d10>=8f1", "roll20", Fraction(2)),
    ("5d10>7", "avrae", Fraction(99979, 100000)),
    ("4d6k3", "avrae", Fraction(2)),
    ("1d10r1", "avrae", Fraction(6)),
    ("1d10r1", "roll20", Fraction(6)),
])
def test_expected_values_of_the_issue(text: str, dialect: str, mean: Fraction) -> None:
    assert dist(text, dialect=dialect).mean() == mean


def test_dialect_is_keyword_only_and_checked() -> None:
    for fn in (chancekit.dist, chancekit.roll, weights):
        p = inspect.signature(fn).parameters["dialect"]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default == "avrae"
    with pytest.raises(InvalidValueError, match="dialect"):
        dist("1d6", dialect="d20")
    with pytest.raises(TypeError):
        dist("1d6", "roll20")  # type: ignore[misc]


def test_the_web_app_sees_the_dialect_argument() -> None:
    from chancekit.web.compute import dist_job

    req = {"expressions": [{"text": "5d10>7"}], "dialect": "roll20"}
    out = dist_job(req, lambda done, total: None)
    assert out["dialect"] == "roll20" and out["series"][0]["text"] == "5d10>7"


# ---------------------------------------------------------------- roll() == dist()
GRID = {
    "roll20": ["3d4>3", "3d4>=3f1", "3d4<2", "3d4=4", "2d4!4>3f1", "3d4!!", "2d4!!kh1",
               "2d4!!>5", "2d4!p", "2d4!pkh1", "3d3!pkl1", "2d4k1", "3d4d1", "{3d4!}kh2",
               "{1d4+1, 1d6}kh1", "{1d4+2, 2d3}>4", "{2d4+1}>5", "(1d3)d4", "1d(1d4)",
               "(1d2)d(1d3)", "(1d3)d4kh1", "3d4kh2>3", "3d4!kh2>=3f1", "2d4ro1",
               "1d4cs>3cf1", "3d4sd", "1d4 # x", "{2d4!!}>5", "2d4mi2>3", "2d4!>=3",
               "2d4min2max3", "3d4kh2!", "{1d4, 1d4, 1d4}kh2>3", "(1d2+1)d{1,1,2}!",
               "3d4!>=3dl1", "2d4!!6>2"],
    "foundry": ["1d10xo", "2d4xo4", "2d4x>=3kh1", "3d4cs>=3df1", "3d4cf<2", "1d10r1",
                "2d4kh", "{1d4, 1d6}cs>3", "3d4x4cs>=3"],
    "avrae": ["{1d4+1, 1d6}kh1", "(1d3)d4", "1d(1d4)+1", "{3d4!}kh2", "1d4 # c",
              "(1d2)d4kh1", "1d(1)d4", "(1d2)d(1d2)d3"],
}
CASES = [(dl, t) for dl, ts in GRID.items() for t in ts]


@pytest.fixture
def small_depth(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(ast_eval, "EXPLODE_DEPTH", 2)
    monkeypatch.setattr(roll_mod, "EXPLODE_DEPTH", 2)
    return 2


class _Tape:
    def __init__(self, choose: Any) -> None:
        self.choose = choose

    def randbelow(self, n: int) -> int:
        return self.choose(n)


@pytest.mark.parametrize(("dialect", "text"), CASES, ids=[f"{a}:{b}" for a, b in CASES])
def test_roll_enumerated_equals_dist(dialect: str, text: str, small_depth: int) -> None:
    tree = parse(text, dialect)
    got, missing = enumerate_tapes(
        lambda ch: roll_mod.roll_tree(tree, _Tape(ch), text)[0], 30)
    w = weights(text, dialect=dialect)
    total = sum(w.values())
    assert missing == 0
    assert _normalise(got) == {k: Fraction(v, total) for k, v in w.items()}


# ---------------------------------------------------------------- independent checks
def _brute_chain(faces: range, match: Any, depth: int, shift: int = 0) -> list[tuple[list[int],
                                                                                        int]]:
    """Every explosion chain of one die as (dice values, weight out of len(faces)**(depth+1)):
    the die, then fresh dice while the last one matches, at most ``depth`` of them."""
    n = len(faces)
    out = []

    def go(values: list[int], raw_last: int, level: int, weight: int) -> None:
        if level < depth and match(raw_last):
            for f in faces:
                go([*values, f + shift], f, level + 1, weight)
        else:
            out.append((values, weight * n ** (depth - level)))

    for f in faces:
        go([f], f, 0, 1)
    return out


def _brute_pool(n: int, sides: int, match: Any, depth: int, shift: int,
                finish: Any) -> dict[Any, Fraction]:
    chains = _brute_chain(range(1, sides + 1), match, depth, shift)
    total = Fraction(0)
    out: dict[Any, Fraction] = {}
    for combo in itertools.product(chains, repeat=n):
        wt = 1
        dice: list[int] = []
        for values, w in combo:
            wt *= w
            dice += values
        v = finish(dice)
        out[v] = out.get(v, 0) + wt
        total += wt
    return {k: v / total for k, v in out.items()}


def _pmf(text: str, dialect: str) -> dict[Any, Fraction]:
    w = weights(text, dialect=dialect)
    t = sum(w.values())
    return {k: Fraction(v, t) for k, v in w.items()}


@pytest.mark.parametrize(("text", "n", "sides", "match", "shift", "finish"), [
    ("3d4!>=3>=3f1", 3, 4, lambda f: f >= 3, 0,
     lambda ds: sum(1 for x in ds if x >= 3) - sum(1 for x in ds if x <= 1)),
    ("2d4!pkh2", 2, 4, lambda f: f == 4, -1, lambda ds: sum(sorted(ds)[-2:])),
    ("3d3!p", 3, 3, lambda f: f == 3, -1, sum),
    ("3d4!dl1", 3, 4, lambda f: f == 4, 0, lambda ds: sum(ds) - min(ds)),
    ("2d4!kl2", 2, 4, lambda f: f == 4, 0, lambda ds: sum(sorted(ds)[:2])),
    ("2d6!6>=5f<2", 2, 6, lambda f: f == 6, 0,
     lambda ds: sum(1 for x in ds if x >= 5) - sum(1 for x in ds if x <= 2)),
])
def test_explosions_against_brute_force(text: str, n: int, sides: int, match: Any, shift: int,
                                        finish: Any, small_depth: int) -> None:
    assert _pmf(text, "roll20") == _brute_pool(n, sides, match, small_depth, shift, finish)


def test_compound_against_brute_force(small_depth: int) -> None:
    # a compounded d4 is one die: its rolls added while they show 4 (at most 2 extra)
    chains = _brute_chain(range(1, 5), lambda f: f == 4, small_depth)
    one: dict[int, Fraction] = {}
    for values, w in chains:
        one[sum(values)] = one.get(sum(values), 0) + Fraction(w, 4 ** 3)
    want: dict[Any, Fraction] = {}
    for (a, pa), (b, pb), (c, pc) in itertools.product(one.items(), repeat=3):
        k = sum(sorted((a, b, c))[-2:])
        want[k] = want.get(k, 0) + pa * pb * pc
    assert _pmf("3d4!!kh2", "roll20") == want
    count: dict[Any, Fraction] = {}
    for (a, pa), (b, pb) in itertools.product(one.items(), repeat=2):
        k = (a >= 5) + (b >= 5)
        count[k] = count.get(k, 0) + pa * pb
    assert _pmf("{2d4!!}>5", "roll20") == count


def test_rolled_counts_against_brute_force() -> None:
    want: dict[int, Fraction] = {}
    for c in range(1, 5):
        for dice in itertools.product(range(1, 7), repeat=c):
            want[sum(dice)] = want.get(sum(dice), 0) + Fraction(1, 4 * 6 ** c)
    assert _pmf("(1d4)d6", "avrae") == want
    sides: dict[int, Fraction] = {}
    for s in range(1, 21):
        for x in range(1, s + 1):
            sides[x] = sides.get(x, 0) + Fraction(1, 20 * s)
    assert _pmf("1d(1d20)", "roll20") == sides


def _icepool_pmf(die: Any) -> dict[Any, Fraction]:
    total = die.denominator()
    return {k: Fraction(v, total) for k, v in die.items() if v}


def test_against_icepool() -> None:
    # compounding = icepool's explode (the chain summed into one die)
    ours = _pmf("10d10!!kh5", "roll20")
    theirs = _icepool_pmf(icepool.d10.explode([10], depth=20).pool(10).highest(5).sum())
    assert ours == theirs
    # explosions into extra dice, keep 3 of them
    ours = _pmf("{10d6!}kh3", "roll20")
    assert ours == _icepool_pmf(icepool.d6.explode_to_pool(10, depth=20).highest(3).sum())
    # successes minus failures, 10s explode into dice that count too
    def chain(depth: int) -> Any:
        score = {x: int(x >= 8) - int(x == 1) for x in range(1, 11)}
        if depth == 0:
            return icepool.d10.map(score)
        rest = chain(depth - 1)
        return icepool.d10.map(lambda x: score[x] + rest if x == 10 else score[x])
    assert _pmf("12d10!10>=8f1", "roll20") == _icepool_pmf(12 @ chain(20))
    assert _pmf("20d10>=7", "roll20") == _icepool_pmf(icepool.d10.map(
        lambda x: int(x >= 7)).pool(20).sum() if False else 20 @ icepool.d10.map(
        lambda x: int(x >= 7)))


def test_python_api_gives_every_mechanic() -> None:
    assert Pool(d(10), 10).count(at_least(8), fail=equal(1)).sum() == dist(
        "10d10>=8f1", dialect="roll20")
    assert Pool(d(10), 10).compound(equal(10)).keep(highest(5)).sum() == dist(
        "10d10!!kh5", dialect="roll20")
    assert Pool(d(6), 3).penetrate(equal(6)).sum() == dist("3d6!p", dialect="roll20")
    assert Pool(d(6), 3).explode_once(equal(6)).sum() == dist("3d6xo", dialect="foundry")
    # Roll20's reference: "{3d20+5}>21 - Roll 3 d20's, for each roll add 5 and then count a
    # success for each result of 21 or more" (a group of one sub-roll counts its dice)
    assert Pool(d(20), 3).count(at_least(16)).sum() == dist("{3d20+5}>21", dialect="roll20")
    assert Pool.of([2 @ d(20) + 5, d(8)]).count(at_least(21)).sum() == dist(
        "{2d20+5, 1d8}>21", dialect="roll20")
    assert Pool(d(6), 4).count(at_most(2)).sum() == dist("4d6<2", dialect="roll20")
    with pytest.raises(InvalidValueError, match="last"):
        Pool(d(6), 4).count(at_least(5)).keep(highest(2))
    with pytest.raises(InvalidValueError, match="compounding"):
        Pool(d(6), 4).keep(highest(2)).compound(equal(6))
    with pytest.raises(InvalidValueError, match="forever"):
        Pool(d(1), 1).compound(equal(1))


# ---------------------------------------------------------------- ambiguities, errors
def test_ambiguities_of_the_three_rows() -> None:
    (line,) = ambiguities("5d10>7")
    assert line.startswith("note: in roll20, `5d10>7` counts the dice showing 7 or more "
                           "(mean 2);") and line.endswith(
        "-- use --dialect roll20, or write `5d10cs>=7` to count the dice in avrae")
    assert [x.split(",")[0] for x in ambiguities("4d6k3")] == ["note: in roll20",
                                                               "note: in foundry"]
    (line,) = ambiguities("1d10r1")
    assert "in foundry" in line and "once (mean 5.95)" in line
    assert ambiguities("4d6kh3") == [] and ambiguities("1d20+5") == []
    assert "in avrae" in ambiguities("4d6k3", "roll20")[0]
    assert ambiguities("10d10>=8f1")[0].startswith("note: `10d10>=8f1` is not avrae notation")
    assert readings("4d6k3") == {"avrae": "keeps the dice showing 3",
                                 "roll20": "keeps the 3 highest dice",
                                 "foundry": "keeps the 3 highest dice"}


@pytest.mark.parametrize(("text", "dialect", "column", "fragment"), [
    ("10d10f1", "roll20", 6, "failures need a target number"),
    ("4d6!!", "avrae", 4, "compounding"),
    ("4d6k", "avrae", 5, "a number for the keep operator"),
    ("4d6r>", "roll20", 6, "compare point"),  # Roll20: bare 4d6r rerolls the 1s
    ("1d6x", "roll20", 4, "Foundry's explode modifier 'x'"),
    ("1d20r1=1kh1", "foundry", 5, "limited rerolls"),
    ("1d(1d6, 2)", "roll20", 3, "one value"),
    ("1d(1d3-1)", "roll20", 1, "number of sides"),
    ("(1d3-2)d6", "roll20", 1, "number of dice"),
    ("(1d2/2)d6", "avrae", 1, "whole number"),
    ("1d(1d3)!", "roll20", 8, "rolled sides"),
    ("{1d6", "roll20", 5, "'}'"),
    ("1d1!!", "roll20", 4, "forever"),
    ("{2d6>3}>1", "roll20", 1, "both inside and after"),
])
def test_errors_point_at_the_column(text: str, dialect: str, column: int,
                                    fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        dist(text, dialect=dialect)
    assert info.value.column == column, str(info.value)
    assert fragment in info.value.problem, str(info.value)
    assert str(info.value).splitlines()[2] == "  " + " " * (column - 1) + "^"


def test_rolled_count_past_the_limit_is_refused() -> None:
    with pytest.raises(LimitError):
        dist("(1d200000)d6")
    with pytest.raises(LimitError):
        roll("(300d100)d100", rng=PCG32(1))


def test_roll_breakdowns() -> None:
    r = roll("4d20cs>19cf<2sd", rng=PCG32(3), dialect="roll20")
    assert str(r) == "4d20cs>19cf<2sd (**19**, 10, 5, _1_) = 35"
    r = roll("10d10!!kh5", rng=PCG32(7), dialect="roll20")
    assert "!!" in r.breakdown and r.total == 44
    r = roll("(1d4)d6 # damage", rng=PCG32(3))
    assert r.breakdown.startswith("(1d4)d6: (1d4 (")


# ---------------------------------------------------------------- command line
def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    assert main(list(argv)) == 0
    got = capsys.readouterr()
    return got.out, got.err


def test_cli_dialect_option_env_and_notes(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = _run(capsys, "dist", "5d10>7")
    assert "mean 0.9998" in out
    assert err.strip().startswith("note: in roll20, `5d10>7` counts the dice")
    out, err = _run(capsys, "dist", "5d10>7", "--dialect", "roll20")
    assert "mean 2.0000 (exactly 2)" in out and "in avrae" in err
    monkeypatch.setenv("CHANCEKIT_DIALECT", "roll20")
    out, _ = _run(capsys, "dist", "4d6k3")
    assert "(exactly 15869/1296)" in out
    out, _ = _run(capsys, "dist", "4d6k3", "--dialect", "avrae")
    assert "mean 2.0000" in out
    doc = json.loads(_run(capsys, "dist", "5d10>7", "--json")[0])
    jsonschema.Draft202012Validator(SCHEMAS["dist"]).validate(doc)
    assert doc["dialect"] == "roll20" and doc["mean"] == "2" and doc["notes"]
    doc = json.loads(_run(capsys, "roll", "10d10!!kh5", "--seed", "7", "--json")[0])
    jsonschema.Draft202012Validator(SCHEMAS["roll"]).validate(doc)
    assert doc["dialect"] == "roll20" and doc["notes"] == []
    monkeypatch.setenv("CHANCEKIT_DIALECT", "d20")
    assert main(["dist", "1d6"]) == 1
    assert "CHANCEKIT_DIALECT" in capsys.readouterr().err


def test_cli_table_and_sample_take_a_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _run(capsys, "sample", "5d10>7", "--dialect", "roll20", "-n", "50", "--seed",
                  "1", "--json")
    doc = json.loads(out)
    assert set(doc["draws"]) <= set(range(6)) and max(doc["draws"]) > 1
    out, _ = _run(capsys, "table", "4d6k3", "--dialect", "roll20", "--json")
    assert json.loads(out)["tables"]


def test_random_expressions_in_every_dialect_raise_only_chancekit_errors() -> None:
    """A small deterministic fuzz of the new syntax: dist, roll and ambiguities either
    work or raise a ChancekitError (the full fuzzer is tests/dice/test_fuzz_notation.py)."""
    import random

    from chancekit.errors import ChancekitError

    rnd = random.Random(12)
    atoms = ["1d6", "2d4", "3d10", "d%", "4dF", "(1d4)", "{1d6, 2}", "{3d4}", "1d(1d4)",
             "(1d3)d4", "2", "10"]
    mods = ["!", "!!", "!p", "!>3", "!!=4", "k2", "kh1", "kl", "d1", "dh1", "r1", "ro<2",
            "r>3", "rr1", "x", "xo", "x>=3", "cs>3", "cf<2", "df1", "f1", "f<2", ">3", "<2",
            "=4", ">=3", "min2", "max3", "s", "sd", "mi2", "ma3", "e6", "p1", "ra4", "#c",
            "[a]", ""]
    ops = ["+", "-", "*", "//", ">=", ",", " "]
    for i in range(1000):
        parts = []
        for _ in range(rnd.randint(1, 3)):
            parts += [rnd.choice(atoms) + "".join(rnd.choice(mods)
                                                  for _ in range(rnd.randint(0, 3))),
                      rnd.choice(ops)]
        chars = list("".join(parts[:-1]))
        for _ in range(rnd.randint(0, 2)):
            chars.insert(rnd.randrange(len(chars) + 1), rnd.choice("{}()!<>=dkx#,09-"))
        text = "".join(chars)
        for dialect in DIALECTS:
            for call, args, kw in ((dist, (text,), {"dialect": dialect}),
                                   (roll, (text,), {"rng": PCG32(i), "dialect": dialect}),
                                   (ambiguities, (text, dialect), {})):
                try:
                    call(*args, **kw)  # type: ignore[operator]
                except ChancekitError:
                    pass
