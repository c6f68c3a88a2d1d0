"""``chancekit dist`` (exact distribution of dice notation) and ``chancekit roll``."""

from __future__ import annotations

import argparse
from typing import Any

from chancekit.cli._common import add_rng_options

#: ``chancekit dist`` hides rows below this probability when there are many outcomes
_HIDE_BELOW = 1e-6
_MANY_ROWS = 100


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``dist`` and ``roll`` to ``sub``."""
    p = sub.add_parser(
        "dist",
        help="exact distribution of a dice expression (e.g. 4d6kh3)",
        description="Print the exact distribution of a dice expression: each outcome with "
        "its probability, the chance of at least / at most it, and a bar; then the mean "
        "and standard deviation. Notation reference: docs/notation.md.",
        epilog="examples:\n"
        '  chancekit dist "4d6kh3"\n'
        '  chancekit dist "1d20+5 >= 15" --json\n'
        '  chancekit dist "(1d8!, 1d6!)kh1" --plot savage.png',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("notation", help='dice expression, e.g. "4d6kh3" (quote it in the shell)')
    p.add_argument("--json", action="store_true", help="machine-readable output (exact "
                   "probabilities as fractions, plus floats)")
    p.add_argument("--plot", metavar="FILE.png", help="also save a bar chart (matplotlib)")
    p.add_argument("--all", action="store_true", help=f"show every outcome (by default, "
                   f"past {_MANY_ROWS} outcomes, rows below {_HIDE_BELOW:g} are hidden)")
    p.set_defaults(func=run_dist)

    c = sub.add_parser(
        "nco",
        help="Neon City Overdrive: action dice vs danger dice, exactly",
        description="The exact outcome of a Neon City Overdrive roll: each danger die "
        "cancels one action die showing the same face; the result is the highest action "
        "face left (0 if none); a six is 5 + the number of sixes left (7 = one critical). "
        "Evaluated face by face in polynomial time (docs/dice.md).",
        epilog="examples:\n  chancekit nco 5 3\n  chancekit nco 20 20 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("action", type=int, help="number of action dice (d6)")
    c.add_argument("danger", type=int, help="number of danger dice (d6)")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--plot", metavar="FILE.png", help="also save a bar chart (matplotlib)")
    c.add_argument("--all", action="store_true", help="show every outcome")
    c.set_defaults(func=run_nco)

    r = sub.add_parser(
        "roll",
        help="roll a dice expression, with an Avrae-style breakdown",
        description="Roll a dice expression and print the breakdown, e.g. "
        "'4d6kh3 (5, 3, ~~1~~, 6) = 14' (dropped dice struck through, exploded dice "
        "marked !). Reproducible with --seed (and --stream for a named stream).",
        epilog="examples:\n"
        '  chancekit roll "4d6kh3" -n 6 --seed 42\n'
        '  chancekit roll "1d20+5" --seed 12345 --stream combat --json',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("notation", help='dice expression, e.g. "4d6kh3" (quote it in the shell)')
    r.add_argument("-n", type=int, default=1, metavar="K", help="roll K times (default 1)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    add_rng_options(r)
    r.set_defaults(func=run_roll)


def _num(x: Any) -> Any:
    """A JSON number for ints, text for fractions ("7/2")."""
    return x if isinstance(x, int) else str(x)


def run_dist(args: argparse.Namespace) -> int:
    from chancekit.dice.notation import dist

    return show_distribution(dist(args.notation), args.notation, args,
                             {"notation": args.notation}, "dist")


def run_nco(args: argparse.Namespace) -> int:
    from chancekit.dice import neon_city_overdrive

    title = f"Neon City Overdrive: {args.action} action vs {args.danger} danger"
    return show_distribution(neon_city_overdrive(args.action, args.danger), title, args,
                             {"action": args.action, "danger": args.danger}, "nco")


def show_distribution(d: Any, title: str, args: argparse.Namespace,
                      head: dict[str, Any], command: str) -> int:
    """Print a distribution as the `dist` command does (table, or --json, or --plot);
    ``head`` leads the ``--json`` document of ``command``."""
    from chancekit.cli._output import bar, print_json, print_table

    rows_data = d.cumulative()
    ordered = _orderable(d.outcomes())
    mean = d.mean() if ordered else None
    sd = d.sd() if ordered else None
    if args.json:
        print_json(command, {
            **head,
            "outcomes": [{"outcome": _num(x), "weight": d.weights[x],
                          "probability": str(p), "probability_float": float(p),
                          "at_least": float(al), "at_most": float(am)}
                         for x, p, al, am in rows_data],
            "total_weight": d.total,
            "mean": None if mean is None else str(mean),
            "mean_float": None if mean is None else float(mean),
            "sd": sd,
        })
    else:
        top = max(r[1] for r in rows_data)
        hide = not args.all and len(rows_data) > _MANY_ROWS
        shown = [r for r in rows_data if not hide or r[1] >= _HIDE_BELOW]
        rows = [(str(x), f"{100 * float(p):.4f}%", f"{100 * float(al):.4f}%",
                 f"{100 * float(am):.4f}%", bar(float(p / top), 30))
                for x, p, al, am in shown]
        print_table(["outcome", "probability", "at least", "at most", ""], rows,
                    title=title, align=["right", "right", "right", "right", "left"])
        if len(shown) < len(rows_data):
            print(f"({len(rows_data) - len(shown)} outcomes below {_HIDE_BELOW:g} hidden; "
                  f"--all shows them)")
        if mean is not None:
            exact = f" (exactly {mean})" if len(str(mean)) <= 24 else ""
            print(f"mean {float(mean):.4f}{exact}, sd {sd:.4f}")
    if args.plot:
        _plot(title, [r[0] for r in rows_data], [float(r[1]) for r in rows_data],
              args.plot)
    return 0


def _orderable(outcomes: Any) -> bool:
    try:
        sorted(outcomes)
        sum(outcomes)
    except TypeError:
        return False
    return True


def _plot(title: str, xs: list[Any], ps: list[float], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        ax.bar([float(x) for x in xs], ps, width=0.8 * _step(xs), color="#4c72b0")
        ax.set_title(title)
        ax.set_xlabel("outcome")
        ax.set_ylabel("probability")
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)


def _step(xs: list[Any]) -> float:
    from itertools import pairwise

    vals = sorted(float(x) for x in xs)
    gaps = [b - a for a, b in pairwise(vals) if b > a]
    return min(gaps) if gaps else 1.0


def run_roll(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int
    from chancekit.cli._common import rng_from_args, stream_value
    from chancekit.cli._output import print_json
    from chancekit.dice.notation import roll

    n = require_int("-n", args.n, lo=1, hi=100_000)
    rng, seed = rng_from_args(args)
    results = [roll(args.notation, rng=rng) for _ in range(n)]
    if args.json:
        print_json("roll", {"notation": args.notation, "seed": seed,
                            "stream": stream_value(args.stream),
                            "rolls": [r.to_dict() for r in results]})
    else:
        for r in results:
            print(r)
    return 0
