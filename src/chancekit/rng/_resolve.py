"""Turning an ``rng=`` argument into a bit source (private, used by every sampler)."""

from __future__ import annotations

import numbers
import os
import threading
from typing import Any

from chancekit.errors import InvalidTypeError, quote
from chancekit.rng.pcg32 import PCG32

_default: PCG32 | None = None
_default_lock = threading.Lock()


def default_rng() -> PCG32:
    """The process-wide generator used when ``rng=None``: a :class:`PCG32` seeded once
    from the operating system's entropy (``os.urandom``). Not reproducible by design —
    pass ``rng=`` (a ``PCG32`` or a named stream) for reproducible draws.
    """
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                raw = int.from_bytes(os.urandom(16), "little")
                _default = PCG32(raw & ((1 << 64) - 1), raw >> 64)
    return _default


def resolve_rng(rng: Any) -> Any:
    """One calling convention for ``rng=`` everywhere: ``None`` -> :func:`default_rng`; a
    bit source (an object with ``next_u32`` and ``randbelow``: a ``PCG32``, a named stream,
    a scripted test source) -> itself; a :class:`~chancekit.PCG32Random` -> the ``PCG32``
    it runs on. An integer is refused (:class:`~chancekit.errors.InvalidTypeError`):
    a per-draw method given ``rng=5`` would restart the same sequence on every call, so
    ``[table.draw(5) for _ in range(6)]`` gave six equal values. Seed once, outside the
    loop: ``rng = PCG32(5)``, then ``table.draw(rng)``.

    >>> g = PCG32(42); resolve_rng(g) is g
    True
    >>> resolve_rng(42)
    Traceback (most recent call last):
    ...
    chancekit.errors.InvalidTypeError: rng must be a bit source such as chancekit.PCG32(42) or \
a named stream, not int (42): an integer here would restart the same sequence on every call
    """
    if rng is None:
        return default_rng()
    if isinstance(rng, PCG32):
        return rng
    from chancekit.rng.pyrandom import PCG32Random

    if isinstance(rng, PCG32Random):
        return rng.generator
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        shown = quote(rng)
        example = (f"chancekit.PCG32({shown}) or a named stream" if 0 <= rng < 1 << 64
                   else "a named stream chancekit.Streams(seed)['name']")
        raise InvalidTypeError(
            f"rng must be a bit source such as {example}, not {type(rng).__name__} "
            f"({shown}): an integer here would restart the same sequence on every call"
        )
    if hasattr(rng, "next_u32") and hasattr(rng, "randbelow"):
        return rng
    raise InvalidTypeError(
        "rng", rng, "None or a bit source: a chancekit.PCG32 (e.g. chancekit.PCG32(5)), a "
        "named stream (chancekit.Streams(seed)['name']) or a chancekit.PCG32Random"
    )
