"""AnyDice programs from a generator of this file's own (not tools/fuzz_anydice.py's), run
through :func:`chancekit.anydice.run`.

``gen_checked`` / ``gen_checked2`` build small programs (arithmetic, comparisons, division
toward zero, absolute, highest/lowest/position/count over pools, variables, :n/:d/:s
functions, if/else, loops, explode with its depth, sequences in sums, highest of A and B)
with the answer of an independent brute-force evaluator (dicts of Fractions, every roll of
a pool enumerated): the outputs must be exactly those. ``gen_hostile`` builds anything the
grammar allows, with hostile sizes (up to 10**44), deep nesting, recursion, settings, odd
Unicode (NUL, bidi marks, combining marks, lone surrogates) and character mutations: the
only exceptions allowed out are ChancekitErrors. Found by it (2026-11-25): explode of a
face of 2**63 (fixed in dice/modifiers.py), a range of 2**63 numbers (an OverflowError,
fixed in anydice/_interp.py).
"""

from __future__ import annotations

# the oracles' lambdas are called at once, inside the loop that binds their variables
# ruff: noqa: B023
import itertools
import random
from fractions import Fraction

# ------------------------------------------------------------------ brute-force oracle


def _const(n):
    return {n: Fraction(1)}


def _uniform(values):
    out = {}
    for v in values:
        out[v] = out.get(v, 0) + Fraction(1, len(values))
    return out


def _combine(a, b, f):
    out = {}
    for x, p in a.items():
        for y, q in b.items():
            z = f(x, y)
            out[z] = out.get(z, 0) + p * q
    return out


def _map(a, f):
    out = {}
    for x, p in a.items():
        z = f(x)
        out[z] = out.get(z, 0) + p
    return out


def _tdiv(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _pool(n, faces, f):
    """distribution of f(sorted descending tuple) over n dice of the given faces."""
    out = {}
    p = Fraction(1, len(faces) ** n)
    for roll in itertools.product(faces, repeat=n):
        z = f(tuple(sorted(roll, reverse=True)))
        out[z] = out.get(z, 0) + p
    return out


OPS = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    ">": lambda x, y: int(x > y),
    "<": lambda x, y: int(x < y),
    ">=": lambda x, y: int(x >= y),
    "<=": lambda x, y: int(x <= y),
    "=": lambda x, y: int(x == y),
    "!=": lambda x, y: int(x != y),
}


def _die_text(rng):
    """(text, faces) of a small die."""
    kind = rng.randrange(3)
    if kind == 0:
        n = rng.randint(1, 8)
        return f"d{n}", list(range(1, n + 1))
    if kind == 1:
        vals = [rng.randint(-3, 6) for _ in range(rng.randint(1, 4))]
        return "d{" + ",".join(map(str, vals)) + "}", vals
    a = rng.randint(-2, 3)
    b = a + rng.randint(0, 4)
    return f"d{{{a}..{b}}}", list(range(a, b + 1))


def gen_expr(rng, depth=0):
    """(text, oracle distribution) of a small expression, fully parenthesised."""
    r = rng.random()
    if depth >= 3 or r < 0.25:
        c = rng.randrange(6)
        if c == 0:
            n = rng.randint(-5, 12)
            return (str(n) if n >= 0 else f"({n})"), _const(n)
        if c in (1, 2):
            t, faces = _die_text(rng)
            return t, _uniform(faces)
        if c == 3:
            n, m = rng.randint(1, 3), rng.randint(1, 6)
            d = _const(0)
            for _ in range(n):
                d = _combine(d, _uniform(range(1, m + 1)), OPS["+"])
            return f"{n}d{m}", d
        n = rng.randint(1, 4)
        t, faces = _die_text(rng)
        if len(faces) ** n > 2000:
            n = 1
        k = rng.randint(1, n)
        which = rng.randrange(4)
        if which == 0:
            return f"[highest {k} of {n}{t}]", _pool(n, faces, lambda s: sum(s[:k]))
        if which == 1:
            return f"[lowest {k} of {n}{t}]", _pool(n, faces, lambda s: sum(s[-k:]))
        if which == 2:
            return f"({k}@{n}{t})", _pool(n, faces, lambda s: s[k - 1])
        vals = sorted({rng.randint(-1, 5) for _ in range(rng.randint(1, 3))})
        return (f"[count {{{','.join(map(str, vals))}}} in {n}{t}]",
                _pool(n, faces, lambda s: sum(1 for x in s if x in vals)))
    if r < 0.35:
        t, d = gen_expr(rng, depth + 1)
        return f"-({t})", _map(d, lambda x: -x)
    if r < 0.42:
        t, d = gen_expr(rng, depth + 1)
        return f"[absolute ({t})]", _map(d, abs)
    if r < 0.5:
        t, d = gen_expr(rng, depth + 1)
        k = rng.choice([1, 2, 3, -2, 5])
        return f"(({t}) / {k})" if k > 0 else f"(({t}) / ({k}))", _map(d, lambda x: _tdiv(x, k))
    op = rng.choice(list(OPS))
    ta, da = gen_expr(rng, depth + 1)
    tb, db = gen_expr(rng, depth + 1)
    if len(da) * len(db) > 5000:
        return ta, da
    return f"({ta} {op} {tb})", _combine(da, db, OPS[op])


