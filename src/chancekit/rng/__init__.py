"""Reproducible random streams: :class:`PCG32`, named :class:`Streams`, and
:class:`PCG32Random` (a :class:`random.Random` driven by PCG32).

The bit source (PCG32: words, state, advance) is kept apart from what consumes it: every
sampler in chancekit takes an ``rng`` argument and needs only ``next_u32`` (the bit-source
protocol, :mod:`chancekit.rng.source`: bounded, float and bulk draws are derived from the
words when the source lacks them), so tests can inject a scripted source.
The reproducibility contract is in ``docs/reproducibility.md``.
"""

from chancekit.rng.pcg32 import PCG32, PCG32State
from chancekit.rng.pyrandom import PCG32Random
from chancekit.rng.source import BitSource, as_source, default_rng, resolve_rng
from chancekit.rng.streams import Streams, derive_stream

__all__ = ["PCG32", "BitSource", "PCG32Random", "PCG32State", "Streams", "as_source",
           "default_rng", "derive_stream", "resolve_rng"]
