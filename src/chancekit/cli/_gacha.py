"""``chancekit gacha``: plan pulls on a banner (copies, state, budget, price), exact."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``gacha`` to ``sub``."""
    p = sub.add_parser(
        "gacha",
        help="plan pulls: copies of an item from a pity state, budgets, percentiles (exact)",
        description="Pulls until 1..K copies of an item on a banner (a fairness spec), "
        "from a pity state, exactly (chancekit.markov.copies, docs/planning.md): mean, "
        "median, 90 % and 99 % pulls, the chance within --pulls or a --budget at --price "
        "a pull (less --refund a pull).",
        epilog="examples:\n"
        "  chancekit gacha gacha:0.006,74,0.06,90 --copies 3\n"
        "  chancekit gacha gacha:0.006,74,0.06,90 --copies 2 --pity 37 --guaranteed "
        "--pulls 160\n"
        "  chancekit gacha gacha:0.007,63,0.07,80,0.75,fate=1,chosen=0.5 --copies 1\n"
        "  chancekit gacha gacha:0.006,74,0.06,90 --budget 28800 --price 160 --json\n"
        "  chancekit gacha prd:0.25 --copies 5\n"
        "  chancekit gacha gacha:0.006,74,0.06,90 --copies 2 --price 160 --budget 28800 "
        "--refund-per featured=40,off-banner=40",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", help="the banner as a fairness spec (gacha:BASE,SOFT,RAMP,HARD"
                   "[,FEATURED][,fate=M][,chosen=C]; pity:...; prd:...)")
    p.add_argument("--value", default=None,
                   help="the item counted (default: featured, or True)")
    p.add_argument("--copies", default="1", help="copies wanted: rows 1..K (default 1)")
    p.add_argument("--pity", default=None,
                   help="pulls since the last rare (default 0: a fresh banner)")
    p.add_argument("--guaranteed", action="store_true",
                   help="the last rare lost the 50/50: the next is featured")
    p.add_argument("--misses", default=None, help="fate points gathered (with fate=M)")
    p.add_argument("--pulls", default=None, help="also: the chance within this many pulls")
    p.add_argument("--price", default=None, help="currency a pull costs (160)")
    p.add_argument("--refund", default="0", help="currency refunded a pull (default 0)")
    p.add_argument("--refund-per", default=None, metavar="VALUE=AMOUNT,...",
                   help="currency given back each time a value is drawn (a refund per "
                   "rare: featured=40,off-banner=40); the cost columns are then exact "
                   "(chancekit.markov.spend)")
    p.add_argument("--budget", default=None,
                   help="currency to spend (needs --price): the pulls it buys")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_gacha)


def _int(text: str | None, what: str, lo: int = 0) -> int | None:
    from chancekit.cli._common import parse_int_text
    from chancekit.errors import InvalidValueError

    if text is None:
        return None
    value = parse_int_text(what, text)
    if value is None or value < lo:
        raise InvalidValueError(what, text, f"an integer >= {lo}")
    return value


def _amount(text: str | None, what: str) -> Any:
    from fractions import Fraction

    from chancekit.sampling import read_weight

    if text is None:
        return None
    return Fraction(read_weight(text, what))


def _refund_per(text: str | None) -> dict[str, Any] | None:
    """``VALUE=AMOUNT,...`` as {value: amount}."""
    from chancekit.errors import InvalidValueError

    if text is None:
        return None
    out: dict[str, Any] = {}
    for part in text.split(","):
        value, eq, amount = part.partition("=")
        if not eq or not value.strip():
            raise InvalidValueError("--refund-per", part, "VALUE=AMOUNT pairs separated by "
                                    "commas, e.g. featured=40,off-banner=40")
        if value.strip() in out:
            raise InvalidValueError("--refund-per", value.strip(), "each value once")
        out[value.strip()] = _amount(amount.strip(), f"--refund-per {value.strip()}")
    return out


def run_gacha(args: argparse.Namespace) -> int:
    from chancekit.cli._output import print_json, print_table
    from chancekit.markov.planning import plan

    k = _int(args.copies, "--copies", 1)
    data = plan(args.spec, value=args.value, copies=k or 1,
                pity=_int(args.pity, "--pity"), guaranteed=args.guaranteed,
                misses=_int(args.misses, "--misses"), pulls=_int(args.pulls, "--pulls"),
                price=_amount(args.price, "--price"),
                refund=_amount(args.refund, "--refund") or 0,
                budget=_amount(args.budget, "--budget"),
                refund_per=_refund_per(args.refund_per))
    if args.json:
        print_json("gacha", data)
        return 0
    head = ["copies", "mean pulls", "median", "90%", "99%"]
    if data["pulls"] is not None:
        head.append(f"P(<= {data['pulls']} pulls)")
    if data["affordable"] is not None:
        head.append(f"P(budget: {data['affordable']} pulls)")
    elif data["budget"] is not None:
        head.append(f"P(budget {data['budget']:,g})")
    if data["price"] is not None:
        head.append("mean cost")
    table = []
    for r in data["rows"]:
        row = [r["copies"], f"{r['mean']:.2f}", r["median"], r["p90"], r["p99"]]
        if data["pulls"] is not None:
            row.append(f"{100 * r['within_pulls']:.2f}%")
        if data["budget"] is not None:
            row.append("-" if r["within_budget"] is None
                       else f"{100 * r['within_budget']:.2f}%")
        if data["price"] is not None:
            row.append("-" if r["mean_cost"] is None else f"{r['mean_cost']:,.0f}")
        table.append(row)
    where = "a fresh banner" if data["state"] is None else f"state {tuple(data['state'])}"
    print_table(head, table, title=f"{args.spec}: pulls until k copies of {data['value']}, "
                f"from {where} (exact)", align=["right"] * len(head))
    return 0
