"""How ``dist --approx`` and ``anydice --approx`` print a certified answer
(:class:`~chancekit.dice.certified.CertifiedDistribution`): the table of ``dist`` with
each probability's proven error bound beside it, and a line that says the answer is
certified, not exact, with its largest error bound and the mean's interval.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: rows shown by default (the most likely ones; --all shows every outcome)
SHOWN = 100


def is_certified(d: Any) -> bool:
    from chancekit.dice.certified import CertifiedDistribution

    return isinstance(d, CertifiedDistribution)


def refuse_json() -> None:
    """``--json`` has no document for certified answers yet: refused, not guessed."""
    from chancekit.errors import InvalidValueError

    raise InvalidValueError("--json has no form for a certified (--approx) answer yet; "
                            "drop --json to print the table with its error bounds")


def show_certified(d: Any, title: str, args: argparse.Namespace) -> None:
    """Print ``d``'s table: outcome, probability (the interval's midpoint), its error
    bound, at least, at most (midpoints of their intervals), a bar; then the summary
    line. Past :data:`SHOWN` outcomes the most likely are shown unless ``--all``."""
    from chancekit.cli._output import bar, print_table
    from chancekit.dice.distribution import _label

    rows = d.rows()
    at_least, at_most, acc = [], [], 0.0
    for _, p, _, _ in rows:
        at_most.append(min(acc + p, 1.0))
        acc += p
    total = acc
    acc = 0.0
    for _, p, _, _ in reversed(rows):
        acc += p
        at_least.append(min(acc, 1.0))
    at_least.reverse()
    table = [(x, p, al, am) for (x, p, _, _), al, am in zip(rows, at_least, at_most,
                                                            strict=True)]
    hidden = 0
    if not getattr(args, "all", False) and len(table) > SHOWN:
        floor = sorted((r[1] for r in table), reverse=True)[SHOWN - 1]
        kept = [r for r in table if r[1] >= floor][:SHOWN]
        hidden = len(table) - len(kept)
        table = kept

    errors = d.errors()
    table = [(x, p, errors[x], al, am) for x, p, al, am in table]
    top = max((r[1] for r in table), default=0.0) or 1.0
    print_table(["outcome", "probability", "± bound", "at least", "at most", ""],
                [(_label(x), f"{100 * p:.10f}%", f"{100 * e:.1e}%", f"{100 * al:.4f}%",
                  f"{100 * am:.4f}%", bar(p / top, 30)) for x, p, e, al, am in table],
                title=title, align=["right", "right", "right", "right", "right", "left"])
    if hidden:
        print(f"({hidden} less likely outcomes hidden; --all shows them)")
    lo, hi = d.mean_bounds()
    print(f"certified, not exact: every probability within ±{d.max_error:.2g} of the value "
          f"shown ({d.bits}-bit interval arithmetic); mean in [{float(lo):.12g}, "
          f"{float(hi):.12g}]; {len(d)} outcomes, probabilities sum to {total:.12g}")
