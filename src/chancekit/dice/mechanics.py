"""Named pool mechanics and the pool algebra as text: what ``chancekit pool`` and the Pools
page offer, on the public algebra of :mod:`chancekit.dice.multiset` (one line each).

- :func:`preset`: ``cancel`` (successes cancelled by blocks: any block, a block at least
  as high, or an equal die), ``risk`` (sorted pairs; ties to the defender or the
  attacker), ``face-to-face`` (each side's successes must beat the other's best die),
  ``sets`` (the largest matching set, wild faces joining it), ``straights`` (every
  straight), ``poker`` (the poker hand of the dice);
- :func:`evaluate_text`: an expression of the algebra written as Python
  (``"a.sort_pair('>', b).count()"``, ``"(a - b).count(), a.largest_count()"``) over named
  pools, read with a whitelist (names, numbers, strings, lists, the algebra's methods and
  operators; nothing else runs).

>>> from chancekit.dice import Pool, d
>>> preset("risk", [Pool(d(6), 3), Pool(d(6), 2)]).probability((0, 2))
Fraction(1445, 3888)
>>> evaluate_text("(a - b).count()", {"a": Pool(d(6), 2), "b": Pool(d(6), 1)}).mean()
Fraction(61, 36)
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution
from chancekit.dice.multiset import (
    _LAZY,
    Evaluation,
    MultisetExpression,
    _run,
    multiset_function,
)
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.limits import MAX_POOL_TEXT, MAX_POOL_TEXT_NODES

__all__ = ["POKER_HANDS", "PRESETS", "evaluate_text", "preset"]

#: the named mechanics: name -> (pools taken, what it computes)
PRESETS: dict[str, tuple[int, str]] = {
    "cancel": (2, "successes (>= success) of the first pool left after the second's blocks "
               "(>= success) cancel them: match 'any' (each block cancels one success), "
               "'beat' (a block cancels a success it is at least as high as) or 'equal' (a "
               "block cancels an equal success)"),
    "risk": (2, "(attacker losses, defender losses): both sorted high to low and paired, "
             "the higher die wins, ties to the defender (ties='attacker': to the attacker)"),
    "face-to-face": (2, "(first's successes, second's successes): a die succeeds if it "
                     "beats every die of the other side (Infinity's face to face)"),
    "sets": (1, "the size of the largest matching set, wild faces joining it"),
    "straights": (1, "the lengths of all straights, longest first"),
    "poker": (1, "the poker hand of the dice (five of a kind ... high card)"),
}

#: poker hands, best first (``poker``'s outcomes)
POKER_HANDS = ("five of a kind", "four of a kind", "full house", "straight",
               "three of a kind", "two pair", "one pair", "high card")


def _hand(counts: tuple[int, ...], straight: int, size: int) -> str:
    if counts and counts[0] >= 5:
        return "five of a kind"
    if counts and counts[0] == 4:
        return "four of a kind"
    if len(counts) >= 2 and counts[0] == 3 and counts[1] >= 2:
        return "full house"
    if size >= 5 and straight >= 5:
        return "straight"
    if counts and counts[0] == 3:
        return "three of a kind"
    if len(counts) >= 2 and counts[0] == 2 and counts[1] == 2:
        return "two pair"
    if counts and counts[0] == 2:
        return "one pair"
    return "high card"


def preset(name: str, pools: Sequence[MultisetExpression], *, success: int = 5,
           match: str = "any", ties: str = "defender", wild: Any = ()) -> Distribution:
    """The named mechanic ``name`` (:data:`PRESETS`) on ``pools``. Cost: one walk of the
    algebra (estimated and refused up front past the work budget).

    >>> from chancekit.dice import Pool, d
    >>> preset("cancel", [Pool(d(6), 2), Pool(d(6), 1)]).probability(2)
    Fraction(2, 27)
    >>> preset("face-to-face", [Pool(d(20), 1), Pool(d(20), 1)]).probability((0, 0))
    Fraction(1, 20)
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise InvalidValueError("preset", name, "one of " + ", ".join(PRESETS))
    want = PRESETS[name][0]
    pools = list(pools)
    if len(pools) != want:
        raise InvalidValueError(f"{name} takes {want} pool{'s' if want > 1 else ''}, not "
                                f"{len(pools)}")
    for i, p in enumerate(pools):
        if not isinstance(p, MultisetExpression):
            raise InvalidTypeError(f"pool {i}", p, "a Pool")
    if name == "cancel":
        success = require_int("success", success)
        if match not in ("any", "beat", "equal"):
            raise InvalidValueError("match", match, "'any', 'beat' or 'equal'")
        hits = pools[0].keep_outcomes(lambda x: x >= success)
        blocks = pools[1].keep_outcomes(lambda x: x >= success)
        if match == "beat":
            return hits.max_pair_drop("<=", blocks).count()  # type: ignore[no-any-return]
        if match == "equal":
            return (hits - blocks).count()  # type: ignore[no-any-return]

        @multiset_function
        def left(h: Any, b: Any) -> Any:
            return h.count(), b.count()
        return left(hits, blocks).map(lambda v: max(v[0] - v[1], 0))  # type: ignore[no-any-return]
    if name == "risk":
        if ties not in ("defender", "attacker"):
            raise InvalidValueError("ties", ties, "'defender' or 'attacker'")
        op = ">" if ties == "defender" else ">="
        back = ">=" if ties == "defender" else ">"

        @multiset_function
        def risk(a: Any, b: Any) -> Any:  # (attacker losses, defender losses)
            return b.sort_pair(back, a).count(), a.sort_pair(op, b).count()
        return risk(*pools)  # type: ignore[no-any-return]
    if name == "face-to-face":
        @multiset_function
        def f2f(a: Any, b: Any) -> Any:
            return a.versus_all(">", b).count(), b.versus_all(">", a).count()
        return f2f(*pools)  # type: ignore[no-any-return]
    if name == "sets":
        return pools[0].largest_count(wild=wild)  # type: ignore[no-any-return]
    if name == "straights":
        return pools[0].all_straights()  # type: ignore[no-any-return]

    @multiset_function
    def poker(a: Any) -> Any:
        return a.all_counts(), a.largest_straight(), a.count()
    return poker(pools[0]).map(lambda v: _hand(*v))  # type: ignore[no-any-return]


