"""Independent brute-force oracles for the foundry and roll20 dialects (test-only).

Each random formula is generated as a small *spec* (plain Python data), rendered to text
for chancekit, and evaluated by an oracle that never sees chancekit's parser or evaluator:

* :func:`foundry_term` follows Foundry VTT's ``Die`` class step by step (a results list
  with ``active``/``count``/``success``/``failure`` flags; modifiers applied in the order
  written; the total sums ``count`` when set, else ``result``, over active results;
  ``ms`` subtracts at the end), with two documented decisions of chancekit's
  (docs/notation.md): ``df``/``sf`` without a compare point and no count before them take
  the 1s (Foundry's documented ``6d6df``), and explosion chains stop after ``depth``
  extra dice (chancekit's cap, patched small by the tests);
* :func:`roll20_term` follows Roll20's dice reference: modifiers in its fixed order
  (min, max, explode, reroll, keep, drop, then target numbers / failures, then the
  matching total), inclusive compare points.

Both are driven by :func:`enumerate_tapes`, which walks every sequence of die results.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any


class TooLong(Exception):
    pass


class Endless(Exception):
    """A reroll that matches every face never ends (chancekit refuses it)."""


def enumerate_tapes(fn: Callable[[Callable[[int], int]], Any], max_draws: int = 24,
                    max_paths: int = 700) -> dict[Any, Fraction]:
    """Run ``fn(choose)`` for every sequence of choices (``choose(n)`` is 0..n-1); the
    exact probability of each result. Raises TooLong past ``max_draws`` draws on a path
    or ``max_paths`` paths (the caller picks a smaller formula)."""
    out: dict[Any, Fraction] = {}
    stack: list[tuple[int, ...]] = [()]
    paths = 0
    while stack:
        paths += 1
        if paths > max_paths:
            raise TooLong
        prefix = stack.pop()
        bounds: list[int] = []
        path: list[int] = []

        def choose(n: int, prefix: tuple[int, ...] = prefix, bounds: list[int] = bounds,
                   path: list[int] = path) -> int:
            i = len(bounds)
            if i >= max_draws:
                raise TooLong
            v = prefix[i] if i < len(prefix) else 0
            bounds.append(n)
            path.append(v)
            return v

        value = fn(choose)
        for i in range(len(prefix), len(bounds)):
            for v in range(1, bounds[i]):
                stack.append((*path[:i], v))
        p = Fraction(1)
        for b in bounds:
            p /= b
        out[value] = out.get(value, 0) + p
    return out


def cmp(c: str, t: int, v: int) -> bool:
    return {"=": v == t, "<": v < t, "<=": v <= t, ">": v > t, ">=": v >= t}[c]


def hit(arg: Any, v: int) -> bool:
    """``v`` meets a compare point ``(c, t)``, or any of a list of them (Roll20's
    ``r1r3r5``: one reroll of several compare points)."""
    if isinstance(arg, list):
        return any(cmp(c, t, v) for c, t in arg)
    return cmp(*arg, v)


# ------------------------------------------------------------------------- foundry
class _Result:
    __slots__ = ("active", "count", "depth", "failure", "result", "success")

    def __init__(self, result: int, depth: int = 0) -> None:
        self.result, self.active, self.count = result, True, None
        self.success: bool | None = None
        self.failure: bool | None = None
        self.depth = depth


def foundry_term(spec: dict[str, Any], choose: Callable[[int], int], depth: int) -> Any:
    """One Foundry dice term: ``spec = {"n", "faces", "mods": [(name, arg)...]}``; a
    compare arg is ``(comparison, target)`` or None; keep/drop args are numbers."""
    faces = spec["faces"]

    def roll() -> int:
        return 1 + choose(faces)

    results = [_Result(roll()) for _ in range(spec["n"])]
    margin: tuple[str, int] | None = None
    counted = False
    for name, arg in spec["mods"]:
        if name in ("r", "rr") and arg is not None and len(arg) > 2:
            # Foundry's limited rerolls ('r1=1'): Die#reroll's loop as written
            c, t, budget = arg
            checked, initial = 0, len(results)
            while checked < len(results):
                r = results[checked]
                checked += 1
                if not r.active:
                    continue
                if budget <= 0:
                    break
                if cmp(c, t, r.result):
                    r.active = False
                    results.append(_Result(roll()))
                    budget -= 1
                if name == "r" and checked >= initial:
                    break
        elif name in ("r", "rr"):
            c, t = arg or ("=", 1)
            initial = len(results)
            for i in range(initial):
                r = results[i]
                if r.active and cmp(c, t, r.result):
                    r.active = False
                    if name == "r":
                        results.append(_Result(roll()))
                    else:  # recursive: until no match = a draw from the other faces
                        rest = [f for f in range(1, faces + 1) if not cmp(c, t, f)]
                        if not rest:
                            raise Endless
                        results.append(_Result(rest[choose(len(rest))]))
        elif name in ("x", "xo"):
            c, t = (arg or ("=", faces))[:2]
            budget = arg[2] if arg is not None and len(arg) > 2 else None  # 'x5=10'
            initial = len(results)
            for r in results:  # each explosion operator starts its own chains (the cap)
                r.depth = 0
            checked = 0
            while checked < len(results):
                r = results[checked]
                checked += 1
                if name == "xo" and checked > initial:
                    break
                if not r.active:
                    continue
                if budget is not None and budget <= 0:  # Foundry: out of explosions
                    break
                limit = 1 if name == "xo" else depth if budget is None else math.inf
                if cmp(c, t, r.result) and r.depth < limit:
                    results.append(_Result(roll(), r.depth + 1))
                    if budget is not None:
                        budget -= 1
        elif name in ("k", "kh", "kl", "d", "dh", "dl"):
            keep = name[0] == "k"
            highest = (name in ("k", "kh")) if keep else (name == "dh")
            active = sorted((r for r in results if r.active), key=lambda r: r.result)
            number = arg
            picked = (active[len(active) - number:] if number else []) if highest else (
                active[:number])
            if keep:
                for r in active:
                    if r not in picked:
                        r.active = False
            else:
                for r in picked:
                    r.active = False
        elif name in ("min", "max"):
            for r in results:
                if (r.result < arg) if name == "min" else (r.result > arg):
                    r.count = arg
        elif name in ("cs", "cf", "even", "odd"):
            for r in results:
                if name == "cs":
                    c, t = arg or ("=", faces)
                    r.success = cmp(c, t, r.result)
                    if r.success:
                        r.failure = None
                    r.count = int(r.success)
                elif name == "cf":
                    c, t = arg or ("=", 1)
                    r.failure = cmp(c, t, r.result)
                    if r.failure:
                        r.success = None
                    r.count = int(r.failure)
                else:
                    r.success = (r.result % 2 == 0) == (name == "even")
                    if r.success:
                        r.failure = None
                    r.count = int(r.success)
            counted = True
        elif name in ("df", "sf"):
            for r in results:
                if arg is not None:
                    fail = cmp(arg[0], arg[1], r.result)
                elif counted:
                    fail = r.success is False
                else:  # chancekit's decision: Foundry's documented 6d6df, the 1s
                    fail = r.result == 1
                if fail:
                    r.failure, r.success = True, None
                if r.failure:
                    r.count = -1 if name == "df" else -r.result
        elif name == "ms":
            margin = arg
        else:  # pragma: no cover
            raise AssertionError(name)
    total = sum(r.count if r.count is not None else r.result for r in results if r.active)
    if margin is not None and margin[1]:
        total = total - margin[1] if margin[0] in (">", ">=", "=") else margin[1] - total
    return total


def foundry_cmp_text(arg: tuple[str, int] | None) -> str:
    if arg is None:
        return ""
    c, t = arg
    return f"{'' if c == '=' and t % 2 else c}{t}"


def foundry_spec(rng: random.Random) -> dict[str, Any]:
    """A random small Foundry dice term (at most a few dice of at most 4 faces)."""
    faces = rng.choice((2, 3, 4))
    n = rng.choice((1, 2, 2, 3))
    mods: list[tuple[str, Any]] = []
    comps = ("=", "<", "<=", ">", ">=")

    def rcmp(allow_none: bool = True) -> tuple[str, int] | None:
        if allow_none and rng.random() < 0.25:
            return None
        return (rng.choice(comps), rng.randint(1, faces))

    body = rng.sample(("r", "rr", "x", "xo", "k", "d", "min", "max"), rng.randint(0, 2))
    for name in body:
        if name in ("k", "d"):
            name += rng.choice(("", "h", "l"))
            mods.append((name, rng.randint(1, n)))
        elif name in ("min", "max"):
            mods.append((name, rng.randint(1, faces)))
        else:
            mods.append((name, rcmp()))
    if rng.random() < 0.6:
        for name in rng.sample(("cs", "cf", "df", "sf", "even", "odd"), rng.randint(1, 2)):
            mods.append((name, None if name in ("even", "odd") else rcmp()))
        if rng.random() < 0.3:
            mods.append((rng.choice(("kh", "kl", "dh", "dl")), rng.randint(1, n)))
    if rng.random() < 0.2:
        mods.append(("ms", (rng.choice(comps), rng.randint(0, faces * n))))
    return {"n": n, "faces": faces, "mods": mods}


def foundry_text(spec: dict[str, Any]) -> str:
    parts = [f"{spec['n']}d{spec['faces']}"]
    mods = spec["mods"]
    for i, (name, arg) in enumerate(mods):
        if name == "x" and arg is None and i + 1 < len(mods) and mods[i + 1][0] == "odd":
            arg = ("=", spec["faces"])  # 'xodd' would read as 'xo' + 'dd'
        if name in ("even", "odd"):
            parts.append(name)
        elif name in ("k", "kh", "kl", "d", "dh", "dl", "min", "max"):
            parts.append(f"{name}{arg}")
        elif name == "ms":
            parts.append(f"ms{arg[0]}{arg[1]}")
        else:
            parts.append(name + foundry_cmp_text(arg))
    return "".join(parts)


def foundry_formula(rng: random.Random) -> tuple[str, Callable[..., Any], dict[str, Any]]:
    """(text, oracle(choose, depth), variables): a term, alone or in an expression."""
    a, b = foundry_spec(rng), foundry_spec(rng)
    ta, tb = foundry_text(a), foundry_text(b)
    kind = rng.choice(("term", "sum", "floor", "round", "sign", "power", "var", "paren", "max"))

    def one(choose: Callable[[int], int], depth: int) -> Any:
        return foundry_term(a, choose, depth)

    def two(choose: Callable[[int], int], depth: int) -> tuple[Any, Any]:
        x = foundry_term(a, choose, depth)
        return x, foundry_term(b, choose, depth)

    if kind == "term":  # Foundry reads its modifiers in any case: every third one in capitals
        return (ta.upper() if len(ta) % 3 == 0 else ta), one, {}
    if kind == "sum":
        return f"{ta} - {tb}", lambda c, d: (lambda x: x[0] - x[1])(two(c, d)), {}
    if kind == "floor":
        return f"floor({ta} / 2)", lambda c, d: math.floor(Fraction(one(c, d), 2)), {}
    if kind == "round":  # JavaScript's Math.round: halves toward +infinity
        return (f"round({ta} / 2)",
                lambda c, d: math.floor(Fraction(one(c, d), 2) + Fraction(1, 2)), {})
    if kind == "sign":
        return f"sign({ta} - 3)", lambda c, d: (lambda v: (v > 0) - (v < 0))(one(c, d) - 3), {}
    if kind == "power":
        return f"({ta})**2", lambda c, d: one(c, d) ** 2, {}
    if kind == "var":
        return f"{ta} + 2*@bonus", lambda c, d: (lambda x: x[0] + 2 * x[1])(two(c, d)), {
            "bonus": tb}
    if kind == "max":
        return f"max({ta}, {tb})", lambda c, d: max(two(c, d)), {}
    # a parenthesised count: (1d2-1)d3, each possible count weighted; a count below 0
    # rolls that many dice and negates their total (Foundry's DiceTerm#total)
    def counted(c: Callable[[int], int], d: int) -> Any:
        n = one(c, d) - 1
        total = sum(1 + c(3) for _ in range(abs(n)))
        return -total if n < 0 else total

    return f"({ta}-1)d3", counted, {}


# ------------------------------------------------------------------------- roll20
_R20_ORDER = {"min": 0, "max": 1, "!": 2, "!!": 2, "!p": 2, "r": 3, "ro": 3, "kh": 4,
              "kl": 4, "dh": 5, "dl": 5}


def roll20_term(spec: dict[str, Any], choose: Callable[[int], int], depth: int) -> Any:
    """One Roll20 dice term: modifiers in Roll20's fixed order; inclusive compare points;
    target numbers ``succ`` / failures ``fail`` count the kept dice; ``mt`` counts the
    values shown by at least ``size`` kept dice."""
    faces = spec["faces"]

    def roll() -> int:
        return 1 + choose(faces)

    dice = [roll() for _ in range(spec["n"])]
    for name, arg in sorted(spec["mods"], key=lambda m: _R20_ORDER[m[0]]):
        if name == "min":
            dice = [max(v, arg) for v in dice]
        elif name == "max":
            dice = [min(v, arg) for v in dice]
        elif name == "!":
            out: list[int] = []
            for v in dice:
                out.append(v)
                level = 0
                while hit(arg, v) and level < depth:
                    v = roll()
                    out.append(v)
                    level += 1
            dice = out
        elif name == "!p":
            out = []
            for v in dice:
                out.append(v)
                level = 0
                while hit(arg, v) and level < depth:
                    v = roll()
                    out.append(v - 1)
                    level += 1
            dice = out
        elif name == "!!":
            out = []
            for v in dice:
                total, level = v, 0
                while hit(arg, v) and level < depth:
                    v = roll()
                    total += v
                    level += 1
                out.append(total)
            dice = out
        elif name == "r":
            rest = [f for f in range(1, faces + 1) if not hit(arg, f)]
            if not rest:
                raise Endless
            dice = [rest[choose(len(rest))] if hit(arg, v) else v for v in dice]
        elif name == "ro":
            dice = [roll() if hit(arg, v) else v for v in dice]
        elif name in ("kh", "kl", "dh", "dl"):
            s = sorted(dice)
            k = min(arg, len(s))
            if name == "kh":
                dice = s[len(s) - k:]
            elif name == "kl":
                dice = s[:k]
            elif name == "dh":
                dice = s[:len(s) - k]
            else:
                dice = s[k:]
    if spec.get("succ"):
        total = 0
        for v in dice:
            total += hit(spec["succ"], v)
            if spec.get("fail") and hit(spec["fail"], v):
                total -= 1
        return total
    if spec.get("mt"):
        size, c = spec["mt"]
        seen: dict[int, int] = {}
        for v in dice:
            seen[v] = seen.get(v, 0) + 1
        return sum(1 for v, k in seen.items() if k >= size and (c is None or cmp(*c, v)))
    return sum(dice)


def roll20_spec(rng: random.Random) -> dict[str, Any]:
    faces = rng.choice((2, 3, 4))
    n = rng.choice((1, 2, 2, 3))
    mods: list[tuple[str, Any]] = []
    comps = ("=", "<=", ">=")
    explode = rng.choice((None, None, "!", "!!", "!p"))
    if explode:  # never every face (refused: it would never end)
        mods.append((explode, (">=", rng.randint(2, faces)) if rng.random() < 0.5 else
                     (rng.choice(("=", "<=")), rng.randint(1, faces - 1)) if rng.random() < 0.5
                     else ("=", faces)))
    if explode != "!!" and rng.random() < 0.4:
        mods.append((rng.choice(("r", "ro")), ("=", 1) if rng.random() < 0.5 else
                     (rng.choice(comps), rng.randint(1, faces))))
    if rng.random() < 0.4:
        mods.append((rng.choice(("kh", "kl", "dh", "dl")), rng.randint(1, n)))
    if rng.random() < 0.3:
        mods.append((rng.choice(("min", "max")), rng.randint(1, faces)))
    rng.shuffle(mods)
    spec: dict[str, Any] = {"n": n, "faces": faces, "mods": mods}
    pick = rng.random()
    if pick < 0.3:
        spec["succ"] = (rng.choice(comps), rng.randint(1, faces))
        if rng.random() < 0.4:
            spec["fail"] = ("<=", 1)
    elif pick < 0.5:
        spec["mt"] = (rng.choice((2, 2, 3)), rng.choice((None, (">=", 2))))
    return spec


def roll20_text(spec: dict[str, Any]) -> str:
    parts = [f"{spec['n']}d{spec['faces']}"]
    for name, arg in spec["mods"]:
        if name in ("kh", "kl", "dh", "dl", "min", "max"):
            parts.append(f"{name}{arg}")
        else:
            c, t = arg
            parts.append(f"{name}{'' if c == '=' else c}{t}")
    if spec.get("succ"):
        c, t = spec["succ"]
        parts.append(f"{c}{t}")
        if spec.get("fail"):
            parts.append("f1")
    if spec.get("mt"):
        size, c = spec["mt"]
        parts.append(f"mt{size if size != 2 else ''}{'' if c is None else c[0] + str(c[1])}")
    if not spec.get("succ") and not spec.get("mt") and len(spec["mods"]) % 2:
        parts.append("s")  # sorting: no change to the total
    return "".join(parts)


def roll20_formula(rng: random.Random) -> tuple[str, Callable[..., Any], dict[str, Any]]:
    a, b = roll20_spec(rng), roll20_spec(rng)
    ta, tb = roll20_text(a), roll20_text(b)
    kind = rng.choice(("term", "inline", "group", "query", "attr", "floor", "count"))

    def one(choose: Callable[[int], int], depth: int) -> Any:
        return roll20_term(a, choose, depth)

    def two(choose: Callable[[int], int], depth: int) -> tuple[Any, Any]:
        x = roll20_term(a, choose, depth)
        return x, roll20_term(b, choose, depth)

    if kind == "term":
        return ta, one, {}
    if kind == "inline":
        return f"[[{ta}]] + 1", lambda c, d: one(c, d) + 1, {}
    if kind == "group":
        return f"{{{ta}, {tb}}}kh1", lambda c, d: max(two(c, d)), {}
    if kind == "query":
        return f"{ta} + ?{{Bonus|{tb}}}", lambda c, d: sum(two(c, d)), {}
    if kind == "attr":
        return f"{ta} - @{{str_mod}}", lambda c, d: (lambda x: x[0] - x[1])(two(c, d)), {
            "str_mod": tb}
    if kind == "floor":
        return f"floor({ta} / 2)", lambda c, d: math.floor(Fraction(one(c, d), 2)), {}
    a.pop("fail", None)  # a count that can be negative is refused
    return (f"[[{roll20_text(a)}]]d2",
            lambda c, d: sum(1 + c(2) for _ in range(one(c, d))), {})
