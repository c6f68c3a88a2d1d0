"""Planning with fairness systems (issue #30): pulls until the k-th copy of a value from
a given state, the chance of k copies within n pulls, percentiles, the cost in currency,
the number of copies within n pulls, and the chance of getting all of a set of items.

Exact, on the system's state chain (:func:`chancekit.markov.first_success`'s chain):

1. from each state the walk may start in (the given state, then every state the system
   can be in right after drawing ``value``), the *first-hit* chain is explored and walked
   forward once, giving the joint distribution of (pulls until ``value``, the state right
   after it) as integer polynomials: the coefficient of x**t is the probability over
   L**t, L the lcm of the chain's weight totals (so products of them stay consistent);
2. the k-th copy is k products of those polynomials (python-flint ``fmpz_poly``), a
   vector over the post-draw states (one state for gacha, pity timers, PRD: a renewal).

Cost: the walk is O(depth x live states) big-integer operations (depth the most pulls
to one copy: 180 on a 90-pull hard pity with a 50/50), the products O(k x posts**2)
polynomial products of degree at most k x depth. A system whose wait has no bound (no
hard pity, a flat rate) is walked up to ``upto`` pulls, or until at most ``tail`` (default
1e-9) of the probability is left; ``Steps.tail`` is then the exact mass beyond.

>>> from chancekit.fair import PityTimer
>>> two = copies(PityTimer(0.5, hard=2), True, 2)
>>> two.pmf                                   # 2, 3 or 4 pulls for two successes
(Fraction(0, 1), Fraction(0, 1), Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
>>> two.within(3), two.percentile(0.5)
(Fraction(3, 4), 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit._validate import require_fraction, require_int
from chancekit.dice.distribution import Distribution
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError, quote
from chancekit.fair.studio import GachaPity
from chancekit.fair.systems import (
    Dice,
    DynamicDice,
    GeneralizedDeck,
    NoRepeatSystem,
    System,
    _CountSystem,
)
from chancekit.limits import MARKOV_INT_WORK, MAX_COPIES, MAX_MARKOV_STEPS, MAX_WANTED
from chancekit.markov.chain import (
    Chain,
    Steps,
    _acyclic_depth,
    _budget,
    _edge_work,
    _walk_length,
    explore,
    steps,
)
from chancekit.markov.processes import _state_chain, _stepper

__all__ = ["MAX_COPIES", "MAX_WANTED", "Cost", "Spend", "all_of", "copies", "copies_each",
           "copies_within", "cost", "plan", "spend", "state_of"]



def _copies_k(k: Any) -> int:
    """``k`` copies: an integer from 1, refused past :data:`MAX_COPIES` (a LimitError)."""
    k = require_int("k", k, lo=1)
    if k > MAX_COPIES:
        raise LimitError(f"k = {k:,} copies is past MAX_COPIES = {MAX_COPIES:,}; ask for "
                         "fewer copies (the pulls to k copies grow as k x the wait to one)",
                         limit="MAX_COPIES", value=k)
    return k


class _Hit:
    """The absorbing marker "the value was drawn; the system is now in ``after``"."""

    __slots__ = ("after",)

    def __init__(self, after: Any) -> None:
        self.after = after

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Hit) and other.after == self.after

    def __hash__(self) -> int:
        return hash(("_Hit", self.after))

    def __repr__(self) -> str:
        return f"hit -> {self.after!r}"


def _deck_canon(system: GeneralizedDeck) -> Callable[[Any], Any]:
    """A deck's state with the whole blocks drawn from every value taken off: the deck
    left (and so everything after) is the same, and the states are finitely many."""
    per = [system.size * w for w in system.weights]

    def canon(s: Any) -> Any:
        counts, blocks = s[:-1], s[-1]
        m = min(min(c // q for c, q in zip(counts, per, strict=True)), blocks - 1)
        if m <= 0:
            return s
        return (*(c - m * q for c, q in zip(counts, per, strict=True)), blocks - m)

    return canon


def _count_canon(system: System) -> Callable[[Any], Any] | None:
    """The canonical state of a count system whose future depends on a bounded summary
    of its counts (dice: nothing; decks: the cards left), else None."""
    if isinstance(system, Dice) or (isinstance(system, DynamicDice)
                                    and system.decrease == 1.0):
        zero = tuple(0 for _ in system.values)
        return lambda s: zero
    if isinstance(system, GeneralizedDeck):
        return _deck_canon(system)
    return None


def _chain_of(system: System) -> tuple[Any, Callable[[Any], list[Fraction]],
                                       Callable[[Any, int], Any]]:
    """(start, probabilities at a state, state after drawing value i) of the system's
    state chain, its states canonical (counters capped, whole deck blocks taken off)."""
    inner = system.inner if isinstance(system, NoRepeatSystem) else system
    if isinstance(inner, _CountSystem):
        canon_inner = _count_canon(inner)
        if canon_inner is None:
            raise InvalidValueError(
                f"{type(inner).__name__}'s state counts every value drawn with no bound "
                "(dynamic dice remember how far each value is behind), so its chain has no "
                "end; plan with dice, decks, pity timers, PRD, gacha or the studio systems")
        sysc = system.copy()
        if isinstance(system, NoRepeatSystem):
            def canon(s: Any) -> Any:
                return (s[0], canon_inner(s[1]))
        else:
            canon = canon_inner

        probs = _stepper(sysc, canon)
        return canon(sysc.getstate()), probs, probs.after
    if getattr(system, "markov_observe", True) is False or getattr(
            getattr(system, "inner", None), "markov_observe", True) is False:
        raise InvalidValueError(f"{type(system).__name__}'s next state depends on more than "
                                "the value drawn, so it has no exact chain (use Monte Carlo)")
    _, start, probs = _state_chain(system)
    return start, probs, probs.after  # type: ignore[attr-defined]


def _system(system: Any, value: Any, state: Any) -> tuple[System, int]:
    """The system (a copy, set to ``state``) and the index of ``value``."""
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System (GachaPity, "
                               "PityTimer, PRD, Deck, ...)")
    if value is None:
        value = "featured" if "featured" in system.values else (
            True if True in system.values else None)
        if value is None:
            raise InvalidValueError("value", None, f"one of the system's values {system.values}")
    if value not in system.values:
        raise InvalidValueError("value", value, f"one of the system's values {system.values}")
    sysc = system.copy()
    if state is not None:
        try:
            sysc.setstate(state)
        except StateError as e:
            raise InvalidValueError("state", state, f"a state of {type(system).__name__} "
                                    f"in the form of its getstate(), e.g. "
                                    f"{system.getstate()!r} ({e})") from None
    return sysc, system.values.index(value)


def _first_hits(start: Any, probs: Callable[[Any], list[Fraction]],
                after: Callable[[Any, int], Any], target: int, value: Any
                ) -> Chain:
    def step(s: Any) -> Any:
        if isinstance(s, _Hit):
            return s
        ps = probs(s)
        den = math.lcm(*(p.denominator for p in ps))
        w: dict[Any, int] = {}  # plain positive ints: the engine takes them as they are
        for i, p in enumerate(ps):
            if p:
                key = _Hit(after(s, i)) if i == target else after(s, i)
                w[key] = w.get(key, 0) + p.numerator * (den // p.denominator)
        return w

    chain = explore(step, start)
    for i, s in enumerate(chain.states):
        if not chain.succ[i] and not isinstance(s, _Hit):
            raise InvalidValueError("value", value, f"a value the system can still draw: "
                                    f"from state {quote(s, limit=60)} it never draws it")
    return chain


def _walk(chain: Chain, lcm: int, upto: int | None) -> tuple[dict[Any, list[int]], bool]:
    """Forward from state 0: per hit marker, P(hit at t) * L**t for t = 0..(the end or
    ``upto``). Charged a step at a time, before each step."""
    succ, weight, loop, total = chain.succ, chain.weight, chain.loop, chain.total
    hits: dict[Any, list[int]] = {}
    cur: dict[int, int] = {0: 1}
    t = 0
    bits = 1
    lbits = lcm.bit_length()
    while cur:
        if upto is not None and t >= upto:
            return hits, False
        if t >= MAX_MARKOV_STEPS:
            raise LimitError(f"copies(): the wait runs past MAX_MARKOV_STEPS = "
                             f"{MAX_MARKOV_STEPS:,} pulls; ask for fewer (upto=...)",
                             limit="MAX_MARKOV_STEPS", value=t)
        limits.charge(sum(len(succ[i]) + 1 for i in cur) * _edge_work(MARKOV_INT_WORK, bits),
                      f"copies(): pull {t + 1}")
        nxt: dict[int, int] = {}
        get = nxt.get
        for i, m in cur.items():
            f = m * (lcm // total[i])
            if loop[i]:
                nxt[i] = get(i, 0) + f * loop[i]
            for j, q in zip(succ[i], weight[i], strict=True):
                nxt[j] = get(j, 0) + f * q
        t += 1
        bits += lbits
        cur = {}
        for j, m in nxt.items():
            if succ[j]:
                cur[j] = m
            else:
                row = hits.setdefault(chain.states[j].after, [])
                row += [0] * (t + 1 - len(row))
                row[t] += m
    return hits, True


def _poly(coeffs: list[int]) -> Any:
    return flint.fmpz_poly(coeffs)


def _cut(p: Any, n: int | None) -> Any:
    if n is None or p.degree() <= n:
        return p
    return flint.fmpz_poly(p.coeffs()[:n + 1])


def _explore_all(start: Any, probs: Callable[[Any], list[Fraction]],
                 after: Callable[[Any, int], Any], target: int, value: Any, k: int
                 ) -> tuple[dict[Any, Chain], int, bool]:
    """The first-hit chain from ``start`` and from every state a copy can leave the
    system in (when more copies follow), L, and whether every wait is bounded."""
    chains: dict[Any, Chain] = {}
    todo = [start]
    while todo:
        s = todo.pop()
        if s in chains:
            continue
        chains[s] = _first_hits(s, probs, after, target, value)
        if k > 1:
            todo += [x.after for x in chains[s].states if isinstance(x, _Hit)]
        if len(chains) > 10_000:
            raise LimitError("copies(): the system can be left in more than 10,000 states "
                             "by a copy; ask about a system with less state",
                             limit="MAX_MARKOV_STATES", value=len(chains))
    lcm = 1
    for ch in chains.values():
        for i in range(len(ch.states)):
            if ch.succ[i]:
                lcm = math.lcm(lcm, ch.total[i])
    bounded = all(_acyclic_depth(ch) is not None for ch in chains.values())
    return chains, lcm, bounded


def _product(chains: dict[Any, Chain], start: Any, lcm: int, k: int,
             cutoff: int | None) -> list[Any]:
    """The time polynomials (numerators over L**t) of the 1st, 2nd, ..., k-th copy, cut
    at ``cutoff``."""
    hits: dict[Any, dict[Any, Any]] = {}
    for s, ch in chains.items():
        rows, _ = _walk(ch, lcm, cutoff)
        hits[s] = {a: _poly(c) for a, c in rows.items()}
    deg = max((p.degree() for h in hits.values() for p in h.values()), default=0)
    if cutoff is not None:
        deg = min(deg, cutoff)
    words = (k * deg * lcm.bit_length()) // 64 + 1
    limits.charge(k * sum(len(h) for h in hits.values()) * (k * deg + 1) * words // 8,
                  f"copies(): {k:,} products of the one-copy polynomials")
    vec = {start: flint.fmpz_poly([1])}
    out = []
    for _ in range(k):
        nxt: dict[Any, Any] = {}
        for s, p in vec.items():
            for a, h in hits[s].items():
                q = _cut(p * h, cutoff)
                nxt[a] = q if a not in nxt else nxt[a] + q
        vec = nxt
        total = flint.fmpz_poly([])
        for p in vec.values():
            total += p
        out.append(total)
    return out


def _moments_of(poly: Any, lcm: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of a complete time polynomial (numerators over L**t), in
    integers over L**deg: two gcds in all."""
    coeffs = [int(c) for c in poly.coeffs()]
    n = len(coeffs) - 1
    s1 = s2 = 0
    for t in range(n + 1):  # Horner: sum of t**j c_t L**(n - t)
        c = coeffs[t]
        s1 = s1 * lcm + t * c
        s2 = s2 * lcm + t * t * c
    scale = lcm**n
    mean = Fraction(s1, scale)
    return mean, Fraction(s2, scale) - mean * mean


