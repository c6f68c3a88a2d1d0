"""Issue 31, items 1-2 (second pass): the classes of programs that the mutation, hang-shape
and grammar fuzz runs (tools/fuzz_anydice.py, docs/fuzzing.md) found running past 5 s of CPU
before an answer or a refusal, each priced by what it does. Every check counts work units
(estimates charged before the work), never seconds."""

from __future__ import annotations

from chancekit.dice import d
from chancekit.dice.facewalk import _keep_costs, keep_work
from chancekit.limits import MAX_WORK


def test_a_keep_of_wide_dice_is_priced_by_its_kronecker_products() -> None:
    # [lowest 7 of 14d1000] was charged 45 M units and ran 4.8 s (about 100 ns a unit,
    # five times the unit); 10d1000kh5 17 M units for 2 s. The products of the
    # threshold-face way are now priced at their measured cost: both past the 1 s budget
    # of one step (MAX_WORK) or near it, as their time says
    assert _keep_costs(d(1000), 14, 7, False)[0] >= 3 * 45_000_000
    assert keep_work(d(1000), 14, 7, highest=False) > 2 * MAX_WORK
    assert keep_work(d(1000), 10, 5) > 40_000_000
    # dice of few faces (schoolbook products) keep their price: 300d6kh150 in 20-75 ms
    assert keep_work(d(6), 300, 150) < 2_000_000
