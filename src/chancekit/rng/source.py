"""The bit-source protocol: what every sampler in chancekit needs from an ``rng``.

A *bit source* is any object with ``next_u32()`` returning uniform 32-bit words. Everything
else a sampler needs is derived from those words here, once, by the frozen rules of
``docs/reproducibility.md`` (the same rules :class:`~chancekit.PCG32` implements):

* :func:`randbelow` -- ``pcg32_boundedrand_r``'s rejection rule (on several words above
  ``2**32``);
* :func:`random_float` -- CPython's 53-bit float from two words;
* :func:`u32_array`, :func:`randbelow_array` -- the bulk forms, exactly ``n`` scalar calls.

A source may provide any of ``randbelow``, ``u32_array``, ``randbelow_array`` itself (a
:class:`~chancekit.PCG32` provides them vectorised); the helpers use them when present and
fall back to scalar calls otherwise, so every sampler's bulk path works with a minimal
scripted source. :func:`as_source` turns an ``rng=`` argument into a source (the one calling
convention) and wraps a source without ``randbelow`` so that it has one.

>>> class Counter:                       # a minimal scripted source
...     def __init__(self): self.i = 0
...     def next_u32(self):
...         self.i += 1
...         return self.i * 0x10000000
>>> src = as_source(Counter())
>>> u32_array(src, 3).tolist(), randbelow(src, 6)
([268435456, 536870912, 805306368], 4)
"""

from __future__ import annotations

import numbers
import os
import threading
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from chancekit._numpy import require as _require_numpy
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, quote
from chancekit.rng.pcg32 import PCG32

if TYPE_CHECKING:  # numpy is imported by the bulk helpers only (a cold roll needs none)
    import numpy as np

#: what needs numpy, as the error says when it is missing
_WHAT = "a numpy array of draws (without numpy use u32_list or randbelow_list)"

__all__ = ["BitSource", "as_source", "default_rng", "randbelow", "randbelow_array",
           "randbelow_list", "random_float", "resolve_rng", "u32_array", "u32_list"]

_U32 = 1 << 32
_default: PCG32 | None = None
_default_lock = threading.Lock()


def default_rng() -> PCG32:
    """The process-wide generator used when ``rng=None``: a :class:`PCG32` seeded once
    from the operating system's entropy (``os.urandom``). Not reproducible by design —
    pass ``rng=`` (a ``PCG32`` or a named stream) for reproducible draws.

    >>> default_rng() is default_rng()
    True
    """
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                raw = int.from_bytes(os.urandom(16), "little")
                _default = PCG32(raw & ((1 << 64) - 1), raw >> 64)
    return _default


@runtime_checkable
class BitSource(Protocol):
    """The one method a bit source must have. Optional, used when present: ``randbelow``,
    ``u32_array``, ``randbelow_array`` (each must equal the derived rule: same values, same
    words consumed), and ``getstate``/``setstate``/``advance`` (which let the vectorised
    alias-table paths read ahead and rewind)."""

    def next_u32(self) -> int:
        """A uniform integer in ``[0, 2**32)``."""


