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

Issue #32 adds, outside avrae: ``**`` (``power := atom ["**" unary]``), ``@name`` /
``@{name}`` placeholders filled from ``variables``, Roll20's ``[[...]]`` inline rolls and
``?{Question|default}`` queries, Foundry's ``cs cf df sf even odd`` as Foundry's ``Die``
applies them (``cnt`` with ``steps``), ``ms`` (a margin, applied to the term's total),
``dc`` coins, Roll20's ``m``/``mt`` matching, Foundry's ``Math`` functions; other
dialects' modifiers are refused by name (``_FOREIGN``).

Every failure raises :class:`~chancekit.errors.NotationError` (problem, text, column) or,
for sizes past a documented limit, :class:`~chancekit.errors.LimitError`; nothing else
escapes (the parser never recurses more than :data:`MAX_DEPTH` levels).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

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
    foundry_count,
)
from chancekit.dice._dialects import DIALECTS
from chancekit.errors import InvalidTypeError, LimitError, NotationError
from chancekit.limits import MAX_DEPTH, MAX_LENGTH

__all__ = ["DIALECTS", "MAX_DEPTH", "MAX_LENGTH", "check_variables", "parse",
           "parse_with_remarks"]


_WS = " \t\r\n"
_COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
_DICE_OPS = ("rr", "ro", "ra", "mi", "ma", "r", "k", "p", "e", "d", "!")
_SET_OPS = ("k", "p", "d")
_R20_OPS = ("!!", "!p", "!", "ro", "rr", "r", "min", "max", "mi", "ma", "mt", "m", "kh",
            "kl", "k", "dh", "dl", "d", "cs", "cf", "sd", "sa", "s", "f", ">", "<", "=")
_FVTT_OPS = ("xo", "x", "rr", "r", "min", "max", "ms", "kh", "kl", "k", "dh", "dl", "df",
             "d", "cs", "cf", "sf", "even", "odd")
_R20_SET_OPS = ("kh", "kl", "k", "dh", "dl", "d", "f", ">", "<", "=")
_FVTT_SET_OPS = ("kh", "kl", "k", "dh", "dl", "df", "d", "cs", "cf")
_PAREN_SET_OPS = ("kh", "kl", "k", "dh", "dl", "d")
_AVRAE_BRACE_OPS = ("cs", "cf", "df", "k", "p", "d")
#: the avrae dialect's count operators (success counting; docs/notation.md, "Dialects")
_COUNT_OPS = ("cs", "cf", "df")
_SIDES_START = "0123456789%F{(@"
#: math functions of the roll20 and foundry dialects (docs/notation.md)
_FUNCTIONS = ("floor", "ceil", "round", "abs", "max", "min")
_ONE_ARGUMENT = ("floor", "ceil", "round", "abs")
#: the foundry dialect's functions: JavaScript's Math functions with a meaning on whole
#: numbers, and Foundry's own additions (docs/notation.md)
_FOUNDRY_FUNCTIONS = ("floor", "ceil", "round", "abs", "max", "min", "trunc", "sign", "sqrt",
                      "cbrt", "pow", "exp", "log", "log2", "log10", "hypot", "clamp",
                      "clamped", "roundDecimals", "roundFast")
#: JavaScript's other Math functions, which Foundry's formulas accept (refused by name)
_JS_MATH = ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
            "asinh", "acosh", "atanh", "random", "fround", "imul", "clz32", "expm1", "log1p",
            "toDegrees", "toRadians", "normalizeDegrees", "normalizeRadians")
#: arguments of each function (None: one or more)
_ARITY = {**{n: 1 for n in ("floor", "ceil", "round", "abs", "trunc", "sign", "sqrt", "cbrt",
                            "exp", "log", "log2", "log10", "roundFast")},
          "pow": 2, "roundDecimals": 2, "clamp": 3, "clamped": 3}
_WORDS = {1: "one", 2: "two", 3: "three"}
_R20_ORDER = {"mi": 1, "ma": 2, "e": 3, "ce": 3, "pe": 3, "rr": 4, "ro": 4, "k": 6, "p": 7,
              "mt": 8}
