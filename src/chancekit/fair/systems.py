"""Randomness systems: one protocol, many ways of choosing the next value.

A *system* draws values from a fixed set of ``n`` outcomes (labels allowed) and may change
its own distribution after each draw. Every system follows one protocol:

``probabilities()``
    the distribution (floats, one per value, summing to 1) the *next* draw uses;
``observe(index)``
    advance the state as if value ``index`` (0-based) had just been drawn;
``draw(rng=None)``
    sample an index from ``probabilities()`` with a :class:`~chancekit.rng.PCG32` (or named
    stream), call ``observe`` and return the value's label (``draw_index`` returns the index);
``getstate()`` / ``setstate(state)`` / ``reset()``
    the whole state as a hashable tuple, restore it, go back to the start.

To add a system, subclass :class:`System` and write ``probabilities``, ``observe``,
``getstate``, ``setstate`` and ``reset`` (``_sample`` may be overridden for an exact integer
draw). Because ``getstate()`` is hashable, the generic exact engine
(:func:`chancekit.fair.evaluate`) can enumerate any such system's Markov chain.

>>> from chancekit.fair import DynamicDice
>>> die = DynamicDice(3, 0.5)
>>> die.observe(0)
>>> [round(p, 3) for p in die.probabilities()]
[0.2, 0.4, 0.4]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from functools import reduce
from operator import add
from typing import Any

from chancekit import _state
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError
from chancekit.limits import MAX_REROLL_TRIES, MAX_VALUES, MIN_PRD_P
from chancekit.rng.source import as_source, random_float

__all__ = [
    "PRD",
    "Deck",
    "Dice",
    "DynamicDice",
    "ErrorAccumulator",
    "GeneralizedDeck",
    "HistoryReroll",
    "NoRepeatSystem",
    "PityTimer",
    "System",
    "prd_constant",
]

_TWO53 = float(1 << 53)
#: the saved-state format name (:meth:`System.to_dict`)
SYSTEM_FORMAT = "chancekit.fair-system"



def _seqsum(xs: Any) -> Any:
    """Floats added left to right: what ``sum()`` gave before Python 3.12, which compensates
    (so the figures are the same on 3.11 and in the browser's 3.14)."""
    return reduce(add, xs)

def _check_prob(name: str, value: Any, *, open_low: bool = True, open_high: bool = True,
                ) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(name, value, "a real number")
    x = float(value)
    lo_ok = x > 0 if open_low else x >= 0
    hi_ok = x < 1 if open_high else x <= 1
    if not (lo_ok and hi_ok) or math.isnan(x):
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise InvalidValueError(name, value, f"a number in {interval}")
    return x




def _require_n(n: Any) -> int:
    n = require_int("n", n, lo=2)
    if n > MAX_VALUES:
        raise LimitError(f"a system over {n:,} values is past MAX_VALUES = {MAX_VALUES:,}; "
                         "use fewer values (group them, then pick within a group)",
                         limit="MAX_VALUES", value=n)
    return n


def _labels(n: int, labels: Sequence[Any] | None) -> tuple[Any, ...]:
    if labels is None:
        return tuple(range(1, n + 1))
    out = tuple(labels)
    if len(out) != n:
        raise InvalidValueError("labels", labels, f"a sequence of {n} labels (one per value)")
    return out


class System:
    """Base class of every randomness system (the protocol is in the module docstring).

    Subclasses set ``self._values`` (the labels) and implement ``probabilities``,
    ``observe``, ``getstate``, ``setstate`` and ``reset``. Drawing costs one call of
    ``probabilities`` plus O(n); exact subclasses override ``_sample``.
    """

    _values: tuple[Any, ...]
    #: name used in tables and spec strings
    kind: str = "system"

    @property
    def values(self) -> tuple[Any, ...]:
        """The labels of the ``n`` values, in index order."""
        return self._values

    @property
    def n(self) -> int:
        """How many values the system draws from."""
        return len(self._values)

    def target(self) -> tuple[float, ...]:
        """The long-run share of each value (uniform unless base weights say otherwise)."""
        return tuple(1.0 / self.n for _ in range(self.n))

    def probabilities(self) -> tuple[float, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def observe(self, index: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def getstate(self) -> Hashable:  # pragma: no cover - abstract
        raise NotImplementedError

    def setstate(self, state: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def reset(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def state_bound(self, draws: int) -> float | None:
        """An upper bound on the distinct ``(getstate(), counts)`` pairs the generic exact
        engine can meet after ``draws`` draws from the current state (``counts``: how often
        each value was drawn since), or ``None`` if unknown (the default). The engines use
        it to refuse too much work before starting; without one, the work is counted as it
        runs. Built-in systems give one."""
        return None

    def _mc_draw_units(self) -> float:
        """Estimated work units of one draw through ``draw_index`` (generic Monte Carlo)."""
        from chancekit.fair import work

        return work.MC_GENERIC_DRAW_UNITS + self.n * work.MC_GENERIC_VALUE_UNITS

    def _sample(self, rng: Any) -> int:
        """Inverse-CDF draw from ``probabilities()`` with a 53-bit uniform float."""
        probs = self.probabilities()
        u = random_float(rng)
        acc = 0.0
        last = 0
        for i, p in enumerate(probs):
            if p > 0.0:
                last = i
                acc += p
                if u < acc:
                    return i
        return last

    def draw_index(self, rng: Any = None) -> int:
        """Draw the next value's index (0-based) and advance the state."""
        i = self._sample(as_source(rng))
        self.observe(i)
        return i

    def draw(self, rng: Any = None) -> Any:
        """Draw the next value's label and advance the state.

        >>> from chancekit.fair import Deck
        >>> from chancekit.rng import PCG32
        >>> deck = Deck(3)
        >>> sorted(deck.draw(PCG32(1)) for _ in range(3))
        [1, 2, 3]
        """
        return self._values[self.draw_index(rng)]

    def draw_many(self, n: int, rng: Any = None) -> list[Any]:
        """``n`` successive draws (labels) as a list, equal to ``n`` calls of :meth:`draw`.

        >>> from chancekit.fair import Deck
        >>> from chancekit.rng import PCG32
        >>> sorted(Deck(3).draw_many(3, PCG32(1)))
        [1, 2, 3]
        """
        n = require_int("n", n, lo=0)
        rng = as_source(rng)
        return [self.draw(rng) for _ in range(n)]

    def sample(self, count: int, rng: Any = None) -> list[Any]:
        """Deprecated name of :meth:`draw_many` (same arguments); kept working, silently."""
        return self.draw_many(count, rng)

    # -- the saved-state format (docs/reproducibility.md, "One saved-state format") --------
    def to_dict(self) -> dict[str, Any]:
        """``{"format": "chancekit.fair-system", "version": 1, "system": class name,
        "state": getstate() as JSON}`` (tuples as ``{"tuple": [...]}``). The parameters are
        not saved: restore into a system built with the same ones (:meth:`load_dict`).

        >>> from chancekit.rng import PCG32
        >>> a = Deck(5); _ = a.draw_many(3, PCG32(1)); b = Deck(5); b.load_json(a.to_json())
        >>> b.draw_many(2, PCG32(9)) == a.draw_many(2, PCG32(9))
        True
        """
        return {"format": SYSTEM_FORMAT, "version": _state.VERSION,
                "system": type(self).__name__,
                "state": _state.encode_value(self.getstate(), "state")}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return _state.dump(self.to_dict())

    def load_dict(self, data: Any) -> None:
        """Restore, in place, a state saved by :meth:`to_dict` of the same class. Checked
        strictly: besides the header and ``setstate``'s own checks, the state must save
        back exactly as written and hold no bool (``true`` or ``1.0`` for ``1`` are refused); a
        :class:`~chancekit.errors.StateError` names the field and changes nothing."""
        _state.check_header(data, SYSTEM_FORMAT, {"system", "state"})
        name = type(self).__name__
        if data["system"] != name:
            raise StateError(f"{SYSTEM_FORMAT}.system must be {name!r}, not "
                             f"{_state.quote(data['system'], limit=40)}")
        state = _state.decode_value(data["state"], f"{SYSTEM_FORMAT}.state")
        if _state.has_bool(data["state"]):
            raise StateError(f"{SYSTEM_FORMAT}.state holds a bool (system states are "
                             f"numbers, null and tuples): {_state.quote(data['state'], limit=60)}")
        before = self.getstate()
        try:
            self.setstate(state)
            if _state.dump(self.to_dict()["state"]) != _state.dump(data["state"]):
                raise StateError(f"{SYSTEM_FORMAT}.state {_state.quote(data['state'], limit=60)}"
                                 " does not save back as written (a bool or float where an "
                                 "integer belongs?)")
        except (StateError, TypeError, ValueError) as exc:
            self.setstate(before)
            if isinstance(exc, StateError):
                raise
            raise StateError(f"{SYSTEM_FORMAT}.state: {exc}") from None

    def load_json(self, text: str | bytes) -> None:
        """Restore, in place, a state saved by :meth:`to_json`."""
        self.load_dict(_state.load(text, SYSTEM_FORMAT))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._init_args(), self.getstate()))

    def _init_args(self) -> tuple[Any, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def copy(self) -> System:
        """A fresh system with the same parameters and the same state."""
        clone = type(self)(*self._init_args()[0], **self._init_args()[1])
        clone.setstate(self.getstate())
        return clone

    def __repr__(self) -> str:
        args, kw = self._init_args()
        parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kw.items() if v is not None]
        return f"{type(self).__name__}({', '.join(parts)})"


def _rebuild(cls: type, init: tuple[Any, ...], state: Any) -> System:
    obj = cls(*init[0], **init[1])
    obj.setstate(state)
    return obj


def _comb(a: int, b: int) -> float:
    """C(a, b) as a float, never below the exact value (``inf`` past float range); exact
    when small, cheap for huge arguments."""
    if b < 0 or b > a:
        return 0.0
    if min(b, a - b) <= 64:
        c = math.comb(a, b)
        return float(c) if c < 2**1000 else math.inf
    try:
        return math.exp(math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)
                        ) * (1 + 1e-9)
    except OverflowError:
        return math.inf


def _state_tuple(state: Any, length: int, what: str) -> tuple[Any, ...]:
    if not isinstance(state, tuple) or len(state) != length:
        raise StateError(f"{what} state must be a tuple of length {length}, not {state!r}")
    return state


# --------------------------------------------------------------------------- count based
class _CountSystem(System):
    """A system whose next-draw distribution depends only on how often each value has been
    drawn (and on the draw number): dice, decks, dynamic dice. The exact engine treats these
    on the symmetry-reduced lattice of sorted count vectors."""

    _counts: list[int]

    def counts(self) -> tuple[int, ...]:
        """How many times each value has been drawn since the last reset."""
        return tuple(self._counts)

    def getstate(self) -> tuple[int, ...]:
        return tuple(self._counts)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, self.n, type(self).__name__)
        if not all(isinstance(c, int) and c >= 0 for c in state):
            raise StateError(f"counts must be integers >= 0, not {state!r}")
        self._check_counts(state)
        self._counts = list(state)

    def _check_counts(self, counts: tuple[int, ...]) -> None:
        pass

    def reset(self) -> None:
        self._counts = [0] * self.n

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=self.n - 1)
        self._counts[index] += 1

    def state_bound(self, draws: int) -> float:
        """The state follows from the counts: compositions of ``draws`` into n parts."""
        return _comb(draws + self.n - 1, self.n - 1)

    @property
    def symmetric(self) -> bool:
        """True when every value is treated alike (no base weights)."""
        return True


