"""Calibration of the work budget (chancekit.limits): seconds per work unit.

For every expression of ``tests/data/expensive_notation.txt`` (the calibration test's
corpus), run ``chancekit.dist`` once and record the wall time, the units estimated up front
and the units counted. A row reports the slowest accepted expression and the slowest
refusal, and the ns per estimated unit (the budget assumes ``chancekit.limits.UNIT_NS``).
There is no peer: the goal is that nothing accepted or refused takes much more than a
second (MAX_WORK x UNIT_NS).

    .venv/bin/python benchmarks/bench_limits.py        # the table of every expression
    .venv/bin/python benchmarks/bench_limits.py sums   # limits.power_work over a grid
    .venv/bin/python benchmarks/bench_limits.py keeps  # keeps of 6-30 dice, 100-2000 faces

``sums``: ``Distribution.repeat_sum`` (the sum of n equal dice: flint's power, then the
coefficients converted) over a grid of 2-1 000 faces and 2-10 000 dice, its CPU time
against :func:`chancekit.limits.power_work`'s units (issue 31: the old price ran 40-145 ns
a unit for sums of 20-300 dice of 40-300 faces). ``keeps``: the keep of the highest/lowest
``k`` of ``n`` dice over a grid, its CPU time against the units charged
(:func:`chancekit.dice.facewalk.keep_work`'s way; issue 31's fifth pass: 11-109 ns a unit
before its refit).
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


#: (faces, dice) of the sums grid: the small grid all pairs (result below ~40 Mbit), and
#: a few large sums
SUM_FACES = (2, 3, 4, 6, 8, 10, 12, 17, 20, 30, 40, 60, 100, 154, 200, 300)
SUM_DICE = (2, 3, 5, 10, 20, 50, 100, 200, 300, 500, 1000)
LARGE_SUMS = ((6, 10000), (6, 3000), (20, 3000), (100, 400), (1000, 100), (2, 10000),
              (60, 600))


def sum_grid(quick: bool = False) -> list[tuple[int, int]]:
    grid = [(k, n) for k in SUM_FACES for n in SUM_DICE
            if n * (k - 1) * n * k.bit_length() <= (4e6 if quick else 40e6)]
    return grid if quick else grid + list(LARGE_SUMS)


def measure_sum(faces: int, dice: int) -> tuple[float, int]:
    """(best CPU seconds of ``dice`` x d``faces`` summed, its power_work units)."""
    from chancekit.dice.distribution import Distribution
    from chancekit.limits import evaluation

    die = Distribution({i: 1 for i in range(1, faces + 1)})
    best = float("inf")
    for _ in range(3 if faces * dice > 20_000 else 7):
        with evaluation(limit=10**15, name="MAX_WORK") as budget:
            t0 = time.process_time()
            die.repeat_sum(dice)
            best = min(best, time.process_time() - t0)
    return best, budget.estimated


#: (dice, faces, kept) of the keeps grid: the general engine's keeps and the face walks of
#: issue 31's fifth pass (11d2000kh2 ran 0.74 s priced 7.9 M before it)
KEEP_GRID = [(n, f, k) for n in (6, 8, 11, 14, 20, 30) for f in (100, 300, 805, 1000, 2000)
             for k in sorted({2, 3, n // 2, n - 2}) if 1 <= k < n]


def keeps(quick: bool = False) -> list[tuple[str, float, int]]:
    """(notation, CPU seconds, units charged) of the keeps of :data:`KEEP_GRID` that the
    default budget answers and that charge 3 M units or more (the way keep_sum takes)."""
    from chancekit.dice import dist
    from chancekit.errors import LimitError
    from chancekit.limits import MAX_WORK, evaluation

    out = []
    for n, f, k in KEEP_GRID[::4] if quick else KEEP_GRID:
        for side in ("kh", "kl"):
            text = f"{n}d{f}{side}{k}"
            try:
                with evaluation(limit=MAX_WORK, name="MAX_WORK") as budget:
                    t0 = time.process_time()
                    dist(text)
                    secs = time.process_time() - t0
            except LimitError:
                continue
            if budget.estimated >= 3_000_000:
                out.append((text, secs, budget.estimated))
    return out


def sums(quick: bool = False) -> list[tuple[int, int, float, int]]:
    """(faces, dice, seconds, units) over the grid."""
    return [(k, n, *measure_sum(k, n)) for k, n in sum_grid(quick)]


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
    rates = [s / u * 1e9 for _, _, s, u in sums(quick) if s > 1e-3]
    out.append(Result("limits", "sums of n dice: worst ns per power_work unit",
                      max(rates) * 1e-9, goal="<= 30 ns", met=max(rates) <= 30,
                      note=f"best {min(rates):.1f} ns over {len(rates)} sums past 1 ms"))
    return out


def main() -> None:
    import sys

    from chancekit.dice import dist

    dist("1d6")
    if sys.argv[1:] == ["keeps"]:
        rows = keeps()
        print(f"{'keep':14} {'ms':>9} {'units':>12} {'ns/unit':>8}")
        for text, s, u in rows:
            print(f"{text:14} {s * 1e3:9.1f} {u:12,} {s / u * 1e9:8.1f}")
        rates = sorted(s / u * 1e9 for _, s, u in rows)
        print(f"{len(rates)} keeps: {rates[0]:.1f}-{rates[-1]:.1f} ns a unit, "
              f"median {rates[len(rates) // 2]:.1f}")
        return
    if sys.argv[1:] == ["sums"]:
        print(f"{'faces':>6} {'dice':>6} {'ms':>9} {'units':>12} {'ns/unit':>8}")
        for k, n, s, u in sums():
            print(f"{k:6} {n:6} {s * 1e3:9.3f} {u:12,} {s / u * 1e9:8.1f}")
        return
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
