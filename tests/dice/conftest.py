"""Shared helpers for the dice tests: brute-force enumeration of every roll."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from chancekit.dice import Distribution


def enumerate_rolls(dice: Sequence[Distribution],
                    f: Callable[[tuple[Any, ...]], Any]) -> Distribution:
    """Apply ``f`` to every roll of ``dice`` (a tuple of faces), weighting each roll by the
    product of its faces' weights. Exponential: small cases only."""
    out: dict[Any, int] = {}
    for combo in itertools.product(*(tuple(x.weights.items()) for x in dice)):
        w = 1
        for _, wi in combo:
            w *= wi
        r = f(tuple(face for face, _ in combo))
        out[r] = out.get(r, 0) + w
    return Distribution(out)


@pytest.fixture
def brute() -> Callable[..., Distribution]:
    return enumerate_rolls
