"""The Starlette application: HTML pages, static files and the JSON API under ``/api/``.

Design (docs/web.md): the event loop only validates requests and moves bytes; every
computation runs in a :class:`~chancekit.web.pool.WorkerPool` process with a time limit,
and is killed if the client disconnects. Every error is a JSON body
``{"error": {"type", "message", ...}}``: 400 malformed request, 404/405 unknown route,
413 body too large, 422 the library refused the input (``NotationError`` with
``problem``/``text``/``column``, ``LimitError`` with ``limit``, the time limit), 429 too
many tuning jobs, 503 busy; an unexpected failure is a JSON 500 without a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from chancekit import __version__
from chancekit.dice.notation import DIALECTS
from chancekit.limits import (
    MAX_BODY,
    MAX_ESTIMATE_SAMPLES,
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSIONS,
    MAX_JOBS,
    MAX_LABEL_CHARS,
    MAX_LOOT_CHARS,
    MAX_MARKOV_STEPS,
    MAX_PROGRAM_CHARS,
    MAX_ROLLS,
    MAX_SPEC_CHARS,
    MAX_STREAMS,
    MAX_SYSTEMS,
)
from chancekit.web.compute import TEST_HOOKS
from chancekit.web.markov import KINDS as MARKOV_KINDS
from chancekit.web.pool import Cancelled, PoolError, WorkerPool, default_workers

# -- input bounds -------------------------------------------------------------------------
JOB_IDLE = 30.0               #: a job nobody polled for this long is cancelled
JOB_KEEP = 300.0              #: a finished job is kept this long for its result
TUNE_REFUSAL_WAIT = 0.5      #: POST /api/tune waits this long for an up-front refusal
CACHE_ENTRIES = 256
CACHE_MAX_BYTES = 2 * 1024 * 1024


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"type": extra.pop("type", "BadRequest"), "message": message, **extra}


def json_response(data: Any, status: int = 200) -> Response:
    """JSON with every non-ASCII character escaped: text with lone surrogates (which
    cannot be UTF-8) is echoed safely as ``\\ud800``."""
    body = json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return Response(body, status_code=status, media_type="application/json",
                    headers={"Cache-Control": "no-store"})


def error_response(status: int, body: dict[str, Any]) -> Response:
    return json_response({"error": body}, status)


# -- request parsing ----------------------------------------------------------------------
async def read_json(request: Request) -> dict[str, Any]:
    """The body as a JSON object, at most :data:`MAX_BODY` bytes (413 past it)."""
    length = request.headers.get("content-length")
    if length is not None:
        try:
            too_big = int(length) > MAX_BODY
        except ValueError:
            raise ApiError(400, "bad Content-Length header") from None
        if too_big:
            raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes",
                           type="TooLarge")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes",
                           type="TooLarge")
        chunks.append(chunk)
    raw = b"".join(chunks)
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


_POOL_KINDS = ("largest-set", "straight", "nco", "risk", "genesys")


def parse_pool(data: dict[str, Any]) -> dict[str, Any]:
    """``/api/pool``: ``kind`` and its inputs (``dice`` text such as "5d6 2d8";
    ``action`` and ``danger`` counts; a Genesys ``pool`` such as "2A1P vs 2D")."""
    kind = get_str(data, "kind", max_len=20)
    if kind not in _POOL_KINDS:
        raise ApiError(400, f"'kind' must be one of {', '.join(_POOL_KINDS)}", field="kind")
    req: dict[str, Any] = {"kind": kind}
    if kind in ("largest-set", "straight"):
        req["dice"] = get_str(data, "dice", max_len=200, allow_empty=False)
    elif kind in ("nco", "risk"):
        req["action"] = get_int(data, "action", lo=0 if kind == "nco" else 1, hi=10_000)
        req["danger"] = get_int(data, "danger", lo=0 if kind == "nco" else 1, hi=10_000)
    else:
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
    return {"expressions": exprs, "dialect": get_dialect(data)}


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
    return {"program": program.replace("\r\n", "\n").replace("\r", "\n")}


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


# -- the result cache: deterministic requests only -----------------------------------------
class ResultCache:
    """An LRU of JSON results for requests whose answer depends only on the request
    (distributions, tables, exact or seeded fairness)."""

    def __init__(self, entries: int = CACHE_ENTRIES) -> None:
        self.entries = entries
        self._data: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.hits = 0

    @staticmethod
    def key(kind: str, req: dict[str, Any]) -> str:
        return kind + json.dumps(req, sort_keys=True, ensure_ascii=True)

    def get(self, key: str) -> dict[str, Any] | None:
        v = self._data.get(key)
        if v is not None:
            self._data.move_to_end(key)
            self.hits += 1
        return v

    def put(self, key: str, value: dict[str, Any], size: int) -> None:
        if self.entries <= 0 or size > CACHE_MAX_BYTES:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.entries:
            self._data.popitem(last=False)


# -- jobs (tuning, with progress) ------------------------------------------------------------
class Job:
    def __init__(self, kind: str, req: dict[str, Any]) -> None:
        self.id = uuid.uuid4().hex
        self.kind = kind
        self.request = req
        self.state = "queued"  # queued, running, done, error, cancelled
        self.done = 0
        self.total = 0
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.status = 200
        self.started = time.monotonic()
        self.elapsed_ms: float | None = None
        self.polled = time.monotonic()
        self.finished: float | None = None
        self.stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def view(self) -> dict[str, Any]:
        return {"job": self.id, "kind": self.kind, "state": self.state, "done": self.done,
                "total": self.total, "result": self.result, "error": self.error,
                "elapsed_ms": self.elapsed_ms,
                "running_s": round(time.monotonic() - self.started, 3)}


# -- the application -----------------------------------------------------------------------
class WebApp:
    """State shared by the routes: the worker pool, the cache, the jobs."""

    def __init__(self, *, workers: int | None = None, time_limit: float = 10.0,
                 job_time_limit: float | None = None, cache: bool = True) -> None:
        self.pool = WorkerPool(workers or default_workers(), time_limit=time_limit)
        #: tuning jobs: six times the request limit unless told (60 s by default)
        self.job_time_limit = 6 * time_limit if job_time_limit is None else job_time_limit
        self.cache = ResultCache(CACHE_ENTRIES if cache else 0)
        self.jobs: dict[str, Job] = {}
        self.requests = 0

    async def compute(self, request: Request, kind: str, req: dict[str, Any],
                      cacheable: bool) -> Response:
        key = self.cache.key(kind, req) if cacheable else ""
        if cacheable:
            hit = self.cache.get(key)
            if hit is not None:
                return json_response({**hit, "cached": True})
        t0 = time.perf_counter()
        try:
            result, ms = await self.pool.run(kind, req, cancelled=_disconnected(request))
        except Cancelled:
            return Response(status_code=499)  # nobody is listening any more
        except PoolError as exc:
            return error_response(exc.status, exc.body)
        body = {"version": __version__, **result, "elapsed_ms": round(ms, 3),
                "server_ms": round(1000 * (time.perf_counter() - t0), 3), "cached": False}
        if cacheable:
            self.cache.put(key, body, _approx_size(body))
        return json_response(body)


def _approx_size(body: dict[str, Any]) -> int:
    series = body.get("series") or body.get("systems") or []
    rows = sum(len(s.get("rows", ())) + len(s.get("series", {}).get("entropy", ()))
               for s in series if isinstance(s, dict))
    rows += len(body.get("rows") or ())  # /api/markov: one list of rows
    return 300 * rows


async def _disconnected(request: Request) -> None:
    """Completes when the client closes the connection (the body is already read)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def _static(name: str) -> bytes:
    return resources.files("chancekit.web").joinpath("static", name).read_bytes()


