"""Streak filters that wrap any sampler (anything with ``draw(rng)``).

:class:`MaxStreak` re-draws whenever a draw would make a run of equal results longer than
``max_run``; :class:`NoRepeat` is ``max_run=1``. The exact effect, for a base distribution
``p`` of independent draws: after a run of ``max_run`` copies of ``v`` the next draw has
the distribution ``p`` conditioned on ``!= v`` (that is ``p[x] / (1 - p[v])``); otherwise
it is ``p`` unchanged. In the long run value ``x`` appears with frequency proportional to
``p[x] * (1 - p[x] ** max_run)`` (:meth:`MaxStreak.long_run`; for no-repeat,
``p[x] * (1 - p[x])``), so frequent values are damped and a uniform base stays uniform.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from chancekit import _state
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError
from chancekit.limits import MAX_TRIES as _MAX_TRIES
from chancekit.rng.source import as_source

__all__ = ["MaxStreak", "NoRepeat"]

_VERSION = 1
#: the saved-state format name (:meth:`MaxStreak.to_dict`)
FORMAT = "chancekit.streak-filter"


class MaxStreak:
    """Wrap ``sampler`` so that no result appears more than ``max_run`` times in a row.

    Costs the base draw times ``1 / (1 - p[v])`` on average right after a full run of
    ``v`` (a re-draw loop); ``max_tries`` re-draws without success raise
    :class:`~chancekit.errors.LimitError` (a sampler that can only give one value).
    The filter carries state (the current run): ``getstate()``/``setstate()``.

    >>> from chancekit.sampling import AliasTable
    >>> f = MaxStreak(AliasTable({"hit": 9, "miss": 1}), max_run=2)
    >>> from chancekit.rng import PCG32
    >>> rng = PCG32(5); rolls = [f.draw(rng) for _ in range(3)]
    >>> f.long_run()
    {'hit': Fraction(19, 30), 'miss': Fraction(11, 30)}
    """

    def __init__(self, sampler: Any, max_run: int = 1, *, max_tries: int = _MAX_TRIES
                 ) -> None:
        if not callable(getattr(sampler, "draw", None)):
            raise InvalidTypeError("sampler", sampler, "an object with a draw(rng) method")
        self.sampler = sampler
        self.max_run = require_int("max_run", max_run, lo=1)
        self.max_tries = require_int("max_tries", max_tries, lo=1)
        base = self._base_or_none()
        if base is not None and sum(1 for p in base.values() if p > 0) < 2:
            raise InvalidValueError("a streak filter needs a sampler with at least two "
                                    "possible results")
        self._last: Any = None
        self._run = 0

    def _base_or_none(self) -> dict[Any, Fraction] | None:
        prob = getattr(self.sampler, "probability", None)
        if not callable(prob):
            return None
        try:
            labels = list(self.sampler)
        except TypeError:
            return None
        return {lab: Fraction(prob(lab)) for lab in labels}

    def _base(self) -> dict[Any, Fraction]:
        base = self._base_or_none()
        if base is None:
            raise InvalidTypeError("sampler", self.sampler, "a sampler with labels and "
                                   "probability() (AliasTable, ChanceTree) for exact results")
        return base

    def draw(self, rng: Any = None) -> Any:
        """One filtered draw. O(1) expected re-draws for a fixed base."""
        rng = as_source(rng)
        draw = self.sampler.draw
        x = draw(rng)
        if self._run >= self.max_run:
            tries = 0
            while x == self._last:
                tries += 1
                if tries >= self.max_tries:
                    raise LimitError(f"the sampler gave {x!r} {self.max_tries} times in a "
                                     "row (max_tries); a streak filter needs another "
                                     "possible result",
                                     limit="max_tries", value=self.max_tries)
                x = draw(rng)
        if self._run and x == self._last:
            self._run += 1
        else:
            self._last, self._run = x, 1
        return x

    def draw_many(self, n: int, rng: Any = None) -> list[Any]:
        """``n`` filtered draws as a list, equal to ``n`` calls of :meth:`draw`.

        >>> from chancekit.sampling import AliasTable
        >>> from chancekit.rng import PCG32
        >>> rolls = NoRepeat(AliasTable([1, 1])).draw_many(6, PCG32(2))
        >>> rolls in ([0, 1, 0, 1, 0, 1], [1, 0, 1, 0, 1, 0])
        True
        """
        n = require_int("n", n, lo=0)
        rng = as_source(rng)
        return [self.draw(rng) for _ in range(n)]

    def next_distribution(self) -> dict[Any, Fraction]:
        """The exact distribution of the next draw, given the current run.

        >>> from chancekit.sampling import AliasTable
        >>> f = NoRepeat(AliasTable({"a": 1, "b": 1, "c": 2})); f.setstate((1, "c", 1))
        >>> f.next_distribution()
        {'a': Fraction(1, 2), 'b': Fraction(1, 2), 'c': Fraction(0, 1)}
        """
        base = self._base()
        if self._run >= self.max_run and self._last in base:
            pv = base[self._last]
            return {k: (Fraction(0) if k == self._last else p / (1 - pv))
                    for k, p in base.items()}
        return dict(base)

    def long_run(self) -> dict[Any, Fraction]:
        """The exact long-run frequency of each result: proportional to
        ``p * (1 - p**max_run)`` (derived from the stationary distribution of the chain on
        (value, run length); see docs/sampling.md)."""
        base = self._base()
        raw = {k: p * (1 - p ** self.max_run) for k, p in base.items()}
        s = sum(raw.values())
        return {k: v / s for k, v in raw.items()}

    def getstate(self) -> tuple[Any, ...]:
        """``(version, last result, current run length)``."""
        return (_VERSION, self._last, self._run)

    def setstate(self, state: Any) -> None:
        """Restore :meth:`getstate`."""
        try:
            version, last, run = state
        except (TypeError, ValueError):
            raise StateError("streak filter state must be (version, last, run)") from None
        if version != _VERSION or not isinstance(run, int) or isinstance(run, bool) \
                or not 0 <= run <= self.max_run:
            raise StateError(f"streak filter state: bad version or run {state!r}")
        self._last, self._run = last, run

    # -- the saved-state format (docs/reproducibility.md, "One saved-state format") --------
    def to_dict(self) -> dict[str, Any]:
        """``{"format": "chancekit.streak-filter", "version": 1, "max_run": m,
        "last": result or null, "run": r}``. The wrapped sampler is not saved (an
        :class:`AliasTable` has no state; save a stateful one separately).

        >>> from chancekit.sampling import AliasTable
        >>> f = NoRepeat(AliasTable({"a": 1, "b": 1})); f.setstate((1, "a", 1))
        >>> g = NoRepeat(AliasTable({"a": 1, "b": 1})); g.load_json(f.to_json()); g.getstate()
        (1, 'a', 1)
        """
        return {"format": FORMAT, "version": _state.VERSION, "max_run": self.max_run,
                "last": _state.encode_value(self._last, "last result"), "run": self._run}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return _state.dump(self.to_dict())

    def load_dict(self, data: Any) -> None:
        """Restore, in place, a state saved by :meth:`to_dict` by a filter with the same
        ``max_run``; anything else is a :class:`~chancekit.errors.StateError` naming the
        field, and changes nothing."""
        _state.check_header(data, FORMAT, {"max_run", "last", "run"})
        max_run = _state.read_int(data["max_run"], f"{FORMAT}.max_run", lo=1)
        if max_run != self.max_run:
            raise StateError(f"{FORMAT}.max_run is {max_run}, but this filter has max_run "
                             f"{self.max_run}")
        last = _state.decode_value(data["last"], f"{FORMAT}.last")
        run = _state.read_int(data["run"], f"{FORMAT}.run", hi=max_run)
        self.setstate((_VERSION, last, run))

    def load_json(self, text: str | bytes) -> None:
        """Restore, in place, a state saved by :meth:`to_json`."""
        self.load_dict(_state.load(text, FORMAT))


class NoRepeat(MaxStreak):
    """Never the same result twice in a row (:class:`MaxStreak` with ``max_run=1``).

    Long-run frequency of ``x`` is proportional to ``p[x] * (1 - p[x])``.

    >>> from chancekit.sampling import AliasTable
    >>> f = NoRepeat(AliasTable([1, 1, 1]))
    >>> from chancekit.rng import PCG32
    >>> rng = PCG32(3); rolls = [f.draw(rng) for _ in range(50)]
    >>> any(a == b for a, b in zip(rolls, rolls[1:]))
    False
    """

    def __init__(self, sampler: Any, *, max_tries: int = _MAX_TRIES) -> None:
        super().__init__(sampler, 1, max_tries=max_tries)
