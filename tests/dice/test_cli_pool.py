"""``chancekit pool``: RISK, largest set, straights and a user's FaceRule from the command
line, checked against the library (which tests/dice/test_pool.py checks by brute force)."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from chancekit.cli.main import main
from chancekit.dice import Distribution, Pool, d
from chancekit.dice.mechanics import preset
from chancekit.dice.pool import largest_set, longest_straight, risk_battle

RULES = '''
from chancekit.dice.pool import FaceRule

RULE = FaceRule(lambda best, face, counts: max(best, counts[0]), initial=0)


class Pairs(FaceRule):
    def __init__(self):
        super().__init__(initial=0)

    def step(self, state, face, counts):
        return state + counts[0] // 2


class NeedsArgs(FaceRule):
    def __init__(self, k):
        super().__init__(initial=0)


BROKEN = FaceRule(lambda s, f, c: 1 / 0, initial=0)
NOT_A_RULE = 42
'''


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _outcome(x: Any) -> Any:
    """A JSON outcome as the library's: lists (tuple outcomes) back to tuples."""
    return tuple(_outcome(y) for y in x) if isinstance(x, list) else x


def weights(doc: dict) -> dict[str, Fraction]:
    total = int(doc["total_weight"])
    return {str(_outcome(o["outcome"])): Fraction(int(o["weight"]), total)
            for o in doc["outcomes"]}


def exact(dist) -> dict[str, Fraction]:
    return {str(k): v for k, v in dist.pmf().items()}