def _pmf_of(poly: Any, lcm: int, n: int) -> list[Fraction]:
    coeffs = [int(c) for c in poly.coeffs()]
    out: list[Fraction] = []
    scale = 1
    for t in range(n + 1):
        c = coeffs[t] if t < len(coeffs) else 0
        out.append(Fraction(c, scale) if c else Fraction(0))
        scale *= lcm
    return out


def copies(system: System, value: Any = None, k: int = 1, *, state: Any = None,
           upto: int | None = None, tail: Fraction | float | None = None) -> Steps:
    """Pulls (draws) of a fairness system until the ``k``-th copy of ``value``, from
    ``state`` (in the form of the system's ``getstate()``; None: its current state), as
    :class:`~chancekit.markov.Steps`: exact ``pmf``, ``mean``, ``variance``, and
    ``within(n)`` (the chance of k copies in at most n pulls), ``percentile(q)``.

    ``value`` defaults to ``"featured"`` (:class:`~chancekit.fair.GachaPity`) or ``True``
    (two-value systems). Works for every system whose state is bounded or has a bounded
    summary: gacha (fate points included), pity timers, PRD, aim assist, lucky streaks,
    history rerolls, TGM1/2, duplicate protection, dice and decks (their cards left);
    not dynamic dice (f < 1) nor TGM3. Float chances are read as the decimals they were
    written as. When the wait has no bound (no hard pity) the pmf is walked to ``upto``
    pulls, or until at most ``tail`` (default 1e-9) is left, the rest stated exactly in
    ``Steps.tail``. Cost: see the module docstring (a 90-pull banner with soft pity and a
    50/50, 7 copies: about 0.3 s).

    >>> from chancekit.fair import GachaPity
    >>> g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    >>> two = copies(g, "featured", 2, state=(38, True))  # 37 pulls since a lost 50/50
    >>> two.upto, round(float(two.mean), 2), two.percentile(0.9)
    (233, 129.71, 195)
    >>> round(float(two.within(160)), 4)
    0.7207
    """
    return _copies(*_wait(system, value, k, state, upto, tail), last=True)[-1]


