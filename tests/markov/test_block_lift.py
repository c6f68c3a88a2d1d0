"""Issue #31 item 4: a strongly connected component past 2 000 states is no longer a fixed
ceiling (MAX_MARKOV_BLOCK): its dense exact solve is priced up front (work, and the
memory of its k x k matrix named), and ``max_work`` lifts it. Checked by the refusal's
units and text (no solve of 2 000 states here: that is 13 s of CPU, docs/performance.md),
and below the ceiling against the gambler's-ruin closed form."""

from __future__ import annotations

from fractions import Fraction

import pytest

from chancekit.errors import LimitError
from chancekit.markov import absorb


def _ruin(n: int):
    """Gambler's ruin on 0..n, up 2 : down 3: one transient component of n - 1 states."""
    def step(i: int):
        return i if i in (0, n) else {i + 1: 2, i - 1: 3}
    return step


def test_a_big_component_is_priced_and_liftable() -> None:
    with pytest.raises(LimitError) as e:
        absorb(_ruin(2100), 1)
    msg = str(e.value)
    assert e.value.limit == "MAX_MARKOV_WORK"  # not a fixed count
    assert "one component of 2,099 states" in msg and "MB for its 2,099 x 2,099 matrix" in msg
    assert "lift it with max_work=4e9" in msg
    # the estimate is the dense solve's k**3 / 4 plus its cells, before any solve
    assert e.value.value >= 2099**3 // 4


def test_a_lifted_component_matches_the_closed_form() -> None:
    n = 120  # one 119-state component, solved densely within a lifted budget
    got = absorb(_ruin(n), 1, max_work=10**9)
    r = Fraction(3, 2)
    assert got.probability(n) == (1 - r) / (1 - r**n)
    assert got.probability(0) == 1 - (1 - r) / (1 - r**n)
