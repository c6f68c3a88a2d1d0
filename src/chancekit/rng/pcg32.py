"""PCG32 — the PCG XSH-RR 64/32 generator, bit-exact with the reference C code.

Every random draw in chancekit comes from a :class:`PCG32` (directly, or through a named
stream of :class:`chancekit.Streams`). The generator is a 64-bit linear congruential
generator with a per-stream odd increment, whose output is a permuted 32-bit word.

Contract (frozen, pinned by ``tests/data/pcg32-demo-42-54.txt`` and
``docs/reproducibility.md``):

* ``PCG32(seed, stream)`` is ``pcg32_srandom_r(seed, stream)``;
* ``next_u32()`` is ``pcg32_random_r``;
* ``randbelow(bound)`` is ``pcg32_boundedrand_r`` for ``bound <= 2**32`` (same rejection
  threshold, same words consumed); larger bounds use the same rule on ``w`` words;
* ``random()`` is ``((a >> 5) * 2**26 + (b >> 6)) / 2**53`` for two consecutive words
  ``a``, ``b`` — CPython's 53-bit construction;
* ``shuffle`` is the reference demo's Fisher-Yates: for ``i`` from ``len`` down to 2,
  ``j = randbelow(i)``, swap items ``j`` and ``i - 1``;
* the bulk forms ``u32_array(n)``, ``random_array(n)`` and ``randbelow_array(bound, n)``
  are exactly ``n`` scalar calls (same values, same words consumed).

The core (the state and the draws) is compiled C when the optional module
``chancekit.rng._pcg32`` was built (``_pcg32.c``), else the pure-Python :class:`_PyCore`
below; both give the same streams bit for bit (``tests/rng/test_pcg32_compiled.py``), and
:class:`PurePCG32` is the pure-Python generator under its own name. numpy is imported
only by the bulk methods.

>>> rng = PCG32(42, 54)
>>> [hex(rng.next_u32()) for _ in range(3)]
['0xa15c02b7', '0x7b47f409', '0xba1d3330']
>>> rng.randbelow(6) + 1
2
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from chancekit import _state
from chancekit._numpy import require as _require_numpy
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError, quote
from chancekit.limits import MAX_BULK

if TYPE_CHECKING:
    import numpy as np

try:  # the compiled core (an optional accelerator: the same streams, see _pcg32.c)
    from chancekit.rng._pcg32 import Core as _CCore
except ImportError:  # pragma: no cover - no C compiler at install time
    _CCore = None

#: what needs numpy, as the error says when it is missing
_WHAT = ("PCG32's numpy arrays (u32_array, random_array, randbelow_array; without numpy "
         "use chancekit.rng.source.u32_list or randbelow_list)")

__all__ = ["PCG32", "PCG32State", "PurePCG32"]

_T = TypeVar("_T")

MULT = 6364136223846793005
_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1
_TWO64 = 1 << 64
#: the saved-state format name (:meth:`PCG32.to_dict`)
FORMAT = "chancekit.pcg32"
#: Version of the pickled form (``__reduce__``); bumped if the layout ever changes.
STATE_VERSION = 1
#: whether the compiled core is in use (``chancekit.rng._pcg32`` was built)
COMPILED = _CCore is not None

# Block size of the pure-Python vectorised path, and its jump tables (built on first use):
# _A[k] = MULT**k, _G[k] = MULT**0 + ... + MULT**(k-1)  (mod 2**64), so the state k steps
# after s is _A[k] * s + inc * _G[k].
_BLOCK = 1 << 15
_tables: tuple[np.ndarray, np.ndarray, int, int] | None = None
_incG_cache: dict[int, np.ndarray] = {}


class PCG32State(NamedTuple):
    """A generator's whole state: the 64-bit LCG state and the odd 64-bit increment."""

    state: int
    inc: int


def _advance_lcg(state: int, delta: int, mult: int, plus: int) -> int:
    """The reference ``pcg_advance_lcg_64``: jump ``delta`` (mod 2**64) steps in O(log delta)."""
    delta &= _MASK64
    acc_mult, acc_plus = 1, 0
    while delta:
        if delta & 1:
            acc_mult = (acc_mult * mult) & _MASK64
            acc_plus = (acc_plus * mult + plus) & _MASK64
        plus = ((mult + 1) * plus) & _MASK64
        mult = (mult * mult) & _MASK64
        delta >>= 1
    return (acc_mult * state + acc_plus) & _MASK64


