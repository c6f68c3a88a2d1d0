"""AnyDice programs: chancekit.anydice against dyceum on the dev corpus, in the same run.

The corpus is ../shared/anydice/corpus-dev.jsonl (684 real programs with AnyDice's own
answers; ``CHANCEKIT_ANYDICE_CORPUS`` points elsewhere). Each program runs once in a warm
worker process of each implementation, chancekit then dyceum, program by program (so
both see the same load); the time of a program is ``run(text)`` plus reading every
output's weights, measured inside the worker. A program past ``TIMEOUT`` seconds is
stopped and counted at ``TIMEOUT`` (a lower bound).

``CHANCEKIT_BENCH_SRC`` runs another chancekit source folder (e.g. a ``git archive HEAD
src`` snapshot, away from files being edited).

dyceum (``dyceum==0.5.0rc6``) is never a dependency of chancekit: it lives in its own
virtual environment, ``~/.cache/chancekit-bench/dyceum-0.5.0rc6`` (``CHANCEKIT_DYCEUM_PYTHON``
names another interpreter), created on first use with ``python -m venv`` and ``pip install
dyceum==0.5.0rc6``.

Goals (issue 20): total time >= 5x faster, p95 per program >= 10x faster, and every
program AnyDice itself gave up on (its 5-second page in ``output``) answered by chancekit
within 5 s.

    .venv/bin/python benchmarks/run.py anydice
    .venv/bin/python benchmarks/bench_anydice.py [--quick] [--chancekit-only]  # the slowest
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

from _harness import Result

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("CHANCEKIT_ANYDICE_CORPUS",
                             ROOT.parent / "shared" / "anydice" / "corpus-dev.jsonl"))
DYCEUM = "dyceum==0.5.0rc6"
VENV = Path.home() / ".cache" / "chancekit-bench" / "dyceum-0.5.0rc6"
TIMEOUT = 30.0          #: seconds before a program is stopped (each implementation)
ANYDICE_LIMIT = 5.0     #: AnyDice's own limit: chancekit answers those programs within it

WORKER = r'''
import json, sys, time
runner = sys.argv[1]
if runner == "chancekit":
    from chancekit.anydice import run as _run
    def run(text):
        return [(str(label), dict(d.weights)) for label, d in _run(text)]
else:
    from dyceum.anydice import run as _run
    def run(text):
        return [(str(label), dict(h.items())) for label, h in _run(text)]
run("output 1d6")  # warm: imports and first-call caches are not charged to a program
sys.stdout.write("ready\n"); sys.stdout.flush()
for line in sys.stdin:
    text = json.loads(line)
    t, c = time.perf_counter(), time.process_time()
    try:
        run(text)
        ok = True
    except Exception:
        ok = False
    sys.stdout.write(json.dumps({"ok": ok, "s": time.perf_counter() - t,
                                 "cpu": time.process_time() - c}) + "\n")
    sys.stdout.flush()
'''


def dyceum_python() -> str:
    """The interpreter of dyceum's own environment (created on first use)."""
    given = os.environ.get("CHANCEKIT_DYCEUM_PYTHON")
    if given:
        return given
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", DYCEUM], check=True)
    return str(py)


