"""Which dice an operator acts on (:class:`Selector`), and the operators of a pool
(:class:`Op`): the values notation and :class:`~chancekit.dice.Pool` share.

A selector picks dice by *position* in the sorted pool (:func:`highest`, :func:`lowest`)
or by *value* (:func:`equal`, :func:`below`, :func:`above`, :func:`at_most`,
:func:`at_least`). Values are immutable and hashable.

>>> highest(3), above(4).matches(5), at_most(2).matches(3)
(Selector(cat='h', num=3, col=0), True, False)
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = [
    "Op",
    "Selector",
    "above",
    "at_least",
    "at_most",
    "below",
    "equal",
    "foundry_count",
    "highest",
    "lowest",
    "match_count",
    "matched_count",
    "matches_every_face",
    "matching_faces",
]

Number = int | Fraction


@dataclass(frozen=True, slots=True)
class Selector:
    """Which dice (or set items) an operator applies to.

    ``cat`` is ``None`` (value equal to ``num``), ``"h"``/``"l"`` (the ``num`` highest /
    lowest), or one of ``"<" ">" "<=" ">="`` (value compared with ``num``, strictly for
    ``<``/``>`` as in Avrae's d20). ``col`` is the notation column (0 from Python).
    """

    cat: str | None
    num: int
    col: int = field(default=0, compare=False)

    def text(self) -> str:
        return f"{self.cat or ''}{self.num}"

    def matches(self, value: Number) -> bool:
        """Whether a value-selector matches ``value`` (not for ``h``/``l``)."""
        c, n = self.cat, self.num
        if c is None:
            return value == n
        if c == "<":
            return value < n
        if c == ">":
            return value > n
        if c == "<=":
            return value <= n
        if c == ">=":
            return value >= n
        raise AssertionError(c)  # pragma: no cover

    @property
    def by_value(self) -> bool:
        return self.cat not in ("h", "l")


@dataclass(frozen=True, slots=True)
class Op:
    """An operator of a pool: ``kind`` is one of ``k p rr ro ra e mi ma``, or ``ce``
    (compounding explosion, ``!!``), ``pe`` (penetrating, ``!p``), ``eo`` (explode once,
    Foundry ``xo``), ``cnt`` (count: +1 per die matching ``sels``, -1 per die matching
    ``fails``; always last), ``mark``/``sort``/``match`` (breakdown only: crit/fumble
    marks, sorted dice, Roll20's matched dice), ``mt`` (Roll20's matching total: the number
    of values shown by at least ``steps[0]`` kept dice, among the values matching ``sels``
    if any; last); ``sels`` are merged selectors (``kh1kl1`` is one ``k`` with two
    selectors, as in d20). ``col`` and ``spelled`` are the notation column and source text
    (``!``, ``dl1`` ... are kept for the breakdown); both are empty from Python.

    A ``cnt`` with ``steps`` is Foundry's chain of count modifiers, applied in order to
    each die as Foundry's ``Die`` does (:func:`foundry_count`): ``("cs", sel)``,
    ``("cf", sel)``, ``("even", None)``, ``("odd", None)``, ``("df", sel or None)``,
    ``("sf", sel or None)``."""

    kind: str
    sels: tuple[Selector, ...]
    col: int = field(default=0, compare=False)
    spelled: str = field(default="", compare=False)
    fails: tuple[Selector, ...] = ()
    steps: tuple[Any, ...] = ()

    def matches(self, value: Number) -> bool:
        for s in self.sels:  # a loop, not any(): this runs once per face and per die
            if s.matches(value):
                return True
        return False

    def score(self, value: Number) -> Number:
        """A ``cnt`` operator's score of one die: 1 for a success, -1 for a failure (a
        die can be both: 0); with ``steps``, Foundry's count (:func:`foundry_count`)."""
        if self.steps:
            got = foundry_count(self.steps, value)
            return value if got is None else got
        score = 1 if self.matches(value) else 0
        for s in self.fails:
            if s.matches(value):
                return score - 1
        return score


def foundry_count(steps: tuple[Any, ...], value: Number) -> Number | None:
    """What Foundry VTT's count modifiers make of one die showing ``value``, applied in
    order as its ``Die`` class does: ``cs``/``cf``/``even``/``odd`` set the die's count to
    1 or 0 and flag it a success / failure; ``df`` (``sf``) flags the dice matching its
    compare point as failures -- without one, the dice a ``cs`` did not count, or the 1s
    when nothing was counted before (Foundry's documented ``6d6df``) -- and counts each
    failure -1 (minus its value). ``None``: no count was set (the die counts its value).
    O(steps).

    >>> foundry_count((("cs", at_least(5)), ("df", None)), 2)
    -1
    >>> foundry_count((("sf", below(3)),), 2), foundry_count((("even", None),), 3)
    (-2, 0)
    """
    count: Number | None = None
    success: bool | None = None
    failure: bool | None = None
    for name, sel in steps:
        if name in ("cs", "even", "odd"):
            if name == "cs":
                success = sel.matches(value)
            else:
                success = (value % 2 == 0) == (name == "even")
            if success:
                failure = None
            count = 1 if success else 0
        elif name == "cf":
            failure = sel.matches(value)
            if failure:
                success = None
            count = 1 if failure else 0
        else:  # "df", "sf"
            if sel is not None:
                hit = sel.matches(value)
            elif success is not None or failure is not None:
                hit = success is False
            else:
                hit = value == 1
            if hit:
                failure, success = True, None
            if failure:
                count = -1 if name == "df" else -value
    return count


