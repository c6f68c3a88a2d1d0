"""Exact streak metrics (chancekit.fair.streaks) against brute-force enumeration of every
sequence (small cases) and Monte Carlo (within 4 standard errors, fixed seed)."""

from __future__ import annotations

import math

import pytest

from chancekit.errors import ChancekitError, LimitError
from chancekit.fair import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    GeneralizedDeck,
    HistoryReroll,
    LuckyStreak,
    TGM3Randomizer,
    TGMRandomizer,
)
from chancekit.fair.streaks import streak_metrics, streak_montecarlo
from chancekit.rng import PCG32


def brute(system, N, value):
    """Every sequence with its probability (the system's own chain), and the figures."""
    out = {"p_repeat": 0.0, "p_triple": 0.0, "longest_gap": 0.0}
    runs = [0.0] * (N + 1)
    tail = [0.0] * (N + 2)

    def walk(s, seq, p):
        if len(seq) == N:
            if N > 1:
                out["p_repeat"] += p * sum(seq[t] == seq[t - 1] for t in range(1, N)) / (N - 1)
            if N > 2:
                out["p_triple"] += p * sum(seq[t] == seq[t - 1] == seq[t - 2]
                                           for t in range(2, N)) / (N - 2)
            best = cur = 0
            for x in seq:
                cur = 0 if x == value else cur + 1
                best = max(best, cur)
            out["longest_gap"] += p * best
            for k in range(1, best + 1):
                tail[k] += p
            length = 1
            for t in range(1, N + 1):
                if t == N or seq[t] != seq[t - 1]:
                    runs[length] += p
                    length = 1
                else:
                    length += 1
            return
        for i, q in enumerate(s.probabilities()):
            if q > 0:
                c = s.copy()
                c.observe(i)
                walk(c, [*seq, i], p * q)

    walk(system.copy(), [], 1.0)
    return out, runs[1:], tail[1:N + 1]


CASES = [(lambda: Dice(3), 6, 0), (lambda: Deck(3), 7, 1), (lambda: GeneralizedDeck(3, 1, 2), 6, 0),
         (lambda: GeneralizedDeck(3, 1, 2, weights=(2, 1, 1)), 6, 2),
         (lambda: DynamicDice(3, 0.5), 6, 0),
         (lambda: DynamicDice(3, 0.4, weights=(3, 2, 1)), 5, 2),
         (lambda: PRD(0.3), 9, 1), (lambda: HistoryReroll(3, 2, 2), 6, 0),
         (lambda: LuckyStreak(0.3, 2), 8, 1), (TGMRandomizer.tgm1, 3, 0)]


@pytest.mark.parametrize(("make", "N", "value"), CASES, ids=[repr(c[0]()) for c in CASES])
def test_exact_equals_brute_force(make, N, value) -> None:
    m = streak_metrics(make(), N, value=value)
    ref, runs, tail = brute(make(), N, value)
    for k, v in ref.items():
        assert m[k] == pytest.approx(v, rel=1e-9, abs=1e-12), k
    assert m.series["run_lengths"] == pytest.approx(runs, rel=1e-9, abs=1e-12)
    assert m.series["p_gap"] == pytest.approx(tail, rel=1e-9, abs=1e-12)
    assert m["mean_run"] == pytest.approx(N / sum(runs), rel=1e-9)


@pytest.mark.parametrize(("make", "N"), [(lambda: Dice(6), 100), (lambda: Deck(6), 100),
                                         (lambda: GeneralizedDeck(6, 1, 6), 30),
                                         (lambda: DynamicDice(6, 0.355), 12),
                                         (lambda: PRD(0.25), 100),
                                         (TGMRandomizer.tgm2, 8)])
def test_exact_within_4se_of_montecarlo(make, N) -> None:
    ex = streak_metrics(make(), N)
    mc = streak_montecarlo(make(), N, trials=4000, rng=PCG32(7))
    for k in ("p_repeat", "p_triple", "longest_gap", "mean_run"):
        if mc.se[k] == 0:  # never seen in 4000 matches: the exact figure is that rare
            assert ex[k] <= 5 / 4000 and mc[k] in (0.0, ex[k])
        else:
            assert abs(ex[k] - mc[k]) <= 4 * mc.se[k], k


def test_closed_forms_and_speed_budget() -> None:
    m = streak_metrics(Dice(6), 100)  # n = 6, N = 100 within the budget
    assert m["p_repeat"] == pytest.approx(1 / 6) and m["p_triple"] == pytest.approx(1 / 36)
    # longest gap of a value for a die: P(no run of >= k misses), by a direct recursion
    N, p = 100, 1 / 6
    e = 0.0
    for k in range(1, N + 1):
        # P(all gaps < k): runs of misses shorter than k, over N draws
        # alive[t] = P(draw t hits and no k misses in a row before it)
        alive = [0.0] * (N + 1)
        alive[0] = 1.0
        for t in range(1, N + 1):
            alive[t] = sum(alive[t - j - 1] * (1 - p) ** j * p for j in range(min(k, t)))
        ok = sum(alive[t] * (1 - p) ** (N - t) for t in range(max(0, N - k + 1), N + 1))
        e += 1 - ok
    assert m["longest_gap"] == pytest.approx(e, rel=1e-9)
    assert streak_metrics(Deck(6), 100)["p_triple"] == 0.0


def test_refused_up_front_and_tgm3() -> None:
    with pytest.raises(LimitError) as err:
        streak_metrics(DynamicDice(6, 0.355), 100)
    assert err.value.limit == "MAX_FAIR_WORK"
    with pytest.raises(LimitError):
        streak_metrics(Dice(6), 100_000)
    with pytest.raises(ChancekitError):
        streak_metrics(TGM3Randomizer(), 10)
    mc = streak_montecarlo(TGM3Randomizer(), 100, trials=500, rng=PCG32(1))
    assert mc["p_repeat"] < 0.01


def test_bad_input() -> None:
    with pytest.raises(ChancekitError):
        streak_metrics(Dice(6), 10, value=6)
    with pytest.raises(ChancekitError):
        streak_metrics("dice", 10)  # type: ignore[arg-type]
    with pytest.raises(ChancekitError):
        streak_metrics(Dice(6), 10, prune=2)
    assert math.isfinite(streak_metrics(Dice(2), 1)["longest_gap"])
