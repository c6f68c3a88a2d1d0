"""Robustness run of the AnyDice language on real programs (docs/fuzzing.md).

    .venv/bin/python tools/fuzz_anydice.py [PROGRAMS ...] [--sample N] [--seed S]
        [--mutate] [--hang-shapes N] [--grammar N] [--timeout 5] [--clock cpu|wall]
        [--memory-mb 1024] [--jobs 2] [--report run.json] [--crashes DIR] [--src DIR]

PROGRAMS is a folder (every ``*.txt`` / ``*.dice`` file under it, e.g. a checkout's
``anydice.com/program/``), a tar file (``.tar``, ``.tar.gz``: every regular member), a
JSON-lines file (one object a line with ``program`` and optionally ``id``: the form of
../shared/anydice/corpus-dev.jsonl), or a git repository of posita/anydice-data given as
``git:PATH`` (its ``anydice.com/program/`` files at HEAD, read with ``git cat-file``; the
``fetch`` tool's mirror is such a repository). The programs are not part of chancekit.
``--mutate`` scales their numbers up (x2-x10, :func:`scale_numbers`); ``--hang-shapes N``
adds N generated programs (:class:`HangShapes`, issue 31); ``--grammar N`` adds N programs
drawn from the language's grammar (:class:`GrammarPrograms`).

Every program runs through :func:`chancekit.anydice.run_program` in a worker process whose
address space is capped (``RLIMIT_AS``, ``--memory-mb``, default 1 GB). Outcomes:

- ``ok``: outputs returned (``warned``: with at least one warning);
- ``error``: a clean :class:`~chancekit.errors.ChancekitError` other than a limit, whose
  message's first line is one line of at most 300 characters (``unclean-error`` if not);
- ``refused``: a :class:`~chancekit.errors.LimitError` (work past a limit, refused);
- ``crash``: any other exception (its type, message and innermost frames are kept);
- ``killed``: the worker died (a signal, the memory cap hit outside Python's reach);
- ``timeout``: no answer within ``--timeout`` seconds (the worker is killed). The clock
  is the worker's CPU time by default (``--clock cpu``: on a machine shared with other
  jobs, wall-clock time measures the neighbours too; a starved worker is still stopped
  at 6x the timeout of wall-clock time); ``--clock wall`` counts wall-clock time. Each
  timeout and kill is run again alone (unless ``--no-confirm``) and only a repeat counts.

Each result records both the wall-clock and the CPU seconds of the program.

Crashes, kills and timeouts are the failures (exit status 1). ``--crashes DIR`` writes
each failing program to ``DIR/<id>.dice`` with its cause beside it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import re
import select
import statistics
import subprocess
import sys
import tarfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

WORKER = r'''
import json, os, resource, sys, time, traceback
cap = int(sys.argv[1])
lifted = len(sys.argv) > 2  # --calibrate: the budget lifted, its units recorded
if cap > 0:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import chancekit
from chancekit.errors import ChancekitError, LimitError
from chancekit.anydice import run_program
from chancekit.limits import evaluation
sys.stdout.write(json.dumps({"ready": True}) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    t, c = time.perf_counter(), time.process_time()
    res = {"id": req["id"]}
    budget = None
    try:
        if lifted:
            with evaluation(limit=10**15, name="MAX_ANYDICE_WORK") as budget:
                r = run_program(req["program"])
        else:
            r = run_program(req["program"])
        res.update(outcome="ok", outputs=len(r.outputs), warnings=len(r.warnings),
                   outcomes=sum(len(d) for _, d in r.outputs))
    except LimitError as e:
        res.update(outcome="refused", error=str(e).split("\n")[0][:300], type=type(e).__name__)
    except ChancekitError as e:
        first = str(e).split("\n")[0]
        clean = bool(first.strip()) and len(first) <= 300
        res.update(outcome="error" if clean else "unclean-error", error=first[:300],
                   type=type(e).__name__)
    except BaseException as e:  # a crash: anything that is not a documented error
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(e.__traceback__)
        res.update(outcome="crash", type=type(e).__name__, error=str(e)[:300],
                   where=[f"{f.filename.rsplit('/src/', 1)[-1]}:{f.lineno} {f.name}"
                          for f in tb[-4:]])
    res["s"] = time.perf_counter() - t
    res["cpu"] = time.process_time() - c
    if budget is not None:
        res["units"] = budget.estimated
    sys.stdout.write(json.dumps(res) + "\n"); sys.stdout.flush()
'''


@dataclass
class Program:
    id: str
    text: str


# -- reading programs -------------------------------------------------------------------------
def read_programs(source: str) -> list[Program]:
    """Programs from a folder, a tar file, a JSON-lines file or ``git:REPO``."""
    if source.startswith("git:"):
        return _from_git(Path(source[4:]))
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".txt", ".dice")
                       and p.is_file())
        return [Program(str(p.relative_to(path).with_suffix("")).replace("/", "-"),
                        p.read_text("utf-8", "replace")) for p in files]
    if path.suffix == ".jsonl" or path.name.endswith(".jsonl.gz"):
        out = []
        with path.open(encoding="utf-8") as f:
            for i, line in enumerate(f):
                if line.strip():
                    row = json.loads(line)
                    out.append(Program(str(row.get("id", i)), row["program"]))
        return out
    if tarfile.is_tarfile(path):
        out = []
        with tarfile.open(path) as tar:
            for m in tar:
                if m.isfile():
                    data = tar.extractfile(m)
                    if data is not None:
                        out.append(Program(m.name.rsplit("/", 1)[-1].rsplit(".", 1)[0],
                                           data.read().decode("utf-8", "replace")))
        return out
    raise SystemExit(f"{source}: not a folder, .jsonl, tar file or git:REPO")


def _from_git(repo: Path, under: str = "anydice.com/program") -> list[Program]:
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "HEAD", under],
                             capture_output=True, text=True, check=True).stdout
    entries = []
    for line in listing.splitlines():
        meta, name = line.split("\t", 1)
        if name.endswith(".txt"):
            entries.append((name.rsplit("/", 1)[-1][:-4], meta.split()[2]))
    out = []
    with subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        for pid, sha in entries:
            cat.stdin.write(sha.encode() + b"\n")
            cat.stdin.flush()
            size = int(cat.stdout.readline().split()[2])
            data = cat.stdout.read(size)
            cat.stdout.read(1)
            out.append(Program(pid, data.decode("utf-8", "replace")))
        cat.stdin.close()
    return out


# -- generated programs -----------------------------------------------------------------------
class HangShapes:
    """Programs of the shape of issue 31's hang, seeded (``random.Random``): a function
    ``P:d OP Q:d loop N:n`` that replaces a die ``D`` by a call of a helper N times, the
    helper's arguments die-valued (``1dD``, ``dD``, ``D``, ``DdK``, so ``:n`` parameters
    expand over every outcome of ``D``, pairs of them when two are given), its body
    picking, subtracting, adding or rolling (``AdB``), sometimes through an inner function
    that returns a die (mixtures of mixtures), sometimes recursive; outputs for a few loop
    counts up to 60. Each round of such a loop can square the weights' width (a maximum of
    two copies of ``D``) or the number of outcomes (a difference): the work AnyDice, with
    floating-point weights, does not have. Every program must answer or be refused
    within AnyDice's 5 s."""

    BODIES = (
        "if A > B {{ result: A }}\n  result: B",
        "if A < B {{ result: A }}\n  result: B",
        "result: A - B",
        "result: A + B",
        "if A > B {{ result: A - B }}\n  result: B - A",
        "result: (A > B) * A + (A <= B) * B",
        "result: [highest of A and B]",
        "result: [lowest of A and B] + {k}",
        "if A = B {{ result: A }}\n  result: [{inner} A B]",
        "result: [{inner} A B]",
        "if A >= {k} {{ result: A + [{inner} A B] }}\n  result: A",
        "result: AdB",
        "result: (A > B) + (A = B)",
    )
    INNER = (
        "result: dA",
        "result: dA + dB",
        "result: 1dA - 1dB",
        "if A > B {{ result: dA }}\n  result: dB",
        "result: [highest 1 of 2dA]",
        "if A = {k} {{ result: A + [{name} d{k} B] }}\n  result: A",
        "result: A",
    )
    ARGS = ("1dD", "1dD", "D", "dD", "D", "P", "Q", "1dQ", "D + 1", "{k}dD", "(D > {k})dD",
            "D - Q", "[highest 1 of 2dD]")
    STEPS = ("D: [{h} {a} {b}]", "D: [{h} {a} {b}] - Q", "D: [{h} {a} {b}] + [{h} {a} {b}]",
             "D: [{h} {a} {b}]\n    D: [{h} D D]", "D: [{h} {a} {b}]\n    D: 1dD")

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def die(self) -> str:
        r = self.rng
        return r.choice([f"d{r.randint(2, 20)}", f"{r.randint(1, 4)}d{r.randint(2, 12)}",
                         "d{1,2,3,4}", f"d{{0,{r.randint(1, 5)}}}", "[highest 1 of 2d6]",
                         f"d{r.randint(2, 8)} - d{r.randint(2, 8)}"])

    def program(self) -> str:
        r = self.rng
        k = r.randint(1, 6)
        inner = r.choice(["helper inner", "roll inner"])
        kinds = [r.choice("nnnd") for _ in range(2)]
        ik = [r.choice("nnd") for _ in range(2)]
        lines = []
        if r.random() < 0.3:
            lines.append(f'set "maximum function depth" to {r.randint(2, 20)}')
        if r.random() < 0.2:
            lines.append(f'set "explode depth" to {r.randint(1, 6)}')
        inner_body = r.choice(self.INNER).format(k=k, name=inner)
        lines.append(f"function: {inner} A:{ik[0]} B:{ik[1]} {{\n  {inner_body}\n}}")
        body = r.choice(self.BODIES).format(k=k, inner=inner)
        lines.append(f"function: helper A:{kinds[0]} B:{kinds[1]} {{\n  {body}\n}}")
        steps = []
        for _ in range(r.choice((1, 1, 1, 2))):
            a = _paren(r.choice(self.ARGS).format(k=r.randint(1, 4)))
            b = _paren(r.choice(self.ARGS).format(k=r.randint(1, 4)))
            steps.append(r.choice(self.STEPS).format(h="helper", a=a, b=b))
        step = "\n    ".join(steps)
        start = r.choice(["P", "P - Q", "P + Q", "1dP", "d{0}"])
        finish = r.choice(["D", "D", "D - Q", "D > Q", "[highest 1 of D and Q]"])
        lines.append(f"function: P:d minus Q:d loop N:n {{\n  D: {start}\n"
                     f"  loop I over {{1..N}} {{\n    {step}\n  }}\n  result: {finish}\n}}")
        p, q = _paren(self.die()), _paren(self.die())
        counts = sorted({r.randint(1, 60) for _ in range(r.randint(1, 4))})
        if r.random() < 0.5:
            counts = [45, 50, 55]
        for n in counts:
            lines.append(f'output [{p} minus {q} loop {n}] named "loop {n}"')
        return "\n".join(lines) + "\n"

    def programs(self, n: int) -> list[Program]:
        return [Program(f"hang-{i}", self.program()) for i in range(n)]


