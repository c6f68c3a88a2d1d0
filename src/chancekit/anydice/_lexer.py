"""AnyDice program text -> tokens (kind, text, line, column).

Kinds: ``num`` (digits), ``var`` (uppercase words, underscores allowed), ``word``
(lowercase words; the lone ``d`` is the dice operator, kind ``op``), ``str`` (a double-
quoted string, quotes removed), ``op`` (punctuation: ``+ - * / ^ @ # ! & | = != < <= > >=
: , .. ( ) { } [ ]``) and ``end``. Comments ``\\ ... \\`` are skipped. O(length).

>>> [t.text for t in tokenize('output 3d6 named "x" \\\\ note \\\\')]
['output', '3', 'd', '6', 'named', 'x', '']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from chancekit.anydice.errors import AnyDiceError

__all__ = ["Token", "tokenize", "tokens"]


class Token(NamedTuple):
    kind: str
    text: str
    line: int
    column: int


_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n\f\v]+)
  | (?P<comment>\\[^\\]*\\?)
  | (?P<num>[0-9]+)
  | (?P<var>[A-Z_]+)
  | (?P<word>[a-z]+)
  | (?P<str>"[^"]*"?)
  | (?P<op>!=|<=|>=|\.[ \t\r\n]*\.|[-+*/^@#!&|=<>:,(){}\[\]?])
""", re.VERBOSE)


def tokenize(source: str) -> list[Token]:
    """The tokens of ``source``; an unknown character or an unterminated string raises
    :class:`AnyDiceError` naming its line and column."""
    return list(tokens(source))


def tokens(source: str) -> Iterator[Token]:
    """The tokens of ``source`` one by one (the parser reads them as it goes, so an error
    early in a huge text is found without reading the rest)."""
    pos, line, line_start = 0, 1, 0
    n = len(source)
    match = _TOKEN.match
    while pos < n:
        m = match(source, pos)
        if m is None:
            ch = source[pos]
            raise AnyDiceError(f"unexpected character {ch!r}", line=line,
                               column=pos - line_start + 1, token=ch, source=source)
        kind = m.lastgroup
        text = m.group()
        col = pos - line_start + 1
        if kind == "str":
            if len(text) < 2 or not text.endswith('"'):
                raise AnyDiceError("unterminated string (no closing '\"')", line=line,
                                   column=col, token='"', source=source)
            yield Token("str", text[1:-1], line, col)
        elif kind == "word" and text == "d":
            yield Token("op", "d", line, col)
        elif kind == "op" and text.startswith("."):
            yield Token("op", "..", line, col)
        elif kind not in ("space", "comment"):
            yield Token(kind, text, line, col)  # type: ignore[arg-type]
        newlines = text.count("\n")
        if newlines:
            line += newlines
            line_start = pos + text.rindex("\n") + 1
        pos = m.end()
    yield Token("end", "", line, pos - line_start + 1)
