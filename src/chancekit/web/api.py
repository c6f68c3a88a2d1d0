"""The JSON API's contract, without a web server: request bodies checked and answered.

One module serves both back ends (docs/site.md): ``chancekit serve`` (Starlette,
:mod:`chancekit.web.app`) reads a request, calls :func:`parse` and runs the job in a worker
process; the static site's Web Worker (Pyodide) calls :func:`handle` with the same path and
body and gets the same JSON. Each endpoint is a parser here (request JSON -> the job's
request dict, 400 with ``field`` on a bad input) and a job in :mod:`chancekit.web.compute`.
Nothing here imports Starlette, numpy or a server.

>>> status, body = handle("/api/dist", '{"expressions": ["1d4"]}')
>>> status, [r["p_exact"] for r in body["series"][0]["rows"]]
(200, ['1/4', '1/4', '1/4', '1/4'])
>>> handle("/api/dist", '{"expressions": []}')[0]
400
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from chancekit import __version__
from chancekit.dice._dialects import DIALECTS
from chancekit.limits import (
    MAX_BODY,
    MAX_ESTIMATE_SAMPLES,
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSIONS,
    MAX_LABEL_CHARS,
    MAX_LOOT_CHARS,
    MAX_MARKOV_STEPS,
    MAX_PROGRAM_CHARS,
    MAX_ROLLS,
    MAX_SPEC_CHARS,
    MAX_STREAMS,
    MAX_SYSTEMS,
    MAX_VARIABLES,
    MAX_WORK_OPTION,
)
from chancekit.web.markov import KINDS as MARKOV_KINDS


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"type": extra.pop("type", "BadRequest"), "message": message, **extra}



def decode_body(raw: bytes | str) -> dict[str, Any]:
    """A request body as a JSON object (400 when it is empty, not JSON or not an object;
    413 past :data:`~chancekit.limits.MAX_BODY` bytes)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if len(raw) > MAX_BODY:
        raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes",
                       type="TooLarge")
    if not raw.strip():
        raise ApiError(400, "the request body must be a JSON object, e.g. "
                       '{"expressions": [{"text": "4d6kh3"}]}')

    def no_constants(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    try:
        data = json.loads(raw, parse_constant=no_constants)
    except RecursionError:
        raise ApiError(400, "the JSON is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, an over-long integer
        raise ApiError(400, f"the request body is not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the request body must be a JSON object, not "
                       f"{_json_type(data)}")
    return data


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


_MISSING = object()


def get_str(data: dict[str, Any], name: str, *, default: Any = _MISSING, max_len: int,
            allow_empty: bool = True) -> Any:
    v = data.get(name, _MISSING)
    if v is _MISSING or v is None:
        if default is _MISSING:
            raise ApiError(400, f"{name!r} is required (a string)", field=name)
        return default
    if not isinstance(v, str):
        raise ApiError(400, f"{name!r} must be a string, not {_json_type(v)}", field=name)
    if len(v) > max_len:
        raise ApiError(400, f"{name!r} is too long ({len(v)} characters; at most "
                       f"{max_len})", field=name)
    if not allow_empty and not v.strip():
        raise ApiError(400, f"{name!r} must not be empty", field=name)
    return v


def get_int(data: dict[str, Any], name: str, *, default: Any = _MISSING, lo: int,
            hi: int) -> int:
    v = data.get(name, _MISSING)
    if v is _MISSING or v is None:
        if default is _MISSING:
            raise ApiError(400, f"{name!r} is required (a whole number)", field=name)
        return int(default)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ApiError(400, f"{name!r} must be a whole number, not {_json_type(v)}",
                       field=name)
    if not lo <= v <= hi:
        raise ApiError(400, f"{name!r} must be between {lo} and {hi}, not {v}", field=name)
    return v


_POOL_KINDS = ("largest-set", "straight", "nco", "risk", "genesys",
               "cancel", "face-to-face", "sets", "straights", "poker", "expr")


def parse_pool(data: dict[str, Any]) -> dict[str, Any]:
    """``/api/pool``: ``kind`` and its inputs (``dice`` text such as "5d6 2d8";
    ``action`` and ``danger`` counts; a Genesys ``pool`` such as "2A1P vs 2D")."""
    kind = get_str(data, "kind", max_len=20)
    if kind not in _POOL_KINDS:
        raise ApiError(400, f"'kind' must be one of {', '.join(_POOL_KINDS)}", field="kind")
    req: dict[str, Any] = {"kind": kind}
    if kind in ("largest-set", "straight", "sets", "straights", "poker", "cancel",
                "face-to-face"):
        req["dice"] = get_str(data, "dice", max_len=200, allow_empty=False)
    if kind in ("cancel", "face-to-face"):  # the pool algebra's two-pool presets
        req["against"] = get_str(data, "against", max_len=200, allow_empty=False)
    if kind == "cancel":
        req["success"] = get_int(data, "success", default=5, lo=-10**9, hi=10**9)
        req["match"] = get_str(data, "match", default="any", max_len=10)
        if req["match"] not in ("any", "beat", "equal"):
            raise ApiError(400, "'match' must be one of any, beat, equal", field="match")
    if kind == "sets":
        req["wild"] = get_str(data, "wild", default="", max_len=200)
        if not re.fullmatch(r"\s*(-?\d{1,9}([\s,]+-?\d{1,9})*)?[\s,]*", req["wild"]):
            raise ApiError(400, "'wild' must be faces separated by commas, e.g. \"9,10\"",
                           field="wild")
    if kind == "expr":  # the algebra as text over named pools {"a": "4d6", ...}
        req["expression"] = get_str(data, "expression", max_len=1000, allow_empty=False)
        pools = data.get("pools")
        if not isinstance(pools, dict) or not 1 <= len(pools) <= 8:
            raise ApiError(400, "'pools' must be an object of 1 to 8 named pools, e.g. "
                           "{\"a\": \"4d6\", \"b\": \"2d6\"}", field="pools")
        req["pools"] = {}
        for name, text in pools.items():
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w{0,30}", name):
                raise ApiError(400, f"pool name {name!r} must be a name such as a or attack",
                               field="pools")
            if not isinstance(text, str) or not 0 < len(text) <= 200:
                raise ApiError(400, f"pool {name!r} must be dice text such as \"4d6\"",
                               field="pools")
            req["pools"][name] = text
    if kind in ("nco", "risk"):
        req["action"] = get_int(data, "action", lo=0 if kind == "nco" else 1, hi=10_000)
        req["danger"] = get_int(data, "danger", lo=0 if kind == "nco" else 1, hi=10_000)
    if kind == "risk":
        req["ties"] = get_str(data, "ties", default="defender", max_len=10)
        if req["ties"] not in ("defender", "attacker"):
            raise ApiError(400, "'ties' must be defender or attacker", field="ties")
    if kind == "genesys":
        req["pool"] = get_str(data, "pool", max_len=200, allow_empty=False)
    return req


def get_bool(data: dict[str, Any], name: str, default: bool = False) -> bool:
    v = data.get(name)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ApiError(400, f"{name!r} must be true or false, not {_json_type(v)}",
                       field=name)
    return v


def get_float(data: dict[str, Any], name: str, *, default: Any = _MISSING, lo: float,
              hi: float) -> float:
    v = data.get(name, _MISSING)
    if v is _MISSING or v is None:
        if default is _MISSING:
            raise ApiError(400, f"{name!r} is required (a number)", field=name)
        return float(default)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ApiError(400, f"{name!r} must be a number, not {_json_type(v)}", field=name)
    if not lo <= v <= hi:
        raise ApiError(400, f"{name!r} must be between {lo:g} and {hi:g}, not {v}",
                       field=name)
    return float(v)


def get_list(data: dict[str, Any], name: str, *, max_items: int,
             default: Any = _MISSING) -> list[Any]:
    v = data.get(name, _MISSING)
    if v is _MISSING or v is None:
        if default is _MISSING:
            raise ApiError(400, f"{name!r} is required (an array)", field=name)
        return list(default)
    if not isinstance(v, list):
        raise ApiError(400, f"{name!r} must be an array, not {_json_type(v)}", field=name)
    if len(v) > max_items:
        raise ApiError(400, f"{name!r} has {len(v)} items; at most {max_items}",
                       field=name)
    return v


def get_seed(data: dict[str, Any]) -> int | str:
    v = data.get("seed")
    if v is None:  # 53 bits: a page's JavaScript numbers hold it exactly (63 would round)
        return secrets.randbits(53)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int | str):
        raise ApiError(400, f"'seed' must be a whole number or text, not {_json_type(v)}",
                       field="seed")
    if isinstance(v, int) and not 0 <= v < 2**64:
        raise ApiError(400, "'seed' must be between 0 and 2**64 - 1", field="seed")
    if isinstance(v, str) and len(v) > 200:
        raise ApiError(400, "'seed' is too long (200 characters at most)", field="seed")
    return v


# -- endpoint parsers: request JSON -> the job's request dict ------------------------------
def parse_dist(data: dict[str, Any]) -> dict[str, Any]:
    raw = get_list(data, "expressions", max_items=MAX_EXPRESSIONS)
    if not raw:
        raise ApiError(400, "'expressions' is empty: give at least one, e.g. "
                       '[{"text": "4d6kh3"}]', field="expressions")
    exprs = []
    for i, e in enumerate(raw):
        if isinstance(e, str):
            e = {"text": e}
        if not isinstance(e, dict):
            raise ApiError(400, f"expressions[{i}] must be an object "
                           '{"label": ..., "text": ...} or a string, not '
                           f"{_json_type(e)}", field="expressions", index=i)
        try:
            text = get_str(e, "text", max_len=MAX_EXPRESSION_CHARS)
            label = get_str(e, "label", default="", max_len=MAX_LABEL_CHARS)
        except ApiError as exc:
            exc.body["message"] = f"expressions[{i}]: {exc.body['message']}"
            exc.body["index"] = i
            raise
        exprs.append({"label": label, "text": text})
    req = {"expressions": exprs, "dialect": get_dialect(data),
           "variables": get_variables(data)}
    if get_bool(data, "approx"):  # a certified answer where the exact one is refused
        req["approx"] = True
    return req



def get_variables(data: dict[str, Any]) -> dict[str, int | str]:
    """``variables``: an object of name -> a whole number or a formula (text), filling
    Foundry's ``@name`` and Roll20's ``@{name}`` / ``?{name|...}`` (issue #32); ``{}``
    when left out. At most :data:`MAX_VARIABLES` names of 200 characters, formulas of
    ``MAX_EXPRESSION_CHARS``."""
    v = data.get("variables")
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ApiError(400, f"'variables' must be an object of name -> number or formula, "
                       f"not {_json_type(v)}", field="variables")
    if len(v) > MAX_VARIABLES:
        raise ApiError(400, f"'variables' has {len(v)} names; at most {MAX_VARIABLES}",
                       field="variables")
    out: dict[str, int | str] = {}
    for name, value in v.items():
        if not name or len(name) > 200:
            raise ApiError(400, "'variables': a name must have 1 to 200 characters",
                           field="variables")
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ApiError(400, f"'variables'[{name[:40]!r}] must be a whole number or a "
                           f"formula (text), not {_json_type(value)}", field="variables")
        if isinstance(value, str) and len(value) > MAX_EXPRESSION_CHARS:
            raise ApiError(400, f"'variables'[{name[:40]!r}] is longer than "
                           f"{MAX_EXPRESSION_CHARS} characters", field="variables")
        if isinstance(value, int) and abs(value) >= 10**100:
            raise ApiError(400, f"'variables'[{name[:40]!r}] must have at most 100 digits",
                           field="variables")
        out[name] = value
    return out


def parse_estimate(data: dict[str, Any]) -> dict[str, Any]:
    """``/api/estimate``: the expressions as ``/api/dist`` takes them, ``samples`` (rolls
    per line, default 10 000) and ``seed`` (drawn and reported when left out)."""
    req = parse_dist(data)
    seed = get_seed(data)
    if not isinstance(seed, int):
        raise ApiError(400, "'seed' must be a whole number here", field="seed")
    req.update(samples=get_int(data, "samples", default=10_000, lo=1,
                               hi=MAX_ESTIMATE_SAMPLES), seed=seed)
    return req


def get_dialect(data: dict[str, Any]) -> str:
    """``dialect``: how the notation is read (``chancekit.dice.notation.DIALECTS``;
    ``avrae`` when left out)."""
    dialect = get_str(data, "dialect", default="avrae", max_len=40)
    if dialect not in DIALECTS:
        raise ApiError(422, f"'dialect' must be one of {', '.join(DIALECTS)}, not "
                       f"{dialect[:40]!r}", field="dialect", type="InvalidValueError")
    return str(dialect)


def parse_table(data: dict[str, Any]) -> dict[str, Any]:
    source = get_str(data, "source", default="notation", max_len=20)
    if source not in ("notation", "loot"):
        raise ApiError(400, "'source' must be \"notation\" or \"loot\"", field="source")
    req = {"source": source,
           "notation": get_str(data, "notation", default="", max_len=MAX_EXPRESSION_CHARS),
           "loot": get_str(data, "loot", default="", max_len=MAX_LOOT_CHARS),
           "title": get_str(data, "title", default="", max_len=MAX_LABEL_CHARS),
           "row_die": get_int(data, "row_die", default=20, lo=2, hi=1000),
           "check_die": get_int(data, "check_die", default=20, lo=2, hi=1000),
           "dialect": get_dialect(data), "two_stage": get_bool(data, "two_stage")}
    if source == "notation" and not req["notation"].strip():
        raise ApiError(400, "give a dice notation, e.g. 3d6", field="notation")
    if source == "loot" and not req["loot"].strip():
        raise ApiError(400, "give a loot list: one name=weight per line", field="loot")
    return req


def parse_fairness(data: dict[str, Any]) -> dict[str, Any]:
    specs = get_list(data, "systems", max_items=MAX_SYSTEMS)
    if not specs:
        raise ApiError(400, "'systems' is empty: give at least one, e.g. [\"deck\"]",
                       field="systems")
    for i, s in enumerate(specs):
        if not isinstance(s, str) or not s.strip() or len(s) > MAX_SPEC_CHARS:
            raise ApiError(400, f"systems[{i}] must be a spec string such as "
                           "\"dynamic-dice:0.355\"", field="systems", index=i)
    method = get_str(data, "method", default="exact", max_len=20)
    if method not in ("exact", "montecarlo"):
        raise ApiError(400, "'method' must be \"exact\" or \"montecarlo\"", field="method")
    seed = get_seed(data)
    if not isinstance(seed, int):
        raise ApiError(400, "'seed' must be a whole number here", field="seed")
    return {"systems": [s.strip() for s in specs],
            "values": get_int(data, "values", default=6, lo=2, hi=1000),
            "samples": get_int(data, "samples", default=25, lo=1, hi=100_000),
            "method": method,
            "trials": get_int(data, "trials", default=10_000, lo=1, hi=1_000_000),
            "seed": seed}


_FAMILIES = ("dice", "deck", "generalized-deck", "dynamic-dice")


def parse_tune(data: dict[str, Any]) -> dict[str, Any]:
    fams = get_list(data, "systems", max_items=len(_FAMILIES),
                    default=["generalized-deck", "dynamic-dice"])
    for f in fams:
        if f not in _FAMILIES:
            raise ApiError(400, f"'systems' items must be among {', '.join(_FAMILIES)}",
                           field="systems")
    if not fams:
        raise ApiError(400, "'systems' is empty: pick at least one family", field="systems")
    floor = get_str(data, "floor", default="average", max_len=20)
    if floor not in ("average", "every"):
        raise ApiError(400, "'floor' must be \"average\" or \"every\"", field="floor")
    return {"systems": list(dict.fromkeys(fams)),
            "values": get_int(data, "values", default=6, lo=2, hi=1000),
            "samples": get_int(data, "samples", default=25, lo=1, hi=100_000),
            "min_entropy": get_float(data, "min_entropy", default=0.9, lo=0.0, hi=1.0),
            "floor": floor, "top": get_int(data, "top", default=10, lo=1, hi=100)}


def parse_roll(data: dict[str, Any]) -> dict[str, Any]:
    streams = get_list(data, "streams", max_items=MAX_STREAMS, default=[])
    for s in streams:
        if not isinstance(s, str) or not s or len(s) > MAX_LABEL_CHARS:
            raise ApiError(400, "'streams' must be names (text, 1 to 100 characters)",
                           field="streams")
    stream = get_str(data, "stream", default=None, max_len=MAX_LABEL_CHARS)
    return {"text": get_str(data, "text", max_len=MAX_EXPRESSION_CHARS, allow_empty=False),
            "seed": get_seed(data), "stream": stream or None,
            "n": get_int(data, "n", default=1, lo=1, hi=MAX_ROLLS), "streams": streams,
            "demo_n": get_int(data, "demo_n", default=5, lo=1, hi=20),
            "dialect": get_dialect(data)}


def parse_anydice(data: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/anydice``: ``{"program": TEXT}``, at most
    :data:`~chancekit.limits.MAX_PROGRAM_CHARS` characters, line ends normalised.

    >>> parse_anydice({"program": "output 3d6\\r\\n"})
    {'program': 'output 3d6\\n'}
    """
    program = get_str(data, "program", max_len=MAX_PROGRAM_CHARS)
    if not program.strip():
        raise ApiError(400, "'program' is empty: write an AnyDice program, e.g. "
                       "output 3d6", field="program")
    if "\0" in program:
        raise ApiError(400, "'program' holds a NUL character: give an AnyDice program as "
                       "text", field="program")
    req = {"program": program.replace("\r\n", "\n").replace("\r", "\n")}
    if get_bool(data, "approx"):  # a certified answer where the exact one is refused
        req["approx"] = True
    return req


def parse_markov(data: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/markov``: ``kind`` (usage-die, race, first-success, until), its inputs, and
    ``upto`` (the last step count to list; left out: until at most 1e-6 is left).

    >>> parse_markov({"kind": "race", "hp": 30, "damage": "2d6"})
    {'kind': 'race', 'upto': None, 'hp': 30, 'damage': '2d6', 'hp2': None, 'order': 'simultaneous'}
    """
    kind = get_str(data, "kind", max_len=20)
    if kind not in MARKOV_KINDS:
        raise ApiError(400, f"'kind' must be one of {', '.join(MARKOV_KINDS)}", field="kind")
    upto = data.get("upto")
    req: dict[str, Any] = {"kind": kind, "upto": None if upto is None else get_int(
        data, "upto", lo=0, hi=MAX_MARKOV_STEPS)}
    if kind == "usage-die":
        req["ladder"] = get_str(data, "ladder", max_len=400, allow_empty=False)
        req["down"] = get_str(data, "down", default="1,2", max_len=200)
    elif kind == "race":
        req["hp"] = get_int(data, "hp", lo=1, hi=10**6)
        req["damage"] = get_str(data, "damage", max_len=MAX_EXPRESSION_CHARS,
                                allow_empty=False)
        req["hp2"] = None if data.get("hp2") is None else get_int(data, "hp2", lo=1,
                                                                    hi=10**6)
        if req["hp2"] is not None:
            req["damage2"] = get_str(data, "damage2", max_len=MAX_EXPRESSION_CHARS,
                                     allow_empty=False)
        req["order"] = get_str(data, "order", default="simultaneous", max_len=20)
        if req["order"] not in ("simultaneous", "alternating"):
            raise ApiError(400, "'order' must be \"simultaneous\" or \"alternating\"",
                           field="order")
    elif kind == "first-success":
        req["system"] = get_str(data, "system", max_len=MAX_SPEC_CHARS, allow_empty=False)
        req["value"] = get_str(data, "value", default="", max_len=40)
    else:  # until
        req["die"] = get_str(data, "die", max_len=MAX_EXPRESSION_CHARS, allow_empty=False)
        req["sequence"] = get_str(data, "sequence", max_len=200, allow_empty=False)
    return req



def parse_gacha(data: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/gacha``: ``system`` (a fairness spec), ``copies`` (1..10), the state
    (``pity`` pulls since the last rare, ``guaranteed``, ``misses``), ``pulls``, ``price``,
    ``refund``, ``budget``, ``refund_per`` ({value: amount}) and ``value``; the plan of
    :func:`chancekit.markov.planning.plan` with the curves P(k copies by pull n).

    >>> parse_gacha({"system": "gacha:0.006,74,0.06,90", "copies": 3})["copies"]
    3
    """
    req: dict[str, Any] = {
        "system": get_str(data, "system", max_len=MAX_SPEC_CHARS, allow_empty=False),
        "value": get_str(data, "value", default="", max_len=40) or None,
        "copies": get_int(data, "copies", default=1, lo=1, hi=10),
        "pity": None if data.get("pity") is None else get_int(data, "pity", lo=0,
                                                                hi=10**5),
        "guaranteed": get_bool(data, "guaranteed"),
        "misses": None if data.get("misses") is None else get_int(data, "misses", lo=0,
                                                                    hi=1000),
        "pulls": None if data.get("pulls") is None else get_int(data, "pulls", lo=0,
                                                                  hi=MAX_MARKOV_STEPS),
    }
    for name in ("price", "refund", "budget"):
        req[name] = None if data.get(name) is None else get_float(data, name, lo=0.0,
                                                                  hi=1e12)
    req["refund_per"] = _refund_per(data.get("refund_per"))
    return req


def _refund_per(v: Any) -> dict[str, float] | None:
    """``refund_per``: {value: currency given back when it is drawn} (at most 50)."""
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ApiError(400, f"'refund_per' must be an object value -> amount, not "
                       f"{_json_type(v)}", field="refund_per")
    if len(v) > 50:
        raise ApiError(400, f"'refund_per' has {len(v)} values; at most 50",
                       field="refund_per")
    out: dict[str, float] = {}
    for key, amount in v.items():
        if not key or len(key) > 40:
            raise ApiError(400, "'refund_per' keys must be values of 1..40 characters",
                           field="refund_per")
        if isinstance(amount, bool) or not isinstance(amount, int | float) or not (
                0 <= amount <= 1e12):
            raise ApiError(400, f"'refund_per' amounts must be numbers between 0 and "
                           f"1e+12, not {amount!r} for {key!r}", field="refund_per")
        out[key] = float(amount)
    return out or None


# -- one dispatch for both back ends ---------------------------------------------------------
#: the pages: the path ``chancekit serve`` answers -> the file in ``web/static`` (the static
#: site writes each as ``index.html`` / ``NAME.html``, :mod:`chancekit.site.build`)
PAGES = {"/": "dice.html", "/tables": "tables.html", "/fairness": "fairness.html",
         "/roll": "roll.html", "/docs": "api.html", "/pools": "pools.html",
         "/anydice": "anydice.html", "/markov": "markov.html", "/gacha": "gacha.html"}

#: ``POST path`` -> (the job's kind in :data:`chancekit.web.compute.JOBS`, its parser,
#: whether its answer depends only on the request and may be cached)
ENDPOINTS: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]], bool]] = {
    "/api/dist": ("dist", parse_dist, True),
    "/api/estimate": ("estimate", parse_estimate, False),
    "/api/pool": ("pool", parse_pool, True),
    "/api/table": ("table", parse_table, True),
    "/api/anydice": ("anydice", parse_anydice, True),
    "/api/markov": ("markov", parse_markov, True),
    "/api/gacha": ("gacha", parse_gacha, True),
    "/api/fairness": ("fairness", parse_fairness, True),
    "/api/roll": ("roll", parse_roll, False),
    "/api/tune": ("tune", parse_tune, False),
}

#: the request time limit of both back ends (``chancekit serve --time-limit``)
TIME_LIMIT = 10.0


def parse(path: str, data: dict[str, Any], *, time_limit: float = TIME_LIMIT
          ) -> tuple[str, dict[str, Any], bool]:
    """``(kind, request, cacheable)`` for ``POST path`` with the JSON object ``data``
    (404 for an unknown path). A Monte Carlo estimate gets half the time limit."""
    if path not in ENDPOINTS:
        raise ApiError(404, f"no such page or endpoint: {path[:200]}", type="NotFound")
    kind, parser, cacheable = ENDPOINTS[path]
    req = parser(data)
    if kind == "estimate":
        req["budget_s"] = time_limit / 2
    if data.get("max_work") is not None:  # the work limit lifted (or lowered) for this one
        req["max_work"] = get_int(data, "max_work", lo=1, hi=MAX_WORK_OPTION)
    return kind, req, cacheable


def version_info(time_limit: float = TIME_LIMIT,
                 job_time_limit: float | None = None) -> dict[str, Any]:
    """``GET /api/version``: the version, the dialects and the input limits."""
    return {"version": __version__, "dialects": list(DIALECTS),
            "limits": {"body_bytes": MAX_BODY, "expressions": MAX_EXPRESSIONS,
                       "expression_chars": MAX_EXPRESSION_CHARS,
                       "time_limit_s": time_limit,
                       "tune_time_limit_s": 6 * time_limit if job_time_limit is None
                       else job_time_limit}}


def answer(result: dict[str, Any], ms: float, started: float) -> dict[str, Any]:
    """A job's result as both back ends send it: the version first, the timings last."""
    return {"version": __version__, **result, "elapsed_ms": round(ms, 3),
            "server_ms": round(1000 * (time.perf_counter() - started), 3), "cached": False}


def handle(path: str, body: bytes | str | None = None, *,
           progress: Callable[..., None] | None = None,
           time_limit: float = TIME_LIMIT) -> tuple[int, dict[str, Any]]:
    """``(status, JSON object)`` that ``chancekit serve`` answers for ``POST path`` with
    ``body`` (``GET`` when ``body`` is None: ``/api/version``, ``/api/openapi.json``), run
    here, in this process: the static site's worker calls this. Errors are
    ``{"error": {...}}`` with the server's status codes. ``POST /api/tune`` runs the search
    to the end here (the site's page code keeps the job protocol, docs/site.md).

    Cost: the job's own; the checks are linear in the body.
    """
    from chancekit.web.compute import run_job

    started = time.perf_counter()
    try:
        if body is None:
            if path == "/api/version":
                return 200, version_info(time_limit)
            if path == "/api/openapi.json":
                from chancekit.web.openapi import openapi_document

                return 200, openapi_document()
            if path in ENDPOINTS:
                raise ApiError(405, "GET is not allowed here", type="MethodNotAllowed")
            raise ApiError(404, f"no such page or endpoint: {path[:200]}", type="NotFound")
        kind, req, _ = parse(path, decode_body(body), time_limit=time_limit)
    except ApiError as exc:
        return exc.status, {"error": exc.body}
    status, out, ms = run_job(kind, req, progress or _no_progress)
    if status != 200:
        return status, {"error": out}
    return 200, answer(out, ms, started)


def handle_json(path: str, body: str | None = None, progress: Any = None) -> str:
    """:func:`handle` for JavaScript: ``[status, object]`` as one JSON text (the worker
    parses it, so no Python object crosses into the page). ``progress(done, total,
    piece)`` gets each finished piece of a result as JSON text (or None)."""

    def report(done: int, total: int, piece: Any = None) -> None:
        if progress is not None:
            progress(int(done), int(total), None if piece is None else json.dumps(piece))

    status, out = handle(path, body, progress=report)
    return json.dumps([status, out], ensure_ascii=True, allow_nan=False,
                      separators=(",", ":"))


def _no_progress(*args: Any) -> None:
    pass
