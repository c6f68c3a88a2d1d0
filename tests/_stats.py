"""Statistics shared by the goodness-of-fit tests (tests/test_goodness_of_fit.py,
tests/dice/test_roll.py, tests/dice/test_notation_d20.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scipy import stats


def pooled_chisquare(counts: Mapping[Any, int], probs: Mapping[Any, Any], *,
                     ordered: bool) -> tuple[float, int]:
    """Pearson's test of ``counts`` against ``probs``: ``(p-value, cells)``. Cells are
    pooled until each expected count is at least 5: in outcome order if ``ordered`` (tails
    merge inwards), otherwise largest first (the small cells end up in one pool). An
    observed outcome with probability 0 gives p = 0."""
    n = sum(counts.values())
    if any(probs.get(k, 0) == 0 for k, c in counts.items() if c):
        return 0.0, 0
    keys = list(probs)
    if ordered:
        keys.sort()
    else:
        keys.sort(key=lambda k: -float(probs[k]))
    obs: list[float] = []
    exp: list[float] = []
    o = e = 0.0
    for k in keys:
        o += counts.get(k, 0)
        e += float(probs[k]) * n
        if e >= 5:
            obs.append(o)
            exp.append(e)
            o = e = 0.0
    if e or o:
        if obs:
            obs[-1] += o
            exp[-1] += e
        else:
            obs.append(o)
            exp.append(e)
    if len(obs) < 2:
        return 1.0, len(obs)
    return float(stats.chisquare(obs, exp).pvalue), len(obs)

