"""Loot bags without replacement (issue #30): the exact distribution of what ``n``
weighted draws take from a bag, each draw picking among what is left in proportion to
its weight (Wallenius' multivariate noncentral hypergeometric distribution), and of the
first draw at which an item appears.

The items are grouped by weight (as icepool's ``Wallenius`` does): within a group every
item is alike, so the draw is one chain over *how many* copies each group has given
(each draw takes group c with chance ``w_c x copies left in c / weight left``), and the
items drawn from a group are then a uniform deal from it (the hypergeometric split).
Cost: the chain has at most prod over groups of (min(copies, n) + 1) states, each with
one transition a group (exact Fractions); the result one entry per possible hand. Both
are estimated and refused up front past :data:`MAX_BAG_STATES` / :data:`MAX_BAG_HANDS`.
Many items with all-different weights make many groups: round the weights into tiers.

>>> from fractions import Fraction
>>> hand = draw_without_replacement({"sword": 1, "shield": 1, "potion": 2}, 2)
>>> hand.pmf()[("potion", "shield")]
Fraction(5, 12)
>>> first_draw({"sword": 1, "shield": 1, "potion": 2}, "sword").pmf()
{1: Fraction(1, 4), 2: Fraction(1, 3), 3: Fraction(5, 12)}
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, quote
from chancekit.limits import MAX_BAG_HANDS, MAX_BAG_STATES
from chancekit.sampling._weights import integer_weights

__all__ = ["MAX_BAG_HANDS", "MAX_BAG_STATES", "draw_without_replacement", "first_draw"]



def _bag(weights: Any, counts: Mapping[Any, Any] | None
         ) -> tuple[tuple[Any, ...], tuple[int, ...], tuple[int, ...]]:
    """(items, integer weights, copies) of a bag; a ChanceTree's current contents."""
    items_of = getattr(weights, "items", None)
    if not isinstance(weights, Mapping) and callable(items_of) and hasattr(weights, "pop"):
        weights = dict(items_of())  # a ChanceTree: what is in it now
    if not isinstance(weights, Mapping):
        raise InvalidTypeError("weights", weights, "a mapping item -> weight (or a "
                               "ChanceTree)")
    labels, ints = integer_weights(weights)
    if counts is None:
        copies = tuple(1 for _ in labels)
    else:
        if not isinstance(counts, Mapping):
            raise InvalidTypeError("counts", counts, "a mapping item -> copies in the bag")
        extra = [x for x in counts if x not in weights]
        if extra:
            raise InvalidValueError("counts", quote(extra[0], limit=40),
                                    "an item of weights")
        copies = tuple(require_int(f"counts[{quote(x, limit=30)}]", counts.get(x, 1), lo=0,
                                   hi=10**6) for x in labels)
    keep = [i for i, (w, c) in enumerate(zip(ints, copies, strict=True)) if w and c]
    return (tuple(labels[i] for i in keep), tuple(ints[i] for i in keep),
            tuple(copies[i] for i in keep))


def _groups(items: tuple[Any, ...], ws: tuple[int, ...], cs: tuple[int, ...]
            ) -> list[tuple[int, list[tuple[Any, int]]]]:
    """[(weight, [(item, copies), ...]), ...] by weight, heaviest first."""
    by: dict[int, list[tuple[Any, int]]] = {}
    for x, w, c in zip(items, ws, cs, strict=True):
        by.setdefault(w, []).append((x, c))
    return sorted(by.items(), key=lambda kv: -kv[0])


def _hands(cs: tuple[int, ...], n: int) -> int:
    """How many different hands of n copies the bag has: the coefficient of x**n in
    prod (1 + x + ... + x**c), O(items x n)."""
    poly = [1] + [0] * n
    for c in cs:
        acc, nxt = 0, []
        for i in range(n + 1):  # running sums: poly[i - c .. i]
            acc += poly[i]
            if i - c - 1 >= 0:
                acc -= poly[i - c - 1]
            nxt.append(acc)
        poly = nxt
    return poly[n]


