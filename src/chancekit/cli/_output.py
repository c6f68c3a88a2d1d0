"""Output helpers shared by the subcommands (private).

Tables use rich when stdout is a terminal-like stream; JSON output is plain ``json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on stdout."""
    json.dump(obj, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


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
