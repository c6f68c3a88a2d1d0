"""Tuning the studio systems (issue #14): ``tune`` over gacha, aim assist, lucky streaks and
Fire Emblem's two-roll hit, checked against brute force over the same grid (the exact
engine per candidate, and every sequence enumerated for the drought); refusals up front by
counted work units; the CLI's ``--json``; hostile input."""

from __future__ import annotations

import itertools
import json
import math

import jsonschema
import pytest

from chancekit.cli.main import main
from chancekit.cli.schemas import SCHEMAS
from chancekit.errors import ChancekitError, InvalidValueError, LimitError
from chancekit.fair import (
    AimAssist,
    GachaPity,
    LuckyStreak,
    TwoRollHit,
    evaluate_exact,
    system_from_spec,
    tune,
    work,
)
from chancekit.fair.tune import STUDIO_FAMILIES, studio_grid

GRIDS = {
    "gacha": [(0.1, 3, 0.2, 6), (0.1, 4, 0.1, 6), (0.1, 2, 0.3, 5), (0.15, 3, 0.1, 8)],
    "aim-assist": [(0.5, 0.0, 1.0), (0.5, 0.1, 0.9), (0.5, 0.2, 1.0), (0.4, 0.3)],
    "lucky-streak": [(0.2, 1), (0.3, 2), (0.5, 1), (0.4, 3)],
    "two-roll": [(30,), (50,), (70,)],
}
N = 8


def _sequences(system, samples):
    """Every sequence of draws with its probability, by brute force from the start state."""
    out = []

    def walk(sys_, seq, prob):
        if len(seq) == samples:
            out.append((tuple(seq), prob))
            return
        for i, q in enumerate(sys_.probabilities()):
            if q > 0:
                nxt = sys_.copy()
                nxt.observe(i)
                walk(nxt, [*seq, i], prob * q)

    walk(system.copy(), [], 1.0)
    return out


def _longest_drought(system, samples):
    total = 0.0
    for seq, prob in _sequences(system, samples):
        run = best = 0
        for x in seq:
            run = run + 1 if x == 0 else 0
            best = max(best, run)
        total += prob * best
    return total


@pytest.mark.parametrize("family", sorted(GRIDS))
def test_variance_winner_is_the_brute_force_pick(family):
    grid = GRIDS[family]
    r = tune(None, N, 0.3, systems=(family,), grid={family: grid})
    build = STUDIO_FAMILIES[family].build
    scores = {}
    for p in grid:
        m = evaluate_exact(build(*p), N)
        if m.unpredictability >= 0.3:
            scores[p] = m.summary["variance_ratio"]
    best = min(scores.values())
    expect = {p for p, v in scores.items() if math.isclose(v, best, rel_tol=1e-9)}
    assert {c.params for c in r.winners[family]} == expect
    for c in r.tables[family]:  # every figure is the engine's
        m = evaluate_exact(build(*c.params), N)
        assert c.variance_ratio == pytest.approx(m.summary["variance_ratio"], rel=1e-12)
        assert c.unpredictability == pytest.approx(m.unpredictability, rel=1e-12)
        assert c.feasible == (c.params in scores)


@pytest.mark.parametrize("family", sorted(GRIDS))
def test_drought_is_exact_and_its_winner_the_brute_force_pick(family):
    grid = GRIDS[family]
    r = tune(None, N, systems=(family,), grid={family: grid}, objective="drought")
    build = STUDIO_FAMILIES[family].build
    brute = {p: _longest_drought(build(*p), N) for p in grid}
    for c in r.tables[family]:
        assert c.longest_drought == pytest.approx(brute[c.params], rel=1e-12, abs=1e-12)
    best = min(brute.values())
    assert {c.params for c in r.winners[family]} == {
        p for p, v in brute.items() if math.isclose(v, best, rel_tol=1e-9)}


