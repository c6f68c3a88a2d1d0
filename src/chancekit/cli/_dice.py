"""``chancekit dist`` (exact distribution of dice notation) and ``chancekit roll``."""

from __future__ import annotations

import argparse
import os
import re
import sys

from chancekit.cli._common import add_rng_options
from chancekit.limits import MAX_SHOWN_ROWS

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: ``chancekit dist`` hides rows below this probability when there are many outcomes
_HIDE_BELOW = 1e-6
_MANY_ROWS = 100
# and shows at most limits.MAX_SHOWN_ROWS rows (the most likely; -9d59144 has 208 989 rows
# above 1e-6: printing them took 3.5 s of CPU for a 0.9 s answer)


#: the environment variable that sets ``--dialect`` once for every command
DIALECT_ENV = "CHANCEKIT_DIALECT"


def add_dialect_option(p: argparse.ArgumentParser) -> None:
    """``--dialect`` on a command that reads dice notation."""
    from chancekit.dice._dialects import DIALECTS

    p.add_argument("--dialect", choices=DIALECTS, default=None,
                   help=f"how to read the notation: avrae (default: Avrae's d20, k3 keeps the "
                   f"dice showing 3), roll20 (k3 keeps the 3 highest, 5d10>7 counts dice), "
                   f"foundry (r rerolls once); or set {DIALECT_ENV} (docs/notation.md)")


def add_var_option(p: argparse.ArgumentParser) -> None:
    """``--var name=value`` (repeatable): the values of Foundry's ``@name`` and Roll20's
    ``@{name}`` / ``?{name|...}`` placeholders."""
    p.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                   help="a value for @NAME (foundry), @{NAME} or ?{NAME|...} (roll20): a "
                   "number or a formula, e.g. --var prof=3 --var 'dmg=1d8+2'; repeatable")


def variables_of(args: argparse.Namespace) -> dict[str, object]:
    """``--var`` as the ``variables`` of :func:`chancekit.dice.notation.dist`: whole
    numbers as ints, anything else as formula text."""
    from chancekit.errors import InvalidValueError

    out: dict[str, object] = {}
    for item in getattr(args, "var", None) or []:
        name, eq, value = item.partition("=")
        name = name.strip().removeprefix("@")
        if not eq or not name or not value.strip():
            raise InvalidValueError("--var", item, "NAME=VALUE, e.g. --var prof=3")
        text = value.strip()
        digits = text.removeprefix("-")
        out[name] = int(text) if digits.isdigit() and len(digits) <= 4000 else text
    return out


