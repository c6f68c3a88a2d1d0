"""PCG32 behaviour: advance, bulk == scalar, state, copying, and bad input."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit import PCG32, InvalidTypeError, InvalidValueError, StateError
from chancekit.rng.pcg32 import _BLOCK

U64 = st.integers(0, 2**64 - 1)


@given(U64, U64, st.integers(0, 5000))
def test_advance_k_then_draw_is_the_k_plus_1th_draw(seed, stream, k):
    a, b = PCG32(seed, stream), PCG32(seed, stream)
    words = [a.next_u32() for _ in range(k + 1)]
    b.advance(k)
    assert b.next_u32() == words[k]


@given(U64, U64, st.integers(-(2**70), 2**70))
def test_advance_negative_undoes_advance(seed, stream, k):
    rng = PCG32(seed, stream)
    before = rng.getstate()
    rng.advance(k)
    rng.advance(-k)
    assert rng.getstate() == before


def test_advance_by_the_period_is_identity_and_zero_is_a_no_op():
    rng = PCG32(5, 6)
    s = rng.getstate()
    rng.advance(2**64)
    assert rng.getstate() == s
    rng.advance(0)
    assert rng.getstate() == s


@pytest.mark.parametrize("n", [0, 1, 2, _BLOCK - 1, _BLOCK, _BLOCK + 1, 100_000])
def test_u32_array_equals_scalar_calls(n):
    a, b = PCG32(2024, 7), PCG32(2024, 7)
    arr = a.u32_array(n)
    assert arr.dtype == np.uint32 and arr.shape == (n,)
    assert arr.tolist() == [b.next_u32() for _ in range(n)]
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("bound", [1, 2, 6, 100, 3 * 2**30, 2**31 + 1, 2**32 - 1, 2**32])
def test_randbelow_array_equals_scalar_calls_including_rejections(bound):
    n = 100_000 if bound in (3 * 2**30, 2**31 + 1) else 20_000
    a, b = PCG32(11, 3), PCG32(11, 3)
    arr = a.randbelow_array(bound, n)
    assert arr.tolist() == [b.randbelow(bound) for _ in range(n)]
    assert a.getstate() == b.getstate()


def test_often_rejecting_bound_really_rejects():
    # 2**31 + 1 rejects almost half the words: the bulk path must consume as many words.
    rng = PCG32(1)
    rng.randbelow_array(2**31 + 1, 10_000)
    used = 0
    probe = PCG32(1)
    while probe.getstate() != rng.getstate():
        probe.next_u32()
        used += 1
    assert 15_000 < used < 25_000


@given(U64, st.integers(1, 2**100))
def test_randbelow_in_range(seed, bound):
    assert 0 <= PCG32(seed).randbelow(bound) < bound


def test_randbelow_small_bound_is_the_reference_rule():
    # r >= (2**32 - bound) % bound, then r % bound: check against the raw words.
    for bound in (3, 6, 7, 1000, 2**31 + 1):
        a, words = PCG32(3, 4), PCG32(3, 4)
        threshold = (2**32 - bound) % bound
        for _ in range(200):
            r = words.next_u32()
            while r < threshold:
                r = words.next_u32()
            assert a.randbelow(bound) == r % bound


def test_large_bound_uses_whole_words_little_endian():
    bound = 2**40 + 5
    a, w = PCG32(8), PCG32(8)
    span = 2**64
    threshold = (span - bound) % bound
    for _ in range(50):
        while True:
            r = w.next_u32() | (w.next_u32() << 32)
            if r >= threshold:
                break
        assert a.randbelow(bound) == r % bound


@given(U64, st.integers(-(10**6), 10**6), st.integers(0, 10**6))
def test_randint_inclusive(seed, a, width):
    assert a <= PCG32(seed).randint(a, a + width) <= a + width


def test_randint_covers_both_ends():
    rng = PCG32(0)
    assert {rng.randint(1, 3) for _ in range(200)} == {1, 2, 3}


@given(U64)
def test_random_is_a_53_bit_fraction_in_unit_interval(seed):
    rng, w = PCG32(seed), PCG32(seed)
    x = rng.random()
    assert 0.0 <= x < 1.0
    a, b = w.next_u32() >> 5, w.next_u32() >> 6
    assert x == (a * 2**26 + b) / 2**53


@given(U64, st.integers(0, 200))
def test_getrandbits_bit_length(seed, k):
    assert PCG32(seed).getrandbits(k).bit_length() <= k


@given(U64, st.lists(st.integers(), max_size=60))
def test_shuffle_is_a_permutation_and_choice_picks_a_member(seed, items):
    rng = PCG32(seed)
    x = list(items)
    rng.shuffle(x)
    assert sorted(x) == sorted(items)
    if items:
        assert rng.choice(items) in items


def test_state_roundtrip_pickle_copy_and_equality():
    rng = PCG32(42, 54)
    rng.advance(1000)
    for clone in (pickle.loads(pickle.dumps(rng)), copy.copy(rng), copy.deepcopy(rng),
                  PCG32.from_state(rng.getstate())):
        assert clone == rng and clone is not rng
        assert clone.next_u32() == PCG32.from_state(rng.getstate()).next_u32()
    s = rng.getstate()
    assert isinstance(s, tuple) and len(s) == 2 and all(isinstance(v, int) for v in s)
    assert s.inc == (54 << 1) | 1


def test_unpickling_an_unknown_version_is_refused():
    _, (version, state, inc) = PCG32(1).__reduce__()
    from chancekit.rng.pcg32 import _unpickle
    with pytest.raises(StateError, match="version"):
        _unpickle(version + 1, state, inc)


@pytest.mark.parametrize("bad", [(1,), (1, 2, 3), "xy", (1, 2), (-1, 3), (2**64, 3),
                                 (1.0, 3), (1, True), None])
def test_setstate_rejects_malformed_states(bad):
    rng = PCG32(1)
    before = rng.getstate()
    with pytest.raises(StateError):
        rng.setstate(bad)
    assert rng.getstate() == before  # nothing half-applied


@pytest.mark.parametrize("seed", [1.5, "1", None, b"1", True])
def test_non_integer_seed_or_stream_is_a_type_error(seed):
    with pytest.raises(InvalidTypeError, match="seed must be an int"):
        PCG32(seed)
    with pytest.raises(InvalidTypeError, match="stream must be an int"):
        PCG32(1, seed)
    with pytest.raises(TypeError):  # also a plain TypeError
        PCG32(seed)


@pytest.mark.parametrize("seed", [-1, 2**64, -(2**70), 2**200])
def test_out_of_range_seed_is_refused_not_reduced(seed):
    with pytest.raises(InvalidValueError, match=r"seed must be an integer from 0 to 2\*\*64 - 1"):
        PCG32(seed)
    with pytest.raises(ValueError, match="stream"):
        PCG32(0, seed)


def test_numpy_integers_are_accepted():
    assert PCG32(np.uint64(42), np.int64(54)).next_u32() == 0xA15C02B7


@pytest.mark.parametrize("bound", [0, -5])
def test_bad_bounds(bound):
    rng = PCG32(1)
    with pytest.raises(InvalidValueError, match=rf"bound must be an integer >= 1, not {bound}"):
        rng.randbelow(bound)
    with pytest.raises(InvalidValueError, match="bound"):
        rng.randbelow_array(bound, 3)


def test_bulk_refuses_bounds_above_2_32_and_negative_counts():
    rng = PCG32(1)
    with pytest.raises(InvalidValueError, match=r"randbelow\(\) for larger bounds"):
        rng.randbelow_array(2**32 + 1, 3)
    with pytest.raises(InvalidValueError, match="n must be"):
        rng.u32_array(-1)
    with pytest.raises(InvalidTypeError):
        rng.randbelow(2.5)


def test_other_bad_input_messages():
    rng = PCG32(1)
    with pytest.raises(InvalidValueError, match=r"empty range for randint\(5, 4\)"):
        rng.randint(5, 4)
    with pytest.raises(InvalidValueError, match="empty sequence"):
        rng.choice([])
    with pytest.raises(InvalidTypeError, match="mutable sequence"):
        rng.shuffle((1, 2, 3))
    with pytest.raises(InvalidTypeError, match="sequence"):
        rng.choice({1, 2})
