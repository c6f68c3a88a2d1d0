"""Planning (issue #30): copies, copies within n pulls, all of a set of items and costs,
against a forward DP written here from the published rules, brute-force enumeration of
small systems, and a seeded 10**6-pull Monte Carlo of the 90-pull banner."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.fair import PRD, Deck, Dice, DynamicDice, PityTimer, system_from_spec
from chancekit.fair.studio import AimAssist, GachaPity, LuckyStreak, TGM3Randomizer
from chancekit.markov import (
    Steps,
    all_of,
    copies,
    copies_within,
    cost,
    first_success,
    spend,
)

F = Fraction


# --------------------------------------------------------------------------- the oracle
def _chance(j: int, base: F, soft: int | None, ramp: F, hard: int | None) -> F:
    """The rare chance on pull j since the last rare, from the published rule."""
    if hard is not None and j >= hard:
        return F(1)
    q = base
    if soft is not None and j >= soft:
        q += (j - soft + 1) * ramp
    return min(F(1), q)


def gacha_dp(k: int, *, base: str, soft: int | None, ramp: str, hard: int | None,
             featured: str = "0.5", chosen: str = "1", fate: int | None = None,
             start: tuple[int, bool, int] = (1, False, 0)) -> list[F]:
    """P(the k-th wanted copy at pull t), t = 0.., by a forward pass over (pity, lost
    50/50, misses, copies) with Fractions: written from the rules, not from the code."""
    b, r, f, c = F(base), F(ramp), F(featured), F(chosen)
    cur = {(*start, 0): F(1)}
    pmf = [F(0)]
    while cur:
        nxt: dict[tuple[int, bool, int, int], F] = {}
        done = F(0)
        for (j, g, m, got), p in cur.items():
            q = _chance(j, b, soft, ramp=r, hard=hard)
            if q < 1:
                key = (j + 1, g, m, got)
                nxt[key] = nxt.get(key, 0) + p * (1 - q)
            if fate is not None and m >= fate:
                split = [(F(1), "want")]
            else:
                ff = F(1) if g else f
                split = [(1 - ff, "off"), (ff * c, "want"), (ff * (1 - c), "other")]
            for share, kind in split:
                if not share:
                    continue
                pr = p * q * share
                if kind == "want":
                    if got + 1 == k:
                        done += pr
                        continue
                    key = (1, False, 0, got + 1)
                else:
                    mm = 0 if fate is None else min(m + 1, fate)
                    key = (1, kind == "off", mm, got)
                nxt[key] = nxt.get(key, 0) + pr
        pmf.append(done)
        cur = nxt
    while len(pmf) > 1 and not pmf[-1]:
        pmf.pop()
    return pmf


def _trim(pmf: tuple[F, ...]) -> list[F]:
    out = list(pmf)
    while len(out) > 1 and not out[-1]:
        out.pop()
    return out


# --------------------------------------------------------------------------- copies
@pytest.mark.parametrize("k,state", [(1, None), (1, (90, False)), (2, (38, False)),
                                     (2, (38, True)), (2, None)])
def test_banner_copies_equal_the_forward_dp(k, state):
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    got = copies(g, "featured", k, state=state)
    start = (1, False, 0) if state is None else (*state, 0)
    want = gacha_dp(k, base="0.006", soft=74, ramp="0.06", hard=90, start=start)
    assert _trim(got.pmf) == want
    assert got.tail == 0 and sum(got.pmf) == 1
    mean = sum(t * p for t, p in enumerate(want))
    assert got.mean == mean
    assert got.variance == sum(t * t * p for t, p in enumerate(want)) - mean**2


def test_seven_copies_on_a_small_banner_equal_the_forward_dp():
    g = GachaPity(0.1, soft_start=6, ramp=0.15, hard=10, featured=0.5)
    got = copies(g, "featured", 7, state=(4, False))
    want = gacha_dp(7, base="0.1", soft=6, ramp="0.15", hard=10, start=(4, False, 0))
    assert _trim(got.pmf) == want


def test_weapon_banner_fate_points_equal_the_forward_dp():
    g = GachaPity(0.1, soft_start=5, ramp=0.2, hard=8, featured=0.75, chosen=0.5, fate=2)
    for k, state in [(1, None), (2, (3, True, 1)), (3, (1, False, 2))]:
        got = copies(g, "featured", k, state=state)
        start = (1, False, 0) if state is None else state
        want = gacha_dp(k, base="0.1", soft=5, ramp="0.2", hard=8, featured="0.75",
                        chosen="0.5", fate=2, start=start)
        assert _trim(got.pmf) == want


def test_fate_one_without_a_chosen_share_is_the_fifty_fifty():
    plain = GachaPity(0.1, hard=6)
    fated = GachaPity(0.1, hard=6, fate=1)
    assert copies(plain, "featured", 3).pmf == copies(fated, "featured", 3).pmf


def test_one_copy_is_first_success():
    for system in [GachaPity(0.006, soft_start=74, ramp=0.06, hard=90), PRD(0.25),
                   PityTimer(0.2, soft_start=3, ramp=0.2, hard=6)]:
        one = copies(system, None, 1)
        assert one.pmf == first_success(system, "featured" if "featured" in system.values
                                        else True).pmf


def test_seven_copies_match_a_seeded_monte_carlo():
    """10**6 pulls of the 90-pull banner (soft pity from 74, 50/50 with a guarantee):
    the mean and three points of the CDF of the pulls to the 7th featured copy within
    3 sigma."""
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    exact = copies(g, "featured", 7)
    trials = 10**6 // 654
    rng = np.random.default_rng(20261127)
    pity = np.ones(trials, dtype=np.int64)
    lost = np.zeros(trials, dtype=bool)
    got = np.zeros(trials, dtype=np.int64)
    pulls = np.zeros(trials, dtype=np.int64)
    live = np.ones(trials, dtype=bool)
    total = 0
    while live.any():
        q = np.where(pity >= 90, 1.0,
                     0.006 + np.maximum(0, pity - 73) * 0.06)
        q = np.minimum(q, 1.0)
        u = rng.random(trials)
        rare = (u < q) & live
        feat = rare & (lost | (rng.random(trials) < 0.5))
        total += int(live.sum())
        pulls += live
        got += feat
        lost = np.where(rare, ~feat, lost)
        pity = np.where(rare, 1, pity + 1)
        live &= got < 7
    assert total >= 10**6 - 2000
    m, sd = float(exact.mean), float(exact.variance) ** 0.5
    assert abs(pulls.mean() - m) < 3 * sd / trials**0.5
    for n in (exact.percentile(0.1), exact.percentile(0.5), exact.percentile(0.9)):
        p = float(exact.within(n))
        emp = float((pulls <= n).mean())
        assert abs(emp - p) < 3 * (p * (1 - p) / trials) ** 0.5


def _enumerate(system, value, k: int, n: int) -> list[F]:
    """P(the k-th copy at pull t) for t <= n by enumerating every sequence of n draws
    (exact chances from the system's decimals)."""
    idx = system.values.index(value)
    out = [F(0)] * (n + 1)

    def walk(s, p: F, t: int, got: int) -> None:
        if got == k:
            out[t] += p
            return
        if t == n:
            return
        sc = system.copy()
        sc.setstate(s)
        # the documented reading of a float chance: the nearest fraction with a
        # denominator up to 10**9 (the decimal it was written as)
        probs = [F(x).limit_denominator(10**9) for x in sc.probabilities()]
        tot = sum(probs)
        for i, q in enumerate(probs):
            if q:
                sc2 = sc.copy()
                sc2.observe(i)
                walk(sc2.getstate(), p * q / tot, t + 1, got + (i == idx))

    walk(system.getstate(), F(1), 0, 0)
    return out


@pytest.mark.parametrize("system,value,k,n", [
    (PityTimer(0.5, hard=3), True, 2, 6),
    (PRD(0.3), True, 3, 10),
    (AimAssist(0.5, 0.25, cap=1.0), True, 2, 6),
    (LuckyStreak(0.25, 2), True, 3, 8),
    (Deck(3), 2, 2, 6),
    (Deck(2, weights=(2, 1)), 2, 2, 6),
    (Dice(3), 1, 2, 8),
    (system_from_spec("history-reroll:2,2", 3), 1, 2, 7),
    (system_from_spec("gacha:0.25,2,0.25,4,0.5", 3), "featured", 2, 8),
])
def test_copies_equal_brute_force_enumeration(system, value, k, n):
    got = copies(system, value, k, upto=n)
    assert list(got.pmf[:n + 1]) == _enumerate(system, value, k, n)
    assert got.tail == 1 - sum(got.pmf[:n + 1])


def test_unbounded_wait_is_walked_to_a_tail_stated_exactly():
    flat = copies(PityTimer(0.1), True, 3)
    # negative binomial: P(3rd success at t) = C(t-1, 2) p**3 (1-p)**(t-3)
    p = F(1, 10)
    for t in (3, 10, 50):
        assert flat.pmf[t] == (t - 1) * (t - 2) // 2 * p**3 * (1 - p) ** (t - 3)
    assert flat.mean == 30 and flat.variance == 3 * (1 - p) / p**2
    assert 0 < flat.tail <= F(1, 10**9) and flat.tail == 1 - sum(flat.pmf)
    cut = copies(PityTimer(0.1), True, 3, upto=10)
    assert cut.upto == 10 and cut.pmf == flat.pmf[:11]
    with pytest.raises(InvalidValueError, match="upto"):
        cut.within(11)
    with pytest.raises(InvalidValueError, match="covers"):
        cut.percentile(0.99)


# --------------------------------------------------------------------------- Steps
@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=8).filter(any),
       st.fractions(min_value=F(1, 1000), max_value=1))
