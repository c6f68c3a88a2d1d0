"""The exact chain engine against oracles that share none of its code: a plain Fraction
Gaussian elimination written here, brute-force enumeration of paths to a depth with the
tail bounded, simulation with error bars, and icepool's absorbing chains."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _linalg import solve
from chancekit import constant, d, limits
from chancekit.dice import Distribution, dist
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.markov import absorb, explore, stationary, steps
from chancekit.markov.chain import upfront


# --------------------------------------------------------------------------- oracles
def _table(step, start):
    """state -> {next: probability}, by a plain search (no engine code)."""
    out, todo = {}, [start]
    while todo:
        s = todo.pop()
        if s in out:
            continue
        nxt = step(s)
        nxt = nxt if isinstance(nxt, Distribution) else constant(nxt)
        out[s] = nxt.pmf()
        todo += [t for t in out[s] if t not in out]
    return out


def _oracle_absorb(step, start):
    table = _table(step, start)
    absorbing = [s for s, p in table.items() if p == {s: 1}]
    transient = [s for s in table if s not in absorbing]
    if start in absorbing:
        return {start: Fraction(1)}, Fraction(0)
    idx = {s: i for i, s in enumerate(transient)}
    n = len(transient)
    a = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    b = [[Fraction(0)] * (len(absorbing) + 1) for _ in range(n)]
    for s in transient:
        b[idx[s]][-1] = Fraction(1)  # expected steps: (I - Q) t = 1
        for t, p in table[s].items():
            if t in idx:
                a[idx[s]][idx[t]] -= p
            else:
                b[idx[s]][absorbing.index(t)] += p
    x = solve(a, b)[idx[start]]
    return {s: x[k] for k, s in enumerate(absorbing) if x[k]}, x[-1]


def _oracle_stationary(step, start):
    """For an irreducible chain: pi (P - I) = 0, sum pi = 1."""
    table = _table(step, start)
    states = list(table)
    n = len(states)
    a = [[table[states[j]].get(states[i], Fraction(0)) - (i == j) for j in range(n)]
         for i in range(n)]
    a[-1] = [Fraction(1)] * n
    b = [[Fraction(0)] for _ in range(n)]
    b[-1] = [Fraction(1)]
    x = solve(a, b)
    return {s: x[i][0] for i, s in enumerate(states) if x[i][0]}


def _brute(step, start, depth):
    """P(absorbed at each state within ``depth`` steps), P(T = t), and the mass left."""
    table = _table(step, start)
    cur = {start: Fraction(1)}
    ended: dict = {}
    pmf = []
    for _t in range(depth + 1):
        done = {s: p for s, p in cur.items() if table[s] == {s: 1}}
        pmf.append(sum(done.values(), Fraction(0)))
        for s, p in done.items():
            ended[s] = ended.get(s, 0) + p
        nxt: dict = {}
        for s, p in cur.items():
            if s in done:
                continue
            for t, q in table[s].items():
                nxt[t] = nxt.get(t, 0) + p * q
        cur = nxt
    return ended, pmf, sum(cur.values(), Fraction(0))


# --------------------------------------------------------------------------- random chains
@st.composite
def chains(draw, cyclic: bool = True):
    """A random chain on states 0..n-1 with absorbing states n, n+1: each transient state
    has 1-3 successors with weights 1-5, and always some way forward (to an absorbing
    state eventually: state i can move to i+1)."""
    n = draw(st.integers(1, 7))
    table = {}
    for i in range(n):
        w = {i + 1 if i + 1 < n else n + draw(st.integers(0, 1)): draw(st.integers(1, 5))}
        for _ in range(draw(st.integers(0, 2))):
            lo = 0 if cyclic else i
            j = draw(st.integers(lo, n + 1))
            w[j] = w.get(j, 0) + draw(st.integers(1, 5))
        table[i] = Distribution(w)

    def step(s):
        return table.get(s, s)

    return step


@settings(max_examples=60)
@given(chains())
def test_absorb_and_mean_match_an_independentsolve(step):
    got = absorb(step, 0)
    want, mean = _oracle_absorb(step, 0)
    assert got.pmf() == want
    assert sum(got.pmf().values()) == 1
    assert steps(step, 0).mean == mean


@settings(max_examples=40)
@given(chains(cyclic=False))
def test_acyclic_chains_take_the_integer_passes_and_agree(step):
    got = absorb(step, 0)
    want, mean = _oracle_absorb(step, 0)
    assert got.pmf() == want
    s = steps(step, 0)
    assert s.mean == mean
    walk = steps(step, 0, tail=Fraction(1, 10**30))  # the variance from the walked pmf
    m1 = sum(t * p for t, p in enumerate(walk.pmf))
    m2 = sum(t * t * p for t, p in enumerate(walk.pmf))
    assert abs((m2 - m1 * m1) - s.variance) < Fraction(1, 10**20)


@settings(max_examples=15)
@given(chains(), st.integers(0, 2**32 - 1))
def test_steps_mean_agrees_with_simulation_of_random_chains(step, seed):
    s = steps(step, 0)
    table = _table(step, 0)
    rng = random.Random(seed)
    runs, total = 3000, 0
    for _ in range(runs):
        x, t = 0, 0
        while table[x] != {x: 1}:
            nxt = list(table[x])
            x = rng.choices(nxt, [float(table[x][y]) for y in nxt])[0]
            t += 1
        total += t
    se = (float(s.variance) / runs) ** 0.5
    assert abs(total / runs - float(s.mean)) <= 5 * se + 1e-9


@settings(max_examples=40)
@given(chains(), st.integers(0, 12))
def test_step_distribution_matches_brute_force_to_a_depth(step, depth):
    ended, pmf, left = _brute(step, 0, depth)
    s = steps(step, 0, upto=depth)
    assert list(s.pmf) == pmf
    assert s.tail == left
    full = absorb(step, 0).pmf()
    for state, p in ended.items():  # absorbed by depth <= exact <= that + the tail left
        assert p <= full[state] <= p + left


@settings(max_examples=20)
@given(chains())
def test_variance_matches_the_second_moment_of_a_long_walk(step):
    s = steps(step, 0)
    walk = steps(step, 0, tail=Fraction(1, 10**30))
    m1 = sum(t * p for t, p in enumerate(walk.pmf))
    m2 = sum(t * t * p for t, p in enumerate(walk.pmf))
    # the tail beyond is below 1e-30 and decays geometrically: its moments are tiny
    assert abs(m1 - s.mean) < Fraction(1, 10**20)
    assert abs((m2 - m1 * m1) - s.variance) < Fraction(1, 10**20)
    assert s.variance >= 0


def test_steps_mean_agrees_with_simulation():
    table = {0: Distribution({0: 2, 1: 1, 3: 1}), 1: Distribution({0: 1, 2: 2}),
             2: Distribution({1: 1, 3: 1, 4: 1})}
    s = steps(lambda x: table.get(x, x), 0)
    rng = random.Random(2026)
    runs = 20_000
    total = 0
    for _ in range(runs):
        x, t = 0, 0
        while x in table:
            w = table[x]
            x = rng.choices(list(w.weights), list(w.weights.values()))[0]
            t += 1
        total += t
    sd = float(s.variance) ** 0.5
    assert abs(total / runs - float(s.mean)) < 5 * sd / runs**0.5


def test_stationary_matches_an_independentsolve():
    rng = random.Random(7)
    for _ in range(10):
        n = rng.randint(2, 8)
        table = {i: Distribution({(i + 1) % n: rng.randint(1, 4),
                                  rng.randrange(n): rng.randint(1, 4)}) for i in range(n)}
        step = table.__getitem__
        assert stationary(step, 0).pmf() == _oracle_stationary(step, 0)


def test_stationary_with_transients_and_two_closed_classes():
    # 0 -> (1, 2) loop or absorbing 3, each with probability 1/2
    table = {0: Distribution({1: 1, 3: 1}), 1: constant(2), 2: constant(1), 3: constant(3)}
    got = stationary(table.__getitem__, 0).pmf()
    assert got == {1: Fraction(1, 4), 2: Fraction(1, 4), 3: Fraction(1, 2)}


# --------------------------------------------------------------------------- closed forms
def test_geometric_and_negative_binomial_closed_forms():
    p = Fraction(1, 6)
    s = steps(lambda n: n if n == 3 else Distribution({n: 5, n + 1: 1}), 0)
    assert s.mean == 3 / p and s.variance == 3 * (1 - p) / p**2
    assert s.distribution is None
    walk = steps(lambda n: n if n == 1 else Distribution({0: 5, 1: 1}), 0, upto=5)
    assert list(walk.pmf) == [0] + [(1 - p) ** (t - 1) * p for t in range(1, 6)]
    assert walk.tail == (1 - p) ** 5


def test_bounded_chains_give_the_full_distribution():
    s = steps(lambda h: h if h <= 0 else d(6).map(lambda x: h - x), 6)
    assert s.tail == 0 and sum(s.pmf) == 1
    assert s.distribution is not None and s.distribution.mean() == s.mean


def test_dict_steps_are_distributions():
    table = {0: {0: 1, 1: 2}, 1: {2: Fraction(1, 3), 0: Fraction(2, 3)}}
    as_dict = absorb(lambda s: table.get(s, s), 0)
    as_dist = absorb(lambda s: Distribution(table[s]) if s in table else s, 0)
    assert as_dict == as_dist == constant(2)
    with pytest.raises(InvalidValueError, match="weight"):
        absorb(lambda s: {1: -1}, 0)


def test_start_absorbing_and_notation_steps():
    assert absorb(lambda s: s, 5) == constant(5)
    assert steps(lambda s: s, 5).mean == 0
    # a string is dice notation: from any state, roll a d4; 4 is absorbing
    got = absorb(lambda s: 4 if s == 4 else "1d4", 0)
    assert got == constant(4)


# --------------------------------------------------------------------------- icepool
def test_icepool_absorbing_results():
    icepool = pytest.importorskip("icepool")

    def ck(h):
        return h if h <= 0 else (d(6) + d(6) - 4).map(lambda x: h - max(x, 0))

    def ice(h):
        return h if h <= 0 else (icepool.d6 + icepool.d6 - 4).map(lambda x: h - max(x, 0))

    want = icepool.map(ice, 12, repeat="inf")
    got = absorb(ck, 12)
    assert got.pmf() == {k: Fraction(v, want.denominator()) for k, v in want.items()}
    assert steps(ck, 12).mean == icepool.mean_time_to_absorb(ice, 12)


def test_eight_threads_get_the_same_exact_answers():
    from concurrent.futures import ThreadPoolExecutor

    def race(hp):
        return hp if hp <= 0 else (d(6) + d(6)).map(lambda x: hp - x)

    want = (absorb(race, 40), steps(race, 40))
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: (absorb(race, 40), steps(race, 40)), range(16)))
    assert all(g == want for g in got)


# --------------------------------------------------------------------------- refusals
def test_a_chain_that_never_absorbs_is_refused_clearly():
    with pytest.raises(InvalidValueError, match="never absorbs"):
        absorb(lambda s: (s + 1) % 3, 0)
    with pytest.raises(InvalidValueError, match="never absorbs"):
        steps(lambda s: Distribution({s: 1, (s + 1) % 2: 1}), 0)
    # part of the chain absorbs, part loops forever: still refused
    with pytest.raises(InvalidValueError, match="never absorbs"):
        absorb(lambda s: {0: Distribution({1: 1, 9: 1}), 1: 2, 2: 1, 9: 9}[s], 0)


def test_bad_steps_and_states():
    with pytest.raises(InvalidTypeError, match="step"):
        absorb(42, 0)
    with pytest.raises(InvalidTypeError, match="start"):
        absorb(lambda s: s, [1])
    with pytest.raises(InvalidTypeError, match="hashable"):
        absorb(lambda s: [s], 0)
    with pytest.raises(InvalidValueError, match=r"constant\('spent'\)"):
        absorb(lambda s: "spent", 0)
    with pytest.raises(InvalidValueError, match="tail"):
        steps(lambda s: s, 0, tail=1.5)


def test_limits_are_counted_while_exploring_and_estimated_before_solving(monkeypatch):
    from chancekit.markov import chain as engine

    monkeypatch.setattr(engine, "MAX_MARKOV_STATES", 1000)  # the same check, sooner
    monkeypatch.setattr(engine, "MAX_MARKOV_WORK", 10**6)
    with pytest.raises(LimitError) as e:
        explore(lambda n: n + 1, 0)  # an endless counter
    assert e.value.limit == "MAX_MARKOV_STATES"
    with pytest.raises(LimitError) as e:  # a big component: priced (work and memory)
        upfront("x", 10, 10, block=5000)
    assert e.value.limit == "MAX_MARKOV_WORK" and "5,000 x 5,000 matrix" in str(e.value)
    assert "lift it with max_work=5e10" in str(e.value)
    with pytest.raises(LimitError) as e:
        upfront("x", 1000, 200_000, block=999)
    assert e.value.limit == "MAX_MARKOV_WORK"
    with pytest.raises(LimitError) as e:
        steps(lambda n: n, 0, upto=100_001)
    assert e.value.limit == "MAX_MARKOV_STEPS"
    # a walk to a tiny tail is charged step by step: refused by the work it adds up to
    with pytest.raises(LimitError) as e:
        steps(lambda n: Distribution({n: 1, n + 1: 1}) if n < 2 else n, 0,
              tail=Fraction(1, 2**200_000))
    assert e.value.limit in ("MAX_MARKOV_WORK", "MAX_MARKOV_STEPS")


def test_an_error_in_the_step_function_names_the_state():
    def step(n):
        return 1 // (3 - n) if n < 5 else n

    with pytest.raises(ZeroDivisionError) as e:
        absorb(lambda n: n + 1 if n < 3 else step(n), 0)
    assert "in step(3)" in "".join(getattr(e.value, "__notes__", []))


def test_solve_work_is_estimated_from_the_explored_chain():
    chain = explore(lambda s: Distribution({(s + 1) % 50: 1, s: 1}), 0)
    assert len(chain) == 50 and chain.transitions == 50
    comps, _ = chain.components()
    assert len(comps) == 1
    assert chain.solve_work() >= 50**3 // 4


# --------------------------------------------------------------------------- up front
def test_a_runaway_exploration_stops_at_its_work_budget():
    """The step function is opaque: each state and transition is priced as it is
    explored, so an endless chain stops when the budget is spent (counted, not timed),
    and the refusal says how to lift it."""
    from chancekit.limits import EXPLORE_EDGE_WORK, EXPLORE_STATE_WORK

    calls = []

    def step(s):
        calls.append(s)
        return s if s >= 10**6 else Distribution({s + 1: 1, 0: 1})

    with pytest.raises(LimitError) as e:
        absorb(step, 0, max_work=10**6)
    assert e.value.limit == "MAX_MARKOV_WORK" and "max_work=4e6" in str(e.value)
    assert "exploring the chain from 0" in str(e.value) and "usage_die" in str(e.value)
    per_state = EXPLORE_STATE_WORK + 2 * EXPLORE_EDGE_WORK
    assert 10**6 // per_state <= len(calls) <= 10**6 // per_state + 1
    calls.clear()
    with pytest.raises(LimitError) as e:  # lifted: it goes on, as far as it is told
        steps(step, 0, max_work=4 * 10**6)
    assert 4 * 10**6 // per_state <= len(calls) <= 4 * 10**6 // per_state + 1


def test_the_memory_ceilings_are_not_lifted_by_max_work(monkeypatch):
    from chancekit.markov import chain as engine

    monkeypatch.setattr(engine, "MAX_MARKOV_STATES", 1000)
    with pytest.raises(LimitError) as e:
        absorb(lambda n: n + 1, 0, max_work=10**12)
    assert e.value.limit == "MAX_MARKOV_STATES" and "memory ceiling" in str(e.value)
    monkeypatch.setattr(engine, "MAX_MARKOV_TRANSITIONS", 1000)
    with pytest.raises(LimitError) as e:
        stationary(lambda n: Distribution({(n + k) % 900: 1 for k in range(1, 4)}), 0,
                   max_work=10**12)
    assert e.value.limit == "MAX_MARKOV_TRANSITIONS"


@pytest.mark.parametrize("bad", [0, -5, 1.5, "1e9", True, float("inf"), 10**16])
def test_max_work_must_be_a_whole_number_of_units(bad):
    with pytest.raises(InvalidValueError, match="max_work"):
        absorb(lambda n: n, 0, max_work=bad)


def test_max_work_as_a_float_like_the_message_suggests():
    assert absorb(lambda n: n if n == 0 else n - 1, 3, max_work=4e6).pmf() == {0: 1}


def _bits(x: Fraction) -> int:
    return max(x.numerator.bit_length(), x.denominator.bit_length())


@pytest.mark.parametrize("hp", [6, 12])
def test_the_fraction_size_estimate_bounds_the_answer(hp):
    """The rational passes are priced at the estimated size of their fractions: it is
    at least the size of the exact answer (a cyclic race: healing by 1)."""
    from chancekit.markov.processes import _joint, hp_race

    race = hp_race((hp, hp), ("1d6-1", "1d8-2"))
    seen = []
    import chancekit.markov.processes as procs

    real = procs.explore

    def grab(*a):
        seen.append(real(*a))
        return seen[-1]

    procs.explore = grab
    try:
        _joint(hp, hp, dist("1d6-1"), dist("1d8-2"), "simultaneous")
    finally:
        procs.explore = real
    chain = seen[0]
    comps, comp_of = chain.components()
    assert any(len(c) > 1 for c in comps)  # not acyclic: the rational passes
    start = comp_of[0]
    assert chain.bits("backward")[start] >= _bits(race.rounds.mean)
    forward = chain.bits("forward")
    for state, p in race.winner.pmf().items():
        assert forward[comp_of[chain.index[state]]] >= _bits(p)


def test_a_big_cyclic_race_is_refused_before_any_pass(monkeypatch):
    """hp_race((60, 60), ...) with healing took ~77 s CPU: now the estimate (before
    either pass) refuses it, and no pass starts."""
    from chancekit.markov import chain as engine
    from chancekit.markov.processes import hp_race

    def boom(*a, **k):
        raise AssertionError("a pass started")

    monkeypatch.setattr(engine, "_flow", boom)
    monkeypatch.setattr(engine, "_moments", boom)
    with limits.evaluation(limit=engine.MAX_MARKOV_WORK, name="MAX_MARKOV_WORK") as budget:
        with pytest.raises(LimitError) as e:
            hp_race((60, 60), ("1d6-1", "1d8-2"))
    assert e.value.limit == "MAX_MARKOV_WORK" and "60 x 60" in str(e.value)
    # only the exploration was charged (at most 3,603 states, 48 transitions each)
    assert budget.estimated <= 3603 * (limits.EXPLORE_STATE_WORK
                                       + 48 * limits.EXPLORE_EDGE_WORK)


def test_a_long_walk_is_refused_before_its_first_step(monkeypatch):
    from chancekit.markov import chain as engine

    def boom(*a, **k):
        raise AssertionError("the walk started")

    monkeypatch.setattr(engine, "_pmf", boom)
    slow = lambda s: s if s == 1 else Distribution({0: 999_999, 1: 1})  # noqa: E731
    with pytest.raises(LimitError) as e:  # mean 10**6: ~14 million steps to 1e-6
        steps(slow, 0, tail=1e-6)
    assert e.value.limit == "MAX_MARKOV_STEPS" and "needs about" in str(e.value)
    with pytest.raises(LimitError) as e:  # mean 1000: few steps, huge fractions
        steps(lambda s: s if s == 1 else Distribution({0: 999, 1: 1}), 0, tail=1e-6)
    assert e.value.limit == "MAX_MARKOV_WORK" and "walking about" in str(e.value)
    with pytest.raises(LimitError) as e:  # a tail of 0 is never reached
        steps(lambda s: s if s == 1 else Distribution({0: 1, 1: 1}), 0, tail=0)
    assert e.value.limit == "MAX_MARKOV_STEPS"
    # the mean and variance alone need no walk
    assert steps(slow, 0).mean == 10**6


def test_walk_estimates_cover_the_steps_walked():
    """The estimated walk length is at least what the walk takes on geometric waits
    and sums of them (the usage die)."""
    from chancekit.markov.chain import _walk_length

    for ladder in ([6], [12, 10, 8, 6, 4], [20, 4]):
        from chancekit.markov.processes import usage_die

        full = usage_die(ladder)
        walked = usage_die(ladder, tail=Fraction(1, 10**6))
        est = _walk_length(full.mean, full.variance, None, Fraction(1, 10**6))
        assert walked.upto <= est <= 4 * walked.upto


@pytest.mark.parametrize("hp", [5, 10, 20])
def test_counted_work_stays_within_the_estimate_on_chains_with_loops(hp):
    """The rational passes count their work with the sizes of the numbers they met; it
    stays within CALIBRATION_FACTOR x the up-front estimate (tests/test_work_calibration.py
    for the dice)."""
    from chancekit.markov import chain as engine
    from chancekit.markov.processes import hp_race

    with limits.evaluation(limit=engine.MAX_MARKOV_WORK, name="MAX_MARKOV_WORK") as budget:
        hp_race((hp, hp), ("1d6-1", "1d8-2"))
    assert budget.counted > 0
    assert budget.counted <= limits.CALIBRATION_FACTOR * budget.estimated, (
        budget.counted, budget.estimated)


def test_counted_work_of_random_cyclic_chains_stays_within_the_estimate():
    rng = random.Random(21)
    for _ in range(40):
        n = rng.randint(2, 12)
        table = {s: {t: rng.randint(1, 9) for t in rng.sample(range(n + 1), rng.randint(1, 3))}
                 for s in range(n)}
        table[n] = {n: 1}

        def step(s, table=table):
            return table[s]

        with limits.evaluation(limit=10**12, name="MAX_MARKOV_WORK") as budget:
            try:
                steps(step, 0)
                absorb(step, 0)
            except InvalidValueError:  # some part never absorbs
                continue
        assert budget.counted <= limits.CALIBRATION_FACTOR * max(budget.estimated, 1_000)


def test_a_bounded_walk_on_rational_numbers_is_estimated_before_its_first_step(monkeypatch):
    """A bounded chain too big for the integer pass walks step by step: the whole walk
    is estimated first (PRD(0.05): 264 steps over totals of ~10**9 each)."""
    from chancekit.fair import PRD
    from chancekit.markov import chain as engine
    from chancekit.markov.processes import first_success

    def boom(*a, **k):
        raise AssertionError("the walk started")

    monkeypatch.setattr(engine, "_pmf", boom)
    with pytest.raises(LimitError) as e:
        first_success(PRD(0.05))
    assert e.value.limit == "MAX_MARKOV_WORK" and "walking about" in str(e.value)