def test_risk_largest_set_straight_match_the_library(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, out, _ = run(capsys, "pool", "risk", "3", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["kind"] == "risk" and doc["rule"] is None
    assert weights(doc) == exact(risk_battle(3, 2))
    assert weights(doc)["(0, 2)"] == Fraction(1445, 3888)
    code, out, _ = run(capsys, "pool", "largest-set", "5d6", "--json")
    assert code == 0 and weights(json.loads(out)) == exact(largest_set(5 * [d(6)]))
    code, out, _ = run(capsys, "pool", "straight", "3d6", "2d8", "--json")
    assert code == 0
    assert weights(json.loads(out)) == exact(longest_straight(3 * [d(6)] + 2 * [d(8)]))
    code, out, _ = run(capsys, "pool", "straight", "5d6")
    assert code == 0 and out.startswith("longest straight of 5d6") and "mean 2.5162" in out


def test_user_rule_from_a_python_path(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ck_user_rules.py").write_text(textwrap.dedent(RULES))
    monkeypatch.chdir(tmp_path)  # the current folder is searched, as python -m does
    code, out, _ = run(capsys, "pool", "rule", "ck_user_rules:RULE", "4d6", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["rule"] == "ck_user_rules:RULE" and doc["spec"][1] == "4d6"
    assert weights(doc) == exact(largest_set(4 * [d(6)]))
    code, out, _ = run(capsys, "pool", "rule", "ck_user_rules:Pairs", "3d4")
    assert code == 0 and "ck_user_rules:Pairs on 3d4" in out


@pytest.mark.parametrize("path, fragment", [
    ("no_colon", "MODULE:NAME"),
    ("ck_no_such_module_xyz:RULE", "no module named 'ck_no_such_module_xyz'"),
    ("ck_user_rules2:MISSING", "has no attribute 'MISSING'"),
    ("ck_user_rules2:NOT_A_RULE", "FaceRule"),
    ("ck_user_rules2:NeedsArgs", "export an instance"),
    ("ck_user_rules2:BROKEN", "raised ZeroDivisionError"),
    ("ck_bad_syntax:RULE", "importing 'ck_bad_syntax' failed: SyntaxError"),
])
def test_wrong_rule_paths_are_clear_one_line_errors(
        path: str, fragment: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ck_user_rules2.py").write_text(textwrap.dedent(RULES))
    (tmp_path / "ck_bad_syntax.py").write_text("def (:\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "pool", "rule", path, "3d6")
    assert code == 1 and out == "" and fragment in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, fragment", [
    (["risk", "3"], "ATTACKERS DEFENDERS"),
    (["risk", "3", "x"], "two whole numbers"),
    (["largest-set", "5x6"], "NdF"),
    (["straight", "0d6"], "number of dice"),
    (["rule", "chancekit.dice.pool:_LARGEST"], "at least one pool"),
])
def test_pool_argument_mistakes(argv: list[str], fragment: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "pool", *argv)
    assert code == 1 and fragment in err


def test_pool_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "p.png"
    code, _, _ = run(capsys, "pool", "largest-set", "4d6", "--plot", str(png))
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"


# -- the pool algebra's presets and expression form (issue 29) ----------------------------


@pytest.mark.parametrize("argv, expect", [
    (["risk", "3d6", "2d6"], lambda: risk_battle(3, 2)),
    (["cancel", "3d6", "2d6", "--match", "equal"],
     lambda: (Pool(d(6), 3).keep_outcomes(lambda x: x >= 5)
              - Pool(d(6), 2).keep_outcomes(lambda x: x >= 5)).count()),
    (["face-to-face", "2d8", "1d8"], lambda: preset("face-to-face", [Pool(d(8), 2),
                                                                     Pool(d(8), 1)])),
    (["sets", "6d10", "--wild", "9,10"], lambda: Pool(d(10), 6).largest_count(wild=[9, 10])),
    (["straights", "5d6"], lambda: Pool(d(6), 5).all_straights()),
    (["poker", "5d6"], lambda: preset("poker", [Pool(d(6), 5)])),
    (["expr", "a.sort_pair('>', b).count()", "a=3d6", "b=2d6"],
     lambda: Pool(d(6), 3).sort_pair(">", Pool(d(6), 2)).count()),
])
def test_pool_algebra_presets(capsys: pytest.CaptureFixture[str], argv: list[str],
                              expect: Any) -> None:
    code, out, err = run(capsys, "pool", *argv, "--json", "--all")
    assert code == 0, err
    doc = json.loads(out)
    want = expect()
    assert {_outcome(o["outcome"]): int(o["weight"]) for o in doc["outcomes"]} == {
        (str(k) if isinstance(k, str) else k): w for k, w in want.weights.items()}


def test_pool_face_to_face_by_brute_force() -> None:
    import itertools
    out: dict[tuple[int, int], int] = {}
    for a1, a2, b in itertools.product(range(1, 9), repeat=3):
        key = (sum(x > b for x in (a1, a2)), int(b > max(a1, a2)))
        out[key] = out.get(key, 0) + 1
    assert preset("face-to-face", [Pool(d(8), 2), Pool(d(8), 1)]) == Distribution(out)


@pytest.mark.parametrize("argv, fragment", [
    (["cancel", "3d6"], "two pools"),
    (["sets", "5d6", "--wild", "x"], "--wild"),
    (["expr", "a.count("], "NAME=NdF"),
    (["expr", "a.count(", "a=3d6"], "syntax error"),
    (["expr", "__import__('os').getcwd()", "a=3d6"], "not a method"),
    (["expr", "a.count()", "a=3x6"], "NdF"),
    (["risk", "60d6", "60d6"], "MAX_WORK"),
])
def test_pool_algebra_mistakes(capsys: pytest.CaptureFixture[str], argv: list[str],
                               fragment: str) -> None:
    code, out, err = run(capsys, "pool", *argv)
    assert code == 1 and out == "" and fragment in err and "Traceback" not in err


def test_tuple_outcomes_are_json_lists(capsys: pytest.CaptureFixture[str]) -> None:
    """Tuple outcomes (RISK's losses, a Vector of several evaluations, straights) are lists
    of numbers in --json, valid against the schema; the table keeps "(2, 1)"."""
    import jsonschema

    from chancekit.cli.schemas import SCHEMAS
    from chancekit.dice import multiset_function

    code, out, _ = run(capsys, "pool", "risk", "3", "2", "--json")
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMAS["pool"])
    assert {tuple(o["outcome"]) for o in doc["outcomes"]} == {(0, 2), (1, 1), (2, 0)}
    code, out, _ = run(capsys, "pool", "expr", "a.count(), (a - b).count()", "a=2d6",
                       "b=1d6", "--json")
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMAS["pool"])

    @multiset_function
    def both(a, b):
        return a.count(), (a - b).count()
    expected = both(Pool(d(6), 2), Pool(d(6), 1))
    got = {tuple(o["outcome"]): int(o["weight"]) for o in doc["outcomes"]}
    assert all(isinstance(x, int) for k in got for x in k)
    total = int(doc["total_weight"])
    assert {k: Fraction(w, total) for k, w in got.items()} == expected.pmf()
    code, out, _ = run(capsys, "pool", "straights", "3d6", "--json")
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMAS["pool"])
    assert [3] in [o["outcome"] for o in doc["outcomes"]]
    assert [1, 1, 1] in [o["outcome"] for o in doc["outcomes"]]
    code, out, _ = run(capsys, "pool", "risk", "3", "2")
    assert code == 0 and "(0, 2)" in out and "[0, 2]" not in out
