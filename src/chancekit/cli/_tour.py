"""``chancekit tour``: one screen per capability, each produced by the command it shows.

Every section is a real ``chancekit`` command run in-process, printed first, so a reader
can copy it and get the same output (all randomness is seeded).
"""

from __future__ import annotations

import argparse
import sys

# (title, one-line explanation, the command's arguments)
SECTIONS: list[tuple[str, str, list[str]]] = [
    (
        "Exact dice",
        "What are the odds with 4d6 drop lowest? Exact, as fractions underneath:",
        ["dist", "4d6kh3"],
    ),
    (
        "Dice pools, face by face",
        "How likely is a crit with 5 action vs 3 danger dice in Neon City Overdrive "
        "(7 and up)? Polynomial time, not 6^8 rolls:",
        ["nco", "5", "3"],
    ),
    (
        "A d20 table that rolls like 3d6",
        "Vose's alias method, rounded once and optimally to the 1/400 grid of two d20s:",
        ["table", "3d6"],
    ),
    (
        "Reproducible streams",
        "PCG32, bit-exact with the reference (pcg32_srandom_r(42, 54)), and a named "
        "stream per level from one master seed, stable across runs and machines:",
        ["stream", "--seed", "12345", "--stream", "dwarvish-mines-1", "-n", "10", "--bound",
         "100"],
    ),
    (
        "No doubles: the swap filter",
        "A d6 whose last roll is held out of a chance tree: never the same face twice "
        "in a row, yet every face equally often in the long run:",
        ["sample", "1d6", "-n", "30", "--seed", "7", "--swap", "1"],
    ),
    (
        "Until something happens",
        "Who wins the race to zero, 30 HP dealing 2d6 against 25 HP dealing 1d8+2, and in "
        "how many rounds? An exact Markov chain, no depth cap:",
        ["markov", "race", "30", "2d6", "25", "1d8+2"],
    ),
    (
        "Fair randomness, tuned",
        "Which system keeps 90% of a die's unpredictability with the least unfairness "
        "over a 25-turn match? The published result, exactly:",
        ["tune", "--values", "6", "--samples", "25", "--min-entropy", "0.9", "--top", "3"],
    ),
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tour",
        help="a guided tour: one example per capability, with the command that made it",
        description="Show what chancekit does, one screen per capability. Each example "
        "prints the command that produced it, so you can copy it.",
        epilog="examples:\n  chancekit tour\n  chancekit tour --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="machine-readable output: each "
                   "section with its command and that command's --json document")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import shlex

    from chancekit import __version__
    from chancekit.cli.main import main

    if args.json:
        return _run_json(__version__)
    print(f"chancekit {__version__} — exact, fast and reproducible randomness for games\n")
    for i, (title, explanation, argv) in enumerate(SECTIONS, 1):
        print(f"── {i}. {title} " + "─" * max(0, 60 - len(title)))
        print(explanation)
        print(f"$ chancekit {shlex.join(argv)}")
        sys.stdout.flush()
        code = main(argv)
        if code:
            return code
        print()
    print("More: chancekit --help, chancekit COMMAND --help, and docs/ in the repository.")
    return 0


def _run_json(version: str) -> int:
    import contextlib
    import io
    import json
    import shlex

    from chancekit.cli._output import print_json
    from chancekit.cli.main import main

    sections = []
    for title, explanation, argv in SECTIONS:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main([*argv, "--json"])
        if code:
            return code
        sections.append({"title": title, "explanation": explanation,
                         "command": f"chancekit {shlex.join(argv)}",
                         "output": json.loads(buf.getvalue())})
    print_json("tour", {"version": version, "sections": sections})
    return 0
