"""The measures of a randomness system over a match, and the result type both engines return.

Definitions (published; see docs/fair.md). For a system over n values and a match of N
draws, t = 1..N:

* **unpredictability** — the Shannon entropy of the distribution the t-th draw uses, taken
  *before* the draw, divided by log(n); averaged over t (a die scores 1.0);
* **guessability** — the probability of the most likely value before draw t, averaged over t
  (a min-entropy view: two systems with equal entropy can differ here; a die scores 1/n);
* **outcome variance** — ``(1/n) * sum_i (c_i - t*pi_i)**2`` after draw t, in expectation,
  where ``c_i`` counts value i and ``pi`` is the system's target share (uniform unless base
  weights say otherwise, and then it is exactly the population variance of the counts);
  the summary is its value after draw N, also given as ``variance_ratio``: the ratio to
  the same measure for N *independent* draws with the system's own long-run shares pi,
  ``N (1 - sum_i pi_i**2) / n`` (a die's ``N(n-1)/n**2`` when pi is uniform; so any plain
  independent roll scores 1, whatever its odds);
* **discrepancy** — ``max_i |c_i - t*pi_i|`` after draw t, in expectation (summary: at N);
* streaks (Monte Carlo engine): **p_repeat** — chance that a draw equals the previous one,
  averaged over t = 2..N; **p_triple** — chance that draws t-2, t-1, t are equal, averaged
  over t = 3..N; **longest_drought** — the expected longest run of draws during which some
  value does not appear (runs at the start and end of the match count);
  **p_gap[k]** — the chance that the longest drought is at least k;
  **autocorrelation** — the lag-1 autocorrelation of the one-hot draws,
  ``(p_repeat - sum_i pi_i**2) / (1 - sum_i pi_i**2)`` (0 for a die, negative when
  repeats are avoided).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Metrics", "die_variance", "independent_variance"]


@dataclass(frozen=True)
class Metrics:
    """Every measure of one system over one match length, from one engine.

    ``summary`` maps a measure's name to its value, ``se`` to its standard error (Monte
    Carlo; 0.0 for exact figures), ``series`` to a tuple indexed by t - 1.
    ``method`` is ``"exact"`` (float64 enumeration of the Markov chain) or
    ``"montecarlo"``. ``states`` is the number of distinct states per draw (exact) and
    ``dropped`` the probability mass pruned (exact with ``prune > 0``).
    """

    system: str
    n: int
    samples: int
    method: str
    summary: dict[str, float]
    se: dict[str, float] = field(default_factory=dict)
    series: dict[str, tuple[float, ...]] = field(default_factory=dict)
    series_se: dict[str, tuple[float, ...]] = field(default_factory=dict)
    trials: int = 0
    states: tuple[int, ...] = ()
    dropped: float = 0.0

    def __getitem__(self, name: str) -> float:
        return self.summary[name]

    @property
    def unpredictability(self) -> float:
        """Mean normalised entropy before each draw (1.0 for a die)."""
        return self.summary["unpredictability"]

    @property
    def outcome_variance(self) -> float:
        """Expected population variance of the counts after the last draw."""
        return self.summary["outcome_variance"]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "system": self.system, "n": self.n, "samples": self.samples,
            "method": self.method, "trials": self.trials, "summary": dict(self.summary),
            "se": dict(self.se), "series": {k: list(v) for k, v in self.series.items()},
            "states": list(self.states), "dropped": self.dropped,
            "series_se": {k: list(v) for k, v in self.series_se.items()},
        }

    def __hash__(self) -> int:
        return hash((self.system, self.n, self.samples, self.method, self.trials,
                     tuple(sorted(self.summary.items()))))


def die_variance(n: int, samples: int) -> float:
    """A die's expected outcome variance ``N(n-1)/n**2``."""
    return samples * (n - 1) / (n * n)


def independent_variance(target: Sequence[float], samples: int) -> float:
    """The expected outcome variance of ``samples`` independent draws with the long-run
    probabilities ``target`` (pi): ``(1/n) sum_i E[(c_i - N pi_i)**2]`` for multinomial
    counts ``c``, which is ``N (1 - sum_i pi_i**2) / n`` exactly (each ``c_i`` is binomial
    with variance ``N pi_i (1 - pi_i)``). A die's ``N(n-1)/n**2`` when pi is uniform; what
    ``variance_ratio`` divides by. The sum is ``math.fsum`` (order-stable).

    >>> independent_variance((0.75, 0.25), 4)   # a plain 25 % roll, 4 tries
    0.75
    >>> independent_variance((0.25,) * 4, 10) == die_variance(4, 10)
    True
    """
    n = len(target)
    return samples * (1.0 - math.fsum(p * p for p in target)) / n