def copies_each(system: System, value: Any = None, k: int = 1, *, state: Any = None,
                upto: int | None = None, tail: Fraction | float | None = None
                ) -> list[Steps]:
    """:func:`copies` for the 1st, 2nd, ..., ``k``-th copy at once (one walk, k
    products): what a chart of P(j copies by pull n), j = 1..k, needs.

    >>> from chancekit.fair import PityTimer
    >>> [s.mean for s in copies_each(PityTimer(0.5, hard=2), True, 3)]
    [Fraction(3, 2), Fraction(3, 1), Fraction(9, 2)]
    """
    return _copies(*_wait(system, value, k, state, upto, tail))


def _wait(system: Any, value: Any, k: Any, state: Any, upto: Any, tail: Any
          ) -> tuple[System, int, Any, int, int | None, Fraction | None]:
    """The arguments of :func:`copies` and :func:`copies_each`, checked: (the system set
    to ``state``, the index of ``value``, ``value``, ``k``, ``upto``, ``tail``)."""
    sysc, target = _system(system, value, state)
    k = _copies_k(k)
    if upto is not None:
        upto = require_int("upto", upto, lo=0, hi=MAX_MARKOV_STEPS)
    if tail is not None:
        if isinstance(tail, bool) or not isinstance(tail, (int, float, Fraction)) or not (
                0 < tail < 1):
            raise InvalidValueError("tail", tail, "a probability 0 < tail < 1")
        tail = Fraction(tail)
    return sysc, target, sysc.values[target], k, upto, tail