class Worker:
    def __init__(self, python: str, runner: str) -> None:
        self.cmd = [python, "-c", WORKER, runner]
        self.p: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = {**os.environ}
        if self.cmd[-1] == "chancekit":  # this checkout, or a snapshot of it
            env["PYTHONPATH"] = os.environ.get("CHANCEKIT_BENCH_SRC", str(ROOT / "src"))
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        assert self.p.stdout is not None
        if self.p.stdout.readline().strip() != "ready":
            raise RuntimeError(f"{self.cmd[-1]} worker failed to start")

    def time(self, program: str, timeout: float) -> tuple[float, str, float]:
        """(seconds, "ok" | "error" | "timeout", CPU seconds) of one program."""
        if self.p is None or self.p.poll() is not None:
            self.start()
        assert self.p is not None and self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(json.dumps(program) + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        line = self.p.stdout.readline() if ready else ""
        if not line:
            self.close()
            return timeout, "timeout", timeout
        r = json.loads(line)
        return r["s"], "ok" if r["ok"] else "error", r["cpu"]

    def close(self) -> None:
        if self.p is not None:
            self.p.kill()
            self.p.wait()
            self.p = None


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[int(0.95 * (len(s) - 1))]


#: every program's times of the last run, for a closer look (slowest, errors)
DETAIL = Path.home() / ".cache" / "chancekit-bench" / "anydice-last.json"


def measure(quick: bool = False, peer: bool = True) -> dict[str, Any]:
    """Time every corpus program (``quick``: every fifth) in chancekit and, with
    ``peer``, in dyceum; the per-program figures also go to :data:`DETAIL`."""
    rows = [json.loads(x) for x in CORPUS.read_text(encoding="utf-8").splitlines() if x]
    if quick:
        rows = rows[::5]
    ck = Worker(sys.executable, "chancekit")
    dy = Worker(dyceum_python(), "dyceum") if peer else None
    out: dict[str, Any] = {"programs": len(rows), "ck": [], "dy": [], "gave_up": []}
    try:
        for row in rows:
            s, how, cpu = ck.time(row["program"], TIMEOUT)
            out["ck"].append((row["id"], s, how, cpu))
            if not (row.get("output") or "").startswith("{"):  # AnyDice's 5-second page
                out["gave_up"].append((row["id"], s, how, cpu))
            if dy is not None:
                out["dy"].append((row["id"], *dy.time(row["program"], TIMEOUT)))
    finally:
        ck.close()
        if dy is not None:
            dy.close()
    DETAIL.parent.mkdir(parents=True, exist_ok=True)
    DETAIL.write_text(json.dumps(out, indent=1) + "\n")
    return out


def _version() -> str:
    return DYCEUM.replace("==", " ")


def cases(quick: bool = False) -> list[Result]:
    if not CORPUS.exists():
        return [Result("anydice", f"corpus not found: {CORPUS}", float("inf"),
                       met=False, goal="the corpus")]
    m = measure(quick)
    ck = [s for _, s, *_ in m["ck"]]
    dy = [s for _, s, *_ in m["dy"]]
    n = m["programs"]
    peer = _version()
    late = [(i, s, how) for i, s, how, _ in m["gave_up"]
            if how != "ok" or s > ANYDICE_LIMIT]
    worst = max((s for _, s, *_ in m["gave_up"]), default=0.0)
    errors = sum(r[2] != "ok" for r in m["ck"])
    cpu_ratio = sum(r[3] for r in m["dy"]) / max(sum(r[3] for r in m["ck"]), 1e-9)
    return [
        Result("anydice", f"{CORPUS.stem}, {n} programs: total", sum(ck), peer, sum(dy),
               goal=">= 5x dyceum", met=sum(dy) >= 5 * sum(ck),
               note=f"chancekit {errors} errors/timeouts, dyceum "
               f"{sum(r[2] != 'ok' for r in m['dy'])}; CPU time ratio {cpu_ratio:.2f}x"),
        Result("anydice", f"{CORPUS.stem}, {n} programs: p95 per program", p95(ck), peer,
               p95(dy), goal=">= 10x dyceum", met=p95(dy) >= 10 * p95(ck)),
        Result("anydice", f"the {len(m['gave_up'])} programs AnyDice gave up on: slowest",
               worst, goal=f"each answered <= {ANYDICE_LIMIT:g} s",
               met=not late if m["gave_up"] else None,
               note=f"{len(late)} not answered in time" if late else "all answered"),
    ]


def main() -> int:
    """``--quick``: every fifth program; ``--chancekit-only``: no dyceum (a look at the
    slowest programs)."""
    quick = "--quick" in sys.argv
    m = measure(quick, peer="--chancekit-only" not in sys.argv)
    for who in ("ck", "dy"):
        xs = [s for _, s, *_ in m[who]]
        if not xs:
            continue
        print(f"{who}: total {sum(xs):.2f} s, median {1000 * sorted(xs)[len(xs) // 2]:.2f} ms, "
              f"p95 {1000 * p95(xs):.1f} ms, max {max(xs):.2f} s")
    print("slowest chancekit:", sorted(m["ck"], key=lambda r: -r[1])[:8])
    print("slowest dyceum:", sorted(m["dy"], key=lambda r: -r[1])[:8])
    print("AnyDice gave up on:", m["gave_up"])
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
