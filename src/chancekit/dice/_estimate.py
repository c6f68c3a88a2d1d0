"""A whole expression's work, bounded from below before any of it starts (private).

:func:`chancekit.dice._compile.compile_tree` charges each step's estimate as the step is
reached, so an expression whose cheap first steps fit and whose later step does not was
refused only after the first steps ran (``-+d999999/4-5%37``: 3.8 s of maps over a million
outcomes, then refused). This pass walks the syntax tree first and adds, for every step
whose cost can be known from the tree alone, a **lower bound** of what that step will
charge: the power of a plain ``NdX``, the map of a unary minus or of an arithmetic step
with a constant side (:data:`~chancekit.limits.MAP_WORK`, or
:data:`~chancekit.limits.FRACTION_MAP_WORK` where the outcomes are surely fractions), the
pairs of a pairwise step. Outcome counts are bounded from below too (``NdX`` has exactly
``N(X - 1) + 1`` sums; ``|A + B| >= |A| + |B| - 1`` for sets of numbers; keeping the ``m``
highest or lowest of ``N`` dice of ``X`` faces, rerolled once or not, still gives every sum
of ``m`` faces: at least ``m(X - 1) + 1``). A pool whose operators act on each die alone
(explosions, rerolls, clamps, counts ``cs``), or such operators then ``ra``, is priced by
building its one die first (as the evaluation will, which reuses it): the power of ``n``
of them is then known exactly (``79d20!+d962cs>2`` exploded and summed 79 dice for 1.6 s,
then was refused). Steps it cannot read (other pool operators, rolled counts) count as
free and as one outcome.

A pairwise step (``*``, ``/``, ``//``, ``%``, a comparison, or ``+``/``-`` of fractions)
whose sides have at least ``MAX_PAIRS`` pairs of outcomes between them is refused by
``MAX_PAIRS`` when it is reached, and a sum or difference whose sides have more than
``MAX_OUTCOMES + 1`` outcomes between them by ``MAX_OUTCOMES``; this pass raises
:class:`Refused` for them instead, before any work (``d8*(-10d970946kh1)`` kept the
highest of ten million-faced dice for 1.8 s, then was refused; ``6d63525+5d136511``
summed both sides, 1.2 s, then was refused).

Because every term is at most what the evaluation will charge, refusing when the bound
passes ``MAX_WORK`` refuses only what the evaluation would refuse anyway — now, before any
work. Cost: one walk of the tree, O(nodes) (the faces of ``d{...}`` lists are read once).

The evaluation prices the tree again as it learns (issue #31): under :func:`remembering`
the bound of every node is kept, a node evaluated is replaced by :func:`known` (its exact
outcome count, no work left), and only its ancestors are priced again, O(depth) a time.
So a cheap side the tree cannot read, evaluated first, tells the price of the step it
feeds before the expensive side runs (``24919dF+9d2ph4kl3`` summed 24 919 dice for 1.3 s,
then the sum was refused).

>>> from chancekit.dice._parse import parse
>>> lower_bound(parse("-d999999 / 4 - 5", "avrae")).work > 50_000_000
True
>>> lower_bound(parse("3d6 + 4", "avrae")).lo
16
"""

from __future__ import annotations

import contextvars
import math
from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, cast

from chancekit.dice._ast import Binary, Call, Dice, Group, Node, Num, Unary
from chancekit.dice.distribution import EXPLODE_DEPTH, Distribution, d, faces
from chancekit.dice.facewalk import _SAMPLED, SMALL_KEEP, extreme_work, face_walk_work
from chancekit.dice.selectors import faces_matched, matched_count, matched_ranges
from chancekit.errors import ChancekitError, LimitError
from chancekit.limits import (
    FRACTION_MAP_WORK,
    FRACTION_PAIR_WORK,
    MAP_WORK,
    MAX_OUTCOMES,
    MAX_PAIRS,
    MAX_WEIGHT_BITS,
    PAIR_WORK,
    SHIFT_WORK,
    mul_work,
    power_work,
)

__all__ = ["Bound", "Refused", "dice_bound", "known", "lower_bound", "remembering"]


class Refused(Exception):
    """A step the tree shows will be refused by its own limit (``MAX_PAIRS``): ``what``
    says why, ``col`` is the step's column."""

    def __init__(self, what: str, col: int, limit: str, value: int) -> None:
        super().__init__(what)
        self.what, self.col, self.limit, self.value = what, col, limit, value


@dataclass(frozen=True)
class Bound:
    """What is known of a node's result before computing it: at least ``lo`` outcomes,
    ``const`` (exactly one outcome), ``frac`` (surely some outcome is not an integer),
    ``consecutive`` (integers with no gap: plain dice and their shifts), ``work``: a
    lower bound of the units its evaluation will charge, and ``tbits``: a lower bound of
    the bit length of its total weight (``NdX``: ``X**N``; a one-to-one map keeps it; a
    sum of independent sides multiplies the totals, Gauss's lemma: no common factor)."""

    lo: int
    const: bool
    frac: bool
    consecutive: bool
    work: int
    tbits: int = 1
    #: surely integers close enough for a polynomial sum (``Distribution._dense``)
    dense: bool = False
    #: the outcomes surely hold this many consecutive integers (``A // b``: a run of
    #: ``A`` consecutive, divided by one ``b``); 0 when unknown
    run: int = 0
    #: a multiple of the gcd of the (integer) outcomes, 0 when unknown: an integer ``c``
    #: that does not divide it surely leaves a Fraction in ``A / c`` (the gcd of a set of
    #: products ``x y`` is ``gcd(A) gcd(B)``; ``(d% * 8d884kl3)/337990 + ...`` mapped
    #: 105 000 Fractions for 1.2 s before the sum after it was priced at their rate)
    gcd: int = 0
    #: surely integers spread out (``Distribution._dense`` false: a sum with them goes
    #: pair by pair, and refuses past ``MAX_PAIRS``); known only of computed results
    sparse: bool = False
    #: the reduced denominator of every outcome (1: integers) where the tree knows it,
    #: else 0 (``1/76 + d100``: 76, so ``* 6`` leaves 38, surely Fractions)
    den: int = 0


_UNKNOWN = Bound(1, False, False, False, 0)

#: the bounds of one evaluation's nodes, by ``id`` (:func:`remembering`)
_MEMO: contextvars.ContextVar[dict[int, Bound] | None] = contextvars.ContextVar(
    "chancekit_bounds", default=None)


def remembering(memo: dict[int, Bound]) -> contextvars.Token[dict[int, Bound] | None]:
    """Keep every bound :func:`lower_bound` computes in ``memo`` (by node ``id``) and read
    it back: the caller replaces the nodes it evaluates by :func:`known` and deletes the
    bounds of their ancestors, so pricing the tree again costs O(depth). Returns the token
    to reset (``_MEMO.reset``)."""
    return _MEMO.set(memo)


def forget(token: contextvars.Token[dict[int, Bound] | None]) -> None:
    """End :func:`remembering`."""
    _MEMO.reset(token)


