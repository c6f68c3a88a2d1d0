"""Goodness of fit: every sampler draws with the probabilities it states.

Each test draws from a sampler with its own fixed PCG32, ``derive_stream(SEED, test id)``,
and compares the draws with the exact probabilities the library states for them, with a
statistic whose distribution under "the sampler is correct" is known:

* **Pearson chi-square** (``pooled_chisquare``) for independent draws from a fixed law:
  alias tables (``draw_array``, every span path), two-dice tabletop tables rolled as two
  physical d20s, the chance tree before and after ``set_weight``/``add``/``remove``, and
  ``roll()`` against ``dist()``. Cells with an expected count below 5 are pooled (in outcome
  order for numbers, the smallest cells together for labels); df = cells - 1.
* **Sequential calibration test** (``calibration_test``) for samplers whose law changes
  after every draw (every fair system, every spec family of ``system_from_spec``, the
  no-repeat wrappers, the swap filter, a chance tree whose weights move at every step).
  Before each draw the sampler's own next-draw probabilities ``p_t`` are recorded, then the
  drawn index. Each (step, value) pair falls in a cell ``(value, bin of p_t(value))``; the
  bins are deciles of that value's probabilities in a *pilot run* with another seed, so a
  step's cell is known before its draw. Per cell, ``M = sum (1[drawn] - p_t)`` is then a
  martingale whose predictable covariance is ``V = sum_t A_t (diag p_t - p_t p_t^T) A_t^T``
  (``A_t``: value -> cell); ``M^T V^+ M`` is asymptotically chi-square with ``rank(V)``
  degrees of freedom (martingale central limit theorem). It tests the per-value totals and
  the calibration (draws follow ``p_t`` whether ``p_t`` is small or large) at once. Cells
  where ``sum p`` or ``sum (1 - p)`` is below 5 are merged with their neighbour bin.
  Besides, a value with ``p_t == 0`` must never be drawn (an exact check).

Threshold: a test fails when its p-value is below ``ALPHA = 1e-4``. The seeds are fixed, so
the results are deterministic; docs/quality.md ("Goodness of fit") lists the statistics,
the family-wise false-alarm rate and the observed p-values. The ``test_control_*`` tests
feed the same machinery a deliberately wrong law and require a rejection: the harness has
power.

Existing tests this file does not repeat: tests/dice/test_roll.py (roll() vs dist(), 13
expressions), tests/dice/test_notation_d20.py (d20's rolls vs dist()),
tests/sampling/test_sampling_tree.py (swap filter, d6, uniformity), per-value 4-sigma
checks in tests/fair/test_fair_systems.py and tests/sampling/test_sampling_alias.py.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy import stats

from _stats import pooled_chisquare
from chancekit.dice import dist, roll
from chancekit.fair import simulate_matches
from chancekit.fair import studio as studio_module
from chancekit.fair import systems as systems_module
from chancekit.fair.spec import SPEC_NAMES, system_from_spec
from chancekit.fair.systems import (
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
)
from chancekit.rng import PCG32, derive_stream
from chancekit.sampling import AliasTable, ChanceTree, MaxStreak, NoRepeat, TabletopTable

ALPHA = 1e-4
SEED = 20_261_121
PILOT_SEED = 7


def stream(test_id: str, seed: int = SEED) -> PCG32:
    """The fixed generator of one test: ``derive_stream(seed, test_id)``, a PCG32 whose
    state and increment are a documented hash of (seed, id), so that tests do not share
    words (one seed for all would correlate e.g. every 2d6-based expression)."""
    return derive_stream(seed, test_id)


# ------------------------------------------------------------------ Pearson chi-square
def array_counts(draws: np.ndarray) -> Counter[Any]:
    values, freq = np.unique(draws, return_counts=True)
    return Counter({v.item(): int(c) for v, c in zip(values, freq, strict=True)})


# ------------------------------------------------------- sequential calibration test
Step = Callable[[PCG32], tuple[Any, int]]
Case = Callable[[PCG32], tuple[int, Step]]  # side generator -> (n values, step)


def record(case: Case, rng: PCG32, side: PCG32, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Run ``steps`` draws of a sampler with ``rng`` (``side``: for the test's own moves,
    e.g. weight changes): the next-draw probabilities before each draw (``P``, steps x n)
    and the drawn index (``X``)."""
    n, step = case(side)
    P = np.empty((steps, n))
    X = np.empty(steps, dtype=np.int64)
    for t in range(steps):
        P[t], X[t] = step(rng)
    return P, X


