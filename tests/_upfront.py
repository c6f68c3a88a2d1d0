"""Deterministic checks that a refusal came *up front*, before the work (never seconds:
CI is a busy 2-core machine). Used by tests/test_limits.py and the dice/fair refusal tests.

:func:`measure` runs a call and returns what it raised, the ``tracemalloc`` peak (nothing
big was built) and the number of Python function calls it made (``sys.setprofile`` events:
a count of interpreted work that does not depend on the machine's speed or load). A
refusal made by an estimate costs a few hundred to a few thousand calls; work that was
started costs hundreds of thousands.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from chancekit.errors import ChancekitError

#: most bytes a refusal may allocate (the deterministic sign nothing big was built)
PEAK_BYTES = 50 * 2**20
#: most Python calls a refusal may make (an estimate, a message, a few checks)
MAX_CALLS = 100_000


def measure(call: Callable[[], Any]) -> tuple[BaseException | None, int, int]:
    """Run ``call``: (the ChancekitError it raised or None, tracemalloc peak bytes, Python
    calls made). Stops counting (raises ``RuntimeError``) past 50 x MAX_CALLS, so work that
    was not refused up front fails fast instead of running to its end."""
    calls = 0
    cap = 50 * MAX_CALLS

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call" or event == "c_call":
            calls += 1
            if calls > cap:
                sys.setprofile(None)
                raise RuntimeError(f"not refused up front: more than {cap} calls")

    error: BaseException | None = None
    tracemalloc.start()
    sys.setprofile(profile)
    try:
        call()
    except ChancekitError as e:
        error = e
    finally:
        sys.setprofile(None)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return error, peak, calls


def counted_before_refusal(call: Callable[[], Any]) -> tuple[Any, int]:
    """Run ``call`` in a budget of the default ``MAX_WORK``: (the LimitError it raised, the
    units of work it counted first). A refusal made up front counts next to nothing; the
    caller asserts both (fails here if ``call`` answered instead)."""
    import pytest

    from chancekit import limits
    from chancekit.errors import LimitError

    with pytest.raises(LimitError) as e:
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            call()
    return e.value, budget.counted
