"""Exact alias tables (Vose's alias method in whole numbers).

An :class:`AliasTable` over ``n`` labels with integer weights ``w`` (total ``W``) has ``n``
columns of capacity ``T`` (``T`` = ``W`` divided by a common factor). Column ``j`` keeps its
own label ``j`` when a uniform integer ``r`` in ``[0, T)`` is below its threshold ``t[j]``,
otherwise it gives its alias. A draw is one uniform integer ``u`` in ``[0, n*T)``: column
``u // T``, ``r = u % T`` (below ``2**32`` from ``randbelow``; beyond, read lazily from the
top, two words a draw: :meth:`AliasTable._lazy_pick`). Because the construction moves
whole units only, the probability of each label is *exactly* ``w[i] / W``.

Many plain weights (256 labels or more) are built in bulk (:func:`_sweep`): by the
compiled sweep (``_vose``, C, 128-bit integers) when it was built, else with numpy (exact
integers in ``int64``, in two 64-bit words below ``2**128`` -- the usual float
probabilities, see ``_wide``), and past ``2**128`` with numpy in 32-bit limbs (see
``_limbs``); the tables are the same as :func:`vose_integer`'s either way.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from chancekit._numpy import require as _require_numpy
from chancekit.errors import InvalidValueError, StateError, quote
from chancekit.rng.source import as_source
from chancekit.rng.source import randbelow_array as _randbelow_array
from chancekit.rng.source import u32_array as _u32_array
from chancekit.sampling._weights import array_weights, integer_weights

try:  # the compiled sweep (an optional accelerator: the same tables, see _vose.c)
    from chancekit.sampling import _vose
except ImportError:  # pragma: no cover - built wherever a C compiler is found
    _vose = None

__all__ = ["AliasTable", "vose_integer"]

_U32 = 1 << 32
_U64 = 1 << 64
#: draws per numpy pass in the bulk paths (small enough for the temporaries to stay in
#: the CPU cache)
_CHUNK = 1 << 15
#: up to this many labels the lazy bulk path finds the column from 32 bits, not 64
_NARROW = 1 << 10


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
    >>> from chancekit.rng import PCG32
    >>> t.draw(PCG32(42)) in {"sword", "shield", "potion"}
    True
    >>> t.draw_array(PCG32(7), 5).tolist()
    ['sword', 'shield', 'potion', 'potion', 'sword']
    """

    __slots__ = (
        "_a",
        "_cache",
        "_cap",
        "_hash",
        "_index",
        "_labels",
        "_n",
        "_np",
        "_t",
        "_total",
        "_w",
        "_words",
    )

    def __init__(self, weights: Any) -> None:
        fast = array_weights(weights, what="weights")
        if fast is not None:  # numpy is here: the vectorised build
            from chancekit.sampling import _limbs, _wide

            labels, kind, w = fast
            n = w.shape[-1]
            if kind == "i64" and int(w.max()) * n < 2**63:
                total = int(w.sum())
            elif kind == "w64":
                total = _wide.total(w)
            else:
                total = _limbs.total(w if kind == "limbs" else _limbs.from_uint64(w, 2))
            g = math.gcd(total, n)
            cap = total // g
            if kind == "w64" and (n * cap).bit_length() >= 128:
                kind, w = "limbs", _wide.to_limbs(w, 4)
            elif kind == "i64" and n * cap >= 2**63:  # past int64 arithmetic: two words
                kind, w = "w64", _wide.from_int64(w)
            t, a = _sweep(kind, w, n // g, cap)
            words = kind == "w64"  # kept as two words; as limbs when first asked for
            index = None
        else:
            labels, ints = integer_weights(weights, what="weights")
            n = len(ints)
            total = sum(ints)
            # masses n * w_i in columns of capacity `total`, both divided by gcd(total, n):
            # that is the gcd of the capacity and every threshold (each threshold is a
            # whole combination of the masses and the capacity, and conversely), so the
            # capacity is as small as it can be.
            g = math.gcd(total, n)
            cap = total // g
            k = n // g
            thresholds, aliases = vose_integer([k * w for w in ints], cap)
            t, a, w = tuple(thresholds), tuple(aliases), ints
            words = False
            index = {}
            for i, lab in enumerate(labels):
                try:
                    if lab in index:
                        raise InvalidValueError(f"weights: label {quote(lab)} appears twice")
                except TypeError:
                    raise InvalidValueError(f"weights: label {quote(lab)} is not hashable") \
                        from None
                index[lab] = i
        self._labels = labels
        self._index = index
        self._words = words    # _w and _t are two-word vectors (see _wide)
        self._w = w            # tuple of ints, int64 array, limbs (see _limbs) or words
        self._total = total
        self._n = n
        self._cap = cap
        self._t = t            # thresholds: tuple, int64 array, limbs or words
        self._a = a            # aliases (indices): tuple or int64 array
        self._cache: dict[str, Any] = {}
        self._np: Any = None
        self._hash: int | None = None

    # -- the value --------------------------------------------------------------------
    @property
    def labels(self) -> tuple[Any, ...]:
        """The labels, in the order given."""
        if isinstance(self._labels, range):
            return self._cached("labels", lambda: tuple(self._labels))
        return self._labels  # type: ignore[no-any-return]

    @property
    def thresholds(self) -> tuple[int, ...]:
        """Column thresholds in units of ``1/capacity`` (keep own label if ``r < t``)."""
        return self._cached("thresholds", lambda: _as_tuple(self._as_limbs("t")))

    @property
    def aliases(self) -> tuple[Any, ...]:
        """Each column's alias label."""
        labels = self._labels
        return self._cached("aliases", lambda: tuple(labels[a] for a in _as_tuple(self._a)))

    @property
    def _weights(self) -> tuple[int, ...]:
        return self._cached("weights", lambda: _as_tuple(self._as_limbs("w")))

    def _as_limbs(self, name: str) -> Any:
        """``_t`` or ``_w`` as stored, or as limbs when they are two-word vectors."""
        v = self._t if name == "t" else self._w
        if not self._words:
            return v
        from chancekit.sampling import _limbs, _wide

        return self._cached("limbs_" + name,
                            lambda: _wide.to_limbs(v, _limbs.limbs_for(_wide.bit_length(v))))

    def _cached(self, key: str, make: Any) -> Any:
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = make()
        return got

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
        w = self._w
        if self._words:
            from chancekit.sampling import _wide

            wi = _wide.to_int(w, i)
        elif isinstance(w, tuple):
            wi = w[i]
        elif w.ndim == 1:
            wi = int(w[i])
        else:
            from chancekit.sampling import _limbs

            wi = _limbs.to_int(w, i)
        return Fraction(wi, self._total)

    def realized(self) -> dict[Any, Fraction]:
        """Enumerate the table: each label's probability as the columns realise it
        (equals :meth:`probability`; used by the tests as an independent check). O(n).

        >>> AliasTable({"a": 1, "b": 3}).realized()
        {'a': Fraction(1, 4), 'b': Fraction(3, 4)}
        """
        units = [0] * self._n
        for j, (t, a) in enumerate(zip(self.thresholds, _as_tuple(self._a), strict=True)):
            units[j] += t
            units[a] += self._cap - t
        denom = self._n * self._cap
        return {lab: Fraction(u, denom) for lab, u in zip(self._labels, units, strict=True)}

    def _lookup(self, label: Any) -> int:
        labels = self._labels
        if isinstance(labels, range) and label.__class__ is int and 0 <= label < self._n:
            return label  # type: ignore[no-any-return]
        if self._index is None:
            self._index = {lab: i for i, lab in enumerate(labels)}
        try:
            return self._index[label]
        except (KeyError, TypeError):
            shown = [labels[i] for i in range(min(10, self._n))]
            raise InvalidValueError(f"unknown label {quote(label)}; the table's labels are "
                                    f"{quote(shown)}"
                                    f"{' ...' if self._n > 10 else ''}") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AliasTable):
            return NotImplemented
        return self.labels == other.labels and self._weights == other._weights

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.labels, self._weights))
        return self._hash

    def __repr__(self) -> str:
        k = min(6, self._n)
        pairs = [(self._labels[i], self._weights[i]) for i in range(k)]
        body = ", ".join(f"{lab!r}: {w}" for lab, w in pairs)
        more = ", ..." if self._n > 6 else ""
        return f"AliasTable({{{body}{more}}})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.labels, self._weights))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_np", "_hash", "_index") or not hasattr(self, name):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("AliasTable is immutable")

    # -- drawing ------------------------------------------------------------------------
    def draw_index(self, rng: Any = None) -> int:
        """The index of a drawn label. O(1).

        While ``span = len(table) * capacity`` is below ``2**32`` (integer weights of
        moderate size): one bounded integer ``u = rng.randbelow(span)`` -- one 32-bit word,
        rejections aside -- then column ``u // capacity`` keeps its label iff ``u`` is below
        ``j * capacity + t[j]``. From ``2**32`` on (float weights, large integers): the lazy
        rule (:meth:`_lazy_pick`): two words make the top 64 bits of a uniform integer that
        almost always decide the draw; further words only on a tie.

        >>> from chancekit.rng import PCG32
        >>> AliasTable([0, 1, 0]).draw_index(PCG32(1))
        1
        """
        rng = as_source(rng)
        cap = self._cap
        span = self._n * cap
        if span < _U32:
            u = rng.randbelow(span)
            j = u // cap
            cut, ali = self._scalar_cut()
            return j if u < cut[j] else int(ali[j])
        x = rng.next_u32()
        x |= rng.next_u32() << 32
        return self._lazy_pick(x, rng)

    def _scalar_cut(self) -> tuple[Any, Any]:
        cut = self._cache.get("cut")
        if cut is None:
            if isinstance(self._t, tuple):
                cap = self._cap
                cut = tuple(j * cap + t for j, t in enumerate(self._t))
            else:
                cut = self._arrays()[0]
            self._cache["cut"] = cut
        return cut, self._a

    def draw(self, rng: Any = None) -> Any:
        """One label, with probability exactly ``weight / total``. O(1).

        ``rng``: ``None`` (process default) or a ``PCG32`` (or a named stream).

        >>> from chancekit.rng import PCG32
        >>> t = AliasTable({"a": 1, "b": 1})
        >>> t.draw(PCG32(3)) in ("a", "b")
        True
        """
        return self._labels[self.draw_index(rng)]

    def _arrays(self) -> Any:
        if self._np is None:
            from chancekit.sampling import _limbs

            np = _require_numpy("AliasTable's vectorised build and draws")

            n = self._n
            cap = self._cap
            span = n * cap
            t = self._as_limbs("t")
            ali: Any = np.asarray(self._a, dtype=np.int64)
            ali = ali.astype(np.uint32 if span < _U32 else np.uint64)
            lazy: Any = None
            cut: Any = None
            if span < _U32:
                if isinstance(t, tuple):
                    cut = np.array([j * cap + x for j, x in enumerate(t)], dtype=np.uint32)
                else:
                    cut = (np.arange(n, dtype=np.uint32) * np.uint32(cap)
                           + t.astype(np.uint32))
            else:
                s = span.bit_length()
                f = (1 << (s + 64)) // span
                if isinstance(t, tuple):
                    keys = np.array([min((f * (j * cap + x)) >> s, _U64 - 1)
                                     for j, x in enumerate(t)], dtype=np.uint64)
                else:
                    tl = t if t.ndim == 2 else _limbs.from_uint64(t, 2)
                    keys = _limbs.shift_down(_cut_limbs(tl, cap, f), s)
                    if f * span == 1 << (s + 64):  # a key of exactly 2**64 wrapped to 0
                        keys[-1] = np.uint64(_U64 - 1) if keys[-1] == 0 else keys[-1]
                lazy = (keys, f, s)
            labels_np: Any = None
            labels = self._labels
            if not isinstance(labels, range):
                kinds = {type(lab) for lab in labels}
                if not (kinds == {int} and labels == tuple(range(n))):
                    if len(kinds) == 1 and kinds <= {int, str, float}:
                        labels_np = _typed_labels(np, labels, kinds.pop())
                    if labels_np is None:
                        labels_np = np.empty(n, dtype=object)
                        labels_np[:] = list(labels)
            self._np = (cut, lazy, ali, labels_np)
        return self._np

    def _lazy_pick(self, x: int, rng: Any) -> int:
        """The lazy rule for ``span >= 2**32``, given the first 64-bit word ``x``.

        Let ``s = span.bit_length()`` and ``f = 2**(s+64) // span``; scale every column by
        ``f`` (capacity ``C' = f*C``, cuts ``f * (j*C + t[j])``; the ``f*span`` cells lie
        in ``[0, 2**(s+64))``, almost filling it). The draw is a uniform integer ``u`` of
        ``s + 64`` bits, read top down: ``x`` gives its top 64 bits, each further word the
        next 32 (``x = w0 | w1 << 32`` from the first two words). As soon as the bits read
        fix the answer -- ``u >= f*span`` (start again with two new words: probability
        below ``2**-63``), or the column ``u // C'`` and the side of its cut -- it is
        returned. The first 64 bits decide unless they tie with a boundary (probability
        about ``3n / 2**64``): every label gets exactly ``weight / total``.
        """
        n = self._n
        keys, f, s = self._arrays()[1]
        xn = x * n
        j = xn >> 64
        key = int(keys[j])
        if (xn & 0xFFFFFFFFFFFFFFFF) <= _U64 - 2 * n and x != key:
            return j if x < key else int(self._a[j])
        return self._lazy_exact(x, rng, f, s)

    def _lazy_exact(self, x: int, rng: Any, f: int, s: int) -> int:
        n, cap = self._n, self._cap
        bits = s + 64
        spanf = f * n * cap
        capf = f * cap
        prefix, known = x, 64
        while True:
            shift = bits - known
            lo = prefix << shift
            hi = (prefix + 1) << shift
            if lo >= spanf:  # rejected: a fresh draw
                prefix = rng.next_u32()
                prefix |= rng.next_u32() << 32
                known = 64
                continue
            if hi <= spanf:
                j = lo // capf
                if hi <= (j + 1) * capf:
                    cut = f * (j * cap + self._threshold(j))
                    if hi <= cut:
                        return j
                    if lo >= cut:
                        return int(self._a[j])
            word = rng.next_u32()
            take = min(32, bits - known)
            prefix = (prefix << take) | (word >> (32 - take))
            known += take

    def _threshold(self, j: int) -> int:
        t = self._t
        if isinstance(t, tuple):
            return t[j]  # type: ignore[no-any-return]
        from chancekit.sampling import _limbs, _wide

        if self._words:
            return _wide.to_int(t, j)
        return int(t[j]) if t.ndim == 1 else _limbs.to_int(t, j)

    def draw_indices(self, rng: Any, n: int) -> Any:
        """``n`` label indices as a numpy array, vectorised. O(n).

        The result equals ``n`` calls of :meth:`draw_index` -- same values, same words
        consumed -- for every table: below ``2**32`` through the bounded integers, beyond
        it through the lazy rule (two words a draw; the rare ties are finished one by one).

        >>> from chancekit.rng import PCG32
        >>> t = AliasTable([1, 2, 3]); g = PCG32(5)
        >>> t.draw_indices(PCG32(5), 4).tolist() == [t.draw_index(g) for _ in range(4)]
        True
        """
        np = _require_numpy("AliasTable's vectorised build and draws")

        from chancekit._validate import require_int

        n = require_int("n", n, lo=0)
        rng = as_source(rng)
        cut, _, ali, _ = self._arrays()
        cap = self._cap
        k = self._n
        span = k * cap
        if span >= _U32:
            return self._draw_lazy(rng, n)
        # in chunks of _CHUNK draws: the temporaries stay in the CPU cache (about 1.5x
        # faster than whole-array passes at 10^6 draws); the words are read in order
        out = np.empty(n, dtype=np.uint32)
        c = np.uint32(cap)
        for a in range(0, n, _CHUNK):
            m = min(_CHUNK, n - a)
            u = _randbelow32_array(rng, span, m)
            j = u // c
            np.copyto(out[a:a + m], np.where(u < cut[j], j, ali[j]))
        return out

    def _draw_lazy(self, rng: Any, count: int) -> Any:
        np = _require_numpy("AliasTable's vectorised build and draws")

        if not all(hasattr(rng, a) for a in ("u32_array", "getstate", "setstate",
                                              "advance")):
            return np.array([self.draw_index(rng) for _ in range(count)], dtype=np.int64)
        _, lazy, ali, _ = self._arrays()
        keys = lazy[0]
        n = self._n
        m32, s32, nn = np.uint64(0xFFFFFFFF), np.uint64(32), np.uint64(n)
        # the column from the top 32 bits when n is small (a boundary tie has probability
        # n / 2**32, a re-run of the rest of the chunk); else from all 64 (n / 2**63)
        narrow = n <= _NARROW
        limit = np.uint64(_U32 - n) if narrow else np.uint64(_U64 - 2 * n)
        out = np.empty(count, dtype=np.int64)
        pos = 0
        while pos < count:
            m = min(count - pos, _CHUNK)
            start = rng.getstate()
            x = _pairs(_u32_array(rng, 2 * m))
            if narrow:
                p = (x >> s32) * nn
                j = p >> s32
                low = p & m32
            else:
                p1 = (x & m32) * nn
                p2 = (x >> s32) * nn
                j = (p2 + (p1 >> s32)) >> s32
                low = p1 + (p2 << s32)  # x * n mod 2**64 (wraps)
            key = keys[j]
            res = np.where(x < key, j, ali[j])
            odd = low >= limit
            odd |= x == key
            e = int(odd.argmax())
            if not odd[e]:
                out[pos:pos + m] = res
                pos += m
                continue
            out[pos:pos + e] = res[:e]
            rng.setstate(start)
            rng.advance(2 * (e + 1))
            out[pos + e] = self._lazy_pick(int(x[e]), rng)
            pos += e + 1
        return out

    def draw_array(self, rng: Any, n: int) -> Any:
        """``n`` labels as a numpy array (the indices themselves when the labels are
        ``0..n-1``), vectorised; same distribution as :meth:`draw`. O(n).

        >>> from chancekit.rng import PCG32
        >>> AliasTable({"x": 1, "y": 0}).draw_array(PCG32(1), 3).tolist()
        ['x', 'x', 'x']
        """
        idx = self.draw_indices(rng, n)
        labels_np = self._arrays()[3]
        return idx if labels_np is None else labels_np[idx]

    def draw_many(self, n: int, rng: Any = None) -> list[Any]:
        """``n`` labels as a list: equal to ``n`` calls of :meth:`draw` (same values, same
        words consumed), through the vectorised path (:meth:`draw_array`, whose numpy
        array this is, converted). O(n).

        >>> from chancekit.rng import PCG32
        >>> AliasTable({"x": 1, "y": 0}).draw_many(3, PCG32(1))
        ['x', 'x', 'x']
        """
        return self.draw_array(rng, n).tolist()  # type: ignore[no-any-return]


