"""chancekit.dice.montecarlo: estimates from seeded rolls, checked against rolling by hand,
scipy's Wilson interval, and the exact distributions they estimate."""

from __future__ import annotations

import pytest

from chancekit import dist
from chancekit.dice.montecarlo import estimate
from chancekit.dice.notation import roll
from chancekit.errors import ChancekitError
from chancekit.rng import PCG32, Streams


def test_counts_are_the_rolls_of_the_stream() -> None:
    rng = PCG32(11, 3)
    by_hand: dict[int, int] = {}
    for _ in range(500):
        x = roll("4d6kh3", rng=rng).total
        by_hand[x] = by_hand.get(x, 0) + 1
    e = estimate("4d6kh3", 500, rng=PCG32(11, 3))
    assert e.counts == by_hand and e.samples == 500 and e.complete
    assert sum(e.counts.values()) == 500
    assert e.outcomes() == sorted(by_hand)
    # a named stream and another dialect too
    s = estimate("4d6k3", 300, rng=Streams("campaign")["loot"], dialect="roll20")
    r = Streams("campaign")["loot"]
    assert s.counts[max(s.counts)] == sum(
        roll("4d6k3", rng=r, dialect="roll20").total == max(s.counts) for _ in range(300))


def test_wilson_interval_is_scipy_s() -> None:
    stats = pytest.importorskip("scipy.stats")
    e = estimate("2d6", 700, rng=PCG32(5))
    for x in range(2, 13):
        ci = stats.binomtest(e.counts.get(x, 0), 700).proportion_ci(method="wilson")
        lo, hi = e.interval(x)
        assert lo == pytest.approx(ci.low, abs=1e-12)
        assert hi == pytest.approx(ci.high, abs=1e-12)


def test_the_estimate_covers_the_exact_answer() -> None:
    """Seeded (so not flaky): the exact probabilities of 3d6 fall in their 95 % intervals
    for at least 14 of the 16 outcomes, and the exact mean in the mean's interval."""
    d = dist("3d6")
    e = estimate("3d6", 4000, rng=PCG32(2026))
    inside = [lo <= float(d.probability(x)) <= hi
              for x in d.outcomes() for lo, hi in [e.interval(x)]]
    assert sum(inside) >= 14
    lo, hi = e.mean_interval()
    assert lo < float(d.mean()) < hi
    assert e.sd == pytest.approx(float(d.variance()) ** 0.5, rel=0.05)
    assert e.quantile(0.5) in (10, 11) and e.quantile(0) == min(e.counts)


def test_refusals_and_the_time_budget() -> None:
    for bad in (0, -1, 10**7, 2.5):
        with pytest.raises(ChancekitError):
            estimate("1d6", bad, rng=PCG32(1))
    with pytest.raises(ChancekitError):       # more dice than one roll may roll
        estimate("20000d6", 10, rng=PCG32(1))
    # a budget of 0 s stops at the first check, after 64 rolls (whatever the machine)
    e = estimate("1d6", 1000, rng=PCG32(1), seconds=0)
    assert e.samples == 64 and not e.complete and e.requested == 1000