# -- the algebra as text ----------------------------------------------------------------

#: methods an expression may call (the algebra's operators and evaluations)
METHODS = frozenset({
    "additive_union", "difference", "intersection", "union", "symmetric_difference",
    "keep_outcomes", "drop_outcomes", "unique", "multiply_counts", "keep_counts",
    "highest", "lowest", "middle", "sort_pair", "max_pair_keep", "max_pair_drop",
    "versus_all", "versus_any", "count", "size", "sum", "expand", "largest_count",
    "largest_count_and_outcome", "all_counts", "largest_straight", "all_straights",
    "highest_outcome_and_count", "count_subset", "issubset", "issuperset", "isdisjoint",
    "leximax", "leximin"})
_KEYWORDS = frozenset({"wild", "extra", "order", "priority", "filter", "empty_divisor",
                       "tie", "keep", "drop"})
_BINOPS = {ast.Add: "__add__", ast.Sub: "__sub__", ast.BitAnd: "__and__",
           ast.BitOr: "__or__", ast.BitXor: "__xor__"}


def evaluate_text(text: str, pools: Mapping[str, MultisetExpression]) -> Distribution:
    """The distribution of ``text``, an expression of the algebra over the named
    ``pools`` (Python syntax, read with a whitelist: pool names, numbers, strings,
    lists/tuples/sets of them, ``range(...)``, ``+ - & | ^`` between pools, and the
    algebra's methods, :data:`METHODS`). A tuple of evaluations is walked once, its
    outcome a Vector. Anything else is refused with the token and its column.

    >>> from chancekit.dice import Pool, d
    >>> evaluate_text("a.keep_outcomes([6]).count(), a.count()", {"a": Pool(d(6), 1)}
    ...               ).probability((1, 1))
    Fraction(1, 6)
    """
    if not isinstance(text, str):
        raise InvalidTypeError("expression", text, "text")
    if len(text) > MAX_POOL_TEXT:
        raise LimitError(f"expression: {len(text)} characters, more than MAX_POOL_TEXT = "
                         f"{MAX_POOL_TEXT}; write a shorter one", limit="MAX_POOL_TEXT",
                         value=len(text))
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise InvalidValueError(f"expression {text!r}: syntax error at column "
                                f"{(e.offset or 0)}: {e.msg}") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_POOL_TEXT_NODES:
        raise LimitError(f"expression: {nodes} syntax nodes, more than MAX_POOL_TEXT_NODES = "
                         f"{MAX_POOL_TEXT_NODES}; write a shorter one",
                         limit="MAX_POOL_TEXT_NODES", value=nodes)
    body = tree.body
    token = _LAZY.set(True)
    try:
        value = _eval(body, pools, text)
    finally:
        _LAZY.reset(token)
    if isinstance(value, Evaluation):
        return value.distribution()
    if isinstance(value, tuple) and value and all(isinstance(v, Evaluation) for v in value):
        return _run(list(value), vector=True, shape=tuple(range(len(value))))
    raise InvalidValueError(f"expression {text!r} gives no evaluation; end it with one, "
                            "e.g. .count(), .sum(), .largest_count()")