def _as_tuple(v: Any) -> tuple[int, ...]:
    if isinstance(v, tuple):
        return v
    if v.ndim == 1:
        return tuple(v.tolist())
    from chancekit.sampling import _limbs

    return tuple(_limbs.to_ints(v))


def _pairs(words: Any) -> Any:
    """Consecutive 32-bit words ``w0, w1`` as ``w0 | w1 << 32`` (uint64)."""
    np = _require_numpy("AliasTable's vectorised build and draws")

    if sys.byteorder == "little":
        return words.view(np.uint64)
    w = words.astype(np.uint64)
    return w[0::2] | (w[1::2] << np.uint64(32))


def _cut_limbs(t: Any, cap: int, f: int) -> Any:
    """``f * (j * cap + t[j])`` for every column ``j``, as limbs."""
    from chancekit.sampling import _limbs

    np = _require_numpy("AliasTable's vectorised build and draws")

    n = t.shape[1]
    bits = (f * n * cap).bit_length() + 1
    limbs = _limbs.limbs_for(bits)
    j = _limbs.from_uint64(np.arange(n, dtype=np.uint64), 2)
    cut = _limbs.mul_big(j, cap, limbs)
    cut[: t.shape[0]] += t[:limbs]
    _limbs.normalize(cut)
    return cut if f == 1 else _limbs.mul_big(cut, f, limbs)


