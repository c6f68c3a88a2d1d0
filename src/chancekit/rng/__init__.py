"""Reproducible random streams: :class:`PCG32`, named :class:`Streams`, and
:class:`PCG32Random` (a :class:`random.Random` driven by PCG32).

The bit source (PCG32: words, state, advance) is kept apart from what consumes it: every
sampler in chancekit takes an ``rng`` argument and needs only ``next_u32``/``randbelow``
(and the bulk methods for vectorised paths), so tests can inject a scripted source.
The reproducibility contract is in ``docs/reproducibility.md``.
"""

from chancekit.rng._resolve import default_rng, resolve_rng
from chancekit.rng.pcg32 import PCG32, PCG32State
from chancekit.rng.pyrandom import PCG32Random
from chancekit.rng.streams import Streams, derive_stream

__all__ = ["PCG32", "PCG32Random", "PCG32State", "Streams", "default_rng", "derive_stream",
           "resolve_rng"]
