"""A hand-written recursive-descent parser for dice notation (private).

Grammar (whitespace is allowed between tokens, not inside a dice term)::

    expr       := additive (COMP additive)*             COMP: == != <= >= < >
    additive   := term (("+" | "-") term)*
    term       := unary (("*" | "//" | "/" | "%") unary)*
    unary      := ("+" | "-") unary | atom
    atom       := (number | dice | group | call) annotation*
    call       := NAME "(" expr ("," expr)* ")"   (roll20 / foundry: floor ceil round abs
                                                    of one expr, max min of one or more)
    number     := DIGITS ["." DIGITS] | "." DIGITS
    dice       := [DIGITS] "d" (DIGITS | "%" | "F" | "{" face ("," face)* "}") dice_op* count*
    count      := ("cs" | "cf" | "df") compare     (success counting, last; also after sets)
    dice_op    := ("k" | "p" | "rr" | "r" | "ro" | "ra" | "e" | "mi" | "ma") selector
                | ("dh" | "dl") DIGITS | "!" [selector]  | "e" (explode: selector optional)
    selector   := ["h" | "l" | "<" | ">" | "<=" | ">="] ["-"] DIGITS
                  (after an operator whose selector is optional, '!' 'e' 'x' '!!' '!p',
                  a '-' with no comparison before it is a minus: '1d6!-1' = (1d6!) - 1)
    group      := "(" [expr ("," expr)* [","]] ")" set_op*
    set_op     := ("k" | "p") selector | ("dh" | "dl") DIGITS | count
    annotation := "[" any text but "]" "]"

That is the ``avrae`` dialect (the default). In every dialect, ``{expr, ...}`` is a group
(Roll20 grouped roll), ``(expr)d6`` / ``NdX`` with ``X = (expr)`` roll the count or the
sides, and ``#`` starts a comment. The ``roll20`` and ``foundry`` dialects read the
operators after dice differently (:meth:`_Parser.dialect_operators`; docs/notation.md,
"Dialects"): target numbers ``>N <N =N`` and failures ``fN`` (roll20), ``cs cf df``
(foundry), ``!! !p`` (roll20), ``x xo`` (foundry), ``k``/``d`` = highest / lowest, compare
points ``>=5``, inclusive ``>``/``<`` in roll20.

Every failure raises :class:`~chancekit.errors.NotationError` (problem, text, column) or,
for sizes past a documented limit, :class:`~chancekit.errors.LimitError`; nothing else
escapes (the parser never recurses more than :data:`MAX_DEPTH` levels).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from chancekit.dice._ast import (
    MAX_DICE,
    MAX_SIDES,
    Binary,
    Call,
    Dice,
    Group,
    Node,
    Num,
    Op,
    Selector,
    Unary,
    VarDice,
)
from chancekit.dice._dialects import DIALECTS
from chancekit.errors import InvalidTypeError, LimitError, NotationError
from chancekit.limits import MAX_DEPTH, MAX_LENGTH

__all__ = ["DIALECTS", "MAX_DEPTH", "MAX_LENGTH", "parse"]


_WS = " \t\r\n"
_COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
_DICE_OPS = ("rr", "ro", "ra", "mi", "ma", "r", "k", "p", "e", "d", "!")
_SET_OPS = ("k", "p", "d")
_R20_OPS = ("!!", "!p", "!", "ro", "rr", "r", "min", "max", "mi", "ma", "kh", "kl", "k",
            "dh", "dl", "d", "cs", "cf", "sd", "sa", "s", "f", ">", "<", "=")
_FVTT_OPS = ("xo", "x", "rr", "r", "min", "max", "kh", "kl", "k", "dh", "dl", "df", "d",
             "cs", "cf")
_R20_SET_OPS = ("kh", "kl", "k", "dh", "dl", "d", "f", ">", "<", "=")
_FVTT_SET_OPS = ("kh", "kl", "k", "dh", "dl", "df", "d", "cs", "cf")
_PAREN_SET_OPS = ("kh", "kl", "k", "dh", "dl", "d")
_AVRAE_BRACE_OPS = ("cs", "cf", "df", "k", "p", "d")
#: the avrae dialect's count operators (success counting; docs/notation.md, "Dialects")
_COUNT_OPS = ("cs", "cf", "df")
_SIDES_START = "0123456789%F{("
#: math functions of the roll20 and foundry dialects (docs/notation.md)
_FUNCTIONS = ("floor", "ceil", "round", "abs", "max", "min")
_ONE_ARGUMENT = ("floor", "ceil", "round", "abs")
_R20_ORDER = {"mi": 1, "ma": 2, "e": 3, "ce": 3, "pe": 3, "rr": 4, "ro": 4, "k": 6, "p": 7}
_MERGING = ("rr", "ro", "e", "ce", "pe", "eo")


def _op_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """One regular expression for an operator list: its alternatives are tried in the
    list's order, like the first ``o`` in ``names`` with ``text.startswith(o, pos)``."""
    return re.compile("|".join(re.escape(o) for o in names))