def test_rate_and_worst_case_constraints():
    grid = GRIDS["gacha"]
    rates = {p: GachaPity(p[0], soft_start=p[1], ramp=p[2], hard=p[3]).rare_rate()
             for p in grid}
    target = rates[grid[0]]
    r = tune(None, N, systems=("gacha",), grid={"gacha": grid}, rate=target, rate_tol=0.01)
    for c in r.tables["gacha"]:
        assert c.long_run_rate == pytest.approx(rates[c.params])
        assert c.feasible == (abs(rates[c.params] - target) <= 0.01)
    # worst case: the first try whose chance is 1 (soft pity can reach 1 before the hard)
    r = tune(None, N, systems=("gacha",), grid={"gacha": grid}, worst=5)
    worst = {c.params: c.worst_case for c in r.tables["gacha"]}
    assert worst == {(0.1, 3, 0.2, 6): 6, (0.1, 4, 0.1, 6): 6, (0.1, 2, 0.3, 5): 5,
                     (0.15, 3, 0.1, 8): 8}
    assert [c.params for c in r.winners["gacha"]] == [(0.1, 2, 0.3, 5)]
    aim = tune(None, N, systems=("aim-assist",), grid={"aim-assist": GRIDS["aim-assist"]})
    assert {c.params: c.worst_case for c in aim.tables["aim-assist"]} == {
        (0.5, 0.0, 1.0): math.inf, (0.5, 0.1, 0.9): math.inf, (0.5, 0.2, 1.0): 4,
        (0.4, 0.3): 3}


def test_worst_case_matches_the_chance_rule():
    for p in studio_grid()["gacha"]:
        g = GachaPity(p[0], soft_start=p[1], ramp=p[2], hard=p[3])
        k = next(k for k in range(1, 1000) if g._pity.chance(k) >= 1.0)
        assert STUDIO_FAMILIES["gacha"].worst(g) == k
    for p in studio_grid()["aim-assist"]:
        a = AimAssist(*p)
        k = next((k for k in range(1, 1000) if a.chance(k) >= 1.0), math.inf)
        assert STUDIO_FAMILIES["aim-assist"].worst(a) == k


def test_default_grids_tune_and_specs_read_back():
    r = tune(None, 12, systems=("aim-assist", "lucky-streak", "two-roll"))
    assert r.values == 2 and r.objective == "variance"
    for fam in ("aim-assist", "lucky-streak", "two-roll"):
        assert len(r.tables[fam]) == len(studio_grid()[fam])
        for c in r.winners[fam]:
            assert repr(system_from_spec(c.spec, 2)) == repr(
                STUDIO_FAMILIES[fam].build(*c.params))
    g = tune(None, 12, systems=("gacha",))
    assert g.values == 3 and len(g.tables["gacha"]) == 18
    assert isinstance(system_from_spec(g.best().spec, 3), GachaPity)


def test_estimate_is_never_below_the_counted_work():
    work.COUNTER.clear()
    tune(None, 14, systems=("gacha", ), grid={"gacha": GRIDS["gacha"]})
    tune(None, 14, systems=("lucky-streak", "two-roll", "aim-assist"),
         grid={k: GRIDS[k] for k in ("lucky-streak", "two-roll", "aim-assist")})
    counted = sum(work.COUNTER.values())
    assert counted > 0
    # with the limit just under what was counted, both searches are refused up front
    for fams in (("gacha",), ("lucky-streak", "two-roll", "aim-assist")):
        work.COUNTER.clear()
        tune(None, 14, systems=fams, grid={k: GRIDS[k] for k in fams})
        done = sum(work.COUNTER.values())
        work.COUNTER.clear()
        with pytest.raises(LimitError) as e:
            tune(None, 14, systems=fams, grid={k: GRIDS[k] for k in fams},
                 max_work=int(done) - 1)
        assert e.value.limit == "MAX_FAIR_WORK"
        assert sum(work.COUNTER.values()) == 0


@pytest.mark.parametrize("samples,fams", [(200, ("gacha",)), (100_000, ("two-roll",)),
                                          (500, ("aim-assist", "lucky-streak"))])
def test_too_much_work_is_refused_before_starting(samples, fams):
    work.COUNTER.clear()
    with pytest.raises(LimitError) as e:
        tune(None, samples, systems=fams)
    assert e.value.limit == "MAX_FAIR_WORK" and e.value.value > work.MAX_FAIR_WORK
    assert sum(work.COUNTER.values()) == 0


def test_gacha_state_bound_holds():
    for g in (GachaPity(0.1, soft_start=3, ramp=0.2, hard=6), GachaPity(0.4),
              GachaPity(0.5, hard=2, featured=0.3)):
        m = evaluate_exact(g, 20)
        assert all(s <= g.state_bound(t) for t, s in enumerate(m.states, start=1))