def _states_bound(sizes: list[int], n: int) -> int:
    return math.prod(min(s, n) + 1 for s in sizes)


def _chain(ws: list[int], sizes: list[int], n: int) -> dict[tuple[int, ...], Fraction]:
    """P(group draw counts) after ``n`` draws: one layer a draw."""
    total = sum(w * s for w, s in zip(ws, sizes, strict=True))
    layer: dict[tuple[int, ...], Fraction] = {tuple(0 for _ in ws): Fraction(1)}
    for _ in range(n):
        nxt: dict[tuple[int, ...], Fraction] = {}
        for m, p in layer.items():
            left = total - sum(w * x for w, x in zip(ws, m, strict=True))
            for c, (w, s) in enumerate(zip(ws, sizes, strict=True)):
                if m[c] < s:
                    key = (*m[:c], m[c] + 1, *m[c + 1:])
                    nxt[key] = nxt.get(key, 0) + p * Fraction(w * (s - m[c]), left)
        layer = nxt
    return layer


def _order(items: tuple[Any, ...]) -> Any:
    """A sort key for hands: the items' own order when they compare, else their order in
    the bag."""
    try:
        sorted(items)
        return None
    except TypeError:
        rank = {x: i for i, x in enumerate(items)}
        return rank.__getitem__


