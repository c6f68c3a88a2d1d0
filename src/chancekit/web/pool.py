"""A small pool of worker processes that can be killed mid-computation.

Why processes, not threads: exact work (``chancekit.dist``, ``fair.tune``) is CPU-bound
Python that cannot be interrupted from another thread. A worker process can: when the
client disconnects (closed tab, the Stop button aborting the fetch) or the time limit
passes, the worker running that request is killed and a fresh one takes its place, so no
abandoned computation keeps a core busy.

Each worker is a ``multiprocessing.Process`` holding one end of a ``Pipe``. It receives
``(kind, request)``, calls :data:`chancekit.web.compute.JOBS[kind]`, and sends back
``("progress", done, total)`` and ``("partial", piece)`` messages (the pieces of a result
that are finished: a time-limit error hands them back as ``partial``, so a page keeps the
expressions that finished) then one ``("ok", result, ms)`` or
``("error", status, body)``. The event loop never blocks on a pipe: it is told the result
is ready by ``loop.add_reader`` on the pipe's file descriptor. Workers come from the
``forkserver`` start method with :mod:`chancekit.web.compute` preloaded (a new worker is
a fork of an already-imported process: milliseconds), ``spawn`` where there is no
forkserver.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from typing import Any


class PoolError(Exception):
    """A request the pool could not complete: ``status`` and the JSON error ``body``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body


class Cancelled(Exception):
    """The client went away (or pressed Stop) before the result was ready."""


