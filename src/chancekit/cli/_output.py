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
    """Print a table with rich (plain box characters, no colour when piped)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, box=None, header_style="bold", pad_edge=False)
    for i, h in enumerate(headers):
        table.add_column(h, justify=(align[i] if align else "right"))  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*(str(c) for c in row))
    Console(file=sys.stdout, soft_wrap=True).print(table)


def bar(fraction: float, width: int = 30) -> str:
    """A text bar of ``fraction * width`` cells using eighth blocks.

    >>> bar(0.5, 4)
    '██'
    """
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if part == 0 else "▏▎▍▌▋▊▉"[part - 1])
