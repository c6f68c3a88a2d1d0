"""Fuzzing the notation: random strings and mutated valid expressions (5 500 examples in
the default profile) -- only chancekit's documented errors may escape parse, dist and roll.

``HYPOTHESIS_PROFILE=long`` (or ``tools/fuzz.py``) scales the counts, see docs/fuzzing.md.
A valid expression that takes longer than the per-case budget (e.g. ``455d6rr1dl1``) is
recorded as a slow input and discarded, not failed.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from _fuzz import fuzz_settings, mutations, time_budget
from chancekit.dice.notation import roll, weights
from chancekit.errors import ChancekitError
from chancekit.rng import PCG32

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
        r = roll(text, rng=PCG32(1))
    except ChancekitError:
        pass
    else:
        assert str(r).endswith(f"= {r.total}")


@fuzz_settings(quick=4_000, long=400_000)
@given(st.text(alphabet=ALPHABET, max_size=14))
def test_random_strings(text: str) -> None:
    with time_budget(text):
        _check(text)


@fuzz_settings(quick=1_500, long=60_000)
@given(mutations(VALID, ALPHABET))
def test_mutated_expressions(text: str) -> None:
    with time_budget(text):
        _check(text)