#: each dialect's own dice modifiers, as its documentation lists them (named in errors)
_DOCUMENTED = {
    "avrae": ("k", "p", "rr", "ro", "ra", "e", "mi", "ma", "cs", "cf", "df"),
    "roll20": ("! !! !p", "r ro", "k kh kl d dh dl", "min max", "> < = f", "cs cf", "m mt",
               "s sa sd"),
    "foundry": ("r rr", "x xo", "k kh kl d dh dl", "min max", "cs cf df sf", "even odd",
                "ms", "c0 c1 (coins)"),
}
#: letters after dice that spell another dialect's modifier, per dialect read: the message
_FOREIGN = {
    "roll20": {
        "xo": "Foundry's explode-once modifier '{}' is not supported in roll20 (no Roll20 "
              "spelling; use --dialect foundry)",
        "x": "Foundry's explode modifier '{}' is not roll20 notation: Roll20 writes '!' "
             "(3d6!), or use --dialect foundry",
        "ms": "Foundry's margin-of-success modifier '{}' is not supported in roll20 (use "
              "--dialect foundry, or subtract: 2d6-8)",
        "sf": "Foundry's subtract-failures modifier '{}' is not supported in roll20 (use "
              "--dialect foundry)",
        "df": "Foundry's deduct-failures modifier '{}' is not roll20 notation: Roll20 writes "
              "'f' (10d10>=8f1), or use --dialect foundry",
        "even": "Foundry's even-count modifier '{}' is not supported in roll20 (use "
                "--dialect foundry)",
        "odd": "Foundry's odd-count modifier '{}' is not supported in roll20 (use "
               "--dialect foundry)",
        "ra": "avrae's reroll-and-add '{}' is not supported in roll20 (use --dialect avrae)",
        "e": "avrae's explode '{}' is not roll20 notation: Roll20 writes '!' (3d6!)",
        "p": "avrae's drop '{}' is not roll20 notation: Roll20 writes 'd' / 'dl' (4d6dl1)",
    },
    "foundry": {
        "!!": "Roll20's compounding explosion '{}' is not supported in foundry (use "
              "--dialect roll20)",
        "!p": "Roll20's penetrating explosion '{}' is not supported in foundry (use "
              "--dialect roll20)",
        "!": "Roll20's explode '{}' is not foundry notation: Foundry writes 'x' (3d6x), or "
             "use --dialect roll20",
        "ro": "Roll20's reroll-once '{}' is not foundry notation: in Foundry 'r' rerolls "
              "once (1d10r1)",
        "ra": "avrae's reroll-and-add '{}' is not supported in foundry (use --dialect avrae)",
        "mt": "Roll20's matching total '{}' is not supported in foundry (use --dialect "
              "roll20)",
        "mi": "avrae's minimum '{}' is spelled 'min' in Foundry (4d6min2)",
        "ma": "avrae's maximum '{}' is spelled 'max' in Foundry (4d6max5)",
        "m": "Roll20's matching '{}' is not supported in foundry (use --dialect roll20)",
        "sd": "Roll20's sort '{}' is not foundry notation (Foundry does not sort; drop it)",
        "sa": "Roll20's sort '{}' is not foundry notation (Foundry does not sort; drop it)",
        "s": "Roll20's sort '{}' is not foundry notation (Foundry does not sort; drop it)",
        "f": "Roll20's failures '{}' are not foundry notation: Foundry writes 'df' "
             "(10d10cs>=8df=1), or use --dialect roll20",
        "e": "avrae's explode '{}' is not foundry notation: Foundry writes 'x' (3d6x)",
        "p": "avrae's drop '{}' is not foundry notation: Foundry writes 'd' / 'dl' (4d6dl1)",
        "c": "Foundry's coin call '{}' applies to coins only, with 0 or 1 (3dcc1 counts "
             "the heads, 3dcc0 the tails)",
        "ms": "Foundry's margin of success '{}' applies to dice (2d6ms>=8), not to a pool",
    },
}


def _clamped(v: int, clamps: Sequence[Op]) -> int:
    """``v`` through the ``mi``/``ma`` operators ``clamps``, in order."""
    for c in clamps:
        n = c.sels[-1].num
        v = max(v, n) if c.kind == "mi" else min(v, n)
    return v


def _face_sample(faces: Sequence[int], ops: Sequence[Op] = ()) -> list[int]:
    """The faces worth checking to compare two per-die scorings that only change at the
    ops' compare points (or are linear between them): every face of a small die, else
    both ends and two faces either side of every compare point. O(faces) at most 256."""
    if not isinstance(faces, range):
        faces = sorted(set(faces))
    if len(faces) <= 256:
        return list(faces)
    lo, hi = faces[0], faces[-1]
    nums: set[int] = set()
    for op in ops:
        for s in op.sels + op.fails + tuple(x[1] for x in op.steps
                                            if isinstance(x, tuple) and x[1] is not None):
            nums.update(range(s.num - 2, s.num + 3))
    picked = set(faces[:64]) | set(faces[-64:]) | {n for n in nums if lo <= n <= hi}
    return sorted(picked)
_MERGING = ("rr", "ro", "e", "ce", "pe", "eo")


