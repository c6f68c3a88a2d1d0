"""Rolling a dice syntax tree with a bit source, with an Avrae-style breakdown (private).

The semantics mirror :mod:`chancekit.dice.evaluate` (behind :class:`~chancekit.dice.Pool`)
operator by operator (docs/notation.md):
the exact distribution of :func:`roll_tree`'s total is the distribution ``dist`` returns.
Every die is one ``rng.randbelow(len(faces))`` call, so a scripted bit source can enumerate
all rolls (the test-suite does exactly that).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from chancekit.dice._ast import (
    EXPLODE_DEPTH,
    MAX_ROLLED,
    Binary,
    Call,
    Dice,
    Group,
    Node,
    Num,
    Op,
    Unary,
    VarDice,
    match_count,
    walk,
)
from chancekit.errors import LimitError, NotationError

__all__ = ["roll_tree"]


def _clean(x: Any) -> Any:
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def _fmt(x: Any) -> str:
    return str(_clean(x))


class _Lit:
    """One roll of a die: its value history (``mi``/``ma`` append), whether a reroll
    replaced it, whether it exploded."""

    __slots__ = ("exploded", "parts", "replaced", "values")

    def __init__(self, value: int) -> None:
        self.values = [value]
        self.replaced = False
        self.exploded = False
        self.parts: list[int] = []  # a compounded die: the rolls added to it

    def text(self) -> str:
        s = " -> ".join(_fmt(v) for v in self.values)
        if self.parts:
            s = "+".join(_fmt(v) for v in self.parts) + "!!" + (
                " -> " + " -> ".join(_fmt(v) for v in self.values[1:])
                if len(self.values) > 1 else "")
        if self.exploded:
            s += "!"
        return f"~~{s}~~" if self.replaced else s


class _Die:
    __slots__ = ("kept", "mark", "raw", "rolls")

    def __init__(self, value: int, raw: int | None = None) -> None:
        self.rolls = [_Lit(value)]
        self.kept = True
        self.raw = value if raw is None else raw  # a penetrating die: its face as rolled
        self.mark = ""

    @property
    def value(self) -> Any:
        return self.rolls[-1].values[-1]

    def text(self) -> str:
        s = ", ".join(r.text() for r in self.rolls)
        if self.mark:
            s = f"{self.mark}{s}{self.mark}"
        return s if self.kept else f"~~{s}~~"


class _Roller:
    def __init__(self, rng: Any, text: str) -> None:
        self.rng = rng
        self.text = text
        self.rolled = 0
        self.drawn: list[int] = []

    def draw(self, faces: tuple[int, ...]) -> int:
        self.rolled += 1
        if self.rolled > MAX_ROLLED:
            raise LimitError(
                f"rolling {self.text!r} needed more than {MAX_ROLLED} dice (MAX_ROLLED), "
                f"counting rerolls and explosions; use fewer dice or explode on fewer faces",
                limit="MAX_ROLLED", value=self.rolled)
        face = faces[self.rng.randbelow(len(faces))]
        self.drawn.append(face)
        return face

    # -> (value, text)
    def eval(self, node: Node) -> tuple[Any, str]:
        if isinstance(node, Num):
            return node.value, node.spelled + _notes(node.notes)
        if isinstance(node, Dice):
            return self.dice(node)
        if isinstance(node, VarDice):
            return self.var_dice(node)
        if isinstance(node, Group):
            return self.group(node)
        if isinstance(node, Unary):
            v, t = self.eval(node.operand)
            return (-v if node.op == "-" else v), f"{node.op}{t}"
        if isinstance(node, Binary):
            return self.binary(node)
        if isinstance(node, Call):
            from chancekit.dice._compile import FUNCTIONS

            parts = [self.eval(a) for a in node.args]
            try:
                v = FUNCTIONS[node.name](*(p[0] for p in parts))
            except (ValueError, ZeroDivisionError) as e:
                raise NotationError(f"{node.name}: {e} (as rolled)", self.text,
                                    node.col) from None
            return _clean(v), (f"{node.name}({', '.join(p[1] for p in parts)})"
                               f"{_notes(node.notes)}")
        raise AssertionError(node)  # pragma: no cover

    def binary(self, node: Binary) -> tuple[Any, str]:
        a, ta = self.eval(node.left)
        b, tb = self.eval(node.right)
        op = node.op
        if op in ("/", "//", "%") and b == 0:
            raise NotationError(f"division by zero: the right side of '{op}' rolled 0",
                                self.text, node.col)
        try:
            v = _BINARY[op](a, b)
        except (ValueError, ZeroDivisionError) as e:
            raise NotationError(f"{op}: {e} (as rolled)", self.text, node.col) from None
        return _clean(v), f"{ta} {op} {tb}"

    def var_dice(self, node: VarDice) -> tuple[Any, str]:
        """Roll the count and the sides first, then the dice (as ``dist`` mixes them)."""
        from chancekit.dice._compile import check_dice_ops

        head = []
        count: Any = node.count
        if isinstance(node.count, Node):
            count, t = self.eval(node.count)
            head.append(f"({t})")
            if node.rounded and not isinstance(_clean(count), int):
                count = math.floor(Fraction(count) + Fraction(1, 2))  # Roll20: round()
            if not isinstance(_clean(count), int) or (count < 0 and not node.signed):
                raise NotationError(f"the number of dice rolled {_fmt(count)}: a whole "
                                    "number of at least 0 is needed", self.text, node.col)
        faces = node.faces
        if node.sides is not None:
            sides, t = self.eval(node.sides)
            head.append(f"d({t})")
            if not isinstance(_clean(sides), int) or sides < 1:
                raise NotationError(f"the number of sides rolled {_fmt(sides)}: a whole "
                                    "number of at least 1 is needed", self.text, node.col)
            faces = range(1, int(sides) + 1)
        assert faces is not None
        label = (f"{int(count)}d{len(faces)}" if isinstance(faces, range) and faces.start == 1
                 else f"{int(count)}d{{{','.join(map(str, faces))}}}")
        negative = count < 0  # Foundry (signed): |count| dice, the total negated
        dice = Dice(abs(int(count)), faces, node.ops, node.col, label.lstrip("-"), node.notes)
        check_dice_ops(dice, self.text)
        total, text = self.dice(dice)
        if negative:
            total, text = -total, f"-({text})"
        return total, f"{node.spelled}: {' '.join(head)} -> {text}"

    def dice(self, node: Dice) -> tuple[Any, str]:
        faces = node.faces
        dice = [_Die(self.draw(faces)) for _ in range(node.count)]
        total: Any = None
        order = None
        for op in node.ops:
            if op.kind == "cnt":
                total = sum(op.score(d.value) for d in dice if d.kept)
            elif op.kind == "mt":
                total = match_count([d.value for d in dice if d.kept], op)
            elif op.kind == "match":
                continue  # Roll20's 'm': highlights matched dice, no change to the total
            elif op.kind == "mark":
                for d in dice:
                    if any(s.matches(d.value) for s in op.sels):
                        d.mark = "**"
                    elif any(s.matches(d.value) for s in op.fails):
                        d.mark = "_"
            elif op.kind == "sort":
                order = op.sels[0].cat
            else:
                self.apply(op, dice, faces)
        if total is None:
            total = sum(d.value for d in dice if d.kept)
        shown = dice if order is None else sorted(dice, key=lambda d: d.value,
                                                    reverse=order == "h")
        inner = ", ".join(d.text() for d in shown)
        return total, f"{node.spelled} ({inner}){_notes(node.notes)}"

    def apply(self, op: Op, dice: list[_Die], faces: tuple[int, ...]) -> None:
        kind = op.kind
        kept = [d for d in dice if d.kept]
        if kind in ("k", "p"):
            picked = _select([d.value for d in kept], op)
            for i, d in enumerate(kept):
                if (i in picked) != (kind == "k"):
                    d.kept = False
        elif kind in ("rr", "ro"):
            # Foundry's limited rerolls ('r1=1', op.steps): at most that many in all, in
            # Foundry's order (the rolled dice, then the new results)
            budget = op.steps[0] if op.steps else None
            todo = [d for d in kept if op.matches(d.value)]
            while todo:
                for d in todo:
                    if budget is not None:
                        if budget <= 0:
                            return
                        budget -= 1
                    self.reroll(d, faces)
                if kind == "ro":
                    break
                todo = [d for d in todo if op.matches(d.value)]
        elif kind == "ce":  # compounding: the fresh rolls are added to the die itself
            for d in kept:
                if op.matches(d.value):
                    lit = d.rolls[-1]
                    parts = [d.value]
                    while True:
                        f = self.draw(faces)
                        parts.append(f)
                        if len(parts) > EXPLODE_DEPTH or not op.matches(f):
                            break
                    lit.parts = parts
                    lit.values.append(sum(parts))
        elif kind in ("mi", "ma"):
            n = op.sels[-1].num
            for d in kept:
                if (d.value < n) if kind == "mi" else (d.value > n):
                    d.rolls[-1].values.append(n)
        elif kind == "ra":
            for d in kept:
                if op.matches(d.value):
                    d.rolls[-1].exploded = True
                    dice.append(_Die(self.draw(faces)))
                    break
        else:  # "e", "pe", "eo": explode, new dice explode too, at most EXPLODE_DEPTH per
            # chain (1 for "eo"); a penetrating die counts one less, explodes on its face
            # Foundry's limited explosions ('x5=10', op.steps): at most that many in all, in
            # Foundry's order (the rolled dice, then the new ones), no depth cap beyond it
            budget = op.steps[0] if op.steps else None
            limit = 1 if kind == "eo" else EXPLODE_DEPTH if budget is None else budget + 1
            shift = -1 if kind == "pe" else 0
            depth = {id(d): 0 for d in kept}
            todo = [d for d in kept if op.matches(d.value)]
            while todo:
                new: list[_Die] = []
                for d in todo:
                    if depth[id(d)] >= limit:
                        continue
                    if budget is not None:
                        if budget <= 0:
                            break
                        budget -= 1
                    d.rolls[-1].exploded = True
                    f = self.draw(faces)
                    child = _Die(f + shift, f)
                    depth[id(child)] = depth[id(d)] + 1
                    dice.append(child)
                    new.append(child)
                todo = [d for d in new if op.matches(d.raw)]

    def reroll(self, d: _Die, faces: tuple[int, ...]) -> None:
        d.rolls[-1].replaced = True
        d.rolls.append(_Lit(self.draw(faces)))

    def group(self, node: Group) -> tuple[Any, str]:
        parts = [self.eval(it) for it in node.items]
        notes = _notes(node.notes)
        if not node.is_set:
            v, t = parts[0]
            return v, f"({t}){notes}"
        kept = [True] * len(parts)
        spelled = ""
        count: Any = None
        for op in node.ops:
            if op.kind == "cnt":
                count = sum(op.score(p[0]) for p, k in zip(parts, kept, strict=True) if k)
                spelled += op.spelled
                continue
            idx = [i for i in range(len(parts)) if kept[i]]
            picked = _select([parts[i][0] for i in idx], op)
            for j, i in enumerate(idx):
                if (j in picked) != (op.kind == "k"):
                    kept[i] = False
            spelled += op.spelled
        total = sum((p[0] for p, k in zip(parts, kept, strict=True) if k), start=0)
        if count is not None:
            total = count
        texts = [t if k else f"~~{t}~~" for (_, t), k in zip(parts, kept, strict=True)]
        if node.brace:
            return _clean(total), f"{{{', '.join(texts)}}}{spelled}{notes}"
        inner = ", ".join(texts) + ("," if len(texts) == 1 else "")
        return _clean(total), f"({inner}){spelled}{notes}"


def _select(values: list[Any], op: Op) -> set[int]:
    """Positions in ``values`` (in roll order) picked by the union of ``op``'s selectors.

    Highest/lowest use one total order -- by value, ties by roll order -- so ``h`` picks
    from its top end and ``l`` from its bottom end: in ``(3, 3, 3)kh1kl1`` they pick two
    different dice (the sum does not depend on which tied die is struck).
    """
    picked: set[int] = set()
    order = sorted(range(len(values)), key=lambda i: (values[i], i))
    for s in op.sels:
        if s.cat == "h":
            picked.update(order[max(0, len(order) - s.num):] if s.num > 0 else ())
        elif s.cat == "l":
            picked.update(order[:max(0, s.num)])
        else:
            picked.update(i for i, v in enumerate(values) if s.matches(v))
    return picked


def _notes(notes: tuple[str, ...]) -> str:
    return "".join(" " + n for n in notes)


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: Fraction(a) / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "**": lambda a, b: _power(a, b),
}


def _power(a: Any, b: Any) -> Any:
    from chancekit.dice._compile import power

    return power(a, b)


def count_dice(node: Node) -> int:
    """Dice the expression asks for before any reroll or explosion."""
    return sum(n.count for n in walk(node) if isinstance(n, Dice))


def roll_tree(node: Node, rng: Any, text: str) -> tuple[Any, str, list[int]]:
    """Roll ``node``: (total, breakdown without the ``= total`` tail, every face drawn)."""
    asked = count_dice(node)
    if asked > MAX_ROLLED:
        raise LimitError(
            f"{text!r} asks for {asked} dice, past the limit of {MAX_ROLLED} dice per roll "
            f"(MAX_ROLLED); use chancekit.dist(...) for the exact distribution instead",
            limit="MAX_ROLLED", value=asked)
    r = _Roller(rng, text)
    value, breakdown = r.eval(node)
    return _clean(value), breakdown, r.drawn
