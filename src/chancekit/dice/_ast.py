"""The syntax tree of a dice expression, and the documented limits (private).

The parser (:mod:`chancekit.dice._parse`) builds these immutable nodes; the exact evaluator
(:mod:`chancekit.dice._ast_eval`) and the roller (:mod:`chancekit.dice._roll`) walk them.
Every node remembers its 1-based column in the source text, so errors found after parsing
(division by zero, a limit) can still point at the right place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from chancekit.dice.distribution import EXPLODE_DEPTH

__all__ = [
    "EXPLODE_DEPTH",
    "MAX_DICE",
    "MAX_OUTCOMES",
    "MAX_POOL_STATES",
    "MAX_ROLLED",
    "MAX_SIDES",
    "MAX_WEIGHT_BITS",
    "MAX_WORK",
    "Binary",
    "Dice",
    "Group",
    "Node",
    "Num",
    "Op",
    "Selector",
    "Unary",
]

# ---- documented limits (docs/notation.md, "Limits") ----
#: most dice in one group (``NdX``): N <= MAX_DICE
MAX_DICE = 100_000
#: most sides of one die (``dX``) and most listed faces (``d{...}``)
MAX_SIDES = 1_000_000
#: most distinct outcomes an exact distribution may have (estimated before the work)
MAX_OUTCOMES = 1_000_000
#: outcomes x bits per weight, estimated before the work (about 256 MiB of integers)
MAX_WEIGHT_BITS = 2**31
#: estimated work of one exact step (polynomial powers, keep/drop and pool engines), in
#: units of about 20 ns of CPU: the limit is about half a second (calibrated in
#: docs/limits.md; ``831d100``, ``377d6e6``, ``8d6!kh20`` are refused)
MAX_WORK = 50_000_000
#: most intermediate pool states the general keep/drop/explode engine may hold
MAX_POOL_STATES = 200_000
# EXPLODE_DEPTH (imported above): at most this many extra dice per die per explosion
# operator (``e``/``!``/``ra`` chains) -- the API's default depth, one default for both
#: most dice one call of ``roll()`` may roll, counting rerolls and explosions
MAX_ROLLED = 10_000

Number = int | Fraction


@dataclass(frozen=True, slots=True)
class Selector:
    """Which dice (or set items) an operator applies to.

    ``cat`` is ``None`` (value equal to ``num``), ``"h"``/``"l"`` (the ``num`` highest /
    lowest), or one of ``"<" ">" "<=" ">="`` (value compared with ``num``, strictly for
    ``<``/``>`` as in Avrae's d20).
    """

    cat: str | None
    num: int
    col: int

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
    """An operator after dice or a set: ``kind`` is one of ``k p rr ro ra e mi ma``; ``sels``
    are merged selectors (``kh1kl1`` is one ``k`` with two selectors, as in d20). ``spelled``
    is the source text of the operator (``!``, ``dl1`` ... are kept for the breakdown)."""

    kind: str
    sels: tuple[Selector, ...]
    col: int
    spelled: str

    def matches(self, value: Number) -> bool:
        return any(s.matches(value) for s in self.sels)


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


class Node:
    """Base of every syntax-tree node."""

    __slots__ = ()
    col: int


@dataclass(frozen=True, slots=True)
class Num(Node):
    value: Number
    col: int
    spelled: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Dice(Node):
    """``count`` dice, each uniform over ``faces`` (a ``range`` for ``dN``/``d%``, else a
    tuple: repeated faces weigh more)."""

    count: int
    faces: Sequence[int]
    ops: tuple[Op, ...]
    col: int
    spelled: str  # e.g. "4d6", "d%", "2dF", "3d{1,1,2}"
    notes: tuple[str, ...] = ()

    @property
    def top(self) -> int:
        return self.faces[-1] if isinstance(self.faces, range) else max(self.faces)

    def matches_every_face(self, op: Op) -> bool:
        """Whether ``op``'s value selectors match every face; O(selectors) for a ``range``
        of faces (a d1000000 is not walked face by face), O(faces) for listed faces."""
        faces = self.faces
        if not isinstance(faces, range):
            return all(op.matches(f) for f in set(faces))
        lo, hi = faces[0], faces[-1]
        spans = sorted(_interval(s, lo, hi) for s in op.sels)
        reach = lo - 1  # every face up to ``reach`` is matched
        for a, b in spans:
            if a > reach + 1:
                break
            reach = max(reach, b)
        return reach >= hi


@dataclass(frozen=True, slots=True)
class Group(Node):
    """Parentheses: one item without operators is plain grouping; a comma, or keep/drop
    operators after ``)``, make it a set (its value is the sum of its kept items)."""

    items: tuple[Node, ...]
    ops: tuple[Op, ...]
    is_set: bool
    col: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Unary(Node):
    op: str  # "-" or "+"
    operand: Node
    col: int


@dataclass(frozen=True, slots=True)
class Binary(Node):
    op: str  # + - * / // % == != < > <= >=
    left: Node
    right: Node
    col: int


def walk(node: Node) -> list[Node]:
    """Every node of the tree under ``node`` (``node`` included), iteratively."""
    out: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, Group):
            stack.extend(n.items)
        elif isinstance(n, Unary):
            stack.append(n.operand)
        elif isinstance(n, Binary):
            stack.extend((n.left, n.right))
    return out
