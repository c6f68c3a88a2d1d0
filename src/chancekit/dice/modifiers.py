"""Per-die modifiers: explode and reroll, one implementation (private).

:meth:`Distribution.explode` and :meth:`Distribution.reroll` delegate here, and so does the
pool evaluator (:mod:`chancekit.dice.evaluate`) when a pool has one modifier alone, so the
API and notation share one law (``3 @ d(6).explode() == dist("3d6!")``). Each estimate is
charged to the work budget (:mod:`chancekit.limits`) before the work starts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution, _charge
from chancekit.errors import InvalidValueError, LimitError
from chancekit.limits import MAX_EXPLODE_DEPTH, MAX_OUTCOMES, MAX_WEIGHT_BITS, mul_work

__all__ = ["explode", "reroll"]


def explode(die: Distribution, on: Iterable[Any] | Callable[[Any], bool] | None = None, *,
            depth: int) -> Distribution:
    """See :meth:`Distribution.explode`."""
    depth = _check_depth(depth)
    fire = die._face_set(on, "explode")
    if not fire or depth == 0:
        return die
    if len(fire) == len(die._w) and depth > 1000:
        raise LimitError(f"every face explodes; depth {depth} is past 1000",
                         limit="depth", value=depth)
    stay = {k: w for k, w in die._w.items() if k not in fire}
    boom = {k: w for k, w in die._w.items() if k in fire}
    if die._int:
        # checked before any work, before the die's dense polynomial is built (faces 1
        # and 10**17 would make it 10**17 coefficients): the result spans at most
        # (depth + 1) * (n - 1) + 1 outcomes with weights of about (depth + 1) *
        # log2(total) bits
        lo, hi = die.outcomes()[0], die.outcomes()[-1]
        n = hi - lo + 1
        span = (depth + 1) * (n - 1) + 1
        bits = (depth + 1) * max(1.0, math.log2(max(2, die._total)))
        if span > MAX_OUTCOMES:
            raise LimitError(
                f"exploding this die {depth} times would span {span:,} outcomes (its faces "
                f"run from {lo} to {hi}), more than MAX_OUTCOMES = {MAX_OUTCOMES:,}; use "
                "smaller faces or a smaller depth", limit="MAX_OUTCOMES", value=span)
        off, full = die._poly()
        # each level multiplies the die (n coefficients) by the chain so far
        work = sum(mul_work(n, r * (n - 1) + 1, int(r * bits)) for r in range(1, depth + 1))
        _charge(work, f"exploding a die with {n} faces {depth} times")
        limits.count(work)
        s_poly = flint.fmpz_poly([stay.get(off + i, 0) for i in range(n)])
        b_poly = flint.fmpz_poly([boom.get(off + i, 0) for i in range(n)])
        # E_0 = X; E_k = S * total(E_{k-1}) + B * E_{k-1}, reduced by content each step.
        e_off, e = off, full
        for _ in range(depth):
            e, e_off = _aligned_add(s_poly * int(e(1)), off, b_poly * e, off + e_off)
            g = int(e.content())
            if g > 1:
                e = flint.fmpz_poly([int(c) // g for c in e.coeffs()])
        return Distribution._from_poly(e_off, e)
    # general outcomes: dictionary convolution
    cur = die
    for _ in range(depth):
        out: dict[Any, int] = {}
        for k, w in stay.items():
            out[k] = out.get(k, 0) + w * cur._total
        for k, w in boom.items():
            for y, v in cur._w.items():
                r = k + y
                out[r] = out.get(r, 0) + w * v
        cur = Distribution._raw(out)
    return cur


def reroll(die: Distribution, on: Iterable[Any] | Callable[[Any], bool], *,
           depth: int | None = None) -> Distribution:
    """See :meth:`Distribution.reroll`."""
    match = die._face_set(on, "reroll")
    if depth is None:
        keep = {k: w for k, w in die._w.items() if k not in match}
        if not keep:
            raise InvalidValueError(
                "reroll: every face matches, so rerolling until no match never ends; "
                "give a finite depth")
        return Distribution._raw(keep)
    depth = _check_depth(depth)
    if not match or depth == 0:
        return die
    total = die._total
    m_weight = sum(w for k, w in die._w.items() if k in match)
    bits = len(die._w) * depth * max(1.0, math.log2(max(2, total)))
    if bits > MAX_WEIGHT_BITS:
        raise LimitError(
            f"rerolling {len(die._w)} outcomes {depth} times needs weights of about "
            f"{bits / 8 / 2**20:.0f} MiB, past MAX_WEIGHT_BITS = {MAX_WEIGHT_BITS}; use a "
            "smaller depth, or depth=None (reroll until no match)",
            limit="MAX_WEIGHT_BITS", value=bits)
    # closed form of `depth` rounds of "keep the face, or reroll on a match" (O(m)):
    # a kept face x ends with w_x * sum_{i<=depth} M**i * T**(depth-i), a matching face
    # with w_x * M**depth (M: weight of the matching faces, T: total weight)
    keep_factor = ((total ** (depth + 1) - m_weight ** (depth + 1)) // (total - m_weight)
                   if total != m_weight else 0)
    match_factor = m_weight**depth
    return Distribution._raw({k: w * (match_factor if k in match else keep_factor)
                              for k, w in die._w.items()})


def _check_depth(depth: int) -> int:
    depth = require_int("depth", depth, lo=0)
    if depth > MAX_EXPLODE_DEPTH:
        raise LimitError(
            f"depth {depth} is past MAX_EXPLODE_DEPTH = {MAX_EXPLODE_DEPTH}; use a smaller "
            "depth", limit="MAX_EXPLODE_DEPTH", value=depth)
    return depth


def _aligned_add(a: flint.fmpz_poly, oa: int, b: flint.fmpz_poly,
                 ob: int) -> tuple[flint.fmpz_poly, int]:
    """z**oa * a + z**ob * b as (poly, offset)."""
    base = min(oa, ob)
    return a.left_shift(oa - base) + b.left_shift(ob - base), base