class Dice(_CountSystem):
    """A fair die with ``n`` faces: every draw independent and uniform.

    Exact draw: one ``randbelow(n)``, O(1).

    >>> from chancekit.rng import PCG32
    >>> Dice(6).draw_many(5, PCG32(7))
    [...]
    >>> Dice(6).probabilities()[0]
    0.16666666666666666
    """

    kind = "dice"

    def __init__(self, n: int, *, labels: Sequence[Any] | None = None) -> None:
        n = _require_n(n)
        self._values = _labels(n, labels)
        self._labels_arg = None if labels is None else tuple(labels)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.n,), {"labels": self._labels_arg})

    def probabilities(self) -> tuple[float, ...]:
        return tuple(1.0 / self.n for _ in range(self.n))

    def _sample(self, rng: Any) -> int:
        return int(rng.randbelow(self.n))


class _WeightedCountSystem(_CountSystem):
    """A count system with base ``weights`` per value (generalized decks, dynamic dice):
    its long-run target is the weights normalised; symmetric when all weights are equal."""

    weights: tuple[Any, ...]

    @property
    def symmetric(self) -> bool:
        return len(set(self.weights)) == 1

    def target(self) -> tuple[float, ...]:
        tot = _seqsum(self.weights)
        return tuple(w / tot for w in self.weights)


