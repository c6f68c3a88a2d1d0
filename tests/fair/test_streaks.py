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
    work,
)
from chancekit.fair.streaks import _estimate, streak_metrics, streak_montecarlo
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
         (lambda: LuckyStreak(0.3, 2), 8, 1), (TGMRandomizer.tgm1, 3, 0),
         (TGMRandomizer.tgm2, 5, 3), (lambda: TGMRandomizer(3, "SZO"), 5, 1),
         (lambda: HistoryReroll(4, 3, 3), 6, 2), (lambda: DynamicDice(4, 0.25), 6, 1)]


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
    work.COUNTER.clear()
    with pytest.raises(LimitError) as err:  # unpruned dynamic dice: partitions of t
        streak_metrics(DynamicDice(6, 0.355), 100, prune=0)
    assert err.value.limit == "MAX_FAIR_WORK" and err.value.value > work.MAX_FAIR_WORK
    for system in (Dice(6), DynamicDice(6, 0.5), TGMRandomizer.tgm1()):
        with pytest.raises(LimitError) as err:
            streak_metrics(system, 100_000)
        assert err.value.limit == "MAX_FAIR_WORK"
    assert work.COUNTER["streaks"] == 0  # nothing enumerated: refused by the estimate
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


# --- issue 14: n = 6 / 7, N = 100 -------------------------------------------------------
N100 = [(lambda: DynamicDice(6, 0.25), None, 4000), (lambda: DynamicDice(6, 0.5), 3 * 10**8, 4000),
        (TGMRandomizer.tgm1, None, 1500), (TGMRandomizer.tgm2, None, 1500),
        (lambda: HistoryReroll(6, 4, 4), None, 1500)]


@pytest.mark.parametrize(("make", "budget", "trials"), N100,
                         ids=["dd-0.25", "dd-0.5", "tgm1", "tgm2", "history-6"])
def test_n100_exact_within_4se_of_montecarlo(make, budget, trials) -> None:
    """The issue's sizes: exact (pruned below 1e-15 for dynamic dice, mass reported) vs
    Monte Carlo with a fixed seed, every summary within 4 standard errors."""
    ex = streak_metrics(make(), 100, max_work=budget)
    assert ex.dropped < 1e-10 and len(ex.states) == 100
    mc = streak_montecarlo(make(), 100, trials=trials, rng=PCG32(14))
    for k in ("p_repeat", "p_triple", "longest_gap", "mean_run"):
        assert abs(ex[k] - mc[k]) <= 4 * mc.se[k], (k, ex[k], mc[k], mc.se[k])
    assert sum(ex.series["run_lengths"]) == pytest.approx(100 / ex["mean_run"])
    assert ex.series["p_gap"][0] == pytest.approx(1.0) and ex.series["p_gap"][-1] < 1e-6


def test_default_pruning_is_within_1e9_of_the_unpruned_answer() -> None:
    """Dynamic dice drop states below DEFAULT_PRUNE (1e-15) by default; where the unpruned
    walk is computable the figures agree within 1e-9 (and the dropped mass says why)."""
    for system, N in ((DynamicDice(6, 0.5), 12), (DynamicDice(3, 0.5), 40),
                      (DynamicDice(4, 0.25), 30)):
        full = streak_metrics(system, N, prune=0)
        assert full.dropped == 0.0
        pruned = streak_metrics(system, N)
        assert pruned.dropped < 1e-11
        for k in ("p_repeat", "p_triple", "longest_gap", "mean_run"):
            assert abs(pruned[k] - full[k]) <= 1e-9, k
        assert max(abs(a - b) for a, b in zip(pruned.series["p_gap"], full.series["p_gap"],
                                              strict=True)) <= 1e-9


def test_tgm_histories_are_reduced_by_renaming_the_pieces() -> None:
    """TGM's state is its 4-piece history; with the pieces renamed in order of appearance
    (the watched or last piece first) at most 52 remain, so N = 100 is exact (no pruning)."""
    m = streak_metrics(TGMRandomizer.tgm1(), 100)
    assert m.dropped == 0.0 and max(m.states) <= 52 + 7
    assert m["p_repeat"] < streak_metrics(HistoryReroll(7, 4, 4), 100)["p_repeat"] * 1.5


@pytest.mark.parametrize("make", [lambda: Dice(6), lambda: Deck(6), TGMRandomizer.tgm2,
                                  lambda: HistoryReroll(6, 4, 4),
                                  lambda: DynamicDice(5, 0.5)])
def test_work_counted_never_exceeds_the_estimate(make) -> None:
    """Systems with bounded reduced states are estimated before anything runs; the units
    counted as the walk runs never exceed that estimate."""
    N = 100 if not isinstance(make(), DynamicDice) else 10
    est = _estimate(make(), N, 0.0)
    assert est is not None and est <= work.MAX_FAIR_WORK
    work.COUNTER.clear()
    streak_metrics(make(), N, prune=0)
    assert 0 < work.COUNTER["streaks"] <= est


def test_pruned_dynamic_dice_is_checked_before_the_walks() -> None:
    """Pruned dynamic dice have no useful bound up front: the reduced chain is enumerated
    (counted), then the walks are estimated from the states met and refused before they
    start; with the budget raised the same call runs."""
    work.COUNTER.clear()
    with pytest.raises(LimitError) as err:
        streak_metrics(DynamicDice(6, 0.5), 100)
    enumerated = work.COUNTER["streaks"]
    assert 0 < enumerated < work.MAX_FAIR_WORK / 4 < err.value.value
    work.COUNTER.clear()
    with pytest.raises(LimitError):
        streak_metrics(DynamicDice(6, 0.25), 100, max_work=1_000_000)
    assert work.COUNTER["streaks"] <= 1_000_000 + 10**5  # stopped as soon as it was passed


@pytest.mark.parametrize("make", [lambda: GeneralizedDeck(6, 1, 6),
                                  lambda: GeneralizedDeck(6, 2, 6)])
def test_short_gaps_are_estimated_from_the_rows_met(make) -> None:
    """A deck's gaps stay short, so the up-front bound on the drought cells (every gap up
    to t) is far too loose: past the limit, the chain is bounded up front and the walks
    are estimated from the current-gap rows met before they start. Accepted at n = 6,
    N = 100 within MAX_FAIR_WORK, and equal to Monte Carlo within 4 SE."""
    N = 100
    full = _estimate(make(), N, 0.0)
    chain = _estimate(make(), N, 0.0, chain_only=True)
    assert chain <= work.MAX_FAIR_WORK < full
    work.COUNTER.clear()
    m = streak_metrics(make(), N)
    assert 0 < work.COUNTER["streaks"] <= work.MAX_FAIR_WORK
    mc = streak_montecarlo(make(), N, trials=4000, rng=PCG32(11))
    for k in ("p_repeat", "longest_gap", "mean_run"):
        assert abs(m[k] - mc[k]) <= 4 * mc.se[k] + 1e-12, k
    # below the chain's own bound: refused up front, nothing enumerated
    work.COUNTER.clear()
    with pytest.raises(LimitError):
        streak_metrics(make(), N, max_work=int(chain) - 1)
    assert work.COUNTER["streaks"] == 0