def known(dist: Any, work: int = 0) -> Bound:
    """The bound of a node whose result ``dist`` (a Distribution) is computed: its exact
    outcome count and total weight, ``work`` left (none). O(1).

    >>> from chancekit.dice.distribution import d
    >>> known(d(6)).lo, known(d(6)).dense
    (6, True)
    """
    w = dist._w
    n = len(w)
    ints = dist._int
    span = next(reversed(w)) - next(iter(w)) + 1 if ints and n else 0
    return Bound(n, n == 1, not ints, ints and span == n, work, dist._total.bit_length(),
                 ints and span <= 4 * n + 64, gcd=_outcomes_gcd(w) if ints else 0,
                 sparse=ints and span > 4 * n + 64, den=1 if ints else 0)


def _outcomes_gcd(w: Any) -> int:
    """The gcd of the first (at most 64) integer outcomes of ``w``: a multiple of the gcd
    of them all (what :attr:`Bound.gcd` needs). O(1)."""
    g = 0
    for i, x in enumerate(w):
        g = math.gcd(g, int(x))
        if g == 1 or i >= 63:
            break
    return g


def _gcd_of(b: Bound) -> int:
    """A multiple of the gcd of the integer outcomes of a node of bound ``b``, 0 when
    unknown: consecutive integers (two at least) have gcd 1."""
    if b.gcd:
        return b.gcd
    return 1 if (b.consecutive or b.run >= 2) and not b.frac and (b.lo >= 2 or b.run >= 2) else 0
#: the functions of one argument (``chancekit.dice._compile.UNARY_FUNCTIONS``)
_ONE_ARG = ("floor", "ceil", "round", "abs", "trunc", "roundFast")
#: Foundry's functions of one argument charged a Fraction's rate an outcome
_HEAVY_ONE = ("sqrt", "cbrt", "exp", "log", "log2", "log10")


def lower_bound(node: Node) -> Bound:
    """The :class:`Bound` of ``node`` (see the module docstring)."""
    memo = _MEMO.get()
    if memo is None:
        return _lower_bound(node)
    got = memo.get(id(node))
    if got is None:
        got = memo[id(node)] = _lower_bound(node)
    return got


