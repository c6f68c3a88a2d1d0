"""Imported once by the forkserver, before any worker is forked: every worker starts with
chancekit's modules imported and its first-call work done (so the first request a fresh
worker serves costs what the hundredth does)."""

from __future__ import annotations

import chancekit
from chancekit.web import compute


def _warm() -> None:
    noop = lambda done, total: None  # noqa: E731
    compute.dist_job({"expressions": [{"label": "", "text": "4d6kh3 + 1d20 >= 10"}]}, noop)
    compute.table_job({"source": "notation", "notation": "2d6", "row_die": 20,
                       "check_die": 20}, noop)
    compute.fairness_job({"systems": ["deck"], "values": 3, "samples": 3,
                          "method": "exact", "trials": 1, "seed": 1}, noop)
    chancekit.roll("1d6", rng=chancekit.PCG32(1))
    chancekit.Streams(1)["warm"]


try:
    _warm()
except Exception:  # pragma: no cover - warming is an optimisation only
    pass
