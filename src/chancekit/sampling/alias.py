"""Exact alias tables (Vose's alias method in whole numbers).

An :class:`AliasTable` over ``n`` labels with integer weights ``w`` (total ``W``) has ``n``
columns of capacity ``T`` (``T`` = ``W`` divided by a common factor). Column ``j`` keeps its
own label ``j`` when a uniform integer ``r`` in ``[0, T)`` is below its threshold ``t[j]``,
otherwise it gives its alias. A draw is one uniform integer ``u`` in ``[0, n*T)``: column
``u // T``, ``r = u % T``. Because the construction moves whole units only, the probability
of each label is *exactly* ``w[i] / W``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from chancekit.errors import InvalidValueError, StateError
from chancekit.rng._resolve import resolve_rng
from chancekit.sampling._weights import integer_weights

__all__ = ["AliasTable", "vose_integer"]

_U32 = 1 << 32
_U64 = 1 << 64


def vose_integer(masses: list[int], capacity: int) -> tuple[list[int], list[int]]:
    """Vose's construction in whole numbers: ``len(masses)`` columns of ``capacity`` units,
    ``sum(masses) == len(masses) * capacity``. Returns ``(thresholds, aliases)``: column
    ``j`` keeps item ``j`` with ``thresholds[j]`` units (``0 <= t <= capacity``) and gives
    ``aliases[j]`` for the rest. Column ``j``'s own item is always ``j``. O(n).

    Why it never fails: while items remain, their masses average ``capacity``, so there is
    an item at or below it (small) and one at or above it (large); the small one fills its
    own column and the large one tops it up, staying ``>= 0``.

    >>> vose_integer([1, 5, 0], 2)
    ([1, 2, 0], [1, 1, 1])
    """
    n = len(masses)
    if sum(masses) != n * capacity:
        raise InvalidValueError(f"masses must sum to {n} * {capacity}, not {sum(masses)}")
    rest = list(masses)
    thresholds = [capacity] * n
    aliases = list(range(n))
    small = [i for i in range(n) if rest[i] < capacity]
    large = [i for i in range(n) if rest[i] > capacity]
    while small and large:
        s = small.pop()
        g = large[-1]
        thresholds[s] = rest[s]
        aliases[s] = g
        rest[g] -= capacity - rest[s]
        if rest[g] < capacity:
            large.pop()
            small.append(g)
        elif rest[g] == capacity:
            large.pop()
    # anything left is exactly full (whole-number arithmetic leaves no float crumbs)
    for j in range(n):
        if aliases[j] == j:
            thresholds[j] = capacity
    return thresholds, aliases


class AliasTable:
    """An exact alias table: O(1) weighted draws, each label with probability exactly
    ``weight / total``.

    ``weights``: a mapping ``label -> weight``, a sequence of weights (labels ``0..n-1``),
    or a distribution (``.weights`` mapping or ``.pmf()``). Weights are ``int``,
    ``Fraction`` or finite ``float`` -- floats are converted exactly (``Fraction(0.1)`` is
    ``3602879701896397/36028797018963968``), so the table realises what the float holds.
    Labels with weight 0 are kept (probability 0, never drawn). Build: O(n). The table is
    an immutable, hashable value.

    >>> t = AliasTable({"sword": 5, "shield": 3, "potion": 12})
    >>> t.probability("potion")
    Fraction(3, 5)
    >>> t.draw(42) in {"sword", "shield", "potion"}
    True
    >>> t.draw_array(7, 5).tolist()
    ['sword', 'shield', 'potion', 'potion', 'sword']
    """

    __slots__ = (
        "_aliases",
        "_cap",
        "_cut",
        "_hash",
        "_index",
        "_labels",
        "_n",
        "_np",
        "_thresholds",
        "_total",
        "_weights",
    )

    def __init__(self, weights: Any) -> None:
        labels, ints = integer_weights(weights, what="weights")
        n = len(ints)
        total = sum(ints)
        # masses in units of 1/(n*cap): mass_i = n * w_i, cap = total (then divide by the
        # gcd of everything, which keeps thresholds whole)
        masses = [n * w for w in ints]
        cap = total
        thresholds, aliases = vose_integer(masses, cap)
        g = cap
        for t in thresholds:
            g = math.gcd(g, t)
        if g > 1:
            cap //= g
            thresholds = [t // g for t in thresholds]
        index: dict[Any, int] = {}
        for i, lab in enumerate(labels):
            try:
                if lab in index:
                    raise InvalidValueError(f"weights: label {lab!r} appears twice")
            except TypeError:
                raise InvalidValueError(f"weights: label {lab!r} is not hashable") from None
            index[lab] = i
        self._labels = labels
        self._index = index
        self._weights = ints
        self._total = total
        self._n = n
        self._cap = cap
        self._thresholds = tuple(thresholds)
        self._aliases = tuple(aliases)
        # cut[j] = j*cap + t[j]: the single-draw rule is "u < cut[u // cap] -> own"
        self._cut = tuple(j * cap + t for j, t in enumerate(thresholds))
        self._np: Any = None
        self._hash: int | None = None

    # -- the value --------------------------------------------------------------------
    @property
    def labels(self) -> tuple[Any, ...]:
        """The labels, in the order given."""
        return self._labels

    @property
    def thresholds(self) -> tuple[int, ...]:
        """Column thresholds in units of ``1/capacity`` (keep own label if ``r < t``)."""
        return self._thresholds

    @property
    def aliases(self) -> tuple[Any, ...]:
        """Each column's alias label."""
        return tuple(self._labels[a] for a in self._aliases)

    @property
    def capacity(self) -> int:
        """Units per column: a draw is ``r`` uniform in ``[0, capacity)`` within a column."""
        return self._cap

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Any]:
        return iter(self._labels)

    def probability(self, label: Any) -> Fraction:
        """The exact probability of ``label`` (``weight / total``). O(1).

        >>> AliasTable([1, 2, 3]).probability(2)
        Fraction(1, 2)
        """
        i = self._lookup(label)
        return Fraction(self._weights[i], self._total)

    def realized(self) -> dict[Any, Fraction]:
        """Enumerate the table: each label's probability as the columns realise it
        (equals :meth:`probability`; used by the tests as an independent check). O(n).

        >>> AliasTable({"a": 1, "b": 3}).realized()
        {'a': Fraction(1, 4), 'b': Fraction(3, 4)}
        """
        units = [0] * self._n
        for j, (t, a) in enumerate(zip(self._thresholds, self._aliases, strict=True)):
            units[j] += t
            units[a] += self._cap - t
        denom = self._n * self._cap
        return {lab: Fraction(u, denom) for lab, u in zip(self._labels, units, strict=True)}

    def _lookup(self, label: Any) -> int:
        try:
            return self._index[label]
        except (KeyError, TypeError):
            raise InvalidValueError(f"unknown label {label!r}; the table's labels are "
                                    f"{list(self._labels)[:10]!r}"
                                    f"{' ...' if self._n > 10 else ''}") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AliasTable):
            return NotImplemented
        return self._labels == other._labels and self._weights == other._weights

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._labels, self._weights))
        return self._hash

    def __repr__(self) -> str:
        pairs = list(zip(self._labels, self._weights, strict=True))[:6]
        body = ", ".join(f"{lab!r}: {w}" for lab, w in pairs)
        more = ", ..." if self._n > 6 else ""
        return f"AliasTable({{{body}{more}}})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._labels, self._weights))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_np", "_hash") or not hasattr(self, name):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("AliasTable is immutable")

    # -- drawing ------------------------------------------------------------------------
    def draw_index(self, rng: Any = None) -> int:
        """The index of a drawn label. O(1): one bounded integer ``u`` in ``[0, n*T)``
        (``rng.randbelow(n*T)``: one 32-bit word, or a pair of words when ``n*T`` is below
        ``2**64``), then column ``u // T`` keeps its label if ``u % T`` is below its
        threshold; beyond ``2**64`` two bounded integers (the column, then ``r``).

        >>> AliasTable([0, 1, 0]).draw_index(1)
        1
        """
        rng = resolve_rng(rng)
        cap = self._cap
        span = self._n * cap
        if span < _U64:
            u = rng.randbelow(span)
            j = u // cap
            return j if u < self._cut[j] else self._aliases[j]
        j = rng.randbelow(self._n)
        return j if rng.randbelow(cap) < self._thresholds[j] else self._aliases[j]

    def draw(self, rng: Any = None) -> Any:
        """One label, with probability exactly ``weight / total``. O(1).

        ``rng``: ``None`` (process default), an integer seed, or a ``PCG32``.

        >>> t = AliasTable({"a": 1, "b": 1})
        >>> t.draw(3) in ("a", "b")
        True
        """
        return self._labels[self.draw_index(rng)]

    def _arrays(self) -> Any:
        if self._np is None:
            import numpy as np

            n = self._n
            cap = self._cap
            span = n * cap
            if span < _U32:
                cut: Any = np.array(self._cut, dtype=np.uint32)
            elif span < _U64:
                cut = np.array(self._cut, dtype=np.uint64)
            else:
                cut = None
            thr: Any = np.array(self._thresholds, dtype=np.uint64) if cap <= _U64 else None
            ali = np.array(self._aliases, dtype=np.uint32 if span < _U32 else np.uint64)
            labels_np: Any = None
            kinds = {type(lab) for lab in self._labels}
            if not (kinds == {int} and self._labels == tuple(range(n))):
                if len(kinds) == 1 and kinds <= {int, str, float}:
                    labels_np = _typed_labels(np, self._labels, kinds.pop())
                if labels_np is None:
                    labels_np = np.empty(n, dtype=object)
                    labels_np[:] = list(self._labels)
            self._np = (cut, thr, ali, labels_np)
        return self._np

    def draw_indices(self, rng: Any, n: int) -> Any:
        """``n`` label indices as a numpy array, vectorised. O(n).

        While ``len(table) * capacity`` is below ``2**64`` (always for integer weights
        of moderate size, and for most float weights) the result equals ``n`` calls of
        :meth:`draw_index` -- same values, same words consumed. Beyond that the columns
        and the in-column integers are drawn in two bulk passes (exact, another order of
        words), or, for capacities beyond ``2**64`` (floats spanning hundreds of binary
        orders of magnitude), by a Python loop.

        >>> from chancekit.rng import PCG32
        >>> t = AliasTable([1, 2, 3]); g = PCG32(5)
        >>> t.draw_indices(PCG32(5), 4).tolist() == [t.draw_index(g) for _ in range(4)]
        True
        """
        import numpy as np

        from chancekit._validate import require_int

        n = require_int("n", n, lo=0)
        rng = resolve_rng(rng)
        cut, thr, ali, _ = self._arrays()
        cap = self._cap
        k = self._n
        span = k * cap
        if span < _U32:
            u = rng.randbelow_array(span, n)
            j = u // np.uint32(cap)
            return np.where(u < cut[j], j, ali[j])
        if span < _U64:
            u = _randbelow64_array(rng, span, n)
            j = u // np.uint64(cap)
            return np.where(u < cut[j], j, ali[j])
        if thr is None:
            return np.array([self.draw_index(rng) for _ in range(n)], dtype=np.int64)
        j = rng.randbelow_array(k, n).astype(np.uint64)
        r = (rng.randbelow_array(cap, n).astype(np.uint64) if cap <= _U32
             else _randbelow64_array(rng, cap, n))
        return np.where(r < thr[j], j, ali[j])

    def draw_array(self, rng: Any, n: int) -> Any:
        """``n`` labels as a numpy array (the indices themselves when the labels are
        ``0..n-1``), vectorised; same distribution as :meth:`draw`. O(n).

        >>> AliasTable({"x": 1, "y": 0}).draw_array(1, 3).tolist()
        ['x', 'x', 'x']
        """
        idx = self.draw_indices(rng, n)
        labels_np = self._arrays()[3]
        return idx if labels_np is None else labels_np[idx]


