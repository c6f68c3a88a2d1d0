"""The syntax tree of a dice expression, and the documented limits (private).

The parser (:mod:`chancekit.dice._parse`) builds these immutable nodes; the exact evaluator
(:mod:`chancekit.dice._compile`, onto the API) and the roller
(:mod:`chancekit.dice._roll`) walk them.
Every node remembers its 1-based column in the source text, so errors found after parsing
(division by zero, a limit) can still point at the right place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from chancekit.dice.distribution import EXPLODE_DEPTH
from chancekit.dice.selectors import (
    Op,
    Selector,
    foundry_count,
    match_count,
    matches_every_face,
)
from chancekit.limits import (
    MAX_DICE,
    MAX_OUTCOMES,
    MAX_POOL_STATES,
    MAX_ROLLED,
    MAX_SIDES,
    MAX_WEIGHT_BITS,
    MAX_WORK,
)

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
    "Call",
    "Dice",
    "Group",
    "Node",
    "Num",
    "Op",
    "Selector",
    "Unary",
    "VarDice",
    "foundry_count",
    "match_count",
]

Number = int | Fraction


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
        """Whether ``op``'s value selectors match every face (O(selectors) for ``dN``)."""
        return matches_every_face(op, self.faces)


@dataclass(frozen=True, slots=True)
class Group(Node):
    """Parentheses: one item without operators is plain grouping; a comma, or keep/drop
    operators after ``)``, make it a set (its value is the sum of its kept items)."""

    items: tuple[Node, ...]
    ops: tuple[Op, ...]
    is_set: bool
    col: int
    notes: tuple[str, ...] = ()
    brace: bool = False  # written ``{...}`` (Roll20 grouped roll)


@dataclass(frozen=True, slots=True)
class VarDice(Node):
    """Dice whose count and/or sides are rolled: ``(1d4)d6``, ``1d(1d20)``. ``count`` is
    a node or a fixed int; ``sides`` a node, or ``None`` with fixed ``faces``. ``signed``
    (Foundry): a count below 0 rolls that many dice and negates their total; ``rounded``
    (Roll20): a fractional count is rounded first, as ``round()`` (``(5/2)d6`` = 3d6)."""

    count: Node | int
    sides: Node | None
    faces: Sequence[int] | None
    ops: tuple[Op, ...]
    col: int
    spelled: str
    notes: tuple[str, ...] = ()
    signed: bool = field(default=False, compare=False)  # equal trees in every dialect
    rounded: bool = field(default=False, compare=False)  # Roll20: the count rounded first


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


@dataclass(frozen=True, slots=True)
class Call(Node):
    """A math function of the roll20 / foundry dialects: ``floor ceil round abs`` of one
    argument, ``max min`` of one or more (independent) arguments."""

    name: str
    args: tuple[Node, ...]
    col: int
    notes: tuple[str, ...] = ()


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
        elif isinstance(n, Call):
            stack.extend(n.args)
        elif isinstance(n, VarDice):
            stack.extend(x for x in (n.count, n.sides) if isinstance(x, Node))
    return out