def _sweep(kind: str, w: Any, k: int, cap: int) -> tuple[Any, Any]:
    """Vose's construction (exactly :func:`vose_integer`'s tables) in numpy passes.

    Masses ``k * w``, columns of ``cap``. :func:`vose_integer` pops the lights (mass below
    ``cap``) from the highest index down and tops each up from the current heavy, the
    highest-index heavy left; a heavy that falls below ``cap`` is the next light (topped
    up by the next heavy). With the lights' deficits ``d`` and the heavies' excesses
    ``e`` in that order and their running sums ``D``, ``E``: light ``j`` is topped up by
    heavy ``i = min{i : E[i] > D[j-1]}``, and heavy ``i`` ends with deficit
    ``D[J] - E[i]``, ``J = min{j : D[j] >= E[i]}`` (then its alias is heavy ``i + 1``).
    Two cumulative sums and one merge of the two sorted sums (``_limbs.merge_ranks``):
    O(n) numpy passes, no Python loop (or the compiled sweep, when built).
    ``kind`` is ``"i64"`` (only while ``n * cap < 2**63``; larger int64 weights come as
    two words), ``"w64"`` or ``"limbs"``. Returns thresholds (int64 array, two words or
    limbs) and aliases (int64 array).
    """
    from chancekit.sampling import _limbs

    np = _require_numpy("AliasTable's vectorised build and draws")

    n = w.shape[-1]
    if kind == "i64" and n * cap >= 2**63:
        raise AssertionError("int64 weights past n * cap = 2**63 are swept as two words")
    if _vose is not None and kind in ("i64", "w64"):
        return _sweep_compiled(kind, w, k, cap)
    ali = np.arange(n, dtype=np.int64)
    if kind == "i64":
        m = w * k
        light = np.flatnonzero(m < cap)[::-1]
        heavy = np.flatnonzero(m > cap)[::-1]
        t = np.full(n, cap, dtype=np.int64)
        if not len(light):
            return t, ali
        d = np.cumsum(cap - m[light])
        e = np.cumsum(m[heavy] - cap)
        le, jj = _limbs.merge_ranks(e, d)
        server = np.concatenate(([0], le[:-1]))
        delta = d[jj] - e
        t[light] = m[light]
        ali[light] = heavy[server]
        t[heavy] = cap - delta
        short = np.flatnonzero(delta > 0)
        ali[heavy[short]] = heavy[short + 1]
        return t, ali
    if kind == "w64":
        return _sweep_wide(w, k, cap)
    limbs = _limbs.limbs_for((n * cap).bit_length() + 1)
    m = np.zeros((max(limbs, w.shape[0]), n), dtype=np.uint64)
    m[: w.shape[0]] = w
    limbs = m.shape[0]
    m *= np.uint64(k)  # k < 2**31: no limb overflows before the carries
    _limbs.normalize(m)
    c = _limbs.from_int(cap, limbs)
    sign = _limbs.compare_int(m, cap)
    light = np.flatnonzero(sign < 0)[::-1]
    heavy = np.flatnonzero(sign > 0)[::-1]
    tl = _limbs.limbs_for(cap.bit_length())
    t = np.empty((tl, n), dtype=np.uint64)
    is_light = sign < 0
    for row in range(tl):  # a light keeps its own mass, the rest start full
        np.copyto(t[row], np.where(is_light, m[row], c[row]))
    if not len(light):
        return t, ali
    d = _limbs.running_gaps(m, light, c, below=True)
    e = _limbs.running_gaps(m, heavy, c, below=False)
    le, jj = _limbs.merge_ranks(e, d)
    server = np.concatenate(([0], le[:-1]))
    delta = _limbs.gather_sub(d, jj, e)
    th = _limbs.sub(c, delta)
    for row in range(tl):
        t[row, heavy] = th[row]
    ali[light] = heavy[server]
    short = np.flatnonzero(np.any(delta != 0, axis=0))
    ali[heavy[short]] = heavy[short + 1]
    return t, ali


