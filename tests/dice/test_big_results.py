"""Large exact results print and serialise (issue #10), the CLI table and notebook display
of 10000d6 need no Fraction per row (issue #15), and text outcomes refuse arithmetic.

Python's ``str(int)`` refuses past 4300 digits; 6000d6 has weights of 4 670 digits and
10000d6 of 7 800. Nothing here measures time: the commands are run in-process and their
output is checked.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from typing import Any

import flint
import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit._html import distribution_html
from chancekit.cli.main import main
from chancekit.cli.schemas import SCHEMAS
from chancekit.dice import Distribution, constant, d, dist, faces
from chancekit.dice.distribution import MAX_FRACTION_WORK
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError

LIMIT = sys.get_int_max_str_digits()


def _digits(n: int) -> int:
    return len(str(flint.fmpz(n)))


@pytest.fixture(scope="module")
def d6000() -> Distribution:
    x = 6000 @ d(6)
    assert LIMIT and _digits(max(x.weights.values())) > LIMIT  # past str()'s limit
    return x


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    doc = json.loads(_cli(capsys, *argv, "--json"))
    jsonschema.Draft202012Validator(SCHEMAS[argv[0]]).validate(doc)
    return doc


# -- repr / str / JSON of huge weights --------------------------------------------------------

def test_repr_and_str_of_huge_weights_do_not_fail(d6000: Distribution) -> None:
    text = repr(d6000)
    assert text.startswith("Distribution({6000: 1, 6001: 6000,") and len(text) < 1000
    assert "(30001 outcomes)" in text
    big = Distribution({"a": 1, "b": 6**6000 - 1})
    assert "an integer of 4669 digits" in repr(big) and len(repr(big)) < 200
    lines = str(d6000).splitlines()
    assert len(lines) == 30001 and lines[15000].split()[0] == "21000"


def test_repr_and_str_of_huge_outcomes_do_not_fail() -> None:
    huge = 10**5000
    for x in (constant(huge), constant(Fraction(1, huge)), faces([huge, -huge, 1])):
        assert len(repr(x)) < 400 and "digits" in repr(x)
        assert "digits" in str(x)
        assert "digits" in distribution_html(x)


def test_to_json_round_trips_6000d6(d6000: Distribution) -> None:
    text = d6000.to_json()
    data = json.loads(text)
    assert data["format"] == "chancekit.distribution/2"
    assert data["total"] == str(flint.fmpz(d6000.total))  # decimal text, exact
    assert all(isinstance(w, str) for w in data["weights"])
    assert data["weights"][:3] == ["1", "6000", "18003000"]
    assert Distribution.from_json(text) == d6000
    assert Distribution.from_dict(d6000.to_dict()) == d6000


@pytest.mark.parametrize("x", [
    d(6), 3 @ d(6),
    d(2) / 2,                                                    # {1/2: 1, 1: 1}
    Distribution({Fraction(1, 2): 1, "1/2": 3, "a": 2}),         # text that looks like one
    Distribution({"hit": Fraction(3, 4), "miss": Fraction(1, 4)}),
    Distribution({(1, "b"): 1, (2, (3, 4)): 2, True: 3, None: 1, 2.5: 1, float("-inf"): 1}),
    Distribution({2**53: 1, -(2**80): 2, 10**5000: 3, Fraction(1, 10**5000): 1}),
    Distribution({0: 1, 1: 6**6000 - 1}),
])
def test_to_json_round_trips(x: Distribution) -> None:
    back = Distribution.from_json(x.to_json())
    assert back == x
    assert [type(k) for k in back] == [type(k) for k in x]


def test_from_json_of_the_version_1_form_and_without_total() -> None:
    assert Distribution.from_json('{"outcomes": [1, 2], "weights": [1, 3], "total": 4}') \
        == Distribution({1: 1, 2: 3})
    assert Distribution.from_dict({"outcomes": [1, 2], "weights": ["2", "6"]}) \
        == Distribution({1: 1, 2: 3})


@pytest.mark.parametrize("text", [
    "[]", "{}", "not json", '{"outcomes": [1], "weights": []}',
    '{"outcomes": [1, 1], "weights": ["1", "1"]}',
    '{"outcomes": [1], "weights": [" 1"]}',
    '{"outcomes": [1], "weights": ["1.5"]}',
    '{"outcomes": [1], "weights": ["-1"]}',
    '{"outcomes": [1], "weights": ["0"]}',
    '{"outcomes": [1], "weights": [true]}',
    '{"outcomes": [1, 2], "weights": ["1", "1"], "total": "3"}',
    '{"outcomes": [{"fraction": "1/0"}], "weights": ["1"]}',
    '{"outcomes": [{"fraction": "1/-2"}], "weights": ["1"]}',
    '{"outcomes": [{"nope": "1"}], "weights": ["1"]}',
    '{"outcomes": [1], "weights": ["1"], "format": "chancekit.distribution/9"}',
])
def test_from_json_refuses_malformed_documents(text: str) -> None:
    with pytest.raises((InvalidValueError, InvalidTypeError)):
        Distribution.from_json(text)


# -- cumulative: exact, float, and the limit ---------------------------------------------------

small = st.dictionaries(st.integers(-20, 20), st.integers(1, 10**30), min_size=1, max_size=12)


@given(small)
def test_cumulative_is_exact_and_cumulative_float_rounds_it(weights: dict[int, int]) -> None:
    x = Distribution(weights)
    exact = x.cumulative()
    assert exact == tuple((k, x.probability(k), x.at_least(k), x.at_most(k)) for k in x)
    floats = x.cumulative_float()
    assert floats == tuple((k, float(p), float(ge), float(le)) for k, p, ge, le in exact)


def test_cumulative_float_min_probability_keeps_the_sums() -> None:
    x = 40 @ d(6)
    every = x.cumulative_float()
    some = x.cumulative_float(1e-6)
    assert 0 < len(some) < len(every)
    assert set(some) <= set(every)


def test_cumulative_of_huge_weights(d6000: Distribution) -> None:
    x = 3000 @ d(6)  # 15 001 rows of 7 755-bit weights: allowed, exact
    rows = x.cumulative()
    mid = rows[7500]
    assert mid[0] == 10500 and mid[1] == x.probability(10500)
    assert mid[2] == x.at_least(10500) and mid[3] == x.at_most(10500)
    with pytest.raises(LimitError) as e:
        d6000.cumulative()  # 30 001 x 15 510**2 = 7.2e12 > MAX_FRACTION_WORK
    assert e.value.limit == "MAX_FRACTION_WORK" and "cumulative_float()" in str(e.value)
    assert e.value.value > MAX_FRACTION_WORK
    assert len(d6000.cumulative_float()) == 30001


# -- the command line ---------------------------------------------------------------------------

def test_dist_json_of_weights_past_4300_digits(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _cli_json(capsys, "dist", "6000d6")
    assert doc["schema"] == "chancekit.dist/2"
    assert doc["total_weight"] == str(flint.fmpz(6**6000))
    assert len(doc["outcomes"]) + doc["hidden"] == 30001 and doc["hidden"] > 0
    assert doc["mean"] == "21000" and math.isclose(doc["sd"], math.sqrt(6000 * 35 / 12))
    total = int(flint.fmpz(doc["total_weight"]))
    row = next(r for r in doc["outcomes"] if r["outcome"] == 21000)
    assert int(flint.fmpz(row["weight"])) / total == row["probability"]
    doc = _cli_json(capsys, "dist", "9000d{0,0,0,0,0,1}")
    assert doc["mean"] == "1500" and len(doc["outcomes"]) + doc["hidden"] == 9001


def test_dist_all_lists_every_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _cli_json(capsys, "dist", "40d6", "--all")
    assert doc["hidden"] == 0 and len(doc["outcomes"]) == 201
    assert sum(int(r["weight"]) for r in doc["outcomes"]) == int(doc["total_weight"])


@pytest.mark.parametrize("notation", ["10000d6"])
def test_dist_10000d6_table_and_json(capsys: pytest.CaptureFixture[str],
                                     notation: str) -> None:
    out = _cli(capsys, "dist", notation)
    lines = out.splitlines()
    assert lines[0] == notation and lines[1].split() == ["outcome", "probability", "at",
                                                         "least", "at", "most"]
    assert "35000" in {line.split()[0] for line in lines[2:-2]}
    assert lines[-2].endswith("outcomes below 1e-06 hidden; --all shows them)")
    assert lines[-1] == ("mean 35000.0000 (exactly 35000), sd 170.7825, skewness 0.0000, "
                         "excess kurtosis -0.000127")
    doc = _cli_json(capsys, "dist", notation)
    # n d6: skewness 0, excess kurtosis that of one d6 (-222/175) over n
    assert doc["skewness"] == 0.0 and doc["kurtosis"] == "-111/875000"
    assert len(doc["outcomes"]) == len(lines) - 4
    assert len(doc["outcomes"]) + doc["hidden"] == 50001
    assert doc["total_weight"] == str(flint.fmpz(6**10000))
    assert [r["outcome"] for r in doc["outcomes"]] == sorted(r["outcome"]
                                                             for r in doc["outcomes"])
    html = distribution_html(dist(notation))
    assert html.count("<tr>") == 61 and "mean 35000.0000" in html


def test_dist_text_with_huge_exact_mean(capsys: pytest.CaptureFixture[str]) -> None:
    out = _cli(capsys, "dist", "15000d2>=22500")
    assert out.splitlines()[-1].startswith("mean 0.5033, sd 0.5000")
    out = _cli(capsys, "dist", "3/5d%e>=5")  # Fraction mean of 4 800 digits: not shown
    assert out.splitlines()[-1].startswith("mean 0.0009, sd 0.0004, skewness ")
    doc = _cli_json(capsys, "dist", "3/5d%e>=5")
    assert len(doc["mean"]) > 9000 and doc["mean"].count("/") == 1
    assert math.isclose(doc["mean_float"], 0.000898, rel_tol=1e-2)
    out = _cli(capsys, "dist", "3d6")
    assert out.splitlines()[-1] == ("mean 10.5000 (exactly 21/2), sd 2.9580, skewness 0.0000, "
                                    "excess kurtosis -0.4229")


@pytest.mark.parametrize("outcomes", [["a", "b"], [1, 10**400]])
def test_plot_refuses_outcomes_that_are_not_floats(tmp_path: Any, outcomes: list[Any]) -> None:
    from chancekit.cli._dice import _plot

    with pytest.raises(InvalidValueError, match="--plot needs outcomes that are numbers"):
        _plot("t", outcomes, [0.5, 0.5], str(tmp_path / "x.png"))
    assert not (tmp_path / "x.png").exists()


# -- text outcomes refuse arithmetic (issue #10 follow-up: 's' + 'a' was 'sa') -------------------

SYMBOLS = faces(["s", "a"])
OPERATORS = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b,
    "floor-divide": lambda a, b: a // b, "take the remainder of": lambda a, b: a % b,
}


@pytest.mark.parametrize("verb", sorted(OPERATORS))
@pytest.mark.parametrize("pair", ["dist-dist", "dist-int", "int-dist", "dice-text",
                                  "text-dice"])
def test_text_outcomes_refuse_arithmetic(verb: str, pair: str) -> None:
    if pair == "text-dice" and verb == "take the remainder of":
        pytest.skip("'x' % dist is str formatting: Python never asks the distribution")
    a, b = {"dist-dist": (SYMBOLS, SYMBOLS), "dist-int": (SYMBOLS, 2),
            "int-dist": (2, SYMBOLS), "dice-text": (d(6), "x"),
            "text-dice": ("x", d(6))}[pair]
    with pytest.raises(InvalidTypeError) as e:
        OPERATORS[verb](a, b)
    assert str(e.value).startswith(f"cannot {verb} outcomes ")
    assert "(str): arithmetic needs numbers; symbol dice are a later feature" in str(e.value)


def test_text_outcomes_refuse_sums_and_unary_operators() -> None:
    with pytest.raises(InvalidTypeError, match="cannot add outcomes 'a' and 'a'"):
        SYMBOLS + SYMBOLS
    with pytest.raises(InvalidTypeError, match="cannot add"):
        3 @ SYMBOLS
    with pytest.raises(InvalidTypeError):
        _ = -SYMBOLS
    with pytest.raises(InvalidTypeError):
        abs(SYMBOLS)
    mixed = Distribution({1: 1, "x": 1})
    with pytest.raises(InvalidTypeError, match="'x'"):
        mixed + 1
    # labels still compare and map
    assert SYMBOLS.eq("s").probability(1) == Fraction(1, 2)
    assert SYMBOLS.map(str.upper) == faces(["S", "A"])
