"""``chancekit estimate``: a Monte Carlo estimate of dice notation (random rolls, with
95 % intervals) for expressions whose exact distribution is refused as too much work."""

from __future__ import annotations

import argparse
import sys

from chancekit.cli._common import add_rng_options
from chancekit.cli._dice import add_dialect_option, dialect_of

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: past this many outcomes, those seen in fewer than 1 roll in 1000 are not listed
_MANY_ROWS = 100


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``estimate`` to ``sub``."""
    p = sub.add_parser(
        "estimate",
        help="a Monte Carlo estimate of a dice expression (random rolls, 95 %% intervals)",
        description="Roll a dice expression N times (chancekit.roll from a seeded stream) "
        "and print how often each total came up, with its 95 % Wilson interval, and the "
        "mean with its 95 % interval: an ESTIMATE, for expressions whose exact "
        "distribution (chancekit dist) is refused as too much work. The same --seed and "
        "-n give the same answer; without --seed the seed drawn is printed. "
        "(chancekit.dice.montecarlo.estimate)",
        epilog="examples:\n"
        '  chancekit estimate "100d100kh50" -n 2000 --seed 1\n'
        '  chancekit estimate "4d6kh3" -n 10000 --seed 7 --json\n'
        '  chancekit estimate "20d10!kh10" --seconds 5',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("notation", help='dice expression, e.g. "100d100kh50" (quote it)')
    add_dialect_option(p)
    p.add_argument("-n", type=int, default=10_000, metavar="N",
                   help="rolls to make (default 10000)")
    p.add_argument("--seconds", type=float, default=None, metavar="S",
                   help="stop after about S seconds (the output says how many rolls were "
                   "made); without it the answer depends only on the seed and -n")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_rng_options(p)
    p.set_defaults(func=run_estimate)


def run_estimate(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int
    from chancekit.cli._common import rng_from_args, stream_value
    from chancekit.cli._dice import _num
    from chancekit.cli._output import bar, print_json, print_table
    from chancekit.dice.distribution import _label
    from chancekit.dice.montecarlo import estimate
    from chancekit.dice.notation import ambiguities
    from chancekit.errors import InvalidValueError
    from chancekit.limits import MAX_ESTIMATE_SAMPLES

    n = require_int("-n", args.n, lo=1, hi=MAX_ESTIMATE_SAMPLES)
    if args.seconds is not None and not 0 < args.seconds <= 3600:
        raise InvalidValueError("--seconds", args.seconds, "more than 0 and at most 3600")
    dialect = dialect_of(args)
    rng, seed = rng_from_args(args)
    e = estimate(args.notation, n, rng=rng, dialect=dialect, seconds=args.seconds)
    notes = ambiguities(args.notation, dialect)
    lo, hi = e.mean_interval()
    outs = e.outcomes()
    if args.json:
        print_json("estimate", {
            "notation": args.notation, "dialect": dialect, "notes": notes, "seed": seed,
            "stream": stream_value(args.stream), "samples": e.samples, "requested": n,
            "complete": e.complete, "mean": e.mean, "mean_low": lo, "mean_high": hi,
            "sd": e.sd,
            "outcomes": [{"outcome": _num(x), "count": e.counts[x],
                          "frequency": e.frequency(x), "low": e.interval(x)[0],
                          "high": e.interval(x)[1]} for x in outs]})
        return 0
    shown = outs if len(outs) <= _MANY_ROWS else [x for x in outs
                                                  if e.frequency(x) >= 1e-3]
    top = max(e.frequency(x) for x in shown)
    rows: list[Any] = []
    for x in shown:
        a, b = e.interval(x)
        rows.append((_label(x), f"{100 * e.frequency(x):.2f}%",
                     f"{100 * a:.2f}% to {100 * b:.2f}%", str(e.counts[x]),
                     bar(e.frequency(x) / top, 30)))
    print_table(["outcome", "frequency", "95 % interval", "rolls", ""], rows,
                title=f"{args.notation}: an estimate from {e.samples:,} random rolls "
                "(not exact)", align=["right", "right", "right", "right", "left"])
    if len(shown) < len(outs):
        print(f"({len(outs) - len(shown)} outcomes seen in fewer than 1 roll in 1000 "
              "not listed; --json lists them)")
    print(f"mean {e.mean:.4f} (95 %: {lo:.4f} to {hi:.4f}), sd {e.sd:.4f}, "
          f"{e.samples:,} rolls" + ("" if e.complete else f" of {n:,} (--seconds ran out)"))
    print("quantiles: " + ", ".join(f"{name} {_label(e.quantile(q))}" for name, q in (
        ("5%", 0.05), ("25%", 0.25), ("median", 0.5), ("75%", 0.75), ("95%", 0.95))))
    for line in notes:
        print(line, file=sys.stderr)
    if args.seed is None:
        again = f"--seed {seed}" + (f" --stream {args.stream}" if args.stream else "")
        print(f"seed {seed} (drawn from the OS; {again} -n {e.samples} repeats this "
              "estimate)", file=sys.stderr)
    return 0
