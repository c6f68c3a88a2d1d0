"""The ``chancekit`` command line: a thin layer over the public API.

Each subcommand lives in its own private module exposing ``register(subparsers)``;
:func:`chancekit.cli.main.main` wires them up. ``main(argv)`` returns the exit code, so
the CLI is testable in-process.
"""

from chancekit.cli.main import main

__all__ = ["main"]
