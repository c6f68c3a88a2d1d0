"""Work budgets: one total budget of work per evaluation, charged by estimates made
before each step starts.

Every exact step that can be expensive (a polynomial power, a pool walk, a pairwise
combination, an explosion) first *estimates* its work in **units** of about 20 ns of CPU
on the reference machine (docs/performance.md, "Work units") and charges the estimate to
the evaluation's :class:`Budget`. The budget refuses, with a
:class:`~chancekit.errors.LimitError` naming the limit, as soon as the estimates of all the
steps of one evaluation add up past the limit — before the step that would cross it does
any work. So no evaluation runs much longer than its limit, however many cheap-looking
steps it has (``(d1000 % d1000)`` summed 60 times is refused at the 13th term, not after
27 s).

Steps also *count* the work they actually do (:meth:`Budget.count`); the calibration test
(``tests/test_work_calibration.py``) checks over a corpus of expensive inputs that the
counted work never exceeds the estimate by more than :data:`CALIBRATION_FACTOR`, and the
benchmark ``benchmarks/bench_limits.py`` measures the seconds a unit really costs.

A budget is opened by the outermost call (``chancekit.dist`` opens one for the whole
expression); calls made inside it share it. With no budget open, :func:`charge` opens a
one-step budget with the limit the caller names.

>>> from chancekit.limits import Budget, charge, evaluation
>>> with evaluation(limit=100, name="MAX_WORK") as budget:
...     charge(60, "step one")
...     charge(30, "step two")
...     budget.estimated
90
>>> with evaluation(limit=100, name="MAX_WORK"):
...     charge(60, "step one")
...     charge(60, "step two")
Traceback (most recent call last):
...
chancekit.errors.LimitError: step two needs too much work: about 120 units in all is past ...
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

from chancekit.errors import LimitError

__all__ = ["CALIBRATION_FACTOR", "UNIT_NS", "Budget", "charge", "count", "current",
           "evaluation"]

#: nanoseconds one work unit stands for on the reference machine (docs/performance.md)
UNIT_NS = 20
#: the most the work a step counts may exceed its estimate (tests/test_work_calibration.py)
CALIBRATION_FACTOR = 4

_current: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "chancekit_budget", default=None)


def _units(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"2^{n.bit_length() - 1}"


class Budget:
    """The work budget of one evaluation: ``estimated`` (charged up front) and ``counted``
    (done) units, refused past ``limit``.

    ``refuse(what, units)`` builds the error; the default names the limit and suggests
    fewer or smaller dice. Not shared between threads (each thread's evaluations have
    their own, through a context variable).
    """

    __slots__ = ("counted", "estimated", "limit", "name", "refuse")

    def __init__(self, limit: int, name: str,
                 refuse: Callable[[str, int], LimitError] | None = None) -> None:
        self.limit = limit
        self.name = name
        self.estimated = 0
        self.counted = 0
        self.refuse = refuse

    def charge(self, units: int, what: str) -> None:
        """Charge the estimate of one step, before it starts; refuse past the limit (a
        refused step is not charged, so the caller may try a cheaper way)."""
        after = self.estimated + max(0, int(units))
        if after > self.limit:
            if self.refuse is not None:
                raise self.refuse(what, after)
            raise LimitError(
                f"{what} needs too much work: about {_units(after)} units in all is "
                f"past the limit {self.name} = {self.limit:,} (one unit is about {UNIT_NS} "
                "ns); use fewer or smaller dice", limit=self.name, value=after)
        self.estimated = after

    def count(self, units: int) -> None:
        """Record work actually done (for calibration); a backstop refuses if it runs past
        the limit times :data:`CALIBRATION_FACTOR` (an estimate that was wrong)."""
        self.counted += units
        if self.counted > self.limit * CALIBRATION_FACTOR:
            what = "this evaluation (counted as it runs)"
            if self.refuse is not None:
                raise self.refuse(what, self.counted)
            raise LimitError(
                f"{what} needs too much work: {_units(self.counted)} units done is past "
                f"{CALIBRATION_FACTOR} x the limit {self.name} = {self.limit:,}",
                limit=self.name, value=self.counted)


def current() -> Budget | None:
    """The budget of the evaluation running in this thread/context, if any."""
    return _current.get()


@contextlib.contextmanager
def evaluation(*, limit: int, name: str,
               refuse: Callable[[str, int], LimitError] | None = None) -> Iterator[Budget]:
    """Open a budget for one evaluation, or join the one already open (an outer call's
    budget is the total: nested calls share it)."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    budget = Budget(limit, name, refuse)
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def charge(units: int, what: str, *, limit: int | None = None, name: str | None = None) -> None:
    """Charge an up-front estimate to the open budget; with none open, check it alone
    against ``limit`` (named ``name``)."""
    budget = _current.get()
    if budget is not None:
        budget.charge(units, what)
    elif limit is not None:
        Budget(limit, name or "MAX_WORK").charge(units, what)


def count(units: int) -> None:
    """Record work actually done in the open budget (no-op with none open)."""
    budget = _current.get()
    if budget is not None:
        budget.count(units)