class GeneralizedDeck(_WeightedCountSystem):
    """A deck with size factor ``size`` (s) and refill constant ``refill`` (r).

    The deck starts with ``s`` copies of every value (``s * w_i`` with integer base weights
    ``w``); after each draw, if fewer than ``r`` cards are left, ``s`` copies of every value
    (``s * w_i``) are added to what is left (at most once per draw). ``r = 1`` refills when
    empty; ``s = r = 1`` is the plain shuffle bag. Base weights (``weights=(14, 5, 1)``) make
    a 70/25/5 loot split fair: the deck holds the cards in that ratio.

    Exact draw: one ``randbelow(cards left)`` and an O(n) scan.

    >>> deck = GeneralizedDeck(3, 1, 2)
    >>> deck.observe(0); deck.observe(1)
    >>> deck.remaining()          # one card was left (< 2), so one of each was added
    (1, 1, 2)
    """

    kind = "generalized-deck"

    def __init__(self, n: int, size: int = 1, refill: int = 1, *,
                 weights: Sequence[int] | None = None,
                 labels: Sequence[Any] | None = None) -> None:
        n = _require_n(n)
        self.size = require_int("size", size, lo=1)
        self.refill = require_int("refill", refill, lo=1)
        if weights is None:
            self.weights: tuple[int, ...] = (1,) * n
            self._weights_arg: tuple[int, ...] | None = None
        else:
            w = tuple(weights)
            if len(w) != n:
                raise InvalidValueError("weights", weights, f"{n} integers >= 1")
            self.weights = tuple(require_int("weights[i]", x, lo=1) for x in w)
            self._weights_arg = self.weights
        self._values = _labels(n, labels)
        self._labels_arg = None if labels is None else tuple(labels)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.n, self.size, self.refill),
                {"weights": self._weights_arg, "labels": self._labels_arg})

    def reset(self) -> None:
        super().reset()
        self._blocks = 1
        self._left = self.size * sum(self.weights)

    def getstate(self) -> tuple[int, ...]:
        return (*self._counts, self._blocks)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, self.n + 1, type(self).__name__)
        if not all(isinstance(c, int) and c >= 0 for c in state) or state[-1] < 1:
            raise StateError(f"bad deck state {state!r}")
        counts, blocks = state[:-1], state[-1]
        if any(c > blocks * self.size * w for c, w in zip(counts, self.weights, strict=True)):
            raise StateError(f"deck state {state!r} has drawn more cards than were added")
        self._counts = list(counts)
        self._blocks = blocks
        self._left = blocks * self.size * sum(self.weights) - sum(counts)
        if self._left < 1:
            raise StateError(f"deck state {state!r} leaves no card to draw")

    def remaining(self) -> tuple[int, ...]:
        """How many cards of each value are in the deck now."""
        b = self._blocks * self.size
        return tuple(b * w - c for w, c in zip(self.weights, self._counts, strict=True))

    def probabilities(self) -> tuple[float, ...]:
        return tuple(r / self._left for r in self.remaining())

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=self.n - 1)
        if self.remaining()[index] <= 0:
            raise InvalidValueError(f"value index {index} has no card left in the deck")
        self._counts[index] += 1
        self._left -= 1
        if self._left < self.refill:
            self._blocks += 1
            self._left += self.size * sum(self.weights)

    def _sample(self, rng: Any) -> int:
        k = int(rng.randbelow(self._left))
        for i, r in enumerate(self.remaining()):
            if k < r:
                return i
            k -= r
        raise AssertionError("unreachable")  # pragma: no cover