def _sweep_compiled(kind: str, w: Any, k: int, cap: int) -> tuple[Any, Any]:
    """:func:`_sweep` by the compiled sweep (``_vose.sweep``: :func:`vose_integer`'s pops
    and pushes in unsigned 128-bit integers, one pass and one stack, the GIL released),
    for ``int64`` weights while ``n * cap < 2**63`` (thresholds ``int64``) and two-word
    vectors (thresholds two words, as limbs on demand); the same tables."""
    np = _require_numpy("AliasTable's vectorised build and draws")

    n = w.shape[-1]
    ali = np.empty(n, dtype=np.int64)
    if kind == "i64":
        t = np.empty(n, dtype=np.int64)
        _vose.sweep(w.view(np.uint64), None, k, cap, 0, t.view(np.uint64), None, ali)
        return t, ali
    t = np.empty((2, n), dtype=np.uint64)
    _vose.sweep(w[0], w[1], k, cap & (_U64 - 1), cap >> 64, t[0], t[1], ali)
    return t, ali


def _sweep_wide(w: Any, k: int, cap: int) -> tuple[Any, Any]:
    """:func:`_sweep` for masses ``k * w`` held as two 64-bit words (see ``_wide``;
    ``n * cap < 2**128``): the same passes with whole-word carries. Thresholds are
    returned as two words too."""
    from chancekit.sampling import _limbs, _wide

    np = _require_numpy("AliasTable's vectorised build and draws")

    n = w.shape[1]
    ali = np.arange(n, dtype=np.int64)
    m = np.empty_like(w)
    sign = np.empty(n, dtype=np.int8)
    for a in range(0, n, _wide.BLOCK):  # cache-sized blocks
        blk = _wide.mul_small(w[:, a:a + _wide.BLOCK], k, out=m[:, a:a + _wide.BLOCK])
        sign[a:a + _wide.BLOCK] = _wide.compare(blk, cap)
    light = np.flatnonzero(sign < 0)[::-1]
    heavy = np.flatnonzero(sign > 0)[::-1]
    if not len(light):  # every mass is exactly cap
        return m, ali
    d = _wide.running_gaps(m, light, cap, below=True)
    e = _wide.running_gaps(m, heavy, cap, below=False)
    s = max(0, max(_wide.to_int(d, -1), _wide.to_int(e, -1)).bit_length() - 64)

    def exact(i: int, ne: int = len(heavy)) -> int:
        return _wide.to_int(e, i) if i < ne else _wide.to_int(d, i - ne)

    keys = np.empty(len(heavy) + len(light), dtype=np.uint64)
    _wide.top_bits(e, s, out=keys[: len(heavy)])
    _wide.top_bits(d, s, out=keys[len(heavy):])
    le, jj = _limbs.merge_keys(keys, len(heavy), exact if s else None)
    server = np.concatenate(([0], le[:-1]))
    ali[light] = heavy[server]
    for a in range(0, len(heavy), _wide.BLOCK):  # heavy i ends D[J] - E[i] short of cap
        part = slice(a, a + _wide.BLOCK)
        delta = _wide.sub_gathered(d, jj[part], e[:, part])
        rows = heavy[part]
        m[:, rows] = _wide.sub_from(cap, delta)
        short = np.flatnonzero((delta[0] != 0) | (delta[1] != 0)) + a
        ali[heavy[short]] = heavy[short + 1]
    return m, ali  # thresholds: a light keeps its own mass, a full column is full


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


