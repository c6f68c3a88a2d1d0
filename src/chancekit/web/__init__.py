"""chancekit in the browser: ``chancekit serve`` (a local web calculator) and its JSON API.

Needs the ``web`` extra (``pip install "chancekit[web]"``: Starlette and uvicorn). Pages:
Dice, Tables, Fairness, Roll; the API is under ``/api/`` and described at ``/docs``
(OpenAPI JSON at ``/api/openapi.json``). Design and limits: docs/web.md.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]


def create_app(**kwargs: Any) -> Any:
    """The ASGI application; keyword arguments as :func:`chancekit.web.app.create_app`."""
    from chancekit.web.app import create_app as _create

    return _create(**kwargs)


def serve(host: str = "127.0.0.1", port: int = 0, *, open_browser: bool = False,
          workers: int | None = None, time_limit: float = 10.0, access_log: bool = False,
          announce: Any = print, cache: bool = True,
          tune_time_limit: float | None = None, allow_hosts: tuple[str, ...] = ()) -> None:
    """Run the web app until interrupted. ``port=0`` picks a free port; the URL is passed
    to ``announce`` once the socket is bound (before the first request can arrive).
    ``time_limit`` bounds each request's computation; ``tune_time_limit`` each tuning job
    (default six times ``time_limit``: 60 s). Requests whose ``Host`` is a name other than
    ``localhost`` or one of ``allow_hosts`` are refused (403)."""
    import socket

    import uvicorn

    from chancekit.web.app import create_app as _create

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    url = f"http://{shown}:{bound}/"

    def ready() -> None:  # the worker pool is up; the socket already listens
        announce(url)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    app = _create(workers=workers, time_limit=time_limit, on_ready=ready, cache=cache,
                  job_time_limit=tune_time_limit, allow_hosts=allow_hosts)
    config = uvicorn.Config(app, log_level="warning", access_log=access_log,
                            timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