class Deck(GeneralizedDeck):
    """The shuffle bag: one card per value (or ``weights[i]`` cards), refilled when empty.
    Same as ``GeneralizedDeck(n, 1, 1)``. O(n) per draw.

    >>> from chancekit.rng import PCG32
    >>> sorted(Deck(4).draw_many(4, PCG32(3)))
    [1, 2, 3, 4]
    """

    kind = "deck"

    def __init__(self, n: int, *, weights: Sequence[int] | None = None,
                 labels: Sequence[Any] | None = None) -> None:
        super().__init__(n, 1, 1, weights=weights, labels=labels)

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.n,), {"weights": self._weights_arg, "labels": self._labels_arg})


class DynamicDice(_WeightedCountSystem):
    """Dynamic dice with decrease factor ``decrease`` (f, 0 < f <= 1): after a draw, the
    chosen value's probability is multiplied by f and all are rescaled to sum to 1. So the
    next-draw probability of value i is ``w_i f**c_i / sum_j w_j f**c_j`` where ``c`` are the
    counts so far and ``w`` the base weights (default all 1): with base weights the die still
    favours values drawn less than their share, but relative to ``w``. ``f = 1`` is a plain
    (weighted) die. Probabilities are floats; a draw is O(n) with a 53-bit uniform.

    >>> dd = DynamicDice(2, 0.25)
    >>> dd.observe(1)
    >>> dd.probabilities()
    (0.8, 0.2)
    """

    kind = "dynamic-dice"

    def __init__(self, n: int, decrease: float, *, weights: Sequence[float] | None = None,
                 labels: Sequence[Any] | None = None) -> None:
        n = _require_n(n)
        self.decrease = _check_prob("decrease", decrease, open_high=False)
        if weights is None:
            self.weights: tuple[float, ...] = (1.0,) * n
            self._weights_arg: tuple[float, ...] | None = None
        else:
            w = tuple(weights)
            if len(w) != n or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and x > 0
                and math.isfinite(x) for x in w
            ):
                raise InvalidValueError("weights", weights, f"{n} positive finite numbers")
            self.weights = tuple(float(x) for x in w)
            self._weights_arg = self.weights
        self._values = _labels(n, labels)
        self._labels_arg = None if labels is None else tuple(labels)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.n, self.decrease),
                {"weights": self._weights_arg, "labels": self._labels_arg})

    def probabilities(self) -> tuple[float, ...]:
        lo = min(self._counts)
        w = [wi * self.decrease ** (c - lo) for wi, c in zip(self.weights, self._counts,
                                                              strict=True)]
        tot = _seqsum(w)
        return tuple(x / tot for x in w)


