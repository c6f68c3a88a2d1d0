"""Issue 31 item 5, seventh pass: the late refusals of the issue's own corpus (seeds 2024
and 2025) at 3ced3b7. Every new path is checked against the way it replaces (Python's
Fraction arithmetic, ``Distribution.map``, the general engine's own reroll) on random
inputs, and its work as counted units, never seconds."""

from __future__ import annotations

import operator
import random
from fractions import Fraction

import pytest

from chancekit import limits
from chancekit.dice import dist, evaluate
from chancekit.dice._estimate import Refused, lower_bound
from chancekit.dice.distribution import (
    Distribution,
    _coprime_fraction,
    _exact_div,
    _rational_pairs,
)
from chancekit.dice.notation import _compile as parse
from chancekit.errors import ChancekitError, LimitError

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _exact_div}


def _rationals(rng: random.Random, n: int) -> dict[object, int]:
    w: dict[object, int] = {}
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            k: object = rng.randint(-20, 20)
        elif r < 0.75:
            k = Fraction(rng.randint(-30, 30), rng.randint(1, 12))
        elif r < 0.9:
            k = Fraction(rng.randint(-10**30, 10**30), rng.randint(1, 10**25))
        else:  # past a float: the exact order
            k = Fraction(10**400 + rng.randint(0, 3), rng.randint(1, 3))
        w[k] = rng.randint(1, 5)
    return w


def _brute(a: Distribution, b: Distribution, name: str) -> Distribution:
    out: dict[object, int] = {}
    for x, wx in a.weights.items():
        for y, wy in b.weights.items():
            r = _OPS[name](x, y)
            out[r] = out.get(r, 0) + wx * wy
    return Distribution(out)


@pytest.mark.parametrize("seed", range(6))
def test_rational_pairs_are_fraction_arithmetic(seed: int) -> None:
    """``+ - * /`` over rationals by reduced numerators and denominators: the same weights,
    in the same (increasing) order, whole results as ints, as Fraction pair by pair."""
    rng = random.Random(seed)
    for _ in range(150):
        a = Distribution(_rationals(rng, rng.randint(2, 40)))
        b = Distribution(_rationals(rng, rng.randint(2, 40)))
        name = rng.choice("+-*/")
        if name == "/" and 0 in b.weights:
            continue
        got = _OPS[name](a, b) if name != "/" else a / b
        want = _brute(a, b, name)
        assert dict(got.weights) == dict(want.weights)
        assert list(got.weights) == sorted(want.weights)
        assert all(type(k) is int or k.denominator > 1 for k in got.weights)
        assert got._int == all(type(k) is int for k in got.weights)


def test_rational_pairs_of_integers_divided() -> None:
    """Integers divided: reduced by one gcd a pair, signs on the numerator."""
    got = _rational_pairs({-4: 1, 3: 2, 6: 1}, {-2: 1, 4: 3}, "/")
    want: dict[object, int] = {}
    for x, wx in {-4: 1, 3: 2, 6: 1}.items():
        for y, wy in {-2: 1, 4: 3}.items():
            r = _exact_div(x, y)
            want[r] = want.get(r, 0) + wx * wy
    assert got == want and list(got) == sorted(want)
    with pytest.raises(ZeroDivisionError):
        _rational_pairs({1: 1}, {0: 1, 2: 1}, "/")


def test_anydice_division_keeps_its_rounding() -> None:
    """AnyDice's ``/`` rounds toward zero: ``_combine`` names it "/" too, and the rational
    pairs must not take it for exact division."""
    from chancekit import anydice

    (_, got), = anydice.run("output d2 / d3")
    assert dict(got.weights) == {0: 3, 1: 2, 2: 1}


def test_coprime_fraction_is_fraction() -> None:
    rng = random.Random(9)
    for _ in range(500):
        n, d = rng.randint(-10**40, 10**40), rng.randint(1, 10**30)
        f = Fraction(n, d)
        got = _coprime_fraction(f.numerator, f.denominator)
        assert got == f and hash(got) == hash(f) and repr(got) == repr(f)
        assert got + 1 == f + 1 and got < f + Fraction(1, 10**50)


