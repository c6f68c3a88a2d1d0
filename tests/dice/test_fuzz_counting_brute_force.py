"""Random avrae success counts (``cs``/``cf``/``df`` after a keep) and roll20/foundry
functions (``floor``/``ceil``/``round``/``abs``/``max``/``min``) against an enumeration of
every roll: the exact answer must be the enumeration's, and a seeded roll one of its
outcomes. The generator is this file's own (seeded ``random.Random``); it runs in the
``fuzz`` marker's quick profile (docs/fuzzing.md)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from chancekit.dice.notation import dist, roll
from chancekit.rng import PCG32

CASES = 60  # programs a seed; a few seeds below


def _point(rng: random.Random, sides: int) -> tuple[str, object]:
    x = rng.randint(0, sides + 1)
    op = rng.choice([">=", "<=", ">", "<", "", "="])
    test = {">=": lambda v: v >= x, "<=": lambda v: v <= x, ">": lambda v: v > x,
            "<": lambda v: v < x, "": lambda v: v == x, "=": lambda v: v == x}[op]
    return f"{op}{x}", test


def _enumerate(n: int, sides: int, f) -> dict:
    out: dict = {}
    p = Fraction(1, sides**n)
    for r in itertools.product(range(1, sides + 1), repeat=n):
        z = f(sorted(r, reverse=True))
        out[z] = out.get(z, 0) + p
    return out


def gen_count(rng: random.Random) -> tuple[str, dict]:
    n, sides = rng.randint(1, 4), rng.randint(2, 8)
    text, keep = f"{n}d{sides}", (lambda s: s)
    if rng.random() < 0.5:
        k = rng.randint(1, n)
        if rng.random() < 0.5:
            text, keep = text + f"kh{k}", (lambda s: s[:k])
        else:
            text, keep = text + f"kl{k}", (lambda s: s[-k:])
    tests_ok, tests_bad = [], []
    if rng.random() < 0.8:
        for _ in range(rng.randint(1, 2)):
            pt, test = _point(rng, sides)
            text += "cs" + pt
            tests_ok.append(test)
        for _ in range(rng.randint(0, 2)):
            pt, test = _point(rng, sides)
            text += "df" + pt
            tests_bad.append(test)

        def f(s):
            kept = keep(s)
            return (sum(1 for v in kept if any(t(v) for t in tests_ok))
                    - sum(1 for v in kept if any(t(v) for t in tests_bad)))
    else:
        pt, test = _point(rng, sides)
        text += "cf" + pt

        def f(s):
            return sum(1 for v in keep(s) if test(v))
    return text, _enumerate(n, sides, f)


def _round_half_up(q: Fraction) -> int:
    return math.floor(q + Fraction(1, 2))


FUNCS = {"floor": math.floor, "ceil": math.ceil, "round": _round_half_up, "abs": abs}


def gen_function(rng: random.Random) -> tuple[str, dict]:
    """One function over a small expression of independent dice, as (text, enumeration)."""
    n, sides = rng.randint(1, 3), rng.randint(2, 6)
    shift = rng.randint(-6, 3)
    div = rng.choice([1, 2, 3, 4])
    inner = f"{n}d{sides}{shift:+d}" if shift else f"{n}d{sides}"
    name = rng.choice(["floor", "ceil", "round", "abs", "max", "min"])
    if name in FUNCS:
        text = f"{name}(({inner})/{div})" if div > 1 else f"{name}({inner})"
        g = FUNCS[name]
        return text, _enumerate(n, sides, lambda s: g(Fraction(sum(s) + shift, div)))
    # max / min of two to three independent copies of the same expression
    k = rng.randint(2, 3)
    text = f"{name}({', '.join([inner] * k)})"
    pick = max if name == "max" else min
    if (sides**n) ** k > 20000:
        k, text = 1, f"{name}({inner})"
    out: dict = {}
    one = _enumerate(n, sides, lambda s: sum(s) + shift)
    for combo in itertools.product(one.items(), repeat=k):
        z = pick(v for v, _ in combo)
        out[z] = out.get(z, 0) + math.prod(p for _, p in combo)
    return text, out


def _check(text: str, want: dict, dialect: str, seed: int) -> None:
    d = dist(text, dialect=dialect)
    got = {k: Fraction(w, d.total) for k, w in d.weights.items()}
    want = {k: v for k, v in want.items() if v}
    assert got == want, (dialect, text)
    r = roll(text, PCG32(seed), dialect=dialect)
    assert r.total in want, (dialect, text, r.total)


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(4))
def test_avrae_counts_match_an_enumeration(seed):
    rng = random.Random(seed)
    for i in range(CASES):
        text, want = gen_count(rng)
        _check(text, want, "avrae", i)


@pytest.mark.fuzz
@pytest.mark.parametrize("dialect", ["roll20", "foundry"])
@pytest.mark.parametrize("seed", range(2))
def test_functions_match_an_enumeration(dialect, seed):
    rng = random.Random(100 + seed)
    for i in range(CASES):
        text, want = gen_function(rng)
        _check(text, want, dialect, i)
