"""Fuzzing the notation: random strings and mutated valid expressions (10 000 examples in
the default profile) -- only chancekit's documented errors may escape parse, dist and roll.

``HYPOTHESIS_PROFILE=long`` raises each test to 100 000 examples.
"""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit.dice.notation import roll, weights
from chancekit.errors import ChancekitError

N = 100_000 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 5_000

ALPHABET = "0123456789dDkhlpemiarF%{}()[],.+-*/<>=! \tx"
VALID = [
    "4d6kh3", "(1d4+1, 3, 2d6kl1)kh1", "1d20+5 >= 15", "3d6e6", "2d6ro<3mi2",
    "1d20ra20", "4dF", "2d{1,1,2}", "d%", "1d8 [fire] + 2d6//2", "(1d8!, 1d6!)kh1",
    "4d6rr1dl1", "1d6/2", "2d20kh1kl1", "-(1d4*2)%3",
]


def _check(text: str) -> None:
    try:
        w = weights(text)
    except ChancekitError:
        pass
    else:
        assert w and all(v > 0 for v in w.values())
    try:
        r = roll(text, rng=1)
    except ChancekitError:
        pass
    else:
        assert str(r).endswith(f"= {r.total}")


@settings(max_examples=N, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=14))
def test_random_strings(text: str) -> None:
    _check(text)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = list(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 2))
        pos = draw(st.integers(0, len(text)))
        if kind == 0 and text and pos < len(text):
            del text[pos]
        elif kind == 1:
            text.insert(pos, draw(st.sampled_from(ALPHABET)))
        elif text and pos < len(text):
            text[pos] = draw(st.sampled_from(ALPHABET))
    return "".join(text)


@settings(max_examples=N, deadline=None)
@given(mutated())
def test_mutated_expressions(text: str) -> None:
    _check(text)
