"""Runs a parsed AnyDice program: statements, variables, functions and their parameter
expansion, settings; the values and operators are :mod:`chancekit.anydice._values`, the
built-in functions :mod:`chancekit.anydice.library`.

Scoping is AnyDice's: a function runs in a copy of its caller's variables; during one
expansion the body's own variables persist from one outcome to the next while its
parameters are reset. A ``:n`` parameter given a die runs the body once per distinct
outcome; a ``:s`` parameter given ``N`` dice runs it once per sorted roll (multiset, with
its multinomial weight); the results are mixed by weight, empty results dropping out.

Work: each block, loop and expansion charges (nodes x iterations x ``NODE_WORK``) to the
evaluation budget before it starts, so a runaway program is refused up front.
"""

from __future__ import annotations

import difflib
import itertools
from typing import Any

from chancekit import limits
from chancekit.anydice import _ast as A
from chancekit.anydice import _pools, library
from chancekit.anydice import _values as V
from chancekit.anydice.errors import AnyDiceError
from chancekit.dice import Distribution, constant
from chancekit.errors import LimitError
from chancekit.limits import MAX_FUNCTION_DEPTH, MAX_OUTPUTS, MAX_SEQUENCE

__all__ = ["NODE_WORK", "Interpreter"]

#: work units charged per syntax-tree node evaluated (measured about 0.1-0.12 us of
#: interpretation, 2026-11-27 on the loaded 2-vCPU machine: 10 units of 20 ns, so that a
#: program spending the whole budget on interpretation runs 2-5 s, as AnyDice's own 5 s;
#: it was 25, and programs of 0.6 s were refused: issue 31). 6 since MAX_ANYDICE_WORK is
#: 140 M (the engine's units ran 25-40 ns under load, the interpreter's 9-20 at 10)
NODE_WORK = 6
#: work units of one function call's own machinery (binding, the memo key, a copy of the
#: caller's variables: about 4 us measured, 300) and of one expansion iteration (about
#: 2.5-3 us measured, 250); a call that runs its body unexpanded is charged the body too
CALL_WORK = 300
ITERATION_WORK = 150  # (250 before MAX_ANYDICE_WORK was 140 M; calls stay: 26-64 ns a unit)
#: names longer than this are not compared for "did you mean" (the comparison is quadratic)
_SUGGEST_CHARS = 200
#: nodes charged for one loop round's machinery, and for a ``result:`` beyond its
#: expression (raising and catching the value: about 1 us)
ROUND_NODES = 5
#: work units of a call that is not remembered beyond CALL_WORK: binding its arguments,
#: the frame of run_function, remembering its value (about 10-20 us more, measured on
#: 34cc2: 168,000 recursive calls over sorted rolls, 7-8 s CPU at 300 a call)
CALL_MISS_WORK = 1000
#: work units of a built-in function's call that is not remembered beyond CALL_WORK:
#: binding, the memo key, the library's own checks (about 6-10 us beyond its own steps)
BUILTIN_WORK = 300
RESULT_NODES = 5
#: the values of constant expressions with dice kept per program run (see
#: Interpreter.constant), in machine words (~16 MB)
CONST_SIZE = 2_000_000
#: at most this many function calls remembered per program run (see Interpreter.call)
MEMO_ENTRIES = 200_000
#: and values of at most about this many machine words in all (~100 MB; see _memo_size)
MEMO_SIZE = 12_000_000

