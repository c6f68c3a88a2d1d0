"""Exploding dice whose faces are far from 0 (or not whole numbers): the dense polynomial
would be as long as the largest sum (d{10**6, 10**6 + 1} exploded 20 times: 21 million
coefficients, 10 s; a face of 2**63: flint's OverflowError), so such dice explode by
dictionary, bounded and charged up front. Answers are checked against an enumeration of
the chains."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from chancekit import Distribution
from chancekit.errors import LimitError


def brute_explode(faces: dict, fire: set, depth: int) -> dict:
    """Every chain: j exploding faces, then a face that stays (j < depth) or any face
    (j == depth, the cap)."""
    total = sum(faces.values())
    out: dict = {}
    for j in range(depth + 1):
        for chain in itertools.product(sorted(fire), repeat=j):
            p = math.prod(Fraction(faces[x], total) for x in chain)
            for last, w in faces.items():
                if j < depth and last in fire:
                    continue
                key = sum(chain) + last
                out[key] = out.get(key, 0) + p * Fraction(w, total)
    return out


def probs(d: Distribution) -> dict:
    return {k: Fraction(w, d.total) for k, w in d.weights.items()}


@pytest.mark.parametrize("faces", [
    {10**6: 1, 10**6 + 1: 1},
    {10**6: 2, 10**6 + 3: 1, 10**6 + 7: 1},
    {2**63: 1, 2**63 + 1: 1},
    {-(10**20): 1, -(10**20) + 5: 3},
    {2**63: 1},
    {-(10**30): 1, 6: 1},            # one face far from the other: refused, not slow
    {1: 1, 2: 1, 3: 1},             # a small die (dense path) gives the same answer
])
@pytest.mark.parametrize("depth", [0, 1, 3, 5])
def test_explode_matches_the_chains(faces, depth):
    d = Distribution(faces)
    top = max(faces)
    try:
        got = d.explode(depth=depth)
    except LimitError:
        assert min(faces) < 0 < max(faces) and max(faces) - min(faces) > 10**6
        return
    assert probs(got) == brute_explode(faces, {top}, depth)


def test_explode_custom_faces_and_fractions():
    faces = {Fraction(1, 2): 1, Fraction(1, 3): 2, 1: 1}
    fire = {Fraction(1, 2), Fraction(1, 3)}
    got = Distribution(faces).explode(on=fire, depth=4)
    assert probs(got) == brute_explode(faces, fire, 4)
    # far whole faces with two exploding
    faces = {10**9: 1, 10**9 + 1: 1, 10**9 + 2: 1}
    fire = {10**9 + 1, 10**9 + 2}
    got = Distribution(faces).explode(on=fire, depth=4)
    assert probs(got) == brute_explode(faces, fire, 4)
    assert got.capped_mass == Fraction(2, 3) ** 5


def test_far_faces_explode_deep_without_a_dense_polynomial():
    # 20 levels of a two-face die far from 0: 22 outcomes (not 21 million coefficients)
    got = Distribution({10**6: 1, 10**6 + 1: 1}).explode(depth=20)
    assert len(got) == 22 and got.capped_mass == Fraction(1, 2**21)


def test_many_exploding_faces_are_refused_up_front():
    # seven irrational faces, six exploding: the sums are all distinct, so the outcomes
    # grow like C(k + 6, 6); refused by the bound before any level is built
    faces = {math.sqrt(p): 1 for p in (2, 3, 5, 7, 11, 13)}
    faces[0.5] = 1
    with pytest.raises(LimitError, match="MAX_OUTCOMES"):
        Distribution(faces).explode(on=lambda x: x > 1, depth=60)
    # a long chain of a few far faces: about k**2 / 2 sums after k explosions, so the
    # work (depth x outcomes) is refused at depth 500 and the outcomes at depth 3000
    far = Distribution({10**6: 1, 10**6 + 1: 1, 10**6 + 2: 1})
    with pytest.raises(LimitError, match="MAX_WORK"):
        far.explode(on=lambda x: x != 10**6, depth=500)
    with pytest.raises(LimitError, match="MAX_OUTCOMES"):
        far.explode(on=lambda x: x != 10**6, depth=3000)


def test_anydice_explode_of_a_huge_face():
    from chancekit.anydice import run
    (_label, d), = run("output [explode d{9223372036854775808}]")
    assert d.weights == {3 * 2**63: 1}  # AnyDice's explode depth 2: three dice
    (_label, d), = run("output [explode d{1000000, 1000001}]")
    assert probs(d) == brute_explode({10**6: 1, 10**6 + 1: 1}, {10**6 + 1}, 2)
