"""Subcommands of the fair-randomness lab: ``tune``, ``fairness``, ``simulate``.

System specs (``"dynamic-dice:0.355"``, ``"gdeck:1,6+no-repeat"``...) are documented in
:mod:`chancekit.fair.spec` and docs/fair.md.
"""

from __future__ import annotations

import argparse
import math
import sys

from chancekit.cli._common import add_rng_options, rng_from_args, stream_value
from chancekit.errors import InvalidValueError, LimitError

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

_SPEC_HELP = ("system spec: dice | deck | generalized-deck:S,R | dynamic-dice:F | "
              "history-reroll:H,T | prd:P | pity:B,SOFT,RAMP,HARD | error-accumulator:P, "
              "optionally +no-repeat; weights=14/5/1 for deck and dynamic dice")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tune``, ``fairness`` and ``simulate``."""
    p = sub.add_parser(
        "tune", help="find each system's fairest parameters at a minimum unpredictability",
        description="Search each system's parameter grid (default: the published one) for "
        "the lowest expected outcome variance whose unpredictability is at least "
        "--min-entropy, exactly.",
        epilog="examples:\n"
        "  chancekit tune --values 6 --samples 25 --min-entropy 0.9 --plot tune.png\n"
        "  chancekit tune --values 6 --samples 20..30 --min-entropy 0.9 --floor every\n"
        "  chancekit tune --values 4 --samples 12 --min-entropy 0.8 --systems deck,dice "
        "--json\n"
        "  chancekit tune --systems aim-assist,lucky-streak --samples 20 --rate 0.7 "
        "--objective drought\n"
        "  chancekit tune --systems gacha --samples 20 --grid gacha:0.02,8/10,0.1/0.2,15 "
        "--worst 14",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--values", type=int, default=None, metavar="N",
                   help="number of values n (needed by dice, deck, generalized-deck and "
                   "dynamic-dice; the studio families fix their own)")
    p.add_argument("--samples", required=True, metavar="N",
                   help="match length: 25, a range 20..40, or a distribution 20:1,30:2")
    p.add_argument("--min-entropy", type=float, default=0.0, metavar="H",
                   help="minimum unpredictability, in [0, 1] (default 0)")
    p.add_argument("--systems", default="generalized-deck,dynamic-dice", metavar="LIST",
                   help="comma-separated families among dice, deck, generalized-deck, "
                   "dynamic-dice and the studio systems gacha, aim-assist, lucky-streak, "
                   "two-roll (default: generalized-deck,dynamic-dice)")
    p.add_argument("--grid", action="append", default=None, metavar="FAMILY:P,P,...",
                   help="replace a family's default grid by every combination of the "
                   "parameters given: each a value, alternatives a/b/c or an integer range "
                   "a..b (gacha:0.02,8..12,0.1/0.2,15); repeat for more families")
    p.add_argument("--objective", choices=("variance", "drought"), default="variance",
                   help="rank by outcome variance (studio: over independent draws at the "
                   "same long-run rate) or, hit/miss families only, by the expected "
                   "longest run of misses (default: variance)")
    p.add_argument("--rate", type=float, default=None, metavar="R",
                   help="hit/miss families: keep candidates whose long-run success rate "
                   "(gacha: rares) is R within --rate-tol")
    p.add_argument("--rate-tol", type=float, default=None, metavar="T",
                   help="tolerance of --rate (default: 5 %% of R)")
    p.add_argument("--worst", type=int, default=None, metavar="K",
                   help="hit/miss families: keep candidates where a success is certain by "
                   "try K since the last one (the hard pity)")
    p.add_argument("--floor", choices=("average", "every"), default="average",
                   help="with a range of lengths: entropy floor on average or at every "
                   "length (default: average)")
    p.add_argument("--top", type=int, default=5, metavar="K", help="rows of each table shown")
    p.add_argument("--workers", type=int, default=0, metavar="K",
                   help="evaluate on a process pool of K workers (default: in process)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--plot", metavar="FILE.png",
                   help="write entropy and outcome variance over t for the winners, dice "
                   "and deck")
    p.set_defaults(func=_tune)

    p = sub.add_parser(
        "fairness", help="every fairness metric of one system over a match",
        description="Unpredictability, guessability, outcome variance, discrepancy (exact "
        "by default) and, with --trials, streaks and droughts (Monte Carlo, with standard "
        "errors). --streaks adds the streak metrics of chancekit.fair.streaks: P(repeat), "
        "P(triple), the longest drought of the first value, the mean run and the expected "
        "number of runs of each length (exact, or Monte Carlo with --trials).",
        epilog="examples:\n"
        '  chancekit fairness "dynamic-dice:0.355" --values 6 --samples 25\n'
        '  chancekit fairness "deck" --values 6 --samples 30 --streaks\n'
        '  chancekit fairness "prd:0.25" --samples 40 --trials 20000 --seed 7 --json',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", help=_SPEC_HELP)
    p.add_argument("--values", type=int, default=6, metavar="N", help="number of values n "
                   "(default 6; binary systems always have 2)")
    p.add_argument("--samples", type=int, required=True, metavar="N", help="match length")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--exact", action="store_true", help="exact enumeration (the default)")
    g.add_argument("--trials", type=int, metavar="K", help="Monte Carlo with K matches")
    p.add_argument("--prune", type=float, default=0.0, metavar="EPS",
                   help="exact: drop states below EPS and report the dropped mass")
    p.add_argument("--streaks", action="store_true",
                   help="also the streak metrics: P(repeat), longest drought, run lengths "
                   "(exact; Monte Carlo with --trials)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--plot", metavar="FILE.png", help="write entropy and outcome variance "
                   "over t")
    add_rng_options(p)
    p.set_defaults(func=_fairness)

    p = sub.add_parser(
        "simulate", help="a sample sequence from one system",
        description="Draw a sequence from a randomness system, reproducibly.",
        epilog="examples:\n"
        '  chancekit simulate "deck" --values 7 -n 30 --seed 1\n'
        '  chancekit simulate "gdeck:1,6+no-repeat" -n 20 --seed 12345 --stream level-1 '
        "--json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", help=_SPEC_HELP)
    p.add_argument("--values", type=int, default=6, metavar="N", help="number of values n")
    p.add_argument("-n", "--count", type=int, default=20, metavar="K", help="draws (default 20)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_rng_options(p)
    p.set_defaults(func=_simulate)


def _parse_samples(text: str) -> Any:
    text = text.strip()
    try:
        if ".." in text:
            a, b = text.split("..")
            return range(int(a), int(b) + 1)
        if ":" in text or "," in text:
            out: dict[int, float] = {}
            for part in text.split(","):
                k, _, w = part.partition(":")
                out[int(k)] = float(w) if w else 1.0
            return out
        return int(text)
    except ValueError:
        raise InvalidValueError("--samples", text, "a length (25), a range (20..40) or a "
                                "distribution (20:1,30:2)") from None


def _tune(args: argparse.Namespace) -> int:
    from chancekit.cli._output import print_json, print_table
    from chancekit.fair import tune

    samples = _parse_samples(args.samples)
    systems = tuple(s.strip() for s in args.systems.split(",") if s.strip())
    from chancekit._validate import require_int

    workers = require_int("--workers", args.workers, lo=0, hi=256)
    executor = None
    if workers:
        from concurrent.futures import ProcessPoolExecutor

        executor = ProcessPoolExecutor(max_workers=workers)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    try:
        with Progress(TextColumn("tuning"), BarColumn(), MofNCompleteColumn(),
                      console=Console(file=sys.stderr), transient=True,
                      disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task("tune", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = tune(args.values, samples, args.min_entropy, systems=systems,
                          floor=args.floor, executor=executor, progress=progress,
                          grid=_parse_grid(args.grid), objective=args.objective,
                          rate=args.rate, rate_tol=args.rate_tol, worst=args.worst)
    finally:
        if executor is not None:
            executor.shutdown()
    if args.plot:
        _plot_tune(result, args.plot, samples)
    if args.json:
        best = result.best()
        print_json("tune", {**result.to_dict(), "best": None if best is None else best.spec})
        return 0
    best = result.best()
    print(f"n = {result.values}, lengths = {_lengths_text(result.lengths)}, "
          f"min unpredictability = {result.min_entropy} ({result.floor})")
    from chancekit.fair.tune import STUDIO_FAMILIES

    studio = any(f in STUDIO_FAMILIES for f in result.tables)
    if studio:
        _print_studio(result, args.top)
        if args.plot:
            print(f"plot written to {args.plot}")
        return 0
    rows = [(c.family, ",".join(map(str, c.params)) or "-", f"{c.unpredictability:.4f}",
             f"{c.outcome_variance:.4f}", "tie" if len(result.winners[c.family]) > 1 else "")
            for w in result.winners.values() for c in w]
    if rows:
        print_table(("system", "params", "unpredictability", "outcome variance", ""), rows,
                    title="winners", align=("left", "left", "right", "right", "left"))
    for warning in result.warnings:
        print(f"warning: {warning}")
    for fam, table in result.tables.items():
        if not result.winners[fam]:
            print(f"{fam}: no candidate reaches the entropy floor")
        top = table[: max(0, args.top)]
        print_table(("rank", "params", "unpredictability", "outcome variance", "feasible"),
                    [(c.rank or "-", ",".join(map(str, c.params)) or "-",
                      f"{c.unpredictability:.4f}", f"{c.outcome_variance:.4f}",
                      "yes" if c.feasible else "no") for c in top],
                    title=f"{fam} (top {len(top)} of {len(table)})")
    if best is not None:
        print(f"best overall: {best.spec} (outcome variance {best.outcome_variance:.4f})")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _parse_grid(items: list[str] | None) -> dict[str, list[tuple[Any, ...]]] | None:
    """``--grid FAMILY:P,P,...`` (repeatable): every combination of the positions, each a
    number, alternatives ``a/b/c`` or an integer range ``a..b``."""
    if not items:
        return None
    import itertools

    out: dict[str, list[tuple[Any, ...]]] = {}
    for item in items:
        fam, _, rest = item.partition(":")
        fam = fam.strip()
        choices: list[list[Any]] = []
        for part in (rest.split(",") if rest.strip() else []):
            part = part.strip()
            try:
                if ".." in part:
                    a, b = (int(x) for x in part.split(".."))
                    if not 0 <= b - a < 10_000:
                        raise ValueError
                    choices.append(list(range(a, b + 1)))
                else:
                    choices.append([_number(x) for x in part.split("/")])
            except ValueError:
                raise InvalidValueError(
                    "--grid", item, "FAMILY:P,P,... with each P a number, alternatives "
                    "a/b/c or an integer range a..b (at most 10 000 values), e.g. "
                    "gacha:0.02,8..12,0.1/0.2,15") from None
        combos = list(itertools.product(*choices))
        if len(combos) > 100_000:
            raise InvalidValueError("--grid", item, "at most 100 000 combinations")
        out.setdefault(fam, []).extend(combos)
    return out


def _number(text: str) -> int | float:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text) from None
        return value


def _print_studio(result: Any, top: int) -> None:
    """Text output when a studio family is tuned: the ratio, rate, worst case and drought."""
    from chancekit.cli._output import print_table

    def row(c: Any) -> tuple[Any, ...]:
        def num(x: float, fmt: str) -> str:
            return "-" if math.isnan(x) else "never" if math.isinf(x) else format(x, fmt)

        return (",".join(map(str, c.params)) or "-", f"{c.unpredictability:.4f}",
                num(c.variance_ratio, ".4f"), num(c.long_run_rate, ".4f"),
                num(c.worst_case, ".0f"), num(c.longest_drought, ".3f"))

    head = ("unpred.", "var ratio", "rate", "worst", "drought")
    right = ("right",) * len(head)
    rows = [(c.family, *row(c)) for w in result.winners.values() for c in w]
    if rows:
        print_table(("system", "params", *head), rows, title="winners",
                    align=("left", "left", *right))
    for warning in result.warnings:
        print(f"warning: {warning}")
    for fam, table in result.tables.items():
        if not result.winners[fam]:
            print(f"{fam}: no candidate is feasible")
        shown = table[: max(0, top)]
        print_table(("rank", "params", *head, "feasible"),
                    [(c.rank or "-", *row(c), "yes" if c.feasible else "no") for c in shown],
                    title=f"{fam} (top {len(shown)} of {len(table)})",
                    align=("right", "left", *right, "left"))
    best = result.best()
    if best is not None:
        what = ("expected longest drought" if result.objective == "drought"
                else "variance ratio")
        value = best.longest_drought if result.objective == "drought" else best.variance_ratio
        print(f"best overall: {best.spec} ({what} {value:.4f})")


def _lengths_text(lengths: tuple[tuple[int, float], ...]) -> str:
    if len(lengths) == 1:
        return str(lengths[0][0])
    return f"{lengths[0][0]}..{lengths[-1][0]} ({len(lengths)} lengths)"


def _plot_tune(result: Any, path: str, samples: Any) -> None:
    from chancekit.fair import Deck, Dice, evaluate, plot_metrics, system_from_spec

    longest = result.lengths[-1][0]
    n = result.values
    systems = [system_from_spec(c.spec, n) for w in result.winners.values() for c in w[:1]]
    seen = {repr(s) for s in systems}
    systems += [s for s in (Dice(n), Deck(n)) if repr(s) not in seen]
    metrics = [evaluate(s, longest) for s in systems]
    plot_metrics(metrics, path, labels=[_label(s) for s in systems],
                 title=f"winners at unpredictability >= {result.min_entropy}: n = {n}, "
                 f"N = {longest}")


def _label(system: Any) -> str:
    return repr(system)


def _fairness(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from chancekit.cli._output import print_json, print_table
    from chancekit.fair import evaluate, plot_metrics, system_from_spec

    system = system_from_spec(args.spec, args.values)
    seed: int | str | None = None
    # the work is estimated and refused (LimitError) before it starts; accepted work shows
    # a bar on a terminal only
    with Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(),
                  console=Console(file=sys.stderr), transient=True,
                  disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("fairness", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        if args.trials is not None:
            rng, seed = rng_from_args(args)
            m = evaluate(system, args.samples, method="montecarlo", trials=args.trials,
                         rng=rng, progress=progress)
        else:
            if args.seed is not None or args.stream is not None:
                raise InvalidValueError("--seed and --stream go with --trials K (Monte "
                                        "Carlo); the exact evaluation draws no random "
                                        "numbers")
            try:
                m = evaluate(system, args.samples, prune=args.prune, progress=progress)
            except LimitError as exc:
                if not args.streaks:
                    raise
                if args.plot:  # before the streaks are computed: nothing to draw
                    raise InvalidValueError("--plot draws the fairness metrics, which were "
                                            f"refused: {exc}") from None
                # the streak walk keeps less than the fairness engine (TGM's history, not
                # its counts): it may fit where the full evaluation does not
                m, refused = None, str(exc)
        streaks = None
        if args.streaks:
            from chancekit.fair.streaks import streak_metrics, streak_montecarlo

            fresh = system_from_spec(args.spec, args.values)  # from the start of a match
            if args.trials is not None:
                streaks = streak_montecarlo(fresh, args.samples, trials=args.trials, rng=rng)
            else:
                # --prune 0 (the default): the streak default (dynamic dice prune 1e-15)
                streaks = streak_metrics(fresh, args.samples, prune=args.prune or None)
    if m is None:
        return _streaks_only(args, system, streaks, refused)
    if args.plot:
        plot_metrics([m], args.plot, labels=[repr(system)])
    if args.json:
        out = m.to_dict()
        series_se = out.pop("series_se")
        print_json("fairness", {**out, "seed": seed, "stream": stream_value(args.stream),
                                "series_se": series_se,
                                "streaks": None if streaks is None else _streaks_json(streaks),
                                "refused": None})
        return 0
    how = ("exact (float64 enumeration)" if m.method == "exact"
           else f"Monte Carlo, {m.trials} matches, seed {seed}")
    print(f"{m.system}: n = {m.n}, N = {m.samples} draws — {how}")
    rows = []
    for name, value in m.summary.items():
        se = m.se.get(name, 0.0)
        rows.append((name, f"{value:.6f}", f"± {se:.6f}" if m.method != "exact" else "exact"))
    if m.method == "exact":
        rows.append(("states (last draw)", str(m.states[-1]), ""))
        if m.dropped:
            rows.append(("pruned mass", f"{m.dropped:.3e}", ""))
    print_table(("metric", "value", ""), rows, align=("left", "right", "left"))
    if streaks is not None:
        _print_streaks(streaks)
    elif m.method == "exact":
        print("streak and drought metrics: add --streaks (exact) or --trials K (Monte Carlo)")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _streaks_only(args: argparse.Namespace, system: Any, streaks: Any, refused: str) -> int:
    """``--streaks`` where the exact fairness evaluation was refused: the exact streaks,
    and the refusal in place of the fairness metrics (``refused`` in the JSON)."""
    from chancekit.cli._output import print_json
    from chancekit.cli.schemas import SERIES, SUMMARY_EXACT

    if args.json:
        print_json("fairness", {
            "system": repr(system), "n": system.n, "samples": args.samples,
            "method": "exact", "trials": 0, "summary": dict.fromkeys(SUMMARY_EXACT),
            "se": dict.fromkeys(SUMMARY_EXACT), "series": {k: [] for k in SERIES},
            "states": [], "dropped": 0.0, "series_se": {}, "seed": None,
            "stream": stream_value(args.stream), "streaks": _streaks_json(streaks),
            "refused": refused})
        return 0
    print(f"{system!r}: n = {system.n}, N = {args.samples} draws — streaks only")
    print(f"fairness metrics refused: {refused}")
    _print_streaks(streaks)
    return 0


#: the streak summary, in print order, with the words the text output uses
_STREAK_NAMES = (("p_repeat", "P(repeat)"), ("p_triple", "P(triple)"),
                 ("longest_gap", "longest drought (value 0)"), ("mean_run", "mean run"))


def _streaks_json(s: Any) -> dict[str, Any]:
    return {"method": s.method, "trials": s.trials,
            "summary": {k: s.summary[k] for k, _ in _STREAK_NAMES},
            "se": {k: s.se.get(k) for k, _ in _STREAK_NAMES},
            "run_lengths": list(s.series["run_lengths"]),
            "p_gap": list(s.series["p_gap"]), "dropped": s.dropped}


def _print_streaks(s: Any) -> None:
    from chancekit.cli._output import print_table

    exact = s.method == "exact"
    rows = [(words, f"{s.summary[k]:.6f}", "exact" if exact else f"± {s.se[k]:.6f}")
            for k, words in _STREAK_NAMES]
    how = "exact" if exact else f"Monte Carlo, {s.trials} matches"
    print_table(("streaks", "value", ""), rows, align=("left", "right", "left"),
                title=f"streaks ({how})")
    runs = list(s.series["run_lengths"])
    last = max((k for k, v in enumerate(runs, start=1) if v >= 1e-3), default=1)
    shown = runs[:min(last, 12)]
    print("expected runs of length k: " + ", ".join(
        f"{k}: {v:.4f}" for k, v in enumerate(shown, start=1))
        + (f" (k > {len(shown)}: {math.fsum(runs[len(shown):]):.2e} in all)"
           if len(shown) < len(runs) else ""))


def _simulate(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int
    from chancekit.cli._output import print_json
    from chancekit.fair import system_from_spec

    system = system_from_spec(args.spec, args.values)
    count = require_int("-n", args.count, lo=0, hi=10_000_000)
    rng, seed = rng_from_args(args)
    seq = system.draw_many(count, rng)
    if args.json:
        print_json("simulate", {"system": repr(system), "seed": seed,
                                "stream": stream_value(args.stream), "draws": seq})
        return 0
    print(" ".join(str(x) for x in seq))
    return 0