@pytest.mark.parametrize("seed", range(4))
def test_rational_shift_is_the_map(seed: int) -> None:
    """``X + c``, ``c + X``, ``X - c``, ``c - X`` of rational outcomes and an integer ``c``
    (a plain int or a one-outcome distribution): what ``map`` gives, in its order."""
    rng = random.Random(seed)
    for _ in range(300):
        w = _rationals(rng, rng.randint(2, 50))
        if rng.random() < 0.2:
            w[Fraction(rng.randint(-9, 9))] = 3  # a Fraction of denominator 1
        x = Distribution(w)
        if len(x) < 2:
            continue
        c = rng.choice([0, 1, -1, rng.randint(-10**20, 10**20)])
        one = Distribution({c: 1})
        for got, f in ((x + c, lambda v, c=c: v + c), (c + x, lambda v, c=c: c + v),
                       (x - c, lambda v, c=c: v - c), (c - x, lambda v, c=c: c - v),
                       (x + one, lambda v, c=c: v + c), (one - x, lambda v, c=c: c - v)):
            want = x.map(f)
            assert dict(got.weights) == dict(want.weights)
            assert list(got.weights) == list(want.weights)
            assert got._total == want._total
            assert all(type(k) is int or k.denominator > 1 for k in got.weights)
            assert got._int == all(type(k) is int for k in got.weights)


@pytest.mark.parametrize(("text", "frac"), [
    ("(d6/7) / 2d4", True),     # a Fraction over integers stays one
    ("(d6/7) + 2d4", True),
    ("2d4 - (d6/7)", True),
    ("d6 / 2d4", True),          # consecutive integers over four distinct ones
    ("d6 / d2", False),          # d2 may divide them all? not known: no claim
    ("(d6/7) * 2d4", False),     # 7/7: no claim
    ("d6 + 2d4", False),
])
def test_the_tree_knows_fractions_of_pairs(text: str, frac: bool) -> None:
    """The pairwise bound's ``frac`` (surely a Fraction outcome), which prices the steps
    after it at a Fraction's rate (``3D10 + (d3/(...))/47d2`` priced its sum as integers'
    polynomial product); never claimed where the answer has none."""
    got = lower_bound(parse(text)).frac
    assert got is frac
    if got:
        assert not dist(text)._int


def test_the_fraction_flag_is_sound_on_random_pairs() -> None:
    """Wherever the tree says a pairwise result surely holds a Fraction, it does."""
    rng = random.Random(31)
    sides = ["d6", "2d4", "d6/7", "d3/2", "3d3", "(d4/3)", "-d5", "2", "d2", "d4*2", "d9//2"]
    claimed = 0
    for _ in range(400):
        text = f"({rng.choice(sides)}) {rng.choice('+-*/')} ({rng.choice(sides)})"
        try:
            answer = dist(text)
        except Exception:  # division by zero and the like: not this test's
            continue
        if lower_bound(parse(text)).frac:
            claimed += 1
            assert not answer._int, text
    assert claimed > 20


@pytest.mark.parametrize("text", ["d385305pl2ro>3", "3d6kh0e6", "3d6kh0ra6", "3d6pl3cs>3",
                                  "2d6kh0mi3", "9d10rr<0p<1kh4pl5", "5d20kh2pl2ro1e20"])
def test_a_pool_with_every_die_dropped_is_zero(text: str) -> None:
    """Keeps and drops that leave no die before any other step: 0, as the engine gives,
    with no pool enumerated (d385305pl2ro>3 enumerated 385 305 pools, 0.8 s), and the
    tree knows it (one outcome, no work)."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist(text)
    assert dict(got.weights) == {0: 1}
    # (the die built once, and the steps on the one empty pool)
    assert budget.counted < 10_000 and budget.estimated < 2_000_000
    bound = lower_bound(parse(text))
    assert bound.const and bound.work == 0


def test_dropped_pools_match_the_engine() -> None:
    """The shortcut against the engine's own steps on the dice as rolled."""
    from chancekit.dice.evaluate import _general
    from chancekit.dice.selectors import Op, Selector

    die = dict(Distribution({1: 1, 2: 1, 3: 2}).weights)
    for ops in [(Op("k", (Selector("h", 0),)), Op("ro", (Selector("<", 3),))),
                (Op("p", (Selector("l", 3),)), Op("ra", (Selector(">", 1),))),
                (Op("k", (Selector("h", 1),)), Op("p", (Selector("h", 2),)),
                 Op("e", (Selector(">", 2),)))]:
        assert evaluate.pool_sum(Distribution(die), 3, ops, 5) == _general(die, 3, ops, 5)


