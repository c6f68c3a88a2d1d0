"""Per-die modifiers: explode and reroll, one implementation (private).

:meth:`Distribution.explode` and :meth:`Distribution.reroll` delegate here, and so does the
pool evaluator (:mod:`chancekit.dice.evaluate`) when a pool has one modifier alone, so the
API and notation share one law (``3 @ d(6).explode() == dist("3d6!")``). Each estimate is
charged to the work budget (:mod:`chancekit.limits`) before the work starts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import chancekit.dice.caps as caps
from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_int
from chancekit.dice.distribution import Distribution, _charge
from chancekit.errors import InvalidValueError, LimitError
from chancekit.limits import MAX_EXPLODE_DEPTH, MAX_OUTCOMES, MAX_WEIGHT_BITS, mul_work

__all__ = ["explode", "explode_work", "max_explode_depth", "reroll"]


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
    if die._int and _dense_fits(die, depth):
        # checked before any work, before the die's dense polynomial is built (faces 1
        # and 10**17 would make it 10**17 coefficients): the result spans at most
        # (depth + 1) * (n - 1) + 1 outcomes with weights of about (depth + 1) *
        # log2(total) bits
        lo, hi = die.outcomes()[0], die.outcomes()[-1]
        n = hi - lo + 1
        span = (depth + 1) * (n - 1) + 1
        if span > MAX_OUTCOMES:
            raise LimitError(
                f"exploding this die {depth} times would span {span:,} outcomes (its faces "
                f"run from {lo} to {hi}), more than MAX_OUTCOMES = {MAX_OUTCOMES:,}; use "
                "smaller faces or a smaller depth", limit="MAX_OUTCOMES", value=span)
        work = explode_work(n, die._total, depth)
        try:
            _charge(work, f"exploding a die with {n} faces {depth} times")
        except LimitError as e:
            most = max_explode_depth(n, die._total)
            raise LimitError(
                f"{e} -- the deepest explosion of a die with {n} faces within MAX_WORK = "
                f"{limits.MAX_WORK:,} is depth={most} (a chain that long has probability "
                f"below {_tail(die, fire, most)}); use depth <= {most}",
                limit=e.limit, value=e.value) from None
        off, full = die._poly()
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
        return caps.attach(Distribution._from_poly(e_off, e),
                           *caps.explode_cap(die, fire, depth))
    # general outcomes, or whole numbers far from 0 (faces 10**6 and 10**6 + 1 make few
    # sums but a dense polynomial of millions of coefficients): dictionary convolution,
    # its outcomes bounded and its work charged before it starts
    work = _dict_explode_work(die, len(stay), len(boom), depth)
    _charge(work, f"exploding a die with {len(die._w)} faces {depth} times")
    limits.count(work)
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
    return caps.attach(cur, *caps.explode_cap(die, fire, depth))


def _dense_fits(die: Distribution, depth: int) -> bool:
    """Whether the dense polynomial of a whole-number die's explosion is about as long as
    the calibrated span ``(depth + 1) * (n - 1) + 1`` (faces near 0; a chain of ``m``
    faces sums to between ``m * lo`` and ``m * hi``), so :func:`explode_work` prices it."""
    lo, hi = die.outcomes()[0], die.outcomes()[-1]
    span = (depth + 1) * (hi - lo) + 1
    lower = lo if lo >= 0 else (depth + 1) * lo
    upper = hi if hi <= 0 else (depth + 1) * hi
    return upper - lower + 1 <= 2 * span + 1


def _dict_explode_work(die: Distribution, n_stay: int, n_boom: int, depth: int) -> int:
    """Work of the dictionary explosion, refused past MAX_OUTCOMES outcomes: level k has
    at most ``n_stay + n_boom * |level k - 1|`` outcomes, and at most ``C(k + b, b) * n``
    (a multiset of at most k of the b exploding faces, then any face), and for whole
    numbers at most the dense span; each pair costs a dictionary entry and a product of
    weights of about ``(k + 1) log2(total)`` bits. O(depth)."""
    n = len(die._w)
    lb = max(1.0, math.log2(max(2, die._total)))
    dense: float = math.inf
    if all(type(x) is int or type(x) is Fraction for x in die._w):
        # rational faces: every sum is a multiple of 1/L (L the denominators' lcm) in the
        # range a chain of 1 to depth + 1 faces can reach
        lo, hi = min(die._w), max(die._w)
        lower = lo if lo >= 0 else (depth + 1) * lo
        upper = hi if hi <= 0 else (depth + 1) * hi
        den = math.lcm(*(Fraction(x).denominator for x in die._w))
        dense = int((upper - lower) * den) + 1
    bound, multisets, work = n, 1, 0
    for k in range(1, depth + 1):
        work += (n_boom * bound + n_stay) * (limits.ENTRY_WORK + int((k + 1) * lb) // 64)
        if multisets <= MAX_OUTCOMES:
            multisets = multisets * (k + n_boom) // k  # C(k + b, b)
        bound = min(n_stay + n_boom * bound, multisets * n, dense)
        if bound > MAX_OUTCOMES:
            raise LimitError(
                f"exploding this die {depth} times can give {bound:,} outcomes after {k} "
                f"explosions (its {n} faces, {n_boom} of them exploding), more than "
                f"MAX_OUTCOMES = {MAX_OUTCOMES:,}; use fewer faces or a smaller depth",
                limit="MAX_OUTCOMES", value=bound)
    return work


def explode_work(n: int, total: int, depth: int) -> int:
    """Estimated work (units of :mod:`chancekit.limits`) of exploding a die spanning ``n``
    integer outcomes, of total weight ``total``, ``depth`` times: level r multiplies the
    die (n coefficients of log2(total) bits) by the chain so far (r (n - 1) + 1
    coefficients of about r log2(total) bits) -- flint's product, measured per coefficient
    pair and bit, or Kronecker substitution (:func:`~chancekit.limits.mul_work`) when that
    is cheaper -- plus passes over the chain (sum, content). Calibrated against measured
    CPU times (d2 to d1000, depths up to the largest allowed). O(depth).

    >>> explode_work(6, 6, 20) < explode_work(6, 6, 40) < explode_work(100, 100, 40)
    True
    """
    lb = max(1.0, math.log2(max(2, total)))
    # measured: flint's product of a die of n <= 6 coefficients by a long chain costs
    # about 0.03 ns per coefficient pair and bit (1/667 unit), 7 to 12 coefficients up to
    # 0.22 ns (1/90 unit), more 0.12 ns (1/167 unit); the sums, the value at 1 and the
    # content about 0.06 ns per bit (docs/performance.md, "Explosion depth")
    per = 667 if n <= 6 else 90 if n <= 12 else 167
    work = 0
    for r in range(1, depth + 1):
        length = r * (n - 1) + 1
        bits = int((r + 1) * lb + math.log2(n)) + 1
        work += min(n * length * bits // per, mul_work(n, length, bits)) + (
            length * bits // 333 + length * limits.ENTRY_WORK)
    return work


def max_explode_depth(n: int, total: int) -> int:
    """The largest depth whose :func:`explode_work` fits in ``MAX_WORK`` (at most
    ``MAX_EXPLODE_DEPTH``); O(depth log depth) arithmetic, no polynomial.

    >>> max_explode_depth(6, 6) > 500
    True
    """
    lo, hi = 0, MAX_EXPLODE_DEPTH
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if explode_work(n, total, mid) <= limits.MAX_WORK:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _tail(die: Distribution, fire: set[Any], depth: int) -> str:
    """The probability that a chain of ``depth`` extra dice still explodes, as a bound
    ("1e-300"), for the refusal message."""
    p = Fraction(sum(die._w[k] for k in fire), die._total)
    exp10 = (depth + 1) * math.log10(float(p)) if p else -math.inf
    return f"1e{math.ceil(exp10)}" if exp10 > -1e300 else "0"


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
