"""``chancekit serve``: the local web calculator (docs/web.md)."""

from __future__ import annotations

import argparse
import sys

from chancekit.errors import ChancekitError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to ``sub``."""
    p = sub.add_parser(
        "serve",
        help="a local web calculator: dice charts, tables, fairness, rolls",
        description="Start chancekit's web app on this machine and print its URL. Pages: "
        "Dice (several expressions on one chart in a chosen dialect, exact table, share "
        "links, Monte Carlo estimates where exact work is refused), Pools (largest set, "
        "Neon City Overdrive, RISK, Genesys symbols), Tables (two-dice tables, two-stage "
        "tables, printable sheet), Fairness (metrics over a match, tuning), Roll (seeded "
        "rolls, named streams). The JSON API is described at /docs. Nothing "
        "is loaded from the network. Stop with Ctrl-C.",
        epilog="examples:\n"
        "  chancekit serve\n"
        "  chancekit serve --port 8000 --open",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=0,
                   help="port (default 0: any free port; the URL is printed)")
    p.add_argument("--open", action="store_true", help="open the URL in a web browser")
    p.add_argument("--workers", type=int, default=None, metavar="K",
                   help="worker processes for computations (default: cores, 2 to 4)")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S",
                   help="seconds one computation may take before it is stopped "
                   "(default 10); tuning jobs get six times as long unless "
                   "--tune-time-limit says otherwise")
    p.add_argument("--tune-time-limit", type=float, default=None, metavar="S",
                   help="seconds one tuning job (Fairness page, Tune) may take "
                   "(default: 6 x --time-limit, so 60)")
    p.add_argument("--no-cache", action="store_true", help="recompute every request "
                   "(by default the last 256 distinct results are reused; for benchmarks)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests addressed to this host name (repeatable); "
                   "by default only IP addresses and localhost are answered, so that "
                   "no other website can reach the app through its own name")
    p.add_argument("--access-log", action="store_true", help="log every request")
    p.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int

    require_int("--port", args.port, lo=0, hi=65535)
    if args.workers is not None:
        require_int("--workers", args.workers, lo=1, hi=64)
    for option, value in (("--time-limit", args.time_limit),
                          ("--tune-time-limit", args.tune_time_limit)):
        if value is not None and not 0 < value <= 3600:
            raise ChancekitError(f"{option} must be between 0 and 3600 seconds, not "
                                 f"{value}")
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ChancekitError("the web app needs the 'web' extra: pip install "
                             "'chancekit[web]' (or '.[all]' in a checkout)") from None
    from chancekit.web import serve

    def announce(url: str) -> None:
        print(f"chancekit web app: {url}", flush=True)
        print("(Ctrl-C stops it)", file=sys.stderr, flush=True)

    try:
        serve(args.host, args.port, open_browser=args.open, workers=args.workers,
              time_limit=args.time_limit, access_log=args.access_log, announce=announce,
              cache=not args.no_cache, tune_time_limit=args.tune_time_limit,
              allow_hosts=tuple(args.allow_host))
    except OSError as exc:
        raise ChancekitError(f"cannot listen on {args.host}:{args.port}: "
                             f"{exc.strerror or exc}") from None
    return 0
