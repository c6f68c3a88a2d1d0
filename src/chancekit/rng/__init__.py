"""Reproducible random streams: :class:`PCG32`, named :class:`Streams`, and
:class:`PCG32Random` (a :class:`random.Random` driven by PCG32).

The bit source (PCG32: words, state, advance) is kept apart from what consumes it: every
sampler in chancekit takes an ``rng`` argument and needs only ``next_u32`` (the bit-source
protocol, :mod:`chancekit.rng.source`: bounded, float and bulk draws are derived from the
words when the source lacks them), so tests can inject a scripted source.
The reproducibility contract is in ``docs/reproducibility.md``.
"""

from __future__ import annotations

from chancekit._lazy import front_door

# name -> module that defines it, imported on first use (``chancekit stream`` loads the
# generator and the named streams, not ``random`` for PCG32Random)
_LAZY: dict[str, str] = {
    "PCG32": "chancekit.rng.pcg32",
    "PCG32State": "chancekit.rng.pcg32",
    "PCG32Random": "chancekit.rng.pyrandom",
    "BitSource": "chancekit.rng.source",
    "as_source": "chancekit.rng.source",
    "default_rng": "chancekit.rng.source",
    "resolve_rng": "chancekit.rng.source",
    "Streams": "chancekit.rng.streams",
    "derive_stream": "chancekit.rng.streams",
}

__all__ = ["PCG32", "BitSource", "PCG32Random", "PCG32State", "Streams", "as_source",
           "default_rng", "derive_stream", "resolve_rng"]


__getattr__, __dir__ = front_door(__name__, _LAZY, globals())
