"""Calibration of the work budget (chancekit.limits): seconds per work unit.

For every expression of ``tests/data/expensive_notation.txt`` (the calibration test's
corpus), run ``chancekit.dist`` once and record the wall time, the units estimated up front
and the units counted. A row reports the slowest accepted expression and the slowest
refusal, and the ns per estimated unit (the budget assumes ``chancekit.limits.UNIT_NS``).
There is no peer: the goal is that nothing accepted or refused takes much more than a
second (MAX_WORK x UNIT_NS).

    .venv/bin/python benchmarks/bench_limits.py        # the table of every expression
"""

from __future__ import annotations

import time
from pathlib import Path

from _harness import Result

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "expensive_notation.txt"


def corpus() -> list[str]:
    return [line.strip() for line in CORPUS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def measure(text: str) -> tuple[str, float, int, int]:
    """(outcome, seconds, units estimated, units counted) of ``dist(text)``."""
    from chancekit import limits
    from chancekit.dice import dist
    from chancekit.dice._ast import MAX_WORK
    from chancekit.errors import LimitError

    outcome = "ok"
    t0 = time.perf_counter()
    with limits.evaluation(limit=MAX_WORK, name="MAX_WORK") as budget:
        try:
            dist(text)
        except LimitError as e:
            outcome = f"refused ({e.limit})"
    return outcome, time.perf_counter() - t0, budget.estimated, budget.counted


def cases(quick: bool = False) -> list[Result]:
    from chancekit.dice import dist

    dist("1d6")  # imports
    rows = [(t, *measure(t)) for t in corpus()]
    ok = [r for r in rows if r[1] == "ok"]
    refused = [r for r in rows if r[1] != "ok"]
    out = []
    for name, group in (("accepted", ok), ("refused", refused)):
        if group:
            slow = max(group, key=lambda r: r[2])
            out.append(Result("limits", f"slowest {name}: {slow[0][:30]}", slow[2],
                              goal="<= 1 s", met=slow[2] <= 1.0,
                              note=f"{slow[3]:,} units estimated"))
    per_unit = max(r[2] / r[3] * 1e9 for r in ok if r[3] > 1_000_000)
    out.append(Result("limits", "ns per estimated unit (worst accepted)", per_unit * 1e-9,
                      goal="<= 20 ns", met=per_unit <= 20))
    return out


def main() -> None:
    from chancekit.dice import dist

    dist("1d6")
    print(f"{'expression':42} {'outcome':24} {'seconds':>8} {'estimated':>13} {'counted':>13} "
          f"{'ns/unit':>8}")
    for text in corpus():
        outcome, s, est, cnt = measure(text)
        print(f"{text[:42]:42} {outcome:24} {s:8.3f} {est:13,} {cnt:13,} "
              f"{(s / est * 1e9 if est else 0):8.1f}")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
