"""Systems studios ship (chancekit.fair.studio), each against an independent oracle: the
rule re-implemented in the test on the *sequence* of draws with Fractions and every
sequence enumerated (small N), a literal simulator of TGM3's 35-slot procedure, and Monte
Carlo within 4 standard errors at a fixed seed."""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction

import pytest

from chancekit.errors import ChancekitError, LimitError, StateError
from chancekit.fair import (
    AimAssist,
    DuplicateProtection,
    GachaPity,
    LuckyStreak,
    TGM3Randomizer,
    TGMRandomizer,
    TwoRollHit,
    evaluate,
    system_from_spec,
    true_hit,
)
from chancekit.fair.studio import PIECES, _tgm3_closed, _tgm3_law, true_hit_table
from chancekit.rng import PCG32

F = Fraction


# --------------------------------------------------------------------------- oracles
def gacha_law(seq, base, soft, ramp, hard, feat):
    k = 1
    guaranteed = False
    for x in seq:
        if x == 0:
            k += 1
        else:
            k, guaranteed = 1, x == 1
    q = F(1) if k >= hard else min(F(1), F(base) + (max(0, k - soft + 1) * F(ramp)))
    f = F(1) if guaranteed else F(feat)
    return [1 - q, q * (1 - f), q * f]


def dupe_law(seq, sizes, rates, guarantee, rare):
    rarity = [j for j, s in enumerate(sizes) for _ in range(s)]
    seen = [set() for _ in sizes]
    for x in seq:
        j = rarity[x]
        seen[j].add(x)
        if len(seen[j]) == sizes[j]:
            seen[j] = set()
    tot = sum(F(r) for r in rates)
    p = [F(r) / tot for r in rates]
    if guarantee and len(seq) == guarantee - 1 and all(rarity[x] < rare for x in seq):
        p = [F(0) if j < rare else pj for j, pj in enumerate(p)]
        s = sum(p)
        p = [x / s for x in p]
    return [F(0) if i in seen[j] else p[j] / (sizes[j] - len(seen[j]))
            for i, j in enumerate(rarity)]


def aim_law(seq, base, step, cap):
    misses = 0
    for x in seq:
        misses = 0 if x else misses + 1
    q = min(F(cap), F(base) + misses * F(step))
    return [1 - q, q]


def lucky_law(seq, p, cap):
    left = 0
    for x in seq:
        if left:
            left -= 1
        elif x:
            left = cap
    return [F(0), F(1)] if left else [1 - F(p), F(p)]


def tgm_law(seq, tries, start, forbidden):
    if not seq:
        ok = [i for i in range(7) if PIECES[i] not in forbidden]
        return [F(1, len(ok)) if i in ok else F(0) for i in range(7)]
    hist = ([PIECES.index(c) for c in start] and
            list(reversed(seq)) + [PIECES.index(c) for c in start])[: len(start)]
    held = set(hist)
    out = [F(0)] * 7
    # enumerate the rolls: each roll uniform over 7; stop when outside history
    def go(roll, prob):
        for v in range(7):
            pv = prob / 7
            if v not in held or roll == tries - 1:
                out[v] += pv
            else:
                go(roll + 1, pv)
    go(0, F(1))
    return out


def enumerate_paths(system, law, n_draws):
    """(sequence -> probability) from the system's own chain, and from the oracle law."""
    mine, theirs = {}, {}

    def walk(sys_, seq, p_sys, p_or):
        if len(seq) == n_draws:
            mine[tuple(seq)] = p_sys
            theirs[tuple(seq)] = p_or
            return
        probs = sys_.probabilities()
        ref = law(seq)
        assert len(probs) == len(ref)
        for i, (a, b) in enumerate(zip(probs, ref, strict=True)):
            assert a == pytest.approx(float(b), abs=1e-12), (seq, i)
            if b == 0:
                continue
            nxt = sys_.copy()
            nxt.observe(i)
            walk(nxt, [*seq, i], p_sys * a, p_or * b)

    walk(system.copy(), [], 1.0, F(1))
    assert sum(theirs.values()) == 1
    return mine, theirs


