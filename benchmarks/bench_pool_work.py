"""The pool algebra's work budget (issue 29, item 8): seconds of CPU per evaluation over
a grid of evaluations x pool sizes x face counts, under the default budget.

Every evaluation of tests/dice/test_multiset_work.py (which checks the same grid in
counted work units, under a small budget) is run on 1..200 dice of 2..100 faces, each size
until the first refusal. Printed: each case slower than 0.2 s, then the slowest answer and
the slowest refusal (the straights' closed form apart: its refusal counts products by a dry
run). The goal: refusals well under a second, answers about the budget (MAX_WORK x
UNIT_NS, a second) at most. No peer.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_pool_work.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "dice"))


def main() -> None:
    from test_multiset_work import attempt, evaluations

    from chancekit import limits

    sizes = [1, 2, 3, 5, 8, 12, 20, 30, 50, 80, 120, 200]
    worst: dict[tuple[str, bool], tuple[float, str]] = {}
    for faces in (2, 3, 4, 6, 10, 20, 50, 100):
        for name in evaluations(faces):
            for n in sizes:
                t0 = time.process_time()
                kind, budget, _ = attempt(name, n, faces, limits.MAX_WORK)
                dt = time.process_time() - t0
                key = (kind, name == "all_straights")
                case = f"{name}, {n}d{faces}"
                if dt > worst.get(key, (0.0, ""))[0]:
                    worst[key] = (dt, case)
                if dt > 0.2:
                    print(f"{case}: {kind} in {dt:.3f} s, estimated "
                          f"{budget.estimated * limits.UNIT_NS / 1e9:.3f} s", flush=True)
                if kind == "refused":
                    break
    for (kind, straights), (dt, case) in sorted(worst.items()):
        what = "all_straights" if straights else "the others"
        print(f"slowest {kind} ({what}): {case}, {dt:.3f} s")


if __name__ == "__main__":
    main()
