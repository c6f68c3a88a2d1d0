"""The chance tree: a weighted collection with O(log n) add, remove, change and draw.

A binary-indexed (Fenwick) tree over slots ``0..n-1`` holds prefix sums of whole-number
weights; Fraction weights are kept as integers over a common denominator, so millions of
updates never accumulate rounding drift. Removing an item moves the last item into its
slot, so slots stay compact. :class:`SwapFilter` (``tree.swap_filter(L)``) holds out the
last ``L`` drawn items.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from fractions import Fraction
from typing import Any

from chancekit import _state
from chancekit.errors import (
    InvalidTypeError,
    InvalidValueError,
    LimitError,
    StateError,
    quote,
)
from chancekit.limits import MAX_TOTAL_BITS
from chancekit.rng.source import as_source
from chancekit.sampling._weights import MAX_TABLE_BITS, exact_weight

__all__ = ["MAX_TOTAL_BITS", "ChanceTree", "SwapFilter"]

_VERSION = 1
#: saved-state format names (``to_dict``; docs/reproducibility.md)
TREE_FORMAT = "chancekit.chance-tree"
SWAP_FORMAT = "chancekit.swap-filter"



def _check_total(total: int, scale: int, count: int) -> None:
    """Refuse a total past :data:`MAX_TOTAL_BITS`, or a common denominator past
    :data:`~chancekit.sampling._weights.MAX_TABLE_BITS` (labels x its bits)."""
    bits = total.bit_length()
    if bits > MAX_TOTAL_BITS:
        raise LimitError(f"ChanceTree: the total weight over the common denominator would "
                         f"have {bits:,} bits, past MAX_TOTAL_BITS = {MAX_TOTAL_BITS:,} "
                         "(each draw reads that many random bits); use weights of a "
                         "sensible size (ratios, rounded fractions)",
                         limit="MAX_TOTAL_BITS", value=bits)
    if scale.bit_length() * count > MAX_TABLE_BITS:
        raise LimitError(f"ChanceTree: the common denominator of the weights has "
                         f"{scale.bit_length():,} bits; x {count:,} items is past "
                         f"MAX_TABLE_BITS = {MAX_TABLE_BITS:,}; round the weights first",
                         limit="MAX_TABLE_BITS", value=scale.bit_length() * count)


class ChanceTree:
    """Items with exact weights; draws with probability ``weight / total``.

    Every operation is O(log n): :meth:`add`, :meth:`remove`, :meth:`set_weight`,
    :meth:`draw`, :meth:`pop`, :meth:`probability` (adding may double the storage:
    amortised O(log n)). A weight with a new denominator rescales every stored weight once
    (O(n)); integer weights never do. Weights are ``int``, ``Fraction`` or finite
    ``float`` (converted exactly); zero is allowed (never drawn). Items must be hashable
    and distinct.

    >>> tree = ChanceTree({"goblin": 6, "orc": 3, "dragon": 1})
    >>> tree.probability("dragon")
    Fraction(1, 10)
    >>> from chancekit.rng import PCG32
    >>> tree.set_weight("dragon", 0); tree.draw(PCG32(7)) in ("goblin", "orc")
    True
    >>> len(tree), sorted(tree)
    (3, ['dragon', 'goblin', 'orc'])
    """

    __slots__ = ("_cap", "_items", "_scale", "_slot", "_total", "_tree", "_w")

    def __init__(self, items: Any = None) -> None:
        self._items: list[Any] = []
        self._w: list[int] = []          # stored (scaled) weight per slot
        self._slot: dict[Any, int] = {}
        self._cap = 1
        self._tree = [0, 0]              # 1-based Fenwick array, length cap + 1
        self._total = 0
        self._scale = 1                  # weight = stored / scale
        if items is not None:
            try:
                pairs = list(items.items()) if hasattr(items, "items") else list(items)
            except TypeError:  # not iterable (e.g. a bare number)
                raise InvalidTypeError("items", items, "a mapping item -> weight or an "
                                       "iterable of (item, weight) pairs") from None
            for pair in pairs:
                if not (isinstance(pair, tuple) and len(pair) == 2):
                    raise InvalidTypeError("items", items, "a mapping item -> weight or an "
                                           "iterable of (item, weight) pairs")
            checked = [(it, exact_weight(f"weight of {it!r}", w)) for it, w in pairs]
            seen: set[Any] = set()
            for it, _ in checked:
                _hashable(it)
                if it in seen:
                    raise InvalidValueError(f"item {it!r} appears twice")
                seen.add(it)
            scale = 1
            count = len(checked)
            for _, w in checked:
                scale = scale * w.denominator // math.gcd(scale, w.denominator)
                _check_total(0, scale, count)
            total = 0
            for _, w in checked:
                total += w.numerator * (scale // w.denominator)
                _check_total(total, scale, count)
            self._scale = scale
            self._items = [it for it, _ in checked]
            self._w = [int(w * scale) for _, w in checked]
            self._slot = {it: i for i, it in enumerate(self._items)}
            self._rebuild(max(1, len(self._items)))

    # -- internals ----------------------------------------------------------------------
    def _rebuild(self, need: int) -> None:
        cap = 1
        while cap < need:
            cap <<= 1
        tree = [0] * (cap + 1)
        for i, w in enumerate(self._w):
            tree[i + 1] = w
        for i in range(1, cap + 1):  # O(n) Fenwick construction
            j = i + (i & -i)
            if j <= cap:
                tree[j] += tree[i]
        self._cap, self._tree = cap, tree
        self._total = sum(self._w)

    def _scaled(self, weight: Any, item: Any) -> int:
        if weight.__class__ is int and weight >= 0 and self._scale == 1:
            return weight  # type: ignore[no-any-return]
        w = exact_weight(f"weight of {item!r}", weight)
        if w.numerator.bit_length() > MAX_TOTAL_BITS:
            _check_total(w.numerator, 1, 1)
        if self._scale % w.denominator:
            factor = w.denominator // math.gcd(self._scale, w.denominator)
            _check_total(self._total * factor, self._scale * factor, len(self._items) + 1)
            self._scale *= factor
            self._w = [x * factor for x in self._w]
            self._tree = [x * factor for x in self._tree]
            self._total *= factor
        return int(w * self._scale)

    def _update(self, i: int, d: int) -> None:
        tree, cap = self._tree, self._cap
        i += 1
        while i <= cap:
            tree[i] += d
            i += i & -i
        self._total += d

    # -- mutation -------------------------------------------------------------------------
    def add(self, item: Hashable, weight: Any) -> None:
        """Add ``item`` with ``weight``. O(log n) amortised.

        >>> t = ChanceTree(); t.add("a", 2); t.add("b", Fraction(1, 2)); t.probability("b")
        Fraction(1, 5)
        """
        _hashable(item)
        if item in self._slot:
            raise InvalidValueError(f"item {item!r} is already in the tree "
                                    "(use set_weight to change its weight)")
        w = self._scaled(weight, item)
        if (self._total + w).bit_length() > MAX_TOTAL_BITS:
            _check_total(self._total + w, 1, 1)
        self._add_scaled(item, w)

    def _add_scaled(self, item: Any, w: int) -> None:
        slot = len(self._items)
        if slot >= self._cap:
            self._items.append(item)
            self._w.append(w)
            self._slot[item] = slot
            self._rebuild(self._cap * 2)
            return
        self._items.append(item)
        self._w.append(w)
        self._slot[item] = slot
        self._update(slot, w)

    def remove(self, item: Hashable) -> None:
        """Remove ``item``. O(log n).

        >>> t = ChanceTree({"a": 1, "b": 2}); t.remove("a"); list(t)
        ['b']
        """
        self._remove_scaled(item)

    def _remove_scaled(self, item: Any) -> int:
        slot = self._lookup(item)
        del self._slot[item]
        w = self._w[slot]
        last = len(self._items) - 1
        if slot != last:
            moved, mw = self._items[last], self._w[last]
            self._items[slot], self._w[slot] = moved, mw
            self._slot[moved] = slot
            self._update(slot, mw - w)
            self._update(last, -mw)
        else:
            self._update(slot, -w)
        self._items.pop()
        self._w.pop()
        return w

    def set_weight(self, item: Hashable, weight: Any) -> None:
        """Change ``item``'s weight. O(log n).

        >>> t = ChanceTree({"a": 1, "b": 1}); t.set_weight("a", 3); t.probability("a")
        Fraction(3, 4)
        """
        try:
            slot = self._slot[item]
        except (KeyError, TypeError):
            self._lookup(item)
            raise  # pragma: no cover
        if weight.__class__ is int and weight >= 0 and self._scale == 1:
            w = weight
        else:
            w = self._scaled(weight, item)
        d = w - self._w[slot]
        if d > 0 and (self._total + d).bit_length() > MAX_TOTAL_BITS:
            _check_total(self._total + d, 1, 1)
        self._w[slot] = w
        tree, cap = self._tree, self._cap
        i = slot + 1
        while i <= cap:
            tree[i] += d
            i += i & -i
        self._total += d

    # -- queries ----------------------------------------------------------------------------
    def weight(self, item: Hashable) -> int | Fraction:
        """``item``'s weight (an ``int`` when every weight is whole). O(1)."""
        w = self._w[self._lookup(item)]
        return w if self._scale == 1 else Fraction(w, self._scale)

    def probability(self, item: Hashable) -> Fraction:
        """``weight / total``, exactly. O(1). An empty total gives 0."""
        w = self._w[self._lookup(item)]
        return Fraction(w, self._total) if self._total else Fraction(0)

    @property
    def total(self) -> int | Fraction:
        """The sum of the weights."""
        return self._total if self._scale == 1 else Fraction(self._total, self._scale)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._items))

    def __contains__(self, item: object) -> bool:
        try:
            return item in self._slot
        except TypeError:
            return False

    def items(self) -> list[tuple[Any, int | Fraction]]:
        """``[(item, weight), ...]`` in slot order."""
        if self._scale == 1:
            return list(zip(self._items, self._w, strict=True))
        return [(it, Fraction(w, self._scale)) for it, w in zip(self._items, self._w, strict=True)]

    def _lookup(self, item: Any) -> int:
        try:
            return self._slot[item]
        except (KeyError, TypeError):
            raise InvalidValueError(f"unknown item {item!r}: not in the tree") from None

    # -- drawing ------------------------------------------------------------------------
    def draw(self, rng: Any = None) -> Any:
        """An item with probability ``weight / total``: one ``randbelow(total)`` and a
        descent of the tree. O(log n).

        >>> from chancekit.rng import PCG32
        >>> ChanceTree({"only": 1, "never": 0}).draw(PCG32(5))
        'only'
        """
        total = self._total
        if total <= 0:
            raise InvalidValueError("cannot draw: the tree is empty or every weight is 0")
        r = as_source(rng).randbelow(total)
        tree = self._tree
        pos = 0
        step = self._cap
        while step:
            nxt = pos + step
            t = tree[nxt]
            if t <= r:
                pos = nxt
                r -= t
            step >>= 1
        return self._items[pos]

    def draw_many(self, n: int, rng: Any = None) -> list[Any]:
        """``n`` independent draws (with replacement) as a list, equal to ``n`` calls of
        :meth:`draw`. O(n log(size)).

        >>> from chancekit.rng import PCG32
        >>> ChanceTree({"only": 1, "never": 0}).draw_many(3, PCG32(5))
        ['only', 'only', 'only']
        """
        from chancekit._validate import require_int

        n = require_int("n", n, lo=0)
        rng = as_source(rng)
        return [self.draw(rng) for _ in range(n)]

    def pop(self, rng: Any = None) -> Any:
        """Draw an item and remove it (drawing without replacement). O(log n).

        >>> from chancekit.rng import PCG32
        >>> t = ChanceTree({"a": 1, "b": 1}); x = t.pop(PCG32(1)); len(t), x in ("a", "b")
        (1, True)
        """
        item = self.draw(rng)
        self.remove(item)
        return item

    def swap_filter(self, length: int, *, key: Callable[[Any], Any] | None = None
                    ) -> SwapFilter:
        """A :class:`SwapFilter` over this tree holding out the last ``length`` draws."""
        return SwapFilter(self, length, key=key)

    # -- state ------------------------------------------------------------------------------
    def getstate(self) -> tuple[Any, ...]:
        """``(version, scale, [(item, stored_weight), ...])``; weight = stored / scale."""
        return (_VERSION, self._scale, list(zip(self._items, self._w, strict=True)))

    def setstate(self, state: Any) -> None:
        """Restore :meth:`getstate`; a malformed state raises
        :class:`~chancekit.errors.StateError` and changes nothing."""
        try:
            version, scale, pairs = state
            pairs = [(it, w) for it, w in pairs]
        except (TypeError, ValueError):
            raise StateError("ChanceTree state must be (version, scale, [(item, weight)])") \
                from None
        if version != _VERSION:
            raise StateError(f"unknown ChanceTree state version {version!r}")
        if not isinstance(scale, int) or isinstance(scale, bool) or scale < 1:
            raise StateError(f"ChanceTree state: bad scale {scale!r}")
        for it, w in pairs:
            if not isinstance(w, int) or isinstance(w, bool) or w < 0:
                raise StateError(f"ChanceTree state: bad weight {w!r} for {it!r}")
        items = [it for it, _ in pairs]
        try:
            slots = {it: i for i, it in enumerate(items)}
        except TypeError:
            raise StateError("ChanceTree state: unhashable item") from None
        if len(slots) != len(items):
            raise StateError("ChanceTree state: duplicate items")
        _check_total(sum(w for _, w in pairs), scale, len(items))
        self._items, self._w, self._slot = items, [w for _, w in pairs], slots
        self._scale = scale
        self._rebuild(max(1, len(items)))

    # -- the saved-state format (docs/reproducibility.md, "One saved-state format") --------
    def to_dict(self) -> dict[str, Any]:
        """``{"format": "chancekit.chance-tree", "version": 1, "scale": "0x…",
        "items": [[item, "0x…"], ...]}``: items in slot order with their stored weights
        (weight = stored / scale) as hex integers of any size. Items must be JSON-saveable
        (``None``, bools, strings, ints below 2**53, finite floats, tuples of those).

        >>> t = ChanceTree({"a": 1, "b": Fraction(1, 2)}); ChanceTree.from_json(t.to_json()).items()
        [('a', Fraction(1, 1)), ('b', Fraction(1, 2))]
        """
        return {"format": TREE_FORMAT, "version": _state.VERSION,
                "scale": _state.hex_int(self._scale),
                "items": [[_state.encode_value(it, "item"), _state.hex_int(w)]
                          for it, w in zip(self._items, self._w, strict=True)]}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return _state.dump(self.to_dict())

    @staticmethod
    def _read_dict(data: Any, fmt: str = TREE_FORMAT) -> tuple[Any, ...]:
        _state.check_header(data, TREE_FORMAT, {"scale", "items"}, fmt)
        scale = _state.read_bigint(data["scale"], f"{fmt}.scale", lo=1,
                                   max_bits=MAX_TOTAL_BITS)
        return (_VERSION, scale, _read_pairs(data["items"], f"{fmt}.items"))

    def load_dict(self, data: Any) -> None:
        """Restore, in place, a tree saved by :meth:`to_dict`; anything malformed is a
        :class:`~chancekit.errors.StateError` naming the field, and changes nothing."""
        state = self._read_dict(data)
        try:
            self.setstate(state)
        except LimitError as exc:
            raise StateError(f"{TREE_FORMAT}: {exc}") from None

    def load_json(self, text: str | bytes) -> None:
        """Restore, in place, a tree saved by :meth:`to_json`."""
        self.load_dict(_state.load(text, TREE_FORMAT))

    @classmethod
    def from_dict(cls, data: Any) -> ChanceTree:
        """A tree from :meth:`to_dict`'s output."""
        tree = cls()
        tree.load_dict(data)
        return tree

    @classmethod
    def from_json(cls, text: str | bytes) -> ChanceTree:
        """A tree from :meth:`to_json`'s output."""
        return cls.from_dict(_state.load(text, TREE_FORMAT))

    def __getstate__(self) -> tuple[Any, ...]:
        return self.getstate()

    def __setstate__(self, state: Any) -> None:
        self.setstate(state)

    def __repr__(self) -> str:
        shown = ", ".join(f"{it!r}: {w}" for it, w in self.items()[:5])
        return f"ChanceTree({{{shown}{', ...' if len(self) > 5 else ''}}})"

    def _check(self) -> None:
        """Assert every invariant (used by the stress tests). O(n)."""
        n = len(self._items)
        assert len(self._w) == n == len(self._slot)
        assert all(self._slot[it] == i for i, it in enumerate(self._items))
        assert all(isinstance(w, int) and w >= 0 for w in self._w)
        assert self._cap >= max(1, n) and self._cap & (self._cap - 1) == 0
        assert len(self._tree) == self._cap + 1
        assert self._total == sum(self._w)
        for i in range(1, self._cap + 1):
            lo = i - (i & -i)
            assert self._tree[i] == sum(self._w[lo:i]), f"Fenwick node {i} is wrong"
        assert self._scale >= 1


