"""Shared benchmark helpers. Every benchmark module ``bench_*.py`` defines

    def cases(quick: bool = False) -> list[Result]

timing chancekit and its peer *in the same run*; ``benchmarks/run.py`` collects them and
prints one table of ratios. Ratios are ``peer time / chancekit time`` (above 1 means
chancekit is faster) unless the row says otherwise.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Result:
    area: str            # "rng", "dice", "sampling", "fair"
    case: str            # what was measured, e.g. "1000d6 sum exact (cold)"
    chancekit_s: float   # seconds per operation (median)
    peer: str | None = None       # e.g. "icepool 2.1.3"
    peer_s: float | None = None   # seconds per operation for the peer (median)
    goal: str = ""       # the goal, e.g. ">= 10x icepool" or "<= 50 ms"
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.peer_s is None or self.chancekit_s <= 0:
            return None
        return self.peer_s / self.chancekit_s


def median_time(fn: Callable[[], object], *, repeat: int = 5, number: int = 1,
                setup: Callable[[], object] | None = None) -> float:
    """Median over ``repeat`` runs of the time per call of ``fn`` (``number`` calls a run);
    ``setup`` runs before each run, untimed (e.g. to clear caches for a cold measurement)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def cold_time(code: str, *, setup: str = "", repeat: int = 3, timeout: float = 300) -> float:
    """Median time of ``code`` run once in a fresh Python process (after ``setup``, untimed).

    Returns ``float('inf')`` if the process fails or exceeds ``timeout`` seconds.
    """
    prog = (
        "import time\n" + setup + "\n_t0 = time.perf_counter()\n" + code +
        "\nprint(time.perf_counter() - _t0)\n"
    )
    times = []
    for _ in range(repeat):
        try:
            out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                                 timeout=timeout, check=True).stdout.split()
            times.append(float(out[-1]))
        except (subprocess.SubprocessError, ValueError, IndexError):
            return float("inf")
    return statistics.median(times)


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if s == float("inf"):
        return "timeout/fail"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"