_DEFAULTS = {"position order": "highest first", "explode depth": 2,
             "maximum function depth": 10}


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Interpreter:
    def __init__(self, source: str, program: tuple[Any, ...]) -> None:
        self.source = source
        self.program = program
        self.settings: dict[str, Any] = dict(_DEFAULTS)
        self.funcs: dict[tuple[str | None, ...], A.FunctionDef] = {}
        self.outputs: list[tuple[str, Distribution | None]] = []
        self.warnings: list[str] = []
        self.depth = 0
        self._assigned: dict[tuple[int, str], bool] = {}
        self._compiled: dict[int, Any] = {}
        self._keep: list[Any] = []
        self._plans: dict[tuple[int, int], Any] = {}
        self._blocks: dict[int, Any] = {}
        self._memo: dict[Any, Any] = {}
        self._memo_size = 0
        self._reads: dict[int, tuple[str, ...]] = {}
        self._costs: dict[int, int] = {}  # function id -> its body's path, in units
        self._consts: dict[Any, Any] = {}  # constant expressions with dice -> value
        self._consts_size = 0
        self._ckeys: dict[int, Any] = {}  # id(node) -> its constant key (see _constant_key)
        self._params: dict[int, Any] = {}  # function id -> its signature (see signature)
        #: calls answered from the memo (counted work for tests)
        self.memo_hits = 0

    # -- helpers --------------------------------------------------------------------------

    def error(self, problem: str, node: Any, token: str = "") -> AnyDiceError:
        return AnyDiceError(problem, line=node.line, column=node.column, token=token,
                            source=self.source)

    def suggest(self, key: tuple[str | None, ...]) -> str:
        """``" (did you mean [highest N of DICE]?)"``: the up to three functions (the
        program's own and the library's) whose names are nearest ``key``'s, or ``""``.
        Cost: O(number of functions x name length^2)."""
        def words(k: tuple[str | None, ...]) -> str:
            return " ".join(w if w is not None else "?" for w in k)

        placeholder = {"n": "N", "d": "DICE", "s": "SEQUENCE", None: "X"}
        names: dict[tuple[str | None, ...], str] = {}
        for k, b in library.BUILTINS.items():
            kinds = iter(b.kinds)
            names[k] = " ".join(w if w is not None else placeholder[next(kinds)] for w in k)
        for k, f in self.funcs.items():
            params = iter(f.params)
            names[k] = " ".join(w if w is not None else next(params).name for w in k)
        want = words(key)
        if len(want) > _SUGGEST_CHARS:      # a name that long is near nothing anyone meant
            return ""
        scored = sorted(((difflib.SequenceMatcher(None, want, words(k)).ratio(), names[k])
                         for k in names if len(words(k)) <= _SUGGEST_CHARS),
                        key=lambda t: -t[0])
        best = scored[0][0] if scored else 0.0
        near = [name for score, name in scored if score >= max(0.6, best - 0.1)][:3]
        if not near:
            return ""
        return " (did you mean " + " or ".join(f"[{n}]" for n in near) + "?)"

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    @property
    def lowest_first(self) -> bool:
        return self.settings["position order"] == "lowest first"

    def charge(self, units: int, what: str) -> None:
        limits.charge(units, what)

    def check_outputs(self, more: int, what: str) -> None:
        """Refuse, before it runs, a block that would give more than MAX_OUTPUTS outputs."""
        total = len(self.outputs) + more
        if total > MAX_OUTPUTS:
            raise LimitError(f"{what} would give {total:,} outputs, more than the limit "
                             f"MAX_OUTPUTS = {MAX_OUTPUTS:,}; loop over fewer values, or "
                             "split the program", limit="MAX_OUTPUTS", value=total)

    # -- statements -----------------------------------------------------------------------

    def run(self) -> None:
        # the nested loops over literal ranges looked ahead (refused before the first
        # output), the path charged (each loop charges its rounds when it starts)
        limits.check(static_cost(self.program) * NODE_WORK, "running the program")
        self.charge(path_cost(self.program) * NODE_WORK, "running the program")
        self.check_outputs(static_outputs(self.program), "the program")
        self.block(self.program, {})

    def fns(self, stmts: tuple[Any, ...]) -> tuple[Any, ...]:
        """The block's statements as closures (compiled once per block)."""
        fns = self._blocks.get(id(stmts))
        if fns is None:
            fns = self._blocks[id(stmts)] = tuple(self.compile_stmt(s) for s in stmts)
            self._keep.append(stmts)
        return fns

    def block(self, stmts: tuple[Any, ...], env: dict[str, Any]) -> None:
        for fn in self.fns(stmts):
            value = fn(env)
            if value is not None:  # a ``result:`` (a function's body reads it: body())
                raise _Return(value)

    def compile_stmt(self, stmt: Any) -> Any:
        """The statement as a closure ``env -> value or None``: the value of a ``result:``
        reached, else None (no value is None), built once per node."""
        t = type(stmt)
        if t is A.Assign:
            name = stmt.name
            ef = self.compile(stmt.expr)

            def assign(env: dict[str, Any]) -> None:
                env[name] = ef(env)

            return assign
        if t is A.Result:
            return self.compile(stmt.expr)
        if t is A.If:
            # (no charge here: the enclosing program, loop or function charged the
            # sizes of both branches already)
            branches = [(self.compile(c), c, self.fns(b)) for c, b in stmt.branches]
            else_fns = () if stmt.orelse is None else self.fns(stmt.orelse)

            def if_(env: dict[str, Any]) -> Any:
                taken = else_fns
                for cf, cond, fns in branches:
                    value = cf(env)
                    if value if type(value) is int else self.truth(value, cond):
                        taken = fns
                        break
                for fn in taken:
                    value = fn(env)
                    if value is not None:
                        return value
                return None

            return if_
        if t is A.Loop:
            ef = self.compile(stmt.expr)
            name, body = stmt.name, stmt.body
            body_fns = self.fns(body)
            # (a round's own machinery, binding the variable and running the block:
            # about 1 us, measured on 428f2's loops of 6 rounds)
            body_size = path_cost(body) + ROUND_NODES
            ahead = static_cost(body)
            body_outputs = static_outputs(body)

            def loop(env: dict[str, Any]) -> Any:
                value = ef(env)
                if isinstance(value, V.Die):
                    raise self.error("a loop runs over a sequence or a number, not a die",
                                     stmt.expr)
                items = (value,) if isinstance(value, int) else value
                if body_outputs:
                    self.check_outputs(len(items) * body_outputs,
                                       f"a loop of {len(items):,} rounds")
                if ahead > body_size:  # nested loops over literal ranges: look ahead
                    limits.check(len(items) * ahead * NODE_WORK,
                                 f"a loop of {len(items):,} rounds over {ahead:,} steps")
                self.charge(len(items) * body_size * NODE_WORK,
                            f"a loop of {len(items):,} rounds over {body_size:,} steps")
                for x in items:
                    env[name] = x
                    for fn in body_fns:
                        got = fn(env)
                        if got is not None:
                            return got
                return None

            return loop
        return lambda env: self.statement(stmt, env)

    def statement(self, stmt: Any, env: dict[str, Any]) -> None:
        t = type(stmt)
        if t is A.Output:
            self.check_outputs(1, "the program")
            value = self.eval(stmt.expr, env)
            n = len(self.outputs) + 1
            label = self.label(stmt.name, env, stmt) if stmt.name is not None else f"output {n}"
            self.outputs.append((label, self.output_dist(value)))
        elif t is A.Set:
            self._memo.clear()
            self._memo_size = 0
            self._consts.clear()  # (position order, explode depth: values may change)
            self._consts_size = 0
            self.set(stmt, env)
        elif t is A.FunctionDef:  # defined when reached (a later one replaces it)
            self._memo.clear()
            self._memo_size = 0
            self._reads.clear()
            self.funcs[stmt.key] = stmt
        else:  # pragma: no cover
            raise AssertionError(stmt)

    def truth(self, value: Any, node: Any) -> bool:
        if isinstance(value, int):
            return value != 0
        while isinstance(node, A.Binary):  # point at the start of the condition
            node = node.left
        raise self.error(f"a condition must be a number, not {describe(value)} (AnyDice: "
                         "\"Boolean values can only be numbers\"; use a function to "
                         "test each outcome)", node)

    def output_dist(self, value: Any) -> Distribution | None:
        if isinstance(value, int):
            return constant(value)
        if isinstance(value, tuple):
            value = V.make_die(value)
        if value.empty:
            return None
        return value.dist

    def label(self, text: str, env: dict[str, Any], node: Any) -> str:
        out = []
        i = 0
        while i < len(text):
            j = text.find("[", i)
            if j < 0:
                out.append(text[i:])
                break
            k = text.find("]", j)
            name = text[j + 1:k] if k > 0 else ""
            if k > 0 and name and all(c.isupper() or c == "_" for c in name):
                out.append(text[i:j])
                if name not in env:
                    raise self.error(f"no variable named {name} (in the output's name)", node, name)
                out.append(render(env[name]))
                i = k + 1
            else:
                out.append(text[i:j + 1])
                i = j + 1
        return "".join(out)

    def set(self, stmt: A.Set, env: dict[str, Any]) -> None:
        name = stmt.setting
        value = stmt.value if isinstance(stmt.value, str) else self.eval(stmt.value, env)
        if name == "position order":
            if value not in ("highest first", "lowest first"):
                raise self.error('"position order" can only be set to "highest first" or '
                                 '"lowest first"', stmt, str(value))
            self.settings[name] = value
        elif name in ("explode depth", "maximum function depth"):
            if isinstance(value, tuple):
                value = sum(value)
            if not isinstance(value, int) or value < 1:
                raise self.error(f'"{name}" can only be set to a positive integer',
                                 stmt, str(value))
            if name == "maximum function depth" and value > MAX_FUNCTION_DEPTH:
                raise LimitError(f'"maximum function depth" {value} is past the limit '
                                 f"MAX_FUNCTION_DEPTH = {MAX_FUNCTION_DEPTH}",
                                 limit="MAX_FUNCTION_DEPTH", value=value)
            if name == "explode depth" and value > limits.MAX_EXPLODE_DEPTH:
                raise LimitError(f'"explode depth" {value} is past MAX_EXPLODE_DEPTH = '
                                 f"{limits.MAX_EXPLODE_DEPTH}", limit="MAX_EXPLODE_DEPTH",
                                 value=value)
            self.settings[name] = value
        else:
            raise self.error(f"unknown setting \"{name}\" (valid: \"position order\", "
                             "\"explode depth\", \"maximum function depth\")", stmt, name)

    # -- expressions ----------------------------------------------------------------------

    def eval(self, node: Any, env: dict[str, Any]) -> Any:
        fn = self._compiled.get(id(node))
        if fn is None:
            fn = self.compile(node)
        return fn(env)

    def compile(self, node: Any) -> Any:
        """The expression as a Python closure ``env -> value`` (built once per node: the
        tree is walked once, not once per evaluation)."""
        fn = self._compile(node)
        self._compiled[id(node)] = fn
        self._keep.append(node)  # ids stay unique while the interpreter lives
        return fn

    def constant(self, key: Any, fn: Any) -> Any:
        """``fn`` (a constant expression with dice: no variables, no calls) evaluated once
        per program run and setting: ``key`` is its structure, so the same text written
        again (outputs that repeat a sum, the shared start of longer sums) reuses the value
        (values are immutable). Kept up to :data:`CONST_SIZE` words in all."""
        consts = self._consts

        def cached(env: dict[str, Any]) -> Any:
            got = consts.get(key)
            if got is None:
                got = fn(env)
                size = _memo_size(got)
                if self._consts_size + size <= CONST_SIZE:
                    self._consts_size += size
                    consts[key] = got
            return got

        return cached

    def _compile(self, node: Any) -> Any:
        fn = self._compile_node(node)
        key = _constant_key(node, self._ckeys)
        if key is not None and key[0] == "dice":
            return self.constant(key, fn)
        return fn

    def _compile_node(self, node: Any) -> Any:
        t = type(node)
        if t is A.Num:
            value = node.value
            return lambda env: value
        if t is A.Var:
            name = node.name

            def var(env: dict[str, Any]) -> Any:
                try:
                    return env[name]
                except KeyError:
                    raise self.error(f"no variable named {name}", node, name) from None

            return var
        if t is A.Binary:
            op = node.op
            lf = self._compile(node.left)
            rf = self._compile(node.right)
            fast = V.INT_OPS.get(op)
            if fast is not None:
                def binary(env: dict[str, Any]) -> Any:
                    left = lf(env)
                    right = rf(env)
                    if type(left) is int and type(right) is int:
                        return fast(left, right)
                    return self.binary(node, op, left, right)

                return binary
            if op == "@":
                def position(env: dict[str, Any]) -> Any:
                    left = lf(env)
                    right = rf(env)
                    if type(left) is int and type(right) is tuple:
                        return right[left - 1] if 0 < left <= len(right) else 0
                    return self.binary(node, op, left, right)

                return position
            return lambda env: self.binary(node, op, lf(env), rf(env))
        if t is A.Unary:
            of = self._compile(node.operand)
            op = node.op
            if op == "d":
                return lambda env: V.make_die(of(env))
            return lambda env: V.unary(op, of(env))
        if t is A.SeqLit:
            items = [(self._compile(i.value), i.stop and self._compile(i.stop),
                      i.repeat and self._compile(i.repeat), i) for i in node.items]
            if len(items) == 1 and items[0][1] and not items[0][2]:  # {A..B}
                (lof, hif, _, _), = items

                def span(env: dict[str, Any]) -> tuple[int, ...]:
                    lo = lof(env)
                    hi = hif(env)
                    if type(lo) is int and type(hi) is int and 0 <= hi - lo < 64:
                        return tuple(range(lo, hi + 1))
                    return self.sequence(items, env, [], 0, lo, hi)

                return span
            if not items:
                return lambda env: ()
            if (any(i.stop is not None or i.repeat is not None for i in node.items)
                    or len(items) * 64 >= MAX_SEQUENCE):  # (64 numbers an item: see below)
                return lambda env: self.sequence(items, env)
            values = [vf for vf, _, _, _ in items]
            sequence = self.sequence

            def plain(env: dict[str, Any]) -> tuple[int, ...]:
                # {A, B, C}: no ranges, no repeats; numbers and sequences of at most 64
                # inline (so never past MAX_SEQUENCE, nothing to charge), anything else
                # from there on by the general path (its checks and charges)
                out: list[int] = []
                k = 0
                for vf in values:
                    value = vf(env)
                    if type(value) is int:
                        out.append(value)
                    elif type(value) is tuple and len(value) <= 64:
                        out.extend(value)
                    else:
                        return sequence(items, env, out, k, value)
                    k += 1
                return tuple(out)

            return plain
        if t is A.Call:
            args = [self._compile(a) for a in node.args]
            return lambda env: self.call(node, args, env)
        raise AssertionError(node)  # pragma: no cover

    def binary(self, node: Any, op: str, left: Any, right: Any) -> Any:
        try:
            if op == "d":
                return V.dice(left, right)
            if op == "@":
                if type(left) is int and type(right) is tuple:
                    return right[left - 1] if 0 < left <= len(right) else 0
                if type(left) is int and type(right) is int and not self.lowest_first:
                    text = str(right)
                    if right < 0:
                        return -int(text[left]) if 1 <= left < len(text) else 0
                    return int(text[left - 1]) if 1 <= left <= len(text) else 0
                if isinstance(left, V.Die):
                    return self.at_die(left, right)
                return V.at(left, right, self.lowest_first)
            if op == "<=" and isinstance(left, V.Die) and isinstance(right, tuple):
                self.warn("AnyDice reads DIE <= SEQUENCE as DIE > SEQUENCE (a known "
                          "defect); chancekit compares the die with the sequence's sum")
            if (op in ("+", "|") and isinstance(left, V.Die) and left.empty
                    and isinstance(right, tuple)):
                self.warn("AnyDice gives d{} + SEQUENCE and d{} | SEQUENCE as the empty "
                          "die (a known defect); chancekit reads d{} as 0 here, as it does "
                          "for SEQUENCE + d{}")
            return V.binary(op, left, right)
        except (ArithmeticError, OverflowError) as e:
            raise self.error(f"{op}: {e}", node, op) from None

    def at_die(self, left: V.Die, right: Any) -> Any:
        """``DIE @ value``: the die's outcomes as positions, each evaluated once."""
        if left.empty:
            return V.EMPTY
        return V.mix([(V.at(p, right, self.lowest_first), w) for p, w in left.dist.items()])

    def sequence(self, items: list[Any], env: dict[str, Any], out: list[int] | None = None,
                 start: int = 0, first: Any = None, stop: Any = None) -> tuple[int, ...]:
        """The sequence literal's numbers; ``out`` holds those of the items before
        ``start`` already, ``first`` (and ``stop``, of a range) the value of item
        ``start`` if evaluated already."""
        if out is None:
            out = []
        for k in range(start, len(items)):
            vf, sf, rf, item = items[k]
            again = k == start and first is not None
            value = first if again else vf(env)
            if sf is not None:
                lo = self.number(value, item.value)
                hi = self.number(stop if again and stop is not None else sf(env), item.stop)
                length = max(hi - lo + 1, 0)  # (not len(range): past 2**63 it overflows)
                part: tuple[int, ...] | range = range(lo, hi + 1) if length else ()
            else:
                part = V.to_seq(value)
                length = len(part)
            times = 1
            if rf is not None:
                times = max(self.number(rf(env), item.repeat), 0)
            size = length * times
            if len(out) + size > MAX_SEQUENCE:
                raise LimitError(f"a sequence of {len(out) + size} numbers is past the limit "
                                 f"MAX_SEQUENCE = {MAX_SEQUENCE}", limit="MAX_SEQUENCE",
                                 value=len(out) + size)
            if size > 64:
                self.charge(size * limits.ENTRY_WORK, "building a sequence")
            if times == 1:
                out.extend(part)
            else:
                out.extend(list(part) * times)
        return tuple(out)

    def number(self, value: Any, node: Any) -> int:
        if isinstance(value, tuple):
            return sum(value)
        if isinstance(value, int):
            return value
        raise self.error(f"expected a number here, not {describe(value)}", node)

    # -- functions ------------------------------------------------------------------------

    def call(self, node: A.Call, arg_fns: list[Any], env: dict[str, Any]) -> Any:
        if self.depth >= self.settings["maximum function depth"]:
            return V.EMPTY
        args = [f(env) for f in arg_fns]
        # (Python runs slower on a deep stack: a call 1000 deep costs several times more)
        self.charge(CALL_WORK * (1 + self.depth // 100) + len(env), "a function call")
        func = self.funcs.get(node.key)
        if func is not None:
            kinds = self.signature(func)[0]
        else:
            entry = library.BUILTINS.get(node.key)
            if entry is None:
                shown = " ".join(w if w is not None else "?" for w in node.key)
                raise self.error(f"no function matches [{shown}]{self.suggest(node.key)}",
                                 node, "[")
            kinds = list(entry.kinds)
            fast = entry.fast(self, args) if entry.fast is not None else NotImplemented
            if fast is not NotImplemented:
                return fast
        if func is None:
            # a built-in function is pure too (its settings clear the memo): computed once
            # per arguments ([highest 4 of d{11:3}] in a loop: 30 us a call, issue 31)
            key, kept = self.builtin_key(node.key, args)
            got = self._memo.get(key)
            if got is not None:
                self.memo_hits += 1
                return got[0]
            bound, expansion = self.bind(kinds, args)
            if bound is None:
                return V.EMPTY
            self.charge(BUILTIN_WORK, "a function call")
            value = self.run_builtin(entry, bound, expansion)
            self.remember(key, value, kept)
            return value
        # A function body is pure (no output, set or definition inside one): its value
        # depends only on the arguments, the caller's variables other than its parameters,
        # the depth (the "maximum function depth" cut) and the settings, so a call is
        # computed once per such key (a doubly recursive function is then polynomial, an
        # exploding one expanded per outcome level by level rather than outcome by outcome)
        key, kept = self.memo_key(func, args, env)
        got = self._memo.get(key)
        if got is not None:
            self.memo_hits += 1
            return got[0]
        bound, expansion = self.bind(kinds, args)
        if bound is None:
            self.charge(CALL_MISS_WORK, "a function call")
            return V.EMPTY
        value = self.run_function(func, bound, expansion, env, CALL_MISS_WORK)
        self.remember(key, value, kept)
        return value

    def remember(self, key: Any, value: Any, kept: list[Any]) -> None:
        """Keep a call's value under ``key`` while the memo has room (MEMO_ENTRIES,
        MEMO_SIZE words; the values in ``kept`` keep the ids in the key alive)."""
        size = _memo_size(value) + sum(_memo_size(v) for v in kept)
        if len(self._memo) < MEMO_ENTRIES and self._memo_size + size <= MEMO_SIZE:
            self._memo_size += size
            self._memo[key] = (value, kept)

    def builtin_key(self, name: tuple[Any, ...], args: list[Any]) -> Any:
        """The memo key of a built-in function's call: its name and arguments (the
        settings it reads clear the memo when set)."""
        kept: list[Any] = []
        return ("builtin", name, *(_memo_part(a, kept) for a in args)), kept

    def memo_key(self, func: A.FunctionDef, args: list[Any], env: dict[str, Any]) -> Any:
        names = self._reads.get(id(func))
        if names is None:
            names = self._reads[id(func)] = tuple(sorted(
                self.reads(func, set()) - {p.name for p in func.params}))
        parts: list[Any] = [id(func), self.depth]
        kept: list[Any] = []
        for a in args:
            parts.append(_memo_part(a, kept))
        for name in names:  # (only the caller's variables the call can read)
            parts.append(_memo_part(env[name], kept) if name in env else None)
        return tuple(parts), kept

    def reads(self, func: A.FunctionDef, seen: set[int]) -> set[str]:
        """The variable names ``func`` and the functions it calls (as now defined) read."""
        seen.add(id(func))
        out: set[str] = set()
        calls: list[Any] = []
        _walk_reads(func.body, out, calls)
        for key in calls:
            g = self.funcs.get(key)
            if g is not None and id(g) not in seen:
                out |= self.reads(g, seen)
        return out

    def bind(self, kinds: list[str | None], args: list[Any]) -> tuple[Any, Any]:
        bound: list[Any] = []
        expansion: list[tuple[int, list[tuple[Any, int]]]] = []
        for i, (kind, arg) in enumerate(zip(kinds, args, strict=True)):
            if kind == "n":
                if isinstance(arg, tuple):
                    expansion.append((i, [(sum(arg), 1)]))
                    arg = sum(arg)
                elif isinstance(arg, V.Die):
                    if arg.empty:
                        return None, None
                    if arg.count > 1 and arg._dist is None:
                        # before the dice are summed: n dice of m faces have at least
                        # n(m-1)+1 sums, each one expansion iteration later
                        least = arg.count * (len(arg.base) - 1) + 1
                        limits.check(least * (ITERATION_WORK + NODE_WORK),
                                     f"a function expanded over at least {least:,} "
                                     "outcomes")
                    expansion.append((i, list(arg.dist.items())))
            elif kind == "d":
                if not isinstance(arg, V.Die):
                    arg = V.as_die(arg)
            elif kind == "s":
                if isinstance(arg, int):
                    arg = (arg,)
                elif isinstance(arg, V.Die):
                    if arg.empty:
                        return None, None
                    if arg.count == 1:
                        expansion.append((i, [((x,), w) for x, w in arg.base.items()]))
                    else:
                        expansion.append((i, arg))  # a pool: expanded later
            bound.append(arg)
        return bound, expansion

    def rolls(self, die: V.Die) -> list[tuple[tuple[int, ...], int]]:
        import math

        n, faces = die.count, len(die.base)
        count = math.comb(n + faces - 1, n)
        # (a roll's weight is the multinomial times each face's weight to its count:
        # products of wide integers when the faces' weights are wide)
        fw = max(V.words(w) for w in die.base.weights.values())
        self.charge(count * ((n + 4) * limits.TUPLE_WORK
                             + (n * V.int_mul_work(n * fw, fw) if fw > 1 else 0)),
                    f"enumerating the {count:,} sorted rolls of {n} dice")
        return V.multisets(die.base, n, self.lowest_first)

    def combos(self, expansion: list[tuple[Any, Any]], body_size: int) -> Any:
        """Every combination of the expanded values (the first parameter varies fastest)
        with the expansion entries resolved (a pool's sorted rolls enumerated)."""
        import math

        # the expansion's size is known before any pool's rolls are enumerated: past the
        # budget, refused first (1649a mutated enumerated 2.7 M rolls for 5 s, then was
        # refused for expanding over them)
        total = math.prod(math.comb(items.count + len(items.base) - 1, items.count)
                          if isinstance(items, V.Die) else len(items)
                          for _, items in expansion)
        limits.check(total * (body_size * NODE_WORK + ITERATION_WORK),
                     f"a function expanded over {total:,} outcomes")
        lists = [self.rolls(items) if isinstance(items, V.Die) else items
                 for _, items in expansion]
        self.charge(total * (body_size * NODE_WORK + ITERATION_WORK
                             + V.weight_product_work(lists)),
                    f"a function expanded over {total:,} outcomes")
        if len(lists) == 1:
            for item in lists[0]:
                yield (item,)
            return
        for combo in itertools.product(*reversed(lists)):
            yield combo[::-1]

    def signature(self, func: A.FunctionDef) -> Any:
        """(kinds, names, name -> first index, (index, name) of each name where it first
        comes: a repeated name, the first wins) of ``func``'s parameters, computed once."""
        got = self._params.get(id(func))
        if got is None:
            names = [p.name for p in func.params]
            first: dict[str, int] = {}
            for i, name in enumerate(names):
                first.setdefault(name, i)
            got = self._params[id(func)] = (
                [p.kind for p in func.params], names, first,
                [(i, name) for i, name in enumerate(names) if first[name] == i])
        return got

    def run_function(self, func: A.FunctionDef, bound: list[Any],
                     expansion: list[tuple[Any, Any]], env: dict[str, Any],
                     miss: int = 0) -> Any:
        """The function's value for these arguments: its body run once, or once per
        combination of the expanded ones (mixed); ``miss`` units (the call's own, not
        remembered) charged with the body's path."""
        _, names, first, unique = self.signature(func)
        local = dict(env)  # a copy of the caller's variables
        self.depth += 1
        try:
            if not expansion:  # one run of the body: its path charged (nested calls
                # charge their own bodies as they start)
                cost = self._costs.get(id(func))
                if cost is None:
                    cost = self._costs[id(func)] = path_cost(func.body) * NODE_WORK
                self.charge(cost + miss, "a function call")
                for i, name in unique:
                    local[name] = bound[i]
                return self.body(func.body, local)
            body = func.body
            slots: list[Any] = [names[i] if first[names[i]] == i else None
                                for i, _ in expansion]
            for k, (i, items) in enumerate(expansion):
                if isinstance(items, V.Die):
                    fixed = dict(env)
                    for j, name in enumerate(names):
                        if first[name] == j:
                            fixed[name] = bound[j]
                    varying = {names[j] for j, _ in expansion}
                    got = self.pool_plan(func, i, items, fixed, varying)
                    if got is not None:
                        body, feature_names, vectors = got
                        expansion = list(expansion)
                        expansion[k] = (i, vectors)
                        slots[k] = feature_names
                        break
            if miss:
                self.charge(miss, "a function call")
            body_size = path_cost(body)
            results = []
            append = results.append
            run_body = self.body
            expanded = {slot for slot in slots if type(slot) is str}
            resets = [(name, bound[i]) for i, name in enumerate(names)
                      if first[name] == i and name not in expanded]
            n_iter = 0
            if len(slots) == 1 and type(slots[0]) is str:  # one expanded parameter
                slot = slots[0]
                for (value, w), in self.combos(expansion, body_size):
                    for name, v in resets:
                        local[name] = v
                    local[slot] = value
                    append((run_body(body, local), w))
                    n_iter += 1
            else:
                for combo in self.combos(expansion, body_size):
                    for name, v in resets:
                        local[name] = v
                    weight = 1
                    for slot, (value, w) in zip(slots, combo, strict=True):
                        weight *= w
                        if type(slot) is str:
                            local[slot] = value
                        elif slot is not None:  # (None: a repeated name, the first wins)
                            for name, v in zip(slot, value, strict=True):
                                local[name] = v
                    append((run_body(body, local), weight))
                    n_iter += 1
            first_expanded = func.params[expansion[0][0]]  # AnyDice resets it if a :n
            fastest = first_expanded.name if first_expanded.kind == "n" else ""
            if n_iter > 1 and self.writes_params(func, fastest):
                self.warn(f"the function at line {func.line} assigns to its own parameter "
                          "and reads it before writing it, while expanded over several "
                          "outcomes: AnyDice keeps such writes from one outcome to the next "
                          "(a known defect), so its answer can differ from this exact one")
            return V.mix(results)
        finally:
            self.depth -= 1

    def pool_plan(self, func: A.FunctionDef, i: int, pool: V.Die, env: dict[str, Any],
                  varying: set[str]) -> tuple[Any, list[str], Any] | None:
        """The body rewritten to read features of the roll, the feature variables and the
        feature vectors with weights (one face walk), or None (enumerate the rolls)."""
        p = _pools.plan(func, i, self._plans)
        if (p is None or V._cert.wide(pool.base) or any(k in self.funcs for k in p.builtins)
                or _pools.operand_reads(p) & varying):
            return None
        queries: list[tuple[str, Any]] = []
        try:
            for kind, operand in p.uses:
                if kind == "fold":  # run the loop body once per face, the sums from 0
                    loop, acc = operand
                    amounts = {}
                    for face in pool.base.outcomes():
                        trial = dict(env)
                        trial.update(dict.fromkeys(A.assigned(loop.body), 0))
                        trial[loop.name] = face
                        self.block(loop.body, trial)
                        if type(trial[acc]) is not int:
                            return None
                        amounts[face] = trial[acc]
                    queries.append((kind, amounts))
                else:
                    queries.append((kind, None if operand is None else self.eval(operand, env)))
        except AnyDiceError:
            return None
        vectors = _pools.features(queries, pool.base, pool.count, self.lowest_first)
        if vectors is None:
            return None
        return p.body, p.names, vectors

    def body(self, body: tuple[Any, ...], local: dict[str, Any]) -> Any:
        for fn in self.fns(body):
            value = fn(local)
            if value is not None:
                return value
        return V.EMPTY

    def writes_params(self, func: A.FunctionDef, fastest: str) -> bool:
        """Whether the body assigns a parameter, other than the ``:n`` one that varies
        fastest (AnyDice resets that one), and may read it before its own write: then
        the value AnyDice leaks from an earlier outcome can change the answer."""
        key = (id(func), fastest)
        got = self._assigned.get(key)
        if got is None:
            params = {p.name for p in func.params}
            written = (A.assigned(func.body) & params) - {fastest}
            got = self._assigned[key] = any(
                not _pools.stateless(func.body, params - {name}, {name}) for name in written)
        return got

    def run_builtin(self, entry: Any, bound: list[Any],
                    expansion: list[tuple[Any, Any]]) -> Any:
        if not expansion:
            return entry.func(self, *bound)
        results = []
        args = list(bound)
        for combo in self.combos(expansion, 4):
            weight = 1
            for (i, _), (value, w) in zip(expansion, combo, strict=True):
                weight *= w
                args[i] = value
            results.append((entry.func(self, *args), weight))
        return V.mix(results)


def _constant_key(node: Any, keys: dict[int, Any]) -> Any:
    """The structure of a constant expression (numbers, sequences of them, operators;
    no variable, no call) as a hashable key whose first element is "dice" if it rolls a
    die (``d`` anywhere) and "num" if not; None if the expression is not constant.
    Remembered in ``keys`` by node id (the interpreter keeps its nodes alive): O(1) after
    the first look at each node."""
    if id(node) in keys:
        return keys[id(node)]
    t = type(node)
    key: Any = None
    if t is A.Num:
        key = ("num", node.value)
    elif t is A.Unary:
        inner = _constant_key(node.operand, keys)
        if inner is not None:
            key = ("dice" if node.op == "d" or inner[0] == "dice" else "num", node.op, inner)
    elif t is A.Binary:
        left, right = _constant_key(node.left, keys), _constant_key(node.right, keys)
        if left is not None and right is not None:
            dice = node.op == "d" or left[0] == "dice" or right[0] == "dice"
            key = ("dice" if dice else "num", node.op, left, right)
    elif t is A.SeqLit:
        parts = []
        for item in node.items:
            part = tuple(None if x is None else _constant_key(x, keys)
                         for x in (item.value, item.stop, item.repeat))
            if part[0] is None or any(x is None and y is not None
                                      for x, y in zip(part, (item.value, item.stop,
                                                              item.repeat), strict=True)):
                keys[id(node)] = None
                return None
            parts.append(part)
        dice = any(x is not None and x[0] == "dice" for p in parts for x in p)
        key = ("dice" if dice else "num", "{}", tuple(parts))
    keys[id(node)] = key
    return key


def _memo_part(v: Any, kept: list[Any]) -> Any:
    """A value in a memo key: numbers, short sequences and small dice by content (a die
    is rebuilt each time ``d6`` is evaluated), others by identity (O(1) to hash; the
    value is added to ``kept``, to be kept alive with the entry)."""
    t = type(v)
    if t is int or (t is tuple and len(v) < 16):
        return v
    if t is V.Die:
        base = v.base
        if base is None:
            return ("d", v.count, None)
        if len(base) <= 32:
            return ("d", v.count, tuple(base.weights.items()))
        kept.append(v)
        return ("d", v.count, id(base))
    kept.append(v)
    return ("id", id(v))


def _memo_size(v: Any) -> int:
    """Roughly the machine words a remembered value holds (its outcomes and weights)."""
    if type(v) is tuple:
        return len(v) + 1
    if type(v) is V.Die and v.base is not None:
        d = v.base
        return len(d) * (12 + d.total.bit_length() // 64)
    return 1


def _walk_reads(node: Any, out: set[str], calls: list[Any]) -> None:
    """Collect the variable names read and the function keys called under ``node``."""
    if isinstance(node, tuple):
        for n in node:
            _walk_reads(n, out, calls)
        return
    t = type(node)
    if t is A.Var:
        out.add(node.name)
    elif t is A.Binary:
        _walk_reads(node.left, out, calls)
        _walk_reads(node.right, out, calls)
    elif t is A.Unary:
        _walk_reads(node.operand, out, calls)
    elif t is A.SeqLit:
        for i in node.items:
            for part in (i.value, i.stop, i.repeat):
                if part is not None:
                    _walk_reads(part, out, calls)
    elif t is A.Call:
        calls.append(node.key)
        _walk_reads(tuple(node.args), out, calls)
    elif t is A.Assign or t is A.Result:
        _walk_reads(node.expr, out, calls)
    elif t is A.If:
        for c, b in node.branches:
            _walk_reads(c, out, calls)
            _walk_reads(b, out, calls)
        if node.orelse:
            _walk_reads(node.orelse, out, calls)
    elif t is A.Loop:
        _walk_reads(node.expr, out, calls)
        _walk_reads(node.body, out, calls)


def static_cost(stmts: tuple[Any, ...]) -> int:
    """Nodes a block evaluates, counting a nested loop over a literal range ``{a..b}`` as
    its rounds times its body (so nested loops are refused before the outer one starts);
    other loops count once (they charge their rounds when they start)."""
    total = 0
    for s in stmts:
        if isinstance(s, A.Loop):
            rounds = _literal_length(s.expr)
            total += s.expr.size + max(rounds, 1) * static_cost(s.body)
        elif isinstance(s, A.If):
            total += _if_cost(s, static_cost)
        elif isinstance(s, A.FunctionDef):
            total += 1
        else:
            total += s.size
    return total


def path_cost(stmts: tuple[Any, ...]) -> int:
    """Nodes one run of a block evaluates at most outside its loops: of an if, every
    condition and the largest branch (one runs); of a loop, its range (the loop charges
    its rounds when it starts, knowing them). What a function's body is charged per
    outcome or per call: every node of every branch counted, 402eb (an if/else ladder
    over 28,512 outcomes) was charged 3 times its work and refused. A branch that ends in
    a ``result:`` ends the run: the path through it stops there, so a ladder of
    ``if C { result: X }`` costs its conditions up to the last one and one result, not
    every result (903d: 76 nodes an outcome were charged where 30 is the longest path,
    and a program of 1.2 s was refused)."""
    total = 0
    exits = 0  # the costliest path that ended in a branch's result
    for s in stmts:
        if isinstance(s, A.Loop):
            total += s.expr.size + 1
        elif isinstance(s, A.If):
            conds = 1 + sum(c.size for c, _ in s.branches)
            stay = 0  # the costliest branch that does not surely end the run
            for b in [b for _, b in s.branches] + [s.orelse or ()]:
                c = path_cost(b)
                if b and isinstance(b[-1], A.Result):
                    exits = max(exits, total + conds + c)
                else:
                    stay = max(stay, c)
            total += conds + stay
        elif isinstance(s, A.FunctionDef):
            total += 1
        elif isinstance(s, A.Result):
            total += s.size + RESULT_NODES
        else:
            total += s.size
    return max(total, exits)


def _if_cost(s: A.If, cost: Any) -> int:
    """Every condition (all may be evaluated) and the costliest branch (one runs)."""
    branches = [cost(b) for _, b in s.branches] + [cost(s.orelse or ())]
    return 1 + sum(c.size for c, _ in s.branches) + max(branches)


def static_outputs(stmts: tuple[Any, ...]) -> int:
    """Outputs a block gives at least, a loop over a literal range ``{a..b}`` counting its
    rounds (other loops count once; they check their rounds when they start); of an if,
    the branch with the fewest."""
    total = 0
    for s in stmts:
        if isinstance(s, A.Output):
            total += 1
        elif isinstance(s, A.Loop):
            inner = static_outputs(s.body)
            if inner:
                total += _literal_length(s.expr) * inner
        elif isinstance(s, A.If):
            total += min([static_outputs(b) for _, b in s.branches]
                         + [static_outputs(s.orelse or ())])
    return total


def _literal_length(expr: Any) -> int:
    if not isinstance(expr, A.SeqLit):
        return 1
    n = 0
    for i in expr.items:
        if i.repeat is not None:
            return 1
        if i.stop is None:
            n += 1
        elif isinstance(i.value, A.Num) and isinstance(i.stop, A.Num):
            n += max(0, i.stop.value - i.value.value + 1)
        else:
            return 1
    return n


def describe(value: Any) -> str:
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, tuple):
        return "a sequence"
    return "the empty die" if value.empty else "a die"


def render(value: Any) -> str:
    """A value in an output's name (``[X]``): numbers as digits; others as AnyDice shows
    them, roughly: a die written ``dN``/``MdN`` by that name (``d4``, ``2d4``, the count
    left out when it is 1), any other die ``d{?}``/``Md{?}``, a sequence ``{?}``."""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple):
        return "{?}" if value else "{}"
    if value.empty:
        return "d{}"
    count = "" if value.count == 1 else str(value.count)
    if value.sides is not None and value.sides > 0:
        return f"{count}d{value.sides}"
    if value.sides is not None and value.sides < 0:
        return f"-{count}d{-value.sides}"
    return f"{count}d{{?}}"
