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


#: characters of a quoted value kept in an error message (a 100 MB string quotes its start)
QUOTE_CHARS = 200
#: digits of an integer shown in full in an error message; a longer one is summarised
QUOTE_DIGITS = 60


def quote(value: object, *, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` made safe for an error message: bounded, and never failing.

    Huge integers are summarised by their size (``repr`` of an int past 4300 digits raises
    ``ValueError``), long values are cut to ``limit`` characters with a count of the rest,
    and text that cannot be encoded (lone surrogates) is shown escaped, as ``repr`` does.
    Cost: O(limit) for strings and containers of strings, O(bits) for integers.

    >>> quote(10**100)
    'an integer of 101 digits (1000000000...0000000000)'
    >>> quote(-(1 << 80000))
    'an integer of 24083 digits (-250988...8263909376)'
    >>> quote("x" * 1000, limit=5)
    "'xxxxx'... (995 more characters)"
    >>> quote(chr(0xD800))
    "'\\\\ud800'"
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return _quote_int(value)
    if isinstance(value, str | bytes | bytearray) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value) - limit} more characters)"
    try:
        text = repr(value)
    except Exception:  # a huge int inside a container, a broken __repr__
        text = f"<{type(value).__name__} object>"
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    return text


def _quote_int(value: int) -> str:
    if value.bit_length() <= 3 * QUOTE_DIGITS:  # < 10**54: repr is cheap and short
        return repr(value)
    digits = _decimal_digits(abs(value))
    if digits <= QUOTE_DIGITS:
        return repr(value)
    sign = "-" if value < 0 else ""
    low = str(abs(value) % 10**10).zfill(10)
    high = str(abs(value) // 10 ** (digits - 10)) if digits <= 4000 else _leading(abs(value))
    return f"an integer of {digits} digits ({sign}{high}...{low})"


def _decimal_digits(n: int) -> int:
    """Number of decimal digits of ``n > 0`` without ``str`` (no 4300-digit cap): exact up
    to 100 000 bits; past that from the logarithm of its top 64 bits (``10**guess`` of a
    million-bit number alone takes 80 ms), off by one only within a relative 10^-15 of a
    power of ten."""
    if n.bit_length() > 100_000:
        import math

        shift = n.bit_length() - 64
        return math.floor(math.log10(n >> shift) + shift * math.log10(2)) + 1
    guess = int(n.bit_length() * 0.30102999566398120)  # log10(2)
    return guess + 1 if n >= 10**guess else guess


def _leading(n: int) -> str:
    """The first 10 decimal digits of a huge ``n``, from a float logarithm of its top bits."""
    import math

    shift = max(n.bit_length() - 64, 0)
    log10 = math.log10(n >> shift) + shift * math.log10(2)
    return f"{10 ** (log10 - math.floor(log10)):.5f}".replace(".", "")  # 6 sure digits


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
            super().__init__(f"{name} must be {valid}, not {quote(value)}")
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
            super().__init__(
                f"{name} must be {valid}, not {type(value).__name__} ({quote(value)})"
            )
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
