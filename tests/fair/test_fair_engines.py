"""Exact engine vs brute force and Monte Carlo; the published tuning result; CLI."""

from __future__ import annotations

import itertools
import json
import math
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction

import pytest

from chancekit.cli.main import main
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
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
    evaluate,
    evaluate_exact,
    evaluate_montecarlo,
    partition_count,
    tune,
)
from chancekit.rng import PCG32


# ---------------------------------------------------------------- independent brute force
def _deck_law(n, s, r, w, seq):
    """Next-draw law after the draws in seq, by handling physical cards (the brief's rule)."""
    cards = [s * wi for wi in w]
    for v in seq:
        cards[v] -= 1
        if sum(cards) < r:
            cards = [c + s * wi for c, wi in zip(cards, w, strict=False)]
    tot = sum(cards)
    return [Fraction(c, tot) for c in cards]


def _dd_law(n, f, w, seq):
    probs = [Fraction(wi) / sum(w) for wi in w]
    for v in seq:
        probs[v] *= f
        tot = sum(probs)
        probs = [p / tot for p in probs]
    return probs


def _brute(n, N, law, target):
    """Enumerate all n**N sequences; return (unpredictability, guess, variance, disc)."""
    ent = [0.0] * N
    guess = [0.0] * N
    var = disc = 0.0
    for seq in itertools.product(range(n), repeat=N):
        prob = Fraction(1)
        for t in range(N):
            p = law(seq[:t])
            ent[t] += float(prob) * -sum(float(q) * math.log(q) for q in p if q > 0) / math.log(n)
            guess[t] += float(prob) * float(max(p))
            prob *= p[seq[t]]
            if prob == 0:
                break
        if prob == 0:
            continue
        c = [seq.count(i) for i in range(n)]
        dev = [ci - N * ti for ci, ti in zip(c, target, strict=False)]
        var += float(prob) * sum(d * d for d in dev) / n
        disc += float(prob) * max(abs(d) for d in dev)
    # entropy terms were accumulated along each sequence: divide by how often each prefix
    # was visited (n**(N-1-t) extensions) -- easier: recompute by prefixes
    return var, disc


def _brute_prefix(n, N, law):
    ent, guess = [], []
    for t in range(N):
        e = g = 0.0
        for pre in itertools.product(range(n), repeat=t):
            prob = Fraction(1)
            for k in range(t):
                prob *= law(pre[:k])[pre[k]]
            if prob == 0:
                continue
            p = law(pre)
            e += float(prob) * -sum(float(q) * math.log(q) for q in p if q > 0) / math.log(n)
            g += float(prob) * float(max(p))
        ent.append(e)
        guess.append(g)
    return sum(ent) / N, sum(guess) / N


CASES = [
    (Deck(3), lambda s: _deck_law(3, 1, 1, (1, 1, 1), s), 5),
    (GeneralizedDeck(2, 2, 3), lambda s: _deck_law(2, 2, 3, (1, 1), s), 6),
    (GeneralizedDeck(3, 1, 4), lambda s: _deck_law(3, 1, 4, (1, 1, 1), s), 5),
    (GeneralizedDeck(3, 1, 2, weights=(2, 1, 1)), lambda s: _deck_law(3, 1, 2, (2, 1, 1), s), 5),
    (DynamicDice(3, 0.25), lambda s: _dd_law(3, Fraction(1, 4), (1, 1, 1), s), 5),
    (DynamicDice(2, 0.5), lambda s: _dd_law(2, Fraction(1, 2), (1, 1), s), 7),
    (DynamicDice(3, 0.5, weights=(3, 2, 1)), lambda s: _dd_law(3, Fraction(1, 2), (3, 2, 1), s),
     4),
    (Dice(4), lambda s: [Fraction(1, 4)] * 4, 4),
]


@pytest.mark.parametrize("system, law, N", CASES)
def test_exact_equals_brute_force_over_all_sequences(system, law, N):
    m = evaluate_exact(system, N)
    var, disc = _brute(system.n, N, law, system.target())
    ent, guess = _brute_prefix(system.n, N, law)
    assert m["outcome_variance"] == pytest.approx(var, abs=1e-12)
    assert m["discrepancy"] == pytest.approx(disc, abs=1e-12)
    assert m["unpredictability"] == pytest.approx(ent, abs=1e-12)
    assert m["guessability"] == pytest.approx(guess, abs=1e-12)