def _randbelow32_array(rng: Any, bound: int, n: int) -> Any:
    """``rng.randbelow_array(bound, n)`` (``bound < 2**32``: same values, same words), with
    the reduction done as ``v - (v // bound) * bound`` (numpy divides by a scalar fast, but
    its modulo is slow)."""
    np = _require_numpy("AliasTable's vectorised build and draws")

    threshold = (_U32 - bound) % bound
    if not threshold or not all(hasattr(rng, a) for a in ("u32_array", "getstate",
                                                           "setstate", "advance")):
        return _randbelow_array(rng, bound, n)
    accept = 1.0 - threshold / _U32
    b = np.uint32(bound)
    parts = []
    have = 0
    while have < n:
        need = n - have
        m = int(need / accept * 1.01) + 64
        start = rng.getstate()
        w = _u32_array(rng, m)
        keep = w >= np.uint32(threshold)
        ok = np.flatnonzero(keep)
        if len(ok) >= need:
            used = int(ok[need - 1]) + 1
            rng.setstate(start)
            rng.advance(used)
            w = w[:used][keep[:used]]
        else:
            w = w[keep]
        parts.append(w - (w // b) * b)
        have += len(w)
    return np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else \
        np.empty(0, dtype=np.uint32)


def _rebuild(labels: tuple[Any, ...], weights: tuple[int, ...]) -> AliasTable:
    if len(labels) != len(weights):
        raise StateError("AliasTable state: labels and weights differ in length")
    return AliasTable(dict(zip(labels, weights, strict=True)))
