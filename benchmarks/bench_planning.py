"""Planning (issue #30): pulls until the 7th featured copy on a 90-pull hard-pity banner
with soft pity and a 50/50 guarantee, exact (goal <= 0.5 s), against the Monte Carlo the
web calculators run (10**6 pulls, numpy); rate audits (100 exact binomial p-values and
Clopper-Pearson intervals) against scipy.stats.binomtest; a loot bag of 20 items in four
weight tiers, 10 draws without replacement, exact (goal <= 1 s), against icepool's
Wallenius."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result, median_time


def _monte_carlo(pulls: int = 10**6) -> float:
    import numpy as np

    trials = pulls // 654
    rng = np.random.default_rng(1)
    pity = np.ones(trials, dtype=np.int64)
    lost = np.zeros(trials, dtype=bool)
    got = np.zeros(trials, dtype=np.int64)
    count = np.zeros(trials, dtype=np.int64)
    live = np.ones(trials, dtype=bool)
    while live.any():
        q = np.minimum(np.where(pity >= 90, 1.0, 0.006 + np.maximum(0, pity - 73) * 0.06),
                       1.0)
        rare = (rng.random(trials) < q) & live
        feat = rare & (lost | (rng.random(trials) < 0.5))
        count += live
        got += feat
        lost = np.where(rare, ~feat, lost)
        pity = np.where(rare, 1, pity + 1)
        live &= got < 7
    return float(count.mean())


def cases(quick: bool = False) -> list[Result]:
    from chancekit.fair import binomial_test, clopper_pearson
    from chancekit.fair.studio import GachaPity
    from chancekit.markov import copies
    from chancekit.sampling.bag import draw_without_replacement

    reps = 3 if quick else 5
    out: list[Result] = []
    banner = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    copies(banner, "featured", 1)  # python-flint loaded once, as in a running app
    t = median_time(lambda: copies(banner, "featured", 7), repeat=reps)
    mc = median_time(_monte_carlo, repeat=1 if quick else 3)
    out.append(Result("planning", "7 featured copies, 90-pull banner with soft pity and a "
                      "50/50: full distribution (exact)", t, "numpy Monte Carlo, 10^6 pulls",
                      mc, "<= 0.5 s", t <= 0.5, "the peer is an estimate, chancekit exact"))
    t3 = median_time(lambda: copies(banner, "featured", 3, state=(38, True)), repeat=reps)
    out.append(Result("planning", "3 copies from pity 37 with the guarantee (exact)", t3))

    rng = random.Random(1)
    audits = [(rng.randint(0, 300), 300, rng.randint(1, 999) / 1000) for _ in range(100)]
    audits = [(min(k, n), n, p) for k, n, p in audits]

    def ours() -> None:
        for k, n, p in audits:
            binomial_test(k, n, p)
            clopper_pearson(k, n)

    def scipys() -> None:
        from scipy.stats import binomtest

        for k, n, p in audits:
            r = binomtest(k, n, p)
            r.proportion_ci(0.95, method="exact")

    a = median_time(ours, repeat=1 if quick else 3)
    b = median_time(scipys, repeat=1 if quick else 3)
    out.append(Result("planning", "100 audits of 300 pulls: exact binomial p-value + "
                      "certified Clopper-Pearson interval", a, "scipy binomtest (floats)", b,
                      "", None, "chancekit exact rationals, scipy floats"))

    bag = {f"item{i:02d}": (1, 2, 5, 10)[i % 4] for i in range(20)}
    t_bag = median_time(lambda: draw_without_replacement(bag, 10), repeat=1 if quick else 3)
    import time

    import icepool
    t0 = time.perf_counter()
    icepool.Wallenius(bag).deal(10).expand()
    t_ice = time.perf_counter() - t0
    out.append(Result("planning", "loot bag: 20 items in 4 weight tiers, 10 draws without "
                      "replacement (184 756 hands, exact)", t_bag, "icepool 2.1.3 Wallenius",
                      t_ice, "<= 1 s", t_bag <= 1.0))
    return out
