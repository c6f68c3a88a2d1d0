"""Options shared by every subcommand that draws randomness (private).

``--seed S`` (an integer or any text) and ``--stream X``: X is a number -> the raw PCG32
stream ``PCG32(S, X)``; X is a name -> the named stream ``Streams(S)[X]``. Without
``--seed`` a seed is drawn from the operating system and reported (in ``--json`` output),
so any run can be repeated.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from chancekit.errors import InvalidValueError


def add_rng_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("randomness")
    g.add_argument("--seed", metavar="S", help="master seed: an integer, or any text for "
                   "named streams (default: drawn from the OS and reported)")
    g.add_argument("--stream", metavar="X", help="a number: raw PCG32 stream X; "
                   "a name: the named stream Streams(S)[X] (default: stream 0)")


def parse_seed(text: str | None) -> int | str:
    if text is None:
        return int.from_bytes(os.urandom(8), "little")
    try:
        return int(text, 0)
    except ValueError:
        return text


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
    try:
        int(text, 0)
    except ValueError:
        return False
    return True


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