class GrammarPrograms:
    """Random AnyDice programs from the language's grammar (issue 31's third generator,
    unlike the real programs, their scaled mutations and the fixed :class:`HangShapes`):
    each program defines 1-4 functions whose parameters are drawn from ``:n``, ``:d``,
    ``:s`` and untyped, whose bodies hold assignments, ``if``/``else`` ladders, ``loop``s
    over ranges whose bounds are parameters or expressions (so a die-valued argument of a
    ``:n`` parameter makes a loop count of each of its outcomes), calls of the functions
    defined before (nested, with die-valued and sequence arguments, sometimes recursive
    with the depth setting), sequence positions (``@``), lengths (``#``) and the library
    (``[highest K of D]``, ``[count S in D]``, ``[explode D]``, ``[sort S]``, ...).
    Expressions are typed (number, sequence, die) and built to a random depth; numbers
    are drawn log-uniform (mostly small, sometimes hundreds or thousands), so that a run
    meets both the quick and the huge. Seeded (``random.Random``); every program must
    answer, be refused, or be a clean error, within AnyDice's 5 s of CPU."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # -- leaves ---------------------------------------------------------------------------
    def num(self, hi: int = 12) -> int:
        """Log-uniform in 1..hi, sometimes up to 60x more."""
        r = self.rng
        top = hi * (r.choice((1, 1, 1, 1, 3, 10, 60)))
        return max(1, round(2 ** (r.random() * top.bit_length())) % (top + 1))

    def var(self, env: dict[str, str], kind: str) -> str | None:
        names = [n for n, k in env.items() if k == kind]
        return self.rng.choice(names) if names else None

    # -- typed expressions ----------------------------------------------------------------
    def expr(self, kind: str, env: dict[str, str], depth: int, funcs: list[tuple]) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            v = self.var(env, kind) if r.random() < 0.6 else None
            if v is not None:
                return v
            if kind == "n":
                return str(self.num())
            if kind == "s":
                return r.choice([f"{{1..{self.num()}}}", f"{{{self.num()},{self.num()}}}",
                                 f"{{{self.num()}:{self.num(4)}}}", "{}"])
            return r.choice([f"d{self.num(20)}", f"{self.num(4)}d{self.num(12)}",
                             f"d{{{self.num()},{self.num()},{self.num()}}}"])
        d = depth - 1
        if funcs and r.random() < 0.3:
            call = self.call(env, d, funcs, kind)
            if call is not None:
                return call
        if kind == "n":
            return r.choice([
                lambda: f"{self.expr('n', env, d, funcs)} {r.choice('+-*/')} "
                        f"{self.expr('n', env, d, funcs)}",
                lambda: f"#{self.expr('s', env, d, funcs)}",
                lambda: f"{self.num(4)}@{self.expr('s', env, d, funcs)}",
                lambda: f"({self.expr('n', env, d, funcs)} {r.choice(['=', '>', '<', '>='])} "
                        f"{self.expr('n', env, d, funcs)})",
                lambda: f"[absolute -{self.expr('n', env, d, funcs)}]",
            ])()
        if kind == "s":
            return r.choice([
                lambda: f"{{{self.expr('n', env, d, funcs)}..{self.expr('n', env, d, funcs)}}}",
                lambda: f"{{{self.expr('s', env, d, funcs)}, {self.expr('n', env, d, funcs)}}}",
                lambda: f"[sort {self.expr('s', env, d, funcs)}]",
                lambda: f"[reverse {self.expr('s', env, d, funcs)}]",
                lambda: f"{{{self.expr('n', env, d, funcs)}:{self.num(5)}}}",
            ])()
        return r.choice([
            lambda: f"{self.expr('n', env, d, funcs)}d{self.expr('n', env, d, funcs)}",
            lambda: f"({self.expr('d', env, d, funcs)})d{self.num(20)}",      # die-valued count
            lambda: f"{self.num(6)}d({self.expr('d', env, d, funcs)})",       # dice of a die
            lambda: f"d{self.expr('s', env, d, funcs)}",
            lambda: f"{self.expr('d', env, d, funcs)} {r.choice('+-*')} "
                    f"{self.expr(r.choice('nd'), env, d, funcs)}",
            lambda: f"[highest {self.num(4)} of {self.expr('d', env, d, funcs)}]",
            lambda: f"[lowest {self.num(4)} of {self.num(8)}d{self.num(20)}]",
            lambda: f"[highest of {self.expr('d', env, d, funcs)} and "
                    f"{self.expr('d', env, d, funcs)}]",
            lambda: f"[count {self.expr('s', env, d, funcs)} in {self.expr('d', env, d, funcs)}]",
            lambda: f"[explode {self.expr('d', env, d, funcs)}]",
            lambda: f"({self.expr('d', env, d, funcs)} {r.choice(['>', '=', '<='])} "
                    f"{self.expr(r.choice('nd'), env, d, funcs)})",
            lambda: f"{self.num(4)}@{self.num(5)}d{self.num(12)}",
        ])()

    def call(self, env: dict[str, str], depth: int, funcs: list[tuple],
             want: str) -> str | None:
        _name, params, returns = self.rng.choice(funcs)
        if returns != want and not (want == "d" and returns == "n"):
            return None
        parts = []
        for word, kind in params:
            if kind is None:
                parts.append(word)
            else:  # a die where a :n or :s is wanted: expanded (the class of issue 31)
                arg_kind = {"n": self.rng.choice("nnd"), "s": self.rng.choice("ssd"),
                            "d": "d", "?": self.rng.choice("nsd")}[kind]
                parts.append(_paren(self.expr(arg_kind, env, depth, funcs)))
        return "[" + " ".join(parts) + "]"

    # -- statements -----------------------------------------------------------------------
    def block(self, env: dict[str, str], depth: int, funcs: list[tuple], returns: str,
              indent: str) -> list[str]:
        r = self.rng
        lines: list[str] = []
        for _ in range(r.randint(1, 3)):
            pick = r.random()
            if pick < 0.35:
                kind = r.choice("nnsd")
                name = r.choice("XYZW")
                lines.append(f"{indent}{name}: {self.expr(kind, env, depth, funcs)}")
                env = {**env, name: kind}
            elif pick < 0.6 and depth > 0:
                bound = self.var(env, "n") or str(self.num(20))
                lo = r.choice(["1", "1", "0", str(self.num(3))])
                var = r.choice("IJK")
                acc = r.choice("ST")
                lines.append(f"{indent}{acc}: 0")
                lines.append(f"{indent}loop {var} over {{{lo}..{bound}}} {{")
                inner = {**env, var: "n", acc: "n"}
                op = r.choice(["+", "+", "*", "-"])
                step = self.expr(r.choice("nd"), inner, depth - 1, funcs)
                lines.append(f"{indent}  {acc}: {acc} {op} {step}")
                lines.append(f"{indent}}}")
                env = {**env, acc: "d"}
            elif pick < 0.85:
                cond = self.expr("n", env, depth - 1, funcs)
                lines.append(f"{indent}if {cond} {{")
                lines += [f"{indent}  result: {self.expr(returns, env, depth - 1, funcs)}"]
                if r.random() < 0.5:
                    lines.append(f"{indent}}} else {{")
                    lines.append(f"{indent}  result: {self.expr(returns, env, depth - 1, funcs)}")
                lines.append(f"{indent}}}")
        lines.append(f"{indent}result: {self.expr(returns, env, depth, funcs)}")
        return lines

    def program(self) -> str:
        r = self.rng
        lines: list[str] = []
        if r.random() < 0.3:
            lines.append(f'set "maximum function depth" to {r.randint(2, 30)}')
        funcs: list[tuple] = []
        for f in range(r.randint(1, 4)):
            params: list[tuple[str, str | None]] = [(f"f{'abcd'[f]}", None)]
            env: dict[str, str] = {}
            for p in range(r.randint(1, 3)):
                kind = r.choice(["n", "n", "d", "s", "?"])
                pname = "ABC"[p]
                params.append((f"{pname}:{kind}" if kind != "?" else pname, kind))
                env[pname] = "n" if kind == "?" else kind
                if p == 0 and r.random() < 0.6:
                    params.append((r.choice(["and", "over", "vs", "with"]), None))
            returns = r.choice("nd")
            # the function itself is callable in its body (recursion; the depth cuts it)
            me = (" ".join(w for w, _ in params), params, returns)
            body = self.block(env, r.randint(1, 3),
                              funcs + ([me] if r.random() < 0.3 else []), returns, "  ")
            lines.append(f"function: {me[0]} {{")
            lines += body
            lines.append("}")
            funcs.append((me[0].split()[0], params, returns))
        for i in range(r.randint(1, 4)):
            kind = r.choice("dd")
            text = self.expr(kind, {}, r.randint(1, 4), funcs)
            if r.random() < 0.3:
                text = f"[{funcs[-1][0]} " + " ".join(
                    _paren(self.expr({"?": "n"}.get(k, k) if k else "n", {}, 2, funcs))
                    if k else w for w, k in funcs[-1][1][1:]) + "]"
            lines.append(f'output {text} named "o{i}"')
        return "\n".join(lines) + "\n"

    def programs(self, n: int) -> list[Program]:
        return [Program(f"gram-{i}", self.program()) for i in range(n)]


def _paren(text: str) -> str:
    return f"({text})" if " " in text else text


_NUMBER = re.compile(r'("[^"]*"|\\[^\\]*\\)|(\d+)')  # (names hold no digits)


def scale_numbers(text: str, rng: random.Random, lo: int = 2, hi: int = 10) -> str:
    """``text`` with its number literals scaled up (issue 31's mutation run): one factor
    ``k`` in ``lo..hi`` a program, each number (not in a string or a ``\\comment\\``)
    multiplied by ``k`` with probability 1/2, so that ``3d6`` may become ``30d6``,
    ``3d60`` or ``30d60`` and a loop ``{1..6}`` a loop ``{1..42}``."""
    k = rng.randint(lo, hi)

    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        return str(int(m.group(2)) * k) if rng.random() < 0.5 else m.group(2)

    return _NUMBER.sub(one, text)


def mutate(programs: list[Program], seed: int) -> list[Program]:
    """Every program with its numbers scaled (:func:`scale_numbers`), seeded."""
    rng = random.Random(seed)
    return [Program(f"{p.id}-x", scale_numbers(p.text, rng)) for p in programs]


# -- running ----------------------------------------------------------------------------------
#: with ``--clock cpu``, a program is also stopped past this many times the timeout in
#: wall-clock time (a worker starved of CPU by its neighbours still ends)
WALL_BACKSTOP = 6


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Worker:
    """One worker process, restarted after a kill or a timeout."""

    def __init__(self, memory: int, clock: str = "cpu", src: Path = ROOT / "src",
                 calibrate: bool = False) -> None:
        self.memory = memory
        self.calibrate = calibrate
        self.clock = clock
        self.src = src
        self.p: subprocess.Popen[str] | None = None
        self.restarts = 0

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(self.src)}
        argv = [sys.executable, "-c", WORKER, str(self.memory)]
        if self.calibrate:
            argv.append("calibrate")
        self.p = subprocess.Popen(argv,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        assert self.p.stdout is not None
        ready = self.p.stdout.readline()  # imports done: not charged to the first program
        if not ready:
            raise SystemExit("the worker did not start: does `import chancekit.anydice` "
                             "work under the memory cap?")
        self.restarts += 1

    def stop(self) -> None:
        if self.p is not None:
            self.p.kill()
            self.p.wait()
            self.p = None

    def ask(self, prog: Program, timeout: float) -> dict[str, Any]:
        if self.p is None or self.p.poll() is not None:
            self.start()
        assert self.p is not None and self.p.stdin is not None and self.p.stdout is not None
        t0 = time.perf_counter()
        try:
            self.p.stdin.write(json.dumps({"id": prog.id, "program": prog.text}) + "\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return {"id": prog.id, "outcome": "killed", "error": "the worker had died"}
        cpu0 = _cpu_seconds(self.p.pid)
        while True:
            ready, _, _ = select.select([self.p.stdout], [], [], 0.05)
            if ready:
                break
            wall = time.perf_counter() - t0
            cpu = _cpu_seconds(self.p.pid) - cpu0
            over = cpu > timeout if self.clock == "cpu" else wall > timeout
            if over or wall > WALL_BACKSTOP * timeout:
                self.stop()
                return {"id": prog.id, "outcome": "timeout", "s": wall, "cpu": cpu,
                        "error": f"no answer within {timeout:g} s of "
                        f"{'CPU' if self.clock == 'cpu' and over else 'wall-clock'} time"}
        line = self.p.stdout.readline()
        if not line:
            code = self.p.wait()
            self.p = None
            return {"id": prog.id, "outcome": "killed", "s": time.perf_counter() - t0,
                    "error": f"the worker died (exit status {code})"}
        return json.loads(line)


def run_all(programs: list[Program], *, timeout: float, memory: int, jobs: int,
            clock: str = "cpu", src: Path = ROOT / "src", progress: bool = True,
            calibrate: bool = False) -> list[dict[str, Any]]:
    """Every program through ``jobs`` workers (one thread each), in the given order."""
    from concurrent.futures import ThreadPoolExecutor
    from queue import Empty, SimpleQueue

    todo: SimpleQueue[int] = SimpleQueue()
    for i in range(len(programs)):
        todo.put(i)
    results: list[dict[str, Any] | None] = [None] * len(programs)
    done = [0]
    t0 = time.perf_counter()

    def loop() -> None:
        w = Worker(memory, clock, src, calibrate)
        try:
            while True:
                try:
                    i = todo.get_nowait()
                except Empty:
                    return
                results[i] = w.ask(programs[i], timeout)
                done[0] += 1
                if progress and done[0] % 500 == 0:
                    print(f"  {done[0]}/{len(programs)} in {time.perf_counter() - t0:.0f} s",
                          file=sys.stderr, flush=True)
        finally:
            w.stop()

    with ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(loop) for _ in range(jobs)]:
            f.result()
    return [r for r in results if r is not None]


FAILURES = ("crash", "killed", "timeout", "unclean-error")


def calibration_report(results: list[dict[str, Any]], late: float = 5.0,
                       quick: float = 2.0) -> dict[str, list[str]]:
    """What the default budget (``MAX_ANYDICE_WORK``) would do with the programs of a
    ``--calibrate`` run (units recorded with the budget lifted): CPU nanoseconds a unit of
    those that ran at least 0.2 s; ``late``: programs past the budget whose refusal would
    come after ``late`` s (the CPU time at which their units reach it, work taken as
    uniform); ``false``: programs past the budget whose whole work took under ``quick`` s.
    Prints a table and returns those lists."""
    from chancekit.limits import MAX_ANYDICE_WORK

    runs = [r for r in results if r.get("units") and r.get("cpu") is not None]
    rates = sorted(r["cpu"] / r["units"] * 1e9 for r in runs if r["cpu"] >= 0.2)
    out: dict[str, list[str]] = {"late": [], "false": []}
    for r in runs:
        if r["units"] > MAX_ANYDICE_WORK:
            at = r["cpu"] * MAX_ANYDICE_WORK / r["units"]
            if at > late:
                out["late"].append(r["id"])
            if r["cpu"] < quick:
                out["false"].append(r["id"])
    print(f"\ncalibration: {len(runs)} programs with units; ns a unit over the "
          f"{len(rates)} that ran 0.2 s or more:")
    if rates:
        q = [rates[int(f * (len(rates) - 1))] for f in (0, 0.5, 0.9, 0.99, 1)]
        print("min {:.1f}, median {:.1f}, p90 {:.1f}, p99 {:.1f}, max {:.1f}".format(*q))
    slow = [r for r in runs if r["cpu"] >= 0.2]
    for r in sorted(slow, key=lambda r: -r["cpu"] / r["units"])[:10]:
        print(f"  {r['id']}: {r['cpu']:.2f} s, {r['units'] / 1e6:.1f} M units, "
                  f"{r['cpu'] / r['units'] * 1e9:.0f} ns a unit ({r['outcome']})")
    print(f"past MAX_ANYDICE_WORK = {MAX_ANYDICE_WORK:,}: "
          f"{sum(1 for r in runs if r['units'] > MAX_ANYDICE_WORK)}; refused after {late:g} s: "
          f"{out['late'] or 'none'}; refused with the whole work under {quick:g} s: "
          f"{out['false'] or 'none'}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sources", nargs="*", metavar="PROGRAMS",
                    help="a folder, a .tar(.gz), a .jsonl, or git:REPO")
    ap.add_argument("--mutate", action="store_true",
                    help="scale the numbers of every program read (after --sample) by a "
                    "factor of 2-10 (seeded by --seed): issue 31's mutation run")
    ap.add_argument("--hang-shapes", type=int, default=0, metavar="N",
                    help="also run N generated programs of the hang's shape (die-valued "
                    "arguments in loops, nested calls; class HangShapes, seeded by --seed)")
    ap.add_argument("--grammar", type=int, default=0, metavar="N",
                    help="also run N programs generated from the language's grammar (loops "
                    "with die-valued bounds, nested and recursive calls, sequence "
                    "parameters; class GrammarPrograms, seeded by --seed)")
    ap.add_argument("--sample", type=int, default=None, metavar="N",
                    help="run N programs drawn at random (--seed) instead of all")
    ap.add_argument("--seed", type=int, default=20, help="seed of --sample (default 20)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per program (5)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="what --timeout measures: the worker's CPU time (default: fair on "
                    "a shared machine; AnyDice's own limit and posita/anydice-data's "
                    "harvest count CPU time too) or wall-clock time")
    ap.add_argument("--memory-mb", type=int, default=1024,
                    help="address-space cap of the worker, MB (1024; 0: none)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (2)")
    ap.add_argument("--no-confirm", dest="confirm", action="store_false",
                    help="do not re-run timeouts and kills alone")
    ap.add_argument("--slowest", type=int, default=10, help="list the N slowest (10)")
    ap.add_argument("--src", type=Path, default=ROOT / "src", metavar="DIR",
                    help="the chancekit source folder to run (default: this checkout's src; "
                    "a snapshot, e.g. `git archive HEAD src | tar -x -C DIR`, keeps a long "
                    "run off files being edited)")
    ap.add_argument("--calibrate", action="store_true",
                    help="run each program with the work budget lifted and record its units "
                    "(the limits' estimates): report CPU nanoseconds a unit, the programs "
                    "the default budget would refuse late (past 5 s) and those it would "
                    "refuse though their whole work took under 2 s")
    ap.add_argument("--report", metavar="FILE.json", help="write every result as JSON")
    ap.add_argument("--crashes", metavar="DIR", help="write each failing program there")
    args = ap.parse_args(argv)

    programs: list[Program] = []
    for s in args.sources:
        programs += read_programs(s)
    total_read = len(programs)
    if args.sample is not None and args.sample < len(programs):
        programs = random.Random(args.seed).sample(programs, args.sample)
    if args.mutate:
        programs = mutate(programs, args.seed)
    if args.hang_shapes:
        programs += HangShapes(args.seed).programs(args.hang_shapes)
    if args.grammar:
        programs += GrammarPrograms(args.seed).programs(args.grammar)
    if not programs:
        ap.error("no programs: give PROGRAMS, --hang-shapes N or --grammar N")
    by_id = {p.id: p for p in programs}
    memory = args.memory_mb * 1024 * 1024
    print(f"# AnyDice robustness run — {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} "
          f"UTC — {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}")
    print(f"{len(programs)} programs (of {total_read} read), timeout {args.timeout:g} s "
          f"({args.clock} time), "
          f"address space {args.memory_mb} MB, {args.jobs} workers")
    t0 = time.perf_counter()
    results = run_all(programs, timeout=args.timeout, memory=memory, jobs=args.jobs,
                      clock=args.clock, src=args.src, calibrate=args.calibrate)
    wall = time.perf_counter() - t0
    if args.confirm:
        again = [r for r in results if r["outcome"] in ("timeout", "killed")]
        if again:
            print(f"re-running {len(again)} timeouts/kills alone to confirm", file=sys.stderr)
            second = {r["id"]: r for r in run_all([by_id[r["id"]] for r in again],
                                                  timeout=args.timeout, memory=memory,
                                                  jobs=1, clock=args.clock,
                                                  src=args.src, progress=False,
                                                  calibrate=args.calibrate)}
            for i, r in enumerate(results):
                if r["id"] in second:
                    results[i] = {**second[r["id"]], "first": r["outcome"]}
    counts = Counter(r["outcome"] for r in results)
    warned = sum(1 for r in results if r["outcome"] == "ok" and r.get("warnings"))
    times = sorted(r["s"] for r in results if r.get("s") is not None)
    print(f"\nwall time {wall:.0f} s; per program: median {1000 * statistics.median(times):.1f}"
          f" ms, p95 {1000 * times[int(0.95 * (len(times) - 1))]:.0f} ms, max "
          f"{times[-1]:.2f} s" if times else "")
    print("\n| outcome | programs |\n|---|---:|")
    for k in ("ok", "error", "refused", *FAILURES):
        extra = f" ({warned} with a warning)" if k == "ok" and warned else ""
        print(f"| {k} | {counts.get(k, 0)}{extra} |")
    refused = sorted(r["cpu"] for r in results
                     if r["outcome"] == "refused" and r.get("cpu") is not None)
    if refused:  # when the refusals came (issue 31: none past 5 s of CPU)
        edges = (0.01, 0.1, 0.5, 1, 2, 5)
        print("\nrefusals by CPU seconds before them:")
        print("| CPU s | refusals |\n|---|---:|")
        lo = 0.0
        for hi in (*edges, float("inf")):
            n = sum(1 for c in refused if lo <= c < hi)
            print(f"| {lo:g}-{hi:g} | {n} |")
            lo = hi
        print(f"median {refused[len(refused) // 2]:.3f} s, max {refused[-1]:.2f} s")
    if args.calibrate:
        calibration_report(results)
    errors = Counter(r.get("error", "").split(" at line")[0][:70]
                     for r in results if r["outcome"] in ("error", "refused"))
    print("\nmost common errors:")
    for msg, n in errors.most_common(12):
        print(f"  {n:5d}  {msg}")
    print(f"\n{args.slowest} slowest:")
    print("| program | outcome | seconds | cpu |\n|---|---|---:|---:|")
    for r in sorted(results, key=lambda r: -(r.get("s") or 0))[:args.slowest]:
        cpu = f"{r['cpu']:.2f}" if r.get("cpu") is not None else "-"
        print(f"| {r['id']} | {r['outcome']} | {r.get('s', 0):.2f} | {cpu} |")
    bad = [r for r in results if r["outcome"] in FAILURES]
    if bad:  # grouped by cause: one line each, with up to 5 programs
        causes: dict[str, list[str]] = {}
        for r in bad:
            where = " <- ".join(r.get("where", [])[-2:])
            cause = (f"{r['outcome']} {r.get('type', '')}: {r.get('error', '')[:120]}"
                     f"{'  at ' + where if where else ''}")
            causes.setdefault(cause, []).append(r["id"])
        print(f"\n{len(bad)} failures, {len(causes)} causes:")
        for cause, ids in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(ids):5d}  {cause}  [{', '.join(ids[:5])}"
                  f"{', ...' if len(ids) > 5 else ''}]")
    if args.crashes and bad:
        d = Path(args.crashes)
        d.mkdir(parents=True, exist_ok=True)
        for r in bad:
            (d / f"{r['id']}.dice").write_text(by_id[r["id"]].text, encoding="utf-8")
            (d / f"{r['id']}.cause.json").write_text(json.dumps(r, indent=1) + "\n")
        print(f"failing programs written to {d}/")
    if args.report:
        Path(args.report).write_text(json.dumps(
            {"programs": len(programs), "timeout": args.timeout, "memory_mb": args.memory_mb,
             "counts": dict(counts), "results": results}, indent=1) + "\n")
    print(f"\n{len(programs)} programs: {counts.get('ok', 0)} ok, {counts.get('error', 0)} "
          f"clean errors, {counts.get('refused', 0)} refused, {len(bad)} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
