"""Run every benchmark and print one table of ratios against the peers.

    .venv/bin/python benchmarks/run.py            # all areas
    .venv/bin/python benchmarks/run.py rng dice   # some areas
    .venv/bin/python benchmarks/run.py --quick    # fewer repeats / smaller sizes

Each ``benchmarks/bench_<area>.py`` times chancekit and its peer in the same run. Ratio =
peer time / chancekit time (above 1: chancekit is faster). Results are recorded by hand in
docs/performance.md with the machine and date.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _harness import Result, fmt_seconds  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("areas", nargs="*", help="rng, dice, sampling, fair (default: all)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats and smaller sizes")
    args = ap.parse_args(argv)
    available = sorted(p.stem[len("bench_"):] for p in HERE.glob("bench_*.py"))
    areas = args.areas or available
    unknown = [a for a in areas if a not in available]
    if unknown:
        ap.error(f"unknown area(s) {unknown}; available: {available}")
    machine = platform.processor() or platform.machine()
    print(f"# chancekit benchmarks — {datetime.date.today()} — {machine}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}")
    rows: list[Result] = []
    for area in areas:
        mod = importlib.import_module(f"bench_{area}")
        for r in mod.cases(quick=args.quick):
            rows.append(r)
            print_row(r, flush=True)
    missed = [r for r in rows if r.met is False]
    met = sum(r.met is True for r in rows)
    print(f"\n{len(rows)} cases, {met} goals met, {len(missed)} missed")
    for r in missed:
        print(f"  missed: [{r.area}] {r.case}: goal {r.goal}")
    return 0


_header_printed = False


def print_row(r: Result, flush: bool = False) -> None:
    global _header_printed
    if not _header_printed:
        print("\n| area | case | chancekit | peer | peer time | ratio | goal | met |")
        print("|---|---|---|---|---|---|---|---|")
        _header_printed = True
    ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
    met = {True: "yes", False: "NO", None: "-"}[r.met]
    note = f" ({r.note})" if r.note else ""
    print(f"| {r.area} | {r.case}{note} | {fmt_seconds(r.chancekit_s)} | {r.peer or '-'} | "
          f"{fmt_seconds(r.peer_s)} | {ratio} | {r.goal} | {met} |", flush=flush)


if __name__ == "__main__":
    sys.exit(main())
