"""Notation the certified way: a syntax tree evaluated on
:class:`~chancekit.dice.certified.CertifiedDistribution` (what ``dist(text, approx=True)``
falls back to when the exact evaluation is refused for its work).

The certified path covers what makes weights huge in notation: sums of many dice
(``NdX``, plain or keeping the highest or lowest one, or with operators that act on each
die alone: explosions, rerolls, ``mi``/``ma``, success counts, as ``1000d6!``: one such
die exactly, then the certified sum of ``N`` copies), and the arithmetic on them
(``+ - * / // %``, comparisons, unary minus, parentheses, ``abs``/``floor``/``ceil``/
``round``, ``max``/``min``). Any other node (other keeps, ``ra``, Roll20's matching,
sets, rolled counts) has no certified path: :func:`supported` says which node, and the exact
refusal stands. Every step is priced against the same work budget as an exact
evaluation (``MAX_WORK``, or ``--max-work``).

>>> from chancekit.dice._parse import parse
>>> c = evaluate(parse("3d6 + 1", "avrae"), "3d6 + 1")
>>> c.contains(3 @ d(6) + 1)
True
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from chancekit.dice._ast import Binary, Call, Dice, Group, Node, Num, Unary
from chancekit.dice.certified import CertifiedDistribution, certify
from chancekit.dice.distribution import Distribution, _exact_div, constant, d, faces
from chancekit.errors import LimitError, NotationError, quote
from chancekit.limits import MAX_OUTCOMES

__all__ = ["evaluate", "supported"]

_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _exact_div,
    "//": operator.floordiv, "%": operator.mod,
    "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
    "<": lambda x, y: int(x < y), ">": lambda x, y: int(x > y),
    "<=": lambda x, y: int(x <= y), ">=": lambda x, y: int(x >= y),
}
_MAPS: dict[str, Callable[[Any], Any]] = {
    "floor": math.floor, "ceil": math.ceil, "abs": abs,
    "round": lambda x: math.floor(x + Fraction(1, 2)),
}


#: operators that act on each die alone, so ``N`` such dice are the sum of ``N``
#: independent copies of one (rerolls, explosions and their depth cap, which is per die,
#: minimum/maximum, counting successes); checked against the exact answers in
#: tests/dice/test_certified.py. (``ra``, keeps, drops and Roll20's matching are not.)
PER_DIE = frozenset({"rr", "ro", "e", "ce", "pe", "eo", "mi", "ma", "cnt"})


def _per_die(node: Dice) -> bool:
    """Whether every operator of the group acts on each die alone (and one does)."""
    ops = [op for op in node.ops if op.kind not in ("mark", "sort")]
    return bool(ops) and all(op.kind in PER_DIE for op in ops)


def _keep_one(node: Dice) -> str | None:
    """``"highest"``/``"lowest"`` for a group keeping (or dropping down to) one die, ``""``
    for a plain group, ``"each"`` for a group whose operators act on each die alone
    (explosions, rerolls, counts: :data:`PER_DIE`), else None (no certified path)."""
    ops = [op for op in node.ops if op.kind not in ("mark", "sort")]
    if not ops:
        return ""
    if _per_die(node):
        return "each"
    if len(ops) != 1:
        return None
    op = ops[0]
    if len(op.sels) != 1:
        return None
    cat, n = op.sels[0].cat, op.sels[0].num
    if cat not in ("h", "l"):
        return None
    if op.kind == "k" and n == 1:  # keep the highest / lowest one
        return "highest" if cat == "h" else "lowest"
    if op.kind == "p" and n == node.count - 1:  # drop all but one
        return "lowest" if cat == "h" else "highest"
    return None


def supported(node: Node) -> Node | None:
    """The first node of the tree with no certified path, or None (all have one)."""
    if isinstance(node, Num):
        return None
    if isinstance(node, Dice):
        return None if _keep_one(node) is not None else node
    if isinstance(node, Group):
        return supported(node.items[0]) if not node.is_set and not node.ops else node
    if isinstance(node, Unary):
        return supported(node.operand)
    if isinstance(node, Binary):
        if node.op not in _OPS:
            return node
        return supported(node.left) or supported(node.right)
    if isinstance(node, Call):
        if node.name not in _MAPS and node.name not in ("max", "min"):
            return node
        for a in node.args:
            bad = supported(a)
            if bad is not None:
                return bad
        return None
    return node


def _die(node: Dice) -> Distribution:
    f = node.faces
    if isinstance(f, range) and f.start == 1:
        return d(len(f))
    return faces(list(f))


def evaluate(node: Node, text: str) -> CertifiedDistribution | Distribution:
    """The certified distribution of ``node`` (every node supported; see
    :func:`supported`), priced against the open work budget."""
    return certify(_eval(node, text))


def _eval(node: Node, text: str) -> Any:
    if isinstance(node, Num):
        return constant(node.value)
    if isinstance(node, Dice):
        keep = _keep_one(node)
        if node.count == 0:
            return constant(0)
        if keep == "each":  # one die with its operators, exactly (small), then N copies
            from dataclasses import replace

            from chancekit.dice._compile import compile_tree

            one = compile_tree(replace(node, count=1), text)
            return certify(one).repeat_sum(node.count)
        f = node.faces
        span = node.count * (max(f) - min(f)) + 1 if f else 1
        if not keep and span > MAX_OUTCOMES:  # before the die is rounded (d1000000: 1 s)
            raise LimitError(f"{node.count} dice with outcomes {min(f)}..{max(f)} would "
                             f"give {span} outcomes, past MAX_OUTCOMES = {MAX_OUTCOMES}",
                             limit="MAX_OUTCOMES", value=span)
        die = certify(_die(node))
        if keep:
            return die.extreme(node.count, highest=keep == "highest")
        return die.repeat_sum(node.count)
    if isinstance(node, Group):
        return _eval(node.items[0], text)
    if isinstance(node, Unary):
        inner = _eval(node.operand, text)
        return inner if node.op == "+" else -certify(inner)
    if isinstance(node, Call):
        args = [certify(_eval(a, text)) for a in node.args]
        if node.name in _MAPS:
            return args[0].map(_MAPS[node.name])
        out = args[0]
        for a in args[1:]:
            out = out.max(a) if node.name == "max" else out.min(a)
        return out
    if isinstance(node, Binary):
        a = certify(_eval(node.left, text))
        b = certify(_eval(node.right, text))
        if node.op in ("/", "//", "%") and 0 in b:
            raise NotationError(f"division by zero: the right side of '{node.op}' can be 0",
                                text, node.col)
        return a._combine(b, _OPS[node.op], node.op)
    raise LimitError(f"no certified path for the expression at column {node.col} of "
                     f"{quote(text)}", limit="certified path", value=text)