_PAGES = {"/": "dice.html", "/tables": "tables.html", "/fairness": "fairness.html",
          "/roll": "roll.html", "/docs": "api.html", "/pools": "pools.html",
          "/anydice": "anydice.html", "/markov": "markov.html"}
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}
# no external resources anywhere: the browser is told so too
_CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'self'")


def create_app(*, workers: int | None = None, time_limit: float = 10.0,
               job_time_limit: float | None = None, cache: bool = True,
               on_ready: Callable[[], None] | None = None) -> Starlette:
    """The ASGI application (run it with uvicorn; ``chancekit serve`` does). ``on_ready``
    is called once the worker pool has started."""
    state = WebApp(workers=workers, time_limit=time_limit, job_time_limit=job_time_limit,
                   cache=cache)

    async def page(request: Request) -> Response:
        name = _PAGES[request.url.path]
        html = _static(name).decode("utf-8").replace("{{version}}", __version__)
        return Response(html, media_type=_TYPES[".html"],
                        headers={"Content-Security-Policy": _CSP})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        suffix = name[name.rfind("."):] if "." in name else ""
        if "/" in name or suffix not in _TYPES or name.startswith("."):
            raise HTTPException(404)
        try:
            data = _static(name)
        except (FileNotFoundError, IsADirectoryError, OSError):
            raise HTTPException(404) from None
        return Response(data, media_type=_TYPES[suffix],
                        headers={"Cache-Control": "no-cache"})

    def endpoint(kind: str, parse: Callable[[dict[str, Any]], dict[str, Any]],
                 cacheable: Callable[[dict[str, Any]], bool]) -> Any:
        async def handler(request: Request) -> Response:
            state.requests += 1
            req = parse(await read_json(request))
            return await state.compute(request, kind, req, cacheable(req))
        return handler

    async def estimate(request: Request) -> Response:
        """Monte Carlo estimates, stopped after half the time limit (the rest is margin)."""
        state.requests += 1
        req = parse_estimate(await read_json(request))
        req["budget_s"] = state.pool.time_limit / 2
        return await state.compute(request, "estimate", req, False)

    async def version(request: Request) -> Response:
        return json_response({"version": __version__, "dialects": list(DIALECTS),
                              "limits": {"body_bytes": MAX_BODY,
                                         "expressions": MAX_EXPRESSIONS,
                                         "expression_chars": MAX_EXPRESSION_CHARS,
                                         "time_limit_s": state.pool.time_limit,
                                         "tune_time_limit_s": state.job_time_limit}})

    async def status(request: Request) -> Response:
        return json_response({"workers": state.pool.size, "busy": state.pool.busy,
                              "killed": state.pool.killed, "cache_hits": state.cache.hits,
                              "jobs": len(state.jobs), "requests": state.requests})

    async def openapi(request: Request) -> Response:
        from chancekit.web.openapi import openapi_document

        return json_response(openapi_document())

    # jobs
    async def run_job(job: Job) -> None:
        job.state = "running"

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            result, ms = await state.pool.run(job.kind, job.request,
                                              cancelled=job.stop.wait(),
                                              progress=progress,
                                              time_limit=state.job_time_limit)
            job.result, job.elapsed_ms, job.state = result, round(ms, 3), "done"
        except Cancelled:
            job.state = "cancelled"
        except PoolError as exc:
            job.state, job.error, job.status = "error", exc.body, exc.status
        finally:
            job.finished = time.monotonic()

    def sweep_jobs() -> None:
        now = time.monotonic()
        for jid, job in list(state.jobs.items()):
            if job.finished is None and now - job.polled > JOB_IDLE:
                job.stop.set()  # the page went away: stop its work
            if job.finished is not None and now - job.finished > JOB_KEEP:
                del state.jobs[jid]

    async def tune_start(request: Request) -> Response:
        sweep_jobs()
        req = parse_tune(await read_json(request))
        if sum(j.finished is None for j in state.jobs.values()) >= MAX_JOBS:
            raise ApiError(429, f"{MAX_JOBS} tuning jobs are running already; wait for "
                           "one to finish", type="Busy")
        job = Job("tune", req)
        state.jobs[job.id] = job
        job.task = asyncio.create_task(run_job(job))
        # work over chancekit's limits is refused before tune starts: answer that at once
        await asyncio.wait({job.task}, timeout=TUNE_REFUSAL_WAIT)
        if job.state == "error" and job.error is not None:
            del state.jobs[job.id]
            return error_response(job.status, job.error)
        return json_response(job.view(), 202)

    def find_job(request: Request) -> Job:
        job = state.jobs.get(request.path_params["job"])
        if job is None:
            raise ApiError(404, "no such job (finished jobs are kept for 5 minutes)",
                           type="NotFound")
        job.polled = time.monotonic()
        return job

    async def job_get(request: Request) -> Response:
        sweep_jobs()
        job = find_job(request)
        if job.state == "error" and job.error is not None:
            return json_response({**job.view(), "error": job.error}, job.status)
        return json_response(job.view())

    async def job_delete(request: Request) -> Response:
        job = find_job(request)
        job.stop.set()
        if job.task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(job.task), 5)
        return json_response(job.view())

    def always(req: dict[str, Any]) -> bool:
        return True

    def never(req: dict[str, Any]) -> bool:
        return False

    routes = [
        *[Route(path, page, methods=["GET"]) for path in _PAGES],
        Route("/static/{name}", static, methods=["GET"]),
        Route("/api/version", version, methods=["GET"]),
        Route("/api/status", status, methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
        Route("/api/dist", endpoint("dist", parse_dist, always), methods=["POST"]),
        Route("/api/estimate", estimate, methods=["POST"]),
        Route("/api/pool", endpoint("pool", parse_pool, always), methods=["POST"]),
        Route("/api/table", endpoint("table", parse_table, always), methods=["POST"]),
        Route("/api/anydice", endpoint("anydice", parse_anydice, always), methods=["POST"]),
        Route("/api/markov", endpoint("markov", parse_markov, always), methods=["POST"]),
        Route("/api/fairness", endpoint("fairness", parse_fairness, always),
              methods=["POST"]),
        Route("/api/roll", endpoint("roll", parse_roll, never), methods=["POST"]),
        Route("/api/tune", tune_start, methods=["POST"]),
        Route("/api/jobs/{job}", job_get, methods=["GET"]),
        Route("/api/jobs/{job}", job_delete, methods=["DELETE"]),
        *([Route("/api/_test/sleep", endpoint("sleep", lambda body: {"seconds": 60}, never),
                 methods=["POST"])] if os.environ.get(TEST_HOOKS) == "1" else []),
    ]

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.body)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(exc.status_code, "HTTPError")
        message = {404: f"no such page or endpoint: {request.url.path[:200]}",
                   405: f"{request.method} is not allowed here"}.get(exc.status_code,
                                                                      str(exc.detail))
        return error_response(exc.status_code, {"type": kind, "message": message})

    async def internal_error(request: Request, exc: Exception) -> Response:
        import traceback

        traceback.print_exception(exc)  # the server's log only
        return error_response(500, {"type": "InternalError",
                                    "message": "internal error (logged by the server)"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await state.pool.start()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            for job in state.jobs.values():
                job.stop.set()
            await state.pool.close()

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        ApiError: api_error, HTTPException: http_error, Exception: internal_error})
    app.state.web = state
    return app
