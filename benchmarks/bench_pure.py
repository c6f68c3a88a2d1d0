"""The pages without numpy (issue #28, item 4): every endpoint of the pages
(``chancekit.web.api.handle``, what the static site's worker calls in Pyodide) on the
request bodies of the pages' examples, answered in a fresh process with numpy importable
(the vectorised paths) and in one where it is not (a ``sys.meta_path`` finder refuses numpy
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
_TABLE = {"notation": "3d6", "loot": "sword=5\nshield=3\npotion=12", "title": None,
          "row_die": 20, "check_die": 20, "dialect": "avrae", "two_stage": False}  # tables.js


def _fair(systems: list[str], method: str = "exact", trials: int = 10_000) -> dict[str, Any]:
    return {"systems": systems, "values": 6, "samples": 25, "method": method,
            "trials": trials, "seed": 1}


def _tune(systems: list[str], samples: int = 25, min_entropy: float = 0.9,
          floor: str = "average") -> dict[str, Any]:
    return {"values": 6, "samples": samples, "min_entropy": min_entropy, "systems": systems,
            "floor": floor}


#: (name, path, request body as the page sends it): the pages' examples and defaults
#: (static/*.html and *.js); a name with "(refused)" expects an error answer
PAGE_EXAMPLES: list[tuple[str, str, dict[str, Any]]] = [
    *[(f"dist {t} ({d})", "/api/dist", {"expressions": [{"label": "", "text": t}],
                                        "dialect": d}) for t, d in _DICE],
    ("dist two lines", "/api/dist", {"expressions": [{"label": "a", "text": "4d6kh3"},
                                                     {"label": "b", "text": "3d6"}],
                                     "dialect": "avrae"}),
    ("estimate 4d6kh3", "/api/estimate", {"expressions": [{"label": "", "text": "4d6kh3"}],
                                          "dialect": "avrae", "samples": 10_000, "seed": 7}),
    ("pool largest set 5d6", "/api/pool", {"kind": "largest-set", "dice": "5d6"}),
    ("pool straight 5d6", "/api/pool", {"kind": "straight", "dice": "5d6"}),
    ("pool nco 5 vs 3", "/api/pool", {"kind": "nco", "action": 5, "danger": 3}),
    ("pool risk 5 vs 3", "/api/pool", {"kind": "risk", "action": 5, "danger": 3}),
    ("pool genesys", "/api/pool", {"kind": "genesys", "pool": "2A1P vs 2D"}),
    # the pool algebra's presets (pools.html's defaults)
    *[(f"pool {k} 5d6", "/api/pool", {"kind": k, "dice": "5d6"})
      for k in ("straights", "poker")],
    ("pool sets 5d10 wild 9,10", "/api/pool", {"kind": "sets", "dice": "5d10",
                                               "wild": "9,10"}),
    ("pool cancel 5d6 v 3d6", "/api/pool", {"kind": "cancel", "dice": "5d6", "against": "3d6",
                                            "success": 5, "match": "any"}),
    ("pool face to face", "/api/pool", {"kind": "face-to-face", "dice": "5d6",
                                        "against": "3d6"}),
    ("pool expr", "/api/pool", {"kind": "expr", "expression": "a.sort_pair('>', b).count()",
                                "pools": {"a": "3d6", "b": "2d6"}}),
    ("pool risk ties to the attacker", "/api/pool", {"kind": "risk", "action": 3, "danger": 2,
                                                     "ties": "attacker"}),
    *[(f"anydice example {i}", "/api/anydice", {"program": p})
      for i, p in enumerate(_ANYDICE)],
    ("markov usage die", "/api/markov", {"kind": "usage-die", "ladder": "12,10,8,6,4",
                                         "down": "1,2"}),
    ("markov race", "/api/markov", {"kind": "race", "hp": 30, "damage": "2d6"}),
    *[(f"markov race two sides {o}", "/api/markov",
       {"kind": "race", "hp": 30, "damage": "2d6", "hp2": 25, "damage2": "1d8+2",
        "order": o}) for o in ("simultaneous", "alternating")],
    *[(f"markov first success {s}", "/api/markov",
       {"kind": "first-success", "system": s, "value": ""}) for s in _MARKOV_CHIPS],
    ("markov until 6,6", "/api/markov", {"kind": "until", "die": "1d6", "sequence": "6,6"}),
    ("gacha 3 copies", "/api/gacha", {"system": "gacha:0.006,74,0.06,90", "copies": 3,
                                      "pity": 37, "guaranteed": True, "pulls": 160,
                                      "price": 160, "budget": 28800}),
    ("gacha weapon banner", "/api/gacha", {"system": "gacha:0.007,63,0.07,80,0.75,fate=1,"
                                           "chosen=0.5", "copies": 2}),
    ("table 3d6", "/api/table", {**_TABLE, "source": "notation"}),
    ("table 3d6 two stages", "/api/table", {**_TABLE, "source": "notation",
                                            "two_stage": True}),
    ("table loot", "/api/table", {**_TABLE, "source": "loot"}),
    ("fairness exact", "/api/fairness", _fair(_SYSTEMS)),
    ("fairness exact presets", "/api/fairness", _fair(_CHIPS[::2])),
    *[(f"fairness exact {c} (refused)", "/api/fairness", _fair([c])) for c in _CHIPS[1::2]],
    ("fairness montecarlo", "/api/fairness", _fair(_SYSTEMS, "montecarlo")),
    ("fairness montecarlo presets", "/api/fairness", _fair(_CHIPS, "montecarlo", 2_000)),
    ("tune", "/api/tune", _tune(["generalized-deck", "dynamic-dice"])),
    ("tune all families", "/api/tune", _tune(["dice", "deck", "generalized-deck",
                                              "dynamic-dice"], 10, 0.5, "every")),
    ("roll", "/api/roll", {"text": "4d6kh3", "seed": 2026, "stream": None, "n": 6,
                           "streams": ["chargen", "loot", "combat"], "demo_n": 6,
                           "dialect": "avrae"}),
    ("roll named stream", "/api/roll", {"text": "1d20+5", "seed": "my campaign",
                                        "stream": "loot", "n": 6, "streams": [],
                                        "demo_n": 6, "dialect": "avrae"}),
]

#: the child: refuses numpy and matplotlib when asked (before chancekit is imported), answers
#: the examples named on stdin through chancekit.web.api.handle (what the site's worker
#: calls), prints one JSON line
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
from chancekit.web.api import handle

TIMING = ("elapsed_ms", "server_ms", "run_ms")


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


out = []
for name, path, body in job["examples"]:
    t0 = time.process_time()
    # a time limit no example reaches: an estimate (half of it) always finishes its rolls
    status, answer = handle(path, json.dumps(body), time_limit=3600.0)
    cpu = time.process_time() - t0
    answer = json.loads(json.dumps(answer, allow_nan=False))  # as handle_json sends it
    out.append({"name": name, "status": status, "answer": strip(answer), "cpu_s": cpu})
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
print(json.dumps({"results": out, "loaded": loaded, "tried": sorted(set(tried))}))
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


def _kind(path: str) -> str:
    return path.rpartition("/")[2]


def cases(quick: bool = False) -> list[Result]:
    examples = PAGE_EXAMPLES if not quick else [e for e in PAGE_EXAMPLES
                                                if _kind(e[1]) in ("fairness", "table")]
    fast = run_child(examples, block=False)
    pure = run_child(examples, block=True)
    per_job: dict[str, list[float]] = {}
    for (_, path, _), a, b in zip(examples, fast["results"], pure["results"], strict=True):
        kind = _kind(path)
        got = per_job.setdefault(kind, [0.0, 0.0])
        got[0] += a["cpu_s"]
        got[1] += b["cpu_s"]
    rows = []
    for (_, path, _), a, b in zip(examples, fast["results"], pure["results"], strict=True):
        if _kind(path) in ("fairness", "tune", "table"):
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
