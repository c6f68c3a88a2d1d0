"""Work limits of the fairness engines (issues #10 and #15), variance_ratio against
independent draws, tune's end-effect warning and reproducible reported figures.

No test here asserts time: refusals are checked to be up front by the work counter
(``chancekit.fair.work.COUNTER`` stays at 0: no layer, step or trial was done) and a small
``tracemalloc`` peak; accepted work is checked against its estimate in counted units.
"""

from __future__ import annotations

import itertools
import json
import math
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chancekit.cli.main import main
from chancekit.errors import LimitError
from chancekit.fair import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    ErrorAccumulator,
    GeneralizedDeck,
    HistoryReroll,
    NoRepeatSystem,
    PityTimer,
    System,
    evaluate,
    evaluate_exact,
    evaluate_exact_batch,
    evaluate_montecarlo,
    published_grid,
    tune,
    work,
)
from chancekit.fair.exact import _blocks, _check_lattice, generic_estimate, lattice_estimate
from chancekit.fair.metrics import independent_variance
from chancekit.fair.montecarlo import montecarlo_estimate
from chancekit.rng import PCG32

PEAK_BYTES = 20 * 2**20


def _refused_up_front(call: Callable[[], Any], limit: str = "MAX_FAIR_WORK") -> LimitError:
    work.COUNTER.clear()
    tracemalloc.start()
    try:
        with pytest.raises(LimitError) as info:
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.limit == limit
    assert limit in str(info.value)
    assert sum(work.COUNTER.values()) == 0, dict(work.COUNTER)  # no layer/step/trial done
    assert peak < PEAK_BYTES, f"{peak / 2**20:.1f} MB before the refusal"
    return info.value


# --------------------------------------------------------------------------- the issue's rows
ROWS = [
    pytest.param(lambda: tune(6, 100_000, 0.9), id="tune-6-100000"),
    pytest.param(lambda: tune(6, 200, 0.9), id="tune-6-200"),
    pytest.param(lambda: tune(6, 3000, 0.9), id="tune-6-3000"),
    pytest.param(lambda: tune(1_000_000, 25, 0.9), id="tune-1000000-25"),
    pytest.param(lambda: tune(1000, 100_000, 0.9), id="tune-1000-100000"),  # no p(N, n) loop
    pytest.param(lambda: evaluate_exact(Dice(200_000), 60, max_states=10**9),
                 id="dice-200000-exact"),
    pytest.param(lambda: evaluate(HistoryReroll(7, 4, 10_000), 10), id="tgm-4-10000-exact"),
    pytest.param(lambda: evaluate(HistoryReroll(7, 4, 4), 40), id="tgm-4-4-exact-40"),
    pytest.param(lambda: evaluate(HistoryReroll(2, 2, 10_000), 50, method="montecarlo",
                                  trials=200, rng=PCG32(1)), id="tgm-2-10000-mc"),
    pytest.param(lambda: evaluate(PRD(0.25), 40, method="montecarlo", trials=1_000_000,
                                  rng=PCG32(7)), id="prd-mc-1000000"),
]


#: rows refused up front by another limit since MAX_FAIR_WORK was calibrated to 40 M units
OTHER_LIMIT = {"dice-200000-exact": "MAX_LAYER_CELLS", "prd-mc-1000000": "MAX_MC_CELLS"}


@pytest.mark.parametrize("call", ROWS)
def test_issue_rows_are_refused_up_front(call: Callable[[], Any],
                                         request: pytest.FixtureRequest) -> None:
    row = request.node.callspec.id
    err = _refused_up_front(call, OTHER_LIMIT.get(row, "MAX_FAIR_WORK"))
    assert "use " in str(err)  # says what to do instead


