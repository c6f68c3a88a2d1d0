"""``chancekit symbols``: the exact net result of a Genesys (FFG narrative) dice pool."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: rows of the text table without --all (the most likely outcomes)
_TOP = 20


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``symbols`` to ``sub``."""
    p = sub.add_parser(
        "symbols",
        help="Genesys / FFG narrative dice: the exact net symbols of a pool (e.g. 2A1P vs 2D)",
        description="The exact distribution of the net symbols of a Genesys dice pool: "
        "successes cancel failures, advantages cancel threats; a triumph also counts as a "
        "success and a despair as a failure (they never cancel). The pool is counts and "
        "letters: A ability, P proficiency, B boost vs D difficulty, C challenge, S setback "
        "(docs/symbols.md). Prints the most likely results, the chance the check succeeds "
        "(net successes >= 1) and of each symbol.",
        epilog="examples:\n"
        '  chancekit symbols "2A1P vs 2D"\n'
        '  chancekit symbols "3A1B vs 1D1C1S" --all\n'
        '  chancekit symbols "2A1P vs 2D1C" --json',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pool", help='the pool, e.g. "2A1P vs 2D1C" (quote it in the shell)')
    p.add_argument("--json", action="store_true", help="machine-readable output (exact "
                   "weights as decimal text, probabilities as floats)")
    p.add_argument("--all", action="store_true",
                   help=f"list every result (by default the {_TOP} most likely)")
    p.set_defaults(func=run_symbols)


def run_symbols(args: argparse.Namespace) -> int:
    from chancekit.cli._output import bar, print_json, print_table
    from chancekit.dice.distribution import _decimal, _fraction_text, _short_fraction
    from chancekit.dice.symbols import genesys, genesys_pool, project

    counts = genesys_pool(args.pool)
    g = genesys(counts)
    names = sorted({k for s in g.outcomes() for k in s})
    success = project(g, "success").at_least(1)
    at_least_one = {k: float(project(g, k).at_least(1)) for k in names}
    means = {k: project(g, k).mean() for k in names}
    if args.json:
        print_json("symbols", {
            "pool": args.pool,
            "dice": counts,
            "outcomes": [{"symbols": dict(s), "text": str(s), "weight": _decimal(w),
                          "probability": w / g.total} for s, w in g.items()],
            "total_weight": _decimal(g.total),
            "success": _fraction_text(success),
            "success_float": float(success),
            "at_least_one": at_least_one,
            "means": {k: _fraction_text(m) for k, m in means.items()},
        })
        return 0
    rows: list[Any] = sorted(g.items(), key=lambda kv: -kv[1])
    hidden = 0 if args.all else max(0, len(rows) - _TOP)
    rows = rows[: len(rows) - hidden]
    top = rows[0][1]
    title = "net symbols of " + " ".join(f"{n} {k}" for k, n in counts.items())
    print_table(["result", "probability", ""],
                [(str(s), f"{100 * w / g.total:.4f}%", bar(w / top, 30)) for s, w in rows],
                title=title, align=["left", "right", "left"])
    if hidden:
        print(f"({hidden} less likely results hidden; --all shows them)")
    exact = _short_fraction(success)
    print(f"success (net successes >= 1): {100 * float(success):.4f}%"
          + (f" (exactly {exact})" if exact else ""))
    for k in names:
        if k != "success":
            print(f"at least one {k}: {100 * at_least_one[k]:.4f}%")
    return 0
