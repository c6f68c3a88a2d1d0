"""JSON Schemas (draft 2020-12) of every subcommand's ``--json`` output.

Each ``--json`` document is one JSON object whose first key, ``"schema"``, names the
schema and its version (``"chancekit.roll/1"``, ``"chancekit.dist/2"``). Within a
version, fields are only ever added; a rename or a change of meaning bumps the version.
Every field is always present (``null`` where it does not apply), and non-finite floats
are written as ``null``.
The field-by-field description is docs/cli.md; ``chancekit schema COMMAND`` prints one.

>>> sorted(SCHEMAS)[:3]
['anydice', 'audit', 'certified']
>>> SCHEMAS["dist"]["properties"]["schema"]["const"]
'chancekit.dist/2'
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any


__all__ = ["SCHEMAS", "VERSION", "VERSIONS", "schema_id"]

#: the version of every schema below not in :data:`VERSIONS`
VERSION = 1
#: schemas past version 1. dist/nco 2: weights and total_weight are decimal text (any
#: size), probability is a float (no exact fraction per row), rows below 1e-6 of long
#: tables are left out unless --all (counted in "hidden"). pool 2: a tuple outcome (RISK's
#: losses, straights, the pool algebra's Vectors) is a list of its elements, no longer the
#: tuple's text ("(0, 2)"): a change of meaning, so a new version (issue 29)
VERSIONS = {"dist": 2, "nco": 2, "pool": 2}

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_id(command: str) -> str:
    """The ``"schema"`` value of ``command``'s ``--json`` output.

    >>> schema_id("roll")
    'chancekit.roll/1'
    """
    return f"chancekit.{command}/{VERSIONS.get(command, VERSION)}"


def _obj(props: dict[str, Any], *, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props,
            "required": [k for k in props if k not in optional],
            "additionalProperties": False}


def _array(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _map(values: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": values}


def _null(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_INT = {"type": "integer"}
_NAT = {"type": "integer", "minimum": 0}
_NUM = {"type": "number"}
_STR = {"type": "string"}
_PROB = {"type": "number", "minimum": 0, "maximum": 1}
#: an exact rational written as text: "3/16", "-7/2", "10"
_FRACTION = {"type": "string", "pattern": r"^-?[0-9]+(/[0-9]+)?$"}
#: an outcome or label: an integer, text (fractions as "7/2", labels), or a boolean
_VALUE = {"type": ["integer", "string", "boolean"]}
#: an exact integer of any size as decimal text (JSON readers lose integers past 2**53)
_BIGNAT = {"type": "string", "pattern": "^[0-9]+$"}
_SEED = {"type": ["integer", "string"],
         "description": "the master seed used (drawn from the OS when not given)"}
_STREAM = {"type": ["integer", "string", "null"],
           "description": "a number: raw PCG32 stream; text: named stream; null: stream 0"}


def _head(command: str) -> dict[str, Any]:
    return {"schema": {"const": schema_id(command)}}


#: the summary figures of a distribution (added within dist/2, nco/2 and pool/1: skewness,
#: kurtosis and kurtosis_float came after mean and sd; null where undefined)
_FIGURES = {"mean": _null(_FRACTION), "mean_float": _null(_NUM), "sd": _null(_NUM),
            "skewness": _null(_NUM), "kurtosis": _null(_FRACTION),
            "kurtosis_float": _null(_NUM)}


def _distribution(command: str, which: dict[str, Any],
                  tail: dict[str, Any] | None = None) -> dict[str, Any]:
    return _obj({
        **_head(command), **which,
        "outcomes": _array(_obj({
            "outcome": _VALUE, "weight": _BIGNAT, "probability": _PROB,
            "at_least": _PROB, "at_most": _PROB})),
        "hidden": _NAT,
        "total_weight": _BIGNAT,
        **_FIGURES, **(tail or {})})


def _distribution_fields(which: dict[str, Any]) -> dict[str, Any]:
    """One distribution inside a larger document (``anydice``'s outputs): as
    :func:`_distribution` without the ``schema`` field."""
    schema = _distribution("dist", which)
    del schema["properties"]["schema"]
    schema["required"].remove("schema")
    return schema


#: ``dist --compare EXPR`` (added within dist/2; null without --compare)
_COMPARE = _null(_obj({"notation": _STR, **_FIGURES,
                       "ks": _null(_FRACTION), "ks_float": _null(_PROB),
                       "tv": _FRACTION, "tv_float": _PROB}))




def _more() -> dict[str, Any]:
    """``dist A B C``: each expression after the first, as one distribution with its
    distances from the first (added within dist/2; empty with one expression)."""
    one = _distribution_fields({"notation": _STR})
    extra = {"ks": _null(_FRACTION), "ks_float": _null(_PROB), "tv": _FRACTION,
             "tv_float": _PROB}
    one["properties"].update(extra)
    one["required"] += list(extra)
    return _array(one)


_ROLL = _obj({"notation": _STR, "total": {"anyOf": [_INT, _FRACTION]}, "breakdown": _STR,
              "text": _STR, "dice_rolled": _NAT, "dice": _array(_VALUE)})

_TABLE = _obj({
    "title": _null(_STR), "row_die": _INT, "check_die": _INT, "rule": _STR,
    "rows": _array(_obj({"face": _INT, "outcome": _null(_VALUE), "threshold": _NAT,
                         "alias": _null(_VALUE)})),
    "target": _map(_FRACTION), "realized": _map(_FRACTION),
    "report": _obj({"mean": _null(_NUM), "realized_mean": _null(_NUM), "sd": _null(_NUM),
                    "realized_sd": _null(_NUM), "max_error_points": _NUM,
                    "total_variation": _NUM})})

#: ``table --two-stage --json`` (added within table/1: ``two_stage`` is empty without
#: --two-stage, and ``tables`` is empty with it); first and second are single tables
_TWO_STAGE = _obj({
    "title": _null(_STR), "row_die": _INT, "check_die": _INT, "rule": _STR,
    "groups": _array(_array(_VALUE)),
    "first": {"$ref": "#/$defs/table"}, "second": _array({"$ref": "#/$defs/table"}),
    "target": _map(_FRACTION), "realized": _map(_FRACTION),
    "report": _TABLE["properties"]["report"]})

_SUMMARY_EXACT = ("unpredictability", "guessability", "outcome_variance", "variance_ratio",
                  "discrepancy")
SUMMARY_EXACT = _SUMMARY_EXACT
_SUMMARY_MC = ("p_repeat", "autocorrelation", "p_triple", "longest_drought")
SERIES = _SERIES = ("entropy", "guessability", "outcome_variance", "discrepancy")
_STREAKS = ("p_repeat", "p_triple", "longest_gap", "mean_run")


def _metric_map(keys: tuple[str, ...], optional: tuple[str, ...], item: Any) -> Any:
    return _obj({k: item for k in keys + optional}, optional=optional)


_CANDIDATE = _obj({"family": _STR, "params": _array({"type": ["number", "string"]}),
                   "spec": _STR, "unpredictability": _null(_NUM),
                   "outcome_variance": _null(_NUM), "min_unpredictability": _null(_NUM),
                   "feasible": {"type": "boolean"}, "rank": _null(_INT),
                   "variance_ratio": _null(_NUM), "mid_match_variance_ratio": _null(_NUM),
                   "end_effect": {"type": "boolean"}, "long_run_rate": _null(_NUM),
                   "worst_case": _null(_NUM), "longest_drought": _null(_NUM)})

SCHEMAS: dict[str, dict[str, Any]] = {
    "dist": _distribution("dist", {"notation": _STR, "dialect": _STR,
                                   "notes": _array(_STR)},
                          {"compare": _COMPARE, "more": _more()}),
    "nco": _distribution("nco", {"action": _NAT, "danger": _NAT}),
    "anydice": _obj({**_head("anydice"), "file": _STR,
                     "outputs": _array(_distribution_fields({"label": _STR})),
                     "warnings": _array(_STR)}),
    "pool": _distribution("pool", {"kind": {"enum": ["risk", "largest-set", "straight",
                                                     "rule",
                                                     "cancel", "face-to-face", "sets",
                                                     "straights", "poker", "expr"]},
                                   "spec": _array(_STR), "rule": _null(_STR)}),
    "symbols": _obj({**_head("symbols"), "pool": _STR, "dice": _map(_NAT),
                     "outcomes": _array(_obj({"symbols": _map(_INT), "text": _STR,
                                              "weight": _BIGNAT, "probability": _PROB})),
                     "total_weight": _BIGNAT, "success": _FRACTION, "success_float": _PROB,
                     "at_least_one": _map(_PROB), "means": _map(_FRACTION)}),
    "estimate": _obj({**_head("estimate"), "notation": _STR, "dialect": _STR,
                      "notes": _array(_STR), "seed": _SEED, "stream": _STREAM,
                      "samples": _NAT, "requested": _NAT, "complete": {"type": "boolean"},
                      "mean": _NUM, "mean_low": _NUM, "mean_high": _NUM, "sd": _NUM,
                      "outcomes": _array(_obj({"outcome": _VALUE, "count": _NAT,
                                               "frequency": _PROB, "low": _PROB,
                                               "high": _PROB}))}),
    "roll": _obj({**_head("roll"), "notation": _STR, "dialect": _STR,
                  "notes": _array(_STR), "seed": _SEED, "stream": _STREAM,
                  "rolls": _array(_ROLL)}),
    "table": {**_obj({**_head("table"), "tables": _array(_TABLE),
                      "two_stage": _array(_TWO_STAGE)}),
              "$defs": {"table": _TABLE}},
    "sample": _obj({**_head("sample"), "notation": _null(_STR), "seed": _SEED,
                    "stream": _STREAM, "no_repeat": _null(_NAT), "swap": _null(_NAT),
                    "n": _NAT, "draws": _array(_VALUE), "probabilities": _map(_FRACTION)}),
    "tune": _obj({**_head("tune"), "values": _INT,
                  "lengths": _array({"type": "array", "prefixItems": [_INT, _NUM],
                                     "minItems": 2, "maxItems": 2}),
                  "min_entropy": _NUM, "floor": {"enum": ["average", "every"]},
                  "best": _null(_STR),
                  "winners": _map(_array(_CANDIDATE)), "tables": _map(_array(_CANDIDATE)),
                  "warnings": _array(_STR), "objective": {"enum": ["variance", "drought"]},
                  "rate": _null(_NUM), "rate_tol": _null(_NUM), "worst": _null(_INT)}),
    "fairness": _obj({
        **_head("fairness"), "system": _STR, "n": _INT, "samples": _INT,
        "method": {"enum": ["exact", "montecarlo"]}, "trials": _NAT,
        "seed": _null(_SEED), "stream": _STREAM,
        "summary": _metric_map(_SUMMARY_EXACT, _SUMMARY_MC, _null(_NUM)),
        "se": _metric_map(_SUMMARY_EXACT, _SUMMARY_MC, _null(_NUM)),
        "series": _metric_map(_SERIES, ("p_gap",), _array(_null(_NUM))),
        "series_se": _metric_map((), ("entropy", "outcome_variance", "p_gap"),
                                 _array(_null(_NUM))),
        "states": _array(_NAT), "dropped": _NUM,
        "streaks": _null(_obj({
            "method": {"enum": ["exact", "montecarlo"]}, "trials": _NAT,
            "summary": _obj({k: _null(_NUM) for k in _STREAKS}),
            "se": _obj({k: _null(_NUM) for k in _STREAKS}),
            "run_lengths": _array(_null(_NUM)), "p_gap": _array(_null(_NUM)),
            "dropped": _NUM})),
        # the exact evaluation's refusal when only --streaks could be computed (then every
        # fairness figure is null or empty); null otherwise
        "refused": _null(_STR)}),
    "markov": _obj({
        **_head("markov"), "kind": {"enum": ["usage-die", "race", "pity", "until"]},
        "args": _array(_STR), "unit": _STR,
        "mean": _FRACTION, "mean_float": _NUM, "variance": _FRACTION, "variance_float": _NUM,
        "sd": _NUM,
        "distribution": _array(_obj({"count": _NAT, "probability": _PROB,
                                     "exact": _null(_FRACTION)})),
        "upto": _INT, "tail": _FRACTION, "tail_float": _PROB,
        "winner": _null(_array(_obj({"outcome": _STR, "probability": _PROB,
                                     "exact": _null(_FRACTION)})))}),
    "gacha": _obj({
        **_head("gacha"), "spec": _STR, "value": _STR, "state": _null(_array(_VALUE)),
        "pulls": _null(_NAT), "price": _null(_NUM), "refund": _NUM, "budget": _null(_NUM),
        "affordable": _null(_INT), "refund_per": _map(_NUM),
        "rows": _array(_obj({
            "copies": _NAT, "mean": _NUM, "mean_exact": _null(_FRACTION), "sd": _NUM,
            "median": _NAT, "p90": _NAT, "p99": _NAT, "most": _null(_NAT),
            "within_pulls": _null(_PROB), "within_budget": _null(_PROB),
            "mean_cost": _null(_NUM)}))}),
    "audit": _obj({
        **_head("audit"), "file": _STR, "system": _null(_STR), "test": _STR,
        "verdict": _STR, "level": _PROB, "pulls": _NAT,
        "p_value": _obj({"float": _PROB, "exact": _FRACTION}),
        "observed": _map(_NAT), "expected": _map(_NUM),
        "intervals": _map(_array(_PROB)),
        "tests": _map(_obj({"float": _PROB, "exact": _FRACTION})),
        "log_chance": _null(_PROB)}),
    "simulate": _obj({**_head("simulate"), "system": _STR, "seed": _SEED, "stream": _STREAM,
                      "draws": _array(_VALUE)}),
    "stream": _obj({**_head("stream"), "seed": _SEED, "stream": _STREAM,
                    "children": _array(_STR), "bound": _null(_NAT), "skip": _INT,
                    "draws": _array(_NAT),
                    "state_after": _obj({"state": {"type": "string",
                                                   "pattern": "^0x[0-9a-f]{16}$"},
                                         "inc": {"type": "string",
                                                 "pattern": "^0x[0-9a-f]{16}$"}})}),
    "tour": _obj({**_head("tour"), "version": _STR,
                  "sections": _array(_obj({"title": _STR, "explanation": _STR,
                                           "command": _STR,
                                           "output": {"type": "object"}}))}),
    # `dist --approx --json` / `anydice --approx --json` when an answer is certified
    # (issue #31 item 7): not dist/2 or anydice/1, whose rows carry exact weights
    "certified": _obj({
        **_head("certified"), "command": {"enum": ["dist", "anydice"]}, "source": _STR,
        "dialect": _null(_STR), "exact": {"const": False}, "certified": {"const": True},
        "max_error": {"type": "number", "minimum": 0},
        "outputs": _array(_obj({
            "label": _STR, "exact": {"type": "boolean"}, "certified": {"type": "boolean"},
            "bits": _null(_NAT), "max_error": {"type": "number", "minimum": 0},
            "outcomes": _array(_obj({
                "outcome": _VALUE, "probability": _PROB, "low": _PROB, "high": _PROB,
                "error": {"type": "number", "minimum": 0}, "at_least": _PROB,
                "at_most": _PROB})),
            "hidden": _NAT, "count": _NAT, "mean": _null(_FRACTION),
            "mean_low": _null(_NUM), "mean_high": _null(_NUM)})),
        "warnings": _array(_STR)}),
}

SCHEMAS = {name: {"$schema": _DIALECT, "$id": schema_id(name),
                  "title": f"chancekit {name} --json", **schema}
           for name, schema in SCHEMAS.items()}
# (no `chancekit certified` command: the document of a certified --approx answer)
SCHEMAS["certified"]["title"] = "chancekit dist/anydice --approx --json, a certified answer"

#: a tuple outcome (a Vector of the pool algebra, RISK's losses, all_straights' lengths)
#: is a list of its elements, each a value, null or a list (pool/2; accepted by every row of
#: outcomes:
#: issue 29; it was the tuple's text); the text output keeps "(2, 1)"
_TUPLE = {"type": "array", "items": {"type": ["integer", "string", "boolean", "null",
                                              "array"]}}


def _tuple_outcomes(schema: Any) -> None:
    """Let the ``outcome`` of every row of outcomes (a distribution's, an estimate's) be
    a tuple too."""
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict) and props.get("outcome") is _VALUE and (
                "weight" in props or "count" in props):
            props["outcome"] = {"anyOf": [_VALUE, _TUPLE]}
        for value in schema.values():
            _tuple_outcomes(value)
    elif isinstance(schema, list):
        for value in schema:
            _tuple_outcomes(value)


_tuple_outcomes(SCHEMAS)
