""":class:`PCG32Random` — the standard library's :class:`random.Random`, driven by PCG32.

Overrides exactly the methods :class:`random.Random` documents for a new core generator:
``random()``, ``getrandbits(k)``, ``seed()``, ``getstate()`` and ``setstate()``. Everything
else (``choices``, ``sample``, ``gauss``, ``randrange``, ``shuffle``…) is inherited and
runs on PCG32 words. Note that the inherited ``randrange``/``shuffle`` use CPython's own
algorithms (built on ``getrandbits``), not the reference ``pcg32_boundedrand_r``; use
:class:`~chancekit.PCG32` directly for reference-exact bounded draws.
"""

from __future__ import annotations

import os
import random
from typing import Any

from chancekit._validate import require_int
from chancekit.errors import StateError
from chancekit.rng.pcg32 import PCG32, PCG32State

__all__ = ["PCG32Random"]

_VERSION = "chancekit.PCG32Random/1"


class PCG32Random(random.Random):
    """A :class:`random.Random` whose bits come from ``PCG32(seed, stream)``.

    ``seed`` is an integer in ``[0, 2**64)`` or ``None`` (seed from the operating system).

    >>> r = PCG32Random(42, stream=54)
    >>> r.getrandbits(32) == 0xA15C02B7
    True
    >>> r.choices("abc", k=5)
    ['b', 'b', 'c', 'b', 'c']
    >>> state = r.getstate(); x = r.gauss(0, 1); r.setstate(state); r.gauss(0, 1) == x
    True
    """

    _rng: PCG32

    def __init__(self, seed: int | None = None, stream: int = 0) -> None:
        self._stream = require_int("stream", stream, lo=0, hi=(1 << 64) - 1)
        super().__init__(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Reseed: ``PCG32(a, stream)``; ``a=None`` draws a seed from ``os.urandom``."""
        if a is None:
            a = int.from_bytes(os.urandom(8), "little")
        self._rng = PCG32(a, getattr(self, "_stream", 0))
        self.gauss_next = None

    def random(self) -> float:
        """PCG32's 53-bit float (see :meth:`chancekit.PCG32.random`)."""
        return self._rng.random()

    def getrandbits(self, k: int) -> int:
        """``k`` random bits (see :meth:`chancekit.PCG32.getrandbits`)."""
        return self._rng.getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        """``(version, state, inc, gauss_next)``."""
        s = self._rng.getstate()
        return (_VERSION, s.state, s.inc, self.gauss_next)

    def setstate(self, state: tuple[Any, ...]) -> None:
        """Restore a state from :meth:`getstate` (validated)."""
        if not isinstance(state, tuple) or len(state) != 4 or state[0] != _VERSION:
            raise StateError(
                f"PCG32Random state must be a tuple from getstate() of version {_VERSION!r}, "
                f"not {state!r:.80}"
            )
        _, s, inc, gauss_next = state
        if gauss_next is not None and not isinstance(gauss_next, float):
            raise StateError(f"PCG32Random gauss_next must be a float or None, not {gauss_next!r}")
        rng = PCG32.__new__(PCG32)
        rng.setstate(PCG32State(s, inc))
        self._rng = rng
        self.gauss_next = gauss_next

    @property
    def generator(self) -> PCG32:
        """The underlying :class:`~chancekit.PCG32` (shared, not a copy)."""
        return self._rng
