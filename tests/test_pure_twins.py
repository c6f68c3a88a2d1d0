"""numpy is optional (issue #28, item 4): each vectorised path has a pure-Python twin,
chosen by the one switch ``chancekit._numpy.numpy()``, and the twins give the same answers
bit for bit -- alias tables, PCG32 bulk draws, the exact fairness metrics, Monte Carlo.

Each test runs the same call with numpy (as installed) and with the switch turned off
(``_numpy._module = None``, what a process without numpy sees), and compares. The tests of
``tests/web/test_no_numpy.py`` do the same for the web jobs in a process where numpy cannot
be imported at all.
"""

from __future__ import annotations

import ast
import functools
import math
import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chancekit._numpy as switch
from chancekit import PCG32, Streams
from chancekit.errors import ChancekitError
from chancekit.fair import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    GeneralizedDeck,
    HistoryReroll,
    PityTimer,
    evaluate_exact,
    evaluate_exact_batch,
    evaluate_montecarlo,
    simulate_matches,
)
from chancekit.fair import exact as fair_exact
from chancekit.rng.pcg32 import PurePCG32
from chancekit.rng.source import randbelow_array, randbelow_list, u32_array, u32_list
from chancekit.sampling import AliasTable
from chancekit.sampling._weights import NUMPY_FROM, array_weights

SRC = Path(__file__).resolve().parents[1] / "src" / "chancekit"


