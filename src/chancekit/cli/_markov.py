"""``chancekit markov``: exact answers for mechanics that run until something happens."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: rows of the step-count table shown without --all
_ROWS = 30

_KINDS = ("usage-die", "race", "pity", "until")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``markov`` to ``sub``."""
    p = sub.add_parser(
        "markov",
        help="mechanics that run until something happens: usage dice, HP races, pity, "
        "roll until (exact)",
        description="Exact answers (chancekit.markov, docs/markov.md) for processes that "
        "run until something happens: how many uses a usage die lasts, how many rounds an "
        "HP race takes and who wins, how many pulls until a fairness system's first "
        "success, how many rolls until a sequence comes up. Prints the exact mean and "
        "variance and the distribution of the count (with the probability beyond the "
        "last row stated exactly).\n\n"
        "kinds:\n"
        "  usage-die DIE...        uses of a usage die ladder (steps down on --down)\n"
        "  race HP DAMAGE          rounds until HP are gone at DAMAGE a round\n"
        "  race HP1 DMG1 HP2 DMG2  two fighters, each with HP and the damage it deals\n"
        "  pity SPEC               pulls until a fairness system's first success\n"
        "  until DIE --sequence S  rolls until the last rolls are S",
        epilog="examples:\n"
        "  chancekit markov usage-die d12 d10 d8 d6 d4\n"
        "  chancekit markov race 30 2d6\n"
        "  chancekit markov race 30 2d6 25 1d8+2 --alternating\n"
        "  chancekit markov pity pity:0.006,74,0.06,90\n"
        "  chancekit markov pity gacha:0.006,74,0.06,90 --value featured --json\n"
        "  chancekit markov until 1d6 --sequence 6,6",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kind", choices=_KINDS, help="the process: " + ", ".join(_KINDS))
    p.add_argument("args", nargs="*", metavar="ARG",
                   help="the process's arguments (dice as notation: d12, 2d6, 1d8+2)")
    p.add_argument("--down", default="1,2",
                   help="usage-die: the faces that step the die down (default 1,2)")
    p.add_argument("--alternating", action="store_true",
                   help="race: the first fighter strikes, then the second (a fighter down "
                   "does not strike back); default: both at once")
    p.add_argument("--value", default=None,
                   help="pity: the value waited for (default True; gacha: featured)")
    p.add_argument("--sequence", default=None,
                   help="until: the rolls to wait for, comma separated (6,6)")
    p.add_argument("--upto", default=None,
                   help="list the count's distribution up to this count (default: all of "
                   "it when bounded, else up to a tail of 1e-6)")
    p.add_argument("--all", action="store_true",
                   help=f"print every row (by default the first {_ROWS})")
    p.add_argument("--json", action="store_true", help="machine-readable output (exact "
                   "fractions as text, probabilities as floats)")
    p.set_defaults(func=run_markov)


def parse_int(text: str, what: str) -> int:
    """A strict integer argument (:func:`~chancekit.cli._common.parse_int_text`)."""
    from chancekit.cli._common import parse_int_text
    from chancekit.errors import InvalidValueError

    value = parse_int_text(what, text)
    if value is None:
        raise InvalidValueError(what, text, "an integer")
    return value


def run_markov(args: argparse.Namespace) -> int:
    from chancekit.errors import InvalidValueError
    from chancekit.markov.processes import builtin

    upto = None if args.upto is None else parse_int(args.upto, "--upto")
    if upto is not None and upto < 0:
        raise InvalidValueError("--upto", args.upto, "a count >= 0")
    result, winner, unit = builtin(args.kind, args.args, down=args.down,
                                   alternating=args.alternating, value=args.value,
                                   sequence=args.sequence, upto=upto)
    return _show(args, result, unit, winner)


def _text(x: Any) -> str:
    from chancekit.dice.distribution import _fraction_text

    return _fraction_text(x)


def _show(args: argparse.Namespace, result: Any, unit: str, winner: Any) -> int:
    from chancekit.cli._output import bar, print_json, print_table

    rows = [(t, p) for t, p in enumerate(result.pmf) if p]
    if args.json:
        print_json("markov", {
            "kind": args.kind,
            "args": list(args.args),
            "unit": unit,
            "mean": _text(result.mean),
            "mean_float": float(result.mean),
            "variance": _text(result.variance),
            "variance_float": float(result.variance),
            "sd": float(result.variance) ** 0.5,
            "distribution": [{"count": t, "probability": float(p), "exact": _short(p)}
                             for t, p in rows],
            "upto": result.upto,
            "tail": _text(result.tail),
            "tail_float": float(result.tail),
            "winner": None if winner is None else [
                {"outcome": k, "probability": float(p), "exact": _short(p)}
                for k, p in winner.pmf().items()],
        })
        return 0
    if winner is not None:
        print_table(["winner", "probability"],
                    [(k, f"{100 * float(p):.4f}%") for k, p in winner.pmf().items()],
                    title=f"race {' '.join(args.args)}", align=["left", "right"])
    shown = rows if args.all else rows[:_ROWS]
    if shown:
        top = max(p for _, p in shown)
        print_table([unit, "probability", ""],
                    [(t, f"{100 * float(p):.4f}%", bar(float(p / top), 30)) for t, p in shown],
                    title=f"{unit} ({args.kind} {' '.join(args.args)})",
                    align=["right", "right", "left"])
    if len(shown) < len(rows):
        print(f"({len(rows) - len(shown)} more rows; --all shows them)")
    if result.tail:
        print(f"more than {result.upto} {unit}: {100 * float(result.tail):.6g}% "
              f"(exactly {_short(result.tail) or 'a long fraction'})")
    mean = _short(result.mean)
    print(f"mean {float(result.mean):.6g} {unit}" + (f" (exactly {mean})" if mean else "")
          + f", sd {float(result.variance) ** 0.5:.6g}")
    return 0


def _short(x: Any) -> str | None:
    """An exact fraction as text when it is short (else None: the float says it)."""
    text = _text(x)
    return text if len(text) <= 40 else None
