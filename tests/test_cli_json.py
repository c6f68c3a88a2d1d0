"""Every subcommand's ``--json`` output follows its documented JSON Schema, and every
subcommand's ``--help`` carries runnable examples.

The schemas live in :mod:`chancekit.cli.schemas`; docs/cli.md describes them field by
field, and a test here checks that the two list exactly the same fields.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chancekit.cli.main import build_parser, main
from chancekit.cli.schemas import SCHEMAS, schema_id

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
DATA = Path(__file__).resolve().parent / "data"

# Several invocations per command, chosen to reach every optional and nullable field.
CASES: list[list[str]] = [
    ["dist", "4d6kh3"],
    ["dist", "1d2/2"],                   # fractional outcomes and mean
    ["dist", "2d6 >= 7"],
    ["dist", "d{1,1,2} + 1d4"],
    ["dist", "4d6kh3", "--compare", "3d6"],   # the compare object
    ["dist", "5", "--compare", "1d2/2"],      # a constant: no skewness or kurtosis
    ["dist", "4d6kh3", "3d6", "1d2/2", "--at-least"],   # several: the more array
    ["nco", "3", "2"],
    ["anydice", str(DATA / "anydice" / "attack.dice")],   # several outputs, one empty (d{})
    ["nco", "0", "0"],
    ["pool", "risk", "3", "2"],
    ["pool", "largest-set", "5d6"],
    ["pool", "straight", "3d6", "2d8"],
    ["pool", "rule", "chancekit.dice.pool:_LARGEST", "4d6"],
    ["symbols", "2A1P vs 2D1C"],
    ["symbols", "1B"],
    ["roll", "4d6kh3", "-n", "3", "--seed", "42"],
    ["estimate", "4d6kh3", "-n", "300", "--seed", "42"],
    ["estimate", "1d2/2", "-n", "50", "--seed", "my-campaign", "--stream", "7x"],
    ["roll", "1d20+5", "--seed", "12345", "--stream", "combat"],
    ["roll", "1d2/2", "--seed", "my-campaign", "--stream", "7x"],
    ["roll", "3d6!", "--seed", "1", "--stream", "3"],
    ["table", "3d6"],
    ["table", "2d6", "4dF", "--row-die", "12"],
    ["table", "--weights", "sword=5,shield=3,potion=12", "--row-die", "6"],
    ["table", "2d20", "--two-stage"],
    ["table", "3d6", "--weights", "a=1,b=2,c=3,d=4,e=5", "--row-die", "4", "--two-stage"],
    ["sample", "--weights", "sword=5,shield=1/2,potion=0.25", "-n", "5", "--seed", "42"],
    ["sample", "2d6", "-n", "8", "--seed", "1", "--swap", "1"],
    ["sample", "1d4", "-n", "8", "--seed", "1", "--no-repeat", "1", "--stream", "loot"],
    ["sample", "1d4", "-n", "0", "--seed", "1"],
    ["tune", "--values", "3", "--samples", "4", "--min-entropy", "0.5"],
    ["tune", "--values", "3", "--samples", "3..5", "--min-entropy", "0.99", "--systems",
     "deck,dice", "--floor", "every"],
    ["tune", "--systems", "lucky-streak", "--samples", "6", "--grid", "lucky-streak:0.3/0.5,1..2",
     "--rate", "0.5", "--objective", "drought"],
    ["fairness", "deck", "--values", "3", "--samples", "5"],
    ["fairness", "deck", "--values", "3", "--samples", "5", "--streaks"],
    ["fairness", "prd:0.25", "--samples", "6", "--trials", "50", "--seed", "7", "--streaks"],
    ["fairness", "dynamic-dice:0.355", "--values", "4", "--samples", "6", "--prune", "1e-3"],
    ["fairness", "prd:0.25", "--samples", "6", "--trials", "200", "--seed", "7"],
    ["fairness", "deck", "--values", "3", "--samples", "2", "--trials", "1", "--seed", "7",
     "--stream", "x"],                  # one trial: standard errors are undefined -> null
    ["markov", "usage-die", "d12", "d10", "d8", "d6", "d4"],
    ["markov", "race", "30", "2d6", "25", "1d8+2", "--alternating"],
    ["markov", "race", "10", "1d4-1"],     # a count with no bound: walked to a tail
    ["markov", "pity", "gacha:0.006,74,0.06,90", "--upto", "5"],
    ["markov", "until", "1d6", "--sequence", "6,6"],
    ["gacha", "gacha:0.006,74,0.06,90", "--copies", "2", "--pity", "37", "--guaranteed",
     "--pulls", "160", "--price", "160", "--budget", "28800"],
    ["gacha", "pity:0.2", "--copies", "2"],              # no bound: most is null
    ["gacha", "gacha:0.006,74,0.06,90", "--copies", "2", "--price", "160", "--budget",
     "28800", "--refund-per", "featured=40,off-banner=40"],
    ["gacha", "pity:0.2", "--copies", "2", "--price", "10", "--refund-per", "true=3"],
    ["audit", str(DATA / "audit" / "counts.csv"), "--rates", "5-star=0.006,4-star=0.051,"
     "3-star=0.943"],
    ["audit", str(DATA / "audit" / "log.json"), "--system", "gacha:0.006,74,0.06,90"],
    ["simulate", "deck", "--values", "4", "-n", "6", "--seed", "1"],
    ["simulate", "gdeck:1,6+no-repeat", "-n", "5", "--seed", "12345", "--stream", "level-1"],
    ["simulate", "prd:0.3", "-n", "5", "--seed", "9", "--stream", "2"],
    ["stream", "--seed", "42", "--stream", "54", "-n", "3"],
    ["stream", "--seed", "12345", "--stream", "dwarvish-mines-1", "-n", "3", "--bound", "100"],
    ["stream", "--seed", "my-campaign", "--child", "dungeon", "--id", "3", "-n", "2",
     "--skip", "-2"],
    ["tour"],
]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMAS[name])


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_json_output_follows_its_schema(capsys: pytest.CaptureFixture[str],
                                        argv: list[str]) -> None:
    doc = _run(capsys, argv)
    assert doc["schema"] == schema_id(argv[0])
    jsonschema.Draft202012Validator(SCHEMAS[argv[0]]).validate(doc)
    if argv[0] == "tour":  # each section's output follows its own command's schema
        for section in doc["sections"]:
            command = shlex.split(section["command"])[1]
            jsonschema.Draft202012Validator(SCHEMAS[command]).validate(section["output"])


def test_every_command_with_json_has_a_schema_and_a_case() -> None:
    with_json = {name for name, p in _subcommands().items()
                 if any("--json" in a.option_strings for a in p._actions)}
    # certified: the document of dist/anydice --approx --json (tests/test_cli_approx.py)
    assert with_json == set(SCHEMAS) - {"certified"}
    assert {c[0] for c in CASES} == set(SCHEMAS) - {"certified"}
    # schema prints a schema (JSON already); serve runs a web app (its API is JSON); site
    # writes files, and its machine-readable report is OUT/site.json (docs/site.md)
    assert set(_subcommands()) - with_json == {"schema", "serve", "site"}


def test_non_finite_numbers_are_null(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _run(capsys, ["fairness", "deck", "--values", "3", "--samples", "2", "--trials",
                        "1", "--seed", "7"])
    assert doc["series_se"]["entropy"] == [None, None] or doc["series_se"]["entropy"] == []
    assert all(v is None or v == 0 for v in doc["se"].values())


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(extra=1),               # undocumented field
    lambda d: d.pop("outcomes"),               # missing field
    lambda d: d.update(mean="three halves"),   # not an exact fraction
    lambda d: d["outcomes"][0].update(probability=1.5),
    lambda d: d["outcomes"][0].update(weight=1),    # dist/2: weights are decimal text
    lambda d: d.update(schema="chancekit.dist/1"),
])
def test_the_schemas_reject_wrong_documents(capsys: pytest.CaptureFixture[str],
                                            mutate: Any) -> None:
    doc = _run(capsys, ["dist", "2d6"])
    mutate(doc)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMAS["dist"]).validate(doc)


def test_seed_and_stream_are_reported_so_any_run_can_be_repeated(
        capsys: pytest.CaptureFixture[str]) -> None:
    first = _run(capsys, ["roll", "3d6", "-n", "4", "--stream", "combat"])  # OS seed
    again = _run(capsys, ["roll", "3d6", "-n", "4", "--seed", str(first["seed"]),
                          "--stream", "combat"])
    assert again["rolls"] == first["rolls"] and first["stream"] == "combat"


def test_table_json_can_go_to_a_file(capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    assert main(["table", "3d6", "--json", "-o", str(out)]) == 0
    jsonschema.Draft202012Validator(SCHEMAS["table"]).validate(json.loads(out.read_text()))


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "roll"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEMAS["roll"]
    with pytest.raises(SystemExit) as exc:
        main(["schema", "nope"])
    assert exc.value.code == 2


# -- docs/cli.md lists exactly the schemas' fields -------------------------------------------

def _paths(schema: dict[str, Any], prefix: str = "") -> set[str]:
    """Dotted field paths of a schema: ``outcomes[].weight``, ``report.mean``..."""
    out: set[str] = set()
    for option in schema.get("anyOf", []):
        out |= _paths(option, prefix)
    if schema.get("type") == "array" and "items" in schema:
        out |= _paths(schema["items"], prefix + "[]")
    for key, sub in schema.get("properties", {}).items():
        path = f"{prefix}.{key}" if prefix else key
        out.add(path)
        out |= _paths(sub, path)
    if isinstance(schema.get("additionalProperties"), dict):
        out |= _paths(schema["additionalProperties"], prefix + ".*")
    return out


def _documented() -> dict[str, set[str]]:
    sections: dict[str, set[str]] = {}
    current = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^### `chancekit (\w+)", line)
        if m:
            current = sections.setdefault(m.group(1), set())
        elif current is not None and line.startswith("| `"):
            current.add(line.split("`")[1])
        elif line.startswith("## "):
            current = None
    return sections


def test_docs_describe_every_field_of_every_schema() -> None:
    documented = _documented()
    assert set(documented) == set(SCHEMAS)
    for name, schema in SCHEMAS.items():
        assert documented[name] == _paths(schema), name


# -- --help ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_every_subcommand_help_shows_examples_that_parse(name: str) -> None:
    parser = _subcommands()[name]
    text = parser.format_help()
    assert "examples:" in text or "example:" in text
    examples = [line.strip() for line in (parser.epilog or "").splitlines()
                if line.strip().startswith("chancekit ")]
    assert examples, f"{name}: no example command in the epilog"
    for example in examples:
        argv = shlex.split(example.split(" > ")[0])[1:]
        assert argv[0] == name
        build_parser().parse_args(argv)  # a usage error would exit 2