#: the operator list -> its ``match(text, pos)`` (one compiled alternation per list)
_OP_MATCH = {names: _op_pattern(names).match for names in (
    _DICE_OPS, _SET_OPS, _R20_OPS, _FVTT_OPS, _R20_SET_OPS, _FVTT_SET_OPS, _PAREN_SET_OPS,
    _AVRAE_BRACE_OPS)}


def _number(digits: str) -> int:
    """``int(digits)`` for a run of ASCII digits. Runs of up to 18 digits (every count,
    number of sides and selector in practice) are added up digit by digit (about 0.1 us
    a number): ``int()`` of a string is slow on its first call in a process (about 15 us
    measured, against 0.1 us after), a third of parsing a short expression."""
    if len(digits) > 18:
        return int(digits)
    value = 0
    for ch in digits:
        value = value * 10 + ord(ch) - 48  # "0" is 48
    return value


class _Count:
    """The count operators of one avrae dice term or set, gathered (applied last)."""

    def __init__(self) -> None:
        self.succ: list[Selector] = []
        self.fails: list[Selector] = []
        self.counted: set[str] = set()
        self.col = 0
        self.text = ""

    def op(self, parser: _Parser) -> Op | None:
        if self.fails and not self.succ:
            raise parser.fail("'df' deducts failures from a success count: add 'cs' (e.g. "
                              "'10d10cs>=8df1': the dice at 8 or more, minus the 1s)",
                              self.col - 1)
        if not self.succ:
            return None
        return Op("cnt", tuple(self.succ), self.col, self.text, tuple(self.fails))


def _show(ch: str) -> str:
    return repr(ch) if ch else "end of expression"