#: ASCII upper case -> lower case, one character for one (Foundry's modifiers in any case)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


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
    def __init__(self, text: str, dialect: str = "avrae",
                 variables: dict[str, Any] | None = None) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0
        self.dialect = dialect
        self.variables = variables or {}
        self.margin: tuple[bool, int, int] | None = None  # foundry 'ms' of the dice read
        self.faces_now: Sequence[int] | None = None  # the faces of the dice read
        self.remarks: list[str] = []  # notes on how the text was read (Roll20 queries)
        self.expanding: tuple[str, ...] = ()  # variables being read (no self reference)
        self.expanded = [0]  # characters of variables read, shared with the sub-parsers
        self.lower: str | None = None  # the text in ASCII lower case (Foundry's modifiers)

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
            if self.dialect != "avrae" and self.text.startswith(("&{", "%{"), self.pos):
                raise self.roll20_option()
            if self.peek() == ",":
                raise self.fail("unexpected ',' (a set needs parentheses: '(1d6, 2d4)kh1')")
            rest = self.text[self.pos:]
            if self.dialect == "roll20" and self.text[self.pos - 1] in _WS and (
                    rest[0].isalpha() or rest[0] == "\\"):
                # Roll20: '/roll 1d20+5 Roll for Initiative' -- text after the formula (or
                # after a backslash) is a comment on the roll
                self.remarks.append(f"the text after the formula ({rest.strip()!r}) is read "
                                    "as Roll20 reads it: a comment, not part of the roll")
                return node
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
            elif self.text.startswith("**", self.pos):
                raise self.fail("'**' (a power) is roll20 and foundry notation, not avrae: use "
                                "dialect foundry (--dialect foundry), or write the product "
                                "(1d6*1d6 is not 1d6**2: one die squared is (1d6)**2 there)")
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
        return self.power()

    def power(self) -> Node:
        """``atom ["**" unary]`` (roll20 / foundry): right-associative, tighter than
        ``*`` and than a unary minus on its left (``-2**2`` is -4, as in mathematics and
        Python; JavaScript refuses it)."""
        base = self.atom()
        if self.dialect == "avrae":
            return base
        self.skip_ws()
        if not self.text.startswith("**", self.pos):
            return base
        col = self.pos + 1
        self.pos += 2
        self.enter()
        exponent = self.unary()
        self.depth -= 1
        return Binary("**", base, exponent, col)

    def atom(self) -> Node:
        self.skip_ws()
        ch = self.peek()
        node: Node
        if self.dialect != "avrae" and self.text.startswith("[[", self.pos):
            node = self.inline_roll()
        elif self.dialect != "avrae" and ch == "@":
            node = self.variable()
        elif self.dialect == "roll20" and self.text.startswith("?{", self.pos):
            start = self.pos
            node = self.query()
            if self.peek() in ("d", "D") and self.peek() and (
                    self.text[self.pos + 1:self.pos + 2] in tuple(_SIDES_START)):
                # Roll20 fills a query in before it rolls: '?{Number of Dice|1}d20' is 1d20
                node = self.dice(start, node)
        elif ch in ("&", "%") and self.dialect != "avrae" and self.text.startswith(
                ("&{", "%{"), self.pos):
            raise self.roll20_option()
        elif ch == "(":
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

    def inline_roll(self) -> Node:
        """Roll20's inline roll ``[[...]]``: its total, like parentheses (also a count,
        ``[[1d4]]d6``)."""
        col = self.pos + 1
        self.pos += 2
        self.enter()
        inner = self.comparison()
        self.skip_ws()
        if not self.text.startswith("]]", self.pos):
            raise self.unexpected(expected="']]' closing the inline roll '[['")
        self.pos += 2
        self.depth -= 1
        if self.peek() in ("d", "D") and self.peek() and (
                self.text[self.pos + 1:self.pos + 2] in tuple(_SIDES_START)):
            return self.dice(col - 1, inner)
        return Group((inner,), (), False, col)

    def variable(self) -> Node:
        """``@name`` (Foundry) or ``@{name}`` (Roll20 attribute): the value given in
        ``variables`` -- a number, or a formula read in this dialect as if in
        parentheses."""
        start = self.pos
        if self.text.startswith("@{", self.pos):
            end = self.text.find("}", self.pos)
            if end < 0:
                raise self.fail("unclosed attribute '@{' (close it with '}')")
            name = self.text[self.pos + 2:end]
            self.pos = end + 1
        else:
            m = _NAME.match(self.text, self.pos)
            if not m:
                raise self.unexpected(expected="a name after '@' (e.g. '@prof')")
            name = m[1]
            self.pos = m.end()
        return self.substitute(name, self.text[start:self.pos], start)

    def substitute(self, name: str, spelled: str, start: int) -> Node:
        if name not in self.variables:
            given = ", ".join(sorted(self.variables)) or "none"
            raise self.fail(f"'{spelled}' has no value: give it with --var {name}=VALUE "
                            f"(variables={{{name!r}: ...}} in Python; given: {given})", start)
        if name in self.expanding:
            raise self.fail(f"'{spelled}' refers to itself (through "
                            f"{' -> '.join(self.expanding)})", start)
        return self.value_node(self.variables[name], f"the value of '{spelled}'", start,
                               spelled, name)

    def value_node(self, value: Any, what: str, start: int, spelled: str,
                   name: str = "") -> Node:
        """A variable's or query's value: a number as itself, text read as a formula."""
        if isinstance(value, bool) or not isinstance(value, int | Fraction | str):
            raise self.fail(f"{what} must be a number or a formula, not "
                            f"{type(value).__name__}", start)
        if not isinstance(value, str):
            return Num(value, start + 1, spelled)
        self.expanded[0] += len(value)
        if self.expanded[0] > 10 * MAX_LENGTH:
            raise LimitError(f"the variables of this expression expand to more than "
                             f"{10 * MAX_LENGTH} characters (10 x MAX_LENGTH) at {spelled!r}",
                             limit="MAX_LENGTH", value=self.expanded[0])
        sub = _Parser(strip_comment(value), self.dialect, self.variables)
        sub.expanded = self.expanded
        sub.depth = self.depth + 1
        sub.expanding = (*self.expanding, name) if name else self.expanding
        try:
            node = sub.parse()
        except NotationError as e:
            raise self.fail(f"{what} ({value!r}) is not a formula: {e.problem} at its "
                            f"column {e.column}", start) from None
        self.remarks.extend(sub.remarks)
        return Group((node,), (), False, start + 1)

    def query(self) -> Node:
        """Roll20's roll query ``?{Question|default}`` (or ``?{Question|label,value|...}``:
        the first option): read as its default, or as ``variables[Question]`` when given;
        a note says so (:func:`~chancekit.dice.notation.ambiguities`)."""
        start = self.pos
        depth, i = 0, self.pos + 1
        while i < len(self.text):
            if self.text[i] == "{":
                depth += 1
            elif self.text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        else:
            raise self.fail("unclosed roll query '?{' (close it with '}')")
        body = self.text[self.pos + 2:i]
        self.pos = i + 1
        parts, level, cur = [], 0, ""
        for ch in body:
            if ch == "|" and level == 0:
                parts.append(cur)
                cur = ""
                continue
            level += (ch == "{") - (ch == "}")
            cur += ch
        parts.append(cur)
        name = parts[0]
        spelled = self.text[start:self.pos]
        if name in self.variables:
            self.remarks.append(f"the roll query `{spelled}` is read as {name}="
                                f"{self.variables[name]} (given)")
            return self.value_node(self.variables[name], f"the answer to '{spelled}'",
                                   start, spelled)
        if len(parts) < 2 or not parts[1].strip():
            raise self.fail(f"Roll20's roll query '{spelled}' has no default to read: give "
                            f"one ('?{{{name}|0}}') or the answer with --var '{name}=VALUE'",
                            start)
        default = parts[1] if len(parts) == 2 else parts[1].split(",", 1)[-1]
        self.remarks.append(f"the roll query `{spelled}` is read as its default "
                            f"{default.strip()} (give another answer with --var "
                            f"'{name}=VALUE')")
        return self.value_node(default, f"the default of '{spelled}'", start, spelled)

    def call(self) -> Call:
        """``floor(x)``, ``ceil(x)``, ``round(x)``, ``abs(x)``, ``max(a, b, ...)``,
        ``min(a, b, ...)``: the roll20 and foundry dialects' math functions."""
        start = self.pos
        m = re.compile(r"[A-Za-z][A-Za-z0-9]*").match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()
        name = m[0]
        if self.dialect == "roll20" and name == "t" and self.peek() == "[":
            raise self.fail("Roll20's rollable tables ('1t[name]') are not supported: "
                            "chancekit has no tables to roll on", start)
        funcs = _FUNCTIONS if self.dialect != "foundry" else _FOUNDRY_FUNCTIONS
        if name not in funcs:
            if self.dialect == "foundry" and name in _JS_MATH:
                raise self.fail(f"Foundry's Math.{name}() is not supported (chancekit takes "
                                f"{', '.join(funcs)})", start)
            if self.dialect == "roll20" and name in _FOUNDRY_FUNCTIONS:
                raise self.fail(f"'{name}()' is a Foundry function, not Roll20's (Roll20 has "
                                f"{', '.join(_FUNCTIONS)}): use --dialect foundry", start)
            raise self.fail(f"unknown name {name!r} (expected a number, dice or '('; the "
                            f"{self.dialect if self.dialect != 'avrae' else 'roll20'} "
                            f"dialect has the functions {', '.join(funcs)})", start)
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
        want = _ARITY.get(name)
        if want is not None and len(args) != want:
            raise self.fail(f"{name}() takes {_WORDS.get(want, want)} argument"
                            f"{'s' if want > 1 else ''}, not {len(args)}", start)
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
        if self.dialect == "roll20" and self.text.startswith(("t[", "T["), self.pos):
            raise self.fail("Roll20's rollable tables ('1t[name]') are not supported: "
                            "chancekit has no tables to roll on", start)
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
        if ch == "@" and self.dialect != "avrae":
            return self.var_dice(start, count, self.variable(), None)
        if ch == "%":
            self.pos += 1
            faces = range(1, 101)
        elif ch in ("c", "C") and ch and self.dialect == "foundry":
            self.pos += 1  # Foundry's coin: 1 for heads, 0 for tails
            faces = (0, 1)
        elif ch in ("F", "f") and ch:
            self.pos += 1
            faces = (-1, 0, 1)
        elif ch == "{":
            faces = self.faces()
        elif ch and ch in "0123456789":
            spos = self.pos
            sides = _number(self.digits())
            if sides == 0 and count == 0 and self.dialect == "roll20":
                sides = 1  # Roll20's '0d0' (a zero in a group of sums): no dice, 0
            elif sides == 0:
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
        self.faces_now, self.margin = faces, None
        ops = self.operators(dice=True, top=faces[-1] if isinstance(faces, range) else max(faces))
        spelled = self.text[start:self.pos]
        return self.with_margin(Dice(count, faces, ops, start + 1, spelled))

    def var_dice(self, start: int, count: int | Node, sides: Node | None,
                 faces: Sequence[int] | None) -> Node:
        top = None if faces is None else (faces[-1] if isinstance(faces, range)
                                          else max(faces))
        self.faces_now, self.margin = faces, None
        ops = self.operators(dice=True, top=top)
        # Foundry rolls |n| dice for a count n below 0 and negates their total (DiceTerm#total,
        # before a margin of success 'ms' is taken off, as Die#total does)
        signed = self.dialect == "foundry" and isinstance(count, Node)
        # Roll20: "the number of dice (N+Y) is rounded to the nearest whole number"
        rounded = self.dialect == "roll20" and isinstance(count, Node)
        return self.with_margin(VarDice(count, sides, faces, ops, start + 1,
                                        self.text[start:self.pos], (), signed, rounded))

    def with_margin(self, node: Dice | VarDice) -> Node:
        """Foundry's margin of success ``ms``: the term's total minus the target
        (``ms>=10``, ``ms>10``, ``ms=10``, ``ms10``), or the target minus the total
        (``ms<10``, ``ms<=10``); a target of 0 changes nothing (as in Foundry)."""
        margin, self.margin, self.faces_now = self.margin, None, None
        if margin is None or margin[1] == 0:
            return node
        below, target, col = margin
        num = Num(target, col, str(target))
        return Binary("-", num, node, node.col) if below else Binary("-", node, num, node.col)

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
        and sorting (breakdown only) come after it. Foundry's count modifiers (``cs cf df
        sf even odd``) are one ``cnt`` whose ``steps`` apply them in the order written
        (:func:`~chancekit.dice.selectors.foundry_count`); ``ms`` is kept in
        ``self.margin`` for :meth:`dice` to apply to the total."""
        r20 = self.dialect == "roll20"
        fvtt = self.dialect == "foundry"
        if dice:
            names = _R20_OPS if r20 else _FVTT_OPS
        elif brace:
            names = (_R20_SET_OPS if r20 else _FVTT_SET_OPS if fvtt else _AVRAE_BRACE_OPS)
        else:
            names = _PAREN_SET_OPS
        ops: list[Op] = []
        succ: list[Selector] = []
        fails: list[Selector] = []
        counted: list[str] = []  # avrae after '{...}': "cs" or "cf"
        steps: list[tuple[str, Selector | None]] = []  # foundry's count modifiers
        cnt_col, cnt_text = 0, ""
        marks: list[Op] = []
        match = _OP_MATCH[names]
        # Foundry reads its modifiers in any case (2d6KH1 = 2d6kh1): matched in ASCII lower
        # case (same length, so the columns hold)
        if fvtt and self.lower is None:
            self.lower = self.text.translate(_ASCII_LOWER)  # once per text, not per term
        low = self.lower if fvtt and self.lower is not None else self.text
        while True:
            t, p = self.text, self.pos
            if (fvtt and dice and self.faces_now == (0, 1) and low.startswith(("c0", "c1"), p)
                    and not t[p + 2:p + 3].isdigit()):
                # Foundry's coin call (Coin#call): count the coins showing 1 (heads) or 0
                steps.append(("cs", Selector(None, int(t[p + 1]), p + 1)))
                cnt_col = cnt_col or p + 1
                cnt_text += t[p:p + 2]
                self.pos += 2
                continue
            if fvtt and low.startswith("ro", p) and not low.startswith("rodd", p):
                # 'r' then 'o...' would hide Roll20's 'ro' ('rodd' is Foundry's r + odd)
                raise self.fail(_FOREIGN["foundry"]["ro"].format("ro"), p)
            m = match(low, p)
            name = m[0] if m else None
            if name is None or (name == "!" and t.startswith("!=", p)) or (
                    name == "=" and t.startswith("==", p)):
                if name is None:
                    self.refuse_modifier(dice=dice, brace=brace)
                break
            if name == "d" and self.dialect == "avrae":  # avrae sets after '{...}'
                if not t.startswith(("dh", "dl"), p):
                    raise self.fail("after a group, 'd' must be 'dh' or 'dl'")
                name = t[p:p + 2]
            col = p + 1
            self.pos += len(name)
            if fvtt and steps and name in ("r", "rr", "x", "xo", "min", "max"):
                raise self.fail(f"Foundry's '{name}' after a count modifier "
                                f"('{cnt_text}') is not supported (Foundry would give its "
                                "new dice their face value among the counted dice's "
                                "scores); write the count modifiers last", p)
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
                got = self.compare(name, optional=True)
                cap: tuple[int, ...] = ()
                if fvtt and got is not None and got.cat is None and self.peek() in (
                        "<", ">", "=") and self.peek():
                    # Foundry's 'r1=1' / 'rr2<3': at most that many rerolls in all
                    cap = (self.limit_of(got, name, p),)
                    got = self.compare(name)
                if got is None:  # 'r' alone: Foundry rerolls the 1s; Roll20 (8d6r) the
                    # lowest face -- the 1s of usual dice, the -1s of fudge dice, as the
                    # Roll20 oracle (rpg-dice-roller) reads 4dFr
                    lowest = 1
                    if r20 and self.faces_now:
                        lowest = min(self.faces_now)
                    got = Selector(None, lowest, col)
                ops.append(Op("ro" if once else "rr", (got,), col, t[p:self.pos], steps=cap))
            elif name in ("!", "x", "!!", "!p", "xo"):
                sel = self.compare(name, optional=True)
                cap = ()
                if fvtt and sel is not None and sel.cat is None and self.peek() in (
                        "<", ">", "=") and self.peek():
                    # Foundry's 'x5=10' / 'x2>=9': at most that many explosions in all
                    cap = (self.limit_of(sel, name, p),)
                    sel = self.compare(name)
                if sel is None:
                    if top is None:
                        raise self.fail(f"'{name}' on dice with rolled sides needs the face "
                                        f"to explode on (e.g. '{name}=6')", p)
                    sel = Selector(None, top, col)
                kind = {"!": "e", "x": "e", "!!": "ce", "!p": "pe", "xo": "eo"}[name]
                ops.append(Op(kind, (sel,), col, t[p:self.pos], steps=cap))
            elif name in ("min", "max", "mi", "ma"):
                sign = -1 if self.peek() == "-" else 1
                self.pos += sign < 0
                num = self.digits()
                if not num or len(num) > 18:
                    raise self.unexpected(expected=f"a number for '{name}' (e.g. '{name}2')")
                ops.append(Op(name[:2], (Selector(None, sign * _number(num), col),), col,
                              t[p:self.pos]))
            elif fvtt and name in ("cs", "cf", "df", "sf", "even", "odd"):
                got = None
                if name in ("cs", "cf", "df", "sf"):
                    got = self.compare(name, optional=True)
                    if got is None and name in ("cs", "cf"):
                        if name == "cs" and top is None:
                            where = "dice with rolled sides" if dice else "a pool"
                            raise self.fail(f"'cs' with no target on {where} needs one "
                                            "(e.g. 'cs>=5')", p)
                        # Foundry: cs alone counts the top face, cf alone the 1s
                        got = Selector(None, top if name == "cs" else 1, col)
                steps.append((name, got))
                cnt_col = cnt_col or col
                cnt_text += t[p:self.pos]
            elif name == "ms":
                if self.margin is not None:
                    raise self.fail("one margin of success ('ms') per dice term", p)
                cat = next((c for c in (">=", "<=", ">", "<", "=") if t.startswith(c, self.pos)),
                           None)
                self.pos += len(cat or "")
                num = self.digits()
                if not num or len(num) > 18:
                    raise self.fail("Foundry's margin of success 'ms' needs a target number "
                                    "(e.g. 'ms>=10': the total minus 10; Foundry ignores a "
                                    "bare 'ms')" if not num else
                                    "the target of 'ms' is too large (at most 18 digits)")
                self.margin = (cat in ("<", "<="), _number(num), col)
            elif name in ("mt", "m"):
                size_text = self.digits()
                size = _number(size_text) if size_text else 2
                if size_text and (size < 1 or len(size_text) > 18):
                    raise self.fail(f"'{name}{size_text}': a match needs at least one die", p)
                sel = None
                if self.peek() in ("<", ">", "=") and self.peek():
                    sel = self.compare(name)
                if name == "mt":
                    ops.append(Op("mt", (sel,) if sel else (), col, t[p:self.pos],
                                  steps=(size,)))
                else:
                    marks.append(Op("match", (sel,) if sel else (), col, t[p:self.pos],
                                    steps=(size,)))
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
            if (last is not None and last.kind == op.kind and op.kind in _MERGING
                    and not (last.steps or op.steps)):  # a limited explosion stays alone
                merged[-1] = Op(last.kind, last.sels + op.sels, last.col,
                                last.spelled + op.spelled)
            else:
                merged.append(op)
        ops = merged
        if fails and not succ:
            raise self.fail("failures need a target number too (e.g. '10d10>=8f1': count "
                            "the dice at 8 or more, minus the 1s)", cnt_col - 1)
        if any(o.kind == "mt" for o in ops):
            if succ or len([o for o in ops if o.kind == "mt"]) > 1:
                raise self.fail("Roll20's matching total 'mt' with target numbers (or a "
                                "second 'mt') is not supported: count one or the other",
                                cnt_col - 1 if succ else self.pos)
            ops.sort(key=lambda o: o.kind == "mt")  # last: it reads the kept dice
        if succ:
            ops.append(Op("cnt", tuple(succ), cnt_col, cnt_text, tuple(fails)))
        if steps:
            ops.append(self.foundry_count(tuple(steps), cnt_col, cnt_text, dice))
        if marks:
            ms = [m for m in marks if m.kind == "mark"]
            if ms:
                ops.append(Op("mark", tuple(s for m in ms for s in m.sels), ms[0].col,
                              "".join(m.spelled for m in ms),
                              tuple(s for m in ms for s in m.fails)))
            ops.extend(m for m in marks if m.kind in ("sort", "match"))
        if fvtt and dice:
            self.check_clamps(ops)
        return tuple(ops)

    def foundry_count(self, steps: tuple[tuple[str, Selector | None], ...], col: int,
                      text: str, dice: bool) -> Op:
        """Foundry's count modifiers as one ``cnt``: the plain form (``sels``, ``fails``,
        as avrae spells the same count) where it scores every face alike, else ``steps``."""
        exact = Op("cnt", (), col, text, steps=steps)
        names = [n for n, _ in steps]
        plain: Op | None = None
        if names[0] in ("cs", "cf") and all(n == "df" for n in names[1:]) and all(
                s is not None for _, s in steps) and (dice or len(steps) == 1):
            plain = Op("cnt", (steps[0][1],), col, text,  # type: ignore[arg-type]
                       tuple(s for _, s in steps[1:]))  # type: ignore[misc]
        faces = self.faces_now
        if plain is not None and (len(steps) == 1 or (faces is not None and all(
                plain.score(f) == exact.score(f) for f in _face_sample(faces, [exact])))):
            return plain
        return exact

    def check_clamps(self, ops: list[Op]) -> None:
        """Foundry's ``min``/``max`` set a die's count but leave its rolled result, which
        later modifiers read: refuse the orders where that differs from clamping first."""
        faces = self.faces_now
        first = next((i for i, o in enumerate(ops) if o.kind in ("mi", "ma")), None)
        if first is None:
            return
        for j in range(first + 1, len(ops)):
            o = ops[j]
            if o.kind not in ("rr", "ro", "e", "eo", "cnt"):
                continue
            clamps = tuple(c for c in ops[:j] if c.kind in ("mi", "ma"))
            bad = faces is None
            for f in (() if faces is None else _face_sample(faces, ops)):
                low = _clamped(f, clamps)
                if o.kind == "cnt":
                    got = foundry_count(o.steps, f) if o.steps else o.score(f)
                    bad = (low if got is None else got) != o.score(low)
                else:
                    bad = o.matches(f) != o.matches(low)
                if bad:
                    break
            if bad:
                raise self.fail(
                    f"Foundry's '{clamps[0].spelled}' changes what a die counts, but "
                    f"'{o.spelled}' after it reads the die as rolled: chancekit does not take "
                    "that order here; write min/max after the other modifiers", o.col - 1)

    def roll20_option(self) -> NotationError:
        """Roll20's roll option ``&{tracker}`` / ability call ``%{Bob|Attack}`` at
        ``self.pos``: not a formula, refused naming it."""
        end = self.text.find("}", self.pos)
        token = self.text[self.pos:end + 1 if end >= 0 else len(self.text)]
        what = "roll option" if self.peek() == "&" else "ability call"
        return self.fail(f"Roll20's {what} '{token}' is not a dice formula: remove it "
                         "(chancekit computes the formula itself)")

    def limit_of(self, sel: Selector, name: str, p: int) -> int:
        """The limit of Foundry's ``x5=10`` / ``r1=1`` (read as a number first)."""
        if sel.num < 0:
            raise self.fail(f"Foundry's limited '{name}' needs a limit of 0 or more "
                            f"('{name}2=1': at most 2), not {sel.num}", p)
        return sel.num

    def refuse_modifier(self, *, dice: bool, brace: bool) -> None:
        """After dice or a group, letters that are no modifier of this dialect: name the
        construct (another dialect's spelling, or an unknown modifier)."""
        t, p = self.text, self.pos
        word = re.match(r"[A-Za-z!]+", t[p:])
        if not word or not (dice or brace):
            return
        w = word[0]
        if t.startswith("!=", p):
            return
        own = {"roll20": _R20_OPS, "foundry": _FVTT_OPS}.get(self.dialect, ())
        low = w.lower() if self.dialect == "foundry" else w  # Foundry: any case (2D6KH1)
        if not dice and any(low.startswith(o) for o in own if o[0].isalpha() or o[0] == "!"):
            name = max((o for o in own if low.startswith(o)), key=len)
            raise self.fail(f"{self.dialect}'s '{name}' applies to dice, not to a group "
                            f"'{{...}}' (a group takes keep/drop and target numbers)", p)
        table = _FOREIGN.get(self.dialect, {})
        for key in sorted(table, key=len, reverse=True):
            if low.startswith(key):
                raise self.fail(table[key].format(key), p)
        if not w[0].isalpha():
            return
        known = " ".join(_DOCUMENTED[self.dialect])
        raise self.fail(f"'{w}' is not a {self.dialect} dice modifier ({self.dialect}'s "
                        f"modifiers: {known})", p)

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
        if self.dialect == "roll20" and self.text.startswith("[[", self.pos):
            # Roll20 runs inline rolls first: '3d6>[[1+3]]' compares to 4
            p = self.pos
            value = _fold(self.inline_roll())
            if value is None:
                raise self.fail("Roll20's rolled compare point (an inline roll with dice "
                                f"after '{name}') is not supported: chancekit needs a fixed "
                                "target there (e.g. '>[[1+3]]')", p)
            return Selector(cat, sign * value, col)
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

    def one_roll_group(self, inner: Node, ops: tuple[Op, ...], col: int) -> Node:
        """Roll20's grouped roll of one sub-roll, ``{4d6+3d8}k4`` / ``{3d20+5}>21``: keep,
        drop and target numbers act on the dice inside, not on the total -- keep/drop
        across every die of the sum (a set of single dice), a target number on each die
        plus the numbers of the sum (``{3d20+5}>21``: each d20 + 5 >= 21, i.e. d20 >= 16)."""
        terms = _summands(inner)
        where = col - 1
        if terms is None or not all(isinstance(t, Dice | Num) for t in terms):
            raise self.fail("Roll20's grouped roll of one sub-roll with keep/drop or a "
                            "target number takes a sum of dice and numbers here "
                            "({4d6+3d8}k4, {3d20+5}>21); write a comma to act on totals "
                            "({2d6, 1d8}kh1)", where)
        dice = [t for t in terms if isinstance(t, Dice)]
        extra = sum((t.value for t in terms if isinstance(t, Num)), Fraction(0))
        if not dice:
            raise self.fail("Roll20's grouped roll with keep/drop or a target number "
                            "needs dice inside", where)
        if extra.denominator != 1:
            raise self.fail("Roll20's grouped roll of one sub-roll adds a whole number to "
                            "each die here", where)
        keeps = [o for o in ops if o.kind in ("k", "p")]
        if keeps and extra:
            raise self.fail("Roll20's keep/drop across a grouped roll of dice and numbers "
                            f"(here {extra} besides the dice) is not supported: keep or drop "
                            "among the dice only ({4d6+3d8}k4)", where)
        if any(o.kind in ("cnt", "mt") or o.kind in ("k", "p") for t in dice for o in t.ops):
            raise self.fail("Roll20's grouped roll of one sub-roll whose dice already keep, "
                            "drop or count is not supported: write those after the group",
                            where)
        if keeps:  # every die one item: the group's keep/drop picks among the dice
            count = sum(t.count for t in dice)
            if count > 64:
                raise self.fail(f"Roll20's keep/drop across {count} dice of a grouped roll "
                                "is past the 64 chancekit takes here", where)
            items = tuple(Dice(1, t.faces, t.ops, t.col, t.spelled, t.notes)
                          for t in dice for _ in range(t.count))
            return Group(items, ops, True, col, brace=True)
        shift = int(extra)  # each die + shift against the target: the die against target - shift

        def moved(sels: tuple[Selector, ...]) -> tuple[Selector, ...]:
            return tuple(Selector(s.cat, s.num - shift, s.col) for s in sels)

        counted: Node | None = None
        for t in dice:
            mine = tuple(Op(o.kind, moved(o.sels), o.col, o.spelled, moved(o.fails), o.steps)
                         if o.kind == "cnt" else o for o in ops)
            node = Dice(t.count, t.faces, t.ops + mine, t.col, t.spelled, t.notes)
            counted = node if counted is None else Binary("+", counted, node, col)
        assert counted is not None
        return counted

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
        if (brace and self.dialect == "roll20" and len(items) == 1 and not comma
                and not isinstance(items[0], Dice) and any(o.kind in ("k", "p", "cnt")
                                                            for o in ops)):
            return self.one_roll_group(items[0], ops, col)
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


