"""``chancekit tour``: one screen per capability, each produced by the command it shows.

Every section is a real ``chancekit`` command run in-process, printed first, so a reader
can copy it and get the same output (all randomness is seeded).
"""

from __future__ import annotations

import argparse
import shlex
import sys

# (title, one-line explanation, the command's arguments)
SECTIONS: list[tuple[str, str, list[str]]] = [
    (
        "Reproducible streams",
        "PCG32, bit-exact with the reference: pcg32_srandom_r(42, 54) starts 0xa15c02b7 ...",
        ["stream", "--seed", "42", "--stream", "54", "-n", "6", "--hex"],
    ),
    (
        "Named streams",
        "One master seed, one independent generator per level, stable across runs and "
        "machines: ten d100 rolls (0-99) for the Dwarvish Mines",
        ["stream", "--seed", "12345", "--id", "dwarvish-mines-1", "-n", "10", "--bound", "100"],
    ),
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tour",
        help="a guided tour: one example per capability, with the command that made it",
        description="Show what chancekit does, one screen per capability. Each example "
        "prints the command that produced it, so you can copy it.",
        epilog="example:\n  chancekit tour",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chancekit import __version__
    from chancekit.cli.main import main

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
