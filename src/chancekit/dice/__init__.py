"""Exact dice probabilities: distributions, dice notation, pools evaluated face by face.

>>> from chancekit.dice import d, keep_highest, neon_city_overdrive
>>> (3 @ d(6)).probability(10)
Fraction(1, 8)
>>> keep_highest(4, d(6), 3).mean()
Fraction(15869, 1296)
>>> neon_city_overdrive(1, 0).probability(6)
Fraction(1, 6)

Notation is a thin syntax over the same calls (``Pool``, selectors, Distribution
operators):

>>> from chancekit.dice import Pool, dist
>>> from chancekit.dice.selectors import highest
>>> Pool(d(6), 4).keep(highest(3)).sum() == dist("4d6kh3")
True
"""

from chancekit.dice.cards import Deal, Deck, standard_deck
from chancekit.dice.distribution import (
    MAX_DICE,
    MAX_OUTCOMES,
    Distribution,
    constant,
    d,
    faces,
    fudge,
)
from chancekit.dice.notation import RollResult, dist, roll
from chancekit.dice.pool import (
    Decided,
    FaceRule,
    Pool,
    clear_caches,
    count_successes,
    evaluate_pool,
    keep_highest,
    keep_lowest,
    keep_sum,
    largest_set,
    longest_straight,
    neon_city_overdrive,
    risk_battle,
)
from chancekit.dice.stats import central_moment, ks_distance, kurtosis, skewness, tv_distance
from chancekit.dice.symbols import (
    GENESYS,
    Symbols,
    cancel,
    genesys,
    genesys_pool,
    project,
    symbol_die,
    symbol_pool,
)

__all__ = [
    "GENESYS",
    "MAX_DICE",
    "MAX_OUTCOMES",
    "Deal",
    "Decided",
    "Deck",
    "Distribution",
    "FaceRule",
    "Pool",
    "RollResult",
    "Symbols",
    "cancel",
    "central_moment",
    "clear_caches",
    "constant",
    "count_successes",
    "d",
    "dist",
    "evaluate_pool",
    "faces",
    "fudge",
    "genesys",
    "genesys_pool",
    "keep_highest",
    "keep_lowest",
    "keep_sum",
    "ks_distance",
    "kurtosis",
    "largest_set",
    "longest_straight",
    "neon_city_overdrive",
    "project",
    "risk_battle",
    "roll",
    "skewness",
    "standard_deck",
    "symbol_die",
    "symbol_pool",
    "tv_distance",
]