def test_within_and_percentile_agree(weights, q):
    tot = sum(weights)
    pmf = tuple(F(w, tot) for w in weights)
    s = Steps(F(0), F(0), pmf, F(0))
    n = s.percentile(q)
    assert s.within(n) >= q
    assert n == 0 or s.within(n - 1) < q
    assert s.within(-1) == 0 and s.within(len(pmf) + 5) == 1


def test_percentile_reads_floats_as_decimals_and_refuses_nonsense():
    s = Steps(F(0), F(0), (F(0), F(9, 10), F(1, 10)), F(0))
    assert s.percentile(0.9) == 1  # 0.9 is 9/10, not the float just above
    for bad in (0, 1.5, -0.1, float("nan")):
        with pytest.raises(InvalidValueError):
            s.percentile(bad)
    with pytest.raises(InvalidTypeError):
        s.percentile("90%")


# --------------------------------------------------------------------------- within n
@pytest.mark.parametrize("system,value,n", [
    (PityTimer(0.5, hard=3), True, 6),
    (system_from_spec("gacha:0.25,2,0.25,4,0.5", 3), "featured", 7),
    (Deck(3), 1, 5),
])
def test_copies_within_equals_enumeration_and_copies(system, value, n):
    dist = copies_within(system, value, n)
    for k in range(1, n + 1):
        by_copies = copies(system, value, k, upto=n).within(n)
        at_least = sum((p for c, p in dist.pmf().items() if c >= k), F(0))
        assert at_least == by_copies