CASES = [
    ("gacha", lambda: GachaPity(0.1, soft_start=3, ramp=0.3, hard=5, featured=0.5),
     lambda s: gacha_law(s, 0.1, 3, 0.3, 5, 0.5), 6),
    ("dupe", lambda: DuplicateProtection((3, 2, 1), (0.7, 0.25, 0.05), guarantee=3),
     lambda s: dupe_law(s, (3, 2, 1), (0.7, 0.25, 0.05), 3, 1), 4),
    ("aim", lambda: AimAssist(0.5, 0.2, cap=0.9), lambda s: aim_law(s, 0.5, 0.2, 0.9), 8),
    ("lucky", lambda: LuckyStreak(0.25, 2), lambda s: lucky_law(s, 0.25, 2), 8),
    ("tgm1", TGMRandomizer.tgm1, lambda s: tgm_law(s, 4, "ZZZZ", "SZO"), 3),
    ("tgm2", TGMRandomizer.tgm2, lambda s: tgm_law(s, 6, "SZSZ", "SZO"), 3),
]


@pytest.mark.parametrize(("name", "make", "law", "depth"), CASES, ids=[c[0] for c in CASES])
def test_chain_matches_rule_on_every_sequence(name, make, law, depth) -> None:
    mine, theirs = enumerate_paths(make(), law, depth)
    assert set(mine) == set(theirs)
    for k in theirs:
        assert mine[k] == pytest.approx(float(theirs[k]), abs=1e-12)
    # the exact engine's outcome variance equals the enumerated one
    sys_ = make()
    tgt = sys_.target()
    n = sys_.n
    ov = math.fsum(float(p) * sum((seq.count(i) - depth * tgt[i]) ** 2 for i in range(n)) / n
                   for seq, p in theirs.items())
    assert evaluate(sys_, depth).outcome_variance == pytest.approx(ov, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("name", "make", "law", "depth"), CASES, ids=[c[0] for c in CASES])
def test_draws_follow_the_rule(name, make, law, depth) -> None:
    """Monte Carlo of draw() against the oracle's exact law of the first ``depth`` draws
    (the chance of the most likely sequence and of the first value), within 4 SE."""
    _, theirs = enumerate_paths(make(), law, depth)
    top = max(theirs, key=theirs.get)
    trials = 6000
    rng = PCG32(2024)
    hits = first = 0
    for _ in range(trials):
        s = make()
        seq = tuple(s.draw_index(rng) for _ in range(depth))
        hits += seq == top
        first += seq[0] == top[0]
    for got, p in ((hits, float(theirs[top])),
                   (first, float(sum(v for k, v in theirs.items() if k[0] == top[0])))):
        se = math.sqrt(p * (1 - p) / trials)
        assert abs(got / trials - p) <= 4 * se + 1e-12


def test_exact_vs_montecarlo() -> None:
    for make, samples in [(lambda: GachaPity(0.05, soft_start=5, ramp=0.2, hard=8), 20),
                          (lambda: DuplicateProtection((2, 1), (8, 2), guarantee=4), 12),
                          (lambda: AimAssist(0.5, 0.1, 0.9), 30), (lambda: TwoRollHit(70), 30),
                          (lambda: LuckyStreak(0.25, 2), 30), (TGMRandomizer.tgm1, 5)]:
        ex = evaluate(make(), samples)
        mc = evaluate(make(), samples, method="montecarlo", trials=4000, rng=PCG32(11))
        for key in ("unpredictability", "outcome_variance", "guessability"):
            assert abs(ex[key] - mc[key]) <= 4 * mc.se[key] + 1e-9, (make(), key)


