"""The one pool evaluator: what :meth:`chancekit.dice.Pool.sum` computes, exactly.

A pool is ``n`` dice of one kind (or a list of items, each a Distribution) with operators
applied in order (:class:`~chancekit.dice.selectors.Op`: keep ``k``, drop ``p``, reroll
``rr``/``ro``, reroll-and-add ``ra``, explode ``e``, clamp ``mi``/``ma``). The evaluator
picks the cheapest exact method, each a special case of the last:

1. every operator acts on each die on its own (``rr ro mi ma e`` and keep/drop by value):
   one die's contribution by :func:`per_die` (operators on distributions, an explosion
   chain level by level), then ``n`` of them summed by one polynomial power;
2. per-die operators, then one keep/drop of the highest/lowest: the face walk of
   :func:`chancekit.dice.facewalk.keep_sum`; per-die operators then ``ra``: a closed form;
3. anything else (``kh1kl1`` after an explosion, operators after a keep...): the general
   engine over the multisets of dice values, refused past :data:`MAX_POOL_STATES` states.

Every step charges its estimate to the work budget (:mod:`chancekit.limits`) before it
starts; the general engine also counts what it does. Outcomes are integers (dice faces)
or, for item pools, whatever the items hold.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit.dice.distribution import Distribution, constant
from chancekit.dice.facewalk import face_walk_work, keep_sum
from chancekit.dice.selectors import (
    Op,
    faces_matched,
    match_count,
    matched_count,
    matched_ranges,
    matching_faces,
)
from chancekit.errors import LimitError
from chancekit.limits import (
    ENTRY_WORK,
    MAX_OUTCOMES,
    MAX_POOL_STATES,
    MAX_WEIGHT_BITS,
    MAX_WORK,
    TUPLE_WORK,
    mul_work,
)

__all__ = ["items_sum", "per_die", "pool_sum"]

W = dict[Any, int]


def _limit(what: str, name: str, limit: int, value: int, *, at_least: bool = False
           ) -> LimitError:
    shown = f"{value:,}" if value < 10**15 else f"2^{value.bit_length() - 1}"
    shown = "more than " + shown if at_least else "about " + shown
    return LimitError(f"{what}: {shown} is past the limit {name} = {limit:,}; use fewer "
                      "or smaller dice, or estimate it with chancekit.roll(...) many times",
                      limit=name, value=value)


def _charge(units: int, what: str) -> None:
    limits.charge(units, what, limit=MAX_WORK, name="MAX_WORK")


# ---------------------------------------------------------------- per-die operators
_EXPLODES = ("e", "ce", "pe", "eo")
#: operators that turn one die into one die (a compounded die is one die)
_ONE_TO_ONE = ("rr", "ro", "mi", "ma", "ce")


def _is_per_die(op: Op) -> bool:
    return op.kind in ("rr", "ro", "mi", "ma", "cnt", *_EXPLODES) or (
        op.kind in ("k", "p") and all(s.by_value for s in op.sels))


#: the dice :func:`per_die` built last, by (die, operators, depth): the tree estimate
#: (dice/_estimate.py) builds a pool's die to price its power, and the evaluation then
#: reads it here instead of building (and charging) it again
_UNITS: dict[tuple[Distribution, tuple[Op, ...], int], Distribution] = {}
#: how many dice :data:`_UNITS` keeps, the most outcomes of one it keeps, and the most
#: faces of a die looked up (the tree estimate builds no bigger one)
_UNITS_KEPT, _UNIT_OUTCOMES, _CACHED_FACES = 8, 100_000, 5_000


def per_die(die: Distribution, ops: Sequence[Op], depth: int) -> Distribution:
    """What one die contributes when every operator acts on it alone (built once: the
    last :data:`_UNITS_KEPT` are kept, so the tree estimate's build is reused)."""
    if len(die) > _CACHED_FACES:  # (hashing a big die costs more than it saves)
        return _per_die(die, ops, depth)
    key = (die, tuple(ops), depth)
    got = _UNITS.get(key)
    if got is None:
        got = _per_die(die, key[1], depth)
        if len(got) <= _UNIT_OUTCOMES:
            if len(_UNITS) >= _UNITS_KEPT:
                try:  # the oldest (another thread may be changing the dict: then any)
                    _UNITS.pop(next(iter(_UNITS)), None)
                except (RuntimeError, StopIteration):
                    _UNITS.clear()
            _UNITS[key] = got
    return got


def _per_die(die: Distribution, ops: Sequence[Op], depth: int) -> Distribution:
    """What one die contributes when every operator acts on it alone.

    ``through(i, x)`` is the contribution of a die whose value, entering operator ``i``,
    is distributed as ``x``: an operator splits ``x`` into the faces it matches and the
    rest. An explosion adds the chain of fresh dice (``depth`` of them at most, 1 for
    ``eo``; each fresh die one less for ``pe``), built level by level, one polynomial
    product each; a compounding explosion (``ce``) adds the chain to the die itself, so
    later operators see one die. A count (``cnt``) maps each die to its score. Cost
    O(operators x depth x one product of the die's range by the chain's range), estimated
    and charged before it starts.
    """
    if len(ops) == 1 and ops[0].kind in ("e", "rr", "ro", "mi", "ma"):
        # one modifier alone: Distribution's own closed form (the same law, faster)
        op = ops[0]
        hits = matching_faces(op, die.outcomes())
        if op.kind == "e":
            return die.explode(hits, depth=depth)
        if op.kind == "rr":
            return die.reroll(hits)
        if op.kind == "ro":
            return die.reroll(hits, depth=1)
        num = op.sels[-1].num
        return die.clamp(lo=num) if op.kind == "mi" else die.clamp(hi=num)
    if len(ops) == 1 and ops[0].kind in ("k", "p") and ops[0].sels and all(
            s.by_value for s in ops[0].sels):
        # a keep or drop by value alone: the faces kept, and 0 weighing the others (the
        # mixture's closed form; 1d764054p2 split and mixed its faces for 1.8 s, uncharged)
        hit, miss = _split(die, ops[0])
        out = dict(hit if ops[0].kind == "k" else miss)
        limits.count(len(out) * ENTRY_WORK)
        rest = die.total - sum(out.values())
        if rest:
            out[0] = out.get(0, 0) + rest
        return Distribution._raw(out, reduced=True, total=die.total)
    if len(ops) == 1 and ops[0].kind == "cnt":  # a count alone: each face's score
        limits.count(len(die) * ENTRY_WORK)
        return _scores(die, ops[0])
    _check_explode(die, ops, depth)
    zero = constant(0)
    chains: dict[int, Distribution] = {}

    def split(x: Distribution, op: Op) -> tuple[Distribution | None, Distribution | None,
                                                int, int]:
        hit, miss = _split(x, op)
        return (Distribution._raw(hit) if hit else None, Distribution._raw(miss) if miss
                else None, sum(hit.values()), sum(miss.values()))

    def mix(parts: list[tuple[int, Distribution | None]]) -> Distribution:
        parts = [(w, p) for w, p in parts if w and p is not None]
        limits.count(sum(len(p) for _, p in parts) * ENTRY_WORK)
        if len(parts) == 1:
            return parts[0][1]  # type: ignore[return-value]
        # the mixture in integer weights over the lcm of the totals (no validation pass)
        lcm = math.lcm(*(p.total for _, p in parts))  # type: ignore[union-attr]
        out: dict[Any, int] = {}
        for w, p in parts:
            scale = w * (lcm // p.total)  # type: ignore[union-attr]
            for v, x in p.weights.items():  # type: ignore[union-attr]
                out[v] = out.get(v, 0) + x * scale
        return Distribution._raw(out)

    def through(i: int, x: Distribution) -> Distribution:
        if i == len(ops):
            return x
        op = ops[i]
        kind = op.kind
        if kind in ("mi", "ma"):
            num = op.sels[-1].num
            return through(i + 1, x.clamp(lo=num) if kind == "mi" else x.clamp(hi=num))
        if kind == "cnt":
            limits.count(len(x) * ENTRY_WORK)
            return through(i + 1, _scores(x, op))
        hit, miss, h, m = split(x, op)
        if hit is None:  # nothing matches: every operator but a keep lets the die through
            return zero if kind == "k" else through(i + 1, x)
        if kind == "rr":
            redraw = Distribution._raw({u: c for u, c in die.weights.items()
                                        if not op.matches(u)})
            return through(i + 1, mix([(m, miss), (h, redraw)]))
        if kind == "ro":
            return through(i + 1, mix([(m, miss), (h, die)]))
        if kind == "k":
            return mix([(h, through(i + 1, hit)), (m, zero)])
        if kind == "p":
            return mix([(m, through(i + 1, miss) if miss is not None else None), (h, zero)])
        if kind == "ce":  # one die: its value plus the raw chain, through the later ops
            return through(i + 1, mix([(m, miss), (h, hit + compound(i))]))
        # "e", "pe", "eo": this die, plus the chain of fresh dice that may explode again
        exploded = through(i + 1, hit) + chain(i)
        return mix([(m, through(i + 1, miss) if miss is not None else None), (h, exploded)])

    def chain(i: int) -> Distribution:
        """What the fresh dice rolled by explosion ``i`` add: a fresh die goes through the
        later operators, and explodes again while levels remain."""
        got = chains.get(i)
        if got is not None:
            return got
        go, stop, g, s = split(die, ops[i])
        shift = -1 if ops[i].kind == "pe" else 0  # penetrating: each fresh die one less
        if shift:
            go = go + shift if go is not None else None
            stop = stop + shift if stop is not None else None
        stop_d = through(i + 1, stop) if stop is not None else None
        go_d = through(i + 1, go) if go is not None else zero
        level = through(i + 1, die + shift)  # the last level: no more explosions
        levels = (depth if ops[i].kind != "eo" else 1) - 1
        if levels > 0 and stop_d is not None and stop_d._int and go_d._int and level._int:
            level = _chain_poly(s, stop_d, g, go_d, level, levels)
        else:
            for _ in range(levels):
                level = mix([(s, stop_d), (g, go_d + level)])
        chains[i] = level
        return level

    def compound(i: int) -> Distribution:
        """What a compounding explosion adds to a die: fresh raw dice, summed."""
        got = chains.get(-1 - i)
        if got is not None:
            return got
        go, stop, g, s = split(die, ops[i])
        level = die
        for _ in range(depth - 1):
            level = mix([(s, stop), (g, (go if go is not None else zero) + level)])
        chains[-1 - i] = level
        return level

    return through(0, die)


def _scores(x: Distribution, op: Op) -> Distribution:
    """The score of a die distributed as ``x`` under the count ``op`` (:meth:`Op.score`:
    1 a success, -1 a failure, 0 neither or both): ``x.map(op.score)`` without its
    checks for mixtures and unhashable results. O(outcomes x selectors)."""
    w = x.weights
    ends = _consecutive(x) if not op.steps and len(w) >= 64 else None
    if ends is not None:
        return _interval_scores(list(w.values()), *ends, op)
    score = op.score
    out: dict[Any, int] = {}
    for v, c in w.items():
        s = score(v)
        out[s] = out.get(s, 0) + c
    return Distribution._raw(out)


def _interval_scores(weights: list[int], lo: int, hi: int, op: Op) -> Distribution:
    """:func:`_scores` of consecutive integer outcomes ``lo..hi`` (their ``weights`` in
    order) under a plain count: 1 on the successes' intervals, -1 on the failures', 0 on
    both or neither, the weights summed by slices in C, no call an outcome
    (``d(79d20 + 8*27d6ro7)cf<2``: 8 M calls for its 2 580 dice, 5.8 s). O(selectors +
    outcomes in C)."""
    def weight(ranges: list[range]) -> int:
        return sum(sum(weights[r.start - lo:r.stop - lo]) for r in ranges)

    hit = matched_ranges(op, lo, hi)
    miss = matched_ranges(Op(op.kind, op.fails), lo, hi) if op.fails else []
    both = [range(max(a.start, b.start), min(a.stop, b.stop)) for a in hit for b in miss
            if max(a.start, b.start) < min(a.stop, b.stop)]
    s, f, sf = weight(hit), weight(miss), weight(both)
    out = {-1: f - sf, 0: sum(weights) - s - f + 2 * sf, 1: s - sf}  # (0: neither or both)
    return Distribution._raw({k: v for k, v in out.items() if v})


def _consecutive(x: Distribution) -> tuple[int, int] | None:
    """``(lo, hi)`` when the outcomes of ``x`` are the consecutive integers ``lo..hi``
    (its keys are in order: read from the two ends), else None. O(1)."""
    w = x._w
    lo, hi = next(iter(w)), next(reversed(w))
    if x._int and type(lo) is int and type(hi) is int and hi - lo + 1 == len(w):
        return lo, hi
    return None


def _split(x: Distribution, op: Op) -> tuple[dict[Any, int], dict[Any, int]]:
    """The weights of the outcomes of ``x`` that ``op``'s value selectors match, and of
    the others. Consecutive integers are split by the selectors' intervals, without a
    call an outcome (``d764054`` has two intervals, not 764 054 calls); others one call
    each. O(outcomes)."""
    w = x._w
    ends = _consecutive(x)
    if ends is not None and all(s.by_value for s in op.sels):
        picked = matched_ranges(op, *ends)
        hit = {v: w[v] for r in picked for v in r}
        if len(hit) == len(w):
            return hit, {}
        miss = dict(w)
        for v in hit:
            del miss[v]
        return hit, miss
    hit = {v: c for v, c in w.items() if op.matches(v)}
    miss = {v: c for v, c in w.items() if v not in hit}
    return hit, miss


def _chain_poly(s: int, stop: Distribution, g: int, go: Distribution, last: Distribution,
                levels: int) -> Distribution:
    """``levels`` times: level = (s: stop) or (g: go + level), for integer outcomes, in
    python-flint polynomials with unreduced weights (one Distribution at the end):
    L' = s Tg T Ps x^(os) + g Ts (Pg L) x^(og), total (s + g) Ts Tg T."""
    os_, ps = stop._poly()
    og, pg = go._poly()
    ol, pl = last._poly()
    ts, tg, tl = stop.total, go.total, last.total
    for _ in range(levels):
        limits.count((len(pl) + len(pg)) * ENTRY_WORK)
        lo = min(os_, og + ol)
        a = ps * (s * tg * tl)
        b = (pg * pl) * (g * ts)
        pl = (a.left_shift(os_ - lo) if os_ > lo else a) + (
            b.left_shift(og + ol - lo) if og + ol > lo else b)
        ol, tl = lo, (s + g) * ts * tg * tl
        content = int(pl.content())
        if content > 1:  # keep the weights small (in C: a Python int a coefficient was
            pl = pl // content  # a third of +37-64dFkh4cs0-1/d873e<5!rr4's 0.5 s)
            tl //= content
    return Distribution._from_poly(ol, pl)


def _check_explode(die: Distribution, ops: Sequence[Op], depth: int) -> None:
    """Estimate explosion chains before building them: ``depth`` levels, level r a
    product of the die's range by r ranges (outcomes bounded by MAX_OUTCOMES)."""
    explosions = sum(1 for op in ops if op.kind in _EXPLODES)
    if not explosions:
        return
    outs = die.outcomes()
    span = outs[-1] - outs[0] + 1
    bits = max(1, die.total.bit_length())
    outcomes = span * (explosions * depth + 1)
    if outcomes > MAX_OUTCOMES:
        raise _limit("exploding these dice would give too many outcomes", "MAX_OUTCOMES",
                     MAX_OUTCOMES, outcomes)
    if outcomes * bits * depth > MAX_WEIGHT_BITS:
        raise _limit("exploding these dice would need too much memory (outcomes x bits)",
                     "MAX_WEIGHT_BITS", MAX_WEIGHT_BITS, outcomes * bits * depth)
    # the chains, from the last operator back: the fresh dice of explosion i go through
    # the operators after i, so an earlier chain is built of later chains (level r of a
    # chain: r ranges of the later die, r times its bits), and its weights grow by the
    # die's bits plus twice the later die's bits a level (``_chain_poly``'s total):
    # d35e>8k33e>4 took 2.7 s where one chain's worth was charged (0.13 s)
    s_next, b_next, work = span, bits, 0
    for op in reversed(ops):
        if op.kind in _EXPLODES:
            levels = 1 if op.kind == "eo" else depth
            work += sum(mul_work(s_next, r * s_next, r * b_next) + r * s_next * ENTRY_WORK
                        for r in range(1, levels + 1))
            s_next, b_next = s_next * (levels + 1), levels * (bits + 2 * b_next)
        else:  # a mixture: the totals' lcm
            b_next += bits
    _charge(work, "exploding these dice")


# ---------------------------------------------------------------- dice pools
def pool_sum(die: Distribution, n: int, ops: Sequence[Op], depth: int) -> Distribution:
    """The sum of ``n`` dice like ``die`` after ``ops``, by the cheapest exact method."""
    # a drop of none of the highest/lowest (pl0) changes no pool wherever it stands
    # (4d634083rr<6ro1pl0 built the rerolled die for the keep's closed form, 1.2 s, before
    # the pool's size refused it; without pl0, 0.1 s)
    # and so does an operator that matches no face (before a clamp or penetration): the
    # keeps on either side of it are then one (7d3!kh5e7kh2, strip_idle)
    ops = merge_keeps(strip_idle(die._w, tuple(op for op in ops if not _drops_none(op))))
    if not ops:
        return die.repeat_sum(n)
    if leaves_no_die(die._w, n, ops):
        # keeps and drops leave no die before any other step: every pool is the empty
        # tuple, and what follows acts on no die (d385305pl2ro>3 enumerated 385 305 pools
        # for the reroll after the drop, 0.8 s; the answer is 0), and no step after them
        # changes that (each acts on no die; a compounding there asserted it never runs:
        # 0d2!!3kh45, a crash). O(1).
        return constant(0)
    if ops[-1].kind == "mt" and len(ops) == 1:  # Roll20's matching total, face by face
        from chancekit.dice.facewalk import evaluate_pool

        return evaluate_pool(_matches_rule(ops[-1]), n * [die])
    if all(_is_per_die(op) for op in ops):
        _check_span_ahead(die, n, ops)
        return per_die(die, ops, depth).repeat_sum(n)
    # one-die-to-one-die operators including a compounding explosion, then only keep/drop,
    # clamp or count: the compounded die is a new die (``10d10!!kh5``)
    # an explosion (``{10d6!}kh3``) or a compounding (``10d10!!kh5``) on the top face,
    # then one keep/drop of highest/lowest: closed forms
    if (len(ops) == 2 and ops[0].kind in ("e", "ce") and ops[1].kind in ("k", "p")
            and len(ops[1].sels) == 1 and not ops[1].sels[0].by_value):
        closed = _explode_keep if ops[0].kind == "e" else _compound_keep
        got = closed(die, n, ops[0], ops[1], depth)
        if got is not None:
            return got
    j = 0
    while j < len(ops) and ops[j].kind in _ONE_TO_ONE:
        j += 1
    if any(op.kind == "ce" for op in ops[:j]) and all(
            op.kind in ("k", "p", "mi", "ma", "cnt", "mt") for op in ops[j:]):
        return pool_sum(per_die(die, ops[:j], depth), n, ops[j:], depth)
    # a keep of highest/lowest that covers every die (``2d20kh1kl1``) keeps them all
    i = _covering_keep(ops, n)
    if i is not None:
        return pool_sum(die, n, ops[:i] + ops[i + 1:], depth)
    *head, last = ops
    # per-die operators, then "ra" (one extra die if any die matches): closed form
    if last.kind == "ra" and all(op.kind in ("rr", "ro", "mi", "ma") for op in head):
        _check_ra_ahead(die, n, head, last)
        return _reroll_add(die, per_die(die, head, depth), n, last, depth)
    # per-die operators (no explosion, no drop) then one keep/drop highest/lowest
    if (all(op.kind in ("rr", "ro", "mi", "ma") for op in head) and last.kind in ("k", "p")
            and len(last.sels) == 1 and not last.sels[0].by_value):
        sel = last.sels[0]
        k = min(sel.num, n)
        _check_keep_ahead(die, n, k if last.kind == "k" else n - k, head)
        unit = per_die(die, head, depth)
        if last.kind == "k":
            return _keep(unit, n, k, sel.cat == "h")
        return _keep(unit, n, n - k, sel.cat == "l")
    return _general(dict(die.weights), n, ops, depth)


def _span_after(die: Distribution, ops: Sequence[Op]) -> tuple[int, int] | None:
    """Two outcomes a die surely can still show after the per-die operators ``ops``
    (rerolls, clamps, keep/drop by value; no explosion or count), read from its eight
    lowest and eight highest faces and those next to the selectors' numbers alone
    (O(operators), whatever the die's size); None
    when fewer than two are known. A reroll keeps the faces it does not match and, if it
    matches one, brings back the raw die's; a clamp moves them; a keep or drop by value
    sends the dice it takes out to 0 for good."""
    w = die.weights
    if len(w) < 2 or not die._int or any(op.kind not in ("rr", "ro", "mi", "ma", "k", "p")
                                         for op in ops):
        return None
    raw = set(itertools.islice(iter(w), 8)) | set(itertools.islice(reversed(w), 8))
    # and the faces next to each selector's number (8d702518r<=8ro2: the eight lowest all
    # rerolled, so 9, the lowest face left, was unknown; 1.5 s of rerolls, then refused)
    raw |= {v for op in ops for sel in op.sels if sel.by_value and type(sel.num) is int
            for v in (sel.num - 1, sel.num, sel.num + 1) if v in w}
    live, out = set(raw), set()
    for op in ops:
        if op.kind in ("mi", "ma"):
            num = op.sels[-1].num
            live = {max(v, num) if op.kind == "mi" else min(v, num) for v in live}
            continue
        hit = {v for v in live if op.matches(v)}
        if op.kind in ("rr", "ro"):
            live -= hit
            if hit:  # rerolled: the raw die again (rr: its faces it does not match)
                live |= {v for v in raw if op.kind == "ro" or not op.matches(v)}
        elif op.kind == "k":
            out |= {0} if live - hit else set()
            live = hit
        else:
            out |= {0} if hit else set()
            live -= hit
    known = live | out
    return (min(known), max(known)) if len(known) >= 2 else None


def _check_span_ahead(die: Distribution, n: int, ops: Sequence[Op]) -> None:
    """Before the per-die operators ``ops`` run over every face of a big die, refuse the
    sum of ``n`` such dice that :meth:`Distribution.repeat_sum` would refuse anyway (its
    span, from two outcomes the die surely keeps, past ``MAX_OUTCOMES``):
    ``-36d973704p<=7`` matched a million faces for 1.1 s, then was refused."""
    if n < 2 or len(die) < 1000:
        return
    ends = _span_after(die, ops)
    if ends is None:
        return
    lo, hi = ends
    span = n * (hi - lo) + 1
    if span > MAX_OUTCOMES:
        raise LimitError(
            f"{n} dice with outcomes {lo}..{hi} (at least) would give {span} outcomes or "
            f"more, past MAX_OUTCOMES = {MAX_OUTCOMES} / MAX_WEIGHT_BITS = {MAX_WEIGHT_BITS}; "
            "use fewer dice or the mean and variance (they scale with n)",
            limit="MAX_WEIGHT_BITS", value=span)


def _check_keep_ahead(die: Distribution, n: int, keep: int, head: Sequence[Op]) -> None:
    """Before the per-die operators ``head`` (rerolls, clamps) build the die a keep of
    ``keep`` of ``n`` reads, refuse if that keep alone would pass the budget: priced with
    at least the faces the operators leave (a reroll removes its faces, a clamp merges
    them) and the die's own total, a lower bound of what the keep will charge
    (``(-58d1000000ro>3kl4...`` rerolled a million faces, then was refused)."""

    if keep <= 1 or keep >= n:
        return
    outs = _faces_after(die, head)
    if not outs:
        return
    limits.check(face_walk_work(len(outs), max(outs) - min(outs) + 1,
                                die.total.bit_length(), n, keep),
                 f"keeping {keep} of {n} dice")


def _faces_after(die: Distribution, head: Sequence[Op]) -> list[int] | None:
    """At most the outcomes a die of integer outcomes can still show after the per-die
    operators ``head`` (a reroll until no match removes its faces, a clamp merges them, a
    reroll once keeps them all), in increasing order; None for other outcomes. O(faces)
    in C-level passes where no clamp or reroll moves them."""
    if not die._int or not all(type(v) is int for v in die._w):
        return None
    outs = list(die._w)
    for op in head:
        num = op.sels[-1].num if op.sels else None
        if op.kind == "mi" and isinstance(num, int) and num > outs[0]:
            outs = sorted({max(v, num) for v in outs})
        elif op.kind == "ma" and isinstance(num, int) and num < outs[-1]:
            outs = sorted({min(v, num) for v in outs})
        elif op.kind == "rr" and faces_matched(op, outs):
            outs = [v for v in outs if not op.matches(v)]
            if not outs:  # (every face left matches: what the reroll does is its own)
                return None
    return outs


def _check_ra_ahead(die: Distribution, n: int, head: Sequence[Op], last: Op) -> None:
    """Before the per-die operators ``head`` build the die a reroll-and-add ``last`` of
    ``n`` dice reads, refuse if its first charge alone would pass the budget: the
    outcomes it will have (:func:`ra_outcomes`) from at most the faces left and the
    faces of them ``last`` matches, a lower bound of what :func:`_reroll_add` charges
    (``69731d939310ro<78ra<4`` rerolled 939 310 faces, then read every one of them for
    the match, 1 s, before the charge refused it). O(faces), by intervals where the
    faces are consecutive."""
    outs = _faces_after(die, head)
    if not outs:
        return
    limits.check(ra_outcomes(n, len(outs), faces_matched(last, outs)) * RA_ENTRY_WORK,
                 "rerolling and adding these dice")


def _top_face(die: Distribution, op: Op) -> int | None:
    """The top face of an integer die with two faces or more when ``op`` matches it and no
    other face (the closed forms of :func:`_explode_keep` and :func:`_compound_keep`),
    else None."""
    faces = die.outcomes()
    if not die._int or len(faces) < 2 or not set(map(type, faces)) <= {int}:
        return None
    v = faces[-1]
    # (by the selectors' intervals: a call a face was 0.7 s for d519615!1)
    return v if matching_faces(op, faces) == [v] else None


def _explode_keep(die: Distribution, n: int, op: Op, last: Op,
                  depth: int) -> Distribution | None:
    """``n`` dice exploding on their top face ``v`` only (extra dice join the pool), then
    keep/drop the highest/lowest: closed form, or ``None`` when it does not apply.

    Each die starts a chain: ``j`` dice showing ``v`` then one other face (``j <= depth``),
    or ``depth + 1`` dice showing ``v`` (a capped chain). With ``t`` dice showing ``v`` in
    all and ``c`` capped chains, the pool is ``t`` v's above ``n - c`` dice drawn from the
    other faces, so a keep of the highest/lowest is ``v`` times a count plus one keep of
    the ``n - c`` other dice. The weights of (t, c) are ``C(n, c) cap^c [x^(t - c(depth +
    1))] U(x)^(n - c)``, U the chain polynomial (python-flint powers). Cost: n polynomial
    products of degree <= n x depth, then one keep per distinct (n - c, kept), charged
    before it starts."""
    v = _top_face(die, op)
    if v is None:
        return None
    w = die.weights
    a, s_ = w[v], die.total
    b = s_ - a
    rest = Distribution._raw({f: x for f, x in w.items() if f != v})
    d1 = depth + 1
    unit = flint.fmpz_poly([a**j * b * s_**(depth - j) for j in range(d1)])
    cap = a**d1
    bits = max(1, (s_**d1).bit_length())
    _charge(sum(mul_work(m * depth + 1, d1, m * bits) for m in range(1, n + 1))
            + n * n * d1 * ENTRY_WORK, "exploding and keeping these dice")
    powers = [flint.fmpz_poly([1])]
    for _ in range(n):
        powers.append(powers[-1] * unit)
    sel = last.sels[0]
    high = (sel.cat == "h") == (last.kind == "k")
    # (other dice, kept of them) -> {shift: weight}: one keep per pair, times its shifts
    # (51d6!ph5 built 6 411 shifted copies, 2.8 s, then was refused)
    buckets: dict[tuple[int, int], dict[int, int]] = {}
    for c in range(n + 1):
        coeffs = powers[n - c].coeffs()
        scale = math.comb(n, c) * cap**c
        for i, wt in enumerate(coeffs):
            if not wt:
                continue
            t = c * d1 + i
            m = n - c
            size = t + m
            if last.kind == "k":
                k = min(sel.num, size)
            else:
                k = max(0, size - sel.num)
            if high:  # the k highest: v's first, then the highest of the others
                key = (v * k, 0, 0) if t >= k else (v * t, m, k - t)
            else:  # the k lowest: the others first, then v's
                key = (0, m, k) if m >= k else (v * (k - m), m, m)
            shifts = buckets.setdefault(key[1:], {})
            shifts[key[0]] = shifts.get(key[0], 0) + int(wt) * scale
    # the products priced before the keeps are built (their spans known from the faces,
    # their weights at least the shifts'): 51d6!ph5 built its keeps, then was refused
    r_lo, r_hi = min(rest.weights), max(rest.weights)
    sbits = max(1, max(max(shifts.values()).bit_length() for shifts in buckets.values()))
    limits.check(sum(mul_work(k * (r_hi - r_lo) + 1, max(shifts) - min(shifts) + 1, sbits)
                     for (_, k), shifts in buckets.items()), "exploding and keeping these dice")
    bases = {(m, k): _keep(rest, m, k, high) if k else constant(0) for m, k in buckets}
    lcm = 1
    for base in bases.values():
        lcm = lcm * base.total // math.gcd(lcm, base.total)
    # each keep times its shifts: one polynomial product (in steps of v) per keep
    lo = min(min(bases[key].weights) + min(shifts) for key, shifts in buckets.items())
    hi = max(max(bases[key].weights) + max(shifts) for key, shifts in buckets.items())
    wbits = max(1, max(max(shifts.values()).bit_length() for shifts in buckets.values())
                + lcm.bit_length())
    work = sum(mul_work(max(bases[key].weights) - min(bases[key].weights) + 1,
                        max(shifts) - min(shifts) + 1, wbits)
               for key, shifts in buckets.items()) + len(buckets) * (hi - lo + 1) * ENTRY_WORK
    _charge(work, "exploding and keeping these dice")
    limits.count(work)
    total = flint.fmpz_poly([0])
    for key, shifts in buckets.items():
        base = bases[key]
        per = lcm // base.total
        b_lo, s_lo = min(base.weights), min(shifts)
        bw = [0] * (max(base.weights) - b_lo + 1)
        for x, w in base.weights.items():
            bw[x - b_lo] = w * per
        sw = [0] * (max(shifts) - s_lo + 1)
        for sh, w in shifts.items():
            sw[sh - s_lo] = w
        total += flint.fmpz_poly([0] * (b_lo + s_lo - lo) + [1]) * (
            flint.fmpz_poly(bw) * flint.fmpz_poly(sw))
    return Distribution._from_poly(lo, total)


#: :func:`_compound_keep` leaves the work to the face walk when this many times the walk's
#: estimate is still below its own (3 while the walk's estimate ran 2-3x under on
#: compounded dice; 1 since it counts the walk's coefficients, facewalk._walk_steps)
_WALK_FACTOR = 1


def _compound_keep(die: Distribution, n: int, op: Op, last: Op,
                   depth: int) -> Distribution | None:
    """``n`` dice compounding on their top face ``v`` only, then keep/drop the highest or
    lowest: closed form, or ``None`` when it does not apply.

    A compounded die is ``v J + R``: ``J = j < depth`` top faces with weight
    ``a^j s^(depth-j)``
    and ``R`` a face below ``v``, or ``J = depth`` with weight ``a^depth`` and ``R`` any
    face (``a`` the weight of ``v``, ``s`` the die's total). When ``v + min(die)`` is above
    every face below ``v``, dice are ordered by ``J`` first, so the ``k`` highest are every
    die above a boundary level ``l`` and the ``k - A`` highest of the ``M`` dice at ``l``.
    A walk over the levels from the top (from the bottom for the lowest) carries
    ``(A, A at the cap)`` with a polynomial in ``y`` for the sum of their ``J``; each
    boundary adds ``y^(l (k - A))`` times the weight of the dice left below. At the end
    ``y = x^v`` and each (A, A at the cap, M, boundary at the cap) is multiplied by its
    faces: the kept dice summed, one keep of ``k - A`` of ``M``. Cost: ``depth x k^2 x n``
    small products, then at most ``k^2 n`` products of the final size (python-flint, integer
    weights of total ``s^((depth+1) n)``), charged before it starts: about 25 ms for
    ``10d10!!kh5`` (the face walk over the compounded die's 210 faces: 60 ms)."""
    v = _top_face(die, op)
    faces = die.outcomes()
    if v is None or v + faces[0] <= faces[-2]:
        return None
    w = die.weights
    sel = last.sels[0]
    k = min(sel.num, n)
    high = sel.cat == "h"
    if last.kind == "p":
        k, high = n - k, not high
    if k <= 0:
        return constant(0)
    if k >= n:  # every die kept: the sum of the compounded dice is cheaper
        return None
    a, s_ = w[v], die.total
    b = s_ - a
    low = Distribution._raw({f: x for f, x in w.items() if f != v})
    D = depth
    # of the largest weight, s^((D + 1) n), from a logarithm (the power itself for 81331
    # compounded d100s was 11 M bits, 1.5 s, only to be measured)
    words = int((D + 1) * n * math.log2(s_)) // 64 + 1
    # work units (calibrated on 10d10!!kh5, 30d10!!kh5, 8d8!!kh3): a step of the walk is
    # a polynomial of k D + 1 terms times an integer; a boundary is v products
    step = 12 * ENTRY_WORK + (k * D + 1) * words // 4
    product = 12 * ENTRY_WORK + (k * D + 1) * words // 2
    states = k * (k + 1) // 2
    work = (D + 1) * states * (n + 1) * step + 2 * states * (n + 1) * v * product
    # the other way: compound each die (one die of about D x faces outcomes), then the face
    # walk of the keep (pool.keep_work) -- cheaper for many dice of few faces (20d10!!kh10:
    # 1.6 s against 2.3-2.7 s measured, priced 67 M and 82 M), taken when _WALK_FACTOR x
    # its estimate is still below this one's

    span = v * D + faces[-1] - faces[0] + 1
    walk = face_walk_work(min(span, D * (len(faces) - 1) + len(faces)), span,
                          (D + 1) * s_.bit_length(), n, k)
    if _WALK_FACTOR * walk < work:
        return None
    _charge(work, "compounding and keeping these dice")
    h = [a ** j * s_ ** (D - j) for j in range(D)] + [a ** D]  # weight of level j, per face
    q = [x * b for x in h[:D]] + [h[D] * s_]  # weight of level j
    levels = list(range(D, -1, -1)) if high else list(range(D + 1))
    poly = flint.fmpz_poly
    state: dict[tuple[int, int], Any] = {(0, 0): poly([1])}
    ends: dict[tuple[int, int, int, bool], Any] = {}
    rest = sum(q)
    for j in levels:
        rest -= q[j]  # the levels still to come
        cap = j == D
        nxt: dict[tuple[int, int], Any] = {}
        for (A, AD), g in state.items():
            free = n - A
            limits.count((free + 1) * step)
            for M in range(free + 1):
                wt = math.comb(free, M) * h[j] ** M
                if A + M >= k:  # the boundary: the others all lie in the levels to come
                    wt *= rest ** (free - M)
                    if wt:
                        key = (A, AD, M, cap)
                        term = (g * wt).left_shift(j * (k - A)) if j * (k - A) else g * wt
                        ends[key] = ends[key] + term if key in ends else term
                else:
                    key2 = (A + M, AD + M if cap else AD)
                    term = (g * wt).left_shift(j * M) if j * M else g * wt
                    nxt[key2] = nxt[key2] + term if key2 in nxt else term
        state = nxt
    lo_off, lo_poly = low._poly()
    die_off, die_poly = die._poly()
    kept_memo: dict[tuple[int, int, bool], tuple[int, Any]] = {}
    faced: list[tuple[Any, int, list[int]]] = []  # (g, offset, coefficients) per boundary
    for (A, AD, M, cap), g in ends.items():
        unit, (u_off, u_poly) = (die, (die_off, die_poly)) if cap else (low, (lo_off, lo_poly))
        j = k - A
        got = kept_memo.get((M, j, cap))
        if got is None:
            if j >= M:
                got = (u_off * M, u_poly ** M)
            else:
                kept = _keep(unit, M, j, high)
                off, kp = kept._poly()
                got = (off, kp * (unit.total ** M // kept.total))
            kept_memo[(M, j, cap)] = got
        r_poly = lo_poly ** (A - AD) * die_poly ** AD * got[1]
        faced.append((g, lo_off * (A - AD) + die_off * AD + got[0], r_poly.coeffs()))
    # sum of g(x^v) r(x): r split by exponent mod v (r = sum_t x^t rho_t(x^v)), so every
    # product is of two dense polynomials in y = x^v
    ymin = min(off // v for _, off, _ in faced)
    phases: list[Any] = [poly([0]) for _ in range(v)]
    for g, off, rc in faced:
        split: list[list[int]] = [[] for _ in range(v)]
        for i, c in enumerate(rc):
            e = off + i
            t, y = e % v, e // v - ymin
            row = split[t]
            if len(row) <= y:
                row.extend([0] * (y + 1 - len(row)))
            row[y] = c
        limits.count(v * product)
        for t, row in enumerate(split):
            if row:
                phases[t] += g * poly(row)
    width = max(p_.length() for p_ in phases)
    coeffs = [0] * (width * v)
    for t, p_ in enumerate(phases):
        coeffs[t::v] = [int(c) for c in p_.coeffs()] + [0] * (width - p_.length())
    return Distribution._from_poly(ymin * v, poly(coeffs))


def _ends(op: Op) -> tuple[int, int]:
    """``(h, l)``: how many of the highest and of the lowest dice the selectors of ``op``
    pick (the largest of each, 0 without one; as written, not clamped). O(selectors)."""
    return (max((s.num for s in op.sels if s.cat == "h"), default=0),
            max((s.num for s in op.sels if s.cat == "l"), default=0))


def _covered(op: Op, n: int) -> bool:
    """Whether highest/lowest selectors pick every one of ``n`` dice."""
    return sum(_ends(op)) >= n


def _covering_keep(ops: Sequence[Op], n: int) -> int | None:
    """The index of a keep of the highest/lowest that picks every one of ``n`` dice and
    comes first after per-die rerolls and clamps only (``2d20kh1kl1``): the pool is the
    same without it; None when there is none. O(ops)."""
    for i, op in enumerate(ops):
        if op.kind not in ("rr", "ro", "mi", "ma", "mark", "sort", "match"):
            if op.kind == "k" and not any(s.by_value for s in op.sels) and _covered(op, n):
                return i
            return None
    return None


def _squash_of(ops: Sequence[Op]) -> tuple[int, int, bool] | None:
    """``(h, l, drop)`` when ``ops`` end with an explosion and one keep/drop of the
    highest/lowest only, which needs just the ``h`` highest and ``l`` lowest dice of the
    exploded pool (and, for a drop, the sum of the others): the squash of
    :func:`_general`; else None. O(selectors)."""
    if (len(ops) >= 2 and ops[-2].kind in ("e", "pe", "eo") and ops[-1].kind in ("k", "p")
            and not any(s.by_value for s in ops[-1].sels)):
        return (*_ends(ops[-1]), ops[-1].kind == "p")
    return None


def squash_grows(base: Collection[Any], op: Op, squash: tuple[int, int, bool]) -> bool:
    """Whether no later level of the squashed explosion ``op`` costs less than the one
    before, once every pending pool holds the squash's width: a squash of the lowest dice
    only (``pl2``, ``kl1``) of an explosion of the highest face, or of the highest only
    of an explosion of the lowest face. Then a pending pool that explodes ``k`` dice goes
    on to one whose ``k`` fresh dice all show that face (every value is a face, and that
    face is past or below them all): the kept dice stay as they are, the middle sum grows
    by ``k`` times the face, ``k`` of them match again; so distinct pools stay distinct,
    each as long, each exploding as many (``4D{1,6,11,3}e>2pl2`` was priced one level at
    a time, refused at the budget's edge). A penetration shifts the fresh dice off the
    face: not claimed. O(faces).

    >>> from chancekit.dice.selectors import Op, Selector
    >>> boom = Op("e", (Selector(">", 2),))
    >>> d6 = range(1, 7)
    >>> squash_grows(d6, boom, (0, 2, True)), squash_grows(d6, boom, (1, 0, False))
    (True, False)
    """
    hi, lo, _mid = squash
    if op.kind != "e" or not base:
        return False
    try:
        low, high = ((base[0], base[-1]) if isinstance(base, range)
                     else (min(base), max(base)))
    except TypeError:  # (faces that do not compare)
        return False
    return (hi <= 0 and bool(op.matches(high))) or (lo <= 0 and bool(op.matches(low)))


def _reroll_add(die: Distribution, unit: Distribution, n: int, op: Op,
                depth: int) -> Distribution:
    """``n`` dice distributed as ``unit``, then ``ra``: one fresh ``die`` is added if any
    die matches. The sum splits into (no die matches) and (some die matches):
    ``none * total(die) + (all - none) (*) die``, all = unit^n, none = the same over the
    faces that do not match. O(one polynomial power)."""
    if n == 0:  # no dice: none matches, nothing is added
        return constant(0)
    ends, dends = _consecutive(unit), _consecutive(die)
    if ends is not None and dends is not None:
        # consecutive integers with a match: the polynomial pass for sure, its product
        # priced before the passes over the faces (1d987018ra<5 split, powered and listed
        # its faces, 1.1 s, then the product was refused at 114 M units)
        hits = matched_count(op, *ends)
        span = n * (ends[1] - ends[0]) + 1
        if hits and _ra_dense_span(dends, len(die), n * ends[0], n * ends[1], span):
            limits.check(ra_outcomes(n, len(unit), hits) * RA_ENTRY_WORK
                         + mul_work(span, len(die), 1 + die.total.bit_length()),
                         "adding the die to the rolls that match")
    _, miss = _split(unit, op)  # (by the selectors' intervals: not a call a face)
    # the passes over the result in Python (the lists of the powers' coefficients),
    # charged before the powers (d436839ra>5: 873 677 outcomes, 1.8 s for 25 M units
    # charged when the parts were mixed in Python)
    work = ra_outcomes(n, len(unit), len(unit) - len(miss)) * RA_ENTRY_WORK
    _charge(work, "rerolling and adding these dice")
    limits.count(work)
    every = _raw_power(dict(unit.weights), n)
    none = _raw_power(miss, n) if miss else {}
    if (die._int and unit._int and set(map(type, die.weights)) <= {int} and none != every
            and _ra_dense(die, every)):
        return _reroll_add_poly(die, every, none)
    _charge(len(every) * RA_MIX_WORK, "rerolling and adding these dice")
    some = {v: w - none.get(v, 0) for v, w in every.items()}
    some = {v: w for v, w in some.items() if w}
    parts: list[Distribution] = []
    weights: list[int] = []
    if none:
        parts.append(Distribution._raw(none))
        weights.append(sum(none.values()))
    if some:
        parts.append(Distribution._raw(some) + die)
        weights.append(sum(some.values()))
    return parts[0] if len(parts) == 1 else Distribution.mixture(parts, weights)


def _ra_dense(die: Distribution, every: W) -> bool:
    """Whether :func:`_reroll_add_poly`'s polynomials, as long as the span from the rolls'
    lowest sum to their highest plus the die's highest face, stay close to the outcomes
    (``Distribution._dense``'s rule): ``2d{999999999999999999}ra>=1`` shifted one by
    10**18 coefficients, and python-flint aborted the process. O(outcomes)."""
    faces = die.outcomes()
    return _ra_dense_span((faces[0], faces[-1]), len(faces), min(every), max(every),
                          len(every))


def _ra_dense_span(die_ends: tuple[int, int], die_faces: int, lo: int, hi: int,
                   sums: int) -> bool:
    """:func:`_ra_dense` from the ends alone: the rolls' sums ``lo..hi`` (``sums`` of
    them) and a die of ``die_faces`` faces from ``die_ends[0]`` to ``die_ends[1]``, so
    that a reroll-and-add of consecutive faces is priced before its sums are built.
    O(1)."""
    span = max(hi, hi + die_ends[1]) - min(lo, lo + die_ends[0]) + 1
    return span <= 4 * (sums + die_faces) + 64


def _reroll_add_poly(die: Distribution, every: W, none: W) -> Distribution:
    """:func:`_reroll_add` over integers in one polynomial pass: with the powers' weights
    unreduced (``every`` over ``T^n``), the result is ``none x total(die) + (every -
    none) x die`` over ``T^n total(die)``, reduced once by the coefficients' content (the
    mixture of the two parts reduced three dicts of 13 573 weights of 7 000 bits by
    Python gcds: 2712d6ra>=2, 2.6 s for 35 M units)."""
    lo, hi = min(every), max(every)
    coeffs = [0] * (hi - lo + 1)
    for v, w in every.items():
        coeffs[v - lo] = w
    rest = list(coeffs)
    for v, w in none.items():
        rest[v - lo] -= w
    faces = die.outcomes()
    dlo = faces[0]
    dw = [0] * (faces[-1] - dlo + 1)
    for u, c in die.weights.items():
        dw[u - dlo] = c
    work = mul_work(len(rest), len(dw),
                    max(every.values()).bit_length() + die.total.bit_length())
    _charge(work, "adding the die to the rolls that match")
    limits.count(work)
    added = flint.fmpz_poly(rest) * flint.fmpz_poly(dw)  # outcome lo + dlo + i
    kept = flint.fmpz_poly([w - r for w, r in zip(coeffs, rest, strict=True)]) * die.total
    base = min(lo, lo + dlo)
    total = added.left_shift(lo + dlo - base) + kept.left_shift(lo - base)
    return Distribution._from_poly(base, total)


#: units of one outcome of a reroll-and-add's closed form beyond its powers and its sum
#: (:func:`_reroll_add_poly`'s lists of coefficients: d436839ra>5 1.1 s for 59 M units;
#: 75 while the two parts were mixed and reduced in Python, about 2 us an outcome of
#: d50000ra>5 to d436839ra>5, 3d20000ra>5, 2d100000ra>50000)
RA_ENTRY_WORK = 20
#: and the rest of those 2 us an outcome, where the parts are still mixed (outcomes that
#: are not all integers)
RA_MIX_WORK = 55


def ra_outcomes(n: int, faces: int, hits: int) -> int:
    """At least how many outcomes ``n`` dice of ``faces`` integer outcomes have after a
    reroll-and-add matching ``hits`` of them: the sums with no die matched, or those with
    one matched (and ``n - 1`` others) plus one die more (``|A + B| >= |A| + |B| - 1``).

    >>> ra_outcomes(1, 20, 1)   # d20ra20: 1..19 and 21..40
    20
    """
    miss = faces - hits
    return max(n * (miss - 1) + 1 if miss else 1, hits + n * (faces - 1) if hits else 1)


def _raw_power(unit: W, n: int) -> W:
    """The ``n``-fold sum of integer ``unit`` with its weights kept as they are (not
    reduced: the closed form of ``ra`` subtracts two such powers)."""
    if len(unit) == 1:
        (v, w), = unit.items()
        return {v * n: w**n}
    dist = Distribution._raw(unit, reduced=True)
    # charged and checked like any sum of dice; repeat_sum takes the weights as coprime
    # and does not reduce the power, so scale is 1 (a reduced power is scaled back)
    power = dist.repeat_sum(n)
    scale = sum(unit.values()) ** n // power.total
    return {v: w * scale for v, w in power.weights.items()}


def _keep(unit: Distribution, n: int, k: int, highest: bool) -> Distribution:
    """Sum of the ``k`` highest (or lowest) of ``n`` dice distributed as ``unit``."""

    if k <= 0:
        return constant(0)
    if k >= n:
        return unit.repeat_sum(n)
    return keep_sum([unit] * n, **({"highest": k} if highest else {"lowest": k}))


# ---------------------------------------------------------------- item pools (sets)
def items_sum(items: Sequence[Distribution], ops: Sequence[Op]) -> Distribution:
    """The sum of the items (independent Distributions) kept after ``ops``."""

    if not items:
        return constant(0)
    ops = tuple(ops)

    def total(dists: Sequence[Distribution]) -> Distribution:
        res = constant(0)
        for it in dists:
            res = res + it
        return res

    if not ops:
        return total(items)
    if len(ops) == 1 and len(ops[0].sels) == 1 and not ops[0].sels[0].by_value:
        op, sel = ops[0], ops[0].sels[0]
        n = len(items)
        k = min(sel.num, n)
        keep, highest = (k, sel.cat == "h") if op.kind == "k" else (n - k, sel.cat == "l")
        if keep <= 0:
            return constant(0)
        if keep >= n:
            return total(items)
        if keep == 1 and n > 1:
            return _extreme(items, highest)
        if all(it._int for it in items):
            try:
                return keep_sum(list(items), **({"highest": keep} if highest
                                                else {"lowest": keep}))
            except LimitError:  # too costly face by face: enumerate the items instead
                pass
    if all(_is_per_die(op) for op in ops):
        return total([_map_item(it, ops) for it in items])
    count = math.prod(len(it) for it in items)
    if count > MAX_POOL_STATES:
        raise _limit("enumerating the items of this set", "MAX_POOL_STATES",
                     MAX_POOL_STATES, count)
    work = items_work([len(it) for it in items])
    _charge(work, "enumerating the items of this set")
    limits.count(work)
    states: dict[tuple[Any, ...], int] = {(): 1}
    for it in items:
        nxt: dict[tuple[Any, ...], int] = {}
        for tup, w in states.items():
            for x, wx in it.weights.items():
                key = _merge(tup, (x,))
                nxt[key] = nxt.get(key, 0) + w * wx
        states = nxt
    for op in ops:
        states = _pool_op(states, op, {0: 1}, 0, _Budget())
    return _sums(states)


def items_work(sizes: Sequence[int]) -> int:
    """Units of enumerating the sorted tuples of items of these many outcomes
    (:func:`items_sum`): each item merged into every tuple of those before it, a merge
    priced as an explosion's (:func:`merge_elements`). (``count x items`` elements before:
    ``(20d8, 12d4, 5d4, 1d4)pl4pl0`` ran 0.64 s, priced 10.7 M.) O(items).

    >>> items_work([6, 6]) // TUPLE_WORK  # 6 merges of 8 elements, then 36 of 8
    336
    """
    units, states = 0, 1
    for i, m in enumerate(sizes):
        states *= m
        units += states * merge_elements(i, 1)
    return units * TUPLE_WORK


def _extreme(items: Sequence[Distribution], highest: bool) -> Distribution:
    """Distribution of the max (or min) of independent items, by cumulative products:
    O(outcomes x items)."""
    xs = sorted(set().union(*(it.weights for it in items)), reverse=not highest)
    _charge(len(xs) * len(items) * ENTRY_WORK, "the highest or lowest of these items")
    cums = [0] * len(items)
    prev = 0
    out: W = {}
    for x in xs:
        prod = 1
        for i, it in enumerate(items):
            cums[i] += it.weights.get(x, 0)
            prod *= cums[i]
        if prod != prev:
            out[x] = prod - prev
            prev = prod
    return Distribution._raw(out)


def _map_item(it: Distribution, ops: Sequence[Op]) -> Distribution:
    out: W = {}
    for x, w in it.weights.items():
        v = x
        for op in ops:
            if v is None:
                break
            if op.kind == "cnt":
                v = op.score(v)
                continue
            hit = op.matches(v)
            if (op.kind == "k" and not hit) or (op.kind == "p" and hit):
                v = None
        key = 0 if v is None else v
        out[key] = out.get(key, 0) + w
    return Distribution._raw(out)


# ---------------------------------------------------------------- Roll20's matching
def _matches_rule(op: Op) -> Any:
    """:func:`~chancekit.dice.selectors.match_count` as a face rule (plain dice: face by
    face, O(F x n^2))."""
    from chancekit.dice.facewalk import FaceRule

    size = op.steps[0]

    def step(state: int, face: Any, counts: tuple[int, ...]) -> int:
        return state + (counts[0] >= size and (not op.sels or op.matches(face)))

    return FaceRule(step, initial=0)


# ---------------------------------------------------------------- the general engine
class _Budget:
    """Work of the general engine, in tuple elements: each step charges its estimate
    before it starts (:meth:`plan`) and counts what it does (:meth:`spend`)."""

    def plan(self, elements: int, what: str) -> None:
        _charge(elements * TUPLE_WORK, what)

    def spend(self, n: int) -> None:
        limits.count(n * TUPLE_WORK)


MERGE_ELEMENTS = 8
"""An explosion's merge of a pending pool with one multiset of fresh dice, in tuple
elements beside their dice (:func:`merge_elements`): the dictionary entry, the weight's
product."""


def merge_elements(length: int, fresh: int, squashed: bool = False) -> int:
    """Tuple elements of merging a pending pool of ``length`` dice with ``fresh`` new ones
    in an explosion (:func:`_explode`): :data:`MERGE_ELEMENTS`, the C-level sorted merge and
    the new key's hash (a third of an element a die), and 6 more for a squash (slices,
    a sum). Measured at 8-14 ns a unit unsquashed (``-9d12kh2e8``, ``6d6kh3e6``,
    ``3d6kh2!>4``, roll20 ``7d4kh1kh1!``) and squashed (``6d8e3pl3``, ``5d6e>4pl2``); a
    merge was ``length + fresh + 120`` (2.5-3 ns a unit) before. O(1).

    >>> merge_elements(8, 2), merge_elements(8, 2, squashed=True)
    (11, 17)
    """
    return MERGE_ELEMENTS + (length + fresh) // 3 + (6 if squashed else 0)


MULTISET_ELEMENTS = 12
"""One multiset of dice enumerated face by face (:func:`_multisets`), in tuple elements
beside its dice: its partial tuples built, a binomial and a power, two dictionary entries.
Measured from 2 dice of 900 faces to 20 dice of 4: 1.1-6 us a multiset, 10-28 ns a unit
(issue 31, sixth pass: it was priced as its dice plus the die's faces, 0.2-2 ns a unit for
2 or 3 dice of 100-900 faces, 2d300kh1ra>=-3rr>5 refused at 136 M units for 0.75 s, and
30-40 ns a unit for 15-20 dice of 3-4 faces)."""


def enumeration_elements(count: int, m: int) -> int:
    """Tuple elements of enumerating ``count`` multisets of ``m`` dice each
    (:func:`_multisets`; the tree prices the same). O(1).

    >>> enumeration_elements(math.comb(8, 3), 3)  # 3d6: 56 multisets
    840
    """
    return count * (m + MULTISET_ELEMENTS)


#: tuple elements of one merge of a reroll-and-add step beside its dice (see _pool_op)
_RA_ELEMENTS = 4

#: tuple elements a step of the general engine may do between two counts (the backstop
#: of a wrong plan, limits.count, checked that often rather than at every merge)
_SPEND_EVERY = 100_000

STATE_ELEMENTS = 15
"""A pool state's own cost in one step of the general engine, in tuple elements beside its
dice: its dictionary entries, the selection's set, the new tuple (9d12k>7: 4.5-7.4 us a
state of 9 dice; 9d12kh2 ran 2.6-3.2 us before its slices, priced as 10 elements, 1.6 us)."""
SLICE_ELEMENTS = 5
"""The same for a keep or drop of the highest/lowest only, two slices of the sorted tuple
(9d12kh2, 6d20kh2, 4d40kh3: 1.3-1.6 us a state; 9d12ph3 2.1 us)."""


def step_elements(op: Op, dice: int, states: int) -> int:
    """The tuple elements one step of the general engine reads before its own work
    (:func:`_pool_op` plans them; the expression tree prices the same): every state, and
    every die once, and once more for each selector by value (a Python call a die), for a
    clamp and for a count (a call a die). O(selectors).

    >>> from chancekit.dice.selectors import Op, Selector
    >>> step_elements(Op("k", (Selector("h", 2),)), 90, 10)  # 90 dice + 10 x SLICE_ELEMENTS
    140
    >>> step_elements(Op("k", (Selector(">", 7),)), 90, 10)  # 3 x 90 + 10 x STATE_ELEMENTS
    420
    """
    values = sum(1 for s in op.sels if s.by_value)
    if op.kind in ("k", "p") and not values:  # two slices a state
        return dice + states * SLICE_ELEMENTS
    if op.kind in ("mi", "ma", "cnt", "mt"):
        per = 2
    else:
        per = 1 + 2 * values if op.kind in ("k", "p") else 1
    return dice * per + states * STATE_ELEMENTS


def _reroll_ahead(base: W, n: int, op: Op, kept: int | None = None) -> int:
    """Units of enumerating the ``n``-dice multisets of ``base`` and then a reroll step
    ``op`` (``rr``/``ro``), counted from binomials before either starts: the states
    with ``m`` matching dice, times the redraw multisets of ``m`` dice each. ``kept``:
    the reroll comes after keeps/drops of the highest/lowest that leave a window of that
    many dice (every multiset of ``kept`` faces is one: the other dice at the extreme
    faces; ``10d10ph2rr>=8`` enumerated and dropped for 1.1 s, then was refused)."""
    faces = len(base)
    hit = faces_matched(op, base)
    rest = faces - hit
    draw = rest if op.kind == "rr" else faces
    k = n if kept is None else kept

    def multisets(m: int, f: int) -> int:
        return math.comb(m + f - 1, f - 1) if f else int(m == 0)

    pools = multisets(n, faces)
    if pools > MAX_POOL_STATES:  # refused by _multisets at once (and the sum below would
        return 0                 # form binomials of 77 167 dice of 297 424 faces)
    units = enumeration_elements(pools, n)
    units += sum(multisets(m, hit) * multisets(k - m, rest) * multisets(m, draw) * (k + 1)
                 for m in range(k + 1))
    return units * TUPLE_WORK


def _idle(base: W, op: Op) -> bool:
    """``op`` is a reroll, a reroll-and-add, an explosion or a drop by value that matches
    no face of ``base``, or a keep by value that matches every face: the states go through
    it unchanged (``1353d{9,0}!>92ro<7``, ``ro0``; ``8d12p>=68kl5ro>=1``: the reroll after
    the idle drop was priced only when reached, after 1 s), as is a drop of none of the
    highest/lowest (``pl0``). While every value of the states is a face of ``base`` (no
    clamp, penetration or count before), :func:`_general` skips it."""
    if op.kind in ("k", "p") and op.sels and all(s.by_value for s in op.sels):
        hit = faces_matched(op, base)
        return hit == len(base) if op.kind == "k" else not hit
    if _drops_none(op):
        return True  # a drop of none of the highest/lowest (pl0)
    # (and a reroll-and-add that matches no face adds no die: 9d3ra6k>3 was priced by the
    # tree above the engine's charge, which skipped nothing)
    return op.kind in ("rr", "ro", "ra", "e", "pe", "eo") and not faces_matched(op, base)


def merge_keeps(ops: tuple[Op, ...]) -> tuple[Op, ...]:
    """``ops`` with each run of keeps of one end (``kl5kl2``: the lowest 2 of the lowest
    5 are the lowest 2) or drops of one end (``pl2pl3``: ``pl5``) as one operator, the
    same pools whatever their size; then an explosion's last keep is one
    (``7dF!kl5kl2``: the squash, not the general engine's pools, 1.1 s to a refusal).
    O(operators).

    >>> from chancekit.dice.selectors import Op, Selector
    >>> merged, = merge_keeps((Op("k", (Selector("l", 5),), spelled="kl5"),
    ...                        Op("k", (Selector("l", 2),), spelled="kl2")))
    >>> merged.spelled, merged.sels[0].text()
    ('kl5kl2', 'l2')
    """
    out: list[Op] = []
    for op in ops:
        if (op.kind in ("k", "p") and len(op.sels) > 1
                and len({(s.cat, s.by_value) for s in op.sels}) == 1
                and op.sels[0].cat in ("h", "l")):
            # one operator's union of the highest a and the highest b is the highest
            # max(a, b) (kh86kh1 in Avrae's grammar: a union of 86 and 1, read as a
            # keep of both ends, squashed, by the engine: 0.5 s to a refusal)
            top = max(op.sels, key=lambda s: s.num)
            op = replace(op, sels=(top,))
        last = out[-1] if out else None
        if (last is not None and op.kind in ("k", "p") and last.kind == op.kind
                and len(op.sels) == 1 and len(last.sels) == 1
                and op.sels[0].cat in ("h", "l") and last.sels[0].cat == op.sels[0].cat):
            a, b = max(last.sels[0].num, 0), max(op.sels[0].num, 0)
            num = min(a, b) if op.kind == "k" else a + b
            out[-1] = replace(last, sels=(replace(last.sels[0], num=num),),
                              spelled=last.spelled + op.spelled)
        else:
            out.append(op)
    return tuple(out)


#: steps after which a die's value may be no face of the die (a clamp, a penetration, a
#: count): :func:`_general` and :func:`strip_idle` stop skipping idle operators there
_OFF_FACES = frozenset({"mi", "ma", "pe", "cnt", "mt"})


def strip_idle(base: Collection[Any], ops: tuple[Op, ...]) -> tuple[Op, ...]:
    """``ops`` without the operators :func:`_general` skips as idle (:func:`_idle`: a
    reroll, explosion or drop that matches no face, ``pl0``) while every value is still a
    face of ``base`` (no clamp, penetration or count before), so that the keeps an idle
    operator stood between merge (:func:`merge_keeps`): ``7d3!kh5e7kh2`` is ``7d3!kh2``,
    a squashed explosion (its pools kept whole were refused after 0.7 s). O(ops x faces).

    >>> from chancekit.dice.selectors import Op, Selector
    >>> [op.spelled for op in strip_idle({1: 1, 2: 1, 3: 1}, (
    ...     Op("e", (Selector(None, 3),), spelled="!"), Op("e", (Selector(None, 7),), spelled="e7"),
    ...     Op("k", (Selector("h", 2),), spelled="kh2")))]
    ['!', 'kh2']
    """
    out: list[Op] = []
    faces_only = True
    for op in ops:
        if faces_only and _idle(base, op):
            continue
        faces_only = faces_only and op.kind not in _OFF_FACES
        out.append(op)
    return tuple(out)


#: steps that end in some pool of dice whatever they meet (no error, no count): a keep of
#: none after them leaves every pool empty
_BEFORE_NONE = frozenset({"e", "pe", "eo", "ro", "ra", "k", "p", "mi", "ma"})


def leaves_no_die(base: Collection[Any], n: int, ops: tuple[Op, ...]) -> bool:
    """Every pool of ``n`` dice of ``base`` is empty after ``ops``' keeps: keeps and drops
    of the highest/lowest leave none before any other step (:func:`_window`), or a keep
    of none (``kl0``) comes after explosions, rerolls, clamps and keeps alone
    (``5d4!kl0ro<24`` exploded 41 M units of pools to keep none of them). The answer is
    then 0, whatever follows. O(ops x faces).

    >>> from chancekit.dice.selectors import Op, Selector
    >>> boom, none = Op("e", (Selector(None, 4),)), Op("k", (Selector("l", 0),))
    >>> leaves_no_die(range(1, 5), 5, (boom, none)), leaves_no_die(range(1, 5), 5, (boom,))
    (True, False)
    """
    if _window(base, n, ops)[1] == 0:
        return True
    for op in ops:
        if op.kind == "k" and op.sels and all(
                s.cat in ("h", "l") and s.num <= 0 for s in op.sels):
            return True
        if op.kind not in _BEFORE_NONE:
            return False
    return False


def _drops_none(op: Op) -> bool:
    """``op`` drops none of the highest/lowest dice (``pl0``, ``dh0``). O(selectors)."""
    return op.kind == "p" and bool(op.sels) and all(
        not s.by_value and s.num <= 0 for s in op.sels)


def _rerolls_all(base: W, op: Op) -> bool:
    """``op`` rerolls every die once (``ro`` matching every face): dice just rolled are
    rolled again, the same law, so :func:`_general` skips it before any other step
    (``5d8ro>0e8kh13``: 627 000 redraws, 0.7 s)."""
    return op.kind == "ro" and faces_matched(op, base) == len(base)


def look_ahead(base: W, n: int, ops: tuple[Op, ...], depth: int) -> tuple[int, str]:
    """The units :func:`_general`'s first reroll or explosion after keeps will charge at
    least, and its name, priced before the enumeration (the expression tree prices the
    same): a reroll from binomials (:func:`_reroll_ahead`), an explosion from its levels
    (:func:`_explode_ahead`). ``(0, "")`` for a last reroll (its sums,
    :func:`_last_reroll`, or :func:`_pool_op`'s own look-ahead) and for a reroll of every
    die once after idle operators alone, which the engine skips (``2d6!0ro>=1kl1`` was
    priced as a reroll of every pool). O(ops x faces)."""
    at, kept = _window(base, n, ops)
    if at < len(ops) and ops[at].kind in ("rr", "ro"):
        if at == len(ops) - 1 or (_rerolls_all(base, ops[at])
                                  and all(_idle(base, op) for op in ops[:at])):
            return 0, ""
        op = ops[at]
        what = f"the '{op.spelled or op.kind}' step of this pool"
        units = _reroll_ahead(base, n, op, kept)
        # and an explosion right after it: every multiset of the window's dice over the
        # faces the reroll leaves (every face for 'ro') is a pool then, as the dice as
        # rolled were (2d328rr<2e>4pl2: the reroll ran, 0.5 s, then the explosion was
        # refused at 6.8 T units); its fresh dice counted over those faces only (fewer
        # than the die's: a lower bound)
        left = base if op.kind == "ro" else {f: w for f, w in base.items()
                                            if not op.matches(f)}
        rest = ops[at + 1:]
        if kept and left and rest:
            boom = _explode_ahead(left, kept, rest, depth)
            if boom:
                units += boom - enumeration_elements(
                    math.comb(kept + len(left) - 1, len(left) - 1), kept) * TUPLE_WORK
                what += " and the explosion after it"
        return units, what
    return _explode_ahead(base, n, ops, depth), "exploding the dice of this pool"


def kept_after(op: Op, kept: int) -> int:
    """The dice left of ``kept`` after ``op``, a keep or drop of the highest and/or lowest
    (a union: ``kl4kh4`` keeps 8). O(selectors)."""
    hi, lo = (max(x, 0) for x in _ends(op))
    return min(kept, hi + lo) if op.kind == "k" else max(kept - hi - lo, 0)


def _window(base: W, n: int, ops: tuple[Op, ...]) -> tuple[int, int]:
    """``(i, kept)``: the first operator of ``ops`` that is neither idle (:func:`_idle`)
    nor a keep/drop of the highest or lowest dice, and the window of dice those keeps
    leave before it (``len(ops)`` if there is none). O(ops x faces)."""
    kept = n
    for i, op in enumerate(ops):
        if op.kind in ("k", "p") and len(op.sels) == 1 and not op.sels[0].by_value:
            kept = kept_after(op, kept)
        elif not _idle(base, op):
            return i, kept
    return len(ops), kept


def multisets_upto(n: int, faces: int, cap: int) -> int:
    """``C(n + faces - 1, faces - 1)`` (the multisets of ``n`` dice of ``faces`` faces),
    or the first partial product past ``cap`` (then the count is past it too): O(steps
    until past ``cap``), never a binomial of 77 167 dice.

    >>> multisets_upto(3, 6, 10**6), multisets_upto(77167, 2974, 100) > 100
    (56, True)
    """
    k = min(n, faces - 1)
    c = 1
    for i in range(1, k + 1):
        c = c * (n + faces - 1 - k + i) // i  # C(n + faces - 1 - k + i, i), exact
        if c > cap:
            return c
    return c


def _explode_ahead(base: W, n: int, ops: tuple[Op, ...], depth: int) -> int:
    """A lower bound of the units of enumerating the ``n``-dice multisets of ``base`` and
    then the first level of an explosion that only keeps/drops of the highest or lowest
    dice come before (``9d12dl3!2kh4kl1`` enumerated and dropped for 1.1 s, then its
    explosion was refused at 21 G units): the dice those keeps leave are a window of
    ``K`` ranks, and every multiset of ``K`` faces is such a window (the other dice at
    the extreme faces), so every multiset of ``W`` faces (``K``, or the squashed width
    of a last keep) is a pending state with at least its own matching faces, each
    merged with every multiset of that many new dice (what the explosion's own check
    charges); unsquashed, each of the ``depth`` levels costs at least that (see
    :func:`_explode`). 0 when other operators come first. O(W x faces)."""
    at, kept = _window(base, n, ops)  # (rerolls and explosions that match no face skipped)
    if at == len(ops) or ops[at].kind not in ("e", "pe", "eo"):
        return 0
    if depth < 1 or kept == 0:
        return 0
    op = ops[at]
    width = kept
    squash = _squash_of(ops) if at == len(ops) - 2 else None
    squashed = squash is not None
    grows = False
    if squash is not None:  # the squash of _general
        reach = squash[0] + squash[1]
        width = min(kept, reach)
        squashed = reach < kept * (depth + 1)  # (or no pool ever grows past it)
        # (every pool at the squash's width from the start, and no later level cheaper)
        grows = kept >= reach and squash_grows(base, op, squash)
    faces = len(base)
    hit = faces_matched(op, base)

    def multisets(m: int, f: int) -> int:
        return math.comb(m + f - 1, f - 1) if f else int(m == 0)

    level = 0
    for j in range(width + 1):
        states = multisets(j, hit) * multisets(width - j, faces - hit)
        level += states * (multisets(j, faces) * merge_elements(width, j, squashed) if j
                           else merge_elements(width, 0, squashed))
    # a squash keeps W of the K dice, but every die that matches explodes: for each count
    # of matches past W there is a pending pool too (j dice on a matching face), its own key
    # (roll20 6d20!<3kl3: priced 42.6 M, its first level planned 360 M after 1 s)
    if hit:
        for j in range(width + 1, kept + 1):
            level += multisets(j, faces) * merge_elements(width, j, squashed)
    # (unsquashed, every level costs at least the first: see _explode; and squashed too
    # where squash_grows)
    levels = 1 if (squashed and not grows) or op.kind == "eo" else depth
    return (enumeration_elements(multisets(n, faces), n) + level * levels) * TUPLE_WORK


def _general(base: W, n: int, ops: tuple[Op, ...], depth: int) -> Distribution:
    # (past MAX_POOL_STATES, _multisets refuses at once: no pass over a million faces)
    if multisets_upto(n, len(base), MAX_POOL_STATES) <= MAX_POOL_STATES:
        units, what = look_ahead(base, n, ops, depth)  # refused before the enumeration
        if units:
            limits.check(units, what)
    states = _multisets(base, n)
    budget = _Budget()
    # an explosion followed by one last keep/drop of highest/lowest only needs the a
    # highest and b lowest dice (plus the sum of the rest for a drop): squash the pool
    squash = _squash_of(ops)
    squashed = False
    faces_only = True  # every value of the states is a face of base
    fresh = True  # the states are still the n dice as rolled
    for i, op in enumerate(ops):
        if not squashed and ((faces_only and _idle(base, op))
                             or (fresh and _rerolls_all(base, op))):
            continue  # (8d12ro52ph3: the reroll that matches no face read 75 582 pools)
            # (but a squash's last drop sums its pools even if it drops none: e>=4pl0 lost
            # its explosion)
        fresh = False
        faces_only = faces_only and op.kind not in _OFF_FACES
        if squash is not None and i == len(ops) - 2:
            mids = _explode(states, op, base, squash, depth, budget)
            squashed = True
            continue
        if i == len(ops) - 1 and op.kind in ("rr", "ro") and not squashed:
            got = _last_reroll(states, op, base, budget)
            if got is not None:
                return got
        if squashed:  # the last keep/drop after a squashed explosion
            out: W = {}
            for (tup, mid), w in mids.items():
                picked = select(tup, op)
                keep = picked if op.kind == "k" else set(range(len(tup))) - picked
                s = sum(v for j, v in enumerate(tup) if j in keep) + mid
                out[s] = out.get(s, 0) + w
            return Distribution._raw(out)
        # (an explosion followed by a reroll that is not the last step prices that
        # reroll over its finished pools as it goes: _explode's then)
        then = ops[i + 1] if (op.kind in ("e", "pe", "eo") and i + 2 < len(ops)
                              and ops[i + 1].kind in ("rr", "ro")
                              and not (faces_only and _idle(base, ops[i + 1]))) else None
        states = _pool_op(states, op, base, depth, budget, then)
    return _sums(states)


def _last_reroll(states: dict[tuple[Any, ...], int], op: Op, base: W,
                 budget: _Budget) -> Distribution | None:
    """The sums of the pools ``states`` after a *last* reroll ``op`` (``rr``/``ro``), as
    :func:`_pool_op` then :func:`_sums` give them, without a pool per redraw: each pool
    keeps the sum ``s`` of its dice the reroll does not match and redraws its ``m``
    matching dice, so the sums are ``sum_m D(x)**m * dtotal**(top - m) * P_m(x)`` with
    ``P_m`` the weights of ``s`` over the pools of ``m`` matches, ``D`` the redraw's
    weights (the faces ``rr`` leaves, or every face for ``ro``) and ``top`` the most
    matches (the engine's scale). ``d944ro<=4ra>0ro41``: 445 000 pools of two dice, each
    merged with 944 redraws in the engine (97 M units, refused after 1.2 s); here one
    pass and two products. None where a value is not an integer (the engine then). O(pool
    elements + top products of degree ``top x faces``); the engine's own way where the
    sums spread far (faces far apart)."""
    if not all(type(f) is int for f in base):
        return None
    draw = {u: c for u, c in base.items() if not op.matches(u)} if op.kind == "rr" else base
    if not draw:
        return None
    what = f"the '{op.spelled or op.kind}' step of this pool"
    elements = sum(map(len, states)) + len(states)  # (one read of the pools and their dice)
    budget.plan(elements, what)
    budget.spend(elements)
    hit: dict[Any, bool] = {}
    groups: dict[int, dict[int, int]] = {}
    for tup, w in states.items():
        s = m = 0
        for v in tup:
            h = hit.get(v)
            if h is None:
                h = hit[v] = bool(op.matches(v))
                if type(v) is not int:
                    return None
            if h:
                m += 1
            else:
                s += v
        g = groups.get(m)
        if g is None:
            g = groups[m] = {}
        g[s] = g.get(s, 0) + w
    top = max(groups)
    dtotal = sum(draw.values())
    dlo, dhi = min(draw), max(draw)
    lo = min(min(g) + m * dlo for m, g in groups.items())
    hi = max(max(g) + m * dhi for m, g in groups.items())
    if hi - lo > 16 * (elements + len(draw)) + 4096:
        return None  # sums spread out (faces far apart): the engine's pools, not polynomials
    wbits = max(w.bit_length() for g in groups.values() for w in g.values())
    bits = wbits + top * dtotal.bit_length() + 1
    work = sum(limits.mul_work(max(g) - min(g) + 1 + m * (dhi - dlo), dhi - dlo + 1, bits)
               + limits.mul_work(max(g) - min(g) + 1, m * (dhi - dlo) + 1, bits)
               for m, g in groups.items())
    _charge(work, what)
    limits.count(work)

    def dense(w: dict[int, int]) -> tuple[int, Any]:  # (lowest outcome, its polynomial)
        low = min(w)
        return low, flint.fmpz_poly([w.get(low + i, 0) for i in range(max(w) - low + 1)])

    unit = dense(draw)[1]
    power = flint.fmpz_poly([1])
    total = flint.fmpz_poly([0])
    for m in range(top + 1):
        g = groups.get(m)
        if g is not None:
            glo, part = dense(g)
            total += (part * power * dtotal ** (top - m)).left_shift(glo + m * dlo - lo)
        if m < top:
            power *= unit
    return Distribution._from_poly(lo, total)


def _sums(states: dict[tuple[Any, ...], int]) -> Distribution:
    out: W = {}
    for tup, w in states.items():
        s = sum(tup)
        out[s] = out.get(s, 0) + w
    return Distribution._raw(out)


def _multisets(die: W, m: int) -> dict[tuple[Any, ...], int]:
    """Weights of the sorted tuples of ``m`` independent draws from ``die``."""
    if m == 0:
        return {(): 1}
    faces = sorted(die)
    # (the binomial only up to the cap: C(97 775 + 519 614, 519 614) took 0.8 s to form)
    count = multisets_upto(m, len(faces), MAX_POOL_STATES)
    if count > MAX_POOL_STATES:
        raise _limit(f"enumerating the {m} dice of this pool", "MAX_POOL_STATES",
                     MAX_POOL_STATES, count, at_least=True)
    # every multiset is built once, through at most one partial state per face
    units = enumeration_elements(count, m) * TUPLE_WORK
    _charge(units, f"enumerating the {m} dice of this pool")
    limits.count(units)
    states: dict[tuple[tuple[Any, ...], int], int] = {((), m): 1}
    done: dict[tuple[Any, ...], int] = {}
    for idx, f in enumerate(faces):
        last = idx == len(faces) - 1
        wf = die[f]
        nxt: dict[tuple[tuple[Any, ...], int], int] = {}
        for (tup, rem), w in states.items():
            counts = (rem,) if last else range(rem + 1)
            for c in counts:
                wt = w * math.comb(rem, c) * wf**c
                if c == rem:  # every die placed: finished, not carried through later faces
                    key = tup + (f,) * c
                    done[key] = done.get(key, 0) + wt
                else:
                    k2 = (tup + (f,) * c, rem - c)
                    nxt[k2] = nxt.get(k2, 0) + wt
        states = nxt
    return done


def _merge(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(sorted(a + b))


def _too_many(states: dict[Any, int]) -> None:
    if len(states) > MAX_POOL_STATES:
        raise _limit("the keep/drop/explode pool engine holds too many states",
                     "MAX_POOL_STATES", MAX_POOL_STATES, len(states))


def select(values: tuple[Any, ...], op: Op) -> set[int]:
    """Indices of ``values`` (sorted ascending) picked by the union of ``op``'s selectors."""
    picked: set[int] = set()
    n = len(values)
    for s in op.sels:
        if s.cat == "h":
            picked.update(range(max(0, n - s.num), n))
        elif s.cat == "l":
            picked.update(range(min(n, max(0, s.num))))
        else:
            picked.update(i for i, v in enumerate(values) if s.matches(v))
    return picked


def _explode(states: dict[tuple[Any, ...], int], op: Op, base: W,
             squash: tuple[int, int, bool] | None, depth: int,
             budget: _Budget, then: Op | None = None) -> dict[Any, int]:
    """The ``e`` step: each matching die rolls another, and new dice explode too,
    ``depth`` levels deep. Keys of the result are ``(pool, mid)``. With ``squash = (a, b,
    need_mid)`` a pool longer than ``a + b`` is kept as its ``b`` lowest and ``a`` highest
    values (and, for a drop, ``mid``: the sum of the others), which is all one last
    keep/drop of ``a`` highest / ``b`` lowest can see; with ``None`` pools are kept whole
    (``mid`` stays 0). ``then``: the reroll :func:`_pool_op` runs next over the pools
    kept whole, priced at each level over the pools done exploding (each a pool of the
    result), so that the explosion stops where that reroll cannot be paid
    (``10d2!pdl75ro<=4``: the explosion ran, 46 M units, then the reroll was refused at
    588 M)."""
    hi, lo, need_mid = squash if squash is not None else (0, 0, False)
    squashing = squash is not None
    width = hi + lo
    shift = -1 if op.kind == "pe" else 0  # penetrating: each fresh die one less
    if op.kind == "eo":
        depth = min(depth, 1)

    def sq(tup: tuple[Any, ...], mid: Any) -> tuple[tuple[Any, ...], Any]:
        if squash is None or len(tup) <= width:
            return tup, mid
        cut = len(tup) - hi
        if need_mid:
            mid = mid + sum(tup[lo:cut])
        return tup[:lo] + tup[cut:], mid

    total = sum(base.values())
    hits = {f for f in base if op.matches(f)}  # (looked up, not a call a die)
    rerolls = _RerollAfter(then, base) if then is not None and squash is None else None
    pending: dict[tuple[tuple[Any, ...], Any, int], int] = {}
    for tup, w in states.items():
        m = sum(map(hits.__contains__, tup))
        t2, mid = sq(tup, 0)
        key = (t2, mid, m)
        pending[key] = pending.get(key, 0) + w
    # the fresh multisets of each size, with their weights and their own matches, shifted
    # once (not once a merge)
    mcache: dict[int, list[tuple[tuple[Any, ...], int, int]]] = {}
    for level in range(1, depth + 1):
        top = max(m for (_, _, m) in pending)
        if top == 0:
            break
        nxt: dict[tuple[tuple[Any, ...], Any, int], int] = {}
        fresh = {m for (_, _, m) in pending} - set(mcache) - {0}
        # the multisets of every size and this level's merges, priced before the first is
        # built (80d3pl1e<3 enumerated 61 sizes one by one, then was refused: 1 s)
        sizes = {m: len(mcache[m]) if m in mcache else math.comb(m + len(base) - 1,
                                                                   len(base) - 1)
                 for (_, _, m) in pending if m}
        # (a pool done exploding is carried to the next level: its entry and product too)
        # Unsquashed, no later level costs less than this one: a pending pool that
        # explodes goes on to one with its fresh dice all on a matching face, which
        # explodes as many (distinct pools stay distinct), and a carried one is carried
        # again; so the levels left are priced at this one's (7d4kh1kh1!, roll20, 10 levels
        # one by one, then refused at 1.7 s)
        # (a squash that no pool can reach yet, every pool shorter than its width to the
        # last level, leaves them whole too; past it, the pools that go on as they are
        # price the levels left: _going_on, every pool where squash_grows)
        left = depth - level + 1
        merges = sum(sizes.get(m, 1) * merge_elements(len(tup), m, squashing)
                     for (tup, _, m) in pending)
        whole = squash is None or all(len(tup) + m * left <= width for (tup, _, m) in pending)
        units = TUPLE_WORK * (sum(enumeration_elements(sizes[m], m) for m in fresh)
                              + merges * (left if whole else 1))
        if rerolls is not None:
            units += TUPLE_WORK * rerolls.priced(pending)
        if (not whole and left > 1
                and units + TUPLE_WORK * merges * (left - 1) > limits.work_limit()):
            # only near the budget: the levels left cost at least what the pools that go
            # on as they are cost now (_going_on), each
            units += TUPLE_WORK * (left - 1) * _going_on(pending, sizes, hits, shift, squash)
        limits.check(units, "exploding the dice of this pool")
        for m in fresh:
            mcache[m] = [(tuple(v + shift for v in extra) if shift else extra, we,
                          sum(map(hits.__contains__, extra)))
                         for extra, we in _multisets(base, m).items()]
        budget.plan(merges, "exploding the dice of this pool")  # (sizes[m] == len(mcache[m]))
        last = level == depth
        get = nxt.get
        for (tup, mid, m), w in pending.items():
            scale = w * total ** (top - m)
            if m == 0:
                key = (tup, mid, 0)
                nxt[key] = get(key, 0) + scale
                continue
            budget.spend(len(mcache[m]) * merge_elements(len(tup), m, squashing))
            # (the merge inlined, one loop each way: a call to _merge and to sq a merge
            # were a third of an explosion's time, 10d2!pdl75ro<=4)
            if squash is None:
                for extra, we, m2 in mcache[m]:
                    key = (tuple(sorted(tup + extra)), mid, 0 if last else m2)
                    nxt[key] = get(key, 0) + scale * we
            else:
                for extra, we, m2 in mcache[m]:
                    t = sorted(tup + extra)
                    mid2 = mid
                    if len(t) > width:
                        cut = len(t) - hi
                        if need_mid:
                            mid2 = mid + sum(t[lo:cut])
                        del t[lo:cut]
                    key = (tuple(t), mid2, 0 if last else m2)
                    nxt[key] = get(key, 0) + scale * we
            if len(nxt) > MAX_POOL_STATES:
                _too_many(nxt)
        pending = nxt
    out: dict[Any, int] = {}
    for (tup, mid, _), w in pending.items():
        out[(tup, mid)] = out.get((tup, mid), 0) + w
    return out


class _RerollAfter:
    """The elements the reroll ``op`` (``rr``/``ro``) will plan over the pools an
    explosion has finished so far (:func:`_pool_op`'s price: a pool of ``r`` matching
    dice of ``len`` merges ``C(r + d - 1, d - 1)`` redraws, ``len + 1`` elements each, ``d``
    the faces it draws from): a lower bound of that step, as each pool done exploding is a
    pool of the result. Each pool priced once (cached), each value matched once."""

    def __init__(self, op: Op, base: W) -> None:
        self.op = op
        self.draw = len(base) if op.kind == "ro" else sum(
            1 for f in base if not op.matches(f))
        self.hit: dict[Any, bool] = {}
        self.seen: set[tuple[Any, ...]] = set()
        self.total = 0

    def priced(self, pending: dict[tuple[tuple[Any, ...], Any, int], int]) -> int:
        """The price over the pools of ``pending`` done exploding (``m == 0``), with those
        seen at earlier levels. O(new pools x their dice)."""
        if not self.draw:
            return 0
        hit, seen, d = self.hit, self.seen, self.draw
        for tup, _mid, m in pending:
            if m or tup in seen:
                continue
            seen.add(tup)
            r = 0
            for v in tup:
                h = hit.get(v)
                if h is None:
                    h = hit[v] = bool(self.op.matches(v))
                r += h
            self.total += math.comb(r + d - 1, d - 1) * (len(tup) + 1)
        return self.total


def _going_on(pending: dict[tuple[tuple[Any, ...], Any, int], int], sizes: dict[int, int],
              hits: set[Any], shift: int, squash: tuple[int, int, bool] | None) -> int:
    """The merges of this level of a squashed explosion (:func:`_explode`) that every
    later level costs at least: those of the pending pools that go on as they are. A
    pool as wide as the squash whose kept lowest are at most, and kept highest at least,
    a value ``v`` that a matching face shows (``v`` the same for the same kept dice)
    goes on, if it explodes ``k`` dice, to the pool of its ``k`` fresh dice all showing
    ``v``: the same kept dice, the middle sum ``k v`` more (so two distinct pools stay
    distinct), exploding ``k`` again, at the same price; a pool done exploding is carried
    as it is. Where no pool that explodes goes on, no later level is claimed (the
    explosion may stop): 0. ``--6d12e5kl1`` priced one level at a time, refused at the
    budget's edge (48 M units counted); ``squash_grows`` is the case where every pool goes
    on. O(pending pools x log faces)."""
    if squash is None:
        return 0
    hi, lo, _mid = squash
    if hi < 0 or lo < 0:
        return 0
    width = hi + lo
    try:
        shows = sorted(f + shift for f in hits)
    except TypeError:  # (faces that do not compare)
        return 0
    going = 0
    exploding = False
    for tup, _, m in pending:
        if m == 0:
            going += merge_elements(len(tup), 0, True)
            continue
        if len(tup) != width:
            continue
        try:
            i = bisect.bisect_left(shows, tup[lo - 1]) if lo else 0
            if i == len(shows) or (hi and shows[i] > tup[lo]):
                continue
        except TypeError:
            return 0
        exploding = True
        going += sizes[m] * merge_elements(width, m, True)
    return going if exploding else 0


def _pool_op(states: dict[tuple[Any, ...], int], op: Op, base: W, depth: int,
             budget: _Budget, then: Op | None = None) -> dict[tuple[Any, ...], int]:
    out: dict[tuple[Any, ...], int] = {}
    kind = op.kind
    what = f"the '{op.spelled or kind}' step of this pool"
    first = step_elements(op, sum(len(t) for t in states), len(states))
    budget.plan(first, what)
    budget.spend(first)

    def put(tup: tuple[Any, ...], w: int) -> None:
        budget.spend(len(tup) + 1)
        out[tup] = out.get(tup, 0) + w
        if len(out) > MAX_POOL_STATES:
            _too_many(out)

    # (rr and ra merge inline and count a state at a time: a call a merge ran 1.5-2 us,
    # three times its price: 1d658kh1ra>=-3rr>5 spent 4.7 s on 3.6 M of them)
    spent = 0

    def merged(elements: int) -> None:
        """One state's merges done: counted every _SPEND_EVERY elements, and the states'
        cap checked."""
        nonlocal spent
        spent += elements
        if spent > _SPEND_EVERY:
            budget.spend(spent)
            spent = 0
        if len(out) > MAX_POOL_STATES:
            _too_many(out)

    if kind == "cnt":
        for tup, w in states.items():
            put(tuple(sorted(op.score(v) for v in tup)), w)
        return out
    if kind == "mt":  # the number of matched sets, as a one-element tuple
        for tup, w in states.items():
            put((match_count(tup, op),), w)
        return out
    if kind in ("k", "p") and not any(s.by_value for s in op.sels):
        # the highest/lowest of a sorted tuple are its ends: two slices, no index set
        hi, lo = (max(x, 0) for x in _ends(op))
        for tup, w in states.items():
            cut = max(len(tup) - hi, lo)
            if kind == "k":
                put(tup[:lo] + tup[cut:] if cut > lo else tup, w)
            else:
                put(tup[lo:cut], w)
        return out
    if kind in ("k", "p", "mi", "ma"):
        for tup, w in states.items():
            if kind in ("k", "p"):
                picked = select(tup, op)
                keep = picked if kind == "k" else set(range(len(tup))) - picked
                new = tuple(v for i, v in enumerate(tup) if i in keep)
            elif kind == "mi":
                new = tuple(sorted(max(v, op.sels[-1].num) for v in tup))
            else:
                new = tuple(sorted(min(v, op.sels[-1].num) for v in tup))
            put(new, w)
        return out
    total = sum(base.values())
    if kind in ("rr", "ro"):
        draw = {u: c for u, c in base.items() if not op.matches(u)} if kind == "rr" else base
        dtotal = sum(draw.values())
        # (each value's match looked up once: a call a die was 0.1 s of 4 246 pools of 112
        # dice before the step's price, 10d2!pdl75ro<=4)
        hit = {v: bool(op.matches(v)) for v in {v for tup in states for v in tup}}
        split = {tup: tuple(v for v in tup if not hit[v]) for tup in states}
        top = max(len(tup) - len(fixed) for tup, fixed in split.items())
        # priced before any redraw is enumerated (6d20ro>6dl4kh4 enumerated 49 M units of
        # redraws, then was refused): the multisets of every size, then the merges
        faces = len(draw)
        sizes = {m: math.comb(m + faces - 1, faces - 1) for m in
                 {len(t) - len(f) for t, f in split.items()}}
        limits.check(TUPLE_WORK * (sum(enumeration_elements(c, m) for m, c in sizes.items() if m)
                                   + sum(sizes[len(t) - len(f)] * (len(t) + 1)
                                         for t, f in split.items())), what)
        cache: dict[int, dict[tuple[Any, ...], int]] = {}
        for m in {len(tup) - len(fixed) for tup, fixed in split.items()}:
            cache[m] = _multisets(draw, m)
        budget.plan(sum(len(cache[len(t) - len(f)]) * (len(t) + 1) for t, f in split.items()),
                    what)
        for tup, w in states.items():
            fixed = split[tup]
            m = len(tup) - len(fixed)
            scale = w * dtotal ** (top - m)
            redraws = cache[m]
            for extra, we in redraws.items():
                new = tuple(sorted(fixed + extra))
                out[new] = out.get(new, 0) + scale * we
            merged(len(redraws) * (len(tup) + 1))
        budget.spend(spent)
        return out
    if kind == "ra":
        # (a merge a face: the new tuple, its sort, the entry and the weight's product,
        # 0.9-1.1 us for 1-2 dice: 1d658kh1ra>=-3 ran 0.47 s of them priced 10 M units)
        budget.plan(sum(len(base) * (len(t) + _RA_ELEMENTS) for t in states), what)
        for tup, w in states.items():
            if any(op.matches(v) for v in tup):
                for u, c in base.items():
                    new = tuple(sorted((*tup, u)))
                    out[new] = out.get(new, 0) + w * c
                merged(len(base) * (len(tup) + _RA_ELEMENTS))
            else:
                put(tup, w * total)
        budget.spend(spent)
        return out
    if kind == "ce":  # pragma: no cover - Pool refuses '!!' after keep/drop/explode
        raise AssertionError("compounding in the general engine")
    # "e", "pe", "eo": the explosion, pools kept whole
    exploded = _explode(states, op, base, None, depth, budget, then)
    for (tup, _mid), w in exploded.items():
        put(tup, w)
    return out