def test_all_of_equals_enumeration():
    """Two wanted items of three equally likely rate-ups: every sequence of 5 pulls of a
    pity-3 timer, each success one of the three items, enumerated."""
    system = PityTimer(0.5, hard=3)
    want = F(0)
    for seq in itertools.product(range(4), repeat=5):  # 0: miss, 1..3: an item
        sc = system.copy()
        p = F(1)
        for x in seq:
            hit = F(repr(sc.probabilities()[1]))
            p *= hit / 3 if x else 1 - hit
            sc.observe(1 if x else 0)
        if 1 in seq and 2 in seq:
            want += p
    got = all_of(system, True, {"A": F(1, 3), "B": F(1, 3)}, 5)
    assert got == want


def test_cost():
    c = cost(copies(PityTimer(0.5, hard=2), True, 2), 160, refund=10)
    assert c.net == 150 and c.mean == 450
    assert c.affordable(449) == 2 and c.within(449) == F(1, 4)
    assert c.percentile(1) == 600
    with pytest.raises(InvalidValueError):
        cost(copies(PityTimer(0.5, hard=2), True, 1), 10, refund=10)


# --------------------------------------------------------------------------- refusals
def test_bad_input_is_refused_clearly():
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    with pytest.raises(InvalidValueError, match="state"):
        copies(g, "featured", 2, state=(0, False))
    with pytest.raises(InvalidValueError, match="state"):
        copies(g, "featured", 2, state="pity 37")
    with pytest.raises(InvalidValueError, match="values"):
        copies(g, "legendary", 2)
    with pytest.raises(InvalidValueError):
        copies(g, "featured", 0)
    with pytest.raises(InvalidValueError):
        copies(g, "featured", 10**9)
    with pytest.raises(InvalidTypeError):
        copies("gacha", "featured", 1)
    with pytest.raises(InvalidValueError, match="no end"):
        copies(DynamicDice(3, 0.5), 1, 1)
    with pytest.raises(InvalidValueError, match="Monte Carlo"):
        copies(TGM3Randomizer(), "I", 1)
    with pytest.raises(InvalidValueError, match="never draws"):
        copies(PityTimer(0.5, hard=1), False, 1)
    with pytest.raises(InvalidValueError):
        all_of(PityTimer(0.5), True, {"A": 0.7, "B": 0.7}, 4)
    with pytest.raises(LimitError):
        all_of(PityTimer(0.5), True, {i: 0.01 for i in range(17)}, 4)