@pytest.mark.parametrize("system", [PRD(0.3), PityTimer(0.2, soft_start=2, ramp=0.3, hard=4),
                                    ErrorAccumulator(0.4), HistoryReroll(3, 1, 2),
                                    NoRepeatSystem(DynamicDice(3, 0.5))])
def test_generic_exact_equals_brute_force(system):
    N = 5

    def law(seq):
        s = system.copy()
        s.reset()
        for v in seq:
            s.observe(v)
        return [Fraction(p) for p in s.probabilities()]

    m = evaluate_exact(system, N)
    var, _disc = _brute(system.n, N, law, system.target())
    assert m["outcome_variance"] == pytest.approx(var, abs=1e-9)
    assert m["unpredictability"] == pytest.approx(_brute_prefix(system.n, N, law)[0], abs=1e-9)


def test_published_result_exact_to_four_decimals():
    assert round(evaluate(GeneralizedDeck(6, 1, 6), 25).outcome_variance, 4) == 0.5089
    assert round(evaluate(DynamicDice(6, 0.355), 25).outcome_variance, 4) == 0.4590
    r = tune(6, 25, 0.9)
    (g,) = r.winners["generalized-deck"]
    (d,) = r.winners["dynamic-dice"]
    assert (g.params, round(g.outcome_variance, 4)) == ((1, 6), 0.5089)
    assert (d.params, round(d.outcome_variance, 4)) == ((0.355,), 0.4590)
    assert g.unpredictability >= 0.9 and d.unpredictability >= 0.9
    assert r.best().spec == "dynamic-dice:0.355"
    # every feasible entry is no better than the winner, every better one is infeasible
    for fam, table in r.tables.items():
        best = r.winners[fam][0].outcome_variance
        for c in table:
            assert (not c.feasible) or c.outcome_variance >= best - 1e-12


def test_dice_closed_form_and_deck_states():
    m = evaluate_exact(Dice(6), 25)
    assert m.outcome_variance == pytest.approx(25 * 5 / 36, rel=1e-12)
    assert m["variance_ratio"] == pytest.approx(1.0)
    assert m.unpredictability == pytest.approx(1.0)
    assert evaluate_exact(Deck(6), 25).states == (1,) * 25  # one symmetric state per draw


@pytest.mark.parametrize("total, parts", [(0, 3), (5, 1), (7, 3), (10, 4), (12, 6)])
def test_partition_count_by_brute_force(total, parts):
    brute = {tuple(sorted(c)) for c in itertools.product(range(total + 1), repeat=parts)
             if sum(c) == total}
    assert partition_count(total, parts) == len(brute)
    if parts <= 6:
        assert evaluate_exact(DynamicDice(max(parts, 2), 0.5), max(total, 1)).states[-1] == \
            partition_count(max(total, 1), max(parts, 2))


@pytest.mark.parametrize("system", [Dice(6), Deck(6), GeneralizedDeck(6, 1, 6),
                                    GeneralizedDeck(4, 3, 2, weights=(1, 2, 2, 3)),
                                    DynamicDice(6, 0.355), DynamicDice(3, 0.2, weights=(5, 3, 2)),
                                    PRD(0.25), PityTimer(0.1, soft_start=3, ramp=0.2, hard=6),
                                    ErrorAccumulator(0.3), HistoryReroll(4, 2, 3),
                                    NoRepeatSystem(DynamicDice(3, 0.5))])
def test_exact_vs_monte_carlo_within_4_se(system):
    N = 12
    ex = evaluate_exact(system, N)
    mc = evaluate_montecarlo(system, N, trials=3000, rng=PCG32(2024))
    for k in ("unpredictability", "guessability", "outcome_variance", "discrepancy"):
        se = mc.se[k]
        assert abs(mc[k] - ex[k]) <= 4 * se + 1e-9, (k, mc[k], ex[k], se)


def test_monte_carlo_reproducible_and_streak_metrics():
    a = evaluate_montecarlo(Dice(6), 20, trials=2000, rng=PCG32(7))
    b = evaluate_montecarlo(Dice(6), 20, trials=2000, rng=PCG32(7))
    assert a.summary == b.summary
    # a die: P(repeat) = 1/6, P(triple) = 1/36, autocorrelation 0
    assert abs(a["p_repeat"] - 1 / 6) < 4 * a.se["p_repeat"]
    assert abs(a["p_triple"] - 1 / 36) < 4 * a.se["p_triple"]
    assert abs(a["autocorrelation"]) < 4 * a.se["autocorrelation"]
    # a deck never repeats within a pass; its longest drought is at most 2n - 2
    d = evaluate_montecarlo(Deck(6), 24, trials=500, rng=PCG32(1))
    assert d["longest_drought"] <= 10 and d.series["p_gap"][10] == 0.0
    nr = evaluate_montecarlo(NoRepeatSystem(Dice(6)), 20, trials=500, rng=PCG32(1))
    assert nr["p_repeat"] == 0.0 and nr["autocorrelation"] == pytest.approx(-0.2)