def dialect_of(args: argparse.Namespace) -> str:
    """``--dialect``, else ``$CHANCEKIT_DIALECT``, else ``avrae``."""
    from chancekit.dice._dialects import DIALECTS
    from chancekit.errors import InvalidValueError

    chosen = getattr(args, "dialect", None)
    if chosen:
        return str(chosen)
    env = os.environ.get(DIALECT_ENV, "").strip()
    if not env:
        return "avrae"
    if env not in DIALECTS:
        raise InvalidValueError(DIALECT_ENV, env, f"one of {', '.join(DIALECTS)}")
    return env


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``dist`` and ``roll`` to ``sub``."""
    p = sub.add_parser(
        "dist",
        help="exact distribution of dice expressions (e.g. 4d6kh3)",
        description="Print the exact distribution of a dice expression: each outcome with "
        "its probability, the chance of at least / at most it, and a bar; then the mean, "
        "standard deviation, skewness and excess kurtosis (from the exact moments). "
        "--compare EXPR also prints how far apart the two distributions are: the "
        "Kolmogorov-Smirnov distance (largest gap between the two CDFs) and the total "
        "variation distance (largest gap in the chance of any event), exactly and as "
        "floats. Several expressions print one table each, and each one after the first "
        "its distances from the first (as the web app's Dice page). --at-least / "
        "--at-most draw the bars (and --plot) as the chance of at least / at most each "
        "outcome. Notation reference: docs/notation.md.",
        epilog="examples:\n"
        '  chancekit dist "4d6kh3"\n'
        '  chancekit dist "4d6kh3" --compare "3d6"\n'
        '  chancekit dist "4d6kh3" "3d6" "2d20kh1" --at-least\n'
        '  chancekit dist "1d20+5 >= 15" --json\n'
        '  chancekit dist "(1d8!, 1d6!)kh1" --plot savage.png\n'
        '  chancekit dist "10d10>=8f1" --dialect roll20',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("notation", nargs="+", metavar="notation",
                   help='dice expressions, e.g. "4d6kh3" "3d6" (quote each in the shell)')
    add_dialect_option(p)
    add_var_option(p)
    view = p.add_mutually_exclusive_group()
    view.add_argument("--at-least", dest="view", action="store_const", const="at_least",
                      help="bars and --plot show the chance of at least each outcome")
    view.add_argument("--at-most", dest="view", action="store_const", const="at_most",
                      help="bars and --plot show the chance of at most each outcome")
    p.add_argument("--compare", metavar="EXPR", help="a second dice expression (same "
                   "dialect): print its mean, sd, skewness and kurtosis, and the KS and "
                   "total variation distances between the two (exact and as floats)")
    p.add_argument("--json", action="store_true", help="machine-readable output (exact "
                   "weights as decimal text, probabilities as floats)")
    p.add_argument("--plot", metavar="FILE.png", help="also save a bar chart (matplotlib)")
    p.add_argument("--approx", action="store_true", help="if the exact answer is refused for "
                   "its work (huge weights), print a certified one: every probability a "
                   "proven interval, within 1e-12 (sums of dice, exploding or rerolled "
                   "too, the highest/lowest die, arithmetic, comparisons); never called "
                   "exact; with --json a chancekit.certified/1 document")
    p.add_argument("--all", action="store_true", help=f"show every outcome (by default, "
                   f"past {_MANY_ROWS} outcomes, rows below {_HIDE_BELOW:g} are hidden and "
                   f"at most {MAX_SHOWN_ROWS} shown, the most likely, in the table, --json and "
                   "--plot alike)")
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
        "marked !; on a terminal the dropped dice are dimmed and struck through with "
        "terminal styles instead of ~~ marks, which pipes and files keep). Reproducible "
        "with --seed (and --stream for a named stream); without --seed the seed drawn is "
        "printed on stderr.",
        epilog="examples:\n"
        '  chancekit roll "4d6kh3" -n 6 --seed 42\n'
        '  chancekit roll "1d20+5" --seed 12345 --stream combat --json\n'
        '  chancekit roll "10d10!!kh5" --dialect roll20 --seed 7',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("notation", help='dice expression, e.g. "4d6kh3" (quote it in the shell)')
    add_dialect_option(r)
    add_var_option(r)
    r.add_argument("-n", type=int, default=1, metavar="K", help="roll K times (default 1)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    add_rng_options(r)
    r.set_defaults(func=run_roll)


def _num(x: Any) -> Any:
    """An outcome for JSON: an int below 2**53 as a number, bools as themselves, other
    numbers as exact text ("7/2", "123456..."; any size), a tuple (a
    :class:`~chancekit.dice.multiset.Vector`, RISK's losses, straights) as a list of
    these (None as null), labels as text."""
    from fractions import Fraction

    from chancekit.dice.distribution import _decimal, _fraction_text, _label

    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x if -(2**53) < x < 2**53 else _decimal(x)
    if isinstance(x, Fraction):
        return _fraction_text(x)
    if isinstance(x, tuple):  # a tuple outcome (a Vector of the pool algebra): a list
        return [None if y is None else _num(y) for y in x]
    return _label(x)


def certified_rows() -> dict[str, Any]:
    """How a certified ``--json`` document writes and hides rows, as ``dist --json``."""
    return {"outcome": _num, "many": _MANY_ROWS, "below": _HIDE_BELOW}


def run_dist(args: argparse.Namespace) -> int:
    from chancekit.dice.notation import ambiguities, dist

    dialect = dialect_of(args)
    variables = variables_of(args)
    texts = list(args.notation)
    # every expression is read (and refused) before anything is printed
    approx = getattr(args, "approx", False)
    dists = [dist(text, dialect=dialect, variables=variables, approx=approx)
             for text in texts]
    if approx:
        from chancekit.cli._certified import is_certified, print_certified_json, show_certified

        if any(is_certified(d) for d in dists):
            if args.compare is not None or args.plot:
                from chancekit.errors import InvalidValueError

                raise InvalidValueError("--compare and --plot take exact answers; a "
                                        "certified (--approx) answer prints its table or "
                                        "its --json (chancekit.certified/1) only")
            if args.json:  # its own schema: certified rows carry bounds, not weights
                print_certified_json("dist", texts[0], dialect,
                                     list(zip(texts, dists, strict=True)), args.all, [],
                                     **certified_rows())
                return 0
            for i, (text, d) in enumerate(zip(texts, dists, strict=True)):
                if i:
                    print()
                if is_certified(d):
                    show_certified(d, text, args)
                else:
                    show_distribution(d, text, args, {}, "dist")
            return 0
    notes: list[str] = []
    for text in texts + ([args.compare] if args.compare is not None else []):
        notes += [line for line in ambiguities(text, dialect, variables=variables)
                  if line not in notes]
    from chancekit.dice.caps import note  # explosions that reached their depth cap

    notes += [line for text, d in zip(texts, dists, strict=True) for line in note(d, text)]
    other = None
    if args.compare is not None:
        other = (args.compare, dist(args.compare, dialect=dialect, variables=variables))
    code = show_distribution(dists[0], texts[0], args, {"notation": texts[0],
                                                        "dialect": dialect, "notes": notes},
                             "dist", compare=other, more=list(zip(texts[1:], dists[1:],
                                                                  strict=True)))
    if not args.json:  # on stderr: under the table on a terminal, out of a pipe's data
        for line in notes:
            print(line, file=sys.stderr)
    return code


def run_nco(args: argparse.Namespace) -> int:
    from chancekit.dice import neon_city_overdrive

    title = f"Neon City Overdrive: {args.action} action vs {args.danger} danger"
    return show_distribution(neon_city_overdrive(args.action, args.danger), title, args,
                             {"action": args.action, "danger": args.danger}, "nco")


def show_distribution(d: Any, title: str, args: argparse.Namespace,
                      head: dict[str, Any], command: str,
                      compare: tuple[str, Any] | None = None,
                      more: list[tuple[str, Any]] | None = None) -> int:
    """Print a distribution as the `dist` command does (table, or --json, or --plot);
    ``head`` leads the ``--json`` document of ``command``. ``compare`` (``dist``
    only: its document has the field): (expression, distribution) to measure against.
    ``more`` (``dist`` with several expressions): (expression, distribution) of each
    further one, printed after the first with its distances from it."""
    from fractions import Fraction

    from chancekit.cli._output import bar, print_json, print_table
    from chancekit.dice.distribution import _label

    shown, hidden = shown_rows(d, args.all)
    figures = summary_figures(d)
    versus = None if compare is None else (compare[0], summary_figures(compare[1]),
                                           distances(d, compare[1]))
    column = {"at_least": 2, "at_most": 3}.get(getattr(args, "view", None) or "", 1)
    extra = []
    for text, other_d in more or ():
        o_shown, o_hidden = shown_rows(other_d, args.all)
        extra.append((text, other_d, o_shown, o_hidden, summary_figures(other_d),
                      distances(d, other_d)))
    if args.json:
        doc = {**head, **distribution_fields(d, shown, hidden, figures)}
        if command == "dist":
            doc["compare"] = None if versus is None else {
                "notation": versus[0], **_figures_json(versus[1]), **versus[2]}
            doc["more"] = [{"notation": text, **distribution_fields(od, osh, ohid, ofig),
                            **dist_}
                           for text, od, osh, ohid, ofig, dist_ in extra]
        print_json(command, doc)
    else:
        def table(rows_: list[Any], hidden_: int, title_: str) -> None:
            top = max(r[column] for r in rows_)
            rows = [(_label(x), f"{100 * p:.4f}%", f"{100 * al:.4f}%", f"{100 * am:.4f}%",
                     bar((p, al, am)[column - 1] / top if top else 0.0, 30))
                    for x, p, al, am in rows_]
            heads = ["outcome", "probability", "at least", "at most",
                     {1: "", 2: "(at least)", 3: "(at most)"}[column]]
            print_table(heads, rows, title=title_,
                        align=["right", "right", "right", "right", "left"])
            if hidden_ and len(rows_) >= MAX_SHOWN_ROWS:  # capped: the least likely hidden
                print(f"({hidden_} outcomes below {min(r[1] for r in rows_):.3g} hidden, "
                      f"at most {MAX_SHOWN_ROWS} rows shown; --all shows them)")
            elif hidden_:
                print(f"({hidden_} outcomes below {_HIDE_BELOW:g} hidden; "
                      f"--all shows them)")

        table(shown, hidden, title)
        print(_figures_line(figures))
        if versus is not None:
            label, other, dist_ = versus
            print(f"vs {label}: {_figures_line(other)}")
            ks = "n/a (needs numeric outcomes)" if dist_["ks"] is None else \
                f"{_fmt(dist_['ks_float'])}{_exactly(Fraction(dist_['ks']))}"
            print(f"KS distance {ks}, total variation distance "
                  f"{_fmt(dist_['tv_float'])}{_exactly(Fraction(dist_['tv']))}")
        for text, _, o_shown, o_hidden, o_fig, dist_ in extra:
            print()
            table(o_shown, o_hidden, text)
            print(_figures_line(o_fig))
            ks = "n/a (needs numeric outcomes)" if dist_["ks"] is None else \
                f"{_fmt(dist_['ks_float'])}{_exactly(Fraction(dist_['ks']))}"
            print(f"vs {title}: KS distance {ks}, total variation distance "
                  f"{_fmt(dist_['tv_float'])}{_exactly(Fraction(dist_['tv']))}")
    if args.plot:
        _plot(title, [r[0] for r in shown], [r[column] for r in shown], args.plot,
              more=[(text, [r[0] for r in osh], [r[column] for r in osh])
                    for text, _, osh, *_rest in extra] or None,
              ylabel={1: "probability", 2: "at least", 3: "at most"}[column])
    return 0


def shown_rows(d: Any, show_all: bool) -> tuple[list[Any], int]:
    """The rows ``(outcome, p, at least, at most)`` the table shows, and how many are
    hidden: past :data:`_MANY_ROWS` outcomes, those below :data:`_HIDE_BELOW` and all but
    the :data:`MAX_SHOWN_ROWS` most likely unless ``show_all`` (the most likely outcome always
    shows: d1000000 has only rows below 1e-6). Floats come from the exact integer
    weights (int / int, correctly rounded): no Fraction per row, so 10000d6 (50 001 rows
    of 26 000-bit weights) takes a fraction of a second."""
    hide = not show_all and len(d) > _MANY_ROWS
    below = min(_HIDE_BELOW, max(d.weights.values()) / d.total) if hide else 0.0
    shown = d.cumulative_float(below)
    if hide and len(shown) > MAX_SHOWN_ROWS:  # the MAX_SHOWN_ROWS most likely (and their ties)
        floor = sorted((r[1] for r in shown), reverse=True)[MAX_SHOWN_ROWS - 1]
        shown = [r for r in shown if r[1] >= floor]
    return shown, len(d) - len(shown)


def distribution_fields(d: Any, shown: list[Any], hidden: int,
                        figures: dict[str, Any]) -> dict[str, Any]:
    """The fields every distribution's ``--json`` document shares: ``outcomes`` (the
    ``shown`` rows), ``hidden``, ``total_weight`` and the summary ``figures``."""
    from chancekit.dice.distribution import _decimal

    weights = d.weights
    return {"outcomes": [{"outcome": _num(x), "weight": _decimal(weights[x]),
                          "probability": p, "at_least": al, "at_most": am}
                         for x, p, al, am in shown],
            "hidden": hidden, "total_weight": _decimal(d.total), **_figures_json(figures)}


def summary_figures(d: Any) -> dict[str, Any]:
    """Mean (exact), sd, skewness and excess kurtosis (exact and float) of ``d`` from one
    pass over the outcomes (:func:`chancekit.dice.stats.shape`, integers only: 10000d6 in
    about 0.3 s). Every value is None when the outcomes are not numbers (tuples, text,
    symbols: ``numeric`` is False); skewness and kurtosis are None for a constant."""
    import math

    from chancekit.dice.stats import shape
    from chancekit.errors import InvalidValueError

    out: dict[str, Any] = {"numeric": True, "mean": None, "sd": None, "skewness": None,
                           "kurtosis": None, "kurtosis_float": None}
    try:
        s = shape(d)
    except InvalidValueError:  # not numbers (bools still have a mean and an sd)
        if not _orderable(d.outcomes()):
            out["numeric"] = False
            return out
        s = dict(zip(("mean", "variance"), d._moments(), strict=True))
    v = _float(s["variance"])
    out.update(mean=s["mean"], sd=None if v is None else math.sqrt(v),
               skewness=s.get("skewness"), kurtosis=s.get("kurtosis"),
               kurtosis_float=s.get("kurtosis_float"), exact=s.get("exact", True))
    return out


def distances(a: Any, b: Any) -> dict[str, Any]:
    """KS and total variation distance of two distributions for ``--json`` (exact text and
    float); KS is None unless both have numeric outcomes (a CDF needs their order)."""
    from fractions import Fraction

    from chancekit.dice.distribution import _fraction_text
    from chancekit.dice.stats import ks_distance, tv_distance

    def real(d: Any) -> bool:
        return all(isinstance(x, int | float | Fraction) and not isinstance(x, bool)
                   for x in d.weights)

    ks = ks_distance(a, b) if real(a) and real(b) else None
    tv = tv_distance(a, b)
    return {"ks": None if ks is None else _fraction_text(ks),
            "ks_float": None if ks is None else float(ks),
            "tv": _fraction_text(tv), "tv_float": float(tv)}


def _figures_json(f: dict[str, Any]) -> dict[str, Any]:
    from chancekit.dice.distribution import _fraction_text

    mean, kurt = f["mean"], f["kurtosis"]
    return {"mean": None if mean is None else _fraction_text(mean),
            "mean_float": None if mean is None else _float(mean),
            "sd": f["sd"], "skewness": f["skewness"],
            "kurtosis": None if kurt is None else _fraction_text(kurt),
            "kurtosis_float": f["kurtosis_float"]}


def _exactly(q: Any) -> str:
    from chancekit.dice.distribution import _short_fraction

    text = _short_fraction(q)  # None past 40 characters (never a huge str())
    return "" if text is None else f" (exactly {text})"


def _figures_line(f: dict[str, Any]) -> str:
    """``mean 12.2446 (exactly 15869/1296), sd 2.8468, skewness -0.3485, excess kurtosis
    -0.2496``; n/a where undefined (a constant has no skewness)."""
    if not f["numeric"]:
        return "(mean, sd, skewness and kurtosis: n/a, the outcomes are not numbers)"
    mean = f["mean"]
    # past SHAPE_WORK the moments after the mean are certified floats (dice.stats.shape)
    rounded = "" if f.get("exact", True) else " (sd, skewness, kurtosis: rounded floats)"
    return (f"mean {_fmt(_float(mean))}{_exactly(mean)}, sd {_fmt(f['sd'])}, skewness "
            f"{_fmt_small(f['skewness'])}, excess kurtosis {_fmt_small(f['kurtosis_float'])}"
            f"{rounded}")


def _fmt_small(x: float | None) -> str:
    """As :func:`_fmt`, with 3 significant digits below 0.001 (10000d6's excess kurtosis is
    -0.000127, not -0.0001)."""
    if x is None or x == 0 or not abs(x) < 0.001:
        return _fmt(x)
    return f"{x:.3g}"


def _float(q: Any) -> float | None:
    """``float(q)``, or None when it does not fit a float (outcomes past 1e308)."""
    try:
        return float(q)
    except OverflowError:
        return None


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def _orderable(outcomes: Any) -> bool:
    if any(isinstance(x, tuple) for x in outcomes):  # Vectors add up, but have no mean
        return False
    try:
        sorted(outcomes)
        sum(outcomes)
    except TypeError:
        return False
    return True


def _plot(title: str, xs: list[Any], ps: list[float], path: str,
          more: list[tuple[str, list[Any], list[float]]] | None = None,
          ylabel: str = "probability") -> None:
    """A bar chart of one distribution, saved to ``path``; with ``more`` (``(name, xs,
    ps)`` of further series, ``title`` then names the first), every series on one chart
    as lines with points and a legend (``chancekit anydice``'s several outputs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from chancekit.errors import InvalidValueError

    try:
        fx = [float(x) for x in xs]
        others = [(name, [float(x) for x in oxs], ops) for name, oxs, ops in more or ()]
    except (TypeError, ValueError, OverflowError):
        raise InvalidValueError("--plot needs outcomes that are numbers (below 1e308)"
                                ) from None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        if others:
            for name, sx, sp in [(title, fx, ps), *others]:
                ax.plot(sx, sp, marker="o", markersize=3, linewidth=1.2, label=name[:60])
            if len(others) < 24:  # past that a legend hides the chart
                ax.legend(fontsize="small")
            ax.set_title(f"{1 + len(others)} outputs")
        else:
            ax.bar(fx, ps, width=0.8 * _step(fx), color="#4c72b0")
            ax.set_title(title)
        ax.set_xlabel("outcome")
        ax.set_ylabel(ylabel)
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
    from chancekit.dice.notation import ambiguities, roll

    n = require_int("-n", args.n, lo=1, hi=100_000)
    dialect = dialect_of(args)
    rng, seed = rng_from_args(args)
    variables = variables_of(args)
    results = [roll(args.notation, rng=rng, dialect=dialect, variables=variables)
               for _ in range(n)]
    notes = ambiguities(args.notation, dialect, variables=variables)
    if args.json:
        print_json("roll", {"notation": args.notation, "dialect": dialect, "notes": notes,
                            "seed": seed, "stream": stream_value(args.stream),
                            "rolls": [r.to_dict() for r in results]})
    else:
        styled = on_terminal(sys.stdout)
        for r in results:
            print(terminal_breakdown(str(r)) if styled else r)
        for line in notes:
            print(line, file=sys.stderr)
        if args.seed is None:  # on stderr: stdout stays the rolls alone
            again = f"--seed {seed}" + (f" --stream {args.stream}" if args.stream else "")
            print(f"seed {seed} (drawn from the OS; {again} repeats these rolls)",
                  file=sys.stderr)
    return 0


def on_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal that shows styles (not a pipe or a file; not
    ``NO_COLOR``; not ``TERM=dumb``)."""
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
    return tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


_STYLES = ((re.compile(r"~~(.*?)~~"), "\x1b[2;9m", "\x1b[22;29m"),    # dropped: dim, struck
           (re.compile(r"\*\*(.*?)\*\*"), "\x1b[1m", "\x1b[22m"),       # crit: bold
           (re.compile(r"(?<![\w])_(-?\d+)_(?![\w])"), "\x1b[4m", "\x1b[24m"))  # fumble


def terminal_breakdown(text: str) -> str:
    r"""A roll's breakdown (markdown, as ``str(RollResult)`` writes it for chat bots) as a
    terminal shows it: dropped dice dimmed and struck through, crits bold, fumbles
    underlined, with ANSI styles instead of ``~~ ** _`` marks.

    >>> terminal_breakdown("4d6kh3 (~~1~~, 5, 6, 6) = 17")
    '4d6kh3 (\x1b[2;9m1\x1b[22;29m, 5, 6, 6) = 17'
    """
    for pattern, on, off in _STYLES:
        text = pattern.sub(lambda m, on=on, off=off: f"{on}{m.group(1)}{off}", text)
    return text
