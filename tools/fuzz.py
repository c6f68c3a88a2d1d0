"""The long fuzzing run: every ``fuzz``-marked test (docs/fuzzing.md) at scale, in parallel.

    .venv/bin/python tools/fuzz.py                        # >= 1 000 000 cases, 2 jobs
    .venv/bin/python tools/fuzz.py --cases 20000 --jobs 2 # a quicker look
    .venv/bin/python tools/fuzz.py --report fuzz-run.json # also write the results as JSON

Each test declares a quick count (the CI profile) and a long count (``fuzz_settings`` in
tests/_fuzz.py, recorded on its ``fuzz`` marker). The long counts are scaled so that they
add up to ``--cases``, and each test's share is split into chunks of at most ``--chunk``
examples; every chunk is one pytest process (``HYPOTHESIS_PROFILE=long``,
``CHANCEKIT_FUZZ_EXAMPLES=<chunk>``, its own ``--hypothesis-seed``), ``--jobs`` at a time.
The cases counted are the *passing examples Hypothesis actually ran*, parsed from
``--hypothesis-show-statistics``; when a test's search space is exhausted early, the
shortfall is topped up with more chunks of the other tests until the total reaches
``--cases``. Inputs that the library accepted but that ran past the per-case budget are
listed as "slow" (discarded, not failures).

Exit status: 0 if every chunk passed, 1 if any failed (their output is kept in the log
directory printed at the end).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASSING = re.compile(r"(\d+) passing")


@dataclass
class TestStats:
    nodeid: str
    quick: int
    long: int
    target: int = 0
    cases: int = 0
    chunks: int = 0
    failures: int = 0
    slow: int = 0
    seconds: float = 0.0
    exhausted: bool = False
    logs: list[str] = field(default_factory=list)


def collect(paths: list[str]) -> list[TestStats]:
    """The fuzz tests and their declared budgets (one collection run, in a subprocess)."""
    code = (
        "import json, sys, pytest\n"
        "class P:\n"
        "    items = []\n"
        "    def pytest_collection_finish(self, session):\n"
        "        for it in session.items:\n"
        "            m = it.get_closest_marker('fuzz')\n"
        "            if m is not None and 'quick' in m.kwargs:\n"
        "                P.items.append((it.nodeid, m.kwargs['quick'], m.kwargs['long']))\n"
        "rc = pytest.main(['--collect-only', '-q', '-o', 'addopts=', '-p', 'no:cacheprovider',"
        " '-m', 'fuzz', *sys.argv[1:]], plugins=[P()])\n"
        "print('@@' + json.dumps(P.items))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *paths], cwd=ROOT, text=True,
                         capture_output=True, check=False)
    line = next((x for x in out.stdout.splitlines() if x.startswith("@@")), None)
    if line is None:
        sys.exit(f"collection failed:\n{out.stdout}\n{out.stderr}")
    return [TestStats(n, q, lo) for n, q, lo in json.loads(line[2:])]


def run_chunk(test: TestStats, examples: int, seed: int, logdir: Path,
              budget: float) -> tuple[int, bool, int, float, str | None]:
    """(passing examples, ok, slow inputs, seconds, log path if failed)."""
    slow = logdir / f"slow-{seed}.txt"
    env = dict(os.environ, HYPOTHESIS_PROFILE="long", CHANCEKIT_FUZZ_EXAMPLES=str(examples),
               CHANCEKIT_FUZZ_SLOW=str(slow), CHANCEKIT_FUZZ_BUDGET=str(budget))
    cmd = [sys.executable, "-m", "pytest", test.nodeid, "-o", "addopts=", "-q",
           "-p", "no:cacheprovider", "--hypothesis-show-statistics",
           f"--hypothesis-seed={seed}"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, text=True, capture_output=True, check=False)
    seconds = time.perf_counter() - start
    text = proc.stdout + proc.stderr
    cases = sum(int(m) for m in PASSING.findall(text))
    nslow = len(slow.read_text(encoding="utf-8").splitlines()) if slow.exists() else 0
    log = None
    if proc.returncode != 0:
        log = str(logdir / f"fail-{seed}.log")
        Path(log).write_text(" ".join(cmd) + "\n\n" + text, encoding="utf-8")
    return cases, proc.returncode == 0, nslow, seconds, log


def plan(tests: list[TestStats], cases: int, chunk: int) -> list[tuple[TestStats, int]]:
    total_long = sum(t.long for t in tests)
    jobs = []
    for t in tests:
        t.target = math.ceil(t.long * cases / total_long)
        k = max(1, math.ceil(t.target / chunk))
        base, extra = divmod(t.target, k)
        jobs += [(t, base + (1 if i < extra else 0)) for i in range(k)]
    # interleave the tests so each job slot gets a mix of cheap and costly chunks
    jobs.sort(key=lambda j: (-j[1], j[0].nodeid))
    return jobs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=1_000_000,
                    help="total passing examples to run (default 1 000 000)")
    ap.add_argument("--jobs", type=int, default=2, help="pytest processes at once (default 2)")
    ap.add_argument("--chunk", type=int, default=50_000,
                    help="most examples per pytest process (default 50 000)")
    ap.add_argument("--budget", type=float, default=1.0,
                    help="seconds one case may take before it is set aside as slow")
    ap.add_argument("--seed", type=int, default=1, help="first --hypothesis-seed")
    ap.add_argument("--report", metavar="FILE.json", help="also write the results as JSON")
    ap.add_argument("paths", nargs="*", default=["tests"], help="where to collect (tests)")
    args = ap.parse_args(argv)

    tests = collect(args.paths)
    if not tests:
        print("no fuzz tests found", file=sys.stderr)
        return 1
    logdir = Path(tempfile.mkdtemp(prefix="chancekit-fuzz-"))
    seed = args.seed
    start = time.perf_counter()
    print(f"{len(tests)} fuzz tests, target {args.cases:,} cases, {args.jobs} jobs, "
          f"logs in {logdir}", flush=True)

    def execute(jobs: list[tuple[TestStats, int]]) -> None:
        nonlocal seed
        seeded = []
        for t, n in jobs:
            seeded.append((t, n, seed))
            seed += 1
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futs = [(t, n, pool.submit(run_chunk, t, n, s, logdir, args.budget))
                    for t, n, s in seeded]
            for t, n, fut in futs:
                got, ok, nslow, secs, log = fut.result()
                t.cases += got
                t.chunks += 1
                t.failures += 0 if ok else 1
                t.slow += nslow
                t.seconds += secs
                t.exhausted |= ok and got < n
                if log:
                    t.logs.append(log)
                done = sum(x.cases for x in tests)
                print(f"  {t.nodeid}: +{got:,} ({'ok' if ok else 'FAILED'}, {secs:.0f} s)"
                      f" -> {done:,} total, {time.perf_counter() - start:.0f} s",
                      flush=True)

    execute(plan(tests, args.cases, args.chunk))
    for _ in range(3):  # top up what exhausted tests could not reach
        short = args.cases - sum(t.cases for t in tests)
        open_tests = [t for t in tests if not t.exhausted and not t.failures]
        if short <= 0 or not open_tests:
            break
        execute(plan(open_tests, short + len(open_tests), args.chunk))
    elapsed = time.perf_counter() - start

    total = sum(t.cases for t in tests)
    failures = sum(t.failures for t in tests)
    width = max(len(t.nodeid) for t in tests)
    print()
    print(f"{'test':<{width}}  {'cases':>10}  {'failures':>8}  {'slow':>5}  {'time':>8}")
    for t in tests:
        print(f"{t.nodeid:<{width}}  {t.cases:>10,}  {t.failures:>8}  {t.slow:>5}  "
              f"{t.seconds:>7.0f}s")
    print(f"{'total':<{width}}  {total:>10,}  {failures:>8}  {sum(t.slow for t in tests):>5}"
          f"  {elapsed:>7.0f}s wall")
    slow_lines = sorted({x for f in logdir.glob("slow-*.txt")
                         for x in f.read_text(encoding="utf-8").splitlines()})
    if slow_lines:
        print("\nslow inputs (accepted, past the budget; discarded):")
        for line in slow_lines[:50]:
            print("  " + line[:200])
    for t in tests:
        for log in t.logs:
            print(f"FAILED {t.nodeid}: see {log}", file=sys.stderr)
    if args.report:
        Path(args.report).write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cases": total,
            "target": args.cases, "failures": failures, "wall_seconds": round(elapsed),
            "jobs": args.jobs, "python": platform.python_version(),
            "cpus": os.cpu_count(), "machine": platform.processor() or platform.machine(),
            "tests": [{"test": t.nodeid, "cases": t.cases, "chunks": t.chunks,
                       "failures": t.failures, "slow": t.slow, "seconds": round(t.seconds)}
                      for t in tests],
            "slow_inputs": slow_lines,
        }, indent=2) + "\n", encoding="utf-8")
    if total < args.cases:
        print(f"note: {total:,} cases ran, short of the {args.cases:,} asked", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