def _copies(sysc: System, target: int, value: Any, k: int, upto: int | None,
            tail: Fraction | None, last: bool = False) -> list[Steps]:
    """Steps of the 1st..k-th copy (only the k-th when ``last``)."""
    with _budget():
        start, probs, after = _chain_of(sysc)
        chains, lcm, bounded = _explore_all(start, probs, after, target, value, k)
        if bounded:
            out = []
            polys = _product(chains, start, lcm, k, None)
            for poly in polys[-1:] if last else polys:
                n = poly.degree()
                pmf = _pmf_of(poly, lcm, max(n, upto or 0))
                m, v = _moments_of(poly, lcm)
                if upto is not None and upto < n:
                    cut = pmf[:upto + 1]
                    out.append(Steps(m, v, tuple(cut), 1 - sum(cut, Fraction(0))))
                else:
                    out.append(Steps(m, v, tuple(pmf), Fraction(0)))
            return out
        moments = [_moments(start, probs, after, target, j)
                   for j in range(k if last else 1, k + 1)]
        mean, var = moments[-1]
        cutoff = upto
        if cutoff is None:
            small = tail or Fraction(1, 10**9)
            cutoff = _walk_length(mean, var, None, small)
            if cutoff is None or cutoff > MAX_MARKOV_STEPS:
                raise LimitError(f"copies(): copy {k:,} needs about {cutoff or 0:,} "
                                 f"pulls to reach a tail of {float(small):.3g}, more than "
                                 f"MAX_MARKOV_STEPS = {MAX_MARKOV_STEPS:,}; ask for a "
                                 "larger tail or upto=...", limit="MAX_MARKOV_STEPS",
                                 value=cutoff or 0)
        out = []
        polys = _product(chains, start, lcm, k, cutoff)
        for poly, (m, v) in zip(polys[-1:] if last else polys, moments, strict=True):
            pmf = _pmf_of(poly, lcm, cutoff)
            out.append(Steps(m, v, tuple(pmf), 1 - sum(pmf, Fraction(0))))
        return out


