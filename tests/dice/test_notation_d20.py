"""The notation means what Avrae's d20 means: 20 000 of d20's own rolls per expression
pass a chi-square test against chancekit's exact distribution.

d20 draws with Python's ``random.randrange``. Its total is a deterministic function of the
sequence of those draws, so the rolls are taken *through d20* but memoised in a trie keyed
by the draws: walking the trie calls ``random.randrange`` with exactly the arguments d20
would use, in the same order, and d20 itself is run (replaying the prefix, then drawing
live) whenever a sequence is new. The 20 000 totals are therefore exactly the totals of
20 000 ``d20.roll`` calls after ``random.seed(SEED)`` -- about 20x faster for small
expressions, since most sequences repeat.

Threshold: an expression fails if the chi-square p-value is below ``ALPHA = 1e-4``
(outcomes with an expected count below 5 are merged with their neighbours). With ~60
expressions the chance of a false alarm is under 1%, and the seed is fixed, so the test is
deterministic. ``test_chi_square_has_power`` shows it does fail on a real difference.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import d20
import d20.expression
import pytest

from _stats import pooled_chisquare
from chancekit.dice.notation import weights

SEED = 20_000
ROLLS = 20_000
ALPHA = 1e-4

# Avrae spelling only (d20 has no dh/dl, !, r, >=, d{...}, dF). Deliberately absent:
# d% (d20's d% is 0, 10, ..., 90 -- a tens die; chancekit's is 1..100) and selectors
# mixing highest and lowest (ties are counted differently, docs/notation.md).
CORPUS = [
    "1d20", "1d20+5", "2d6+3", "3d6", "4d6kh3", "4d6kl3", "2d20kh1", "2d20kl1",
    "1d20+1d4+3", "8d6", "1d8+1d6+2", "4d6k3", "4d6p1", "4d6ph1", "4d6pl1", "5d6k>4",
    "5d6k<3", "6d6p>4", "3d6e6", "2d6e6", "1d10e10", "2d8e>6", "3d4e4", "4d6rr1",
    "2d6rr<3", "3d6ro1", "2d8ro<3", "4d6ro1kh3", "4d6rr1kh3", "2d6ra6", "3d10ra10",
    "4d6mi2", "4d6ma4", "3d8mi3", "2d6mi2ma5", "4d6kh3mi3", "1d20+5>=15", "2d6==7",
    "1d20<10", "1d6>3", "2d6!=7", "1d20+3<=12", "(1d4+1, 3, 2d6kl1)kh1", "(1d20, 1d20)kh1",
    "(1d8, 1d6)kl1", "(1d6, 1d6, 1d6)kh2", "(2d6, 1d12)kh1", "(1d10, 5)kh1",
    "(1d4, 1d6, 1d8)p<3", "2*1d6", "1d6*1d4", "1d8-1d4", "-1d6+7", "10-2d4", "1d20%7",
    "2d6//2", "1d6/2", "3d6/2+1", "(1d6+1)*2", "1d6 [fire] + 2d4 [cold]", "6d6kh3",
    "3d6e6kh2", "4d4e4p1", "2d6e6mi3", "(1d8e8, 1d6e6)kh1",
]


def d20_rolls(expr: str, n: int = ROLLS, seed: int = SEED) -> list[int]:
    """The totals of ``n`` rolls of ``expr`` by d20 after ``random.seed(seed)``."""
    random.seed(seed)
    live = random.randrange
    roller = d20.Roller(d20.RollContext(max_rolls=100_000))
    tree = roller.parse(expr)
    root: dict[str, Any] = {}
    out: list[int] = []
    original = d20.expression.random
    try:
        for _ in range(n):
            node = root
            prefix: list[int] = []
            while "args" in node:
                v = live(*node["args"])
                prefix.append(v)
                node = node["kids"].setdefault(v, {})
            if "total" in node:
                out.append(node["total"])
                continue
            record: list[tuple[tuple[int, ...], int]] = []

            class Replay:
                @staticmethod
                def randrange(*args: int, _p: list[int] = prefix,
                              _r: list[tuple[tuple[int, ...], int]] = record) -> int:
                    i = len(_r)
                    v = _p[i] if i < len(_p) else live(*args)
                    _r.append((args, v))
                    return v

            d20.expression.random = Replay  # type: ignore[assignment]
            try:
                total = roller.roll(tree).total
            finally:
                d20.expression.random = original
            node = root
            for args, v in record:
                assert node.setdefault("args", args) == args
                node = node.setdefault("kids", {}).setdefault(v, {})
            node["total"] = total
            out.append(total)
    finally:
        d20.expression.random = original
    return out


def _trunc_pmf(notation: str) -> dict[int, Fraction]:
    """chancekit's exact distribution, with d20's final step applied: its total is
    ``int()`` of a float, i.e. truncated toward zero (chancekit keeps exact fractions)."""
    w = weights(notation)
    t = sum(w.values())
    out: dict[int, Fraction] = {}
    for k, v in w.items():
        out[int(k)] = out.get(int(k), 0) + Fraction(v, t)
    return out


def chi_square_p(samples: list[int], pmf: dict[int, Fraction]) -> float:
    """Pearson's p-value of ``samples`` against ``pmf`` (0 for an impossible outcome)."""
    return pooled_chisquare(Counter(samples), pmf, ordered=True)[0]


def test_corpus_size() -> None:
    assert len(CORPUS) >= 50
    assert len(set(CORPUS)) == len(CORPUS)


def test_replay_is_exactly_d20() -> None:
    """The memoised rolls are the totals d20 itself gives with the same seed."""
    for expr in ("4d6kh3", "3d6e6", "(1d4+1, 3, 2d6kl1)kh1", "2d6rr<3"):
        random.seed(SEED)
        direct = [d20.roll(expr).total for _ in range(300)]
        assert d20_rolls(expr, 300) == direct


@pytest.mark.parametrize("expr", CORPUS)
def test_d20_rolls_fit_chancekit(expr: str) -> None:
    p = chi_square_p(d20_rolls(expr), _trunc_pmf(expr))
    assert p >= ALPHA, f"{expr}: chi-square p = {p:.2e} < {ALPHA}"


@pytest.mark.parametrize(("d20_expr", "wrong"), [
    ("4d6k3", "4d6kh3"),     # Avrae's k3 keeps the 3s, not the 3 highest
    ("4d6kh3", "4d6kh3+1"),
    ("2d6e6", "2d6"),
    ("4d6rr1", "4d6ro1"),
])
def test_chi_square_has_power(d20_expr: str, wrong: str) -> None:
    assert chi_square_p(d20_rolls(d20_expr), _trunc_pmf(wrong)) < ALPHA
