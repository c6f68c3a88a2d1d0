"""Options shared by every subcommand that draws randomness (private).

``--seed S`` (an integer or any text) and ``--stream X``: X is a number -> the raw PCG32
stream ``PCG32(S, X)``; X is a name -> the named stream ``Streams(S)[X]``. Without
``--seed`` a seed is drawn from the operating system and reported (in ``--json`` output),
so any run can be repeated.
"""

from __future__ import annotations

import argparse
import os
import re

from chancekit.errors import InvalidValueError
from chancekit.limits import MAX_INT as _MAX_INT
from chancekit.limits import MAX_INT_DIGITS, MAX_WORK_OPTION

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: integers on the command line: plain ASCII, optional sign, decimal (no leading zeros but
#: "0"), 0x hex, 0o octal or 0b binary -- no spaces, underscores or other scripts' digits
_INT_TEXT = re.compile(r"[+-]?(?:0+|[1-9][0-9]*|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)")


def check_text(option: str, text: str) -> str:
    """``text`` if it is valid text; an argument holding bytes that are not UTF-8 (they
    reach Python as lone surrogates) is an :class:`InvalidValueError` naming ``option``."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidValueError(option, text, "valid UTF-8 text (this argument holds "
                                    "bytes that are not UTF-8)") from None
    return text


def parse_int_text(option: str, text: str) -> int | None:
    """``text`` as an integer when it is written as one (see ``_INT_TEXT``), else ``None``
    (it is a name). Text that Python's ``int(text, 0)`` would also read -- surrounding
    spaces, underscores, non-ASCII digits -- is refused rather than guessed at, and so is
    an integer past :data:`MAX_INT_DIGITS` digits."""
    check_text(option, text)
    if _INT_TEXT.fullmatch(text):
        if text.lstrip("+-")[:2] in ("0x", "0X", "0o", "0O", "0b", "0B"):
            value = int(text, 0)
        elif len(text) <= MAX_INT_DIGITS + 1:
            value = int(text, 10)
        else:
            value = _MAX_INT
        if abs(value) >= _MAX_INT:
            raise InvalidValueError(option, text, f"an integer of at most {MAX_INT_DIGITS} "
                                    "decimal digits")
        return value
    try:
        int(text, 0)
    except ValueError:
        return None
    raise InvalidValueError(option, text, "an integer in plain ASCII digits (no spaces, "
                            "underscores or other scripts' digits), or a name that does not "
                            "read as a number")


def add_work_option(p: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """``--max-work N`` (on the top parser, and on each subcommand so it may follow the
    command's arguments; a subcommand's copy leaves the top one alone unless given)."""
    p.add_argument("--max-work", metavar="N", type=str,
                   default=argparse.SUPPRESS if sub else None, help=WORK_HELP)


WORK_HELP = ("raise (or lower) the work limit MAX_WORK of exact dice work for this one "
             "command to N units of about 20 ns (default 50000000, about a second; e.g. "
             "4e8 for about 8 s); docs/limits.md")


def work_budget(args: argparse.Namespace) -> Any:
    """The work budget ``--max-work`` asks for, as a context manager: an outer
    :func:`chancekit.limits.evaluation` with that limit, which every dice evaluation of
    the command joins (so N is the total of the command); a no-op without the option."""
    import contextlib

    from chancekit import limits

    text = getattr(args, "max_work", None)
    if text is None:
        return contextlib.nullcontext()
    check_text("--max-work", text)
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text, 10)
    except ValueError:
        raise InvalidValueError("--max-work", text, "a number of work units, e.g. "
                                "400000000 or 4e8") from None
    if not (isinstance(value, int) or value.is_integer()) or not 1 <= value <= MAX_WORK_OPTION:
        raise InvalidValueError("--max-work", text, f"a whole number from 1 to "
                                f"{MAX_WORK_OPTION:.0e}")
    return limits.evaluation(limit=int(value), name="MAX_WORK")


def add_rng_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("randomness")
    g.add_argument("--seed", metavar="S", help="master seed: an integer, or any text for "
                   "named streams (default: drawn from the OS and reported)")
    g.add_argument("--stream", metavar="X", help="a number: raw PCG32 stream X; "
                   "a name: the named stream Streams(S)[X] (default: stream 0)")


def parse_seed(text: str | None) -> int | str:
    if text is None:
        return int.from_bytes(os.urandom(8), "little")
    value = parse_int_text("--seed", text)
    return text if value is None else value


def rng_from_args(args: argparse.Namespace) -> tuple[Any, int | str]:
    """The generator the options ask for, and the seed used."""
    from chancekit.rng import PCG32, Streams

    seed = parse_seed(args.seed)
    stream = getattr(args, "stream", None)
    if stream is not None and not _is_int(stream):
        return Streams(seed)[stream], seed
    if isinstance(seed, str):
        raise InvalidValueError(
            "--seed", seed, "an integer for a raw PCG32 stream (text seeds work with a named "
            "stream: add --stream NAME)"
        )
    return PCG32(seed, int(stream, 0) if stream is not None else 0), seed


def stream_value(text: str | None) -> int | str | None:
    """``--stream`` as the ``--json`` output reports it: a number, a name, or ``None``."""
    if text is None:
        return None
    return int(text, 0) if _is_int(text) else text


def _is_int(text: str) -> bool:
    return parse_int_text("--stream", text) is not None


def check_output_files(args: argparse.Namespace) -> None:
    """Refuse ``-o FILE`` / ``--plot FILE`` before any work: the folder must exist and a
    plot's extension must be an image format matplotlib writes."""
    from pathlib import Path

    for option, attr in (("-o", "output"), ("--plot", "plot")):
        path = getattr(args, attr, None)
        if not path:
            continue
        folder = Path(path).parent  # the shell expands ~; Python must not guess
        if not folder.is_dir():
            raise InvalidValueError(option, path, f"a file in an existing folder ({folder} "
                                    "does not exist)")
        if attr == "plot":
            from matplotlib.backend_bases import FigureCanvasBase

            formats = sorted(FigureCanvasBase.get_supported_filetypes())
            suffix = Path(path).suffix.lower().lstrip(".")
            if suffix not in formats:
                raise InvalidValueError(option, path, "a file name ending in an image format: "
                                        + ", ".join(f".{f}" for f in formats))
