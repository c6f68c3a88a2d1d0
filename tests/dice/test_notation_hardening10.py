"""Issue 31 item 5, eighth pass: the explosions at the budget's edge of the issue's own
corpus (seeds 2024 and 2025) at 5251c2a. Each new path is checked against the general
engine's own steps on random pools, and its work as counted units, never seconds."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from chancekit import limits
from chancekit.dice import dist, evaluate
from chancekit.dice._estimate import Refused, lower_bound
from chancekit.dice.distribution import Distribution
from chancekit.dice.evaluate import _general, pool_sum, strip_idle
from chancekit.dice.notation import _compile as parse
from chancekit.dice.selectors import Op, Selector
from chancekit.errors import ChancekitError, LimitError


def _random_die(rng: random.Random) -> Distribution:
    return Distribution({f: rng.randint(1, 3)
                         for f in rng.sample(range(-2, 8), rng.randint(2, 4))})


def _random_op(rng: random.Random, top: int, far: int) -> Op:
    """An explosion, keep, reroll or clamp of a die whose highest face is ``top``, or an
    operator that matches no face (``far`` is past them all)."""
    pick = rng.randrange(7)
    if pick == 0:
        return Op("e", (Selector(None, top),))
    if pick == 1:
        return Op("pe", (Selector(">=", top),))
    if pick == 2:
        return Op(rng.choice("kp"), (Selector(rng.choice("hl"), rng.randint(0, 5)),))
    if pick == 3:
        return Op("ro", (Selector("<", rng.randint(-1, 4)),))
    if pick == 4:
        return Op("mi", (Selector(None, 2),))
    if pick == 5:
        return Op(rng.choice(["e", "ro", "rr"]), (Selector(">=", far),))  # idle
    return Op("p", (Selector(">", far),))  # idle


def _same_as_the_engine(die: Distribution, n: int, ops: tuple[Op, ...]) -> None:
    """``pool_sum`` (its shortcuts) gives what the general engine gives, step by step,
    where the engine fits a small budget."""
    try:
        with limits.evaluation(limit=2 * 10**7, name="MAX_WORK"):
            want = _general(dict(die.weights), n, ops, 3)
    except ChancekitError:
        return
    with limits.evaluation(limit=10**9, name="MAX_WORK"):
        assert pool_sum(die, n, ops, 3) == want, ops


def test_an_idle_operator_between_keeps_is_stripped() -> None:
    """``7d3!kh5e7kh2``: ``e7`` matches no face of a d3, so the keeps on either side are
    one and the explosion is squashed: the answer of ``7d3!kh2``. Its pools were kept
    whole, then refused at the budget's edge (48 M units counted, 0.7-1.1 s)."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("7d3!kh5e7kh2")
    assert got == dist("7d3!kh2")
    assert budget.counted < 1_000_000


def test_stripping_idle_operators_is_the_engines_own_skip() -> None:
    """Random dice, pools and operators with operators that match no face among them:
    ``pool_sum`` (stripped, then every shortcut) against the general engine, which skips
    each idle operator in place while every value is a face; and ``strip_idle`` keeps an
    operator after a clamp or a penetration (values that are no face)."""
    rng = random.Random(31)
    stripped = 0
    for _ in range(250):
        die = _random_die(rng)
        n = rng.randint(1, 4)
        top = max(die.weights)
        far = top + rng.randint(1, 5)
        ops = tuple(_random_op(rng, top, far) for _ in range(rng.randint(2, 4)))
        left = strip_idle(die.weights, ops)
        stripped += len(left) < len(ops)
        _same_as_the_engine(die, n, ops)
        for i, op in enumerate(ops):  # the skip stops at the first clamp or penetration
            if op.kind in ("mi", "pe"):
                tail = ops[i + 1:]
                assert left[len(left) - len(tail):] == tail
                break
    assert stripped > 50


