"""AnyDice programs, run exactly on chancekit's engine.

``run(text)`` returns one ``(label, distribution)`` pair per ``output``, in order, with
AnyDice's labels (``"output 1"``, … where unnamed). Dice are
:class:`~chancekit.dice.Distribution` values, collections go through the pool engine, and
the whole program shares one work budget (:data:`~chancekit.limits.MAX_ANYDICE_WORK`,
about AnyDice's own 5 seconds), refused up front by estimates. An output of the empty die
``d{}`` is an :class:`Empty` equal to :data:`EMPTY`: a distribution with no outcomes
(AnyDice prints an empty table), with Distribution's methods (a mean raises, naming it).

>>> from chancekit.anydice import run
>>> text = 'output 3d6\\noutput [highest 3 of 4d6] named "stat"'
>>> [(label, dist.mean()) for label, dist in run(text)]
[('output 1', Fraction(21, 2)), ('stat', Fraction(15869, 1296))]
>>> program = '''
... function: explode N:n { if N = 6 { result: N + [explode d6] } result: N }
... output [explode d6]
... '''
>>> run(program)[0][1].probability(7)
Fraction(1, 36)

Errors name the line, column and token, with a caret:

>>> run("output 3d6 + ]")
Traceback (most recent call last):
...
chancekit.anydice.errors.AnyDiceError: expected a value but found ']' at line 1, column 14
  output 3d6 + ]
               ^

Programs that hit a known AnyDice defect get the exact answer and a warning
(:class:`AnyDiceWarning`; :func:`run_program` returns them as ``.warnings``).

A program refused only because its exact weights grow huge (a die mixed into itself in
a loop) can be answered with proven error bounds when asked, ``run(text, approx=True)``:
outputs that needed it are :class:`~chancekit.dice.certified.CertifiedDistribution`
values (every probability an interval containing the exact one, at most ``max_error``
from its midpoint), the others stay exact. Never used unless asked; the refusal says so.
"""

from __future__ import annotations

import sys
import warnings as _warnings
from typing import Any

from chancekit.anydice.empty import EMPTY, Empty
from chancekit.anydice.errors import AnyDiceError, AnyDiceWarning
from chancekit.dice import Distribution
from chancekit.errors import LimitError
from chancekit.limits import CERTIFIED_ERROR, MAX_ANYDICE_WORK, evaluation

__all__ = ["EMPTY", "AnyDiceError", "AnyDiceResult", "AnyDiceWarning", "Empty", "run",
           "run_program"]


#: the Python recursion limit an AnyDice run needs (MAX_FUNCTION_DEPTH levels)
_RECURSION = 20_000


class AnyDiceResult:
    """What :func:`run_program` returns: ``outputs`` (``(label, Distribution | EMPTY)``
    pairs, in order) and ``warnings`` (known AnyDice defects the program hit, where
    AnyDice's own answer differs from this exact one, and why)."""

    __slots__ = ("outputs", "warnings")

    def __init__(self, outputs: list[tuple[str, Distribution | Empty]],
                 warnings: list[str]) -> None:
        self.outputs = outputs
        self.warnings = warnings

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AnyDiceResult):
            return NotImplemented
        return self.outputs == other.outputs and self.warnings == other.warnings

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> tuple[Any, Any]:
        return self.outputs, self.warnings

    def __setstate__(self, state: tuple[Any, Any]) -> None:
        self.outputs, self.warnings = state

    def __repr__(self) -> str:
        return f"AnyDiceResult(outputs={len(self.outputs)}, warnings={self.warnings!r})"


def _refuse(what: str, units: int) -> LimitError:
    return LimitError(
        f"{what} needs too much work: about {units:,} units in all is past the limit "
        f"MAX_ANYDICE_WORK = {MAX_ANYDICE_WORK:,} (about 3 s; AnyDice stops at 5 s); use "
        "fewer or smaller dice, or fewer outcomes per function call",
        limit="MAX_ANYDICE_WORK", value=units)


#: the limits whose refusals a certified run may answer (work spent on huge weights)
APPROX_LIMITS = frozenset({"MAX_ANYDICE_WORK", "MAX_WORK", "MAX_WEIGHT_BITS"})


def _offer(e: LimitError) -> LimitError:
    """The refusal ``e`` with the certified answer offered (``e.approx`` True)."""
    out = LimitError(f"{e}; its weights are huge: approx=True (--approx) may answer it "
                     "with proven error bounds", limit=e.limit, value=e.value)
    out.approx = True  # type: ignore[attr-defined]
    return out


