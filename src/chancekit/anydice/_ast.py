"""The syntax tree of an AnyDice program: immutable nodes, each with its line and column.

Expressions: :class:`Num`, :class:`Var`, :class:`SeqLit` (items :class:`Item`),
:class:`Unary`, :class:`Binary`, :class:`Call`. Statements: :class:`Output`,
:class:`Assign`, :class:`Result`, :class:`If`, :class:`Loop`, :class:`Set`,
:class:`FunctionDef`. ``size`` of an expression counts its nodes (the interpreter's work
estimates use it).

>>> Binary("+", Num(1, 1, 1), Num(2, 1, 5), 1, 3).size
3
"""

from __future__ import annotations

from typing import Any

__all__ = ["Assign", "Binary", "Call", "FunctionDef", "If", "Item", "Loop", "Num", "Output",
           "Param", "Result", "SeqLit", "Set", "Unary", "Var"]


class Node:
    __slots__ = ("column", "height", "line", "size")
    line: int
    column: int
    size: int
    height: int

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Num(Node):
    __slots__ = ("value",)

    def __init__(self, value: int, line: int, column: int) -> None:
        self.value, self.line, self.column, self.size, self.height = value, line, column, 1, 1


class Var(Node):
    __slots__ = ("name",)

    def __init__(self, name: str, line: int, column: int) -> None:
        self.name, self.line, self.column, self.size, self.height = name, line, column, 1, 1


class Item(Node):
    """One item of a sequence literal: ``value``, ``value..stop`` (a range), each with an
    optional ``:repeat``."""

    __slots__ = ("repeat", "stop", "value")

    def __init__(self, value: Any, stop: Any, repeat: Any, line: int, column: int) -> None:
        self.value, self.stop, self.repeat = value, stop, repeat
        self.line, self.column = line, column
        self.size = 1 + sum(x.size for x in (value, stop, repeat) if x is not None)
        self.height = 1 + max(x.height for x in (value, stop, repeat) if x is not None)


class SeqLit(Node):
    __slots__ = ("items",)

    def __init__(self, items: tuple[Item, ...], line: int, column: int) -> None:
        self.items, self.line, self.column = items, line, column
        self.size = 1 + sum(i.size for i in items)
        self.height = 1 + max((i.height for i in items), default=0)


class Unary(Node):
    """``op`` is one of ``- + ! # d``."""

    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Any, line: int, column: int) -> None:
        self.op, self.operand, self.line, self.column = op, operand, line, column
        self.size = 1 + operand.size
        self.height = 1 + operand.height


class Binary(Node):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Any, right: Any, line: int, column: int) -> None:
        self.op, self.left, self.right, self.line, self.column = op, left, right, line, column
        self.size = 1 + left.size + right.size
        self.height = 1 + max(left.height, right.height)


class Call(Node):
    """``[words and arguments]``: ``key`` is the words with ``None`` for each argument."""

    __slots__ = ("args", "key")

    def __init__(self, key: tuple[str | None, ...], args: tuple[Any, ...], line: int,
                 column: int) -> None:
        self.key, self.args, self.line, self.column = key, args, line, column
        self.size = 1 + sum(a.size for a in args)
        self.height = 1 + max((a.height for a in args), default=0)


class Param:
    __slots__ = ("kind", "name")

    def __init__(self, name: str, kind: str | None) -> None:
        self.name, self.kind = name, kind

    def __repr__(self) -> str:
        return f"Param({self.name!r}, {self.kind!r})"


class Output(Node):
    __slots__ = ("expr", "name")

    def __init__(self, expr: Any, name: str | None, line: int, column: int) -> None:
        self.expr, self.name, self.line, self.column = expr, name, line, column
        self.size = 1 + expr.size


class Assign(Node):
    __slots__ = ("expr", "name")

    def __init__(self, name: str, expr: Any, line: int, column: int) -> None:
        self.name, self.expr, self.line, self.column = name, expr, line, column
        self.size = 1 + expr.size


class Result(Node):
    __slots__ = ("expr",)

    def __init__(self, expr: Any, line: int, column: int) -> None:
        self.expr, self.line, self.column = expr, line, column
        self.size = 1 + expr.size


class If(Node):
    """``branches``: (condition, block) pairs (``else if`` chains); ``orelse`` the final
    ``else`` block or None."""

    __slots__ = ("branches", "orelse")

    def __init__(self, branches: tuple[tuple[Any, tuple[Any, ...]], ...],
                 orelse: tuple[Any, ...] | None, line: int, column: int) -> None:
        self.branches, self.orelse, self.line, self.column = branches, orelse, line, column
        self.size = 1 + sum(c.size + _block_size(b) for c, b in branches) + _block_size(
            orelse or ())


class Loop(Node):
    __slots__ = ("body", "expr", "name")

    def __init__(self, name: str, expr: Any, body: tuple[Any, ...], line: int,
                 column: int) -> None:
        self.name, self.expr, self.body, self.line, self.column = name, expr, body, line, column
        self.size = 1 + expr.size + _block_size(body)


class Set(Node):
    """``set "setting" to value``: ``value`` a string or an expression."""

    __slots__ = ("setting", "value")

    def __init__(self, setting: str, value: Any, line: int, column: int) -> None:
        self.setting, self.value, self.line, self.column = setting, value, line, column
        self.size = 1 + (value.size if isinstance(value, Node) else 0)


class FunctionDef(Node):
    """``function: words PARAMS {body}``: ``key`` the words with ``None`` per parameter."""

    __slots__ = ("body", "key", "params")

    def __init__(self, key: tuple[str | None, ...], params: tuple[Param, ...],
                 body: tuple[Any, ...], line: int, column: int) -> None:
        self.key, self.params, self.body, self.line, self.column = key, params, body, line, column
        self.size = 1 + _block_size(body)


def _block_size(block: tuple[Any, ...]) -> int:
    return sum(s.size for s in block)


def assigned(stmts: tuple[Any, ...]) -> set[str]:
    """The names a block of statements assigns to, its loops' variables included, in every
    branch and nested block (O(statements))."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, Assign):
            out.add(s.name)
        elif isinstance(s, Loop):
            out.add(s.name)
            out |= assigned(s.body)
        elif isinstance(s, If):
            for _, b in s.branches:
                out |= assigned(b)
            if s.orelse:
                out |= assigned(s.orelse)
    return out
