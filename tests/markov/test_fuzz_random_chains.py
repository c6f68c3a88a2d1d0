"""Random small chains (this file's own generator: up to 7 states, random integer weights,
self-loops, cycles, absorbing states) against an exact solve of the textbook equations by
Gaussian elimination in Fractions (tests/_linalg.py): where the chain ends (B = N R), the mean
and variance of the steps (t = N 1, var = (2N - I) t - t*t), the step-count distribution
walked state by state, and the stationary distribution of an irreducible chain (pi P = pi).
A chain from which some reachable states never absorb must be refused by absorb/steps."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from _linalg import solve
from chancekit import Distribution
from chancekit.errors import InvalidValueError
from chancekit.markov import absorb, stationary, steps


def random_chain(rng: random.Random) -> dict[int, dict[int, int]]:
    n = rng.randint(1, 7)
    chain: dict[int, dict[int, int]] = {}
    for s in range(n):
        if rng.random() < 0.3:
            chain[s] = {s: 1}  # absorbing
            continue
        out: dict[int, int] = {}
        for _ in range(rng.randint(1, 3)):
            t = rng.randrange(n)
            out[t] = out.get(t, 0) + rng.randint(1, 5)
        chain[s] = out
    return chain


def reachable(chain, start):
    seen, todo = {start}, [start]
    while todo:
        s = todo.pop()
        for t in chain[s]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def absorbing(chain, s):
    return set(chain[s]) == {s}


def always_absorbs(chain, start):
    return all(any(absorbing(chain, t) for t in reachable(chain, s))
               for s in reachable(chain, start))


def step_of(chain):
    def step(s):
        return Distribution(chain[s]) if not absorbing(chain, s) else s
    return step


def p(chain, s, t):
    return Fraction(chain[s].get(t, 0), sum(chain[s].values()))


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(3))
def test_absorb_and_steps_match_the_equations(seed):
    rng = random.Random(seed)
    checked = refused = 0
    for _ in range(150):
        chain = random_chain(rng)
        start = 0
        if not always_absorbs(chain, start):
            with pytest.raises(InvalidValueError):
                absorb(step_of(chain), start)
            with pytest.raises(InvalidValueError):
                steps(step_of(chain), start)
            refused += 1
            continue
        states = sorted(reachable(chain, start))
        trans = [s for s in states if not absorbing(chain, s)]
        ends = [s for s in states if absorbing(chain, s)]
        got = absorb(step_of(chain), start)
        s = steps(step_of(chain), start, upto=12)
        if start in ends:
            assert got.weights == {start: 1} and s.mean == 0
            continue
        eye_q = [[Fraction(int(i == j)) - p(chain, i, j) for j in trans] for i in trans]
        b = solve(eye_q, [[p(chain, i, e) for e in ends] for i in trans])
        k = trans.index(start)
        want = {e: b[k][j] for j, e in enumerate(ends) if b[k][j]}
        assert {x: Fraction(w, got.total) for x, w in got.weights.items()} == want, chain
        ones = [[Fraction(1)] for _ in trans]
        t = solve(eye_q, ones)
        # E[T^2] = N (2 t - 1), so var = N (2 t - 1) - t^2
        t2 = solve(eye_q, [[2 * t[i][0] - 1] for i in range(len(trans))])
        assert s.mean == t[k][0], chain
        assert s.variance == t2[k][0] - t[k][0] ** 2, chain
        # the step-count distribution, walked over the transient states
        mass = {start: Fraction(1)}
        pmf = [Fraction(0)]
        for _n in range(12):
            new: dict[int, Fraction] = {}
            done = Fraction(0)
            for x, m in mass.items():
                for y in chain[x]:
                    q = m * p(chain, x, y)
                    if absorbing(chain, y):
                        done += q
                    else:
                        new[y] = new.get(y, 0) + q
            pmf.append(done)
            mass = new
        assert list(s.pmf) == pmf[:len(s.pmf)] and len(s.pmf) == 13, chain
        assert s.tail == sum(mass.values(), Fraction(0)), chain
        checked += 1
    assert checked > 20 and refused > 5


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(3))
def test_stationary_of_irreducible_chains(seed):
    rng = random.Random(100 + seed)
    checked = 0
    for _ in range(150):
        n = rng.randint(1, 6)
        chain = {s: {(s + 1) % n: rng.randint(1, 4)} for s in range(n)}  # a cycle: irreducible
        for s in range(n):
            for _ in range(rng.randint(0, 2)):
                t = rng.randrange(n)
                chain[s][t] = chain[s].get(t, 0) + rng.randint(1, 4)
        got = stationary(lambda s, c=chain: Distribution(c[s]), 0)
        # pi (P - I) = 0 with sum(pi) = 1: replace the last equation by the sum
        a = [[p(chain, j, i) - int(i == j) for j in range(n)] for i in range(n)]
        a[-1] = [Fraction(1)] * n
        rhs = [[Fraction(0)] for _ in range(n - 1)] + [[Fraction(1)]]
        pi = solve(a, rhs)
        want = {s: pi[s][0] for s in range(n) if pi[s][0]}
        assert {x: Fraction(w, got.total) for x, w in got.weights.items()} == want, chain
        checked += 1
    assert checked == 150


@pytest.mark.parametrize("hp", [(4, 5), (7, 6)])
def test_a_race_with_healing_against_gaussian_elimination(hp):
    """The joint chain of a race where both can miss and one can heal (cycles: dense
    components solved by inverse and products) against the textbook equations over
    all transient states at once, in Fractions."""
    from chancekit.dice import dist
    from chancekit.markov import hp_race

    a, b = hp
    da, db = dist("1d6-1"), dist("1d8-2")
    race = hp_race(hp, ("1d6-1", "1d8-2"))
    live = [(x, y) for x in range(1, a + 1) for y in range(1, b + 1)]
    ends = ["first", "second", "both"]
    at = {s: i for i, s in enumerate(live)}
    n = len(live)
    q = [[Fraction(0)] * n for _ in range(n)]
    r = [[Fraction(0)] * 3 for _ in range(n)]
    for s, i in at.items():
        x, y = s
        for hit_b, p1 in da.pmf().items():
            for hit_a, p2 in db.pmf().items():
                x2, y2 = min(x - hit_a, a), min(y - hit_b, b)
                p = p1 * p2
                if x2 <= 0 or y2 <= 0:
                    end = "both" if x2 <= 0 and y2 <= 0 else ("first" if y2 <= 0 else "second")
                    r[i][ends.index(end)] += p
                else:
                    q[i][at[(x2, y2)]] += p
    eye_minus_q = [[(1 if i == j else 0) - q[i][j] for j in range(n)] for i in range(n)]
    won = solve(eye_minus_q, r)[at[(a, b)]]
    assert race.winner == Distribution({e: w for e, w in zip(ends, won, strict=True) if w})
    t = solve(eye_minus_q, [[Fraction(1)] for _ in range(n)])
    assert race.rounds.mean == t[at[(a, b)]][0]
    second = solve(eye_minus_q, [[2 * t[i][0] - 1] for i in range(n)])
    assert race.rounds.variance == second[at[(a, b)]][0] - t[at[(a, b)]][0] ** 2
