"""Output helpers shared by the subcommands (private).

Tables use rich when stdout is a terminal-like stream; JSON output is plain ``json``.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO


def print_json(command: str, obj: Mapping[str, Any], file: TextIO | None = None) -> None:
    """Print ``command``'s ``--json`` document: ``{"schema": "chancekit.COMMAND/1", ...obj}``
    as indented JSON (schemas: :mod:`chancekit.cli.schemas`, docs/cli.md). Values that are
    not JSON are written as text; non-finite floats as ``null``.
    """
    from chancekit.cli.schemas import schema_id

    doc = _finite({"schema": schema_id(command), **obj})
    out = sys.stdout if file is None else file
    json.dump(doc, out, indent=2, default=str, allow_nan=False)
    out.write("\n")


def _finite(obj: Any) -> Any:
    """``obj`` with NaN and infinities replaced by ``None`` (JSON has no such numbers)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def print_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    title: str | None = None,
    align: Sequence[str] | None = None,
) -> None:
    """Print a table with rich (plain box characters, no colour when piped). A long table
    (past :data:`_PLAIN_ROWS` rows) going to a stream that is not a terminal is laid out
    the same way without rich, which takes about a millisecond a row (10000d6: 1 300
    rows)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rows = [[str(c) for c in row] for row in rows]
    console = Console(file=sys.stdout, soft_wrap=True)
    if len(rows) > _PLAIN_ROWS and not console.is_terminal \
            and _print_plain(console, headers, rows, title, align):
        return
    # the title and cells are the user's text (an AnyDice output named "[/x]", a label):
    # shown as they are, never read as rich markup
    table = Table(title=None if title is None else Text(title), box=None,
                  header_style="bold", pad_edge=False)
    for i, h in enumerate(headers):
        table.add_column(h, justify=(align[i] if align else "right"))  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*(Text(c) for c in row))
    console.print(table)


#: tables longer than this skip rich when not printed to a terminal
_PLAIN_ROWS = 200


def _print_plain(console: Any, headers: Sequence[str], rows: list[list[str]],
                 title: str | None, align: Sequence[str] | None) -> bool:
    """Print what rich prints for ``print_table`` (no box, two spaces between columns, no
    outer padding, plain text); False (nothing printed) if rich would have to wrap."""
    from rich.cells import cell_len

    widths = [max([cell_len(h)] + [cell_len(r[i]) for r in rows])
              for i, h in enumerate(headers)]
    total = sum(widths) + 2 * (len(widths) - 1)
    if total > console.width or any(len(r) != len(headers) for r in rows):
        return False
    just = list(align) if align else ["right"] * len(headers)

    def line(cells: Sequence[str]) -> str:
        out = []
        for c, w, j in zip(cells, widths, just, strict=True):
            pad = " " * (w - cell_len(c))
            out.append(pad + c if j == "right" else c + pad)
        return "  ".join(out)

    parts = [title] if title else []  # soft_wrap: rich prints the title as it is
    parts.append(line(headers))
    parts.extend(line(r) for r in rows)
    sys.stdout.write("\n".join(parts) + "\n")
    return True


def bar(fraction: float, width: int = 30) -> str:
    """A text bar of ``fraction * width`` cells using eighth blocks.

    >>> bar(0.5, 4)
    '██'
    """
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if part == 0 else "▏▎▍▌▋▊▉"[part - 1])