def test_a_drop_of_none_changes_no_path() -> None:
    """``pl0`` is stripped before the dispatch: ``4d634083rr<6ro1pl0`` is refused by its
    size as it is without ``pl0``, before the rerolled die is built for a keep."""
    counted = []
    for text in ("4d634083rr<6ro1pl0", "4d634083rr<6ro1"):
        with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
            with pytest.raises(LimitError) as e:
                dist(text)
        assert e.value.limit == "MAX_WEIGHT_BITS"
        counted.append(budget.counted)
    assert counted[0] == counted[1] == 0


@pytest.mark.parametrize("seed", range(3))
def test_a_last_reroll_is_the_engines(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A last ``rr``/``ro`` after the engine's other steps, as sums of the kept dice and
    powers of the redraw: the engine's answer, pool by pool (its own reroll, with the
    projection turned off), on random pools."""
    rng = random.Random(seed)

    def sel() -> str:
        return rng.choice(["", "<", ">", "<=", ">="]) + str(rng.randint(1, 7))

    used = 0
    real = evaluate._last_reroll
    for _ in range(150):
        faces = rng.choice(["d4", "d6", "d3", "d{1,3,3,9}", "d{-2,0,5}", "dF"])
        pre = "".join(rng.choice(["kh2", "kl2", "pl1", "ph1", "e" + sel(), "ra" + sel(),
                                  "mi2", "ma4", "ro" + sel(), "rr" + sel(), "k" + sel()])
                      for _ in range(rng.randint(1, 3)))
        text = f"{rng.randint(1, 4)}{faces}{pre}{rng.choice(['ro', 'rr'])}{sel()}"
        calls = []

        def spy(*args: object, calls: list[object] = calls) -> object:
            got = real(*args)
            calls.append(got)
            return got

        monkeypatch.setattr(evaluate, "_last_reroll", spy)
        try:
            with limits.evaluation(limit=5_000_000, name="MAX_WORK"):
                got = dist(text)
        except ChancekitError:  # (a reroll of every face, a pool past its states' cap)
            continue
        if not any(c is not None for c in calls):
            continue
        used += 1
        monkeypatch.setattr(evaluate, "_last_reroll", lambda *a: None)
        try:
            with limits.evaluation(limit=50_000_000, name="MAX_WORK"):
                want = dist(text)
        except LimitError:  # (the engine's own redraws past a small budget)
            continue
        assert got == want, text
    assert used > 20


def test_a_last_reroll_costs_its_sums_not_its_redraws() -> None:
    """``d944ro<=4ra>0ro41``: 445 000 pools of two dice, each merged with 944 redraws by
    the engine (97 M units: refused); projected, within the budget, the same answer as
    the engine's with the limit lifted."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("d944ro<=4ra>0ro41")
    assert budget.estimated <= limits.MAX_WORK
    real = evaluate._last_reroll
    try:
        evaluate._last_reroll = lambda *a: None  # type: ignore[assignment]
        with limits.evaluation(limit=10**9, name="MAX_WORK") as engine:
            want = dist("d944ro<=4ra>0ro41")
    finally:
        evaluate._last_reroll = real
    assert got == want and engine.estimated > limits.MAX_WORK


def test_runs_of_keeps_of_one_end_are_one() -> None:
    """``kl5kl2`` is ``kl2``, ``pl2pl3`` is ``pl5``: merged before the dispatch, the same
    sums as the general engine's pools step by step (random dice, pools, runs of keeps and
    drops, with and without an explosion first)."""
    from chancekit.dice.evaluate import _general, merge_keeps, pool_sum
    from chancekit.dice.selectors import Op, Selector

    rng = random.Random(4)
    for _ in range(200):
        die = Distribution({f: rng.randint(1, 3) for f in rng.sample(range(-3, 9),
                                                                      rng.randint(2, 5))})
        n = rng.randint(1, 5)
        ops = [Op(rng.choice("kp"), (Selector(rng.choice("hl"), rng.randint(0, 6)),))
               for _ in range(rng.randint(2, 4))]
        if rng.random() < 0.5:
            ops.insert(0, Op("e", (Selector(">", rng.randint(5, 8)),)))
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            assert pool_sum(die, n, tuple(ops), 3) == _general(dict(die.weights), n,
                                                                tuple(ops), 3)
        assert len(merge_keeps(tuple(ops))) <= len(ops)