def test_huge_asks_are_refused_before_the_work():
    with pytest.raises(LimitError):
        copies(PityTimer(1e-6), True, 1000)
    with pytest.raises(LimitError):
        copies(GachaPity(0.006, soft_start=74, ramp=0.06, hard=90), "featured", 1000)


# --------------------------------------------------------------------------- fate points
def test_fate_spec_and_long_run_shares():
    """The spec's fate= and chosen= options; target() (iterated floats) against the exact
    stationary shares of the system's chain (chancekit.markov.long_run)."""
    from chancekit.markov import long_run

    w = system_from_spec("gacha:0.1,5,0.2,8,0.75,fate=2,chosen=0.5", 3)
    assert (w.fate, w.chosen, w.values[-1]) == (2, 0.5, "other-featured")
    exact = long_run(w)
    for value, share in zip(w.values, w.target(), strict=True):
        assert share == pytest.approx(float(exact.probability(value)), rel=1e-9)
    plain = system_from_spec("gacha:0.1,5,0.2,8", 3)
    assert plain.getstate() == (1, False) and plain.values[-1] == "featured"
    with pytest.raises(InvalidValueError):
        GachaPity(0.1, hard=8, fate=1).setstate((1, False, 2))


# --------------------------------------------------------------------------- spend
def spend_dp(k: int, price: F, refunds: dict[str, F], *, base: str, soft: int | None,
             ramp: str, hard: int | None, featured: str | None = "0.5",
             start: tuple[int, bool] = (1, False)) -> tuple[dict[F, F], dict[F, F]]:
    """(spent, needed) of the k-th featured copy by a forward pass over whole paths
    (pity, lost 50/50, copies, currency spent, least budget so far) with Fractions, from
    the published rules: a pull is paid before it is made, its refund after.
    ``featured=None``: a pity timer (a rare is the wanted value, "True")."""
    b, r = F(base), F(ramp)
    cur = {(*start, 0, F(0), F(0)): F(1)}
    spent: dict[F, F] = {}
    needed: dict[F, F] = {}
    while cur:
        nxt: dict = {}
        for (j, g, got, s, n), p in cur.items():
            q = _chance(j, b, soft, ramp=r, hard=hard)
            n2 = max(n, s + price)  # what the next pull needs in hand
            if featured is None:
                split = [(1 - q, "common", False), (q, "True", True)]
            else:
                f = F(1) if g else F(featured)
                split = [(1 - q, "common", False), (q * (1 - f), "off-banner", False),
                         (q * f, "featured", True)]
            for share, kind, want in split:
                if not share:
                    continue
                pr = p * share
                s2 = s + price - refunds.get(kind, F(0))
                if want and got + 1 == k:
                    spent[s2] = spent.get(s2, 0) + pr
                    needed[n2] = needed.get(n2, 0) + pr
                    continue
                rare = kind != "common"
                key = (1 if rare else j + 1, kind == "off-banner" if rare else g,
                       got + want, s2, n2)
                nxt[key] = nxt.get(key, 0) + pr
        cur = nxt
    return spent, needed