def _typed_labels(np: Any, labels: tuple[Any, ...], kind: type) -> Any:
    """``labels`` as a typed numpy array, or None when numpy would not give them back
    unchanged (ints past int64 turn into floats; strings lose trailing NUL characters)."""
    try:
        arr = np.array(labels)
    except (OverflowError, ValueError):
        return None
    if arr.dtype.kind not in {int: "iu", str: "U", float: "f"}[kind]:
        return None
    if kind is not float and arr.tolist() != list(labels):
        return None
    return arr


def _randbelow64_array(rng: Any, bound: int, n: int) -> Any:
    """``n`` draws of ``rng.randbelow(bound)`` for ``2**32 < bound <= 2**64`` as uint64,
    vectorised and equal to the scalar calls (same values, same words consumed): a pair of
    words ``w0 | w1 << 32`` is accepted when at least ``(2**64 - bound) % bound`` and
    reduced modulo ``bound``. Needs a generator with ``getstate``/``setstate``/``advance``
    (a ``PCG32``); other sources fall back to scalar calls."""
    import numpy as np

    if not all(hasattr(rng, a) for a in ("u32_array", "getstate", "setstate", "advance")):
        return np.array([rng.randbelow(bound) for _ in range(n)], dtype=np.uint64)
    threshold = (_U64 - bound) % bound
    accept = 1.0 - threshold / _U64
    parts = []
    have = 0
    while have < n:
        need = n - have
        m = int(need / accept * 1.01) + 16
        start = rng.getstate()
        w = rng.u32_array(2 * m).astype(np.uint64)
        v = w[0::2] | (w[1::2] << np.uint64(32))
        if threshold:
            ok = np.flatnonzero(v >= np.uint64(threshold))
            if len(ok) >= need:
                used = int(ok[need - 1]) + 1
                rng.setstate(start)
                rng.advance(2 * used)
                v = v[ok[:need]]
            else:
                v = v[ok]
        else:
            v = v[:need]
            if len(v) == need:
                rng.setstate(start)
                rng.advance(2 * need)
        parts.append(v % np.uint64(bound) if bound < _U64 else v)
        have += len(v)
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)


def _rebuild(labels: tuple[Any, ...], weights: tuple[int, ...]) -> AliasTable:
    if len(labels) != len(weights):
        raise StateError("AliasTable state: labels and weights differ in length")
    return AliasTable(dict(zip(labels, weights, strict=True)))
