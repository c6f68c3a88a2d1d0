"""``chancekit anydice FILE``: run an AnyDice program; print each output as ``dist`` does.

A thin layer over :func:`chancekit.anydice.run_program`: the file (or standard input) is
read as UTF-8 text, run, and every ``output`` is printed with ``chancekit dist``'s table,
figures, ``--json`` fields and ``--plot`` (:mod:`chancekit.cli._dice`). Warnings (where
AnyDice's own answer differs) go to stderr; errors are one line plus the caret line.
Top-level imports stay light: the language is imported when the command runs.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any


#: the ``--json`` fields of an empty output (``d{}``): no outcomes, every figure null
_EMPTY_FIELDS = {"outcomes": [], "hidden": 0, "total_weight": "0", "mean": None,
                 "mean_float": None, "sd": None, "skewness": None, "kurtosis": None,
                 "kurtosis_float": None}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``anydice`` to ``sub``."""
    p = sub.add_parser(
        "anydice",
        help="run an AnyDice program exactly (each output as `dist` prints it)",
        description="Run a program written in AnyDice's language (anydice.com): functions, "
        "loops, conditions, sequences, custom dice. Each `output` is printed as "
        "`chancekit dist` prints a distribution: the table (probability, at least, at most), "
        "then the mean, sd, skewness and kurtosis; exactly, in rational arithmetic. Where "
        "AnyDice's own answer is known to differ (its bugs), a warning on stderr says so. "
        "Reference: docs/anydice.md.",
        epilog="examples:\n"
        "  chancekit anydice attack.dice\n"
        "  echo 'output [highest 3 of 4d6] named \"stats\"' | chancekit anydice -\n"
        "  chancekit anydice attack.dice --json > attack.json\n"
        "  chancekit anydice attack.dice --plot attack.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="the program: a UTF-8 text file, or - to "
                   "read standard input")
    p.add_argument("--json", action="store_true", help="machine-readable output: every "
                   "output's exact weights (as `dist --json`) and the warnings")
    p.add_argument("--plot", metavar="FILE.png", help="also save a chart of every output "
                   "(one output: bars as `dist --plot`; several: one line each)")
    p.add_argument("--all", action="store_true", help="show every outcome (by default, past "
                   "100 outcomes, rows below 1e-6 are hidden, as in `dist`)")
    p.add_argument("--approx", action="store_true", help="if the exact run is refused for its "
                   "work (weights of millions of bits), run it again the certified way: "
                   "outputs that need it print every probability as a proven interval, "
                   "within 1e-12, never called exact; with --json a "
                   "chancekit.certified/1 document")
    p.set_defaults(func=run_anydice)


