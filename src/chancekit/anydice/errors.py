"""The errors and warnings of the AnyDice language.

:class:`AnyDiceError` is a :class:`~chancekit.errors.NotationError`: ``str()`` gives one
line naming the problem, the line, the column and the token, then the program line and a
caret under the column. ``.line``/``.column`` are 1-based, ``.token`` the offending text,
``.summary`` the first line alone. Runaway work raises
:class:`~chancekit.errors.LimitError` instead (refused up front, by an estimate).

>>> err = AnyDiceError("unexpected '}'", line=2, column=8, token="}", source="X: 1\\noutput }")
>>> print(err)
unexpected '}' at line 2, column 8
  output }
         ^
>>> err.summary
"unexpected '}' at line 2, column 8"
"""

from __future__ import annotations

from chancekit.errors import InvalidValueError, NotationError

__all__ = ["AnyDiceError", "AnyDiceWarning"]

#: characters of the program line shown under an error (a longer line is cut around the column)
_SHOWN = 100


class AnyDiceError(NotationError):
    """An AnyDice program could not be parsed or run (line, column and token named)."""

    line = None  # type: ignore[assignment]  # an int attribute here (NotationError: a property)

    def __init__(self, problem: str, *, line: int, column: int, token: str = "",
                 source: str = "") -> None:
        self.problem = problem
        self.line = line  # type: ignore[assignment]
        self.column = column
        self.token = token
        lines = source.splitlines() or [""]
        text = lines[line - 1] if 1 <= line <= len(lines) else ""
        col = column
        if len(text) > _SHOWN:  # show the part of a long line around the column
            start = max(0, min(column - 1 - _SHOWN // 2, len(text) - _SHOWN))
            text = text[start:start + _SHOWN]
            col = column - start
        self.text = text
        from chancekit.errors import _CONTROL_PICTURES

        shown = text.translate(_CONTROL_PICTURES)
        self.summary = f"{problem} at line {line}, column {column}"
        InvalidValueError.__init__(
            self, f"{self.summary}\n  {shown}\n  {' ' * max(0, col - 1)}^")


class AnyDiceWarning(UserWarning):
    """A program hit a known AnyDice defect: chancekit's exact answer differs from the one
    anydice.com prints (the message says how and why)."""
