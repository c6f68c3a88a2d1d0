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

from __future__ import annotations

from chancekit._lazy import front_door

# name -> module that defines it, imported on first use (so that a first small dist()
# loads neither cards nor symbols nor stats, and python-flint only when a calculation
# needs it); one line per public name
_LAZY: dict[str, str] = {
    "CertifiedDistribution": "chancekit.dice.certified",
    "Deal": "chancekit.dice.cards",
    "Deck": "chancekit.dice.cards",
    "standard_deck": "chancekit.dice.cards",
    "MAX_DICE": "chancekit.dice.distribution",
    "MAX_OUTCOMES": "chancekit.dice.distribution",
    "Distribution": "chancekit.dice.distribution",
    "constant": "chancekit.dice.distribution",
    "d": "chancekit.dice.distribution",
    "faces": "chancekit.dice.distribution",
    "fudge": "chancekit.dice.distribution",
    "RollResult": "chancekit.dice.notation",
    "dist": "chancekit.dice.notation",
    "roll": "chancekit.dice.notation",
    "Decided": "chancekit.dice.pool",
    "FaceRule": "chancekit.dice.pool",
    "Pool": "chancekit.dice.pool",
    "MultisetExpression": "chancekit.dice.multiset",
    "Vector": "chancekit.dice.multiset",
    "multiset_function": "chancekit.dice.multiset",
    "clear_caches": "chancekit.dice.pool",
    "count_successes": "chancekit.dice.pool",
    "evaluate_pool": "chancekit.dice.pool",
    "keep_highest": "chancekit.dice.pool",
    "keep_lowest": "chancekit.dice.pool",
    "keep_sum": "chancekit.dice.pool",
    "largest_set": "chancekit.dice.pool",
    "longest_straight": "chancekit.dice.pool",
    "neon_city_overdrive": "chancekit.dice.pool",
    "risk_battle": "chancekit.dice.pool",
    "central_moment": "chancekit.dice.stats",
    "ks_distance": "chancekit.dice.stats",
    "kurtosis": "chancekit.dice.stats",
    "skewness": "chancekit.dice.stats",
    "tv_distance": "chancekit.dice.stats",
    "GENESYS": "chancekit.dice.symbols",
    "Symbols": "chancekit.dice.symbols",
    "cancel": "chancekit.dice.symbols",
    "genesys": "chancekit.dice.symbols",
    "genesys_pool": "chancekit.dice.symbols",
    "project": "chancekit.dice.symbols",
    "symbol_die": "chancekit.dice.symbols",
    "symbol_pool": "chancekit.dice.symbols",
}

__all__ = [
    "GENESYS",
    "MAX_DICE",
    "MAX_OUTCOMES",
    "CertifiedDistribution",
    "Deal",
    "Decided",
    "Deck",
    "Distribution",
    "FaceRule",
    "MultisetExpression",
    "Pool",
    "RollResult",
    "Symbols",
    "Vector",
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
    "multiset_function",
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


__getattr__, __dir__ = front_door(__name__, _LAZY, globals())