# --------------------------------------------------------------------------- binary events
def prd_constant(p: float) -> float:
    """The constant C of the pseudo-random distribution with long-run success rate ``p``:
    the chance on the k-th try since the last success is ``min(1, k*C)``. Solved by
    bisection on the exact rate formula to 1e-12 (about 45 steps of O(1/C) each).

    >>> round(prd_constant(0.25), 6)
    0.084744
    """
    p = _check_prob("p", p)
    if p < MIN_PRD_P:
        raise LimitError(f"a PRD success rate of {p!r} is below MIN_PRD_P = {MIN_PRD_P} "
                         "(solving for its constant costs O(1/p**2) steps); for rarer "
                         "events use a pity timer or an error accumulator",
                         limit="MIN_PRD_P", value=p)

    def rate(c: float) -> float:
        # expected tries until success = sum_{k>=0} P(no success in first k tries)
        expect, surv, k = 0.0, 1.0, 1
        while surv > 0.0:
            expect += surv
            surv *= max(0.0, 1.0 - k * c)
            k += 1
        return 1.0 / expect

    lo, hi = 0.0, p
    while hi - lo > 1e-15:
        mid = (lo + hi) / 2
        if rate(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


class _Binary(System):
    """A binary event: values ``(False, True)`` (failure, success)."""

    def __init__(self) -> None:
        self._values = (False, True)

    def _pair(self, q: float) -> tuple[float, float]:
        q = min(1.0, max(0.0, q))
        return (1.0 - q, q)


class _SinceSuccess(_Binary):
    """A binary system whose whole state is ``k``, the try number since the last success
    (1 right after a success). Shared by :class:`PRD` and :class:`PityTimer`."""

    _k: int

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=1)
        self._k = 1 if index else self._k + 1

    def getstate(self) -> tuple[int]:
        return (self._k,)

    def setstate(self, state: Any) -> None:
        name = type(self).__name__
        state = _state_tuple(state, 1, name)
        if not isinstance(state[0], int) or state[0] < 1:
            raise StateError(f"{name} state must be (k,) with k >= 1, not {state!r}")
        self._k = state[0]

    def reset(self) -> None:
        self._k = 1

    def _k_max(self) -> float:
        """The largest k reachable after a success (inf if unbounded)."""
        return math.inf

    def state_bound(self, draws: int) -> float:
        """(k, successes): successes in 0..draws; k at most ``_k_max`` after a success, or
        the start k + draws on the one path without any."""
        return (draws + 1) * min(draws + 1, self._k_max() + 1) + 1

    def chance_table(self, upto: int) -> list[float]:
        """``out[k]``: the success chance on try k since the last success, k = 0..upto
        (``out[0]`` unused), from ``probabilities()``."""
        keep = self._k
        out = [0.0]
        try:
            for k in range(1, upto + 1):
                self._k = k
                out.append(self.probabilities()[1])
        finally:
            self._k = keep
        return out


