"""The pages without numpy (issue #28, item 4): every web job (``chancekit.web.compute.JOBS``)
on the inputs of the pages' examples, run in a fresh process with numpy importable (the
vectorised paths) and in one where it is not (a ``sys.meta_path`` finder refuses numpy
and matplotlib before chancekit is imported: the pure-Python twins, as in Pyodide).

``PAGE_EXAMPLES`` is the list ``tests/web/test_no_numpy.py`` checks (the answers must be the
same JSON, timings aside); :func:`run_child` runs some of them in a child process and returns
each answer with its CPU time. ``cases()`` reports, per job, the CPU seconds of the pure
paths against the numpy ones (ratio = numpy time / pure time: below 1, the pure path is
slower by 1/ratio).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result

SRC = Path(__file__).resolve().parents[1] / "src"

_DICE = [("4d6kh3", "avrae"), ("2d20kl1", "avrae"), ("1d20+5 >= 15", "avrae"),
         ("10d10cs>=8", "avrae"), ("10d10cs>=8df1", "avrae"), ("10d10>=8", "roll20"),
         ("4d6k3", "roll20"), ("1d8!", "avrae"), ("4dF", "avrae")]
_ANYDICE = [
    'output [highest 3 of 4d6] named "4d6, drop the lowest"\n',
    'output [highest 1 of 2d20] named "advantage"\noutput d20 named "one d20"\n'
    'output [lowest 1 of 2d20] named "disadvantage"\n',
    'function: attack ROLL:n vs AC:n {\n  if ROLL = 20 { result: 2 }\n  if ROLL + 5 >= AC '
    '{ result: 1 }\n  result: 0\n}\nloop AC over {12, 15, 18} {\n  output [attack d20 vs AC] '
    'named "hits vs AC [AC]"\n}\n',
    'set "explode depth" to 3\noutput [explode d6] named "exploding d6"\n',
    'output [count {5,6} in 6d6] named "successes on 6d6 (5+)"\n',
    'function: top two of ROLL:s {\n  result: 1@ROLL + 2@ROLL\n}\n'
    'output [top two of 3d6] named "the two highest of 3d6"\n',
    'loop N over {1..5} {\n  output [highest 1 of Nd6] named "best of [N]d6"\n}\n',
]
_SYSTEMS = ["dice", "deck", "generalized-deck:1,6", "dynamic-dice:0.355"]  # fairness.html
_CHIPS = ["prd:0.25", "history-reroll:4,4", "error-accumulator:0.25", "deck+no-repeat",
          "pity:0.1,5,0.1,10"]  # fairness.js's other presets; the odd ones are refused exactly
_MARKOV_CHIPS = ["prd:0.25", "pity:0.25", "pity:0.1,5,0.1,10", "pity:0.006,74,0.06,90",
                 "gacha:0.006,74,0.06,90", "error-accumulator:0.25"]  # markov.js
_TABLE = {"notation": "", "loot": "", "title": "", "row_die": 20, "check_die": 20,
          "dialect": "avrae", "two_stage": False}


def _fair(systems: list[str], method: str = "exact", trials: int = 10_000) -> dict[str, Any]:
    return {"systems": systems, "values": 6, "samples": 25, "method": method,
            "trials": trials, "seed": 1}


#: (name, job, request as the app's parser hands it to the job): the pages' examples and
#: defaults (static/*.html and *.js); a name with "(refused)" expects an error answer
PAGE_EXAMPLES: list[tuple[str, str, dict[str, Any]]] = [
    *[(f"dist {t} ({d})", "dist", {"expressions": [{"label": "", "text": t}], "dialect": d})
      for t, d in _DICE],
    ("dist two lines", "dist", {"expressions": [{"label": "a", "text": "4d6kh3"},
                                                {"label": "b", "text": "3d6"}],
                                "dialect": "avrae"}),
    ("estimate 4d6kh3", "estimate", {"expressions": [{"label": "", "text": "4d6kh3"}],
                                     "dialect": "avrae", "samples": 10_000, "seed": 7,
                                     "budget_s": 600.0}),
    ("pool largest set 5d6", "pool", {"kind": "largest-set", "dice": "5d6"}),
    ("pool straight 5d6", "pool", {"kind": "straight", "dice": "5d6"}),
    ("pool nco 5 vs 3", "pool", {"kind": "nco", "action": 5, "danger": 3}),
    ("pool risk 5 vs 3", "pool", {"kind": "risk", "action": 5, "danger": 3}),
    ("pool genesys", "pool", {"kind": "genesys", "pool": "2A1P vs 2D"}),
    *[(f"anydice example {i}", "anydice", {"program": p}) for i, p in enumerate(_ANYDICE)],
    ("markov usage die", "markov", {"kind": "usage-die", "upto": None,
                                    "ladder": "12,10,8,6,4", "down": "1,2"}),
    ("markov race", "markov", {"kind": "race", "upto": None, "hp": 30, "damage": "2d6",
                               "hp2": None, "order": "simultaneous"}),
    *[(f"markov race two sides {o}", "markov",
       {"kind": "race", "upto": None, "hp": 30, "damage": "2d6", "hp2": 25,
        "damage2": "1d8+2", "order": o}) for o in ("simultaneous", "alternating")],
    *[(f"markov first success {s}", "markov",
       {"kind": "first-success", "upto": None, "system": s, "value": ""})
      for s in _MARKOV_CHIPS],
    ("markov until 6,6", "markov", {"kind": "until", "upto": None, "die": "1d6",
                                    "sequence": "6,6"}),
    ("gacha 3 copies", "gacha", {"system": "gacha:0.006,74,0.06,90", "value": None,
                                 "copies": 3, "pity": 37, "guaranteed": True, "misses": None,
                                 "pulls": 160, "price": 160.0, "refund": None,
                                 "budget": 28800.0}),
    ("gacha weapon banner", "gacha", {"system": "gacha:0.007,63,0.07,80,0.75,fate=1,"
                                      "chosen=0.5", "value": None, "copies": 2, "pity": None,
                                      "guaranteed": False, "misses": None, "pulls": None,
                                      "price": None, "refund": None, "budget": None}),
    ("table 3d6", "table", {**_TABLE, "source": "notation", "notation": "3d6"}),
    ("table 3d6 two stages", "table", {**_TABLE, "source": "notation", "notation": "3d6",
                                       "two_stage": True}),
    ("table loot", "table", {**_TABLE, "source": "loot",
                             "loot": "sword=5\nshield=3\npotion=12"}),
    ("fairness exact", "fairness", _fair(_SYSTEMS)),
    ("fairness exact presets", "fairness", _fair(_CHIPS[::2])),
    *[(f"fairness exact {c} (refused)", "fairness", _fair([c])) for c in _CHIPS[1::2]],
    ("fairness montecarlo", "fairness", _fair(_SYSTEMS, "montecarlo")),
    ("fairness montecarlo presets", "fairness", _fair(_CHIPS, "montecarlo", 2_000)),
    ("tune", "tune", {"systems": ["generalized-deck", "dynamic-dice"], "values": 6,
                      "samples": 25, "min_entropy": 0.9, "floor": "average", "top": 10}),
    ("tune all families", "tune", {"systems": ["dice", "deck", "generalized-deck",
                                               "dynamic-dice"], "values": 6, "samples": 10,
                                   "min_entropy": 0.5, "floor": "every", "top": 3}),
    ("roll", "roll", {"text": "4d6kh3", "seed": 2026, "stream": None, "n": 6,
                      "streams": ["chargen", "loot", "combat"], "demo_n": 6,
                      "dialect": "avrae"}),
    ("roll named stream", "roll", {"text": "1d20+5", "seed": "my campaign", "stream": "loot",
                                   "n": 6, "streams": [], "demo_n": 6, "dialect": "avrae"}),
]

#: the child: refuses numpy and matplotlib when asked (before chancekit is imported), runs
#: the examples named on stdin, prints one JSON line
CHILD = r'''
import json, sys, time

BLOCKED = ("numpy", "matplotlib")
tried = []


class NoNumpy:
    """A finder that refuses numpy and matplotlib, as a Pyodide without them would."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            tried.append(name)
            raise ImportError(f"No module named {name!r} (refused by the test)")
        return None


