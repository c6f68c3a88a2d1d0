"""The syntax tree of a dice expression, and the documented limits (private).

The parser (:mod:`chancekit.dice._parse`) builds these immutable nodes; the exact evaluator
(:mod:`chancekit.dice._ast_eval`) and the roller (:mod:`chancekit.dice._roll`) walk them.
Every node remembers its 1-based column in the source text, so errors found after parsing
(division by zero, a limit) can still point at the right place.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

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
MAX_WORK = 25_000_000
#: most intermediate pool states the general keep/drop/explode engine may hold
MAX_POOL_STATES = 200_000
#: at most this many extra dice per die per explosion operator (``e``/``!``/``ra`` chains)
EXPLODE_DEPTH = 20
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
    """``count`` dice, each uniform over ``faces`` (a tuple: repeated faces weigh more)."""

    count: int
    faces: tuple[int, ...]
    ops: tuple[Op, ...]
    col: int
    spelled: str  # e.g. "4d6", "d%", "2dF", "3d{1,1,2}"
    notes: tuple[str, ...] = ()

    @property
    def top(self) -> int:
        return max(self.faces)


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