def test_an_explosion_then_a_run_of_keeps_is_squashed() -> None:
    """``7dF!kl5kl2`` (Roll20): the explosion's squash, as ``7dF!kl2``; it enumerated the
    exploding pools in the general engine (1.1 s, then refused)."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("7dF!kl5kl2", dialect="roll20")
    assert got == dist("7dF!kl2", dialect="roll20")
    assert budget.estimated < 1_000_000


def test_a_reroll_before_a_keep_is_priced_in_the_tree() -> None:
    """A reroll once before a keep leaves every face possible: the keep is priced as the
    plain die's (a lower bound: its price grows with the weights); each count of
    ``((8d4)d4)d10ro<=5pl51`` was priced as no work and the 28th refused after 1.5 s."""
    assert lower_bound(parse("20d10ro<=5pl12")).work > 0
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("(1120d10-((8d4)d4)d10ro<=5pl51)*3")
    assert budget.counted < 1_000_000  # refused from the tree, before the pools


def test_the_tree_never_prices_above_the_charge_on_random_pools() -> None:
    """The tree's work is a lower bound of what the evaluation charges (else it refuses
    what would run): random pools of rerolls, keeps, drops of none, runs of keeps,
    explosions, both dialects."""
    rng = random.Random(5)
    checked = 0
    for _ in range(250):
        n = rng.randint(1, 30)
        faces = rng.choice(["2", "3", "4", "6", "10", "20", "F", "{1,3,3,9}"])
        ops = "".join(rng.choice(["kh", "kl", "ph", "pl", "pl0", "ph0", "ro1", "ro>=1", "!",
                                  "e6", "mi2", "ro<=3"])
                      + (str(rng.randint(0, n + 1)) if rng.random() < 0.8 else "")
                      for _ in range(rng.randint(1, 4)))
        dialect = rng.choice(["avrae", "roll20"])
        text = f"{n}d{faces}{ops}"
        try:
            bound = lower_bound(parse(text, dialect)).work
            with limits.evaluation(limit=2 * 10**8, name="MAX_WORK") as budget:
                dist(text, dialect=dialect)
        except (ChancekitError, Refused):
            continue
        checked += 1
        assert bound <= budget.estimated, (dialect, text, bound, budget.estimated)
    assert checked > 100


def test_a_reroll_and_add_is_refused_before_its_die_is_built() -> None:
    """``69731d939310ro<78ra<4``: the reroll-and-add's outcomes are counted from the faces
    the reroll leaves before it builds the rerolled die (939 310 faces read twice, 1 s,
    then refused); the same refusal, nothing counted."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError, match="rerolling and adding"):
            dist("69731d939310ro<78ra<4")
    assert budget.counted == 0


