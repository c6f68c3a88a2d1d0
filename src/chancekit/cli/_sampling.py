"""``chancekit table`` (two-dice tabletop tables) and ``chancekit sample`` (weighted
draws from an exact alias table)."""

from __future__ import annotations

import argparse
import io
import sys

from chancekit.cli._common import add_rng_options
from chancekit.cli._dice import add_dialect_option, dialect_of

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any


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
        '  chancekit table --weights "sword=5,shield=3,potion=12" --row-die 6\n'
        '  chancekit table "3d6" --plot 3d6-table.png\n'
        '  chancekit table "2d20" --two-stage --format md\n'
        '  chancekit table "2d20" --two-stage --format html -o 2d20.html',
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
    p.add_argument("--two-stage", action="store_true",
                   help="more outcomes than rows (2d20 has 39): a first table picks a group "
                   "of outcomes, a second table per group picks within it (every --format, "
                   "and --json)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--plot", metavar="FILE.png", help="also save target vs realised "
                   "distribution, one panel per table, accuracy line as title (matplotlib)")
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

    if args.two_stage:
        return _run_two_stage(args)
    tables = [TabletopTable.build(src, row_die=args.row_die, check_die=args.check_die,
                                  title=name) for name, src in _sources(args)]
    if args.json:
        buf = io.StringIO()
        print_json("table", {"tables": [as_mapping(t) for t in tables], "two_stage": []},
                   file=buf)
        text = buf.getvalue()
    elif len(tables) == 1 and args.format == "csv":
        text = tables[0].to_csv()
    else:
        text = tabletop_sheet(tables, fmt=args.format)
    return _emit(args, text, tables)


def _run_two_stage(args: argparse.Namespace) -> int:
    """The same outputs as single tables: text, md, csv and html sheets, and ``--json``
    (the ``two_stage`` field of the ``table`` document; ``tables`` is empty)."""
    from chancekit.cli._output import print_json
    from chancekit.sampling.tabletop import TwoStageTable, as_mapping, two_stage_html

    tables = [TwoStageTable.build(src, row_die=args.row_die, check_die=args.check_die,
                                  title=name) for name, src in _sources(args)]
    if args.json:
        buf = io.StringIO()
        print_json("table", {"tables": [], "two_stage": [as_mapping(t) for t in tables]},
                   file=buf)
        text = buf.getvalue()
    elif args.format == "html":
        text = two_stage_html(tables)
    elif args.format == "csv":  # one CSV; several tables add a leading "title" column
        text = tables[0].to_csv() if len(tables) == 1 else _titled_csv(tables)
    else:
        text = "\n".join(t.render(args.format) for t in tables)
    return _emit(args, text, tables)  # a plot: the overall target vs the exact result


def _emit(args: argparse.Namespace, text: str, tables: list[Any]) -> int:
    """Write ``text`` to ``--output`` (or stdout) and the ``--plot`` of ``tables``."""
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.plot:
        plot_tables(tables, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _titled_csv(tables: list[Any]) -> str:
    """Several two-stage tables' CSV in one: each line led by its table's title."""
    import csv

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for i, t in enumerate(tables):
        head, *rows = csv.reader(io.StringIO(t.to_csv()))
        if i == 0:
            w.writerow(["title", *head])
        w.writerows([t.title, *r] for r in rows)
    return buf.getvalue()


def plot_tables(tables: list[Any], path: str) -> None:
    """Target (bars) vs realised (step line) distribution of each table, one panel per
    table, titled with its accuracy line (as the seed article's graphs). Numeric outcomes
    sit on a number line; labels (a loot table) are evenly spaced in their table order.
    Two-stage tables show the overall target and the exact two-stage result."""
    from itertools import pairwise

    import matplotlib

    matplotlib.use("Agg")
    from fractions import Fraction

    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(tables), 1, figsize=(8, 3.6 * len(tables)), squeeze=False)
    try:
        for ax, t in zip(axes[:, 0], tables, strict=True):
            real = t.realized()
            labels = list(t.target)
            numeric = all(isinstance(x, (int, Fraction)) and not isinstance(x, bool)
                          for x in labels)
            if numeric:
                labels.sort()
                xs = [float(x) for x in labels]
            else:
                xs = [float(i) for i in range(len(labels))]
                ax.set_xticks(xs, [str(x) for x in labels], rotation=30, ha="right")
            width = 0.8 * min((b - a for a, b in pairwise(xs)), default=1.0)
            ax.bar(xs, [float(t.target[x]) for x in labels], width=width, color="#4c72b0",
                   alpha=0.55, label="target")
            step = width / 0.8
            edges = ([xs[0] - step / 2] + [(a + b) / 2 for a, b in pairwise(xs)]
                     + [xs[-1] + step / 2])
            ax.stairs([float(real.probability(x)) for x in labels], edges,
                      color="#dd5522", lw=1.8, label="realised")
            name = t.title or "table"
            ax.set_title(f"{name} on d{t.row_die} x d{t.check_die}: {t.report().line()}",
                         fontsize=9)
            ax.set_xlabel("outcome")
            ax.set_ylabel("probability")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)


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
