"""One front door to both engines: :func:`evaluate`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chancekit.errors import InvalidValueError
from chancekit.fair.exact import MAX_STATES, evaluate_exact
from chancekit.fair.metrics import Metrics
from chancekit.fair.montecarlo import evaluate_montecarlo
from chancekit.fair.systems import System

__all__ = ["evaluate"]


def evaluate(system: System, samples: int, *, method: str = "exact", trials: int = 10_000,
             rng: Any = None, prune: float = 0.0, max_states: int = MAX_STATES,
             max_work: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> Metrics:
    """Every metric of ``system`` over a match of ``samples`` draws.

    ``method="exact"`` enumerates the Markov chain (float64; see
    :func:`~chancekit.fair.evaluate_exact`; refused with ``LimitError`` above
    ``max_states`` states per draw); ``method="montecarlo"`` simulates ``trials`` matches
    from ``rng`` and adds the streak and drought measures, each with a standard error.
    Both estimate their work first and refuse past ``max_work`` units (default
    :data:`~chancekit.fair.work.MAX_FAIR_WORK`, about a second) with ``LimitError``;
    ``progress(done, total)`` is called as the work proceeds.

    >>> from chancekit.fair import GeneralizedDeck
    >>> round(evaluate(GeneralizedDeck(6, 1, 6), 25).outcome_variance, 4)
    0.5089
    """
    if method == "exact":
        return evaluate_exact(system, samples, prune=prune, max_states=max_states,
                              max_work=max_work, progress=progress)
    if method in ("montecarlo", "monte-carlo", "mc"):
        return evaluate_montecarlo(system, samples, trials=trials, rng=rng, max_work=max_work,
                                   progress=progress)
    raise InvalidValueError("method", method, "'exact' or 'montecarlo'")
