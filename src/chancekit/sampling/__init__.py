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

from __future__ import annotations

from chancekit._lazy import front_door

# name -> module that defines it, imported on first use (``chancekit sample`` loads the
# alias table only; the tabletop tables, the tree and the filters when asked for)
_LAZY: dict[str, str] = {
    "parse_weights": "chancekit.sampling._weights",
    "read_weight": "chancekit.sampling._weights",
    "AliasTable": "chancekit.sampling.alias",
    "MaxStreak": "chancekit.sampling.filters",
    "NoRepeat": "chancekit.sampling.filters",
    "TableReport": "chancekit.sampling.tabletop",
    "TableRow": "chancekit.sampling.tabletop",
    "TabletopTable": "chancekit.sampling.tabletop",
    "TwoStageTable": "chancekit.sampling.tabletop",
    "round_to_grid": "chancekit.sampling.tabletop",
    "tabletop_sheet": "chancekit.sampling.tabletop",
    "ChanceTree": "chancekit.sampling.tree",
    "draw_without_replacement": "chancekit.sampling.bag",
    "first_draw": "chancekit.sampling.bag",
    "SwapFilter": "chancekit.sampling.tree",
}

__all__ = ["AliasTable", "ChanceTree", "MaxStreak", "NoRepeat", "SwapFilter", "TableReport",
           "TableRow", "TabletopTable", "TwoStageTable", "draw_without_replacement",
           "first_draw", "parse_weights", "read_weight",
           "round_to_grid", "tabletop_sheet"]


__getattr__, __dir__ = front_door(__name__, _LAZY, globals())
