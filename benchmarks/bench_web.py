"""Load test of the web app (``chancekit serve``) on loopback: 200 requests from 20
concurrent clients over a mixed corpus, while one more client sends expensive expressions
that must be refused (4xx) -- no request may fail. Prints p50/p95 latency.

    .venv/bin/python benchmarks/bench_web.py                 # starts its own server
    .venv/bin/python benchmarks/bench_web.py --no-cache      # every request recomputed
    .venv/bin/python benchmarks/bench_web.py --url http://127.0.0.1:8000/

Only 127.0.0.1 is ever contacted. Goal (issue 13): p95 <= 100 ms for the common
expressions (4d6kh3, 2d20kh1+5, 10d10>=8). Results: docs/performance.md, "Web".
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: the common expressions of the goal, sent one per request
COMMON = ["4d6kh3", "2d20kh1+5", "10d10>=8"]
#: the rest of the mixed corpus: (path, body)
MIXED: list[tuple[str, dict[str, Any]]] = [
    *[("/api/dist", {"expressions": [{"text": e}]}) for e in COMMON],
    ("/api/dist", {"expressions": [{"text": "1d20+5 >= 15"}, {"text": "2d20kl1+5 >= 15"}]}),
    ("/api/dist", {"expressions": [{"label": "savage", "text": "(1d8!, 1d6!)kh1"}]}),
    ("/api/dist", {"expressions": [{"text": "8d6"}, {"text": "4dF"}, {"text": "3d6"}]}),
    ("/api/dist", {"expressions": [{"text": "4d6kq3"}]}),       # a notation error: 422
    ("/api/table", {"source": "notation", "notation": "3d6"}),
    ("/api/table", {"source": "loot", "loot": "sword=5\nshield=3\npotion=12",
                    "row_die": 6}),
    ("/api/roll", {"text": "4d6kh3", "seed": 7, "n": 6, "streams": ["a", "b"]}),
    ("/api/fairness", {"systems": ["deck", "dynamic-dice:0.355"], "values": 6,
                       "samples": 25}),
]
#: refused up front by chancekit's own limits (422 with a "limit")
EXPENSIVE = ["2000d6kh1000", "100000d6", "100d100kh50", "1000d1000", "(10d10)d(10d10)kh5"]


@dataclass
class Sample:
    path: str
    text: str
    status: int
    seconds: float


@dataclass
class Report:
    samples: list[Sample] = field(default_factory=list)
    refusals: list[Sample] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wall: float = 0.0

    def percentile(self, q: float, *, common_only: bool = False) -> float:
        xs = sorted(s.seconds for s in self.samples
                    if not common_only or (s.path == "/api/dist" and s.text in COMMON))
        if not xs:
            return float("nan")
        return xs[min(len(xs) - 1, max(0, round(q * len(xs)) - 1))]


def _post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[
        int, dict[str, Any]]:
    data = json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    raw = resp.read()
    return resp.status, json.loads(raw)


def _connection(url: str) -> http.client.HTTPConnection:
    u = urlsplit(url)
    if u.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("the load test only talks to this machine (127.0.0.1)")
    return http.client.HTTPConnection(u.hostname, u.port, timeout=120)


def run_load(url: str, *, requests: int = 200, clients: int = 20,
             expensive: int = 20) -> Report:
    """``requests`` spread over ``clients`` threads (keep-alive connections), plus one
    client sending ``expensive`` refused expressions at the same time."""
    report = Report()
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)

    def client(k: int) -> None:
        conn = _connection(url)
        start.wait()
        for i in range(k, requests, clients):
            path, body = MIXED[i % len(MIXED)]
            text = body.get("expressions", [{}])[0].get("text", "") if path == "/api/dist" \
                else ""
            t0 = time.perf_counter()
            try:
                status, doc = _post(conn, path, body)
            except Exception as exc:  # a failure to report, not to raise in a thread
                with lock:
                    report.failures.append(f"{path}: {exc!r}")
                conn = _connection(url)
                continue
            dt = time.perf_counter() - t0
            ok = status == 200 or (status == 422 and text == "4d6kq3"
                                   and doc["error"]["type"] == "NotationError")
            with lock:
                report.samples.append(Sample(path, text, status, dt))
                if not ok:
                    report.failures.append(f"{path} {body}: HTTP {status} {doc}")
        conn.close()

    def bad_client() -> None:
        conn = _connection(url)
        for i in range(expensive):
            text = EXPENSIVE[i % len(EXPENSIVE)]
            t0 = time.perf_counter()
            try:
                status, doc = _post(conn, "/api/dist", {"expressions": [{"text": text}]})
            except Exception as exc:
                with lock:
                    report.failures.append(f"expensive {text}: {exc!r}")
                conn = _connection(url)
                continue
            with lock:
                report.refusals.append(Sample("/api/dist", text, status,
                                              time.perf_counter() - t0))
                if not (400 <= status < 500 and "message" in doc.get("error", {})):
                    report.failures.append(f"expensive {text}: HTTP {status} {doc}")
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    threads.append(threading.Thread(target=bad_client))
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    report.wall = time.perf_counter() - t0
    return report


@contextmanager
def server(*args: str, env: dict[str, str] | None = None):
    """A ``chancekit serve`` subprocess on 127.0.0.1 and a free port; yields its URL."""
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"chancekit-serve-{os.getpid()}.out"
    with open(out, "w+") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "chancekit", "serve", "--port", "0",
                                 *args], stdout=fh, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, **(env or {})})
        try:
            deadline = time.monotonic() + 120  # a hang guard, not a performance check
            url = ""
            while not url:
                if proc.poll() is not None or time.monotonic() > deadline:
                    fh.seek(0)
                    raise RuntimeError(f"chancekit serve did not start: {fh.read()}")
                time.sleep(0.05)
                fh.seek(0)
                for line in fh.read().splitlines():
                    if "http://" in line:
                        url = line[line.index("http://"):].strip()
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    out.unlink(missing_ok=True)


def _print(report: Report, title: str) -> None:
    ms = lambda s: f"{1000 * s:.1f} ms"  # noqa: E731
    print(f"{title}: {len(report.samples)} requests in {report.wall:.2f} s, "
          f"{len(report.failures)} failures, {len(report.refusals)} expensive refused")
    print(f"  all requests:        p50 {ms(report.percentile(0.5))}, "
          f"p95 {ms(report.percentile(0.95))}, max {ms(report.percentile(1.0))}")
    print(f"  common expressions:  p50 {ms(report.percentile(0.5, common_only=True))}, "
          f"p95 {ms(report.percentile(0.95, common_only=True))}")
    if report.refusals:
        xs = sorted(s.seconds for s in report.refusals)
        print(f"  refusals:            p50 {ms(xs[len(xs) // 2])}, max {ms(xs[-1])}, "
              f"statuses {sorted({s.status for s in report.refusals})}")
    for f in report.failures[:10]:
        print("  FAILURE:", f)


def cases(quick: bool = False) -> list[Any]:
    """For benchmarks/run.py: p95 of the common expressions, cache on and off."""
    from _harness import Result

    rows = []
    for flags, name in (((), "cached"), (("--no-cache",), "no cache")):
        with server(*flags) as url:
            run_load(url, requests=40, clients=20, expensive=5)  # warm-up
            r = run_load(url, requests=100 if quick else 200)
        p95 = r.percentile(0.95, common_only=True)
        rows.append(Result("web", f"p95 latency, common expressions, 20 clients ({name})",
                           p95, goal="<= 100 ms", met=p95 <= 0.1 and not r.failures,
                           note=f"{len(r.failures)} failures"))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server (127.0.0.1 only); default: start one")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--no-cache", action="store_true", help="start the server with --no-cache")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    flags = [*(["--no-cache"] if args.no_cache else []),
             *(["--workers", str(args.workers)] if args.workers else [])]
    if args.url:
        report = run_load(args.url, requests=args.requests, clients=args.clients)
    else:
        with server(*flags) as url:
            run_load(url, requests=40, clients=20, expensive=5)  # warm-up
            report = run_load(url, requests=args.requests, clients=args.clients)
    _print(report, f"load test ({'no cache' if args.no_cache else 'cache on'})")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
