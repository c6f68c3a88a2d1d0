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
from chancekit.limits import MAX_BODY, MAX_JOBS
from chancekit.web.api import ENDPOINTS, PAGES, ApiError, answer, decode_body, parse, version_info
from chancekit.web.compute import TEST_HOOKS
from chancekit.web.pool import Cancelled, PoolError, WorkerPool, default_workers

# -- input bounds -------------------------------------------------------------------------
JOB_IDLE = 30.0               #: a job nobody polled for this long is cancelled
JOB_KEEP = 300.0              #: a finished job is kept this long for its result
TUNE_REFUSAL_WAIT = 0.5      #: POST /api/tune waits this long for an up-front refusal
CACHE_ENTRIES = 256
CACHE_MAX_BYTES = 2 * 1024 * 1024


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
    """The body as a JSON object, at most :data:`MAX_BODY` bytes (413 past it, before the
    rest is read); :func:`chancekit.web.api.decode_body` checks it as the site does."""
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
    return decode_body(b"".join(chunks))


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
        body = answer(result, ms, t0)
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


_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}
# no external resources anywhere: the browser is told so too
_CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'self'")


# -- only the app's own pages may use it (issue #31: DNS rebinding, cross-site POSTs) -----
def host_allowed(host_header: str, allowed: frozenset[str]) -> bool:
    """Whether a request's ``Host`` names this server: an IP address (a page of another
    site cannot reach us under one: DNS rebinding needs a name), ``localhost``, or a name
    given with ``--allow-host``.

    >>> [host_allowed(h, frozenset()) for h in ("127.0.0.1:8000", "[::1]:80", "localhost:1",
    ...                                          "evil.example:8000", "")]
    [True, True, True, False, False]
    """
    import ipaddress

    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8000
        name = host[1:host.find("]")] if "]" in host else ""
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if not name:
        return False
    if name == "localhost" or name in allowed:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str, host_header: str) -> bool:
    """Whether a request's ``Origin`` is this server itself (scheme aside).

    >>> origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000")
    True
    >>> origin_allowed("https://evil.example", "127.0.0.1:8000"), origin_allowed("null", "x")
    (False, False)
    """
    from urllib.parse import urlsplit

    try:
        netloc = urlsplit(origin.strip()).netloc.lower()
    except ValueError:
        return False
    return bool(netloc) and netloc == host_header.strip().lower()


def _guard(app: Any, allowed: frozenset[str]) -> Any:
    """ASGI middleware: 403 for a foreign ``Host`` or a foreign ``Origin`` on a request
    that changes or computes something; 415 for an API POST that is not
    ``application/json`` (a cross-site form or ``text/plain`` POST cannot send that type
    without the browser asking first)."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", ())}
        host = headers.get("host", "")
        status, message = 0, ""
        if not host_allowed(host, allowed):
            status, message = 403, (f"this server answers only its own address, not the "
                                    f"host {host[:100]!r} (chancekit serve --allow-host "
                                    "NAME lets a name in)")
        elif scope["method"] not in ("GET", "HEAD", "OPTIONS") and "origin" in headers \
                and not origin_allowed(headers["origin"], host):
            status, message = 403, (f"requests from another site "
                                    f"({headers['origin'][:100]!r}) are refused")
        elif scope["method"] == "POST" and scope["path"].startswith("/api/") and \
                headers.get("content-type", "").split(";")[0].strip().lower() \
                != "application/json":
            status, message = 415, ("the API takes JSON only: send the header "
                                    "Content-Type: application/json")
        if status:
            kind = "Forbidden" if status == 403 else "UnsupportedMediaType"
            response = error_response(status, {"type": kind, "message": message})
            return await response(scope, receive, send)
        return await app(scope, receive, send)

    return guarded


def create_app(*, workers: int | None = None, time_limit: float = 10.0,
               job_time_limit: float | None = None, cache: bool = True,
               on_ready: Callable[[], None] | None = None,
               allow_hosts: tuple[str, ...] = ()) -> Any:
    """The ASGI application (run it with uvicorn; ``chancekit serve`` does). ``on_ready``
    is called once the worker pool has started. Requests must name this server in their
    ``Host`` (an IP address, ``localhost`` or one of ``allow_hosts``), come from its own
    pages when they carry an ``Origin``, and send JSON to the API (docs/web.md)."""
    state = WebApp(workers=workers, time_limit=time_limit, job_time_limit=job_time_limit,
                   cache=cache)

    async def page(request: Request) -> Response:
        name = PAGES[request.url.path]
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

    async def endpoint(request: Request) -> Response:
        """Every ``POST /api/...`` computation but tuning: :func:`chancekit.web.api.parse`
        checks it (as the static site does), a worker process runs it."""
        state.requests += 1
        kind, req, cacheable = parse(request.url.path, await read_json(request),
                                     time_limit=state.pool.time_limit)
        return await state.compute(request, kind, req, cacheable)

    async def version(request: Request) -> Response:
        return json_response(version_info(state.pool.time_limit, state.job_time_limit))

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
        _, req, _ = parse("/api/tune", await read_json(request))
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

    async def sleep(request: Request) -> Response:
        """The test hook: work that outlasts any time limit."""
        return await state.compute(request, "sleep", {"seconds": 60}, False)

    routes = [
        *[Route(path, page, methods=["GET"]) for path in PAGES],
        Route("/static/{name}", static, methods=["GET"]),
        Route("/api/version", version, methods=["GET"]),
        Route("/api/status", status, methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
        *[Route(path, endpoint, methods=["POST"]) for path in ENDPOINTS
          if path != "/api/tune"],
        Route("/api/tune", tune_start, methods=["POST"]),
        Route("/api/jobs/{job}", job_get, methods=["GET"]),
        Route("/api/jobs/{job}", job_delete, methods=["DELETE"]),
        *([Route("/api/_test/sleep", sleep, methods=["POST"])]
          if os.environ.get(TEST_HOOKS) == "1" else []),
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
    guarded = _guard(app, frozenset(h.strip().lower() for h in allow_hosts))
    guarded.state = app.state  # type: ignore[attr-defined]
    return guarded