def test_pruning_reports_dropped_mass_and_limit_is_quick():
    full = evaluate_exact(DynamicDice(6, 0.2), 30)
    pruned = evaluate_exact(DynamicDice(6, 0.2), 30, prune=1e-9)
    assert 0 < pruned.dropped < 1e-5
    assert pruned.states[-1] < full.states[-1]
    assert pruned.outcome_variance == pytest.approx(full.outcome_variance, abs=1e-4)
    with pytest.raises(LimitError, match="--trials") as e:
        evaluate_exact(DynamicDice(20, 0.5), 100)
    assert e.value.limit == "max_states"
    with pytest.raises(LimitError):
        evaluate_exact(HistoryReroll(7, 4, 4), 12, max_states=1000)


@pytest.mark.parametrize("call, exc", [
    (lambda: evaluate_exact(Dice(6), 0), InvalidValueError),
    (lambda: evaluate(Dice(6), 5, method="guess"), InvalidValueError),
    (lambda: evaluate_exact("dice", 5), InvalidTypeError),
    (lambda: tune(1, 25, 0.9), InvalidValueError),
    (lambda: tune(6, 0, 0.9), InvalidValueError),
    (lambda: tune(6, 25, 1.5), InvalidValueError),
    (lambda: tune(6, 25, -0.1), InvalidValueError),
    (lambda: tune(6, 25, 0.9, grid={"dynamic-dice": []}), InvalidValueError),
    (lambda: tune(6, 25, 0.9, grid={"dynamic-dice": [(1.5,)]}), InvalidValueError),
    (lambda: tune(6, 25, 0.9, systems=("coin",)), InvalidValueError),
    (lambda: tune(6, [], 0.9), InvalidValueError),
    (lambda: tune(6, 25, 0.9, floor="median"), InvalidValueError),
    (lambda: tune(6, 25, 0.9, executor=object()), InvalidTypeError),
])
def test_bad_input(call, exc):
    with pytest.raises(exc):
        call()


def test_ties_are_reported():
    # s = 5 gives 30 cards, so no refill within 20 draws for any r <= 10: all r tie
    r = tune(6, 20, 0.0, systems=("generalized-deck",),
             grid={"generalized-deck": [(5, 1), (5, 2), (5, 3)]})
    assert [c.params for c in r.winners["generalized-deck"]] == [(5, 1), (5, 2), (5, 3)]
    assert {c.rank for c in r.tables["generalized-deck"]} == {1}


def test_robust_tuning_average_and_every():
    grid = {"dynamic-dice": [(0.3,), (0.5,), (0.7,)]}
    lengths = {20: 1.0, 30: 1.0}
    avg = tune(6, lengths, 0.9, systems=("dynamic-dice",), grid=grid)
    every = tune(6, lengths, 0.9, systems=("dynamic-dice",), grid=grid, floor="every")
    per = {N: {f: evaluate_exact(DynamicDice(6, f), N) for (f,) in grid["dynamic-dice"]}
           for N in lengths}
    for c in avg.tables["dynamic-dice"]:
        (f,) = c.params
        assert c.outcome_variance == pytest.approx(
            (per[20][f].outcome_variance + per[30][f].outcome_variance) / 2)
        assert c.unpredictability == pytest.approx(
            (per[20][f].unpredictability + per[30][f].unpredictability) / 2)
        assert c.min_unpredictability == pytest.approx(
            min(per[20][f].unpredictability, per[30][f].unpredictability))
    feasible_every = {c.params for c in every.tables["dynamic-dice"] if c.feasible}
    assert all(c.min_unpredictability >= 0.9 for c in every.tables["dynamic-dice"]
               if c.params in feasible_every)
    assert tune(6, range(20, 23), 0.9, systems=("dynamic-dice",), grid=grid).lengths == (
        (20, 1 / 3), (21, 1 / 3), (22, 1 / 3))


def _small_grid():
    return {"generalized-deck": [(s, r) for s in (1, 2) for r in (1, 4, 6)],
            "dynamic-dice": [(0.255,), (0.355,), (0.455,)]}


