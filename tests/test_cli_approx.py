"""``--approx`` on the command line (issue #31, item 7): a refusal for huge weights offers
it; with it, ``dist`` and ``anydice`` print certified tables that say "certified, not
exact" with their bounds; answers that are cheap stay exact; the options a certified
answer has no form for are refused with one line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit.cli.main import main
from chancekit.cli.schemas import SCHEMAS

HIGHEST = """function: highest of N:n x D:d {
  if N = 0 { result: 0 }
  if N = 1 { result: D }
  RES: 1@2d[highest of N/2 x D]
  if N - (N/2)*2 = 1 { RES: [highest of D and RES] }
  result: RES
}
set "maximum function depth" to 99
output [highest of 10000000 x d6] named "highest of 10 million d6"
output 2d6
"""


def test_dist_offers_then_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "20000d6>=70000"]) == 1
    err = capsys.readouterr().err
    assert "--approx" in err and len(err.strip().splitlines()) == 1
    assert main(["dist", "20000d6>=70000", "--approx"]) == 0
    out = capsys.readouterr().out
    assert "certified, not exact" in out and "± bound" in out
    assert "49.9174117565%" in out and "50.0825882435%" in out
    assert main(["dist", "3d6", "--approx"]) == 0  # exact: as without --approx
    assert "exactly 21/2" in capsys.readouterr().out


def test_anydice_offers_then_answers(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "highest.dice"
    program.write_text(HIGHEST)
    assert main(["anydice", str(program)]) == 1
    assert "--approx" in capsys.readouterr().err
    assert main(["anydice", str(program), "--approx"]) == 0
    out = capsys.readouterr().out
    assert "certified, not exact" in out          # the first output
    assert "exactly 7" in out                     # 2d6 stays exact


@pytest.mark.parametrize("extra", [["--compare", "3d6"], ["--plot", "x.png"]])
def test_forms_a_certified_answer_lacks_are_refused(extra: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "20000d6>=70000", "--approx", *extra]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "certified" in captured.err


# -- --json: the chancekit.certified/1 document ------------------------------------------

VALIDATOR = jsonschema.Draft202012Validator(SCHEMAS["certified"])


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    VALIDATOR.validate(doc)
    return doc


def test_the_certified_schema_is_valid_and_printed() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMAS["certified"])
    assert SCHEMAS["certified"]["properties"]["schema"]["const"] == "chancekit.certified/1"


def test_dist_json_of_a_certified_answer(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["dist", "20000d6>=70000", "2d2", "--approx"])
    assert doc["schema"] == "chancekit.certified/1" and doc["command"] == "dist"
    assert doc["certified"] is True and doc["exact"] is False
    first, second = doc["outputs"]
    assert first["certified"] is True and first["exact"] is False and first["bits"] >= 128
    assert 0 < first["max_error"] <= 1e-12 == 1e-12 and doc["max_error"] == first["max_error"]
    assert [r["outcome"] for r in first["outcomes"]] == [0, 1] and first["mean"] is None
    for r in first["outcomes"]:
        assert r["low"] <= r["probability"] <= r["high"] and r["error"] <= first["max_error"]
    # the table's figures (test_dist_offers_then_answers) lie inside the JSON's bounds
    assert first["outcomes"][0]["low"] <= 0.499174117565 + 5e-13
    assert first["outcomes"][0]["high"] >= 0.499174117565 - 5e-13
    # an exact answer beside it: error 0, its bounds the exact probabilities
    assert second["exact"] is True and second["max_error"] == 0 and second["mean"] == "3"
    assert [(r["low"], r["high"], r["error"]) for r in second["outcomes"]] == [
        (0.25, 0.25, 0.0), (0.5, 0.5, 0.0), (0.25, 0.25, 0.0)]


def test_anydice_json_of_a_certified_answer(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "highest.dice"
    program.write_text(HIGHEST)
    doc = _json(capsys, ["anydice", str(program), "--approx"])
    assert doc["command"] == "anydice" and doc["source"] == str(program)
    assert doc["dialect"] is None
    highest, two = doc["outputs"]
    assert highest["label"] == "highest of 10 million d6" and highest["certified"] is True
    # every possible outcome is listed, however small (1..5: about 10^-791,813)
    assert [r["outcome"] for r in highest["outcomes"]] == [1, 2, 3, 4, 5, 6]
    assert highest["hidden"] == 0 and highest["count"] == 6
    assert all(r["low"] == 0 and r["high"] > 0 for r in highest["outcomes"][:5])
    assert highest["outcomes"][5]["high"] == 1.0 and highest["mean_high"] >= 6 - 1e-12
    assert two["exact"] is True and two["mean"] == "7" and two["count"] == 11
    # without --approx, --json of a cheap program keeps its own schema
    small = tmp_path / "small.dice"
    small.write_text("output 2d6\n")
    assert main(["anydice", str(small), "--approx", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == "chancekit.anydice/1"


def test_rows_bound_the_exact_answer() -> None:
    """output_fields on a certified sum whose exact answer is known: every row's float
    ``low``/``high`` hold the exact probability, the error bound holds around the
    midpoint, and the hidden rows are those dist --json hides."""
    from fractions import Fraction

    from chancekit.cli._certified import output_fields
    from chancekit.cli._dice import certified_rows
    from chancekit.dice import d
    from chancekit.dice.certified import CertifiedDistribution

    exact = 200 @ d(6)
    for bits in (16, 24, 128):
        c = CertifiedDistribution.from_exact(d(6), bits).repeat_sum(200)
        assert c.contains(exact)
        out = output_fields("200d6", c, show_all=True, **certified_rows())
        assert out["count"] == len(exact) == len(out["outcomes"]) and out["hidden"] == 0
        for r in out["outcomes"]:
            p = exact.probability(r["outcome"])
            assert Fraction(r["low"]) <= p <= Fraction(r["high"])
            mid = c.midpoints()[r["outcome"]]
            assert abs(p - mid) <= Fraction(r["error"])
        assert Fraction(out["mean_low"]) <= 700 <= Fraction(out["mean_high"])
        if bits < 128:  # (at 16 bits a far tail's midpoint is about 2**-17 > 1e-6)
            continue
        shown = output_fields("200d6", c, show_all=False, **certified_rows())
        assert shown["hidden"] == sum(1 for x in exact.outcomes()
                                      if exact.probability(x) < Fraction(1, 10**6))


@given(st.integers(min_value=0, max_value=2**200), st.integers(min_value=1, max_value=2**200))
def test_directed_floats_bound_the_rational(a: int, b: int) -> None:
    from fractions import Fraction

    from chancekit.dice.certified import float_down, float_up

    lo, hi = float_down(a, b), float_up(a, b)
    assert Fraction(lo) <= Fraction(a, b) <= Fraction(hi)
    assert hi <= math.nextafter(lo, math.inf) or lo == hi  # adjacent floats at most


def test_rational_bounds_round_outward_at_any_size_and_sign() -> None:
    from fractions import Fraction

    from chancekit.dice.certified import fraction_down, fraction_up

    for q in [Fraction(-1, 3), Fraction(1, 3), Fraction(0), Fraction(10**400, 3),
              Fraction(-(10**400), 7), Fraction(1, 10**400), Fraction(-1, 10**400)]:
        lo, hi = fraction_down(q), fraction_up(q)
        assert lo <= hi
        if math.isfinite(lo):
            assert Fraction(lo) <= q
        if math.isfinite(hi):
            assert q <= Fraction(hi)
