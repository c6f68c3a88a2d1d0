"""Issue #11: the bit-source protocol. A source needs only ``next_u32``; every sampler's
scalar and bulk methods work with such a minimal source and, since the bounded, float and
bulk draws are derived by the frozen rules, give exactly what a ``PCG32`` giving the same
words gives. One batch method, ``draw_many(n, rng=None)``, everywhere a ``draw`` exists."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from chancekit import PCG32, InvalidTypeError, PCG32Random, Streams, roll
from chancekit.fair import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    ErrorAccumulator,
    GeneralizedDeck,
    HistoryReroll,
    NoRepeatSystem,
    PityTimer,
    simulate_matches,
)
from chancekit.rng import BitSource, as_source, resolve_rng
from chancekit.rng.source import (
    DerivedSource,
    randbelow,
    randbelow_array,
    random_float,
    u32_array,
)
from chancekit.sampling import AliasTable, ChanceTree, MaxStreak, NoRepeat


class Minimal:
    """Only ``next_u32``: the words of ``PCG32(seed)``, counted."""

    def __init__(self, seed: int) -> None:
        self._g = PCG32(seed)
        self.calls = 0

    def next_u32(self) -> int:
        self.calls += 1
        return self._g.next_u32()


class Scripted:
    """``next_u32`` and ``randbelow`` only, both from a list of words (the reference rule)."""

    def __init__(self, words: list[int]) -> None:
        self.words = list(words)

    def next_u32(self) -> int:
        return self.words.pop(0)

    def randbelow(self, bound: int) -> int:
        return randbelow(DerivedSource(self), bound)


def test_a_minimal_source_is_a_bit_source_and_gets_the_derived_methods():
    src = Minimal(1)
    assert isinstance(src, BitSource) and isinstance(PCG32(1), BitSource)
    wrapped = as_source(src)
    assert isinstance(wrapped, DerivedSource) and wrapped.source is src
    assert resolve_rng(src).source is src  # the old name is the same function
    g = PCG32(1)
    assert wrapped.randbelow(6) == g.randbelow(6)
    assert wrapped.random() == g.random()
    assert wrapped.u32_array(5).tolist() == g.u32_array(5).tolist()
    assert wrapped.randbelow_array(7, 9).tolist() == g.randbelow_array(7, 9).tolist()
    assert wrapped.randbelow(10**30) == g.randbelow(10**30)  # several words
    assert wrapped.next_u32() == g.next_u32()


def test_the_helpers_equal_pcg32_with_any_source():
    for make in (lambda: PCG32(9), lambda: Minimal(9), lambda: as_source(Minimal(9))):
        a, b = make(), PCG32(9)
        assert u32_array(a, 4).tolist() == b.u32_array(4).tolist()
        assert randbelow(a, 1000) == b.randbelow(1000)
        assert random_float(a) == b.random()
        assert randbelow_array(a, 3, 6).tolist() == b.randbelow_array(3, 6).tolist()
        assert randbelow(a, 2**32) == b.randbelow(2**32)
        assert randbelow(a, 1) == b.randbelow(1)  # one word, as the reference
        assert a.next_u32() == b.next_u32()
    with pytest.raises(Exception, match="2\\*\\*32"):
        randbelow_array(Minimal(1), 2**32 + 1, 3)
    assert u32_array(Minimal(1), 0).dtype == np.uint32


def test_randbelow_array_uses_the_sources_own_randbelow():
    words = [0xFFFFFFFF, 5, 6, 7]
    src = Scripted(words)  # 0xFFFFFFFF % 6 == 3; then 5, 0, 1
    assert randbelow_array(src, 6, 4).tolist() == [3, 5, 0, 1]


def test_pcg32random_and_streams_are_accepted_everywhere():
    r = PCG32Random(4, stream=2)
    assert as_source(r) is r.generator
    s = Streams(3)["loot"]
    assert as_source(s) is s
    t = AliasTable({"a": 1, "b": 2})
    assert t.draw_many(5, PCG32Random(4, stream=2)) == t.draw_many(5, PCG32(4, 2))
    for bad in (5, "seed", 1.5, True, object()):
        with pytest.raises(InvalidTypeError):
            as_source(bad)


# every sampler: (factory, scalar draw, batch draw). Each is run with a minimal source and
# with the PCG32 giving the same words: same results, same words consumed.
SAMPLERS = {
    "alias-small": lambda: AliasTable({"sword": 5, "shield": 3, "potion": 12}),
    "alias-int-labels": lambda: AliasTable([1, 2, 3, 4]),
    "alias-float": lambda: AliasTable({"a": 0.1, "b": 0.2, "c": 0.7}),  # span >= 2**32
    "alias-huge": lambda: AliasTable([10**40, 1, 3 * 10**39]),
    "tree": lambda: ChanceTree({"goblin": 6, "orc": 3, "dragon": Fraction(1, 3)}),
    "swap": lambda: ChanceTree({(f, c): 1 for f in range(1, 7) for c in (0, 1)})
    .swap_filter(2, key=lambda item: item[0]),
    "max-streak": lambda: MaxStreak(AliasTable({"hit": 9, "miss": 1}), max_run=2),
    "no-repeat": lambda: NoRepeat(AliasTable([1, 1, 1])),
    "dice": lambda: Dice(6),
    "deck": lambda: Deck(5),
    "gdeck": lambda: GeneralizedDeck(3, 1, 5, weights=(3, 1, 1)),
    "dynamic": lambda: DynamicDice(6, 0.355),
    "prd": lambda: PRD(0.25),
    "pity": lambda: PityTimer(0.05, soft_start=5, ramp=0.2, hard=8),
    "history": lambda: HistoryReroll(7, 4, 4),
    "error-acc": lambda: ErrorAccumulator(0.3),
    "no-repeat-system": lambda: NoRepeatSystem(Deck(4)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_sampler_runs_scalar_and_bulk_on_a_minimal_source(name):
    make = SAMPLERS[name]
    src, ref = Minimal(77), PCG32(77)
    a, b = make(), make()
    scalar = [a.draw(src) for _ in range(30)]
    assert scalar == [b.draw(ref) for _ in range(30)]
    batch = a.draw_many(40, src)
    assert batch == b.draw_many(40, ref)
    assert isinstance(batch, list) and len(batch) == 40
    assert a.draw_many(0, src) == []
    assert src.next_u32() == ref.next_u32()  # the same number of words consumed
    # the batch equals as many scalar draws, with a fresh pair of objects
    c, d = make(), make()
    r1, r2 = PCG32(5), PCG32(5)
    assert c.draw_many(25, r1) == [d.draw(r2) for _ in range(25)]
    assert r1 == r2


@pytest.mark.parametrize("name", ["alias-small", "alias-float", "alias-huge"])
def test_alias_numpy_paths_on_a_minimal_source(name):
    t = SAMPLERS[name]()
    src, ref = Minimal(3), PCG32(3)
    assert t.draw_indices(src, 50).tolist() == t.draw_indices(ref, 50).tolist()
    assert t.draw_array(src, 50).tolist() == t.draw_array(ref, 50).tolist()
    assert [t.draw_index(src) for _ in range(5)] == [t.draw_index(ref) for _ in range(5)]
    assert src.next_u32() == ref.next_u32()


def test_chance_tree_pop_and_dice_roll_on_a_minimal_source():
    a = ChanceTree({"a": 1, "b": 2, "c": 3})
    b = ChanceTree({"a": 1, "b": 2, "c": 3})
    src, ref = Minimal(8), PCG32(8)
    assert [a.pop(src) for _ in range(3)] == [b.pop(ref) for _ in range(3)]
    assert roll("4d6kh3", rng=Minimal(2)).total == roll("4d6kh3", rng=PCG32(2)).total


def test_montecarlo_on_a_minimal_source():
    for system in (Dice(4), Deck(4), PRD(0.3)):
        got = simulate_matches(system, 6, 5, Minimal(4))[0]
        want = simulate_matches(system, 6, 5, PCG32(4))[0]
        assert np.array_equal(got, want)


def test_the_old_batch_names_still_work_silently():
    tree = ChanceTree({(f, c): 1 for f in range(1, 7) for c in (0, 1)})
    f1, f2 = tree.swap_filter(2), ChanceTree(dict(tree.items())).swap_filter(2)
    assert f1.draws(PCG32(4), 20) == f2.draw_many(20, PCG32(4))
    assert Deck(5).sample(5, PCG32(1)) == Deck(5).draw_many(5, PCG32(1))
    t = AliasTable([1, 2, 3])
    assert t.draw_array(PCG32(2), 7).tolist() == t.draw_many(7, PCG32(2))


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_draw_many_refuses_a_bad_count_and_an_integer_rng(name):
    s = SAMPLERS[name]()
    with pytest.raises(InvalidTypeError):
        s.draw_many(3, 5)
    with pytest.raises(InvalidTypeError):
        s.draw_many(PCG32(1), 3)  # the old (rng, n) order is refused, not misread
