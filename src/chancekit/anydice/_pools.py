"""``:s`` functions over dice pools, compiled onto the pool face walk.

AnyDice runs a function with a sequence parameter once per sorted roll of the dice it is
given: C(n+f-1, n) rolls for ``n`` dice of ``f`` faces (92,378 for 10d10). Most such
functions only look at a few *features* of the roll: how many dice compare to a number
(``ROLL >= 7``, ``ROLL = 10``), how many show listed values (``[count {1,2} in ROLL]``,
``[ROLL contains 6]``), the dice at fixed positions (``1@ROLL``, ``{1,2}@ROLL``), the sum
(``ROLL + 1``) and the length (``#ROLL``). When every use of the parameter in the body is
one of those, with the other operand fixed for the call (numbers, and variables neither
assigned by the body nor expanded in the same call), and the body does not carry state
from one roll to the next, this module rewrites the body to read the features from
variables, computes the joint distribution of the features with one
:func:`chancekit.dice.evaluate_pool` face walk, and the body then runs once per distinct
feature vector instead of once per roll.
Anything else falls back to the enumeration (same answer, more work).

>>> from chancekit.anydice import run
>>> program = '''function: hits ROLL:s { result: (ROLL >= 5) - (ROLL = 1) }
... output [hits 20d6]'''
>>> run(program)[0][1].probability(20)
Fraction(1, 3486784401)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from chancekit.anydice import _ast as A
from chancekit.dice import Distribution, FaceRule, evaluate_pool
from chancekit.dice.facewalk import STEP_WORK

__all__ = ["Plan", "features", "operand_reads", "plan", "stateless"]

_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_CMP = frozenset(_FLIP)
_ARITH = frozenset("+-*/^&|")
_COUNT = ("count", None, "in", None)
_CONTAINS = (None, "contains", None)


class _Unsafe(Exception):
    pass


class Plan:
    """A function body rewritten for one ``:s`` parameter: ``uses`` lists (kind, operand
    expression or None) per feature variable ``#Fi``; ``builtins`` the built-in function
    keys the rewrite relied on (a user function with that name cancels the plan)."""

    __slots__ = ("body", "builtins", "names", "uses")

    def __init__(self, body: tuple[Any, ...], uses: list[tuple[str, Any]],
                 builtins: set[tuple[str | None, ...]], names: list[str]) -> None:
        self.body = body
        self.uses = uses
        self.builtins = builtins
        self.names = names


def plan(func: A.FunctionDef, index: int, cache: dict[tuple[int, int], Any]) -> Plan | None:
    """The rewrite of ``func`` for its parameter ``index``, or None when the body uses it
    in another way (cached in ``cache``, one per program run: keyed by ``id(func)``, the
    tree living as long as the run)."""
    key = (id(func), index)
    if key not in cache:
        cache[key] = _make(func, index)
    return cache[key]


def _make(func: A.FunctionDef, index: int) -> Plan | None:
    param = func.params[index].name
    names = [p.name for p in func.params]
    if names.count(param) != 1:
        return None
    assigned = A.assigned(func.body)
    if param in assigned or not stateless(func.body, set(names), assigned):
        return None
    rw = _Rewriter(param, {param} | assigned, _rank_vars(func.body, param))
    try:
        body = tuple(rw.stmt(s) for s in func.body)
    except _Unsafe:
        return None
    if not rw.uses:
        return None
    return Plan(body, rw.uses, rw.builtins, [f"#F{i}" for i in range(len(rw.uses))])


def _reads(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, A.Var):
        out.add(node.name)
    elif isinstance(node, A.Binary):
        _reads(node.left, out)
        _reads(node.right, out)
    elif isinstance(node, A.Unary):
        _reads(node.operand, out)
    elif isinstance(node, A.SeqLit):
        for i in node.items:
            for x in (i.value, i.stop, i.repeat):
                if x is not None:
                    _reads(x, out)
    elif isinstance(node, A.Call):
        for a in node.args:
            _reads(a, out)
    return out


def operand_reads(p: Plan) -> set[str]:
    """The variables the plan's operands read (a parameter expanded in the same call
    among them cancels the plan: the operand would change from one outcome to the next)."""
    out: set[str] = set()
    for kind, operand in p.uses:
        if kind == "fold":
            loop = operand[0]
            for st in loop.body:
                _reads_stmt(st, out)
            out -= {loop.name} | A.assigned(loop.body)
        elif operand is not None:
            _reads(operand, out)
    return out


def _reads_stmt(s: Any, out: set[str]) -> None:
    if isinstance(s, A.Assign):
        _reads(s.expr, out)
    elif isinstance(s, A.If):
        for cond, block in s.branches:
            _reads(cond, out)
            for x in block:
                _reads_stmt(x, out)
        for x in s.orelse or ():
            _reads_stmt(x, out)


def stateless(stmts: tuple[Any, ...], defined: set[str], assigned: set[str]) -> bool:
    """Whether no variable the body assigns is read before this run of the body assigned
    it (so one run cannot see what an earlier run left behind)."""
    defined = set(defined)

    def ok(expr: Any) -> bool:
        return not ((_reads(expr, set()) & assigned) - defined)

    for s in stmts:
        if isinstance(s, A.Assign):
            if not ok(s.expr):
                return False
            defined.add(s.name)
        elif isinstance(s, A.Result):
            if not ok(s.expr):
                return False
        elif isinstance(s, A.If):
            for cond, block in s.branches:
                if not ok(cond) or not stateless(block, defined, assigned):
                    return False
            if s.orelse is not None and not stateless(s.orelse, defined, assigned):
                return False
        elif isinstance(s, A.Loop):
            if not ok(s.expr) or not stateless(s.body, defined | {s.name}, assigned):
                return False
        else:
            return False
    return True


def _count_assignments(stmts: tuple[Any, ...], out: Counter[str]) -> Counter[str]:
    for s in stmts:
        if isinstance(s, A.Assign):
            out[s.name] += 1
        elif isinstance(s, A.Loop):
            out[s.name] += 1
            _count_assignments(s.body, out)
        elif isinstance(s, A.If):
            for _, b in s.branches:
                _count_assignments(b, out)
            if s.orelse:
                _count_assignments(s.orelse, out)
    return out


def _rank_vars(body: tuple[Any, ...], param: str) -> dict[str, A.Num]:
    """Variables set once, at the top of the body, to a fixed position of the roll
    (``MAX: 1@ROLL``): comparing the roll with one (``ROLL = MAX``) is a feature too."""
    counts = _count_assignments(body, Counter())
    out = {}
    for s in body:
        if (isinstance(s, A.Assign) and counts[s.name] == 1 and isinstance(s.expr, A.Binary)
                and s.expr.op == "@" and isinstance(s.expr.left, A.Num)
                and isinstance(s.expr.right, A.Var) and s.expr.right.name == param):
            out[s.name] = s.expr.left
    return out


class _Rewriter:
    def __init__(self, param: str, unfixed: set[str], ranks: dict[str, A.Num]) -> None:
        self.param = param
        self.ranks = ranks  # variables holding a fixed position of the roll
        self.unfixed = unfixed  # the parameter and the variables the body assigns
        self.uses: list[tuple[str, Any]] = []
        self.builtins: set[tuple[str | None, ...]] = set()

    def feature(self, kind: str, operand: Any, at: Any) -> A.Var:
        for i, use in enumerate(self.uses):
            if use[0] == kind and use[1] is operand:
                return A.Var(f"#F{i}", at.line, at.column)
        self.uses.append((kind, operand))
        return A.Var(f"#F{len(self.uses) - 1}", at.line, at.column)

    def is_param(self, node: Any) -> bool:
        return isinstance(node, A.Var) and node.name == self.param

    def fixed(self, node: Any) -> bool:
        """A number literal, or built from literals and variables the body leaves alone."""
        if isinstance(node, A.Num):
            return True
        if isinstance(node, A.Var):
            return node.name not in self.unfixed
        if isinstance(node, A.Unary):
            return node.op in ("-", "+") and self.fixed(node.operand)
        if isinstance(node, A.Binary):
            return node.op in _ARITH and self.fixed(node.left) and self.fixed(node.right)
        if isinstance(node, A.SeqLit):
            return all(self.fixed(x) for i in node.items for x in (i.value, i.stop, i.repeat)
                       if x is not None)
        return False

    def stmt(self, s: Any) -> Any:
        if isinstance(s, A.Assign):
            return A.Assign(s.name, self.expr(s.expr), s.line, s.column)
        if isinstance(s, A.Result):
            return A.Result(self.expr(s.expr), s.line, s.column)
        if isinstance(s, A.If):
            branches = tuple((self.expr(c), tuple(self.stmt(x) for x in b)) for c, b in s.branches)
            orelse = None if s.orelse is None else tuple(self.stmt(x) for x in s.orelse)
            return A.If(branches, orelse, s.line, s.column)
        if isinstance(s, A.Loop):
            if self.is_param(s.expr):
                return self.fold(s)
            return A.Loop(s.name, self.expr(s.expr), tuple(self.stmt(x) for x in s.body),
                          s.line, s.column)
        raise _Unsafe

    def fold(self, loop: A.Loop) -> Any:
        """``loop I over ROLL { ACC: ACC + E … }`` where each statement adds to an
        accumulator something that depends only on ``I`` and fixed values (conditions
        too): the loop adds, per accumulator, the sum over the dice of a per-face amount,
        a feature. The loop becomes ``ACC: ACC + #Fk`` per accumulator; the operand of
        the feature is ``(loop, ACC)``, run once per face when the call starts."""
        accs = A.assigned(loop.body)
        if loop.name in accs or self.param in accs:
            raise _Unsafe
        self._additive(loop.body, accs, loop.name)
        out = []
        for acc in sorted(accs):
            var = self.feature("fold", (loop, acc), loop)
            out.append(A.Assign(acc, A.Binary("+", A.Var(acc, loop.line, loop.column), var,
                                              loop.line, loop.column), loop.line, loop.column))
        return A.If(((A.Num(1, loop.line, loop.column), tuple(out)),), None, loop.line,
                    loop.column)

    def _additive(self, stmts: tuple[Any, ...], accs: set[str], name: str) -> None:
        for s in stmts:
            if isinstance(s, A.Assign):
                e = s.expr
                if not (isinstance(e, A.Binary) and e.op in ("+", "-")
                        and isinstance(e.left, A.Var) and e.left.name == s.name):
                    raise _Unsafe
                self._per_face(e.right, accs, name)
            elif isinstance(s, A.If):
                for cond, block in s.branches:
                    self._per_face(cond, accs, name)
                    self._additive(block, accs, name)
                if s.orelse is not None:
                    self._additive(s.orelse, accs, name)
            else:
                raise _Unsafe

    def _per_face(self, node: Any, accs: set[str], name: str) -> None:
        """An expression of the loop variable and fixed values only (no call: a call
        could read the accumulators through its copy of the variables)."""
        if isinstance(node, A.Num):
            return
        if isinstance(node, A.Var):
            if node.name == name or node.name not in self.unfixed:
                return
            raise _Unsafe
        if isinstance(node, A.Binary):
            if node.op in ("d", "@"):
                raise _Unsafe
            self._per_face(node.left, accs, name)
            self._per_face(node.right, accs, name)
            return
        if isinstance(node, A.Unary) and node.op in ("-", "+", "!"):
            self._per_face(node.operand, accs, name)
            return
        raise _Unsafe

    def expr(self, node: Any) -> Any:
        if isinstance(node, A.Num):
            return node
        if isinstance(node, A.Var):
            if node.name == self.param:
                raise _Unsafe  # a bare use: the whole roll
            return node
        if isinstance(node, A.Binary):
            op, left, right = node.op, node.left, node.right
            if op in _CMP:
                if self.is_param(left) and self.fixed(right):
                    return self.feature("cmp " + op, right, node)
                if self.is_param(right) and self.fixed(left):
                    return self.feature("cmp " + _FLIP[op], left, node)
                if self.is_param(left) and isinstance(right, A.Var) and right.name in self.ranks:
                    return self.feature("rank " + op, self.ranks[right.name], node)
                if self.is_param(right) and isinstance(left, A.Var) and left.name in self.ranks:
                    return self.feature("rank " + _FLIP[op], self.ranks[left.name], node)
            elif op == "@" and self.is_param(right) and self.fixed(left):
                return self.feature("at", left, node)
            elif op in _ARITH:
                lf = self.feature("sum", None, left) if self.is_param(left) else self.expr(left)
                rf = self.feature("sum", None, right) if self.is_param(right) else self.expr(right)
                return A.Binary(op, lf, rf, node.line, node.column)
            return A.Binary(op, self.expr(left), self.expr(right), node.line, node.column)
        if isinstance(node, A.Unary):
            if self.is_param(node.operand):
                if node.op == "#":
                    return self.feature("len", None, node)
                if node.op in ("-", "!"):
                    return A.Unary(node.op, self.feature("sum", None, node), node.line,
                                   node.column)
                raise _Unsafe
            return A.Unary(node.op, self.expr(node.operand), node.line, node.column)
        if isinstance(node, A.SeqLit):
            items = tuple(A.Item(self.expr(i.value), i.stop and self.expr(i.stop),
                                 i.repeat and self.expr(i.repeat), i.line, i.column)
                          for i in node.items)
            return A.SeqLit(items, node.line, node.column)
        if isinstance(node, A.Call):
            if node.key == _COUNT and self.is_param(node.args[1]) and self.fixed(node.args[0]):
                self.builtins.add(_COUNT)
                return self.feature("count", node.args[0], node)
            if (node.key == _CONTAINS and self.is_param(node.args[0])
                    and self.fixed(node.args[1])):
                self.builtins.add(_CONTAINS)
                return self.feature("contains", node.args[1], node)
            return A.Call(node.key, tuple(self.expr(a) for a in node.args), node.line,
                          node.column)
        raise _Unsafe  # pragma: no cover


#: how many of ``n`` dice compare so to the die at a rank, from the dice read before its
#: face (``seen``, all higher: the walk is highest first) and those showing it (``c``)
_RANK_COUNT = {"=": lambda seen, c, n: c, "!=": lambda seen, c, n: n - c,
               ">": lambda seen, c, n: seen, ">=": lambda seen, c, n: seen + c,
               "<": lambda seen, c, n: n - seen - c, "<=": lambda seen, c, n: n - seen}
_OPS = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class _FeatureRule(FaceRule):
    """Walks the faces highest first, keeping (dice seen, feature values...)."""

    def __init__(self, queries: tuple[Any, ...]) -> None:
        super().__init__(initial=(0,) + (0,) * len(queries), order="descending")
        self.queries = queries
        # a step loops over the features in Python: 44-76 ns a plain step's unit measured
        # for one or two features (34cf8 mutated: 185 walks of 9d900, 9 s; issue 31)
        self.step_work = STEP_WORK * (2 + len(queries))
        self.last = max((max(q[1]) for q in queries if q[0] == "at" and q[1]), default=0)

    def step(self, state: Any, face: Any, counts: tuple[int, ...]) -> Any:
        c = counts[0]
        if not c:
            return state
        seen = state[0]
        out = [seen + c]
        for q, v in zip(self.queries, state[1:], strict=True):
            kind = q[0]
            if kind == "cmp":
                if q[1](face, q[2]):
                    v += c
            elif kind == "count" or kind == "fold":
                v += c * q[1].get(face, 0)
            elif kind == "contains":
                if face == q[1]:
                    v = 1
            elif kind == "sum":
                v += c * face
            elif kind == "rank":  # dice compared with the die at rank q[2] (of q[3])
                r = q[2]
                if seen < r <= seen + c:
                    v = _RANK_COUNT[q[1]](seen, c, q[3])
            elif kind == "at":
                mult = q[2]
                for r in range(seen + 1, min(seen + c, self.last) + 1):
                    v += face * mult.get(r, 0)
            out.append(v)
        return tuple(out)

    def final(self, state: Any) -> Any:
        return state[1:]


#: one rule object per feature set, so the pool engine's memo cache (keyed by rule
#: identity) is reused across calls; cleared past RULES_KEPT entries
_rules: dict[tuple[Any, ...], _FeatureRule] = {}
RULES_KEPT = 512


def features(queries: list[tuple[str, Any]], base: Distribution, n: int,
             lowest_first: bool) -> list[tuple[tuple[int, ...], int]] | None:
    """The joint distribution of the features (``(kind, value)``: ``cmp OP`` with a
    number, ``count`` with numbers, ``contains`` a number, ``at`` positions, ``sum``,
    ``len``) over ``n`` dice like ``base``, as (feature values, weight) pairs; None when
    an operand is not of the kind the rewrite assumed (a sequence compared, say)."""
    spec: list[Any] = []
    for kind, value in queries:
        if kind.startswith("cmp "):
            if type(value) is not int:
                return None
            spec.append(("cmp", kind[4:], value))
        elif kind == "count":
            vals = (value,) if type(value) is int else value
            if not isinstance(vals, tuple):
                return None
            spec.append(("count", tuple(sorted(Counter(vals).items()))))
        elif kind == "contains":
            if isinstance(value, tuple):
                value = sum(value)
            if type(value) is not int:
                return None
            spec.append(("contains", value))
        elif kind == "at":
            pos = (value,) if type(value) is int else value
            if not isinstance(pos, tuple):
                return None
            ranks = Counter((n + 1 - p) if lowest_first else p for p in pos if 1 <= p <= n)
            spec.append(("at", tuple(sorted(ranks.items()))))
        elif kind == "fold":  # value: face -> amount (the caller ran the loop body)
            if not isinstance(value, dict):
                return None
            spec.append(("fold", tuple(sorted(value.items()))))
        elif kind.startswith("rank "):
            if type(value) is not int:
                return None
            r = (n + 1 - value) if lowest_first else value
            if 1 <= r <= n:
                spec.append(("rank", kind[5:], r, n))
            else:  # a position past the roll is 0
                spec.append(("cmp", kind[5:], 0))
        elif kind in ("sum", "len"):
            spec.append((kind,))
    walk = tuple(s for s in spec if s[0] != "len")
    rule = _rules.get(walk)
    if rule is None:
        if len(_rules) >= RULES_KEPT:
            _rules.clear()
        rule = _rules[walk] = _FeatureRule(tuple(_runtime(s) for s in walk))
    dist = evaluate_pool(rule, n * [base])
    out = []
    for vec, w in dist.items():
        it = iter(vec)
        out.append((tuple(n if s[0] == "len" else next(it) for s in spec), w))
    return out


def _runtime(s: tuple[Any, ...]) -> tuple[Any, ...]:
    if s[0] == "cmp":
        return ("cmp", _OPS[s[1]], s[2])
    if s[0] in ("count", "fold"):
        return (s[0], dict(s[1]))
    if s[0] == "at":
        return ("at", tuple(r for r, _ in s[1]), dict(s[1]))
    return s
