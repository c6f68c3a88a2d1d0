"""The AnyDice language, construct by construct, against brute force (enumerating every
roll in Python), AnyDice's own documentation examples (their names list the outcomes),
and icepool where it fits."""

from __future__ import annotations

import itertools
import warnings
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from chancekit.anydice import EMPTY, AnyDiceError, AnyDiceWarning, run, run_program
from chancekit.dice import Distribution
from chancekit.errors import LimitError

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "anydice" / "docs"


def one(text: str) -> Distribution:
    (_, dist), = run(text)
    return dist


def brute(dice: list[list[int]], f) -> dict[int, Fraction]:
    """The distribution of f(roll) over every ordered roll of the listed dice (faces)."""
    out: Counter[int] = Counter()
    for roll in itertools.product(*dice):
        out[f(roll)] += 1
    total = sum(out.values())
    return {k: Fraction(v, total) for k, v in sorted(out.items())}


def pmf(dist: Distribution) -> dict[int, Fraction]:
    return dict(sorted(dist.pmf().items()))


# --------------------------------------------------------------------------- basics


@pytest.mark.parametrize(("expr", "value"), [
    ("1 + 2", 3), ("3 - 2", 1), ("2 * 3", 6), ("6 / 3", 2), ("5 / 3", 1), ("-5 / 3", -1),
    ("5 / -3", -1), ("7 / 0", 0), ("2 ^ 3", 8), ("2 ^ 3 ^ 2", 64), ("2 + 3 * 4", 14),
    ("(2 + 3) * 4", 20), ("2 = 2", 1), ("1 = 2", 0), ("1 != 2", 1), ("2 < 2", 0),
    ("3 > 2", 1), ("2 >= 2", 1), ("3 <= 2", 0), ("2 & 3", 1), ("0 | 0", 0), ("!0", 1),
    ("!5", 0), ("1 & 0 | 1", 1), ("0 | 1 & 0", 0), ("#246", 3), ("#-12", 2),
    ("1@246", 2), ("{1..3}@246", 12), ("{1, 3}@{2, 4, 6}", 8), ("{1, 2, 2}@{2, 4, 6}", 10),
    ("4@{2, 4, 6}", 0), ("#{2, 4, 6}", 3), ("{1, 2} + 3", 6), ("-{1..4}", -10),
    ("{1, 5, 6} > 4", 2), ("4 < {1, 5, 6}", 2), ("{1, 2} = {1, 2}", 1),
    ("{1, 3} > {1, 2, 9}", 1), ("(-1) ^ -1", -1), ("2 ^ -1", 0),
])
def test_numbers(expr: str, value: int) -> None:
    assert pmf(one(f"output {expr}")) == {value: 1}


def test_position_order_of_digits() -> None:
    text = 'set "position order" to "lowest first"\noutput 1@246\noutput {1,2}@246'
    assert [pmf(d) for _, d in run(text)] == [{6: 1}, {10: 1}]


@pytest.mark.parametrize(("seq", "items"), [
    ("{1, 2, 3}", [1, 2, 3]), ("{1..3}", [1, 2, 3]), ("{1:4, 2, 3}", [1, 1, 1, 1, 2, 3]),
    ("{1..3:2}", [1, 2, 3, 1, 2, 3]), ("{{1,2,4}:2, 5, 6}", [1, 2, 4, 1, 2, 4, 5, 6]),
    ("{d4}", [1, 2, 3, 4]), ("{3..1}", []), ("{2d2}", [2, 3, 4]),
])
def test_sequences(seq: str, items: list[int]) -> None:
    # a sequence's length and elements, read back with # and @
    text = f"S: {seq}\noutput #S\nloop P over {{1..#S}} {{ output P@S }}"
    outs = [next(iter(d.weights)) for _, d in run(text)]
    assert outs[0] == len(items) and outs[1:] == items


def test_output_of_a_sequence_is_a_die() -> None:
    assert pmf(one("output {1, 1, 2}")) == {1: Fraction(2, 3), 2: Fraction(1, 3)}
    assert one("output {}") == EMPTY


# --------------------------------------------------------------------------- dice