# --------------------------------------------------------------------------- closed forms
def test_fire_emblem_true_hit_brute_force() -> None:
    for shown in range(0, 101):
        pairs = sum(1 for a in range(100) for b in range(100) if (a + b) / 2 < shown)
        assert true_hit(shown) == F(pairs, 10_000)
    assert true_hit(70) == F(823, 1000) and float(true_hit(30)) == 0.183
    assert true_hit_table(10)[90] == F(981, 1000)
    # draws: two exact rolls
    rng = PCG32(5)
    s = TwoRollHit(70)
    hits = sum(s.draw_index(rng) for _ in range(20_000))
    se = math.sqrt(0.823 * 0.177 / 20_000)
    assert abs(hits / 20_000 - 0.823) <= 4 * se


def test_long_run_shares() -> None:
    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    _, off, feat = g.target()
    assert feat == pytest.approx(2 * off)  # a 50/50 with a guarantee: 2/3 of rares featured
    assert off + feat == pytest.approx(0.016, abs=5e-4)  # the "consolidated" 1.6 %
    mc = evaluate(g, 400, method="montecarlo", trials=400, rng=PCG32(3))
    assert mc is not None
    assert LuckyStreak(0.25, 2).target()[1] == pytest.approx(3 / 6)
    d = DuplicateProtection((3, 2, 1), (70, 25, 5))
    assert sum(d.target()) == pytest.approx(1.0)
    assert d.target()[0] == pytest.approx(0.7 / 3)


def test_duplicate_protection_never_repeats_within_a_set() -> None:
    d = DuplicateProtection((3, 2, 1), (0.7, 0.25, 0.05), guarantee=5)
    rng = PCG32(9)
    for _ in range(200):
        d.reset()
        seq = d.draw_many(5, rng)
        assert any(not x.startswith("r0") for x in seq)  # the guaranteed rare
    d = DuplicateProtection((4,))
    seq = d.draw_many(40, PCG32(1))
    for i in range(0, 40, 4):
        assert sorted(seq[i:i + 4]) == ["r0-1", "r0-2", "r0-3", "r0-4"]


def test_aim_assist_is_vectorised_and_capped() -> None:
    a = AimAssist(0.65, 0.1, cap=0.95)
    assert [round(a.chance(k), 2) for k in range(1, 6)] == [0.65, 0.75, 0.85, 0.95, 0.95]
    assert a.state_bound(10) > 0


# --------------------------------------------------------------------------- TGM
def test_tgm_start_rules() -> None:
    rng = PCG32(1)
    for make in (TGMRandomizer.tgm1, TGMRandomizer.tgm2, TGM3Randomizer):
        firsts = {make().draw(rng) for _ in range(400)}
        assert firsts == {"I", "J", "L", "T"}
    t = TGMRandomizer.tgm1()
    t.observe(0)
    assert t.getstate() == (False, (0, 6, 6, 6))


def literal_tgm3(rng):
    """The reference procedure, slot by slot (a 35-element list)."""
    pool = [p for p in PIECES for _ in range(5)]
    order: list[str] = []
    first = "IJLT"[rng.randbelow(4)]
    history = ["S", "Z", "S", first]  # oldest first
    yield first
    while True:
        for roll in range(6):
            i = rng.randbelow(35)
            piece = pool[i]
            if piece not in history or roll == 5:
                break
            if order:
                pool[i] = order[0]
        if piece in order:
            order.remove(piece)
        order.append(piece)
        pool[i] = order[0]
        history.pop(0)
        history.append(piece)
        yield piece


def test_tgm3_against_the_literal_procedure() -> None:
    trials, depth = 3000, 24
    rng_a, rng_b = PCG32(77), PCG32(78)
    lit = [list(itertools.islice(literal_tgm3(rng_a), depth)) for _ in range(trials)]
    mine = [TGM3Randomizer().draw_many(depth, rng_b) for _ in range(trials)]

    def stats(seqs):
        rep = [sum(s[t] == s[t - 1] for t in range(1, depth)) / (depth - 1) for s in seqs]
        gap = []
        for s in seqs:
            best = cur = 0
            for x in s:
                cur = 0 if x == "I" else cur + 1
                best = max(best, cur)
            gap.append(best)
        out = []
        for v in (rep, gap):
            m = sum(v) / len(v)
            sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))
            out.append((m, sd / math.sqrt(len(v))))
        return out

    for (ma, sa), (mb, sb) in zip(stats(lit), stats(mine), strict=True):
        assert abs(ma - mb) <= 4 * math.hypot(sa, sb)


