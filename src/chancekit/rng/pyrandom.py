""":class:`PCG32Random` — the standard library's :class:`random.Random`, driven by PCG32.

Overrides exactly the methods :class:`random.Random` documents for a new core generator:
``random()``, ``getrandbits(k)``, ``seed()``, ``getstate()`` and ``setstate()``. Everything
else (``choices``, ``sample``, ``gauss``, ``randrange``, ``shuffle``…) is inherited and
runs on PCG32 words. Note that the inherited ``randrange``/``shuffle`` use CPython's own
algorithms (built on ``getrandbits``), not the reference ``pcg32_boundedrand_r``; use
:class:`~chancekit.PCG32` directly for reference-exact bounded draws.

The stream survives everything that carries the state: ``getstate``/``setstate``, pickle,
``copy.copy``/``copy.deepcopy`` and :meth:`PCG32Random.to_json`/``from_json``; a later
``seed(a)`` reseeds on the same stream.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from typing import Any

from chancekit import _state
from chancekit._validate import require_int
from chancekit.errors import StateError, quote
from chancekit.rng.pcg32 import PCG32, PCG32State

__all__ = ["PCG32Random"]

_VERSION = "chancekit.PCG32Random/1"
#: the JSON save (:meth:`PCG32Random.to_json`): format name and version
FORMAT = "chancekit.PCG32Random"
JSON_VERSION = 1
_U64_TEXT = re.compile(r"0x[0-9a-f]{16}")


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
        fresh = PCG32(a, getattr(self, "_stream", 0))
        if getattr(self, "_rng", None) is None:
            self._bind(fresh)
        else:  # in place: whoever holds ``generator`` follows the reseed
            self._rng.setstate(fresh.getstate())
        self.gauss_next = None

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy: a cheap constructor call (no os.urandom), then setstate
        return (self.__class__, (0,), self.getstate())

    def _bind(self, rng: PCG32) -> None:
        """Run on ``rng``: its own ``random`` and ``getrandbits`` (C methods when the
        compiled core is built) become this instance's, so ``r.random()`` and every
        inherited method calling ``self.random`` reach them with no Python frame between."""
        self._rng = rng
        cls = type(self)
        if cls.random is PCG32Random.random:  # a subclass's own random() stays in charge
            self.random = rng.random  # type: ignore[method-assign]
        if cls.getrandbits is PCG32Random.getrandbits:
            self.getrandbits = rng.getrandbits  # type: ignore[method-assign]

    # The class-level methods are what random.Random inspects (__init_subclass__ picks
    # the getrandbits-based randrange); each instance calls its generator's bound methods.
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
                f"not {quote(state, limit=80)}"
            )
        _, s, inc, gauss_next = state
        if gauss_next is not None and not (
            isinstance(gauss_next, float) and math.isfinite(gauss_next)
        ):
            raise StateError(
                f"PCG32Random gauss_next must be a finite float or None, not {quote(gauss_next)}")
        checked = PCG32.from_state(PCG32State(s, inc))  # validates: StateError
        if getattr(self, "_rng", None) is None:
            self._bind(checked)
        else:  # in place, as seed() does
            self._rng.setstate(checked.getstate())
        self._stream = checked.getstate().inc >> 1  # the stream seed() reseeds on
        self.gauss_next = gauss_next

    @property
    def stream(self) -> int:
        """The PCG32 stream ``seed()`` reseeds on (``inc >> 1``; streams ``s`` and
        ``s + 2**63`` are the same stream, so a stream restored from a state is reported
        mod 2**63)."""
        return self._stream

    # -- JSON --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"format": "chancekit.PCG32Random", "version": 1,
        "state": "0x…", "inc": "0x…", "gauss_next": float or null}`` (states as 16-digit
        lowercase hex, as :meth:`chancekit.Streams.to_json` writes them).

        >>> r = PCG32Random(5, stream=9); r.gauss(0, 1) and None
        >>> PCG32Random.from_json(r.to_json()).getstate() == r.getstate()
        True
        """
        _, s, inc, gauss_next = self.getstate()
        return {"format": FORMAT, "version": JSON_VERSION, "state": f"{s:#018x}",
                "inc": f"{inc:#018x}", "gauss_next": gauss_next}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text (floats written exactly, as ``repr`` does)."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> PCG32Random:
        """A generator at the state :meth:`to_dict` saved. Anything but exactly that
        layout (wrong format or version, ``version`` ``1.0`` or ``true``, missing or extra
        keys, states not ``0x`` + 16 lowercase hex digits, an even ``inc``, a
        ``gauss_next`` that is not a finite float or null) is a
        :class:`~chancekit.errors.StateError` naming the field."""
        if not isinstance(data, dict):
            raise StateError(f"saved PCG32Random must be a JSON object, not {quote(data)}")
        keys = {"format", "version", "state", "inc", "gauss_next"}
        if data.keys() != keys:
            raise StateError(f"saved PCG32Random must have exactly the keys {sorted(keys)}, "
                             f"not {quote(sorted(map(str, data))[:10])}")
        if data["format"] != FORMAT:
            raise StateError(f"format must be {FORMAT!r}, not {quote(data['format'])}")
        version = data["version"]
        if type(version) is not int or version != JSON_VERSION:
            raise StateError(f"unknown saved PCG32Random version {quote(version)}; this "
                             f"chancekit reads version {JSON_VERSION} (the integer)")
        words = []
        for name in ("state", "inc"):
            v = data[name]
            if not isinstance(v, str) or not _U64_TEXT.fullmatch(v):
                raise StateError(f"{name} must be '0x' and 16 lowercase hex digits, not "
                                 f"{quote(v, limit=40)}")
            words.append(int(v[2:], 16))
        gauss_next = data["gauss_next"]
        if isinstance(gauss_next, int) and not isinstance(gauss_next, bool):
            raise StateError(f"gauss_next must be a float or null, not {quote(gauss_next)}")
        rng = cls(0)
        rng.setstate((_VERSION, words[0], words[1], gauss_next))
        return rng

    def load_dict(self, data: Any) -> None:
        """Restore, in place, a state saved by :meth:`to_dict` (validated like
        :meth:`from_dict`; nothing changes on a :class:`~chancekit.errors.StateError`).

        >>> r = PCG32Random(5); saved = r.to_json(); x = r.random(); r.load_json(saved)
        >>> r.random() == x
        True
        """
        self.setstate(type(self).from_dict(data).getstate())

    def load_json(self, text: str | bytes) -> None:
        """Restore, in place, a state saved by :meth:`to_json`."""
        self.setstate(type(self).from_json(text).getstate())

    @classmethod
    def from_json(cls, text: str | bytes) -> PCG32Random:
        """Load :meth:`to_json`'s output (validated like :meth:`from_dict`)."""
        return cls.from_dict(_state.load(text, "PCG32Random"))

    @property
    def generator(self) -> PCG32:
        """The underlying :class:`~chancekit.PCG32` (shared, not a copy)."""
        return self._rng