def test_robust_lengths_are_prefixes():
    grid = {"lucky-streak": GRIDS["lucky-streak"]}
    r = tune(None, {6: 1, 8: 3}, systems=("lucky-streak",), grid=grid)
    a = tune(None, 6, systems=("lucky-streak",), grid=grid)
    b = tune(None, 8, systems=("lucky-streak",), grid=grid)
    by = {c.params: c for c in r.tables["lucky-streak"]}
    for ca in a.tables["lucky-streak"]:
        cb = next(c for c in b.tables["lucky-streak"] if c.params == ca.params)
        for field in ("variance_ratio", "longest_drought", "unpredictability"):
            want = 0.25 * getattr(ca, field) + 0.75 * getattr(cb, field)
            assert getattr(by[ca.params], field) == pytest.approx(want, rel=1e-12)


def test_binary_families_match_classes():
    assert isinstance(STUDIO_FAMILIES["lucky-streak"].build(0.3, 2), LuckyStreak)
    assert isinstance(STUDIO_FAMILIES["two-roll"].build(70), TwoRollHit)
    assert len(list(itertools.chain(*studio_grid().values()))) == 72


@pytest.mark.parametrize("call,words", [
    (lambda: tune(None, 10, systems=("gacha",), grid={"gacha": [(1.5, 3, 0.1, 6)]}),
     "base"),
    (lambda: tune(None, 10, systems=("gacha",), grid={"gacha": [(0.1, 3)]}),
     "(base, soft_start, ramp, hard[, featured])"),
    (lambda: tune(None, 10, systems=("aim-assist",), grid={"aim-assist": [(0.9, 0.1, 0.5)]}),
     "cap"),
    (lambda: tune(None, 10, systems=("two-roll",), grid={"two-roll": [(100,)]}), "displayed"),
    (lambda: tune(None, 10, systems=("lucky-streak",), grid={"lucky-streak": [(0.3, 0)]}),
     "cap"),
    (lambda: tune(6, 10, systems=("gacha",)), "3 for gacha"),
    (lambda: tune(None, 10, systems=("gacha", "two-roll")), "same number of values"),
    (lambda: tune(None, 10, systems=("dice",)), "values must be"),
    (lambda: tune(2, 10, systems=("dice", "two-roll"), objective="drought"), "no success"),
    (lambda: tune(None, 10, systems=("two-roll",), objective="streaks"), "'drought'"),
    (lambda: tune(None, 10, systems=("two-roll",), rate=1.5), "rate must be"),
    (lambda: tune(None, 10, systems=("two-roll",), rate=0.5, rate_tol=-1), "rate_tol"),
    (lambda: tune(None, 10, systems=("two-roll",), rate_tol=0.1), "given with rate="),
    (lambda: tune(None, 10, systems=("two-roll",), worst=0), "worst"),
])
def test_hostile_input_names_the_value(call, words):
    with pytest.raises(ChancekitError) as e:
        call()
    assert words in str(e.value)
    assert isinstance(e.value, InvalidValueError)


def test_cli_studio_tune_json(capsys):
    argv = ["tune", "--systems", "gacha", "--samples", "8", "--grid",
            "gacha:0.1,2..4,0.1/0.2,5/6", "--worst", "5", "--rate", "0.3", "--rate-tol",
            "0.2", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(SCHEMAS["tune"]).validate(doc)
    assert doc["values"] == 3 and doc["worst"] == 5 and doc["rate"] == 0.3
    assert len(doc["tables"]["gacha"]) == 12
    api = tune(None, 8, systems=("gacha",), worst=5, rate=0.3, rate_tol=0.2,
               grid={"gacha": [(0.1, s, r, h) for s in (2, 3, 4) for r in (0.1, 0.2)
                        for h in (5, 6)]})
    assert doc["best"] == api.best().spec and doc["winners"]["gacha"]
    assert all(c["worst_case"] <= 5 for c in doc["winners"]["gacha"])


def test_cli_studio_tune_text_and_errors(capsys):
    assert main(["tune", "--systems", "two-roll,lucky-streak", "--samples", "10",
                 "--objective", "drought", "--rate", "0.6", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "winners" in out and "best overall: " in out and "drought" in out
    assert main(["tune", "--systems", "gacha", "--samples", "8", "--grid", "gacha:x,1"]) == 1
    assert "--grid must be FAMILY:P,P,..." in capsys.readouterr().err
    assert main(["tune", "--systems", "dice", "--samples", "8"]) == 1
    assert "values must be" in capsys.readouterr().err
