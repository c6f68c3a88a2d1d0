"""The parser: what it accepts, and the exact errors (problem, column, caret) it gives."""

from __future__ import annotations

import pytest

from _upfront import MAX_CALLS, measure
from chancekit.dice._parse import MAX_DEPTH, MAX_LENGTH, parse
from chancekit.dice.notation import dist, weights
from chancekit.errors import InvalidTypeError, LimitError, NotationError


def test_issue_example_message() -> None:
    with pytest.raises(NotationError) as info:
        parse("3d6x2")
    e = info.value
    assert (e.problem, e.column) == ("unexpected 'x'", 4)
    assert str(e) == "unexpected 'x' at column 4\n  3d6x2\n     ^"


@pytest.mark.parametrize(("text", "column", "fragment"), [
    ("", 1, "empty expression"),
    ("   ", 4, "empty expression"),
    ("1d", 3, "unexpected end of expression"),
    ("1d6+", 5, "unexpected end of expression"),
    ("d0", 2, "at least 1 side"),
    ("3d0+1", 3, "at least 1 side"),
    ("(1d6", 5, "expected ',' or ')'"),
    ("1d6)", 4, "unexpected ')'"),
    ("4d6kh", 6, "a number for the keep operator"),
    ("4d6d1", 4, "'dl1'"),
    ("4d6!!", 4, "compounding"),
    ("(1d6, 2)e6", 9, "only keep/drop"),
    ("2d6mi<2", 6, "plain number"),
    ("2d6rrh1", 6, "value selector"),
    ("1d6 [fire", 5, "unclosed annotation"),
    ("1d6, 2", 4, "a set needs parentheses"),
    ("1.5d6", 1, "whole number"),
    ("2d{1,,2}", 6, "whole-number face"),
    ("2d{1,2", 7, "',' or '}'"),
    ("-2d6", None, None),
    ("1d6/(1d2-1)", 4, "division by zero"),
    ("1d6//0", 4, "division by zero"),
    ("1d6%(2-2)", 4, "division by zero"),
    ("1d1e1", 4, "explode every face"),
    ("1d6rr<7", 4, "reroll every face"),
    ("2d6 kh1", 5, "unexpected 'k'"),
    ("1d6 + * 2", 7, "unexpected '*'"),
    ("3d6x2", 4, "unexpected 'x'"),
    ("héllo", 1, "unexpected 'h'"),
])
def test_errors(text: str, column: int | None, fragment: str | None) -> None:
    if column is None:
        assert min(weights(text)) == -12  # "-2d6" is fine: unary minus
        return
    with pytest.raises(NotationError) as info:
        dist(text)
    assert info.value.column == column, str(info.value)
    assert fragment in info.value.problem
    lines = str(info.value).splitlines()
    assert lines[1] == "  " + text
    assert lines[2] == "  " + " " * (column - 1) + "^"


def test_not_a_string() -> None:
    with pytest.raises(InvalidTypeError):
        parse(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "limit"), [
    ("1000000d1000000", "MAX_DICE"),
    ("1d10000000", "MAX_SIDES"),
    ("1000d1000", "MAX_WEIGHT_BITS"),
    ("1d100000*1d100000", "MAX_PAIRS"),
    ("100d100kh1kl1", "MAX_POOL_STATES"),
    ("30d6e>4kh3", "MAX_WORK"),
    ("1d6" + "+1" * 1500, "MAX_LENGTH"),
])
def test_limits_refused_quickly(text: str, limit: str) -> None:
    error, _, calls = measure(lambda: dist(text))
    assert isinstance(error, LimitError)
    assert calls < MAX_CALLS  # refused up front (counted calls, not seconds)
    assert error.limit == limit
    assert limit in str(error)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    for text in ("(" * 500 + "1" + ")" * 500, "-" * 500 + "1", "+".join(["1"] * 300)):
        with pytest.raises(NotationError, match="nested too deeply"):
            parse(text)
    assert len("(" * MAX_DEPTH) < MAX_LENGTH
    assert weights("(" * 50 + "1d4" + ")" * 50) == {1: 1, 2: 1, 3: 1, 4: 1}


@pytest.mark.parametrize(("a", "b"), [
    ("4d6kh3", "4D6KH3".lower()),
    ("4d6dl1", "4d6pl1"),
    ("4d6dh1", "4d6kl3"),
    ("3d6!", "3d6e6"),
    ("3d6r1", "3d6rr1"),
    ("d6", "1d6"),
    ("4dF", "4df"),
    ("d%", "1d100"),
    ("1d6 [fire]", "1d6"),
    ("2d6kh1kh1", "2d6kh1"),
    ("1d20 + 5", "1d20+5"),
    ("3d{1,2,3,4,5,6}", "3d6"),
    ("2d10e>8", "2d10e9e10"),
    ("4d6k>=4", "4d6k>3"),
    ("-1d4", "0-1d4"),
    ("(1d6)", "1d6"),
])
def test_equivalent_spellings(a: str, b: str) -> None:
    assert weights(a) == weights(b)


def test_merged_operators() -> None:
    node = parse("2d20kh1kl1")
    assert len(node.ops) == 1 and len(node.ops[0].sels) == 2
    node = parse("4d6mi2mi3")
    assert len(node.ops) == 2  # mi/ma are never merged (as in d20)


def test_not_equal_after_dice_is_a_comparison() -> None:
    assert weights("1d6!=3") == {0: 1, 1: 5}
    assert weights("1d4!!=4") == weights("(1d4!) != 4")


def test_control_characters_are_shown_on_one_line_with_the_caret_in_place() -> None:
    with pytest.raises(NotationError) as info:
        dist("3d6\n+x")
    lines = str(info.value).splitlines()
    assert len(lines) == 3 and lines[1] == "  3d6\u240a+x"
    assert lines[2].index("^") == lines[1].index("x")


def test_operator_tokens_match_the_startswith_scan() -> None:
    """Each dialect's compiled operator alternation picks the same token as the first
    name of its list that the text starts with (every operator, every next character)."""
    from chancekit.dice import _parse

    tails = ["", "1", "=", "!", "h", "l", "o", "p", "in", "ax", "s", "f", "d", "x", ">", "<"]
    for names, match in _parse._OP_MATCH.items():
        for o in {*names, *(a + b for a in names for b in names), "q", "", "1d6"}:
            for tail in tails:
                text = "4d6" + o + tail
                want = next((n for n in names if text.startswith(n, 3)), None)
                m = match(text, 3)
                assert (m[0] if m else None) == want, (names, text)


def test_numbers_read_digit_by_digit_are_int() -> None:
    from chancekit.dice._parse import _number

    for text in ["0", "7", "007", "20", "999999999999999999", "1000000000000000000",
                 "123456789012345678901234567890", "0" * 40 + "5"]:
        assert _number(text) == int(text)
        assert type(_number(text)) is int