@pytest.mark.parametrize(("expr", "faces", "f"), [
    ("d6 + 10", [range(1, 7)], lambda r: r[0] + 10),
    ("d6 / 2", [range(1, 7)], lambda r: r[0] // 2),
    ("d2 / d3", [range(1, 3), range(1, 4)], lambda r: r[0] // r[1]),
    ("-d6 / 4", [range(1, 7)], lambda r: -(r[0] // 4)),
    ("d2 > d3", [range(1, 3), range(1, 4)], lambda r: int(r[0] > r[1])),
    ("2d2 > d3", [range(1, 3)] * 2 + [range(1, 4)], lambda r: int(r[0] + r[1] > r[2])),
    ("3d6 = 10", [range(1, 7)] * 3, lambda r: int(sum(r) == 10)),
    ("d4 ^ 2", [range(1, 5)], lambda r: r[0] ** 2),
    ("d{-1..1} * d3", [range(-1, 2), range(1, 4)], lambda r: r[0] * r[1]),
    ("d6 & d2 - 1", [range(1, 7), range(1, 3)], lambda r: int(bool(r[0]) and r[1] > 1)),
    ("!(d3 - 2)", [range(1, 4)], lambda r: int(r[0] == 2)),
    ("d-3", [range(-3, 0)], lambda r: r[0]),
    ("d0 + 1", [[0]], lambda r: r[0] + 1),
    ("2d{1, 1, 2}", [[1, 1, 2]] * 2, sum),
    ("-2d4", [range(-4, 0)] * 2, sum),
    ("d2d4", None, None),
])
def test_dice(expr: str, faces, f) -> None:
    if faces is None:  # a die as the count: mix 1d4 and 2d4
        want = brute([range(1, 5)], lambda r: r[0])
        want2 = brute([range(1, 5)] * 2, sum)
        mixed = {k: (want.get(k, 0) + want2.get(k, 0)) / 2 for k in set(want) | set(want2)}
        assert pmf(one(f"output {expr}")) == dict(sorted(mixed.items()))
        return
    assert pmf(one(f"output {expr}")) == brute([list(x) for x in faces], f)


@pytest.mark.parametrize("order", ["highest first", "lowest first"])
@pytest.mark.parametrize(("pos", "n", "sides"), [
    ("1", 3, 6), ("2", 3, 6), ("3", 3, 6), ("{1, 2}", 4, 4), ("{1, 3}", 4, 4),
    ("{2, 2}", 3, 5), ("{1..5}", 3, 3), ("4", 3, 6), ("{0, 2}", 2, 6),
])
def test_positions_of_a_pool(order: str, pos: str, n: int, sides: int) -> None:
    positions = [int(x) for x in pos.strip("{}").replace("..", ",").split(",")]
    if ".." in pos:
        a, b = positions
        positions = list(range(a, b + 1))

    def f(roll: tuple[int, ...]) -> int:
        s = sorted(roll, reverse=(order == "highest first"))
        return sum(s[p - 1] for p in positions if 1 <= p <= len(s))

    text = f'set "position order" to "{order}"\noutput {pos}@{n}d{sides}'
    assert pmf(one(text)) == brute([range(1, sides + 1)] * n, f)


def test_size_of_collections() -> None:
    outs = [next(iter(d.weights)) for _, d in run(
        "output #(3d6)\noutput #3d6\noutput #d6\noutput #(3d6 + 0)\noutput #(-(3d6))\n"
        "output #d{}\noutput #(d{}d6)")]
    assert outs == [3, 1, 1, 1, 3, 0, 1]


def test_empty_die() -> None:
    text = ("output d{}\noutput d{} + 3\noutput d{} * 3\noutput d{} - d{}\n"
            "output 2 @ (d{}d6)\noutput 1000d{}")
    outs = [d for _, d in run(text)]
    assert outs[0] == EMPTY and outs[2] == EMPTY and outs[3] == EMPTY and outs[5] == EMPTY
    assert pmf(outs[1]) == {3: 1} and pmf(outs[4]) == {0: 1}


# --------------------------------------------------------------------------- functions


def test_n_parameter_expands_each_outcome_once() -> None:
    text = """function: double A:n if above B:n { if A > B { result: A + A } result: A }
output [double d6 if above 3]"""
    assert pmf(one(text)) == brute([range(1, 7)], lambda r: 2 * r[0] if r[0] > 3 else r[0])
    # a collection is summed first
    text = "function: f X:n { result: X * X }\noutput [f 2d3]"
    assert pmf(one(text)) == brute([range(1, 4)] * 2, lambda r: sum(r) ** 2)


def test_empty_results_drop_out() -> None:
    text = "function: f X:n { if X = 1 { result: d{} } result: X }\noutput [f d4]"
    assert pmf(one(text)) == {2: Fraction(1, 3), 3: Fraction(1, 3), 4: Fraction(1, 3)}
    text = "function: f X:n { if X > 2 { result: X } }\noutput [f d4]"  # no result: d{}
    assert pmf(one(text)) == {3: Fraction(1, 2), 4: Fraction(1, 2)}


def test_die_results_are_folded_in_by_weight() -> None:
    text = """function: f X:n { if X = 3 { result: d{44, 44, 55, 66} } result: X }
output [f d4]"""
    want = {1: Fraction(1, 4), 2: Fraction(1, 4), 4: Fraction(1, 4), 44: Fraction(1, 8),
            55: Fraction(1, 16), 66: Fraction(1, 16)}
    assert pmf(one(text)) == want


STATEFUL = "T: 0 T: T + 1 "  # a variable carried from one roll to the next: no rewrite


@pytest.mark.parametrize("stateful", [False, True])
@pytest.mark.parametrize(("body", "f"), [
    ("result: (ROLL >= 5) - (ROLL = 1)", lambda s: sum(x >= 5 for x in s) - s.count(1)),
    ("if 1@ROLL = 6 { result: 2@ROLL } result: ROLL + 0",
     lambda s: sorted(s)[-2] if max(s) == 6 else sum(s)),
    ("result: [count {1, 2, 2} in ROLL] * 10 + [ROLL contains 6]",
     lambda s: 10 * (s.count(1) + 2 * s.count(2)) + (6 in s)),
    ("result: {1, 3}@ROLL + #ROLL", lambda s: sorted(s)[-1] + sorted(s)[-3] + len(s)),
    ("if ROLL > 3 = 2 { result: -ROLL } result: 7 < ROLL",
     lambda s: -sum(s) if sum(x > 3 for x in s) == 2 else sum(x > 7 for x in s)),
    ("M: 1@ROLL C: ROLL = M result: C * M", lambda s: s.count(max(s)) * max(s)),
    ("M: 2@ROLL result: (ROLL > M) * 10 + (M <= ROLL) + 100 * (ROLL != M)",
     lambda s: (sum(x > sorted(s)[-2] for x in s) * 10 + sum(x >= sorted(s)[-2] for x in s)
                + 100 * sum(x != sorted(s)[-2] for x in s))),
    ("M: 5@ROLL result: (ROLL < M) + 10 * (ROLL = M)", lambda s: 0),
    ("R: 0 S: 0 loop I over ROLL { if I <= 3 { R: R + I } else { S: S - 2 * I } } "
     "result: R * 100 + S",
     lambda s: sum(x for x in s if x <= 3) * 100 - 2 * sum(x for x in s if x > 3)),
    ("R: 0 loop X over ROLL { R: R * 10 + X } result: R",
     lambda s: int("".join(map(str, sorted(s, reverse=True))))),
])
def test_s_parameter_expands_sorted_rolls(body: str, f, stateful: bool) -> None:
    text = f"function: f ROLL:s {{ {STATEFUL if stateful else ''}{body} }}\noutput [f 3d6]"
    assert pmf(one(text)) == brute([range(1, 7)] * 3, lambda r: f(list(r)))


def test_s_parameter_with_weighted_dice_and_lowest_first() -> None:
    text = """set "position order" to "lowest first"
function: f ROLL:s T:n { result: 1@ROLL * 10 + (ROLL >= T) }
output [f 4d{1, 2, 2, 5} 2]"""
    faces = [1, 2, 2, 5]
    assert pmf(one(text)) == brute([faces] * 4,
                                    lambda r: min(r) * 10 + sum(x >= 2 for x in r))


def test_d_parameter_keeps_the_collection() -> None:
    text = "function: f D:d { result: 1@D + #D }\noutput [f 3d4]"
    assert pmf(one(text)) == brute([range(1, 5)] * 3, lambda r: max(r) + 3)


def test_scoping() -> None:
    text = """function: { G: G + 10 result: G }
G: 0
output G
output []
output G"""
    assert [next(iter(d.weights)) for _, d in run(text)] == [0, 10, 0]
    # functions are defined when reached; a later definition replaces an earlier one
    text = "function: f { result: 1 }\noutput [f]\nfunction: f { result: 2 }\noutput [f]"
    assert [next(iter(d.weights)) for _, d in run(text)] == [1, 2]


def test_maximum_function_depth() -> None:
    text = """function: depth { result: 1 + [depth] }
output [depth]
set "maximum function depth" to 5
output [depth]"""
    assert [next(iter(d.weights)) for _, d in run(text)] == [10, 5]


def test_parameter_write_warns() -> None:
    text = """function: f N:n D:n { if N < 3 { D: D - 1 } result: N + D }
output [f d6 3]"""
    result = run_program(text)
    assert result.warnings and "known defect" in result.warnings[0]
    with pytest.warns(AnyDiceWarning):
        run(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run("output 3d6")  # no defect, no warning


# --------------------------------------------------------------------------- library


def test_library_against_icepool() -> None:
    icepool = pytest.importorskip("icepool")

    def same(ours: Distribution, theirs) -> None:
        total = theirs.denominator()
        assert pmf(ours) == {k: Fraction(v, total) for k, v in theirs.items() if v}

    same(one("output [highest 3 of 4d6]"), icepool.d6.highest(4, 3))
    same(one("output [lowest 2 of 5d8]"), icepool.d8.lowest(5, 2))
    same(one("output [middle 1 of 3d10]"), icepool.d10.middle(3, 1))
    same(one("output [explode d6]"), icepool.d6.explode(depth=2))
    same(one('set "explode depth" to 4\noutput [explode d4]'), icepool.d4.explode(depth=4))
    same(one("output [highest of d6 and d8]"), icepool.highest(icepool.d6, icepool.d8))
    same(one("output [lowest 1 of d6 and d10]"), icepool.lowest(icepool.d6, icepool.d10))


@pytest.mark.parametrize(("expr", "dice", "f"), [
    ("[count {5, 6} in 4d6]", 4, lambda r: sum(x >= 5 for x in r)),
    ("[count {6, 6} in 3d6]", 3, lambda r: 2 * r.count(6)),
    ("[3d6 contains 6]", 3, lambda r: int(6 in r)),
    ("[{1..3} contains d6]", 1, lambda r: int(r[0] <= 3)),
    ("[absolute d6 - 4]", 1, lambda r: abs(r[0] - 4)),
    ("[maximum of 3d6]", 0, lambda r: 18),
    ("[middle 2 of 4d6]", 4, lambda r: sum(sorted(r)[1:3])),
    ("[highest d2 of 3d6]", None, None),
    ("1@[sort {3, 1, 2}]", 0, lambda r: 3),
    ("1@[reverse {3, 1, 2}]", 0, lambda r: 2),
])
def test_library(expr: str, dice, f) -> None:
    if dice is None:
        one_ = brute([range(1, 7)] * 3, lambda r: max(r))
        two = brute([range(1, 7)] * 3, lambda r: sum(sorted(r)[1:]))
        want = {k: (one_.get(k, 0) + two.get(k, 0)) / 2 for k in sorted(set(one_) | set(two))}
        assert pmf(one(f"output {expr}")) == want
        return
    assert pmf(one(f"output {expr}")) == brute([range(1, 7)] * max(dice, 1), lambda r: f(list(r)))


def test_user_function_replaces_builtin() -> None:
    text = "function: absolute X:n { result: 7 }\noutput [absolute -3]"
    assert pmf(one(text)) == {7: 1}


# --------------------------------------------------------------------------- labels


def test_labels() -> None:
    text = ('X: 4\noutput X named "this is a [X]"\noutput 1\n'
            'loop N over {1,2} {output N named "[N]d4"}')
    assert [label for label, _ in run(text)] == ["this is a 4", "output 2", "1d4", "2d4"]


def test_labels_name_dice_as_written() -> None:
    # AnyDice's own answers (corpus programs 42903, the documentation's example, and
    # a066): a die written dN or MdN keeps that name, through variables and :d
    # parameters; any other die is d{?}, a sequence {?}
    text = ('X: d4\noutput X named "this is a [X]"\nX: 2d4\noutput X named "[X]"\n'
            'X: {1..4}\noutput X named "[X]"\nX: d{2,4,6}\noutput X named "[X]"\n'
            'N: 2\nD: d6\noutput N d D named "[N][D]+[D]"\n'
            'X: d6 + 1\noutput X named "[X]"\nY: 3d(d6)\noutput Y named "[Y]"\n'
            'function: same D:d { result: D }\nZ: [same 3d8]\noutput Z named "[Z]"')
    assert [label for label, _ in run(text)] == [
        "this is a d4", "2d4", "{?}", "d{?}", "2d6+d6", "d{?}", "3d{?}", "3d8"]


# --------------------------------------------------------------------------- the docs


def _doc_outputs():
    if not DOCS.is_dir():
        return []
    cases = []
    for name in ("docs--dice.txt", "docs--arbitrary-dice.txt", "docs--sequences.txt"):
        text = (DOCS / name).read_text(encoding="utf-8")
        for line in text.splitlines():
            if line.startswith("output ") and 'named "' in line:
                cases.append((name, line))
    return cases


@pytest.mark.parametrize(("doc", "line"), _doc_outputs())
def test_documentation_examples(doc: str, line: str) -> None:
    """The docs name each output by its outcomes ("0, 1, 1, 2, 2, 3": a die with those
    faces, repeated ones counted): the computed distribution must be that die."""
    label = line.split('named "')[1].rstrip('"')
    try:
        faces = [int(x) for x in label.split(",")]
    except ValueError:
        pytest.skip(f"{label!r} does not list outcomes")
    dist = one(line)
    c = Counter(faces)
    assert pmf(dist) == {k: Fraction(v, len(faces)) for k, v in sorted(c.items())}


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("text", "line", "column", "token"), [
    ("output 3d6 +", 1, 13, ""),
    ('X: 1\noutput X named "open', 2, 16, '"'),
    ("function: f {\n result: 1\n", 3, 1, ""),
    ("output [nothing like this]", 1, 8, "["),
    ("output Y", 1, 8, "Y"),
    ("3d6", 1, 1, "3"),
    ("output 1 ~ 2", 1, 10, "~"),
    ("if d6 > 3 { output 1 }", 1, 4, ""),
    ('set "colour" to "red"', 1, 1, "colour"),
])
def test_errors_name_line_column_token(text: str, line: int, column: int, token: str) -> None:
    with pytest.raises(AnyDiceError) as info:
        run(text)
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert err.token == token
    first = str(err).splitlines()[0]
    assert first == err.summary and f"line {line}, column {column}" in first
    assert str(err).splitlines()[2].index("^") == 2 + min(column, len(err.text) + 1) - 1


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    # an expression cut short at the end of a line is blamed where it stops, not on the
    # next line's first word
    ("X: d4\nY: d6\n\noutput X + Y +\noutput Y", 4, 15,
     ["unfinished expression", "after '+'", "line 5 starts with 'output'"]),
    ("output d6\noutput {1,2,3\noutput d4", 2, 14,
     ["unfinished sequence", "'{' at line 2, column 8 is never closed", "after '3'"]),
    ("output (1 + 2\noutput 3", 1, 14, ["unfinished bracket", "'(' at line 1, column 8"]),
    ("output [highest 3 of 4d6", 1, 25, ["unfinished function call", "program ends there"]),
    ("output 3 named\noutput 4", 1, 15, ["expected a string after 'named', but the line"]),
    ("loop N over {1..3} {\n output N\n", 1, 20, ["'{' opened at line 1, column 20"]),
    # on one line, the unexpected token itself is still the place
    ("output (1 }", 1, 11, ["expected ')' but found '}'"]),
])
def test_unfinished_expressions_are_placed_where_they_stop(
        text: str, line: int, column: int, words: list[str]) -> None:
    with pytest.raises(AnyDiceError) as info:
        run(text)
    err = info.value
    assert (err.line, err.column) == (line, column), err.summary
    for w in words:
        assert w in err.problem, err.problem


@pytest.mark.parametrize(("text", "hint"), [
    ("output [higest 3 of 4d6]", "(did you mean [highest N of DICE]?)"),
    ("output [highest of 4d6]", "(did you mean [highest N of DICE]?)"),
    ("output [explod d6]", "(did you mean [explode DICE]?)"),
    ("output [count 5 6d6]", "(did you mean [count SEQUENCE in SEQUENCE]?)"),
    ("function: attack ROLL:n vs AC:n { result: 1 }\noutput [atack d20 vs 15]",
     "(did you mean [attack ROLL vs AC]?)"),
])
def test_an_unknown_function_names_the_nearest(text: str, hint: str) -> None:
    with pytest.raises(AnyDiceError) as info:
        run(text)
    assert info.value.problem.endswith(hint)
    assert info.value.token == "["


def test_an_unknown_function_far_from_any_suggests_nothing() -> None:
    with pytest.raises(AnyDiceError) as info:
        run("output [frobnicate 3]")
    assert info.value.problem == "no function matches [frobnicate ?]"


# --------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize(("text", "error"), [
    ('output 1 named "abc', AnyDiceError),
    ("function: f { result: 1", AnyDiceError),
    ("output {1, 2", AnyDiceError),
    ("output [foo 3]", AnyDiceError),
    ("output " + "(" * 5000 + "1" + ")" * 5000, AnyDiceError),
    ("output " + "-" * 5000 + "1", AnyDiceError),
    ("output " + "+".join(["1"] * 5000), AnyDiceError),
    ("X: 1\n" + "if X { " * 300 + "output 1" + " }" * 300, AnyDiceError),
    ("output \uff13d\uff16", AnyDiceError),
    ("output 1\x00", AnyDiceError),
    ("output " + "9" * 5000, AnyDiceError),
    ('set "maximum function depth" to 1001', LimitError),
    ("output #{1..100000000}", LimitError),
    ("output 1000000d1000000", LimitError),
    ("X: 3\nloop I over {1..40} { X: X * X }\noutput X", LimitError),
    ("output 2 ^ 100000", LimitError),
    ("T: 0\nfunction: f S:s { T: T + 1 result: T }\noutput [f 20d20]", LimitError),
    ("loop X over {1..1000000} { loop Y over {1..1000000} { Z: X } }", LimitError),
])
def test_hostile_programs_get_a_clean_error(text: str, error: type) -> None:
    with pytest.raises(error) as info:
        run(text)
    assert len(str(info.value).splitlines()[0]) < 300