def _read_pairs(value: Any, where: str) -> list[tuple[Any, int]]:
    """Saved ``[[item, "0x…"], ...]`` pairs, strictly."""
    if not isinstance(value, list):
        raise StateError(f"{where} must be a list of [item, weight] pairs, not "
                         f"{type(value).__name__}")
    pairs = []
    for i, pair in enumerate(value):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise StateError(f"{where}[{i}] must be a pair [item, weight], not "
                             f"{quote(pair, limit=40)}")
        item = _state.decode_value(pair[0], f"{where}[{i}][0]")
        pairs.append((item, _state.read_bigint(pair[1], f"{where}[{i}][1]",
                                               max_bits=MAX_TOTAL_BITS)))
    return pairs


def _hashable(item: Any) -> None:
    try:
        hash(item)
    except TypeError:
        raise InvalidValueError(f"item {item!r} is not hashable") from None


class SwapFilter:
    """The swap filter: the last ``length`` drawn items are held out of the tree; each
    new draw swaps with the oldest held-out item (which goes back in). O(log n) per draw.

    With one item per face and ``length=1`` a value never repeats twice in a row; with two
    copies per face and ``length=2`` triples never happen and doubles happen with long-run
    rate exactly 1/11 for a d6 (see docs/sampling.md). ``key`` maps a drawn item to the
    value reported (default: the item itself). The first ``length`` draws only fill the
    buffer. While the filter is in use, held-out items are not in the tree.

    >>> tree = ChanceTree({(face, copy): 1 for face in range(1, 7) for copy in (0, 1)})
    >>> f = tree.swap_filter(2, key=lambda item: item[0])
    >>> from chancekit.rng import PCG32
    >>> rolls = f.draw_many(1000, PCG32(11))
    >>> any(a == b == c for a, b, c in zip(rolls, rolls[1:], rolls[2:]))
    False
    """

    def __init__(self, tree: ChanceTree, length: int, *,
                 key: Callable[[Any], Any] | None = None) -> None:
        from chancekit._validate import require_int

        length = require_int("length", length, lo=0)
        positive = sum(1 for w in tree._w if w > 0)
        if length >= positive:
            raise InvalidValueError(f"length must be smaller than the number of items with "
                                    f"weight > 0 ({positive}), not {length}")
        self.tree = tree
        self.length = length
        self.key = key
        self._held: deque[tuple[Any, int]] = deque()

    @property
    def held(self) -> list[Any]:
        """The held-out items, oldest first."""
        return [it for it, _ in self._held]

    def draw(self, rng: Any = None) -> Any:
        """One filtered draw. O(log n)."""
        return self.draw_many(1, rng)[0]

    def draws(self, rng: Any, n: int) -> list[Any]:
        """Deprecated name of :meth:`draw_many` (note the old argument order ``rng, n``);
        kept working, silently."""
        return self.draw_many(n, rng)

    def draw_many(self, n: int, rng: Any = None) -> list[Any]:
        """``n`` filtered draws (equal to ``n`` calls of :meth:`draw`), in one tight loop.
        O(n log(size))."""
        from chancekit._validate import require_int

        n = require_int("n", n, lo=0)
        rng = as_source(rng)
        tree = self.tree
        held = self._held
        length = self.length
        out: list[Any] = []
        append = out.append
        randbelow = rng.randbelow
        while n and len(held) < length:  # filling the buffer: plain removals
            item = tree.draw(rng)
            held.append((item, tree._remove_scaled(item)))
            append(item)
            n -= 1
        if n:
            if tree._total <= 0:
                raise InvalidValueError("cannot draw: every item left in the tree has "
                                        "weight 0")
            # steady state: swap the drawn item (slot s) with the oldest held-out one
            items, ws, slots, ftree, cap = (tree._items, tree._w, tree._slot, tree._tree,
                                            tree._cap)
            for _ in range(n):
                total = tree._total
                r = randbelow(total)
                pos = 0
                step = cap
                while step:
                    nxt = pos + step
                    t = ftree[nxt]
                    if t <= r:
                        pos = nxt
                        r -= t
                    step >>= 1
                item = items[pos]
                w = ws[pos]
                if length:
                    back, bw = held.popleft()
                    held.append((item, w))
                    items[pos] = back
                    ws[pos] = bw
                    del slots[item]
                    slots[back] = pos
                    d = bw - w
                    if d:
                        i = pos + 1
                        while i <= cap:
                            ftree[i] += d
                            i += i & -i
                        tree._total = total + d
                append(item)
        key = self.key
        return out if key is None else [key(x) for x in out]

    def getstate(self) -> tuple[Any, ...]:
        """``(version, length, held [(item, stored_weight)], tree state)``."""
        return (_VERSION, self.length, list(self._held), self.tree.getstate())

    def setstate(self, state: Any) -> None:
        """Restore :meth:`getstate` (the tree too)."""
        try:
            version, length, held, tstate = state
            held = [(it, w) for it, w in held]
        except (TypeError, ValueError):
            raise StateError("SwapFilter state must be (version, length, held, tree)") \
                from None
        if version != _VERSION or not isinstance(length, int) or len(held) > length:
            raise StateError("SwapFilter state: bad version, length or buffer")
        self.tree.setstate(tstate)
        self.length = length
        self._held = deque(held)

    # -- the saved-state format ----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """``{"format": "chancekit.swap-filter", "version": 1, "length": L,
        "held": [[item, "0x…"], ...], "tree": {the tree's to_dict()}}`` (held items oldest
        first, with their stored weights). ``key`` is code, not state: it is not saved.

        >>> from chancekit.rng import PCG32
        >>> f = ChanceTree({"a": 1, "b": 1, "c": 1}).swap_filter(1); _ = f.draw(PCG32(1))
        >>> g = ChanceTree({"x": 1, "y": 1}).swap_filter(0); g.load_json(f.to_json())
        >>> g.held == f.held, sorted(g.tree) == sorted(f.tree)
        (True, True)
        """
        return {"format": SWAP_FORMAT, "version": _state.VERSION, "length": self.length,
                "held": [[_state.encode_value(it, "held item"), _state.hex_int(w)]
                         for it, w in self._held],
                "tree": self.tree.to_dict()}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return _state.dump(self.to_dict())

    def load_dict(self, data: Any) -> None:
        """Restore, in place, a filter (and its tree) saved by :meth:`to_dict`; anything
        malformed is a :class:`~chancekit.errors.StateError` naming the field, and changes
        nothing."""
        _state.check_header(data, SWAP_FORMAT, {"length", "held", "tree"})
        length = _state.read_int(data["length"], f"{SWAP_FORMAT}.length")
        held = _read_pairs(data["held"], f"{SWAP_FORMAT}.held")
        if len(held) > length:
            raise StateError(f"{SWAP_FORMAT}.held has {len(held)} items, more than length "
                             f"{length}")
        tstate = ChanceTree._read_dict(data["tree"], f"{SWAP_FORMAT}.tree")
        positive = sum(1 for _, w in tstate[2] + held if w > 0)
        if length >= positive:
            raise StateError(f"{SWAP_FORMAT}.length must be smaller than the number of items "
                             f"with weight > 0 ({positive}), not {length}")
        items = [it for it, _ in tstate[2]] + [it for it, _ in held]
        try:
            distinct = len(set(items)) == len(items)
        except TypeError:
            distinct = False
        if not distinct:
            raise StateError(f"{SWAP_FORMAT}.held: a held item is also in the tree or "
                             "held twice")
        try:
            self.setstate((_VERSION, length, held, tstate))
        except LimitError as exc:
            raise StateError(f"{SWAP_FORMAT}.tree: {exc}") from None

    def load_json(self, text: str | bytes) -> None:
        """Restore, in place, a filter saved by :meth:`to_json`."""
        self.load_dict(_state.load(text, SWAP_FORMAT))
