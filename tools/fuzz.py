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

``--notation N`` runs instead a second, independent generator (issue #23): a weighted
recursive grammar written for this tool (:class:`HostileNotation`, not Hypothesis: it
aims at the cost classes the outside run found — custom faces near 10**17 that explode,
chains of maps over a million outcomes, per-die operator chains before a keep, huge
weights, control characters between tokens) in both dialects. Each case runs ``dist()``
in a worker process capped at 2 GiB of address space; a case fails on any exception that
is not a ``ChancekitError`` (``MemoryError`` included), and is flagged *late* when it is
refused after more than ``--late`` seconds or *slow* when answered after more than
``--budget``. Then the post-use step runs the CLI end to end (``chancekit dist TEXT``) on
a sample of the cases (``--cli-sample``: the slowest answered ones first) and flags any
whose CLI took more than 2 s of CPU where ``dist()`` took under 1 s.

    .venv/bin/python tools/fuzz.py --notation 50000 --seed 23 --report notation.json

``--generator beside`` swaps the grammar for :class:`BesideNotation` (issue #31): an
expensive side priced near the budget beside a cheap side the tree estimate cannot read
(general-engine pools, nested rolled counts, huge integers), the shape of the refusals
that came after the work.

    .venv/bin/python tools/fuzz.py --notation 800 --generator beside --seed 3106 --late 1
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
from typing import Any

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


# ------------------------------------------------------------------ hostile notation
class HostileNotation:
    """A weighted recursive grammar of dice expressions (both dialects), seeded: the cost
    classes of issue #23 on purpose, every operator and selector, sizes from tiny to past
    every limit. ``case()`` gives ``(text, dialect)``."""

    def __init__(self, seed: int) -> None:
        import random

        self.r = random.Random(seed)

    def pick(self, weighted: list[tuple[Any, float]]) -> Any:
        total = sum(w for _, w in weighted)
        x = self.r.random() * total
        for v, w in weighted:
            x -= w
            if x < 0:
                return v
        return weighted[-1][0]

    def space(self) -> str:
        return self.pick([("", 20), (" ", 4), ("\t", 1), ("\n", 1), ("\r\n", 1), ("  ", 1)])

    def number(self) -> str:
        r = self.r
        return str(self.pick([
            (r.randint(0, 9), 10), (r.randint(10, 100), 4), (r.randint(100, 10**4), 2),
            (r.randint(10**4, 10**6), 1), (10**r.randint(6, 30) - r.randint(0, 9), 1),
            (-r.randint(1, 20), 2)]))

    def count(self, depth: int) -> str:
        r = self.r
        nested = [(lambda: "(" + self.expr(depth - 1) + ")", 0.5)] if depth > 0 else []
        return self.pick([(lambda: "", 4), (lambda: str(r.randint(1, 10)), 10),
                          (lambda: str(r.randint(10, 100)), 3),
                          (lambda: str(r.randint(100, 3000)), 0.6),
                          (lambda: str(r.randint(3000, 10**5)), 0.3),
                          (lambda: str(10**r.randint(5, 18)), 0.3), *nested])()

    def face(self) -> str:
        r = self.r
        f = self.pick([(r.randint(-3, 12), 10), (r.randint(13, 10**6), 2),
                       (10**r.randint(15, 30) - 1, 2), (-(10**r.randint(15, 18)), 0.5),
                       (2**62 + r.randint(0, 3), 0.5)])
        return self.pick([(str(f), 8), ("+" + str(f) if f >= 0 else str(f), 1)])

    def sides(self, depth: int) -> str:
        r = self.r
        nested = [(lambda: "(" + self.expr(depth - 1) + ")", 0.3)] if depth > 0 else []
        return self.pick([
            (lambda: str(r.choice([2, 3, 4, 6, 8, 10, 12, 20])), 12), (lambda: "%", 2),
            (lambda: "F", 1), (lambda: str(r.randint(21, 1000)), 3),
            (lambda: str(r.randint(1000, 10**6)), 1),
            (lambda: "{" + ",".join(self.face() for _ in range(r.randint(1, 5))) + "}", 4),
            *nested])()

    def selector(self) -> str:
        r = self.r
        cmp_ = self.pick([("", 3), ("<", 2), (">", 2), ("<=", 1), (">=", 1), ("=", 0.5)])
        n = self.pick([(r.randint(0, 8), 10), (r.randint(9, 100), 1), (-r.randint(1, 5), 1)])
        return f"{cmp_}{n}"

    def op(self, dialect: str) -> str:
        r = self.r
        if dialect == "roll20":
            kind = self.pick([("kh", 3), ("kl", 2), ("dh", 1), ("dl", 2), ("k", 1), ("!", 3),
                              ("!!", 2), ("!p", 1), ("r", 2), ("ro", 1), ("cs", 0.5),
                              ("cf", 0.5), (">", 1), ("<", 0.5), ("f", 0.3)])
        else:
            kind = self.pick([("kh", 3), ("kl", 2), ("ph", 1), ("pl", 2), ("k", 1), ("p", 1),
                              ("e", 3), ("!", 2), ("rr", 2), ("ro", 2), ("ra", 1), ("mi", 1),
                              ("ma", 1), ("cs", 1), ("cf", 0.5), ("df", 0.5)])
        if kind in ("kh", "kl", "dh", "dl", "ph", "pl"):
            return kind + str(self.pick([(r.randint(0, 5), 6), (r.randint(5, 200), 1)]))
        if kind in ("!", "!!", "!p") and r.random() < 0.5:
            return kind
        return kind + self.selector()

    def dice(self, dialect: str, depth: int) -> str:
        ops = "".join(self.op(dialect) for _ in range(self.pick([(0, 5), (1, 5), (2, 3),
                                                                 (3, 2), (4, 1)])))
        d = self.pick([("d", 10), ("D", 1)])
        return f"{self.count(depth)}{d}{self.sides(depth)}{ops}"

    def atom(self, depth: int, dialect: str) -> str:
        r = self.r
        choices = [(lambda: self.dice(dialect, depth), 8), (self.number, 3)]
        if depth > 0:
            choices += [(lambda: "(" + self.expr(depth - 1, dialect) + ")", 2),
                        (lambda: "(" + ", ".join(self.expr(depth - 1, dialect) for _ in
                                                 range(r.randint(1, 4))) + ")"
                         + "".join(self.op(dialect) for _ in range(r.randint(0, 2))), 1)]
            if dialect == "roll20":
                choices.append((lambda: r.choice(["floor", "ceil", "round", "abs"]) + "("
                                + self.expr(depth - 1, dialect) + ")", 1))
        return self.pick(choices)()

    def expr(self, depth: int, dialect: str = "avrae") -> str:
        r = self.r
        parts = [self.pick([("", 6), ("-", 2), ("+", 0.5), ("-+", 0.3), ("--", 0.3)])
                 + self.atom(depth, dialect)]
        for _ in range(self.pick([(0, 6), (1, 4), (2, 2), (3, 1), (6, 0.3)])):
            binop = self.pick([("+", 6), ("-", 4), ("*", 2), ("/", 2), ("//", 1), ("%", 1),
                               ("<", 0.5), (">=", 0.5), ("==", 0.3)])
            parts.append(binop + self.space() + self.atom(depth, dialect))
        return self.space().join(parts) if r.random() < 0.2 else "".join(parts)

    def case(self) -> tuple[str, str]:
        dialect = self.pick([("avrae", 7), ("roll20", 3)])
        return self.expr(self.pick([(0, 3), (1, 4), (2, 2)]), dialect), dialect


class BesideNotation(HostileNotation):
    """A third generator (issue #31, item 5), aimed where the tree estimate is blind: an
    *expensive* side priced near the budget (a power of thousands of dice, a keep of many
    big dice, a map over a million faces, an explosion of many dice, a pairwise step)
    combined with a *cheap side the tree cannot price* (a pool of several operators in a
    row: the general engine; a rolled count, nested rolled counts; a group with
    operators), in either order, nested, wrapped in unary minus or functions, with huge
    integers (10**30, faces near 2**62) mixed in. ``--generator beside``."""

    def expensive(self) -> str:
        r = self.r
        return self.pick([
            (lambda: f"{r.randint(2000, 30000)}d{r.choice(['F', 2, 3, 4, 6])}", 3),
            (lambda: f"{r.randint(300, 3000)}d{r.choice([8, 10, 12, 20, 100])}", 3),
            (lambda: f"{r.randint(5, 40)}d{r.randint(50, 900)}k{r.choice('hl')}"
             f"{r.randint(1, 12)}", 2),
            (lambda: f"{r.choice(['-', ''])}d{r.randint(10**5, 10**6)}"
             f"{r.choice(['/4', '*3', '+7', ''])}", 2),
            (lambda: f"{r.randint(20, 300)}d{r.choice([6, 8, 10, 20])}"
             f"{r.choice(['!', 'e6', '!!', 'rr1', 'ro<3'])}", 2),
            (lambda: f"{r.randint(30, 120)}d20/{r.randint(30, 120)}d{r.choice([2, 4, 6])}", 1.5),
            (lambda: f"d{r.randint(200, 900)}%d{r.randint(100, 900)}", 1),
            (lambda: f"{r.randint(2, 12)}d{r.randint(10**4, 10**6)}", 1)])()

    def unpriced(self, depth: int) -> str:
        r = self.r
        ops = lambda k: "".join(self.op("avrae") for _ in range(k))  # noqa: E731
        choices = [
            (lambda: f"{r.randint(1, 12)}d{r.choice([2, 4, 6, 8, 10, 12, 20, 'F'])}"
             + ops(r.randint(2, 4)), 4),
            (lambda: f"({r.randint(1, 30)}d{r.choice([4, 6, 8, 20])}{ops(r.randint(0, 2))}"
             f"+d{r.choice([4, 6, 8])})d{r.choice([4, 6, 8, 10, 20])}{ops(r.randint(0, 2))}", 3),
            (lambda: f"(({r.randint(1, 9)}d{r.choice([3, 4, 6])})d{r.choice([4, 6, 8])}"
             f"{ops(r.randint(0, 1))})d{r.choice([4, 6, 10])}{ops(r.randint(0, 2))}", 2),
            (lambda: "(" + ", ".join(f"{r.randint(1, 20)}d{r.choice([4, 6, 8, 12])}"
                                     for _ in range(r.randint(2, 4)))
             + ")" + ops(r.randint(1, 3)), 2),
            (lambda: f"{r.randint(1, 9)}d{{"
             + ",".join(self.face() for _ in range(r.randint(2, 4))) + "}"
             + ops(r.randint(1, 3)), 1.5),
            (lambda: str(self.pick([(10**r.randint(15, 40), 1), (2**62 + r.randint(0, 9), 1),
                                    (-(10**r.randint(15, 30)), 1)])), 1)]
        if depth > 0:
            choices.append((lambda: "(" + self.mixed(depth - 1) + ")", 2))
        return self.pick(choices)()

    def mixed(self, depth: int) -> str:
        r = self.r
        parts = [self.expensive(), self.unpriced(depth)]
        for _ in range(self.pick([(0, 4), (1, 2), (2, 1)])):
            parts.append(self.pick([(self.expensive, 1), (lambda: self.unpriced(depth), 2)])())
        r.shuffle(parts)
        out = parts[0]
        for p in parts[1:]:
            op = self.pick([("+", 6), ("-", 3), ("*", 2), ("/", 1), ("//", 1), ("%", 1),
                            (">=", 0.5)])
            out += op + self.space() + p
        return self.pick([(out, 8), ("-" + "(" + out + ")", 1), ("(" + out + ")*3", 1),
                          ("(" + out + ")/7", 1)])

    def case(self) -> tuple[str, str]:
        return self.mixed(self.pick([(0, 5), (1, 3), (2, 1)])), "avrae"


#: the notation generators of ``--notation`` (``--generator NAME``)
GENERATORS: dict[str, type[HostileNotation]] = {"hostile": HostileNotation,
                                                "beside": BesideNotation}


def _notation_worker_init() -> None:
    import resource

    cap = 2 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    import chancekit.dice  # noqa: F401  (imported once per worker)


def _notation_case(args: tuple[str, str]) -> tuple[str, str, str, float, str]:
    """(text, dialect, outcome, CPU seconds, detail) of one ``dist()`` call."""
    import signal

    from chancekit.dice import dist
    from chancekit.errors import ChancekitError, LimitError

    text, dialect = args

    def alarm(*_: Any) -> None:
        raise TimeoutError("past 60 s")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(60)
    t0 = time.process_time()
    try:
        got = dist(text, dialect=dialect)
        outcome, detail = "answered", f"{len(got)} outcomes"
    except LimitError as e:
        outcome, detail = "refused", str(e.limit)
    except ChancekitError as e:
        outcome, detail = "error", type(e).__name__
    except BaseException as e:
        outcome, detail = "crash", f"{type(e).__name__}: {str(e)[:200]}"
    finally:
        signal.alarm(0)
    return text, dialect, outcome, time.process_time() - t0, detail


def _cli_time(text: str, dialect: str) -> tuple[float, int]:
    """CPU seconds (user + system) and exit code of ``chancekit dist TEXT`` end to end."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    exe = Path(sys.executable).with_name("chancekit")
    argv = [str(exe)] if exe.exists() else [sys.executable, "-m", "chancekit"]
    proc = subprocess.run([*argv, "dist", "--dialect", dialect, "--", text],
                          capture_output=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            proc.returncode)


#: seconds to wait for one case's result before its worker is taken for dead
_DEAD_WORKER = 120


def run_notation(args: argparse.Namespace) -> int:
    """The ``--notation N`` run: N cases of :class:`HostileNotation`, then the CLI sample."""
    from multiprocessing import TimeoutError as NoResult
    from multiprocessing import get_context

    gen = GENERATORS[args.generator](args.seed)
    cases = [gen.case() for _ in range(args.notation)]
    start = time.perf_counter()
    results: list[tuple[str, str, str, float, str]] = []
    # every result is also appended to a JSON-lines log as it comes (a long run can be
    # summarised before it ends: --summarize LOG)
    log = Path(args.log) if args.log else None
    sink = log.open("a", encoding="utf-8") if log else None
    done = 0
    while done < len(cases):
        # a worker that dies (python-flint aborts the process where it cannot allocate:
        # 2d{999999999999999999}ra>=1) loses its case and leaves imap waiting forever: each
        # result is awaited at most _DEAD_WORKER seconds (the case's own alarm is 60 s), the
        # case in flight is recorded as a crash, and the rest run in a new pool
        with get_context("fork").Pool(max(1, args.jobs), initializer=_notation_worker_init,
                                      maxtasksperchild=2000) as pool:
            it = pool.imap(_notation_case, cases[done:], chunksize=1)
            while done < len(cases):
                try:
                    res = it.next(timeout=_DEAD_WORKER)
                except StopIteration:  # pragma: no cover - counted by done
                    break
                except NoResult:
                    text, dialect = cases[done]
                    res = (text, dialect, "crash", float(_DEAD_WORKER),
                           "the worker died or hung (no result, no alarm)")
                    pool.terminate()
                results.append(res)
                done += 1
                if sink:
                    sink.write(json.dumps(res) + "\n")
                    sink.flush()
                if done % 5000 == 0:
                    print(f"  {done:,} cases, {time.perf_counter() - start:.0f} s", flush=True)
                if res[2] == "crash" and res[4].startswith("the worker died"):
                    break
    if sink:
        sink.close()
    elapsed = time.perf_counter() - start
    return _report_notation(args, gen, results, elapsed)


def _report_notation(args: argparse.Namespace, gen: HostileNotation,
                     results: list[tuple[str, str, str, float, str]],
                     elapsed: float) -> int:
    counts: dict[str, int] = {}
    for _, _, outcome, _, _ in results:
        counts[outcome] = counts.get(outcome, 0) + 1
    crashes = [r for r in results if r[2] == "crash"]
    late = [r for r in results if r[2] == "refused" and r[3] > args.late]
    slow = [r for r in results if r[2] == "answered" and r[3] > args.budget]
    print(f"\n{len(results):,} notation cases (seed {args.seed}) in {elapsed:.0f} s: "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items())))
    for title, rows in (("crashes", crashes), (f"late refusals (> {args.late} s)", late),
                        (f"slow answers (> {args.budget} s)", slow)):
        print(f"{title}: {len(rows)}")
        for text, dialect, _, secs, detail in sorted(rows, key=lambda r: -r[3])[:30]:
            print(f"  {secs:6.2f} s  {dialect:6}  {text!r:.120}  {detail[:80]}")
    # the post-use step: the CLI end to end on a sample, slowest answered first
    answered = sorted((r for r in results if r[2] in ("answered", "refused")),
                      key=lambda r: -r[3])
    sample = answered[: args.cli_sample // 2]
    rest = answered[args.cli_sample // 2:]
    gen.r.shuffle(rest)
    sample += rest[: args.cli_sample - len(sample)]
    cli_rows = []
    for text, dialect, outcome, secs, _ in sample:
        cpu, code = _cli_time(text, dialect)
        cli_rows.append((text, dialect, outcome, secs, cpu, code))
    over = [r for r in cli_rows if r[3] < 1.0 and r[4] > 2.0]
    bad_exit = [r for r in cli_rows if r[5] not in (0, 1)]
    slowest = max((r[4] for r in cli_rows), default=0.0)
    print(f"\nCLI end to end on {len(cli_rows)} cases: slowest {slowest:.2f} s CPU; "
          f"{len(over)} over 2 s where dist() took under 1 s; {len(bad_exit)} bad exit codes")
    for text, dialect, _, secs, cpu, code in sorted(over + bad_exit, key=lambda r: -r[4])[:20]:
        print(f"  dist {secs:.2f} s, CLI {cpu:.2f} s, exit {code}  {dialect}  {text!r:.120}")
    if args.report:
        Path(args.report).write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d %H:%M:%S"), "generator": type(gen).__name__,
            "seed": args.seed, "cases": len(results), "counts": counts,
            "wall_seconds": round(elapsed), "jobs": args.jobs,
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "crashes": crashes, "late": late, "slow": slow,
            "cli": {"sampled": len(cli_rows), "over": over, "bad_exit": bad_exit,
                    "slowest_cpu": max((r[4] for r in cli_rows), default=0)},
        }, indent=1) + "\n", encoding="utf-8")
    return 1 if crashes or bad_exit else 0


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
    ap.add_argument("--notation", type=int, metavar="N", default=0,
                    help="instead: N cases of the hostile notation grammar (HostileNotation)")
    ap.add_argument("--generator", choices=sorted(GENERATORS), default="hostile",
                    help="--notation: the grammar (hostile: HostileNotation; beside: "
                    "BesideNotation, an expensive side beside one the tree cannot price)")
    ap.add_argument("--late", type=float, default=0.5,
                    help="--notation: a refusal later than this (CPU s) is flagged")
    ap.add_argument("--cli-sample", type=int, default=200,
                    help="--notation: cases run through the CLI end to end afterwards")
    ap.add_argument("--log", metavar="FILE.jsonl",
                    help="--notation: append every case's result to this file as it comes")
    ap.add_argument("--summarize", metavar="FILE.jsonl[,FILE.jsonl]",
                    help="summarise --log files of --notation runs (finished or not), then "
                    "run their CLI sample (--cli-sample)")
    args = ap.parse_args(argv)
    if args.summarize:  # the summary and the CLI step of a logged run, finished or not
        rows = [tuple(json.loads(line)) for path in args.summarize.split(",")
                for line in Path(path).read_text(encoding="utf-8").splitlines() if line]
        return _report_notation(args, HostileNotation(args.seed), rows, 0.0)  # type: ignore[arg-type]
    if args.notation:
        return run_notation(args)

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
