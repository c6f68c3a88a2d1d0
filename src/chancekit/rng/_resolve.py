"""Turning an ``rng=`` argument into a bit source (private, used by every sampler)."""

from __future__ import annotations

import os
from typing import Any

from chancekit.errors import InvalidTypeError
from chancekit.rng.pcg32 import PCG32

_default: PCG32 | None = None


def default_rng() -> PCG32:
    """The process-wide generator used when ``rng=None``: a :class:`PCG32` seeded once
    from the operating system's entropy (``os.urandom``). Not reproducible by design —
    pass ``rng=`` (a ``PCG32``, a named stream, or an integer seed) for reproducible draws.
    """
    global _default
    if _default is None:
        raw = int.from_bytes(os.urandom(16), "little")
        _default = PCG32(raw & ((1 << 64) - 1), raw >> 64)
    return _default


def resolve_rng(rng: Any) -> Any:
    """``None`` -> :func:`default_rng`; an ``int`` -> ``PCG32(rng)``; an object with
    ``next_u32`` and ``randbelow`` (a ``PCG32``, a named stream, a scripted test source)
    -> itself. Anything else: :class:`~chancekit.errors.InvalidTypeError`.

    >>> resolve_rng(42).getstate() == PCG32(42).getstate()
    True
    """
    if rng is None:
        return default_rng()
    if isinstance(rng, int) and not isinstance(rng, bool):
        return PCG32(rng)
    if hasattr(rng, "next_u32") and hasattr(rng, "randbelow"):
        return rng
    raise InvalidTypeError(
        "rng", rng, "None, an integer seed, or a chancekit.PCG32 (e.g. a named stream)"
    )