def read_program(path: str) -> str:
    """The program text of ``path`` (``-``: standard input), refused with a clear
    :class:`~chancekit.errors.InvalidValueError` when it cannot be read, is larger than
    :data:`~chancekit.limits.MAX_PROGRAM_BYTES`, holds a NUL byte (a binary file) or is
    not UTF-8. A UTF-8 byte order mark is dropped; line ends are normalised to ``\\n``."""
    from chancekit.cli._common import check_text
    from chancekit.errors import InvalidValueError
    from chancekit.limits import MAX_PROGRAM_BYTES

    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        try:
            data: bytes | str = (stream.read(MAX_PROGRAM_BYTES + 1) if stream is not None
                                 else sys.stdin.read(MAX_PROGRAM_BYTES + 1))
        except (OSError, ValueError) as exc:  # closed, or not readable here
            raise InvalidValueError(f"standard input cannot be read ({exc})") from None
        where = "standard input"
    else:
        check_text("FILE", path)
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_PROGRAM_BYTES + 1)
        except FileNotFoundError:
            raise InvalidValueError("FILE", path, "an existing file (or - for standard "
                                    "input)") from None
        except IsADirectoryError:
            raise InvalidValueError("FILE", path, "a file, not a folder") from None
        except OSError as exc:
            raise InvalidValueError("FILE", path, f"a readable file ({exc.strerror or exc})"
                                    ) from None
        where = path
    if len(data) > MAX_PROGRAM_BYTES:
        raise InvalidValueError(f"{where} is larger than {MAX_PROGRAM_BYTES:,} bytes; an "
                                "AnyDice program is a few kB at most")
    if isinstance(data, bytes):
        nul = data.find(b"\0")
        if nul >= 0:
            raise InvalidValueError(f"{where} is not a text file: byte {nul + 1} is NUL "
                                    "(give an AnyDice program as UTF-8 text)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidValueError(f"{where} is not UTF-8 text: byte {exc.start + 1} "
                                    f"({data[exc.start]:#04x}) cannot be decoded") from None
    else:
        text = data.removeprefix("\ufeff")
        if "\0" in text:
            raise InvalidValueError(f"{where} is not a text file: character "
                                    f"{text.index(chr(0)) + 1} is NUL")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def run_anydice(args: argparse.Namespace) -> int:
    from chancekit.anydice import run_program
    from chancekit.cli._dice import (
        _plot,
        certified_rows,
        distribution_fields,
        show_distribution,
        shown_rows,
        summary_figures,
    )
    from chancekit.cli._output import print_json

    text = read_program(args.file)
    approx = getattr(args, "approx", False)
    result = run_program(text, approx=approx)
    outputs = list(result.outputs)
    if approx:
        from chancekit.cli._certified import is_certified, print_certified_json, show_certified

        if any(is_certified(d) for _, d in outputs):
            if args.plot:
                from chancekit.errors import InvalidValueError

                raise InvalidValueError("--plot takes exact answers; a certified (--approx) "
                                        "answer prints its table or its --json "
                                        "(chancekit.certified/1) only")
            if args.json:  # its own schema: certified rows carry bounds, not weights
                print_certified_json("anydice", args.file, None,
                                     [(str(label), d) for label, d in outputs], args.all,
                                     [str(w) for w in result.warnings], **certified_rows())
                return 0
            from chancekit.errors import _CONTROL_PICTURES

            table_args = argparse.Namespace(json=False, plot=None, all=args.all)
            for i, (label, d) in enumerate(outputs):
                if i:
                    print()
                title = str(label).translate(_CONTROL_PICTURES)
                if is_certified(d):
                    show_certified(d, title, table_args)
                elif len(d):
                    show_distribution(d, title, table_args, {}, "anydice")
                else:
                    print(f"{title}\n(empty: no outcomes, the empty die d{{}})")
            for line in result.warnings:
                print(f"chancekit anydice: warning: {str(line).translate(_CONTROL_PICTURES)}",
                      file=sys.stderr)
            return 0
    warnings = [str(w) for w in result.warnings]
    # an output of the empty die d{} has no outcomes (AnyDice prints an empty table)
    rows = [shown_rows(d, args.all) if len(d) else ([], 0) for _, d in outputs]
    if args.json:
        print_json("anydice", {
            "file": args.file,
            "outputs": [{"label": str(label),
                         **(distribution_fields(d, shown, hidden, summary_figures(d))
                            if len(d) else _EMPTY_FIELDS)}
                        for (label, d), (shown, hidden) in zip(outputs, rows, strict=True)],
            "warnings": warnings})
    else:
        from chancekit.errors import _CONTROL_PICTURES

        table_args = argparse.Namespace(json=False, plot=None, all=args.all)
        for i, (label, d) in enumerate(outputs):
            if i:
                print()
            # a name is shown, never obeyed: control characters (an escape sequence in a
            # program's "named" text) print as their visible pictures
            title = str(label).translate(_CONTROL_PICTURES)
            if len(d):
                show_distribution(d, title, table_args, {}, "anydice")
            else:
                print(f"{title}\n(empty: no outcomes, the empty die d{{}})")
        if not outputs:
            print("(no output: the program has no `output` statement)", file=sys.stderr)
    for line in warnings:
        from chancekit.errors import _CONTROL_PICTURES

        print(f"chancekit anydice: warning: {line.translate(_CONTROL_PICTURES)}",
              file=sys.stderr)
    if args.plot:
        if not outputs:
            from chancekit.errors import InvalidValueError

            raise InvalidValueError("--plot needs at least one output; the program has none")
        series: list[tuple[str, list[Any], list[float]]] = [
            (str(label), [r[0] for r in shown], [r[1] for r in shown])
            for (label, _), (shown, _) in zip(outputs, rows, strict=True)]
        first, *more = series
        _plot(first[0], first[1], first[2], args.plot, more=more)
    return 0