def _summands(node: Node) -> list[Node] | None:
    """The terms of ``a + b + c`` (``None`` if another operator joins them)."""
    if isinstance(node, Binary) and node.op == "+":
        left, right = _summands(node.left), _summands(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, Binary) and node.op == "-" and isinstance(node.right, Num):
        left = _summands(node.left)  # '{3d6-1}>3': each die - 1
        right = Num(-node.right.value, node.right.col, node.right.spelled)
        return None if left is None else [*left, right]
    if isinstance(node, Group) and len(node.items) == 1 and not node.ops and not node.is_set:
        return _summands(node.items[0])
    return [node]


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
                       node.notes + notes, node.signed, node.rounded)
    if isinstance(node, Call):
        return Call(node.name, node.args, node.col, node.notes + notes)
    if isinstance(node, Binary):  # Foundry's margin of success: the dice carry the notes
        if isinstance(node.left, Dice | VarDice):
            return Binary(node.op, _with_notes(node.left, notes), node.right, node.col)
        return Binary(node.op, node.left, _with_notes(node.right, notes), node.col)
    raise AssertionError(node)  # pragma: no cover


def _fold(node: Node) -> int | None:
    """The whole number a dice-free node stands for (``[[1+3]]`` -> 4), else ``None``."""
    if isinstance(node, Num):
        v = node.value
        return int(v) if isinstance(v, int) or getattr(v, "denominator", 0) == 1 else None
    if isinstance(node, Group) and len(node.items) == 1 and not node.ops:
        return _fold(node.items[0])
    if isinstance(node, Unary):
        v = _fold(node.operand)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, Binary) and node.op in ("+", "-", "*"):
        a, b = _fold(node.left), _fold(node.right)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


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