class _Parser:
    def __init__(self, text: str, dialect: str = "avrae") -> None:
        self.text = text
        self.pos = 0
        self.depth = 0
        self.dialect = dialect

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
        elif ch == "{":
            node = self.group(brace=True)
        elif ch and (ch in "0123456789." or ch in "dD"):
            node = self.number_or_dice()
        elif ch.isascii() and ch.isalpha() and (
                self.dialect != "avrae" or self.text.startswith(_FUNCTIONS, self.pos)):
            node = self.call()
        else:
            raise self.unexpected(expected="a number, dice or '('")
        notes = self.annotations()
        if notes:
            node = _with_notes(node, notes)
        return node

    def call(self) -> Call:
        """``floor(x)``, ``ceil(x)``, ``round(x)``, ``abs(x)``, ``max(a, b, ...)``,
        ``min(a, b, ...)``: the roll20 and foundry dialects' math functions."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isascii() and (
                self.text[self.pos].isalpha()):
            self.pos += 1
        name = self.text[start:self.pos]
        if name not in _FUNCTIONS:
            raise self.fail(f"unknown name {name!r} (expected a number, dice or '('; the "
                            f"roll20 and foundry dialects have the functions "
                            f"{', '.join(_FUNCTIONS)})", start)
        if self.dialect == "avrae":
            instead = {"floor": ", or in avrae '//' to round down (8d6//2)",
                       "max": ", or in avrae a set: (1d20, 10)kh1",
                       "min": ", or in avrae a set: (1d20, 10)kl1"}.get(name, "")
            raise self.fail(f"'{name}(...)' is roll20 and foundry notation, not avrae: use "
                            f"dialect roll20 or foundry (--dialect roll20){instead}", start)
        self.skip_ws()
        if self.peek() != "(":
            raise self.unexpected(expected=f"'(' after '{name}'")
        self.pos += 1
        self.enter()
        args: list[Node] = []
        while True:
            args.append(self.comparison())
            self.skip_ws()
            if self.peek() == ",":
                self.pos += 1
                continue
            if self.peek() == ")":
                self.pos += 1
                break
            raise self.unexpected(expected=f"',' or ')' in {name}(...)")
        self.depth -= 1
        if name in _ONE_ARGUMENT and len(args) != 1:
            raise self.fail(f"{name}() takes one argument, not {len(args)}", start)
        return Call(name, tuple(args), start + 1)

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
            return self.dice(start, _number(whole) if whole else 1)
        return Num(_number(whole), start + 1, whole)

    def dice(self, start: int, count: int | Node) -> Dice | VarDice:
        if isinstance(count, int) and count > MAX_DICE:
            raise LimitError(
                f"{count} dice in one group is past the limit of {MAX_DICE} dice per group "
                f"(MAX_DICE) at column {start + 1}; use fewer dice, or build the distribution "
                f"with chancekit.d(sides) and the @ operator (n @ die)",
                limit="MAX_DICE", value=count)
        self.pos += 1  # the "d"
        ch = self.peek()
        faces: Sequence[int]
        if ch == "(":
            sides = self.group(sides=True)  # operators after ')' belong to the dice
            if isinstance(sides, Group):
                if sides.is_set:
                    raise self.fail("the sides of a die must be one value, like 1d(1d20)",
                                    sides.col - 1)
                sides = sides.items[0]
            return self.var_dice(start, count, sides, None)
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
            sides = _number(self.digits())
            if sides == 0:
                raise self.fail("a die needs at least 1 side (d0 has none)", spos)
            if sides > MAX_SIDES:
                raise LimitError(
                    f"a d{sides} is past the limit of {MAX_SIDES} sides (MAX_SIDES) at column "
                    f"{spos + 1}; use a smaller die", limit="MAX_SIDES", value=sides)
            faces = range(1, sides + 1)  # compact: a d1000000 is not a million ints
        else:
            raise self.unexpected(expected="the number of sides, '%', 'F' or '{faces}'")
        if not isinstance(count, int):
            return self.var_dice(start, count, None, faces)
        ops = self.operators(dice=True, top=faces[-1] if isinstance(faces, range) else max(faces))
        spelled = self.text[start:self.pos]
        return Dice(count, faces, ops, start + 1, spelled)

    def var_dice(self, start: int, count: int | Node, sides: Node | None,
                 faces: Sequence[int] | None) -> VarDice:
        top = None if faces is None else (faces[-1] if isinstance(faces, range)
                                          else max(faces))
        ops = self.operators(dice=True, top=top)
        return VarDice(count, sides, faces, ops, start + 1, self.text[start:self.pos])

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
            out.append(sign * _number(num))
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

    def operators(self, *, dice: bool, top: int | None, brace: bool = False) -> tuple[Op, ...]:
        if self.dialect != "avrae" or brace:
            return self.dialect_operators(dice=dice, top=top, brace=brace)
        ops: list[Op] = []
        count = _Count()
        while True:
            if self.text.startswith(_COUNT_OPS, self.pos):
                self.count_operator(count)
                continue
            p = self.pos
            op = self.operator(dice=dice, top=top)
            if op is None:
                break
            if count.col:
                raise self.fail("count operators ('cs', 'cf', 'df') come last: write them "
                                f"after '{op.spelled}' (e.g. '10d10e10cs>=8df1')", p)
            last = ops[-1] if ops else None
            if last is not None and last.kind == op.kind and op.kind not in ("mi", "ma"):
                ops[-1] = Op(last.kind, last.sels + op.sels, last.col,
                             last.spelled + op.spelled)
            else:
                ops.append(op)
        cnt = count.op(self)
        return tuple(ops) if cnt is None else (*ops, cnt)

    def count_operator(self, count: _Count) -> None:
        """One avrae count operator at ``self.pos``: ``cs`` (count the dice matching),
        ``cf`` (count the failures, as a positive count), ``df`` (deduct one per die
        matching from the ``cs`` count); compare points as in foundry (``cs>=8``, ``cs>7``
        strict, ``cs8`` equal)."""
        t, p = self.text, self.pos
        name = t[p:p + 2]
        self.pos += 2
        sel = self.compare(name)
        assert sel is not None
        if name == "df":
            count.fails.append(sel)
        else:
            count.counted.add(name)
            if len(count.counted) > 1:
                raise self.fail("count successes ('cs') or failures ('cf'), not both; 'df' "
                                "deducts failures from successes", p)
            count.succ.append(sel)
        count.col = count.col or p + 1
        count.text += t[p:self.pos]

    def operator(self, *, dice: bool, top: int | None) -> Op | None:
        t, p = self.text, self.pos
        m = _OP_MATCH[_DICE_OPS if dice else _SET_OPS](t, p)
        name = m[0] if m else None
        if not dice:
            if (name is None and t[p:p + 1].isalpha()) or t[p:p + 1] == "!":
                if t.startswith(("rr", "ro", "ra", "r", "e", "mi", "ma", "!"), p):
                    raise self.fail("only keep/drop operators (k, p, dh, dl) apply to a set "
                                    "or parentheses; reroll, explode, mi and ma apply to dice")
        if name is None:
            return None
        if name == "!" and t.startswith("!=", p):
            return None  # the comparison '!='
        if name == "!" and t.startswith("!!", p) and not t.startswith("!!=", p):
            raise self.fail("compounding explosions '!!' are not supported in the avrae "
                            "dialect; use '!' (explode into extra dice), or dialect roll20")
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

    # ---- roll20 / foundry operators ----
    def dialect_operators(self, *, dice: bool, top: int | None, brace: bool) -> tuple[Op, ...]:
        """Operators in the roll20 / foundry dialects (and after ``{...}`` in any dialect).
        Target numbers and failures gather into one ``cnt`` operator, applied last; marks
        and sorting (breakdown only) come after it."""
        r20 = self.dialect == "roll20"
        if dice:
            names = _R20_OPS if r20 else _FVTT_OPS
        elif brace:
            names = (_R20_SET_OPS if r20 else _FVTT_SET_OPS if self.dialect == "foundry"
                     else _AVRAE_BRACE_OPS)
        else:
            names = _PAREN_SET_OPS
        ops: list[Op] = []
        succ: list[Selector] = []
        fails: list[Selector] = []
        counted: list[str] = []  # foundry: "cs" or "cf"
        cnt_col, cnt_text = 0, ""
        marks: list[Op] = []
        match = _OP_MATCH[names]
        while True:
            t, p = self.text, self.pos
            m = match(t, p)
            name = m[0] if m else None
            if name is None or (name == "!" and t.startswith("!=", p)) or (
                    name == "=" and t.startswith("==", p)):
                break
            if name == "d" and self.dialect == "avrae":  # avrae sets after '{...}'
                if not t.startswith(("dh", "dl"), p):
                    raise self.fail("after a group, 'd' must be 'dh' or 'dl'")
                name = t[p:p + 2]
            col = p + 1
            self.pos += len(name)
            if name in ("k", "kh", "kl", "d", "dh", "dl", "p"):
                if name == "k" and self.dialect == "avrae":
                    sel = self.selector("k", only_hl=False)
                elif name == "p":
                    sel = self.selector("p", only_hl=False)
                else:
                    num = self.digits()
                    if len(num) > 18:
                        raise self.fail("selector number too large (at most 18 digits)")
                    sel = Selector("l" if name in ("kl", "d", "dl") else "h",
                                   _number(num) if num else 1, col)
                ops.append(Op("k" if name[0] == "k" else "p", (sel,), col, t[p:self.pos]))
            elif name in ("r", "rr", "ro"):
                once = name == "ro" or (name == "r" and not r20)
                ops.append(Op("ro" if once else "rr", (self.compare(name),), col,
                              t[p:self.pos]))
            elif name in ("!", "x", "!!", "!p", "xo"):
                sel = self.compare(name, optional=True)
                if sel is None:
                    if top is None:
                        raise self.fail(f"'{name}' on dice with rolled sides needs the face "
                                        f"to explode on (e.g. '{name}=6')", p)
                    sel = Selector(None, top, col)
                kind = {"!": "e", "x": "e", "!!": "ce", "!p": "pe", "xo": "eo"}[name]
                ops.append(Op(kind, (sel,), col, t[p:self.pos]))
            elif name in ("min", "max", "mi", "ma"):
                sign = -1 if self.peek() == "-" else 1
                self.pos += sign < 0
                num = self.digits()
                if not num or len(num) > 18:
                    raise self.unexpected(expected=f"a number for '{name}' (e.g. '{name}2')")
                ops.append(Op(name[:2], (Selector(None, sign * _number(num), col),), col,
                              t[p:self.pos]))
            elif name in (">", "<", "=") or (name in ("cs", "cf") and not r20):
                if name in (">", "<", "="):
                    self.pos = p
                else:
                    counted.append(name)
                    if len(set(counted)) > 1:
                        raise self.fail("count successes ('cs') or failures ('cf'), not "
                                        "both; 'df' deducts failures from successes", p)
                succ.append(self.compare(name))
                cnt_col = cnt_col or col
                cnt_text += t[p:self.pos]
            elif name in ("f", "df"):
                fails.append(self.compare(name))
                cnt_col = cnt_col or col
                cnt_text += t[p:self.pos]
            elif name in ("cs", "cf"):  # roll20: crit / fumble marks (breakdown only)
                sel = self.compare(name)
                marks.append(Op("mark", (sel,) if name == "cs" else (), col, t[p:self.pos],
                                fails=() if name == "cs" else (sel,)))
            else:  # s, sa, sd
                marks.append(Op("sort", (Selector("h" if name == "sd" else "l", 0, col),),
                                col, t[p:self.pos]))
        if dice and r20:
            # Roll20 / rpg-dice-roller apply modifiers in a fixed order, whatever the order
            # they are written in: min, max, explode, reroll, keep, drop (then count, marks)
            ops.sort(key=lambda o: _R20_ORDER.get(o.kind, 5))
        merged: list[Op] = []
        for op in ops:  # repeated rerolls / explosions of one kind: the union (r1r2)
            last = merged[-1] if merged else None
            if last is not None and last.kind == op.kind and op.kind in _MERGING:
                merged[-1] = Op(last.kind, last.sels + op.sels, last.col,
                                last.spelled + op.spelled)
            else:
                merged.append(op)
        ops = merged
        if fails and not succ:
            raise self.fail("failures need a target number too (e.g. '10d10>=8f1': count "
                            "the dice at 8 or more, minus the 1s)", cnt_col - 1)
        if succ:
            ops.append(Op("cnt", tuple(succ), cnt_col, cnt_text, tuple(fails)))
        if marks:
            ms = [m for m in marks if m.kind == "mark"]
            if ms:
                ops.append(Op("mark", tuple(s for m in ms for s in m.sels), ms[0].col,
                              "".join(m.spelled for m in ms),
                              tuple(s for m in ms for s in m.fails)))
            ops.extend(m for m in marks if m.kind == "sort")
        return tuple(ops)

    def compare(self, name: str, *, optional: bool = False) -> Selector | None:
        """A compare point: ``=N``, ``>N``, ``<N``, ``>=N``, ``<=N`` or a bare ``N``
        (equal). In roll20, ``>N`` / ``<N`` are inclusive (N or more / N or less)."""
        start = self.pos
        col = start + 1
        cat: str | None = None
        for c in (">=", "<=", ">", "<", "="):
            if self.text.startswith(c, self.pos):
                cat = None if c == "=" else c
                self.pos += len(c)
                break
        if self.dialect == "roll20" and cat in (">", "<"):
            cat = cat + "="
        if self.dialect == "roll20" and name == "f" and self.pos == start:
            cat = "<="  # Roll20: fN counts the dice at N or below as failures
        if optional and self.pos == start and self.peek() == "-":
            return None  # '1d6!-1' is (1d6!) - 1: a negative face needs '=' ('!=-1')
        sign = 1
        if self.peek() == "-":
            sign = -1
            self.pos += 1
        num = self.digits()
        if not num:
            if optional and self.pos == start:
                return None
            raise self.unexpected(expected=f"a number or a compare point after '{name}' "
                                  f"(e.g. '{name}>=5' or '{name}1')")
        if len(num) > 18:
            raise self.fail("selector number too large (at most 18 digits)", start)
        return Selector(cat, sign * _number(num), col)

    def _selector_follows(self) -> bool:
        # not '-': '1d6e-1' is (1d6e) - 1, as avrae's d20 reads it (a selector's number
        # has no sign there); a negative face is written with a comparison ('e<-1')
        ch = self.peek()
        return bool(ch) and (ch in "hl<>0123456789")

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
        value = sign * _number(num)
        if kind in ("mi", "ma") and cat is not None:
            raise self.fail(f"'{kind}' takes a plain number ('{kind}2'), not a selector", col - 1)
        if kind in ("rr", "ro", "ra", "e") and cat in ("h", "l"):
            raise self.fail(f"'{kind}' needs a value selector (like '1', '<3' or '>5'), not "
                            f"highest/lowest", col - 1)
        return Selector(cat, value, col)

    def group(self, brace: bool = False, sides: bool = False) -> Node:
        col = self.pos + 1
        close = "}" if brace else ")"
        self.pos += 1  # "(" or "{"
        self.enter()
        items: list[Node] = []
        comma = False
        self.skip_ws()
        if self.peek() != close:
            while True:
                items.append(self.comparison())
                self.skip_ws()
                if self.peek() == ",":
                    comma = True
                    self.pos += 1
                    self.skip_ws()
                    if self.peek() == close:
                        break
                    continue
                if self.peek() == close:
                    break
                raise self.unexpected(expected=f"',' or '{close}'")
        else:
            comma = True  # "()" is the empty set
        self.pos += 1  # ")" or "}"
        self.depth -= 1
        if (not brace and not comma and self.peek() in ("d", "D") and self.peek()
                and self.text[self.pos + 1:self.pos + 2] in tuple(_SIDES_START)):
            return self.dice(col - 1, items[0])  # (1d4)d6: a rolled number of dice
        ops = () if sides else self.operators(dice=False, top=None, brace=brace)
        if brace and len(items) == 1 and isinstance(items[0], Dice) and ops:
            # a group of one roll: its operators act on the dice inside (Roll20)
            inner = items[0]
            if any(o.kind == "cnt" for o in inner.ops) and any(o.kind == "cnt" for o in ops):
                raise self.fail("target numbers both inside and after '{...}'", col - 1)
            allops = inner.ops + ops
            order = {"cnt": 1, "mark": 2, "sort": 2}
            allops = tuple(sorted(allops, key=lambda o: order.get(o.kind, 0)))
            return Dice(inner.count, inner.faces, allops, col,
                        self.text[col - 1:self.pos], inner.notes)
        return Group(tuple(items), ops, True if brace else (comma or bool(ops)), col,
                     brace=brace)


def _with_notes(node: Node, notes: tuple[str, ...]) -> Node:
    if isinstance(node, Num):
        return Num(node.value, node.col, node.spelled, node.notes + notes)
    if isinstance(node, Dice):
        return Dice(node.count, node.faces, node.ops, node.col, node.spelled,
                    node.notes + notes)
    if isinstance(node, Group):
        return Group(node.items, node.ops, node.is_set, node.col, node.notes + notes,
                     node.brace)
    if isinstance(node, VarDice):
        return VarDice(node.count, node.sides, node.faces, node.ops, node.col, node.spelled,
                       node.notes + notes)
    if isinstance(node, Call):
        return Call(node.name, node.args, node.col, node.notes + notes)
    raise AssertionError(node)  # pragma: no cover


def strip_comment(text: str) -> str:
    """``text`` without a trailing comment: from the first ``#`` outside ``[...]``."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "#" and depth == 0:
            return text[:i]
    return text


def parse(text: str, dialect: str = "avrae") -> Node:
    """Parse ``text`` into a syntax tree in ``dialect`` (:data:`DIALECTS`); O(len(text)).
    A ``#`` starts a comment (to the end).

    >>> parse("4d6kh3").count
    4
    >>> parse("4d6k3", "roll20").ops[0].sels
    (Selector(cat='h', num=3, col=4),)
    """
    if not isinstance(text, str):
        raise InvalidTypeError("notation", text, "a str such as '4d6kh3'")
    if len(text) > MAX_LENGTH:
        raise LimitError(f"a dice expression of {len(text)} characters is past the limit of "
                         f"{MAX_LENGTH} (MAX_LENGTH); split it into smaller expressions",
                         limit="MAX_LENGTH", value=len(text))
    if dialect not in DIALECTS:
        from chancekit.errors import InvalidValueError

        raise InvalidValueError("dialect", dialect, f"one of {', '.join(DIALECTS)}")
    return _Parser(strip_comment(text), dialect).parse()