SMALL = dict(base="0.1", soft=6, ramp="0.15", hard=10)


@pytest.mark.parametrize("k,state,refunds", [
    (1, None, {"featured": F(40), "off-banner": F(40)}),
    (2, (4, True), {"featured": F(40), "off-banner": F(40)}),
    (3, (7, False), {"off-banner": F(100)}),
    (2, None, {"featured": F(25), "off-banner": F(300), "common": F(3)}),  # > a pull
    (2, None, {"featured": F(1, 3), "off-banner": F(5, 2)}),
])
def test_spend_on_a_small_banner_equals_the_forward_dp(k, state, refunds):
    g = GachaPity(0.1, soft_start=6, ramp=0.15, hard=10, featured=0.5)
    got = spend(g, "featured", k, price=160, refund_per=refunds, state=state)
    start = (1, False) if state is None else state
    want_s, want_n = spend_dp(k, F(160), refunds, **SMALL, start=start)
    assert dict(got.spent) == want_s and dict(got.needed) == want_n
    assert got.tail == 0 and sum(p for _, p in got.spent) == 1
    assert got.mean == sum(a * p for a, p in want_s.items())
    for b in sorted(want_n)[::7]:
        assert got.within(b) == sum(p for a, p in want_n.items() if a <= b)


def test_spend_on_a_pity_timer_equals_the_forward_dp():
    pt = PityTimer(0.2, soft_start=3, ramp=0.2, hard=6)
    for k, refunds in [(1, {"True": F(50)}), (3, {"True": F(50), "common": F(7)})]:
        per = {True: refunds["True"]}
        if "common" in refunds:
            per[False] = refunds["common"]
        got = spend(pt, True, k, price=100, refund_per=per)
        want_s, want_n = spend_dp(k, F(100), refunds, base="0.2", soft=3, ramp="0.2",
                                  hard=6, featured=None)
        assert dict(got.spent) == want_s and dict(got.needed) == want_n


@given(st.integers(1, 3), st.integers(1, 200), st.integers(0, 199), st.integers(1, 9))
@settings(max_examples=25, deadline=None)
def test_spend_without_refunds_or_with_all_refunded_is_net_times_pulls(k, price, r, pity):
    """No refund per draw: spent = (price - refund) x pulls; the same refund on every
    value: (price - refund) x pulls."""
    r %= price
    g = GachaPity(0.1, soft_start=6, ramp=0.15, hard=10, featured=0.5)
    pulls = copies(g, "featured", k, state=(pity, False))
    plain = spend(g, "featured", k, price=price, state=(pity, False))
    assert dict(plain.spent) == {price * t: p for t, p in enumerate(pulls.pmf) if p}
    assert plain.mean == cost(pulls, price).mean
    for b in (0, price * 5, price * 17 + 3, price * 40):
        assert plain.within(b) == cost(pulls, price).within(b)
    everything = {v: r for v in g.values}
    allr = spend(g, "featured", k, price=price, refund_per=everything, state=(pity, False))
    assert dict(allr.spent) == {(price - r) * t: p for t, p in enumerate(pulls.pmf) if p}
    disc = spend(g, "featured", k, price=price, refund=r, state=(pity, False))
    assert dict(disc.spent) == dict(allr.spent)