def test_the_tree_reads_the_operators_the_engine_reads() -> None:
    """The tree strips the same idle operators, so its bound stays below what the
    evaluation charges (random pools with operators that match no face between keeps)."""
    rng = random.Random(7)
    texts = []
    for _ in range(200):
        n = rng.randint(1, 12)
        faces = rng.choice(["2", "3", "4", "6", "F", "{1,3,3,9}"])
        ops = "".join(rng.choice(["kh", "kl", "ph", "pl", "!", "e7", "ro9", "p>9", "r0",
                                  "ro1", "!p", "mi2"])
                      + (str(rng.randint(0, n + 1)) if rng.random() < 0.6 else "")
                      for _ in range(rng.randint(2, 4)))
        texts.append((f"{n}d{faces}{ops}", rng.choice(["avrae", "roll20"])))
    assert _bound_below_charge(texts) > 80


@pytest.mark.parametrize("kind", ["e", "pe"])
def test_the_squashed_explosion_is_the_whole_pools(kind: str) -> None:
    """The squash's merge (the ``a`` highest, ``b`` lowest and the sum of the middle for a
    drop), written inline: the same sums as the pools kept whole (the explosion not last
    but one: a reroll that matches nothing after the keep), penetrating or not."""
    rng = random.Random(8 if kind == "e" else 9)
    for _ in range(120):
        die = _random_die(rng)
        n = rng.randint(1, 4)
        boom = Op(kind, (Selector(">=", max(die.weights) - rng.randint(0, 1)),))
        keep = Op(rng.choice("kp"), (Selector(rng.choice("hl"), rng.randint(0, 4)),),)
        idle = Op("ro", (Selector(">", 99),))
        assert evaluate._squash_of((boom, keep)) is not None
        assert evaluate._squash_of((boom, keep, idle)) is None
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            squashed = _general(dict(die.weights), n, (boom, keep), 3)
            whole = _general(dict(die.weights), n, (boom, keep, idle), 3)
        assert squashed == whole, (die, n, boom, keep)


def test_a_squash_that_drops_none_still_sums_its_pools() -> None:
    """The engine skipped an idle last operator (a drop of none, ``pl0``) after its
    squashed explosion, and returned the pools as rolled: the explosion was lost
    (``_general`` straight; the notation strips ``pl0`` first)."""
    boom, none = Op("e", (Selector(">=", 4),)), Op("p", (Selector("l", 0),))
    with limits.evaluation(limit=10**9, name="MAX_WORK"):
        got = _general({1: 3, 5: 1}, 3, (boom, none), 3)
        want = _general({1: 3, 5: 1}, 3, (boom,), 3)
    assert got == want and max(got.weights) == 60


def test_a_reroll_after_an_explosion_reads_each_value_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reroll's split of each exploded pool looks up each distinct value's match once
    (a call a die was 0.1 s of ``10d2!pdl75ro<=4``'s 4 246 pools of 112 dice, before the
    step's price); the same answer as the engine's pools."""
    calls = []
    real = Op.matches

    def spy(self: Op, v: object) -> bool:
        calls.append(v)
        return real(self, v)

    with limits.evaluation(limit=10**9, name="MAX_WORK"):
        want = dist("4d3!ro<2kh3")
    monkeypatch.setattr(Op, "matches", spy)
    with limits.evaluation(limit=10**9, name="MAX_WORK"):
        got = dist("4d3!ro<2kh3")
    assert got == want
    assert len(calls) < 500  # values of the pools and faces; a die of every pool: 42 106


def test_a_union_of_one_end_is_its_widest() -> None:
    """One operator's union of the highest ``a`` and the highest ``b`` (Avrae's
    ``kh86kh1``) is the highest ``max(a, b)``: the closed form of an explosion and its
    keep, not a squash of 86 dice (0.5 s to a refusal); random unions against the general
    engine, which reads the selectors one by one."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("41d3!kh86kh1ro>=6")
    assert got == dist("41d3!kh86") and budget.counted < 10_000_000
    rng = random.Random(12)
    for _ in range(150):
        die = _random_die(rng)
        n = rng.randint(1, 4)
        end = rng.choice("hl")
        union = Op(rng.choice("kp"), tuple(Selector(end, rng.randint(-1, 5))
                                           for _ in range(rng.randint(2, 3))))
        ops = (Op("e", (Selector(None, max(die.weights)),)), union)
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            assert pool_sum(die, n, ops, 3) == _general(dict(die.weights), n, ops, 3), ops