class PRD(_SinceSuccess):
    """The Warcraft III / Dota 2 pseudo-random distribution: the success chance on the k-th
    try since the last success is ``min(1, k*C)``, with ``C`` (attribute ``.C``) solved so
    that the long-run success rate is ``p`` (to 1e-12). O(1) per draw.

    >>> prd = PRD(0.25)
    >>> round(prd.C, 4), prd.probabilities()[1] == prd.C
    (0.0847, True)
    """

    kind = "prd"

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = _check_prob("p", p)
        self.C = prd_constant(self.p)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.p,), {})

    def target(self) -> tuple[float, ...]:
        return (1.0 - self.p, self.p)

    def probabilities(self) -> tuple[float, ...]:
        return self._pair(self._k * self.C)

    def _k_max(self) -> float:
        return math.ceil(1.0 / self.C) + 1



class PityTimer(_SinceSuccess):
    """A gacha pity timer: success chance ``base`` per pull; from pull ``soft_start`` since
    the last success the chance rises by ``ramp`` per pull (``base + (k - soft_start + 1) *
    ramp``); pull ``hard`` since the last success always succeeds. O(1) per draw.

    >>> pity = PityTimer(0.006, soft_start=74, ramp=0.06, hard=90)
    >>> pity.setstate((90,)); pity.probabilities()
    (0.0, 1.0)
    """

    kind = "pity"

    def __init__(self, base: float, *, soft_start: int | None = None,
                 ramp: float | None = 0.0, hard: int | None = None) -> None:
        super().__init__()
        self.base = _check_prob("base", base)
        self.hard = None if hard is None else require_int("hard", hard, lo=1)
        self.soft_start = None if soft_start is None else require_int("soft_start", soft_start,
                                                                      lo=1)
        # ramp=None is 0 (what _init_args gives copy() and pickling for a plain rate)
        self.ramp = _check_prob("ramp", 0.0 if ramp is None else ramp, open_low=False,
                                open_high=False)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.base,), {"soft_start": self.soft_start, "ramp": self.ramp or None,
                               "hard": self.hard})

    def chance(self, k: int) -> float:
        """The success chance on the k-th pull since the last success."""
        if self.hard is not None and k >= self.hard:
            return 1.0
        q = self.base
        if self.soft_start is not None and k >= self.soft_start:
            q += (k - self.soft_start + 1) * self.ramp
        return min(1.0, q)

    def probabilities(self) -> tuple[float, ...]:
        return self._pair(self.chance(self._k))

    def target(self) -> tuple[float, ...]:
        """The long-run shares ``(miss, hit)``: the hit rate is 1 / the expected pulls per
        hit, the survival summed until the chance reaches 1, or stops changing (then the
        geometric rest in closed form). At most ``soft_start + 1/ramp`` terms.

        >>> PityTimer(0.1).target()
        (0.9, 0.1)
        >>> [round(x, 4) for x in PityTimer(0.5, hard=2).target()]   # 1 / (1 + 1/2)
        [0.3333, 0.6667]
        """
        flat = 1 if self.soft_start is None else (self.soft_start if not self.ramp else None)
        tries, survive, k = 0.0, 1.0, 1
        while survive > 0.0:
            q = self.chance(k)
            if q >= 1.0:
                tries += survive
                break
            if flat is not None and k >= flat:  # q from here on until the hard pity
                if self.hard is None:
                    tries += survive / q
                else:
                    rest = (1.0 - q) ** (self.hard - k)
                    tries += survive * ((1.0 - rest) / q + rest)
                break
            tries += survive
            survive *= 1.0 - q
            k += 1
        r = 1.0 / tries
        return (1.0 - r, r)

    def _k_max(self) -> float:
        return math.inf if self.hard is None else self.hard



