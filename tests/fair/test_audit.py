"""Rate audits (issue #30) against scipy.stats.binomtest (p-values and Clopper-Pearson
intervals on 100 random cases), brute-force enumeration of pull sequences (the
multinomial test, the rare count of a pull log) and hostile input."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from scipy.stats import binomtest

from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.fair import (
    GachaPity,
    PityTimer,
    audit_counts,
    audit_log,
    binomial_test,
    clopper_pearson,
)
from chancekit.fair.audit import _rare_count

F = Fraction


def _cases(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.choice([1, 2, 5, 10, 37, 100, 250, 600, 1000])
        p = F(rng.randint(1, 999), 1000) if rng.random() < 0.7 else F(rng.choice(
            [1, 6, 16, 51, 130]), 1000)
        k = min(n, max(0, round(float(p) * n + rng.gauss(0, 2 * math.sqrt(n) + 1))))
        yield k, n, p


@pytest.mark.parametrize("k,n,p", list(_cases(100, 30)))
def test_binomial_p_value_and_interval_equal_scipy(k, n, p):
    ref = binomtest(k, n, float(p))
    got = binomial_test(k, n, p)
    assert math.isclose(float(got), ref.pvalue, rel_tol=1e-9, abs_tol=1e-300)
    lo, hi = clopper_pearson(k, n)
    ci = ref.proportion_ci(0.95, method="exact")
    # scipy's ends (beta.ppf in floats) are themselves off by up to ~1e-12 at n = 1000
    assert abs(float(lo) - ci.low) < 3e-12 and abs(float(hi) - ci.high) < 3e-12


def _tail(k: int, n: int, p: F, upper: bool) -> F:
    """P(X >= k) (upper) or P(X <= k), summed from math.comb with Fractions."""
    idx = range(k, n + 1) if upper else range(0, k + 1)
    return sum((math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in idx), F(0))


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (3, 10), (0, 7), (7, 7), (13, 40),
                                 (39, 40), (1, 60)])
def test_clopper_pearson_is_certified_outwards(k, n):
    """Each end is a dyadic within 2**-40 of the exact root, on its outer side: checked
    on the exact tails summed here."""
    lo, hi = clopper_pearson(k, n)
    alpha = F(1, 40)
    step = F(1, 2**40)
    if k:
        assert _tail(k, n, lo, True) < alpha <= _tail(k, n, lo + step, True)
    else:
        assert lo == 0
    if k < n:
        assert _tail(k, n, hi, False) < alpha <= _tail(k, n, hi - step, False)
    else:
        assert hi == 1


def test_audit_counts_two_values_is_the_binomial_test():
    a = audit_counts({"5-star": 3, "other": 997}, {"5-star": 0.006, "other": 0.994})
    assert a.p_value == binomial_test(3, 1000, F(6, 1000))
    assert a.test.startswith("exact binomial") and a.pulls == 1000
    assert a.expected["5-star"] == 6
    assert a.verdict.startswith("consistent with the published rates at 1%")
    bad = audit_counts({"5-star": 20, "other": 980}, {"5-star": 0.006, "other": 0.994})
    assert bad.verdict.startswith("not consistent") and bad.p_value < F(1, 100)


def test_multinomial_equals_enumerating_sequences():
    """Every sequence of 7 pulls over three rarities: the chance of each count vector,
    then the total chance of the vectors no more likely than the observed one."""
    probs = {"c": F(7, 10), "r": F(2, 10), "s": F(1, 10)}
    by_vector: dict[tuple[int, ...], F] = {}
    for seq in itertools.product("crs", repeat=7):
        v = tuple(seq.count(x) for x in "crs")
        by_vector[v] = by_vector.get(v, 0) + math.prod(probs[x] for x in seq)
    for obs in [(7, 0, 0), (4, 2, 1), (2, 2, 3), (0, 0, 7), (5, 1, 1)]:
        bar = by_vector[obs]
        want = sum(p for p in by_vector.values() if p <= bar * F(10**7 + 1, 10**7))
        a = audit_counts(dict(zip("crs", obs, strict=True)), probs)
        assert a.p_value == want and a.test == "exact multinomial"


def test_pull_log_rare_count_equals_enumeration():
    g = GachaPity(0.25, soft_start=2, ramp=0.25, hard=4)
    n = 6
    want = [F(0)] * (n + 1)
    for seq in itertools.product(range(3), repeat=n):
        sc = g.copy()
        p = F(1)
        for i in seq:
            q = F(sc.probabilities()[i]).limit_denominator(10**9)
            p *= q
            if not p:
                break
            sc.observe(i)
        want[sum(1 for i in seq if i)] += p
    dist, rest = _rare_count(g, g.getstate(), {1, 2}, n, 3)
    assert dist == want and rest == 0
    # cut at the least top whose rest is at most P(observed): the head is still exact
    long = GachaPity(0.25, soft_start=2, ramp=0.25, hard=4)
    full, _ = _rare_count(long, long.getstate(), {1, 2}, 40, 20)
    head, rest = _rare_count(long, long.getstate(), {1, 2}, 40, 3)
    top = max(r for r, q in enumerate(head) if q)
    assert head[:top + 1] == full[:top + 1] and rest == sum(full[top + 1:])
    assert rest <= head[3]


def test_pull_log_audit():
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    sim = g.copy()
    from chancekit.rng import PCG32
    log = sim.draw_many(400, PCG32(7))
    a = audit_log(g, log)
    assert a.p_value > F(1, 100) and a.verdict.startswith("consistent")
    assert "gaps at most the median" in a.tests and "rare count" in a.tests
    assert a.log_chance > 0
    assert set(a.intervals) == {"common", "off-banner", "featured", "base"}
    # a common at pull 90 is impossible under a hard pity of 90
    bad = ["common"] * 95
    b = audit_log(g, bad)
    assert b.p_value == 0 and "pull 90" in b.verdict and b.log_chance == 0
    # far too many rares
    many = (["common"] * 4 + ["featured"]) * 20
    assert audit_log(g, many).verdict.startswith("not consistent")
    # labels from a CSV file come as text
    assert audit_log(PityTimer(0.5, hard=2), ["True", "False", "True"]).pulls == 3


def test_bad_input_is_refused_clearly():
    with pytest.raises(InvalidValueError, match="adding up"):
        audit_counts({"a": 1}, {"a": 0.5, "b": 0.4})
    with pytest.raises(InvalidValueError, match="published values"):
        audit_counts({"x": 1}, {"a": 0.5, "b": 0.5})
    with pytest.raises(InvalidValueError):
        audit_counts({"a": -1}, {"a": 0.5, "b": 0.5})
    with pytest.raises(InvalidValueError, match="at least one pull"):
        audit_counts({}, {"a": 0.5, "b": 0.5})
    with pytest.raises(InvalidTypeError):
        audit_counts({"a": 1}, {"a": "half", "b": 0.5})
    with pytest.raises(LimitError):
        audit_counts({"a": 10**5, "b": 10**5}, {"a": 0.5, "b": 0.5})
    with pytest.raises(LimitError, match="MAX_MULTINOMIAL_CELLS"):
        audit_counts({"a": 5000, "b": 3000, "c": 2000, "d": 10},
                     {"a": 0.5, "b": 0.3, "c": 0.19, "d": 0.01})
    z = audit_counts({"a": 1, "b": 1}, {"a": 0, "b": 1})
    assert z.p_value == 0 and "published chance of 0" in z.verdict
    g = GachaPity(0.006, hard=90)
    with pytest.raises(InvalidValueError, match="values"):
        audit_log(g, ["common", "legendary"])
    with pytest.raises(InvalidValueError, match="state"):
        audit_log(g, ["common"], state=(0, 0))
    with pytest.raises(InvalidTypeError):
        audit_log(g, "common,common")
    with pytest.raises(InvalidValueError):
        clopper_pearson(5, 3)
    with pytest.raises(InvalidValueError):
        clopper_pearson(1, 3, confidence=1)