def both(fn: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``fn()`` with numpy, then with the switch off."""
    assert switch.numpy() is np
    fast = fn()
    with monkeypatch.context() as m:
        m.setattr(switch, "_module", None)
        assert switch.numpy() is None and not switch.available()
        pure = fn()
    return fast, pure


@functools.cache
def _libm_agrees() -> bool:
    """numpy's exp/log equal math's here (they call the C library unless numpy uses its
    own AVX-512 kernels); the fairness twins are then equal bit for bit, else to rounding."""
    rng = random.Random(5)
    xs = [rng.random() ** rng.randint(1, 40) for _ in range(20_000)]
    es = [rng.uniform(-700.0, 0.0) for _ in range(20_000)]
    return (np.log(np.array(xs)).tolist() == [math.log(x) for x in xs]
            and np.exp(np.array(es)).tolist() == [math.exp(x) for x in es])


def same_floats(a: Any, b: Any) -> None:
    if _libm_agrees():
        assert a == b
    else:  # pragma: no cover - numpy's own exp/log kernels
        assert a == pytest.approx(b, rel=1e-12, abs=1e-300)


# -- the switch ------------------------------------------------------------------------------
def test_the_switch_turns_numpy_off_and_names_what_needs_it(monkeypatch) -> None:
    monkeypatch.setattr(switch, "_module", None)
    with pytest.raises(switch.NumpyMissingError, match="u32_list") as info:
        PCG32(1).u32_array(3)
    assert isinstance(info.value, ChancekitError) and isinstance(info.value, ImportError)
    lazy = switch.lazy("the streak metrics")
    with pytest.raises(switch.NumpyMissingError, match="the streak metrics needs numpy"):
        lazy.zeros(3)


def test_chancekit_pure_turns_numpy_off_in_a_fresh_process(tmp_path) -> None:
    import json
    import os
    import subprocess
    import sys

    code = ("import json, sys, chancekit._numpy as s, chancekit.fair as f; "
            "m = f.evaluate(f.DynamicDice(6, 0.355), 10); "
            "print(json.dumps([s.numpy() is None, 'numpy' in sys.modules]))")
    env = {**os.environ, "CHANCEKIT_PURE": "1", "PYTHONPATH": str(SRC.parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120, check=True).stdout
    assert json.loads(out) == [True, False]


def test_numpy_is_imported_at_module_level_only_by_the_numpy_helpers() -> None:
    """Every other module imports numpy inside the functions that use it (through
    ``chancekit._numpy``), so chancekit imports where numpy does not."""
    allowed = {"sampling/_limbs.py", "sampling/_wide.py", "_numpy.py"}
    bad = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only; `if TYPE_CHECKING:` bodies are skipped
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.partition(".")[0] in ("numpy", "matplotlib") for n in names) \
                    and rel not in allowed:
                bad.append(rel)
    assert not bad, bad


# -- PCG32 bulk draws ------------------------------------------------------------------------
class Scripted:
    """A minimal bit source: only next_u32."""

    def __init__(self, seed: int) -> None:
        self.g = PurePCG32(seed, 3)

    def next_u32(self) -> int:
        return self.g.next_u32()


@pytest.mark.parametrize("make", [lambda: PCG32(42, 54), lambda: PurePCG32(42, 54),
                                  lambda: Streams("campaign")["loot"], lambda: Scripted(7)])
@pytest.mark.parametrize("bound", [1, 2, 6, 7, 1000, 2**31 + 1, 3 * 2**30, 2**32 - 1, 2**32])
def test_the_list_draws_equal_the_array_draws(make, bound) -> None:
    a, b = make(), make()
    assert u32_list(a, 700) == u32_array(b, 700).tolist()
    assert randbelow_list(a, bound, 900) == randbelow_array(b, bound, 900).tolist()
    assert a.next_u32() == b.next_u32()  # the same words consumed


def test_the_list_draws_refuse_what_the_arrays_refuse() -> None:
    with pytest.raises(ChancekitError, match="2\\*\\*32"):
        randbelow_list(PCG32(1), 2**32 + 1, 3)
    with pytest.raises(ChancekitError):
        u32_list(PCG32(1), -1)


# -- alias tables ----------------------------------------------------------------------------
def _weights(kind: str, n: int, seed: int) -> Any:
    rng = random.Random(seed)
    if kind == "int":
        return [rng.randrange(0, 10**6) for _ in range(n)]
    if kind == "big":
        return {f"x{i}": rng.randrange(0, 2**70) for i in range(n)}
    if kind == "float":
        return [rng.random() ** 3 for _ in range(n)]
    return {i: rng.choice([0.0, 1e-300, 0.1, 1.0, 1e300, 3.5]) for i in range(n)}


@pytest.mark.parametrize("kind", ["int", "big", "float", "wild"])
@pytest.mark.parametrize("n", [NUMPY_FROM, 1000])
def test_alias_tables_are_identical_without_numpy(kind, n, monkeypatch) -> None:
    w = _weights(kind, n, n)
    if kind != "big":
        assert array_weights(w) is not None  # with numpy: the vectorised build
    fast, pure = both(lambda: AliasTable(w), monkeypatch)
    assert (fast.labels, fast.capacity, fast.thresholds, fast.aliases) == (
        pure.labels, pure.capacity, pure.thresholds, pure.aliases)
    assert fast == pure and fast.realized() == pure.realized()
    total = sum(pure._weights)
    assert pure.realized() == {lab: Fraction(x, total)
                               for lab, x in zip(pure.labels, pure._weights, strict=True)}


def test_array_weights_declines_without_numpy(monkeypatch) -> None:
    monkeypatch.setattr(switch, "_module", None)
    assert array_weights(list(range(1, 1000))) is None


# -- the exact fairness engine ---------------------------------------------------------------
SYSTEMS = [
    ([Dice(6)], 25), ([Deck(6)], 25), ([GeneralizedDeck(6, 1, 6)], 25),
    ([DynamicDice(6, 0.355)], 25),
    ([Dice(5), Deck(5), GeneralizedDeck(5, 2, 3), DynamicDice(5, 0.5), DynamicDice(5, 0.1)], 18),
    ([DynamicDice(3, 0.5, weights=(1, 2, 3))], 14),
    ([GeneralizedDeck(3, 2, 1, weights=(1, 2, 3))], 20),
    ([Deck(4, weights=(3, 1, 1, 2))], 16),
    ([DynamicDice(14, 0.3)], 11),  # 12**14 > 2**62: the rows are compared, not keyed
    ([GeneralizedDeck(20, 1, 5)], 30),
]


@pytest.mark.parametrize("systems,samples", SYSTEMS, ids=lambda x: repr(x)[:40])
def test_the_exact_sweeps_are_identical(systems, samples) -> None:
    args = (samples, 0.0, 10**6, 10**12, None)
    same_floats(fair_exact._sweep_np(systems, *args), fair_exact._sweep_py(systems, *args))


@pytest.mark.parametrize("prune", [1e-4, 1e-9])
def test_the_pruned_sweeps_are_identical(prune) -> None:
    systems = [DynamicDice(6, 0.2), Dice(6)]
    args = (20, prune, 10**6, 10**12, None)
    a, b = fair_exact._sweep_np(systems, *args), fair_exact._sweep_py(systems, *args)
    assert a[5][0] > 0  # something was pruned
    same_floats(a, b)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 7), f=st.floats(0.01, 0.99), size=st.integers(1, 3),
       refill=st.integers(1, 4), samples=st.integers(1, 16))
def test_the_exact_metrics_are_identical(n, f, size, refill, samples) -> None:
    systems = [DynamicDice(n, f), GeneralizedDeck(n, size, refill), Dice(n)]
    with pytest.MonkeyPatch.context() as mp:
        fast, pure = both(lambda: evaluate_exact_batch(systems, samples), mp)
    for x, y in zip(fast, pure, strict=True):
        same_floats((x.summary, x.series, x.states, x.dropped),
                    (y.summary, y.series, y.states, y.dropped))


def test_the_exact_engine_still_agrees_with_brute_force(monkeypatch) -> None:
    """The twins are not each other's only check: both agree with every sequence of the
    first draws walked one by one (the entropy of the next draw, the outcome variance)."""
    import itertools

    for d in (DynamicDice(3, 0.4), GeneralizedDeck(3, 2, 2), DynamicDice(3, 0.3,
                                                                         weights=(1, 2, 4))):
        n, k, target = d.n, 4, d.target()
        fast, pure = both(lambda d=d, k=k: evaluate_exact(d, k), monkeypatch)
        for t in range(1, k + 1):
            ent = var = 0.0
            for seq in itertools.product(range(n), repeat=t):
                s, p = d.copy(), 1.0
                for x in seq[:-1]:
                    p *= s.probabilities()[x]
                    if p == 0.0:
                        break
                    s.observe(x)
                if p == 0.0:
                    continue
                probs = s.probabilities()
                if seq[-1] == 0:  # each state once: its next draw's entropy
                    ent += p * -math.fsum(q * math.log(q) for q in probs if q > 0) / math.log(n)
                p *= probs[seq[-1]]
                counts = [seq.count(v) for v in range(n)]
                var += p * math.fsum((c - t * g) ** 2 for c, g in zip(counts, target,
                                                                      strict=True)) / n
            for m in (fast, pure):
                assert m.series["entropy"][t - 1] == pytest.approx(ent, rel=1e-12)
                assert m.series["outcome_variance"][t - 1] == pytest.approx(var, rel=1e-12)


@pytest.mark.parametrize("n,k,deg", [(2, 2, 5), (6, 25, 25), (6, 3, 40), (30, 100, 400),
                                     (400, 400, 400)])
def test_box_counts_are_identical(n, k, deg) -> None:
    assert fair_exact._box_counts(n, k, deg).tolist() == fair_exact._box_counts_py(n, k, deg)


@pytest.mark.parametrize("systems", [[DynamicDice(6, 0.5)], [GeneralizedDeck(6, 1, 1)],
                                     [GeneralizedDeck(6, 2, 3), GeneralizedDeck(6, 1, 6)],
                                     [DynamicDice(4, 0.5, weights=(1, 2, 3, 4))]])
def test_lattice_estimates_are_identical(systems, monkeypatch) -> None:
    (a, fa), (b, fb) = both(lambda: fair_exact.lattice_estimate(systems, 40), monkeypatch)
    assert (list(map(float, a)), fa) == (b, fb)


def test_the_generic_engine_is_the_same_either_way(monkeypatch) -> None:
    for s in (PRD(0.25), HistoryReroll(4, 4, 4), PityTimer(0.1, soft_start=5, ramp=0.1,
                                                           hard=10)):
        a, b = both(lambda s=s: evaluate_exact(s, 12), monkeypatch)
        assert (a.summary, a.series, a.states) == (b.summary, b.series, b.states)


# -- Monte Carlo -----------------------------------------------------------------------------
MC = [Dice(6), Deck(6), GeneralizedDeck(6, 1, 6), DynamicDice(6, 0.355), PRD(0.25),
      PityTimer(0.1, soft_start=5, ramp=0.1, hard=10), HistoryReroll(4, 4, 4),
      DynamicDice(11, 0.3), GeneralizedDeck(10, 2, 3)]


@pytest.mark.parametrize("system", MC, ids=repr)
@pytest.mark.parametrize("trials,samples", [(1, 5), (2, 1), (3, 2), (300, 40)])
def test_monte_carlo_is_the_same_from_the_same_seed(system, trials, samples,
                                                    monkeypatch) -> None:
    def run() -> Any:
        rng = PCG32(11, 2)
        m = evaluate_montecarlo(system, samples, trials=trials, rng=rng)
        return repr((m.summary, m.se, m.series, m.series_se)), rng.getstate()

    fast, pure = both(run, monkeypatch)
    if _libm_agrees():
        assert fast == pure  # repr: NaN (one trial's standard error) compares too
    else:  # pragma: no cover
        assert fast[1] == pure[1]


def test_simulated_draws_are_the_same_lists(monkeypatch) -> None:
    for s in MC:
        (d1, e1, g1), (d2, e2, g2) = both(
            lambda s=s: simulate_matches(s, 30, 50, PCG32(3)), monkeypatch)
        assert d1.tolist() == d2 and g1.tolist() == g2
        same_floats(e1.tolist(), e2)


def test_a_dynamic_die_past_32_draws_renormalises_the_same(monkeypatch) -> None:
    a, b = both(lambda: evaluate_montecarlo(DynamicDice(4, 0.05), 70, trials=200,
                                            rng=PCG32(5)).summary, monkeypatch)
    same_floats(a, b)


# -- tune ------------------------------------------------------------------------------------
def test_tune_picks_the_same_winners_with_the_same_figures(monkeypatch) -> None:
    from chancekit.fair import tune

    def run() -> Any:
        r = tune(5, {6: 1.0, 12: 2.0}, 0.8, systems=("dice", "deck", "generalized-deck",
                                                     "dynamic-dice"))
        specs = {k: [c.spec for c in v] for k, v in r.winners.items()}
        return specs, repr(r.winners), repr(r.tables)

    fast, pure = both(run, monkeypatch)
    assert fast[0] == pure[0] and fast[0]["dynamic-dice"]  # the same winners
    if _libm_agrees():
        assert fast == pure  # and the same figures, bit for bit
