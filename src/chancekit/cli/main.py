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

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

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


class _Recorder:
    """Stands in for a subcommand's parser while the command modules register: records
    every method call (``add_argument``, ``set_defaults``, argument groups, anything) and
    replays them on the real parser of the one command that runs, so the other commands'
    parsers are not built. A call returns a recorder of its own, replayed on what the real
    call returns (an argument group, a subparsers action)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any], _Recorder]] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def record(*args: Any, **kwargs: Any) -> _Recorder:
            made = _Recorder()
            self.calls.append((name, args, kwargs, made))
            return made

        return record

    def replay(self, target: Any) -> None:
        for name, args, kwargs, made in self.calls:
            result = getattr(target, name)(*args, **kwargs)
            if made.calls:
                made.replay(result)


class _Commands:
    """Stands in for argparse's subparsers action while the command modules register
    (``register(sub)`` calls ``sub.add_parser(name, ...)``, as with argparse)."""

    def __init__(self) -> None:
        self.parsers: dict[str, tuple[dict[str, Any], _Recorder]] = {}

    def add_parser(self, name: str, **kwargs: Any) -> _Recorder:
        recorder = _Recorder()
        self.parsers[name] = (kwargs, recorder)
        return recorder


_ALL = "*"


def build_parser(command: str | None = _ALL) -> argparse.ArgumentParser:
    """The ``chancekit`` parser. Every command is listed; ``command`` says which are built
    in full: all of them (the default), that one, or none (``None``: the top-level help)."""
    from chancekit.cli._common import add_work_option

    parser = argparse.ArgumentParser(
        prog="chancekit",
        description="Exact, fast and reproducible randomness for games.",
        epilog="Start with: chancekit tour",
    )
    parser.add_argument("--version", action="version", version=f"chancekit {__version__}")
    add_work_option(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands = _Commands()
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(commands)
    for name, (kwargs, recorder) in commands.parsers.items():
        if command == _ALL or name == command:
            built = sub.add_parser(name, **kwargs)
            recorder.replay(built)
            add_work_option(built, sub=True)
        else:  # listed in the help, with its one line; built only when it runs
            sub.add_parser(name, help=kwargs.get("help"), add_help=False)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not a top-level option or
    the value of one), or ``None``."""
    words = iter(argv)
    for word in words:
        if word == "--max-work":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    _tolerate_unencodable_text()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # answered before the commands are built, as argparse does
        print(f"chancekit {__version__}")
        raise SystemExit(0)
    from chancekit.cli._common import check_output_files, work_budget

    parser = build_parser(_command_of(argv))
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