def test_the_reroll_and_add_look_ahead_never_passes_its_charge(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the look-ahead checks is at most what the evaluation then charges, on random
    pools of rerolls and clamps before ``ra`` (it refuses only what would be refused)."""
    rng = random.Random(8)
    real = limits.check
    checked = 0
    for _ in range(300):
        n, x = rng.randint(1, 40), rng.choice([4, 6, 10, 20, 100, 1000])
        head = "".join(rng.choice(["ro", "rr", "ro<", "rr>", "mi", "ma"]) + str(rng.randint(1, x))
                       for _ in range(rng.randint(0, 2)))
        text = f"{n}d{x}{head}ra{rng.choice(['', '<', '>'])}{rng.randint(1, x)}"
        seen: list[int] = []

        def spy(units: int, what: str, seen: list[int] = seen) -> None:
            if what == "rerolling and adding these dice":
                seen.append(units)
            real(units, what)

        monkeypatch.setattr(evaluate.limits, "check", spy)
        try:
            with limits.evaluation(limit=10**12, name="MAX_WORK") as budget:
                dist(text)
        except ChancekitError:
            continue
        finally:
            monkeypatch.setattr(evaluate.limits, "check", real)
        if seen:
            checked += 1
            assert seen[0] <= budget.estimated, (text, seen[0], budget.estimated)
    assert checked > 100


def test_a_pool_refused_for_its_last_reroll_now_answers() -> None:
    """``8d12p>=68kl5ro>=1ro>22`` beside a rolled count (test_notation_hardening6.py
    refused it before the work): its last reroll is sums and powers now, so the whole
    expression answers within the budget, the tree's price below the charge."""
    text = "(17d6kl0+d8)d20cf=6+5d115kl4+8d12p>=68kl5ro>=1ro>22"
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist(text)
    assert len(got) > 100 and budget.estimated <= limits.MAX_WORK
    assert lower_bound(parse(text)).work <= budget.estimated
    small = "8d12p>=68kl5ro>=1ro>22"
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        fast = dist(small)
    real = evaluate._last_reroll
    try:
        evaluate._last_reroll = lambda *a: None  # type: ignore[assignment]
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            assert dist(small) == fast
    finally:
        evaluate._last_reroll = real


def test_dice_of_rolled_sides_with_operators_are_priced_by_their_faces() -> None:
    """``d(79d20 + 8*27d6ro7)cf<2``: 2 582 dice of 4.1 M faces in all, each built for the
    tree's price and for the pool, then read by its count (1.17 s alone at 9.3 units a
    face). Building each face now costs ``ENTRY_WORK + _ROLLED_SIDE_OPS_WORK``: refused
    before any of them is built; a small one still answers."""
    from chancekit.dice._compile import _ROLLED_SIDE_OPS_WORK
    from chancekit.limits import ENTRY_WORK

    faces = sum(dist("79d20+8*27d6ro7").outcomes())
    # (built, and one pool a side of at least its faces: both charged before any is built)
    assert faces * (2 * ENTRY_WORK + _ROLLED_SIDE_OPS_WORK) > limits.MAX_WORK
    assert faces * 2 * ENTRY_WORK < limits.MAX_WORK  # (the old price let them be built)
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError, match=r"building the dice|rolled numbers"):
            dist("d(79d20+8*27d6ro7)cf<2")
    assert budget.counted < 10_000_000  # (the sides' own sum; no die of them built)
    assert dict(dist("d(2d6)cf<2").weights)


def test_a_sum_of_rerolled_big_dice_is_refused_by_its_span_first() -> None:
    """``8d702518r<=8ro2`` (Roll20): the eight lowest faces all rerolled, so the span's low
    end was unknown and 702 518 faces were rerolled twice (1.5 s) before the sum's size
    refused it; the faces next to a selector's number are read too (9 survives ``<=8``)."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError, match=r"outcomes 9\.\.702518"):
            dist("8d702518r<=8ro2", dialect="roll20")
    assert budget.counted == 0


def test_the_span_ends_are_outcomes_of_the_rerolled_die() -> None:
    """What ``_span_after`` says a die surely shows, it shows (random dice and per-die
    operators against ``per_die`` itself)."""
    from chancekit.dice.evaluate import _span_after, per_die
    from chancekit.dice.selectors import Op, Selector

    rng = random.Random(3)
    checked = 0
    for _ in range(1500):
        faces = sorted(rng.sample(range(-30, 60), rng.randint(2, 40)))
        die = Distribution({f: rng.randint(1, 3) for f in faces})
        ops = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(["rr", "ro", "mi", "ma", "k", "p"])
            cat = None if kind in ("mi", "ma") else rng.choice(["<", ">", "<=", ">=", None])
            ops.append(Op(kind, (Selector(cat, rng.randint(-32, 62)),)))
        try:
            got = per_die(die, tuple(ops), 5)
        except ChancekitError:
            continue
        ends = _span_after(die, tuple(ops))
        if ends is None:
            continue
        checked += 1
        assert ends[0] in got.weights and ends[1] in got.weights, (faces, ops, ends)
    assert checked > 500
