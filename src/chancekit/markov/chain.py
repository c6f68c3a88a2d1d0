"""The exact engine of finite Markov chains whose steps are chancekit values.

A chain is a function ``step(state)`` giving the next state: a
:class:`~chancekit.Distribution` of next states, a dict ``{next state: weight}``, a
dice-notation string (read with :func:`chancekit.dist`), or any other hashable value (the
next state, for certain). A string is always notation: to move to a string state return
``constant("spent")``.
States are any hashable values (numbers, tuples, strings). A state whose step returns
itself with certainty is **absorbing** (icepool's convention); the chain is the part
reachable from ``start``.

- :func:`absorb` — the exact distribution of the absorbing state reached;
- :func:`steps` — the number of steps to absorption: exact mean and variance, and its
  distribution up to a step or a tail mass, with the mass beyond stated exactly;
- :func:`stationary` — the exact long-run distribution (the share of time in each state).

Everything is exact rational arithmetic (python-flint ``fmpq`` and ``fmpq_mat`` through
:mod:`chancekit._exact`), never iteration to a tolerance. The reachable states are split
into strongly connected components (Tarjan); components of one state (HP only goes down,
a pity counter only goes up) are solved by substitution in topological order, one
exact operation per transition; larger components by one dense ``fmpq_mat`` inverse each
(its entries are small), then exact matrix products with the big numbers flowing in and
out (flint puts each column over one denominator: a gcd per state and exit, not per
transition).

Cost: exploring calls ``step`` once per state, counted as it runs
(:data:`~chancekit.limits.EXPLORE_STATE_WORK` units a state,
:data:`~chancekit.limits.EXPLORE_EDGE_WORK` a transition); the solve is estimated from
the explored graph before it starts — about :data:`~chancekit.limits.MARKOV_EDGE_WORK`
units a transition plus k**3 / 4 a dense component of k states, with the big numbers
priced at their estimated size (:meth:`Chain.bits`). Both are charged to one budget of
``max_work`` units (default :data:`~chancekit.limits.MAX_MARKOV_WORK`, about 3 s), refused
past it with the ``max_work=N`` (``--max-work N``) that would lift it. A component's
dense solve is priced with its memory (k**2 cells, about 64 bytes each, named in the
refusal: a 2 000-state component is about 2 G units and 256 MB), so a component of any
size is answered when ``max_work`` is lifted for it (issue #31: 2 000 states was a fixed
ceiling). Memory ceilings, not lifted: :data:`~chancekit.limits.MAX_MARKOV_STATES`
states and :data:`~chancekit.limits.MAX_MARKOV_TRANSITIONS` transitions.

>>> from chancekit.markov import absorb, steps
>>> from chancekit import constant, d
>>> def usage(size):                     # a usage die: d6 -> d4 -> spent, down on 1-2
...     return constant(size) if size == "spent" else d(size).map(
...         lambda r: size if r > 2 else {6: 4, 4: "spent"}[size])
>>> steps(usage, 6).mean                 # 6/2 + 4/2
Fraction(5, 1)
>>> absorb(usage, 6)
Distribution({'spent': 1})
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from chancekit import _exact as flint
from chancekit import limits
from chancekit.dice.distribution import Distribution
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, quote
from chancekit.limits import (
    EXPLORE_EDGE_WORK,
    EXPLORE_STATE_WORK,
    MARKOV_EDGE_WORK,
    MARKOV_INT_WORK,
    MARKOV_MOMENT_WORK,
    MAX_MARKOV_STATES,
    MAX_MARKOV_STEPS,
    MAX_MARKOV_TRANSITIONS,
    MAX_MARKOV_WORK,
    MAX_WORK_OPTION,
)

__all__ = ["Chain", "Steps", "absorb", "explore", "stationary", "steps", "upfront"]

Step = Callable[[Any], Any]


def _weights(value: Any, state: Any, cache: dict[str, Distribution]
             ) -> tuple[dict[Any, int], int]:
    """A step's result as ``(next state -> int weight, total)``: a dict of plain
    positive ints is taken as it is (no sorting, no gcd), anything else through
    :func:`_coerce`."""
    if type(value) in _CERTAIN:  # a next state for certain (an int, a tuple of ints...)
        try:
            hash(value)
        except TypeError:  # a tuple holding a list: _coerce names it
            pass
        else:
            return {value: 1}, 1
    if type(value) is dict and value:
        total = 0
        for w in value.values():
            if type(w) is not int or w <= 0:
                break
            total += w
        else:
            return value, total
    d = _coerce(value, state, cache)
    return d._w, d._total


#: the types of a step's result read at once as the next state for certain
_CERTAIN = frozenset({int, tuple, frozenset, float, bool, type(None)})


def _coerce(value: Any, state: Any, cache: dict[str, Distribution]) -> Distribution:
    """A step's result as a Distribution: itself, notation read by ``dist``, or a
    certain next state."""
    if isinstance(value, Distribution):
        return value
    if type(value) is dict:  # next state -> weight: plain positive ints skip the checks
        if value and all(type(w) is int and w > 0 for w in value.values()):
            return Distribution._raw(value)
        return Distribution(value)
    if isinstance(value, str):
        out = cache.get(value)
        if out is None:
            from chancekit.dice.notation import dist
            from chancekit.errors import NotationError
            try:
                out = cache[value] = dist(value)
            except NotationError as e:
                raise InvalidValueError(
                    f"step({quote(state, limit=40)}) returned {quote(value, limit=40)}, read "
                    f"as dice notation: {e.line}; to move to the state {quote(value, limit=40)}"
                    f" return constant({quote(value, limit=40)})") from e
        return out
    try:
        hash(value)
    except TypeError:
        raise InvalidTypeError(f"step({quote(state)})", value,
                               "a Distribution, dice notation or a hashable next state"
                               ) from None
    return Distribution._raw({value: 1}, reduced=True)


def _fraction(x: Any) -> Fraction:
    return Fraction(int(x.p), int(x.q))


class Chain:
    """The part of a chain reachable from ``start``, explored (see :func:`explore`).

    ``states[i]`` is the i-th state found (``states[0]`` is ``start``); ``succ[i]`` and
    ``weight[i]`` its successors other than itself and their integer weights; ``loop[i]``
    the weight of staying; ``total[i]`` the sum of them all. Absorbing states have no
    successors. Components (strongly connected, self-loops aside) are computed on demand.
    """

    __slots__ = ("_closed", "_comps", "index", "loop", "states", "succ", "total", "weight")

    def __init__(self) -> None:
        self.states: list[Any] = []
        self.index: dict[Any, int] = {}
        self.succ: list[tuple[int, ...]] = []
        self.weight: list[tuple[int, ...]] = []
        self.loop: list[int] = []
        self.total: list[int] = []
        self._comps: tuple[list[list[int]], list[int]] | None = None
        self._closed: list[bool] | None = None

    def __len__(self) -> int:
        return len(self.states)

    @property
    def transitions(self) -> int:
        """Transitions other than self-loops."""
        return sum(len(s) for s in self.succ)

    def absorbing(self, i: int) -> bool:
        return not self.succ[i]

    def components(self) -> tuple[list[list[int]], list[int]]:
        """Strongly connected components (iterative Tarjan), sinks first, and the
        component number of each state."""
        if self._comps is not None:
            return self._comps
        n = len(self.states)
        succ = self.succ
        order = _topological(succ)
        if order is not None:  # acyclic (self-loops aside): every state its own component
            comp_of = [0] * n
            for c, i in enumerate(reversed(order)):
                comp_of[i] = c
            self._comps = ([[i] for i in reversed(order)], comp_of)
            return self._comps
        order = [-1] * n
        low = [0] * n
        on = [False] * n
        comp_of = [-1] * n
        stack: list[int] = []
        comps: list[list[int]] = []
        counter = 0
        for root in range(n):
            if order[root] >= 0:
                continue
            work = [(root, 0)]
            order[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on[root] = True
            while work:
                v, k = work[-1]
                nbrs = succ[v]
                if k < len(nbrs):
                    work[-1] = (v, k + 1)
                    w = nbrs[k]
                    if order[w] < 0:
                        order[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on[w] = True
                        work.append((w, 0))
                    elif on[w] and order[w] < low[v]:
                        low[v] = order[w]
                    continue
                work.pop()
                if work:
                    u = work[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == order[v]:
                    comp: list[int] = []
                    while True:
                        w = stack.pop()
                        on[w] = False
                        comp_of[w] = len(comps)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(comp)
        self._comps = (comps, comp_of)
        return self._comps

    def closed(self) -> list[bool]:
        """For each component: no transition leaves it (an absorbing state, or a
        recurrent class)."""
        if self._closed is None:
            comps, comp_of = self.components()
            self._closed = [all(comp_of[j] == c for i in comp for j in self.succ[i])
                            for c, comp in enumerate(comps)]
        return self._closed

    def solve_work(self, edge_work: int = MARKOV_EDGE_WORK, solves: int = 1,
                   growth: str | None = None) -> int:
        """Estimated work units of one pass over the chain at ``edge_work`` units a
        transition, with ``solves`` dense solves a component, made before the pass
        starts. With ``growth`` (``"forward"``: masses flowing from ``start``;
        ``"backward"``: expectations flowing back from the absorbing states) the pass is
        on exact fractions whose size grows along the chain: each transition is priced
        at the estimated bits of the numbers it handles (:meth:`bits`)."""
        comps, _ = self.components()
        bits = self.bits(growth) if growth else None
        units = 0
        for c, comp in enumerate(comps):
            big = bits is not None and not (growth == "forward" and self.closed()[c])
            # (a closed class's own solve is on its small probabilities: stationary)
            units += self.component_work(comp, edge_work, solves, bits[c] if big else None)
        return units

    def component_work(self, comp: list[int], edge_work: int, solves: int,
                       bits: int | None) -> int:
        """Work units of one component in a pass (:meth:`solve_work`), its numbers of
        ``bits`` bits (None: small). The passes count the same with the sizes they met."""
        k = len(comp)
        edges = k + sum(len(self.succ[i]) for i in comp)
        per = edge_work if bits is None else _grow(edge_work, bits)
        if k == 1:
            return edges * per
        # a block: its matrix on small numbers (a transition each, an exact solve per
        # column: flint's fraction-free LU, k**3 / 4), the big numbers in the column
        # solved (k**2 x their words) and once per state and exit
        units = edges * edge_work + solves * (k**3 // 4 + k * k * _CELL_WORK)
        if bits is not None:
            exits = len({j for i in comp for j in self.succ[i]}) - k
            units += solves * ((2 * k + max(exits, 0)) * (per - edge_work)
                               + k * k * (bits // 64))
        return units

    def bits(self, growth: str) -> list[int]:
        """For each component, the estimated size in bits of the exact fractions a
        rational pass handles there: the denominators multiply along the chain, by a
        state's leaving weight (``total - loop``) at each single state and by the
        determinant of a dense component (Hadamard's bound: the product of its rows'
        totals), so a component's size is the largest sum of these over the paths from
        ``start`` to it (``"forward"``) or from it to absorption (``"backward"``)."""
        comps, comp_of = self.components()
        succ, loop, total = self.succ, self.loop, self.total
        own = []
        for comp in comps:
            if len(comp) == 1:
                i = comp[0]
                own.append((total[i] - loop[i]).bit_length() if succ[i] else 0)
            else:
                own.append(sum(total[i].bit_length() + 1 for i in comp))
        size = [0] * len(comps)
        if growth == "forward":
            for c in range(len(comps) - 1, -1, -1):  # sources first
                here = size[c] + own[c]
                for i in comps[c]:
                    for j in succ[i]:
                        cj = comp_of[j]
                        if cj != c and size[cj] < here:
                            size[cj] = here
            return [size[c] + own[c] for c in range(len(comps))]
        for c, comp in enumerate(comps):  # sinks first
            most = 0
            for i in comp:
                for j in succ[i]:
                    cj = comp_of[j]
                    if cj != c and size[cj] > most:
                        most = size[cj]
            size[c] = most + own[c]
        return size


#: work units of one cell of a component's dense k x k matrix: building it in Python and
#: in flint (about 1 us), which also prices its memory (about :data:`_CELL_BYTES`)
_CELL_WORK = 50
#: bytes one cell of the dense matrix takes while it is solved (a pointer in the rows
#: built in Python, one in the flattened list, a small fmpq in flint: about 40; the
#: fraction-free solve's integers grow past that on big components)
_CELL_BYTES = 64


def block_note(states: int) -> str:
    """What a refusal says of a component of ``states`` states (issue #31): its dense
    exact solve, priced as work (k**3 / 4 units, lifted with ``max_work``), and the
    memory its k x k matrix takes. Empty for components of at most 1 000 states.

    >>> block_note(2_000)[:60]
    ' (one component of 2,000 states that reach each other: a den'
    >>> block_note(1_000)
    ''
    """
    if states <= 1_000:
        return ""
    units = states**3 // 4 + states * states * _CELL_WORK
    mb = states * states * _CELL_BYTES // 10**6
    return (f" (one component of {states:,} states that reach each other: a dense exact "
            f"solve, about {units:,} units and {mb:,} MB for its {states:,} x {states:,} "
            "matrix)")


def _grow(base: int, bits: int) -> int:
    """Work units of one exact fraction operation (a product and a sum, with their gcd)
    on numbers of ``bits`` bits: about 6 x (bits / 64)**1.5 besides ``base`` (GMP's
    subquadratic gcd, measured with python-flint: 4,000 bits 180 us, 16,000 bits 1 ms,
    64,000 bits 8 ms)."""
    words = bits // 64
    return base + 6 * words * math.isqrt(words)


def _topological(succ: list[tuple[int, ...]]) -> list[int] | None:
    """Kahn's algorithm: the states sources first, or None when there is a cycle."""
    n = len(succ)
    indeg = [0] * n
    for s in succ:
        for j in s:
            indeg[j] += 1
    ready = [i for i in range(n) if not indeg[i]]
    order: list[int] = []
    while ready:
        i = ready.pop()
        order.append(i)
        for j in succ[i]:
            indeg[j] -= 1
            if not indeg[j]:
                ready.append(j)
    return order if len(order) == n else None


def explore(step: Step, start: Hashable, *, max_work: int | float | None = None) -> Chain:
    """Explore the chain from ``start``: call ``step`` once per reachable state.

    The step function is opaque, so its work is counted as it runs, priced
    :data:`~chancekit.limits.EXPLORE_STATE_WORK` units a state and
    :data:`~chancekit.limits.EXPLORE_EDGE_WORK` a transition, and charged to the query's
    work budget (``max_work`` units, :data:`~chancekit.limits.MAX_MARKOV_WORK` by
    default): past it a :class:`~chancekit.errors.LimitError` stops the exploration and
    says how to lift it. :data:`~chancekit.limits.MAX_MARKOV_STATES` states and
    :data:`~chancekit.limits.MAX_MARKOV_TRANSITIONS` transitions are memory ceilings.
    Equal states (``1 == 1.0``) are one.

    >>> chain = explore(lambda n: n if n == 0 else n - 1, 3)
    >>> chain.states, chain.transitions
    ([3, 2, 1, 0], 3)
    """
    if not callable(step):
        raise InvalidTypeError("step", step,
                               "a function state -> Distribution, dice notation or next state")
    try:
        hash(start)
    except TypeError:
        raise InvalidTypeError("start", start, "a hashable state") from None
    with _budget(max_work, start) as budget:
        return _explore(step, start, budget)


def _explore(step: Step, start: Hashable, budget: limits.Budget) -> Chain:
    chain = Chain()
    states, index = chain.states, chain.index
    states.append(start)
    index[start] = 0
    cache: dict[str, Distribution] = {}
    edges = 0
    i = 0
    while i < len(states):
        s = states[i]
        try:
            weights, total = _weights(step(s), s, cache)
        except Exception as e:  # the user's step: say at which state it failed
            if not isinstance(e, InvalidTypeError | InvalidValueError):
                e.add_note(f"(in step({quote(s, limit=80)}) of a chancekit.markov chain)")
            raise
        units = EXPLORE_STATE_WORK + EXPLORE_EDGE_WORK * len(weights)
        if budget.estimated + units > budget.limit:  # the message is built only here
            budget.charge(units, f"exploring the chain from {quote(start, limit=40)} (stopped "
                          f"at {len(states):,} states and {edges:,} transitions found; the "
                          "chain may be larger)")
        budget.estimated += units  # charged as counted: the step is opaque
        budget.counted += units
        loop = 0
        ss: list[int] = []
        ww: list[int] = []
        for x, q in weights.items():
            j = index.get(x)
            if j is None:
                j = len(states)
                if j >= MAX_MARKOV_STATES:
                    raise LimitError(
                        f"the chain from {quote(start, limit=40)} reaches more than "
                        f"MAX_MARKOV_STATES = {MAX_MARKOV_STATES:,} states, the memory "
                        "ceiling of one chain (max_work does not lift it); keep in the "
                        "state only what the next step depends on (cap counters, merge "
                        f"equivalent states){_builders(start)}",
                        limit="MAX_MARKOV_STATES", value=j + 1)
                index[x] = j
                states.append(x)
            if j == i:
                loop = q
            else:
                ss.append(j)
                ww.append(q)
        edges += len(ss)
        if edges > MAX_MARKOV_TRANSITIONS:
            raise LimitError(
                f"the chain from {quote(start, limit=40)} has more than "
                f"MAX_MARKOV_TRANSITIONS = {MAX_MARKOV_TRANSITIONS:,} transitions, the "
                "memory ceiling of one chain (max_work does not lift it); merge states or "
                f"outcomes (group a step's outcomes by the state they lead to){_builders(start)}",
                limit="MAX_MARKOV_TRANSITIONS", value=edges)
        chain.succ.append(tuple(ss))
        chain.weight.append(tuple(ww))
        chain.loop.append(loop)
        chain.total.append(total)
        i += 1
    return chain


def _builders(start: Any) -> str:
    """The builders of :mod:`chancekit.markov.processes` that may answer a chain started
    at ``start`` with fewer states, for a refusal's advice."""
    def number(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if isinstance(start, tuple) and len(start) == 2 and all(map(number, start)):
        return ("; a race of two HP totals is hp_race((hp_a, hp_b), (damage_a, damage_b)) "
                "(chancekit.markov), which reads it from each side's time to go down: 100 v "
                "100 HP in about 25 ms")
    if number(start):
        return ("; HP going down is hp_race(hp, damage), a usage die usage_die([...]) "
                "(chancekit.markov builders, far fewer states)")
    return ("; chancekit.markov's builders (hp_race, usage_die, roll_until, draw_until, "
            "first_success, board) answer their processes with fewer states")


def _max_work(value: Any) -> int | None:
    """``max_work``: None (the default budget) or a whole number of units from 1 to
    :data:`~chancekit.limits.MAX_WORK_OPTION` (an int, or a float like ``4e8``)."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not (
            1 <= value <= MAX_WORK_OPTION):
        raise InvalidValueError("max_work", value, f"a whole number of work units from 1 to "
                                f"{MAX_WORK_OPTION:.0e} (about 20 ns each; e.g. 4e8 for about "
                                "8 s), or None for MAX_MARKOV_WORK")
    return value


def _short(units: int) -> str:
    """A round number of units at least ``units``, as Python accepts it (``4e8``)."""
    digits = len(str(max(units, 1))) - 1
    lead = -(-units // 10**digits)
    if lead >= 10:
        lead, digits = 1, digits + 1
    return f"{lead}e{digits}"


class _Refusal:
    """The refusal of a chain query past its work budget: says how much, how to lift it
    (``max_work=N``, ``--max-work N``) and which builder may answer the chain instead."""

    __slots__ = ("budget", "hint")

    def __init__(self, budget: limits.Budget, hint: str) -> None:
        self.budget, self.hint = budget, hint

    def __call__(self, what: str, units: int) -> LimitError:
        limit, name = self.budget.limit, self.budget.name
        exploring = what.startswith("exploring")
        lift = _short(max(4 * limit, units) if exploring else max(units * 5 // 4, limit + 1))
        told = (f"the limit max_work = {limit:,}" if name == "MAX_MARKOV_WORK"
                and limit != MAX_MARKOV_WORK else f"the limit {name} = {limit:,}")
        return LimitError(
            f"{what} needs too much work: about {units:,} units in all is past {told} "
            f"(one unit is about {limits.UNIT_NS} ns); lift it with max_work={lift} "
            f"(every chancekit.markov query takes it; --max-work {lift} on the command "
            "line), or keep in the state only what the next step depends on"
            f"{'' if exploring else ', or ask for less (a smaller upto, a larger tail)'}"
            f"{self.hint}", limit=name, value=units)


class _budget:  # (lower case: used as a function, ``with _budget():``)
    """The work budget of one chain query: a new one of ``max_work`` units
    (:data:`~chancekit.limits.MAX_MARKOV_WORK` by default), or the evaluation already
    open (the command line's ``--max-work``, an outer query), which the query joins; its
    refusals are the chain's (:class:`_Refusal`), naming the builders that fit ``start``."""

    __slots__ = ("evaluation", "hint", "limit", "saved")

    def __init__(self, max_work: Any = None, start: Any = None) -> None:
        self.limit = _max_work(max_work)
        self.hint = "" if start is None else _builders(start)
        self.evaluation: Any = None
        self.saved: Any = None

    def __enter__(self) -> limits.Budget:
        budget = limits.current()
        if budget is None:
            self.evaluation = limits.evaluation(
                limit=MAX_MARKOV_WORK if self.limit is None else self.limit,
                name="MAX_MARKOV_WORK")
            budget = self.evaluation.__enter__()
        self.saved = budget.refuse
        if budget.refuse is None:  # (an outer query's refusal stays: its advice fits)
            budget.refuse = _Refusal(budget, self.hint)
        return budget

    def __exit__(self, *exc: object) -> None:
        budget = limits.current()
        if budget is not None:
            budget.refuse = self.saved
        if self.evaluation is not None:
            self.evaluation.__exit__(*exc)


def upfront(what: str, states: int, transitions: int, block: int = 0, work: int = 0
            ) -> None:
    """Refuse a chain whose size is known before it is explored (a process that can
    count its states): at most ``states`` states, ``transitions`` transitions and a
    strongly connected component of ``block`` states, and ``work`` more units the
    process knows it will charge (a walk). Raises the
    :class:`~chancekit.errors.LimitError` of the first memory ceiling passed, or of the
    work budget (the open one, else :data:`~chancekit.limits.MAX_MARKOV_WORK`) when the
    exploration and the solve (a transition each, k**3 / 4 the component) pass it.

    >>> upfront("a race of 1000 x 1000 HP", 10**6 + 3, 10**8)
    Traceback (most recent call last):
    ...
    chancekit.errors.LimitError: a race of 1000 x 1000 HP has up to 1,000,003 states, ...
    """
    if states > MAX_MARKOV_STATES:
        raise LimitError(
            f"{what} has up to {states:,} states, more than MAX_MARKOV_STATES = "
            f"{MAX_MARKOV_STATES:,} (the memory ceiling of one chain); keep in the state "
            "only what the next step depends on", limit="MAX_MARKOV_STATES", value=states)
    if transitions > MAX_MARKOV_TRANSITIONS:
        raise LimitError(
            f"{what} has up to {transitions:,} transitions, more than "
            f"MAX_MARKOV_TRANSITIONS = {MAX_MARKOV_TRANSITIONS:,} (the memory ceiling of one "
            "chain); group outcomes first", limit="MAX_MARKOV_TRANSITIONS", value=transitions)
    units = (states * EXPLORE_STATE_WORK + transitions * (EXPLORE_EDGE_WORK + MARKOV_EDGE_WORK)
             + block**3 // 4 + block * block * _CELL_WORK + work)
    budget = limits.current()
    if budget is None:
        budget = limits.Budget(MAX_MARKOV_WORK, "MAX_MARKOV_WORK")
    if budget.estimated + units > budget.limit:
        refuse = budget.refuse if isinstance(budget.refuse, _Refusal) else _Refusal(budget, "")
        raise refuse(what + block_note(block), budget.estimated + units)


def _charge(chain: Chain, what: str, edge_work: int = MARKOV_EDGE_WORK,
            solves: int = 1, growth: str | None = None) -> None:
    limits.charge(chain.solve_work(edge_work, solves, growth), what + _biggest(chain))


def _biggest(chain: Chain) -> str:
    """:func:`block_note` of the chain's largest component."""
    comps, _ = chain.components()
    return block_note(max((len(c) for c in comps), default=0))


def _dense(rows: list[list[Any]]) -> Any:
    k = len(rows)
    return flint.fmpq_mat(k, len(rows[0]) if k else 0, [x for r in rows for x in r])


def _never_absorbs(chain: Chain, comp: list[int]) -> InvalidValueError:
    shown = ", ".join(quote(chain.states[i], limit=40) for i in comp[:3])
    more = f" and {len(comp) - 3:,} more" if len(comp) > 3 else ""
    return InvalidValueError(
        f"the chain never absorbs: from {quote(chain.states[0], limit=40)} it can reach "
        f"states that only lead to each other ({shown}{more}) and none of them is "
        "absorbing (a state whose step returns itself for certain); use stationary() "
        "for the long run of such a chain")


def _check_absorbing(chain: Chain) -> None:
    comps, _ = chain.components()
    for comp, shut in zip(comps, chain.closed(), strict=True):
        if shut and len(comp) > 1:
            raise _never_absorbs(chain, comp)


def _flow(chain: Chain) -> tuple[list[Any], list[Any]]:
    """Forward pass: ``(mass, visits)``. ``mass[i]``: the probability of ever entering
    state i from outside its component (for a closed component: of reaching it);
    ``visits[i]``: the expected number of steps taken from transient state i."""
    comps, comp_of = chain.components()
    closed = chain.closed()
    n = len(chain.states)
    zero = flint.fmpq(0)
    mass = [zero] * n
    visits = [zero] * n
    mass[0] = flint.fmpq(1)
    succ, weight, loop, total = chain.succ, chain.weight, chain.loop, chain.total
    for c in range(len(comps) - 1, -1, -1):  # sources first
        comp = comps[c]
        if closed[c]:
            continue
        if len(comp) == 1:
            i = comp[0]
            m = mass[i]
            if not m:
                continue
            out = total[i] - loop[i]
            f = m / out
            visits[i] = f * total[i]
            for j, q in zip(succ[i], weight[i], strict=True):
                mass[j] += f * q
            limits.count(chain.component_work(comp, MARKOV_EDGE_WORK, 1, f.height_bits()))
            continue
        v = _block_visits(chain, comp, comp_of, c, [mass[i] for i in comp])
        limits.count(chain.component_work(comp, MARKOV_EDGE_WORK, 1,
                                          max(x.height_bits() for x in v)))
        outside: dict[int, int] = {}  # the successors outside the component, numbered
        leave: list[tuple[int, int, Any]] = []
        for a, i in enumerate(comp):
            visits[i] = v[a]
            for j, q in zip(succ[i], weight[i], strict=True):
                if comp_of[j] != c:
                    leave.append((a, outside.setdefault(j, len(outside)),
                                  flint.fmpq(q, total[i])))
        if outside:  # the mass leaving: one exact matrix product, not a sum a transition
            exits = [[zero] * len(outside) for _ in range(len(comp))]
            for a, b, p in leave:
                exits[a][b] = p
            got = _dense([v]) * _dense(exits)
            for b, j in enumerate(outside):
                mass[j] += got[0, b]
    return mass, visits


def _block_visits(chain: Chain, comp: list[int], comp_of: list[int], c: int,
                  entering: list[Any]) -> list[Any]:
    """Expected visits of a transient component's states: v (I - Q) = entering."""
    k = len(comp)
    local = {i: a for a, i in enumerate(comp)}
    rows = [[flint.fmpq(0)] * k for _ in range(k)]  # rows[b][a] = (I - Q)[a][b]
    for a, i in enumerate(comp):
        t = chain.total[i]
        rows[a][a] += 1
        if chain.loop[i]:
            rows[a][a] -= flint.fmpq(chain.loop[i], t)
        for j, q in zip(chain.succ[i], chain.weight[i], strict=True):
            if comp_of[j] == c:
                rows[local[j]][a] -= flint.fmpq(q, t)
    # the matrix has small entries, the masses entering are big: one exact solve with
    # the big column (flint clears its denominators, which share their factors: the
    # leaving weights'); inverting first costs k**3 x the inverse's entries' size, which
    # grows with k (a 400-state block: 17 s inverted, 0.3 s solved)
    x = _dense(rows).solve(_dense([[e] for e in entering]))
    return [x[a, 0] for a in range(k)]


def _acyclic_scale(chain: Chain) -> tuple[int, int, int] | None:
    """For a chain whose components are all single states (acyclic but for
    self-loops): ``(L, height, bits)``: L the lcm of the leaving weights ``total - loop``,
    height the most steps from ``start`` to absorption (counting a self-loop as none),
    bits the size of L**height. Every probability of the passes below is then an integer
    over L**height (a path of k steps multiplies k fractions over divisors of L), so they
    run in exact integers, no gcd, when L**height has at most :data:`_SCALE_BITS` bits
    (else the rational passes take over, on numbers of about that size). None for other
    chains."""
    comps, _ = chain.components()
    if len(comps) != len(chain.states):
        return None
    succ, loop, total = chain.succ, chain.loop, chain.total
    lcm = 1
    for i in range(len(chain.states)):
        if succ[i]:
            lcm = math.lcm(lcm, total[i] - loop[i])
    height = [0] * len(chain.states)
    get = height.__getitem__
    for comp in comps:  # sinks first
        i = comp[0]
        if succ[i]:
            height[i] = 1 + max(map(get, succ[i]))
    return lcm, height[0], height[0] * lcm.bit_length()


def _integer(acyclic: tuple[int, int, int] | None) -> bool:
    return acyclic is not None and acyclic[2] <= _SCALE_BITS


#: the largest common denominator (in bits) of the integer passes
_SCALE_BITS = 200_000


def _edge_work(base: int, bits: int) -> int:
    """Work units of one transition on integers of ``bits`` bits."""
    return base + bits // 64


def _flow_int(chain: Chain, scale: int) -> list[int]:
    """``_flow``'s masses times ``scale`` (= L**height), in integers, for an acyclic
    chain: a transient state's scaled mass is a multiple of L, so ``// out`` is exact."""
    comps, _ = chain.components()
    succ, weight, loop, total = chain.succ, chain.weight, chain.loop, chain.total
    mass = [0] * len(chain.states)
    mass[0] = scale
    for c in range(len(comps) - 1, -1, -1):  # sources first
        i = comps[c][0]
        m = mass[i]
        if not m or not succ[i]:
            continue
        f = m // (total[i] - loop[i])
        for j, q in zip(succ[i], weight[i], strict=True):
            mass[j] += f * q
    return mass


def _moments_int(chain: Chain, lcm: int, scale: int) -> tuple[int, int]:
    """E[T] * scale and E[T^2] * scale * L from ``start``, in integers, for an acyclic
    chain (m1 of a state at height h is an integer over L**h, m2 over L**(h + 1))."""
    comps, _ = chain.components()
    succ, weight, loop, total = chain.succ, chain.weight, chain.loop, chain.total
    n = len(chain.states)
    x1 = [0] * n
    x2 = [0] * n
    for comp in comps:  # sinks first
        i = comp[0]
        if not succ[i]:
            continue
        s1 = s2 = 0
        for j, q in zip(succ[i], weight[i], strict=True):
            s1 += q * x1[j]
            s2 += q * x2[j]
        out = total[i] - loop[i]
        a = (total[i] * scale + s1) // out
        x1[i] = a
        x2[i] = (total[i] * scale * lcm + 2 * lcm * (loop[i] * a + s1) + s2) // out
    return x1[0], x2[0]


def absorb(step: Step, start: Hashable, *, max_work: int | float | None = None
           ) -> Distribution:
    """The exact distribution of the absorbing state the chain reaches from ``start``.

    Refused (:class:`~chancekit.errors.InvalidValueError`) when some reachable states
    only lead to each other without an absorbing one (the chain may never absorb).
    Cost: see the module docstring (one exact operation a transition on acyclic chains);
    exploring and solving share one budget of ``max_work`` units (default
    :data:`~chancekit.limits.MAX_MARKOV_WORK`, about 3 s; a refusal says what to ask).

    >>> from chancekit import d
    >>> def duel(hp):                # (mine, theirs): I hit first, d6 each
    ...     a, b = hp
    ...     if a <= 0 or b <= 0:
    ...         return hp
    ...     return d(6).map(lambda x: (a, b - x) if b - x <= 0 else (a - 3, b - x))
    >>> absorb(duel, (6, 7)).map(lambda s: s[0] > 0).probability(True)
    Fraction(7, 12)
    """
    with _budget(max_work, start):
        return _absorb(explore(step, start))


def _absorb_work(chain: Chain, acyclic: tuple[int, int, int] | None) -> int:
    """The estimated units of :func:`_absorb` on an explored chain (before it starts)."""
    if _integer(acyclic):
        return chain.solve_work(_edge_work(MARKOV_INT_WORK, acyclic[2]))  # type: ignore[index]
    return chain.solve_work(MARKOV_EDGE_WORK, growth="forward")


def _moments_work(chain: Chain, acyclic: tuple[int, int, int] | None) -> int:
    """The estimated units of the exact mean and variance (before they start)."""
    if _integer(acyclic):
        return chain.solve_work(_edge_work(MARKOV_INT_WORK, acyclic[2]) * 2)  # type: ignore[index]
    return chain.solve_work(MARKOV_MOMENT_WORK, solves=2, growth="backward")


def _absorb(chain: Chain) -> Distribution:
    _check_absorbing(chain)
    with _budget():
        acyclic = _acyclic_scale(chain)
        limits.charge(_absorb_work(chain, acyclic), "absorb()" + _biggest(chain))
        if _integer(acyclic):
            lcm, height, _ = acyclic  # type: ignore[misc]
            scale = lcm**height
            ints = _flow_int(chain, scale)
            out = {chain.states[i]: Fraction(ints[i], scale)
                   for i in range(len(chain.states)) if chain.absorbing(i) and ints[i]}
            return Distribution(out)
        mass, _ = _flow(chain)
    out = {chain.states[i]: _fraction(mass[i]) for i in range(len(chain.states))
           if chain.absorbing(i) and mass[i]}
    return Distribution(out)


def _moments(chain: Chain) -> tuple[list[Any], list[Any]]:
    """Backward pass: E[T] and E[T^2] from each state (T: steps to absorption)."""
    comps, comp_of = chain.components()
    n = len(chain.states)
    zero = flint.fmpq(0)
    m1 = [zero] * n
    m2 = [zero] * n
    succ, weight, loop, total = chain.succ, chain.weight, chain.loop, chain.total
    for c, comp in enumerate(comps):  # sinks first
        if len(comp) == 1:
            i = comp[0]
            if not succ[i]:
                continue
            s1 = s2 = zero
            for j, q in zip(succ[i], weight[i], strict=True):
                s1 += q * m1[j]
                s2 += q * m2[j]
            out = total[i] - loop[i]
            a = (total[i] + s1) / out
            m1[i] = a
            m2[i] = (total[i] + 2 * (loop[i] * a + s1) + s2) / out
            limits.count(chain.component_work(comp, MARKOV_MOMENT_WORK, 2,
                                              m2[i].height_bits()))
            continue
        k = len(comp)
        local = {i: a for a, i in enumerate(comp)}
        rows = [[flint.fmpq(0)] * k for _ in range(k)]
        outside: dict[int, int] = {}  # the successors outside the component, numbered
        leave: list[tuple[int, int, Any]] = []
        for a, i in enumerate(comp):
            t = total[i]
            rows[a][a] += 1
            if loop[i]:
                rows[a][a] -= flint.fmpq(loop[i], t)
            for j, q in zip(succ[i], weight[i], strict=True):
                p = flint.fmpq(q, t)
                if comp_of[j] == c:
                    rows[a][local[j]] -= p
                else:
                    leave.append((a, outside.setdefault(j, len(outside)), p))
        # the expectations flowing in from outside: one exact matrix product (flint
        # puts each column over one denominator), not a big fraction sum a transition
        r1 = [flint.fmpq(1)] * k
        r2 = [flint.fmpq(0)] * k
        if outside:
            exits = [[zero] * len(outside) for _ in range(k)]
            for a, b, p in leave:
                exits[a][b] = p
            far = list(outside)
            got = _dense(exits) * _dense([[m1[j], m2[j]] for j in far])
            r1 = [1 + got[a, 0] for a in range(k)]
            r2 = [got[a, 1] for a in range(k)]
        mat = _dense(rows)  # small entries: two solves with the big columns (not an
        x1 = mat.solve(_dense([[e] for e in r1]))  # inverse: see _block_visits)
        v1 = [x1[a, 0] for a in range(k)]
        # E[T^2] = 1 + 2 E[T' | i] + E[T'^2 | i] and E[T' | i] = E[T | i] - 1, so the
        # right side is 2 E[T] - 1 plus what flows in from outside: no sum inside
        x2 = mat.solve(_dense([[2 * v1[a] - 1 + r2[a]] for a in range(k)]))
        for a, i in enumerate(comp):
            m1[i] = v1[a]
            m2[i] = x2[a, 0]
        limits.count(chain.component_work(comp, MARKOV_MOMENT_WORK, 2,
                                          max(m2[i].height_bits() for i in comp)))
    return m1, m2


@dataclass(frozen=True)
class Steps:
    """The number of steps to absorption: exact ``mean`` and ``variance``; ``pmf`` (the
    probability of each step count 0..``upto``, when asked for) and ``tail``, the exact
    probability of needing more than ``upto`` steps (0 when ``pmf`` is complete)."""

    mean: Fraction
    variance: Fraction
    pmf: tuple[Fraction, ...] = ()
    tail: Fraction = Fraction(1)

    @property
    def upto(self) -> int:
        """The last step count ``pmf`` covers (-1 when it is empty)."""
        return len(self.pmf) - 1

    @property
    def distribution(self) -> Distribution | None:
        """The exact distribution of the step count when ``pmf`` is complete (``tail ==
        0``), else None (read ``pmf`` and ``tail``)."""
        if self.tail:
            return None
        return Distribution({t: p for t, p in enumerate(self.pmf) if p})

    def within(self, n: int) -> Fraction:
        """P(done in at most ``n`` steps), exact. O(n). Past ``upto`` it is 1 when the
        pmf is complete; otherwise it is not known and refused (ask for a larger
        ``upto``).

        >>> Steps(Fraction(3, 2), Fraction(1, 4), (Fraction(0), Fraction(1, 2),
        ...       Fraction(1, 2)), Fraction(0)).within(1)
        Fraction(1, 2)
        """
        from chancekit._validate import require_int

        n = require_int("n", n)
        if n < 0:
            return Fraction(0)
        if n > self.upto:
            if not self.tail:
                return Fraction(1)
            raise InvalidValueError("n", n, f"at most {self.upto:,}: the distribution was "
                                    f"computed up to step {self.upto:,} (ask for more with "
                                    "upto=...)")
        return self._cdf()[n]

    def _cdf(self) -> tuple[Fraction, ...]:
        """P(done in at most t), t = 0..upto, computed once (n exact additions)."""
        got = self.__dict__.get("_cdf_cache")
        if got is None:
            acc = Fraction(0)
            out = []
            for p in self.pmf:
                acc += p
                out.append(acc)
            got = tuple(out)
            object.__setattr__(self, "_cdf_cache", got)  # a cache: the value is unchanged
        return got

    def percentile(self, q: Fraction | float | int) -> int:
        """The least n with P(done in at most n) >= ``q`` (0 < q <= 1; a float is read
        as the decimal it was written as: 0.9 is 9/10). O(upto). Refused when the
        computed pmf does not reach ``q`` (ask for a larger ``upto`` or smaller tail).

        >>> Steps(Fraction(3, 2), Fraction(1, 4), (Fraction(0), Fraction(1, 2),
        ...       Fraction(1, 2)), Fraction(0)).percentile(0.5)
        1
        """
        if isinstance(q, bool) or not isinstance(q, (int, float, Fraction)):
            raise InvalidTypeError("q", q, "a probability 0 < q <= 1, e.g. 0.9")
        if isinstance(q, float):
            if not math.isfinite(q):
                raise InvalidValueError("q", q, "a probability 0 < q <= 1, e.g. 0.9")
            q = Fraction(repr(q))
        q = Fraction(q)
        if not 0 < q <= 1:
            raise InvalidValueError("q", q, "a probability 0 < q <= 1, e.g. 0.9")
        cdf = self._cdf()
        lo, hi = 0, len(cdf)
        while lo < hi:  # the first t with cdf[t] >= q (cdf rises)
            mid = (lo + hi) // 2
            if cdf[mid] >= q:
                hi = mid
            else:
                lo = mid + 1
        if lo < len(cdf):
            return lo
        acc = cdf[-1] if cdf else Fraction(0)
        raise InvalidValueError("q", q, f"at most {float(acc):.9g}, the mass the "
                                f"distribution covers up to step {self.upto:,} (ask for "
                                "more with upto=...)")


def _pmf(chain: Chain, upto: int | None, tail: Fraction | None) -> tuple[list[Fraction],
                                                                      Fraction]:
    """Step by step from ``start``: P(T = t) for t = 0, 1, ... until ``upto`` or until
    the mass left is at most ``tail``; charged a step at a time before each step. The
    masses after t steps are integers over L**t (L the lcm of the totals), so each step
    is integer products and sums, no gcd."""
    succ, weight, loop, total = chain.succ, chain.weight, chain.loop, chain.total
    lcm = 1
    for i in range(len(chain.states)):
        if succ[i]:
            lcm = math.lcm(lcm, total[i])
    cur: dict[int, int] = {0: 1}
    scale = 1
    pmf: list[Fraction] = []
    t = 0
    while True:
        done = sum(m for i, m in cur.items() if not succ[i])
        live = [(i, m) for i, m in cur.items() if succ[i]]
        pmf.append(Fraction(done, scale) if done else Fraction(0))
        alive = sum(m for _, m in live)  # left = alive / scale, compared without a gcd
        if not alive or (upto is not None and t >= upto) or (
                tail is not None and alive * tail.denominator <= tail.numerator * scale):
            if upto is not None:  # ended early: the rest of 0..upto has no mass
                pmf += [Fraction(0)] * (upto + 1 - len(pmf))
            return pmf, Fraction(alive, scale)
        if t >= MAX_MARKOV_STEPS:
            raise LimitError(
                f"steps(): {t:,} steps leave {alive / scale:.3g} of the probability; "
                f"MAX_MARKOV_STEPS = {MAX_MARKOV_STEPS:,} is the most one call walks: ask "
                "for a larger tail or a smaller upto", limit="MAX_MARKOV_STEPS", value=t)
        words = scale.bit_length() // 64 + 1
        limits.charge(sum(len(succ[i]) + 1 for i, _ in live)
                      * _edge_work(MARKOV_INT_WORK, scale.bit_length())
                      + 2 * words * words,  # the next row's fraction: one gcd
                      f"steps(): step {t + 1}")
        nxt: dict[int, int] = {}
        get = nxt.get
        for i, m in live:
            f = m * (lcm // total[i])
            if loop[i]:
                nxt[i] = get(i, 0) + f * loop[i]
            for j, q in zip(succ[i], weight[i], strict=True):
                nxt[j] = get(j, 0) + f * q
        cur = nxt
        scale *= lcm
        t += 1


def _acyclic_depth(chain: Chain) -> int | None:
    """The most steps to absorption when the chain is acyclic with no self-loops (then
    the step count is bounded), else None."""
    comps, _ = chain.components()
    if any(len(c) > 1 for c in comps) or any(chain.loop[i] and chain.succ[i]
                                             for i in range(len(chain.states))):
        return None
    depth = [0] * len(chain.states)
    for comp in comps:  # sinks first
        i = comp[0]
        if chain.succ[i]:
            depth[i] = 1 + max(depth[j] for j in chain.succ[i])
    return depth[0]


def steps(step: Step, start: Hashable, *, upto: int | None = None,
          tail: Fraction | float | None = None, max_work: int | float | None = None
          ) -> Steps:
    """The number of steps from ``start`` to an absorbing state: exact mean and variance
    (the fundamental matrix, solved exactly), and its distribution.

    The distribution (``pmf``) is computed step by step up to step ``upto``, or until at
    most ``tail`` of the probability is left; ``Steps.tail`` is the exact mass beyond.
    With neither, it is given in full when the step count is bounded (an acyclic chain
    without self-loops), else left empty. The mean and variance cost one exact operation
    a transition (or a dense solve a component); each walked step costs one a
    transition, charged before the step. Exploring, solving and walking share one
    budget of ``max_work`` units (default :data:`~chancekit.limits.MAX_MARKOV_WORK`).

    >>> s = steps(lambda n: n if n >= 3 else Distribution({n: 1, n + 1: 1}), 0)
    >>> s.mean, s.variance                # three geometric waits: mean 2, variance 2
    (Fraction(6, 1), Fraction(6, 1))
    >>> r = steps(lambda n: n if n >= 3 else Distribution({n: 1, n + 1: 1}), 0, upto=4)
    >>> [str(p) for p in r.pmf], r.tail
    (['0', '0', '0', '1/8', '3/16'], Fraction(11, 16))
    """
    if upto is not None:
        from chancekit._validate import require_int
        upto = require_int("upto", upto, lo=0)
        if upto > MAX_MARKOV_STEPS:
            raise LimitError(f"steps(upto={upto:,}) walks more than MAX_MARKOV_STEPS = "
                             f"{MAX_MARKOV_STEPS:,} steps; ask for a tail mass instead",
                             limit="MAX_MARKOV_STEPS", value=upto)
    if tail is not None:
        if isinstance(tail, bool) or not isinstance(tail, (int, float, Fraction)) or not (
                0 <= tail < 1):
            raise InvalidValueError("tail", tail, "a probability 0 <= tail < 1")
        tail = Fraction(tail)
    with _budget(max_work, start):
        return _steps(explore(step, start), upto, tail)


def _steps(chain: Chain, upto: int | None, tail: Fraction | None) -> Steps:
    _check_absorbing(chain)
    with _budget():
        depth = _acyclic_depth(chain)
        acyclic = _acyclic_scale(chain)
        if depth is not None and (upto is None or upto >= depth):  # bounded: all of it
            if not _integer(acyclic):
                _walk_check(chain, depth)
            pmf = (_pmf_acyclic(chain, depth, acyclic) if _integer(acyclic)  # type: ignore[arg-type]
                   else _pmf(chain, depth, None)[0])
            return _steps_of(pmf + [Fraction(0)] * ((upto or 0) + 1 - len(pmf)))
        limits.charge(_moments_work(chain, acyclic), "steps()" + _biggest(chain))
        if _integer(acyclic):
            lcm, height, _ = acyclic  # type: ignore[misc]
            scale = lcm**height
            a, b = _moments_int(chain, lcm, scale)
            mean = Fraction(a, scale)
            var = Fraction(b, scale * lcm) - mean * mean
        else:
            m1, m2 = _moments(chain)
            mean = _fraction(m1[0])
            var = _fraction(m2[0]) - mean * mean
        if upto is None and tail is None:
            return Steps(mean, var)
        _walk_estimate(chain, mean, var, upto, tail)
        pmf, left = _pmf(chain, upto, tail)
    return Steps(mean, var, tuple(pmf), left)


def _walk_length(mean: Fraction, var: Fraction, upto: int | None,
                 tail: Fraction | None) -> int | None:
    """The estimated steps a walk to ``upto`` or to a ``tail`` mass takes on a chain
    whose step count has no bound, from its exact mean and variance: mean + sd x
    ln(1/tail) (the tails of finite chains fall geometrically; a geometric wait of mean
    m needs about m ln(1/tail) steps), at most Cantelli's bound mean + sd x sqrt(1/tail
    - 1), which no chain exceeds. None when a tail of 0 is asked for (never reached)."""
    if tail is None:
        return upto
    if not tail:
        return upto
    sd = math.sqrt(max(float(var), 0.0))
    small = float(tail)
    spread = math.log(tail.denominator) - math.log(tail.numerator)
    if small > 1e-300:
        spread = min(spread, math.sqrt(1 / small - 1))
    guess = float(mean) + sd * spread
    walk = math.ceil(min(guess, 1e15))
    return walk if upto is None else min(walk, upto)


def _walk_estimate(chain: Chain, mean: Fraction, var: Fraction, upto: int | None,
                   tail: Fraction | None) -> None:
    """Refuse a walk before it starts when its estimated length passes
    MAX_MARKOV_STEPS or its estimated work the budget left (each step costs a
    transition at most, on integers over L**t: t x bits(L) bits at step t). The walk
    also charges itself step by step (a backstop when the estimate was short)."""
    walk = _walk_length(mean, var, upto, tail)
    if walk is None:
        raise LimitError(
            f"steps(tail=0): the step count from {quote(chain.states[0], limit=40)} has no "
            "bound (the chain can loop), so no walk reaches a tail of 0; ask for a tail "
            "mass (tail=1e-6) or a last step (upto=...)", limit="MAX_MARKOV_STEPS",
            value=MAX_MARKOV_STEPS + 1)
    if walk > MAX_MARKOV_STEPS:
        raise LimitError(
            f"steps(): the walk to a tail of {_show(tail)} needs about {walk:,} steps "
            f"(mean {float(mean):.6g}), more than MAX_MARKOV_STEPS = {MAX_MARKOV_STEPS:,}; "
            "ask for a larger tail or a last step (upto=..., --upto on the command "
            "line): the exact mean and variance need no walk", limit="MAX_MARKOV_STEPS",
            value=walk)
    _walk_check(chain, walk)


def _walk_check(chain: Chain, walk: int) -> None:
    """Refuse now when walking ``walk`` steps would pass the budget left."""
    lcm = 1
    for i in range(len(chain.states)):
        if chain.succ[i]:
            lcm = math.lcm(lcm, chain.total[i])
    edges = chain.transitions + len(chain.states)
    lbits = lcm.bit_length()
    units = (edges * (MARKOV_INT_WORK * walk + lbits * walk * walk // 128)
             + lbits * lbits * walk**3 // 6144)  # each step's fraction: one gcd
    limits.check(units, f"steps(): walking about {walk:,} steps")


def _show(tail: Fraction | None) -> str:
    if tail is None:
        return "0"
    if tail and float(tail) == 0:
        return f"about 2**-{tail.denominator.bit_length() - tail.numerator.bit_length()}"
    return f"{float(tail):.3g}"


def _steps_of(pmf: list[Fraction]) -> Steps:
    """Steps from a complete distribution of the step count."""
    mean = sum((t * p for t, p in enumerate(pmf)), Fraction(0))
    second = sum((t * t * p for t, p in enumerate(pmf)), Fraction(0))
    return Steps(mean, second - mean * mean, tuple(pmf), Fraction(0))


def _pmf_acyclic(chain: Chain, depth: int, acyclic: tuple[int, int, int]) -> list[Fraction]:
    """The full step-count distribution of an acyclic chain without self-loops, in one
    pass in topological order: each state's arrival time as a polynomial (the
    probability of arriving at step t the coefficient of x**t), in integers over
    L**height (``fmpz_poly``; :func:`_acyclic_scale`)."""
    lcm, height, bits = acyclic
    limits.charge((chain.transitions + len(chain.states))
                  * _edge_work(MARKOV_EDGE_WORK, bits) * (1 + depth // 4),
                  "steps(): the step-count distribution")
    comps, _ = chain.components()
    succ, weight, total = chain.succ, chain.weight, chain.total
    arrive: list[Any] = [None] * len(chain.states)
    scale = lcm**height
    arrive[0] = flint.fmpz_poly([scale])
    x = flint.fmpz_poly([0, 1])
    done = flint.fmpz_poly([])
    for c in range(len(comps) - 1, -1, -1):  # sources first
        i = comps[c][0]
        a = arrive[i]
        if a is None:
            continue
        arrive[i] = None
        if not succ[i]:
            done += a
            continue
        f = (a // total[i]) * x
        for j, q in zip(succ[i], weight[i], strict=True):
            g = f * q
            arrive[j] = g if arrive[j] is None else arrive[j] + g
    out = [Fraction(int(c), scale) for c in done.coeffs()]
    return out + [Fraction(0)] * (depth + 1 - len(out))


def stationary(step: Step, start: Hashable, *, max_work: int | float | None = None
               ) -> Distribution:
    """The exact long-run distribution of the chain from ``start``: the share of time
    spent in each state over a long run (the Cesàro limit, so periodic chains have one
    too). Transient states get 0 and are left out; when several closed classes can be
    reached, each is weighted by the probability of ending in it.

    Cost: one exact operation a transient transition, plus one dense ``fmpq_mat`` solve
    per closed class (k**3 for k states); exploring and solving share one budget of
    ``max_work`` units (default :data:`~chancekit.limits.MAX_MARKOV_WORK`).

    >>> from chancekit import constant
    >>> flip = lambda s: Distribution({"sun": 3, "rain": 1}) if s == "sun" else constant("sun")
    >>> stationary(flip, "sun").pmf()
    {'rain': Fraction(1, 5), 'sun': Fraction(4, 5)}
    """
    with _budget(max_work, start):
        return _stationary(explore(step, start))


def _stationary(chain: Chain) -> Distribution:
    comps, comp_of = chain.components()
    closed = chain.closed()
    with _budget():
        _charge(chain, "stationary()", growth="forward")
        mass, _ = _flow(chain)
        out: dict[Any, Fraction] = {}
        for c, comp in enumerate(comps):
            if not closed[c]:
                continue
            reach = sum((mass[i] for i in comp), flint.fmpq(0))
            if not reach:
                continue
            if len(comp) == 1:
                out[chain.states[comp[0]]] = _fraction(reach)
                continue
            for i, p in zip(comp, _block_stationary(chain, comp, comp_of, c), strict=True):
                if p:
                    out[chain.states[i]] = _fraction(reach * p)
    return Distribution(out)


def _block_stationary(chain: Chain, comp: list[int], comp_of: list[int], c: int
                      ) -> list[Any]:
    """pi (P - I) = 0 with sum(pi) = 1 on one closed class: (P - I)^T with its last
    row replaced by ones."""
    k = len(comp)
    local = {i: a for a, i in enumerate(comp)}
    rows = [[flint.fmpq(0)] * k for _ in range(k)]  # rows[b][a] = (P - I)[a][b]
    for a, i in enumerate(comp):
        t = chain.total[i]
        rows[a][a] -= 1
        if chain.loop[i]:
            rows[a][a] += flint.fmpq(chain.loop[i], t)
        for j, q in zip(chain.succ[i], chain.weight[i], strict=True):
            rows[local[j]][a] += flint.fmpq(q, t)
    rows[-1] = [flint.fmpq(1)] * k
    rhs = [[flint.fmpq(0)] for _ in range(k)]
    rhs[-1] = [flint.fmpq(1)]
    x = _dense(rows).solve(_dense(rhs))
    return [x[a, 0] for a in range(k)]