def _worker_main(conn: Connection) -> None:  # pragma: no cover - runs in the child
    """The worker loop: one job at a time until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the server, which kills us
    from chancekit.web.compute import run_job

    last = [0.0]

    def progress(done: int, total: int, partial: Any = None) -> None:
        if partial is not None:  # a piece of the result, kept if the job is stopped later
            conn.send(("partial", partial))
        now = time.monotonic()
        if now - last[0] >= 0.05 or done >= total:  # at most 20 messages a second
            last[0] = now
            conn.send(("progress", int(done), int(total)))

    while True:
        try:
            kind, request = conn.recv()
        except (EOFError, OSError):
            return
        status, out, ms = run_job(kind, request, progress)
        msg: tuple[Any, ...] = ("ok", out, ms) if status == 200 else ("error", status, out)
        try:
            conn.send(msg)
        except (OSError, ValueError):
            return


class _Worker:
    def __init__(self, ctx: Any) -> None:
        parent, child = ctx.Pipe(duplex=True)
        self.conn: Connection = parent
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True,
                                name="chancekit-web-worker")
        self.proc.start()
        child.close()

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(Exception):
            self.proc.join(5)


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["chancekit.web._preload"])
        return ctx
    return multiprocessing.get_context("spawn")  # pragma: no cover - not Linux


class WorkerPool:
    """``size`` worker processes; :meth:`run` sends one job to an idle worker.

    ``time_limit`` (seconds) bounds each job from the moment a worker takes it; waiting
    for a free worker is bounded by ``queue_limit`` seconds (then 503, try again).
    """

    def __init__(self, size: int = 2, *, time_limit: float = 10.0,
                 queue_limit: float = 30.0) -> None:
        self.size = max(1, int(size))
        self.time_limit = float(time_limit)
        self.queue_limit = float(queue_limit)
        self._ctx = _context()
        self._idle: asyncio.Queue[_Worker] | None = None
        self._all: set[_Worker] = set()
        self._closed = False
        self.killed = 0  # workers killed (cancelled or over time), for tests and /api/status
        self.busy = 0

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._idle = asyncio.Queue()
        workers = await asyncio.gather(*[loop.run_in_executor(None, _Worker, self._ctx)
                                         for _ in range(self.size)])
        for w in workers:
            self._all.add(w)
            self._idle.put_nowait(w)

    async def close(self) -> None:
        self._closed = True
        loop = asyncio.get_running_loop()
        await asyncio.gather(*[loop.run_in_executor(None, w.kill) for w in list(self._all)],
                             return_exceptions=True)
        self._all.clear()

    def _replace(self, worker: _Worker) -> None:
        """Kill ``worker`` and start a fresh one in its place (in the background)."""
        self.killed += 1
        self._all.discard(worker)
        loop = asyncio.get_running_loop()

        async def renew() -> None:
            await loop.run_in_executor(None, worker.kill)
            if self._closed:
                return
            fresh = await loop.run_in_executor(None, _Worker, self._ctx)
            if self._closed:
                await loop.run_in_executor(None, fresh.kill)
                return
            self._all.add(fresh)
            assert self._idle is not None
            self._idle.put_nowait(fresh)

        task = loop.create_task(renew())
        self._tasks = getattr(self, "_tasks", set())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self, kind: str, request: dict[str, Any], *,
                  cancelled: Awaitable[Any] | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  time_limit: float | None = None) -> tuple[dict[str, Any], float]:
        """Run one job; return ``(result, milliseconds in the worker)``.

        Raises :class:`PoolError` (the worker's 4xx error, the time limit, a busy server)
        or :class:`Cancelled` when ``cancelled`` completes first (the worker is killed).
        """
        assert self._idle is not None, "start() the pool first"
        limit = self.time_limit if time_limit is None else time_limit
        cancel_task = asyncio.ensure_future(cancelled) if cancelled is not None else None
        try:
            worker = await self._acquire(cancel_task)
            self.busy += 1
            try:
                return await self._exchange(worker, kind, request, cancel_task, progress,
                                            limit)
            finally:
                self.busy -= 1
        finally:
            if cancel_task is not None:
                cancel_task.cancel()

    async def _acquire(self, cancel_task: asyncio.Future[Any] | None) -> _Worker:
        assert self._idle is not None
        get = asyncio.ensure_future(self._idle.get())
        waits: set[asyncio.Future[Any]] = {get} | ({cancel_task} if cancel_task else set())
        done, _ = await asyncio.wait(waits, timeout=self.queue_limit,
                                     return_when=asyncio.FIRST_COMPLETED)
        if get in done:
            return get.result()
        get.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            w = await get
            self._idle.put_nowait(w)  # got one just as we gave up: give it back
        if cancel_task is not None and cancel_task in done:
            raise Cancelled
        raise PoolError(503, {"type": "Busy", "message": "the server is busy; try again "
                              "in a moment"})

    async def _exchange(self, worker: _Worker, kind: str, request: dict[str, Any],
                        cancel_task: asyncio.Future[Any] | None,
                        progress: Callable[[int, int], None] | None,
                        limit: float) -> tuple[dict[str, Any], float]:
        assert self._idle is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        ok = False
        partials: list[Any] = []
        try:
            worker.conn.send((kind, request))
            while True:
                msg = await self._receive(worker, cancel_task, deadline - loop.time())
                if msg[0] == "partial":
                    partials.append(msg[1])
                    continue
                if msg[0] == "progress":
                    if progress is not None:
                        progress(msg[1], msg[2])
                    continue
                ok = True
                if msg[0] == "ok":
                    return msg[1], msg[2]
                raise PoolError(msg[1], msg[2])
        except TimeoutError:
            body = {"type": "LimitError", "limit": "time_limit",
                    "message": f"the computation took longer than the server's time limit "
                               f"of {limit:g} s and was stopped; try a smaller expression"}
            if partials:  # what finished before the limit: the pages still show it
                body["partial"] = partials
            raise PoolError(422, body) from None
        except (EOFError, OSError, BrokenPipeError):
            raise PoolError(500, {"type": "InternalError",
                                  "message": "the worker process died; try again"}) from None
        finally:
            if ok:
                self._idle.put_nowait(worker)
            else:  # cancelled, timed out, died, or our own task was cancelled: kill it
                self._replace(worker)

    async def _receive(self, worker: _Worker, cancel_task: asyncio.Future[Any] | None,
                       timeout: float) -> Any:
        if timeout <= 0:
            raise TimeoutError
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        fd = worker.conn.fileno()

        def on_ready() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(fd, on_ready)
        try:
            waits: set[asyncio.Future[Any]] = {ready} | ({cancel_task} if cancel_task
                                                         else set())
            done, _ = await asyncio.wait(waits, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            loop.remove_reader(fd)
        if ready in done:
            return worker.conn.recv()  # the whole message is on its way: the worker is
            # writing it now
        if cancel_task is not None and cancel_task in done:
            raise Cancelled
        raise TimeoutError


def default_workers() -> int:
    """Workers by default: the cores available, at least 2 and at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 2
    return max(2, min(4, cores))
