"""Symbol dice: faces that carry several symbols (Genesys / FFG narrative dice, colour dice).

A face is a :class:`Symbols` value: an immutable, hashable count of named symbols
(``Symbols(success=1, advantage=1)``; the blank face is ``Symbols()``); ``+`` adds counts.
:func:`symbol_die` turns a list of faces into a :class:`~chancekit.dice.Distribution` whose
outcomes are ``Symbols``, and :func:`symbol_pool` sums a pool of such dice exactly: the
count vectors are convolved as one polynomial (Kronecker substitution with python-flint,
identical dice raised to a power), or die by die over the reachable vectors when that is
cheaper; the cheaper method is estimated and charged to the work budget (``MAX_WORK``)
before it starts. :func:`cancel` nets opposed symbols (success against failure ...), and
:func:`project` reads one symbol's count (or a tuple of several).

:data:`GENESYS` holds the six Genesys dice with their published faces, and
:func:`genesys` evaluates a pool written ``"2A1P vs 2D1C"`` (docs/symbols.md).

>>> g = genesys("2A1P vs 2D")
>>> project(g, "success").at_least(1)
Fraction(7997, 12288)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit.dice.distribution import (
    Distribution,
    _decode_outcome,
    _encode_outcome,
    _register_outcome_form,
)
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, NotationError, quote
from chancekit.limits import (
    ENTRY_WORK,
    MAX_DICE,
    MAX_OUTCOMES,
    MAX_WEIGHT_BITS,
    MAX_WORK,
    PAIR_WORK,
    power_work,
)

__all__ = [
    "GENESYS",
    "GENESYS_CANCEL",
    "GENESYS_COUNTS_AS",
    "GENESYS_LETTERS",
    "Symbols",
    "cancel",
    "genesys",
    "genesys_pool",
    "project",
    "symbol_die",
    "symbol_pool",
]


class Symbols(Mapping[str, int]):
    """An immutable count of named symbols: ``Symbols(success=2, advantage=1)`` or
    ``Symbols({"success": 2})``. Zero counts are dropped, so ``Symbols()`` is the blank
    face; a missing symbol reads as 0. Hashable, equal to any mapping with the same
    non-zero counts; ``+`` adds counts (``sum(faces, Symbols())`` works, and so does
    ``0 + s``). Names are non-empty text, counts ints. O(symbols) per operation.

    >>> s = Symbols(success=1, advantage=1) + Symbols(success=1)
    >>> s, s["success"], s["threat"], str(s)
    (Symbols(advantage=1, success=2), 2, 0, 'advantage 1, success 2')
    >>> str(Symbols())
    'blank'
    """

    __slots__ = ("_hash", "_items")

    _items: tuple[tuple[str, int], ...]

    def __init__(self, counts: Mapping[str, int] | Iterable[tuple[str, int]] = (),
                 /, **named: int) -> None:
        if isinstance(counts, Symbols) and not named:
            self._items, self._hash = counts._items, counts._hash
            return
        if isinstance(counts, str | bytes):
            raise InvalidTypeError("symbols", counts, "a mapping of symbol name -> count")
        try:
            pairs = list(counts.items() if isinstance(counts, Mapping) else counts)
        except (TypeError, ValueError):
            raise InvalidTypeError("symbols", counts,
                                   "a mapping of symbol name -> count") from None
        out: dict[str, int] = {}
        for entry in [*pairs, *named.items()]:
            if not isinstance(entry, tuple) or len(entry) != 2:
                raise InvalidTypeError("symbols", counts, "a mapping of symbol name -> count")
            name, n = entry
            if not isinstance(name, str) or not name:
                raise InvalidValueError("symbol name", name, "non-empty text")
            if isinstance(n, bool) or not isinstance(n, int):
                raise InvalidTypeError(f"count of {quote(name)}", n, "an int")
            out[name] = out.get(name, 0) + n
        self._items = tuple(sorted((k, v) for k, v in out.items() if v))
        self._hash = None

    @classmethod
    def _of(cls, items: tuple[tuple[str, int], ...]) -> Symbols:
        """From sorted (name, non-zero count) pairs, unchecked (private fast path)."""
        self = object.__new__(cls)
        self._items = items
        self._hash = None
        return self

    def __getitem__(self, name: str) -> int:
        for k, v in self._items:
            if k == name:
                return v
        return 0

    def __contains__(self, name: object) -> bool:
        return any(k == name for k, _ in self._items)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(("chancekit.Symbols", self._items))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Symbols):
            return self._items == other._items
        if isinstance(other, Mapping):
            return dict(self._items) == {k: v for k, v in other.items() if v != 0}
        return NotImplemented

    def __add__(self, other: object) -> Symbols:
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        if not isinstance(other, Symbols):
            return NotImplemented
        out = dict(self._items)
        for k, v in other._items:
            out[k] = out.get(k, 0) + v
        return Symbols._of(tuple(sorted((k, v) for k, v in out.items() if v)))

    __radd__ = __add__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Symbols, (dict(self._items),))

    def __repr__(self) -> str:
        if all(k.isidentifier() for k, _ in self._items):
            return f"Symbols({', '.join(f'{k}={v}' for k, v in self._items)})"
        return f"Symbols({dict(self._items)!r})"

    def __str__(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self._items) or "blank"


def _symbols_to_json(s: Symbols) -> dict[str, Any]:
    """``{"success": 2, "advantage": 1}`` (a count past 2**53 as ``{"int": text}``)."""
    return {k: _encode_outcome(n) for k, n in s._items}


def _symbols_from_json(counts: Any) -> Symbols:
    """The :class:`Symbols` :func:`_symbols_to_json` wrote; malformed input raises
    :class:`~chancekit.errors.InvalidValueError`."""
    if not isinstance(counts, dict):
        raise InvalidValueError("symbols outcome", counts, "an object {name: count}")
    out = {}
    for name, raw in counts.items():
        n = _decode_outcome(raw) if isinstance(raw, dict) else raw
        if isinstance(n, bool) or not isinstance(n, int):
            raise InvalidValueError(f"count of symbol {quote(name)}", raw, "an integer")
        out[name] = n
    return Symbols(out)  # names are JSON text; an empty one raises InvalidValueError


# Distribution.to_json writes Symbols outcomes as {"symbols": {name: count}} (docs/symbols.md)
_register_outcome_form("symbols", Symbols, _symbols_to_json, _symbols_from_json)


def symbol_die(faces: Iterable[Mapping[str, int]]) -> Distribution:
    """A die whose faces carry symbols: one mapping (or :class:`Symbols`) per face, ``{}``
    for a blank; a face listed twice is twice as likely. O(faces).

    >>> die = symbol_die([{"success": 1}, {"success": 1, "advantage": 1}, {}])
    >>> die.probability(Symbols(success=1))
    Fraction(1, 3)
    """
    if isinstance(faces, str | bytes | Mapping) or not isinstance(faces, Iterable):
        raise InvalidTypeError("faces", faces, "a list of mappings (one per face)")
    out: dict[Symbols, int] = {}
    for face in faces:
        if not isinstance(face, Mapping):
            raise InvalidTypeError("face", face, "a mapping of symbol name -> count")
        s = Symbols(face)
        out[s] = out.get(s, 0) + 1
    if not out:
        raise InvalidValueError("faces", faces, "a non-empty list of faces")
    return Distribution(out)


# -- the pool sum ----------------------------------------------------------------------------

def _symbol_weights(die: Any, what: str) -> dict[Symbols, int]:
    if not isinstance(die, Distribution):
        raise InvalidTypeError(what, die, "a Distribution of Symbols (symbol_die)")
    w = dict(die.items())
    for x in w:
        if not isinstance(x, Symbols):
            raise InvalidTypeError(f"outcome of {what}", x, "Symbols (use symbol_die)")
    return w


def _groups(dice: Any) -> list[tuple[dict[Symbols, int], int]]:
    """Identical dice grouped: [(face weights, how many)], in first-seen order."""
    if isinstance(dice, Distribution):
        dice = [dice]
    if isinstance(dice, str | bytes) or not isinstance(dice, Iterable):
        raise InvalidTypeError("dice", dice, "a list of symbol dice")
    counts: dict[Distribution, int] = {}
    for i, die in enumerate(dice):
        _symbol_weights(die, f"dice[{i}]")
        counts[die] = counts.get(die, 0) + 1
    total = sum(counts.values())
    if total > MAX_DICE:
        raise LimitError(f"{total} symbol dice exceed MAX_DICE = {MAX_DICE}; use fewer dice",
                         limit="MAX_DICE", value=total)
    return [(dict(die.items()), n) for die, n in counts.items()]


Vector = tuple[int, ...]
#: work units of one outcome turned into a Symbols value and sorted (about 8 us)
_OUTCOME_WORK = 400


def _convolve(groups: list[tuple[dict[Vector, int], int]], dims: int,
              what: str) -> dict[Vector, int]:
    """The exact distribution of the sum of ``n`` dice of each group, over integer vectors
    of ``dims`` components: {vector: weight}, unreduced. The cheaper of two exact methods
    is charged up front (``MAX_WORK``): one polynomial in a mixed-radix code of the vectors
    (flint powers and products over the box of reachable vectors), or die-by-die sparse
    sums over an estimate of the reachable vectors."""
    groups = [(w, n) for w, n in groups if n]
    if not groups:
        return {(0,) * dims: 1}
    lo = [sum(n * min(v[j] for v in w) for w, n in groups) for j in range(dims)]
    hi = [sum(n * max(v[j] for v in w) for w, n in groups) for j in range(dims)]
    sizes = [h - low + 1 for low, h in zip(lo, hi, strict=True)]
    box = math.prod(sizes)
    bits = sum(n * max(1, math.log2(sum(w.values()))) for w, n in groups) + 1
    # reachable vectors: at most the box, and at most the product over groups of the
    # multisets of n faces (C(n + k - 1, k - 1) for k faces)
    reach = box
    multisets = 1
    for w, n in groups:
        multisets *= math.comb(n + len(w) - 1, len(w) - 1)
        if multisets > reach:
            break
    reach = min(reach, multisets)
    dice = sum(n for _, n in groups)
    faces = max(len(w) for w, _ in groups)
    sparse = dice * faces * reach * (PAIR_WORK + dims * 2)
    dense = 4 * ENTRY_WORK * box  # reading every coefficient of the box back
    for w, _ in groups:
        dense += power_work(len(w), box, int(bits)) + box * (dims + ENTRY_WORK)
    if box * bits <= MAX_WEIGHT_BITS and dense <= sparse:
        _charge(dense, what)  # refuses past the budget, before any work
        limits.count(dense)
        return _dense(groups, dims, lo, sizes)
    _charge(sparse, what)
    limits.count(sparse)
    return _sparse(groups)


def _charge(units: int, what: str) -> None:
    limits.charge(units, what, limit=MAX_WORK, name="MAX_WORK")


def _dense(groups: list[tuple[dict[Vector, int], int]], dims: int, lo: list[int],
           sizes: list[int]) -> dict[Vector, int]:
    strides = [1] * dims
    for j in range(1, dims):
        strides[j] = strides[j - 1] * sizes[j - 1]
    result: flint.fmpz_poly | None = None
    for w, n in groups:
        low = [min(v[j] for v in w) for j in range(dims)]
        coeffs: dict[int, int] = {}
        for v, weight in w.items():
            code = sum((v[j] - low[j]) * strides[j] for j in range(dims))
            coeffs[code] = coeffs.get(code, 0) + weight
        dense = [0] * (max(coeffs) + 1)
        for code, weight in coeffs.items():
            dense[code] = weight
        p = flint.fmpz_poly(dense) ** n
        result = p if result is None else result * p
    assert result is not None
    out: dict[Vector, int] = {}
    for code, c in enumerate(result.coeffs()):
        if c:
            v = []
            for j in range(dims):
                code, r = divmod(code, sizes[j]) if j < dims - 1 else (0, code)
                v.append(lo[j] + r)
            out[tuple(v)] = int(c)
    return out


def _sparse(groups: list[tuple[dict[Vector, int], int]]) -> dict[Vector, int]:
    acc: dict[Vector, int] = {}
    first = True
    for w, n in groups:
        items = list(w.items())
        for _ in range(n):
            if first:
                acc = dict(items)
                first = False
                continue
            nxt: dict[Vector, int] = {}
            for x, wx in acc.items():
                for y, wy in items:
                    z = tuple(a + b for a, b in zip(x, y, strict=True))
                    nxt[z] = nxt.get(z, 0) + wx * wy
            acc = nxt
    return acc


def _pairs(pairs: Any) -> list[tuple[str, str]]:
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Iterable):
        raise InvalidTypeError("pairs", pairs, "a list of (symbol, opposed symbol) pairs")
    out = []
    seen: set[str] = set()
    for p in pairs:
        if (not isinstance(p, Sequence) or isinstance(p, str) or len(p) != 2
                or not all(isinstance(x, str) and x for x in p) or p[0] == p[1]):
            raise InvalidValueError("pair", p, "two different symbol names")
        if p[0] in seen or p[1] in seen:
            raise InvalidValueError("pairs", pairs, "pairs that share no symbol")
        seen |= {p[0], p[1]}
        out.append((p[0], p[1]))
    return out


def _counts_as(counts_as: Any) -> dict[str, str]:
    if counts_as is None:
        return {}
    if not isinstance(counts_as, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and k and v and k != v
            for k, v in counts_as.items()):
        raise InvalidTypeError("counts_as", counts_as,
                               "a mapping of symbol -> the symbol it also counts as")
    return dict(counts_as)


class _Net:
    """Opposed symbols netted: each pair (a, b) is one signed coordinate (a - b, with
    ``counts_as`` symbols adding to what they count as); other symbols keep their own."""

    def __init__(self, pairs: list[tuple[str, str]], counts_as: dict[str, str]) -> None:
        self.pairs = pairs
        self.counts_as = counts_as
        self.paired = {a: i for i, (a, _) in enumerate(pairs)} | {
            b: i for i, (_, b) in enumerate(pairs)}

    def names(self, faces: Iterable[Symbols]) -> list[str]:
        return sorted({k for s in faces for k in s if k not in self.paired})

    def vector(self, s: Symbols, free: list[str]) -> Vector:
        v = [0] * (len(self.pairs) + len(free))
        for k, n in s._items:
            for name in (k, self.counts_as.get(k)):
                if name is None:
                    continue
                i = self.paired.get(name)
                if i is not None:
                    v[i] += n if self.pairs[i][0] == name else -n
                elif name == k:
                    v[len(self.pairs) + free.index(k)] += n
        return tuple(v)

    def decoder(self, free: list[str]) -> list[tuple[str, int, int]]:
        """(name, coordinate, sign) in name order: a pair's first symbol is its coordinate
        when positive (sign 1), the second when negative (sign -1); a free symbol is its
        own coordinate (sign 0)."""
        spec = [(a, i, 1) for i, (a, _) in enumerate(self.pairs)]
        spec += [(b, i, -1) for i, (_, b) in enumerate(self.pairs)]
        spec += [(k, len(self.pairs) + j, 0) for j, k in enumerate(free)]
        return sorted(spec)


def _decode(v: Vector, spec: list[tuple[str, int, int]]) -> Symbols:
    out = []
    for name, i, sign in spec:
        n = v[i]
        if sign:
            n *= sign
            if n > 0:
                out.append((name, n))
        elif n:
            out.append((name, n))
    return Symbols._of(tuple(out))


def _finish(out: dict[Symbols, int]) -> Distribution:
    """Symbols do not sort: the outcomes keep this order (by symbol names, then counts)."""
    return Distribution._raw(dict(sorted(out.items(), key=lambda kv: kv[0]._items)))


def symbol_pool(dice: Iterable[Distribution] | Distribution, *, pairs: Any = None,
                counts_as: Mapping[str, str] | None = None) -> Distribution:
    """The exact distribution of the symbols a pool of symbol dice shows: outcomes are
    :class:`Symbols` with the counts of every die added. With ``pairs`` (``[("success",
    "failure"), ...]``), opposed symbols cancel first (the net result, as
    :func:`cancel`), and ``counts_as`` (``{"triumph": "success"}``) makes a symbol also
    count as another before cancelling — computed per die, so far cheaper than cancelling
    the joint distribution afterwards. Identical dice are grouped; the work (about the
    number of reachable count vectors times the dice) is estimated and charged before it
    starts (``MAX_WORK``).

    >>> coin = symbol_die([{"hit": 1}, {"miss": 1}])
    >>> symbol_pool(3 * [coin]).probability(Symbols(hit=2, miss=1))
    Fraction(3, 8)
    >>> symbol_pool(3 * [coin], pairs=[("hit", "miss")]).probability(Symbols(hit=1))
    Fraction(3, 8)
    """
    groups = _groups(dice)
    net = None if pairs is None else _Net(_pairs(pairs), _counts_as(counts_as))
    if net is None and counts_as:
        raise InvalidValueError("counts_as needs pairs (it only matters when cancelling)")
    with limits.evaluation(limit=MAX_WORK, name="MAX_WORK"):
        faces = {s for w, _ in groups for s in w}
        if net is None:
            free = sorted({k for s in faces for k in s})
            vec = {s: tuple(s[k] for k in free) for s in faces}
            dims = len(free)
        else:
            free = net.names(faces)
            vec = {s: net.vector(s, free) for s in faces}
            dims = len(net.pairs) + len(free)
        vgroups = []
        for w, n in groups:
            vw: dict[Vector, int] = {}
            for s, weight in w.items():
                vw[vec[s]] = vw.get(vec[s], 0) + weight
            vgroups.append((vw, n))
        sums = _convolve(vgroups, dims, f"summing {sum(n for _, n in groups)} symbol dice")
        # decoding: a Symbols value per outcome, sorted (counted exactly, charged first)
        _charge(len(sums) * _OUTCOME_WORK, "reading the symbol outcomes")
        limits.count(len(sums) * _OUTCOME_WORK)
        if len(sums) > MAX_OUTCOMES:
            raise LimitError(
                f"the pool has {len(sums)} symbol outcomes, more than MAX_OUTCOMES = "
                f"{MAX_OUTCOMES}; cancel opposed symbols (pairs=) or use fewer dice",
                limit="MAX_OUTCOMES", value=len(sums))
        spec = [(k, j, 0) for j, k in enumerate(free)] if net is None else net.decoder(free)
        out = {_decode(v, spec): weight for v, weight in sums.items()}  # one vector each
        return _finish(out)


def cancel(dist: Distribution, pairs: Any, *,
           counts_as: Mapping[str, str] | None = None) -> Distribution:
    """Net opposed symbols in a distribution of :class:`Symbols`: for each pair
    ``(a, b)``, the smaller count is taken from both, so at most one of them is left;
    a symbol named in ``counts_as`` also counts as the one it maps to (Genesys: a
    triumph is also a success) and stays itself. O(outcomes).

    >>> joint = Distribution({Symbols(success=2, failure=3, triumph=1): 1})
    >>> cancel(joint, [("success", "failure")], counts_as={"triumph": "success"}).outcomes()
    (Symbols(triumph=1),)
    """
    net = _Net(_pairs(pairs), _counts_as(counts_as))
    w = _symbol_weights(dist, "dist")
    free = net.names(w)
    spec = net.decoder(free)
    out: dict[Symbols, int] = {}
    for s, weight in w.items():
        r = _decode(net.vector(s, free), spec)
        out[r] = out.get(r, 0) + weight
    return _finish(out)


def project(dist: Distribution, *names: str) -> Distribution:
    """The count of one symbol (an int distribution), or of several (tuples, in the
    order given). O(outcomes).

    >>> die = symbol_die([{"success": 1}, {"success": 1, "advantage": 1}, {}])
    >>> project(die, "success").at_least(1), project(die, "success", "advantage").outcomes()
    (Fraction(2, 3), ((0, 0), (1, 0), (1, 1)))
    """
    if not names or not all(isinstance(n, str) and n for n in names):
        raise InvalidValueError("names", names, "one or more symbol names")
    _symbol_weights(dist, "dist")
    if len(names) == 1:
        (name,) = names
        return dist.map(lambda s: s[name])
    return dist.map(lambda s: tuple(s[n] for n in names))


# -- Genesys ---------------------------------------------------------------------------------

def _faces(*codes: str) -> Distribution:
    """Faces written s/a/t/f/h/d (success, advantage, triumph, failure, threat, despair);
    '-' is blank."""
    letters = {"s": "success", "a": "advantage", "t": "triumph", "f": "failure",
               "h": "threat", "d": "despair"}
    return symbol_die([{letters[c]: code.count(c) for c in set(code) - {"-"}}
                       for code in codes])


#: the six Genesys dice with their published faces (Genesys Core Rulebook; the same as
#: FFG's Star Wars narrative dice); a triumph face shows only the triumph symbol (it also
#: counts as a success when netting: :data:`GENESYS_COUNTS_AS`)
GENESYS: Mapping[str, Distribution] = MappingProxyType({
    "ability": _faces("-", "s", "s", "ss", "a", "a", "sa", "aa"),
    "proficiency": _faces("-", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "t"),
    "boost": _faces("-", "-", "s", "sa", "aa", "a"),
    "difficulty": _faces("-", "f", "ff", "h", "h", "h", "hh", "fh"),
    "challenge": _faces("-", "f", "f", "ff", "ff", "h", "h", "fh", "fh", "hh", "hh", "d"),
    "setback": _faces("-", "-", "f", "f", "h", "h"),
})
#: the letters of :func:`genesys` pools
GENESYS_LETTERS: Mapping[str, str] = MappingProxyType({
    "A": "ability", "P": "proficiency", "B": "boost",
    "D": "difficulty", "C": "challenge", "S": "setback"})
#: what cancels in Genesys: success against failure, advantage against threat
GENESYS_CANCEL = (("success", "failure"), ("advantage", "threat"))
#: a triumph is also a success, a despair also a failure (they themselves never cancel)
GENESYS_COUNTS_AS: Mapping[str, str] = MappingProxyType(
    {"triumph": "success", "despair": "failure"})

#: characters of one :func:`genesys` pool
_SPEC_CHARS = 200
_POSITIVE = {"A", "P", "B"}
_TOKEN = re.compile(r"\s*(?:(vs)(?![A-Za-z])|(\+)|([0-9]*)([A-Za-z]))", re.I)


def genesys_pool(spec: str) -> dict[str, int]:
    """Parse a Genesys pool: counts and letters ``A`` ability, ``P`` proficiency, ``B``
    boost against ``D`` difficulty, ``C`` challenge, ``S`` setback (any case; a missing
    count is 1; ``+`` and spaces are allowed; ``AAP`` = ``2A1P``). An optional ``vs``
    separates the positive dice (before) from the negative ones (after). Returns
    {die name: count}, in :data:`GENESYS` order. Errors are
    :class:`~chancekit.errors.NotationError` with the column.

    >>> genesys_pool("2A1P vs 2D1C")
    {'ability': 2, 'proficiency': 1, 'difficulty': 2, 'challenge': 1}
    """
    if not isinstance(spec, str):
        raise InvalidTypeError("pool", spec, "text such as '2A1P vs 2D1C'")
    if len(spec) > _SPEC_CHARS:
        raise InvalidValueError("pool", spec, f"at most {_SPEC_CHARS} characters")
    counts = dict.fromkeys(GENESYS, 0)
    letters: list[tuple[str, int]] = []  # (letter, column) before 'vs'
    pos, vs = 0, False
    while spec[pos:].strip():
        m = _TOKEN.match(spec, pos)
        if not m:
            col = len(spec) - len(spec[pos:].lstrip()) + 1
            raise NotationError(f"unexpected {quote(spec[col - 1])}; expected a count and a "
                                "letter (A P B vs D C S)", spec, col)
        if m.group(1):
            if vs:
                raise NotationError("a second 'vs'", spec, m.start(1) + 1)
            vs = True
            for letter, col in letters:
                if letter not in _POSITIVE:
                    raise NotationError(f"{GENESYS_LETTERS[letter]} dice go after 'vs'",
                                        spec, col)
        elif m.group(4):
            letter, col = m.group(4).upper(), m.start(4) + 1
            if letter not in GENESYS_LETTERS:
                raise NotationError(f"unknown die letter {quote(m.group(4))} (A P B vs "
                                    "D C S)", spec, col)
            if vs and letter in _POSITIVE:
                raise NotationError(f"{GENESYS_LETTERS[letter]} dice go before 'vs'",
                                    spec, col)
            n = int(m.group(3)) if m.group(3) else 1
            if n > MAX_DICE:
                raise LimitError(f"{n} dice exceed MAX_DICE = {MAX_DICE}",
                                 limit="MAX_DICE", value=n)
            counts[GENESYS_LETTERS[letter]] += n
            letters.append((letter, col))
        pos = m.end()
    if not any(counts.values()):
        raise NotationError("no dice", spec, max(1, len(spec)))
    return {k: n for k, n in counts.items() if n}


def genesys(spec: str | Mapping[str, int], *, net: bool = True) -> Distribution:
    """The distribution of a Genesys pool (``"2A1P vs 2D1C"``, see :func:`genesys_pool`,
    or {die name: count}): net symbols (success or failure, advantage or threat, triumph,
    despair) by default, the raw symbol counts with ``net=False``. A check succeeds when
    ``project(result, "success").at_least(1)``.

    >>> g = genesys("1A")
    >>> g.probability(Symbols(success=1)), project(g, "success").at_least(1)
    (Fraction(1, 4), Fraction(1, 2))
    """
    counts = genesys_pool(spec) if isinstance(spec, str) else dict(spec)
    dice = []
    for name, n in counts.items():
        if name not in GENESYS:
            raise InvalidValueError("die", name, f"one of {', '.join(GENESYS)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidValueError(f"count of {name}", n, "an integer >= 0")
        if n > MAX_DICE:
            raise LimitError(f"{n} dice exceed MAX_DICE = {MAX_DICE}", limit="MAX_DICE",
                             value=n)
        dice += [GENESYS[name]] * n
    if not dice:
        raise InvalidValueError("pool", spec, "at least one die")
    if not net:
        return symbol_pool(dice)
    return symbol_pool(dice, pairs=GENESYS_CANCEL, counts_as=GENESYS_COUNTS_AS)
