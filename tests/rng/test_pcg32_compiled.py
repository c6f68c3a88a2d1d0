"""The compiled PCG32 core (rng/_pcg32.c) against the pure-Python core (PurePCG32): the
same values and the same state after any mix of calls, the checked fallbacks of the C
methods, and saved states that move freely between the two. The reference vectors run on
both cores in test_pcg32_reference.py, the thread tests in test_threads.py."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit import PCG32, PCG32Random
from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.rng import pcg32
from chancekit.rng.pcg32 import PurePCG32

if not pcg32.COMPILED:  # pragma: no cover - CI builds it (.ci/run checks the compiler)
    if os.environ.get("CI"):
        raise RuntimeError("chancekit.rng._pcg32 was not built: install a C compiler "
                           "and the Python headers, then reinstall (docs/dependencies.md)")
    pytest.skip("the compiled PCG32 core is not built (no C compiler)",
                allow_module_level=True)

U64 = st.integers(0, 2**64 - 1)
BOUNDS = st.one_of(st.integers(1, 12), st.integers(1, 2**32),
                   st.sampled_from([2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**30 + 7]),
                   st.integers(2**32 + 1, 2**200))
OPS = st.lists(st.one_of(
    st.tuples(st.just("next_u32")),
    st.tuples(st.just("random")),
    st.tuples(st.just("randbelow"), BOUNDS),
    st.tuples(st.just("getrandbits"), st.integers(0, 300)),
    st.tuples(st.just("u32_array"), st.integers(0, 70)),
    st.tuples(st.just("random_array"), st.integers(0, 40)),
    st.tuples(st.just("randbelow_array"), st.integers(1, 2**32), st.integers(0, 70)),
    st.tuples(st.just("shuffle"), st.integers(0, 30)),
    st.tuples(st.just("advance"), st.integers(-2**70, 2**70)),
), max_size=25)


def apply(rng, op):
    name, *args = op
    if name == "shuffle":
        x = list(range(args[0]))
        rng.shuffle(x)
        return x
    out = getattr(rng, name)(*args)
    return out.tolist() if isinstance(out, np.ndarray) else out


def test_the_compiled_core_is_in_use():
    assert PCG32.__mro__[2].__module__ == "chancekit.rng._pcg32"
    assert PurePCG32.__mro__[2] is pcg32._PyCore


@settings(max_examples=300, deadline=None)
@given(U64, U64, OPS)
def test_compiled_equals_pure_python(seed, stream, ops):
    c, p = PCG32(seed, stream), PurePCG32(seed, stream)
    for op in ops:
        assert apply(c, op) == apply(p, op), op
        assert c.getstate() == p.getstate()
    assert c == p


@settings(max_examples=100, deadline=None)
@given(U64, st.integers(0, 2**64 - 1), st.integers(0, 3000))
def test_bulk_equals_scalar_across_the_interleaved_loops(state, inc, n):
    """The C fills run four interleaved chains and a tail: every length, every state."""
    inc |= 1
    a, b = PCG32.from_state((state, inc)), PCG32.from_state((state, inc))
    assert a.u32_array(n).tolist() == [b.next_u32() for _ in range(n)]
    assert a.random_array(n).tolist() == [b.random() for _ in range(n)]
    assert a.getstate() == b.getstate()


def test_large_fills_equal_the_pure_path():
    # past the size at which the C fill releases the GIL (reserving its words first)
    for method, args in (("u32_array", (300_000,)), ("random_array", (200_000,)),
                         ("randbelow_array", (2**31 + 1, 100_000)),
                         ("randbelow_array", (2**32, 100_000)),
                         ("randbelow_array", (1024, 100_000))):
        c, p = PCG32(7, 3), PurePCG32(7, 3)
        assert np.array_equal(getattr(c, method)(*args), getattr(p, method)(*args))
        assert c.getstate() == p.getstate()


def test_random_array_values_are_53_bit_fractions():
    x = PCG32(1).random_array(10_000)
    assert x.dtype == np.float64 and 0 <= x.min() and x.max() < 1
    assert np.all((x * 2.0**53) == np.floor(x * 2.0**53))


class Big(int):
    pass


@pytest.mark.parametrize("cls", [PCG32, PurePCG32], ids=["compiled", "python"])
def test_checked_fallbacks_match(cls):
    """What the C fast paths do not take (int subclasses, numpy integers, bad values) goes
    through the same Python checks on both cores."""
    ref = PCG32(5)
    g = cls(5)
    assert g.randbelow(Big(6)) == ref.randbelow(6)
    assert g.randbelow(np.uint64(2**40)) == ref.randbelow(2**40)
    assert g.getrandbits(Big(40)) == ref.getrandbits(40)
    assert g.getrandbits(np.int64(7)) == ref.getrandbits(7)
    assert g.getrandbits(0) == 0
    for bad in (0, -1, -(2**100)):
        with pytest.raises(InvalidValueError, match="bound must be an integer >= 1"):
            g.randbelow(bad)
    for bad in (True, 2.0, "6", None):
        with pytest.raises(InvalidTypeError):
            g.randbelow(bad)
        with pytest.raises(InvalidTypeError):
            g.getrandbits(bad)
    with pytest.raises(InvalidValueError, match="k must be an integer >= 0"):
        g.getrandbits(-1)
    assert g.getstate() == ref.getstate()


def test_saved_states_move_between_the_cores():
    c = PCG32(11, 12)
    c.advance(1000)
    p = PurePCG32.from_json(c.to_json())
    assert p.getstate() == c.getstate() and p == c
    assert PCG32.from_dict(p.to_dict()).next_u32() == p.next_u32()
    assert type(pickle.loads(pickle.dumps(p))) is PCG32  # pickles as the one public class
    assert pickle.loads(pickle.dumps(c)) == c


def test_pcg32random_calls_the_generators_methods_directly():
    r = PCG32Random(42, stream=54)
    assert r.random.__self__ is r.generator and r.getrandbits.__self__ is r.generator
    ref = PCG32(42, 54)
    assert [r.random() for _ in range(3)] == [ref.random() for _ in range(3)]
    r.seed(9)  # reseeds in place: the bound methods follow
    assert r.getrandbits(32) == PCG32(9, 54).next_u32()
    clone = pickle.loads(pickle.dumps(r))
    assert clone.random.__self__ is clone.generator and clone.random() == r.random()


def test_a_subclass_overriding_random_keeps_its_own():
    class Half(PCG32Random):
        def random(self) -> float:
            return 0.5

    r = Half(1)
    assert r.random() == 0.5 and r.uniform(0, 2) == 1.0
    assert r.getrandbits.__self__ is r.generator  # the other one is still bound


@pytest.mark.parametrize("cls", [PCG32, PurePCG32], ids=["compiled", "python"])
def test_absurd_sizes_are_a_limit_error_before_any_allocation(cls):
    from chancekit.errors import LimitError
    from chancekit.limits import MAX_BULK

    g = cls(1)
    start = g.getstate()
    for call in (lambda: g.u32_array(MAX_BULK + 1), lambda: g.random_array(2**63),
                 lambda: g.randbelow_array(6, 2**40), lambda: g.getrandbits(10**12),
                 lambda: g.getrandbits(32 * MAX_BULK + 1), lambda: g.getrandbits(2**64)):
        with pytest.raises(LimitError, match="MAX_BULK") as exc:
            call()
        assert exc.value.limit == "MAX_BULK"
    assert g.getstate() == start