def test_a_keep_of_none_after_an_explosion_is_zero() -> None:
    """``5d4!kl0ro<24`` exploded 41 M units of pools and kept none of them: the answer 0,
    nothing enumerated; random steps before a keep of none against the general engine,
    and the tree prices it as 0 too."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("6d4!kl0ro<24")
    assert got == dist("0") and budget.counted < 1_000
    assert lower_bound(parse("6d4!kl0ro<24")).work == 0
    rng = random.Random(13)
    for _ in range(150):
        die = _random_die(rng)
        n = rng.randint(1, 3)
        top = max(die.weights)
        before = tuple(_random_op(rng, top, top + 1) for _ in range(rng.randint(1, 2)))
        ops = (*before, Op("k", (Selector(rng.choice("hl"), rng.randint(-1, 0)),)),
               *(_random_op(rng, top, top + 1) for _ in range(rng.randint(0, 1))))
        _same_as_the_engine(die, n, ops)


def _levels(monkeypatch: pytest.MonkeyPatch, die: Distribution, n: int,
            ops: tuple[Op, ...]) -> list[int]:
    """The merges the general engine plans for each level of its explosion, in order."""
    planned: list[int] = []
    real = evaluate._Budget.plan

    def spy(self: object, elements: int, what: str) -> None:
        if what.startswith("exploding"):
            planned.append(elements)
        real(self, elements, what)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluate._Budget, "plan", spy)
    with limits.evaluation(limit=10**10, name="MAX_WORK"):
        _general(dict(die.weights), n, ops, 6)
    monkeypatch.setattr(evaluate._Budget, "plan", real)
    return planned


def test_a_squash_of_the_far_end_never_gets_cheaper(monkeypatch: pytest.MonkeyPatch) -> None:
    """``squash_grows``: a squash of the lowest dice of an explosion of the highest face
    (or the reverse), every pool as wide as the squash: each level plans at least the
    merges of the one before, counted on random dice (the claim that prices the levels
    left at this one's); and where it does not hold (a middle face) a level can cost
    less, so the claim is not made."""
    rng = random.Random(14)
    checked = cheaper = 0
    for _ in range(200):
        die = _random_die(rng)
        boom = Op("e", (Selector(rng.choice([None, "<=", ">="]),
                                 rng.choice(sorted(die.weights))),))
        width = rng.randint(0, 3)
        keep = Op(rng.choice("kp"), (Selector(rng.choice("hl"), width),))
        n = rng.randint(width, width + 2)
        squash = evaluate._squash_of((boom, keep))
        assert squash is not None
        planned = _levels(monkeypatch, die, n, (boom, keep))
        if evaluate.squash_grows(die.weights, boom, squash):
            checked += 1
            assert planned == sorted(planned), (die, n, boom, keep, planned)
        else:
            cheaper += planned != sorted(planned)
    assert checked > 40 and cheaper > 0, (checked, cheaper)
    # a middle face: 3d6e3kl1's pools past 3 all fall to a lowest 3
    assert not evaluate.squash_grows({f: 1 for f in range(1, 7)},
                                     Op("e", (Selector(None, 3),)), (0, 1, False))


def test_a_growing_squash_is_refused_before_its_levels() -> None:
    """``4D{1,6,11,3}e>2pl2``: its levels priced at the first one's, refused at 14 M units
    counted (47 M before, 0.5 s); the tree's bound stays below what it charges when the
    limit is lifted (random growing squashes)."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("4D{1,6,11,3}e>2pl2- 1")
    assert budget.counted < 20_000_000
    rng = random.Random(15)
    checked = 0
    for _ in range(150):
        n = rng.randint(2, 6)
        faces = rng.choice(["3", "4", "6", "{1,3,6,11}"])
        text = f"{n}d{faces}{rng.choice(['!', 'e>2', 'e>=3'])}{rng.choice(['pl', 'kl'])}" \
               f"{rng.randint(0, n)}"
        try:
            bound = lower_bound(parse(text)).work
            with limits.evaluation(limit=5 * 10**7, name="MAX_WORK") as lifted:
                dist(text)
        except (ChancekitError, Refused):
            continue
        checked += 1
        assert bound <= lifted.estimated, (text, bound, lifted.estimated)
    assert checked > 60


def test_a_rolled_count_with_an_idle_explosion_answers() -> None:
    """``(3d20+d8)d6e8kl1``: ``e8`` matches no face of a d6, and the pools of up to 68
    dice were enumerated for it and refused by their states (``MAX_POOL_STATES``); now
    the keep's closed form, as without it. Its product with ``20501d2`` is refused for
    its work once the left side's weights are known (60 M units), nothing of the
    product done."""
    assert dist("(3d20+d8)d6e8kl1") == dist("(3d20+d8)d6kl1")
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as e:
            dist("20501d2*(3d20+d8)d6e8kl1")
    assert e.value.limit == "MAX_WORK" and "with *" in str(e.value)
    assert budget.counted < 20_000_000  # (20501d2 itself: 17.3 M)


def _bound_below_charge(texts: list[tuple[str, str]], limit: int = 2 * 10**8) -> int:
    """How many of ``texts`` ran, each checked: the tree's work is at most what the
    evaluation charges (else it refuses what would run)."""
    checked = 0
    for text, dialect in texts:
        try:
            bound = lower_bound(parse(text, dialect)).work
            with limits.evaluation(limit=limit, name="MAX_WORK") as budget:
                dist(text, dialect=dialect)
        except (ChancekitError, Refused):
            continue
        checked += 1
        assert bound <= budget.estimated, (dialect, text, bound, budget.estimated)
    return checked


@pytest.mark.parametrize("text", ["d20p<4+\r\n(9672d6)//9", "(9672d6)//9 + 1"])
def test_a_map_of_wide_weights_is_priced_by_their_bits(text: str) -> None:
    """``Distribution.map`` charges a unit an outcome per 96 bits of the total weight;
    the tree now prices it too (from its lower bound of the total's bits): ``(9672d6)//9``
    was refused after the power (41 M units counted, 0.6 s), now before any step."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist(text)
    assert budget.counted < 100_000  # (d20p<4 first: the cheap side)


def test_the_maps_price_stays_below_the_charge() -> None:
    rng = random.Random(16)
    texts = []
    for _ in range(100):
        side = f"{rng.choice([1, 5, 40, 300, 900])}d{rng.choice(['2', '6', '20', 'F', '%'])}"
        side += rng.choice(["", "kh3", "!", "+d8", "*2", "/3"])
        op, c = rng.choice(["+", "-", "*", "/", "//", "%"]), rng.choice(["3", "-7", "1/2", "9"])
        text = f"({side}){op}{c}" if rng.random() < 0.6 else f"{c}{op}({side})"
        texts.append((text if rng.random() < 0.7 else f"({text})//{rng.randint(2, 9)}",
                      "avrae"))
    assert _bound_below_charge(texts, 10**8) > 60


def test_a_sets_items_are_priced_as_their_sums() -> None:
    """A set whose items are all kept is their sum, added one by one
    (``evaluate.items_sum``): each addition priced as a ``+``. The set was priced as its
    items alone, and its last addition refused after the exploded pool (0.6 s); random
    sets against the charge."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("-+(77, 11d{8}, 5d569+64, 71d12!>=3)")
    assert budget.counted < 100_000  # (11d{8} and 5d569 first: 41 M units for the pool)
    rng = random.Random(17)

    def item() -> str:
        return rng.choice([str(rng.randint(-9, 99)), "1/2", "0.5",
                           f"{rng.randint(1, 60)}d{rng.choice([2, 6, 20, 569, 'F'])}",
                           f"{rng.randint(1, 30)}d12!>=3", f"{rng.randint(1, 9)}d6kh2",
                           f"d{rng.randint(2, 3000)}*3", f"{rng.randint(1, 200)}d7/7",
                           "(d4)d6", f"{rng.randint(2, 500)}d2+{rng.randint(1, 9)}"])

    texts = []
    for _ in range(120):
        text = "(" + ", ".join(item() for _ in range(rng.randint(2, 5))) + ")"
        text += rng.choice(["", "", "kh9", "pl0"])
        if rng.random() < 0.4:
            text = rng.choice(["-", "", "2*"]) + text + rng.choice(["", "+d20", "//3"])
        texts.append((text, "avrae"))
    assert _bound_below_charge(texts, 3 * 10**8) > 80


def test_a_keep_of_both_ends_leaves_every_multiset_of_its_dice() -> None:
    """Avrae's ``kl4kl0kh4`` is one keep, of the 4 lowest and the 4 highest: 8 of 9 dice,
    and every multiset of 8 faces is one of its pools (the dropped die at the 4th
    lowest), so the tree prices the step after it: ``9d12kl4kl0kh4ph1`` was priced 47 M,
    ran to 59 M units counted and was refused; now refused before any step. Random
    unions of keeps and drops, rerolls, explosions and idle ``ra`` against the charge."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("-+1*(3d{7,7,6,+11,5}pl2kh5)+9d12kl4kl0kh4ph1")
    assert budget.counted == 0
    rng = random.Random(18)
    texts = []
    for _ in range(400):
        n = rng.randint(1, 9)

        def one(n: int = n) -> str:
            if rng.random() < 0.45:
                kind = rng.choice("kp")
                return "".join(kind + rng.choice("hl") + str(rng.randint(0, n))
                               for _ in range(rng.randint(1, 3)))
            return rng.choice(["ro1", "ro>=5", "!", "e6", "mi2", "ra6", "rr1", "k>3", "p<2"])

        faces = rng.choice(["3", "4", "6", "10", "F", "{1,3,3,9}"])
        texts.append((f"{n}d{faces}" + "".join(one() for _ in range(rng.randint(1, 4))),
                      rng.choice(["avrae", "avrae", "roll20"])))
    assert _bound_below_charge(texts, 5 * 10**7) > 250


def test_a_reroll_and_add_that_matches_no_face_is_idle() -> None:
    """``ra6`` on a d3 adds no die: stripped like the other idle operators (the tree
    priced ``9d3ra6k>3`` 55 800 units where the engine, skipping nothing, charged 55 671);
    the same sums as without it."""
    assert evaluate._idle({1: 1, 2: 1, 3: 1}, Op("ra", (Selector(None, 6),)))
    for text in ("9d3ra6k>3", "4d3ra6kh2kh4ra6", "5dFe6ra6k>3k>3"):
        assert dist(text) == dist(text.replace("ra6", "")), text
    # 6d20e<4ra0e87 was refused (110 G units of general pools): 6d20e<4, die by die
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        got = dist("3517d2-6d20e<4ra0e87")
    assert got == dist("3517d2-6d20e<4") and budget.estimated < 10_000_000


def test_the_pools_that_go_on_cost_every_later_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_going_on``: the merges of the pending pools that go on as they are (their kept
    dice around a value a matching face shows), claimed as a lower bound of every later
    level of a squashed explosion. Random dice, explosions of any faces (penetrating too)
    and keeps/drops of either or both ends: at every level the bound is computed (as if
    near the budget) and no later level plans fewer merges."""
    rng = random.Random(19)
    real_plan = evaluate._Budget.plan
    real_going = evaluate._going_on
    claimed = 0
    for _ in range(150):
        die = _random_die(rng)
        faces = sorted(die.weights)
        kind = rng.choice(["e", "e", "pe"])
        boom = Op(kind, (Selector(rng.choice([None, "<=", ">=", "<", ">"]),
                                  rng.choice(faces)),))
        sels = tuple(Selector(end, rng.randint(0, 2))
                     for end in rng.sample("hl", rng.randint(1, 2)))
        keep = Op(rng.choice("kp"), sels)
        n = rng.randint(1, 4)
        plans: list[int] = []
        going: list[tuple[int, int]] = []

        def plan(self: object, elements: int, what: str, plans: list[int] = plans) -> None:
            if what.startswith("exploding"):
                plans.append(elements)
            real_plan(self, elements, what)  # type: ignore[arg-type]

        def spy(*args: object, going: list[tuple[int, int]] = going,
                plans: list[int] = plans) -> int:
            got = real_going(*args)
            going.append((len(plans), got))  # (this level's plan comes next)
            return got

        monkeypatch.setattr(evaluate._Budget, "plan", plan)
        monkeypatch.setattr(evaluate, "_going_on", spy)
        monkeypatch.setattr(limits, "work_limit", lambda: 0)  # (as if near the budget)
        try:
            with limits.evaluation(limit=10**10, name="MAX_WORK"):
                evaluate._general(dict(die.weights), n, (boom, keep), 5)
        except ChancekitError:
            continue
        finally:
            monkeypatch.undo()
        for at, bound in going:
            claimed += bound > 0
            assert all(later >= bound for later in plans[at + 1:]), (
                die, n, boom, keep, plans, going)
    assert claimed > 100


def test_the_pools_after_a_reroll_and_add_are_counted() -> None:
    """After ``ra`` over every multiset of ``K`` dice, every multiset of ``K + 1`` faces
    with a match is a pool (counted against the engine's own pools on small dice), so the
    step after it is priced: ``7d12ra<=5ph2`` was priced 44 M (330 pools after the
    'ra', not 28 821) and refused at 52 M units counted; now before any step, at the
    units the engine charges. Random pools with an 'ra' against the charge."""
    from chancekit.dice.evaluate import _multisets, _pool_op

    for faces, hit, k in [(5, 2, 3), (6, 1, 2), (4, 4, 2), (7, 3, 1)]:
        base = {f: 1 for f in range(1, faces + 1)}
        op = Op("ra", (Selector("<=", hit),))
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            states = _pool_op(_multisets(base, k), op, base, 3, evaluate._Budget())
        grown = sum(len(t) == k + 1 for t in states)
        assert grown == math.comb(k + faces, faces - 1) - (
            math.comb(k + faces - hit, faces - hit - 1) if faces > hit else 0)
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("7d12ra<=5ph2")
    assert budget.counted == 0
    with limits.evaluation(limit=10**9, name="MAX_WORK") as lifted:
        dist("7d12ra<=5ph2")
    assert lower_bound(parse("7d12ra<=5ph2")).work <= lifted.estimated
    rng = random.Random(20)
    texts = [(f"{rng.randint(1, 7)}d{rng.choice(['4', '6', '10', 'F', '{1,3,3,9}'])}"
              f"{rng.choice(['', 'kh3', 'ro1'])}ra{rng.choice(['<=2', '>3', '1', '<=9'])}"
              f"{rng.choice(['ph1', 'kl2', 'k>2', 'ro2', 'pl1ph1', 'e6'])}", "avrae")
             for _ in range(120)]
    assert _bound_below_charge(texts, 3 * 10**7) > 80


def test_the_mixture_of_rolled_sides_is_priced_as_its_pools_are_built() -> None:
    """``d(+D811rr1)ra25``: 787 pools built (34.7 M units counted), then their mixture
    over a denominator of 2 300 bits was refused. The mixture of the pools built so far
    is a part of the whole (its entries and denominator only grow), checked after each
    pool: refused before the last ones are built; answers are unchanged."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as e:
            dist("d(+D811rr1)ra25")
    assert "mixing the pools of a rolled count" in str(e.value)
    assert budget.counted < 32_000_000
    got = dist("d(d8+2)ra3")
    want: dict[object, int] = {}
    for s in range(3, 11):  # the sides, then the die and its one added die
        part = dist(f"d{s}ra3")
        for v, w in part.weights.items():
            want[v] = want.get(v, 0) + Fraction(w, part.total)
    assert got == Distribution(want)


def test_an_explosion_after_a_reroll_is_priced_before_the_reroll() -> None:
    """``2d328rr<2e>4pl2``: the reroll ran (0.5 s), then the explosion after it was
    refused at 6.8 T units. After a reroll every multiset of the dice over the faces it
    leaves is a pool, so the explosion is priced with it, before the enumeration; random
    rerolls then explosions: the tree (which shares this look-ahead) stays below the
    charge."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as e:
            dist("-2d328rr<2e>4pl2-4d259")
    assert "the explosion after it" in str(e.value) and budget.counted < 100_000
    rng = random.Random(21)
    texts = []
    for _ in range(200):
        faces = rng.choice(["3", "4", "6", "8", "F", "{1,3,3,9}", "{1,6,11,3}"])
        texts.append((f"{rng.randint(1, 5)}d{faces}"
                      f"{rng.choice(['rr', 'ro'])}{rng.choice(['<2', '1', '>5', '<=3'])}"
                      f"{rng.choice(['', '', 'kh3', 'pl1'])}"
                      f"{rng.choice(['!', 'e>2', 'e<2', 'e1', '!p', 'e>4'])}"
                      f"{rng.choice(['', 'kh2', 'pl2', 'kl1', 'ro1', 'kh1kl1'])}",
                      rng.choice(["avrae", "roll20"])))
    assert _bound_below_charge(texts, 5 * 10**7) > 60


def test_a_reroll_after_an_explosion_is_priced_as_pools_finish() -> None:
    """``10d2!pdl75ro<=4`` (Roll20: explode, reroll, drop): the explosion ran (46 M units
    counted), then its reroll was refused at 588 M. The reroll's price over the pools
    done exploding at each level is a part of its whole price (each is a pool of the
    result): refused at the levels, before the explosion ends. On random pools, an
    explosion then a reroll then more: the price never passes what the reroll then
    plans (a false refusal), counted by running with and without it."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError):
            dist("floor(-10d2!pdl75ro<=4)", dialect="roll20")
    assert budget.counted < 20_000_000
    rng = random.Random(22)
    ran = 0
    for _ in range(200):
        die = _random_die(rng)
        top = max(die.weights)
        boom = Op(rng.choice(["e", "pe"]), (Selector(">=", top),))
        reroll = Op(rng.choice(["ro", "rr"]), (Selector(rng.choice(["<", ">", None]),
                                                        rng.choice(sorted(die.weights))),))
        after = Op(rng.choice("kp"), (Selector(rng.choice("hl"), rng.randint(0, 3)),))
        ops = (boom, reroll, after)
        n = rng.randint(1, 3)
        try:
            with limits.evaluation(limit=3 * 10**7, name="MAX_WORK") as lifted:
                want = _general(dict(die.weights), n, ops, 4)
        except ChancekitError:
            continue
        ran += 1
        # the same answer, and within a budget of exactly what it charged
        with limits.evaluation(limit=lifted.estimated, name="MAX_WORK"):
            assert _general(dict(die.weights), n, ops, 4) == want
    assert ran > 100


def test_every_look_ahead_fits_a_budget_of_what_the_pool_charges() -> None:
    """End to end, no false refusal: a pool answered with a lifted budget is answered
    again with a budget of exactly what it charged, so no look-ahead (the levels left of
    a squash, the explosion after a reroll, the reroll after an explosion, the tree)
    asked more than the pool then spent. Random dice, rerolls, explosions, keeps of
    either or both ends."""
    rng = random.Random(23)
    ran = 0
    for _ in range(500):
        n = rng.randint(1, 4)
        faces = rng.choice(["3", "4", "6", "8", "F", "{1,3,3,9}", "{1,6,11,3}"])
        text = (f"{n}d{faces}{rng.choice(['', '', 'ro1', 'rr<2', 'kh4'])}"
                f"{rng.choice(['!', 'e>2', 'e<3', 'e1', '!p', 'e>=3'])}"
                f"{rng.choice(['', 'ro<3', 'rr1'])}"
                f"{rng.choice(['kh2', 'pl2', 'kl1', 'dl1', 'kh1kl1', 'pl1ph1', 'ph0'])}")
        dialect = rng.choice(["avrae", "roll20"])
        try:
            with limits.evaluation(limit=10**7, name="MAX_WORK") as lifted:
                want = dist(text, dialect=dialect)
        except ChancekitError:
            continue
        ran += 1
        with limits.evaluation(limit=lifted.estimated, name="MAX_WORK"):
            assert dist(text, dialect=dialect) == want, (dialect, text)
    assert ran > 120


def test_a_pool_of_no_dice_with_a_compounding_is_zero() -> None:
    """``(0*40d6)d2!!3kh45`` (Roll20, a fresh sample): a pool of no dice ran its
    operators on the one empty pool, and the compounding asserted the general engine
    never meets it: a crash. Every step after keeps that leave no die acts on no die:
    0."""
    for text in ("(-+d3*abs(+23d2!!>6)* (0  *40d6)d2!!3kh45)", "0d2!!3kh45", "(0)d2!!kh1"):
        assert dist(text, dialect="roll20") == dist("0"), text


def test_a_reroll_and_add_of_a_big_die_is_priced_before_its_faces_are_read() -> None:
    """``1d987018ra<5``: its faces split by a call a face, powered and listed (1.1 s),
    then the product of the closed form was refused at 114 M units. Consecutive integers
    with a match take that product for sure: priced first (nothing counted), and the
    faces split by the selectors' intervals; the answers of the closed form unchanged
    against the dice rolled one by one."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as e:
            dist("1d987018ra<5")
    assert "adding the die" in str(e.value) and budget.counted == 0
    for text, n, faces, hit in [("2d6ra>5", 2, 6, lambda v: v > 5),
                                ("3d4ra<2", 3, 4, lambda v: v < 2),
                                ("1d8ra3", 1, 8, lambda v: v == 3)]:
        want: dict[int, Fraction] = {}
        for roll in itertools.product(range(1, faces + 1), repeat=n):
            if any(hit(v) for v in roll):
                for extra in range(1, faces + 1):
                    s = sum(roll) + extra
                    want[s] = want.get(s, 0) + Fraction(1, faces)
            else:
                want[sum(roll)] = want.get(sum(roll), 0) + 1
        assert dist(text) == Distribution(want), text


def test_rerolls_of_a_big_die_keep_its_outcomes_in_the_tree() -> None:
    """A die past the size the tree builds, rerolled (``ro`` leaves every face, ``rr`` all
    but those it matches), then added or not: at least ``n (k - 1) + 1`` outcomes, so the
    pairs it feeds are refused before it is built (``d304854ro<3rr<=4ra<=4 * (7/8dF)``:
    built, 1 s, then MAX_PAIRS); the bound against the outcomes on big dice."""
    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget:
        with pytest.raises(LimitError) as e:
            dist("(d304854ro<3rr<=4ra<=4*(7/8dF))+\r\n7")
    assert e.value.limit == "MAX_PAIRS" and budget.counted == 0
    for text in ("d304854ro<3rr<=4ra<=4", "2d300000rr<=4", "3d200000rr>5ro1",
                 "d250000rr>249990ra>3", "d120000ro<50000rr>100000"):
        with limits.evaluation(limit=10**9, name="MAX_WORK"):
            got = dist(text)
        assert 1 < lower_bound(parse(text)).lo <= len(got), text