class ErrorAccumulator(_Binary):
    """Randomised error diffusion for a binary event with rate ``p``: before each try the
    accumulator grows by ``p``; the try succeeds with chance ``clip(acc, 0, 1)``, and a
    success takes 1 off the accumulator. Successes stay close to ``p * t`` (the
    accumulator stays within (p - 1, 1 + p)), so spacing is nearly even but not fully
    predictable. The state is the accumulator, kept as an exact multiple of ``p`` minus an
    integer (floats rounded to 12 decimals for hashing). O(1) per draw.

    >>> acc = ErrorAccumulator(0.5)
    >>> acc.probabilities()
    (0.5, 0.5)
    >>> acc.observe(1); acc.probabilities()
    (1.0, 0.0)
    """

    kind = "error-accumulator"

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = _check_prob("p", p)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.p,), {})

    def target(self) -> tuple[float, ...]:
        return (1.0 - self.p, self.p)

    def probabilities(self) -> tuple[float, ...]:
        return self._pair(round(self._acc + self.p, 12))

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=1)
        self._acc = round(self._acc + self.p - (1 if index else 0), 12)

    def getstate(self) -> tuple[float]:
        return (self._acc,)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, 1, "ErrorAccumulator")
        if not isinstance(state[0], numbers.Real) or not math.isfinite(state[0]):
            raise StateError(f"ErrorAccumulator state must be (acc,), not {state!r}")
        self._acc = float(state[0])

    def reset(self) -> None:
        self._acc = 0.0

    def state_bound(self, draws: int) -> float:
        """The accumulator is start + draws*p - successes: one state per success count."""
        return draws + 1


# --------------------------------------------------------------------------- history based
class HistoryReroll(System):
    """The Tetris: The Grand Master randomiser family: roll a uniform value; while it is
    among the last ``history`` values drawn, reroll — at most ``tries`` rolls in all, the last
    one is kept whatever it is. The history starts empty. O(history) per draw; probabilities
    are exact closed forms: a value outside the history (h distinct values in it) has
    chance ``(1/n) * sum_{k<tries} (h/n)**k``, one inside ``(1/n) * (h/n)**(tries-1)``.

    >>> tgm = HistoryReroll(7, history=4, tries=4)
    >>> tgm.observe(0)
    >>> round(tgm.probabilities()[0], 6)
    0.000416
    """

    kind = "history-reroll"

    def __init__(self, n: int, history: int = 4, tries: int = 4, *,
                 labels: Sequence[Any] | None = None) -> None:
        n = _require_n(n)
        self.history = require_int("history", history, lo=1)
        self.tries = require_int("tries", tries, lo=1)
        if self.tries > MAX_REROLL_TRIES:
            raise LimitError(f"tries={self.tries:,} is past MAX_REROLL_TRIES = "
                             f"{MAX_REROLL_TRIES:,} (each draw may roll that often); use fewer "
                             "tries", limit="MAX_REROLL_TRIES", value=self.tries)
        self._values = _labels(n, labels)
        self._labels_arg = None if labels is None else tuple(labels)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.n, self.history, self.tries), {"labels": self._labels_arg})

    def probabilities(self) -> tuple[float, ...]:
        held = set(self._hist)
        h, n = len(held), self.n
        q = h / n
        inside = q ** (self.tries - 1) / n
        # sum_{k < tries} q**k in closed form: O(1), whatever ``tries``
        outside = (self.tries if h == n else (1.0 - q ** self.tries) / (1.0 - q)) / n
        return tuple(inside if i in held else outside for i in range(n))

    def state_bound(self, draws: int) -> float:
        """(history, counts): the last min(draws, history) new draws in order, times the
        compositions of the draws before them (exact when every value stays possible)."""
        h = min(draws, self.history)
        seqs = float(self.n) ** h if h * math.log10(self.n) < 300 else math.inf
        return seqs * _comb(draws - h + self.n - 1, self.n - 1)

    def _mc_draw_units(self) -> float:
        """Each roll past the first costs too: all ``tries`` once the history holds every
        value, else at most n / (n - history) rolls on average."""
        from chancekit.fair import work

        held = min(self.history, self.n)
        rolls = self.tries if held >= self.n else min(self.tries, self.n / (self.n - held))
        return super()._mc_draw_units() + rolls * work.MC_GENERIC_ROLL_UNITS

    def _sample(self, rng: Any) -> int:
        v = 0
        for _ in range(self.tries):
            v = int(rng.randbelow(self.n))
            if v not in self._hist:
                break
        return v

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=self.n - 1)
        self._hist = (index, *self._hist)[: self.history]

    def getstate(self) -> tuple[int, ...]:
        return self._hist

    def setstate(self, state: Any) -> None:
        if not isinstance(state, tuple) or len(state) > self.history or not all(
            isinstance(v, int) and 0 <= v < self.n for v in state
        ):
            raise StateError(f"HistoryReroll state must be a tuple of at most {self.history} "
                             f"value indices, not {state!r}")
        self._hist = state

    def reset(self) -> None:
        self._hist: tuple[int, ...] = ()