def test_deep_recursion_is_not_a_crash() -> None:
    text = ('set "maximum function depth" to 1000\n'
            "function: f X:n { result: [f X + 1] }\noutput [f 1]")
    assert one(text) == EMPTY  # 1000 calls deep, then d{} as AnyDice documents
    text = ('set "maximum function depth" to 1000\n'
            "function: f X:n { if X = 900 { result: X } result: [f X + 1] }\noutput [f 1]")
    assert pmf(one(text)) == {900: 1}


def test_threads_share_nothing() -> None:
    import threading

    programs = ["output [highest 3 of 4d6]", "function: f R:s { result: R >= 5 }\noutput [f 6d6]",
                'set "position order" to "lowest first"\noutput 1@3d6']
    want = [one(p) for p in programs]
    errors: list[str] = []

    def work(i: int) -> None:
        for k in range(6):
            j = (i + k) % len(programs)
            if one(programs[j]) != want[j]:
                errors.append(programs[j])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("order", ["highest first", "lowest first"])
@pytest.mark.parametrize(("pos", "n", "faces"), [
    ("{1, 3, 5}", 6, "{1, 2, 2, 5}"), ("{2, 3, 6, 7}", 7, "{1, 2, 2, 5}"),
    ("{1, 4, 5}", 5, "{-1, 0, 3}"), ("{2, 2, 4, 9}", 5, "{1, 3, 3, 3, 6}"),
    ("{1, 6, 7}", 7, "{2, 2, 4}"), ("{3, 1, 5, 3}", 6, "{0, 1, 10}"),
])
def test_scattered_positions_of_a_pool(order: str, pos: str, n: int, faces: str) -> None:
    """Sums of positions that are neither the top nor the bottom k (the face walk over
    (dice placed, partial sum); f818's snake draft) against every ordered roll."""
    positions = [int(x) for x in pos.strip("{}").split(",")]
    die = [int(x) for x in faces.strip("{}").split(",")]

    def f(roll: tuple[int, ...]) -> int:
        s = sorted(roll, reverse=(order == "highest first"))
        return sum(s[p - 1] for p in positions if 1 <= p <= len(s))

    text = f'set "position order" to "{order}"\noutput {pos}@{n}d{faces}'
    assert pmf(one(text)) == brute([die] * n, f)


def test_snake_draft_of_rolled_stats_matches_brute_force() -> None:
    """f818's shape on 5 dice of [highest 3 of 4d6] (16 unequal faces): every sorted
    roll enumerated with its multinomial weight."""
    stat = brute([range(1, 7)] * 4, lambda r: sum(sorted(r)[1:]))
    n, picks = 5, [1, 4, 5]
    want: Counter[int] = Counter()
    for roll in itertools.product(stat, repeat=n):
        w = Fraction(1)
        for x in roll:
            w *= stat[x]
        s = sorted(roll, reverse=True)
        want[sum(s[p - 1] for p in picks)] += w
    prog = f"function: stat{{\nresult: [highest 3 of 4d6]\n}}\noutput {{1,4,5}}@{n}d([stat])"
    assert pmf(one(prog)) == dict(sorted(want.items()))
