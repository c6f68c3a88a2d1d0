"""MaxStreak / NoRepeat: the exact effect (next-draw law, long-run frequencies vs a solved
Markov chain), runs never exceed the limit, any sampler, bad input."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError
from chancekit.rng import PCG32
from chancekit.sampling import AliasTable, ChanceTree, MaxStreak, NoRepeat


def solve_chain(p: dict[str, Fraction], L: int) -> dict[str, Fraction]:
    """Stationary frequencies of the chain on (value, run) by exact Gaussian elimination
    (independent of the closed form in MaxStreak.long_run)."""
    states = [(v, k) for v in p for k in range(1, L + 1)]
    idx = {s: i for i, s in enumerate(states)}
    n = len(states)
    trans = [[Fraction(0)] * n for _ in range(n)]
    for (v, k), i in idx.items():
        for x, px in p.items():
            if k < L:
                j = idx[(v, k + 1)] if x == v else idx[(x, 1)]
                trans[i][j] += px
            elif x != v:
                trans[i][idx[(x, 1)]] += px / (1 - p[v])
    # pi (T - I) = 0, sum pi = 1: rows of A = columns of (T - I), last row ones
    a = [[trans[i][j] - (1 if i == j else 0) for i in range(n)] for j in range(n)]
    a[-1] = [Fraction(1)] * n
    b = [Fraction(0)] * (n - 1) + [Fraction(1)]
    for c in range(n):
        piv = next(r for r in range(c, n) if a[r][c] != 0)
        a[c], a[piv] = a[piv], a[c]
        b[c], b[piv] = b[piv], b[c]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c], strict=True)]
                b[r] -= f * b[c]
    pi = [b[i] / a[i][i] for i in range(n)]
    out = dict.fromkeys(p, Fraction(0))
    for (v, _), i in idx.items():
        out[v] += pi[i]
    return out


@given(st.lists(st.integers(1, 9), min_size=2, max_size=4), st.integers(1, 3))
def test_long_run_matches_solved_chain(ws: list[int], L: int) -> None:
    labels = [f"v{i}" for i in range(len(ws))]
    table = AliasTable(dict(zip(labels, ws, strict=True)))
    f = MaxStreak(table, L)
    p = {lab: table.probability(lab) for lab in labels}
    assert f.long_run() == solve_chain(p, L)


def test_no_repeat_simulation_matches_long_run() -> None:
    table = AliasTable({"a": 6, "b": 3, "c": 1})
    f = NoRepeat(table)
    rng = PCG32(8)
    n = 60_000
    rolls = [f.draw(rng) for _ in range(n)]
    assert not any(a == b for a, b in itertools.pairwise(rolls))
    counts = Counter(rolls)
    for k, p in f.long_run().items():
        assert abs(counts[k] - n * float(p)) < 6 * math.sqrt(n * float(p))
    assert f.long_run()["a"] == Fraction(6 * 4, 6 * 4 + 3 * 7 + 1 * 9)


def test_max_streak_runs_bounded_and_uniform_stays_uniform() -> None:
    tree = ChanceTree({f: 1 for f in range(1, 7)})
    f = MaxStreak(tree, 2)
    rng = PCG32(5)
    rolls = [f.draw(rng) for _ in range(30_000)]
    assert not any(a == b == c for a, b, c in zip(rolls, rolls[1:], rolls[2:], strict=False))
    assert set(f.long_run().values()) == {Fraction(1, 6)}


def test_next_distribution() -> None:
    f = MaxStreak(AliasTable({"a": 1, "b": 1, "c": 2}), 2)
    assert f.next_distribution() == {"a": Fraction(1, 4), "b": Fraction(1, 4),
                                     "c": Fraction(1, 2)}
    f.setstate((1, "c", 1))
    assert f.next_distribution()["c"] == Fraction(1, 2)
    f.setstate((1, "c", 2))
    assert f.next_distribution() == {"a": Fraction(1, 2), "b": Fraction(1, 2),
                                     "c": Fraction(0)}
    assert f.getstate() == (1, "c", 2)
    for bad in [None, (1, "c", 3), (2, "c", 1), (1, "c", True)]:
        with pytest.raises(StateError):
            f.setstate(bad)


def test_wraps_any_sampler_with_draw() -> None:
    class Coin:
        def draw(self, rng: object) -> int:
            return PCG32.randbelow(rng, 2)  # type: ignore[arg-type]

    f = NoRepeat(Coin())
    rng = PCG32(1)
    rolls = [f.draw(rng) for _ in range(20)]
    assert rolls[1:] == [1 - r for r in rolls[:-1]]
    with pytest.raises(InvalidTypeError, match="probability"):
        f.long_run()


def test_bad_input() -> None:
    with pytest.raises(InvalidTypeError):
        NoRepeat(object())
    with pytest.raises(InvalidValueError, match="two possible"):
        NoRepeat(AliasTable({"only": 1, "never": 0}))
    with pytest.raises(InvalidValueError):
        MaxStreak(AliasTable([1, 1]), 0)

    class Stuck:
        def draw(self, rng: object) -> str:
            return "same"

    f = NoRepeat(Stuck(), max_tries=50)
    f.draw(PCG32(1))
    with pytest.raises(LimitError, match="50 times"):
        f.draw(PCG32(1))