def as_source(rng: Any) -> Any:
    """The one calling convention for ``rng=``: ``None`` -> :func:`default_rng`; a
    :class:`~chancekit.PCG32` or named stream -> itself; a :class:`~chancekit.PCG32Random`
    -> the ``PCG32`` it runs on; any other object with ``next_u32`` -> itself, or wrapped
    in a :class:`DerivedSource` when it has no ``randbelow``. An integer is refused
    (:class:`~chancekit.errors.InvalidTypeError`): per-draw methods would restart the same
    sequence on every call. O(1).

    >>> g = PCG32(42); as_source(g) is g
    True
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
    if callable(getattr(rng, "next_u32", None)):
        if callable(getattr(rng, "randbelow", None)):
            return rng
        return DerivedSource(rng)
    raise InvalidTypeError(
        "rng", rng, "None or a bit source: a chancekit.PCG32 (e.g. chancekit.PCG32(5)), a "
        "named stream (chancekit.Streams(seed)['name']), a chancekit.PCG32Random or any "
        "object with next_u32()"
    )


#: the old name of :func:`as_source` (kept for existing callers; ``chancekit.rng._resolve``
#: re-exports it)
resolve_rng = as_source


class DerivedSource:
    """A minimal source (only ``next_u32``) given the derived methods, so code that calls
    ``rng.randbelow(n)`` directly works with it. Draws go to the wrapped source."""

    __slots__ = ("source",)

    def __init__(self, source: Any) -> None:
        self.source = source

    def next_u32(self) -> int:
        return self.source.next_u32()  # type: ignore[no-any-return]

    def randbelow(self, bound: int) -> int:
        return _derived_randbelow(self.source, bound)

    def random(self) -> float:
        return random_float(self.source)

    def u32_array(self, n: int) -> np.ndarray:
        return u32_array(self.source, n)

    def randbelow_array(self, bound: int, n: int) -> np.ndarray:
        return randbelow_array(self.source, bound, n)

    def __repr__(self) -> str:
        return f"DerivedSource({self.source!r})"


def _derived_randbelow(source: Any, bound: int) -> int:
    bound = require_int("bound", bound, lo=1)
    words = max(1, ((bound - 1).bit_length() + 31) // 32)
    threshold = ((1 << (32 * words)) - bound) % bound
    nxt = source.next_u32
    while True:
        r = 0
        for i in range(words):
            r |= int(nxt()) << (32 * i)
        if r >= threshold:
            return r % bound


def randbelow(source: Any, bound: int) -> int:
    """A uniform integer in ``[0, bound)``: ``source.randbelow`` if it has one, else the
    frozen rule on its words (``pcg32_boundedrand_r``; ``w`` words little-endian above
    ``2**32``). Expected words < 2 per word needed.

    >>> randbelow(PCG32(42, 54), 6) == PCG32(42, 54).randbelow(6)
    True
    """
    method = getattr(source, "randbelow", None)
    if method is not None:
        return int(method(bound))
    return _derived_randbelow(source, bound)


def random_float(source: Any) -> float:
    """A float in ``[0, 1)`` from two words ``a`` then ``b``:
    ``((a >> 5) * 2**26 + (b >> 6)) / 2**53`` (CPython's construction, as
    :meth:`chancekit.PCG32.random`). O(1).

    >>> random_float(PCG32(42, 54)) == PCG32(42, 54).random()
    True
    """
    a = int(source.next_u32()) >> 5
    b = int(source.next_u32()) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


def u32_array(source: Any, n: int) -> np.ndarray:
    """``n`` words as a ``numpy.uint32`` array: ``source.u32_array(n)`` when the source has
    it (vectorised for a ``PCG32``), else ``n`` calls of ``next_u32``. O(n).

    >>> u32_array(PCG32(42, 54), 2).tolist() == [0xA15C02B7, 0x7B47F409]
    True
    """
    method = getattr(source, "u32_array", None)
    if method is not None:
        return method(n)  # type: ignore[no-any-return]
    np = _require_numpy(_WHAT)

    n = require_int("n", n, lo=0)
    nxt = source.next_u32
    return np.fromiter((nxt() for _ in range(n)), dtype=np.uint32, count=n)


def randbelow_array(source: Any, bound: int, n: int) -> np.ndarray:
    """``n`` draws of :func:`randbelow` as a ``numpy.uint32`` array (``bound`` at most
    ``2**32``): ``source.randbelow_array`` when it has one, else ``n`` scalar draws (its
    own ``randbelow`` if any, else the derived rule). Same values, same words. O(n).

    >>> a, b = PCG32(9), PCG32(9)
    >>> randbelow_array(a, 6, 4).tolist() == [b.randbelow(6) for _ in range(4)]
    True
    """
    method = getattr(source, "randbelow_array", None)
    if method is not None:
        return method(bound, n)  # type: ignore[no-any-return]
    np = _require_numpy(_WHAT)

    bound = require_int("bound", bound, lo=1)
    n = require_int("n", n, lo=0)
    if bound > _U32:
        raise InvalidValueError(
            "bound", bound, "an integer from 1 to 2**32 for randbelow_array "
            "(use randbelow() for larger bounds)"
        )
    return np.fromiter((randbelow(source, bound) for _ in range(n)), dtype=np.uint32,
                       count=n)


def u32_list(source: Any, n: int) -> list[int]:
    """:func:`u32_array` without numpy: the same ``n`` words as a list of ints (``n``
    calls of ``next_u32``; the same words consumed). O(n).

    >>> u32_list(PCG32(42, 54), 2) == u32_array(PCG32(42, 54), 2).tolist()
    True
    """
    n = require_int("n", n, lo=0)
    nxt = source.next_u32
    return [int(nxt()) for _ in range(n)]


def randbelow_list(source: Any, bound: int, n: int) -> list[int]:
    """:func:`randbelow_array` without numpy: the same ``n`` draws as a list of ints (``n``
    scalar draws of :func:`randbelow`; the same words consumed). O(n).

    >>> a, b = PCG32(9), PCG32(9)
    >>> randbelow_list(a, 6, 4) == randbelow_array(b, 6, 4).tolist()
    True
    """
    bound = require_int("bound", bound, lo=1)
    n = require_int("n", n, lo=0)
    if bound > _U32:
        raise InvalidValueError(
            "bound", bound, "an integer from 1 to 2**32 for randbelow_list "
            "(use randbelow() for larger bounds)"
        )
    method = getattr(source, "randbelow", None)
    if method is not None:
        return [int(method(bound)) for _ in range(n)]
    return [_derived_randbelow(source, bound) for _ in range(n)]
