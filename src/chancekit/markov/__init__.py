"""Exact Markov chains: mechanics that run until something happens.

A chain is a function ``step(state)`` returning a :class:`~chancekit.Distribution` of
next states (or dice notation, or one next state); a state that steps to itself for
certain is absorbing. The engine (:mod:`chancekit.markov.chain`) answers exactly:
:func:`absorb` (where it ends), :func:`steps` (how long it takes) and :func:`stationary`
(the long run); :mod:`chancekit.markov.processes` builds the common ones (usage dice, HP
races, roll until, draw until, first success of a fairness system, board games).

>>> from chancekit.markov import usage_die
>>> usage_die([12, 10, 8, 6, 4]).mean      # 12/2 + 10/2 + 8/2 + 6/2 + 4/2
Fraction(20, 1)
"""

from chancekit.markov.chain import Chain, Steps, absorb, explore, stationary, steps
from chancekit.markov.planning import (
    Cost,
    Spend,
    all_of,
    copies,
    copies_each,
    copies_within,
    cost,
    spend,
)
from chancekit.markov.processes import (
    board,
    draw_until,
    first_success,
    hp_race,
    long_run,
    roll_until,
    usage_die,
)

__all__ = [
    "Chain",
    "Cost",
    "Spend",
    "Steps",
    "absorb",
    "all_of",
    "board",
    "copies",
    "copies_each",
    "copies_within",
    "cost",
    "draw_until",
    "explore",
    "first_success",
    "hp_race",
    "long_run",
    "roll_until",
    "spend",
    "stationary",
    "steps",
    "usage_die",
]