def gen_checked(rng):
    lines, oracles = [], []
    names = []
    for _ in range(rng.randint(1, 3)):
        t, d = gen_expr(rng)
        if names and rng.random() < 0.3:
            # through a variable (a die held in a variable is the same die)
            pass
        if rng.random() < 0.3:
            v = rng.choice("XYZW")
            lines.append(f"{v}: {t}")
            t = v
        if rng.random() < 0.3:
            # through a :n function (expands each outcome) and a :d function (passes the die)
            fn = rng.choice(["n", "d"])
            lines.append(f"function: ident{fn} A:{fn} {{ result: A }}")
            t = f"[ident{fn} {t}]"
        lines.append(f"output {t}")
        oracles.append(d)
    return "\n".join(lines) + "\n", oracles


# ------------------------------------------------------------------ hostile programs

HUGE = ["0", "-1", "1000000", "2147483647", "2147483648", "4294967296", "9223372036854775808",
        "1" + "0" * 40, "99999999999999999999999999999999999999999999", "-" + "9" * 30]
ODD = ["\x00", "\u202e", "\u200f", "e\u0301", "\ud800", "\ufeff", "\u2028", "\U0001f3b2",
       "\t", "\r", "\\", '"', "ｄ", "٣", "①", "\x1b[31m"]
SIZES = ["1", "2", "6", "20", "100", "1000", "10000", "100000", "0", "-3"]


def _num(rng):
    return rng.choice(SIZES + HUGE) if rng.random() < 0.3 else str(rng.randint(0, 12))


def hostile_expr(rng, depth=0, vars_=("X",), fns=()):
    r = rng.random()
    if depth > 4 or r < 0.2:
        c = rng.randrange(7)
        if c == 0:
            return _num(rng)
        if c == 1:
            return f"{_num(rng)}d{_num(rng)}"
        if c == 2:
            return f"d{{{_num(rng)}..{_num(rng)}}}"
        if c == 3:
            return "{" + ",".join(_num(rng) for _ in range(rng.randint(0, 4))) + "}"
        if c == 4:
            return rng.choice(vars_)
        if c == 5:
            return f"{{{_num(rng)}:{_num(rng)}, {_num(rng)}}}"
        return "d{}"
    if r < 0.55:
        op = rng.choice(["+", "-", "*", "/", "^", "d", "@", ">", "<", "=", "!=", ">=", "<=",
                         "&", "|", ".."])
        return f"({hostile_expr(rng, depth + 1, vars_, fns)} {op} " \
               f"{hostile_expr(rng, depth + 1, vars_, fns)})"
    if r < 0.62:
        return rng.choice(["-", "!", "#"]) + hostile_expr(rng, depth + 1, vars_, fns)
    if r < 0.85:
        lib = ["highest {} of {}", "lowest {} of {}", "middle {} of {}", "explode {}",
               "absolute {}", "count {} in {}", "sort {}", "reverse {}", "maximum of {}",
               "highest of {} and {}", "lowest of {} and {}", "{} contains {}"]
        f = rng.choice(lib)
        args = [hostile_expr(rng, depth + 1, vars_, fns) for _ in range(f.count("{}"))]
        return "[" + f.format(*args) + "]"
    if fns:
        name, arity = rng.choice(fns)
        args = " ".join(hostile_expr(rng, depth + 1, vars_, fns) for _ in range(arity))
        return f"[{name} {args}]" if arity else f"[{name}]"
    return hostile_expr(rng, depth + 1, vars_, fns)


