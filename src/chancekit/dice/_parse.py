"""A hand-written recursive-descent parser for dice notation (private).

Grammar (whitespace is allowed between tokens, not inside a dice term)::

    expr       := additive (COMP additive)*             COMP: == != <= >= < >
    additive   := term (("+" | "-") term)*
    term       := unary (("*" | "//" | "/" | "%") unary)*
    unary      := ("+" | "-") unary | atom
    atom       := (number | dice | group) annotation*
    number     := DIGITS ["." DIGITS] | "." DIGITS
    dice       := [DIGITS] "d" (DIGITS | "%" | "F" | "{" face ("," face)* "}") dice_op*
    dice_op    := ("k" | "p" | "rr" | "r" | "ro" | "ra" | "e" | "mi" | "ma") selector
                | ("dh" | "dl") DIGITS | "!" [selector]  | "e" (explode: selector optional)
    selector   := ["h" | "l" | "<" | ">" | "<=" | ">="] ["-"] DIGITS
    group      := "(" [expr ("," expr)* [","]] ")" set_op*
    set_op     := ("k" | "p") selector | ("dh" | "dl") DIGITS
    annotation := "[" any text but "]" "]"

Every failure raises :class:`~chancekit.errors.NotationError` (problem, text, column) or,
for sizes past a documented limit, :class:`~chancekit.errors.LimitError`; nothing else
escapes (the parser never recurses more than :data:`MAX_DEPTH` levels).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from chancekit.dice._ast import (
    MAX_DICE,
    MAX_SIDES,
    Binary,
    Dice,
    Group,
    Node,
    Num,
    Op,
    Selector,
    Unary,
)
from chancekit.errors import InvalidTypeError, LimitError, NotationError
from chancekit.limits import MAX_DEPTH, MAX_LENGTH

__all__ = ["MAX_DEPTH", "MAX_LENGTH", "parse"]


_WS = " \t\r\n"
_COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
_DICE_OPS = ("rr", "ro", "ra", "mi", "ma", "r", "k", "p", "e", "d", "!")
_SET_OPS = ("k", "p", "d")


def _show(ch: str) -> str:
    return repr(ch) if ch else "end of expression"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    # ---- helpers ----
    def fail(self, problem: str, pos: int | None = None) -> NotationError:
        p = self.pos if pos is None else pos
        return NotationError(problem, self.text, p + 1)

    def unexpected(self, pos: int | None = None, expected: str = "") -> NotationError:
        p = self.pos if pos is None else pos
        ch = self.text[p] if p < len(self.text) else ""
        what = f"unexpected {_show(ch)}" if ch else "unexpected end of expression"
        return self.fail(what + (f" (expected {expected})" if expected else ""), p)

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos:self.pos + n]

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WS:
            self.pos += 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"expression nested too deeply (more than {MAX_DEPTH} levels)")

    def digits(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
        return self.text[start:self.pos]

    # ---- grammar ----
    def parse(self) -> Node:
        self.skip_ws()
        if self.pos == len(self.text):
            raise self.fail("empty expression")
        node = self.comparison()
        self.skip_ws()
        if self.pos != len(self.text):
            if self.peek() == ",":
                raise self.fail("unexpected ',' (a set needs parentheses: '(1d6, 2d4)kh1')")
            raise self.unexpected()
        return node

    def comparison(self) -> Node:
        left = self.additive()
        entered = 0
        while True:
            self.skip_ws()
            op = next((c for c in _COMPARISONS if self.text.startswith(c, self.pos)), None)
            if op is None:
                self.depth -= entered
                return left
            col = self.pos + 1
            self.pos += len(op)
            entered += 1
            self.enter()
            left = Binary(op, left, self.additive(), col)

    def additive(self) -> Node:
        left = self.term()
        entered = 0
        while True:
            self.skip_ws()
            ch = self.peek()
            if ch not in ("+", "-") or not ch:
                self.depth -= entered
                return left
            col = self.pos + 1
            self.pos += 1
            self.enter()
            entered += 1
            left = Binary(ch, left, self.term(), col)

    def term(self) -> Node:
        left = self.unary()
        entered = 0
        while True:
            self.skip_ws()
            if self.text.startswith("//", self.pos):
                op = "//"
            elif self.peek() in ("*", "/", "%") and self.peek():
                op = self.peek()
            else:
                self.depth -= entered
                return left
            col = self.pos + 1
            self.pos += len(op)
            self.enter()
            entered += 1
            left = Binary(op, left, self.unary(), col)

    def unary(self) -> Node:
        self.skip_ws()
        ch = self.peek()
        if ch in ("+", "-") and ch:
            col = self.pos + 1
            self.pos += 1
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return Unary(ch, operand, col)
        return self.atom()

    def atom(self) -> Node:
        self.skip_ws()
        ch = self.peek()
        node: Node
        if ch == "(":
            node = self.group()
        elif ch and (ch in "0123456789." or ch in "dD"):
            node = self.number_or_dice()
        else:
            raise self.unexpected(expected="a number, dice or '('")
        notes = self.annotations()
        if notes:
            node = _with_notes(node, notes)
        return node

    def annotations(self) -> tuple[str, ...]:
        notes: list[str] = []
        while True:
            save = self.pos
            self.skip_ws()
            if self.peek() != "[":
                self.pos = save
                return tuple(notes)
            end = self.text.find("]", self.pos)
            if end < 0:
                raise self.fail("unclosed annotation '[' (close it with ']')")
            notes.append(self.text[self.pos:end + 1])
            self.pos = end + 1

    def number_or_dice(self) -> Node:
        start = self.pos
        whole = self.digits()
        if self.peek() == ".":
            self.pos += 1
            frac = self.digits()
            if not whole and not frac:
                raise self.unexpected(start)
            if self.peek() in ("d", "D") and self.peek():
                raise self.fail("the number of dice must be a whole number", start)
            spelled = self.text[start:self.pos]
            return Num(Fraction(spelled if whole else "0" + spelled), start + 1, spelled)
        if self.peek() in ("d", "D") and self.peek():
            return self.dice(start, int(whole) if whole else 1)
        return Num(int(whole), start + 1, whole)

    def dice(self, start: int, count: int) -> Dice:
        if count > MAX_DICE:
            raise LimitError(
                f"{count} dice in one group is past the limit of {MAX_DICE} dice per group "
                f"(MAX_DICE) at column {start + 1}; use fewer dice, or build the distribution "
                f"with chancekit.d(sides) and the @ operator (n @ die)",
                limit="MAX_DICE", value=count)
        self.pos += 1  # the "d"
        ch = self.peek()
        faces: Sequence[int]
        if ch == "%":
            self.pos += 1
            faces = range(1, 101)
        elif ch in ("F", "f") and ch:
            self.pos += 1
            faces = (-1, 0, 1)
        elif ch == "{":
            faces = self.faces()
        elif ch and ch in "0123456789":
            spos = self.pos
            sides = int(self.digits())
            if sides == 0:
                raise self.fail("a die needs at least 1 side (d0 has none)", spos)
            if sides > MAX_SIDES:
                raise LimitError(
                    f"a d{sides} is past the limit of {MAX_SIDES} sides (MAX_SIDES) at column "
                    f"{spos + 1}; use a smaller die", limit="MAX_SIDES", value=sides)
            faces = range(1, sides + 1)  # compact: a d1000000 is not a million ints
        else:
            raise self.unexpected(expected="the number of sides, '%', 'F' or '{faces}'")
        ops = self.operators(dice=True, top=faces[-1] if isinstance(faces, range) else max(faces))
        spelled = self.text[start:self.pos]
        return Dice(count, faces, ops, start + 1, spelled)

    def faces(self) -> tuple[int, ...]:
        self.pos += 1  # "{"
        out: list[int] = []
        while True:
            self.skip_ws()
            fpos = self.pos
            sign = 1
            if self.peek() in ("-", "+") and self.peek():
                sign = -1 if self.peek() == "-" else 1
                self.pos += 1
            num = self.digits()
            if not num:
                raise self.unexpected(expected="a whole-number face")
            if len(num) > 18:
                raise self.fail("face value too large (at most 18 digits)", fpos)
            out.append(sign * int(num))
            if len(out) > MAX_SIDES:
                raise LimitError(f"more than {MAX_SIDES} faces (MAX_SIDES) in a custom die",
                                 limit="MAX_SIDES", value=len(out))
            self.skip_ws()
            if self.peek() == ",":
                self.pos += 1
                continue
            if self.peek() == "}":
                self.pos += 1
                return tuple(out)
            raise self.unexpected(expected="',' or '}'")

    def operators(self, *, dice: bool, top: int | None) -> tuple[Op, ...]:
        ops: list[Op] = []
        while True:
            op = self.operator(dice=dice, top=top)
            if op is None:
                break
            last = ops[-1] if ops else None
            if last is not None and last.kind == op.kind and op.kind not in ("mi", "ma"):
                ops[-1] = Op(last.kind, last.sels + op.sels, last.col,
                             last.spelled + op.spelled)
            else:
                ops.append(op)
        return tuple(ops)

    def operator(self, *, dice: bool, top: int | None) -> Op | None:
        t, p = self.text, self.pos
        if dice:
            name = next((o for o in _DICE_OPS if t.startswith(o, p)), None)
        else:
            name = next((o for o in _SET_OPS if t.startswith(o, p)), None)
            if (name is None and t[p:p + 1].isalpha()) or t[p:p + 1] == "!":
                if t.startswith(("rr", "ro", "ra", "r", "e", "mi", "ma", "!"), p):
                    raise self.fail("only keep/drop operators (k, p, dh, dl) apply to a set "
                                    "or parentheses; reroll, explode, mi and ma apply to dice")
        if name is None:
            return None
        if name == "!" and t.startswith("!=", p):
            return None  # the comparison '!='
        if name == "!" and t.startswith("!!", p) and not t.startswith("!!=", p):
            raise self.fail("compounding explosions '!!' are not supported; use '!' "
                            "(explode into extra dice)")
        if name == "d":
            if not t.startswith(("dh", "dl"), p):
                raise self.fail("after dice, 'd' must be 'dh' or 'dl' (drop highest / lowest); "
                                "write 'dl1' to drop the lowest die, or 'p1' to drop the 1s")
        col = p + 1
        self.pos += len(name)
        kind = {"r": "rr", "!": "e", "d": "p"}.get(name, name)
        if kind == "e" and not self._selector_follows():
            if top is None:  # pragma: no cover - sets have no 'e'
                raise self.unexpected()
            sel = Selector(None, top, col)
        else:
            sel = self.selector(kind, only_hl=(name == "d"))
        return Op(kind, (sel,), col, self.text[p:self.pos])

    def _selector_follows(self) -> bool:
        ch = self.peek()
        return bool(ch) and (ch in "hl<>-0123456789")

    def selector(self, kind: str, *, only_hl: bool) -> Selector:
        col = self.pos + 1
        cat: str | None = None
        for c in ("<=", ">=", "h", "l", "<", ">"):
            if self.text.startswith(c, self.pos):
                cat = c
                self.pos += len(c)
                break
        if only_hl and cat not in ("h", "l"):
            raise self.unexpected(expected="'h' or 'l' after 'd'")
        sign = 1
        if self.peek() == "-" and cat not in ("h", "l"):
            sign = -1
            self.pos += 1
        num = self.digits()
        if not num:
            what = {"k": "keep", "p": "drop", "rr": "reroll", "ro": "reroll-once",
                    "ra": "reroll-and-add", "e": "explode", "mi": "minimum",
                    "ma": "maximum"}[kind]
            raise self.unexpected(expected=f"a number for the {what} operator "
                                  f"(e.g. '{kind}{'h' if kind in ('k', 'p') else ''}1')")
        if len(num) > 18:
            raise self.fail("selector number too large (at most 18 digits)", col - 1)
        value = sign * int(num)
        if kind in ("mi", "ma") and cat is not None:
            raise self.fail(f"'{kind}' takes a plain number ('{kind}2'), not a selector", col - 1)
        if kind in ("rr", "ro", "ra", "e") and cat in ("h", "l"):
            raise self.fail(f"'{kind}' needs a value selector (like '1', '<3' or '>5'), not "
                            f"highest/lowest", col - 1)
        return Selector(cat, value, col)

    def group(self) -> Group:
        col = self.pos + 1
        self.pos += 1  # "("
        self.enter()
        items: list[Node] = []
        comma = False
        self.skip_ws()
        if self.peek() != ")":
            while True:
                items.append(self.comparison())
                self.skip_ws()
                if self.peek() == ",":
                    comma = True
                    self.pos += 1
                    self.skip_ws()
                    if self.peek() == ")":
                        break
                    continue
                if self.peek() == ")":
                    break
                raise self.unexpected(expected="',' or ')'")
        else:
            comma = True  # "()" is the empty set
        self.pos += 1  # ")"
        self.depth -= 1
        ops = self.operators(dice=False, top=None)
        return Group(tuple(items), ops, comma or bool(ops), col)


def _with_notes(node: Node, notes: tuple[str, ...]) -> Node:
    if isinstance(node, Num):
        return Num(node.value, node.col, node.spelled, node.notes + notes)
    if isinstance(node, Dice):
        return Dice(node.count, node.faces, node.ops, node.col, node.spelled,
                    node.notes + notes)
    if isinstance(node, Group):
        return Group(node.items, node.ops, node.is_set, node.col, node.notes + notes)
    raise AssertionError(node)  # pragma: no cover


def parse(text: str) -> Node:
    """Parse ``text`` into a syntax tree; O(len(text)).

    >>> parse("4d6kh3").count
    4
    """
    if not isinstance(text, str):
        raise InvalidTypeError("notation", text, "a str such as '4d6kh3'")
    if len(text) > MAX_LENGTH:
        raise LimitError(f"a dice expression of {len(text)} characters is past the limit of "
                         f"{MAX_LENGTH} (MAX_LENGTH); split it into smaller expressions",
                         limit="MAX_LENGTH", value=len(text))
    return _Parser(text).parse()