def _bad(node: ast.AST, text: str, why: str) -> InvalidValueError:
    seg = ast.get_source_segment(text.strip(), node) or type(node).__name__
    return InvalidValueError(f"expression: {seg!r} at column {getattr(node, 'col_offset', 0)}"
                             f" {why}")


def _eval(node: ast.AST, pools: Mapping[str, MultisetExpression], text: str) -> Any:
    if isinstance(node, ast.Name):
        if node.id in pools:
            return pools[node.id]
        raise _bad(node, text, f"is not a pool (the pools: {', '.join(pools) or 'none'})")
    if isinstance(node, ast.Constant) and (isinstance(node.value, int | str)
                                           and not isinstance(node.value, bool)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(
            node.operand, ast.Constant) and isinstance(node.operand.value, int):
        return -node.operand.value
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = [_eval(x, pools, text) for x in node.elts]
        return set(items) if isinstance(node, ast.Set) else (
            tuple(items) if isinstance(node, ast.Tuple) else items)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left, pools, text), _eval(node.right, pools, text)
        if not isinstance(left, MultisetExpression):
            raise _bad(node.left, text, "is not a pool or an expression of pools")
        return getattr(left, _BINOPS[type(node.op)])(right)
    if isinstance(node, ast.Call):
        args = [_eval(a, pools, text) for a in node.args]
        kwargs = {}
        for kw in node.keywords:
            if kw.arg not in _KEYWORDS:
                raise _bad(kw, text, "is not a keyword of the algebra (" +
                           ", ".join(sorted(_KEYWORDS)) + ")")
            kwargs[kw.arg] = _eval(kw.value, pools, text)
        if isinstance(node.func, ast.Name) and node.func.id == "range" and not kwargs:
            if not 1 <= len(args) <= 2 or not all(isinstance(a, int) for a in args):
                raise _bad(node, text, "takes one or two whole numbers")
            lo, hi = (0, args[0]) if len(args) == 1 else args
            if hi - lo > 10_000:
                raise _bad(node, text, "is longer than 10,000 outcomes")
            return list(range(lo, hi))
        if not isinstance(node.func, ast.Attribute) or node.func.attr not in METHODS:
            raise _bad(node.func, text, "is not a method of the algebra (" +
                       ", ".join(sorted(METHODS)) + ")")
        target = _eval(node.func.value, pools, text)
        if not isinstance(target, MultisetExpression):
            raise _bad(node.func.value, text, "is not a pool or an expression of pools")
        return getattr(target, node.func.attr)(*args, **kwargs)
    raise _bad(node, text, "is not allowed (pool names, numbers, strings, lists, + - & | ^ "
               "and the algebra's methods)")
