"""One front door to both engines: :func:`evaluate`."""

from __future__ import annotations

from typing import Any

from chancekit.errors import InvalidValueError
from chancekit.fair.exact import MAX_STATES, evaluate_exact
from chancekit.fair.metrics import Metrics
from chancekit.fair.montecarlo import evaluate_montecarlo
from chancekit.fair.systems import System

__all__ = ["evaluate"]


def evaluate(system: System, samples: int, *, method: str = "exact", trials: int = 10_000,
             rng: Any = None, prune: float = 0.0, max_states: int = MAX_STATES) -> Metrics:
    """Every metric of ``system`` over a match of ``samples`` draws.

    ``method="exact"`` enumerates the Markov chain (float64; see
    :func:`~chancekit.fair.evaluate_exact`; refused with ``LimitError`` above
    ``max_states`` states per draw); ``method="montecarlo"`` simulates ``trials`` matches
    from ``rng`` and adds the streak and drought measures, each with a standard error.

    >>> from chancekit.fair import GeneralizedDeck
    >>> round(evaluate(GeneralizedDeck(6, 1, 6), 25).outcome_variance, 4)
    0.5089
    """
    if method == "exact":
        return evaluate_exact(system, samples, prune=prune, max_states=max_states)
    if method in ("montecarlo", "monte-carlo", "mc"):
        return evaluate_montecarlo(system, samples, trials=trials, rng=rng)
    raise InvalidValueError("method", method, "'exact' or 'montecarlo'")
