"""Entry point of the ``chancekit`` command.

Exit codes: 0 success; 1 a user mistake the library reported, or an output file (``-o``,
``--plot``) that cannot be written (one line on stderr, plus the caret line for notation
errors); 2 a usage error (argparse). No Python traceback is shown for any user mistake.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from chancekit import __version__
from chancekit.errors import ChancekitError

# Subcommand modules, in the order ``chancekit --help`` lists them.
_COMMAND_MODULES = (
    "chancekit.cli._tour",
    "chancekit.cli._dice",
    "chancekit.cli._estimate",
    "chancekit.cli._anydice",
    "chancekit.cli._symbols",
    "chancekit.cli._pool",
    "chancekit.cli._sampling",
    "chancekit.cli._fair",
    "chancekit.cli._markov",
    "chancekit.cli._stream",
    "chancekit.cli._schema",
    "chancekit.cli._serve",
)


def build_parser() -> argparse.ArgumentParser:
    from chancekit.cli._common import add_work_option

    parser = argparse.ArgumentParser(
        prog="chancekit",
        description="Exact, fast and reproducible randomness for games.",
        epilog="Start with: chancekit tour",
    )
    parser.add_argument("--version", action="version", version=f"chancekit {__version__}")
    add_work_option(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for command in sub.choices.values():
        add_work_option(command, sub=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    _tolerate_unencodable_text()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # answered before the commands are built, as argparse does
        print(f"chancekit {__version__}")
        raise SystemExit(0)
    from chancekit.cli._common import check_output_files, work_budget

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        check_output_files(args)
        with work_budget(args):
            return int(args.func(args) or 0)
    except ChancekitError as exc:
        # what the command line adds to a refusal, on the same one line
        limit = getattr(exc, "limit", None)
        hints = (["--max-work N raises this limit for one command"]
                 if limit == "MAX_WORK" else []) + (
            ["`chancekit estimate EXPR` estimates it by random rolls"]
            if limit and args.command == "dist" else [])
        print(f"chancekit {args.command}: error: {exc}"
              + (f" [{'; '.join(hints)}]" if hints else ""), file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `chancekit stream ... | head`
        return 0
    except OSError as exc:  # a file given with -o / --plot cannot be written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"chancekit {args.command}: error: cannot write{where}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 1


def _tolerate_unencodable_text() -> None:
    """Arguments that are not valid text (undecodable bytes reach Python as lone
    surrogates) are echoed with backslash escapes instead of failing to print."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # not a TextIOWrapper: leave it
            pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
