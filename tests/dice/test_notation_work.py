"""Inputs the fuzzer found slow (docs/fuzzing.md, "Slow inputs"): each is now either fast
(a better algorithm, checked against brute force here) or refused up front with a named
limit. That they stay within the work budget is checked, with the rest of the corpus
``tests/data/expensive_notation.txt``, by tests/test_work_calibration.py (work counted, not
seconds)."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from _upfront import MAX_CALLS, measure
from chancekit.dice import d, dist
from chancekit.dice.pool import keep_sum
from chancekit.errors import LimitError


# ------------------------------------------------------------------ brute-force checks
def _brute_keep(faces: dict[int, int], n: int, k: int, highest: bool) -> dict[int, int]:
    out: Counter[int] = Counter()
    for roll in itertools.product(faces, repeat=n):
        w = 1
        for v in roll:
            w *= faces[v]
        kept = sorted(roll, reverse=highest)[:k]
        out[sum(kept)] += w
    return dict(out)


def _probs(w: dict[Any, int]) -> dict[Any, Fraction]:
    t = sum(w.values())
    return {k: Fraction(v, t) for k, v in w.items() if v}


@pytest.mark.parametrize("faces", [{1: 1, 2: 1, 3: 1, 4: 1}, {1: 2, 3: 1, 4: 5, 7: 1},
                                   {-2: 1, 0: 3, 5: 2}])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_keep_sum_every_k_matches_brute_force(faces: dict[int, int], n: int) -> None:
    from chancekit.dice.distribution import Distribution

    die = Distribution(faces)
    for k in range(1, n + 1):
        for highest in (True, False):
            got = keep_sum(n * [die], **({"highest": k} if highest else {"lowest": k}))
            assert got.pmf() == _probs(_brute_keep(faces, n, k, highest)), (n, k, highest)


def test_drop_lowest_after_reroll_matches_brute_force() -> None:
    # 4d6rr1dl1: each die uniform on 2..6, keep the highest 3
    want = _brute_keep({f: 1 for f in range(2, 7)}, 4, 3, True)
    assert dist("4d6rr1dl1").pmf() == _probs(want)
    assert dist("4d6rr1pl1").pmf() == _probs(want)
    assert dist("5d4dh2").pmf() == _probs(_brute_keep({f: 1 for f in range(1, 5)}, 5, 3, False))


def _brute_ra(sides: int, n: int, match: int, reroll_low: int = 0) -> dict[int, int]:
    first = range(reroll_low + 1, sides + 1)
    out: Counter[int] = Counter()
    for roll in itertools.product(first, repeat=n):
        if match in roll:
            for extra in range(1, sides + 1):
                out[sum(roll) + extra] += len(first)
        else:
            out[sum(roll)] += sides * len(first)
    return dict(out)


@pytest.mark.parametrize(("text", "sides", "n", "match", "low"), [
    ("3d6ra6", 6, 3, 6, 0), ("1d8ra3", 8, 1, 3, 0), ("4d4ra1", 4, 4, 1, 0),
    ("3d4rr1ra4", 4, 3, 4, 1), ("2d5rr1ra2", 5, 2, 2, 1),
])
def test_reroll_add_matches_brute_force(text: str, sides: int, n: int, match: int,
                                        low: int) -> None:
    assert dist(text).pmf() == _probs(_brute_ra(sides, n, match, low))


def test_extremes_match_brute_force() -> None:
    for sides, n in ((7, 3), (20, 2), (5, 4)):
        faces = {f: 1 for f in range(1, sides + 1)}
        assert dist(f"{n}d{sides}kh1").pmf() == _probs(_brute_keep(faces, n, 1, True))
        assert dist(f"{n}d{sides}kl1").pmf() == _probs(_brute_keep(faces, n, 1, False))
    assert dist("2d20001kl1").probability(1) == Fraction(40001, 20001**2)


@pytest.mark.parametrize(("fast", "plain"), [
    ("2d20kh1kl1", "2d20"), ("3d6kh2kl1", "3d6"), ("2d8rr1kh1kl1", "2d8rr1"),
    ("(2d6, 1d4)kh2", "2d6 + 1d4"), ("(3d4!, 1d6)kh2", "3d4! + 1d6"),
])
def test_keeping_everything_is_the_sum(fast: str, plain: str) -> None:
    assert dist(fast) == dist(plain)


@pytest.mark.parametrize(("squashed", "general"), [
    ("3d4!kh2", "3d4!mi1kh2"), ("2d3!kh1kl1", "2d3!mi1kh1kl1"), ("3d4!pl1", "3d4!mi1pl1"),
    ("3d3e3ph1", "3d3e3mi1ph1"), ("2d4!kl3", "2d4!mi1kl3"), ("4d2!kh1kl1", "4d2!mi1kh1kl1"),
])
def test_squashed_explosion_matches_general_engine(squashed: str, general: str) -> None:
    # ``mi1`` is the identity on these dice; it only stops the squashed path
    assert dist(squashed) == dist(general)


def test_keep_highest_matches_distribution_api() -> None:
    assert dist("6d6kh5") == keep_sum(6 * [d(6)], highest=5)
    assert dist("6d6dl1") == keep_sum(6 * [d(6)], highest=5)
    assert dist("4d6kl3") == keep_sum(4 * [d(6)], lowest=3)


def test_keep_sum_refuses_a_long_face_walk_up_front() -> None:
    die = d(6111)
    error, _, calls = measure(lambda: keep_sum([die] * 4, highest=3))
    assert isinstance(error, LimitError)
    assert error.limit == "MAX_WORK" and "MAX_WORK" in str(error)
    assert calls < MAX_CALLS