def run_program(text: str, *, approx: bool = False,
                max_error: float = CERTIFIED_ERROR) -> AnyDiceResult:
    """Parse and run an AnyDice program; see :func:`run`. Cost: that of its outputs,
    charged up front to one budget of :data:`~chancekit.limits.MAX_ANYDICE_WORK` units.

    ``approx=True``: if the exact run is refused for its work (:data:`APPROX_LIMITS`),
    run it again the certified way (exact weights past
    :data:`chancekit.dice.certified.CERTIFY_FROM_BITS` bits rounded outward to
    fixed-point intervals), within one more budget of the same size, at 128 bits, then
    512 and 2048 until every output's error bound is at most ``max_error``."""
    if not approx:
        from chancekit.anydice._values import WIDEST
        from chancekit.dice.certified import CERTIFY_FROM_BITS

        widest = [0]
        token = WIDEST.set(widest)
        try:
            return _run_exact(text)
        except LimitError as e:
            if e.limit in APPROX_LIMITS and widest[0] > CERTIFY_FROM_BITS:
                raise _offer(e) from None
            raise
        finally:
            WIDEST.reset(token)
    if not (isinstance(max_error, float | int) and 0 < max_error < 1):
        from chancekit.errors import InvalidValueError

        raise InvalidValueError("max_error", max_error, "a number between 0 and 1")
    try:
        return _run_exact(text)
    except LimitError as e:
        if e.limit not in APPROX_LIMITS:
            raise
        refusal = e
    return _run_certified(text, max_error, refusal)


def _run_certified(text: str, max_error: float, refusal: LimitError) -> AnyDiceResult:
    from chancekit.dice import certified
    from chancekit.limits import fresh_evaluation

    widest = 0.0
    # a budget of its own (the same size as the exact run's): what the refused exact run
    # spent does not count against the certified one
    with fresh_evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK", refuse=_refuse):
        for bits in certified.PRECISIONS:
            with certified.mode(), certified.precision(bits):
                try:
                    result = _run_exact(text)
                except certified.PrecisionLost:
                    continue
                except LimitError as e:
                    raise LimitError(f"{refusal} (exactly); and the certified way: {e}",
                                     limit=e.limit, value=e.value) from None
            widest = max((d.max_error for _, d in result.outputs
                          if isinstance(d, certified.CertifiedDistribution)), default=0.0)
            if widest <= max_error:
                return result
    raise LimitError(f"{refusal} (exactly); the certified answer's error bound "
                     f"({widest:.2g}) stays past max_error = {max_error:g} at the limit "
                     f"MAX_CERTIFIED_BITS = {certified.PRECISIONS[-1]} bits",
                     limit="MAX_CERTIFIED_BITS", value=widest)


def _run_exact(text: str) -> AnyDiceResult:
    from chancekit.anydice._interp import Interpreter
    from chancekit.anydice._parse import parse
    from chancekit.errors import InvalidTypeError

    if not isinstance(text, str):
        raise InvalidTypeError("text", text, "a str (an AnyDice program)")
    program = parse(text)
    interp = Interpreter(text, program)
    # a function at "maximum function depth" 1000 nests about 10 Python frames a level:
    # allow that (Python 3.11+ keeps pure-Python frames off the C stack); deeper still is
    # refused below as a LimitError, never a RecursionError
    if sys.getrecursionlimit() < _RECURSION:
        sys.setrecursionlimit(_RECURSION)
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK", refuse=_refuse):
        try:
            interp.run()
        except RecursionError:
            raise LimitError("the program nests function calls or expressions too deeply "
                             "for this interpreter; lower \"maximum function depth\"",
                             limit="MAX_FUNCTION_DEPTH") from None
        except MemoryError:
            # (as the web's jobs do: an environment's cap, such as a worker's address
            # space, is a limit of this run, not a crash; hang-423 held 300 MB of results)
            interp = None  # its values go before the message is built
            raise LimitError("the program ran out of memory (its exact weights and the "
                             "results it holds at once); use fewer or smaller dice, or "
                             "approx=True (--approx) for huge weights",
                             limit="memory") from None
    # (an output of d{} is an Empty named after it: its errors name the output)
    outputs = [(label, Empty(label) if dist is None else dist) for label, dist in interp.outputs]
    return AnyDiceResult(outputs, list(interp.warnings))


def run(text: str, *, approx: bool = False,
        max_error: float = CERTIFIED_ERROR) -> list[tuple[str, Distribution | Empty]]:
    """Run an AnyDice program: one ``(label, Distribution)`` pair per ``output``, in order,
    exact. Known AnyDice defects hit are issued as :class:`AnyDiceWarning`. Raises
    :class:`AnyDiceError` (line, column, token) for a bad program and
    :class:`~chancekit.errors.LimitError` for one that would run too long.
    ``approx=True``: an output the exact run refuses for its work may come back as a
    :class:`~chancekit.dice.certified.CertifiedDistribution` (see :func:`run_program`).

    >>> run("X: 2d6\\noutput X > 7 named \\"over [X]\\"")[0][1].probability(1)
    Fraction(5, 12)
    """
    result = run_program(text, approx=approx, max_error=max_error)
    for message in result.warnings:
        _warnings.warn(message, AnyDiceWarning, stacklevel=2)
    return result.outputs