def _jump_tables() -> tuple[np.ndarray, np.ndarray, int, int]:
    np = _require_numpy(_WHAT)

    global _tables
    if _tables is None:
        a, g = 1, 0
        A = np.empty(_BLOCK, dtype=np.uint64)
        G = np.empty(_BLOCK, dtype=np.uint64)
        for k in range(_BLOCK):
            A[k] = a
            G[k] = g
            g = (g + a) & _MASK64
            a = (a * MULT) & _MASK64
        _tables = (A, G, a, g)  # a, g are now MULT**B and G[B]
    return _tables


def _inc_g(inc: int) -> np.ndarray:
    np = _require_numpy(_WHAT)

    arr = _incG_cache.get(inc)
    if arr is None:
        _, G, _, _ = _jump_tables()
        arr = G * np.uint64(inc)
        if len(_incG_cache) >= 16:
            _incG_cache.clear()
        _incG_cache[inc] = arr
    return arr


def _output_into(old: np.ndarray, out: np.ndarray, x64: np.ndarray, rot: np.ndarray,
                 tmp: np.ndarray) -> None:
    """The XSH-RR output permutation of uint64 states ``old`` into uint32 ``out``, in place
    (the scratch arrays avoid allocating temporaries, which dominated the cost)."""
    np = _require_numpy(_WHAT)

    np.right_shift(old, 18, out=x64)
    np.bitwise_xor(x64, old, out=x64)
    np.right_shift(x64, 27, out=x64)
    out[:] = x64  # truncating cast to 32 bits
    np.right_shift(old, 59, out=x64)
    rot[:] = x64
    np.right_shift(out, rot, out=tmp)
    np.subtract(32, rot, out=rot)  # numpy shifts by >= 32 give 0, as the rotation needs
    np.left_shift(out, rot, out=out)
    np.bitwise_or(out, tmp, out=out)


def _u32_block(state: int, inc: int, n: int) -> tuple[np.ndarray, int]:
    """``n`` words starting from ``state``; returns (words, state after them)."""
    np = _require_numpy(_WHAT)

    A, _, A_B, G_B = _jump_tables()
    incG = _inc_g(inc)
    out = np.empty(n, dtype=np.uint32)
    size = min(_BLOCK, n)
    old = np.empty(size, dtype=np.uint64)
    x64 = np.empty(size, dtype=np.uint64)
    rot = np.empty(size, dtype=np.uint32)
    tmp = np.empty(size, dtype=np.uint32)
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        np.multiply(A[:m], np.uint64(state), out=old[:m])
        np.add(old[:m], incG[:m], out=old[:m])
        _output_into(old[:m], out[start : start + m], x64[:m], rot[:m], tmp[:m])
        if m == _BLOCK:
            state = (A_B * state + inc * G_B) & _MASK64
        else:
            state = _advance_lcg(state, m, MULT, inc)
    return out, state


