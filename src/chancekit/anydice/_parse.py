"""AnyDice program text -> syntax tree (:mod:`chancekit.anydice._ast`); syntax only.

Precedence, loosest first: ``& |`` (one level), comparisons, ``+ -``, ``* /``, ``^``,
``@``, binary ``d``, then the prefix operators ``# - + ! d`` (all one level, so ``#3d6``
is ``(#3)d6``), then atoms (numbers, variables, ``( )``, ``{ }``, ``[ ]``). All binary
operators are left-associative. Errors name the line, column and token. O(length).

>>> parse("output 2 + 3 * 4")[0].expr.op
'+'
>>> parse("output (1 }")
Traceback (most recent call last):
...
chancekit.anydice.errors.AnyDiceError: expected ')' but found '}' at line 1, column 11
...
"""

from __future__ import annotations

from typing import Any

from chancekit.anydice import _ast as A
from chancekit.anydice._lexer import Token, tokens
from chancekit.anydice.errors import AnyDiceError
from chancekit.limits import MAX_DEPTH

__all__ = ["parse"]


_CMP = ("=", "!=", "<", "<=", ">", ">=")
#: the longest chain of operators in one expression (its tree is evaluated recursively)
_HEIGHT = 2000
_PREFIX = ("-", "+", "!", "#", "d")


def parse(source: str) -> tuple[Any, ...]:
    """The statements of ``source`` (top level: outputs, assignments, functions, loops,
    conditions, settings). Raises :class:`AnyDiceError` on the first syntax error."""
    return _Parser(source).program()


_OPENED = {"(": "bracket", "{": "sequence", "[": "function call"}


def _width(tok: Token) -> int:
    """How many characters ``tok`` takes in the program (a string's quotes counted)."""
    return len(tok.text) + 2 if tok.kind == "str" else max(1, len(tok.text))


def _first_column(source: str, line: int) -> int:
    """The column of the first non-blank character of ``line`` (1-based)."""
    lines = source.splitlines()
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    return len(text) - len(text.lstrip()) + 1


