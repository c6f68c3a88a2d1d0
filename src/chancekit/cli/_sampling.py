"""``chancekit table`` (two-dice tabletop tables) and ``chancekit sample`` (weighted
draws from an exact alias table)."""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from chancekit.cli._common import add_rng_options
from chancekit.cli._dice import add_dialect_option, dialect_of


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``table`` and ``sample`` to ``sub``."""
    p = sub.add_parser(
        "table",
        help="a two-dice table (d20 x d20) that rolls like any distribution",
        description="Build a tabletop alias table: roll the row die, then the check die; if "
        "it is at most the row's threshold the result is the row's outcome, otherwise its "
        "alias. The target is rounded once, optimally, to the dice's grid; the accuracy "
        "report compares it with the original. Several notations give a sheet side by side.",
        epilog="examples:\n"
        '  chancekit table "3d6"\n'
        '  chancekit table "3d6" "4d6kh3" "4dF" "d6" --format html -o sheet.html\n'
        '  chancekit table --weights "sword=5,shield=3,potion=12" --row-die 6',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("notation", nargs="*", help="dice notation(s), e.g. 3d6")
    add_dialect_option(p)
    p.add_argument("--weights", metavar="W", help='a loot table: "sword=5,shield=3,potion=12"')
    p.add_argument("--row-die", type=int, default=20, metavar="N",
                   help="faces of the row die (default 20)")
    p.add_argument("--check-die", type=int, default=20, metavar="N",
                   help="faces of the check die (default 20)")
    p.add_argument("--format", choices=("md", "csv", "text", "html"), default="text",
                   help="output format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_table)

    q = sub.add_parser(
        "sample",
        help="weighted draws (exact alias table), optionally without repeats",
        description="Draw K results from a weighted table (--weights) or a dice notation, "
        "each with probability exactly weight/total. --no-repeat L forbids runs longer "
        "than L.",
        epilog="example:\n"
        '  chancekit sample --weights "sword=5,shield=3,potion=12" -n 10 --seed 42',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("notation", nargs="?", help="dice notation, e.g. 3d6 (or use --weights)")
    add_dialect_option(q)
    q.add_argument("--weights", metavar="W", help='"sword=5,shield=3,potion=12"')
    q.add_argument("-n", type=int, default=10, metavar="K", help="how many draws (default 10)")
    q.add_argument("--no-repeat", type=int, default=0, metavar="L",
                   help="never more than L equal results in a row (default: no filter)")
    q.add_argument("--swap", type=int, default=0, metavar="L",
                   help="the published swap filter: hold the last L draws out of a chance "
                   "tree; L=1 forbids doubles (default: no filter)")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    add_rng_options(q)
    q.set_defaults(func=run_sample)


def _sources(args: argparse.Namespace) -> list[tuple[str, Any]]:
    from chancekit.errors import InvalidValueError
    from chancekit.sampling._weights import parse_weights

    out: list[tuple[str, Any]] = [(n, n) for n in args.notation] if isinstance(
        args.notation, list) else ([(args.notation, args.notation)] if args.notation else [])
    dialect = dialect_of(args)
    if dialect != "avrae":  # notation read in another dialect (docs/notation.md)
        from chancekit.dice import dist

        out = [(name, dist(src, dialect=dialect)) for name, src in out]
    if args.weights is not None:
        out.append(("weights", parse_weights(args.weights)))
    if not out:
        raise InvalidValueError("give a dice notation (e.g. 3d6) or --weights "
                                "'label=weight,...'")
    return out


def run_table(args: argparse.Namespace) -> int:
    from chancekit.cli._output import print_json
    from chancekit.sampling.tabletop import TabletopTable, as_mapping, tabletop_sheet

    tables = [TabletopTable.build(src, row_die=args.row_die, check_die=args.check_die,
                                  title=name) for name, src in _sources(args)]
    if args.json:
        buf = io.StringIO()
        print_json("table", {"tables": [as_mapping(t) for t in tables]}, file=buf)
        text = buf.getvalue()
    elif len(tables) == 1 and args.format == "csv":
        text = tables[0].to_csv()
    else:
        text = tabletop_sheet(tables, fmt=args.format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run_sample(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int
    from chancekit.cli._common import rng_from_args, stream_value
    from chancekit.cli._output import print_json
    from chancekit.errors import InvalidValueError
    from chancekit.sampling import AliasTable, MaxStreak

    n = require_int("-n", args.n, lo=0, hi=10_000_000)
    no_repeat = require_int("--no-repeat", args.no_repeat, lo=0)
    sources = _sources(args)
    if len(sources) != 1:
        raise InvalidValueError("give either a dice notation or --weights, not both")
    name, src = sources[0]
    if isinstance(src, str):
        from chancekit.dice import dist

        src = dist(src)
    table = AliasTable(src)
    rng, seed = rng_from_args(args)
    swap = require_int("--swap", args.swap, lo=0)
    if swap and no_repeat:
        raise InvalidValueError("choose one filter: --swap or --no-repeat, not both")
    if swap:
        from chancekit.sampling import ChanceTree

        tree = ChanceTree({label: table.probability(label) for label in table})
        draws = tree.swap_filter(swap).draw_many(n, rng)
    elif no_repeat:
        filt = MaxStreak(table, no_repeat)
        draws = filt.draw_many(n, rng)
    else:
        draws = table.draw_many(n, rng)
    if args.json:
        print_json("sample", {
            "notation": None if args.weights is not None else name, "seed": seed,
            "stream": stream_value(args.stream), "no_repeat": no_repeat or None,
            "swap": swap or None, "n": n, "draws": draws,
            "probabilities": {str(k): str(table.probability(k)) for k in table}})
        return 0
    print(" ".join(str(x) for x in draws))
    return 0
