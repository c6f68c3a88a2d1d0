"""The work budget of the fairness engines: estimated before the work starts, counted as it
runs.

Every engine of :mod:`chancekit.fair` (the exact lattice engine, the generic exact engine,
Monte Carlo, and :func:`~chancekit.fair.tune`'s sweep) first estimates its work in *units*
and refuses with :class:`~chancekit.errors.LimitError` (``limit="MAX_FAIR_WORK"``) past
:data:`MAX_FAIR_WORK` units, before building anything big. A unit is one cell of the exact
lattice engine (one state x value x candidate, about 25 ns of numpy work); the other
engines convert their own steps with the weights below, calibrated on the machine in
docs/performance.md so that the limit is about a second of work.

The engines also *count* the same units as they run (:data:`COUNTER`), so the tests can
check that the estimate is never below the work done (tests/fair/test_fair_work.py).
"""

from __future__ import annotations

from collections import Counter

from chancekit.errors import LimitError
from chancekit.limits import MAX_FAIR_WORK

__all__ = ["COUNTER", "MAX_FAIR_WORK", "check_work"]


#: fixed cost of one layer (one draw) of the lattice engine, in units (about 150 us)
LAYER_UNITS = 2_000
#: one (state, value) transition of the generic exact engine, plus a state's own cost
GENERIC_TRANSITION_UNITS = 8
GENERIC_STATE_UNITS = 20
#: one draw of one trial in vectorised Monte Carlo (per value), and one step's fixed cost
MC_CELL_UNITS = 1
MC_STEP_UNITS = 300
#: one draw of one trial through a system's own Python ``draw`` (generic Monte Carlo), per
#: value of its ``probabilities()`` and per extra roll (``HistoryReroll``'s tries)
MC_GENERIC_DRAW_UNITS = 60
MC_GENERIC_VALUE_UNITS = 3
MC_GENERIC_ROLL_UNITS = 10

#: work units counted by the engines as they run, by engine ("lattice", "generic",
#: "montecarlo"); tests reset and read it
COUNTER: Counter[str] = Counter()


def check_work(what: str, units: float, instead: str, max_work: int = MAX_FAIR_WORK) -> None:
    """Refuse ``what`` (a description) if its estimated ``units`` exceed ``max_work``.

    >>> check_work("a small job", 10, "nothing")
    >>> try:
    ...     check_work("a big job", 3e8, "a shorter match")
    ... except LimitError as e:
    ...     print(e.limit, e.value)
    MAX_FAIR_WORK 300000000
    """
    if units > max_work:
        shown = f"{units:,.0f}" if units < 1e18 else f"{units:.3g}"
        raise LimitError(
            f"{what} is estimated at {shown} work units, more than MAX_FAIR_WORK = "
            f"{max_work:,} (about a second); use {instead}",
            limit="MAX_FAIR_WORK", value=int(units) if units < 1e18 else units)