def _check_u64(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(name, value, "an int")
    value = int(value)
    if not 0 <= value < _TWO64:
        raise InvalidValueError(
            name,
            value,
            "an integer from 0 to 2**64 - 1 (reduce it with % 2**64, or use "
            "chancekit.Streams, which accepts any integer or string seed)",
        )
    return value


class _PyCore:
    """The pure-Python core: the state, the scalar draws and the bulk fills, with the
    same methods as the compiled ``chancekit.rng._pcg32.Core`` (used when it was not
    built, and by :class:`PurePCG32`). Each generator holds a re-entrant lock, taken by
    every method, so each call is atomic."""

    __slots__ = ("_inc", "_lock", "_state")

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        self = object.__new__(cls)
        self._lock = threading.RLock()
        self._state, self._inc = 0, 1
        return self

    def next_u32(self) -> int:
        """The next 32-bit word (``pcg32_random_r``). O(1).

        >>> hex(PurePCG32(42, 54).next_u32())
        '0xa15c02b7'
        """
        # Constants are literals on purpose: LOAD_CONST is faster than a global lookup.
        with self._lock:
            old = self._state
            self._state = (old * 6364136223846793005 + self._inc) & 0xFFFFFFFFFFFFFFFF
        x = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((x >> rot) | (x << (32 - rot))) & 0xFFFFFFFF

    def randbelow(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)`` (see :meth:`PCG32.randbelow`).

        >>> rng = PurePCG32(42, 54); rng.advance(6)
        >>> ''.join('H' if rng.randbelow(2) else 'T' for _ in range(8))
        'HHTTTHTH'
        """
        if bound.__class__ is not int or bound < 1:
            return self._randbelow_checked(bound)  # type: ignore[attr-defined,no-any-return]
        if bound <= 0x100000000:  # the reference, inlined
            threshold = (0x100000000 - bound) % bound
            with self._lock:
                inc, state = self._inc, self._state
                while True:
                    old = state
                    state = (old * 6364136223846793005 + inc) & 0xFFFFFFFFFFFFFFFF
                    x = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
                    rot = old >> 59
                    r = ((x >> rot) | (x << (32 - rot))) & 0xFFFFFFFF
                    if r >= threshold:
                        self._state = state
                        return r % bound
        words = ((bound - 1).bit_length() + 31) // 32
        span = 1 << (32 * words)
        threshold = (span - bound) % bound
        with self._lock:
            while True:
                r = 0
                for i in range(words):
                    r |= self.next_u32() << (32 * i)
                if r >= threshold:
                    return r % bound

    def random(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits (see :meth:`PCG32.random`).

        >>> PurePCG32(42, 54).random()
        0.6303102186438938
        """
        with self._lock:
            a = self.next_u32() >> 5
            b = self.next_u32() >> 6
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)

    def getrandbits(self, k: int) -> int:
        """``k`` random bits (see :meth:`PCG32.getrandbits`).

        >>> PurePCG32(42, 54).getrandbits(32) == 0xA15C02B7
        True
        """
        if k.__class__ is not int or not 0 <= k <= 32 * MAX_BULK:
            return self._getrandbits_checked(k)  # type: ignore[attr-defined,no-any-return]
        if k <= 32:
            return self.next_u32() >> (32 - k) if k else 0
        result, shift = 0, 0
        with self._lock:
            while k > 0:
                w = self.next_u32()
                if k < 32:
                    w >>= 32 - k
                result |= w << shift
                shift += 32
                k -= 32
        return result

    def _fill_u32(self, out: np.ndarray) -> None:
        with self._lock:
            out[:], self._state = _u32_block(self._state, self._inc, len(out))

    def _fill_random(self, out: np.ndarray) -> None:
        np = _require_numpy(_WHAT)

        with self._lock:
            words, self._state = _u32_block(self._state, self._inc, 2 * len(out))
        a = (words[0::2] >> np.uint32(5)).astype(np.float64)
        b = (words[1::2] >> np.uint32(6)).astype(np.float64)
        out[:] = (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)  # exact: below 2**53

    def _fill_randbelow(self, bound: int, out: np.ndarray) -> None:
        np = _require_numpy(_WHAT)

        n = len(out)
        threshold = ((1 << 32) - bound) % bound
        if threshold == 0:
            self._fill_u32(out)
            if bound != 1 << 32:
                out %= np.uint32(bound)
            return
        accept_rate = 1.0 - threshold / 2**32
        have = 0
        with self._lock:
            state, inc = self._state, self._inc
            while have < n:
                need = n - have
                m = int(need / accept_rate * 1.01) + 64
                words, end_state = _u32_block(state, inc, m)
                ok = np.flatnonzero(words >= np.uint32(threshold))
                if len(ok) >= need:
                    used = int(ok[need - 1]) + 1
                    out[have:] = words[ok[:need]]
                    state = _advance_lcg(state, used, MULT, inc)
                    have = n
                else:
                    out[have : have + len(ok)] = words[ok]
                    have += len(ok)
                    state = end_state
            self._state = state
        out %= np.uint32(bound)

    def _shuffle_draws(self, n: int) -> list[int]:
        with self._lock:
            return [self.randbelow(i) for i in range(n, 1, -1)]

    def _jump(self, delta: int) -> None:
        with self._lock:
            self._state = _advance_lcg(self._state, delta, MULT, self._inc)

    def _get(self) -> tuple[int, int]:
        with self._lock:
            return self._state, self._inc

    def _set(self, state: int, inc: int) -> None:
        with self._lock:
            self._state, self._inc = state, inc