def hostile_block(rng, depth, vars_, fns, in_fn):
    out = []
    for _ in range(rng.randint(1, 3)):
        c = rng.randrange(9)
        e = hostile_expr(rng, depth, vars_, fns)
        if c == 0 and depth < 3:
            body = hostile_block(rng, depth + 1, vars_, fns, in_fn)
            out.append(f"if {e} {{ {body} }}" + (
                f" else {{ {hostile_block(rng, depth + 1, vars_, fns, in_fn)} }}"
                if rng.random() < 0.5 else ""))
        elif c == 1 and depth < 3:
            v = rng.choice("IJK")
            body = hostile_block(rng, depth + 1, (*vars_, v), fns, in_fn)
            out.append(f"loop {v} over {e} {{ {body} }}")
        elif c == 2 and in_fn:
            out.append(f"result: {e}")
        elif c == 3:
            out.append(f"{rng.choice(vars_)}: {e}")
        elif c == 4:
            out.append(rng.choice([f'set "explode depth" to {_num(rng)}',
                                   f'set "maximum function depth" to {_num(rng)}',
                                   f'set "position order" to "{rng.choice(["lowest first", "highest first", "x"])}"',  # noqa: E501
                                   'set "bogus" to 3']))
        elif not in_fn:
            name = "" if rng.random() < 0.5 else f' named "{rng.choice(ODD)}[X] {rng.choice(ODD)}"'
            out.append(f"output {e}{name}")
        else:
            out.append(f"result: {e}")
    return "\n".join(out)


def gen_hostile(rng):
    fns = []
    lines = ["X: " + hostile_expr(rng, 2)]
    for i in range(rng.randint(0, 2)):
        arity = rng.randint(0, 3)
        params = [f"P{j}:{rng.choice(['n', 'd', 's', ''])}".rstrip(":") for j in range(arity)]
        name = "fn" + "abc"[i]
        fns.append((name, arity))
        # recursion allowed: the function may call itself
        body = hostile_block(rng, 1, ("X", *(p.split(":")[0] for p in params)),
                             tuple(fns), True)
        lines.append(f"function: {name} {' '.join(params)} {{\n{body}\n}}")
    lines.append(hostile_block(rng, 0, ("X",), tuple(fns), False))
    lines.append(f"output {hostile_expr(rng, 1, ('X',), tuple(fns))}")
    text = "\n".join(lines)
    if rng.random() < 0.3:  # mutate
        chars = list(text)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars) + 1)
            m = rng.randrange(3)
            if m == 0 and chars:
                del chars[min(i, len(chars) - 1)]
            elif m == 1:
                chars.insert(i, rng.choice(ODD + list("{}[]()\":@#d.\n ")))
            elif chars:
                chars[min(i, len(chars) - 1)] = rng.choice(ODD + list("0123456789"))
        text = "".join(chars)
    return text


# ------------------------------------------------------------------ more checked shapes