def _moments(start: Any, probs: Callable[[Any], list[Fraction]],
             after: Callable[[Any, int], Any], target: int, k: int
             ) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the pulls to the k-th copy: the engine's fundamental
    matrix on the chain of (system state, copies so far)."""
    def step(sc: Any) -> Any:
        s, c = sc
        if c >= k:
            return sc
        w: dict[Any, Fraction] = {}
        for i, p in enumerate(probs(s)):
            if p:
                key = (after(s, i), c + (i == target))
                w[key] = w.get(key, 0) + p
        return Distribution(w)

    got = steps(step, (start, 0))
    return got.mean, got.variance


def copies_within(system: System, value: Any = None, n: int = 1, *, state: Any = None
                  ) -> Distribution:
    """The exact distribution of how many copies of ``value`` ``n`` pulls give, from
    ``state``. One forward pass over (state, copies): O(n x states x copies) big-integer
    operations.

    >>> from chancekit.fair import PityTimer
    >>> copies_within(PityTimer(0.5, hard=2), True, 3).pmf()
    {1: Fraction(1, 4), 2: Fraction(5, 8), 3: Fraction(1, 8)}
    """
    sysc, target = _system(system, value, state)
    n = require_int("n", n, lo=0, hi=MAX_MARKOV_STEPS)
    with _budget():
        start, probs, after = _chain_of(sysc)
        rows: dict[Any, list[tuple[Any, int]]] = {}
        lcm = 1

        def row(s: Any) -> list[tuple[Any, int, bool]]:
            got = rows.get(s)
            if got is None:
                ps = probs(s)
                den = math.lcm(*(p.denominator for p in ps))
                got = rows[s] = [(after(s, i), int(p * den), i == target)
                                 for i, p in enumerate(ps) if p]
                got.append(den)  # type: ignore[arg-type]
            return got  # type: ignore[return-value]

        cur: dict[tuple[Any, int], int] = {(start, 0): 1}
        scale = 1
        for t in range(n):
            limits.charge(len(cur) * 4 * _edge_work(MARKOV_INT_WORK, scale.bit_length()),
                          f"copies_within(): pull {t + 1}")
            # one common denominator for this pull: the lcm of the live states' totals
            live = {s for s, _ in cur}
            for s in live:
                row(s)
            if len(rows) > limits.MAX_MARKOV_STATES:
                raise LimitError(f"copies_within(): more than MAX_MARKOV_STATES = "
                                 f"{limits.MAX_MARKOV_STATES:,} states",
                                 limit="MAX_MARKOV_STATES", value=len(rows))
            den = math.lcm(*(rows[s][-1] for s in live))  # type: ignore[arg-type]
            nxt: dict[tuple[Any, int], int] = {}
            for (s, c), m in cur.items():
                r = rows[s]
                f = m * (den // r[-1])  # type: ignore[operator]
                for a, w, hit in r[:-1]:  # type: ignore[misc]
                    key = (a, c + hit)
                    nxt[key] = nxt.get(key, 0) + f * w
            cur = nxt
            scale *= den
        lcm = scale
        out: dict[int, int] = {}
        for (_, c), m in cur.items():
            out[c] = out.get(c, 0) + m
        assert sum(out.values()) == lcm
        return Distribution(out)


def _share(x: Any, what: str) -> Fraction:
    return require_fraction(what, x, meaning="a share 0 < s <= 1", above_zero=True)


def all_of(system: System, value: Any, shares: Mapping[Any, Any], n: int, *,
           state: Any = None) -> Fraction:
    """The exact chance that ``n`` pulls give every item of ``shares`` at least once,
    when each pull of ``value`` is item j with chance ``shares[j]`` independently (two
    rate-up 4-stars of three: ``{"A": 1/3, "B": 1/3}``). The count of ``value`` in n
    pulls (:func:`copies_within`), then inclusion-exclusion over the wanted items:
    P(all | m copies) = sum over subsets T of (-1)**|T| (1 - share(T))**m. O(2**items x n).

    >>> from chancekit.fair import PityTimer
    >>> all_of(PityTimer(0.5, hard=2), True, {"A": Fraction(1, 2), "B": Fraction(1, 2)}, 3)
    Fraction(13, 32)
    """
    if not isinstance(shares, Mapping) or not shares:
        raise InvalidTypeError("shares", shares, "a mapping item -> its share of the value's "
                               "draws, e.g. {'A': 1/3, 'B': 1/3}")
    if len(shares) > MAX_WANTED:
        raise LimitError(f"all_of() takes at most MAX_WANTED = {MAX_WANTED} items "
                         f"(inclusion-exclusion over 2**items subsets); got {len(shares)}",
                         limit="MAX_WANTED", value=len(shares))
    s = [_share(v, f"shares[{quote(k, limit=30)}]") for k, v in shares.items()]
    if sum(s) > 1:
        raise InvalidValueError("shares", shares, "shares adding up to at most 1")
    count = copies_within(system, value, n, state=state)
    subsets: dict[Fraction, int] = {}
    for mask in range(1 << len(s)):
        tot = sum((s[j] for j in range(len(s)) if mask >> j & 1), Fraction(0))
        sign = -1 if bin(mask).count("1") % 2 else 1
        subsets[1 - tot] = subsets.get(1 - tot, 0) + sign
    out = Fraction(0)
    for m, p in count.pmf().items():
        out += p * sum((c * q**m for q, c in subsets.items() if c), Fraction(0))
    return out


@dataclass(frozen=True)
class Cost:
    """The currency a plan costs: ``pulls`` (:class:`~chancekit.markov.Steps`), the
    ``price`` per pull less ``refund`` per pull, and the exact ``mean`` cost; ``within(b)``
    is the chance a budget ``b`` is enough, ``percentile(q)`` the budget that is enough
    with chance q."""

    pulls: Steps
    price: Fraction
    refund: Fraction

    @property
    def net(self) -> Fraction:
        """The currency one pull costs after its refund."""
        return self.price - self.refund

    @property
    def mean(self) -> Fraction:
        return self.pulls.mean * self.net

    def affordable(self, budget: Any) -> int:
        """How many pulls ``budget`` buys (floor of budget / net price)."""
        b = _amount(budget, "budget")
        return int(b // self.net)

    def within(self, budget: Any) -> Fraction:
        """The exact chance that ``budget`` is enough."""
        return self.pulls.within(self.affordable(budget))

    def percentile(self, q: Any) -> Fraction:
        """The least budget that is enough with chance at least ``q``."""
        return self.pulls.percentile(q) * self.net


def _amount(x: Any, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        raise InvalidTypeError(what, x, "an amount of currency (a number >= 0)")
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InvalidValueError(what, x, "a finite amount of currency")
        x = Fraction(repr(x))
    x = Fraction(x)
    if x < 0:
        raise InvalidValueError(what, x, "an amount of currency >= 0")
    return x


def cost(pulls: Steps, price: Any, *, refund: Any = 0) -> Cost:
    """The currency a wait of ``pulls`` costs at ``price`` a pull, less ``refund`` a
    pull (a refund per rare, given back after its pull: :func:`spend`).

    >>> from chancekit.fair import PityTimer
    >>> c = cost(copies(PityTimer(0.5, hard=2), True, 2), 160)
    >>> c.mean, c.within(480), c.percentile(0.9)
    (Fraction(480, 1), Fraction(3, 4), Fraction(640, 1))
    """
    if not isinstance(pulls, Steps):
        raise InvalidTypeError("pulls", pulls, "a Steps (from copies())")
    p, r = _amount(price, "price"), _amount(refund, "refund")
    if r >= p:
        raise InvalidValueError("refund", str(r), f"less than the price {p}")
    return Cost(pulls, p, r)


def state_of(system: System, pity: int | None, guaranteed: bool = False,
             misses: int | None = None) -> Any:
    """The system state a player describes: ``pity`` pulls since the last rare, a lost
    50/50 (``guaranteed``), fate points (``misses``), in the system's ``getstate()``
    form; None when nothing is given (a fresh banner).

    >>> from chancekit.fair import GachaPity
    >>> state_of(GachaPity(0.006, hard=90), 37, True)
    (38, True)
    """
    if pity is None and not guaranteed and misses is None:
        return None
    state = system.getstate()
    if not (isinstance(state, tuple) and state and isinstance(state[0], int)):
        raise InvalidValueError("--pity", pity, f"no pity option: {type(system).__name__} "
                                "has no pity counter")
    k = (pity or 0) + 1
    if isinstance(system, GachaPity):
        if system.hard is not None and k > system.hard:
            raise InvalidValueError("--pity", pity, f"at most {system.hard - 1} (pull "
                                    f"{system.hard} is the hard pity)")
        if system.fate is None:
            if misses is not None:
                raise InvalidValueError("--misses", misses, "nothing: the banner has no "
                                        "fate points (add fate=M to the spec)")
            return (k, guaranteed)
        m = misses or 0
        if m > system.fate:
            raise InvalidValueError("--misses", misses, f"0..{system.fate}")
        return (k, guaranteed, m)
    if guaranteed or misses is not None:
        raise InvalidValueError("--guaranteed", guaranteed, "a gacha spec (no 50/50 here)")
    return (k,)


def plan(spec: str, *, value: str | None = None, copies: int = 1, pity: int | None = None,
         guaranteed: bool = False, misses: int | None = None, pulls: int | None = None,
         price: Any = None, refund: Any = 0, budget: Any = None,
         curve: bool = False, refund_per: Mapping[str, Any] | None = None
         ) -> dict[str, Any]:
    """A plan as JSON-ready data, what ``chancekit gacha`` and the web page's Gacha
    section show: the banner as a fairness spec, the player's state (``pity`` pulls since
    the last rare, a lost 50/50, fate points), one row per copy count 1..``copies`` (mean,
    median, 90 % and 99 % pulls, the chance within ``pulls`` or ``budget`` at ``price``
    less ``refund`` a pull, the mean cost); with ``curve``, P(k copies by pull n) for
    each k (at most about 400 points a curve). ``refund_per`` (value -> currency given
    back when it is drawn, e.g. ``{"featured": 40, "off-banner": 40}``) makes the cost
    columns exact under :func:`spend`: the mean cost and the chance the budget reaches
    each copy count (``affordable`` is then None: what a budget buys depends on the
    draws). Cost: one :func:`copies_each` (and one :func:`spend` walk with refunds).

    >>> p = plan("gacha:0.006,74,0.06,90", copies=2, pity=37, guaranteed=True, pulls=160)
    >>> p["state"], [(r["median"], round(r["within_pulls"], 4)) for r in p["rows"]]
    ([38, True], [(40, 1.0), (120, 0.7207)])
    """
    from chancekit.fair.spec import system_from_spec

    system = system_from_spec(spec, 2)
    wanted: Any = value
    if value is not None and value not in system.values:
        wanted = {"true": True, "false": False}.get(value.lower(), value)
    state = state_of(system, pity, guaranteed, misses)
    if budget is not None and price is None:
        raise InvalidValueError("price", None, "a price a pull, to tell what the budget "
                                "buys")
    per: dict[Any, Any] = {}
    for key, amount in (refund_per or {}).items():
        v: Any = key
        if key not in system.values and isinstance(key, str):
            v = {"true": True, "false": False}.get(key.lower(), key)
        per[v] = amount
    if per and price is None:
        raise InvalidValueError("price", None, "a price a pull, to tell what the refunds "
                                "per draw save")
    # the plan is JSON with float figures: amounts past 1e15 would overflow or lose units
    for what, x in [("price", price), ("refund", refund), ("budget", budget),
                    *((f"refund_per[{quote(v, limit=30)}]", a) for v, a in per.items())]:
        if x is not None and _amount(x, what) > _MOST_CURRENCY:
            raise InvalidValueError(what, str(x), "an amount of currency at most 1e15")
    each = copies_each(system, wanted, copies, state=state)
    spends = (_spend_each(system, wanted, copies, price, refund, per, state, None, None)
              if per else None)
    afford = None
    if budget is not None and not per:
        afford = cost(each[0], price, refund=refund).affordable(budget)
    rows = []
    for k, s in enumerate(each, start=1):
        row: dict[str, Any] = {
            "copies": k, "mean": float(s.mean), "mean_exact": _short(s.mean),
            "sd": float(s.variance) ** 0.5,
            "median": s.percentile(Fraction(1, 2)), "p90": s.percentile(Fraction(9, 10)),
            "p99": s.percentile(Fraction(99, 100)), "most": s.upto if not s.tail else None,
            "within_pulls": None if pulls is None else float(s.within(pulls)),
            "within_budget": None if afford is None else float(s.within(afford)),
            "mean_cost": None if price is None else float(cost(s, price,
                                                               refund=refund).mean),
        }
        if spends is not None:
            sp = spends[k - 1]
            row["mean_cost"] = None if sp.tail else float(sp.mean)
            row["within_budget"] = None if budget is None or sp.tail else float(
                sp.within(budget))
        rows.append(row)
    if wanted is None:
        wanted = "featured" if "featured" in system.values else True
    out: dict[str, Any] = {
        "spec": spec, "value": str(wanted),
        "state": None if state is None else list(state),
        "pulls": pulls, "price": None if price is None else float(price),
        "refund": float(refund or 0), "budget": None if budget is None else float(budget),
        "affordable": afford, "rows": rows,
        "refund_per": {str(v): float(a) for v, a in per.items()},
    }
    if curve:
        last = max(s.upto for s in each)
        step = max(1, last // 400)
        out["curve"] = {"pulls": list(range(0, last + 1, step)),
                        "chance": [[float(s.within(n)) if n <= s.upto or not s.tail
                                    else None for n in range(0, last + 1, step)]
                                   for s in each]}
    return out


#: the largest amount of currency :func:`plan` takes (its figures are floats)
_MOST_CURRENCY = 10**15


def _short(x: Any) -> str | None:
    text = str(x)
    return text if len(text) <= 40 else None


# --------------------------------------------------------------------------- spend
@dataclass(frozen=True)
class Spend:
    """The currency spent until the k-th copy, exactly, when each pull costs ``price``
    (less ``refund`` a pull) and each draw of a value in ``refund_per`` gives back its
    amount (a refund per rare: starglitter): ``spent`` the (amount, chance) pairs of the
    net currency spent, ``needed`` those of the least budget that reaches the copy
    (refunds are paid after their pull, so it is spent plus the last refund when no
    refund exceeds a pull's price), ``tail`` the exact chance of a wait longer than
    ``pulls.upto`` (0: complete). ``mean``, ``within(budget)``, ``percentile(q)`` as
    :class:`Cost`'s."""

    pulls: Steps
    price: Fraction
    refund: Fraction
    refund_per: tuple[tuple[Any, Fraction], ...]
    spent: tuple[tuple[Fraction, Fraction], ...]
    needed: tuple[tuple[Fraction, Fraction], ...]
    tail: Fraction
    floor: Fraction | None = None  # the least budget a wait past ``pulls.upto`` needs

    @property
    def net(self) -> Fraction:
        """The currency one pull costs after its refund a pull."""
        return self.price - self.refund

    @property
    def distribution(self) -> Distribution | None:
        """The exact distribution of the net currency spent (None with a tail)."""
        if self.tail:
            return None
        return Distribution(dict(self.spent))

    @property
    def mean(self) -> Fraction:
        """The exact mean net currency spent (refused when the wait has a tail)."""
        if self.tail:
            raise InvalidValueError("mean", None, "a complete distribution: the wait has "
                                    "no bound, so ask spend(..., upto=N) for within() "
                                    "and percentile() only")
        return sum((a * p for a, p in self.spent), Fraction(0))

    def within(self, budget: Any) -> Fraction:
        """The exact chance that ``budget`` reaches the k-th copy (a pull is paid before
        it is made, its refund after). O(support)."""
        b = _amount(budget, "budget")
        if self.tail and (self.floor is None or b >= self.floor):
            raise InvalidValueError("budget", str(b), f"less than {self.floor}: a longer "
                                    "wait than the walked one may fit a larger budget "
                                    "(ask for a larger upto=)")
        return sum((p for a, p in self.needed if a <= b), Fraction(0))

    def percentile(self, q: Any) -> Fraction:
        """The least budget that reaches the k-th copy with chance at least ``q``."""
        q = require_fraction("q", q, meaning="a chance 0 < q <= 1", above_zero=True)
        acc = Fraction(0)
        for a, p in self.needed:
            acc += p
            if acc >= q and (not self.tail or self.floor is None or a < self.floor):
                return a
            if acc >= q:
                break
        raise InvalidValueError("q", str(q), "a chance the walked wait reaches (ask for a "
                                "larger upto=)")


def _refunds(system: System, refund_per: Any) -> list[Fraction]:
    """The refund of each of the system's values (0 when not in ``refund_per``)."""
    if refund_per is None:
        refund_per = {}
    if not isinstance(refund_per, Mapping):
        raise InvalidTypeError("refund_per", refund_per, "a mapping value -> currency "
                               "given back when it is drawn, e.g. {'featured': 40, "
                               "'off-banner': 40}")
    out = [Fraction(0)] * len(system.values)
    for v, a in refund_per.items():
        if v not in system.values:
            raise InvalidValueError("refund_per", v, f"a key among the system's values "
                                    f"{system.values}")
        out[system.values.index(v)] = _amount(a, f"refund_per[{quote(v, limit=30)}]")
    return out


def _unit(amounts: list[Fraction]) -> Fraction:
    """The greatest amount that divides each of ``amounts`` (some nonzero)."""
    den = math.lcm(*(a.denominator for a in amounts))
    return Fraction(math.gcd(*(int(a * den) for a in amounts)), den)


def spend(system: System, value: Any = None, k: int = 1, *, price: Any,
          refund: Any = 0, refund_per: Mapping[Any, Any] | None = None,
          state: Any = None, upto: int | None = None,
          tail: Fraction | float | None = None) -> Spend:
    """The exact distribution of the currency spent until the ``k``-th copy of ``value``
    from ``state``, each pull costing ``price`` less ``refund``, each draw of a value
    in ``refund_per`` giving back its amount (Genshin's starglitter: ``{"featured": 40,
    "off-banner": 40}`` at 160 a pull). With no ``refund_per`` it is :func:`cost`'s
    ``net x pulls``.

    One forward pass over (system state, copies, refunds so far, headroom) with integer
    masses over a common denominator, amounts in units of the gcd of the amounts, the
    wait walked as far as :func:`copies` walks it (``upto``, ``tail``). Cost: O(pulls x
    states x copies x distinct refund totals) big-integer operations, charged to the
    work budget before each pull and refused up front by an estimate (a 90-pull banner,
    2 copies, refunds on both rares: about 0.3 s; 3 copies about 1 s).

    >>> from chancekit.fair import PityTimer
    >>> s = spend(PityTimer(0.5, hard=2), True, 2, price=160, refund_per={True: 40})
    >>> [(int(a), str(p)) for a, p in s.spent]    # 2, 3 or 4 pulls, two refunds
    [(240, '1/4'), (400, '1/2'), (560, '1/4')]
    >>> s.mean, s.within(440), s.percentile(0.9)  # the last refund comes after the pull
    (Fraction(400, 1), Fraction(3, 4), Fraction(600, 1))
    """
    return _spend_each(system, value, k, price, refund, refund_per, state, upto, tail,
                       last=True)[-1]


def _spend_each(system: System, value: Any, k: int, price: Any, refund: Any,
                refund_per: Any, state: Any, upto: int | None, tail: Any,
                last: bool = False) -> list[Spend]:
    """:func:`spend` for the 1st, 2nd, ..., ``k``-th copy (one walk)."""
    sysc, target = _system(system, value, state)
    value = sysc.values[target]
    k = _copies_k(k)
    p, r = _amount(price, "price"), _amount(refund, "refund")
    if r >= p:
        raise InvalidValueError("refund", str(r), f"less than the price {p}")
    per = _refunds(sysc, refund_per)
    net = p - r
    every = copies_each(sysc, value, k, upto=upto, tail=tail)
    each = every[-1:] if last else every
    most = max(s.upto for s in each)
    unit = _unit([net, *per])
    c = int(net / unit)
    ru = [int(a / unit) for a in per]
    with _budget():
        start, probs, after = _chain_of(sysc)
        limits.refuse_past_budget(
            _spend_work(start, probs, after, every, len({a for a in ru if a}), most),
            f"spend(): {most:,} pulls x {k:,} copies with refunds",
            "ask for fewer copies, or fewer values with a refund")
        walked = _spend_walk(start, probs, after, target, k, c, ru, most)
    out = []
    refunds = tuple((v, a) for v, a in zip(sysc.values, per, strict=True) if a)
    for pulls, (spent, needed) in zip(each, walked[-1:] if last else walked, strict=True):
        pmf_s = tuple(sorted((a * unit, q) for a, q in spent.items()))
        pmf_n = tuple(sorted((a * unit, q) for a, q in needed.items()))
        floor = None
        if pulls.tail and max(per) <= net:
            # a wait of T > upto pulls needs at least (T - 1) x (net - most refund) + net
            floor = pulls.upto * (net - max(per)) + net
        out.append(Spend(pulls, p, r, refunds, pmf_s, pmf_n, pulls.tail, floor))
    return out


def _spend_work(start: Any, probs: Callable[[Any], list[Fraction]],
                after: Callable[[Any, int], Any], every: list[Steps], amounts: int,
                most: int) -> int:
    """An estimate, made before the walk, of the work units :func:`_spend_walk` charges:
    a pull t holds about (system states reachable in t pulls) x (copy counts still in
    progress at t) x
    (refund totals: about 1 + amounts x copies so far) keys, each a few operations on integers
    of t x bits(L) bits. The system's states are listed first (charged a state each)."""
    seen = {start}
    level = [start]
    reach = [1]  # states reachable within t pulls, t = 0, 1, ... (until no new one)
    lbits = 1
    while level:
        nxt = []
        for s in level:
            limits.charge(limits.EXPLORE_STATE_WORK, "spend(): the system's states")
            ps = probs(s)
            lbits = max(lbits, math.lcm(*(q.denominator for q in ps)).bit_length())
            for i, q in enumerate(ps):
                if q:
                    a = after(s, i)
                    if a not in seen:
                        seen.add(a)
                        nxt.append(a)
            if len(seen) > limits.MAX_MARKOV_STATES:
                raise LimitError(f"spend(): more than MAX_MARKOV_STATES = "
                                 f"{limits.MAX_MARKOV_STATES:,} states",
                                 limit="MAX_MARKOV_STATES", value=len(seen))
        level = nxt
        reach.append(len(seen))
    first = [next((t for t, p in enumerate(st.pmf) if p), 0) for st in every]
    ends = [st.upto for st in every]
    total = 0
    for t in range(1, most + 1):
        # copy counts j (0-based: j copies so far) possible at t: first[j-1] <= t <= ends[j]
        keys = sum(1 + amounts * j for j in range(len(every))
                   if (j == 0 or first[j - 1] <= t) and t <= ends[j])
        total += reach[min(t, len(reach) - 1)] * keys * 4 * _edge_work(MARKOV_INT_WORK,
                                                                       t * lbits)
    return total


def _spend_walk(start: Any, probs: Callable[[Any], list[Fraction]],
                after: Callable[[Any, int], Any], target: int, k: int, c: int,
                ru: list[int], upto: int
                ) -> list[tuple[dict[int, Fraction], dict[int, Fraction]]]:
    """Forward over (state, copies, refunds R, headroom H) for ``upto`` pulls: after t
    pulls the spent is c*t - R and the budget needed spent + H (H' = max(H + r - c, r):
    the most a pull was short of, above what is spent now). Amounts in units."""
    rows: dict[Any, tuple[int, list[tuple[Any, int, int]]]] = {}

    def row(s: Any) -> tuple[int, list[tuple[Any, int, int]]]:
        got = rows.get(s)
        if got is None:
            ps = probs(s)
            den = math.lcm(*(q.denominator for q in ps))
            got = rows[s] = (den, [(after(s, i), q.numerator * (den // q.denominator), i)
                                   for i, q in enumerate(ps) if q])
            if len(rows) > limits.MAX_MARKOV_STATES:
                raise LimitError(f"spend(): more than MAX_MARKOV_STATES = "
                                 f"{limits.MAX_MARKOV_STATES:,} states",
                                 limit="MAX_MARKOV_STATES", value=len(rows))
        return got

    spent: list[dict[int, Fraction]] = [{} for _ in range(k)]
    needed: list[dict[int, Fraction]] = [{} for _ in range(k)]
    cur: dict[tuple[Any, int, int, int], int] = {(start, 0, 0, 0): 1}
    scale = 1
    for t in range(1, upto + 1):
        if not cur:
            break
        limits.charge(len(cur) * 4 * _edge_work(MARKOV_INT_WORK, scale.bit_length()),
                      f"spend(): pull {t}")
        live = {s for s, _, _, _ in cur}
        den = math.lcm(*(row(s)[0] for s in live))
        nxt: dict[tuple[Any, int, int, int], int] = {}
        done: dict[tuple[int, int, int], int] = {}
        for (s, got, R, H), m in cur.items():
            d, out = rows[s]
            f = m * (den // d)
            for a, w, i in out:
                ri = ru[i]
                h = max(H + ri - c, ri)
                if i == target:  # the (got + 1)-th copy: recorded, and on to the next
                    key2 = (got, c * t - R - ri, h)
                    done[key2] = done.get(key2, 0) + f * w
                    if got + 1 == k:
                        continue
                key = (a, got + (i == target), R + ri, h)
                nxt[key] = nxt.get(key, 0) + f * w
        scale *= den
        for (j, sp, h), m in done.items():
            q = Fraction(m, scale)
            spent[j][sp] = spent[j].get(sp, 0) + q
            needed[j][sp + h] = needed[j].get(sp + h, 0) + q
        cur = nxt
    return list(zip(spent, needed, strict=True))
