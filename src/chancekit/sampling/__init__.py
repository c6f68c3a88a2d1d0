"""Drawing from distributions: exact alias tables, two-dice tabletop tables, the chance
tree and its filters.

===================================  ====================================================
:class:`AliasTable`                  Vose's alias method in whole numbers: O(1) draws,
                                     each label with probability exactly weight/total
:class:`TabletopTable`               any distribution from two dice (d20 x d20 ...),
                                     rounded once, optimally; Markdown/CSV/text/HTML
:func:`tabletop_sheet`               several tabletop tables side by side
:class:`TwoStageTable`               more outcomes than rows (2d20 on d20 x d20): a
                                     first table picks a group, a second one within it
:class:`ChanceTree`                  weights that change while the game runs: O(log n)
:class:`SwapFilter`                  ``tree.swap_filter(L)``: hold out the last L draws
:class:`MaxStreak`, :class:`NoRepeat`  wrap any sampler: no run longer than L
===================================  ====================================================

>>> from chancekit.sampling import AliasTable, ChanceTree
>>> AliasTable({"sword": 5, "shield": 3, "potion": 12}).probability("sword")
Fraction(1, 4)
>>> ChanceTree({"a": 1, "b": 3}).probability("b")
Fraction(3, 4)
"""

from chancekit.sampling._weights import parse_weights, read_weight
from chancekit.sampling.alias import AliasTable
from chancekit.sampling.filters import MaxStreak, NoRepeat
from chancekit.sampling.tabletop import (
    TableReport,
    TableRow,
    TabletopTable,
    TwoStageTable,
    round_to_grid,
    tabletop_sheet,
)
from chancekit.sampling.tree import ChanceTree, SwapFilter

__all__ = ["AliasTable", "ChanceTree", "MaxStreak", "NoRepeat", "SwapFilter", "TableReport",
           "TableRow", "TabletopTable", "TwoStageTable", "parse_weights", "read_weight",
           "round_to_grid", "tabletop_sheet"]