def test_tgm3_probabilities_are_the_procedures_law() -> None:
    """probabilities() from the literal state vs the literal next piece, over many runs."""
    trials, t_at = 4000, 9
    rng = PCG32(5)
    freq = [0] * 7
    mean = [0.0] * 7
    for _ in range(trials):
        gen = literal_tgm3(rng)
        seq = list(itertools.islice(gen, t_at))
        # rebuild the counts state the class would hold: run the class on the same pieces
        # is not possible (rejections are hidden), so read the generator's frame instead
        frame = gen.gi_frame
        pool, order, hist = frame.f_locals["pool"], frame.f_locals["order"], \
            frame.f_locals["history"]
        s = TGM3Randomizer()
        s.setstate((False, tuple(pool.count(p) for p in PIECES),
                     tuple(PIECES.index(p) for p in order),
                     tuple(PIECES.index(p) for p in reversed(hist))))
        for i, q in enumerate(s.probabilities()):
            mean[i] += q / trials
        freq[PIECES.index(next(gen))] += 1
        assert seq
    for i in range(7):
        p = mean[i]
        assert abs(freq[i] / trials - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-9


def test_tgm3_closed_form_equals_recursion() -> None:
    s = TGM3Randomizer()
    rng = PCG32(8)
    checked = 0
    for _ in range(500):
        s.draw(rng)
        _, pool, order, hist = s.getstate()
        rep = order[0] if order else -1
        if rep >= 0 and rep not in hist:
            a = _tgm3_closed(pool, frozenset(hist), rep)
            b = _tgm3_law(pool, frozenset(hist), rep, 6)
            assert a == pytest.approx(b, abs=1e-15)
            checked += 1
    assert checked > 100


def test_tgm3_is_monte_carlo_only() -> None:
    with pytest.raises(LimitError):
        evaluate(TGM3Randomizer(), 10)
    m = evaluate(TGM3Randomizer(), 30, method="montecarlo", trials=500, rng=PCG32(1))
    assert 0 <= m["p_repeat"] < 0.03


# --------------------------------------------------------------------------- plumbing
SPECS = ["gacha:0.006,74,0.06,90", "gacha:0.1,3,0.3,5,0.75", "dupe:10,sizes=3/2/1,weights=70/25/5",
         "duplicate-protection", "aim-assist:0.65,0.1,0.95", "xcom:0.5,0.1", "two-roll:70",
         "fe:30", "lucky-streak:0.25,2", "tgm1", "tgm2", "tgm3", "tgm1+no-repeat"]


@pytest.mark.parametrize("spec", SPECS)
def test_specs_pickle_copy_state(spec) -> None:
    s = system_from_spec(spec, 5)
    rng = PCG32(3)
    s.draw_many(7, rng)
    clone = pickle.loads(pickle.dumps(s))
    assert clone.getstate() == s.getstate() and repr(clone) == repr(s)
    c = s.copy()
    assert c.draw_many(5, PCG32(1)) == s.draw_many(5, PCG32(1))
    assert math.fsum(s.probabilities()) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", ["gacha", "gacha:x", "two-roll:150", "lucky-streak:0.5",
                                 "dupe:3,sizes=3/a", "xcom:0.9,0.1,0.5", "tgm1:4",
                                 "dupe:3,rates=1/2"])
def test_bad_specs(bad) -> None:
    with pytest.raises(ChancekitError):
        system_from_spec(bad, 4)


def test_bad_states() -> None:
    for s, bad in [(GachaPity(0.1), (0, False)), (LuckyStreak(0.5, 2), (3,)),
                   (TGMRandomizer(), (True, (9, 0, 0, 0))), (TGM3Randomizer(), (True,)),
                   (DuplicateProtection((2, 1)), (((0, 1),), 0))]:
        with pytest.raises(StateError):
            s.setstate(bad)
