"""Fair randomness: decks, dynamic dice and co., exact fairness metrics, tuning.

Systems share one protocol (``probabilities()``, ``observe(i)``, ``draw(rng)``,
``getstate()``/``setstate()``, ``reset()``); two engines measure them — exact enumeration
of the symmetry-reduced Markov chain (float64) and vectorised Monte Carlo with standard
errors — and :func:`tune` searches parameters for the least unfairness at a given
unpredictability. The published result (n = 6, N = 25, 90 %):

>>> from chancekit.fair import tune
>>> r = tune(6, 25, 0.9)
>>> [(c.spec, round(c.outcome_variance, 4)) for w in r.winners.values() for c in w]
[('generalized-deck:1,6', 0.5089), ('dynamic-dice:0.355', 0.459)]

Drawing, reproducibly:

>>> from chancekit.fair import DynamicDice
>>> from chancekit.rng import PCG32
>>> die = DynamicDice(6, 0.355)
>>> rolls = die.draw_many(10, PCG32(2024))
>>> len(rolls), set(rolls) <= {1, 2, 3, 4, 5, 6}
(10, True)
"""

from __future__ import annotations

from chancekit.fair.audit import Audit, audit_counts, audit_log, binomial_test, clopper_pearson
from chancekit.fair.engine import evaluate
from chancekit.fair.exact import MAX_STATES, evaluate_exact, evaluate_exact_batch, partition_count
from chancekit.fair.metrics import Metrics, die_variance
from chancekit.fair.montecarlo import evaluate_montecarlo, simulate_matches
from chancekit.fair.plot import plot_metrics
from chancekit.fair.spec import system_from_spec
from chancekit.fair.streaks import streak_metrics, streak_montecarlo
from chancekit.fair.studio import (
    AimAssist,
    DuplicateProtection,
    GachaPity,
    LuckyStreak,
    TGM3Randomizer,
    TGMRandomizer,
    TwoRollHit,
    true_hit,
)
from chancekit.fair.systems import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    ErrorAccumulator,
    GeneralizedDeck,
    HistoryReroll,
    NoRepeatSystem,
    PityTimer,
    System,
    prd_constant,
)
from chancekit.fair.tune import Candidate, TuneResult, published_grid, tune

__all__ = [
    "MAX_STATES",
    "PRD",
    "AimAssist",
    "Audit",
    "Candidate",
    "Deck",
    "Dice",
    "DuplicateProtection",
    "DynamicDice",
    "ErrorAccumulator",
    "GachaPity",
    "GeneralizedDeck",
    "HistoryReroll",
    "LuckyStreak",
    "Metrics",
    "NoRepeatSystem",
    "PityTimer",
    "System",
    "TGM3Randomizer",
    "TGMRandomizer",
    "TuneResult",
    "TwoRollHit",
    "audit_counts",
    "audit_log",
    "binomial_test",
    "clopper_pearson",
    "die_variance",
    "evaluate",
    "evaluate_exact",
    "evaluate_exact_batch",
    "evaluate_montecarlo",
    "partition_count",
    "plot_metrics",
    "prd_constant",
    "published_grid",
    "simulate_matches",
    "streak_metrics",
    "streak_montecarlo",
    "system_from_spec",
    "true_hit",
    "tune",
]