job = json.loads(sys.stdin.read())
if job["block"]:
    sys.meta_path.insert(0, NoNumpy())
from chancekit.web.compute import JOBS, JobError

TIMING = ("elapsed_ms", "run_ms", "ms")


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


out = []
for name, kind, req in job["examples"]:
    t0 = time.process_time()
    try:
        answer = {"ok": strip(JOBS[kind](req, lambda *a: None))}
    except JobError as exc:
        answer = {"error": exc.status, "body": strip(exc.body)}
    out.append({"name": name, "answer": answer, "cpu_s": time.process_time() - t0})
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
print(json.dumps({"results": out, "loaded": loaded, "tried": sorted(set(tried))},
                 allow_nan=True))
'''


def run_child(examples: list[tuple[str, str, dict[str, Any]]], *, block: bool,
              timeout: float = 1800) -> dict[str, Any]:
    """Run ``examples`` in a fresh process (numpy refused when ``block``): the answers
    (JSON, timings removed), the CPU seconds of each, the numpy/matplotlib modules loaded
    and the ones refused."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("CHANCEKIT_PURE", None)
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(
        {"block": block, "examples": examples}), capture_output=True, text=True,
        timeout=timeout, env=env, check=False)
    if done.returncode:
        raise RuntimeError(f"the child failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def cases(quick: bool = False) -> list[Result]:
    examples = PAGE_EXAMPLES if not quick else [e for e in PAGE_EXAMPLES
                                                if e[1] in ("fairness", "table")]
    fast = run_child(examples, block=False)
    pure = run_child(examples, block=True)
    per_job: dict[str, list[float]] = {}
    for (_, kind, _), a, b in zip(examples, fast["results"], pure["results"], strict=True):
        got = per_job.setdefault(kind, [0.0, 0.0])
        got[0] += a["cpu_s"]
        got[1] += b["cpu_s"]
    rows = []
    for (_, kind, _), a, b in zip(examples, fast["results"], pure["results"], strict=True):
        if kind in ("fairness", "tune", "table"):
            rows.append(Result("web", f"{a['name']}: pure Python (no numpy)", b["cpu_s"],
                               peer="the same job with numpy", peer_s=a["cpu_s"],
                               note="CPU s; same answer" if a["answer"] == b["answer"]
                               else "CPU s; ANSWERS DIFFER"))
    for kind, (np_s, py_s) in per_job.items():
        rows.append(Result("web", f"all {kind} examples: pure Python (no numpy)", py_s,
                           peer="with numpy", peer_s=np_s, note="CPU s"))
    return rows


if __name__ == "__main__":
    for r in cases("--quick" in sys.argv):
        ratio = f"{r.ratio:.2f}" if r.ratio else "-"
        print(f"{r.case:<60} pure {r.chancekit_s:8.3f} s  numpy {r.peer_s or 0:8.3f} s  "
              f"numpy/pure {ratio}  {r.note}")