def pilot_edges(P: np.ndarray) -> list[np.ndarray]:
    """Per value, the deciles of its probabilities strictly between 0 and 1."""
    out = []
    for col in P.T:
        v = col[(col > 0) & (col < 1)]
        out.append(np.unique(np.quantile(v, np.linspace(0.1, 0.9, 9))) if len(v)
                   else np.empty(0))
    return out


def _merge_cells(e1: np.ndarray, e0: np.ndarray, n: int, k: int) -> np.ndarray:
    """Group the bins of each value, in order, until ``sum p >= 5`` and
    ``sum (1 - p) >= 5`` in every group; a short remainder joins the group before it."""
    group = np.zeros(n * k, dtype=np.int64)
    g = 0
    for i in range(n):
        a1 = a0 = 0.0
        first = g
        for b in range(k):
            c = i * k + b
            group[c] = g
            a1 += e1[c]
            a0 += e0[c]
            if a1 >= 5 and a0 >= 5:
                g += 1
                a1 = a0 = 0.0
        if (a1 or a0) and g > first:  # remainder: join the previous group of this value
            group[(group == g) & (np.arange(n * k) // k == i)] = g - 1
        elif a1 or a0:
            g += 1
    return group


def calibration_test(P: np.ndarray, X: np.ndarray,
                     edges: list[np.ndarray]) -> tuple[float, int, int]:
    """``(p-value, degrees of freedom, impossible draws)`` of the sequential test in the
    module docstring: ``M^T V^+ M`` against chi-square with ``rank(V)`` df."""
    T, n = P.shape
    Y = np.zeros_like(P)
    Y[np.arange(T), X] = 1.0
    impossible = int(((P <= 0) & (Y == 1)).sum())
    free = (P > 0) & (P < 1)
    k = max(len(e) for e in edges) + 1
    raw = np.arange(n) * k + np.column_stack(
        [np.searchsorted(edges[i], P[:, i], side="right") for i in range(n)])
    e1 = np.bincount(raw[free], weights=P[free], minlength=n * k)
    e0 = np.bincount(raw[free], weights=1 - P[free], minlength=n * k)
    cell = _merge_cells(e1, e0, n, k)[raw]
    G = int(cell.max()) + 1
    M = np.bincount(cell[free], weights=(Y - P)[free], minlength=G)
    rows = np.broadcast_to(np.arange(T)[:, None], (T, n))
    Q = np.bincount((rows * G + cell)[free], weights=P[free], minlength=T * G).reshape(T, G)
    V = np.diag(Q.sum(axis=0)) - np.einsum("ti,tj->ij", Q, Q)  # no BLAS threads
    lam, U = np.linalg.eigh(V)
    keep = lam > 1e-9 * lam.max()
    z = U[:, keep].T @ M
    stat = float((z * z / lam[keep]).sum())
    df = int(keep.sum())
    return float(stats.chi2.sf(stat, df)), df, impossible


def sequential_p(name: str, case: Case, steps: int = 25_000) -> tuple[float, int, int]:
    """Pilot run (bins) from PILOT_SEED, then the test run from SEED."""
    pilot = record(case, stream(name, PILOT_SEED), stream(name + "/side", PILOT_SEED),
                   steps // 5)
    P, X = record(case, stream(name), stream(name + "/side"), steps)
    edges = pilot_edges(pilot[0])
    return calibration_test(P, X, edges)


# ----------------------------------------------------------------------- 1. alias tables
ALIAS_TABLES: dict[str, tuple[Any, int]] = {
    # name: (weights, draws); comments give the draw_indices path the span selects
    "fibonacci": ([1, 2, 3, 5, 8, 13, 21, 34, 55, 89], 1_000_000),        # span < 2**32
    "tiny": ({"common": 10**6, "uncommon": 10**4, "rare": 10**2, "epic": 1}, 2_000_000),
    "zeros": ({"a": 3, "b": 0, "c": 5, "d": 0, "e": 1, "f": 0}, 1_000_000),
    "floats": ([0.1, 0.2, 0.7], 1_000_000),                                 # 2**32..2**64
    "wide-ints": ([2**33, 2**33 + 1, 3 * 2**32 + 7], 1_000_000),            # 2**32..2**64
    "two-pass": ([2**58 + i * 7919 for i in range(32)], 1_000_000),        # span > 2**64
    "tiny-floats": ([0.5, 0.4989, 1e-3, 1e-4], 100_000),                   # capacity > 2**64
}


@pytest.mark.parametrize("name", list(ALIAS_TABLES))
def test_alias_draw_array_fits(name: str) -> None:
    weights, n = ALIAS_TABLES[name]
    table = AliasTable(weights)
    probs = {lab: table.probability(lab) for lab in table}
    counts = array_counts(table.draw_array(stream(f"alias/{name}"), n))
    for lab, p in probs.items():
        if p == 0:
            assert counts[lab] == 0, f"zero-weight label {lab!r} was drawn"
    p_value, cells = pooled_chisquare(counts, probs, ordered=False)
    assert cells >= 2
    assert p_value >= ALPHA, f"{name}: chi-square p = {p_value:.2e}"


def test_alias_tables_cover_every_draw_path() -> None:
    spans = {name: len(AliasTable(w)) * AliasTable(w).capacity
             for name, (w, _) in ALIAS_TABLES.items()}
    caps = {name: AliasTable(w).capacity for name, (w, _) in ALIAS_TABLES.items()}
    assert spans["fibonacci"] < 2**32
    assert 2**32 <= spans["floats"] < 2**64 and 2**32 <= spans["wide-ints"] < 2**64
    assert spans["two-pass"] >= 2**64 and caps["two-pass"] <= 2**64
    assert caps["tiny-floats"] > 2**64


def test_control_alias_swapped_weight_is_rejected() -> None:
    right = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    wrong = AliasTable([*right[:7], 55, 34, 89])  # two weights swapped
    counts = array_counts(wrong.draw_array(stream("control/alias"), 1_000_000))
    probs = {i: Fraction(w, sum(right)) for i, w in enumerate(right)}
    assert pooled_chisquare(counts, probs, ordered=False)[0] < ALPHA


# --------------------------------------------------------------------- 2. tabletop tables
TABLETOP = ["3d6", "4d6kh3", "4dF", "d6"]


def play(table: TabletopTable, faces: np.ndarray, checks: np.ndarray) -> list[Any]:
    """The rule at the table, on arrays of row-die and check-die results (1-based): the
    check die at most the row's threshold gives the row's own outcome (the row number for a
    numbered table), otherwise the row's alias."""
    thr = np.array([r.threshold for r in table.rows])
    own = np.empty(table.row_die, dtype=object)
    own[:] = [r.face if table.numbered else r.outcome for r in table.rows]
    alias = np.empty(table.row_die, dtype=object)
    alias[:] = [r.alias for r in table.rows]
    keep = checks <= thr[faces - 1]
    out = np.where(keep, own[faces - 1], alias[faces - 1])
    assert not any(x is None for x in out), "a roll reached an empty cell of the table"
    return out.tolist()


def roll_table(table: TabletopTable, rng: PCG32, n: int) -> Counter[Any]:
    """``n`` uses of the table: a row die, then a check die, alternately (one
    ``randbelow`` per die; ``randbelow_array`` is the same sequence of calls)."""
    assert table.row_die == table.check_die
    dice = rng.randbelow_array(table.row_die, 2 * n).astype(np.int64) + 1
    return Counter(play(table, dice[0::2], dice[1::2]))


def enumerate_table(table: TabletopTable) -> dict[Any, Fraction]:
    faces, checks = np.meshgrid(np.arange(1, table.row_die + 1),
                                np.arange(1, table.check_die + 1))
    counts = Counter(play(table, faces.ravel(), checks.ravel()))
    return {k: Fraction(c, table.row_die * table.check_die) for k, c in counts.items()}


@pytest.mark.parametrize("notation", TABLETOP)
def test_tabletop_two_dice_rolls_fit_realized(notation: str) -> None:
    table = TabletopTable.build(notation)
    real = table.realized().pmf()
    counts = roll_table(table, stream(f"tabletop/{notation}"), 400_000)
    p_value, cells = pooled_chisquare(counts, real, ordered=True)
    assert cells >= 2
    assert p_value >= ALPHA, f"{notation}: chi-square p = {p_value:.2e}"


@pytest.mark.parametrize("notation", TABLETOP)
def test_tabletop_enumeration_is_exact(notation: str) -> None:
    """All 400 (row, check) pairs: every outcome of dist(notation) appears, with exactly
    the realised probability, which is the optimal rounding (units/400) within 1/400."""
    table = TabletopTable.build(notation)
    grid = table.row_die * table.check_die
    played = enumerate_table(table)
    target = dist(notation).pmf()
    assert set(played) == set(target), "an outcome is missing or impossible"
    assert played == table.realized().pmf()
    assert played == {k: Fraction(u, grid) for k, u in table.units.items()}
    assert all(abs(played[k] - p) <= Fraction(1, grid) for k, p in target.items())


def test_control_tabletop_tampered_table_is_rejected() -> None:
    table = TabletopTable.build("3d6")
    rows = list(table.rows)
    # the rows with the lowest and highest partial thresholds trade them
    mixed = sorted((i for i, r in enumerate(rows) if 0 < r.threshold < table.check_die),
                   key=lambda k: rows[k].threshold)
    i, j = mixed[0], mixed[-1]
    rows[i], rows[j] = (replace(rows[i], threshold=rows[j].threshold),
                        replace(rows[j], threshold=rows[i].threshold))
    bad = TabletopTable(rows=tuple(rows), row_die=20, check_die=20, target=dict(table.target),
                        units=dict(table.units), numbered=True)
    assert enumerate_table(bad) != table.realized().pmf()  # the exactness check fails
    counts = roll_table(bad, stream("control/tabletop"), 400_000)
    assert pooled_chisquare(counts, table.realized().pmf(), ordered=True)[0] < ALPHA


# ------------------------------------------------------------------------ 3. chance tree
def tree_counts(tree: ChanceTree, rng: PCG32, n: int) -> Counter[Any]:
    return Counter(tree.draw(rng) for _ in range(n))


def tree_probs(tree: ChanceTree) -> dict[Any, Fraction]:
    return {item: tree.probability(item) for item in tree}


def test_chance_tree_draws_fit_before_and_after_updates() -> None:
    """Uneven weights; then set_weight (up, down, to 0, to a Fraction with a new
    denominator: every stored weight is rescaled), add and remove mid-stream; each phase's
    draws against that phase's exact probabilities."""
    tree = ChanceTree({f"item{i}": (i + 1) ** 2 for i in range(12)})
    rng = stream("tree")
    phases = []
    phases.append((tree_counts(tree, rng, 60_000), tree_probs(tree)))
    tree.set_weight("item11", 1)
    tree.set_weight("item0", 100)
    tree.set_weight("item5", 0)
    tree.set_weight("item3", Fraction(95, 3))
    tree.add("new", 50)
    tree.remove("item7")
    phases.append((tree_counts(tree, rng, 60_000), tree_probs(tree)))
    for phase, (counts, probs) in enumerate(phases):
        assert all(probs[k] > 0 for k in counts), f"phase {phase}: a zero weight was drawn"
        p_value, cells = pooled_chisquare(counts, probs, ordered=False)
        assert cells >= 10
        assert p_value >= ALPHA, f"phase {phase}: chi-square p = {p_value:.2e}"
    assert phases[1][0]["item5"] == 0 and "item7" not in phases[1][0]


def test_control_tree_stale_weights_are_rejected() -> None:
    """Draws made after set_weight, tested against the weights before it: rejected."""
    tree = ChanceTree({i: i + 1 for i in range(10)})
    before = tree_probs(tree)
    tree.set_weight(0, 3)
    tree.set_weight(9, 8)
    counts = tree_counts(tree, stream("control/tree"), 60_000)
    assert pooled_chisquare(counts, before, ordered=False)[0] < ALPHA


# -------------------------------------------------- 4. every fair system, step by step
def system_case(make: Callable[[], System]) -> Case:
    def case(side: PCG32) -> tuple[int, Step]:
        system = make()
        index = {v: i for i, v in enumerate(system.values)}

        def step(rng: PCG32) -> tuple[Any, int]:
            p = system.probabilities()
            return p, index[system.draw(rng)]

        return system.n, step

    return case


def spec_case(spec: str, values: int) -> Case:
    return system_case(lambda: system_from_spec(spec, values))


def streak_case(make: Callable[[], MaxStreak]) -> Case:
    """chancekit.sampling's NoRepeat / MaxStreak: next_distribution() before each draw."""
    def case(side: PCG32) -> tuple[int, Step]:
        f = make()
        labels = list(f.sampler)
        index = {lab: i for i, lab in enumerate(labels)}

        def step(rng: PCG32) -> tuple[Any, int]:
            nd = f.next_distribution()
            return [float(nd[lab]) for lab in labels], index[f.draw(rng)]

        return len(labels), step

    return case


def swap_filter_case(weights: dict[Any, int], length: int) -> Case:
    """SwapFilter: the next draw follows the weights of the items still in the tree."""
    def case(side: PCG32) -> tuple[int, Step]:
        tree = ChanceTree(weights)
        f = tree.swap_filter(length)
        labels = list(weights)
        index = {lab: i for i, lab in enumerate(labels)}

        def step(rng: PCG32) -> tuple[Any, int]:
            inside = dict(tree.items())
            total = sum(inside.values())
            p = [float(Fraction(inside.get(lab, 0), total)) for lab in labels]
            return p, index[f.draw(rng)]

        return len(labels), step

    return case


def moving_tree_case(side: PCG32) -> tuple[int, Step]:
    """A chance tree whose weights change before every draw (set_weight from a side
    stream; weights may drop to 0)."""
    tree = ChanceTree({i: i + 1 for i in range(8)})

    def step(rng: PCG32) -> tuple[Any, int]:
        tree.set_weight(side.randbelow(8), side.randbelow(20))
        if tree.total == 0:
            tree.set_weight(0, 1)
        p = [float(tree.probability(i)) for i in range(8)]
        return p, tree.draw(rng)

    return 8, step


# one spec per family of system_from_spec (every alias names one of these), plus no-repeat
SPECS: list[tuple[str, int]] = [
    ("dice", 6), ("deck:weights=14/5/1", 3), ("gdeck:1,6", 6), ("ddice:0.355", 6),
    ("tgm", 7), ("prd:0.25", 2), ("pity:0.006,74,0.06,90", 2), ("erracc:0.3", 2),
    ("gdeck:2,3+no-repeat", 4), ("history-reroll:2,2+no-repeat", 5),
    # the systems studios ship (chancekit.fair.studio)
    ("gacha:0.006,74,0.06,90", 3), ("dupe", 6), ("aim-assist:0.65,0.1", 2),
    ("two-roll:70", 2), ("lucky-streak:0.3,2", 2), ("tgm1", 7), ("tgm2", 7), ("tgm3", 7),
]
# more parameters, built directly
DIRECT: dict[str, Callable[[], System]] = {
    "Deck(5)": lambda: Deck(5),
    "GeneralizedDeck(3,1,5,w)": lambda: GeneralizedDeck(3, 1, 5, weights=(3, 1, 1)),
    "DynamicDice(3,0.5,w)": lambda: DynamicDice(3, 0.5, weights=(7, 2, 1)),
    "HistoryReroll(5,2,3)": lambda: HistoryReroll(5, 2, 3),
    "PRD(0.05)": lambda: PRD(0.05),
    "PityTimer(0.05,5,0.2,8)": lambda: PityTimer(0.05, soft_start=5, ramp=0.2, hard=8),
    "ErrorAccumulator(0.7)": lambda: ErrorAccumulator(0.7),
    "NoRepeat(DynamicDice)": lambda: NoRepeatSystem(DynamicDice(4, 0.6)),
    "NoRepeat(Deck(3))": lambda: NoRepeatSystem(Deck(3)),
}
SYSTEM_CASES: dict[str, Case] = {
    **{spec: spec_case(spec, values) for spec, values in SPECS},
    **{name: system_case(make) for name, make in DIRECT.items()},
    # chancekit.sampling's wrappers, and the chance tree in motion
    "sampling.NoRepeat": streak_case(lambda: NoRepeat(AliasTable({"a": 1, "b": 2, "c": 6}))),
    "sampling.MaxStreak": streak_case(lambda: MaxStreak(ChanceTree({"x": 5, "y": 3, "z": 1}),
                                                        max_run=2)),
    "SwapFilter": swap_filter_case({i: 1 + i % 4 for i in range(8)}, 3),
    "moving ChanceTree": moving_tree_case,
}


def _concrete_systems() -> set[type]:
    return {cls for module in (systems_module, studio_module)
            for name, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, System) and cls is not System and not name.startswith("_")
            and cls.__module__ == module.__name__}


def test_every_system_class_and_spec_family_is_covered() -> None:
    """A new System class in chancekit.fair.systems, or a new spec family in
    chancekit.fair.spec, without a case here fails this test."""
    built = {type(system_from_spec(spec, values)) for spec, values in SPECS}
    built |= {type(make()) for make in DIRECT.values()}
    missing = _concrete_systems() - built
    assert not missing, f"no goodness-of-fit case for {sorted(c.__name__ for c in missing)}"
    families = {SPEC_NAMES[spec.split("+")[0].split(":")[0]] for spec, _ in SPECS}
    assert families == set(SPEC_NAMES.values())
    assert any(spec.endswith("+no-repeat") for spec, _ in SPECS)


@pytest.mark.parametrize("name", list(SYSTEM_CASES))
def test_sequence_follows_stated_probabilities(name: str) -> None:
    p_value, df, impossible = sequential_p(name, SYSTEM_CASES[name])
    assert impossible == 0, f"{name}: drew a value whose stated probability was 0"
    assert df >= 1
    assert p_value >= ALPHA, f"{name}: calibration chi-square p = {p_value:.2e} (df {df})"


def _inverse_cdf(p: list[float], u: float) -> int:
    acc = 0.0
    for i, q in enumerate(p):
        acc += q
        if u < acc:
            return i
    return len(p) - 1


def dynamic_dice_reported_fair_die_drawn(side: PCG32) -> tuple[int, Step]:
    """Reports DynamicDice(6, 0.355)'s probabilities, draws a plain fair die: both are
    uniform in the long run, so only the calibration is wrong."""
    die = DynamicDice(6, 0.355)

    def step(rng: PCG32) -> tuple[Any, int]:
        p = die.probabilities()
        i = rng.randbelow(6)
        die.observe(i)
        return p, i

    return 6, step


def dynamic_dice_tilted(side: PCG32) -> tuple[int, Step]:
    """Reports DynamicDice(6, 0.355)'s probabilities, draws value 0 15 % too often."""
    die = DynamicDice(6, 0.355)

    def step(rng: PCG32) -> tuple[Any, int]:
        p = die.probabilities()
        q = [x * (1.15 if i == 0 else 1.0) for i, x in enumerate(p)]
        s = sum(q)
        i = _inverse_cdf([x / s for x in q], rng.random())
        die.observe(i)
        return p, i

    return 6, step


@pytest.mark.parametrize("case", [dynamic_dice_reported_fair_die_drawn,
                                  dynamic_dice_tilted])
def test_control_sequence_wrong_law_is_rejected(case: Case) -> None:
    p_value, _, impossible = sequential_p(f"control/{case.__name__}", case)
    assert impossible == 0
    assert p_value < ALPHA


def test_control_sequence_impossible_draw_is_caught() -> None:
    """Deck(4) after card 0 was drawn states (0, 1/3, 1/3, 1/3); uniform draws break it."""
    P = np.tile([0.0, 1 / 3, 1 / 3, 1 / 3], (2000, 1))
    X = stream("control/impossible").randbelow_array(4, 2000).astype(np.int64)
    assert calibration_test(P, X, pilot_edges(P))[2] > 0


# ------------------------------------ 4b. the Monte Carlo engine's vectorised draws
# simulate_matches draws dice, decks and dynamic dice with its own numpy code (not the
# systems' draw): each simulated match is replayed through a fresh system to get p_t.
MONTECARLO: dict[str, Callable[[], System]] = {
    "Dice(6)": lambda: Dice(6),
    "GeneralizedDeck(6,1,6)": lambda: GeneralizedDeck(6, 1, 6),
    "Deck(3,w)": lambda: Deck(3, weights=(14, 5, 1)),
    "DynamicDice(6,0.355)": lambda: DynamicDice(6, 0.355),
    "DynamicDice(3,0.5,w)": lambda: DynamicDice(3, 0.5, weights=(7, 2, 1)),
}


def montecarlo_record(make: Callable[[], System], rng: PCG32, trials: int,
                      samples: int = 25) -> tuple[np.ndarray, np.ndarray]:
    draws = simulate_matches(make(), samples, trials, rng, entropy=False)[0]
    n = make().n
    P = np.empty((trials * samples, n))
    X = draws.astype(np.int64).ravel()
    for m in range(trials):
        system = make()
        for t in range(samples):
            k = m * samples + t
            P[k] = system.probabilities()
            assert P[k, X[k]] > 0, f"match {m}, draw {t}: a value of probability 0"
            system.observe(int(X[k]))
    return P, X


@pytest.mark.parametrize("name", list(MONTECARLO))
def test_montecarlo_matches_follow_stated_probabilities(name: str) -> None:
    make = MONTECARLO[name]
    edges = pilot_edges(montecarlo_record(make, stream(f"mc/{name}", PILOT_SEED), 200)[0])
    P, X = montecarlo_record(make, stream(f"mc/{name}"), 1000)
    p_value, df, impossible = calibration_test(P, X, edges)
    assert impossible == 0
    assert p_value >= ALPHA, f"{name}: calibration chi-square p = {p_value:.2e} (df {df})"


# ------------------------------------------------------------------- 5. roll() vs dist()
# Categories tests/dice/test_roll.py does not roll against dist(): the ``!`` and selector
# explosions at the real EXPLODE_DEPTH, ``r``/``rr`` with selectors (reroll until no match
# has unbounded tapes, so tests/dice/test_notation_brute.py cannot enumerate roll() on it),
# drop spellings, selectors, ``ma``, comparisons, ``* // %``, unary minus, custom faces with
# negatives, sets with drop.
ROLL_CORPUS = [
    "3d6!", "2d6!>4", "1d4e>2", "2d8e8kh1",
    "3d6r1", "2d6rr<3", "2d8rr>6", "2d6rr1rr2", "3d4rr>3ro1", "2d6rr1kh1",
    "4d6dl1", "4d6dh1", "5d6k>4", "4d6p<=2", "4d6k3",
    "4d6ma4", "3d6mi2ma5",
    "3dF+1", "4d{-1,0,0,5}",
    "1d20+5>=15", "2d6==7", "1d6<1d6",
    "1d6*1d4", "1d20%7", "2d6//2", "-1d6+7",
    "(1d6, 1d6, 1d6)kh2", "(1d4, 1d6, 1d8)dl1",
]
ROLLS = 3000


def roll_counts(notation: str, rng: PCG32, n: int = ROLLS) -> Counter[Any]:
    return Counter(roll(notation, rng=rng).total for _ in range(n))


@pytest.mark.parametrize("notation", ROLL_CORPUS)
def test_roll_fits_dist(notation: str) -> None:
    counts = roll_counts(notation, stream(f"roll/{notation}"))
    p_value, cells = pooled_chisquare(counts, dist(notation).pmf(), ordered=True)
    assert cells >= 2
    assert p_value >= ALPHA, f"{notation}: chi-square p = {p_value:.2e}"


@pytest.mark.parametrize(("rolled", "claimed"), [("4d6dh1", "4d6dl1"), ("2d6!", "2d6e>4"),
                                                 ("3d6r1", "3d6")])
def test_control_roll_wrong_distribution_is_rejected(rolled: str, claimed: str) -> None:
    counts = roll_counts(rolled, stream(f"control/roll/{rolled}"))
    assert pooled_chisquare(counts, dist(claimed).pmf(), ordered=True)[0] < ALPHA