def parse(text: str, dialect: str = "avrae", variables: dict[str, Any] | None = None) -> Node:
    """Parse ``text`` into a syntax tree in ``dialect`` (:data:`DIALECTS`); O(len(text)).
    A ``#`` starts a comment (to the end). ``variables`` fill Foundry's ``@name`` and
    Roll20's ``@{name}`` / ``?{name|...}`` (numbers, or formulas read in ``dialect``).

    >>> parse("4d6kh3").count
    4
    >>> parse("4d6k3", "roll20").ops[0].sels
    (Selector(cat='h', num=3, col=4),)
    """
    return parse_with_remarks(text, dialect, variables)[0]


def parse_with_remarks(text: str, dialect: str = "avrae",
                       variables: dict[str, Any] | None = None) -> tuple[Node, list[str]]:
    """:func:`parse`, and the remarks on how the text was read (a Roll20 query read as
    its default): the notes :func:`~chancekit.dice.notation.ambiguities` prints."""
    if not isinstance(text, str):
        raise InvalidTypeError("notation", text, "a str such as '4d6kh3'")
    if len(text) > MAX_LENGTH:
        raise LimitError(f"a dice expression of {len(text)} characters is past the limit of "
                         f"{MAX_LENGTH} (MAX_LENGTH); split it into smaller expressions",
                         limit="MAX_LENGTH", value=len(text))
    if dialect not in DIALECTS:
        from chancekit.errors import InvalidValueError

        raise InvalidValueError("dialect", dialect, f"one of {', '.join(DIALECTS)}")
    variables = check_variables(variables)
    remarks: list[str] = []
    command = _CHAT_COMMAND.match(text) if dialect != "avrae" else None
    if command:  # '/r 1d20' pasted from the chat: the command is blanked (columns stay)
        remarks.append(f"the chat command `{command[1]}` is left out: this is the formula "
                       "it rolls")
        text = " " * command.end() + text[command.end():]
    parser = _Parser(strip_comment(text), dialect, variables)
    return parser.parse(), remarks + parser.remarks


