"""Turning an ``rng=`` argument into a bit source (private, used by every sampler)."""

from __future__ import annotations

import os
import threading
from typing import Any

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
    """The same as :func:`chancekit.rng.source.as_source` (kept for existing callers).

    One calling convention for ``rng=`` everywhere: ``None`` -> :func:`default_rng`; a
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
    from chancekit.rng.source import as_source

    return as_source(rng)