def match_count(values: Sequence[Any], op: Op) -> int:
    """Roll20's matching total ``mt``: how many values are shown by at least
    ``op.steps[0]`` of ``values`` (and match ``op.sels``, when given). O(len(values)).

    >>> match_count([3, 3, 5, 5, 5, 1], Op("mt", (), steps=(2,)))
    2
    """
    size = op.steps[0]
    seen: dict[Any, int] = {}
    for v in values:
        seen[v] = seen.get(v, 0) + 1
    return sum(1 for v, c in seen.items() if c >= size and (not op.sels or op.matches(v)))


def highest(n: int) -> Selector:
    """The ``n`` highest dice."""
    return Selector("h", n)


def lowest(n: int) -> Selector:
    """The ``n`` lowest dice."""
    return Selector("l", n)


def equal(value: int) -> Selector:
    """Dice showing ``value``."""
    return Selector(None, value)


def below(value: int) -> Selector:
    """Dice showing less than ``value``."""
    return Selector("<", value)


def above(value: int) -> Selector:
    """Dice showing more than ``value``."""
    return Selector(">", value)


def at_most(value: int) -> Selector:
    """Dice showing ``value`` or less."""
    return Selector("<=", value)


def at_least(value: int) -> Selector:
    """Dice showing ``value`` or more."""
    return Selector(">=", value)


def matches_every_face(op: Op, faces: Sequence[int]) -> bool:
    """Whether ``op``'s value selectors match every face; O(selectors) for contiguous
    integer faces (a d1000000 is not walked face by face), O(faces) otherwise."""
    if isinstance(faces, range):
        contiguous = faces.step == 1
    else:
        contiguous = bool(faces) and all(type(f) is int for f in (faces[0], faces[-1])) and (
            faces[-1] - faces[0] + 1 == len(faces))
        if contiguous and len(faces) < 64:
            contiguous = False  # small: just look
    if not contiguous:
        return all(op.matches(f) for f in set(faces))
    lo, hi = faces[0], faces[-1]
    return matched_count(op, lo, hi) == hi - lo + 1


def matched_count(op: Op, lo: int, hi: int) -> int:
    """How many of the faces ``lo..hi`` the value selectors of ``op`` match (the union of
    their intervals). O(selectors): what the tree's estimates count without the faces.

    >>> matched_count(Op("r", (Selector("<", 3), Selector(None, 2), Selector(">=", 6))), 1, 6)
    3
    """
    return sum(len(r) for r in matched_ranges(op, lo, hi))


def matched_ranges(op: Op, lo: int, hi: int) -> list[range]:
    """The faces ``lo..hi`` the value selectors of ``op`` match, as disjoint ranges in
    order (the union of their intervals). O(selectors).

    >>> matched_ranges(Op("r", (Selector("<", 3), Selector(None, 2), Selector(">=", 6))), 1, 9)
    [range(1, 3), range(6, 10)]
    """
    out: list[range] = []
    for a, b in sorted(_interval(s, lo, hi) for s in op.sels):
        if b < a:
            continue
        if out and a <= out[-1].stop:
            out[-1] = range(out[-1].start, max(out[-1].stop, b + 1))
        else:
            out.append(range(a, b + 1))
    return out


def faces_matched(op: Op, faces: Collection[Any]) -> int:
    """How many of the distinct ``faces`` ``op``'s value selectors match: O(selectors)
    for contiguous integer faces (a range, or keys in increasing order, checked in one
    C-level pass), else a call a face (``d478427k>=7pl4!85``: 1.1 s of calls to price it).

    >>> faces_matched(Op("r", (Selector(">=", 7),)), range(1, 478428))
    478421
    """
    n = len(faces)
    if n >= 64:
        keys = faces if isinstance(faces, range) else list(faces)
        lo, hi = keys[0], keys[-1]
        try:
            contiguous = (type(lo) is int and type(hi) is int and hi - lo + 1 == n and (
                isinstance(faces, range)
                or all(map(operator.lt, keys, itertools.islice(keys, 1, None)))))
        except TypeError:  # (faces that do not compare)
            contiguous = False
        if contiguous:
            return matched_count(op, lo, hi)
    return sum(1 for f in faces if op.matches(f))


def matching_faces(op: Op, faces: Sequence[int]) -> list[int]:
    """The faces ``op``'s value selectors match, in order; O(selectors + matches) for
    contiguous integer faces (``d(100000)``'s ``!`` matches one face without a scan)."""
    if len(faces) >= 64 and type(faces[0]) is int and type(faces[-1]) is int and (
            faces[-1] - faces[0] + 1 == len(faces)):
        return [f for r in matched_ranges(op, faces[0], faces[-1]) for f in r]
    return [f for f in faces if op.matches(f)]


def _interval(s: Selector, lo: int, hi: int) -> tuple[int, int]:
    """The faces in ``[lo, hi]`` a value selector matches, as an interval (maybe empty)."""
    c, n = s.cat, s.num
    if c is None:
        return (n, n) if lo <= n <= hi else (hi + 1, hi)
    if c in ("<", "<="):
        return (lo, min(hi, n - 1 if c == "<" else n))
    if c in (">", ">="):
        return (max(lo, n + 1 if c == ">" else n), hi)
    return (hi + 1, hi)  # h/l pick dice, not faces