class NoRepeatSystem(System):
    """Wrap any system so that the same value never comes twice in a row: the next-draw
    distribution is the inner one with the last value's probability removed and the rest
    rescaled. If the inner system can only produce the last value (e.g. a deck whose last
    card matches), the repeat is allowed — the filter never deadlocks. O(inner) per draw.

    Unlike :class:`chancekit.sampling.NoRepeat` (which re-draws, so a stateful system would
    also *consume* every rejected draw — a deck would lose the card), this filter conditions
    the system's next-draw distribution, and the inner system observes only the value
    actually drawn. For a stateless die both give the same law.

    >>> from chancekit.rng import PCG32
    >>> seq = NoRepeatSystem(Dice(2)).draw_many(6, PCG32(5))
    >>> seq in ([1, 2, 1, 2, 1, 2], [2, 1, 2, 1, 2, 1])
    True
    """

    kind = "no-repeat"

    def __init__(self, inner: System) -> None:
        if not isinstance(inner, System):
            raise InvalidTypeError("inner", inner, "a chancekit.fair System")
        self.inner = inner.copy()
        self._values = inner.values
        self._last: int | None = None

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.inner,), {})

    def copy(self) -> NoRepeatSystem:
        clone = NoRepeatSystem(self.inner)
        clone._last = self._last
        return clone

    def target(self) -> tuple[float, ...]:
        return self.inner.target()

    def probabilities(self) -> tuple[float, ...]:
        probs = self.inner.probabilities()
        if self._last is None:
            return probs
        rest = 1.0 - probs[self._last]
        if rest <= 1e-15:
            return probs
        return tuple(0.0 if i == self._last else p / rest for i, p in enumerate(probs))

    def observe(self, index: int) -> None:
        self.inner.observe(index)
        self._last = index

    def getstate(self) -> tuple[Any, ...]:
        return (self._last, self.inner.getstate())

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, 2, "NoRepeatSystem")
        if state[0] is not None and not (isinstance(state[0], int) and 0 <= state[0] < self.n):
            raise StateError(f"bad NoRepeatSystem state {state!r}")
        self.inner.setstate(state[1])
        self._last = state[0]

    def reset(self) -> None:
        self.inner.reset()
        self._last = None

    def state_bound(self, draws: int) -> float | None:
        """The last value (n choices) times the inner system's bound."""
        inner = self.inner.state_bound(draws)
        return None if inner is None else self.n * inner

    def _mc_draw_units(self) -> float:
        return self.inner._mc_draw_units() + super()._mc_draw_units()

    @property
    def kind_label(self) -> str:
        return f"{self.inner.kind}+no-repeat"
