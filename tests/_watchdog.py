"""A watchdog for tests of refusals and time budgets (tests/test_limits.py,
tests/dice/test_notation_work.py): a regression that would hang fails instead."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class Hung(Exception):
    """Raised by :func:`watchdog`: no answer within the time given."""


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise :class:`Hung` in the body after ``seconds`` of wall time; main thread, POSIX
    only (elsewhere the body simply runs)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):  # pragma: no cover - e.g. Windows or a worker thread: no watchdog
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise Hung(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