class _Generator:
    """Everything of :class:`PCG32` above its core (the core gives ``next_u32``,
    ``random``, ``randbelow``, ``getrandbits`` and the private fills, state and jump)."""

    __slots__ = ()

    def __init__(self, seed: int = 0, stream: int = 0) -> None:
        seed = _check_u64("seed", seed)
        stream = _check_u64("stream", stream)
        inc = ((stream << 1) | 1) & _MASK64
        # pcg32_srandom_r: one step from state 0 (giving inc), add the seed, one more step.
        self._set(((inc + seed) * MULT + inc) & _MASK64, inc)  # type: ignore[attr-defined]

    @classmethod
    def from_state(cls, state: PCG32State | tuple[int, int]) -> Any:
        """A generator at an exact saved state (see :meth:`getstate`).

        >>> a = PCG32(7); b = PCG32.from_state(a.getstate())
        >>> a.next_u32() == b.next_u32()
        True
        """
        rng = cls.__new__(cls)
        rng.setstate(state)
        return rng

    def _randbelow_checked(self, bound: Any) -> int:
        """``randbelow`` of anything but a positive ``int``: checked (an int subclass such
        as a numpy integer converted, anything else refused), then drawn."""
        return self.randbelow(require_int("bound", bound, lo=1))  # type: ignore[attr-defined,no-any-return]

    def _getrandbits_checked(self, k: Any) -> int:
        k = require_int("k", k, lo=0)
        if k > 32 * MAX_BULK:
            raise LimitError(
                f"getrandbits({k:,}) asks for more than {32 * MAX_BULK:,} bits (MAX_BULK = "
                f"{MAX_BULK:,} words, chancekit.limits); draw it in parts",
                limit="MAX_BULK", value=k)
        return self.getrandbits(k)  # type: ignore[attr-defined,no-any-return]

    @staticmethod
    def _bulk_n(n: Any) -> int:
        """``n`` for a bulk method: an int from 0 to :data:`~chancekit.limits.MAX_BULK`."""
        n = require_int("n", n, lo=0)
        if n > MAX_BULK:
            raise LimitError(
                f"n = {n:,} draws in one array is more than MAX_BULK = {MAX_BULK:,} "
                "(chancekit.limits); draw in blocks (each block continues the stream)",
                limit="MAX_BULK", value=n)
        return n

    def advance(self, delta: int) -> None:
        """Jump ``delta`` steps ahead (or back, if negative) in O(log |delta|).

        ``advance(k)`` then one draw equals the (k+1)-th draw; ``advance(-k)`` undoes
        ``advance(k)`` (the period is 2**64, so ``delta`` is taken mod 2**64).

        >>> rng = PCG32(1); first = [rng.next_u32() for _ in range(5)]
        >>> rng.advance(-5); rng.advance(4); rng.next_u32() == first[4]
        True
        """
        delta = require_int("delta", delta)
        self._jump(delta & _MASK64)  # type: ignore[attr-defined]

    def randint(self, a: int, b: int) -> int:
        """A uniform integer in ``[a, b]``, both ends included: ``a + randbelow(b - a + 1)``.

        >>> PCG32(42, 54).randint(1, 6) in range(1, 7)
        True
        """
        a = require_int("a", a)
        b = require_int("b", b)
        if b < a:
            raise InvalidValueError(
                f"empty range for randint({quote(a)}, {quote(b)}): b must be >= a")
        return a + self.randbelow(b - a + 1)  # type: ignore[attr-defined,no-any-return]

    def choice(self, seq: Sequence[_T]) -> _T:
        """A uniformly chosen item: ``seq[randbelow(len(seq))]``.

        >>> PCG32(3).choice(["sword", "shield", "potion"])
        'shield'
        """
        if not isinstance(seq, Sequence):
            raise InvalidTypeError("seq", seq, "a sequence (list, tuple, str, range)")
        if not seq:
            raise InvalidValueError("cannot choose from an empty sequence")
        return seq[self.randbelow(len(seq))]  # type: ignore[attr-defined]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffle ``x`` in place, as the reference demo does: for ``i`` from ``len(x)``
        down to 2, ``j = randbelow(i)``, swap ``x[j]`` and ``x[i - 1]``. O(n). The draws
        are made at once (atomic), then the swaps.

        >>> cards = list(range(5)); PCG32(42, 54).shuffle(cards); sorted(cards)
        [0, 1, 2, 3, 4]
        """
        if not isinstance(x, MutableSequence):
            raise InvalidTypeError("x", x, "a mutable sequence (e.g. a list)")
        n = len(x)
        for i, j in zip(range(n, 1, -1), self._shuffle_draws(n), strict=True):  # type: ignore[attr-defined]
            x[j], x[i - 1] = x[i - 1], x[j]

    # -- bulk ----------------------------------------------------------------------------
    def u32_array(self, n: int) -> np.ndarray:
        """``n`` words as a ``numpy.uint32`` array, equal to ``n`` calls of
        :meth:`next_u32`, leaving the generator where those calls would. O(n) (a C loop;
        without the compiled core, numpy passes over jump-ahead tables).

        >>> PCG32(42, 54).u32_array(3).tolist() == [0xA15C02B7, 0x7B47F409, 0xBA1D3330]
        True
        """
        n = self._bulk_n(n)  # refused before numpy is imported
        np = _require_numpy(_WHAT)
        out = np.empty(n, dtype=np.uint32)
        self._fill_u32(out)  # type: ignore[attr-defined]
        return out

    def random_array(self, n: int) -> np.ndarray:
        """``n`` floats in ``[0, 1)`` as a ``numpy.float64`` array, equal to ``n`` calls
        of :meth:`random` (two words each, the same 53-bit construction), leaving the
        generator where those calls would. O(n).

        >>> a = PCG32(9); b = PCG32(9)
        >>> a.random_array(3).tolist() == [b.random() for _ in range(3)]
        True
        """
        n = self._bulk_n(n)  # refused before numpy is imported
        np = _require_numpy(_WHAT)
        out = np.empty(n, dtype=np.float64)
        self._fill_random(out)  # type: ignore[attr-defined]
        return out

    def randbelow_array(self, bound: int, n: int) -> np.ndarray:
        """``n`` draws of :meth:`randbelow` as a ``numpy.uint32`` array (``bound`` at most
        2**32), rejections included: same values, same words consumed. O(n).

        >>> a = PCG32(9); b = PCG32(9)
        >>> a.randbelow_array(6, 4).tolist() == [b.randbelow(6) for _ in range(4)]
        True
        >>> a.getstate() == b.getstate()
        True
        """
        bound = require_int("bound", bound, lo=1)
        n = self._bulk_n(n)
        if bound > 1 << 32:
            raise InvalidValueError(
                "bound", bound, "an integer from 1 to 2**32 for randbelow_array "
                "(use randbelow() for larger bounds)"
            )
        np = _require_numpy(_WHAT)  # after the checks: a refusal imports nothing
        out = np.empty(n, dtype=np.uint32)
        self._fill_randbelow(bound, out)  # type: ignore[attr-defined]
        return out

    # -- state ---------------------------------------------------------------------------
    def getstate(self) -> PCG32State:
        """The whole state: ``PCG32State(state, inc)``, two 64-bit integers.

        >>> PCG32(42, 54).getstate().inc == (54 << 1) | 1
        True
        """
        return PCG32State(*self._get())  # type: ignore[attr-defined]

    def setstate(self, state: PCG32State | tuple[int, int]) -> None:
        """Restore a state from :meth:`getstate`. Validated: two integers in
        ``[0, 2**64)``, the increment odd; else :class:`~chancekit.errors.StateError`.
        """
        if not isinstance(state, tuple) or len(state) != 2:
            raise StateError(f"PCG32 state must be a pair (state, inc), not {quote(state)}")
        s, inc = state
        for name, v in (("state", s), ("inc", inc)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not (
                0 <= int(v) < _TWO64
            ):
                raise StateError(
                    f"PCG32 {name} must be an integer in [0, 2**64), not {quote(v)}")
        if not int(inc) & 1:
            raise StateError(f"PCG32 inc must be odd, not {quote(inc)}")
        self._set(int(s), int(inc))  # type: ignore[attr-defined]

    # -- the saved-state format (docs/reproducibility.md, "One saved-state format") --------
    def to_dict(self) -> dict[str, Any]:
        """``{"format": "chancekit.pcg32", "version": 1, "state": "0x…", "inc": "0x…"}``
        (16 lowercase hex digits each, as :meth:`chancekit.Streams.to_json` writes them).

        >>> g = PCG32(7); g.advance(3); PCG32.from_json(g.to_json()) == g
        True
        """
        s = self.getstate()
        return {"format": FORMAT, "version": _state.VERSION, "state": f"{s.state:#018x}",
                "inc": f"{s.inc:#018x}"}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return _state.dump(self.to_dict())

    @staticmethod
    def _read_dict(data: Any) -> PCG32State:
        _state.check_header(data, FORMAT, {"state", "inc"})
        s = _state.read_u64(data["state"], f"{FORMAT}.state")
        inc = _state.read_u64(data["inc"], f"{FORMAT}.inc")
        if not inc & 1:
            raise StateError(f"{FORMAT}.inc must be odd, not {quote(data['inc'])}")
        return PCG32State(s, inc)

    def load_dict(self, data: Any) -> None:
        """Restore, in place, a state saved by :meth:`to_dict` (validated first: a wrong
        format or version, a missing or unknown field, a malformed word or an even ``inc``
        is a :class:`~chancekit.errors.StateError` naming the field; nothing changes)."""
        self.setstate(self._read_dict(data))

    def load_json(self, text: str | bytes) -> None:
        """Restore, in place, a state saved by :meth:`to_json`."""
        self.load_dict(_state.load(text, FORMAT))

    @classmethod
    def from_dict(cls, data: Any) -> Any:
        """A generator at the state :meth:`to_dict` saved."""
        return cls.from_state(cls._read_dict(data))

    @classmethod
    def from_json(cls, text: str | bytes) -> Any:
        """A generator at the state :meth:`to_json` saved."""
        return cls.from_dict(_state.load(text, FORMAT))

    def __reduce__(self) -> tuple[Any, ...]:
        s = self.getstate()
        return (_unpickle, (STATE_VERSION, s.state, s.inc))

    def __copy__(self) -> Any:
        return type(self).from_state(self.getstate())

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self.__copy__()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Generator):
            return NotImplemented
        return self.getstate() == other.getstate()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        s = self.getstate()
        return f"PCG32.from_state(PCG32State(state={s.state:#018x}, inc={s.inc:#018x}))"


class PCG32(_Generator, _CCore or _PyCore):  # type: ignore[misc]
    """The PCG32 generator (XSH-RR, 64-bit state, 32-bit output).

    ``PCG32(seed, stream=0)`` is seeded exactly like ``pcg32_srandom_r(seed, stream)``.
    ``seed`` and ``stream`` are integers in ``[0, 2**64)``; anything else is refused (no
    silent reduction, so two different seeds never alias). As in the reference, the
    increment is ``(stream << 1) | 1`` truncated to 64 bits, so streams ``s`` and
    ``s + 2**63`` coincide.

    Draws (frozen, module docstring): ``next_u32()`` the next word; ``random()`` a float
    in ``[0, 1)`` from two words ``a``, ``b``: ``((a >> 5) * 2**26 + (b >> 6)) / 2**53``;
    ``randbelow(bound)`` ``pcg32_boundedrand_r`` (draw ``r`` until
    ``r >= (2**32 - bound) % bound``, return ``r % bound``; above 2**32 the same rule on
    ``w = ceil(bits(bound - 1) / 32)`` words, the first least significant; expected words
    per call < 2 * w); ``getrandbits(k)`` CPython's construction (``k <= 32``: the top
    ``k`` bits of one word; else words from the least significant end, the last keeping
    its top bits).

    Costs: the scalar draws O(1) (compiled: one C call, tens of nanoseconds);
    ``advance(delta)`` O(log |delta|); the bulk methods O(n) in C.

    Thread safety: every method is atomic, so threads sharing one generator never get the
    same word twice nor lose one, whatever mix of methods they call. The compiled core
    holds the GIL while it reads and writes the state (the large word and float fills
    reserve their words first, then release it); the pure-Python core takes a
    re-entrant lock per generator. ``shuffle`` draws its indices in one atomic call.
    Pickling and copying give a new, independent generator.

    >>> rng = PCG32(42, 54)
    >>> [hex(rng.next_u32()) for _ in range(2)]
    ['0xa15c02b7', '0x7b47f409']
    >>> rng.advance(-2); rng.random()
    0.6303102186438938
    >>> rng = PCG32(42, 54); rng.advance(6)
    >>> ''.join('H' if rng.randbelow(2) else 'T' for _ in range(8))
    'HHTTTHTH'
    >>> PCG32(42, 54).getrandbits(32) == 0xA15C02B7
    True
    >>> rng = PCG32(42, 54); rng.u32_array(2).tolist() == [0xA15C02B7, 0x7B47F409]
    True
    """

    __slots__ = ()


if _CCore is None:  # pragma: no cover - no C compiler at install time
    PurePCG32 = PCG32
else:

    class PurePCG32(_Generator, _PyCore):
        """:class:`PCG32` on the pure-Python core (the same streams, slower; what
        ``PCG32`` is when the compiled module was not built). Pickles as a ``PCG32``."""

        __slots__ = ()


def _unpickle(version: int, state: int, inc: int) -> PCG32:
    if type(version) is not int or version != STATE_VERSION:  # not True, not 1.0
        raise StateError(
            f"unknown PCG32 pickle version {quote(version)}; this chancekit reads version "
            f"{STATE_VERSION}"
        )
    return PCG32.from_state((state, inc))
