"""The output of AnyDice's empty die ``d{}``: a distribution with no outcomes.

:class:`Empty` has every public method and property of
:class:`~chancekit.dice.Distribution`, read for no outcomes: ``weights``, ``pmf()``,
``outcomes()``, ``cumulative()`` are empty, ``total`` is 0, a probability is 0 (no outcome
has any chance), and a transformation (``map``, ``clamp``, ``explode``, comparisons,
``+``) gives the empty die again, as in AnyDice. A statistic that needs an outcome
(``mean``, ``variance``, ``sd``, ``median``, ``mode``, ``quantile``, ``entropy``) cannot
exist: it raises :class:`~chancekit.errors.InvalidValueError` naming the output. Every
method is O(1).

>>> from chancekit.anydice import run
>>> label, dist = run('output d{} named "nothing"')[0]
>>> len(dist), dist.total, dist.probability(3), dist.outcomes()
(0, 0, Fraction(0, 1), ())
>>> try:
...     dist.mean()
... except ValueError as e:
...     print(str(e).split(";")[0])
the output "nothing" is the empty die d{} (no outcomes), so it has no mean
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from chancekit.errors import InvalidValueError

__all__ = ["EMPTY", "Empty"]

_FORMAT = "chancekit.distribution/2"


class Empty:
    """A distribution with no outcomes: the output of ``d{}`` (``label``: the output's
    name, shown in errors; ``None`` for the unnamed :data:`EMPTY`). Every ``Empty`` is
    equal to every other (``dist == EMPTY``), and never to a
    :class:`~chancekit.dice.Distribution`."""

    __slots__ = ("label",)
    weights: Mapping[Any, int] = MappingProxyType({})
    total = 0
    capped_mass = Fraction(0)

    def __init__(self, label: str | None = None) -> None:
        self.label = label

    # -- the data: none ---------------------------------------------------------------------

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __contains__(self, x: object) -> bool:
        return False

    def items(self) -> tuple[()]:
        return ()

    def outcomes(self) -> tuple[()]:
        return ()

    def pmf(self) -> dict[Any, Fraction]:
        return {}

    def probability(self, x: Any) -> Fraction:
        """0: no outcome has any chance."""
        return Fraction(0)

    def at_least(self, x: Any) -> Fraction:
        return Fraction(0)

    def at_most(self, x: Any) -> Fraction:
        return Fraction(0)

    def cumulative(self) -> tuple[()]:
        return ()

    def cumulative_float(self, min_probability: float = 0.0) -> tuple[()]:
        return ()

    def to_dict(self) -> dict[str, Any]:
        """The form of :meth:`Distribution.to_dict <chancekit.dice.Distribution.to_dict>`,
        with no outcomes (``Distribution.from_dict`` refuses it: a Distribution has at
        least one outcome)."""
        return {"format": _FORMAT, "outcomes": [], "weights": [], "total": "0",
                "probabilities": []}

    def to_json(self) -> str:
        import json

        return json.dumps(self.to_dict())

    # -- statistics: none can exist ---------------------------------------------------------

    def _none(self, what: str) -> InvalidValueError:
        name = "an output" if self.label is None else f'the output "{self.label}"'
        return InvalidValueError(f"{name} is the empty die d{{}} (no outcomes), so it has "
                                 f"no {what}; test for it with len(dist) == 0")

    def mean(self) -> Fraction:
        raise self._none("mean")

    @property
    def uncapped_mean(self) -> Fraction | None:
        raise self._none("mean")

    def variance(self) -> Fraction:
        raise self._none("variance")

    def sd(self) -> float:
        raise self._none("standard deviation")

    def median(self) -> Any:
        raise self._none("median")

    def mode(self) -> Any:
        raise self._none("mode")

    def quantile(self, q: float | Fraction) -> Any:
        raise self._none("quantile")

    def entropy(self) -> float:
        raise self._none("entropy")

    # -- transformations: nothing stays nothing (AnyDice: d{} in, d{} out) ------------------

    def map(self, f: Any) -> Empty:
        return self

    def clamp(self, lo: Any = None, hi: Any = None) -> Empty:
        return self

    def explode(self, on: Any = None, *, depth: int = 20) -> Empty:
        return self

    def reroll(self, on: Any, *, depth: int | None = None) -> Empty:
        return self

    def repeat_sum(self, n: int) -> Empty:
        return self

    def _same(self, other: Any) -> Empty:
        return self

    eq = ne = lt = le = gt = ge = min = max = _same
    __add__ = __radd__ = _same

    # the classmethods build Distributions: Distribution's own
    @staticmethod
    def mixture(dists: Any, weights: Any = None) -> Any:
        from chancekit.dice import Distribution

        return Distribution.mixture(dists, weights)

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Any:
        from chancekit.dice import Distribution

        return Distribution.from_dict(data)

    @staticmethod
    def from_json(text: str | bytes) -> Any:
        from chancekit.dice import Distribution

        return Distribution.from_json(text)

    # -- one value ---------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Empty)

    def __ne__(self, other: object) -> bool:
        return not isinstance(other, Empty)

    def __hash__(self) -> int:
        return hash(Empty)

    def __bool__(self) -> bool:
        raise TypeError(
            "a Distribution has no truth value; use len(dist) == 0 to test for the empty die")

    def __repr__(self) -> str:
        return "EMPTY" if self.label is None else f"Empty({self.label!r})"

    def __reduce__(self) -> Any:  # the unnamed one pickles by its name: EMPTY itself
        return "EMPTY" if self.label is None else (Empty, (self.label,))

    def __copy__(self) -> Empty:
        return self

    def __deepcopy__(self, memo: Any) -> Empty:
        return self


#: the unnamed :class:`Empty` value
EMPTY = Empty()