def gen_checked2(rng):
    """Programs through :s functions over pools, :n functions with if/else, loops,
    explode, sequences in arithmetic and 'highest of A and B'."""
    lines, oracles = [], []
    for idx in range(rng.randint(1, 3)):
        n = rng.randint(1, 4)
        dt, faces = _die_text(rng)
        if len(faces) ** n > 3000:
            n = 2
        pool = f"{n}{dt}"
        c = rng.randrange(9)
        fn = f"f{'abcdefgh'[idx]}{'abcdefghi'[c]}"
        if c == 0:
            t = rng.randint(-1, 6)
            op = rng.choice([">=", "<", "=", "!="])
            lines.append(f"function: {fn} S:s {{ R: 0 loop I over S {{ if I {op} {t} {{ R: R + 1 }} }} result: R }}")  # noqa: E501
            f = OPS[op]
            o = _pool(n, faces, lambda s: sum(1 for v in s if f(v, t)))
            expr = f"[{fn} {pool}]"
        elif c == 1:
            k = rng.randint(1, n)
            pos = ",".join(str(i) for i in range(1, k + 1))
            lines.append(f"function: {fn} S:s {{ result: {{{pos}}}@S }}")
            o = _pool(n, faces, lambda s: sum(s[:k]))
            expr = f"[{fn} {pool}]"
        elif c == 2 and n >= 2:
            lines.append(f"function: {fn} S:s {{ if 1@S = 2@S {{ result: 1@S * 10 }} result: 1@S - 2@S }}")  # noqa: E501
            o = _pool(n, faces, lambda s: s[0] * 10 if s[0] == s[1] else s[0] - s[1])
            expr = f"[{fn} {pool}]"
        elif c == 3:
            t = rng.randint(0, 6)
            m = rng.randint(-2, 3)
            lines.append(f"function: {fn} N:n {{ if N > {t} {{ result: N * {m} }} else {{ result: N - 1 }} }}")  # noqa: E501
            o = _map(_uniform(faces), lambda v: v * m if v > t else v - 1)
            expr = f"[{fn} {dt}]"
        elif c == 4:
            k = rng.randint(1, 3)
            var = "Q" + "ABCDEFGH"[idx]
            lines.append(f"{var}: 0")
            lines.append(f"loop I over {{1..{k}}} {{ {var}: {var} + {dt} }}")
            o = _const(0)
            for _ in range(k):
                o = _combine(o, _uniform(faces), OPS["+"])
            expr = var
        elif c == 5:
            m = rng.randint(2, 6)
            depth = rng.randint(1, 3)
            lines.append(f'set "explode depth" to {depth}')
            o = _explode({v: 1 for v in range(1, m + 1)}, m, depth)
            expr = f"[explode d{m}]"
        elif c == 6:
            seq = [rng.randint(-3, 5) for _ in range(rng.randint(1, 3))]
            o = _map(_uniform(faces), lambda v: v + sum(seq))
            expr = f"({dt} + {{{','.join(map(str, seq))}}})"
        elif c == 7:
            dt2, faces2 = _die_text(rng)
            which = rng.choice(["highest", "lowest"])
            pick = max if which == "highest" else min
            o = _combine(_uniform(faces), _uniform(faces2), pick)
            expr = f"[{which} of ({dt}) and ({dt2})]"
        else:
            lines.append(f"function: {fn} A:n B:n {{ if A > B {{ result: A }} result: B + 100 }}")
            dt2, faces2 = _die_text(rng)
            o = _combine(_uniform(faces), _uniform(faces2), lambda a, b: a if a > b else b + 100)
            expr = f"[{fn} ({dt}) ({dt2})]"
        lines.append(f"output {expr}")
        oracles.append(o)
    return "\n".join(lines) + "\n", oracles


def _explode(faces, top, depth):
    total = sum(faces.values())
    out = {}
    for j in range(depth + 1):
        p = Fraction(faces[top], total) ** j
        for last, w in faces.items():
            if j < depth and last == top:
                continue
            key = j * top + last
            out[key] = out.get(key, 0) + p * Fraction(w, total)
    return out


# ------------------------------------------------------------------ the tests

import pytest  # noqa: E402

from chancekit.anydice import run  # noqa: E402
from chancekit.errors import ChancekitError  # noqa: E402

PROGRAMS = 40  # a seed


def _answers(outs):
    got = []
    for _label, d in outs:
        if len(d) == 0:
            got.append({})
        else:
            got.append({k: Fraction(w, d.total) for k, w in d.weights.items()})
    return got


@pytest.mark.fuzz
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("gen", ["gen_checked", "gen_checked2"])
@pytest.mark.parametrize("seed", range(3))
def test_programs_match_brute_force(gen, seed):
    rng = random.Random(f"{gen}-{seed}")
    for _ in range(PROGRAMS):
        program, oracles = globals()[gen](rng)
        want = [{k: v for k, v in o.items() if v} for o in oracles]
        assert _answers(run(program)) == want, program


@pytest.mark.fuzz
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("seed", range(3))
def test_hostile_programs_answer_or_refuse(seed):
    rng = random.Random(f"hostile-{seed}")
    for _ in range(PROGRAMS):
        program = gen_hostile(rng)
        try:
            run(program)
        except ChancekitError:
            pass
