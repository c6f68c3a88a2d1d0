"""Dice syntax trees in words (private): what :func:`chancekit.dice.notation.readings`
and :func:`~chancekit.dice.notation.ambiguities` print when dialects disagree.
"""

from __future__ import annotations

from chancekit.dice._ast import Binary, Call, Dice, Group, Node, Num, Unary, VarDice
from chancekit.dice.selectors import Op, Selector

__all__ = ["describe"]

_CMP = {">": "more than", "<": "less than", ">=": "at least", "<=": "at most",
        "==": "equal to", "!=": "not equal to"}


def _sel(s: Selector) -> str:
    c, n = s.cat, s.num
    if c is None:
        return f"showing {n}"
    if c == ">=":
        return f"showing {n} or more"
    if c == "<=":
        return f"showing {n} or less"
    if c == ">":
        return f"showing more than {n}"
    if c == "<":
        return f"showing less than {n}"
    return f"the {n} {'highest' if c == 'h' else 'lowest'}"


def _sels(sels: tuple[Selector, ...]) -> str:
    return " or ".join(_sel(s) for s in sels)


def _op(op: Op) -> str:
    k, s = op.kind, op.sels
    if k in ("k", "p"):
        verb = "keeps" if k == "k" else "drops"
        if all(not x.by_value for x in s):
            return f"{verb} {' and '.join(_sel(x) for x in s)} dice"
        return f"{verb} the dice {_sels(s)}"
    if k == "rr":
        return f"rerolls the dice {_sels(s)} until they do not match"
    if k == "ro":
        return f"rerolls the dice {_sels(s)} once"
    if k == "ra":
        return f"rolls one more die if a die is {_sels(s)}"
    if k in ("e", "eo"):
        limit = f", at most {op.steps[0]} in all" if op.steps else ""
        return f"explodes the dice {_sels(s)}{' once' if k == 'eo' else ''} (extra dice{limit})"
    if k == "ce":
        return f"compounds the dice {_sels(s)} (added to the die)"
    if k == "pe":
        return f"explodes the dice {_sels(s)}, each extra die one less (penetrating)"
    if k in ("mi", "ma"):
        return f"raises each die to at least {s[-1].num}" if k == "mi" else (
            f"lowers each die to at most {s[-1].num}")
    if k == "cnt" and op.steps:
        return "scores each die as Foundry's count modifiers do: " + ", then ".join(
            _STEP[name].format(_sel(sel) if sel is not None else "(a die a count before did "
                               "not count; the 1s if none)") for name, sel in op.steps)
    if k == "mt":
        extra = f" {_sels(s)}" if s else ""
        return (f"counts the values{extra} shown by at least {op.steps[0]} dice (matching "
                "total)")
    if k == "match":
        return "marks matching dice (no change to the total)"
    if k == "cnt":
        text = f"counts the dice {_sels(s)}"
        if op.fails:
            text += f", minus one for each die {_sels(op.fails)}"
        return text
    if k == "mark":
        return "marks crits and fumbles"
    return "sorts the dice"


_STEP = {"cs": "1 if {}, else 0", "cf": "1 (a failure) if {}, else 0",
         "even": "1 if even, else 0", "odd": "1 if odd, else 0",
         "df": "-1 if a failure {}", "sf": "minus its value if a failure {}"}
_CALL = {"floor": "rounds {} down", "ceil": "rounds {} up",
         "round": "rounds {} to the nearest whole number (halves up)",
         "abs": "is the absolute value of {}", "max": "is the largest of {}",
         "min": "is the smallest of {}"}


def _node(n: Node) -> str:
    if isinstance(n, Call):
        return _CALL.get(n.name, f"is {n.name}({{}})").format(
            ", ".join(_short(a) for a in n.args))
    if isinstance(n, Binary) and n.op == "-" and any(
            isinstance(x, Dice | VarDice) and "ms" in x.spelled for x in (n.left, n.right)):
        if isinstance(n.right, Num):
            return f"is the margin of success: the dice's total minus {n.right.spelled}"
        return f"is the margin of success: {_short(n.left)} minus the dice's total"
    if isinstance(n, Binary) and n.op == "**":
        return f"is {_short(n.left)} to the power {_short(n.right)}"
    if isinstance(n, Binary) and n.op in _CMP:
        return f"is 1 if {_short(n.left)} is {_CMP[n.op]} {_short(n.right)}, else 0"
    if isinstance(n, VarDice) and n.signed:
        return (("; ".join(_op(o) for o in n.ops) or f"sums {n.spelled}")
                + " (a count below 0: that many dice, negated)")
    if isinstance(n, Dice | VarDice):
        return "; ".join(_op(o) for o in n.ops) or f"sums {n.spelled}"
    if isinstance(n, Group):
        return ("; ".join(_op(o) for o in n.ops) + " (of the group's items)") if n.ops else (
            "sums the group")
    return f"is {_short(n)}"


def _short(n: Node) -> str:
    if isinstance(n, Num):
        return n.spelled
    if isinstance(n, Dice | VarDice):
        return f"the total of {n.spelled}" if not n.ops else n.spelled
    return "the expression"


def _children(n: Node) -> list[Node]:
    if isinstance(n, Group):
        return list(n.items)
    if isinstance(n, Unary):
        return [n.operand]
    if isinstance(n, Binary):
        return [n.left, n.right]
    if isinstance(n, Call):
        return list(n.args)
    return []


def describe(tree: Node, other: Node | None = None) -> str:
    """``tree`` in words: where ``other`` (another dialect's reading) differs, the first
    differing node; without ``other``, the whole tree's top node."""
    a, b = tree, other
    while b is not None and type(a) is type(b) and a != b:
        if isinstance(a, Dice | VarDice | Group) and a.ops != b.ops:  # type: ignore[union-attr]
            mine = [o for o in a.ops if o not in b.ops]  # type: ignore[union-attr]
            return "; ".join(_op(o) for o in mine) or _node(a)
        ca, cb = _children(a), _children(b)
        if (isinstance(a, Binary) and isinstance(b, Binary) and a.op != b.op) or (
                isinstance(a, Call) and isinstance(b, Call) and a.name != b.name):
            break
        if len(ca) != len(cb):
            break
        diff = [(x, y) for x, y in zip(ca, cb, strict=True) if x != y]
        if len(diff) != 1:
            break
        a, b = diff[0]
    return _node(a)
