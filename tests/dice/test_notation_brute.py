"""dist() against brute force: every roll of a small expression enumerated.

Two independent routes to the same exact distribution:

* ``brute`` -- a separate, deliberately naive evaluator over the syntax tree, written in
  the style of Avrae's d20 (lists of dice, selections recomputed, "reroll until no match"
  taken as a uniform draw from the faces that do not match), driven by an enumerator
  that walks every sequence of die results (its "tape");
* ``roll()`` itself, fed the same enumerator as its bit source -- so the roller and
  ``dist`` are checked to mean the same thing, operator by operator.

Explosion chains are capped at ``EXPLODE_DEPTH`` extra dice; here it is patched down to
2 so that the tapes stay short (one test keeps the real cap).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import chancekit.dice._compile as ast_eval
import chancekit.dice._roll as roll_mod
from chancekit.dice import _ast
from chancekit.dice._parse import parse
from chancekit.dice.notation import dist, weights
from chancekit.errors import ChancekitError

SMALL_DEPTH = 2


# ---------------------------------------------------------------- tape enumeration
class _TooLong(Exception):
    pass


def enumerate_tapes(fn: Any, max_draws: int = 40) -> tuple[dict[Any, Fraction], Fraction]:
    """Run ``fn(choose)`` for every sequence of choices; ``choose(n)`` returns 0..n-1.
    Returns (probability of each result, probability of paths cut at ``max_draws``)."""
    out: dict[Any, Fraction] = {}
    missing = Fraction(0)
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        bounds: list[int] = []
        path: list[int] = []

        def choose(n: int, prefix: tuple[int, ...] = prefix, bounds: list[int] = bounds,
                   path: list[int] = path) -> int:
            i = len(bounds)
            if i >= max_draws:
                raise _TooLong
            v = prefix[i] if i < len(prefix) else 0
            bounds.append(n)
            path.append(v)
            return v

        try:
            value = fn(choose)
            cut = False
        except _TooLong:
            cut = True
        for i in range(len(prefix), len(bounds)):
            for v in range(1, bounds[i]):
                stack.append((*path[:i], v))
        p = Fraction(1)
        for b in bounds:
            p /= b
        if cut:
            missing += p
        else:
            out[value] = out.get(value, 0) + p
    return out, missing


# ---------------------------------------------------------------- the naive evaluator
def _match(sel: Any, v: Any) -> bool:
    return {None: v == sel.num, "<": v < sel.num, ">": v > sel.num, "<=": v <= sel.num,
            ">=": v >= sel.num}[sel.cat]


def _select(op: Any, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    chosen: list[dict[str, Any]] = []
    ranked = [d for _, _, d in sorted((d["v"], i, d) for i, d in enumerate(items))]
    for s in op.sels:
        if s.cat == "h":
            part = ranked[::-1][:s.num]
        elif s.cat == "l":
            part = ranked[:s.num]
        else:
            part = [d for d in items if _match(s, d["v"])]
        for d in part:
            if not any(d is x for x in chosen):
                chosen.append(d)
    return chosen


def brute(node: Any, choose: Any, depth: int) -> Any:
    if isinstance(node, _ast.Num):
        return node.value
    if isinstance(node, _ast.Unary):
        v = brute(node.operand, choose, depth)
        return -v if node.op == "-" else v
    if isinstance(node, _ast.Binary):
        a = brute(node.left, choose, depth)
        b = brute(node.right, choose, depth)
        r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
             "/": lambda: Fraction(a, 1) / b, "//": lambda: a // b, "%": lambda: a % b,
             "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
             ">": lambda: int(a > b), "<=": lambda: int(a <= b),
             ">=": lambda: int(a >= b)}[node.op]()
        return r
    if isinstance(node, _ast.Group):
        vals = [{"v": brute(it, choose, depth), "kept": True} for it in node.items]
        if not node.is_set:
            return vals[0]["v"]
        for op in node.ops:
            kept = [d for d in vals if d["kept"]]
            chosen = _select(op, kept)
            for d in kept:
                inside = any(d is x for x in chosen)
                if (op.kind == "k" and not inside) or (op.kind == "p" and inside):
                    d["kept"] = False
        return sum((d["v"] for d in vals if d["kept"]), 0)
    assert isinstance(node, _ast.Dice)
    faces = node.faces

    def new(fs: tuple[int, ...] = faces) -> dict[str, Any]:
        return {"v": fs[choose(len(fs))], "kept": True, "depth": 0}

    dice = [new() for _ in range(node.count)]
    for op in node.ops:
        kept = [d for d in dice if d["kept"]]
        if op.kind in ("k", "p"):
            chosen = _select(op, kept)
            for d in kept:
                inside = any(d is x for x in chosen)
                if (op.kind == "k" and not inside) or (op.kind == "p" and inside):
                    d["kept"] = False
        elif op.kind == "rr":  # until no match == one draw among the faces that do not match
            ok = tuple(f for f in faces if not op.matches(f))
            for d in _select(op, kept):
                d["v"] = new(ok)["v"]
        elif op.kind == "ro":
            for d in _select(op, kept):
                d["v"] = new()["v"]
        elif op.kind == "mi":
            for d in kept:
                d["v"] = max(d["v"], op.sels[-1].num)
        elif op.kind == "ma":
            for d in kept:
                d["v"] = min(d["v"], op.sels[-1].num)
        elif op.kind == "ra":
            chosen = _select(op, kept)
            if chosen:
                dice.append(new())
        else:  # "e"
            for d in kept:
                d["depth"] = 0
            done: list[dict[str, Any]] = []
            todo = _select(op, kept)
            while todo:
                for d in todo:
                    done.append(d)
                    if d["depth"] < depth:
                        child = new()
                        child["depth"] = d["depth"] + 1
                        dice.append(child)
                todo = [d for d in _select(op, [x for x in dice if x["kept"]])
                        if not any(d is x for x in done)]
    return sum(d["v"] for d in dice if d["kept"])


def _normalise(pmf: dict[Any, Fraction]) -> dict[Any, Fraction]:
    return {(int(k) if isinstance(k, Fraction) and k.denominator == 1 else k): v
            for k, v in pmf.items() if v}


def _pmf_of(notation: str) -> dict[Any, Fraction]:
    w = weights(notation)
    t = sum(w.values())
    return {k: Fraction(v, t) for k, v in w.items()}


@pytest.fixture
def small_depth(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(ast_eval, "EXPLODE_DEPTH", SMALL_DEPTH)
    monkeypatch.setattr(roll_mod, "EXPLODE_DEPTH", SMALL_DEPTH)
    return SMALL_DEPTH


GRID = [
    # dice
    "3d6", "d%", "2d%kh1", "4dF", "3d{1,1,2,3}", "2d{-1,0,5}", "d4", "0d6", "1d1",
    # keep / drop
    "4d6kh3", "4d6kl1", "4d6k>4", "4d6k<3", "4d6k3", "4d6dh1", "4d6dl1", "4d6p1",
    "4d6ph2", "4d6pl1", "4d6k>=4", "4d6p<=2", "3d6kh1kl1", "4d6kh3kh2", "3d6kh5",
    "3d6kl0", "3d6p>1", "4d6pl1ph1", "3d6kh2p1",
    # explode
    "3d6e6", "2d6!", "2d6e>4", "3d4!kh2", "2d6e6kl1", "2d4e4e3", "1d4!!=4", "2d4e4p4",
    "2d3e3mi2", "2d4k>2e4",
    # reroll
    "4d6rr1", "3d6rr<3", "3d6r1", "4d6ro1", "3d6ro<3", "2d6rr1kh1", "3d6ro1kh2",
    "2d6rr1rr2", "3d4rr>3ro1", "2d4ro<3e4",
    # reroll and add, min, max
    "2d20ra20", "3d6ra6", "2d4ra>2kh1", "4d6mi3", "4d6ma4", "3d6mi2ma5", "4d6kh3mi3",
    "4d6mi2kh3", "3d6ma3kh2", "2d6mi-1", "4dFmi0",
    # arithmetic
    "1d6+1d4", "1d6-2", "2d6*2", "1d6*1d4", "1d6/2", "1d8/1d4", "1d6//2", "1d20%7",
    "-1d6", "+1d4", "2*(1d4+1)", "1.5*1d4", "1d6-1d6", "--1d4", "1d4*-1", "7//1d3",
    "-7//1d3", "1d10%1d3", "3-2-1d2", "2*3+1d4*2", ".5+1d2",
    # comparisons
    "1d20+5>=15", "1d6==1d6", "2d6!=7", "1d6<1d6", "1d6>3", "1d6<=2", "1d4<1d4<1",
    # sets
    "(1d4+1, 3, 2d6kl1)kh1", "(1d6, 1d6)kl1", "(1d4, 1d6, 1d8)kh2", "(1d6, 2, 3)p>2",
    "(1d6,)", "()", "(1d6)kh1", "(1d6, 1d6)kh1kl1", "(1d4,1d4,1d4)dl1",
    "(1d6e6, 1d4e4)kh1", "(1d4, 2)k2", "(1d4, 1d4, 1d4)k<3", "(1d6, 1d4)kh1 + 1",
    "((1d4, 1d4)kh1, 1d6)kl1", "(1d3, 1d3, 1d3)kh2kl1", "(1d6/2, 1d4)kh1",
    # annotations and spacing
    "1d6 [fire] + 2 [cold]", " 2d4 + ( 1d4 , 2 )kh1 ", "1d4[a][b]*2",
]


@pytest.mark.parametrize("notation", GRID)
def test_dist_equals_brute_force(notation: str, small_depth: int) -> None:
    tree = parse(notation)
    expected, missing = enumerate_tapes(lambda ch: brute(tree, ch, small_depth))
    assert missing == 0
    assert _pmf_of(notation) == _normalise(expected)


# "reroll until no match" has unboundedly long tapes: covered by the brute-force evaluator
# above and by the goodness-of-fit tests of roll() (tests/dice/test_roll.py)
ROLL_GRID = [n for n in GRID if "rr" not in n and "r1" not in n]


@pytest.mark.parametrize("notation", ROLL_GRID)
def test_roll_enumerated_equals_dist(notation: str, small_depth: int) -> None:
    """roll() driven through every tape gives exactly dist()."""
    tree = parse(notation)

    class Tape:
        def __init__(self, choose: Any) -> None:
            self.choose = choose

        def randbelow(self, n: int) -> int:
            return self.choose(n)

        def next_u32(self) -> int:  # pragma: no cover - never called by roll
            raise AssertionError

    got, missing = enumerate_tapes(lambda ch: roll_mod.roll_tree(tree, Tape(ch), notation)[0])
    want = _pmf_of(notation)
    assert missing == 0
    assert _normalise(got) == want


def test_full_explosion_depth_matches_brute() -> None:
    notation = "1d6e6"
    tree = parse(notation)
    expected, missing = enumerate_tapes(
        lambda ch: brute(tree, ch, _ast.EXPLODE_DEPTH), max_draws=100)
    assert missing == 0
    assert _pmf_of(notation) == _normalise(expected)


def test_known_numbers() -> None:
    # published / hand-checked values
    assert dist("4d6kh3").probability(18) == Fraction(21, 1296)
    assert dist("4d6kh3").mean() == Fraction(15869, 1296)
    assert dist("3d6").probability(10) == Fraction(27, 216)
    assert dist("2d20kh1").probability(20) == Fraction(39, 400)
    assert dist("1d20+5 >= 15").probability(1) == Fraction(11, 20)
    assert dist("4dF").probability(0) == Fraction(19, 81)
    assert dist("d%").probability(100) == Fraction(1, 100)
    # rerolling 1s until none: uniform over 2..6
    assert dist("1d6rr1") == dist("1d{2,3,4,5,6}")
    # keep the dice showing 3 (Avrae), not the 3 highest (Roll20)
    assert dist("2d6k3").probability(6) == Fraction(1, 36)


def test_slash_is_exact_division() -> None:
    d = dist("1d4/2")
    assert d.outcomes() == (Fraction(1, 2), 1, Fraction(3, 2), 2)
    assert dist("1d4//2").outcomes() == (0, 1, 2)


# ---------------------------------------------------------------- random small expressions
_die = st.one_of(
    st.builds(lambda n, s: f"{n}d{s}", st.integers(0, 3), st.integers(1, 4)),
    st.builds(lambda n: f"{n}dF", st.integers(1, 2)),
    st.builds(lambda n, fs: f"{n}d{{{','.join(map(str, fs))}}}", st.integers(1, 2),
              st.lists(st.integers(-2, 3), min_size=1, max_size=3)),
)
_sel = st.one_of(
    st.builds(lambda c, n: f"{c}{n}", st.sampled_from(["", "<", ">", "<=", ">="]),
              st.integers(-1, 4)),
)
_hl = st.builds(lambda c, n: f"{c}{n}", st.sampled_from(["h", "l"]), st.integers(0, 3))
_dice_op = st.one_of(
    st.builds(lambda k, s: k + s, st.sampled_from(["k", "p"]), st.one_of(_sel, _hl)),
    st.builds(lambda k, s: k + s, st.sampled_from(["rr", "ro", "ra", "e"]), _sel),
    st.builds(lambda k, n: f"{k}{n}", st.sampled_from(["mi", "ma"]), st.integers(-1, 4)),
    st.sampled_from(["!", "dl1", "dh1"]),
)
_dice = st.builds(lambda d, ops: d + "".join(ops), _die, st.lists(_dice_op, max_size=2))


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, o, b: f"{a}{o}{b}", children,
                  st.sampled_from(["+", "-", "*", "<", ">=", "==", "!="]), children),
        st.builds(lambda a, o, b: f"{a}{o}{b}", children, st.sampled_from(["/", "//", "%"]),
                  st.integers(1, 3).map(str)),
        st.builds(lambda a: f"-({a})", children),
        st.builds(lambda xs, op: f"({', '.join(xs)}){op}",
                  st.lists(children, min_size=1, max_size=3),
                  st.one_of(st.just(""), st.builds(lambda k, s: k + s,
                                                   st.sampled_from(["k", "p"]),
                                                   st.one_of(_sel, _hl)))),
    )


_expr = st.recursive(st.one_of(_dice, st.integers(-3, 5).map(str)), _combine, max_leaves=3)


@given(_expr)
def test_random_small_expressions_match_brute_force(notation: str) -> None:
    ast_eval_depth, roll_depth = ast_eval.EXPLODE_DEPTH, roll_mod.EXPLODE_DEPTH
    ast_eval.EXPLODE_DEPTH = roll_mod.EXPLODE_DEPTH = SMALL_DEPTH
    try:
        try:
            want = _pmf_of(notation)
        except ChancekitError:
            assume(False)
            return
        tree = parse(notation)
        expected, missing = enumerate_tapes(lambda ch: brute(tree, ch, SMALL_DEPTH),
                                            max_draws=30)
        assume(missing == 0)
        assert want == _normalise(expected), notation
    finally:
        ast_eval.EXPLODE_DEPTH, roll_mod.EXPLODE_DEPTH = ast_eval_depth, roll_depth
