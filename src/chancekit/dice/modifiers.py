"""The old home of the per-die modifiers (explode and reroll): they live beside the value
in :mod:`chancekit.dice.distribution` (with the ``CappedDistribution`` an explosion
returns), so ``Distribution.explode()`` needs no import back (docs/architecture.md, "Import
cycles"). Re-exported here under their old names.

>>> from chancekit.dice import d
>>> explode(d(6), depth=1).probability(12)
Fraction(1, 36)
"""

from chancekit.dice.distribution import explode, explode_work, max_explode_depth, reroll

__all__ = ["explode", "explode_work", "max_explode_depth", "reroll"]