def test_spend_matches_a_seeded_monte_carlo():
    """2 featured copies on the small banner with starglitter on both rares: the mean
    spent and the chance within three budgets, from 200,000 seeded runs, within 3 sigma."""
    g = GachaPity(0.1, soft_start=6, ramp=0.15, hard=10, featured=0.5)
    exact = spend(g, "featured", 2, price=160, refund_per={"featured": 40,
                                                           "off-banner": 40})
    n = 200_000
    rng = np.random.default_rng(30_2026)
    pity = np.ones(n, dtype=np.int64)
    lost = np.zeros(n, dtype=bool)
    got = np.zeros(n, dtype=np.int64)
    spent = np.zeros(n, dtype=np.int64)
    need = np.zeros(n, dtype=np.int64)
    live = np.ones(n, dtype=bool)
    while live.any():
        q = np.where(pity >= 10, 1.0, 0.1 + np.maximum(0, pity - 5) * 0.15)
        rare = (rng.random(n) < np.minimum(q, 1.0)) & live
        feat = rare & (lost | (rng.random(n) < 0.5))
        need = np.where(live, np.maximum(need, spent + 160), need)
        spent += np.where(live, 160 - 40 * rare, 0)
        got += feat
        lost = np.where(rare, ~feat, lost)
        pity = np.where(rare, 1, pity + 1)
        live &= got < 2
    mean, sd = float(exact.mean), float(sum((a - exact.mean) ** 2 * p
                                             for a, p in exact.spent)) ** 0.5
    assert abs(spent.mean() - mean) < 3 * sd / n**0.5
    for b in (exact.percentile(0.25), exact.percentile(0.5), exact.percentile(0.9)):
        p = float(exact.within(b))
        assert abs((need <= b).mean() - p) < 3 * (p * (1 - p) / n) ** 0.5 + 1e-12


def test_spend_refuses_bad_input_and_huge_asks_up_front():
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    with pytest.raises(InvalidValueError, match="values"):
        spend(g, "featured", 1, price=160, refund_per={"5-star": 40})
    with pytest.raises(InvalidTypeError):
        spend(g, "featured", 1, price=160, refund_per=[40])
    with pytest.raises(InvalidValueError):
        spend(g, "featured", 1, price=160, refund_per={"featured": -1})
    with pytest.raises(InvalidValueError):
        spend(g, "featured", 1, price=160, refund=160)
    with pytest.raises(InvalidTypeError):
        spend(g, "featured", 1, price="a lot")
    with pytest.raises(LimitError):
        spend(g, "featured", 1000, price=160, refund_per={"featured": 40})
    # 7 copies with refunds: the walk would take several seconds; refused by the estimate
    # made before it (the pulls' own distribution, 0.3 s, is computed first)
    from chancekit import limits
    calls = []
    real = limits.charge

    def counting(units: int, what: str, **kw: Any) -> None:
        calls.append(what)
        real(units, what, **kw)

    limits_charge, limits.charge = limits.charge, counting
    try:
        with pytest.raises(LimitError) as e:
            spend(g, "featured", 7, price=160, refund_per={"featured": 40})
    finally:
        limits.charge = limits_charge
    assert str(e.value).startswith("spend(): 1,260 pulls x 7 copies with refunds needs about")
    assert not any(w.startswith("spend(): pull") for w in calls)  # no pull was walked


def test_spend_with_a_tail_answers_only_what_it_walked():
    s = spend(PityTimer(0.5), True, 2, price=10, refund_per={True: 4}, upto=30)
    assert s.tail > 0
    with pytest.raises(InvalidValueError):
        _ = s.mean
    assert s.within(20) == F(1, 4)                 # two pulls, both rares: need 16 + 4
    with pytest.raises(InvalidValueError, match="upto"):
        s.within(10**6)


def test_plan_with_refunds_per_draw_and_absurd_amounts():
    from chancekit.markov.planning import plan

    p = plan("gacha:0.1,6,0.15,10", copies=2, price=160, budget=2000,
             refund_per={"featured": 40, "off-banner": 40})
    g = GachaPity(0.1, soft_start=6, ramp=0.15, hard=10)
    each = [spend(g, "featured", k, price=160, refund_per={"featured": 40,
                                                           "off-banner": 40})
            for k in (1, 2)]
    assert [r["mean_cost"] for r in p["rows"]] == [float(s.mean) for s in each]
    assert [r["within_budget"] for r in p["rows"]] == [float(s.within(2000)) for s in each]
    assert p["affordable"] is None and p["refund_per"] == {"featured": 40.0,
                                                          "off-banner": 40.0}
    for kw in [{"price": 10**999}, {"price": 160, "budget": F(10**20)},
               {"price": 160, "refund_per": {"featured": 10**16}}]:
        with pytest.raises(InvalidValueError, match="at most 1e15"):
            plan("gacha:0.1,6,0.15,10", copies=1, **kw)
    with pytest.raises(InvalidValueError, match="price"):
        plan("gacha:0.1,6,0.15,10", refund_per={"featured": 40})
