"""Calibration of the work estimates (issue #15): over a corpus of expensive expressions
(``tests/data/expensive_notation.txt``: the fuzzer's slow inputs, the reviews' examples and
their neighbours), the work a ``dist`` evaluation actually *counts* as it runs never exceeds
what its steps *estimated* up front by more than ``CALIBRATION_FACTOR`` (stated in
:mod:`chancekit.limits`), and every expression is either computed within the one budget
``MAX_WORK`` or refused with a ``LimitError`` naming a limit. Work units, not seconds: the
seconds a unit costs are measured by ``benchmarks/bench_limits.py``
(docs/performance.md, "Work units")."""

from __future__ import annotations

from pathlib import Path

import pytest

from chancekit import limits
from chancekit.dice import dist
from chancekit.dice._ast import MAX_WORK
from chancekit.errors import LimitError

CORPUS = Path(__file__).resolve().parent / "data" / "expensive_notation.txt"
EXPRESSIONS = [line.strip() for line in CORPUS.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
#: the smallest estimate the factor is applied to (tiny steps have fixed costs)
FLOOR = 100_000


def test_corpus_is_large_enough() -> None:
    assert len(EXPRESSIONS) >= 40


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_counted_work_stays_within_the_estimate(text: str) -> None:
    with limits.evaluation(limit=MAX_WORK, name="MAX_WORK") as budget:
        try:
            result = dist(text)
        except LimitError as e:
            assert e.limit and e.limit in str(e), text
            result = None
    assert budget.estimated <= MAX_WORK, text
    assert budget.counted <= limits.CALIBRATION_FACTOR * max(budget.estimated, FLOOR), (
        f"{text}: counted {budget.counted:,} units, estimated {budget.estimated:,}")
    if result is not None:
        assert result.total > 0 and len(result) >= 1
        # and the other way (issue #22): what is answered was not priced far above its work
        assert budget.estimated <= limits.CALIBRATION_FACTOR * max(budget.counted, FLOOR), (
            f"{text}: estimated {budget.estimated:,} units, counted {budget.counted:,}")


def test_the_budget_is_one_total_for_the_expression() -> None:
    one = "(d1000%d1000)"
    dist(one)  # one term fits
    with limits.evaluation(limit=MAX_WORK, name="MAX_WORK") as budget:
        dist(one)
    per_term = budget.estimated
    terms = MAX_WORK // per_term + 1  # each term fits alone; all together do not
    with pytest.raises(LimitError) as info:
        dist("+".join([one] * 60))
    assert info.value.limit == "MAX_WORK"
    assert terms < 60


def test_a_refused_step_is_not_charged() -> None:
    with limits.evaluation(limit=100, name="MAX_WORK") as budget:
        limits.charge(60, "first")
        with pytest.raises(LimitError):
            limits.charge(60, "too much")
        limits.charge(40, "a cheaper way")
        assert budget.estimated == 100