def _describe(tok: Token) -> str:
    if tok.kind == "end":
        return "the end of the program"
    if tok.kind == "str":
        return f'the string "{tok.text}"'
    return repr(tok.text)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.stream = tokens(source)
        self.buf: list[Token] = []
        self.depth = 0
        self.last: Token | None = None  # the last token read

    # -- helpers --------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        buf = self.buf
        while len(buf) <= ahead:
            if buf and buf[-1].kind == "end":
                return buf[-1]
            buf.append(next(self.stream))
        return buf[ahead]

    def next(self) -> Token:
        tok = self.peek()
        if tok.kind != "end":
            self.buf.pop(0)
            self.last = tok
        return tok

    def error(self, problem: str, tok: Token | None = None) -> AnyDiceError:
        tok = tok or self.peek()
        return AnyDiceError(problem, line=tok.line, column=tok.column, token=tok.text,
                            source=self.source)

    def unfinished(self, want: str, opened: Token | None = None) -> AnyDiceError:
        """``expected WANT but found X``, placed at X; unless X is on a later line than the
        last token read (or is the end of the program): the expression before X is then
        unfinished, and the error is placed just after that last token, where the missing
        part belongs, naming what comes next (and ``opened``, the bracket left open)."""
        tok = self.peek()
        last = self.last
        if last is None or (tok.kind != "end" and tok.line == last.line):
            return self.error(f"expected {want} but found {_describe(tok)}")
        what = "expression"
        if opened is not None:
            what = (f"{_OPENED[opened.text]}: the {opened.text!r} at line {opened.line}, "
                    f"column {opened.column} is never closed;")
        after = "" if " after " in want else f" after {_describe(last)}"
        nxt = ("the program ends there" if tok.kind == "end" else
               f"the line ends there (line {tok.line} starts with {_describe(tok)})"
               if tok.column == _first_column(self.source, tok.line) else
               f"the line ends there (next comes {_describe(tok)} on line {tok.line})")
        return AnyDiceError(f"unfinished {what} expected {want}{after}, but {nxt}"
                            if opened is not None else
                            f"unfinished {what}: expected {want}{after}, but {nxt}",
                            line=last.line, column=last.column + _width(last), token="",
                            source=self.source)

    def at(self, kind: str, text: str | None = None) -> bool:
        tok = self.peek()
        return tok.kind == kind and (text is None or tok.text == text)

    def expect(self, kind: str, text: str | None = None, what: str | None = None,
               opened: Token | None = None) -> Token:
        tok = self.peek()
        if tok.kind != kind or (text is not None and tok.text != text):
            want = what or (repr(text) if text is not None else kind)
            raise self.unfinished(want, opened)
        return self.next()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested too deeply (more than MAX_DEPTH = {MAX_DEPTH} "
                             "levels of brackets, blocks and prefix operators)")

    # -- statements -----------------------------------------------------------------------

    def program(self) -> tuple[Any, ...]:
        out = []
        while not self.at("end"):
            out.append(self.statement(top=True, in_function=False))
        return tuple(out)

    def block(self, in_function: bool) -> tuple[Any, ...]:
        first = self.expect("op", "{", "'{' to start a block")
        self.enter()
        out = []
        while not self.at("op", "}"):
            if self.at("end"):
                raise self.error(f"expected '}}' to end a block but found the end of the "
                                 f"program (the block '{{' opened at line {first.line}, "
                                 f"column {first.column} is not closed)", first)
            stmt = self.statement(top=False, in_function=in_function)
            out.append(stmt)
            if isinstance(stmt, A.Result) and not self.at("op", "}"):
                raise self.error(f"expected '}}' after a result but found "
                                 f"{_describe(self.peek())} (a result ends its block)")
        self.next()
        self.depth -= 1
        return tuple(out)

    def statement(self, *, top: bool, in_function: bool) -> Any:
        tok = self.peek()
        if tok.kind == "var" and self.peek(1).kind == "op" and self.peek(1).text == ":":
            self.next()
            self.next()
            return A.Assign(tok.text, self.expr(), tok.line, tok.column)
        if tok.kind == "word":
            kw = tok.text
            if kw == "output":
                if in_function:
                    raise self.error("output is not allowed inside a function")
                self.next()
                expr = self.expr()
                name = None
                if self.at("word", "named"):
                    self.next()
                    name = self.expect("str", what="a string after 'named'").text
                return A.Output(expr, name, tok.line, tok.column)
            if kw == "function" and self.peek(1).text == ":":
                if in_function:
                    raise self.error("a function cannot be defined inside a function")
                return self.function()
            if kw == "result" and self.peek(1).text == ":":
                if not in_function:
                    raise self.error("result: is only allowed inside a function")
                self.next()
                self.next()
                return A.Result(self.expr(), tok.line, tok.column)
            if kw == "if":
                return self.if_(in_function)
            if kw == "loop":
                self.next()
                var = self.expect("var", what="a variable name after 'loop'")
                self.expect("word", "over")
                expr = self.expr()
                body = self.block(in_function)
                return A.Loop(var.text, expr, body, tok.line, tok.column)
            if kw == "set":
                if in_function:
                    raise self.error("settings cannot be changed inside a function")
                self.next()
                setting = self.expect("str", what="a setting name in quotes").text
                self.expect("word", "to")
                value: Any
                if self.at("str"):
                    value = self.next().text
                else:
                    value = self.expr()
                return A.Set(setting, value, tok.line, tok.column)
        hint = "" if in_function else " (perhaps 'output' is missing)"
        raise self.error(f"unexpected {_describe(tok)}: expected a statement{hint}")

    def if_(self, in_function: bool) -> A.If:
        first = self.next()
        branches = [(self.expr(), self.block(in_function))]
        orelse = None
        while self.at("word", "else"):
            self.next()
            if self.at("word", "if"):
                self.next()
                branches.append((self.expr(), self.block(in_function)))
                continue
            orelse = self.block(in_function)
            break
        return A.If(tuple(branches), orelse, first.line, first.column)

    def function(self) -> A.FunctionDef:
        first = self.next()
        self.next()  # ':'
        key: list[str | None] = []
        params: list[A.Param] = []
        while not self.at("op", "{"):
            tok = self.next()
            if tok.kind == "word" or (tok.kind == "op" and tok.text == "d"):
                key.append(tok.text)
            elif tok.kind == "var":
                kind = None
                if self.at("op", ":"):
                    self.next()
                    t = self.next()
                    if t.text not in ("n", "d", "s", "?"):
                        raise self.error(f"unknown parameter type {t.text!r} "
                                         "(valid: :n, :d, :s)", t)
                    kind = None if t.text == "?" else t.text
                key.append(None)
                params.append(A.Param(tok.text, kind))
            else:
                raise self.error(f"unexpected {_describe(tok)} in a function name "
                                 "(lowercase words and VARIABLES)", tok)
        body = self.block(in_function=True)
        return A.FunctionDef(tuple(key), tuple(params), body, first.line, first.column)

    # -- expressions ----------------------------------------------------------------------

    def binary(self, tok: Token, left: Any, right: Any) -> A.Binary:
        node = A.Binary(tok.text, left, right, tok.line, tok.column)
        if node.height > _HEIGHT:
            raise self.error(f"this expression is too long: more than {_HEIGHT} operators in "
                             "a chain (use a loop)", tok)
        return node

    def expr(self) -> Any:
        left = self.comparison()
        while self.peek().kind == "op" and self.peek().text in ("&", "|"):
            tok = self.next()
            left = self.binary(tok, left, self.comparison())
        return left

    def comparison(self) -> Any:
        left = self.additive()
        while self.peek().kind == "op" and self.peek().text in _CMP:
            tok = self.next()
            left = self.binary(tok, left, self.additive())
        return left

    def additive(self) -> Any:
        left = self.multiplicative()
        while self.peek().kind == "op" and self.peek().text in ("+", "-"):
            tok = self.next()
            left = self.binary(tok, left, self.multiplicative())
        return left

    def multiplicative(self) -> Any:
        left = self.power()
        while self.peek().kind == "op" and self.peek().text in ("*", "/"):
            tok = self.next()
            left = self.binary(tok, left, self.power())
        return left

    def power(self) -> Any:
        left = self.position()
        while self.at("op", "^"):
            tok = self.next()
            left = self.binary(tok, left, self.position())
        return left

    def position(self) -> Any:
        left = self.dice()
        while self.at("op", "@"):
            tok = self.next()
            left = self.binary(tok, left, self.dice())
        return left

    def dice(self) -> Any:
        left = self.unary()
        while self.at("op", "d"):
            tok = self.next()
            left = self.binary(tok, left, self.unary())
        return left

    def unary(self) -> Any:
        tok = self.peek()
        if tok.kind == "op" and tok.text in _PREFIX:
            self.next()
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return A.Unary(tok.text, operand, tok.line, tok.column)
        return self.atom()

    def atom(self) -> Any:
        tok = self.peek()
        if tok.kind == "num":
            if len(tok.text) > 300:
                raise self.error(f"a number of {len(tok.text)} digits is too long (at most "
                                 "300; AnyDice's numbers are 64-bit)")
            self.next()
            return A.Num(int(tok.text), tok.line, tok.column)
        if tok.kind == "var":
            self.next()
            return A.Var(tok.text, tok.line, tok.column)
        if tok.kind == "op" and tok.text == "(":
            self.next()
            self.enter()
            inner = self.expr()
            self.expect("op", ")", opened=tok)
            self.depth -= 1
            return inner
        if tok.kind == "op" and tok.text == "{":
            return self.sequence()
        if tok.kind == "op" and tok.text == "[":
            return self.call()
        raise self.unfinished("a value")

    def sequence(self) -> A.SeqLit:
        first = self.next()
        self.enter()
        items = []
        if not self.at("op", "}"):
            while True:
                tok = self.peek()
                value = self.expr()
                stop = repeat = None
                if self.at("op", ".."):
                    self.next()
                    stop = self.expr()
                if self.at("op", ":"):
                    self.next()
                    repeat = self.expr()
                items.append(A.Item(value, stop, repeat, tok.line, tok.column))
                if self.at("op", ","):
                    self.next()
                    continue
                break
        self.expect("op", "}", "',' or '}' in a sequence", opened=first)
        self.depth -= 1
        return A.SeqLit(tuple(items), first.line, first.column)

    def call(self) -> A.Call:
        first = self.next()
        self.enter()
        key: list[str | None] = []
        args = []
        while not self.at("op", "]"):
            tok = self.peek()
            if tok.kind == "end":
                raise self.unfinished("']' to end a function call", first)
            if tok.kind == "word":
                self.next()
                key.append(tok.text)
            else:
                args.append(self.expr())
                key.append(None)
        self.next()
        self.depth -= 1
        return A.Call(tuple(key), tuple(args), first.line, first.column)
