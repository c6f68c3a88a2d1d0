"""Entry point of the ``chancekit`` command.

Exit codes: 0 success; 1 a user mistake the library reported, or an output file (``-o``,
``--plot``) that cannot be written (one line on stderr, plus the caret line for notation
errors); 2 a usage error (argparse). No Python traceback is shown for any user mistake.
"""

from __future__ import annotations

import importlib
import sys

from chancekit import __version__
from chancekit.errors import ChancekitError

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

_DESCRIPTION = "Exact, fast and reproducible randomness for games."
_EPILOG = "Start with: chancekit tour"

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
    "chancekit.cli._gacha",
    "chancekit.cli._audit",
    "chancekit.cli._stream",
    "chancekit.cli._schema",
    "chancekit.cli._serve",
    "chancekit.cli._site",
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


def _registered() -> _Commands:
    """Every command, registered on recorders (its module imported, no parser built)."""
    commands = _Commands()
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(commands)
    return commands


def build_parser(command: str | None = _ALL) -> argparse.ArgumentParser:
    """The ``chancekit`` parser. Every command is listed; ``command`` says which are built
    in full: all of them (the default), that one, or none (``None``: the top-level help)."""
    import argparse

    from chancekit.cli._common import add_work_option

    parser = argparse.ArgumentParser(prog="chancekit", description=_DESCRIPTION,
                                     epilog=_EPILOG)
    parser.add_argument("--version", action="version", version=f"chancekit {__version__}")
    add_work_option(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands = _registered()
    for name, (kwargs, recorder) in commands.parsers.items():
        if command == _ALL or name == command:
            built = sub.add_parser(name, **kwargs)
            recorder.replay(built)
            add_work_option(built, sub=True)
        else:  # listed in the help, with its one line; built only when it runs
            sub.add_parser(name, help=kwargs.get("help"), add_help=False)
    return parser


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, as argparse's help formatter reads it,
    without importing shutil (and the compression modules it loads)."""
    import os

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
        columns = columns or 80
    return columns


def top_help() -> str | None:
    """``chancekit --help``'s text as argparse formats it (Python 3.9 to 3.13), written
    from the recorded command names and one-line helps without building argparse's
    parser (its formatters, regular expressions and message catalogue lookups: a
    third of the command's cost). ``None`` where the layout would not be argparse's
    simple one (a narrow terminal, a help with ``%(...)s``, an alias): the caller then
    asks argparse. tests/test_cli_help.py compares the two at many widths."""
    if not (3, 9) <= sys.version_info[:2] < (3, 14):
        return None
    import textwrap

    from chancekit.cli._common import WORK_HELP

    width = _columns() - 2
    usage = "usage: chancekit [-h] [--version] [--max-work N] COMMAND ..."
    if len(usage) > width:
        return None
    entries: list[tuple[int, str, str | None]] = [(2, "COMMAND", None)]
    for name, (kwargs, _) in _registered().parsers.items():
        text = kwargs.get("help")
        if "aliases" in kwargs or (text is not None and "%(" in text):
            return None
        entries.append((4, name, None if text is None else text % {}))
    options = [(2, "-h, --help", "show this help message and exit"),
               (2, "--version", "show program's version number and exit"),
               (2, "--max-work N", WORK_HELP)]
    help_position = min(max(indent + len(head) for indent, head, _ in entries + options) + 2,
                        min(24, max(width - 20, 4)))
    help_width = max(width - help_position, 11)

    def section(title: str, items: list[tuple[int, str, str | None]]) -> str:
        out = [f"{title}:\n"]
        for indent, head, text in items:
            if not text:
                out.append(" " * indent + head + "\n")
                continue
            lines = textwrap.wrap(" ".join(text.split()), help_width)
            if len(head) <= help_position - indent - 2:
                out.append(" " * indent + head.ljust(help_position - indent - 2) + "  ")
            else:
                out.append(" " * indent + head + "\n" + " " * help_position)
            out.append(("\n" + " " * help_position).join(lines) + "\n")
        return "".join(out)

    def fill(text: str) -> str:
        return textwrap.fill(" ".join(text.split()), max(width, 11))

    return (f"{usage}\n\n{fill(_DESCRIPTION)}\n\n{section('positional arguments', entries)}"
            f"\n{section('options', options)}\n{fill(_EPILOG)}\n")


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
    if argv in (["--help"], ["-h"], []):  # the listing, without building argparse's parser
        text = top_help()
        if text is not None:
            try:  # as argparse prints it (a closed or missing stdout is not an error)
                (sys.stdout or sys.stderr).write(text)
            except (AttributeError, OSError):
                pass
            if argv:
                raise SystemExit(0)
            return 2
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
