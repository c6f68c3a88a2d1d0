"""The errors chancekit raises.

Every error the library raises on purpose derives from :class:`ChancekitError`, so
``except chancekit.ChancekitError`` catches them all. Bad *values* raise subclasses of
:class:`ValueError`, wrong *types* raise :class:`InvalidTypeError` (a :class:`TypeError`);
each message names the argument, quotes the bad value and says what would be valid.

>>> from chancekit.errors import InvalidValueError
>>> try:
...     raise InvalidValueError("bound", 0, "an integer >= 1")
... except ValueError as e:
...     print(e)
bound must be an integer >= 1, not 0
"""

from __future__ import annotations

__all__ = [
    "ChancekitError",
    "InvalidTypeError",
    "InvalidValueError",
    "LimitError",
    "NotationError",
    "StateError",
]


class ChancekitError(Exception):
    """Root of every error chancekit raises on purpose."""


class InvalidValueError(ChancekitError, ValueError):
    """An argument has the right type but a bad value.

    Built either from a ready message, or from ``(name, value, valid)`` which renders as
    ``"<name> must be <valid>, not <value!r>"``.
    """

    def __init__(self, name: str, value: object = None, valid: str | None = None) -> None:
        if valid is None:
            super().__init__(name)
        else:
            super().__init__(f"{name} must be {valid}, not {value!r}")
        self.argument = name if valid is not None else None
        self.value = value


class InvalidTypeError(ChancekitError, TypeError):
    """An argument has the wrong type.

    ``InvalidTypeError("seed", 1.5, "an int")`` renders as
    ``"seed must be an int, not float (1.5)"``.
    """

    def __init__(self, name: str, value: object = None, valid: str | None = None) -> None:
        if valid is None:
            super().__init__(name)
        else:
            super().__init__(f"{name} must be {valid}, not {type(value).__name__} ({value!r})")
        self.argument = name if valid is not None else None
        self.value = value


#: control characters shown as their Unicode pictures (a newline as U+2424, ...), so a
#: notation error's text stays on one line and the caret stays under the right column
_CONTROL_PICTURES = {c: 0x2400 + c for c in range(32)} | {0x7F: 0x2421, 0x85: 0x2424,
                                                          0x2028: 0x2424, 0x2029: 0x2424}


class NotationError(InvalidValueError):
    """A dice expression could not be parsed or evaluated.

    ``str()`` gives one line naming the problem and the column (1-based), followed by the
    text and a caret under the column::

        unexpected 'x' at column 4
          3d6x2
             ^
    """

    def __init__(self, problem: str, text: str, column: int) -> None:
        self.problem = problem
        self.text = text
        self.column = column  # 1-based
        shown = text.translate(_CONTROL_PICTURES)  # one visible character per character
        super().__init__(f"{problem} at column {column}\n  {shown}\n  {' ' * (column - 1)}^")

    @property
    def line(self) -> str:
        """The one-line summary, without the text and caret."""
        return f"{self.problem} at column {self.column}"


class LimitError(InvalidValueError):
    """Work refused up front because it would exceed a documented limit.

    The message names the limit, its value, what was asked, and how to proceed.
    """

    def __init__(self, message: str, *, limit: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.value = value


class StateError(InvalidValueError):
    """A saved state (JSON, pickle, ``setstate`` argument) is malformed, tampered or of an
    unknown format version. Nothing is silently reset."""