def _same(a, b):
    # chunks change the batch, so floats may differ in the last ulp
    for fam in b.tables:
        assert [c.spec for c in a.winners[fam]] == [c.spec for c in b.winners[fam]]
        for x, y in zip(a.tables[fam], b.tables[fam], strict=True):
            assert x.spec == y.spec and x.rank == y.rank
            assert x.outcome_variance == pytest.approx(y.outcome_variance, rel=1e-12)


def test_parallel_with_process_pool_matches_serial():
    serial = tune(6, 25, 0.9, grid=_small_grid())
    seen = []
    with ProcessPoolExecutor(max_workers=2) as ex:
        par = tune(6, 25, 0.9, grid=_small_grid(), executor=ex, chunk_size=2,
                   progress=lambda d, t: seen.append((d, t)))
    _same(par, serial)
    assert seen[-1] == (9, 9)


def test_parallel_with_dask_local_cluster():
    distributed = pytest.importorskip("distributed", reason="dask.distributed not installed "
                                      "(optional extra 'distributed')")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        par = tune(6, 25, 0.9, grid=_small_grid(), executor=client.get_executor(),
                   chunk_size=3)
    _same(par, tune(6, 25, 0.9, grid=_small_grid()))


# ---------------------------------------------------------------- command line
def test_cli_tune_json_and_plot(tmp_path, capsys):
    png = tmp_path / "t.png"
    assert main(["tune", "--values", "6", "--samples", "25", "--min-entropy", "0.9",
                 "--json", "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winners"]["generalized-deck"][0]["params"] == [1, 6]
    assert out["winners"]["dynamic-dice"][0]["params"] == [0.355]
    assert png.stat().st_size > 10_000


def test_cli_tune_text(capsys):
    assert main(["tune", "--values", "6", "--samples", "20..22", "--min-entropy", "0.9",
                 "--systems", "dynamic-dice", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "winners" in out and "dynamic-dice" in out and "20..22" in out


def test_cli_fairness(capsys, tmp_path):
    assert main(["fairness", "dynamic-dice:0.355", "--values", "6", "--samples", "25"]) == 0
    assert "0.458978" in capsys.readouterr().out
    assert main(["fairness", "deck", "--values", "6", "--samples", "12", "--trials", "500",
                 "--seed", "3", "--json", "--plot", str(tmp_path / "f.png")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "montecarlo" and out["seed"] == 3 and "p_repeat" in out["se"]
    assert main(["fairness", "dice", "--values", "20", "--samples", "100"]) == 1
    assert "--trials" in capsys.readouterr().err
    assert main(["fairness", "wat", "--samples", "5"]) == 1


def test_cli_simulate(capsys):
    assert main(["simulate", "deck", "--values", "7", "-n", "14", "--seed", "5"]) == 0
    seq = [int(x) for x in capsys.readouterr().out.split()]
    assert sorted(seq[:7]) == list(range(1, 8)) and sorted(seq[7:]) == list(range(1, 8))
    assert main(["simulate", "deck", "--values", "7", "-n", "14", "--seed", "5"]) == 0
    assert [int(x) for x in capsys.readouterr().out.split()] == seq
    assert main(["simulate", "ddice:0.3", "--values", "4", "-n", "5", "--seed", "1",
                 "--stream", "level-1", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["draws"]) == 5
    assert main(["simulate", "gdeck:0,1", "--values", "4", "--seed", "1"]) == 1


def test_tune_chunks_automatically_to_bound_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from chancekit.fair.exact import MAX_LAYER_CELLS, partition_count

    tune_module = importlib.import_module("chancekit.fair.tune")  # the module, not tune()

    whole = tune(6, 25, 0.9, grid=_small_grid())
    cells = partition_count(25, 6) * 6
    # pretend the limit is tiny: every dynamic-dice chunk then holds one candidate
    monkeypatch.setattr(tune_module, "MAX_LAYER_CELLS", 4 * cells)
    sizes: list[int] = []
    original = tune_module._evaluate_chunk

    def spy(fam, params, *args):
        if fam == "dynamic-dice":
            sizes.append(len(params))
        return original(fam, params, *args)

    monkeypatch.setattr(tune_module, "_evaluate_chunk", spy)
    chunked = tune(6, 25, 0.9, grid=_small_grid())
    assert sizes and set(sizes) == {1}
    _same(chunked, whole)
    assert tune_module._auto_chunk("dynamic-dice", 6, 100) * partition_count(100, 6) * 6 \
        <= MAX_LAYER_CELLS // 4