def draw_without_replacement(weights: Any, n: int, *,
                             counts: Mapping[Any, Any] | None = None) -> Distribution:
    """The exact distribution of the hand ``n`` draws without replacement take from a bag:
    each draw picks one of the copies left with chance proportional to its item's weight
    (Wallenius). Outcomes are sorted tuples of the items drawn; ``weights`` maps each item
    to its weight (ints, Fractions, floats read exactly), or is a
    :class:`~chancekit.sampling.ChanceTree` (its current contents); ``counts`` gives
    several copies of an item (default one each). Equal to icepool's
    ``Wallenius(...).deal(n)``. Cost: see the module docstring.

    >>> draw_without_replacement({"a": 3, "b": 1}, 1).pmf()
    {('a',): Fraction(3, 4), ('b',): Fraction(1, 4)}
    >>> draw_without_replacement({"a": 1, "b": 1}, 2, counts={"a": 2}).pmf()[("a", "a")]
    Fraction(1, 3)
    """
    items, ws, cs = _bag(weights, counts)
    total = sum(cs)
    n = require_int("n", n, lo=0, hi=total)
    groups = _groups(items, ws, cs)
    gw = [w for w, _ in groups]
    sizes = [sum(c for _, c in members) for _, members in groups]
    states = _states_bound(sizes, n)
    if states > MAX_BAG_STATES:
        raise LimitError(f"a bag of {len(items):,} items in {len(groups):,} weight groups "
                         f"drawn {n:,} times has up to {states:,} states, more than "
                         f"MAX_BAG_STATES = {MAX_BAG_STATES:,}; give items the same weight "
                         "(tiers) or draw fewer", limit="MAX_BAG_STATES", value=states)
    hands = _hands(cs, n)
    if hands > MAX_BAG_HANDS:
        raise LimitError(f"{n:,} draws from a bag of {len(items):,} items have up to "
                         f"{hands:,} different hands, more than MAX_BAG_HANDS = "
                         f"{MAX_BAG_HANDS:,}; ask about fewer draws or one item "
                         "(first_draw)", limit="MAX_BAG_HANDS", value=hands)
    if n == 0:
        return Distribution({(): 1})
    layer = _chain(gw, sizes, n)
    # within a group: the hypergeometric deal of m copies, as (sorted items, ways)
    deals: list[dict[int, list[tuple[tuple[Any, ...], int]]]] = []
    for _, members in groups:
        per: dict[int, list[tuple[tuple[Any, ...], int]]] = {}
        for take in itertools.product(*(range(c + 1) for _, c in members)):
            m = sum(take)
            if m > n:
                continue
            ways = math.prod(math.comb(c, t) for (_, c), t in zip(members, take, strict=True))
            hand = tuple(x for (x, _), t in zip(members, take, strict=True) for _ in range(t))
            per.setdefault(m, []).append((hand, ways))
        deals.append(per)
    # integer weights: P(m) / prod C(size, m) over one common denominator
    scaled = {m: p / math.prod(math.comb(s, x) for s, x in zip(sizes, m, strict=True))
              for m, p in layer.items()}
    den = math.lcm(*(f.denominator for f in scaled.values()))
    key = _order(items)
    out: dict[tuple[Any, ...], int] = {}
    for m, f in scaled.items():
        base = f.numerator * (den // f.denominator)
        lists = [deals[c][x] for c, x in enumerate(m)]
        if all(w == 1 for got in lists for _, w in got):  # one way each (single copies)
            chain = itertools.chain.from_iterable
            for combo in itertools.product(*([h for h, _ in got] for got in lists)):
                out[tuple(sorted(chain(combo), key=key))] = base  # hands never repeat
            continue
        for parts in itertools.product(*lists):
            ways = base
            hand: list[Any] = []
            for h, w in parts:
                ways *= w
                hand += h
            t = tuple(sorted(hand, key=key))
            out[t] = out.get(t, 0) + ways
    return Distribution._raw(out)  # positive integer weights: reduced by their gcd


def first_draw(weights: Any, item: Any, *, counts: Mapping[Any, Any] | None = None
               ) -> Distribution:
    """The exact distribution of the draw (1, 2, ...) at which ``item`` first comes out of
    the bag, drawing without replacement until it does (Wallenius). One chain over the
    other groups' draw counts; cost as :func:`draw_without_replacement`.

    >>> first_draw({"a": 1, "b": 2}, "a").pmf()
    {1: Fraction(1, 3), 2: Fraction(2, 3)}
    """
    items, ws, cs = _bag(weights, counts)
    if item not in items:
        raise InvalidValueError("item", item, f"an item of the bag with a weight and a copy "
                                f"({', '.join(quote(x, limit=20) for x in items[:8])})")
    at = items.index(item)
    rest = [i for i in range(len(items)) if i != at]
    groups = _groups(tuple(items[i] for i in rest), tuple(ws[i] for i in rest),
                     tuple(cs[i] for i in rest))
    gw = [w for w, _ in groups]
    sizes = [sum(c for _, c in members) for _, members in groups]
    states = _states_bound(sizes, sum(sizes))
    if states > MAX_BAG_STATES:
        raise LimitError(f"the bag's chain has up to {states:,} states, more than "
                         f"MAX_BAG_STATES = {MAX_BAG_STATES:,}; give items the same weight "
                         "(tiers)", limit="MAX_BAG_STATES", value=states)
    mine = ws[at] * cs[at]
    total = mine + sum(w * s for w, s in zip(gw, sizes, strict=True))
    layer: dict[tuple[int, ...], Fraction] = {tuple(0 for _ in gw): Fraction(1)}
    out: dict[int, Fraction] = {}
    t = 0
    while layer:
        t += 1
        nxt: dict[tuple[int, ...], Fraction] = {}
        hit = Fraction(0)
        for m, p in layer.items():
            left = total - sum(w * x for w, x in zip(gw, m, strict=True))
            hit += p * Fraction(mine, left)
            for c, (w, s) in enumerate(zip(gw, sizes, strict=True)):
                if m[c] < s:
                    key = (*m[:c], m[c] + 1, *m[c + 1:])
                    nxt[key] = nxt.get(key, 0) + p * Fraction(w * (s - m[c]), left)
        if hit:
            out[t] = hit
        layer = nxt
    return Distribution(out)