#: Foundry's ``@name``: letters, digits, ``_``, ``.`` and ``-``, ending in a letter/digit/_
_NAME = re.compile(r"@([\w.\-]*\w)")
#: a chat command pasted before a formula (Roll20's and Foundry's /roll family)
_CHAT_COMMAND = re.compile(r"\s*(/(?:roll|r|gmroll|gmr|blindroll|br|selfroll|sr|publicroll|pr))"
                           r"(?:\s+|$)")


def check_variables(variables: Any) -> dict[str, Any]:
    """``variables`` checked: a mapping of names to numbers (int, Fraction) or formula
    text (at most :data:`MAX_LENGTH` characters each)."""
    from collections.abc import Mapping

    from chancekit.errors import InvalidValueError

    if variables is None:
        return {}
    if not isinstance(variables, Mapping):
        raise InvalidTypeError("variables", variables, "a dict of name -> number or formula")
    out: dict[str, Any] = {}
    for k, v in variables.items():
        if not isinstance(k, str) or not k or len(k) > 200:
            raise InvalidValueError("variables", k, "names of 1 to 200 characters")
        if isinstance(v, bool) or not isinstance(v, int | Fraction | str):
            raise InvalidTypeError(f"variables[{k!r}]", v, "a number or a formula (str)")
        if isinstance(v, str) and len(v) > MAX_LENGTH:
            raise LimitError(f"the value of variable {k!r} has {len(v)} characters, past the "
                             f"limit of {MAX_LENGTH} (MAX_LENGTH)", limit="MAX_LENGTH",
                             value=len(v))
        out[k] = v
    return out
