"""Shared settings for the fuzz tests (docs/fuzzing.md).

``fuzz_settings(quick=N, long=M)`` gives a test N examples in the default (``ci``) profile
and M with ``HYPOTHESIS_PROFILE=long``; ``CHANCEKIT_FUZZ_EXAMPLES=K`` (set by
``tools/fuzz.py``, which runs one test per process) overrides both. Every fuzz test also
carries the ``fuzz`` marker, so ``pytest -m fuzz`` selects them all.

``time_budget()`` bounds one case: an input the library *accepts* but takes longer than
the budget to finish is not an escaped exception, but it is worth knowing about, so it is
recorded (``hypothesis.event`` and, when ``CHANCEKIT_FUZZ_SLOW`` names a file, one line
there) and the case is discarded as invalid instead of stalling the run.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, reject, settings
from hypothesis import strategies as st

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
SLOW_SECONDS = float(os.environ.get("CHANCEKIT_FUZZ_BUDGET", "0.5"))


def examples(quick: int, long: int) -> int:
    """The number of examples for this run."""
    override = os.environ.get("CHANCEKIT_FUZZ_EXAMPLES")
    if override:
        return int(override)
    return long if LONG else quick


def fuzz_settings(quick: int, long: int | None = None) -> Callable[[Any], Any]:
    """``@settings`` for a fuzz test plus the ``fuzz`` marker (long default: 100 x quick)."""
    long = 100 * quick if long is None else long
    n = examples(quick, long)
    s = settings(max_examples=n, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                        HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])

    def wrap(test: Any) -> Any:
        return pytest.mark.fuzz(quick=quick, long=long)(s(test))

    return wrap


class SlowInput(BaseException):
    """Raised inside a case that ran past its time budget (BaseException, so no library
    ``except Exception`` can swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise SlowInput


@contextlib.contextmanager
def time_budget(what: str, seconds: float | None = None) -> Iterator[None]:
    """Run the block with a wall-clock budget; past it, record ``what`` and reject the case."""
    seconds = SLOW_SECONDS if seconds is None else seconds
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except SlowInput:
        signal.setitimer(signal.ITIMER_REAL, 0)
        event(f"slow input (> {seconds} s), discarded")
        path = os.environ.get("CHANCEKIT_FUZZ_SLOW")
        if path:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"{os.environ.get('PYTEST_CURRENT_TEST', '?')}\t{what!r}\n")
        reject()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@st.composite
def mutations(draw: st.DrawFn, valid: Sequence[str], alphabet: str) -> str:
    """One of the ``valid`` texts with 1 to 3 characters deleted, inserted (from
    ``alphabet``) or replaced."""
    text = list(draw(st.sampled_from(valid)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 2))
        pos = draw(st.integers(0, len(text)))
        if kind == 0 and text and pos < len(text):
            del text[pos]
        elif kind == 1:
            text.insert(pos, draw(st.sampled_from(alphabet)))
        elif text and pos < len(text):
            text[pos] = draw(st.sampled_from(alphabet))
    return "".join(text)


def run_cli(argv: list[str], capsys: Any) -> int:
    """Run ``chancekit ARGV`` in-process and hold it to the CLI's contract: exit code 0, 1
    or 2 (argparse's usage errors, ``--help`` and ``--version`` leave through SystemExit),
    and on 1 stderr is one line ``chancekit COMMAND: error: ...``, or a notation error's
    three (summary, the text, the caret)."""
    from chancekit.cli.main import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
        assert code in (0, 2), (argv, code)
    _, err = capsys.readouterr()
    assert code in (0, 1, 2), (argv, code)
    if code == 1:
        assert err.endswith("\n") and err.startswith(f"chancekit {argv[0]}: error: "), err
        lines = err[:-1].split("\n")
        assert len(lines) == 1 or (len(lines) == 3 and "at column" in lines[0]
                                   and lines[2].strip() == "^"), err
    assert "Traceback" not in err
    return code