@pytest.mark.parametrize("argv", [
    ["tune", "--values", "6", "--samples", "100000", "--min-entropy", "0.9"],
    ["tune", "--values", "6", "--samples", "200", "--min-entropy", "0.9"],
    ["tune", "--values", "6", "--samples", "3000", "--min-entropy", "0.9"],
    ["tune", "--values", "1000000", "--samples", "25", "--min-entropy", "0.9"],
    ["fairness", "history-reroll:4,10000", "--values", "7", "--samples", "10"],
    ["fairness", "history-reroll:4,4", "--values", "7", "--samples", "40"],
    ["fairness", "history-reroll:2,10000", "--values", "2", "--samples", "50", "--trials",
     "200"],
    ["fairness", "prd:0.25", "--samples", "40", "--trials", "1000000", "--seed", "7"],
])
def test_issue_rows_on_the_command_line(argv: list[str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    work.COUNTER.clear()
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "MAX_FAIR_WORK" in err or ("--trials" in argv and "MAX_MC_CELLS" in err)
    assert sum(work.COUNTER.values()) == 0


def test_help_examples_are_within_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    # the issue's "--trials 100000" PRD row is vectorised now: accepted, within the budget
    for argv in (["fairness", "prd:0.25", "--samples", "40", "--trials", "100000", "--seed",
                  "7", "--json"],
                 ["tune", "--values", "6", "--samples", "20..40", "--min-entropy", "0.9",
                  "--top", "1"],
                 ["fairness", "prd:0.25", "--samples", "40", "--trials", "20000", "--seed",
                  "7", "--json"],
                 ["tune", "--values", "6", "--samples", "20..30", "--min-entropy", "0.9",
                  "--floor", "every"]):
        work.COUNTER.clear()
        assert main(argv) == 0
        assert 0 < sum(work.COUNTER.values()) <= work.MAX_FAIR_WORK
    capsys.readouterr()


def test_a_system_without_a_bound_is_stopped_as_it_runs() -> None:
    class Clock(System):  # a state that grows every draw, and no state_bound
        kind = "clock"

        def __init__(self) -> None:
            self._values = (0, 1)
            self.reset()

        def _init_args(self) -> tuple[Any, ...]:
            return ((), {})

        def probabilities(self) -> tuple[float, ...]:
            return (0.5, 0.5)

        def observe(self, index: int) -> None:
            self._t += 1

        def getstate(self) -> tuple[int]:
            return (self._t,)

        def setstate(self, state: Any) -> None:
            self._t = state[0]

        def reset(self) -> None:
            self._t = 0

    work.COUNTER.clear()
    with pytest.raises(LimitError) as info:
        evaluate_exact(Clock(), 1000, max_work=50_000)
    assert info.value.limit == "MAX_FAIR_WORK"
    per_state = work.GENERIC_STATE_UNITS + 2 * work.GENERIC_TRANSITION_UNITS
    # stopped at the first layer past the budget (layer t has t + 1 states, t <= 1000)
    assert 50_000 < work.COUNTER["generic"] < 50_000 + 1001 * per_state
    work.COUNTER.clear()
    with pytest.raises(LimitError):  # the floor (one state per draw) is checked up front
        evaluate_exact(Clock(), 100_000, max_work=50_000)
    assert work.COUNTER["generic"] == 0


# --------------------------------------------------------------------------- calibration
#: the counted work may exceed the estimate by at most this factor (it never does: the
#: estimates are upper bounds); lattice estimates are also at most LOOSE x the counted work
FACTOR = 2.0
LOOSE = 5.0

LATTICE = [
    ("dynamic-dice", 30),
    ("generalized-deck", 30),
    ("generalized-deck", 40),
]


@pytest.mark.parametrize(("family", "samples"), LATTICE)
def test_lattice_estimate_is_calibrated(family: str, samples: int) -> None:
    from chancekit.fair.tune import FAMILIES

    systems = [FAMILIES[family](6, *p) for p in published_grid()[family]]
    estimate = _check_lattice(systems, samples, 10**9, 0.0, 10**12)
    work.COUNTER.clear()
    ms = evaluate_exact_batch(systems, samples)
    counted = work.COUNTER["lattice"]
    assert counted <= FACTOR * estimate
    assert estimate <= LOOSE * counted
    bound, _ = lattice_estimate(systems, samples)
    assert all(b >= s for b, s in zip(bound, ms[0].states, strict=True))  # an upper bound


def test_tune_estimate_is_calibrated() -> None:
    from chancekit.fair.tune import FAMILIES

    estimate = sum(_check_lattice([FAMILIES[f](6, *p) for p in published_grid()[f]], 30,
                                  10**9, 0.0, 10**12)
                   for f in ("generalized-deck", "dynamic-dice"))
    assert estimate <= work.MAX_FAIR_WORK
    work.COUNTER.clear()
    tune(6, range(20, 31), 0.9)
    assert work.COUNTER["lattice"] <= FACTOR * estimate


@pytest.mark.parametrize("params", [(2, 3), (3, 1), (1, 7), (4, 9), (7, 2)])
def test_deck_bound_holds_for_odd_decks(params: tuple[int, int]) -> None:
    for n in (3, 5):
        deck = GeneralizedDeck(n, *params)
        bound, full = lattice_estimate([deck], 60)
        m = evaluate_exact(deck, 60)
        assert not full
        assert all(b >= s for b, s in zip(bound, m.states, strict=True))


@pytest.mark.parametrize(("per", "refill"), [(6, 1), (6, 6), (12, 5), (3, 2), (2, 5), (1, 1)])
def test_deck_blocks_closed_form_matches_the_rule(per: int, refill: int) -> None:
    blocks, left, want = 1, per, [1]
    for _ in range(50):
        left -= 1
        if left < refill:
            blocks, left = blocks + 1, left + per
        want.append(blocks)
    assert _blocks(per, refill, 50).tolist() == want


GENERIC = [
    (HistoryReroll(7, 4, 4), 5),
    (HistoryReroll(4, 2, 3), 9),
    (PRD(0.25), 120),
    (PityTimer(0.1, hard=10), 120),
    (ErrorAccumulator(0.3), 300),
    (NoRepeatSystem(Dice(4)), 7),
    (NoRepeatSystem(HistoryReroll(4, 1, 2)), 7),
    (Deck(3).copy(), 12),
]


def test_pity_timer_without_ramp_copies() -> None:  # copy() passed ramp=None and failed
    pity = PityTimer(0.1, hard=10)
    assert pity.copy().ramp == 0.0 and repr(pity.copy()) == repr(pity)


@pytest.mark.parametrize(("system", "samples"), GENERIC, ids=repr)
def test_generic_estimate_is_calibrated(system: System, samples: int) -> None:
    if isinstance(system, Deck):
        system.observe(0)  # a started deck goes through the generic engine
    est = generic_estimate(system, samples)
    assert est is not None
    bounds, units = est
    work.COUNTER.clear()
    m = evaluate_exact(system, samples)
    assert work.COUNTER["generic"] <= FACTOR * units
    assert all(b >= s for b, s in zip(bounds, m.states, strict=True))


MONTE_CARLO = [
    (PRD(0.25), 40, 20_000),
    (Dice(6), 25, 5_000),
    (Deck(6), 25, 5_000),
    (DynamicDice(6, 0.355), 25, 5_000),
    (HistoryReroll(7, 4, 4), 20, 300),
    (HistoryReroll(3, 3, 50), 20, 100),
    (ErrorAccumulator(0.3), 30, 300),
]


@pytest.mark.parametrize(("system", "samples", "trials"), MONTE_CARLO, ids=repr)
def test_montecarlo_estimate_is_calibrated(system: System, samples: int, trials: int) -> None:
    estimate = montecarlo_estimate(system, samples, trials)
    work.COUNTER.clear()
    evaluate_montecarlo(system, samples, trials=trials, rng=PCG32(3))
    assert work.COUNTER["montecarlo"] <= FACTOR * estimate


def test_history_reroll_probabilities_closed_form() -> None:
    for n, h, tries in [(7, 4, 4), (3, 3, 5), (2, 2, 10_000), (5, 1, 1)]:
        tgm = HistoryReroll(n, h, tries)
        for seq in ([], [0], [0, 1], [1, 1, 0]):
            tgm.reset()
            for i in seq:
                tgm.observe(i % n)
            held = len(set(tgm.getstate()))
            q = held / n
            outside = math.fsum(q ** k for k in range(tries)) / n
            probs = tgm.probabilities()
            assert math.fsum(probs) == pytest.approx(1.0, abs=1e-12)
            if held < n:
                assert max(p for i, p in enumerate(probs) if i not in tgm.getstate()) == \
                    pytest.approx(outside, rel=1e-12)


def test_progress_is_reported() -> None:
    calls: list[tuple[int, int]] = []
    evaluate(DynamicDice(6, 0.355), 10, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (10, 10) and len(calls) == 10
    calls.clear()
    evaluate(PRD(0.25), 10, method="montecarlo", trials=50, rng=PCG32(1),
             progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (10, 10)


# --------------------------------------------------------------------------- variance_ratio
def _brute_variance(system: System, samples: int) -> float:
    """Expected (1/n) sum_i (c_i - N pi_i)**2 over every sequence, via the protocol."""
    n, target = system.n, system.target()
    total = 0.0
    for seq in itertools.product(range(n), repeat=samples):
        s = system.copy()
        s.reset()
        p = 1.0
        for i in seq:
            p *= s.probabilities()[i]
            if p == 0.0:
                break
            s.observe(i)
        if p:
            c = [seq.count(i) for i in range(n)]
            total += p * sum((c[i] - samples * target[i]) ** 2 for i in range(n)) / n
    return total


def _brute_independent(target: tuple[float, ...], samples: int) -> float:
    n = len(target)
    total = 0.0
    for seq in itertools.product(range(n), repeat=samples):
        p = math.prod(target[i] for i in seq)
        c = [seq.count(i) for i in range(n)]
        total += p * sum((c[i] - samples * target[i]) ** 2 for i in range(n)) / n
    return total


@pytest.mark.parametrize("target", [(0.75, 0.25), (0.5, 0.3, 0.2), (0.25,) * 4])
@pytest.mark.parametrize("samples", [1, 3, 5])
def test_independent_variance_by_brute_force(target: tuple[float, ...], samples: int) -> None:
    assert independent_variance(target, samples) == pytest.approx(
        _brute_independent(target, samples), rel=1e-12)


def test_plain_weighted_roll_has_variance_ratio_one() -> None:
    roll = DynamicDice(2, 1.0, weights=(3, 1))  # a plain 25 % roll: f = 1, no memory
    for m in (evaluate(roll, 30),
              evaluate_exact(roll, 6),
              evaluate(roll, 30, method="montecarlo", trials=20_000, rng=PCG32(5))):
        assert m["variance_ratio"] == pytest.approx(1.0, rel=1e-9 if m.method == "exact"
                                                    else 0.05)


@pytest.mark.parametrize(("system", "samples"), [
    (PRD(0.25), 8), (DynamicDice(3, 0.5, weights=(2, 1, 1)), 5), (Deck(3, weights=(2, 1, 1)), 6),
    (ErrorAccumulator(0.3), 8)], ids=repr)
def test_variance_ratio_by_brute_force(system: System, samples: int) -> None:
    m = evaluate_exact(system, samples)
    want = _brute_variance(system, samples) / _brute_independent(system.target(), samples)
    assert m["variance_ratio"] == pytest.approx(want, rel=1e-9)


def test_prd_variance_ratio_uses_its_own_rate() -> None:
    m = evaluate_exact(PRD(0.25), 30)
    assert m["variance_ratio"] == pytest.approx(m.outcome_variance / (30 * 0.375 / 2))
    assert m["variance_ratio"] > m.outcome_variance / (30 / 4)  # not a uniform coin's


# --------------------------------------------------------------------------- end effects
def test_tune_warns_about_a_deck_fair_only_at_the_last_draw(
        capsys: pytest.CaptureFixture[str]) -> None:
    r = tune(4, 30, 0.9)
    decks = r.winners["generalized-deck"]
    assert decks and all(c.params[0] == 8 and c.end_effect for c in decks)  # 32 cards
    assert not any(c.end_effect for c in r.winners["dynamic-dice"])
    assert len(r.warnings) == len(decks)
    assert decks[0].variance_ratio * 2 < decks[0].mid_match_variance_ratio
    assert main(["tune", "--values", "4", "--samples", "30", "--min-entropy", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "warning: generalized-deck:8,1" in out
    assert main(["tune", "--values", "4", "--samples", "30", "--min-entropy", "0.9",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["warnings"]) == len(decks)
    assert doc["winners"]["generalized-deck"][0]["end_effect"] is True


def test_no_warning_for_the_published_winners() -> None:
    r = tune(6, 25, 0.9)
    assert r.warnings == ()
    die = tune(6, 25, 0.0, systems=("dice",)).winners["dice"][0]
    assert die.variance_ratio == pytest.approx(1.0)
    assert die.mid_match_variance_ratio == pytest.approx(13 / 25)  # mean of t/N over t <= N


# --------------------------------------------------------------------------- reproducibility
#: reported figures pinned to 12 significant digits (docs/reproducibility.md: the fairness
#: figures agree to a relative 1e-12 across Python 3.11-3.13 and numpy 1.26-2.x)
PINNED = [
    (lambda: evaluate_exact(DynamicDice(6, 0.355), 25),
     {"unpredictability": 0.9019984492554713, "guessability": 0.3078976707488398,
      "outcome_variance": 0.45897822685896517, "variance_ratio": 0.13218572933538195,
      "discrepancy": 1.1455318136167678}),
    (lambda: evaluate_exact(PRD(0.25), 30),
     {"unpredictability": 0.7153965274591368, "guessability": 0.7690269000264717,
      "outcome_variance": 1.8949609440624402, "variance_ratio": 0.33688194561110046,
      "discrepancy": 1.1332076129048858}),
    (lambda: evaluate_exact(GeneralizedDeck(6, 1, 6), 25),
     {"unpredictability": 0.9020088335814033, "guessability": 0.275336725685121,
      "outcome_variance": 0.5088545105449688, "variance_ratio": 0.146550099036951,
      "discrepancy": 1.16961264014419}),
]


@pytest.mark.parametrize(("call", "want"), PINNED)
def test_reported_figures_are_pinned_to_12_digits(call: Callable[[], Any],
                                                  want: dict[str, float]) -> None:
    got = call().summary
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=0), key


def test_tune_winners_pinned_to_12_digits() -> None:
    r = tune(6, 25, 0.9)
    got = {c.spec: (c.unpredictability, c.outcome_variance)
           for w in r.winners.values() for c in w}
    assert got == {
        "generalized-deck:1,6": (pytest.approx(0.9020088335814033, rel=1e-12),
                                 pytest.approx(0.5088545105449688, rel=1e-12)),
        "dynamic-dice:0.355": (pytest.approx(0.9019984492554713, rel=1e-12),
                               pytest.approx(0.45897822685896483, rel=1e-12)),
    }


def test_reported_sums_do_not_depend_on_summation_order() -> None:
    # the reported means are math.fsum of the series: exact-rounded, whatever the order
    m = evaluate_exact(DynamicDice(6, 0.355), 25)
    ent = list(m.series["entropy"])
    assert m.unpredictability == math.fsum(ent) / 25 == math.fsum(ent[::-1]) / 25
    assert np.isfinite(m.unpredictability)