def _lower_bound(node: Node) -> Bound:
    if isinstance(node, Num):
        v = node.value
        return Bound(1, True, not isinstance(v, int), True, 0,
                     gcd=abs(v) if isinstance(v, int) else 0)
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, Group):
        parts = [lower_bound(it) for it in node.items]
        if not node.is_set and not node.ops and len(parts) == 1:
            return parts[0]
        ops = [op for op in node.ops if op.kind not in ("mark", "sort")]
        if parts and all(op.kind in ("k", "p") and op.sels
                         and all(s.cat in ("h", "l") for s in op.sels) for op in ops) and all(
                any(s.num >= len(parts) for s in op.sels) if op.kind == "k"
                else all(s.num <= 0 for s in op.sels) for op in ops):
            # (a keep's selectors are a union: kl4kh0 of three items keeps them all)
            # every item kept: their sum, |A + B| >= |A| + |B| - 1
            # (-(-7d125017, 444D2ro>6cs>-2)kl3 negated 875 k sums priced as one)
            return _items_added(parts, node)
        return Bound(1, False, False, False, sum(p.work for p in parts)
                     + _items_enumerated(node, parts, ops))
    if isinstance(node, Unary):
        inner = lower_bound(node.operand)
        if node.op == "+" or inner.const:
            return inner
        # (integers are negated as a shift, Distribution.__neg__; others mapped)
        rate = FRACTION_MAP_WORK if inner.frac else SHIFT_WORK
        # negated: the same outcome count, gaps and divisors
        return Bound(inner.lo, False, inner.frac, inner.consecutive,
                     inner.work + inner.lo * rate, inner.tbits, inner.dense,
                     gcd=inner.gcd, sparse=inner.sparse, den=inner.den)
    if isinstance(node, Binary):
        return _binary(node)
    if isinstance(node, Call) and node.name in _HEAVY_ONE and len(node.args) == 1:
        # roots and logarithms: one map at a Fraction's rate (``call`` charges it)
        inner = lower_bound(node.args[0])
        if inner.const:
            return inner
        return Bound(1, False, False, False, inner.work + inner.lo * FRACTION_MAP_WORK)
    if isinstance(node, Call) and node.name in _ONE_ARG and len(node.args) == 1:
        # one map of the argument's outcomes (``call``); whole numbers with no gap stay
        # themselves under floor/ceil/round; abs folds any numbers at most in two
        # ((-9999993+d505)/abs(d3*10D%/7d6dh2/-13): its 29 600 quotients, priced as one,
        # ran 0.5 s before the pairs of the '/' after abs were refused)
        inner = lower_bound(node.args[0])
        if inner.const:
            return inner
        rate = FRACTION_MAP_WORK if inner.frac else MAP_WORK
        same = inner.consecutive and node.name != "abs"
        lo = inner.lo if same else (
            (inner.lo + 1) // 2 if inner.consecutive or node.name == "abs" else 1)
        return Bound(lo, False, False, inner.consecutive, inner.work + inner.lo * rate,
                     inner.tbits if same else 1)
    children = [getattr(node, name) for name in ("count", "sides", "args", "operand")
                if hasattr(node, name)]
    work = 0
    for c in children:
        for part in (c if isinstance(c, tuple) else (c,)):
            if isinstance(part, Node):
                work += lower_bound(part).work
    return Bound(1, False, False, False, work)


def _items_enumerated(node: Group, parts: list[Bound], ops: list[Any]) -> int:
    """The units of a set whose operators surely send it to the enumeration of its items
    (``evaluate.items_sum``: not one keep of the highest/lowest, not operators acting on
    each item alone): every tuple of at least ``lo`` outcomes an item, merged one item
    after another, and the first step's read of them; :class:`Refused` past
    ``MAX_POOL_STATES`` tuples, where it refuses. 0 for other sets. O(items)."""
    from chancekit.dice.evaluate import _is_per_die, items_work, step_elements
    from chancekit.limits import MAX_POOL_STATES, TUPLE_WORK

    if not node.is_set or not ops or not parts or all(_is_per_die(op) for op in ops) or (
            len(ops) == 1 and len(ops[0].sels) == 1 and not ops[0].sels[0].by_value):
        return 0
    count = 1
    for p in parts:
        count *= p.lo
        if count > MAX_POOL_STATES:
            raise Refused(f"enumerating the items of this set: more than {MAX_POOL_STATES:,}"
                          f" tuples, past the limit MAX_POOL_STATES = {MAX_POOL_STATES:,}; "
                          "use fewer or smaller items", node.col, "MAX_POOL_STATES", count)
    return items_work([p.lo for p in parts]) + step_elements(
        ops[0], count * len(parts), count) * TUPLE_WORK


def dice_bound(node: Dice) -> Bound:
    """The bound of one group of dice ``NdX...`` alone (no memo: for the pools a rolled
    count makes, one per count); raises :class:`Refused` where the pool's own limit will
    refuse it."""
    return _dice(node)


def _idle_per_die(op: Any, faces: Any) -> bool:
    """A reroll that matches no face, or a clamp below the lowest or above the highest
    face, of a die of integer faces: it leaves every die as rolled. O(selectors) for a
    range of faces, O(faces) else."""
    if op.kind not in ("ro", "rr", "mi", "ma") or not faces or op.steps:
        return False
    if not (isinstance(faces, range) or all(type(f) is int for f in faces)):
        return False
    if op.kind in ("ro", "rr"):
        return faces_matched(op, _distinct(faces)) == 0
    c = op.sels[-1].num
    return c <= min(faces) if op.kind == "mi" else c >= max(faces)


def _idle_first(op: Any, faces: Any) -> bool:
    """``op``, first on dice of integer ``faces``, leaves them as rolled: a reroll once
    that matches every face (an explosion that matches none is the general engine's,
    which skips it: :func:`_general` follows it). O(selectors) for a range, O(faces)
    else."""
    if op.kind != "ro":
        return False
    if not faces or not (isinstance(faces, range) or all(type(f) is int for f in faces)):
        return False
    distinct = _distinct(faces)
    return faces_matched(op, distinct) == len(distinct)


def _distinct(faces: Any) -> Any:
    """A die's distinct faces in increasing order (a range as it is), None where they do
    not compare. O(faces log faces), O(1) for a range."""
    if isinstance(faces, range):
        return faces
    try:
        return sorted(set(faces))
    except TypeError:
        return None


def _kept(node: Dice) -> int | None:
    """How many dice's faces are summed when the operators only keep or drop the highest
    or lowest dice (one such operator) or reroll once (every face stays possible), else
    None (operators this pass does not read)."""
    n = node.count
    kept = n
    keeps = 0
    for op in node.ops:
        if op.kind in ("mark", "sort", "match", "ro"):
            continue
        if op.kind in ("k", "p") and len(op.sels) == 1 and not op.sels[0].by_value:
            keeps += 1
            num = min(max(op.sels[0].num, 0), n)
            kept = num if op.kind == "k" else n - num
            continue
        return None
    return kept if keeps <= 1 else None


def _dice(node: Dice) -> Bound:
    n = node.count
    from chancekit.dice.evaluate import (
        _covering_keep,
        _drops_none,
        leaves_no_die,
        merge_keeps,
        strip_idle,
    )

    if node.ops and not any(o.steps for o in node.ops):
        # what evaluate.pool_sum reads: no breakdown marks, no drop of none (pl0), no
        # operator that matches no face (strip_idle), each run of keeps (drops) of one
        # end as one (kl5kl2)
        distinct = _distinct(node.faces)
        ops = tuple(op for op in node.ops if op.kind not in ("mark", "sort", "match")
                    and not _drops_none(op))
        ops = merge_keeps(strip_idle(distinct if distinct is not None
                                     else list(dict.fromkeys(node.faces)), ops))
        if ops != node.ops:
            return _dice(replace(node, ops=ops))
        # keeps and drops that leave no die before any other step: the answer 0, no pool
        # built (pool_sum's next step)
        if ops and distinct and leaves_no_die(distinct, n, ops):
            return Bound(1, True, False, True, 0)
    idle = [op for op in node.ops if _idle_per_die(op, node.faces)]
    if idle:
        # a clamp or reroll that moves no face leaves the die as it is (per_die): priced
        # as the pool without it (((8d4)d8)d6ro8pl5: 200 keeps of up to 256 dice priced
        # as none, each refused in turn until the last, at 1.9 s)
        return _dice(replace(node, ops=tuple(op for op in node.ops if op not in idle)))
    if node.ops and not node.ops[0].steps and _idle_first(node.ops[0], node.faces):
        # a first reroll once of every face: the dice rolled again, the same law (the
        # engine skips it: evaluate._rerolls_all; 8d2ro>=1ph2mi2 was priced 2.5x its work)
        return _dice(replace(node, ops=node.ops[1:]))
    i = _covering_keep(node.ops, n)  # (evaluate.pool_sum's own first step)
    if i is not None:
        # a keep of every die: the pool without it (d560780kh0kh2ra1 was priced as
        # unknown, then its 'ra' charged 42 M units after 1.6 s)
        return _dice(replace(node, ops=node.ops[:i] + node.ops[i + 1:]))
    if node.ops:
        pooled = _pool(node)
        if pooled is not None:
            return pooled
    if node.ops:  # the m dice kept: at least m(k - 1) + 1 sums
        m = _kept(node)
        if m is None:
            clamped = _clamped(node)
            if clamped is not None:
                return clamped
            return _general(node)
        if m < n or any(op.kind == "ro" for op in node.ops):
            return _keep(node, m)
    faces = node.faces
    if isinstance(faces, range) and faces.step == 1:
        k, lo_f, hi_f, tbits = len(faces), faces.start, faces.stop - 1, len(faces).bit_length()
        consecutive = True
    else:
        counts = Counter(faces)
        if not counts or not all(isinstance(f, int) for f in counts):
            return _UNKNOWN
        k, lo_f, hi_f = len(counts), min(counts), max(counts)
        g = math.gcd(*counts.values())
        tbits = (sum(counts.values()) // g).bit_length()
        consecutive = hi_f - lo_f + 1 == k
    if n == 0 or k == 1:
        return Bound(1, True, False, True, 0)
    lo = n * (k - 1) + 1
    work = 0
    span = n * (hi_f - lo_f) + 1
    total = _total(faces) if not node.ops else None
    if n >= 2 and total is not None:
        # exactly what repeat_sum charges, and refused from the tree where it refuses
        # (2518d100 beside a pool and a rolled count: refused after them, 1 s)
        work = _power(hi_f - lo_f + 1, lo_f, hi_f, total, n, node.col)
    elif n >= 2 and span <= MAX_OUTCOMES and (span * n * tbits <= MAX_WEIGHT_BITS or (
            total is not None and span * n * math.log2(max(2, total)) <= MAX_WEIGHT_BITS)):
        # what repeat_sum charges (also past its first, rough test of the weights' bits:
        # 25470dF is summed, 48 M units, and was priced as free)
        work = power_work(hi_f - lo_f + 1, span, n * tbits)
    return Bound(lo, False, False, consecutive, work, n * (tbits - 1) + 1)


def _total(faces: object) -> int | None:
    """The total weight of the die of ``faces`` (a range, or a list of ints: their counts
    over their gcd), None for other faces."""
    if isinstance(faces, range):
        return len(faces)
    counts = Counter(cast(list[int], faces))
    if not counts:
        return None
    return sum(counts.values()) // math.gcd(*counts.values())


def _general(node: Dice) -> Bound:
    """The bound of a pool that surely goes to the general engine
    (``evaluate._general``: operators after a keep, several keeps, ``ra`` before another
    operator...): it enumerates every multiset of its ``n`` dice first, charging
    ``C(n + F - 1, F - 1) x (n + F)`` tuple elements (F distinct faces), and refuses past
    ``MAX_POOL_STATES`` (raised here as :class:`Refused`). ``_UNKNOWN`` for pools another
    engine may take (the dispatch of ``evaluate.pool_sum`` read backwards). O(ops)."""
    from chancekit.dice.evaluate import _RA_ELEMENTS as RA_ELEMENTS
    from chancekit.dice.evaluate import (
        _covered,
        _is_per_die,
        _squash_of,
        enumeration_elements,
        kept_after,
        look_ahead,
        multisets_upto,
        step_elements,
    )
    from chancekit.dice.evaluate import _idle as engine_idle
    from chancekit.dice.evaluate import _rerolls_all as rerolls_all
    from chancekit.limits import MAX_POOL_STATES, TUPLE_WORK, work_limit

    ops = tuple(op for op in node.ops if op.kind not in ("mark", "sort", "match"))
    n = node.count
    if (n >= 2 and len(ops) == 2 and ops[0].kind == "e" and ops[1].kind in ("k", "p")
            and len(ops[1].sels) == 1 and not ops[1].sels[0].by_value):
        return _explode_keep(node, ops[0], ops[1])
    # (one die is priced like a pool: D996ra>7e<1kh0, d400000k>=7pl4!85)
    if (n < 1 or not ops or all(_is_per_die(op) for op in ops)
            or any(op.kind in ("ce", "mt") for op in ops)
            or (len(ops) == 2 and ops[0].kind == "e" and ops[1].kind in ("k", "p"))):
        return _UNKNOWN
    for op in ops:
        if op.kind not in ("rr", "ro", "mi", "ma"):
            if op.kind == "k" and not any(s.by_value for s in op.sels) and _covered(op, n):
                return _UNKNOWN
            break
    *head, last = ops
    per = all(op.kind in ("rr", "ro", "mi", "ma") for op in head)
    if per and (last.kind == "ra" or (last.kind in ("k", "p") and len(last.sels) == 1
                                      and not last.sels[0].by_value)):
        return _UNKNOWN
    f = len(set(node.faces))
    if f < 2:
        return _UNKNOWN
    states = multisets_upto(n, f, MAX_POOL_STATES)
    if states > MAX_POOL_STATES:
        raise Refused(f"enumerating the {n} dice of this pool: more than {MAX_POOL_STATES:,} "
                      f"multisets, past the limit MAX_POOL_STATES = {MAX_POOL_STATES:,}; use "
                      "fewer dice or fewer operators", node.col, "MAX_POOL_STATES", states)
    work = enumeration = enumeration_elements(states, n) * TUPLE_WORK
    # then its first step reads every multiset (``_pool_op`` plans n + 1 elements each),
    # and so does the step after an idle one (a reroll or drop by value that matches no
    # face leaves them as they are: 9d10rr<0p<1kh4pl5 charged 23 M, was priced 7.4 M)
    # and then the steps whose states are known: after idle steps, the multisets; after
    # a keep or drop by value, every multiset of up to n dice over the r faces it leaves
    # (C(m + r - 1, r - 1) of m dice; 11d10pl0p<4ra<-2p7 planned 31 M units for its
    # 'ra' after the drop, then was refused)
    # (the states and their dice in all: sum over m <= n of C(m + r - 1, r - 1) is
    # C(n + r, r), and of m C(m + r - 1, r - 1) is r C(n + r, r + 1))
    # (after a keep or drop of the highest/lowest leaving K dice, every multiset of K faces:
    # the other dice at the extreme faces; 8d12ro52ph3kh4k>7 charged its keep after the
    # drop when reached, at 1.3 s)
    count, dice, narrowed, kept = states, states * n, False, n
    fresh = True
    base = dict(Counter(node.faces))
    squash = _squash_of(ops)
    for i, op in enumerate(ops):
        if engine_idle(base, op) or (fresh and rerolls_all(base, op)):
            continue  # the engine skips it (no clamp came before: the loop stops at one)
        if squash is not None and i == len(ops) - 2:
            break  # the squashed explosion prices itself its own way
        fresh = False
        # (a last reroll reads each pool and its dice once: evaluate._last_reroll)
        step = (dice + count if i == len(ops) - 1 and op.kind in ("rr", "ro")
                else step_elements(op, dice, count))
        if op.kind == "ra":
            step += f * (dice + RA_ELEMENTS * count)
        work += step * TUPLE_WORK
        if _idle(op, kept, node.faces):
            continue
        if op.kind == "ra" and not narrowed:
            # every multiset of K dice is a state, so after the 'ra' every multiset of
            # K + 1 matching faces is one (any K of them matched, the last one added), and
            # every multiset of K faces that match none is left as it was: the step after
            # it reads them all (D996ra>7e<1kh0: the 'kh0' after it, priced when reached,
            # was refused at 1 s)
            hit = faces_matched(op, base)
            grown = multisets_upto(kept + 1, hit, MAX_POOL_STATES)
            if kept >= 1 and multisets_upto(kept + 1, f, MAX_POOL_STATES) <= MAX_POOL_STATES:
                # every multiset of K + 1 faces with a match is one: one with a face that
                # does not match is that face added to the rest, and one of matches alone
                # is a match added to the others (7d12ra<=5ph2: 28 821, not 330, then its
                # 'ph2' over them, refused past the budget at 52 M units)
                grown = (math.comb(kept + f, f - 1)
                         - (math.comb(kept + f - hit, f - hit - 1) if f > hit else 0))
            left = multisets_upto(kept, f - hit, MAX_POOL_STATES) if f > hit else 0
            if grown + left > MAX_POOL_STATES:
                raise Refused("the keep/drop/explode pool engine holds too many states: "
                              f"more than {MAX_POOL_STATES:,} after "
                              f"'{op.spelled or op.kind}', past the limit MAX_POOL_STATES; "
                              "use fewer dice or fewer operators", node.col,
                              "MAX_POOL_STATES", grown + left)
            count, dice = grown + left, (kept + 1) * grown + kept * left
            narrowed = True
            continue
        if (not narrowed and op.kind in ("k", "p") and op.sels
                and all(s.cat in ("h", "l") for s in op.sels)):
            # (a union of both ends, kl4kh4 of 9 dice, keeps 8: every multiset of 8 faces
            # too, the dropped die at the 4th lowest; a drop of both ends leaves the middle,
            # the dropped at the extreme faces. -+1*(...)+9d12kl4kl0kh4ph1 priced none of
            # its steps after the keep, and was refused past the budget at 59 M units)
            kept = kept_after(op, kept)
            count = multisets_upto(kept, f, MAX_POOL_STATES)
            dice = kept * count
            continue
        vals = [sel for sel in op.sels if sel.by_value]
        if (not narrowed and op.kind in ("k", "p") and vals and all(
                sel.by_value or (op.kind == "p" and sel.num <= 0) for sel in op.sels)):
            # (a drop of none of the highest/lowest merged in: pl0p<4 is p<4)
            matched = faces_matched(replace(op, sels=tuple(vals)), base)
            r = matched if op.kind == "k" else f - matched
            if 0 < r < f:
                count, dice = math.comb(kept + r, r), r * math.comb(kept + r, r + 1)
                narrowed = True
                continue
        break
    # its first reroll or explosion after keeps, as the engine prices it before the
    # enumeration (6d20ph2ro0kh4!5 * 33d264kl9: the keep ran first, then the pool was
    # refused)
    ahead, what = look_ahead(base, n, ops, EXPLODE_DEPTH)
    if ahead > work_limit():  # the step's own refusal, before any step of the tree
        raise Refused(f"{what} needs too much work: about {ahead:,} units, past the "
                      f"MAX_WORK budget left ({work_limit():,}); use fewer dice or fewer "
                      "operators, or raise it (max_work=N, --max-work N)",
                      node.col, "MAX_WORK", ahead)
    # (both count the enumeration: the step ahead adds the rest, after the keeps the tree
    # followed; -9d12kh2e8 ran its enumeration and keep, then was refused by the
    # explosion at 0.9-1.4 s)
    return Bound(1, False, False, False, work + max(0, ahead - enumeration))


def _explode_keep(node: Dice, op: Any, last: Any) -> Bound:
    """The bound of ``NdX`` exploding on its top face, then one keep or drop of the
    highest/lowest (``evaluate._explode_keep``): among its keeps is the one of the ``N``
    dice none of which exploded, over the ``X - 1`` other faces, priced as :func:`_keep`
    prices a keep (``5d968737dh1!``, roll20: the die's million faces were matched and
    copied for 1.8 s, then that keep was refused). ``_UNKNOWN`` for other dice."""
    faces, n = node.faces, node.count
    if not (isinstance(faces, range) and faces.step == 1 and len(faces) >= 3
            and matched_count(op, faces.start, faces.stop - 1) == 1 and op.matches(faces[-1])):
        return _UNKNOWN
    num = last.sels[0].num
    k = min(max(num, 0), n) if last.kind == "k" else max(0, n - num)
    f = len(faces) - 1
    if k <= 0 or k >= n:
        return _UNKNOWN
    if k == 1:
        work = extreme_work(cast(Distribution, _Shape(f, f)), n)
    else:
        work = face_walk_work(f, f, f.bit_length(), n, k) * 9 // 10
    return Bound(1, False, False, False, work)


def _idle(op: Any, n: int, faces: Any) -> bool:
    """Whether the pool operator ``op`` leaves every multiset of ``n`` dice of ``faces``
    as it is: a reroll or a drop by value that matches no face, a drop of none of the
    highest/lowest (``pl0``), a keep of all of them. O(faces)."""
    if not op.sels:
        return False
    if all(not sel.by_value for sel in op.sels):
        if op.kind == "p":
            return all(sel.num <= 0 for sel in op.sels)
        return op.kind == "k" and any(sel.num >= n for sel in op.sels)
    return (op.kind in ("rr", "ro", "p") and all(sel.by_value for sel in op.sels)
            and not any(op.matches(v) for v in set(faces)))


def _clamped(node: Dice) -> Bound | None:
    """The outcomes of dice of consecutive faces whose operators only clamp (``mi``,
    ``ma``) or reroll once (``ro``), then at most one keep or drop of the highest or
    lowest: each die shows the values of an interval of at least ``c`` of them (a clamp
    keeps an interval; a reroll of values within the raw faces leaves them or shows all
    the raw faces), so the ``m`` dice kept give at least ``m (c - 1) + 1`` sums, and
    consecutive ones. No work is claimed. None for other operators.
    (``-9D3 * 36d274079ro>=7mi100kl1``: its keep, priced as one outcome, ran 1 s, then the
    '*' was refused by its pairs.)"""
    faces, n = node.faces, node.count
    if not (isinstance(faces, range) and faces.step == 1 and len(faces) >= 2 and n >= 1):
        return None
    lo, hi = faces.start, faces.stop - 1
    kept = n
    for i, op in enumerate(node.ops):
        if op.kind in ("mark", "sort", "match"):
            continue
        if op.kind in ("mi", "ma"):
            c = op.sels[-1].num
            lo, hi = (max(lo, c), max(hi, c)) if op.kind == "mi" else (min(lo, c), min(hi, c))
        elif op.kind == "ro":
            # values within the raw faces: the reroll leaves them (none matched) or shows
            # every raw face (one did), an interval either way that holds them, and a
            # clamp of it holds the clamp of these (so [lo, hi] stays a lower bound)
            if lo < faces.start or hi > faces.stop - 1:
                return None
        elif (op.kind in ("k", "p") and len(op.sels) == 1 and not op.sels[0].by_value
              and i == len(node.ops) - 1):
            num = min(max(op.sels[0].num, 0), n)
            kept = num if op.kind == "k" else n - num
        else:
            return None
    values = hi - lo + 1
    if kept == 0:
        return Bound(1, True, False, True, 0)
    return Bound(kept * (values - 1) + 1, False, False, True, 0)


def _keep(node: Dice, m: int) -> Bound:
    """The bound of ``m`` of the ``count`` dice of ``node`` kept (highest or lowest): every
    sum of ``m`` faces; on a plain ``dN`` (``ro`` changes the die) the work of the keep:
    what :func:`~chancekit.dice.facewalk.extreme_work` charges for one die kept, nine
    tenths of :func:`~chancekit.dice.facewalk.face_walk_work` (a sampled price) else."""
    faces, n = node.faces, node.count
    k = len(faces) if isinstance(faces, range) else len(set(faces))
    if m == 0 or k <= 1:
        return Bound(1, True, False, True, 0)
    # (a reroll once before the keep leaves every face possible, with wider weights: the
    # keep's price, the cheapest of keep_work's ways, only grows with the weights' words,
    # so the plain die's is a lower bound; (1120d10-((8d4)d4)d10ro<=5pl51)*3 priced each
    # count's keep as no work and refused the 28th after 1.5 s. A reroll after the keep
    # sends the pool to the general engine: not priced here)
    kinds = [op.kind for op in node.ops if op.kind not in ("mark", "sort", "match")]
    plain = (isinstance(faces, range) and faces.step == 1 and n >= 2
             and "ro" not in kinds[next((i for i, x in enumerate(kinds) if x in ("k", "p")),
                                        len(kinds)):])
    work = 0
    if plain and m == 1:
        work = extreme_work(cast(Distribution, _Shape(k, k)), n)
    elif plain:
        # keep_work itself where no face is sampled (and the keep is not a small one the
        # face walk takes over Python integers at its own price); sampled, within 0.5 %
        # above it (faces spread over the die as keep_work picks them), so 99 % of it
        # (32d302kh10 was priced 27.9 M for 30.9 M: the rest of its expression ran, then
        # was refused at 51.5 M)
        if n * k <= SMALL_KEEP:
            share = 90
        else:
            share = 100 if k <= _SAMPLED else 99
        work = face_walk_work(k, k, k.bit_length(), n, m) * share // 100
    consecutive = isinstance(faces, range) and faces.step == 1
    return Bound(m * (k - 1) + 1, False, False, consecutive, work)


#: the most faces of a die whose pool :func:`_pool` prices by building one die of it
#: (``evaluate.per_die`` keeps those for the evaluation)
_UNIT_FACES = 5_000


def _pool(node: Dice) -> Bound | None:
    """The bound of a pool whose every operator acts on each die alone (explosions ``e``
    ``!``, rerolls ``rr`` ``ro``, clamps, keep/drop by value, counts ``cs``), or of such
    operators then ``ra``: the one die the evaluator builds (``evaluate.per_die``) is
    built here, so the power of ``n`` of them is priced exactly as ``repeat_sum`` will
    charge it (and refused now when it will refuse it); ``ra`` is priced by its two
    powers (every die, and the dice that do not match). The die is built as the
    evaluation would build it, charged to its budget (its own estimate first), and kept
    for it (``evaluate.per_die``). None for other pools, dice over :data:`_UNIT_FACES`
    faces, or a die that cannot be built (the evaluation then says why)."""
    from chancekit.dice.evaluate import RA_ENTRY_WORK, _is_per_die, per_die, ra_outcomes

    ops = tuple(op for op in node.ops if op.kind not in ("mark", "sort"))
    if not ops:
        return None
    per = all(_is_per_die(op) for op in ops)
    ra = ops[-1].kind == "ra" and all(op.kind in ("rr", "ro", "mi", "ma") for op in ops[:-1])
    if not (per or ra):
        return None
    f = node.faces
    head = ops if per else ops[:-1]
    n = node.count
    if not head and isinstance(f, range) and f.step == 1 and len(f) >= 2 and n:
        # ``NdX ra...`` on a plain die: its power is known without building the die, and
        # its outcomes are at least those of the sums with one die matched, plus one die
        # (d436839ra>5 has 873 677: built for 2.3 s, then the map of them was refused)
        hits = matched_count(ops[-1], f.start, f.stop - 1)
        lo = ra_outcomes(n, len(f), hits)
        return Bound(lo, False, False, False,
                     _power(len(f), f.start, f.stop - 1, len(f), n, node.col)
                     + lo * RA_ENTRY_WORK
                     + _ra_sum(n, len(f), hits, len(f), ops[-1].matches(f[-1]), len(f),
                               len(f) - 1), gcd=1)
    if (len(f) > _UNIT_FACES and isinstance(f, range) and f.step == 1 and len(ops) == 1
            and ops[0].kind in ("k", "p") and ops[0].sels):
        # a keep or drop by value alone on a big die (evaluate's closed form: the faces
        # kept, 0 for the others): at least its kept faces, and 0 (1d764054p2 / 2896d6
        # built its 764 054 faces, then MAX_PAIRS refused the '/')
        a, b = f.start, f.stop - 1
        picked = matched_ranges(ops[0], a, b)
        hits = sum(len(r) for r in picked)
        kept = hits if ops[0].kind == "k" else len(f) - hits
        if ops[0].kind == "k":
            ends = [picked[0].start, picked[-1].stop - 1] if picked else []
        else:  # the first and last faces no range takes
            ends = [] if not kept else [
                a if not picked or picked[0].start > a else picked[0].stop,
                b if not picked or picked[-1].stop <= b else picked[-1].start - 1]
        ends += [0] if kept < len(f) else []
        outs = kept + (kept < len(f) and not a <= 0 <= b)
        # and its sum priced (and refused) as repeat_sum will (-36d973704p<=7)
        work = _power(outs, min(ends), max(ends), len(f), n, node.col)
        return Bound(max(1, n * (outs - 1) + 1), outs == 1, False, False, work)
    if len(f) > _UNIT_FACES:
        if not (isinstance(f, range) and f.step == 1 and n >= 1
                and all(op.kind in ("ro", "rr") for op in head)):
            return None
        # rerolls of a big die, not built here: 'ro' leaves every face possible and 'rr'
        # all but those it matches, so the die keeps at least k distinct integers and n
        # of them (then 'ra' or not) at least n (k - 1) + 1 sums (d304854ro<3rr<=4ra<=4
        # * (7/8dF) built its 609 700 outcomes, 1 s, then MAX_PAIRS refused the pairs)
        k = len(f) - sum(matched_count(op, f.start, f.stop - 1)
                         for op in head if op.kind == "rr")
        return Bound(n * (k - 1) + 1, False, False, False, 0) if k >= 1 else None
    try:  # built and charged as the evaluation would: it reads the die built here
        die = d(len(f)) if isinstance(f, range) and f.start == 1 else faces(list(f))
        unit = per_die(die, head, EXPLODE_DEPTH) if head else die
    except LimitError as e:  # the evaluation would refuse it too: now, with the column
        raise Refused(str(e), node.col, e.limit or "MAX_WORK", e.value or 0) from None
    except ChancekitError:  # the evaluation will say it: priced as free
        return None
    outs = unit.outcomes()
    if not set(map(type, outs)) <= {int}:  # (in C: a call a face was most of the price
        return None                       # of d(16d%)rr<5's 1 585 dice, 0.7 s)
    if n == 0 or (per and len(outs) == 1):
        return Bound(1, True, False, True, 0)
    if per:
        work = _power(len(unit), outs[0], outs[-1], unit.total, n, node.col)
        # a die whose faces are dense has a dense sum (its span at most 4 x its
        # outcomes): the sum it feeds is a polynomial product (75d%e5 + d20)
        return Bound(n * (len(outs) - 1) + 1, False, False, outs[-1] - outs[0] + 1 == len(outs),
                     work, n * (unit.total.bit_length() - 1) + 1,
                     outs[-1] - outs[0] <= 4 * (len(outs) - 1))
    miss = [v for v in outs if not ops[-1].matches(v)]
    work = _power(len(unit), outs[0], outs[-1], unit.total, n, node.col)
    if len(miss) >= 2:
        weights = unit.weights
        work += _power(len(miss), miss[0], miss[-1], sum(weights[v] for v in miss), n,
                       node.col)
    lo = ra_outcomes(n, len(outs), len(outs) - len(miss))
    if isinstance(f, range) and f.step == 1 and all(w == 1 for w in unit.weights.values()):
        # (the die added is a plain one; the unit's weights all 1: its top roll weighs 1)
        work += _ra_sum(n, len(outs), len(outs) - len(miss), unit.total,
                        ops[-1].matches(outs[-1]), len(f), outs[-1] - outs[0])
    return Bound(lo, False, False, False, work + lo * RA_ENTRY_WORK)


def _ra_sum(n: int, faces: int, hits: int, total: int, top: bool, die: int,
            width: int) -> int:
    """A lower bound of the polynomial sum ``evaluate._reroll_add`` makes of the rolls
    with a match and one plain die of ``die`` faces: the rolls with a match have at least
    ``hits + (n - 1)(faces - 1)`` sums (within ``n x width`` of each other); when the top
    face matches and every face weighs 1, the roll of every top face has weight 1
    (nothing to reduce), so their total, ``T^n - M^n``, has at least ``(n - 1)(bits of T
    - 1) + 1`` bits. 0 where the sum may not be a polynomial one (its sides surely dense)
    or nothing is known."""
    if not (top and hits and n >= 1 and die >= 2):
        return 0
    some = hits + (n - 1) * (faces - 1)
    if some < 2 or n * width + 1 > 4 * some + 64:
        return 0
    return mul_work(some, die, (n - 1) * (total.bit_length() - 1) + 1 + die.bit_length())


def _power(length: int, lo: int, hi: int, total: int, n: int, col: int) -> int:
    """What :meth:`Distribution.repeat_sum` charges for ``n`` copies of a die of
    ``length`` integer outcomes from ``lo`` to ``hi`` of total weight ``total``; raises
    :class:`Refused` where it refuses (the same limit)."""
    if n < 2 or length < 2:
        return 0
    span = n * (hi - lo) + 1
    tbits = total.bit_length()
    if span > MAX_OUTCOMES or span * n * tbits > MAX_WEIGHT_BITS:
        bits = span * max(1, n * math.log2(max(2, total)))
        if span > MAX_OUTCOMES or bits > MAX_WEIGHT_BITS:
            raise Refused(f"{n} dice with outcomes {lo}..{hi} would give {span:,} outcomes "
                          f"with weights of about {bits / 8 / 2**20:.0f} MiB, past "
                          f"MAX_OUTCOMES = {MAX_OUTCOMES:,} / MAX_WEIGHT_BITS = "
                          f"{MAX_WEIGHT_BITS:,}; use fewer dice or the mean and variance",
                          col, "MAX_WEIGHT_BITS", int(bits))
    return power_work(hi - lo + 1, span, n * tbits)


class _Shape:
    """What the work estimates of the face walk read of a die: its number of faces and
    its total weight (a ``dN`` not built)."""

    def __init__(self, faces: int, total: int) -> None:
        self.faces, self.total = faces, total

    def __len__(self) -> int:
        return self.faces


def _value(node: Node) -> object:
    """The number a constant side is when the tree shows it (``7``, ``-7``, ``+-7``, and
    ``+ - * /`` of such numbers: ``1/76``, ``(2*3)``), else None. O(nodes)."""
    while isinstance(node, Group) and not node.is_set and not node.ops and len(node.items) == 1:
        node = node.items[0]
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Unary):
        v = _value(node.operand)
        return -v if node.op == "-" and isinstance(v, int | Fraction) else v
    if isinstance(node, Binary) and node.op in ("+", "-", "*", "/"):
        a, b = _value(node.left), _value(node.right)
        if not (isinstance(a, int | Fraction) and isinstance(b, int | Fraction)):
            return None
        if node.op == "/":
            if b == 0:
                return None
            q = Fraction(a) / b
            return q.numerator if q.denominator == 1 else q
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


#: the primes under 1 000, the trial divisors of :func:`_divisors_at_most`
_SMALL_PRIMES = tuple(p for p in range(2, 1000)
                      if all(p % q for q in range(2, math.isqrt(p) + 1)))


def _divisors_at_most(c: int) -> int:
    """An upper bound of the number of positive divisors of the integer ``c != 0``, at
    most ``2 sqrt|c| + 1``: its primes under 1 000 found by trial division (their
    exponents exact), and at most ``2**k`` divisors for the rest, whose ``k`` prime
    factors (with multiplicity) are each past 1 000, so ``k <= bits / 9.97``. O(168
    divisions and the exponents).
    (``-10**16 / 7d21268``: 289 divisors, so most of the 148 870 quotients are surely
    Fractions; the bound 4 sqrt|c| said nothing, and ``/ 7`` after it was priced as a map
    of integers, 20 M units under its charge.)

    >>> _divisors_at_most(10**16), _divisors_at_most(12), _divisors_at_most(1009 * 1013)
    (289, 6, 4)
    """
    m, count = abs(c), 1
    for p in _SMALL_PRIMES:
        if m % p == 0:
            e = 0
            while m % p == 0:
                m //= p
                e += 1
            count *= e + 1
    if m > 1:
        count <<= min(m.bit_length() // 9, 512)
    return min(count, 2 * math.isqrt(abs(c)) + 1)


def _den(value: object) -> int:
    """The reduced denominator of a number (1 for integers), 0 for anything else."""
    return value.denominator if isinstance(value, int | Fraction) else 0


def _items_added(parts: list[Bound], node: Group) -> Bound:
    """The bound of the sum of a set's items, every one kept: added one by one in their
    order as :func:`chancekit.dice.evaluate.items_sum` does, each addition of two sides
    of more than one outcome priced as a ``+`` (:func:`_pairwise`), one with a constant
    as nothing (a shift). ``(77, 11d{8}, 5d569+64, 71d12!>=3)`` was priced as its items
    alone, and its last addition refused after the exploded pool (0.6 s). O(items)."""
    lo = sum(p.lo for p in parts) - len(parts) + 1
    consecutive = all(p.consecutive for p in parts)
    work = sum(p.work for p in parts)
    acc: Bound | None = None
    for p in parts:
        if acc is None:
            acc = p
        elif acc.const or p.const:  # a shift: the other side's flags, what a shift keeps
            one, many = (p, acc) if p.const else (acc, p)
            acc = many if many.const else replace(
                many, work=0, gcd=0, **({} if _whole(one) else dict(
                    dense=False, consecutive=False, sparse=False, den=0, run=0)))
        else:
            acc = _pairwise("+", acc, p, node, 0)
            work += acc.work
    tbits = acc.tbits if acc is not None and not acc.const else 1
    return Bound(lo, False, False, consecutive, work, tbits)


def _binary(node: Binary) -> Bound:
    a, b = lower_bound(node.left), lower_bound(node.right)
    work = a.work + b.work
    op = node.op
    compare = op in ("==", "!=", "<", ">", "<=", ">=")
    if a.const and b.const:
        # surely a Fraction only where the tree shows both numbers: 1/76 is one, while
        # 0.5 + 0.5 is not (the two sides' flags alone cannot tell)
        den = _den(_value(node))
        return Bound(1, True, den > 1, True, work, den=den)
    if a.const or b.const:  # one map over the other side's outcomes
        many, c = (b, a) if a.const else (a, b)
        value = _value(node.left if a.const else node.right)
        # surely fractions: a fractional side plus, minus or divided by an integer, or
        # consecutive integers (at least two) divided by an integer other than +-1
        # (an integer that does not divide their gcd leaves some outcome a Fraction)
        g = _gcd_of(many)
        # (a Fraction plus surely whole numbers too: (1/76 + d104336kl4) * 6 mapped
        # 104 336 Fractions at the integers' rate before the pairs after it were priced)
        frac = (many.frac and not c.frac and op in ("+", "-", "/")) or (
            c.frac and op in ("+", "-") and (many.consecutive or many.dense)) or (
            op == "/" and not a.const and isinstance(value, int) and abs(value) > 1
            and g > 0 and g % abs(value) != 0) or (
            # c / x: integers x (g > 0) that divide c != 0 are at most 2 d(c) (its
            # divisors, and their negatives)
            op == "/" and a.const and isinstance(value, int) and value != 0 and g > 0
            and many.lo > 2 * _divisors_at_most(value))
        # every outcome's denominator, where one is known: a number plus or minus surely
        # whole numbers, and such outcomes plus, minus or times an integer
        # ((1/76 + d104336kl4) * 6: mapped as integers after the first map, 104 336
        # Fractions then met pairs the tree had priced at the integers' rate)
        den = 0
        whole = many.den == 1 or ((many.consecutive or many.dense) and not many.frac)
        if op in ("+", "-") and whole:
            den = _den(value)
        elif op in ("+", "-") and _den(value) == 1:
            den = many.den
        elif op == "*" and isinstance(value, int) and value and many.den:
            den = many.den // math.gcd(many.den, value)
        frac = frac or den > 1
        rate = FRACTION_MAP_WORK if (many.frac or c.frac or frac) else MAP_WORK
        if rate == MAP_WORK and (op == "+" or (op == "-" and b.const)):
            rate = SHIFT_WORK  # integers shifted, not mapped (Distribution._shifted)
        if rate != SHIFT_WORK and op in ("+", "-", "*", "/", "//", "%"):
            # the map (or the rationals' shift) moves every weight: Distribution.map
            # charges a unit an outcome per 96 bits of the total weight (d20p<4 +
            # (9672d6)//9: 25 000 bits, its map refused after the power, 0.6 s)
            rate += many.tbits // 96
        keeps = op in ("+", "-") or (op in ("*", "/") and value not in (None, 0))
        lo = many.lo if keeps and not compare else 1
        consecutive = many.consecutive and op in ("+", "-") and isinstance(value, int)
        if op == "**":  # priced per outcome before the map (price_power)
            work += many.lo * PAIR_WORK
        if op == "/" and isinstance(value, int) and many.frac:
            # Fractions divided: Distribution._combine charges their results before the
            # map (at the Fraction rate) too
            work += many.lo * (FRACTION_MAP_WORK - MAP_WORK)
        if (op == "//" and not a.const and isinstance(value, int) and value
                and many.consecutive and not many.frac):
            # one divisor takes consecutive integers to consecutive quotients
            q = (many.lo - 1) // abs(value) + 1
            return Bound(q, False, False, True, work + many.lo * rate, 1, run=q)
        shift = isinstance(value, int) and not compare and (
            op in ("+", "-") or (op == "*" and value != 0))
        return Bound(lo, False, frac, consecutive, work + many.lo * rate,
                     many.tbits if keeps and not compare else 1,
                     gcd=g * abs(value) if op == "*" and isinstance(value, int) else 0,
                     sparse=many.sparse and shift, den=0 if compare else den)
    return _pairwise(op, a, b, node, work)


def _pairwise(op: str, a: Bound, b: Bound, node: Binary | Group, work: int) -> Bound:
    """The bound of ``A op B``, neither side surely one outcome (the sides' own ``work``
    already summed in ``work``): their pairs, or the integers' polynomial product.
    ``node`` gives the column of a refusal and, for ``//``, the divisor's magnitude.
    O(1)."""
    if op in ("+", "-") and a.lo + b.lo - 1 > MAX_OUTCOMES:  # |A + B| >= |A| + |B| - 1
        raise Refused(f"the result would have at least {a.lo + b.lo - 1:,} outcomes, more "
                      f"than MAX_OUTCOMES = {MAX_OUTCOMES:,}; group outcomes (map) first",
                      node.col, "MAX_OUTCOMES", a.lo + b.lo - 1)
    pairs = a.lo * b.lo
    if op in ("+", "-") and not (a.frac or b.frac):
        # integers: one polynomial product or the pairs (refused past MAX_PAIRS anyway)
        poly = mul_work(a.lo, b.lo, a.tbits + b.tbits)
        if (a.sparse or b.sparse) and a.lo >= 2 and b.lo >= 2:
            # a side surely spread out: pair by pair for sure (Distribution._combine),
            # refused past MAX_PAIRS (4d3*4*92d2+... - 63d934kh4: the keep ran 1.3 s,
            # then the pairs were refused)
            if pairs > MAX_PAIRS:
                raise Refused(f"{op} would visit at least {pairs:,} outcome pairs, more "
                              f"than MAX_PAIRS = {MAX_PAIRS:,}; reduce the outcomes first "
                              "(map/clamp)", node.col, "MAX_PAIRS", pairs)
            step = pairs * PAIR_WORK
        # both surely dense: the polynomial product for sure (Distribution._poly_add)
        elif (a.dense or a.consecutive) and (b.dense or b.consecutive):
            step = poly
        else:
            step = min(pairs * PAIR_WORK, poly)
    elif pairs > MAX_PAIRS:  # the step refuses itself by MAX_PAIRS (charging nothing)
        if a.lo >= 2 and b.lo >= 2:
            # surely pairwise (neither side one outcome, not a polynomial sum): refuse now
            raise Refused(f"{op} would visit at least {pairs:,} outcome pairs, more than "
                          f"MAX_PAIRS = {MAX_PAIRS:,}; reduce the outcomes first "
                          "(map/clamp)", node.col, "MAX_PAIRS", pairs)
        step = 0
    else:  # the rate is chosen by the operator and the outcome types, as _combine does
        step = pairs * (FRACTION_PAIR_WORK if op == "/" or a.frac or b.frac else PAIR_WORK)
    if min(a.lo, b.lo) == 1:
        # a side that may have one outcome makes the step one map of the other side's
        # (Distribution._combine): a shift of integers at least, a Fraction's map where a
        # side surely holds one (a comparison of one outcome plus 104 336 Fractions was
        # priced as their pairs, above the map it was)
        one = (FRACTION_MAP_WORK if a.frac or b.frac
               else SHIFT_WORK if op in ("+", "-") else MAP_WORK)
        step = min(step, max(a.lo, b.lo) * one)
    if op in ("+", "-"):
        lo = a.lo + b.lo - 1
    elif op in ("*", "/") and b.lo >= 2:  # x -> x * y (x / y) is one to one for y != 0
        lo = max(a.lo, b.lo if op == "*" and a.lo >= 2 else 1)
    else:
        lo = 1
    run = 0
    if op == "//" and a.consecutive and not a.frac and a.lo >= 2:
        # one divisor b (|b| <= M) takes a run of S consecutive integers to a run of at
        # least (S - 1) // M + 1 ((2821d20 // 9d{7,-3}...)/7 - 1647d12: the quotients'
        # count was unknown until 1.6 s of work, then the pairs were refused)
        m = _magnitude(node.right) if isinstance(node, Binary) else None
        if m is not None and m >= 1:
            run = (a.lo - 1) // m + 1
            lo = max(lo, run)
    gcd = 0
    if op == "*" and _gcd_of(a) and _gcd_of(b):  # gcd{x y} = gcd(A) gcd(B)
        gcd = _gcd_of(a) * _gcd_of(b)
    elif op in ("+", "-") and not (a.frac or b.frac) and any(
            (s.consecutive and s.lo >= 2) or s.run >= 2 for s in (a, b)):
        gcd = 1  # x + y and x + 1 + y
    return Bound(lo, False, _surely_fraction(op, a, b),
                 a.consecutive and b.consecutive and op in ("+", "-"),
                 work + step, a.tbits + b.tbits - 1 if op in ("+", "-") else 1, run=run,
                 gcd=gcd)


def _whole(b: Bound) -> bool:
    """Every outcome of a node of bound ``b`` is surely an integer."""
    return b.den == 1 or ((b.consecutive or b.dense) and not b.frac)


def _surely_fraction(op: str, a: Bound, b: Bound) -> bool:
    """``A op B`` (neither side one outcome) surely has an outcome that is not an
    integer: a non-integer ``p/q`` plus, minus or divided by an integer ``y != 0`` is
    one (``p/(q y)`` in lowest terms keeps a denominator of at least ``q``), and of two
    consecutive integers one is not a multiple of ``y`` when ``|y| >= 2`` (four
    distinct integers hold such a ``y``). ``3D10 + (d3/(...)k>2)/47d2``: the sum was
    priced as integers' polynomial product, then met 64 M units of Fraction pairs after
    the work before it. O(1)."""
    if op in ("+", "-"):
        return (a.frac and _whole(b)) or (b.frac and _whole(a))
    if op == "/":
        return (a.frac and _whole(b)) or (
            a.consecutive and a.lo >= 2 and _whole(b) and b.lo >= 4)
    return False


def _magnitude(node: Node) -> int | None:
    """An upper bound of ``|x|`` over the outcomes of ``node`` when the tree shows one
    (numbers, signs, dice of integer faces whose operators only reroll, clamp or keep
    and drop), else None. O(operators)."""
    while isinstance(node, Unary) or (isinstance(node, Group) and not node.is_set
                                      and not node.ops and len(node.items) == 1):
        node = node.operand if isinstance(node, Unary) else node.items[0]
    if isinstance(node, Num):
        return abs(node.value) if isinstance(node.value, int) else None
    if not isinstance(node, Dice) or not node.faces:
        return None
    if not all(isinstance(f, int) for f in (node.faces[0], node.faces[-1])):
        return None
    top = max(abs(min(node.faces)), abs(max(node.faces)))
    for op in node.ops:
        if op.kind in ("mi", "ma"):
            num = op.sels[-1].num if op.sels else None
            if not isinstance(num, int):
                return None
            top = max(top, abs(num))
        elif op.kind not in ("rr", "ro", "k", "p", "mark", "sort"):
            return None
    return node.count * top
