"""Monte Carlo **estimates** of dice notation, for work the exact engine refuses.

:func:`estimate` rolls an expression ``samples`` times with :func:`chancekit.roll` from
the bit source it is given (a seeded ``PCG32`` or named stream: the same seed and count
give the same answer) and returns an :class:`Estimate`: the counts of each total, each
outcome's frequency with a 95 % Wilson interval, the mean with a 95 % normal interval
(1.96 standard errors), the sample standard deviation and quantiles. It is an estimate
and says so in its name; everything exact stays with :func:`chancekit.dist`.

>>> from chancekit.rng import PCG32
>>> e = estimate("3d6", 2000, rng=PCG32(1))
>>> e.samples, e.complete
(2000, True)
>>> lo, hi = e.mean_interval()
>>> lo < 10.5 < hi
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["Z95", "Estimate", "estimate"]

#: the z value of a two-sided 95 % interval
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """What :func:`estimate` saw: ``counts`` (total -> how many rolls gave it), the
    ``samples`` made out of ``requested`` (fewer when ``seconds`` ran out: ``complete``
    is then false), and the exact ``sum`` and ``sum_squares`` of the totals."""

    notation: str
    dialect: str
    counts: dict[Any, int]
    samples: int
    requested: int
    sum: Fraction = field(repr=False)
    sum_squares: Fraction = field(repr=False)

    @property
    def complete(self) -> bool:
        """Whether every requested roll was made."""
        return self.samples == self.requested

    def outcomes(self) -> list[Any]:
        """The totals seen, in increasing order."""
        return sorted(self.counts)

    def frequency(self, x: Any) -> float:
        """The share of rolls that gave ``x`` (0.0 if none did)."""
        return self.counts.get(x, 0) / self.samples

    def interval(self, x: Any, z: float = Z95) -> tuple[float, float]:
        """The Wilson score interval of P(total = ``x``) (95 % by default): never outside
        [0, 1], sensible for outcomes seen rarely or never.

        >>> from chancekit.rng import PCG32
        >>> lo, hi = estimate("1d2", 400, rng=PCG32(3)).interval(1)
        >>> lo < 0.5 < hi
        True
        """
        n, p = self.samples, self.frequency(x)
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return max(0.0, centre - half), min(1.0, centre + half)

    @property
    def mean(self) -> float:
        """The sample mean of the totals."""
        return float(self.sum / self.samples)

    @property
    def sd(self) -> float:
        """The sample standard deviation (``n - 1`` in the denominator)."""
        n = self.samples
        var = (self.sum_squares - self.sum * self.sum / n) / max(n - 1, 1)
        return math.sqrt(max(var, 0))

    def mean_interval(self, z: float = Z95) -> tuple[float, float]:
        """The normal interval of the mean: ``mean +- z * sd / sqrt(samples)``."""
        se = self.sd / math.sqrt(self.samples)
        return self.mean - z * se, self.mean + z * se

    def quantile(self, q: float) -> Any:
        """The smallest total ``x`` with at least a share ``q`` of the rolls at or below
        it."""
        running = 0
        for x in self.outcomes():
            running += self.counts[x]
            if running >= q * self.samples:
                return x
        return self.outcomes()[-1]  # pragma: no cover - q <= 1 always stops above


def estimate(notation: str, samples: int = 10_000, *, rng: Any,
             dialect: str = "avrae", seconds: float | None = None,
             variables: dict[str, Any] | None = None) -> Estimate:
    """Roll ``notation`` ``samples`` times with ``rng`` and count the totals.

    ``rng``: a bit source (``PCG32(seed)``, ``Streams(seed)["name"]``); ``None`` uses the
    process-wide generator (not reproducible). ``seconds``: stop early once this much
    time has passed (checked every 64 rolls; the :class:`Estimate` says how many were
    made) -- without it the answer depends only on the notation, the seed and
    ``samples``. Cost: O(samples x dice rolled); each roll is :func:`chancekit.roll`, which
    also builds its breakdown text (``3d6``: about 80 us a roll; ``9000d6``: about 60 ms).
    A notation that cannot be rolled (past ``MAX_ROLLED`` dice) raises as ``roll`` does.

    >>> from chancekit.dice.notation import roll
    >>> from chancekit.rng import PCG32
    >>> r = PCG32(7)
    >>> sixes = sum(roll("1d6", rng=r).total == 6 for _ in range(600))
    >>> estimate("1d6", 600, rng=PCG32(7)).counts[6] == sixes
    True
    """
    from chancekit._validate import require_int
    from chancekit.dice.notation import roll
    from chancekit.limits import MAX_ESTIMATE_SAMPLES

    want = require_int("samples", samples, lo=1, hi=MAX_ESTIMATE_SAMPLES)
    counts: dict[Any, int] = {}
    total = total2 = Fraction(0)
    start = time.perf_counter()
    n = 0
    while n < want:
        x = roll(notation, rng=rng, dialect=dialect, variables=variables).total
        counts[x] = counts.get(x, 0) + 1
        total += x
        total2 += x * x
        n += 1
        if seconds is not None and n % 64 == 0 and time.perf_counter() - start > seconds:
            break
    return Estimate(notation, dialect, counts, n, want, total, total2)
